// SPDX-License-Identifier: Apache-2.0
// Type and default-value mapping between the object model and PostgreSQL / MySQL, following the
// tables of Gravitino's jdbc-postgresql and jdbc-mysql catalogs (docs/jdbc-catalogs.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "model/table.h"
#include "model/types.h"

namespace cairn::connector::jdbc {

// ---- PostgreSQL ----

/// The PostgreSQL column type for a model type. kInvalidArgument when PostgreSQL has none.
Result<std::string> PgTypeFromModel(const model::Type& type);

/// What pg_catalog says about one column's type.
struct PgColumnType {
  std::string typname;    // pg_type.typname: "int4", "varchar", "_int4" (an array of int4)
  int typmod = -1;        // pg_attribute.atttypmod (-1: no modifier)
  std::string formatted;  // format_type(atttypid, atttypmod): "character varying(10)"
};

/// The model type of a PostgreSQL column; types without a mapping load as external(...).
model::TypePtr PgTypeToModel(const PgColumnType& column);

// ---- MySQL / MariaDB ----

/// The MySQL column type for a model type. kInvalidArgument when MySQL has none.
Result<std::string> MysqlTypeFromModel(const model::Type& type);

/// What information_schema.COLUMNS says about one column's type.
struct MysqlColumnType {
  std::string data_type;    // DATA_TYPE: "int", "varchar"
  std::string column_type;  // COLUMN_TYPE: "int(10) unsigned", "varchar(20)"
  std::optional<int64_t> char_length;
  std::optional<int64_t> numeric_precision;
  std::optional<int64_t> numeric_scale;
  std::optional<int64_t> datetime_precision;
};

/// The model type of a MySQL column; types without a mapping load as external(COLUMN_TYPE).
model::TypePtr MysqlTypeToModel(const MysqlColumnType& column);

// ---- default values ----

/// A SQL string literal: quotes doubled and, for MySQL, backslashes escaped. kInvalidArgument
/// for text holding a NUL character.
Result<std::string> SqlStringLiteral(std::string_view text, bool escape_backslashes);

/// The SQL text of a column default (after DEFAULT). kInvalidArgument for expressions a column
/// default cannot hold (field references, functions whose name is not an identifier).
/// `current_timestamp_precision` >= 0 writes CURRENT_TIMESTAMP(p) (MySQL wants the column's).
Result<std::string> DefaultValueSql(const model::Expression& value, bool escape_backslashes,
                                    int current_timestamp_precision = -1);

/// Checks a default value given in a request: literals and functions only, as Gravitino (an
/// unparsed expression is SQL text and is refused). kInvalidArgument naming the column.
Status CheckRequestedDefault(const std::string& column, const model::Expression& value);

/// The model default of a column from PostgreSQL's pg_get_expr text (nullopt: no default; a
/// nullable column without one reports the NULL literal, as Gravitino does).
std::optional<model::Expression> PgDefaultToModel(const std::optional<std::string>& text,
                                                  const model::TypePtr& type, bool nullable);

/// The model default of a column from information_schema.COLUMNS.COLUMN_DEFAULT, written by
/// MySQL (unquoted literals) or MariaDB (quoted string literals, "NULL").
std::optional<model::Expression> MysqlDefaultToModel(const std::optional<std::string>& text,
                                                     const model::TypePtr& type, bool nullable);

/// The NULL literal.
model::Expression NullLiteral();

}  // namespace cairn::connector::jdbc
