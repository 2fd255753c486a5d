// SPDX-License-Identifier: Apache-2.0
#include <limits>
#include <set>

#include <spdlog/spdlog.h>

#include "common/util.h"
#include "store/migrations/migrations.h"

namespace cairn::store::migrations {
namespace {

// Arbitrary but fixed: every Cairn replica contends for the same advisory lock.
constexpr int64_t kMigrationLockKey = 0x636169726e;  // "cairn"

constexpr std::string_view kCreateMigrationsTable =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version BIGINT PRIMARY KEY,"
    " applied_at BIGINT NOT NULL)";

Status MigrateLocked(SqlConnection& conn, int up_to_version) {
  if (conn.dialect() == Dialect::kPostgres) {
    CAIRN_RETURN_IF_ERROR(conn.Execute("SELECT pg_advisory_xact_lock($1)", {kMigrationLockKey}));
  }
  CAIRN_RETURN_IF_ERROR(conn.ExecuteScript(kCreateMigrationsTable));
  std::set<int64_t> applied;
  {
    CAIRN_ASSIGN_OR_RETURN(SqlRows rows, conn.Execute("SELECT version FROM schema_migrations", {}));
    for (const SqlRow& row : rows) {
      const std::optional<int64_t> version =
          row.empty() || !row[0] ? std::nullopt : ParseInt64(*row[0]);
      if (!version) {
        return Internal("schema_migrations holds a malformed version");
      }
      applied.insert(*version);
    }
  }
  const std::span<const Migration> known = MigrationsFor(conn.dialect());
  const int64_t newest_known = known.empty() ? 0 : known.back().version;
  if (!applied.empty() && *applied.rbegin() > newest_known) {
    return Internal(
        "the {} metadata database has schema version {}, newer than this Cairn supports ({})",
        DialectName(conn.dialect()), *applied.rbegin(), newest_known);
  }
  for (const Migration& migration : known) {
    if (migration.version > up_to_version) {
      break;
    }
    if (applied.contains(migration.version)) {
      continue;
    }
    spdlog::info("event=store_migrate dialect={} version={} description=\"{}\"",
                 DialectName(conn.dialect()), migration.version, migration.description);
    CAIRN_RETURN_IF_ERROR(conn.ExecuteScript(migration.sql));
    CAIRN_RETURN_IF_ERROR(
        conn.Execute("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
                     {int64_t{migration.version}, NowMillis()}));
  }
  return Ok();
}

Status MigrateUpTo(SqlConnection& conn, int up_to_version) {
  if (conn.dialect() == Dialect::kMysql) {
    // DDL commits implicitly on MySQL, so no transaction holds a lock across the steps: a
    // session lock does, until released (or the connection ends).
    CAIRN_ASSIGN_OR_RETURN(SqlRows locked,
                           conn.Execute("SELECT GET_LOCK('cairn_migrate', 120)", {}));
    if (locked.empty() || locked[0].empty() || locked[0][0] != std::optional<std::string>("1")) {
      return Unavailable("mysql: another replica held the migration lock for 120 s");
    }
    Status status = MigrateLocked(conn, up_to_version);
    (void)conn.Execute("SELECT RELEASE_LOCK('cairn_migrate')", {});
    return status;
  }
  CAIRN_RETURN_IF_ERROR(conn.Begin());
  Status status = MigrateLocked(conn, up_to_version);
  if (!status) {
    (void)conn.Rollback();
    return status;
  }
  status = conn.Commit();
  if (!status) {
    (void)conn.Rollback();
  }
  return status;
}

}  // namespace

std::span<const Migration> MigrationsFor(Dialect dialect) {
  switch (dialect) {
    case Dialect::kSqlite:
      return SqliteMigrations();
    case Dialect::kPostgres:
      return PostgresMigrations();
    case Dialect::kMysql:
      return MysqlMigrations();
  }
  return {};
}

Status Migrate(SqlConnection& conn) { return MigrateUpTo(conn, std::numeric_limits<int>::max()); }

Status MigrateToVersionForTest(SqlConnection& conn, int version) {
  return MigrateUpTo(conn, version);
}

}  // namespace cairn::store::migrations
