// SPDX-License-Identifier: Apache-2.0
#include "governance/access_control.h"

#include <gtest/gtest.h>

#include "forwarding_store.h"
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

TEST(Actions, NameTheKindTheyAddress) {
  using K = model::ObjectKind;
  EXPECT_EQ(service::ActionName(Action::kLoadTable), "LOAD_TABLE");
  EXPECT_EQ(service::ActionName(Action::kGrantOnObject), "MANAGE_GRANTS");
  EXPECT_EQ(service::ActionKind(Action::kCreateMetalake), K::kMetalake);
  EXPECT_EQ(service::ActionKind(Action::kCreateTable), K::kTable);
  EXPECT_EQ(service::ActionKind(Action::kLoadView), K::kView);
  EXPECT_EQ(service::ActionKind(Action::kDropFileset), K::kFileset);
  EXPECT_EQ(service::ActionKind(Action::kManageGroups), K::kGroup);
  EXPECT_EQ(service::ActionKind(Action::kGrantOnObject), std::nullopt);
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

// The owner is read from the payload's text without parsing it; every payload shape gives
// what a full parse gives.
TEST(Owners, ReadFromThePayloadTextAsAParseWould) {
  EntityRecord row;
  row.audit.creator = "alice";
  const std::pair<std::string, Owner> cases[] = {
      {"", {"alice", false}},
      {"{}", {"alice", false}},
      {R"({"roles":["a","b"]})", {"alice", false}},
      {R"({"x":{"owner":{"name":"nested"}},"owner":{"name":"bob","type":"USER"}})",
       {"bob", false}},
      {R"({"owner":{"type":"Group","name":"eng"}})", {"eng", true}},
      {R"( { "a" : [1, {"b": "}]\"{["}], "owner" : { "name" : "ca\u0072ol" } } )",
       {"carol", false}},
      {R"({"owner":{"name":"dan"}})", {"dan", false}},
      {R"({"owner":{"type":"group"}})", {"", true}},
      {R"({"owner":"eve"})", {"alice", false}},
      {R"({"own\u0065r":{"name":"frank"}})", {"frank", false}},
      {R"({"owner":{"name":"grace"})", {"alice", false}},  // malformed: as if absent
      {"not json", {"alice", false}},
  };
  for (const auto& [payload, want] : cases) {
    row.payload = payload;
    const Owner got = OwnerOf(row);
    EXPECT_EQ(got.name, want.name) << payload;
    EXPECT_EQ(got.is_group, want.is_group) << payload;
  }
}

class AuthorizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    options.cache_paths = true;  // as the server's embedded store: decisions on shared rows
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

