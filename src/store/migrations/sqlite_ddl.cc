// SPDX-License-Identifier: Apache-2.0
#include <array>

#include "store/migrations/migrations.h"

namespace cairn::store::migrations {
namespace {

// Version 1: the entity tree. UNIQUE(parent_id, type, name) is also the index behind Get, List
// (name order, keyset paging with `name > $after`), CountChildren and the recursive delete.
constexpr std::string_view kV1InitialSchema = R"sql(
CREATE TABLE entities (
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  type               INTEGER NOT NULL,
  parent_id          INTEGER NOT NULL,
  name               TEXT    NOT NULL,
  comment            TEXT,
  properties         TEXT    NOT NULL DEFAULT '{}',
  in_use             INTEGER NOT NULL DEFAULT 1,
  payload            TEXT    NOT NULL DEFAULT '',
  location           TEXT,
  creator            TEXT    NOT NULL DEFAULT '',
  create_time        INTEGER NOT NULL DEFAULT 0,
  last_modifier      TEXT,
  last_modified_time INTEGER,
  version            INTEGER NOT NULL DEFAULT 1,
  CONSTRAINT entities_parent_type_name UNIQUE (parent_id, type, name)
);
)sql";

constexpr std::array kMigrations = {
    Migration{1, "initial schema", kV1InitialSchema},
};

}  // namespace

std::span<const Migration> SqliteMigrations() { return kMigrations; }

}  // namespace cairn::store::migrations
