// SPDX-License-Identifier: Apache-2.0
#include "iceberg/commit.h"

#include <gtest/gtest.h>

#include "iceberg/table_builder.h"
#include "iceberg/table_metadata.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::cairn::testing::IsError;
using ::cairn::testing::IsOk;

constexpr int64_t kNow = 1700000000000;
constexpr const char* kUuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";

Json J(const char* text) { return Json::parse(text); }

// A v2 table with schema 0 (id, data), spec 0 (unpartitioned), sort order 0, one snapshot 100
// on main and a tag.
Json BaseV2() {
  return J(R"({
    "format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
    "location": "s3://b/t", "last-sequence-number": 1, "last-updated-ms": 1600000000000,
    "last-column-id": 2, "current-schema-id": 0,
    "schemas": [{"type": "struct", "schema-id": 0, "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long"},
      {"id": 2, "name": "data", "required": false, "type": "string"}]}],
    "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}],
    "last-partition-id": 999, "default-sort-order-id": 0,
    "sort-orders": [{"order-id": 0, "fields": []}],
    "properties": {"owner": "me"}, "current-snapshot-id": 100,
    "refs": {"main": {"snapshot-id": 100, "type": "branch"},
             "t1": {"snapshot-id": 100, "type": "tag"}},
    "snapshots": [{"sequence-number": 1, "snapshot-id": 100, "timestamp-ms": 1600000000000,
                   "summary": {"operation": "append"}, "manifest-list": "s3://b/t/m1.avro",
                   "schema-id": 0}],
    "statistics": [], "partition-statistics": [],
    "snapshot-log": [{"timestamp-ms": 1600000000000, "snapshot-id": 100}],
    "metadata-log": []})");
}

Json Updates(std::initializer_list<Json> list) { return Json(list); }

Json Snapshot(int64_t id, std::optional<int64_t> parent, int64_t seq, int64_t ts) {
  Json s = Json::object();
  s["sequence-number"] = seq;
  s["snapshot-id"] = id;
  if (parent) s["parent-snapshot-id"] = *parent;
  s["timestamp-ms"] = ts;
  s["summary"] = J(R"({"operation": "append", "added-data-files": "1"})");
  s["manifest-list"] = "s3://b/t/m" + std::to_string(id) + ".avro";
  s["schema-id"] = 0;
  return s;
}

Json AddSnapshot(Json snapshot) {
  Json u = Json::object();
  u["action"] = "add-snapshot";
  u["snapshot"] = std::move(snapshot);
  return u;
}

Json SetMain(int64_t id) {
  Json u = J(R"({"action": "set-snapshot-ref", "ref-name": "main", "type": "branch"})");
  u["snapshot-id"] = id;
  return u;
}

// --- Requirements ---------------------------------------------------------------------------

struct RequirementCase {
  const char* name;
  const char* requirements;
  bool exists;
  std::optional<ErrorCode> code;  // nullopt: passes
  const char* message;
};

class RequirementTest : public ::testing::TestWithParam<RequirementCase> {};

