// SPDX-License-Identifier: Apache-2.0
#include "model/kinds.h"

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace cairn::model {
namespace {

using K = ObjectKind;

TEST(Kinds, EveryRowIsFoundByItsKind) {
  for (const auto& row : kKinds) {
    EXPECT_EQ(&Describe(row.kind), &row) << row.name;
    EXPECT_FALSE(row.name.empty());
    EXPECT_FALSE(row.display.empty()) << row.name;
  }
}

// The numbers are persisted in every existing store: a renumbering must fail here.
TEST(Kinds, StoreTypesAreThePersistedNumbers) {
  const std::map<K, int> persisted = {
      {K::kMetalake, 1},
      {K::kCatalog, 2},
      {K::kSchema, 3},
      {K::kTable, 4},
      {K::kView, 5},
      {K::kFileset, 6},
      {K::kTopic, 7},
      {K::kModel, 8},
      {K::kFunction, 9},
      {K::kUser, 10},
      {K::kGroup, 11},
      {K::kRole, 12},
      {K::kIdpUser, 13},
      {K::kTag, 14},
      {K::kPolicy, 15},
      {K::kStatistic, 16},
      {K::kPartitionStatistics, 17},
      {K::kColumn, 18},
      {K::kModelVersion, 19},
      {K::kJobTemplate, 20},
      {K::kJob, 21},
  };
  ASSERT_EQ(persisted.size(), kKinds.size());
  for (const auto& [kind, number] : persisted) {
    EXPECT_EQ(Describe(kind).store_type, number) << Describe(kind).name;
  }
}

TEST(Kinds, StoreTypesRoundTrip) {
  for (const auto& row : kKinds) {
    if (row.store_type == 0) continue;
    EXPECT_EQ(FindKindByStoreType(row.store_type), row.kind) << row.name;
  }
  for (int64_t bad : {int64_t{0}, int64_t{-1}, int64_t{22}, int64_t{1} << 40}) {
    EXPECT_EQ(FindKindByStoreType(bad), std::nullopt) << bad;
  }
}

TEST(Kinds, ErrorSubjects) {
  const std::map<K, EntityKind> expected = {
      {K::kMetalake, EntityKind::kMetalake},
      {K::kCatalog, EntityKind::kCatalog},
      {K::kSchema, EntityKind::kSchema},
      {K::kTable, EntityKind::kTable},
      {K::kView, EntityKind::kView},
      {K::kFileset, EntityKind::kFileset},
      {K::kTopic, EntityKind::kTopic},
      {K::kModel, EntityKind::kModel},
      {K::kFunction, EntityKind::kFunction},
      {K::kTag, EntityKind::kTag},
      {K::kPolicy, EntityKind::kPolicy},
      {K::kUser, EntityKind::kUser},
      {K::kGroup, EntityKind::kGroup},
      {K::kRole, EntityKind::kRole},
      {K::kIdpUser, EntityKind::kUser},
      {K::kStatistic, EntityKind::kStatistic},
      {K::kPartitionStatistics, EntityKind::kStatistic},
      {K::kColumn, EntityKind::kColumn},
      {K::kModelVersion, EntityKind::kModelVersion},
      {K::kJobTemplate, EntityKind::kJobTemplate},
      {K::kJob, EntityKind::kJob},
  };
  ASSERT_EQ(expected.size(), kKinds.size());
  for (const auto& [kind, entity] : expected) {
    EXPECT_EQ(Describe(kind).error_kind, entity) << Describe(kind).name;
  }
}

TEST(Kinds, SecurableNamesParseCaseInsensitively) {
  const std::vector<std::string> wire = {"metalake", "catalog", "schema", "table",
                                         "view",     "fileset", "topic",  "model",
                                         "function", "tag",     "policy", "column"};
  std::set<K> seen;
  for (const auto& name : wire) {
    auto kind = FindKindBySecurable(name);
    ASSERT_TRUE(kind.has_value()) << name;
    EXPECT_EQ(Describe(*kind).name, name);
    std::string upper = name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(Describe(*kind).securable, upper);
    EXPECT_EQ(FindKindBySecurable(upper), kind);
    std::string mixed = upper;
    mixed[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(mixed[0])));
    EXPECT_EQ(FindKindBySecurable(mixed), kind);
    seen.insert(*kind);
  }
  EXPECT_EQ(seen.size(), wire.size());
  for (const char* not_securable : {"user", "group", "role", "idp user", "", "tables", "columns"}) {
    EXPECT_EQ(FindKindBySecurable(not_securable), std::nullopt) << not_securable;
  }
}

TEST(Kinds, EveryRowRoundTripsThroughEveryConversion) {
  for (const auto& row : kKinds) {
    if (!row.securable.empty()) {
      EXPECT_EQ(FindKindBySecurable(row.securable), row.kind);
      EXPECT_EQ(FindKindBySecurable(row.name), row.kind);
    }
    if (row.store_type != 0) {
      EXPECT_EQ(FindKindByStoreType(row.store_type), row.kind);
    }
    if (!row.path_segment.empty()) {
      EXPECT_EQ(FindKindBySegment(row.path_segment), row.kind);
    }
  }
}

TEST(Kinds, PathSegments) {
  EXPECT_EQ(FindKindBySegment("metalakes"), K::kMetalake);
  EXPECT_EQ(FindKindBySegment("catalogs"), K::kCatalog);
  EXPECT_EQ(FindKindBySegment("schemas"), K::kSchema);
  EXPECT_EQ(FindKindBySegment("tables"), K::kTable);
  EXPECT_EQ(FindKindBySegment("views"), K::kView);
  EXPECT_EQ(FindKindBySegment("filesets"), K::kFileset);
  EXPECT_EQ(FindKindBySegment("policies"), K::kPolicy);
  EXPECT_EQ(FindKindBySegment("roles"), K::kRole);
  EXPECT_EQ(FindKindBySegment("Tables"), std::nullopt);
  EXPECT_EQ(FindKindBySegment(""), std::nullopt);
}

TEST(Kinds, EveryParentChainEndsAtTheMetalake) {
  for (const auto& row : kKinds) {
    if (row.kind == K::kMetalake || row.kind == K::kIdpUser) {
      EXPECT_EQ(row.parent, std::nullopt) << row.name << " is a root";
      continue;
    }
    std::optional<K> at = row.kind;
    std::optional<K> last;
    int steps = 0;
    while (at) {
      last = at;
      at = Describe(*at).parent;
      ASSERT_LT(++steps, 10) << row.name;
    }
    EXPECT_EQ(last, K::kMetalake) << row.name;
    EXPECT_EQ(Depth(row.kind), steps - 1) << row.name;
    EXPECT_TRUE(IsSelfOrAncestor(K::kMetalake, row.kind)) << row.name;
  }
  EXPECT_EQ(Depth(K::kMetalake), 0);
  EXPECT_EQ(Depth(K::kCatalog), 1);
  EXPECT_EQ(Depth(K::kSchema), 2);
  EXPECT_EQ(Depth(K::kTable), 3);
  EXPECT_EQ(Depth(K::kFunction), 3);
  EXPECT_EQ(Depth(K::kTag), 1);
  EXPECT_FALSE(IsSelfOrAncestor(K::kTable, K::kSchema));
  EXPECT_FALSE(IsSelfOrAncestor(K::kView, K::kTable));
}

// The privilege-to-object-type bindings as they were written out before they were derived from
// the rows: the derivation must reproduce every one of them, and nothing more.
TEST(Kinds, PrivilegeBindingsAreUnchanged) {
  const std::vector<std::pair<std::string, std::vector<K>>> bindings = {
      {"CREATE_CATALOG", {K::kMetalake}},
      {"MANAGE_USERS", {K::kMetalake}},
      {"MANAGE_GROUPS", {K::kMetalake}},
      {"CREATE_ROLE", {K::kMetalake}},
      {"CREATE_TAG", {K::kMetalake}},
      {"CREATE_POLICY", {K::kMetalake}},
      {"REGISTER_JOB_TEMPLATE", {K::kMetalake}},
      {"RUN_JOB", {K::kMetalake}},
      {"USE_CATALOG", {K::kMetalake, K::kCatalog}},
      {"USE_SCHEMA", {K::kMetalake, K::kCatalog, K::kSchema}},
      {"CREATE_SCHEMA", {K::kMetalake, K::kCatalog, K::kSchema}},
      {"CREATE_TABLE", {K::kMetalake, K::kCatalog, K::kSchema}},
      {"CREATE_FILESET", {K::kMetalake, K::kCatalog, K::kSchema}},
      {"CREATE_TOPIC", {K::kMetalake, K::kCatalog, K::kSchema}},
      {"CREATE_VIEW", {K::kMetalake, K::kCatalog, K::kSchema}},
      {"REGISTER_MODEL", {K::kMetalake, K::kCatalog, K::kSchema}},
      {"CREATE_MODEL", {K::kMetalake, K::kCatalog, K::kSchema}},
      {"REGISTER_FUNCTION", {K::kMetalake, K::kCatalog, K::kSchema}},
      {"SELECT_TABLE", {K::kMetalake, K::kCatalog, K::kSchema, K::kTable}},
      {"MODIFY_TABLE", {K::kMetalake, K::kCatalog, K::kSchema, K::kTable}},
      {"READ_FILESET", {K::kMetalake, K::kCatalog, K::kSchema, K::kFileset}},
      {"WRITE_FILESET", {K::kMetalake, K::kCatalog, K::kSchema, K::kFileset}},
      {"PRODUCE_TOPIC", {K::kMetalake, K::kCatalog, K::kSchema, K::kTopic}},
      {"CONSUME_TOPIC", {K::kMetalake, K::kCatalog, K::kSchema, K::kTopic}},
      {"USE_MODEL", {K::kMetalake, K::kCatalog, K::kSchema, K::kModel}},
      {"LINK_MODEL_VERSION", {K::kMetalake, K::kCatalog, K::kSchema, K::kModel}},
      {"CREATE_MODEL_VERSION", {K::kMetalake, K::kCatalog, K::kSchema, K::kModel}},
      {"SELECT_VIEW", {K::kMetalake, K::kCatalog, K::kSchema, K::kView}},
      {"EXECUTE_FUNCTION", {K::kMetalake, K::kCatalog, K::kSchema, K::kFunction}},
      {"MODIFY_FUNCTION", {K::kMetalake, K::kCatalog, K::kSchema, K::kFunction}},
      {"MANAGE_GRANTS",
       {K::kMetalake, K::kCatalog, K::kSchema, K::kTable, K::kView, K::kTopic, K::kFileset,
        K::kModel, K::kFunction}},
      {"APPLY_TAG", {K::kMetalake, K::kTag}},
      {"APPLY_POLICY", {K::kMetalake, K::kPolicy}},
      {"USE_JOB_TEMPLATE", {K::kMetalake, K::kJobTemplate}},
  };
  std::set<std::string_view> declared;
  for (const auto& row : kKinds) declared.insert(row.privileges.begin(), row.privileges.end());
  EXPECT_EQ(declared.size(), bindings.size());
  for (const auto& [privilege, kinds] : bindings) {
    EXPECT_TRUE(IsKnownPrivilege(privilege)) << privilege;
    const std::set<K> allowed(kinds.begin(), kinds.end());
    for (const auto& row : kKinds) {
      EXPECT_EQ(PrivilegeBindsTo(privilege, row.kind), allowed.count(row.kind) > 0)
          << privilege << " on " << row.name;
    }
  }
  EXPECT_EQ(FindPrivilegeKind("SELECT_TABLE"), K::kTable);
  EXPECT_EQ(FindPrivilegeKind("CREATE_TABLE"), K::kSchema);
  EXPECT_EQ(FindPrivilegeKind("USE_CATALOG"), K::kCatalog);
  EXPECT_EQ(FindPrivilegeKind("MANAGE_USERS"), K::kMetalake);
  EXPECT_EQ(FindPrivilegeKind("APPLY_TAG"), K::kTag);
  EXPECT_EQ(FindPrivilegeKind("MANAGE_GRANTS"), std::nullopt) << "declared on every leaf";
  EXPECT_EQ(FindPrivilegeKind("SELECT_EVERYTHING"), std::nullopt);
  EXPECT_FALSE(IsKnownPrivilege("SELECT_EVERYTHING"));
  EXPECT_FALSE(IsKnownPrivilege("select_table")) << "privileges are matched upper-case";
}

}  // namespace
}  // namespace cairn::model
