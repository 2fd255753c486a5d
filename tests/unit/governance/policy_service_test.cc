// SPDX-License-Identifier: Apache-2.0
// The policy service: content rules, what is stored, and when nothing is written.
#include "service/policy_service.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "governance/access_control.h"
#include "matchers.h"
#include "service/authorizer.h"
#include "store/metadata_store.h"

namespace cairn::service {
namespace {

using cairn::testing::IsOk;

class PolicyServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    access_ = std::make_unique<governance::AccessControl>(*store_, governance::AccessConfig{});
    authz_ = std::make_unique<Authorizer>(*store_, *access_);
    policies_ = std::make_unique<PolicyService>(*store_, *authz_, events_);
    store::EntityRecord lake;
    lake.type = store::EntityType::kMetalake;
    lake.name = "m";
    lake.payload = "{}";
    auto inserted = store_->Insert(lake);
    ASSERT_THAT(inserted, IsOk());
    lake_id_ = inserted->id;
    subscription_ = events_.Subscribe([this](const ObjectChange&) { ++changes_; });
  }

  Caller caller() { return Caller{principal_, connector::CallContext{"ana", 5, "test"}}; }

  static model::Policy Custom(std::string name, std::vector<model::ObjectKind> types) {
    model::Policy p;
    p.name = std::move(name);
    p.content.supported_object_types = std::move(types);
    p.content.rules = R"({"days":7})";
    return p;
  }

  governance::Principal principal_{"ana", {}};
  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<governance::AccessControl> access_;
  std::unique_ptr<Authorizer> authz_;
  EventStream events_;
  std::unique_ptr<PolicyService> policies_;
  EventStream::Subscription subscription_;
  int64_t lake_id_ = 0;
  int changes_ = 0;
};

TEST_F(PolicyServiceTest, ACustomPolicyNeedsAnObjectType) {
  auto created = policies_->CreatePolicy(caller(), "m", Custom("p", {}));
  ASSERT_FALSE(created.has_value());
  EXPECT_EQ(created.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(created.error().message.find("supportedObjectTypes"), std::string::npos);
  auto rows = store_->List(store::EntityType::kPolicy, lake_id_, "", 0);
  ASSERT_THAT(rows, IsOk());
  EXPECT_TRUE(rows->empty());
  EXPECT_EQ(changes_, 0);
}

TEST_F(PolicyServiceTest, StoredContentReadsBackAndCarriesTheCreator) {
  model::Policy p = Custom("retention", {model::ObjectKind::kTable});
  p.content.properties = {{"k", "v"}};
  p.enabled = false;
  ASSERT_THAT(policies_->CreatePolicy(caller(), "m", p), IsOk());
  auto got = policies_->GetPolicy(caller(), "m", "retention");
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->content, p.content);
  EXPECT_FALSE(got->enabled);
  EXPECT_EQ(got->policy_type, "custom");
  EXPECT_EQ(got->audit.creator, "ana");
  EXPECT_EQ(changes_, 1);
}

TEST_F(PolicyServiceTest, ABuiltInPolicyHasItsOwnObjectTypes) {
  model::Policy p;
  p.name = "compact";
  p.policy_type = std::string(model::kIcebergCompactionPolicy);
  p.content.rules = R"({"maxPartitionNum":50})";
  p.content.supported_object_types = {model::ObjectKind::kFileset};  // not its to choose
  auto created = policies_->CreatePolicy(caller(), "m", p);
  ASSERT_THAT(created, IsOk());
  auto before = store_->Get(store::EntityType::kPolicy, lake_id_, "compact");
  ASSERT_THAT(before, IsOk());
  EXPECT_EQ(created->content.supported_object_types,
            (std::vector<model::ObjectKind>{model::ObjectKind::kCatalog,
                                            model::ObjectKind::kSchema,
                                            model::ObjectKind::kTable}));
  // A content change must name the policy's own type; a refused change writes nothing.
  model::PolicyChange change;
  change.kind = model::PolicyChange::Kind::kUpdateContent;
  change.policy_type = "custom";
  change.content = Custom("x", {model::ObjectKind::kTable}).content;
  auto altered = policies_->AlterPolicy(caller(), "m", "compact", {change});
  ASSERT_FALSE(altered.has_value());
  EXPECT_EQ(altered.error().code, ErrorCode::kInvalidArgument);
  auto row = store_->Get(store::EntityType::kPolicy, lake_id_, "compact");
  ASSERT_THAT(row, IsOk());
  EXPECT_EQ(row->version, before->version);
  EXPECT_EQ(row->payload, before->payload);
}

TEST_F(PolicyServiceTest, SettingTheFlagItAlreadyHasWritesNothing) {
  ASSERT_THAT(policies_->CreatePolicy(caller(), "m", Custom("p", {model::ObjectKind::kTable})),
              IsOk());
  const int after_create = changes_;
  auto before = store_->Get(store::EntityType::kPolicy, lake_id_, "p");
  ASSERT_THAT(before, IsOk());
  ASSERT_THAT(policies_->SetEnabled(caller(), "m", "p", true), IsOk());
  auto row = store_->Get(store::EntityType::kPolicy, lake_id_, "p");
  ASSERT_THAT(row, IsOk());
  EXPECT_EQ(row->version, before->version);
  EXPECT_EQ(changes_, after_create);
  ASSERT_THAT(policies_->SetEnabled(caller(), "m", "p", false), IsOk());
  auto got = policies_->GetPolicy(caller(), "m", "p");
  ASSERT_THAT(got, IsOk());
  EXPECT_FALSE(got->enabled);
  EXPECT_EQ(got->audit.last_modifier, "ana");
  EXPECT_EQ(changes_, after_create + 1);
  auto missing = policies_->SetEnabled(caller(), "m", "nope", true);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().entity, EntityKind::kPolicy);
}

TEST_F(PolicyServiceTest, ACorruptRowIsAnInternalErrorNotACrash) {
  store::EntityRecord row;
  row.type = store::EntityType::kPolicy;
  row.parent_id = lake_id_;
  row.name = "broken";
  for (const char* payload : {"not json", "[]", R"({"policyType":"custom"})",
                              R"({"policyType":"custom","enabled":true,"rules":{},)"
                              R"("supportedObjectTypes":["shelf"]})"}) {
    row.payload = payload;
    auto read = PolicyService::FromRow(row);
    ASSERT_FALSE(read.has_value()) << payload;
    EXPECT_EQ(read.error().code, ErrorCode::kInternal) << payload;
  }
}

}  // namespace
}  // namespace cairn::service
