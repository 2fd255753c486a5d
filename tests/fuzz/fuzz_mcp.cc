// SPDX-License-Identifier: Apache-2.0
// The MCP endpoint over a real in-memory catalog (a metalake, an Iceberg catalog with a schema and
// a table, a fileset catalog with a fileset). The first byte picks what the rest is: a whole
// message POSTed with the stateless revision's headers, with a handshake-era session, or with no
// headers at all; or the `arguments` of a call of one of the tools. Whatever comes in, the answer
// is a JSON-RPC message (or an empty 202), never a 5xx, and a tool's failure is inside its result.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/iceberg_api.h"
#include "api/mcp/mcp_api.h"
#include "connector/connector.h"
#include "fuzz_util.h"
#include "governance/access_control.h"
#include "json/json_util.h"
#include "service/authorizer.h"
#include "service/metadata_service.h"
#include "service/object_service.h"
#include "store/metadata_store.h"

using cairn::fuzz::Check;
using nlohmann::json;
namespace api = cairn::api;

namespace {

constexpr const char* kModern = "2026-07-28";

struct Stack {
  std::filesystem::path dir;
  std::unique_ptr<cairn::store::MetadataStore> store;
  std::unique_ptr<cairn::connector::ConnectorRegistry> registry;
  std::unique_ptr<cairn::service::MetadataService> service;
  std::unique_ptr<cairn::governance::AccessControl> access;
  std::unique_ptr<cairn::service::Authorizer> authz;
  std::unique_ptr<cairn::service::ObjectService> objects;
  std::unique_ptr<api::gravitino::GravitinoApi> gravitino;
  std::unique_ptr<api::iceberg::IcebergApi> iceberg;
  std::unique_ptr<api::mcp::McpApi> mcp;
  std::string session;
  cairn::governance::Principal who{"fuzz", {}};

  void Api(const std::string& path, const json& body) {
    cairn::http::Request r;
    r.method = "POST";
    r.path = r.target = path;
    r.body = body.dump();
    r.headers["Content-Type"] = "application/json";
    Check(gravitino->Handle(r, who).status == 200, "setup request succeeds");
  }

  Stack() {
    dir = std::filesystem::temp_directory_path() / ("cairn-fuzz-mcp-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "warehouse");
    std::filesystem::create_directories(dir / "files");
    cairn::store::StoreOptions options;
    options.sqlite_path = ":memory:";
    store = std::move(*cairn::store::OpenStore(options));
    registry = cairn::connector::MakeDefaultRegistry(
        cairn::connector::ConnectorDeps{store.get(), dir.string()});
    service = std::make_unique<cairn::service::MetadataService>(*store, *registry);
    access = std::make_unique<cairn::governance::AccessControl>(*store,
                                                                cairn::governance::AccessConfig{});
    authz = std::make_unique<cairn::service::Authorizer>(*store, *access);
    objects = std::make_unique<cairn::service::ObjectService>(*service, *authz);
    gravitino = std::make_unique<api::gravitino::GravitinoApi>(*objects, api::gravitino::ApiInfo{},
                                                               [] { return true; });
    iceberg =
        std::make_unique<api::iceberg::IcebergApi>(*objects, api::iceberg::IcebergApiOptions{});
    api::mcp::McpOptions mcp_options;
    mcp_options.allow_writes = true;
    mcp_options.max_sessions = 64;
    mcp = std::make_unique<api::mcp::McpApi>(
        api::mcp::ToolContext{gravitino.get(), iceberg.get(), objects.get(), "m"}, mcp_options);
    Api("/api/metalakes", {{"name", "m"}});
    Api("/api/metalakes/m/catalogs",
        {{"name", "c"},
         {"type", "relational"},
         {"provider", "lakehouse-iceberg"},
         {"properties",
          {{"catalog-backend", "managed"}, {"warehouse", (dir / "warehouse").string()}}}});
    Api("/api/metalakes/m/catalogs/c/schemas", {{"name", "s"}});
    Api("/api/metalakes/m/catalogs/c/schemas/s/tables",
        {{"name", "t"}, {"columns", {{{"name", "id"}, {"type", "long"}, {"nullable", true}}}}});
    Api("/api/metalakes/m/catalogs", {{"name", "f"},
                                      {"type", "fileset"},
                                      {"provider", "fileset"},
                                      {"properties", {{"location", (dir / "files").string()}}}});
    Api("/api/metalakes/m/catalogs/f/schemas", {{"name", "s"}});
    Api("/api/metalakes/m/tags", {{"name", "pii"}});
    auto r =
        Post(json{{"jsonrpc", "2.0"},
                  {"id", 1},
                  {"method", "initialize"},
                  {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}}}}
                 .dump(),
             {});
    for (const auto& [k, v] : r.headers) {
      if (k == "Mcp-Session-Id") session = v;
    }
    Check(!session.empty(), "initialize opens a session");
  }