TEST_P(RequirementTest, Check) {
  const auto& c = GetParam();
  Json base = BaseV2();
  Status s = CheckTableRequirements(c.exists ? &base : nullptr, J(c.requirements));
  if (!c.code) {
    EXPECT_THAT(s, IsOk());
    return;
  }
  ASSERT_THAT(s, IsError(*c.code));
  EXPECT_EQ(s.error().message, c.message);
  if (*c.code == ErrorCode::kConflict || *c.code == ErrorCode::kNotFound) {
    EXPECT_EQ(s.error().entity, EntityKind::kTable);
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, RequirementTest,
    ::testing::Values(
        RequirementCase{"create_missing", R"([{"type":"assert-create"}])", false, {}, ""},
        RequirementCase{"create_exists", R"([{"type":"assert-create"}])", true,
                        ErrorCode::kConflict, "Requirement failed: table already exists"},
        RequirementCase{
            "create_mixed",
            R"([{"type":"assert-create"},{"type":"assert-current-schema-id","current-schema-id":0}])",
            false, ErrorCode::kInvalidArgument,
            "Invalid create requirements: [AssertCurrentSchemaID]"},
        RequirementCase{
            "uuid_ok",
            R"([{"type":"assert-table-uuid","uuid":"9C12D441-03FE-4693-9A96-A0705DDF69C1"}])",
            true,
            {},
            ""},
        RequirementCase{"uuid_bad", R"([{"type":"assert-table-uuid","uuid":"x"}])", true,
                        ErrorCode::kConflict,
                        "Requirement failed: UUID does not match: expected "
                        "9c12d441-03fe-4693-9a96-a0705ddf69c1 != x"},
        RequirementCase{"uuid_missing_field", R"([{"type":"assert-table-uuid"}])", true,
                        ErrorCode::kInvalidArgument, "Cannot parse missing string: uuid"},
        RequirementCase{"ref_ok",
                        R"([{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":100}])",
                        true,
                        {},
                        ""},
        RequirementCase{"ref_changed",
                        R"([{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":99}])",
                        true, ErrorCode::kConflict,
                        "Requirement failed: branch main has changed: expected id 99 != 100"},
        RequirementCase{"tag_changed",
                        R"([{"type":"assert-ref-snapshot-id","ref":"t1","snapshot-id":99}])", true,
                        ErrorCode::kConflict,
                        "Requirement failed: tag t1 has changed: expected id 99 != 100"},
        RequirementCase{
            "ref_created", R"([{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}])",
            true, ErrorCode::kConflict, "Requirement failed: branch main was created concurrently"},
        RequirementCase{"ref_absent_ok",
                        R"([{"type":"assert-ref-snapshot-id","ref":"b2","snapshot-id":null}])",
                        true,
                        {},
                        ""},
        RequirementCase{"ref_missing",
                        R"([{"type":"assert-ref-snapshot-id","ref":"b2","snapshot-id":5}])", true,
                        ErrorCode::kConflict,
                        "Requirement failed: branch or tag b2 is missing, expected 5"},
        RequirementCase{"field_id_ok",
                        R"([{"type":"assert-last-assigned-field-id","last-assigned-field-id":2}])",
                        true,
                        {},
                        ""},
        RequirementCase{"field_id_bad",
                        R"([{"type":"assert-last-assigned-field-id","last-assigned-field-id":3}])",
                        true, ErrorCode::kConflict,
                        "Requirement failed: last assigned field id changed: expected id 3 != 2"},
        RequirementCase{"schema_ok",
                        R"([{"type":"assert-current-schema-id","current-schema-id":0}])",
                        true,
                        {},
                        ""},
        RequirementCase{
            "schema_bad", R"([{"type":"assert-current-schema-id","current-schema-id":1}])", true,
            ErrorCode::kConflict, "Requirement failed: current schema changed: expected id 1 != 0"},
        RequirementCase{
            "partition_id_ok",
            R"([{"type":"assert-last-assigned-partition-id","last-assigned-partition-id":999}])",
            true,
            {},
            ""},
        RequirementCase{
            "partition_id_bad",
            R"([{"type":"assert-last-assigned-partition-id","last-assigned-partition-id":1000}])",
            true, ErrorCode::kConflict,
            "Requirement failed: last assigned partition id changed: expected id 1000 != 999"},
        RequirementCase{
            "spec_ok", R"([{"type":"assert-default-spec-id","default-spec-id":0}])", true, {}, ""},
        RequirementCase{"spec_bad", R"([{"type":"assert-default-spec-id","default-spec-id":1}])",
                        true, ErrorCode::kConflict,
                        "Requirement failed: default partition spec changed: expected id 1 != 0"},
        RequirementCase{"order_ok",
                        R"([{"type":"assert-default-sort-order-id","default-sort-order-id":0}])",
                        true,
                        {},
                        ""},
        RequirementCase{"order_bad",
                        R"([{"type":"assert-default-sort-order-id","default-sort-order-id":1}])",
                        true, ErrorCode::kConflict,
                        "Requirement failed: default sort order changed: expected id 1 != 0"},
        RequirementCase{
            "int_malformed", R"([{"type":"assert-default-spec-id","default-spec-id":"x"}])", true,
            ErrorCode::kInvalidArgument, "Cannot parse to an integer value: default-spec-id: x"},
        RequirementCase{"unknown_type", R"([{"type":"assert-nothing"}])", true,
                        ErrorCode::kInvalidArgument,
                        "Unrecognized update requirement. Cannot convert to json: assert-nothing"},
        RequirementCase{"no_type", R"([{}])", true, ErrorCode::kInvalidArgument,
                        "Cannot parse update requirement. Missing field: type"},
        RequirementCase{"view_uuid_on_table", R"([{"type":"assert-view-uuid","uuid":"x"}])", true,
                        ErrorCode::kInvalidArgument,
                        "Cannot validate AssertViewUUID against a table"},
        RequirementCase{"missing_table",
                        R"([{"type":"assert-current-schema-id","current-schema-id":0}])", false,
                        ErrorCode::kNotFound, "Table does not exist"},
        RequirementCase{"none_missing_table", R"([])", false, {}, ""}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// --- Updates: one action at a time -------------------------------------------------------

struct UpdateCase {
  const char* name;
  const char* updates;
  std::optional<ErrorCode> code;  // nullopt: succeeds
  const char* message_or_check;   // the error message, or a JSON pointer=value check
};

class UpdateTest : public ::testing::TestWithParam<UpdateCase> {};

TEST_P(UpdateTest, Apply) {
  const auto& c = GetParam();
  Json base = BaseV2();
  bool changed = false;
  auto r = ApplyTableUpdates(&base, J(c.updates), kNow, &changed);
  if (c.code) {
    ASSERT_THAT(r, IsError(*c.code));
    EXPECT_EQ(r.error().message, c.message_or_check);
    return;
  }
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(changed);
  EXPECT_EQ((*r)["last-updated-ms"], kNow);
  // "<json pointer> <json value>"
  const std::string check = c.message_or_check;
  const size_t space = check.find(' ');
  const Json::json_pointer ptr(check.substr(0, space));
  ASSERT_TRUE(r->contains(ptr)) << check << "\n" << r->dump();
  EXPECT_EQ(nlohmann::json((*r)[ptr]), nlohmann::json::parse(check.substr(space + 1))) << r->dump();
}

