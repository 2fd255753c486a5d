// SPDX-License-Identifier: Apache-2.0
// The object service: the one path from an interface to a connector (resolve once, authorize,
// call the capability, publish).
#include "service/object_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "forwarding_store.h"
#include "governance/access_control.h"
#include "matchers.h"
#include "service/authorizer.h"
#include "service/metadata_service.h"
#include "store/metadata_store.h"

namespace cairn::service {
namespace {

using cairn::testing::IsOk;

// Counts the lookups of metalake and catalog rows by name (the resolve stage's reads).
class CountingStore : public cairn::testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<store::EntityRecord> Get(store::EntityType type, int64_t parent,
                                  std::string_view name) override {
    if (type == store::EntityType::kMetalake || type == store::EntityType::kCatalog) ++by_name;
    return ForwardingStore::Get(type, parent, name);
  }
  // Path lookups that read the metalake or catalog row (the authorize stage's lookup of the
  // levels below a resolved catalog starts at its schema, and is not one of them).
  Result<std::vector<store::EntityRecord>> GetPath(
      int64_t root, const std::vector<std::pair<store::EntityType, std::string>>& path) override {
    for (const auto& [type, name] : path) {
      if (type == store::EntityType::kMetalake || type == store::EntityType::kCatalog) {
        ++paths;
        break;
      }
    }
    return ForwardingStore::GetPath(root, path);
  }
  std::atomic<int> by_name{0};
  std::atomic<int> paths{0};
};

class ObjectServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cairn-objects-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    inner_ = std::move(*opened);
    store_ = std::make_unique<CountingStore>(*inner_);
    registry_ = connector::MakeDefaultRegistry(connector::ConnectorDeps{store_.get(), dir_.string()});
    metadata_ = std::make_unique<MetadataService>(*store_, *registry_);
    governance::AccessConfig config;
    config.enabled = true;
    config.service_admins = {"ana"};
    access_ = std::make_unique<governance::AccessControl>(*store_, config);
    authz_ = std::make_unique<Authorizer>(*store_, *access_);
    objects_ = std::make_unique<ObjectService>(*metadata_, *authz_);

    const CallContext ctx{"ana", 1, "test"};
    model::Metalake m;
    m.name = "m";
    ASSERT_THAT(metadata_->CreateMetalake(ctx, m), IsOk());
    model::Catalog files;
    files.metalake = "m";
    files.name = "files";
    files.type = model::CatalogType::kFileset;
    files.provider = "fileset";
    files.properties = {{"location", (dir_ / "files").string()}};
    ASSERT_THAT(metadata_->CreateCatalog(ctx, files), IsOk());
    subscription_ = objects_->events().Subscribe([this](const ObjectChange& c) {
      changes_.push_back(std::string(ChangeTypeName(c.type)) + " " +
                         std::string(governance::ObjectTypeName(c.kind)) + " " + c.FullName());
    });
  }
  void TearDown() override {
    subscription_.Reset();
    std::filesystem::remove_all(dir_);
  }

  Caller As(const governance::Principal& who) { return Caller{who, {who.user, 2, "test"}}; }
  ObjectRef Catalog(const std::string& name) { return ObjectRef{"m", name, {}, "", ObjectType::kCatalog}; }

  std::filesystem::path dir_;
  std::unique_ptr<store::MetadataStore> inner_;
  std::unique_ptr<CountingStore> store_;
  std::unique_ptr<connector::ConnectorRegistry> registry_;
  std::unique_ptr<MetadataService> metadata_;
  std::unique_ptr<governance::AccessControl> access_;
  std::unique_ptr<Authorizer> authz_;
  std::unique_ptr<ObjectService> objects_;
  EventStream::Subscription subscription_;
  std::vector<std::string> changes_;
  const governance::Principal ana_{"ana", {}};
  const governance::Principal bob_{"bob", {}};
};

