// SPDX-License-Identifier: Apache-2.0
#include "store/metadata_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

#include <spdlog/spdlog.h>
#include <sys/file.h>

#include "store/connection_pool.h"
#include "store/migrations/migrations.h"
#include "store/mysql/mysql_connection.h"
#include "store/postgres/pg_connection.h"
#include "store/postgres/pg_listener.h"
#include "store/sql_metadata_store.h"
#include "store/sqlite/sqlite_connection.h"

namespace cairn::store {

std::string_view DialectName(Dialect dialect) {
  switch (dialect) {
    case Dialect::kSqlite:
      return "sqlite";
    case Dialect::kPostgres:
      return "postgres";
    case Dialect::kMysql:
      return "mysql";
  }
  return "unknown";
}

namespace {

// The kind a change notification names (the row's stored type), or nullopt when it names none.
std::optional<EntityType> KindOfPayload(std::string_view payload) {
  int64_t stored = 0;
  const auto [end, ec] = std::from_chars(payload.data(), payload.data() + payload.size(), stored);
  if (ec != std::errc() || end != payload.data() + payload.size()) return std::nullopt;
  return model::FindKindByStoreType(stored);
}

// Opens the first connection, migrates through it, and seeds the pool with it.
Result<std::unique_ptr<MetadataStore>> OpenWith(ConnectionPool::Factory factory, int pool_size,
                                                const StoreOptions& options, bool cache_paths) {
  CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<SqlConnection> first, factory());
  CAIRN_RETURN_IF_ERROR(migrations::Migrate(*first));
  auto pool = std::make_unique<ConnectionPool>(
      std::move(factory), pool_size, std::chrono::milliseconds(options.acquire_timeout_ms));
  pool->AddIdle(std::move(first));
  return std::unique_ptr<MetadataStore>(
      std::make_unique<SqlMetadataStore>(std::move(pool), cache_paths));
}

}  // namespace

namespace {
class StoreFileLock {
 public:
  static Result<std::shared_ptr<StoreFileLock>> Take(const std::string& path) {
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) {
      return Unavailable("cannot open the SQLite store '{}': {}", path, std::strerror(errno));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) {
        return Unavailable(
            "the SQLite store '{}' is in use by another cairn process; run one server per SQLite "
            "store (several replicas share PostgreSQL instead)",
            path);
      }
      return Unavailable("cannot lock the SQLite store '{}': {}", path, std::strerror(err));
    }
    return std::make_shared<StoreFileLock>(fd);
  }
  explicit StoreFileLock(int fd) : fd_(fd) {}
  StoreFileLock(const StoreFileLock&) = delete;
  StoreFileLock& operator=(const StoreFileLock&) = delete;
  ~StoreFileLock() { ::close(fd_); }

 private:
  int fd_;
};

}  // namespace

Result<std::shared_ptr<void>> LockSqliteStore(const std::string& path) {
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<StoreFileLock> lock, StoreFileLock::Take(path));
  return std::shared_ptr<void>(std::move(lock));
}

Result<std::unique_ptr<MetadataStore>> OpenStore(const StoreOptions& options) {
  if (options.type == "sqlite") {
    const bool memory = options.sqlite_path == ":memory:";
    ConnectionPool::Factory factory =
        [path = options.sqlite_path,
         timeout = options.busy_timeout_ms]() -> Result<std::unique_ptr<SqlConnection>> {
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::SqliteConnection> conn,
                             sqlite::SqliteConnection::Open(path, timeout));
      return std::unique_ptr<SqlConnection>(std::move(conn));
    };
    // Each ":memory:" connection is its own database: one connection keeps one database.
    const int pool_size = memory ? 1 : options.pool_size;
    spdlog::info("event=store_open type=sqlite path=\"{}\" pool_size={}", options.sqlite_path,
                 pool_size);
    return OpenWith(std::move(factory), pool_size, options, options.cache_paths);
  }
  if (options.type == "postgres") {
    ConnectionPool::Factory factory =
        [url = options.postgres_url]() -> Result<std::unique_ptr<SqlConnection>> {
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<postgres::PgConnection> conn,
                             postgres::PgConnection::Connect(url));
      return std::unique_ptr<SqlConnection>(std::move(conn));
    };
    spdlog::info("event=store_open type=postgres url=\"{}\" pool_size={} cache_paths={}",
                 postgres::RedactConnectionUrl(options.postgres_url), options.pool_size,
                 options.cache_paths);
    CAIRN_ASSIGN_OR_RETURN(
        std::unique_ptr<MetadataStore> store,
        OpenWith(std::move(factory), options.pool_size, options, options.cache_paths));
    // Replicas share PostgreSQL: every change any of them commits is announced on a channel
    // (the migrations' trigger), and this replica's caches follow it (docs/operations.md).
    auto* sql = static_cast<SqlMetadataStore*>(store.get());
    sql->AttachChangeFeed([&]() -> std::shared_ptr<void> {
      return std::make_shared<postgres::PgListener>(
          options.postgres_url, "cairn_changes",
          [sql](std::string_view payload) { sql->AnnounceChange(KindOfPayload(payload)); },
          [sql](bool connected) { sql->SetFeedConnected(connected); },
          std::chrono::milliseconds(options.change_feed_heartbeat_ms));
    });
    return store;
  }
  if (options.type == "mysql") {
    CAIRN_ASSIGN_OR_RETURN(mysql::MysqlUrl url, mysql::ParseMysqlUrl(options.mysql_url));
    ConnectionPool::Factory factory = [url]() -> Result<std::unique_ptr<SqlConnection>> {
      CAIRN_ASSIGN_OR_RETURN(std::unique_ptr<mysql::MysqlConnection> conn,
                             mysql::MysqlConnection::Connect(url));
      return std::unique_ptr<SqlConnection>(std::move(conn));
    };
    spdlog::info("event=store_open type=mysql url=\"{}\" pool_size={}",
                 mysql::RedactMysqlUrl(options.mysql_url), options.pool_size);
    // MySQL announces no changes: shared by replicas, it is never cached.
    return OpenWith(std::move(factory), options.pool_size, options, /*cache_paths=*/false);
  }
  return InvalidArgument("unknown cairn.store.type '{}' (expected sqlite, postgres or mysql)",
                         options.type);
}

}  // namespace cairn::store