TEST_F(AuthorizerTest, LeafActionsOfAnyKindFollowTheKindsRow) {
  Grant("reader",
        {SecurableObject{"c",
                         ObjectType::kCatalog,
                         {{"USE_CATALOG", true}, {"USE_SCHEMA", true}, {"SELECT_TABLE", true}}}});
  const Principal reader{"reader", {}};
  // On a table the generic actions decide as the table's own do.
  const std::vector<std::pair<Action, Action>> same = {{Action::kCreateObject, Action::kCreateTable},
                                                       {Action::kLoadObject, Action::kLoadTable},
                                                       {Action::kWriteObject, Action::kModifyTable},
                                                       {Action::kDropObject, Action::kDropTable}};
  for (const auto& [generic, own] : same) {
    for (const auto& who : {reader, Principal{"admin", {}}}) {
      auto a = authz_->Allowed(who, generic, TableTarget());
      auto b = authz_->Allowed(who, own, TableTarget());
      ASSERT_THAT(a, IsOk());
      ASSERT_THAT(b, IsOk());
      EXPECT_EQ(*a, *b) << ActionName(own) << " for " << who.user;
    }
  }
  // A denial names the verb and the kind.
  auto denied = authz_->Check(reader, Action::kWriteObject, TableTarget());
  ASSERT_FALSE(denied);
  EXPECT_NE(denied.error().message.find("'WRITE_TABLE'"), std::string::npos)
      << denied.error().message;
  // A kind whose row gives no privileges (a topic, until topics are served) is its owners'.
  Insert(EntityType::kTopic, schema_.id, "events", "admin");
  auto topic = authz_->Resolve("m", "c", {"s"}, "events", ObjectType::kTopic);
  ASSERT_THAT(topic, IsOk());
  ASSERT_TRUE(topic->object_row.has_value());
  EXPECT_THAT(authz_->Check(reader, Action::kLoadObject, *topic),
              IsError(ErrorCode::kPermissionDenied));
  EXPECT_THAT(authz_->Check(Principal{"admin", {}}, Action::kLoadObject, *topic), IsOk());
  EXPECT_EQ(service::ActionName(Action::kLoadObject, model::ObjectKind::kTopic), "LOAD_TOPIC");
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

// Authorize remembers decisions per thread on the shared rows and grants it decided on: a
// change of grants or of an owner is decided anew at once.
TEST_F(AuthorizerTest, RememberedDecisionsFollowGrantAndOwnerChanges) {
  Grant("reader", {SecurableObject{"c", ObjectType::kCatalog,
                                   {{"USE_CATALOG", true}, {"USE_SCHEMA", true}}}});
  const Principal reader{"reader", {}};
  auto load = [&] { return authz_->Authorize(reader, Action::kLoadTable, "m", "c", {"s"}, "t"); };
  auto drop = [&] { return authz_->Authorize(reader, Action::kDropTable, "m", "c", {"s"}, "t"); };
  for (int i = 0; i < 3; ++i) {
    EXPECT_THAT(load(), IsError(ErrorCode::kPermissionDenied));
    EXPECT_THAT(drop(), IsError(ErrorCode::kPermissionDenied));
  }
  Role select;
  select.name = "select";
  select.objects = {SecurableObject{"c.s.t", ObjectType::kTable, {{"SELECT_TABLE", true}}}};
  ASSERT_THAT(access_->CreateRole(metalake_, select), IsOk());
  ASSERT_THAT(
      access_->ChangeMemberRoles(metalake_, false, "reader", {"select"}, true, model::Audit{}),
      IsOk());
  EXPECT_THAT(load(), IsOk());
  EXPECT_THAT(load(), IsOk());
  EXPECT_THAT(drop(), IsError(ErrorCode::kPermissionDenied));
  // The table given to the reader: its owner may drop it.
  ASSERT_THAT(authz_->SetOwner(table_, Owner{"reader", false}), IsOk());
  EXPECT_THAT(drop(), IsOk());
  ASSERT_THAT(authz_->SetOwner(table_, Owner{"admin", false}), IsOk());
  EXPECT_THAT(drop(), IsError(ErrorCode::kPermissionDenied));
  // Taken away again.
  ASSERT_THAT(
      access_->ChangeMemberRoles(metalake_, false, "reader", {"select"}, false, model::Audit{}),
      IsOk());
  EXPECT_THAT(load(), IsError(ErrorCode::kPermissionDenied));
  // The same user in a group whose role grants the table: other grants on the same rows.
  ASSERT_THAT(access_->AddGroup(metalake_, "eng", model::Audit{"admin", 1, {}, {}}), IsOk());
  ASSERT_THAT(access_->ChangeMemberRoles(metalake_, true, "eng", {"select"}, true, model::Audit{}),
              IsOk());
  EXPECT_THAT(load(), IsError(ErrorCode::kPermissionDenied));
  const Principal in_eng{"reader", {"eng"}};
  EXPECT_THAT(authz_->Authorize(in_eng, Action::kLoadTable, "m", "c", {"s"}, "t"), IsOk());
  EXPECT_THAT(load(), IsError(ErrorCode::kPermissionDenied));
  // A table that appears with the same grants in force: other rows, decided anew.
  auto drop_new = [&] {
    return authz_->Authorize(reader, Action::kDropTable, "m", "c", {"s"}, "t2");
  };
  EXPECT_THAT(drop_new(), IsError(ErrorCode::kPermissionDenied));
  Insert(EntityType::kTable, schema_.id, "t2", "reader");
  EXPECT_THAT(drop_new(), IsOk());
}

// Every action ImpliesLoadCatalog names is allowed only where kLoadCatalog is: whoever calls,
// whatever they own or hold, at every level of the target.
TEST_F(AuthorizerTest, ActionsInsideACatalogImplyLoadingIt) {
  Grant("user_c", {SecurableObject{"c", ObjectType::kCatalog,
                                   {{"USE_CATALOG", true},
                                    {"USE_SCHEMA", true},
                                    {"CREATE_SCHEMA", true},
                                    {"CREATE_TABLE", true},
                                    {"SELECT_TABLE", true},
                                    {"MODIFY_TABLE", true}}}});
  // Everything below the catalog, but not the catalog's use.
  Grant("no_use", {SecurableObject{"c", ObjectType::kCatalog,
                                   {{"USE_SCHEMA", true},
                                    {"CREATE_SCHEMA", true},
                                    {"CREATE_TABLE", true},
                                    {"SELECT_TABLE", true},
                                    {"MODIFY_TABLE", true}}},
                   SecurableObject{"m", ObjectType::kMetalake, {{"CREATE_CATALOG", true}}}});
  Grant("denied", {SecurableObject{"c", ObjectType::kCatalog,
                                   {{"USE_CATALOG", false}, {"SELECT_TABLE", true}}},
                   SecurableObject{"m", ObjectType::kMetalake,
                                   {{"USE_CATALOG", true}, {"USE_SCHEMA", true}}}});
  ASSERT_THAT(access_->AddUser(metalake_, "owner", model::Audit{"admin", 1, {}, {}}), IsOk());
  ASSERT_THAT(authz_->SetOwner(schema_, Owner{"owner", false}), IsOk());
  ASSERT_THAT(authz_->SetOwner(table_, Owner{"no_use", false}), IsOk());
  std::vector<service::Target> targets;
  for (const auto& target : {authz_->Resolve("m", "c"), authz_->Resolve("m", "c", {"s"}),
                             authz_->Resolve("m", "c", {"s"}, "t"),
                             authz_->Resolve("m", "c", {"s"}, "new_table"),
                             authz_->Resolve("m", "c", {"new_schema"})}) {
    ASSERT_THAT(target, IsOk());
    targets.push_back(*target);
  }
  int allowed_somewhere = 0;
  for (int a = 0; a <= static_cast<int>(Action::kGrantOnObject); ++a) {
    const auto action = static_cast<Action>(a);
    if (!service::ImpliesLoadCatalog(action)) continue;
    for (const char* user : {"admin", "user_c", "no_use", "denied", "owner", "stranger"}) {
      for (const auto& target : targets) {
        auto allowed = authz_->Allowed(Principal{user, {}}, action, target);
        auto catalog = authz_->Allowed(Principal{user, {}}, Action::kLoadCatalog, target);
        ASSERT_THAT(allowed, IsOk());
        ASSERT_THAT(catalog, IsOk());
        if (*allowed) {
          ++allowed_somewhere;
          EXPECT_TRUE(*catalog) << ActionName(action) << " for " << user;
        }
      }
    }
  }
  EXPECT_GT(allowed_somewhere, 0);
  EXPECT_FALSE(service::ImpliesLoadCatalog(Action::kCreateCatalog));
  EXPECT_FALSE(service::ImpliesLoadCatalog(Action::kGrantOnObject));
}

TEST_F(AuthorizerTest, ListsKeepOnlyVisibleItems) {
  Insert(EntityType::kTable, schema_.id, "mine", "dave");
  Grant("dave", {SecurableObject{
                    "c", ObjectType::kCatalog, {{"USE_CATALOG", true}, {"USE_SCHEMA", true}}}});
  auto parent = authz_->Resolve("m", "c", {"s"});
  ASSERT_THAT(parent, IsOk());
  auto kept = authz_->Filter(Principal{"dave", {}}, Action::kLoadTable, *parent, {"mine", "t"});
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(*kept, std::vector<std::string>{"mine"});
}

// A store whose reads of one entity type fail as an unreachable database does, to show that
// an outage during authorization is an error and never a denial or a shorter list.
class OutageStore : public cairn::testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  std::optional<EntityType> failing;  // reads of this type fail; all others pass through

  Result<EntityRecord> Get(EntityType type, int64_t parent, std::string_view name) override {
    if (failing == type) return Down();
    return inner_.Get(type, parent, name);
  }
  Result<std::vector<EntityRecord>> GetPath(
      int64_t root, const std::vector<std::pair<EntityType, std::string>>& path) override {
    for (const auto& [type, name] : path) {
      if (failing == type) return Down();
    }
    return inner_.GetPath(root, path);
  }
  Result<std::vector<EntityRecord>> List(EntityType type, int64_t parent, std::string_view after,
                                         int limit) override {
    if (failing == type) return Down();
    return inner_.List(type, parent, after, limit);
  }
  bool Ping() override { return failing == std::nullopt; }

 private:
  static Error Down() {
    return MakeError(ErrorCode::kUnavailable, EntityKind::kNone,
                     "postgres: cannot connect: connection refused");
  }
};

