// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "store/sql_connection.h"

struct st_mysql;
struct st_mysql_stmt;

namespace cairn::store::mysql {

/// Where a MySQL or MariaDB metadata store lives, from `mysql://user:password@host:port/database`
/// (`?socket=/path/to/mysqld.sock` connects through a Unix socket instead of TCP; user and
/// password are percent-decoded).
struct MysqlUrl {
  std::string host = "127.0.0.1";
  unsigned int port = 3306;
  std::string user;
  std::string password;
  std::string database;
  std::string socket;
};

/// Parses a store URL; kInvalidArgument naming `cairn.store.mysql.url` (never repeating the
/// password) when it is not one.
Result<MysqlUrl> ParseMysqlUrl(std::string_view url);

/// Returns `url` with its password removed, for logs.
std::string RedactMysqlUrl(std::string_view url);

/// A SqlConnection over one MariaDB Connector/C connection to a MariaDB 10.6+ server (the store
/// uses INSERT ... RETURNING and DELETE ... RETURNING, which MariaDB has and MySQL 8 lacks).
///
/// Statements are prepared once per connection and executed with bound parameters; the store's
/// `$n` placeholders become `?` with the parameters laid out in the order they appear (a `$n`
/// may appear more than once). Every column is read as text. The session runs READ COMMITTED in
/// strict mode with utf8mb4 and no backslash escapes. Error mapping: 1062 (duplicate key) ->
/// kAlreadyExists; 1452 / 1216 (no referenced row) -> kNotFound; 1406 (a value longer than
/// its column) -> kInvalidArgument; deadlocks, lock wait
/// timeouts, a lost or refused connection and a server shutting down -> kUnavailable; else
/// kInternal. Once the server connection is lost, IsBroken() turns true. Not thread-safe.
class MysqlConnection final : public SqlConnection {
 public:
  /// Connects (10 s connect timeout, 30 s read and write timeouts). kUnavailable when the server
  /// cannot be reached or refuses the login; the message never repeats the password.
  static Result<std::unique_ptr<MysqlConnection>> Connect(const MysqlUrl& url);

  ~MysqlConnection() override;

  Dialect dialect() const override { return Dialect::kMysql; }
  Result<SqlRows> Execute(std::string_view sql, const std::vector<SqlParam>& params) override;
  Status ExecuteScript(std::string_view sql) override;
  Status Begin() override;
  Status Commit() override;
  Status Rollback() override;
  bool IsBroken() const override { return broken_; }
  int64_t AffectedRows() const override { return affected_; }

 private:
  struct Prepared {
    st_mysql_stmt* stmt = nullptr;
    std::vector<size_t> order;  // for each `?`, the index of the parameter it binds
  };
  explicit MysqlConnection(st_mysql* conn);
  Error Fail(std::string_view what, unsigned int code, const char* message);
  Error FailConn(std::string_view what);
  Error FailStmt(std::string_view what, st_mysql_stmt* stmt);
  Result<Prepared*> Prepare(std::string_view sql);

  st_mysql* conn_;
  bool broken_ = false;
  bool in_transaction_ = false;
  int64_t affected_ = 0;
  std::unordered_map<std::string, Prepared> prepared_;  // by the store's SQL text
};

/// The text MySQL runs for `sql` and, for each `?` in it, which `$n` (0-based) it stands for.
/// `$n` inside quotes is left alone.
std::pair<std::string, std::vector<size_t>> TranslatePlaceholders(std::string_view sql);

}  // namespace cairn::store::mysql
