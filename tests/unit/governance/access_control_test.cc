// SPDX-License-Identifier: Apache-2.0
#include "governance/access_control.h"

#include <gtest/gtest.h>

#include "matchers.h"
#include "service/authorizer.h"
#include "store/metadata_store.h"

namespace cairn::governance {
namespace {

using cairn::testing::IsError;
using cairn::testing::IsOk;
using service::Action;
using store::EntityRecord;
using store::EntityType;

TEST(Privileges, BindOnlyToTheirObjectTypes) {
  EXPECT_THAT(ValidatePrivilege("select_table", ObjectType::kTable), IsOk());
  EXPECT_THAT(ValidatePrivilege("SELECT_TABLE", ObjectType::kCatalog), IsOk());
  EXPECT_THAT(ValidatePrivilege("CREATE_CATALOG", ObjectType::kTable),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidatePrivilege("USE_CATALOG", ObjectType::kSchema),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidatePrivilege("FLY", ObjectType::kMetalake),
              IsError(ErrorCode::kInvalidArgument));
}

TEST(Grants, DenyOnAnyLevelWins) {
  Grants g;
  g.entries[{ObjectType::kCatalog, "c"}]["SELECT_TABLE"] = true;
  const std::vector<std::pair<ObjectType, std::string>> chain = {{ObjectType::kMetalake, "m"},
                                                                 {ObjectType::kCatalog, "c"},
                                                                 {ObjectType::kSchema, "c.s"},
                                                                 {ObjectType::kTable, "c.s.t"}};
  EXPECT_TRUE(g.Has("SELECT_TABLE", chain));
  EXPECT_FALSE(g.Has("MODIFY_TABLE", chain));
  g.entries[{ObjectType::kSchema, "c.s"}]["SELECT_TABLE"] = false;
  EXPECT_FALSE(g.Has("SELECT_TABLE", chain));
}

TEST(Owners, CreatorUnlessTransferred) {
  EntityRecord row;
  row.audit.creator = "alice";
  row.payload = "{}";
  EXPECT_EQ(OwnerOf(row).name, "alice");
  EXPECT_FALSE(OwnerOf(row).is_group);
  row.payload = WithOwner(row.payload, Owner{"eng", true});
  EXPECT_EQ(OwnerOf(row).name, "eng");
  EXPECT_TRUE(OwnerOf(row).is_group);
}

class AuthorizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    access_ = std::make_unique<AccessControl>(*store_, AccessConfig{true, {"admin"}});
    authz_ = std::make_unique<service::Authorizer>(*store_, *access_);
    metalake_ = Insert(EntityType::kMetalake, 0, "m", "admin");
    catalog_ = Insert(EntityType::kCatalog, metalake_.id, "c", "admin");
    schema_ = Insert(EntityType::kSchema, catalog_.id, "s", "admin");
    table_ = Insert(EntityType::kTable, schema_.id, "t", "admin");
  }

  EntityRecord Insert(EntityType type, int64_t parent, const std::string& name,
                      const std::string& creator) {
    EntityRecord r;
    r.type = type;
    r.parent_id = parent;
    r.name = name;
    r.payload = "{}";
    r.audit.creator = creator;
    auto inserted = store_->Insert(r);
    EXPECT_THAT(inserted, IsOk());
    return *inserted;
  }

  service::Target TableTarget() {
    auto t = authz_->Resolve("m", "c", {"s"}, "t");
    EXPECT_THAT(t, IsOk());
    return *t;
  }

  void Grant(const std::string& user, std::vector<SecurableObject> objects) {
    ASSERT_THAT(access_->AddUser(metalake_, user, model::Audit{"admin", 1, {}, {}}), IsOk());
    Role role;
    role.name = "r_" + user;
    role.objects = std::move(objects);
    ASSERT_THAT(access_->CreateRole(metalake_, role), IsOk());
    ASSERT_THAT(
        access_->ChangeMemberRoles(metalake_, false, user, {role.name}, true, model::Audit{}),
        IsOk());
  }

  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<AccessControl> access_;
  std::unique_ptr<service::Authorizer> authz_;
  EntityRecord metalake_, catalog_, schema_, table_;
};