INSTANTIATE_TEST_SUITE_P(
    All, UpdateTest,
    ::testing::Values(
        UpdateCase{
            "assign_uuid", R"([{"action":"assign-uuid","uuid":"u-1"}])", {}, "/table-uuid \"u-1\""},
        UpdateCase{"upgrade_v3",
                   R"([{"action":"upgrade-format-version","format-version":3}])",
                   {},
                   "/next-row-id 0"},
        UpdateCase{"downgrade", R"([{"action":"upgrade-format-version","format-version":1}])",
                   ErrorCode::kInvalidArgument, "Cannot downgrade v2 table to v1"},
        UpdateCase{"upgrade_v4", R"([{"action":"upgrade-format-version","format-version":4}])",
                   ErrorCode::kInvalidArgument,
                   "Cannot upgrade table to unsupported format version: v4 (supported: v3)"},
        UpdateCase{"add_schema",
                   R"([{"action":"add-schema","schema":{"type":"struct","schema-id":7,"fields":[
                     {"id":1,"name":"id","required":true,"type":"long"},
                     {"id":3,"name":"x","required":false,"type":"int"}]}},
                     {"action":"set-current-schema","schema-id":-1}])",
                   {},
                   "/schemas/1 "
                   "{\"type\":\"struct\",\"schema-id\":1,\"fields\":[{\"id\":1,\"name\":\"id\","
                   "\"required\":true,\"type\":\"long\"},{\"id\":3,\"name\":\"x\",\"required\":"
                   "false,\"type\":\"int\"}]}"},
        UpdateCase{"add_schema_last_column",
                   R"([{"action":"add-schema","schema":{"type":"struct","fields":[
                     {"id":5,"name":"y","required":false,"type":"int"}]}}])",
                   {},
                   "/last-column-id 5"},
        UpdateCase{
            "add_schema_v3_type_on_v2",
            R"([{"action":"add-schema","schema":{"type":"struct","fields":[
                     {"id":3,"name":"v","required":false,"type":"variant"}]}}])",
            ErrorCode::kInvalidArgument,
            "Invalid schema for v2:\n- Invalid type for v: variant is not supported until v3"},
        UpdateCase{
            "add_schema_bad",
            R"([{"action":"add-schema","schema":{"type":"struct","fields":[{"id":1,"name":"a","type":"int"}]}}])",
            ErrorCode::kInvalidArgument, "Cannot parse missing boolean: required"},
        UpdateCase{"add_schema_missing", R"([{"action":"add-schema"}])",
                   ErrorCode::kInvalidArgument, "Cannot parse missing field: schema"},
        UpdateCase{"set_current_schema_unknown",
                   R"([{"action":"set-current-schema","schema-id":4}])",
                   ErrorCode::kInvalidArgument, "Cannot set current schema to unknown schema: 4"},
        UpdateCase{
            "set_current_schema_no_last", R"([{"action":"set-current-schema","schema-id":-1}])",
            ErrorCode::kInvalidArgument, "Cannot set last added schema: no schema has been added"},
        UpdateCase{
            "add_spec",
            R"([{"action":"add-spec","spec":{"fields":[{"name":"id_bucket","transform":"bucket[16]","source-id":1,"field-id":1000}]}},
                      {"action":"set-default-spec","spec-id":-1}])",
            {},
            "/default-spec-id 1"},
        UpdateCase{
            "add_spec_ids_assigned",
            R"([{"action":"add-spec","spec":{"fields":[{"name":"id_bucket","transform":"bucket[16]","source-id":1}]}}])",
            {},
            "/last-partition-id 1000"},
        UpdateCase{
            "add_spec_unknown_source",
            R"([{"action":"add-spec","spec":{"fields":[{"name":"z","transform":"identity","source-id":9,"field-id":1000}]}}])",
            ErrorCode::kInvalidArgument,
            "Cannot find source column for partition field: 1000: z: identity(9)"},
        UpdateCase{
            "add_spec_dup_name",
            R"([{"action":"add-spec","spec":{"fields":[{"name":"a","transform":"identity","source-id":1},{"name":"a","transform":"bucket[2]","source-id":1}]}}])",
            ErrorCode::kInvalidArgument, "Cannot use partition name more than once: a"},
        UpdateCase{"set_default_spec_no_last", R"([{"action":"set-default-spec","spec-id":-1}])",
                   ErrorCode::kInvalidArgument,
                   "Cannot set last added spec: no spec has been added"},
        UpdateCase{
            "add_sort_order",
            R"([{"action":"add-sort-order","sort-order":{"order-id":5,"fields":[{"transform":"identity","source-id":1,"direction":"asc","null-order":"nulls-first"}]}},
                      {"action":"set-default-sort-order","sort-order-id":-1}])",
            {},
            "/sort-orders/1 "
            "{\"order-id\":1,\"fields\":[{\"transform\":\"identity\",\"source-id\":1,\"direction\":"
            "\"asc\",\"null-order\":\"nulls-first\"}]}"},
        UpdateCase{
            "add_sort_order_bad_dir",
            R"([{"action":"add-sort-order","sort-order":{"order-id":1,"fields":[{"transform":"identity","source-id":1,"direction":"up","null-order":"nulls-first"}]}}])",
            ErrorCode::kInvalidArgument, "Invalid sort direction: up"},
        UpdateCase{"set_default_sort_order_no_last",
                   R"([{"action":"set-default-sort-order","sort-order-id":-1}])",
                   ErrorCode::kInvalidArgument,
                   "Cannot set last added sort order: no sort order has been added"},
        UpdateCase{
            "set_ref_unknown_snapshot",
            R"([{"action":"set-snapshot-ref","ref-name":"b","type":"branch","snapshot-id":5}])",
            ErrorCode::kInvalidArgument, "Cannot set b to unknown snapshot: 5"},
        UpdateCase{
            "set_ref_branch",
            R"([{"action":"set-snapshot-ref","ref-name":"b","type":"branch","snapshot-id":100,"max-ref-age-ms":10}])",
            {},
            "/refs/b {\"snapshot-id\":100,\"type\":\"branch\",\"max-ref-age-ms\":10}"},
        UpdateCase{
            "set_main_tag",
            R"([{"action":"set-snapshot-ref","ref-name":"main","type":"tag","snapshot-id":100}])",
            ErrorCode::kInvalidArgument, "Cannot set main to a tag, it must be a branch"},
        UpdateCase{
            "tag_min_snapshots",
            R"([{"action":"set-snapshot-ref","ref-name":"t","type":"tag","snapshot-id":100,"min-snapshots-to-keep":1}])",
            ErrorCode::kInvalidArgument, "Tags do not support setting minSnapshotsToKeep"},
        UpdateCase{"bad_ref_type",
                   R"([{"action":"set-snapshot-ref","ref-name":"t","type":"x","snapshot-id":100}])",
                   ErrorCode::kInvalidArgument, "Invalid snapshot ref type: x"},
        UpdateCase{"remove_ref_main",
                   R"([{"action":"remove-snapshot-ref","ref-name":"main"}])",
                   {},
                   "/current-snapshot-id -1"},
        UpdateCase{"remove_ref_tag",
                   R"([{"action":"remove-snapshot-ref","ref-name":"t1"}])",
                   {},
                   "/refs {\"main\":{\"snapshot-id\":100,\"type\":\"branch\"}}"},
        UpdateCase{"set_location",
                   R"([{"action":"set-location","location":"s3://b/t2/"}])",
                   {},
                   "/location \"s3://b/t2\""},
        UpdateCase{"set_properties",
                   R"([{"action":"set-properties","updates":{"a":"1"}}])",
                   {},
                   "/properties {\"owner\":\"me\",\"a\":\"1\"}"},
        UpdateCase{"set_properties_legacy",
                   R"([{"action":"set-properties","updated":{"a":"1"}}])",
                   {},
                   "/properties/a \"1\""},
        UpdateCase{"set_properties_bad", R"([{"action":"set-properties","updates":{"a":1}}])",
                   ErrorCode::kInvalidArgument, "Cannot parse to a string value: a: 1"},
        UpdateCase{"remove_properties",
                   R"([{"action":"remove-properties","removals":["owner","nope"]}])",
                   {},
                   "/properties {}"},
        UpdateCase{
            "set_statistics",
            R"([{"action":"set-statistics","statistics":{"snapshot-id":100,"statistics-path":"s3://b/s.puffin","file-size-in-bytes":10,"file-footer-size-in-bytes":2,"blob-metadata":[]}}])",
            {},
            "/statistics/0/statistics-path \"s3://b/s.puffin\""},
        UpdateCase{"set_statistics_bad",
                   R"([{"action":"set-statistics","statistics":{"snapshot-id":100}}])",
                   ErrorCode::kInvalidArgument, "Cannot parse missing string: statistics-path"},
        UpdateCase{
            "set_partition_statistics",
            R"([{"action":"set-partition-statistics","partition-statistics":{"snapshot-id":100,"statistics-path":"s3://b/p.parquet","file-size-in-bytes":10}}])",
            {},
            "/partition-statistics/0/file-size-in-bytes 10"},
        UpdateCase{"remove_schemas_current", R"([{"action":"remove-schemas","schema-ids":[0]}])",
                   ErrorCode::kInvalidArgument, "Cannot remove the current schema"},
        UpdateCase{"remove_specs_default",
                   R"([{"action":"remove-partition-specs","spec-ids":[0]}])",
                   ErrorCode::kInvalidArgument, "Cannot remove the default partition spec"},
        UpdateCase{
            "add_encryption_key",
            R"([{"action":"add-encryption-key","encryption-key":{"key-id":"k1","encrypted-key-metadata":"AAA=","properties":{}}}])",
            {},
            "/encryption-keys [{\"key-id\":\"k1\",\"encrypted-key-metadata\":\"AAA=\"}]"},
        UpdateCase{"add_encryption_key_bad", R"([{"action":"add-encryption-key"}])",
                   ErrorCode::kInvalidArgument,
                   "Invalid encryption key, must be non-null object: null"},
        UpdateCase{"unknown_action", R"([{"action":"Frobnicate"}])", ErrorCode::kInvalidArgument,
                   "Cannot convert metadata update action to json: frobnicate"},
        UpdateCase{"missing_action", R"([{"uuid":"x"}])", ErrorCode::kInvalidArgument,
                   "Cannot parse metadata update. Missing field: action"},
        UpdateCase{"view_action", R"([{"action":"add-view-version","view-version":{}}])",
                   ErrorCode::kInvalidArgument, "Cannot apply update AddViewVersion to a table"},
        UpdateCase{
            "snapshot_exists",
            R"([{"action":"add-snapshot","snapshot":{"snapshot-id":100,"timestamp-ms":1,"manifest-list":"x"}}])",
            ErrorCode::kInvalidArgument, "Snapshot already exists for id: 100"},
        UpdateCase{
            "snapshot_stale_sequence",
            R"([{"action":"add-snapshot","snapshot":{"sequence-number":1,"snapshot-id":101,"parent-snapshot-id":100,"timestamp-ms":1,"manifest-list":"x"}}])",
            ErrorCode::kConflict,
            "Validation failed, please retry: Cannot add snapshot with sequence number 1 "
            "older than last sequence number 1"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(ApplyTableUpdatesTest, NoChangeReturnsBase) {
  Json base = BaseV2();
  bool changed = true;
  auto r = ApplyTableUpdates(
      &base,
      J(R"([{"action":"set-location","location":"s3://b/t"},{"action":"set-current-schema","schema-id":0},
            {"action":"remove-statistics","snapshot-id":100},{"action":"set-properties","updates":{}}])"),
      kNow, &changed);
  ASSERT_THAT(r, IsOk());
  EXPECT_FALSE(changed);
  EXPECT_EQ(*r, base);
}

