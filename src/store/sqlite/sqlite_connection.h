// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "store/sql_connection.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cairn::store::sqlite {

/// A SqlConnection over one sqlite3 handle (RAII: sqlite3_close_v2 / sqlite3_finalize).
///
/// Opened in WAL mode with synchronous=NORMAL, foreign_keys=ON and the given busy timeout.
/// Prepared statements are cached per connection, keyed by SQL text. Not thread-safe (see
/// SqlConnection); SQLite itself serializes writers across connections of one file.
class SqliteConnection final : public SqlConnection {
 public:
  /// Opens (creating if needed) the database at `path` (":memory:" for a private in-memory
  /// database); creates missing parent directories. kUnavailable when the file cannot be
  /// opened, kInternal when it is not a usable SQLite database.
  static Result<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                        int busy_timeout_ms);

  ~SqliteConnection() override;

  Dialect dialect() const override { return Dialect::kSqlite; }
  Result<SqlRows> Execute(std::string_view sql, const std::vector<SqlParam>& params) override;
  Status ExecuteScript(std::string_view sql) override;
  Status Begin() override;
  Status Commit() override;
  Status Rollback() override;
  bool IsBroken() const override { return false; }
  int64_t AffectedRows() const override;

 private:
  struct CloseDb {
    void operator()(sqlite3* db) const;
  };
  struct FinalizeStmt {
    void operator()(sqlite3_stmt* stmt) const;
  };
  using DbPtr = std::unique_ptr<sqlite3, CloseDb>;
  using StmtPtr = std::unique_ptr<sqlite3_stmt, FinalizeStmt>;

  /// A prepared statement and, for each `$N` parameter, its bind index (SQLite numbers named
  /// parameters in order of first appearance, not by N).
  struct Prepared {
    StmtPtr stmt;
    std::vector<int> index_of;  // index_of[N-1] = bind index of `$N`, 0 when absent
  };
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  explicit SqliteConnection(DbPtr db);
  Result<const Prepared*> Prepare(std::string_view sql);
  Error LastError(int rc, std::string_view what) const;

  DbPtr db_;
  // Declared after db_ so statements are finalized before the handle is closed.
  std::unordered_map<std::string, Prepared, TextHash, std::equal_to<>> statements_;
};

}  // namespace cairn::store::sqlite
