// SPDX-License-Identifier: Apache-2.0
#include "iceberg/expression.h"

#include <gtest/gtest.h>

#include "iceberg/scan_plan.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using cairn::testing::HasErrorMessage;
using cairn::testing::IsOk;

const Json kSchema = Json::parse(R"J({
  "type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": true, "type": "long"},
    {"id": 2, "name": "name", "required": false, "type": "string"},
    {"id": 3, "name": "ts", "required": false, "type": "timestamptz"},
    {"id": 4, "name": "price", "required": false, "type": "decimal(9, 2)"},
    {"id": 5, "name": "score", "required": false, "type": "double"},
    {"id": 6, "name": "d", "required": false, "type": "date"},
    {"id": 7, "name": "s", "required": false, "type": {"type": "struct", "fields": [
      {"id": 8, "name": "x", "required": false, "type": "int"}]}}
  ]})J");

std::string Le(int64_t v, int n) {
  std::string out(static_cast<size_t>(n), '\0');
  for (int i = 0; i < n; ++i) out[static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

ExprPtr Bind(const std::string& text, bool case_sensitive = true) {
  SchemaIndex index(kSchema);
  auto e = BindFilter(Json::parse(text), index, case_sensitive);
  EXPECT_THAT(e, IsOk()) << text;
  return e ? RewriteNot(*e) : True();
}

TEST(Expression, BucketHashesAreTheSpecsValues) {
  // The Iceberg spec's table of 32-bit Murmur3 hashes (Appendix B).
  PrimitiveType t;
  t.id = TypeId::kInt;
  EXPECT_EQ(BucketHash(t, Value::Int(34)), 2017239379);
  t.id = TypeId::kLong;
  EXPECT_EQ(BucketHash(t, Value::Int(34)), 2017239379);
  t.id = TypeId::kDate;
  EXPECT_EQ(BucketHash(t, Value::Int(17486)), -653330422);
  t.id = TypeId::kTime;
  EXPECT_EQ(BucketHash(t, Value::Int(81068000000)), -662762989);
  t.id = TypeId::kTimestamp;
  EXPECT_EQ(BucketHash(t, Value::Int(1510871468000000)), -2047944441);
  t.id = TypeId::kString;
  EXPECT_EQ(BucketHash(t, Value::Bytes("iceberg")), 1210000089);
  t.id = TypeId::kBinary;
  EXPECT_EQ(BucketHash(t, Value::Bytes(std::string("\x00\x01\x02\x03", 4))), -188683207);
  t.id = TypeId::kDecimal;
  t.scale = 2;
  EXPECT_EQ(BucketHash(t, Value::Int(1420)), -500754589);
}

TEST(Expression, TransformsFloorBeforeTheEpoch) {
  PrimitiveType ts;
  ts.id = TypeId::kTimestampTz;
  // 1969-12-31T23:59:59.999999Z is day -1, hour -1, month -1, year -1.
  const Value v = Value::Int(-1);
  EXPECT_EQ(ApplyTransform(ParseTransform("day"), ts, v)->i, -1);
  EXPECT_EQ(ApplyTransform(ParseTransform("hour"), ts, v)->i, -1);
  EXPECT_EQ(ApplyTransform(ParseTransform("month"), ts, v)->i, -1);
  EXPECT_EQ(ApplyTransform(ParseTransform("year"), ts, v)->i, -1);
  PrimitiveType i;
  i.id = TypeId::kLong;
  EXPECT_EQ(ApplyTransform(ParseTransform("truncate[10]"), i, Value::Int(-1))->i, -10);
  EXPECT_EQ(ApplyTransform(ParseTransform("truncate[10]"), i, Value::Int(19))->i, 10);
  PrimitiveType s;
  s.id = TypeId::kString;
  EXPECT_EQ(ApplyTransform(ParseTransform("truncate[2]"), s, Value::Bytes("\xc3\xa9t\xc3\xa9"))->s,
            "\xc3\xa9t");
  EXPECT_EQ(ParseTransform("bucket[0]").kind, Transform::Kind::kUnknown);
}

TEST(Expression, BadFiltersNameTheProblem) {
  SchemaIndex index(kSchema);
  auto bind = [&](const char* text) { return BindFilter(Json::parse(text), index, true); };
  EXPECT_THAT(bind(R"({"type":"eq","term":"nope","value":1})"),
              HasErrorMessage("Cannot find field 'nope'"));
  EXPECT_THAT(bind(R"({"type":"eq","term":"id","value":"x"})"),
              HasErrorMessage("Invalid value for conversion to type long"));
  EXPECT_THAT(bind(R"({"type":"is-nan","term":"id"})"), HasErrorMessage("non-floating-point"));
  EXPECT_THAT(bind(R"({"type":"starts-with","term":"id","value":"1"})"),
              HasErrorMessage("needs a string column"));
  EXPECT_THAT(bind(R"({"type":"between","term":"id"})"),
              HasErrorMessage("unknown expression type 'between'"));
  EXPECT_THAT(bind(R"({"type":"and","left":true})"), HasErrorMessage("'left' and 'right'"));
  EXPECT_THAT(bind(R"({"type":"lt","term":"s","value":1})"), HasErrorMessage("cannot compare"));
  EXPECT_THAT(bind(R"({"type":"eq","term":"price","value":"1.234"})"),
              HasErrorMessage("decimal"));
  EXPECT_THAT(bind(R"({"type":"eq","term":"d","value":"2024-02-30"})"), HasErrorMessage("date"));
  EXPECT_THAT(bind(R"({"type":"eq","term":"ID","value":1})"), HasErrorMessage("'ID'"));
  EXPECT_THAT(BindFilter(Json::parse(R"({"type":"eq","term":"ID","value":1})"), index, false),
              IsOk());
  std::string deep = "true";
  for (int i = 0; i < 300; ++i) deep = R"({"type":"not","child":)" + deep + "}";
  EXPECT_THAT(bind(deep.c_str()), HasErrorMessage("deeper than"));
}

TEST(Expression, LiteralsTakeTheColumnsType) {
  auto e = Bind(R"({"type":"eq","term":"ts","value":"2024-01-02T03:04:05.000006+00:00"})");
  ASSERT_EQ(e->op, Op::kEq);
  EXPECT_EQ(static_cast<int64_t>(e->values[0].i), 1704164645000006);
  e = Bind(R"({"type":"lt","term":"price","value":"12.5"})");
  EXPECT_EQ(static_cast<int64_t>(e->values[0].i), 1250);
  e = Bind(R"({"type":"in","term":"d","values":["1970-01-02","1969-12-31"]})");
  EXPECT_EQ(static_cast<int64_t>(e->values[1].i), -1);
  EXPECT_EQ(Bind(R"({"type":"in","term":"id","values":[]})")->op, Op::kFalse);
}

TEST(Expression, NotIsPushedDown) {
  auto e = Bind(R"({"type":"not","child":{"type":"and",
      "left":{"type":"lt","term":"id","value":5},"right":{"type":"is-null","term":"name"}}})");
  ASSERT_EQ(e->op, Op::kOr);
  EXPECT_EQ(e->left->op, Op::kGtEq);
  EXPECT_EQ(e->left->json["type"], "gt-eq");
  EXPECT_EQ(e->right->op, Op::kNotNull);
}