TEST(ApplyTableUpdatesTest, ReusesIdenticalSchemaSpecAndOrder) {
  Json base = BaseV2();
  auto r = ApplyTableUpdates(
      &base, J(R"([{"action":"add-schema","schema":{"type":"struct","schema-id":3,"fields":[
              {"id":1,"name":"id","required":true,"type":"long"},
              {"id":2,"name":"data","required":false,"type":"string"}]}},
            {"action":"add-spec","spec":{"spec-id":4,"fields":[]}},
            {"action":"add-sort-order","sort-order":{"order-id":0,"fields":[]}}])"),
      kNow);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->at("schemas").size(), 1U);
  EXPECT_EQ(r->at("partition-specs").size(), 1U);
  EXPECT_EQ(r->at("sort-orders").size(), 1U);
}

TEST(ApplyTableUpdatesTest, RemoveSchemasAndSpecs) {
  Json base = BaseV2();
  auto r =
      ApplyTableUpdates(&base, J(R"([{"action":"add-schema","schema":{"type":"struct","fields":[
              {"id":1,"name":"id","required":true,"type":"long"}]}},
            {"action":"set-current-schema","schema-id":-1},
            {"action":"remove-schemas","schema-ids":[0]},
            {"action":"add-spec","spec":{"fields":[{"name":"id","transform":"identity","source-id":1}]}},
            {"action":"set-default-spec","spec-id":-1},
            {"action":"remove-partition-specs","spec-ids":[0]}])"),
                        kNow);
  ASSERT_THAT(r, IsOk());
  ASSERT_EQ(r->at("schemas").size(), 1U);
  EXPECT_EQ(r->at("schemas")[0]["schema-id"], 1);
  EXPECT_EQ(r->at("current-schema-id"), 1);
  ASSERT_EQ(r->at("partition-specs").size(), 1U);
  EXPECT_EQ(r->at("partition-specs")[0]["spec-id"], 1);
  EXPECT_EQ(r->at("last-partition-id"), 1000);
}

