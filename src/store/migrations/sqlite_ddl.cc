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

// Version 2: typed many-to-many links between entities (a tag or a policy attached to objects).
// Both ends reference entities(id) with ON DELETE CASCADE (every connection enables
// foreign_keys), so deleting a row, or the subtree the recursive delete removes, takes its links
// along, and a link to a missing row is refused by the database. The primary key leads with
// from_id and the reverse index with to_id: they serve the two list directions and the lookups
// each cascade makes.
constexpr std::string_view kV2EntityLinks = R"sql(
CREATE TABLE entity_links (
  from_id     INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  type        INTEGER NOT NULL,
  to_id       INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  payload     TEXT    NOT NULL DEFAULT '',
  creator     TEXT    NOT NULL DEFAULT '',
  create_time INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (from_id, type, to_id)
);
CREATE INDEX entity_links_to ON entity_links (to_id, type, from_id);
)sql";

constexpr std::array kMigrations = {
    Migration{1, "initial schema", kV1InitialSchema},
    Migration{2, "entity links", kV2EntityLinks},
};

}  // namespace

std::span<const Migration> SqliteMigrations() { return kMigrations; }

}  // namespace cairn::store::migrations