std::vector<BoundPartitionField> Spec(const char* fields) {
  SchemaIndex index(kSchema);
  return BindPartitionSpec(Json::parse(std::string(R"({"spec-id":0,"fields":)") + fields + "}"), index);
}

TEST(Expression, ManifestsArePrunedThroughTheTransforms) {
  const auto spec = Spec(R"([{"source-id":6,"field-id":1000,"name":"d","transform":"identity"},
      {"source-id":1,"field-id":1001,"name":"id_bucket","transform":"bucket[16]"},
      {"source-id":3,"field-id":1002,"name":"ts_day","transform":"day"}])");
  FieldSummary days;  // d in [100, 200]
  days.contains_null = false;
  days.lower = Le(100, 4);
  days.upper = Le(200, 4);
  FieldSummary any;  // id_bucket in [0, 15]
  any.lower = Le(0, 4);
  any.upper = Le(15, 4);
  FieldSummary ts_days;  // ts_day in [19000, 19010]
  ts_days.contains_null = false;
  ts_days.lower = Le(19000, 4);
  ts_days.upper = Le(19010, 4);
  const std::vector<FieldSummary> summaries = {days, any, ts_days};
  auto may = [&](const char* filter) {
    return ManifestMayMatch(ProjectInclusive(Bind(filter), spec), spec, summaries);
  };
  EXPECT_TRUE(may(R"({"type":"eq","term":"d","value":150})"));
  EXPECT_FALSE(may(R"({"type":"eq","term":"d","value":201})"));
  EXPECT_FALSE(may(R"({"type":"lt","term":"d","value":100})"));
  EXPECT_TRUE(may(R"({"type":"lt-eq","term":"d","value":100})"));
  EXPECT_FALSE(may(R"({"type":"is-null","term":"d"})"));
  EXPECT_TRUE(may(R"({"type":"not-eq","term":"d","value":150})"));
  // day(ts): 19011 days is after every file of the manifest.
  EXPECT_FALSE(may(R"({"type":"gt-eq","term":"ts","value":"2022-01-21T00:00:00+00:00"})"));
  EXPECT_TRUE(may(R"({"type":"lt","term":"ts","value":"2022-01-21T00:00:00+00:00"})"));
  EXPECT_TRUE(may(R"({"type":"or","left":{"type":"eq","term":"d","value":1},
      "right":{"type":"eq","term":"id","value":7}})"));
}

