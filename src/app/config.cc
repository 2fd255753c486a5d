// SPDX-License-Identifier: Apache-2.0
#include "app/config.h"

#include <cstdlib>
#include <fstream>

#include "common/util.h"

namespace cairn::app {

const std::vector<std::string>& ConfigKeys() {
  static const std::vector<std::string> keys = {
      "cairn.server.host",
      "cairn.server.port",
      "cairn.server.tls.cert-file",
      "cairn.server.tls.key-file",
      "cairn.server.tls.client-ca-file",
      "cairn.server.tls.client-auth",
      "cairn.server.tls.reload-interval-ms",
      "cairn.server.plain-http",
      "cairn.limits.principal.max-in-flight",
      "cairn.limits.principal.requests-per-second",
      "cairn.limits.principal.burst",
      "cairn.limits.interface.max-in-flight",
      "cairn.limits.interface.requests-per-second",
      "cairn.limits.refusal-delay-ms",
      "cairn.data-dir",
      "cairn.server.workers",
      "cairn.store.type",
      "cairn.store.sqlite.path",
      "cairn.store.postgres.url",
      "cairn.store.mysql.url",
      "cairn.store.pool-size",
      "cairn.store.postgres.cache",
      "cairn.store.postgres.heartbeat-ms",
      "cairn.http.max-body-bytes",
      "cairn.http.max-header-bytes",
      "cairn.http.idle-timeout-ms",
      "cairn.server.shutdown-grace-ms",
      "cairn.server.request-deadline-ms",
      "cairn.log.level",
      "cairn.iceberg.default-metalake",
      "cairn.lineage.queue-capacity",
      "cairn.lineage.forward.url",
      "cairn.lineage.forward.endpoint",
      "cairn.lineage.forward.api-key",
      "cairn.lineage.forward.timeout-ms",
      "cairn.iceberg.metadata-cache-bytes",
      "cairn.iceberg.metadata-open-files",
      "cairn.iceberg.commit-queue-idle-tables",
      "cairn.iceberg.rebased-list-cache-entries",
      "cairn.iceberg.manifest-cache-bytes",
      "cairn.iceberg.scan-plan-files-per-task",
      "cairn.iceberg.scan-planning-mode",
      "cairn.iceberg.idempotency-key-lifetime",
      "cairn.tracing.otlp-endpoint",
      "cairn.tracing.service-name",
      "cairn.jdbc.connect-timeout-secs",
      "cairn.jdbc.statement-timeout-secs",
      "cairn.jdbc.pool-wait-ms",
      "cairn.authenticators",
      "cairn.authenticator.oauth2.issuer",
      "cairn.authenticator.basic.bootstrap-user",
      "cairn.authenticator.basic.bootstrap-password",
      "cairn.authenticator.oauth2.audience",
      "cairn.authenticator.oauth2.principal-claim",
      "cairn.authenticator.oauth2.groups-claim",
      "cairn.authenticator.oauth2.jwks-file",
      "cairn.authenticator.oauth2.jwks-url",
      "cairn.authenticator.oauth2.hs256-secret",
      "cairn.authenticator.oauth2.allowed-skew-secs",
      "cairn.authorization.enable",
      "cairn.authorization.service-admins",
      "cairn.audit.dir",
      "cairn.audit.max-file-bytes",
      "cairn.audit.max-files",
      "cairn.mcp.enable",
      "cairn.mcp.allow-writes",
      "cairn.mcp.allowed-origins",
      "cairn.mcp.default-metalake",
      "cairn.lance.metalake",
      "cairn.ui.dir",
      "cairn.metrics.enable",
      "cairn.jobs.local-executor.enabled",
      "cairn.jobs.staging-dir",
      "cairn.jobs.max-running",
      "cairn.jobs.spark-home",
      "cairn.jobs.cancel-grace-ms",
      "cairn.maintenance.schedule-interval-ms",
  };
  return keys;
}

std::string EnvName(const std::string& key) {
  std::string rest = key.rfind("cairn.", 0) == 0 ? key.substr(6) : key;
  std::string out = "CAIRN_";
  for (char c : ToUpper(rest)) out += (c == '.' || c == '-') ? '_' : c;
  return out;
}

namespace {

Result<int64_t> ParseNumber(const std::string& key, const std::string& value, int64_t min,
                            int64_t max) {
  auto v = ParseInt64(Trim(value));
  if (!v || *v < min || *v > max) {
    return InvalidArgument("Config key '{}' must be an integer in [{}, {}], got '{}'", key, min,
                           max, value);
  }
  return *v;
}

}  // namespace

Status SetConfigValue(Config& c, const std::string& key, const std::string& raw) {
  const std::string value(Trim(raw));
  if (key == "cairn.server.host") {
    c.host = value;
  } else if (key == "cairn.server.port") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 65535));
    c.port = static_cast<int>(v);
  } else if (key == "cairn.server.tls.cert-file") {
    c.tls.cert_file = value;
  } else if (key == "cairn.server.tls.key-file") {
    c.tls.key_file = value;
  } else if (key == "cairn.server.tls.client-ca-file") {
    c.tls.client_ca_file = value;
  } else if (key == "cairn.server.tls.client-auth") {
    if (value != "optional" && value != "required")
      return InvalidArgument("Config key '{}' must be 'optional' or 'required', got '{}'", key,
                             value);
    c.tls.require_client_cert = value == "required";
  } else if (key == "cairn.server.tls.reload-interval-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 86'400'000));
    c.tls.reload_interval_ms = static_cast<int>(v);
  } else if (key == "cairn.server.plain-http") {
    if (value != "true" && value != "false")
      return InvalidArgument("Config key '{}' must be true or false", key);
    c.plain_http = value == "true";
  } else if (key == "cairn.limits.refusal-delay-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 10'000));
    c.limits.refusal_delay_ms = static_cast<int>(v);
  } else if (key == "cairn.limits.principal.max-in-flight") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 1'000'000));
    c.limits.per_principal.max_in_flight = static_cast<int>(v);
  } else if (key == "cairn.limits.principal.requests-per-second" ||
             key == "cairn.limits.principal.burst") {
    CAIRN_ASSIGN_OR_RETURN(auto v,
                           ParseLimitNumber(fmt::format("Config key '{}'", key), value, 1e9));
    (key == "cairn.limits.principal.burst" ? c.limits.per_principal.burst
                                           : c.limits.per_principal.per_second) = v;
  } else if (key == "cairn.limits.interface.max-in-flight" ||
             key == "cairn.limits.interface.requests-per-second") {
    const bool in_flight = key == "cairn.limits.interface.max-in-flight";
    CAIRN_ASSIGN_OR_RETURN(auto values,
                           ParseInterfaceValues(key, value, in_flight ? 1'000'000 : 1e9));
    for (auto& rule : c.limits.per_interface) {  // the value names every limited interface
      if (in_flight) {
        rule.max_in_flight = 0;
      } else {
        rule.per_second = 0;
      }
    }
    for (const auto& [interface, v] : values) {
      auto& rule = c.limits.per_interface[static_cast<size_t>(interface)];
      if (in_flight) {
        rule.max_in_flight = static_cast<int>(v);
      } else {
        rule.per_second = v;
      }
    }
  } else if (key == "cairn.data-dir") {
    if (value.empty()) return InvalidArgument("Config key '{}' must not be empty", key);
    c.data_dir = value;
  } else if (key == "cairn.server.workers") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 1024));
    c.workers = static_cast<int>(v);
  } else if (key == "cairn.store.type") {
    if (value != "sqlite" && value != "postgres" && value != "mysql") {
      return InvalidArgument("Config key '{}' must be 'sqlite', 'postgres' or 'mysql', got '{}'",
                             key, value);
    }
    c.store_type = value;
  } else if (key == "cairn.store.sqlite.path") {
    c.sqlite_path = value;
  } else if (key == "cairn.store.postgres.url") {
    c.postgres_url = value;
  } else if (key == "cairn.store.mysql.url") {
    c.mysql_url = value;
  } else if (key == "cairn.store.postgres.cache") {
    if (value != "true" && value != "false")
      return InvalidArgument("Config key '{}' must be true or false", key);
    c.postgres_cache = value == "true";
  } else if (key == "cairn.store.postgres.heartbeat-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 50, 60'000));
    c.postgres_heartbeat_ms = static_cast<int>(v);
  } else if (key == "cairn.store.pool-size") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 1024));
    c.store_pool_size = static_cast<int>(v);
  } else if (key == "cairn.http.max-body-bytes") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 1024, int64_t{1} << 34));
    c.max_body_bytes = static_cast<size_t>(v);
  } else if (key == "cairn.http.max-header-bytes") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 1024, 1 << 24));
    c.max_header_bytes = static_cast<size_t>(v);
  } else if (key == "cairn.http.idle-timeout-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 100, 3'600'000));
    c.idle_timeout_ms = static_cast<int>(v);
  } else if (key == "cairn.server.shutdown-grace-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 3'600'000));
    c.shutdown_grace_ms = static_cast<int>(v);
  } else if (key == "cairn.server.request-deadline-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 3'600'000));
    c.request_deadline_ms = static_cast<int>(v);
  } else if (key == "cairn.authenticators") {
    c.authenticators.clear();
    for (const auto& a : Split(value, ',')) {
      const std::string name(Trim(a));
      if (name != "simple" && name != "basic" && name != "oauth2" && name != "certificate") {
        return InvalidArgument(
            "Config key '{}' lists an unknown authenticator '{}'; expected simple, basic, "
            "oauth2, certificate",
            key, name);
      }
      c.authenticators.push_back(name);
    }
  } else if (key == "cairn.authenticator.basic.bootstrap-user") {
    c.basic_bootstrap_user = value;
  } else if (key == "cairn.authenticator.basic.bootstrap-password") {
    c.basic_bootstrap_password = value;
  } else if (key == "cairn.authenticator.oauth2.issuer") {
    c.oauth2_issuer = value;
  } else if (key == "cairn.authenticator.oauth2.audience") {
    c.oauth2_audiences.clear();
    for (const auto& a : Split(value, ',')) {
      if (!Trim(a).empty()) c.oauth2_audiences.emplace_back(Trim(a));
    }
  } else if (key == "cairn.authenticator.oauth2.principal-claim") {
    c.oauth2_principal_claim = value;
  } else if (key == "cairn.authenticator.oauth2.groups-claim") {
    c.oauth2_groups_claim = value;
  } else if (key == "cairn.authenticator.oauth2.jwks-file") {
    c.oauth2_jwks_file = value;
  } else if (key == "cairn.authenticator.oauth2.jwks-url") {
    c.oauth2_jwks_url = value;
  } else if (key == "cairn.authenticator.oauth2.hs256-secret") {
    c.oauth2_hs256_secret = value;
  } else if (key == "cairn.authenticator.oauth2.allowed-skew-secs") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 3600));
    c.oauth2_allowed_skew_secs = static_cast<int>(v);
  } else if (key == "cairn.authorization.enable") {
    if (value != "true" && value != "false")
      return InvalidArgument("Config key '{}' must be true or false", key);
    c.authorization_enabled = value == "true";
  } else if (key == "cairn.authorization.service-admins") {
    c.service_admins.clear();
    for (const auto& a : Split(value, ',')) {
      if (!Trim(a).empty()) c.service_admins.emplace_back(Trim(a));
    }
  } else if (key == "cairn.audit.dir") {
    c.audit_dir = value;
  } else if (key == "cairn.audit.max-file-bytes") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 4096, int64_t{1} << 40));
    c.audit_max_file_bytes = static_cast<uint64_t>(v);
  } else if (key == "cairn.audit.max-files") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 1, 1000));
    c.audit_max_files = static_cast<int>(v);
  } else if (key == "cairn.jdbc.connect-timeout-secs") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 2, 3600));
    c.jdbc_connect_timeout_secs = static_cast<int>(v);
  } else if (key == "cairn.jdbc.statement-timeout-secs") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 1, 86400));
    c.jdbc_statement_timeout_secs = static_cast<int>(v);
  } else if (key == "cairn.jdbc.pool-wait-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 600'000));
    c.jdbc_pool_wait_ms = static_cast<int>(v);
  } else if (key == "cairn.lineage.queue-capacity") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 1, 10'000'000));
    c.lineage_queue_capacity = static_cast<size_t>(v);
  } else if (key == "cairn.lineage.forward.url" || key == "cairn.lineage.forward.api-key") {
    service::LineageForwardOptions next = c.lineage_forward;  // a refused value is not kept
    (key == "cairn.lineage.forward.url" ? next.url : next.api_key) = value;
    CAIRN_RETURN_IF_ERROR(service::ValidateForwardOptions(next));
    c.lineage_forward = std::move(next);
  } else if (key == "cairn.lineage.forward.endpoint") {
    c.lineage_forward.endpoint = value;
  } else if (key == "cairn.lineage.forward.timeout-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 1, 600'000));
    c.lineage_forward.timeout_ms = static_cast<long>(v);
  } else if (key == "cairn.metrics.enable") {
    if (value != "true" && value != "false")
      return InvalidArgument("Config key '{}' must be true or false", key);
    c.metrics_enabled = value == "true";
  } else if (key == "cairn.mcp.enable" || key == "cairn.mcp.allow-writes") {
    if (value != "true" && value != "false")
      return InvalidArgument("Config key '{}' must be true or false", key);
    (key == "cairn.mcp.enable" ? c.mcp_enabled : c.mcp_allow_writes) = value == "true";
  } else if (key == "cairn.jobs.local-executor.enabled") {
    if (value != "true" && value != "false")
      return InvalidArgument("Config key '{}' must be true or false", key);
    c.jobs.local_executor = value == "true";
  } else if (key == "cairn.jobs.staging-dir") {
    c.jobs.staging_dir = value;
  } else if (key == "cairn.jobs.max-running") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 1, 64));
    c.jobs.max_running = static_cast<int>(v);
  } else if (key == "cairn.jobs.spark-home") {
    c.jobs.spark_home = value;
  } else if (key == "cairn.maintenance.schedule-interval-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, int64_t{1} << 40));
    c.jobs.schedule_interval_ms = v;
  } else if (key == "cairn.jobs.cancel-grace-ms") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 3'600'000));
    c.jobs.cancel_grace_ms = v;
  } else if (key == "cairn.mcp.allowed-origins") {
    c.mcp_allowed_origins.clear();
    for (const auto& o : Split(value, ',')) {
      if (!Trim(o).empty()) c.mcp_allowed_origins.emplace_back(Trim(o));
    }
  } else if (key == "cairn.mcp.default-metalake") {
    c.mcp_default_metalake = value;
  } else if (key == "cairn.lance.metalake") {
    c.lance_metalake = value;
  } else if (key == "cairn.ui.dir") {
    c.ui_dir = value;
  } else if (key == "cairn.iceberg.default-metalake") {
    c.iceberg_default_metalake = value;
  } else if (key == "cairn.iceberg.metadata-cache-bytes") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, int64_t{1} << 40));
    c.iceberg_metadata_cache_bytes = static_cast<uint64_t>(v);
  } else if (key == "cairn.iceberg.metadata-open-files") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 100'000));
    c.iceberg_metadata_open_files = static_cast<int>(v);
  } else if (key == "cairn.iceberg.manifest-cache-bytes") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, int64_t{1} << 40));
    c.iceberg_manifest_cache_bytes = static_cast<uint64_t>(v);
  } else if (key == "cairn.iceberg.scan-plan-files-per-task") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 1, 1'000'000));
    c.iceberg_scan_plan_files_per_task = static_cast<size_t>(v);
  } else if (key == "cairn.iceberg.scan-planning-mode") {
    if (value != "server" && value != "client" && !value.empty()) {
      return InvalidArgument("Config key '{}' must be server or client", key);
    }
    c.iceberg_scan_planning_mode = value;
  } else if (key == "cairn.iceberg.commit-queue-idle-tables") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 1'000'000));
    c.iceberg_commit_queue_idle_tables = static_cast<int>(v);
  } else if (key == "cairn.iceberg.rebased-list-cache-entries") {
    CAIRN_ASSIGN_OR_RETURN(auto v, ParseNumber(key, value, 0, 1'000'000));
    c.iceberg_rebased_list_cache_entries = static_cast<int>(v);
  } else if (key == "cairn.iceberg.idempotency-key-lifetime") {
    auto seconds = value == "off" ? std::optional<int64_t>(0) : ParseIsoDuration(value);
    if (!seconds || *seconds > 7 * 86400) {
      return InvalidArgument(
          "Config key '{}' must be an ISO-8601 duration of at most 7 days (PT30M, PT24H) or "
          "'off', not '{}'",
          key, value);
    }
    c.iceberg_idempotency_lifetime_s = *seconds;
  } else if (key == "cairn.tracing.otlp-endpoint") {
    if (!value.empty() && value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0) {
      return InvalidArgument("Config key '{}' must be an http:// or https:// URL, not '{}'", key,
                             value);
    }
    c.tracing_otlp_endpoint = value;
  } else if (key == "cairn.tracing.service-name") {
    if (value.empty()) return InvalidArgument("Config key '{}' must not be empty", key);
    c.tracing_service_name = value;
  } else if (key == "cairn.log.level") {
    static const char* kLevels[] = {"trace", "debug", "info", "warn", "error", "off"};
    bool ok = false;
    for (const char* l : kLevels) ok = ok || value == l;
    if (!ok)
      return InvalidArgument("Config key '{}' must be one of trace, debug, info, warn, error, off",
                             key);
    c.log_level = value;
  } else {
    return InvalidArgument("Unknown config key '{}'", key);
  }
  return Ok();
}

Status LoadConfigFile(Config& config, const std::string& path) {
  std::ifstream in(path);
  if (!in) return InvalidArgument("Cannot read config file '{}'", path);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string_view l = Trim(line);
    if (l.empty() || l.front() == '#') continue;
    const size_t eq = l.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument("{}:{}: expected 'key = value'", path, number);
    }
    const std::string key(Trim(l.substr(0, eq)));
    const std::string value(Trim(l.substr(eq + 1)));
    auto s = SetConfigValue(config, key, value);
    if (!s) return InvalidArgument("{}:{}: {}", path, number, s.error().message);
  }
  return Ok();
}

Status LoadConfigEnv(Config& config) {
  for (const auto& key : ConfigKeys()) {
    const char* v = std::getenv(EnvName(key).c_str());
    if (v == nullptr) continue;
    auto s = SetConfigValue(config, key, v);
    if (!s)
      return InvalidArgument("{} (from environment variable {})", s.error().message, EnvName(key));
  }
  return Ok();
}

}  // namespace cairn::app
