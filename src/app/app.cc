// SPDX-License-Identifier: Apache-2.0
#include "app/app.h"

#include <filesystem>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "api/gravitino/errors.h"
#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/errors.h"
#include "api/iceberg/iceberg_api.h"
#include "app/config.h"
#include "common/log.h"
#include "common/util.h"
#include "connector/connector.h"
#include "http/server.h"
#include "service/metadata_service.h"
#include "store/metadata_store.h"

#ifndef CAIRN_VERSION
#define CAIRN_VERSION "1.3.1"
#endif

namespace cairn::app {

namespace {

int Serve(Config config) {
  InitLogging(config.log_level);
  const auto started = std::chrono::steady_clock::now();
  std::error_code ec;
  std::filesystem::create_directories(config.data_dir, ec);
  if (ec) {
    spdlog::error("event=startup_failed reason=\"cannot create data dir {}: {}\"", config.data_dir, ec.message());
    return 1;
  }
  const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  const int workers = config.workers > 0 ? config.workers : std::max(2, cores);

  store::StoreOptions store_options;
  store_options.type = config.store_type;
  store_options.sqlite_path = config.sqlite_path.empty()
                                  ? (std::filesystem::path(config.data_dir) / "cairn.db").string()
                                  : config.sqlite_path;
  store_options.postgres_url = config.postgres_url;
  store_options.pool_size = config.store_pool_size > 0 ? config.store_pool_size : workers;
  auto store = store::OpenStore(store_options);
  if (!store) {
    spdlog::error("event=startup_failed reason=\"{}\"", store.error().message);
    return 1;
  }
  auto registry = connector::MakeDefaultRegistry(
      connector::ConnectorDeps{store->get(), std::filesystem::absolute(config.data_dir).string()});
  service::MetadataService service(**store, *registry);
  store::MetadataStore* store_ptr = store->get();
  api::gravitino::ApiInfo info;
  info.version = CAIRN_VERSION;
  info.compile_date = __DATE__ " " __TIME__;
  info.git_commit = "";
  api::gravitino::GravitinoApi gravitino(service, info, [store_ptr] { return store_ptr->Ping(); });
  api::iceberg::IcebergApi iceberg(service, api::iceberg::IcebergApiOptions{config.iceberg_default_metalake});

  http::ServerOptions options;
  options.host = config.host;
  options.port = config.port;
  options.worker_threads = workers;
  options.max_body_bytes = config.max_body_bytes;
  options.max_header_bytes = config.max_header_bytes;
  options.idle_timeout_ms = config.idle_timeout_ms;
  options.shutdown_grace_ms = config.shutdown_grace_ms;

  auto handler = [&gravitino, &iceberg](const http::Request& request) -> http::Response {
    const std::string& path = request.path;
    if (request.method == "CLOSE") {
      http::Response r;  // the Python client's close(): 200 with an empty body
      r.body.clear();
      return r;
    }
    if (path == "/api" || path.rfind("/api/", 0) == 0) return gravitino.Handle(request);
    if (path == "/iceberg" || path.rfind("/iceberg/", 0) == 0) return iceberg.Handle(request);
    if (path == "/health" || path == "/health/live" || path == "/health/ready") {
      if (request.method != "GET") {
        return api::gravitino::PlainErrorResponse(405, 1006, "UnsupportedOperationException",
                                                  "Only GET is allowed on health endpoints");
      }
      return gravitino.Health(path == "/health" ? "" : path.substr(8));
    }
    if (path == "/configs") {
      nlohmann::json body{{"gravitino.authenticators", {"simple"}},
                          {"gravitino.authorization.enable", false},
                          {"gravitino.schema.separator", ":"}};
      http::Response r;
      r.body = body.dump();
      return r;
    }
    return api::gravitino::PlainErrorResponse(404, 1003, "NotFoundException",
                                              fmt::format("No endpoint matches {} {}", request.method, path));
  };
  auto renderer = [](int status, std::string_view message, std::string_view path) {
    if (path.rfind("/iceberg", 0) == 0) {
      const char* type = status == 413 ? "PayloadTooLargeException"
                         : status < 500 ? "BadRequestException"
                                        : "ServiceFailureException";
      return api::iceberg::PlainErrorResponse(status, type, message);
    }
    const int code = status == 413 || status == 431 || status == 400 ? 1001 : 1002;
    const char* type = code == 1001 ? "IllegalArgumentException" : "RuntimeException";
    return api::gravitino::PlainErrorResponse(status, code, type, message);
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
  spdlog::info("event=ready host={} port={} store={} data_dir=\"{}\" workers={} startup_micros={}",
               config.host, server.port(), config.store_type, config.data_dir, workers, ready_us);
  spdlog::default_logger()->flush();
  server.Run();
  spdlog::info("event=stopped");
  store->reset();  // closes the store's connections
  spdlog::default_logger()->flush();
  return 0;
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App cli{"Cairn: a federated metadata lake server"};
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
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  if (cli.got_subcommand("version")) {
    std::cout << "cairn " << CAIRN_VERSION << "\n";
    return 0;
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
  return Serve(std::move(config));
}

}  // namespace cairn::app
