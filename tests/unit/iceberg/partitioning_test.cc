// SPDX-License-Identifier: Apache-2.0
#include "iceberg/partitioning.h"

#include <gtest/gtest.h>

namespace cairn::iceberg {
namespace {

// id 1 id long, 2 ts timestamptz, 3 name string, 4 d date, 5 price decimal(10, 2),
// 6 info struct {7 city string}, 8 tags list<string>
const Json& TestSchema() {
  static const Json schema = Json::parse(R"j({"type":"struct","schema-id":0,"fields":[
    {"id":1,"name":"id","required":true,"type":"long"},
    {"id":2,"name":"ts","required":false,"type":"timestamptz"},
    {"id":3,"name":"name","required":false,"type":"string"},
    {"id":4,"name":"d","required":false,"type":"date"},
    {"id":5,"name":"price","required":false,"type":"decimal(10, 2)"},
    {"id":6,"name":"info","required":false,"type":{"type":"struct","fields":[
      {"id":7,"name":"city","required":false,"type":"string"}]}},
    {"id":8,"name":"tags","required":false,"type":{"type":"list","element-id":9,"element":"string","element-required":false}}]})j");
  return schema;
}

model::Transform T(std::string strategy, model::FieldName field) {
  model::Transform t;
  t.strategy = std::move(strategy);
  t.field_name = std::move(field);
  return t;
}
model::Transform Bucket(int n, model::FieldName field) {
  model::Transform t;
  t.strategy = "bucket";
  t.field_names = {std::move(field)};
  t.num_buckets = n;
  return t;
}
model::Transform Truncate(int w, model::FieldName field) {
  model::Transform t = T("truncate", std::move(field));
  t.width = w;
  return t;
}

struct SpecRow {
  model::Transform transform;
  std::string expected_field;  // the partition field JSON
};

class PartitionSpecTest : public ::testing::TestWithParam<SpecRow> {};

TEST_P(PartitionSpecTest, ToAndFrom) {
  const auto& row = GetParam();
  auto spec = ToPartitionSpec({row.transform}, TestSchema(), 0);
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->spec.dump(), R"({"spec-id":0,"fields":[)" + row.expected_field + "]}");
  EXPECT_EQ(spec->last_partition_id, 1000);
  auto back = FromPartitionSpec(spec->spec, TestSchema());
  ASSERT_TRUE(back.has_value()) << back.error().message;
  ASSERT_EQ(back->size(), 1U);
  EXPECT_EQ((*back)[0], row.transform);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, PartitionSpecTest,
    ::testing::Values(
        SpecRow{T("identity", {"name"}),
                R"({"name":"name","transform":"identity","source-id":3,"field-id":1000})"},
        SpecRow{T("identity", {"info", "city"}),
                R"({"name":"info.city","transform":"identity","source-id":7,"field-id":1000})"},
        SpecRow{T("year", {"ts"}),
                R"({"name":"ts_year","transform":"year","source-id":2,"field-id":1000})"},
        SpecRow{T("month", {"d"}),
                R"({"name":"d_month","transform":"month","source-id":4,"field-id":1000})"},
        SpecRow{T("day", {"ts"}),
                R"({"name":"ts_day","transform":"day","source-id":2,"field-id":1000})"},
        SpecRow{T("hour", {"ts"}),
                R"({"name":"ts_hour","transform":"hour","source-id":2,"field-id":1000})"},
        SpecRow{Bucket(16, {"id"}),
                R"({"name":"id_bucket","transform":"bucket[16]","source-id":1,"field-id":1000})"},
        SpecRow{
            Truncate(10, {"name"}),
            R"({"name":"name_trunc","transform":"truncate[10]","source-id":3,"field-id":1000})"},
        SpecRow{
            Truncate(4, {"price"}),
            R"({"name":"price_trunc","transform":"truncate[4]","source-id":5,"field-id":1000})"}));

TEST(PartitionSpecTest, SeveralFieldsAndUnpartitioned) {
  auto spec = ToPartitionSpec({T("day", {"ts"}), Bucket(8, {"id"})}, TestSchema(), 0);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->spec["fields"][1]["field-id"], 1001);
  EXPECT_EQ(spec->last_partition_id, 1001);
  auto none = ToPartitionSpec({}, TestSchema(), 0);
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->spec.dump(), R"({"spec-id":0,"fields":[]})");
  EXPECT_EQ(none->last_partition_id, 999);
}

