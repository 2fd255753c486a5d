// SPDX-License-Identifier: Apache-2.0
// The MCP endpoint over a real in-memory stack: the envelope rules of both protocol eras,
// sessions (owned by their principal, bounded), argument checks, and what a tool call reports for
// the audit record.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/iceberg_api.h"
#include "api/mcp/mcp_api.h"
#include "connector/connector.h"
#include "governance/access_control.h"
#include "service/authorizer.h"
#include "service/events.h"
#include "service/metadata_service.h"
#include "service/object_service.h"
#include "store/metadata_store.h"

namespace cairn::api::mcp {
namespace {

using nlohmann::json;

constexpr const char* kModern = "2026-07-28";

class McpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cairn-mcp-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "warehouse");
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    store_ = std::move(*store::OpenStore(options));
    registry_ =
        connector::MakeDefaultRegistry(connector::ConnectorDeps{store_.get(), dir_.string()});
    service_ = std::make_unique<service::MetadataService>(*store_, *registry_);
    access_ = std::make_unique<governance::AccessControl>(*store_, governance::AccessConfig{});
    authz_ = std::make_unique<service::Authorizer>(*store_, *access_);
    objects_ = std::make_unique<service::ObjectService>(*service_, *authz_);
    gravitino_ = std::make_unique<gravitino::GravitinoApi>(*objects_, gravitino::ApiInfo{},
                                                           [] { return true; });
    iceberg_ = std::make_unique<iceberg::IcebergApi>(*objects_, iceberg::IcebergApiOptions{});
    Make(McpOptions{});
    Api("POST", "/api/metalakes", R"({"name":"m"})");
    Api("POST", "/api/metalakes/m/catalogs",
        json{{"name", "c"},
             {"type", "relational"},
             {"provider", "lakehouse-iceberg"},
             {"properties",
              {{"catalog-backend", "managed"}, {"warehouse", (dir_ / "warehouse").string()}}}}
            .dump());
    Api("POST", "/api/metalakes/m/catalogs/c/schemas", R"({"name":"s"})");
    Api("POST", "/api/metalakes/m/catalogs/c/schemas/s/tables",
        R"({"name":"t","comment":"orders","columns":[{"name":"id","type":"long","nullable":true}]})");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Make(McpOptions options) {
    mcp_ = std::make_unique<McpApi>(
        ToolContext{gravitino_.get(), iceberg_.get(), objects_.get(), ""}, std::move(options));
  }

  void Api(const std::string& method, const std::string& path, const std::string& body) {
    http::Request r;
    r.method = method;
    r.path = path;
    r.target = path;
    r.body = body;
    r.headers["Content-Type"] = "application/json";
    ASSERT_EQ(gravitino_->Handle(r, who_).status, 200) << path;
  }

  http::Response Post(const json& message, std::map<std::string, std::string> headers = {},
                      const std::string& user = "ana") {
    http::Request r;
    r.method = "POST";
    r.path = r.target = "/mcp";
    r.body = message.dump();
    r.headers["Content-Type"] = "application/json";
    r.headers["Accept"] = "application/json, text/event-stream";
    for (auto& [k, v] : headers) r.headers[k] = v;
    return mcp_->Handle(r, governance::Principal{user, {}});
  }

  // A request of the stateless revision, with its routing headers.
  http::Response Modern(const std::string& method, json params = json::object()) {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", kModern},
                       {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    std::map<std::string, std::string> h{{"MCP-Protocol-Version", kModern}, {"Mcp-Method", method}};
    if (params.contains("name") && params["name"].is_string()) h["Mcp-Name"] = params["name"];
    return Post(json{{"jsonrpc", "2.0"}, {"id", 7}, {"method", method}, {"params", params}}, h);
  }

  static json Body(const http::Response& r) { return json::parse(r.body); }

  std::string Initialize(const std::string& user) {
    auto r = Post(
        json{{"jsonrpc", "2.0"},
             {"id", 1},
             {"method", "initialize"},
             {"params", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}}}},
        {}, user);
    EXPECT_EQ(r.status, 200);
    for (const auto& [k, v] : r.headers) {
      if (k == "Mcp-Session-Id") return v;
    }
    ADD_FAILURE() << "no session id";
    return "";
  }

  std::filesystem::path dir_;
  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<connector::ConnectorRegistry> registry_;
  std::unique_ptr<service::MetadataService> service_;
  std::unique_ptr<governance::AccessControl> access_;
  std::unique_ptr<service::Authorizer> authz_;
  std::unique_ptr<service::ObjectService> objects_;
  std::unique_ptr<gravitino::GravitinoApi> gravitino_;
  std::unique_ptr<iceberg::IcebergApi> iceberg_;
  std::unique_ptr<McpApi> mcp_;
  governance::Principal who_{"ana", {}};
};

