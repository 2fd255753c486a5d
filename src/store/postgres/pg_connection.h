// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "store/sql_connection.h"

struct pg_conn;

namespace cairn::store::postgres {

/// A SqlConnection over one libpq connection (RAII: PQfinish / PQclear).
///
/// Statements go through PQexecParams with text parameters; results are read in text format.
/// SQLSTATE mapping: 23505 -> kAlreadyExists; 40001, 40P01, class 08 and server shutdown
/// (57P01..57P03) -> kUnavailable; else kInternal. Once the server connection is lost,
/// IsBroken() turns true and the pool replaces the connection. Not thread-safe.
class PgConnection final : public SqlConnection {
 public:
  /// Connects to `url` (a libpq conninfo string or postgresql:// URI; connect_timeout defaults
  /// to 10 s unless the URL sets it). kUnavailable when the server cannot be reached or refuses
  /// the login; the message never repeats the URL (it may hold a password).
  static Result<std::unique_ptr<PgConnection>> Connect(const std::string& url);

  ~PgConnection() override;

  Dialect dialect() const override { return Dialect::kPostgres; }
  Result<SqlRows> Execute(std::string_view sql, const std::vector<SqlParam>& params) override;
  Status ExecuteScript(std::string_view sql) override;
  Status Begin() override;
  Status Commit() override;
  Status Rollback() override;
  bool IsBroken() const override;
  int64_t AffectedRows() const override { return affected_; }

 private:
  struct Finish {
    void operator()(pg_conn* conn) const;
  };
  explicit PgConnection(std::unique_ptr<pg_conn, Finish> conn);

  std::unique_ptr<pg_conn, Finish> conn_;
  std::unordered_map<std::string, std::string> prepared_;  // SQL text -> prepared statement name
  int64_t affected_ = 0;
};

/// Returns `url` with any password removed (URI userinfo or a `password=` keyword), for logs.
std::string RedactConnectionUrl(std::string_view url);

}  // namespace cairn::store::postgres