// --- Snapshots ------------------------------------------------------------------------------

TEST(ApplyTableUpdatesTest, AddSnapshotAndSetMain) {
  Json base = BaseV2();
  auto r = ApplyTableUpdates(
      &base, Updates({AddSnapshot(Snapshot(101, 100, 2, kNow - 5)), SetMain(101)}), kNow);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->at("current-snapshot-id"), 101);
  EXPECT_EQ(r->at("refs")["main"], J(R"({"snapshot-id":101,"type":"branch"})"));
  EXPECT_EQ(r->at("last-sequence-number"), 2);
  EXPECT_EQ(r->at("last-updated-ms"), kNow);
  ASSERT_EQ(r->at("snapshot-log").size(), 2U);
  EXPECT_EQ(r->at("snapshot-log")[1], J(R"({"timestamp-ms":1699999999995,"snapshot-id":101})"));
  // SnapshotParser's field order, operation first in the summary.
  EXPECT_EQ(
      ToJsonText(r->at("snapshots")[1]),
      R"({"sequence-number":2,"snapshot-id":101,"parent-snapshot-id":100,)"
      R"("timestamp-ms":1699999999995,"summary":{"operation":"append","added-data-files":"1"},)"
      R"("manifest-list":"s3://b/t/m101.avro","schema-id":0})");
  // The metadata-log is the caller's: FinishCommit appends the previous file.
  Json done = FinishCommit(*r, "s3://b/t/metadata/00001-x.metadata.json", 1600000000000, kNow);
  EXPECT_EQ(done["metadata-log"].size(), 1U);
}

TEST(ApplyTableUpdatesTest, RollbackLogsNow) {
  Json base = BaseV2();
  auto r = ApplyTableUpdates(
      &base, Updates({AddSnapshot(Snapshot(101, 100, 2, kNow - 5)), SetMain(101)}), kNow);
  ASSERT_THAT(r, IsOk());
  auto back = ApplyTableUpdates(&*r, Updates({SetMain(100)}), kNow + 10);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->at("current-snapshot-id"), 100);
  EXPECT_EQ(back->at("snapshot-log").back(),
            J(R"({"timestamp-ms":1700000000010,"snapshot-id":100})"));
}

TEST(ApplyTableUpdatesTest, IntermediateSnapshotsLeaveTheLog) {
  Json base = BaseV2();
  auto r = ApplyTableUpdates(&base,
                             Updates({AddSnapshot(Snapshot(101, 100, 2, kNow - 5)), SetMain(101),
                                      AddSnapshot(Snapshot(102, 101, 3, kNow - 4)), SetMain(102)}),
                             kNow);
  ASSERT_THAT(r, IsOk());
  ASSERT_EQ(r->at("snapshot-log").size(), 2U);
  EXPECT_EQ(r->at("snapshot-log")[1]["snapshot-id"], 102);
  EXPECT_EQ(r->at("snapshots").size(), 3U);
}

TEST(ApplyTableUpdatesTest, SequenceNumberBehindIsRetryable) {
  Json base = BaseV2();
  auto r = ApplyTableUpdates(&base, Updates({AddSnapshot(Snapshot(101, 100, 1, kNow))}), kNow);
  ASSERT_THAT(r, IsError(ErrorCode::kConflict));
  EXPECT_EQ(r.error().entity, EntityKind::kTable);
  // Without a parent the sequence number is not checked (Java).
  auto ok =
      ApplyTableUpdates(&base, Updates({AddSnapshot(Snapshot(101, std::nullopt, 2, kNow))}), kNow);
  EXPECT_THAT(ok, IsOk());
}