class AuthorizerOutageTest : public AuthorizerTest {
 protected:
  void SetUp() override {
    AuthorizerTest::SetUp();
    outage_ = std::make_unique<OutageStore>(*store_);
    outage_access_ = std::make_unique<AccessControl>(*outage_, AccessConfig{true, {"admin"}});
    outage_authz_ = std::make_unique<service::Authorizer>(*outage_, *outage_access_);
    Grant("reader",
          {SecurableObject{"c",
                           ObjectType::kCatalog,
                           {{"USE_CATALOG", true}, {"USE_SCHEMA", true}, {"SELECT_TABLE", true}}}});
  }
  std::unique_ptr<OutageStore> outage_;
  std::unique_ptr<AccessControl> outage_access_;
  std::unique_ptr<service::Authorizer> outage_authz_;
};

TEST_F(AuthorizerOutageTest, ResolveReturnsTheOutageInsteadOfAMissingRow) {
  const EntityType levels[] = {EntityType::kMetalake, EntityType::kCatalog, EntityType::kSchema,
                               EntityType::kTable};
  for (EntityType type : levels) {
    outage_->failing = type;
    EXPECT_THAT(outage_authz_->Resolve("m", "c", {"s"}, "t"), IsError(ErrorCode::kUnavailable))
        << static_cast<int>(type);
  }
  outage_->failing.reset();
  auto t = outage_authz_->Resolve("m", "c", {"s"}, "t");
  ASSERT_THAT(t, IsOk());
  EXPECT_TRUE(t->object_row.has_value());
  // A row that is really missing is still an answer, not an error.
  auto missing = outage_authz_->Resolve("m", "c", {"s"}, "nope");
  ASSERT_THAT(missing, IsOk());
  EXPECT_FALSE(missing->object_row.has_value());
}