TEST_F(ObjectServiceTest, CreatesLoadsAndDropsASchemaAndPublishesEachChange) {
  model::Schema s;
  s.name = "raw";
  s.comment = "landing zone";
  auto created = objects_->CreateSchema(As(ana_), Catalog("files"), s);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->audit.creator, "ana");  // the creator owns it
  auto loaded = objects_->LoadSchema(As(ana_), Catalog("files").Schema("raw"));
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->comment, "landing zone");
  auto listed = objects_->ListSchemas(As(ana_), Catalog("files"));
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(*listed, std::vector<std::string>{"raw"});
  auto dropped = objects_->DropSchema(As(ana_), Catalog("files").Schema("raw"), false);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_TRUE(*dropped);
  auto again = objects_->DropSchema(As(ana_), Catalog("files").Schema("raw"), false);
  ASSERT_THAT(again, IsOk());
  EXPECT_FALSE(*again);  // nothing dropped, nothing published
  EXPECT_EQ(changes_, (std::vector<std::string>{"created schema m.files.raw",
                                                "dropped schema m.files.raw"}));
}

TEST_F(ObjectServiceTest, ReadsTheMetalakeAndCatalogRowsOnceForOpenAndAuthorize) {
  model::Schema s;
  s.name = "raw";
  ASSERT_THAT(objects_->CreateSchema(As(ana_), Catalog("files"), s), IsOk());
  store_->by_name = 0;
  store_->paths = 0;
  ASSERT_THAT(objects_->LoadSchema(As(ana_), Catalog("files").Schema("raw")), IsOk());
  EXPECT_EQ(store_->paths.load(), 1);    // the open: both rows in one round trip
  EXPECT_EQ(store_->by_name.load(), 0);  // the authorize stage read them from the open
}

TEST_F(ObjectServiceTest, ADenialComesBeforeNotFoundSoNamesStayHidden) {
  // bob is no user of the metalake: whether a catalog exists is not his to learn.
  auto missing = objects_->LoadSchema(As(bob_), Catalog("nope").Schema("raw"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kPermissionDenied);
  auto existing = objects_->LoadSchema(As(bob_), Catalog("files").Schema("raw"));
  ASSERT_FALSE(existing);
  EXPECT_EQ(existing.error().code, ErrorCode::kPermissionDenied);
  // ana may, and learns that the catalog is not there.
  auto for_ana = objects_->LoadSchema(As(ana_), Catalog("nope").Schema("raw"));
  ASSERT_FALSE(for_ana);
  EXPECT_EQ(for_ana.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(for_ana.error().entity, EntityKind::kCatalog);
  // A denied create writes nothing.
  model::Schema s;
  s.name = "bobs";
  auto denied = objects_->CreateSchema(As(bob_), Catalog("files"), s);
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, ErrorCode::kPermissionDenied);
  auto listed = objects_->ListSchemas(As(ana_), Catalog("files"));
  ASSERT_THAT(listed, IsOk());
  EXPECT_TRUE(listed->empty());
  EXPECT_TRUE(changes_.empty());
}

TEST_F(ObjectServiceTest, AProviderWithoutTheCapabilityIsUnsupported) {
  model::Schema s;
  s.name = "raw";
  ASSERT_THAT(objects_->CreateSchema(As(ana_), Catalog("files"), s), IsOk());
  auto tables = objects_->ListTables(As(ana_), Catalog("files").Schema("raw"));
  ASSERT_FALSE(tables);
  EXPECT_EQ(tables.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(tables.error().message, "Catalog files does not support table operations");
}

TEST_F(ObjectServiceTest, NamesThatArePathsAreRefusedBeforeTheSource) {
  for (const std::string& bad : std::vector<std::string>{"..", "a/b", std::string("a\0b", 3)}) {
    model::Schema s;
    s.name = bad;
    auto created = objects_->CreateSchema(As(ana_), Catalog("files"), s);
    ASSERT_FALSE(created) << bad;
    EXPECT_EQ(created.error().code, ErrorCode::kInvalidArgument) << bad;
  }
  EXPECT_TRUE(changes_.empty());
  auto listed = objects_->ListSchemas(As(ana_), Catalog("files"));
  ASSERT_THAT(listed, IsOk());
  EXPECT_TRUE(listed->empty());
}

}  // namespace
}  // namespace cairn::service
