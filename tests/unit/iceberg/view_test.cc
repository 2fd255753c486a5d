// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "iceberg/table_metadata.h"
#include "iceberg/view_metadata.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::cairn::testing::IsError;
using ::cairn::testing::IsOk;

constexpr int64_t kNow = 1700000000000;

Json J(const char* text) { return Json::parse(text); }

constexpr const char* kCreate = R"({
  "name": "v",
  "schema": {"type": "struct", "schema-id": 5, "fields": [
    {"id": 1, "name": "id", "required": false, "type": "long"}]},
  "view-version": {"version-id": 9, "timestamp-ms": 1, "schema-id": 5,
    "summary": {"engine-name": "spark"},
    "representations": [{"type": "sql", "sql": "select id from t", "dialect": "spark"}],
    "default-namespace": ["db"]},
  "properties": {"comment": "c"}})";

Json Created() {
  auto md = NewViewMetadata(J(kCreate), "s3://b/db/v/", kNow);
  EXPECT_THAT(md, IsOk());
  return *md;
}

TEST(ViewMetadataTest, Create) {
  Json md = Created();
  md["view-uuid"] = "u";
  EXPECT_EQ(ToJsonText(md),
            R"({"view-uuid":"u","format-version":1,"location":"s3://b/db/v",)"
            R"("properties":{"comment":"c"},"schemas":[{"type":"struct","schema-id":0,"fields":[)"
            R"({"id":1,"name":"id","required":false,"type":"long"}]}],"current-version-id":1,)"
            R"("versions":[{"version-id":1,"timestamp-ms":1700000000000,"schema-id":0,)"
            R"("summary":{"engine-name":"spark"},"default-namespace":["db"],"representations":[)"
            R"({"type":"sql","sql":"select id from t","dialect":"spark"}]}],)"
            R"("version-log":[{"timestamp-ms":1700000000000,"version-id":1}]})");
}

TEST(ViewMetadataTest, CreateErrors) {
  Json req = J(kCreate);
  req.erase("schema");
  auto r = NewViewMetadata(req, "s3://x", kNow);
  ASSERT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(r.error().message, "Cannot parse missing field: schema");

  req = J(kCreate);
  req["view-version"].erase("default-namespace");
  r = NewViewMetadata(req, "s3://x", kNow);
  ASSERT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(r.error().message, "Cannot parse missing list: default-namespace");

  req = J(kCreate);
  req["view-version"]["representations"].push_back(
      J(R"({"type":"sql","sql":"x","dialect":"Spark"})"));
  r = NewViewMetadata(req, "s3://x", kNow);
  ASSERT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(r.error().message,
            "Invalid view version: Cannot add multiple queries for dialect spark");

  req = J(kCreate);
  req["view-version"]["representations"] = J(R"([{"type":"other"}])");
  r = NewViewMetadata(req, "s3://x", kNow);
  ASSERT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(r.error().message, "Found unsupported view representations: [other]");
}

TEST(ViewMetadataTest, Requirements) {
  Json md = Created();
  const std::string uuid = md["view-uuid"];
  Json ok = Json::array({{{"type", "assert-view-uuid"}, {"uuid", uuid}}});
  EXPECT_THAT(CheckViewRequirements(&md, ok), IsOk());
  auto bad = CheckViewRequirements(&md, J(R"([{"type":"assert-view-uuid","uuid":"x"}])"));
  ASSERT_THAT(bad, IsError(ErrorCode::kConflict));
  EXPECT_EQ(bad.error().entity, EntityKind::kView);
  EXPECT_EQ(bad.error().message,
            "Requirement failed: view UUID does not match: expected " + uuid + " != x");
  auto table = CheckViewRequirements(&md, J(R"([{"type":"assert-table-uuid","uuid":"x"}])"));
  ASSERT_THAT(table, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(table.error().message, "Cannot validate AssertTableUUID against a view");
  EXPECT_THAT(CheckViewRequirements(nullptr, ok), IsError(ErrorCode::kNotFound));
  EXPECT_THAT(CheckViewRequirements(&md, J(R"([{"type":"nope"}])")),
              IsError(ErrorCode::kInvalidArgument));
}

// What a Java client sends to replace a view: the schema and a version using it (schema-id -1
// when the schema is new; Java sends the existing id when the schema is reused).
Json ReplaceUpdates(const char* sql, const char* dialect = "spark", int schema_id = -1) {
  Json u = J(R"([
    {"action":"add-schema","schema":{"type":"struct","schema-id":1,"fields":[
      {"id":1,"name":"id","required":false,"type":"long"},
      {"id":2,"name":"x","required":false,"type":"int"}]}},
    {"action":"add-view-version","view-version":{"version-id":2,"timestamp-ms":1700000000500,
      "schema-id":-1,"summary":{"engine-name":"spark"},"representations":[],
      "default-namespace":["db"]}},
    {"action":"set-current-view-version","view-version-id":-1}])");
  Json r = Json::object();
  r["type"] = "sql";
  r["sql"] = sql;
  r["dialect"] = dialect;
  u[1]["view-version"]["representations"].push_back(r);
  u[1]["view-version"]["schema-id"] = schema_id;
  return u;
}

