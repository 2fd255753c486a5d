// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <span>
#include <string_view>

#include "common/result.h"
#include "store/sql_connection.h"

namespace cairn::store::migrations {

/// One schema step. Versions start at 1 and increase by one; a released step is never edited,
/// only followed by a new one (on both dialects, with the same version number).
struct Migration {
  int version;
  std::string_view description;
  std::string_view sql;  // a script of `;`-separated DDL statements
};

/// The ordered migration lists of each dialect.
std::span<const Migration> SqliteMigrations();
std::span<const Migration> PostgresMigrations();
std::span<const Migration> MysqlMigrations();
std::span<const Migration> MigrationsFor(Dialect dialect);

/// Brings the database behind `conn` up to the newest schema: creates `schema_migrations`
/// (version, applied_at) if needed and applies every missing step, all in one transaction.
/// Concurrent callers are serialized (SQLite: BEGIN IMMEDIATE; PostgreSQL: a transaction-scoped
/// advisory lock; MySQL: GET_LOCK, as its DDL commits on its own), so several replicas may start
/// at once. Idempotent. kInternal when the
/// database already has a version this binary does not know (it is newer than the code).
Status Migrate(SqlConnection& conn);

/// As Migrate, but applies no step newer than `version`: leaves a database as an older Cairn
/// left it, so tests can check that the current code migrates it forward.
Status MigrateToVersionForTest(SqlConnection& conn, int version);

}  // namespace cairn::store::migrations