struct BadSpecRow {
  model::Transform transform;
  std::string message_part;
};

class BadPartitionSpecTest : public ::testing::TestWithParam<BadSpecRow> {};

TEST_P(BadPartitionSpecTest, IsInvalidArgument) {
  auto spec = ToPartitionSpec({GetParam().transform}, TestSchema(), 0);
  ASSERT_FALSE(spec.has_value());
  EXPECT_EQ(spec.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(spec.error().message.find(GetParam().message_part), std::string::npos)
      << spec.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, BadPartitionSpecTest,
    ::testing::Values(BadSpecRow{T("identity", {"missing"}), "missing"},
                      BadSpecRow{T("list", {"name"}), "not supported: list"},
                      BadSpecRow{T("range", {"name"}), "not supported: range"},
                      BadSpecRow{T("function", {}), "not supported: function"},
                      BadSpecRow{T("hour", {"d"}), "Invalid source type date for transform: hour"},
                      BadSpecRow{T("year", {"name"}), "Invalid source type string"},
                      BadSpecRow{Truncate(3, {"d"}), "Invalid source type date"},
                      BadSpecRow{T("identity", {"info"}), "Invalid source type struct"},
                      BadSpecRow{T("identity", {"tags", "element"}), "tags.element"}));

TEST(BadPartitionSpecTest, MultiFieldBucketAndRedundant) {
  model::Transform b = Bucket(4, {"id"});
  b.field_names.push_back({"name"});
  EXPECT_FALSE(ToPartitionSpec({b}, TestSchema(), 0).has_value());
  auto redundant = ToPartitionSpec({T("year", {"ts"}), T("day", {"ts"})}, TestSchema(), 0);
  ASSERT_FALSE(redundant.has_value());
  EXPECT_NE(redundant.error().message.find("redundant"), std::string::npos);
  EXPECT_TRUE(
      ToPartitionSpec({Bucket(4, {"id"}), Bucket(8, {"id"})}, TestSchema(), 0).has_value() ==
      false);  // same default name "id_bucket" twice
}

TEST(FromPartitionSpecTest, SkipsVoidAndRejectsUnknown) {
  auto spec = Json::parse(R"({"spec-id":1,"fields":[
    {"name":"x","transform":"void","source-id":1,"field-id":1000},
    {"name":"name","transform":"identity","source-id":3,"field-id":1001}]})");
  auto t = FromPartitionSpec(spec, TestSchema());
  ASSERT_TRUE(t.has_value());
  ASSERT_EQ(t->size(), 1U);
  EXPECT_EQ((*t)[0], T("identity", {"name"}));
  spec["fields"][1]["transform"] = "zorder";
  EXPECT_FALSE(FromPartitionSpec(spec, TestSchema()).has_value());
  spec["fields"][1]["transform"] = "identity";
  spec["fields"][1]["source-id"] = 77;
  EXPECT_FALSE(FromPartitionSpec(spec, TestSchema()).has_value());
}

model::Expression Field(model::FieldName f) {
  model::Expression e;
  e.kind = model::Expression::Kind::kField;
  e.field_name = std::move(f);
  return e;
}
model::Expression IntLit(int v) {
  model::Expression e;
  e.kind = model::Expression::Kind::kLiteral;
  e.data_type = model::MakePrimitive(model::TypeKind::kInteger);
  e.value = std::to_string(v);
  return e;
}
model::Expression Func(std::string name, std::vector<model::Expression> args) {
  model::Expression e;
  e.kind = model::Expression::Kind::kFunction;
  e.func_name = std::move(name);
  e.args = std::move(args);
  return e;
}
model::SortOrder S(model::Expression term, std::string dir = "asc",
                   std::string nulls = "nulls_first") {
  model::SortOrder s;
  s.term = std::move(term);
  s.direction = std::move(dir);
  s.null_ordering = std::move(nulls);
  return s;
}