TEST(ApplyTableUpdatesTest, RemoveSnapshots) {
  Json base = BaseV2();
  auto r = ApplyTableUpdates(
      &base,
      Updates(
          {AddSnapshot(Snapshot(101, 100, 2, kNow - 5)), SetMain(101),
           J(R"({"action":"set-statistics","statistics":{"snapshot-id":100,"statistics-path":"p","file-size-in-bytes":1,"file-footer-size-in-bytes":1,"blob-metadata":[]}})")}),
      kNow);
  ASSERT_THAT(r, IsOk());
  auto removed = ApplyTableUpdates(
      &*r, J(R"([{"action":"remove-snapshots","snapshot-ids":[100]}])"), kNow + 1);
  ASSERT_THAT(removed, IsOk());
  ASSERT_EQ(removed->at("snapshots").size(), 1U);
  EXPECT_EQ(removed->at("snapshots")[0]["snapshot-id"], 101);
  EXPECT_FALSE(removed->at("refs").contains("t1"));  // the tag pointed at 100
  EXPECT_TRUE(removed->at("statistics").empty());
  // History before the removed snapshot is dropped.
  ASSERT_EQ(removed->at("snapshot-log").size(), 1U);
  EXPECT_EQ(removed->at("snapshot-log")[0]["snapshot-id"], 101);

  auto all = ApplyTableUpdates(
      &*removed, J(R"([{"action":"remove-snapshots","snapshot-ids":[101]}])"), kNow + 2);
  ASSERT_THAT(all, IsOk());
  EXPECT_EQ(all->at("current-snapshot-id"), -1);
  EXPECT_TRUE(all->at("refs").empty());
  EXPECT_TRUE(all->at("snapshot-log").empty());
}

// A group commit keeps the snapshot index beside the document it applies commit after commit
// to. The builder starts from it (it is trusted as given: the caller keeps it true), it follows
// the snapshots added and removed, a failure unsets it, and with it the result is the same as
// without it.
TEST(ApplyTableUpdatesTest, CarriedSnapshotIndexFollowsTheDocument) {
  auto typed = [](const Json& updates) {
    auto parsed = ParseTableUpdates(updates);
    EXPECT_THAT(parsed, IsOk());
    return parsed ? std::move(*parsed) : std::vector<TableUpdate>{};
  };
  std::optional<SnapshotIndex> index;
  auto first = ApplyTableUpdates(
      BaseV2(), typed(Updates({AddSnapshot(Snapshot(101, 100, 2, kNow - 5)), SetMain(101)})),
      kNow, nullptr, &index);
  ASSERT_THAT(first, IsOk());
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->ids, (std::unordered_set<int64_t>{100, 101}));
  EXPECT_EQ(index->max_sequence_number, 2);

  std::optional<SnapshotIndex> stale = SnapshotIndex{{100}, 1};  // lacks 101
  auto trusted = ApplyTableUpdates(Json(*first),
                                   typed(Updates({AddSnapshot(Snapshot(101, 101, 3, kNow))})),
                                   kNow, nullptr, &stale);
  EXPECT_THAT(trusted, IsOk());  // what the index says counts
  auto refused = ApplyTableUpdates(Json(*first),
                                   typed(Updates({AddSnapshot(Snapshot(101, 101, 3, kNow))})),
                                   kNow, nullptr, &index);
  EXPECT_THAT(refused, IsError(ErrorCode::kInvalidArgument));  // 101 exists
  EXPECT_FALSE(index.has_value());

  auto removed = ApplyTableUpdates(
      Json(*first), typed(J(R"([{"action":"remove-snapshots","snapshot-ids":[100]}])")),
      kNow + 1, nullptr, &index);
  ASSERT_THAT(removed, IsOk());
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->ids, (std::unordered_set<int64_t>{101}));

  const Json copy = *removed;
  const Json append = Updates({AddSnapshot(Snapshot(102, 101, 3, kNow + 2)), SetMain(102)});
  auto carried =
      ApplyTableUpdates(std::move(*removed), typed(append), kNow + 2, nullptr, &index);
  auto fresh = ApplyTableUpdates(&copy, append, kNow + 2);
  ASSERT_THAT(carried, IsOk());
  ASSERT_THAT(fresh, IsOk());
  EXPECT_EQ(*carried, *fresh);
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->ids, (std::unordered_set<int64_t>{101, 102}));
  EXPECT_EQ(index->max_sequence_number, 3);
}

