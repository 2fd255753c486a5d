// SPDX-License-Identifier: Apache-2.0
// Wrongly typed request fields on both APIs: every one is a 400 in the protocol's format that
// names the field, never a 500 and never the JSON library's text.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/iceberg_api.h"
#include "connector/connector.h"
#include "governance/access_control.h"
#include "matchers.h"
#include "service/authorizer.h"
#include "service/metadata_service.h"
#include "store/metadata_store.h"

namespace cairn::api {
namespace {

using cairn::testing::IsOk;
using Json = nlohmann::json;

class RequestFieldsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cairn-request-fields-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    registry_ = connector::MakeDefaultRegistry(connector::ConnectorDeps{store_.get(), dir_});
    service_ = std::make_unique<service::MetadataService>(*store_, *registry_);
    access_ = std::make_unique<governance::AccessControl>(*store_, governance::AccessConfig{});
    authz_ = std::make_unique<service::Authorizer>(*store_, *access_);
    objects_ = std::make_unique<service::ObjectService>(*service_, *authz_);
    gravitino_ = std::make_unique<gravitino::GravitinoApi>(*objects_, gravitino::ApiInfo{},
                                                           [] { return true; });
    iceberg_ = std::make_unique<iceberg::IcebergApi>(*objects_, iceberg::IcebergApiOptions{});

    ASSERT_EQ(Api("POST", "/api/metalakes", R"({"name":"m","properties":{}})").status, 200);
    const Json catalog = {{"name", "c"},
                          {"type", "relational"},
                          {"provider", "lakehouse-iceberg"},
                          {"properties", {{"warehouse", (dir_ / "warehouse").string()}}}};
    ASSERT_EQ(Api("POST", "/api/metalakes/m/catalogs", catalog.dump()).status, 200);
    ASSERT_EQ(Api("POST", "/api/metalakes/m/catalogs/c/schemas", R"({"name":"s"})").status, 200);
    const std::string table = R"({"name":"t","schema":{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"id","required":true,"type":"long"}]}})";
    ASSERT_EQ(Ice("POST", "/iceberg/v1/m.c/namespaces/s/tables", table).status, 200);
  }

  void TearDown() override { std::filesystem::remove_all(dir_); }

  static http::Request MakeRequest(const std::string& method, const std::string& path,
                                   const std::string& body) {
    http::Request r;
    r.method = method;
    r.target = path;
    r.path = path;
    r.body = body;
    r.request_id = "test";
    return r;
  }

  http::Response Api(const std::string& method, const std::string& path,
                     const std::string& body) {
    return gravitino_->Handle(MakeRequest(method, path, body), governance::Principal{});
  }
  http::Response Ice(const std::string& method, const std::string& path,
                     const std::string& body) {
    return iceberg_->Handle(MakeRequest(method, path, body), governance::Principal{});
  }

  // Iceberg's 400 for a malformed request: BadRequestException, a message naming `field`.
  static void ExpectIcebergBadRequest(const http::Response& r, const std::string& field) {
    SCOPED_TRACE(r.body);
    EXPECT_EQ(r.status, 400);
    const Json body = Json::parse(r.body, nullptr, false);
    ASSERT_TRUE(body.is_object());
    ASSERT_TRUE(body.contains("error"));
    const Json& error = body["error"];
    EXPECT_EQ(error.value("type", ""), "BadRequestException");
    EXPECT_EQ(error.value("code", 0), 400);
    const std::string message = error.value("message", "");
    EXPECT_NE(message.find("'" + field + "'"), std::string::npos) << "field " << field;
    EXPECT_EQ(message.find("json.exception"), std::string::npos);
  }

