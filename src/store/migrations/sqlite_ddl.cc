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

// Version 3: OpenLineage events and the graph they describe (docs/lineage.md). Events are kept
// append-only; jobs, datasets and runs are upserted by their natural keys; an edge joins a
// dataset to a job as its input or output. Datasets are not entity rows: an event may name a
// table before Cairn knows it, and its lineage outlives a drop. `metalake`/`object_name` hold
// the Cairn object a dataset name maps to, resolved when the graph is read. The edge primary
// key leads with the dataset (the walk from a dataset to its jobs) and the second index with
// the job (from a job to its datasets): each step of the walk is one indexed range per node.
constexpr std::string_view kV3Lineage = R"sql(
CREATE TABLE lineage_jobs (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace       TEXT    NOT NULL,
  name            TEXT    NOT NULL,
  last_run_id     TEXT    NOT NULL DEFAULT '',
  last_state      TEXT    NOT NULL DEFAULT '',
  last_event_time TEXT    NOT NULL DEFAULT '',
  CONSTRAINT lineage_jobs_key UNIQUE (namespace, name)
);
CREATE TABLE lineage_datasets (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace   TEXT    NOT NULL,
  name        TEXT    NOT NULL,
  metalake    TEXT    NOT NULL DEFAULT '',
  object_name TEXT    NOT NULL DEFAULT '',
  CONSTRAINT lineage_datasets_key UNIQUE (namespace, name)
);
CREATE INDEX lineage_datasets_object ON lineage_datasets (metalake, object_name);
CREATE TABLE lineage_runs (
  run_id          TEXT    PRIMARY KEY,
  job_id          INTEGER NOT NULL,
  state           TEXT    NOT NULL,
  start_time      TEXT    NOT NULL DEFAULT '',
  end_time        TEXT    NOT NULL DEFAULT '',
  last_event_time TEXT    NOT NULL DEFAULT ''
);
CREATE TABLE lineage_edges (
  dataset_id      INTEGER NOT NULL,
  role            INTEGER NOT NULL,
  job_id          INTEGER NOT NULL,
  last_run_id     TEXT    NOT NULL DEFAULT '',
  last_event_time TEXT    NOT NULL DEFAULT '',
  PRIMARY KEY (dataset_id, role, job_id)
) WITHOUT ROWID;
CREATE INDEX lineage_edges_job ON lineage_edges (job_id, role, dataset_id);
CREATE TABLE lineage_column_edges (
  output_dataset_id INTEGER NOT NULL,
  output_field      TEXT    NOT NULL,
  input_dataset_id  INTEGER NOT NULL,
  input_field       TEXT    NOT NULL,
  job_id            INTEGER NOT NULL,
  transformation    TEXT    NOT NULL DEFAULT '',
  PRIMARY KEY (output_dataset_id, output_field, input_dataset_id, input_field, job_id)
) WITHOUT ROWID;
CREATE TABLE lineage_events (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id        TEXT    NOT NULL,
  job_id        INTEGER NOT NULL,
  event_type    TEXT    NOT NULL,
  event_time    TEXT    NOT NULL,
  received_time INTEGER NOT NULL,
  producer      TEXT    NOT NULL DEFAULT '',
  body          TEXT    NOT NULL
);
CREATE INDEX lineage_events_run ON lineage_events (run_id, id);
)sql";

// Iceberg REST idempotency keys: the final answer to a mutation, replayed for a retry with the
// same key by the same principal (docs/iceberg-rest.md#idempotency-keys).
constexpr std::string_view kV4IdempotencyKeys = R"sql(
CREATE TABLE idempotency_keys (
  principal    TEXT    NOT NULL,
  idem_key     TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  state        INTEGER NOT NULL,
  lease_until  INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  status       INTEGER NOT NULL DEFAULT 0,
  content_type TEXT    NOT NULL DEFAULT '',
  headers      TEXT    NOT NULL DEFAULT '',
  body         TEXT    NOT NULL DEFAULT '',
  PRIMARY KEY (principal, idem_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
)sql";

// Version 5: PostgreSQL's change notifications for replicas' caches. The embedded store has one
// server per file (LockSqliteStore), which sees its own writes: nothing to add.
constexpr std::string_view kV5ChangeNotifications = "SELECT 1;";

constexpr std::array kMigrations = {
    Migration{1, "initial schema", kV1InitialSchema},
    Migration{2, "entity links", kV2EntityLinks},
    Migration{3, "lineage", kV3Lineage},
    Migration{4, "idempotency keys", kV4IdempotencyKeys},
    Migration{5, "change notifications", kV5ChangeNotifications},
};

}  // namespace

std::span<const Migration> SqliteMigrations() { return kMigrations; }

}  // namespace cairn::store::migrations
