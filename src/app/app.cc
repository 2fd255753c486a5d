// SPDX-License-Identifier: Apache-2.0
#include "app/app.h"

#include <filesystem>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "api/admin/admin_api.h"
#include "api/gravitino/errors.h"
#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/errors.h"
#include "api/iceberg/iceberg_api.h"
#include "api/lance/lance_api.h"
#include "api/mcp/mcp_api.h"
#include "app/cli.h"
#include "app/config.h"
#include "app/mcp_bridge.h"
#include "app/otlp_exporter.h"
#include "app/rest_client.h"
#include "app/router.h"
#include "common/log.h"
#include "common/trace.h"
#include "common/util.h"
#include "connector/connector.h"
#include "governance/audit.h"
#include "http/server.h"
#include "service/authenticator.h"
#include "service/authorizer.h"
#include "service/metadata_service.h"
#include "store/backup.h"
#include "store/metadata_store.h"

#ifndef CAIRN_VERSION
#  define CAIRN_VERSION "1.3.1"
#endif

namespace cairn::app {

namespace {

// __DATE__ ("Nov 29 2026") and __TIME__ in Gravitino's "dd/MM/yyyy HH:mm:ss".
std::string CompileDate() {
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::string date = __DATE__;
  int month = 0;
  for (int i = 0; i < 12; ++i) {
    if (date.compare(0, 3, kMonths[i]) == 0) month = i + 1;
  }
  const int day = std::atoi(date.substr(4, 2).c_str());
  return fmt::format("{:02}/{:02}/{} {}", day, month, date.substr(7, 4), __TIME__);
}

// The listener's transport settings taken together; kInvalidArgument naming the key.
Status CheckTransport(const Config& config) {
  const auto& tls = config.tls;
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return InvalidArgument(
        "cairn.server.tls.cert-file and cairn.server.tls.key-file go together: set both");
  }
  if (!tls.enabled() && !tls.client_ca_file.empty()) {
    return InvalidArgument(
        "cairn.server.tls.client-ca-file needs TLS: set cairn.server.tls.cert-file and key-file");
  }
  const bool certificate_auth =
      std::find(config.authenticators.begin(), config.authenticators.end(), "certificate") !=
      config.authenticators.end();
  if (certificate_auth && tls.client_ca_file.empty()) {
    return InvalidArgument(
        "cairn.authenticators lists 'certificate': set cairn.server.tls.client-ca-file, the CA "
        "that signs client certificates");
  }
  if (!tls.enabled() && !config.plain_http && !IsLoopbackHost(config.host)) {
    return InvalidArgument(
        "cairn.server.host is {} (not a loopback address) and TLS is not configured: set "
        "cairn.server.tls.cert-file and cairn.server.tls.key-file, or "
        "cairn.server.plain-http=true to serve plain HTTP there (behind a proxy that ends TLS)",
        config.host);
  }
  return Ok();
}

int Serve(Config config, std::span<const api::ui::UiFile> ui_files) {
  InitLogging(config.log_level);
  const auto started = std::chrono::steady_clock::now();
  if (auto transport = CheckTransport(config); !transport) {
    spdlog::error("event=startup_failed reason=\"{}\"", transport.error().message);
    return 1;
  }
  std::error_code ec;
  std::filesystem::create_directories(config.data_dir, ec);
  if (ec) {
    spdlog::error("event=startup_failed reason=\"cannot create data dir {}: {}\"", config.data_dir,
                  ec.message());
    return 1;
  }
  const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  // Handlers block on the store and on fsync of metadata files, so there are more workers than
  // cores: writes to different tables overlap their I/O.
  const int workers = config.workers > 0 ? config.workers : std::max(8, 4 * cores);

  store::StoreOptions store_options;
  store_options.type = config.store_type;
  store_options.sqlite_path = config.sqlite_path.empty()
                                  ? (std::filesystem::path(config.data_dir) / "cairn.db").string()
                                  : config.sqlite_path;
  store_options.postgres_url = config.postgres_url;
  store_options.mysql_url = config.mysql_url;
  store_options.pool_size = config.store_pool_size > 0 ? config.store_pool_size : workers;
  // The embedded SQLite store belongs to this process alone: locked for the server's life, so
  // path lookups can be cached. PostgreSQL is shared by replicas: its cache follows the changes
  // every replica commits, announced by the database (docs/operations.md#replicas).
  std::shared_ptr<void> store_lock;
  if (store_options.type == "sqlite" && store_options.sqlite_path != ":memory:") {
    auto lock = store::LockSqliteStore(store_options.sqlite_path);
    if (!lock) {
      spdlog::error("event=startup_failed reason=\"{}\"", lock.error().message);
      return 1;
    }
    store_lock = std::move(*lock);
    store_options.cache_paths = true;
  }
  if (store_options.type == "postgres") {
    store_options.cache_paths = config.postgres_cache;
    store_options.change_feed_heartbeat_ms = config.postgres_heartbeat_ms;
  }
  auto store = store::OpenStore(store_options);
  if (!store) {
    spdlog::error("event=startup_failed reason=\"{}\"", store.error().message);
    return 1;
  }
  connector::ConnectorDeps deps{store->get(), std::filesystem::absolute(config.data_dir).string()};
  deps.jdbc_connect_timeout_s = config.jdbc_connect_timeout_secs;
  deps.jdbc_statement_timeout_s = config.jdbc_statement_timeout_secs;
  deps.jdbc_pool_wait_ms = config.jdbc_pool_wait_ms;
  connector::IcebergCacheOptions iceberg_caches;
  iceberg_caches.metadata_cache_bytes = static_cast<size_t>(config.iceberg_metadata_cache_bytes);
  iceberg_caches.metadata_open_files = static_cast<size_t>(config.iceberg_metadata_open_files);
  iceberg_caches.manifest_cache_bytes = static_cast<size_t>(config.iceberg_manifest_cache_bytes);
  iceberg_caches.commit_queue_idle_tables =
      static_cast<size_t>(config.iceberg_commit_queue_idle_tables);
  iceberg_caches.rebased_list_cache_entries =
      static_cast<size_t>(config.iceberg_rebased_list_cache_entries);
  deps.iceberg_caches = connector::MakeIcebergCaches(iceberg_caches);
  std::shared_ptr<connector::IcebergCaches> iceberg_caches_ref = deps.iceberg_caches;
  auto registry = connector::MakeDefaultRegistry(std::move(deps));
  service::MetadataService service(**store, *registry);
  store::MetadataStore* store_ptr = store->get();

  service::AuthnConfig authn_config;
  authn_config.authenticators = config.authenticators;
  authn_config.jwt.issuer = config.oauth2_issuer;
  authn_config.jwt.audiences = config.oauth2_audiences;
  authn_config.jwt.principal_claim = config.oauth2_principal_claim;
  authn_config.jwt.allowed_skew_secs = config.oauth2_allowed_skew_secs;
  authn_config.jwt.hs256_secret = config.oauth2_hs256_secret;
  authn_config.jwks_file = config.oauth2_jwks_file;
  authn_config.jwks_url = config.oauth2_jwks_url;
  authn_config.groups_claim = config.oauth2_groups_claim;
  auto authenticator = service::Authenticator::Make(authn_config, **store);
  if (!authenticator) {
    spdlog::error("event=startup_failed reason=\"{}\"", authenticator.error().message);
    return 1;
  }
  if (!config.basic_bootstrap_user.empty()) {
    auto s = (*authenticator)
                 ->EnsureBasicUser(config.basic_bootstrap_user, config.basic_bootstrap_password);
    if (!s) {
      spdlog::error("event=startup_failed reason=\"bootstrap user: {}\"", s.error().message);
      return 1;
    }
  }
  governance::AccessConfig access_config;
  access_config.enabled = config.authorization_enabled;
  access_config.service_admins.insert(config.service_admins.begin(), config.service_admins.end());
  if (access_config.enabled && access_config.service_admins.empty()) {
    spdlog::warn(
        "event=config_warning reason=\"authorization is on but cairn.authorization.service-admins "
        "is empty: nobody can create metalakes\"");
  }
  governance::AccessControl access(**store, access_config);
  service::Authorizer authorizer(**store, access);
  auto audit = governance::AuditLog::Open(
      config.audit_dir.empty() ? (std::filesystem::path(config.data_dir) / "audit").string()
                               : config.audit_dir,
      config.audit_max_file_bytes, config.audit_max_files);
  if (!audit) {
    spdlog::error("event=startup_failed reason=\"{}\"", audit.error().message);
    return 1;
  }

  api::gravitino::ApiInfo info;
  info.version = CAIRN_VERSION;
  info.compile_date = CompileDate();
  info.git_commit = "";
  // Every interface reaches the connectors through the one object service.
  service::ObjectService objects(
      service, authorizer,
      service::LineageOptions{config.lineage_queue_capacity, config.lineage_forward});
  api::gravitino::GravitinoApi gravitino(objects, info, [store_ptr] { return store_ptr->Ping(); });
  // Job templates and their runs (table maintenance, and the local executor when enabled).
  service::JobOptions job_options = config.jobs;
  if (job_options.staging_dir.empty()) {
    job_options.staging_dir = (std::filesystem::path(config.data_dir) / "jobs").string();
  }
  job_options.audit = audit->get();
  service::JobService jobs(objects, **store, job_options);
  gravitino.SetJobs(&jobs);
  api::iceberg::IdempotencyOptions idempotency_options;
  idempotency_options.lifetime = std::chrono::seconds(config.iceberg_idempotency_lifetime_s);
  idempotency_options.lease =
      std::max(idempotency_options.lease, std::chrono::milliseconds(config.request_deadline_ms));
  api::iceberg::IdempotentRequests idempotency(store_ptr->Idempotency(), idempotency_options);
  api::iceberg::IcebergApi iceberg(
      objects, api::iceberg::IcebergApiOptions{config.iceberg_default_metalake, &idempotency,
                                               config.iceberg_scan_plan_files_per_task,
                                               config.iceberg_scan_planning_mode, nullptr});
  api::AdminApi admin(**authenticator, authorizer, **audit);
  api::mcp::McpOptions mcp_options;
  mcp_options.enabled = config.mcp_enabled;
  mcp_options.allow_writes = config.mcp_allow_writes;
  mcp_options.allowed_origins = config.mcp_allowed_origins;
  mcp_options.default_metalake = config.mcp_default_metalake;
  mcp_options.server_version = CAIRN_VERSION;
  api::mcp::McpApi mcp(api::mcp::ToolContext{&gravitino, &iceberg, &objects, ""}, mcp_options);
  api::lance::LanceApi lance(objects, api::lance::LanceApiOptions{config.lance_metalake});

  // Traces, when a collector is configured: exported from a thread of their own, flushed when
  // the server stops.
  std::shared_ptr<OtlpHttpExporter> tracer;
  if (!config.tracing_otlp_endpoint.empty()) {
    OtlpHttpExporter::Options o;
    o.endpoint = config.tracing_otlp_endpoint;
    o.service_name = config.tracing_service_name;
    o.service_version = CAIRN_VERSION;
    tracer = std::make_shared<OtlpHttpExporter>(std::move(o));
    trace::SetSink(tracer);
    spdlog::info("event=tracing endpoint=\"{}\" service={}", config.tracing_otlp_endpoint,
                 config.tracing_service_name);
  }
  struct TracingOff {
    ~TracingOff() { trace::SetSink(nullptr); }
  } tracing_off;

  std::unique_ptr<ServerMetrics> metrics;
  if (config.metrics_enabled) {
    metrics = std::make_unique<ServerMetrics>(ServerMetrics::Sources{
        store_ptr, config.store_type, iceberg_caches_ref, &objects.events(), CAIRN_VERSION});
  }

  http::ServerOptions options;
  options.host = config.host;
  options.port = config.port;
  options.worker_threads = workers;
  options.max_body_bytes = config.max_body_bytes;
  options.max_header_bytes = config.max_header_bytes;
  options.idle_timeout_ms = config.idle_timeout_ms;
  options.shutdown_grace_ms = config.shutdown_grace_ms;
  options.request_deadline_ms = config.request_deadline_ms;
  options.tls = config.tls;

  RequestLimiter limiter(config.limits);
  const api::ui::UiApi ui(ui_files, config.ui_dir);
  Router router{gravitino,
                iceberg,
                admin,
                **authenticator,
                **audit,
                config.authenticators,
                config.authorization_enabled,
                config.service_admins,
                config.mcp_enabled ? &mcp : nullptr,
                &lance,
                metrics.get(),
                &limiter,
                &ui};
  auto handler = [&router](const http::Request& request) { return router.Handle(request); };
  auto renderer = [&router](int status, std::string_view message, const http::Request& partial) {
    return router.RenderTransportError(status, message, partial);
  };

  http::Server server(options, handler, renderer);
  auto listening = server.Listen();
  if (!listening) {
    spdlog::error("event=startup_failed reason=\"{}\"", listening.error().message);
    return 1;
  }
  const auto ready_us = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count();
  spdlog::info(
      "event=ready host={} port={} scheme={} store={} data_dir=\"{}\" workers={} "
      "startup_micros={}",
      config.host, server.port(), config.tls.enabled() ? "https" : "http", config.store_type,
      config.data_dir, workers, ready_us);
  spdlog::default_logger()->flush();
  server.Run();
  (*audit)->Sync();
  spdlog::info("event=stopped");
  store->reset();  // closes the store's connections
  spdlog::default_logger()->flush();
  return 0;
}

// `cairn backup --to F` (when `backup_to` is set) or `cairn restore --from F`.
int BackupOrRestore(const Config& config, const std::string& backup_to,
                    const std::string& restore_from) {
  const char* verb = backup_to.empty() ? "restore" : "backup";
  if (config.store_type != "sqlite") {
    std::cerr << "cairn " << verb << ": the store is " << config.store_type
              << "; back it up with the database's own tools (docs/operations.md)\n";
    return 2;
  }
  const std::string db = config.sqlite_path.empty()
                             ? (std::filesystem::path(config.data_dir) / "cairn.db").string()
                             : config.sqlite_path;
  auto done = backup_to.empty() ? store::RestoreSqliteStore(restore_from, db)
                                : store::BackupSqliteStore(db, backup_to);
  if (!done) {
    std::cerr << "cairn " << verb << ": " << done.error().message << "\n";
    return done.error().code == ErrorCode::kInvalidArgument ||
                   done.error().code == ErrorCode::kAlreadyExists ||
                   done.error().code == ErrorCode::kNotFound
               ? 2
               : 1;
  }
  std::cout << (backup_to.empty() ? "restored " : "backed up to ") << done->path << " ("
            << done->bytes << " bytes, " << done->rows << " objects, store schema "
            << done->schema_version << ")\n";
  return 0;
}

}  // namespace