  cairn::http::Response Post(const std::string& body,
                             const std::vector<std::pair<std::string, std::string>>& headers) {
    cairn::http::Request r;
    r.method = "POST";
    r.path = r.target = "/mcp";
    r.body = body;
    r.headers["Content-Type"] = "application/json";
    for (const auto& [k, v] : headers) r.headers[k] = v;
    return mcp->Handle(r, who);
  }
};

Stack& TheStack() {
  static Stack* stack = new Stack();  // lives for the process: the fuzzer never returns
  return *stack;
}

void CheckAnswer(const cairn::http::Response& r) {
  Check(r.status < 500, "no 5xx");
  if (r.status == 202) {
    Check(r.body.empty(), "a 202 has no body");
    return;
  }
  const json j = json::parse(r.body, nullptr, false);
  Check(j.is_object() && j.value("jsonrpc", "") == "2.0", "the answer is a JSON-RPC message");
  Check(j.contains("result") != j.contains("error"), "a result or an error");
  if (j.contains("error")) {
    Check(j["error"]["code"].is_number_integer() && j["error"]["message"].is_string(),
          "an error has a code and a message");
  } else if (j["result"].contains("isError") && j["result"]["isError"] == true) {
    Check(j["result"]["structuredContent"]["error"]["message"].is_string(),
          "a failed tool says why");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Stack& s = TheStack();
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const uint8_t mode = data[0];
  static const api::mcp::Tools tools;
  if (mode >= 0x80) {
    // The arguments of one tool's call, in a valid envelope.
    const auto& all = tools.all();
    const auto& tool = all[(mode - 0x80) % all.size()];
    json arguments = json::parse(rest, nullptr, false);
    if (arguments.is_discarded() || !cairn::json::CheckJsonDepth(rest).has_value()) return 0;
    json message{{"jsonrpc", "2.0"},
                 {"id", 3},
                 {"method", "tools/call"},
                 {"params",
                  {{"name", tool.name},
                   {"arguments", std::move(arguments)},
                   {"_meta",
                    {{"io.modelcontextprotocol/protocolVersion", kModern},
                     {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}};
    CheckAnswer(s.Post(message.dump(), {{"MCP-Protocol-Version", kModern},
                                        {"Mcp-Method", "tools/call"},
                                        {"Mcp-Name", tool.name}}));
    return 0;
  }
  std::vector<std::pair<std::string, std::string>> headers;
  switch (mode % 3) {
    case 0: {
      // The routing headers from the message itself, when it has them.
      const json j = json::parse(rest, nullptr, false);
      headers.emplace_back("MCP-Protocol-Version", kModern);
      if (j.is_object() && j.contains("method") && j["method"].is_string()) {
        headers.emplace_back("Mcp-Method", j["method"].get<std::string>());
      }
      break;
    }
    case 1:
      headers.emplace_back("Mcp-Session-Id", s.session);
      break;
    default:
      break;
  }
  CheckAnswer(s.Post(rest, headers));
  return 0;
}