TEST(ApplyTableUpdatesTest, V3RowLineage) {
  Json base = BaseV2();
  auto v3 = ApplyTableUpdates(
      &base, J(R"([{"action":"upgrade-format-version","format-version":3}])"), kNow);
  ASSERT_THAT(v3, IsOk());
  EXPECT_EQ(v3->at("next-row-id"), 0);

  Json missing = Snapshot(101, 100, 2, kNow);
  auto r = ApplyTableUpdates(&*v3, Updates({AddSnapshot(missing)}), kNow);
  ASSERT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(r.error().message, "Cannot add a snapshot: first-row-id is null");

  Json s = Snapshot(101, 100, 2, kNow);
  s["first-row-id"] = 0;
  s["added-rows"] = 30;
  r = ApplyTableUpdates(&*v3, Updates({AddSnapshot(s), SetMain(101)}), kNow);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->at("next-row-id"), 30);
  EXPECT_EQ(r->at("snapshots")[1]["first-row-id"], 0);
  EXPECT_EQ(r->at("snapshots")[1]["added-rows"], 30);

  Json behind = Snapshot(102, 101, 3, kNow);
  behind["first-row-id"] = 10;
  behind["added-rows"] = 5;
  auto stale = ApplyTableUpdates(&*r, Updates({AddSnapshot(behind)}), kNow);
  ASSERT_THAT(stale, IsError(ErrorCode::kConflict));
  EXPECT_EQ(stale.error().message,
            "Validation failed, please retry: Cannot add a snapshot, first-row-id is behind table "
            "next-row-id: 10 < 30");

  Json no_rows = Snapshot(102, 101, 3, kNow);
  no_rows["first-row-id"] = 30;
  auto bad = ApplyTableUpdates(&*r, Updates({AddSnapshot(no_rows)}), kNow);
  ASSERT_THAT(bad, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(bad.error().message, "Invalid added-rows (required when first-row-id is set): null");

  // Removing main on v3 writes a null current snapshot.
  auto no_main =
      ApplyTableUpdates(&*r, J(R"([{"action":"remove-snapshot-ref","ref-name":"main"}])"), kNow);
  ASSERT_THAT(no_main, IsOk());
  EXPECT_TRUE(no_main->at("current-snapshot-id").is_null());
}

// --- Create transactions ---------------------------------------------------------------------

constexpr const char* kCreateUpdates = R"([
  {"action":"assign-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"},
  {"action":"upgrade-format-version","format-version":2},
  {"action":"add-schema","schema":{"type":"struct","schema-id":0,"identifier-field-ids":[1],"fields":[
    {"id":1,"name":"id","required":true,"type":"long"},
    {"id":2,"name":"ts","required":false,"type":"timestamptz"}]},"last-column-id":2},
  {"action":"set-current-schema","schema-id":-1},
  {"action":"add-spec","spec":{"spec-id":0,"fields":[{"name":"ts_day","transform":"day","source-id":2,"field-id":1000}]}},
  {"action":"set-default-spec","spec-id":-1},
  {"action":"add-sort-order","sort-order":{"order-id":1,"fields":[{"transform":"identity","source-id":1,"direction":"asc","null-order":"nulls-first"}]}},
  {"action":"set-default-sort-order","sort-order-id":-1},
  {"action":"set-location","location":"s3://b/db/t"},
  {"action":"set-properties","updates":{"write.parquet.compression-codec":"zstd","owner":"x"}}
])";

TEST(CreateTransactionTest, BuildsValidV2Document) {
  ASSERT_THAT(CheckTableRequirements(nullptr, J(R"([{"type":"assert-create"}])")), IsOk());
  bool changed = false;
  auto r = ApplyTableUpdates(nullptr, J(kCreateUpdates), kNow, &changed);
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(changed);
  EXPECT_EQ(
      ToJsonText(*r),
      R"({"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1",)"
      R"("location":"s3://b/db/t","last-sequence-number":0,"last-updated-ms":1700000000000,)"
      R"("last-column-id":2,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,)"
      R"("identifier-field-ids":[1],"fields":[{"id":1,"name":"id","required":true,"type":"long"},)"
      R"({"id":2,"name":"ts","required":false,"type":"timestamptz"}]}],"default-spec-id":0,)"
      R"("partition-specs":[{"spec-id":0,"fields":[{"name":"ts_day","transform":"day",)"
      R"("source-id":2,"field-id":1000}]}],"last-partition-id":1000,"default-sort-order-id":1,)"
      R"("sort-orders":[{"order-id":1,"fields":[{"transform":"identity","source-id":1,)"
      R"("direction":"asc","null-order":"nulls-first"}]}],"properties":{"owner":"x",)"
      R"("write.parquet.compression-codec":"zstd"},"current-snapshot-id":-1,"refs":{},)"
      R"("snapshots":[],"statistics":[],"partition-statistics":[],"snapshot-log":[],)"
      R"("metadata-log":[]})");
  // The result is a valid base for the next commit.
  auto next = ApplyTableUpdates(
      &*r, Updates({AddSnapshot(Snapshot(1, std::nullopt, 1, kNow)), SetMain(1)}), kNow + 1);
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ(next->at("current-snapshot-id"), 1);
}

TEST(CreateTransactionTest, V3AndV1) {
  Json updates = J(kCreateUpdates);
  updates[1]["format-version"] = 3;
  auto v3 = ApplyTableUpdates(nullptr, updates, kNow);
  ASSERT_THAT(v3, IsOk());
  EXPECT_EQ(v3->at("format-version"), 3);
  EXPECT_EQ(v3->at("next-row-id"), 0);
  EXPECT_TRUE(v3->at("current-snapshot-id").is_null());

  updates[1]["format-version"] = 1;
  auto v1 = ApplyTableUpdates(nullptr, updates, kNow);
  ASSERT_THAT(v1, IsOk());
  EXPECT_FALSE(v1->contains("last-sequence-number"));
  EXPECT_EQ(v1->at("schema")["schema-id"], 0);
  EXPECT_EQ(v1->at("partition-spec")[0]["field-id"], 1000);
}