TEST(SortOrderTest, RoundTrip) {
  std::vector<model::SortOrder> orders = {
      S(Field({"id"})),
      S(Field({"info", "city"}), "desc", "nulls_last"),
      S(Func("bucket", {IntLit(16), Field({"id"})}), "asc", "nulls_last"),
      S(Func("truncate", {IntLit(4), Field({"name"})}), "desc", "nulls_first"),
      S(Func("year", {Field({"ts"})})),
      S(Func("month", {Field({"ts"})})),
      S(Func("day", {Field({"d"})})),
      S(Func("hour", {Field({"ts"})})),
  };
  auto order = ToSortOrder(orders, TestSchema(), 1);
  ASSERT_TRUE(order.has_value()) << order.error().message;
  EXPECT_EQ(
      order->dump(),
      R"({"order-id":1,"fields":[)"
      R"({"transform":"identity","source-id":1,"direction":"asc","null-order":"nulls-first"},)"
      R"({"transform":"identity","source-id":7,"direction":"desc","null-order":"nulls-last"},)"
      R"({"transform":"bucket[16]","source-id":1,"direction":"asc","null-order":"nulls-last"},)"
      R"({"transform":"truncate[4]","source-id":3,"direction":"desc","null-order":"nulls-first"},)"
      R"({"transform":"year","source-id":2,"direction":"asc","null-order":"nulls-first"},)"
      R"({"transform":"month","source-id":2,"direction":"asc","null-order":"nulls-first"},)"
      R"({"transform":"day","source-id":4,"direction":"asc","null-order":"nulls-first"},)"
      R"({"transform":"hour","source-id":2,"direction":"asc","null-order":"nulls-first"}]})");
  auto back = FromSortOrder(*order, TestSchema());
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, orders);
}

TEST(SortOrderTest, EmptyIsUnsorted) {
  auto order = ToSortOrder({}, TestSchema(), 1);
  ASSERT_TRUE(order.has_value());
  EXPECT_EQ(order->dump(), R"({"order-id":0,"fields":[]})");
  auto back = FromSortOrder(*order, TestSchema());
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->empty());
}

TEST(SortOrderTest, Errors) {
  auto bad = [](model::SortOrder s) {
    auto r = ToSortOrder({std::move(s)}, TestSchema(), 1);
    return !r.has_value() && r.error().code == ErrorCode::kInvalidArgument;
  };
  EXPECT_TRUE(bad(S(Field({"missing"}))));
  EXPECT_TRUE(bad(S(Func("bucket", {Field({"id"})}))));
  EXPECT_TRUE(bad(S(Func("bucket", {Field({"id"}), IntLit(3)}))));
  EXPECT_TRUE(bad(S(Func("truncate", {IntLit(3), IntLit(3)}))));
  EXPECT_TRUE(bad(S(Func("year", {Field({"ts"}), Field({"d"})}))));
  EXPECT_TRUE(bad(S(Func("hour", {Field({"d"})}))));
  EXPECT_TRUE(bad(S(Func("lower", {Field({"name"})}))));
  EXPECT_TRUE(bad(S(IntLit(1))));
  EXPECT_TRUE(bad(S(Field({"id"}), "up")));
  EXPECT_TRUE(bad(S(Field({"id"}), "asc", "nulls_middle")));
}

TEST(DistributionTest, Modes) {
  model::Distribution d;
  EXPECT_EQ(*DistributionMode(d, false, false), "none");
  d.strategy = "hash";
  EXPECT_EQ(*DistributionMode(d, true, false), "hash");
  d.number = 8;  // Iceberg keeps only the mode
  EXPECT_EQ(*DistributionMode(d, true, false), "hash");
  EXPECT_FALSE(DistributionMode(d, false, true).has_value());
  d.args = {Field({"id"})};
  EXPECT_FALSE(DistributionMode(d, true, false).has_value());
  d = {};
  d.strategy = "range";
  EXPECT_EQ(*DistributionMode(d, false, true), "range");
  EXPECT_FALSE(DistributionMode(d, false, false).has_value());
  d.strategy = "even";
  auto even = DistributionMode(d, true, true);
  ASSERT_FALSE(even.has_value());
  EXPECT_EQ(even.error().code, ErrorCode::kInvalidArgument);

  EXPECT_EQ(DistributionFromProperties({{kDistributionModeProperty, "hash"}}).strategy, "hash");
  EXPECT_EQ(DistributionFromProperties({{kDistributionModeProperty, "range"}}).strategy, "range");
  EXPECT_EQ(DistributionFromProperties({{kDistributionModeProperty, "none"}}).strategy, "none");
  EXPECT_EQ(DistributionFromProperties({}).strategy, "none");
}

}  // namespace
}  // namespace cairn::iceberg
