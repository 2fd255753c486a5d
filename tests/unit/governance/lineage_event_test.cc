// SPDX-License-Identifier: Apache-2.0
#include "governance/lineage_event.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "matchers.h"

namespace cairn::governance {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using cairn::testing::IsOk;

json Valid() {
  return json::parse(R"({
    "eventType": "COMPLETE",
    "eventTime": "2026-12-02T10:00:00.000Z",
    "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python",
    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    "run": {"runId": "0193A7E2-1111-7000-8000-000000000001", "facets": {"custom": {"x": [1]}}},
    "job": {"namespace": "etl", "name": "daily_orders", "facets": {}},
    "inputs": [{"namespace": "trino://trino:8080", "name": "lake.sales.orders",
                "facets": {"whatever": 1}}],
    "outputs": [{"namespace": "ml1", "name": "lake.sales.daily",
                 "facets": {"columnLineage": {"fields": {
                   "total": {"inputFields": [
                     {"namespace": "trino://trino:8080", "name": "lake.sales.orders",
                      "field": "amount",
                      "transformations": [{"type": "INDIRECT", "subtype": "AGGREGATION"}]},
                     {"namespace": "s3://bucket", "name": "fx/rates", "field": "rate"}]},
                   "day": {"inputFields": [
                     {"namespace": "trino://trino:8080", "name": "lake.sales.orders",
                      "field": "ts"}], "transformationType": "IDENTITY"}}}}}]
  })");
}

std::string ErrorOf(const json& event) {
  auto r = ParseRunEvent(event, event.dump());
  EXPECT_FALSE(r.has_value());
  if (r) return "";
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  return r.error().message;
}

TEST(LineageEventTest, ReadsARunEventWithItsDatasetsAndColumnLineage) {
  const json event = Valid();
  auto r = ParseRunEvent(event, "text as sent");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->event_type, "COMPLETE");
  EXPECT_EQ(r->run_id, "0193a7e2-1111-7000-8000-000000000001");  // UUIDs compare lower case
  EXPECT_EQ(r->job_ns, "etl");
  EXPECT_EQ(r->job_name, "daily_orders");
  EXPECT_EQ(r->body, "text as sent");
  ASSERT_EQ(r->inputs.size(), 1u);
  EXPECT_EQ(r->inputs[0].ns, "trino://trino:8080");
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].name, "lake.sales.daily");
  ASSERT_EQ(r->columns.size(), 3u);
  // Fields in name order (the facet is an object): day, then total's two inputs.
  EXPECT_EQ(r->columns[0].output_field, "day");
  EXPECT_EQ(r->columns[0].input_field, "ts");
  EXPECT_EQ(r->columns[0].transformation, "IDENTITY");
  EXPECT_EQ(r->columns[1].output_field, "total");
  EXPECT_EQ(r->columns[1].input_field, "amount");
  EXPECT_EQ(r->columns[1].transformation, "INDIRECT/AGGREGATION");
  EXPECT_EQ(r->columns[2].input.ns, "s3://bucket");
  EXPECT_EQ(r->columns[2].input.name, "fx/rates");
  EXPECT_EQ(r->columns[2].output.name, "lake.sales.daily");
}

TEST(LineageEventTest, AnAbsentEventTypeIsOther) {
  json event = Valid();
  event.erase("eventType");
  auto r = ParseRunEvent(event, "");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->event_type, "OTHER");
}