TEST(CreateTransactionTest, IncompleteIsRejected) {
  auto r =
      ApplyTableUpdates(nullptr, J(R"([{"action":"set-location","location":"s3://x"}])"), kNow);
  ASSERT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(r.error().message, "Invalid table metadata: no current schema");
  auto no_spec = ApplyTableUpdates(
      nullptr,
      J(R"([{"action":"add-schema","schema":{"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":"int"}]}},
            {"action":"set-current-schema","schema-id":-1}])"),
      kNow);
  ASSERT_THAT(no_spec, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(no_spec.error().message, "Partition specs cannot be null or empty");
}

// --- NewTableMetadataFromRest ---------------------------------------------------------------

TEST(NewTableMetadataFromRestTest, FreshIds) {
  Json request = J(R"({
    "name": "t",
    "schema": {"type": "struct", "schema-id": 7, "identifier-field-ids": [10], "fields": [
      {"id": 10, "name": "id", "required": true, "type": "long"},
      {"id": 20, "name": "point", "required": false, "type": {"type": "struct", "fields": [
        {"id": 21, "name": "x", "required": true, "type": "double"}]}},
      {"id": 30, "name": "tags", "required": false, "type": {"type": "list", "element-id": 31,
        "element": "string", "element-required": false}},
      {"id": 40, "name": "ts", "required": false, "type": "timestamptz"}]},
    "partition-spec": {"spec-id": 3, "fields": [
      {"name": "ts_day", "transform": "day", "source-id": 40, "field-id": 1005},
      {"name": "id_bucket", "transform": "bucket[8]", "source-id": 10}]},
    "write-order": {"order-id": 4, "fields": [
      {"transform": "identity", "source-id": 40, "direction": "desc", "null-order": "nulls-last"}]},
    "properties": {"format-version": "2", "owner": "x", "current-snapshot-id": "9"}})");
  auto md = NewTableMetadataFromRest(request, "s3://b/db/t/", kNow);
  ASSERT_THAT(md, IsOk());
  const Json& m = *md;
  EXPECT_EQ(m["location"], "s3://b/db/t");
  EXPECT_EQ(m["last-column-id"], 6);
  const Json& fields = m["schemas"][0]["fields"];
  EXPECT_EQ(fields[0]["id"], 1);
  EXPECT_EQ(fields[1]["id"], 2);
  EXPECT_EQ(fields[2]["id"], 3);
  EXPECT_EQ(fields[3]["id"], 4);
  EXPECT_EQ(fields[1]["type"]["fields"][0]["id"], 5);
  EXPECT_EQ(fields[2]["type"]["element-id"], 6);
  EXPECT_EQ(m["schemas"][0]["schema-id"], 0);
  EXPECT_EQ(m["schemas"][0]["identifier-field-ids"], J("[1]"));
  EXPECT_EQ(
      m["partition-specs"][0],
      J(R"({"spec-id":0,"fields":[{"name":"ts_day","transform":"day","source-id":4,"field-id":1000},
                  {"name":"id_bucket","transform":"bucket[8]","source-id":1,"field-id":1001}]})"));
  EXPECT_EQ(m["last-partition-id"], 1001);
  EXPECT_EQ(m["default-sort-order-id"], 1);
  EXPECT_EQ(m["sort-orders"][0]["fields"][0]["source-id"], 4);
  EXPECT_EQ(m["properties"], J(R"({"owner":"x","write.parquet.compression-codec":"zstd"})"));
  EXPECT_EQ(m["current-snapshot-id"], -1);
  EXPECT_EQ(m["last-updated-ms"], kNow);
  // The result is a valid base for a commit.
  Json copy = m;
  EXPECT_THAT(
      ApplyTableUpdates(&copy, J(R"([{"action":"set-properties","updates":{"a":"b"}}])"), kNow),
      IsOk());
}

TEST(NewTableMetadataFromRestTest, VersionsAndErrors) {
  Json request = J(R"({"name":"t","schema":{"type":"struct","fields":[
      {"id":1,"name":"a","required":false,"type":"int"}]},"properties":{"format-version":"3"}})");
  auto v3 = NewTableMetadataFromRest(request, "s3://x", kNow);
  ASSERT_THAT(v3, IsOk());
  EXPECT_EQ(v3->at("format-version"), 3);
  EXPECT_EQ(v3->at("next-row-id"), 0);
  EXPECT_EQ(v3->at("last-partition-id"), 999);
  EXPECT_EQ(v3->at("sort-orders"), J(R"([{"order-id":0,"fields":[]}])"));

  request["properties"]["format-version"] = "4";
  auto v4 = NewTableMetadataFromRest(request, "s3://x", kNow);
  ASSERT_THAT(v4, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(v4.error().message, "Unsupported format version: v4 (supported: v3)");

  auto no_schema = NewTableMetadataFromRest(J(R"({"name":"t"})"), "s3://x", kNow);
  ASSERT_THAT(no_schema, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(no_schema.error().message, "Cannot parse missing field: schema");

  auto bad_source = NewTableMetadataFromRest(
      J(R"({"name":"t","schema":{"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":"int"}]},
            "partition-spec":{"fields":[{"name":"b","transform":"identity","source-id":9}]}})"),
      "s3://x", kNow);
  ASSERT_THAT(bad_source, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(bad_source.error().message, "Cannot find source column: 9");

  auto v2_variant = NewTableMetadataFromRest(
      J(R"({"name":"t","schema":{"type":"struct","fields":[{"id":1,"name":"v","required":false,"type":"variant"}]}})"),
      "s3://x", kNow);
  ASSERT_THAT(v2_variant, IsError(ErrorCode::kInvalidArgument));

  auto bad_identifier = NewTableMetadataFromRest(
      J(R"({"name":"t","schema":{"type":"struct","identifier-field-ids":[1],"fields":[{"id":1,"name":"a","required":false,"type":"int"}]}})"),
      "s3://x", kNow);
  ASSERT_THAT(bad_identifier, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(bad_identifier.error().message,
            "Cannot add field a as an identifier field: not a required field");
}

}  // namespace
}  // namespace cairn::iceberg
