// SPDX-License-Identifier: Apache-2.0
#include <array>

#include "store/migrations/migrations.h"

namespace cairn::store::migrations {
namespace {

// The same schema as on PostgreSQL, in MariaDB's words (10.6+, InnoDB):
// - every table is utf8mb4 with the binary collation, so names compare and sort bytewise, as
//   on SQLite and PostgreSQL (List order and `name > $after` paging);
// - names that are keys are VARCHARs sized to InnoDB's 3,072-byte index limit (a longer value
//   is refused, never cut: the session is strict); bodies are LONGTEXT;
// - DDL is not transactional here: each step is written to be applied once, under the
//   migration lock (GET_LOCK) every replica takes first.
#define CAIRN_MYSQL_TABLE " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"

constexpr std::string_view kV1InitialSchema = R"sql(
CREATE TABLE entities (
  id                 BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
  type               INT           NOT NULL,
  parent_id          BIGINT        NOT NULL,
  name               VARCHAR(700)  NOT NULL,
  comment            LONGTEXT,
  properties         LONGTEXT      NOT NULL DEFAULT '{}',
  in_use             INT           NOT NULL DEFAULT 1,
  payload            LONGTEXT      NOT NULL DEFAULT '',
  location           LONGTEXT,
  creator            VARCHAR(1024) NOT NULL DEFAULT '',
  create_time        BIGINT        NOT NULL DEFAULT 0,
  last_modifier      VARCHAR(1024),
  last_modified_time BIGINT,
  version            BIGINT        NOT NULL DEFAULT 1,
  CONSTRAINT entities_parent_type_name UNIQUE (parent_id, type, name)
))sql" CAIRN_MYSQL_TABLE ";";

constexpr std::string_view kV2EntityLinks = R"sql(
CREATE TABLE entity_links (
  from_id     BIGINT        NOT NULL,
  type        INT           NOT NULL,
  to_id       BIGINT        NOT NULL,
  payload     LONGTEXT      NOT NULL DEFAULT '',
  creator     VARCHAR(1024) NOT NULL DEFAULT '',
  create_time BIGINT        NOT NULL DEFAULT 0,
  PRIMARY KEY (from_id, type, to_id),
  KEY entity_links_to (to_id, type, from_id),
  CONSTRAINT entity_links_from_fk FOREIGN KEY (from_id) REFERENCES entities (id)
    ON DELETE CASCADE,
  CONSTRAINT entity_links_to_fk FOREIGN KEY (to_id) REFERENCES entities (id) ON DELETE CASCADE
))sql" CAIRN_MYSQL_TABLE ";";

constexpr std::string_view kV3Lineage = R"sql(
CREATE TABLE lineage_jobs (
  id              BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  namespace       VARCHAR(255) NOT NULL,
  name            VARCHAR(512) NOT NULL,
  last_run_id     VARCHAR(255) NOT NULL DEFAULT '',
  last_state      VARCHAR(64)  NOT NULL DEFAULT '',
  last_event_time VARCHAR(64)  NOT NULL DEFAULT '',
  CONSTRAINT lineage_jobs_key UNIQUE (namespace, name)
))sql" CAIRN_MYSQL_TABLE R"sql(;
CREATE TABLE lineage_datasets (
  id          BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  namespace   VARCHAR(255) NOT NULL,
  name        VARCHAR(512) NOT NULL,
  metalake    VARCHAR(255) NOT NULL DEFAULT '',
  object_name VARCHAR(512) NOT NULL DEFAULT '',
  CONSTRAINT lineage_datasets_key UNIQUE (namespace, name),
  KEY lineage_datasets_object (metalake, object_name)
))sql" CAIRN_MYSQL_TABLE R"sql(;
CREATE TABLE lineage_runs (
  run_id          VARCHAR(255) NOT NULL PRIMARY KEY,
  job_id          BIGINT       NOT NULL,
  state           VARCHAR(64)  NOT NULL,
  start_time      VARCHAR(64)  NOT NULL DEFAULT '',
  end_time        VARCHAR(64)  NOT NULL DEFAULT '',
  last_event_time VARCHAR(64)  NOT NULL DEFAULT ''
))sql" CAIRN_MYSQL_TABLE R"sql(;
CREATE TABLE lineage_edges (
  dataset_id      BIGINT       NOT NULL,
  role            BIGINT       NOT NULL,
  job_id          BIGINT       NOT NULL,
  last_run_id     VARCHAR(255) NOT NULL DEFAULT '',
  last_event_time VARCHAR(64)  NOT NULL DEFAULT '',
  PRIMARY KEY (dataset_id, role, job_id),
  KEY lineage_edges_job (job_id, role, dataset_id)
))sql" CAIRN_MYSQL_TABLE R"sql(;
CREATE TABLE lineage_column_edges (
  output_dataset_id BIGINT       NOT NULL,
  output_field      VARCHAR(370) NOT NULL,
  input_dataset_id  BIGINT       NOT NULL,
  input_field       VARCHAR(370) NOT NULL,
  job_id            BIGINT       NOT NULL,
  transformation    LONGTEXT     NOT NULL DEFAULT '',
  PRIMARY KEY (output_dataset_id, output_field, input_dataset_id, input_field, job_id)
))sql" CAIRN_MYSQL_TABLE R"sql(;
CREATE TABLE lineage_events (
  id            BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  run_id        VARCHAR(255) NOT NULL,
  job_id        BIGINT       NOT NULL,
  event_type    VARCHAR(64)  NOT NULL,
  event_time    VARCHAR(64)  NOT NULL,
  received_time BIGINT       NOT NULL,
  producer      LONGTEXT     NOT NULL DEFAULT '',
  body          LONGTEXT     NOT NULL DEFAULT '',
  KEY lineage_events_run (run_id, id)
))sql" CAIRN_MYSQL_TABLE ";";

constexpr std::string_view kV4IdempotencyKeys = R"sql(
CREATE TABLE idempotency_keys (
  principal    VARCHAR(255) NOT NULL,
  idem_key     VARCHAR(500) NOT NULL,
  fingerprint  VARCHAR(255) NOT NULL,
  state        BIGINT       NOT NULL,
  lease_until  BIGINT       NOT NULL,
  expires_at   BIGINT       NOT NULL,
  status       BIGINT       NOT NULL DEFAULT 0,
  content_type VARCHAR(255) NOT NULL DEFAULT '',
  headers      LONGTEXT     NOT NULL DEFAULT '',
  body         LONGTEXT     NOT NULL DEFAULT '',
  PRIMARY KEY (principal, idem_key),
  KEY idempotency_keys_expiry (expires_at)
))sql" CAIRN_MYSQL_TABLE ";";

// Version 5 announces changes to replicas on PostgreSQL. MySQL has no notifications: replicas
// on MySQL read through to the database (docs/operations.md#replicas).
constexpr std::string_view kV5ChangeNotifications = "SELECT 1;";

#undef CAIRN_MYSQL_TABLE

constexpr std::array kMigrations = {
    Migration{1, "initial schema", kV1InitialSchema},
    Migration{2, "entity links", kV2EntityLinks},
    Migration{3, "lineage", kV3Lineage},
    Migration{4, "idempotency keys", kV4IdempotencyKeys},
    Migration{5, "change notifications", kV5ChangeNotifications},
};

}  // namespace

std::span<const Migration> MysqlMigrations() { return kMigrations; }

}  // namespace cairn::store::migrations
