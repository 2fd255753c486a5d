// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"

namespace cairn::store {

/// What a backup file holds.
struct BackupInfo {
  std::string path;
  int64_t bytes = 0;
  int64_t schema_version = 0;  // the highest store migration applied
  int64_t rows = 0;            // rows of `entities` (metalakes, catalogs, schemas, tables, ...)
};

/// Copies the embedded SQLite store at `db_path` to the new file `to`, while a server may be
/// serving from it: one read transaction sees one committed state (writers go on meanwhile, in
/// WAL mode), the copy is written beside `to` and renamed into place once complete and checked,
/// so `to` is either absent or a whole, consistent store. kAlreadyExists when `to` exists,
/// kNotFound when there is no store at `db_path`.
Result<BackupInfo> BackupSqliteStore(const std::string& db_path, const std::string& to);

/// Replaces the embedded SQLite store at `db_path` with the backup `from`, after checking that
/// `from` is a whole Cairn store (integrity check, migrations table). Refused (kUnavailable)
/// while a server serves from `db_path`: the store's lock is held for the whole restore. The
/// replaced store's write-ahead log goes with it.
Result<BackupInfo> RestoreSqliteStore(const std::string& from, const std::string& db_path);

}  // namespace cairn::store
