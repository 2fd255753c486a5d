// SPDX-License-Identifier: Apache-2.0
// The stream of object changes: what a listener sees when clients change objects through the
// Gravitino API and the Iceberg REST service of one server.
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/iceberg_api.h"
#include "connector/connector.h"
#include "governance/access_control.h"
#include "service/authorizer.h"
#include "service/events.h"
#include "service/metadata_service.h"
#include "store/metadata_store.h"

namespace cairn::service {
namespace {

TEST(EventStream, CallsListenersInOrderUntilUnsubscribed) {
  EventStream stream;
  std::vector<std::string> seen;
  ObjectChange change;
  change.metalake = "m";
  change.catalog = "c";
  change.schema = {"a", "b"};
  change.name = "t";
  {
    auto first = stream.Subscribe([&](const ObjectChange& c) { seen.push_back("1:" + c.FullName()); });
    auto failing = stream.Subscribe([&](const ObjectChange&) { throw std::runtime_error("boom"); });
    auto second = stream.Subscribe([&](const ObjectChange& c) { seen.push_back("2:" + c.FullName()); });
    stream.Publish(change);
    second.Reset();
    stream.Publish(change);
  }
  stream.Publish(change);  // nobody listens any more
  EXPECT_EQ(seen, (std::vector<std::string>{"1:m.c.a.b.t", "2:m.c.a.b.t", "1:m.c.a.b.t"}));
  EXPECT_EQ(stream.published(), 3u);
}

TEST(MakeChange, ANewNameMakesARenameOfTheRightLevel) {
  const connector::CallContext ctx{"ana", 7, "gravitino"};
  using governance::ObjectType;
  auto table = MakeChange(ctx, ChangeType::kAltered, ObjectType::kTable, "m", "c", {"s"}, "t", "u");
  EXPECT_EQ(table.type, ChangeType::kRenamed);
  ASSERT_TRUE(table.renamed_to.has_value());
  EXPECT_EQ(table.renamed_to->schema, std::vector<std::string>{"s"});
  EXPECT_EQ(table.renamed_to->name, "u");
  auto schema = MakeChange(ctx, ChangeType::kAltered, ObjectType::kSchema, "m", "c", {"a", "s"},
                           "", "s2");
  ASSERT_TRUE(schema.renamed_to.has_value());
  EXPECT_EQ(schema.renamed_to->schema, (std::vector<std::string>{"a", "s2"}));
  EXPECT_EQ(schema.renamed_to->name, "");
  auto catalog = MakeChange(ctx, ChangeType::kAltered, ObjectType::kCatalog, "m", "c", {}, "", "d");
  ASSERT_TRUE(catalog.renamed_to.has_value());
  EXPECT_EQ(catalog.renamed_to->name, "d");
  // The same name again is no rename; the caller's context is carried.
  auto same = MakeChange(ctx, ChangeType::kAltered, ObjectType::kTable, "m", "c", {"s"}, "t", "t");
  EXPECT_EQ(same.type, ChangeType::kAltered);
  EXPECT_FALSE(same.renamed_to.has_value());
  EXPECT_EQ(same.principal, "ana");
  EXPECT_EQ(same.time_ms, 7);
  EXPECT_EQ(same.interface, "gravitino");
  EXPECT_EQ(same.FullName(), "m.c.s.t");
}

class ObjectChangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cairn-changes-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "warehouse");
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    store_ = std::move(*store::OpenStore(options));
    registry_ = connector::MakeDefaultRegistry(connector::ConnectorDeps{store_.get(), dir_.string()});
    service_ = std::make_unique<MetadataService>(*store_, *registry_);
    access_ = std::make_unique<governance::AccessControl>(*store_, governance::AccessConfig{});
    authz_ = std::make_unique<Authorizer>(*store_, *access_);
    objects_ = std::make_unique<ObjectService>(*service_, *authz_);
    gravitino_ = std::make_unique<api::gravitino::GravitinoApi>(
        *objects_, api::gravitino::ApiInfo{}, [] { return true; });
    iceberg_ =
        std::make_unique<api::iceberg::IcebergApi>(*objects_, api::iceberg::IcebergApiOptions{});
    subscription_ = service_->events().Subscribe([this](const ObjectChange& c) {
      std::lock_guard lock(mu_);
      seen_.push_back(c);
    });
  }
  void TearDown() override {
    subscription_.Reset();
    std::filesystem::remove_all(dir_);
  }

  http::Response Api(const std::string& method, const std::string& path,
                     const std::string& body = "") {
    http::Request r;
    r.method = method;
    r.path = path;
    r.target = path;
    r.body = body;
    r.headers["Content-Type"] = "application/json";
    const governance::Principal who{"ana", {}};
    return path.rfind("/iceberg", 0) == 0 ? iceberg_->Handle(r, who) : gravitino_->Handle(r, who);
  }
  std::vector<std::string> Seen() {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto& c : seen_) {
      std::string line = std::string(ChangeTypeName(c.type)) + " " +
                         std::string(governance::ObjectTypeName(c.kind)) + " " + c.FullName();
      if (c.renamed_to) {
        line += " -> ";
        for (const auto& l : c.renamed_to->schema) line += l + ".";
        line += c.renamed_to->name;
      }
      line += " by " + c.principal + " via " + c.interface;
      out.push_back(line);
    }
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<connector::ConnectorRegistry> registry_;
  std::unique_ptr<MetadataService> service_;
  std::unique_ptr<governance::AccessControl> access_;
  std::unique_ptr<Authorizer> authz_;
  std::unique_ptr<ObjectService> objects_;
  std::unique_ptr<api::gravitino::GravitinoApi> gravitino_;
  std::unique_ptr<api::iceberg::IcebergApi> iceberg_;
  EventStream::Subscription subscription_;
  std::mutex mu_;
  std::vector<ObjectChange> seen_;
};