int Main(int argc, char** argv, std::span<const api::ui::UiFile> ui) {
  CLI::App cli{"Cairn: a federated metadata lake server, and a client of its REST API"};
  cli.require_subcommand(1);
  std::string config_file;
  std::string host;
  int port = -1;
  std::string data_dir;
  auto* serve = cli.add_subcommand("serve", "Run the server");
  serve->add_option("--config", config_file, "Config file (key = value lines)");
  serve->add_option("--host", host, "Address to listen on (default 127.0.0.1)");
  serve->add_option("--port", port, "Port to listen on (default 8090; 0 picks a free port)");
  serve->add_option("--data-dir", data_dir, "Data directory (default ./data)");
  cli.add_subcommand("version", "Print the version");
  // Backup and restore of the embedded store (docs/operations.md#backup-and-restore).
  std::string backup_to;
  std::string restore_from;
  auto* backup = cli.add_subcommand(
      "backup", "Copy the embedded SQLite store to a new file, consistently, while it serves");
  backup->add_option("--to", backup_to, "The backup file to create (never overwritten)")
      ->required();
  auto* restore = cli.add_subcommand(
      "restore", "Replace the embedded SQLite store with a backup (no server may be running)");
  restore->add_option("--from", restore_from, "The backup file")->required();
  for (auto* sub : {backup, restore}) {
    sub->add_option("--config", config_file, "The server's config file (key = value lines)");
    sub->add_option("--data-dir", data_dir, "The server's data directory (default ./data)");
  }
  // The client commands (docs/cli.md); subcommands added from here on take the global client
  // options (--server, credentials, --metalake, --output) after their name too.
  ClientCommands client_commands(cli);
  auto* mcp = cli.add_subcommand(
      "mcp", "Serve MCP over stdio: JSON-RPC lines relayed to the /mcp endpoint of --server");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help answers 0; every other parse error is a usage error (docs/cli.md#exit-codes).
    return cli.exit(e) == 0 ? 0 : 2;
  }
  if (cli.got_subcommand("version")) {
    std::cout << "cairn " << CAIRN_VERSION << "\n";
    return 0;
  }
  if (client_commands.Chosen()) return client_commands.Run();
  if (mcp->parsed()) {
    auto settings = client_commands.Settings();
    if (!settings) {
      std::cerr << "cairn mcp: " << settings.error().message << "\n";
      return 2;
    }
    RestClient client(std::move(settings->options));
    return RunMcpBridge(client, std::cin, std::cout);
  }
  Config config;
  if (!config_file.empty()) {
    auto s = LoadConfigFile(config, config_file);
    if (!s) {
      std::cerr << "cairn: " << s.error().message << "\n";
      return 2;
    }
  }
  auto env = LoadConfigEnv(config);
  if (!env) {
    std::cerr << "cairn: " << env.error().message << "\n";
    return 2;
  }
  if (!host.empty()) config.host = host;
  if (port >= 0) {
    if (port > 65535) {
      std::cerr << "cairn: --port must be in [0, 65535]\n";
      return 2;
    }
    config.port = port;
  }
  if (!data_dir.empty()) config.data_dir = data_dir;
  if (backup->parsed() || restore->parsed()) {
    return BackupOrRestore(config, backup->parsed() ? backup_to : "", restore_from);
  }
  return Serve(std::move(config), ui);
}

}  // namespace cairn::app
