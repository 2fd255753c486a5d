// SPDX-License-Identifier: Apache-2.0
// The Iceberg commit parser and engine: an UpdateTableRequest {"requirements": [...],
// "updates": [...]} (a bare array is taken as the updates) against fixed tables of every format
// version, against no table (a create transaction), and against a view. Whatever a commit
// produces must be metadata that reads back.
#include <string>

#include "fuzz_util.h"
#include "iceberg/commit.h"
#include "iceberg/table_metadata.h"
#include "iceberg/view_metadata.h"
#include "json/json_util.h"

using cairn::fuzz::Check;
using cairn::iceberg::Json;

namespace {

constexpr int64_t kNow = 1700000000000;

// The tables of tests/unit/iceberg (a v1 file with the legacy fields, the v2 table with a
// snapshot and a tag, a v3 table), and a view.
const char* const kTables[] = {
    R"j({"format-version":1,"table-uuid":"d20125c8-7284-442c-9aea-15fee620737c","location":"s3://b/t1",
"last-updated-ms":1600000000000,"last-column-id":3,"schema":{"type":"struct","fields":[
{"id":1,"name":"x","required":true,"type":"long"},{"id":2,"name":"y","required":false,"type":"decimal(9, 2)"},
{"id":3,"name":"z","required":false,"type":{"type":"list","element-id":4,"element":"string","element-required":false}}]},
"partition-spec":[{"name":"x_bucket","transform":"bucket[4]","source-id":1,"field-id":1000}],
"properties":{},"current-snapshot-id":-1,"snapshots":[]})j",
    R"j({"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://b/t",
"last-sequence-number":1,"last-updated-ms":1600000000000,"last-column-id":2,"current-schema-id":0,
"schemas":[{"type":"struct","schema-id":0,"identifier-field-ids":[1],"fields":[
{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"data","required":false,"type":"string"}]}],
"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":{"owner":"me"},
"current-snapshot-id":100,"refs":{"main":{"snapshot-id":100,"type":"branch"},"t1":{"snapshot-id":100,"type":"tag"}},
"snapshots":[{"sequence-number":1,"snapshot-id":100,"timestamp-ms":1600000000000,
"summary":{"operation":"append"},"manifest-list":"s3://b/t/m1.avro","schema-id":0}],
"statistics":[],"partition-statistics":[],"snapshot-log":[{"timestamp-ms":1600000000000,"snapshot-id":100}],
"metadata-log":[]})j",
    R"j({"format-version":3,"table-uuid":"0a4cb01e-5b8e-4a3c-9f0c-0e3a0c1c5a11","location":"file:///w/t3",
"last-sequence-number":0,"last-updated-ms":1,"last-column-id":3,"current-schema-id":0,
"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"v","required":false,"type":"variant"},
{"id":2,"name":"m","required":false,"type":{"type":"map","key-id":3,"key":"string","value-id":4,
"value":"timestamp_ns","value-required":false}}]}],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],
"last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],
"properties":{},"current-snapshot-id":null,"next-row-id":0,"refs":{},"snapshots":[],"statistics":[],
"partition-statistics":[],"snapshot-log":[],"metadata-log":[]})j",
};

const char* const kView =
    R"j({"view-uuid":"5c8e4b0a-1f2e-4d3c-8b7a-6f5e4d3c2b1a","format-version":1,"location":"s3://b/db/v",
"properties":{"comment":"c"},"schemas":[{"type":"struct","schema-id":0,"fields":[
{"id":1,"name":"id","required":false,"type":"long"}]}],"current-version-id":1,
"versions":[{"version-id":1,"timestamp-ms":1700000000000,"schema-id":0,"summary":{"engine-name":"spark"},
"default-namespace":["db"],"representations":[{"type":"sql","sql":"select id from t","dialect":"spark"}]}],
"version-log":[{"timestamp-ms":1700000000000,"version-id":1}]})j";

void ReadsBack(const Json& metadata, const char* what) {
  auto back = cairn::iceberg::ParseMetadata(cairn::iceberg::ToJsonText(metadata));
  Check(back.has_value() && *back == metadata, what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<Json> tables = [] {
    std::vector<Json> out;
    for (const char* t : kTables) out.push_back(*cairn::iceberg::ParseMetadata(t));
    return out;
  }();
  static const Json view = *cairn::json::ParseOrderedJson(kView);

  auto request = cairn::json::ParseOrderedJson(cairn::fuzz::Text(data, size));
  if (!request) return 0;
  Json requirements = Json::array();
  Json updates = *request;
  if (request->is_object()) {
    requirements = request->value("requirements", Json::array());
    updates = request->value("updates", Json::array());
  }

  for (const Json& base : tables) {
    (void)cairn::iceberg::CheckTableRequirements(&base, requirements);
    bool changed = false;
    auto out = cairn::iceberg::ApplyTableUpdates(&base, updates, kNow, &changed);
    Json copy = base;
    auto consumed = cairn::iceberg::ApplyTableUpdates(std::move(copy), updates, kNow);
    Check(out.has_value() == consumed.has_value(), "both ApplyTableUpdates agree");
    if (!out) continue;
    ReadsBack(*out, "a committed table's metadata reads back as itself");
    if (changed) {
      Json finished = cairn::iceberg::FinishCommit(*out, "s3://b/t/metadata/00001-x.metadata.json",
                                                   base.value("last-updated-ms", int64_t{0}), kNow);
      ReadsBack(finished, "a finished commit reads back as itself");
      (void)cairn::iceberg::TableFromMetadata(finished);
    }
  }
  (void)cairn::iceberg::CheckTableRequirements(nullptr, requirements);
  if (auto created = cairn::iceberg::ApplyTableUpdates(nullptr, updates, kNow)) {
    ReadsBack(*created, "a create transaction's metadata reads back as itself");
  }

  (void)cairn::iceberg::CheckViewRequirements(&view, requirements);
  if (auto v = cairn::iceberg::ApplyViewUpdates(view, updates, kNow)) {
    auto back = cairn::json::ParseOrderedJson(cairn::iceberg::ToJsonText(*v));
    Check(back.has_value() && *back == *v, "a view commit reads back as itself");
  }
  return 0;
}