TEST_F(AuthorizerOutageTest, ChecksAndListsFailInsteadOfDenyingOrShrinking) {
  const Principal reader{"reader", {}};
  outage_->failing.reset();
  auto target = outage_authz_->Resolve("m", "c", {"s"}, "t");
  ASSERT_THAT(target, IsOk());
  ASSERT_THAT(outage_authz_->Check(reader, Action::kLoadTable, *target), IsOk());
  auto parent = outage_authz_->Resolve("m", "c", {"s"});
  ASSERT_THAT(parent, IsOk());
  // Membership and role rows unreadable (grants are cached per generation: invalidate).
  for (EntityType type : {EntityType::kUser, EntityType::kRole}) {
    outage_access_->Invalidate();
    outage_->failing = type;
    EXPECT_THAT(outage_authz_->Check(reader, Action::kLoadTable, *target),
                IsError(ErrorCode::kUnavailable))
        << static_cast<int>(type);
    EXPECT_THAT(outage_authz_->Filter(reader, Action::kLoadTable, *parent, {"t"}),
                IsError(ErrorCode::kUnavailable));
  }
  outage_access_->Invalidate();
  outage_->failing = EntityType::kGroup;
  EXPECT_THAT(outage_authz_->Check(Principal{"reader", {"eng"}}, Action::kLoadTable, *target),
              IsError(ErrorCode::kUnavailable));
  // The children's rows unreadable while filtering a list.
  outage_access_->Invalidate();
  outage_->failing = EntityType::kTable;
  EXPECT_THAT(outage_authz_->Filter(reader, Action::kLoadTable, *parent, {"t"}),
              IsError(ErrorCode::kUnavailable));
  outage_->failing.reset();
  auto kept = outage_authz_->Filter(reader, Action::kLoadTable, *parent, {"t"});
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(*kept, std::vector<std::string>{"t"});
}

}  // namespace
}  // namespace cairn::governance
