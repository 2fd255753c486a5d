// SPDX-License-Identifier: Apache-2.0
#include "iceberg/table_update.h"

#include <variant>

#include <gtest/gtest.h>

#include "iceberg/requirements.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::cairn::testing::IsError;
using ::cairn::testing::IsOk;

Json Parse(const char* text) { return Json::parse(text); }

TEST(ViewUpdates, ShareTheTableReadersAndAddTheirOwnTwo) {
  auto parsed = ParseViewUpdates(Parse(R"([
    {"action": "assign-uuid", "uuid": "u-1"},
    {"action": "set-properties", "updates": {"k": "v"}},
    {"action": "remove-properties", "removals": ["x"]},
    {"action": "add-view-version", "view-version": {"version-id": 2, "schema-id": -1,
      "timestamp-ms": 5, "summary": {}, "default-namespace": ["ns"],
      "representations": [{"type": "SQL", "sql": "select 1", "dialect": "spark"}]}},
    {"action": "SET-CURRENT-VIEW-VERSION", "view-version-id": -1}
  ])"));
  ASSERT_THAT(parsed, IsOk());
  ASSERT_EQ(parsed->size(), 5u);
  EXPECT_EQ(std::get<update::AssignUuid>((*parsed)[0]).uuid, "u-1");
  EXPECT_EQ(std::get<update::SetProperties>((*parsed)[1]).updates.at("k"), "v");
  EXPECT_EQ(std::get<update::RemoveProperties>((*parsed)[2]).removals,
            std::vector<std::string>{"x"});
  const Json& version = std::get<update::AddViewVersion>((*parsed)[3]).version;
  EXPECT_EQ(version["representations"][0]["type"], "sql");  // normalised as Java writes it
  EXPECT_EQ(std::get<update::SetCurrentViewVersion>((*parsed)[4]).version_id, -1);
}

TEST(ViewUpdates, RefuseTableActionsAndMalformedOnesWithJavasWording) {
  auto table_only = ParseViewUpdates(Parse(R"([{"action": "add-snapshot", "snapshot": {}}])"));
  ASSERT_FALSE(table_only);
  EXPECT_EQ(table_only.error().message, "Cannot apply update AddSnapshot to a view");
  auto unknown = ParseViewUpdates(Parse(R"([{"action": "explode"}])"));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "Cannot convert metadata update action to json: explode");
  auto missing = ParseViewUpdates(Parse(R"([{"action": "set-location"}])"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(missing.error().message.find("location"), std::string::npos);
  // And a table commit refuses the view's own actions.
  auto view_only =
      ParseTableUpdates(Parse(R"([{"action": "set-current-view-version", "view-version-id": 1}])"));
  ASSERT_FALSE(view_only);
  EXPECT_EQ(view_only.error().message, "Cannot apply update SetCurrentViewVersion to a table");
}

TEST(TableUpdates, ParseIntoOneStructPerAction) {
  auto parsed = ParseTableUpdates(Parse(R"([
    {"action": "ASSIGN-UUID", "uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1"},
    {"action": "upgrade-format-version", "format-version": 3},
    {"action": "set-current-schema", "schema-id": -1},
    {"action": "remove-snapshots", "snapshot-ids": [3, 1, 3]},
    {"action": "set-properties", "updated": {"a": "b"}},
    {"action": "remove-partition-statistics", "snapshot-id": 7}
  ])"));
  ASSERT_THAT(parsed, IsOk());
  ASSERT_EQ(parsed->size(), 6u);
  EXPECT_EQ(std::get<update::AssignUuid>((*parsed)[0]).uuid,
            "9c12d441-03fe-4693-9a96-a0705ddf69c1");
  EXPECT_EQ(std::get<update::UpgradeFormatVersion>((*parsed)[1]).format_version, 3);
  EXPECT_EQ(std::get<update::SetCurrentSchema>((*parsed)[2]).schema_id, -1);
  EXPECT_EQ(std::get<update::RemoveSnapshots>((*parsed)[3]).snapshot_ids,
            (std::set<int64_t>{1, 3}));
  EXPECT_EQ(std::get<update::SetProperties>((*parsed)[4]).updates.at("a"), "b");
  const auto& stats = std::get<update::RemoveStatistics>((*parsed)[5]);
  EXPECT_TRUE(stats.partition);
  EXPECT_EQ(stats.snapshot_id, 7);
}

TEST(TableUpdates, ReportTheFirstMalformedUpdateInJavasWords) {
  struct Case {
    const char* updates;
    const char* message;
  } cases[] = {
      {R"({"action": "assign-uuid"})",
       "Cannot parse metadata updates from non-array: {\"action\":\"assign-uuid\"}"},
      {R"([3])", "Cannot parse metadata update from non-object value: 3"},
      {R"([{"uuid": "x"}])", "Cannot parse metadata update. Missing field: action"},
      {R"([{"action": "frobnicate"}])", "Cannot convert metadata update action to json: frobnicate"},
      {R"([{"action": "add-view-version"}])", "Cannot apply update AddViewVersion to a table"},
      {R"([{"action": "set-default-spec"}])", "Cannot parse missing int: spec-id"},
      {R"([{"action": "remove-schemas", "schema-ids": [1, "x"]}])",
       "Cannot parse integer from non-int value in schema-ids: x"},
      {R"([{"action": "assign-uuid", "uuid": "u"}, {"action": "remove-snapshot-ref"}])",
       "Cannot parse missing string: ref-name"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseTableUpdates(Parse(c.updates));
    ASSERT_THAT(parsed, IsError(ErrorCode::kInvalidArgument)) << c.updates;
    EXPECT_EQ(parsed.error().message, c.message) << c.updates;
  }
}

TEST(UpdateActions, OneTableForTablesAndViews) {
  const UpdateAction* spec = FindUpdateAction("add-spec");
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->table);
  EXPECT_FALSE(spec->view);
  EXPECT_EQ(spec->java_class, "AddPartitionSpec");
  const UpdateAction* version = FindUpdateAction("set-current-view-version");
  ASSERT_NE(version, nullptr);
  EXPECT_FALSE(version->table);
  EXPECT_TRUE(version->view);
  const UpdateAction* uuid = FindUpdateAction("assign-uuid");
  ASSERT_NE(uuid, nullptr);
  EXPECT_TRUE(uuid->table && uuid->view);
  EXPECT_EQ(FindUpdateAction("frobnicate"), nullptr);
}

TEST(Requirements, OneTableForTablesAndViews) {
  const RequirementKind* view = FindRequirementKind("assert-view-uuid");
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->subject, EntityKind::kView);
  EXPECT_EQ(view->java_class, "AssertViewUUID");
  const RequirementKind* schema = FindRequirementKind("assert-current-schema-id");
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(schema->subject, EntityKind::kTable);
  EXPECT_EQ(schema->id_member, "current-schema-id");
  EXPECT_EQ(FindRequirementKind("assert-nothing"), nullptr);
}

TEST(Requirements, AViewCommitReadsOnlyTheTypeOfATableRequirement) {
  const Json reqs = Parse(R"([{"type": "assert-table-uuid"}])");
  EXPECT_THAT(ParseRequirements(reqs, EntityKind::kView), IsOk());
  auto table = ParseRequirements(reqs, EntityKind::kTable);
  ASSERT_THAT(table, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(table.error().message, "Cannot parse missing string: uuid");
}

}  // namespace
}  // namespace cairn::iceberg
