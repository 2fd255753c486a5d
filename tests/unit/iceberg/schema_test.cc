// SPDX-License-Identifier: Apache-2.0
#include "iceberg/schema.h"

#include <gtest/gtest.h>

namespace cairn::iceberg {
namespace {

using model::TypeKind;
using model::TypePtr;

model::Column Col(std::string name, TypePtr type, bool nullable = true,
                  std::optional<std::string> comment = std::nullopt) {
  model::Column c;
  c.name = std::move(name);
  c.type = std::move(type);
  c.nullable = nullable;
  c.comment = std::move(comment);
  return c;
}

TypePtr P(const std::string& text) { return model::ParsePrimitiveType(text); }

struct MappingRow {
  std::string model_type;    // as Gravitino writes it
  std::string iceberg_type;  // Iceberg JSON type text
  std::string back;          // the model type read back
};

class TypeMappingTest : public ::testing::TestWithParam<MappingRow> {};

TEST_P(TypeMappingTest, BothWays) {
  const auto& row = GetParam();
  TypePtr type = P(row.model_type);
  ASSERT_NE(type, nullptr);
  int last = 0;
  auto to = ToIcebergType(type, "c", &last);
  ASSERT_TRUE(to.has_value()) << to.error().message;
  EXPECT_EQ(*to, Json(row.iceberg_type));
  auto from = FromIcebergType(Json(row.iceberg_type));
  ASSERT_TRUE(from.has_value()) << from.error().message;
  EXPECT_EQ(model::PrimitiveTypeString(**from), row.back);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, TypeMappingTest,
    ::testing::Values(MappingRow{"boolean", "boolean", "boolean"},
                      MappingRow{"integer", "int", "integer"}, MappingRow{"long", "long", "long"},
                      MappingRow{"float", "float", "float"},
                      MappingRow{"double", "double", "double"},
                      MappingRow{"decimal(10,2)", "decimal(10, 2)", "decimal(10,2)"},
                      MappingRow{"decimal(38,0)", "decimal(38, 0)", "decimal(38,0)"},
                      MappingRow{"date", "date", "date"}, MappingRow{"time", "time", "time(6)"},
                      MappingRow{"time(6)", "time", "time(6)"},
                      MappingRow{"timestamp", "timestamp", "timestamp(6)"},
                      MappingRow{"timestamp(6)", "timestamp", "timestamp(6)"},
                      MappingRow{"timestamp_tz", "timestamptz", "timestamp_tz(6)"},
                      MappingRow{"timestamp(9)", "timestamp_ns", "timestamp(9)"},
                      MappingRow{"timestamp_tz(9)", "timestamptz_ns", "timestamp_tz(9)"},
                      MappingRow{"string", "string", "string"}, MappingRow{"uuid", "uuid", "uuid"},
                      MappingRow{"fixed(16)", "fixed[16]", "fixed(16)"},
                      MappingRow{"binary", "binary", "binary"},
                      MappingRow{"null", "unknown", "null"}));

class UnsupportedTypeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(UnsupportedTypeTest, IsInvalidArgumentNamingTheColumn) {
  TypePtr type = P(GetParam());
  ASSERT_NE(type, nullptr);
  auto r = ToIcebergSchema({Col("bad_col", type)}, 0);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("bad_col"), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(Rows, UnsupportedTypeTest,
                         ::testing::Values("byte", "short", "byte unsigned", "short unsigned",
                                           "integer unsigned", "long unsigned", "char(10)",
                                           "varchar(10)", "interval_day", "interval_year",
                                           "time(3)", "timestamp(3)", "timestamp_tz(0)",
                                           "geometry_thing"));

TEST(UnsupportedTypeTest, MessageNamesTypeAndColumn) {
  auto r = ToIcebergSchema({Col("v", P("varchar(10)"))}, 0);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "Iceberg does not support type 'varchar(10)' of column 'v'");
}

TEST(UnsupportedTypeTest, UnionAndExternal) {
  auto u = std::make_shared<model::Type>();
  u->kind = TypeKind::kUnion;
  u->types = {P("integer"), P("string")};
  auto r = ToIcebergSchema({Col("u", u)}, 0);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "Iceberg does not support type 'union' of column 'u'");