TEST_F(McpTest, ToolCallAnswersStructuredAndNamesItsObjectForTheAudit) {
  auto r = Modern(
      "tools/call",
      {{"name", "get_table"},
       {"arguments", {{"metalake", "m"}, {"catalog", "c"}, {"schema", "s"}, {"table", "t"}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json result = Body(r)["result"];
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["structuredContent"]["table"]["comment"], "orders");
  EXPECT_EQ(json::parse(result["content"][0]["text"].get<std::string>()),
            result["structuredContent"]);
  EXPECT_EQ(r.audit_operation, "mcp tools/call get_table");
  EXPECT_EQ(r.audit_object, "m.c.s.t");
  EXPECT_EQ(r.audit_status, 0);

  // A table that is not there: the tool's 404 inside a 200, reported as a lookup.
  r = Modern(
      "tools/call",
      {{"name", "get_table"},
       {"arguments", {{"metalake", "m"}, {"catalog", "c"}, {"schema", "s"}, {"table", "x"}}}});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(Body(r)["result"]["isError"], true);
  EXPECT_EQ(Body(r)["result"]["structuredContent"]["error"]["type"], "NoSuchTableException");
  EXPECT_EQ(r.audit_status, 404);
  EXPECT_TRUE(r.audit_lookup);
  EXPECT_EQ(r.audit_object, "m.c.s.x");
}

TEST_F(McpTest, AChangeMadeByAToolIsPublishedAsComingThroughMcp) {
  McpOptions options;
  options.allow_writes = true;
  Make(options);
  Api("POST", "/api/metalakes/m/catalogs", R"({"name":"mc","type":"model","properties":{}})");
  Api("POST", "/api/metalakes/m/catalogs/mc/schemas", R"({"name":"ms"})");
  Api("POST", "/api/metalakes/m/catalogs/mc/schemas/ms/models", R"({"name":"mm"})");
  std::vector<std::string> seen;
  auto subscription = service_->events().Subscribe([&seen](const service::ObjectChange& c) {
    seen.push_back(c.FullName() + " by " + c.principal + " via " + c.interface);
  });
  auto r = Modern("tools/call", {{"name", "link_model_version"},
                                 {"arguments",
                                  {{"metalake", "m"},
                                   {"catalog", "mc"},
                                   {"schema", "ms"},
                                   {"model", "mm"},
                                   {"uri", "s3://b/mm/0"}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["result"]["structuredContent"]["modelVersion"]["version"], 0) << r.body;
  EXPECT_EQ(seen, (std::vector<std::string>{"m.mc.ms.mm by ana via mcp"}));
  subscription.Reset();
}

TEST_F(McpTest, DefaultMetalakeIsUsedWhenNoneIsNamed) {
  McpOptions options;
  options.default_metalake = "m";
  Make(options);
  auto r = Modern("tools/call",
                  {{"name", "list_tables"}, {"arguments", {{"catalog", "c"}, {"schema", "s"}}}});
  EXPECT_EQ(Body(r)["result"]["structuredContent"], (json{{"tables", {"t"}}}));
}

TEST_F(McpTest, ModernEnvelopeRules) {
  EXPECT_EQ(Modern("tools/list").status, 200);
  // The routing headers must mirror the body.
  auto r = Post(json{{"jsonrpc", "2.0"},
                     {"id", 1},
                     {"method", "tools/list"},
                     {"params",
                      {{"_meta",
                        {{"io.modelcontextprotocol/protocolVersion", kModern},
                         {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}},
                {{"MCP-Protocol-Version", kModern}, {"Mcp-Method", "tools/call"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Body(r)["error"]["code"], -32020);
  EXPECT_EQ(Body(r)["id"], 1);
  r = Modern("nope/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(Body(r)["error"]["code"], -32601);
  r = Modern("tools/call", {{"name", "no_such_tool"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Body(r)["error"]["code"], -32602);
  r = Modern("tools/list", {{"cursor", "abc"}});
  EXPECT_EQ(Body(r)["error"]["code"], -32602);
}

TEST_F(McpTest, SessionsBelongToTheirPrincipalAndAreBounded) {
  McpOptions options;
  options.max_sessions = 2;
  Make(options);
  const json ping{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "ping"}};
  const std::string first = Initialize("ana");
  EXPECT_EQ(Post(ping, {{"Mcp-Session-Id", first}}).status, 200);
  EXPECT_EQ(Post(ping, {{"Mcp-Session-Id", first}}, "bob").status, 404);
  const std::string second = Initialize("ana");
  // `first` was used last before `second` was made; a third evicts the least recently used.
  EXPECT_EQ(Post(ping, {{"Mcp-Session-Id", second}}).status, 200);
  const std::string third = Initialize("bob");
  EXPECT_EQ(Post(ping, {{"Mcp-Session-Id", first}}).status, 404);
  EXPECT_EQ(Post(ping, {{"Mcp-Session-Id", second}}).status, 200);
  EXPECT_EQ(Post(ping, {{"Mcp-Session-Id", third}}, "bob").status, 200);
  EXPECT_NE(first, second);
  EXPECT_EQ(first.size(), 32u);
}

TEST_F(McpTest, MalformedMessages) {
  http::Request r;
  r.method = "POST";
  r.path = r.target = "/mcp";
  r.headers["Content-Type"] = "application/json";
  const governance::Principal p{"ana", {}};
  for (const std::string& body :
       {std::string("{"), std::string(100000, '['), std::string("\"text\""), std::string("[]"),
        std::string(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})"),
        std::string(R"({"jsonrpc":"2.0","id":true,"method":"ping"})"),
        std::string(R"({"jsonrpc":"2.0","id":1,"method":7})"),
        std::string(R"({"jsonrpc":"2.0","id":1})"), std::string(R"({"id":1,"method":"ping"})")}) {
    r.body = body;
    const auto answer = mcp_->Handle(r, p);
    EXPECT_EQ(answer.status, 400) << body.substr(0, 60);
    const json j = json::parse(answer.body, nullptr, false);
    ASSERT_TRUE(j.is_object()) << body.substr(0, 60);
    EXPECT_EQ(j["jsonrpc"], "2.0");
    EXPECT_LT(j["error"]["code"].get<int>(), -32000);
  }
}

TEST(ValidateArguments, NamesTheArgument) {
  const json schema = json::parse(R"({
    "type": "object", "additionalProperties": false, "required": ["name"],
    "properties": {
      "name": {"type": "string", "minLength": 1, "maxLength": 5},
      "kind": {"type": "string", "enum": ["a", "b"]},
      "limit": {"type": "integer", "minimum": 1, "maximum": 10},
      "names": {"type": "array", "maxItems": 2, "items": {"type": "string", "minLength": 1}},
      "props": {"type": "object", "additionalProperties": {"type": "string"}}}})");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "x"}}), "");
  EXPECT_EQ(ValidateArguments(schema, json::object()), "'name' is required");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", ""}}), "'name' must not be empty");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "toolong"}}),
            "'name' must be at most 5 characters");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", 3}}),
            "'name' must be a string, not an integer");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", std::string("a\0b", 3)}}),
            "'name' must not contain NUL");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "x"}, {"kind", "c"}}),
            "'kind' must be one of a, b");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "x"}, {"limit", 0}}),
            "'limit' must be at least 1");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "x"}, {"limit", 2.5}}),
            "'limit' must be an integer, not a number");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "x"}, {"limit", UINT64_MAX}}),
            "'limit' is out of range");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "x"}, {"names", {"a", ""}}}),
            "'names[1]' must not be empty");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "x"}, {"names", {"a", "b", "c"}}}),
            "'names' must have at most 2 items");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "x"}, {"props", {{"k", 1}}}}),
            "'props.k' must be a string, not an integer");
  EXPECT_EQ(ValidateArguments(schema, json{{"name", "x"}, {"other", 1}}),
            "'other' is not an argument of this tool");
}

TEST(Tools, EverySchemaIsAnObjectWithKnownRequiredArguments) {
  Tools tools;
  ASSERT_GE(tools.all().size(), 30u);
  for (const Tool& t : tools.all()) {
    EXPECT_EQ(t.input_schema["type"], "object") << t.name;
    EXPECT_EQ(t.input_schema["additionalProperties"], false) << t.name;
    for (const auto& r : t.input_schema.value("required", json::array())) {
      EXPECT_TRUE(t.input_schema["properties"].contains(r.get<std::string>()))
          << t.name << " " << r;
    }
    EXPECT_EQ(tools.Find(t.name), &t);
  }
  EXPECT_EQ(tools.Find("nope"), nullptr);
}

}  // namespace
}  // namespace cairn::api::mcp
