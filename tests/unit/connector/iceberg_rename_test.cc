// SPDX-License-Identifier: Apache-2.0
// IcebergCatalog::RenameTable when its write collides with an object that is gone by the time
// the collision is looked at: the rename must still happen (or fail), never report success
// without renaming.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "catalog_rows.h"
#include "forwarding_store.h"
#include "matchers.h"
#include "store/metadata_store.h"

namespace cairn::connector {
namespace {

namespace fs = std::filesystem;
using cairn::testing::IsError;
using cairn::testing::IsOk;

// A store whose next rename-like write (a compare-and-set that changes a row's name) answers
// kAlreadyExists once, as when another object held the name at that instant.
class CollidingStore : public cairn::testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  int collisions_left = 0;

  Result<store::EntityRecord> CompareAndSet(const store::EntityRecord& r) override {
    auto current = inner_.GetById(r.id);
    if (collisions_left > 0 && current && current->name != r.name) {
      --collisions_left;
      return MakeError(ErrorCode::kAlreadyExists, EntityKind::kTable, "name taken");
    }
    return inner_.CompareAndSet(r);
  }
};

class RenameTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cairn-rename-" + RandomUuid());
    fs::create_directories(root_);
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    inner_ = std::move(*opened);
    store_ = std::make_unique<CollidingStore>(*inner_);
    auto info = cairn::testing::InsertCatalogRows(*store_);
    ASSERT_THAT(info, IsOk());
    catalog_ = std::make_unique<IcebergCatalog>(*info, *store_, (root_ / "wh").string(),
                                                MakeIcebergCaches(IcebergCacheOptions{}));
    ASSERT_THAT(catalog_->CreateNamespace(Ctx(), {"db"}, {}), IsOk());
    const auto request = nlohmann::json::parse(
        R"({"name": "t", "schema": {"type": "struct", "fields": [
             {"id": 1, "name": "id", "required": true, "type": "long"}]}})");
    ASSERT_THAT(catalog_->CreateTable(Ctx(), {"db"}, request, false), IsOk());
  }
  void TearDown() override {
    catalog_.reset();
    store_.reset();
    inner_.reset();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  static CallContext Ctx() { return CallContext{"tester", NowMillis()}; }

  fs::path root_;
  std::unique_ptr<store::MetadataStore> inner_;
  std::unique_ptr<CollidingStore> store_;
  std::unique_ptr<IcebergCatalog> catalog_;
};

TEST_F(RenameTest, ACollisionWithANameFreedSinceIsRetriedNotReportedAsDone) {
  store_->collisions_left = 1;
  ASSERT_THAT(catalog_->RenameTable(Ctx(), {"db"}, "t", {"db"}, "u"), IsOk());
  EXPECT_EQ(store_->collisions_left, 0);  // the collision happened
  EXPECT_THAT(catalog_->TableRow({"db"}, "u"), IsOk());
  EXPECT_THAT(catalog_->TableRow({"db"}, "t"), IsError(ErrorCode::kNotFound));
}

TEST_F(RenameTest, ACollisionEveryTimeGivesUpInsteadOfPretending) {
  store_->collisions_left = 1000;
  EXPECT_THAT(catalog_->RenameTable(Ctx(), {"db"}, "t", {"db"}, "u"),
              IsError(ErrorCode::kUnavailable));
  EXPECT_THAT(catalog_->TableRow({"db"}, "t"), IsOk());
  EXPECT_THAT(catalog_->TableRow({"db"}, "u"), IsError(ErrorCode::kNotFound));
}

}  // namespace
}  // namespace cairn::connector