  auto e = std::make_shared<model::Type>();
  e->kind = TypeKind::kExternal;
  e->raw = "point";
  auto r2 = ToIcebergSchema({Col("e", model::MakeList(e, true))}, 0);
  ASSERT_FALSE(r2.has_value());
  EXPECT_EQ(r2.error().message, "Iceberg does not support type 'point' of column 'e'");
}

TEST(ToIcebergSchemaTest, RejectsDefaultValueAndAutoIncrement) {
  model::Column c = Col("a", P("integer"));
  c.default_value = model::Expression{};
  auto r = ToIcebergSchema({c}, 0);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("default value"), std::string::npos);
  EXPECT_NE(r.error().message.find("a"), std::string::npos);

  model::Column d = Col("b", P("long"));
  d.auto_increment = true;
  auto r2 = ToIcebergSchema({d}, 0);
  ASSERT_FALSE(r2.has_value());
  EXPECT_EQ(r2.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r2.error().message.find("auto increment column: b"), std::string::npos);
}

TEST(ToIcebergSchemaTest, RejectsDuplicateColumns) {
  auto r = ToIcebergSchema({Col("a", P("integer")), Col("a", P("long"))}, 0);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
}

// The numbering Java's TypeUtil.assignFreshIds gives: each struct's own fields first, then the
// nested types in field order; a list's element id before its element type; a map's key and
// value ids before the key and value types.
std::vector<model::Column> NestedColumns() {
  return {
      Col("id", P("long"), false, "row id"),
      Col("data", P("string")),
      Col("location", model::MakeStruct({{"lat", P("double"), false, std::nullopt},
                                         {"long", P("double"), true, std::nullopt}})),
      Col("tags", model::MakeList(P("string"), false)),
      Col("props", model::MakeMap(P("string"),
                                  model::MakeStruct({{"a", P("integer"), true, std::nullopt},
                                                     {"b", model::MakeList(P("integer"), true),
                                                      true, std::nullopt}}),
                                  true)),
      Col("points", model::MakeList(model::MakeStruct({{"x", P("long"), false, std::nullopt},
                                                       {"y", P("long"), false, "y axis"}}),
                                    true)),
  };
}

constexpr const char* kNestedSchema = R"({"type":"struct","schema-id":0,"fields":[
{"id":1,"name":"id","required":true,"type":"long","doc":"row id"},
{"id":2,"name":"data","required":false,"type":"string"},
{"id":3,"name":"location","required":false,"type":{"type":"struct","fields":[
  {"id":7,"name":"lat","required":true,"type":"double"},
  {"id":8,"name":"long","required":false,"type":"double"}]}},
{"id":4,"name":"tags","required":false,"type":{"type":"list","element-id":9,"element":"string","element-required":true}},
{"id":5,"name":"props","required":false,"type":{"type":"map","key-id":10,"key":"string","value-id":11,"value":{"type":"struct","fields":[
  {"id":12,"name":"a","required":false,"type":"int"},
  {"id":13,"name":"b","required":false,"type":{"type":"list","element-id":14,"element":"int","element-required":false}}]},"value-required":false}},
{"id":6,"name":"points","required":false,"type":{"type":"list","element-id":15,"element":{"type":"struct","fields":[
  {"id":16,"name":"x","required":true,"type":"long"},
  {"id":17,"name":"y","required":true,"type":"long","doc":"y axis"}]},"element-required":false}}]})";

TEST(ToIcebergSchemaTest, NestedIdsMatchJavaAssignFreshIds) {
  auto r = ToIcebergSchema(NestedColumns(), 0);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->schema.dump(), Json::parse(kNestedSchema).dump());
  EXPECT_EQ(r->last_column_id, 17);
}

TEST(FromIcebergSchemaTest, RoundTripsNestedColumns) {
  auto cols = FromIcebergSchema(Json::parse(kNestedSchema));
  ASSERT_TRUE(cols.has_value()) << cols.error().message;
  ASSERT_EQ(cols->size(), 6U);
  EXPECT_EQ(*cols, NestedColumns());
}