TEST_F(AuthorizerTest, NonMembersAreRefusedEvenWithGrantsElsewhere) {
  EXPECT_THAT(authz_->Check(Principal{"bob", {}}, Action::kLoadTable, TableTarget()),
              IsError(ErrorCode::kPermissionDenied));
}

TEST_F(AuthorizerTest, OwnersControlEverythingBelow) {
  EXPECT_THAT(authz_->Check(Principal{"admin", {}}, Action::kDropTable, TableTarget()), IsOk());
  EXPECT_THAT(authz_->Check(Principal{"admin", {}}, Action::kManageCatalog, TableTarget()), IsOk());
}

TEST_F(AuthorizerTest, InheritedGrantsAndDenies) {
  Grant("reader",
        {SecurableObject{"c",
                         ObjectType::kCatalog,
                         {{"USE_CATALOG", true}, {"USE_SCHEMA", true}, {"SELECT_TABLE", true}}}});
  const Principal reader{"reader", {}};
  EXPECT_THAT(authz_->Check(reader, Action::kLoadTable, TableTarget()), IsOk());
  EXPECT_THAT(authz_->Check(reader, Action::kModifyTable, TableTarget()),
              IsError(ErrorCode::kPermissionDenied));
  EXPECT_THAT(authz_->Check(reader, Action::kDropTable, TableTarget()),
              IsError(ErrorCode::kPermissionDenied));
  // A deny on the schema, in another role, takes the privilege away (the cache is invalidated).
  Role deny;
  deny.name = "deny";
  deny.objects = {SecurableObject{"c.s", ObjectType::kSchema, {{"SELECT_TABLE", false}}}};
  ASSERT_THAT(access_->CreateRole(metalake_, deny), IsOk());
  ASSERT_THAT(
      access_->ChangeMemberRoles(metalake_, false, "reader", {"deny"}, true, model::Audit{}),
      IsOk());
  EXPECT_THAT(authz_->Check(reader, Action::kLoadTable, TableTarget()),
              IsError(ErrorCode::kPermissionDenied));
}

TEST_F(AuthorizerTest, GroupsGrantThroughTheirRoles) {
  ASSERT_THAT(access_->AddGroup(metalake_, "eng", model::Audit{"admin", 1, {}, {}}), IsOk());
  Role role;
  role.name = "eng_read";
  role.objects = {
      SecurableObject{"m",
                      ObjectType::kMetalake,
                      {{"USE_CATALOG", true}, {"USE_SCHEMA", true}, {"SELECT_TABLE", true}}}};
  ASSERT_THAT(access_->CreateRole(metalake_, role), IsOk());
  ASSERT_THAT(
      access_->ChangeMemberRoles(metalake_, true, "eng", {"eng_read"}, true, model::Audit{}),
      IsOk());
  EXPECT_THAT(authz_->Check(Principal{"carol", {"eng"}}, Action::kLoadTable, TableTarget()),
              IsOk());
  EXPECT_THAT(authz_->Check(Principal{"carol", {}}, Action::kLoadTable, TableTarget()),
              IsError(ErrorCode::kPermissionDenied));
}

TEST_F(AuthorizerTest, ListsKeepOnlyVisibleItems) {
  Insert(EntityType::kTable, schema_.id, "mine", "dave");
  Grant("dave", {SecurableObject{
                    "c", ObjectType::kCatalog, {{"USE_CATALOG", true}, {"USE_SCHEMA", true}}}});
  auto parent = authz_->Resolve("m", "c", {"s"});
  ASSERT_THAT(parent, IsOk());
  auto kept = authz_->Filter(Principal{"dave", {}}, Action::kLoadTable, *parent, {"mine", "t"});
  EXPECT_EQ(kept, std::vector<std::string>{"mine"});
}

}  // namespace
}  // namespace cairn::governance
