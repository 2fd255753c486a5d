// SPDX-License-Identifier: Apache-2.0
#include "store/backup.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <spdlog/spdlog.h>

#include "common/util.h"
#include "store/metadata_store.h"
#include "store/sqlite/sqlite_connection.h"

namespace cairn::store {

namespace {

namespace fs = std::filesystem;

constexpr int kBusyTimeoutMs = 30'000;

Status SyncFile(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Unavailable("cannot open '{}' to sync it", path.string());
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Unavailable("cannot sync '{}'", path.string());
  return Ok();
}

Status SyncDirectory(const fs::path& dir) { return SyncFile(dir.empty() ? fs::path(".") : dir); }

Result<int64_t> SingleInt(SqlConnection& conn, std::string_view sql) {
  CAIRN_ASSIGN_OR_RETURN(SqlRows rows, conn.Execute(sql, {}));
  if (rows.empty() || rows[0].empty() || !rows[0][0]) return int64_t{0};
  auto v = ParseInt64(*rows[0][0]);
  if (!v) return Internal("'{}' answered '{}', not a number", sql, *rows[0][0]);
  return *v;
}

// Checks that the SQLite file at `path` is a whole Cairn store and describes it.
Result<BackupInfo> Inspect(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return NotFound(EntityKind::kNone, "no file '{}'", path.string());
  auto conn = sqlite::SqliteConnection::Open(path.string(), kBusyTimeoutMs);
  if (!conn) {
    return InvalidArgument("'{}' is not a SQLite database: {}", path.string(),
                           conn.error().message);
  }
  auto check = (*conn)->Execute("PRAGMA integrity_check", {});
  if (!check) {
    return InvalidArgument("'{}' is not a usable SQLite database: {}", path.string(),
                           check.error().message);
  }
  if (check->empty() || check->front().empty() || check->front()[0] != "ok") {
    return InvalidArgument("'{}' fails SQLite's integrity check: {}", path.string(),
                           check->empty() || check->front().empty() || !check->front()[0]
                               ? std::string("no answer")
                               : *check->front()[0]);
  }
  auto version = SingleInt(**conn, "SELECT MAX(version) FROM schema_migrations");
  if (!version || *version <= 0) {
    return InvalidArgument("'{}' is a SQLite database but not a Cairn store (no migrations)",
                           path.string());
  }
  BackupInfo info;
  info.path = path.string();
  info.bytes = static_cast<int64_t>(fs::file_size(path, ec));
  info.schema_version = *version;
  CAIRN_ASSIGN_OR_RETURN(info.rows, SingleInt(**conn, "SELECT COUNT(*) FROM entities"));
  return info;
}

}  // namespace

Result<BackupInfo> BackupSqliteStore(const std::string& db_path, const std::string& to) {
  std::error_code ec;
  if (!fs::is_regular_file(db_path, ec)) {
    return NotFound(EntityKind::kNone, "no SQLite store at '{}'", db_path);
  }
  const fs::path target = fs::absolute(to, ec);
  if (fs::exists(target, ec)) {
    return AlreadyExists(EntityKind::kNone, "'{}' exists already; a backup never overwrites",
                         target.string());
  }
  if (!target.parent_path().empty()) fs::create_directories(target.parent_path(), ec);
  const fs::path partial = target.string() + ".partial-" + RandomUuid();
  {
    // A connection of its own, beside the server's: SQLite's own locks (not the server's lock
    // on the file) keep the read consistent while the server writes.
    CAIRN_ASSIGN_OR_RETURN(auto source, sqlite::SqliteConnection::Open(db_path, kBusyTimeoutMs));
    auto copied = source->Execute("VACUUM INTO $1", {partial.string()});
    if (!copied) {
      fs::remove(partial, ec);
      return Unavailable("backup of '{}' failed: {}", db_path, copied.error().message);
    }
  }
  auto info = Inspect(partial);
  if (!info) {
    fs::remove(partial, ec);
    return std::move(info).error();
  }
  CAIRN_RETURN_IF_ERROR(SyncFile(partial));
  // link() refuses an existing target, so a backup written meanwhile is never replaced.
  if (::link(partial.c_str(), target.c_str()) != 0) {
    const int err = errno;
    fs::remove(partial, ec);
    if (err == EEXIST) {
      return AlreadyExists(EntityKind::kNone, "'{}' exists already; a backup never overwrites",
                           target.string());
    }
    return Unavailable("cannot move the backup into place at '{}': {}", target.string(),
                       std::strerror(err));
  }
  fs::remove(partial, ec);
  CAIRN_RETURN_IF_ERROR(SyncDirectory(target.parent_path()));
  info->path = target.string();
  spdlog::info("event=store_backup from=\"{}\" to=\"{}\" bytes={} rows={} schema_version={}",
               db_path, info->path, info->bytes, info->rows, info->schema_version);
  return info;
}

Result<BackupInfo> RestoreSqliteStore(const std::string& from, const std::string& db_path) {
  CAIRN_ASSIGN_OR_RETURN(BackupInfo info, Inspect(from));
  // Held until the end: no server may open the store while it is replaced.
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<void> lock, LockSqliteStore(db_path));
  std::error_code ec;
  const fs::path target = fs::absolute(db_path, ec);
  const fs::path partial = target.string() + ".restore-" + RandomUuid();
  fs::copy_file(from, partial, ec);
  if (ec) {
    return Unavailable("cannot copy '{}' beside '{}': {}", from, target.string(), ec.message());
  }
  CAIRN_RETURN_IF_ERROR(SyncFile(partial));
  // The replaced store's log and index describe its pages, not the backup's.
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(target.string() + suffix, ec);
  fs::rename(partial, target, ec);
  if (ec) {
    fs::remove(partial, ec);
    return Unavailable("cannot move the restored store into place at '{}': {}", target.string(),
                       ec.message());
  }
  CAIRN_RETURN_IF_ERROR(SyncDirectory(target.parent_path()));
  info.path = target.string();
  spdlog::info("event=store_restore from=\"{}\" to=\"{}\" bytes={} rows={} schema_version={}", from,
               info.path, info.bytes, info.rows, info.schema_version);
  return info;
}

}  // namespace cairn::store