TEST(FromIcebergSchemaTest, UnknownTypesBecomeExternal) {
  auto t = FromIcebergType(Json("variant"));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ((*t)->kind, TypeKind::kExternal);
  EXPECT_EQ((*t)->raw, "variant");
  EXPECT_FALSE(FromIcebergSchema(Json::parse(R"({"type":"struct"})")).has_value());
  EXPECT_FALSE(FromIcebergType(Json(3)).has_value());
}

TEST(FieldLookupTest, ByPathAndById) {
  const Json schema = Json::parse(kNestedSchema);
  const Json* lat = FindField(schema, {"location", "lat"});
  ASSERT_NE(lat, nullptr);
  EXPECT_EQ((*lat)["id"], 7);
  const Json* x = FindField(schema, {"points", "element", "x"});
  ASSERT_NE(x, nullptr);
  EXPECT_EQ((*x)["id"], 16);
  EXPECT_NE(FindField(schema, {"props", "value", "a"}), nullptr);
  EXPECT_EQ(FindStructField(schema, {"points", "element", "x"}), nullptr);
  EXPECT_EQ(FindField(schema, {"location", "missing"}), nullptr);
  EXPECT_EQ(FindField(schema, {"Location", "lat"}), nullptr);
  EXPECT_EQ(FindField(schema, {}), nullptr);

  EXPECT_EQ(FindFieldPath(schema, 17), (model::FieldName{"points", "element", "y"}));
  EXPECT_EQ(FindFieldPath(schema, 10), (model::FieldName{"props", "key"}));
  EXPECT_EQ(FindFieldPath(schema, 3), (model::FieldName{"location"}));
  EXPECT_FALSE(FindFieldPath(schema, 99).has_value());
  ASSERT_NE(FindTypeById(schema, 14), nullptr);
  EXPECT_EQ(*FindTypeById(schema, 14), Json("int"));
  EXPECT_EQ(MaxFieldId(schema), 17);
  EXPECT_EQ(JoinFieldName({"a", "b"}), "a.b");
}

TEST(ToIcebergSchemaTest, IdentifierFields) {
  auto r = ToIcebergSchema(NestedColumns(), 3, {"id"});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->schema["schema-id"], 3);
  EXPECT_EQ(r->schema["identifier-field-ids"], Json::parse("[1]"));
  // Java writes identifier-field-ids between schema-id and fields.
  EXPECT_EQ(r->schema.dump().find(R"({"type":"struct","schema-id":3,"identifier-field-ids":[1],)"),
            0U);

  auto optional = ToIcebergSchema(NestedColumns(), 0, {"data"});
  ASSERT_FALSE(optional.has_value());
  EXPECT_EQ(optional.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(ToIcebergSchema(NestedColumns(), 0, {"location"}).has_value());
  EXPECT_FALSE(ToIcebergSchema(NestedColumns(), 0, {"nope"}).has_value());
  EXPECT_TRUE(ToIcebergSchema(NestedColumns(), 0, {"location.lat"}).has_value());
}

TEST(PromotionTest, OnlyIcebergsLegalPromotions) {
  EXPECT_TRUE(IsPromotionAllowed(Json("int"), Json("long")));
  EXPECT_TRUE(IsPromotionAllowed(Json("float"), Json("double")));
  EXPECT_TRUE(IsPromotionAllowed(Json("decimal(10, 2)"), Json("decimal(12, 2)")));
  EXPECT_TRUE(IsPromotionAllowed(Json("string"), Json("string")));
  EXPECT_FALSE(IsPromotionAllowed(Json("long"), Json("int")));
  EXPECT_FALSE(IsPromotionAllowed(Json("double"), Json("float")));
  EXPECT_FALSE(IsPromotionAllowed(Json("decimal(10, 2)"), Json("decimal(12, 3)")));
  EXPECT_FALSE(IsPromotionAllowed(Json("decimal(10, 2)"), Json("decimal(9, 2)")));
  EXPECT_FALSE(IsPromotionAllowed(Json("int"), Json("string")));
}

TEST(FormatVersionTest, V3OnlyTypes) {
  EXPECT_EQ(MinFormatVersion(Json("timestamp_ns")), 3);
  EXPECT_EQ(MinFormatVersion(Json("unknown")), 3);
  EXPECT_EQ(MinFormatVersion(Json::parse(kNestedSchema)), 1);
}

}  // namespace
}  // namespace cairn::iceberg