TEST(Expression, PartitionsAndMetricsDecideFiles) {
  const auto spec = Spec(R"([{"source-id":1,"field-id":1000,"name":"b","transform":"bucket[4]"},
      {"source-id":2,"field-id":1001,"name":"name","transform":"identity"}])");
  PrimitiveType longs;
  longs.id = TypeId::kLong;
  const int64_t bucket_of_7 =
      static_cast<int64_t>(ApplyTransform(ParseTransform("bucket[4]"), longs, Value::Int(7))->i);
  const std::vector<Value> partition = {Value::Int(bucket_of_7), Value::Bytes("a")};
  auto matches = [&](const char* filter) {
    return PartitionMatches(ProjectInclusive(Bind(filter), spec), partition);
  };
  EXPECT_TRUE(matches(R"({"type":"eq","term":"id","value":7})"));
  EXPECT_FALSE(matches(R"({"type":"and","left":{"type":"eq","term":"id","value":7},
      "right":{"type":"eq","term":"name","value":"b"}})"));

  FileMetrics m;
  m.record_count = 10;
  m.value_counts = {{1, 10}, {2, 10}};
  m.null_counts = {{1, 0}, {2, 10}};
  m.lower = {{1, Le(5, 8)}};
  m.upper = {{1, Le(9, 8)}};
  EXPECT_TRUE(MetricsMayMatch(Bind(R"({"type":"eq","term":"id","value":7})"), m));
  EXPECT_FALSE(MetricsMayMatch(Bind(R"({"type":"gt","term":"id","value":9})"), m));
  EXPECT_FALSE(MetricsMayMatch(Bind(R"({"type":"in","term":"id","values":[1,2,10]})"), m));
  EXPECT_FALSE(MetricsMayMatch(Bind(R"({"type":"is-null","term":"id"})"), m));
  EXPECT_FALSE(MetricsMayMatch(Bind(R"({"type":"eq","term":"name","value":"a"})"), m));  // all null
  EXPECT_TRUE(MetricsMayMatch(Bind(R"({"type":"not-eq","term":"id","value":7})"), m));
  m.record_count = 0;
  EXPECT_FALSE(MetricsMayMatch(True(), m));

  // The identity partition decides its predicate; the rest remains.
  auto residual = Residual(Bind(R"({"type":"and","left":{"type":"eq","term":"name","value":"a"},
      "right":{"type":"gt","term":"id","value":3}})"), spec, partition);
  EXPECT_EQ(ToJson(residual), Json::parse(R"({"type":"gt","term":"id","value":3})"));
  EXPECT_EQ(ToJson(Residual(Bind(R"({"type":"eq","term":"name","value":"b"})"), spec, partition)),
            Json(false));
}

TEST(ScanPlan, RequestRules) {
  EXPECT_THAT(ParseScanRequest(Json::parse(R"({"snapshot-id":1,"start-snapshot-id":0,
      "end-snapshot-id":1})")), HasErrorMessage("snapshot-id"));
  EXPECT_THAT(ParseScanRequest(Json::parse(R"({"start-snapshot-id":1})")),
              HasErrorMessage("end-snapshot-id"));
  EXPECT_THAT(ParseScanRequest(Json::parse(R"({"select":"id"})")), HasErrorMessage("select"));
  EXPECT_THAT(ParseScanRequest(Json::parse(R"({"case-sensitive":"no"})")),
              HasErrorMessage("case-sensitive"));
  EXPECT_THAT(ParseScanRequest(Json::parse(R"({"snapshot-id":"1"})")),
              HasErrorMessage("snapshot-id"));
  auto ok = ParseScanRequest(Json::parse(R"({"select":["id"],"filter":true})"));
  ASSERT_THAT(ok, IsOk());
  EXPECT_TRUE(ok->case_sensitive);
}

std::shared_ptr<const ContentFile> File(int content, int64_t seq, std::vector<Json> partition,
                                        std::string path = "",
                                        std::optional<std::string> ref = std::nullopt) {
  auto f = std::make_shared<ContentFile>();
  f->content = content;
  f->data_sequence_number = seq;
  f->partition_avro = std::move(partition);
  f->path = path.empty() ? "s3://b/t/delete-" + std::to_string(seq) : path;
  f->format = "parquet";
  f->referenced_data_file = std::move(ref);
  return f;
}

TEST(ScanPlan, DeleteFilesApplyByPartitionAndSequenceNumber) {
  std::map<int, std::vector<BoundPartitionField>> specs = {
      {0, Spec(R"([{"source-id":6,"field-id":1000,"name":"d","transform":"identity"}])")}};
  ContentFile data;
  data.path = "s3://b/t/data-1.parquet";
  data.data_sequence_number = 5;
  data.partition_avro = {Json(1)};
  DeleteIndex index({File(1, 5, {Json(1)}),             // 0: position, same seq: applies
                     File(1, 4, {Json(1)}),             // 1: position, older: no
                     File(2, 5, {Json(1)}),             // 2: equality, same seq: no
                     File(2, 6, {Json(1)}),             // 3: equality, newer: applies
                     File(1, 9, {Json(2)}),             // 4: other partition: no
                     File(1, 9, {Json(1)}, "", "s3://b/t/data-2.parquet")},  // 5: other file
                    specs);
  EXPECT_EQ(index.For(data), (std::vector<size_t>{0, 3}));
}

}  // namespace
}  // namespace cairn::iceberg
