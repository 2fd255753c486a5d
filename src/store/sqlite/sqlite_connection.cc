// SPDX-License-Identifier: Apache-2.0
#include "store/sqlite/sqlite_connection.h"

#include <filesystem>
#include <system_error>
#include <type_traits>
#include <utility>

#include <fmt/format.h>
#include <sqlite3.h>

#include "common/util.h"

namespace cairn::store::sqlite {
namespace {

// Maps a (extended) SQLite result code to the store's error codes.
Error MapError(int rc, std::string_view what, std::string_view message) {
  const int primary = rc & 0xff;
  if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY) {
    return MakeError(ErrorCode::kAlreadyExists, EntityKind::kNone, "sqlite: {}: {}", what, message);
  }
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) {
    return MakeError(ErrorCode::kNotFound, EntityKind::kNone, "sqlite: {}: {}", what, message);
  }
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    return Unavailable("sqlite: {}: database is busy: {}", what, message);
  }
  if (primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR || primary == SQLITE_FULL) {
    return Unavailable("sqlite: {}: {}", what, message);
  }
  return Internal("sqlite: {}: {}", what, message);
}

}  // namespace

void SqliteConnection::CloseDb::operator()(sqlite3* db) const { sqlite3_close_v2(db); }
void SqliteConnection::FinalizeStmt::operator()(sqlite3_stmt* stmt) const {
  sqlite3_finalize(stmt);
}

SqliteConnection::SqliteConnection(DbPtr db) : db_(std::move(db)) {}

SqliteConnection::~SqliteConnection() {
  statements_.clear();  // finalize before close_v2, so the handle really closes now
}

Result<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(const std::string& path,
                                                                 int busy_timeout_ms) {
  if (path.empty()) {
    return InvalidArgument("sqlite store needs a database path (or \":memory:\")");
  }
  if (path != ":memory:") {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(parent, ec);
      if (ec) {
        return Unavailable("sqlite: cannot create directory '{}': {}", parent.string(),
                           ec.message());
      }
    }
  }
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  DbPtr db(raw);  // even a failed open returns a handle that must be closed
  if (rc != SQLITE_OK) {
    return MapError(rc, fmt::format("open '{}'", path),
                    raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
  }
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), busy_timeout_ms);
  std::unique_ptr<SqliteConnection> conn(new SqliteConnection(std::move(db)));
  CAIRN_RETURN_IF_ERROR(conn->ExecuteScript(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"));
  return conn;
}

Error SqliteConnection::LastError(int rc, std::string_view what) const {
  return MapError(rc, what, sqlite3_errmsg(db_.get()));
}

Result<const SqliteConnection::Prepared*> SqliteConnection::Prepare(std::string_view sql) {
  auto it = statements_.find(sql);
  if (it != statements_.end()) {
    return &it->second;
  }
  sqlite3_stmt* raw = nullptr;
  const int rc = sqlite3_prepare_v3(db_.get(), sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
  StmtPtr stmt(raw);
  if (rc != SQLITE_OK) {
    return LastError(rc, "prepare");
  }
  if (!stmt) {
    return Internal("sqlite: prepare: empty statement");
  }
  Prepared prepared;
  const int count = sqlite3_bind_parameter_count(stmt.get());
  for (int index = 1; index <= count; ++index) {
    const char* name = sqlite3_bind_parameter_name(stmt.get(), index);
    if (name == nullptr || name[0] != '$') continue;
    const auto n = ParseInt64(name + 1);
    if (!n || *n < 1 || *n > 10'000) continue;
    if (prepared.index_of.size() < static_cast<size_t>(*n)) {
      prepared.index_of.resize(static_cast<size_t>(*n), 0);
    }
    prepared.index_of[static_cast<size_t>(*n - 1)] = index;
  }
  prepared.stmt = std::move(stmt);
  return &statements_.emplace(std::string(sql), std::move(prepared)).first->second;
}

Result<SqlRows> SqliteConnection::Execute(std::string_view sql,
                                          const std::vector<SqlParam>& params) {
  CAIRN_ASSIGN_OR_RETURN(const Prepared* prepared, Prepare(sql));
  sqlite3_stmt* stmt = prepared->stmt.get();
  // Leave the cached statement reset and unbound whatever happens, so it holds no read lock.
  struct ResetGuard {
    explicit ResetGuard(sqlite3_stmt* s) : stmt(s) {}
    ResetGuard(const ResetGuard&) = delete;
    ResetGuard& operator=(const ResetGuard&) = delete;
    ~ResetGuard() {
      sqlite3_reset(stmt);
      sqlite3_clear_bindings(stmt);
    }
    ResetGuard(ResetGuard&&) = delete;
    ResetGuard& operator=(ResetGuard&&) = delete;
    sqlite3_stmt* stmt;
  } guard(stmt);

  for (size_t i = 0; i < params.size(); ++i) {
    const int index = i < prepared->index_of.size() ? prepared->index_of[i] : 0;
    if (index == 0) {
      return Internal("sqlite: parameter ${} does not occur in the statement", i + 1);
    }
    int rc = SQLITE_OK;
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, std::nullptr_t>) {
            rc = sqlite3_bind_null(stmt, index);
          } else if constexpr (std::is_same_v<T, int64_t>) {
            rc = sqlite3_bind_int64(stmt, index, value);
          } else {
            rc = sqlite3_bind_text64(stmt, index, value.data(), value.size(), SQLITE_TRANSIENT,
                                     SQLITE_UTF8);
          }
        },
        params[i]);
    if (rc != SQLITE_OK) {
      return LastError(rc, "bind");
    }
  }

  SqlRows rows;
  while (true) {
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) {
      break;
    }
    if (rc != SQLITE_ROW) {
      return LastError(rc, "execute");
    }
    const int columns = sqlite3_column_count(stmt);
    SqlRow row;
    row.reserve(static_cast<size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
        row.emplace_back(std::nullopt);
        continue;
      }
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
      const int bytes = sqlite3_column_bytes(stmt, c);
      row.emplace_back(std::string(text != nullptr ? text : "", static_cast<size_t>(bytes)));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

int64_t SqliteConnection::AffectedRows() const { return sqlite3_changes64(db_.get()); }

Status SqliteConnection::ExecuteScript(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  const int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string what = message != nullptr ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return MapError(sqlite3_extended_errcode(db_.get()), "script", what);
  }
  return Ok();
}

Status SqliteConnection::Begin() { return ExecuteScript("BEGIN IMMEDIATE"); }
Status SqliteConnection::Commit() { return ExecuteScript("COMMIT"); }

Status SqliteConnection::Rollback() {
  // After some errors SQLite has already rolled back; a second ROLLBACK is then harmless.
  if (sqlite3_get_autocommit(db_.get()) != 0) {
    return Ok();
  }
  return ExecuteScript("ROLLBACK");
}

}  // namespace cairn::store::sqlite