TEST(LineageEventTest, MalformedEventsAreRefusedNamingTheField) {
  struct Case {
    const char* pointer;  // JSON pointer of the member to change
    json value;           // null: remove it
    const char* field;
  };
  const Case cases[] = {
      {"/eventTime", nullptr, "'eventTime' is required"},
      {"/eventTime", 5, "'eventTime' must be a string"},
      {"/producer", nullptr, "'producer'"},
      {"/eventType", "DONE", "'eventType' must be one of"},
      {"/eventType", json::array(), "'eventType' must be a string"},
      {"/run", nullptr, "'run' is required"},
      {"/run", "r", "'run' must be an object"},
      {"/run/runId", nullptr, "'run.runId' is required"},
      {"/run/runId", "not-a-uuid", "'run.runId' must be a UUID"},
      {"/run/facets", 3, "'run.facets' must be an object"},
      {"/job/namespace", "", "'job.namespace' must not be empty"},
      {"/job/name", json::object(), "'job.name' must be a string"},
      {"/inputs", json::object(), "'inputs' must be an array"},
      {"/inputs/0", "t", "'inputs[0]' must be an object"},
      {"/inputs/0/name", nullptr, "'inputs[0].name' is required"},
      {"/outputs/0/namespace", 1.5, "'outputs[0].namespace' must be a string"},
      {"/outputs/0/facets/columnLineage", "x", "'outputs[0].facets.columnLineage' must be an object"},
      {"/outputs/0/facets/columnLineage/fields/total/inputFields", 1,
       "'outputs[0].facets.columnLineage.fields.total.inputFields' must be an array"},
      {"/outputs/0/facets/columnLineage/fields/total/inputFields/0/field", nullptr,
       "'outputs[0].facets.columnLineage.fields.total.inputFields[0].field' is required"},
  };
  for (const auto& c : cases) {
    json event = Valid();
    const json::json_pointer p(c.pointer);
    if (c.value.is_null()) {
      event[p.parent_pointer()].erase(p.back());
    } else {
      event[p] = c.value;
    }
    EXPECT_THAT(ErrorOf(event), HasSubstr(c.field)) << c.pointer;
  }
  EXPECT_THAT(ErrorOf(json::array()), HasSubstr("must be a JSON object"));
}

TEST(LineageEventTest, HugeArraysAreRefused) {
  json event = Valid();
  event["inputs"] = json::array();
  for (size_t i = 0; i <= kMaxLineageDatasets; ++i) {
    event["inputs"].push_back(json{{"namespace", "n"}, {"name", std::to_string(i)}});
  }
  EXPECT_THAT(ErrorOf(event), HasSubstr("'inputs' has more than 1000 datasets"));
}

TEST(LineageEventTest, DatasetNamesMapByTheirConvention) {
  // Gravitino's Spark plugin: the namespace is the metalake.
  auto gravitino = MapDatasetName("ml1", "lake.sales.orders");
  ASSERT_TRUE(gravitino.has_value());
  EXPECT_EQ(gravitino->metalake, "ml1");
  EXPECT_EQ(gravitino->ObjectName(), "lake.sales.orders");
  // An engine's namespace: the metalake is found by the catalog.
  auto trino = MapDatasetName("trino://trino:8080", "lake.sales.orders");
  ASSERT_TRUE(trino.has_value());
  EXPECT_EQ(trino->metalake, "");
  EXPECT_EQ(trino->catalog, "lake");
  EXPECT_EQ(trino->table, "orders");
  // Paths and names of other shapes map to nothing.
  EXPECT_FALSE(MapDatasetName("s3://bucket", "warehouse/sales/orders").has_value());
  EXPECT_FALSE(MapDatasetName("ml1", "sales.orders").has_value());
  EXPECT_FALSE(MapDatasetName("ml1", "a..b").has_value());
  EXPECT_FALSE(MapDatasetName("file", "/tmp/x.y.z").has_value());
}

TEST(LineageEventTest, SymlinksListTheOtherNamesOfADataset) {
  const json d = json::parse(R"({"namespace": "file", "name": "/wh/sales/orders",
    "facets": {"symlinks": {"identifiers": [
      {"namespace": "ml1", "name": "lake.sales.orders", "type": "TABLE"}, 7]}}})");
  auto names = SymlinkNames(d);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0].first, "ml1");
  EXPECT_EQ(names[0].second, "lake.sales.orders");
  EXPECT_TRUE(SymlinkNames(json::parse(R"({"facets": {"symlinks": 3}})")).empty());
}

}  // namespace
}  // namespace cairn::governance