  // Gravitino's envelope: code 1001 IllegalArgumentException, a message naming `field`.
  static void ExpectGravitinoBadRequest(const http::Response& r, const std::string& field) {
    SCOPED_TRACE(r.body);
    EXPECT_EQ(r.status, 400);
    const Json body = Json::parse(r.body, nullptr, false);
    ASSERT_TRUE(body.is_object());
    EXPECT_EQ(body.value("code", 0), 1001);
    EXPECT_EQ(body.value("type", ""), "IllegalArgumentException");
    const std::string message = body.value("message", "");
    EXPECT_NE(message.find("'" + field + "'"), std::string::npos) << "field " << field;
    EXPECT_EQ(message.find("json.exception"), std::string::npos);
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
};

TEST_F(RequestFieldsTest, IcebergCreateTableWithANonStringNameIsABadRequest) {
  for (const char* name : {"{}", "5", "[]", "true"}) {
    SCOPED_TRACE(name);
    const std::string body = std::string(R"({"name":)") + name +
                             R"(,"schema":{"type":"struct","fields":[]}})";
    ExpectIcebergBadRequest(Ice("POST", "/iceberg/v1/m.c/namespaces/s/tables", body), "name");
  }
  ExpectIcebergBadRequest(
      Ice("POST", "/iceberg/v1/m.c/namespaces/s/tables", R"({"name":"x","schema":5})"), "schema");
  ExpectIcebergBadRequest(Ice("POST", "/iceberg/v1/m.c/namespaces/s/tables",
                              R"({"name":"x","schema":{"type":"struct","fields":[]},)"
                              R"("stage-create":"yes"})"),
                          "stage-create");
  ExpectIcebergBadRequest(Ice("POST", "/iceberg/v1/m.c/namespaces/s/tables",
                              R"({"name":"x","schema":{"type":"struct","fields":[]},)"
                              R"("properties":{"k":1}})"),
                          "properties.k");
}

TEST_F(RequestFieldsTest, IcebergCreateViewWithANonStringNameIsABadRequest) {
  for (const char* name : {"{}", "5"}) {
    SCOPED_TRACE(name);
    const std::string body = std::string(R"({"name":)") + name +
                             R"(,"schema":{"type":"struct","fields":[]},"view-version":{}})";
    ExpectIcebergBadRequest(Ice("POST", "/iceberg/v1/m.c/namespaces/s/views", body), "name");
  }
  ExpectIcebergBadRequest(Ice("POST", "/iceberg/v1/m.c/namespaces/s/views",
                              R"({"name":"v","schema":{"type":"struct","fields":[]},)"
                              R"("view-version":[]})"),
                          "view-version");
}

TEST_F(RequestFieldsTest, IcebergCommitWithANonObjectRequirementIsABadRequest) {
  for (const char* table : {"t", "missing"}) {
    SCOPED_TRACE(table);
    const std::string path = std::string("/iceberg/v1/m.c/namespaces/s/tables/") + table;
    ExpectIcebergBadRequest(Ice("POST", path, R"({"requirements":[5],"updates":[]})"),
                            "requirements[0]");
    ExpectIcebergBadRequest(Ice("POST", path, R"({"requirements":[{"type":{}}],"updates":[]})"),
                            "requirements[0].type");
    ExpectIcebergBadRequest(Ice("POST", path, R"({"requirements":[],"updates":["x"]})"),
                            "updates[0]");
    ExpectIcebergBadRequest(Ice("POST", path, R"({"requirements":[],"updates":[{"action":5}]})"),
                            "updates[0].action");
    ExpectIcebergBadRequest(Ice("POST", path, R"({"requirements":{},"updates":[]})"),
                            "requirements");
  }
}

TEST_F(RequestFieldsTest, IcebergTransactionWithAWronglyTypedRequirementTypeIsABadRequest) {
  const std::string path = "/iceberg/v1/m.c/transactions/commit";
  ExpectIcebergBadRequest(
      Ice("POST", path,
          R"({"table-changes":[{"identifier":{"namespace":["s"],"name":"t"},)"
          R"("requirements":[{"type":{}}],"updates":[]}]})"),
      "table-changes[0].requirements[0].type");
  ExpectIcebergBadRequest(
      Ice("POST", path,
          R"({"table-changes":[{"identifier":{"namespace":["s"],"name":"t"},)"
          R"("requirements":[5]}]})"),
      "table-changes[0].requirements[0]");
  ExpectIcebergBadRequest(
      Ice("POST", path, R"({"table-changes":[{"identifier":{"namespace":["s"],"name":5}}]})"),
      "table-changes[0].identifier.name");
  ExpectIcebergBadRequest(Ice("POST", path, R"({"table-changes":[7]})"), "table-changes[0]");
  ExpectIcebergBadRequest(Ice("POST", path, R"({"table-changes":{}})"), "table-changes");
}

TEST_F(RequestFieldsTest, IcebergRegisterWithWronglyTypedFieldsIsABadRequest) {
  const std::string path = "/iceberg/v1/m.c/namespaces/s/register";
  ExpectIcebergBadRequest(Ice("POST", path, R"({"name":{},"metadata-location":"x"})"), "name");
  ExpectIcebergBadRequest(Ice("POST", path, R"({"name":"r","metadata-location":5})"),
                          "metadata-location");
  ExpectIcebergBadRequest(
      Ice("POST", path, R"({"name":"r","metadata-location":"x","overwrite":"yes"})"),
      "overwrite");
}

TEST_F(RequestFieldsTest, GravitinoCreateTableWithANonStringNameIsABadRequest) {
  const std::string path = "/api/metalakes/m/catalogs/c/schemas/s/tables";
  for (const char* name : {"{}", "5"}) {
    SCOPED_TRACE(name);
    const std::string body = std::string(R"({"name":)") + name +
                             R"(,"columns":[{"name":"id","type":"long"}]})";
    ExpectGravitinoBadRequest(Api("POST", path, body), "name");
  }
  ExpectGravitinoBadRequest(Api("POST", "/api/metalakes", R"({"name":5})"), "name");
  ExpectGravitinoBadRequest(Api("POST", "/api/metalakes/m/catalogs/c/schemas", R"({"name":{}})"),
                            "name");
  ExpectGravitinoBadRequest(
      Api("POST", "/api/metalakes/m/catalogs", R"({"name":"x","type":[],"provider":"p"})"),
      "type");
}

}  // namespace
}  // namespace cairn::api