TEST(ViewMetadataTest, Replace) {
  Json md = Created();
  bool changed = false;
  auto r = ApplyViewUpdates(md, ReplaceUpdates("select id, 1 as x from t"), kNow + 1000, &changed);
  ASSERT_THAT(r, IsOk());
  EXPECT_TRUE(changed);
  EXPECT_EQ(r->at("current-version-id"), 2);
  ASSERT_EQ(r->at("schemas").size(), 2U);
  EXPECT_EQ(r->at("schemas")[1]["schema-id"], 1);
  EXPECT_EQ(r->at("versions")[1]["schema-id"], 1);
  EXPECT_EQ(r->at("version-log")[1], J(R"({"timestamp-ms":1700000000500,"version-id":2})"));
  EXPECT_EQ(r->at("view-uuid"), md["view-uuid"]);

  // Re-adding an identical version reuses it; going back to version 1 logs now.
  auto back = ApplyViewUpdates(
      *r, J(R"([{"action":"set-current-view-version","view-version-id":1}])"), kNow + 2000);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->at("current-version-id"), 1);
  EXPECT_EQ(back->at("version-log").back(), J(R"({"timestamp-ms":1700000002000,"version-id":1})"));
  Json reuse = ReplaceUpdates("select id, 1 as x from t", "spark", 1);
  reuse[2]["view-version-id"] = 2;  // Java sends the reused version's id, not -1
  auto again = ApplyViewUpdates(*back, reuse, kNow + 3000);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->at("versions").size(), 2U);
  EXPECT_EQ(again->at("current-version-id"), 2);
}

TEST(ViewMetadataTest, ReplaceKeepsDialects) {
  Json md = Created();
  auto r = ApplyViewUpdates(md, ReplaceUpdates("select 1", "trino"), kNow);
  ASSERT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(r.error().message,
            "Cannot replace view due to loss of view dialects (replace.drop-dialect.allowed=false):"
            "\nPrevious dialects: [spark]\nNew dialects: [trino]");
  md["properties"]["replace.drop-dialect.allowed"] = "true";
  EXPECT_THAT(ApplyViewUpdates(md, ReplaceUpdates("select 1", "trino"), kNow), IsOk());
}

TEST(ViewMetadataTest, ExpiresVersions) {
  Json md = Created();
  md["properties"]["version.history.num-entries"] = "2";
  for (int i = 0; i < 3; ++i) {
    const std::string sql = "select " + std::to_string(i);
    auto r = ApplyViewUpdates(md, ReplaceUpdates(sql.c_str(), "spark", i == 0 ? -1 : 1), kNow + i);
    ASSERT_THAT(r, IsOk());
    md = *r;
  }
  ASSERT_EQ(md["versions"].size(), 2U);
  EXPECT_EQ(md["current-version-id"], 4);
  EXPECT_EQ(md["versions"][0]["version-id"], 4);  // Java: the current version first
  EXPECT_EQ(md["versions"][1]["version-id"], 3);
  ASSERT_EQ(md["version-log"].size(), 2U);
  EXPECT_EQ(md["version-log"][0]["version-id"], 3);
}

struct ViewUpdateCase {
  const char* name;
  const char* updates;
  const char* message;
};

class ViewUpdateErrorTest : public ::testing::TestWithParam<ViewUpdateCase> {};

TEST_P(ViewUpdateErrorTest, Fails) {
  Json md = Created();
  auto r = ApplyViewUpdates(md, J(GetParam().updates), kNow);
  ASSERT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_EQ(r.error().message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    All, ViewUpdateErrorTest,
    ::testing::Values(
        ViewUpdateCase{"reassign_uuid", R"([{"action":"assign-uuid","uuid":"other"}])",
                       "Cannot reassign uuid"},
        ViewUpdateCase{"downgrade", R"([{"action":"upgrade-format-version","format-version":0}])",
                       "Cannot downgrade v1 view to v0"},
        ViewUpdateCase{"upgrade_unsupported",
                       R"([{"action":"upgrade-format-version","format-version":2}])",
                       "Unsupported format version: 2"},
        ViewUpdateCase{"unknown_version",
                       R"([{"action":"set-current-view-version","view-version-id":7}])",
                       "Cannot set current version to unknown version: 7"},
        ViewUpdateCase{"no_last_version",
                       R"([{"action":"set-current-view-version","view-version-id":-1}])",
                       "Cannot set last version id: no current version id has been set"},
        ViewUpdateCase{
            "unknown_schema",
            R"([{"action":"add-view-version","view-version":{"version-id":2,"timestamp-ms":1,"schema-id":4,
                           "summary":{},"representations":[],"default-namespace":[]}}])",
            "Cannot add version with unknown schema: 4"},
        ViewUpdateCase{
            "no_last_schema",
            R"([{"action":"add-view-version","view-version":{"version-id":2,"timestamp-ms":1,"schema-id":-1,
                           "summary":{},"representations":[],"default-namespace":[]}}])",
            "Cannot set last added schema: no schema has been added"},
        ViewUpdateCase{"table_action", R"([{"action":"add-snapshot","snapshot":{}}])",
                       "Cannot apply update AddSnapshot to a view"},
        ViewUpdateCase{"unknown_action", R"([{"action":"nope"}])",
                       "Cannot convert metadata update action to json: nope"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(ViewMetadataTest, PropertiesAndLocation) {
  Json md = Created();
  auto r = ApplyViewUpdates(md, J(R"([{"action":"set-properties","updates":{"a":"1"}},
                                      {"action":"remove-properties","removals":["comment"]},
                                      {"action":"set-location","location":"s3://new"}])"),
                            kNow);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->at("properties"), J(R"({"a":"1"})"));
  EXPECT_EQ(r->at("location"), "s3://new");
  auto removed =
      ApplyViewUpdates(*r, J(R"([{"action":"remove-properties","removals":["a"]}])"), kNow);
  ASSERT_THAT(removed, IsOk());
  EXPECT_FALSE(removed->contains("properties"));  // written only when non-empty
  bool changed = true;
  auto same = ApplyViewUpdates(md, J(R"([{"action":"set-location","location":"s3://b/db/v"}])"),
                               kNow, &changed);
  ASSERT_THAT(same, IsOk());
  EXPECT_FALSE(changed);
}

}  // namespace
}  // namespace cairn::iceberg
