// SPDX-License-Identifier: Apache-2.0
// What differs between the PostgreSQL and MySQL catalogs: SQL text and catalog queries.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "connector/jdbc/jdbc_session.h"
#include "model/entities.h"
#include "model/table.h"

namespace cairn::connector::jdbc {

class Dialect {
 public:
  virtual ~Dialect() = default;

  virtual std::string_view Name() const = 0;  // "PostgreSQL" | "MySQL"
  /// True when DDL statements can run in one transaction (all or nothing).
  virtual bool TransactionalDdl() const = 0;

  /// Schema names, one per row, sorted.
  virtual std::string ListSchemasSql() const = 0;
  /// Schema names that do not count as user data for the non-empty catalog check.
  virtual std::vector<std::string> BuiltinSchemas() const = 0;
  /// One row (name, comment) when the schema exists.
  virtual Result<std::string> LoadSchemaSql(std::string_view name) const = 0;
  virtual Result<std::vector<std::string>> CreateSchemaSql(const model::Schema& schema) const = 0;
  virtual std::string DropSchemaSql(std::string_view name, bool cascade) const = 0;

  /// Table names of a schema, one per row, sorted.
  virtual Result<std::string> ListTablesSql(std::string_view schema) const = 0;
  /// The table as the source describes it now; nullopt when it does not exist.
  virtual Result<std::optional<model::Table>> LoadTable(Session& session, std::string_view schema,
                                                        std::string_view name) const = 0;
  virtual Result<std::vector<std::string>> CreateTableSql(std::string_view schema,
                                                          const model::Table& table) const = 0;
  /// Statements for `changes` applied in order to `table` (as loaded); `table` is updated to
  /// what it will be afterwards (its name follows renames).
  virtual Result<std::vector<std::string>> AlterTableSql(
      std::string_view schema, model::Table& table,
      const std::vector<model::TableChange>& changes) const = 0;
  virtual std::string DropTableSql(std::string_view schema, std::string_view name) const = 0;
};

std::unique_ptr<Dialect> MakePostgresDialect();
std::unique_ptr<Dialect> MakeMysqlDialect();

/// Applies one column- or table-level change to an in-memory table (what the source will hold
/// after the matching DDL). kInvalidArgument for a missing column or a nested field name.
Status ApplyChange(model::Table& table, const model::TableChange& change);

}  // namespace cairn::connector::jdbc
