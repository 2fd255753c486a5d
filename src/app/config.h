// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "app/request_limits.h"
#include "http/server.h"
#include "service/job_service.h"
#include "service/lineage_forwarder.h"

namespace cairn::app {

/// Every setting of the server. Sources, later ones winning: built-in defaults, the config file
/// (`key = value` lines), environment variables (`CAIRN_<KEY>`: the key without its `cairn.`
/// prefix, upper-cased, with `.` and `-` as `_`), then command-line flags.
struct Config {
  std::string host = "127.0.0.1";
  int port = 8090;
  http::TlsOptions tls;     // TLS on the listener when tls.cert_file is set
  bool plain_http = false;  // plain HTTP on a host that is not a loopback address
  RequestLimitOptions limits;  // none by default
  std::string data_dir = "./data";
  int workers = 0;  // 0: max(2, cores)
  std::string store_type = "sqlite";
  std::string sqlite_path;  // default <data-dir>/cairn.db
  std::string postgres_url;
  std::string mysql_url;  // mysql://user:password@host:port/database[?socket=path]
  int store_pool_size = 0;  // 0: workers
  // PostgreSQL: cache path lookups, kept coherent across replicas by the change feed.
  bool postgres_cache = true;
  int postgres_heartbeat_ms = 1000;  // how often the change feed's connection is checked
  size_t max_body_bytes = 10 * 1024 * 1024;
  size_t max_header_bytes = 64 * 1024;
  int idle_timeout_ms = 60'000;
  int shutdown_grace_ms = 15'000;
  int request_deadline_ms = 60'000;
  std::string log_level = "info";
  std::string iceberg_default_metalake;            // lets Iceberg clients name only the catalog
  service::JobOptions jobs;  // cairn.jobs.*: the job service's executor (staging dir: data dir)
  size_t lineage_queue_capacity = 10000;           // lineage events accepted but not yet written
  service::LineageForwardOptions lineage_forward;  // where accepted events are sent on, if set
  std::vector<std::string> authenticators = {"simple"};
  std::string basic_bootstrap_user;      // created at start (basic) when absent
  std::string basic_bootstrap_password;  // prefer the environment variable for this one
  std::string oauth2_issuer;
  std::vector<std::string> oauth2_audiences;
  std::string oauth2_principal_claim = "sub";
  std::string oauth2_groups_claim = "groups";
  std::string oauth2_jwks_file;
  std::string oauth2_jwks_url;
  std::string oauth2_hs256_secret;
  int oauth2_allowed_skew_secs = 60;
  bool authorization_enabled = false;
  std::vector<std::string> service_admins;
  std::string audit_dir;  // default <data-dir>/audit
  uint64_t audit_max_file_bytes = 64ULL * 1024 * 1024;
  int audit_max_files = 10;
  bool mcp_enabled = true;        // the MCP endpoint at /mcp
  bool metrics_enabled = true;    // Prometheus metrics at /metrics
  bool mcp_allow_writes = false;  // MCP tools that change metadata
  std::vector<std::string> mcp_allowed_origins;
  std::string mcp_default_metalake;
  std::string lance_metalake;  // the metalake /lance/v1 serves (else the only one)
  std::string ui_dir;  // serve the web UI from this directory instead of the built-in files
  int jdbc_connect_timeout_secs = 5;
  int jdbc_statement_timeout_secs = 30;
  int jdbc_pool_wait_ms = 5000;
  // Memory the managed Iceberg catalogs share (connector::IcebergCacheOptions has the same
  // defaults).
  uint64_t iceberg_metadata_cache_bytes = 256ULL * 1024 * 1024;
  int iceberg_metadata_open_files = 256;
  uint64_t iceberg_manifest_cache_bytes = 64ULL * 1024 * 1024;
  size_t iceberg_scan_plan_files_per_task = 1000;
  std::string iceberg_scan_planning_mode;  // "server", "client" or "" (the client decides)
  int iceberg_commit_queue_idle_tables = 8;
  int iceberg_rebased_list_cache_entries = 64;
  int64_t iceberg_idempotency_lifetime_s = 30 * 60;  // 0: Idempotency-Key not honoured
  std::string tracing_otlp_endpoint;  // an OTLP/HTTP collector's base URL; empty: no tracing
  std::string tracing_service_name = "cairn";
};

/// The documented keys, for docs and for rejecting typos.
const std::vector<std::string>& ConfigKeys();

/// Environment variable name of a key: `cairn.store.postgres.url` -> CAIRN_STORE_POSTGRES_URL.
std::string EnvName(const std::string& key);

/// Applies one `key = value`; kInvalidArgument naming the key for unknown keys or bad values.
Status SetConfigValue(Config& config, const std::string& key, const std::string& value);

/// Reads a config file. kInvalidArgument naming the file and line on a syntax error.
Status LoadConfigFile(Config& config, const std::string& path);

/// Applies every CAIRN_* variable of the environment that names a known key.
Status LoadConfigEnv(Config& config);

}  // namespace cairn::app