constexpr char kSchema[] =
    R"({"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":false,"type":"long"}]})";

TEST_F(ObjectChangesTest, EveryInterfaceReportsWhatItChanged) {
  ASSERT_EQ(Api("POST", "/api/metalakes", R"({"name":"m"})").status, 200);
  const std::string catalog = R"({"name":"c","type":"relational","provider":"lakehouse-iceberg",)"
                              R"("properties":{"warehouse":")" +
                              (dir_ / "warehouse").string() + R"("}})";
  ASSERT_EQ(Api("POST", "/api/metalakes/m/catalogs", catalog).status, 200);
  ASSERT_EQ(Api("POST", "/api/metalakes/m/catalogs/c/schemas", R"({"name":"s"})").status, 200);
  auto created = Api("POST", "/iceberg/v1/m.c/namespaces/s/tables",
                     std::string(R"({"name":"t","schema":)") + kSchema + "}");
  ASSERT_EQ(created.status, 200) << created.body;
  auto committed = Api("POST", "/iceberg/v1/m.c/namespaces/s/tables/t",
                       R"({"updates":[{"action":"set-properties","updates":{"k":"v"}}]})");
  ASSERT_EQ(committed.status, 200) << committed.body;
  ASSERT_EQ(Api("POST", "/iceberg/v1/m.c/tables/rename",
                R"({"source":{"namespace":["s"],"name":"t"},)"
                R"("destination":{"namespace":["s"],"name":"u"}})")
                .status,
            204);
  ASSERT_EQ(Api("PUT", "/api/metalakes/m/catalogs/c/schemas/s/tables/u",
                R"({"updates":[{"@type":"setProperty","property":"p","value":"1"}]})")
                .status,
            200);
  // Refused requests change nothing and report nothing.
  EXPECT_EQ(Api("POST", "/iceberg/v1/m.c/namespaces/s/tables",
                std::string(R"({"name":"u","schema":)") + kSchema + "}")
                .status,
            409);
  EXPECT_EQ(Api("DELETE", "/api/metalakes/m/catalogs/c/schemas/s/tables/nope").status, 200);
  ASSERT_EQ(Api("DELETE", "/iceberg/v1/m.c/namespaces/s/tables/u").status, 204);
  EXPECT_EQ(Seen(), (std::vector<std::string>{
                        "created metalake m by ana via gravitino",
                        "created catalog m.c by ana via gravitino",
                        "created schema m.c.s by ana via gravitino",
                        "created table m.c.s.t by ana via iceberg",
                        "committed table m.c.s.t by ana via iceberg",
                        "renamed table m.c.s.t -> s.u by ana via iceberg",
                        "altered table m.c.s.u by ana via gravitino",
                        "dropped table m.c.s.u by ana via iceberg",
                    }));
  std::lock_guard lock(mu_);
  ASSERT_EQ(seen_.size(), 8u);
  EXPECT_FALSE(seen_[4].detail.empty());  // the commit names its new metadata file
  EXPECT_GT(seen_[4].time_ms, 0);
}

}  // namespace
}  // namespace cairn::service
