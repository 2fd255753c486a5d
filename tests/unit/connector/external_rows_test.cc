// SPDX-License-Identifier: Apache-2.0
#include "connector/external_rows.h"

#include <memory>

#include <gtest/gtest.h>

#include "store/metadata_store.h"

namespace cairn::connector {
namespace {

using store::EntityRecord;
using store::EntityType;

// A row's owner is its creator until one is set (governance::OwnerOf), so these tests read the
// creator.
class ExternalRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    store_ = std::move(*opened);
    EntityRecord ml;
    ml.type = EntityType::kMetalake;
    ml.name = "ml";
    ml.payload = "{}";
    auto ml_row = store_->Insert(ml);
    ASSERT_TRUE(ml_row.has_value());
    EntityRecord cat;
    cat.type = EntityType::kCatalog;
    cat.parent_id = ml_row->id;
    cat.name = "cat";
    cat.payload = "{}";
    auto cat_row = store_->Insert(cat);
    ASSERT_TRUE(cat_row.has_value());
    catalog_id_ = cat_row->id;
  }

  std::optional<EntityRecord> Table(std::string_view schema, std::string_view name) {
    auto s = store_->Get(EntityType::kSchema, catalog_id_, schema);
    if (!s) return std::nullopt;
    auto t = store_->Get(EntityType::kTable, s->id, name);
    if (!t) return std::nullopt;
    return *t;
  }

  std::unique_ptr<store::MetadataStore> store_;
  int64_t catalog_id_ = 0;
  CallContext alice_{"alice", 1000};
  CallContext bob_{"bob", 2000};
};

TEST_F(ExternalRowsTest, CreatedObjectsAreOwnedByTheirCreatorSeenOnesByNobody) {
  ExternalRows rows(store_.get(), catalog_id_, "ml.cat");
  ASSERT_TRUE(rows.ClaimObject(EntityType::kTable, "s", "mine", alice_).has_value());
  ASSERT_TRUE(rows.TouchObject(EntityType::kTable, "s", "seen").has_value());
  EXPECT_EQ(Table("s", "mine")->audit.creator, "alice");
  EXPECT_EQ(Table("s", "seen")->audit.creator, "");
  // The schema row was made on the way, with no owner.
  auto schema = rows.FindSchema("s");
  ASSERT_TRUE(schema.has_value());
  EXPECT_EQ(schema->audit.creator, "");
  // A touch never takes an owner away; a claim replaces a stale row.
  rows.TouchObject(EntityType::kTable, "s", "mine");
  EXPECT_EQ(Table("s", "mine")->audit.creator, "alice");
  rows.ClaimObject(EntityType::kTable, "s", "seen", bob_);
  EXPECT_EQ(Table("s", "seen")->audit.creator, "bob");
}

TEST_F(ExternalRowsTest, RenamesMoveTheRowWithItsOwnerAcrossSchemas) {
  ExternalRows rows(store_.get(), catalog_id_, "ml.cat");
  ASSERT_TRUE(rows.ClaimObject(EntityType::kTable, "a", "t", alice_).has_value());
  rows.TouchObject(EntityType::kTable, "b", "u");  // a stale row of the destination name
  auto moved = rows.MoveObject(EntityType::kTable, "a", "t", "b", "u", bob_);
  ASSERT_TRUE(moved.has_value());
  EXPECT_FALSE(Table("a", "t").has_value());
  auto row = Table("b", "u");
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->audit.creator, "alice");
  EXPECT_EQ(row->audit.last_modifier, "bob");
  // An object never seen before gets a row without owner at its new name.
  ASSERT_TRUE(rows.MoveObject(EntityType::kTable, "a", "x", "a", "y", bob_).has_value());
  EXPECT_EQ(Table("a", "y")->audit.creator, "");
}

TEST_F(ExternalRowsTest, DropsAndCompleteListingsRemoveRows) {
  ExternalRows rows(store_.get(), catalog_id_, "ml.cat");
  rows.ClaimObject(EntityType::kTable, "s", "t1", alice_);
  rows.ClaimObject(EntityType::kTable, "s", "t2", alice_);
  rows.ForgetObject(EntityType::kTable, "s", "t1");
  EXPECT_FALSE(Table("s", "t1").has_value());

  // A partial listing (one caller's view) only adds rows.
  rows.SeeObjects(EntityType::kTable, "s", {"t3"}, /*complete=*/false);
  EXPECT_TRUE(Table("s", "t2").has_value());
  EXPECT_TRUE(Table("s", "t3").has_value());
  // A complete listing also removes the rows of objects gone from the source.
  rows.SeeObjects(EntityType::kTable, "s", {"t3"}, /*complete=*/true);
  EXPECT_FALSE(Table("s", "t2").has_value());
  EXPECT_TRUE(Table("s", "t3").has_value());

  rows.SeeSchemas({"other"}, /*complete=*/true);
  EXPECT_FALSE(rows.FindSchema("s").has_value());
  EXPECT_FALSE(Table("s", "t3").has_value());
  EXPECT_TRUE(rows.FindSchema("other").has_value());
  rows.ForgetSchema("other");
  EXPECT_FALSE(rows.FindSchema("other").has_value());
}

TEST_F(ExternalRowsTest, WithoutACatalogRowNothingIsTracked) {
  ExternalRows rows(store_.get(), 0, "ml.cat");
  EXPECT_FALSE(rows.Tracking());
  EXPECT_FALSE(rows.ClaimObject(EntityType::kTable, "s", "t", alice_).has_value());
  ExternalRows none(nullptr, catalog_id_, "ml.cat");
  EXPECT_FALSE(none.TouchSchema("s").has_value());
}

}  // namespace
}  // namespace cairn::connector
