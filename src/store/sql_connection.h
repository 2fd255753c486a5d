// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/result.h"

namespace cairn::store {

/// Which SQL database a connection talks to. The store runs the same SQL on all of them; the
/// dialect selects the migration DDL, a few driver-level details, and the handful of statements
/// MySQL spells differently (no UPDATE ... RETURNING, no WITH before DELETE, its own upsert).
enum class Dialect { kSqlite, kPostgres, kMysql };

std::string_view DialectName(Dialect dialect);

/// One bound statement parameter: SQL NULL, an integer, or text.
using SqlParam = std::variant<std::nullptr_t, int64_t, std::string>;
/// One result row: each column as its text form, nullopt for SQL NULL.
using SqlRow = std::vector<std::optional<std::string>>;
using SqlRows = std::vector<SqlRow>;

/// A single database connection: the tiny SQL abstraction the generic store is written against.
///
/// SQL text uses `$1, $2, ...` placeholders on every dialect (MySQL's connection rewrites them
/// to `?`); values are always bound, never formatted into the text. Errors are already mapped
/// to domain codes (with EntityKind kNone):
/// unique/primary-key violations -> kAlreadyExists; foreign-key violations (a referenced row
/// does not exist) -> kNotFound; busy/locked, serialization failures,
/// deadlocks and lost connections -> kUnavailable; anything else -> kInternal with the driver's
/// message (never a password).
///
/// Not thread-safe: one thread uses a connection at a time (the ConnectionPool guarantees it).
class SqlConnection {
 public:
  SqlConnection() = default;
  SqlConnection(const SqlConnection&) = delete;
  SqlConnection& operator=(const SqlConnection&) = delete;
  SqlConnection(SqlConnection&&) = delete;
  SqlConnection& operator=(SqlConnection&&) = delete;
  virtual ~SqlConnection() = default;

  virtual Dialect dialect() const = 0;

  /// Runs one statement with bound parameters (`params[i]` binds `$i+1`) and returns all rows
  /// it produced (empty for statements without results or RETURNING).
  virtual Result<SqlRows> Execute(std::string_view sql, const std::vector<SqlParam>& params) = 0;

  /// Runs a parameterless script of one or more `;`-separated statements (migration DDL).
  virtual Status ExecuteScript(std::string_view sql) = 0;

  /// Transaction control. Begin takes the write lock up front on SQLite (BEGIN IMMEDIATE) so a
  /// transaction never fails half-way on lock upgrade.
  virtual Status Begin() = 0;
  virtual Status Commit() = 0;
  virtual Status Rollback() = 0;

  /// True when the connection is unusable and must be replaced (e.g. the PostgreSQL server went
  /// away). The pool checks it when lending and when taking a connection back.
  virtual bool IsBroken() const = 0;

  /// Rows the last successful Execute of an INSERT, UPDATE or DELETE without RETURNING inserted,
  /// matched or deleted (unspecified after any other statement).
  virtual int64_t AffectedRows() const = 0;
};

}  // namespace cairn::store
