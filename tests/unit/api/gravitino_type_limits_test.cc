// SPDX-License-Identifier: Apache-2.0
// Nesting limits of Gravitino's type JSON and of request bodies.
#include <string>

#include <gtest/gtest.h>

#include "api/gravitino/serde.h"
#include "json/json_util.h"
#include "matchers.h"
#include "model/types.h"

namespace cairn::api::gravitino {
namespace {

using cairn::testing::HasErrorMessage;
using cairn::testing::IsError;
using cairn::testing::IsOk;

// `depth` lists around an integer, built from the inside out (no recursion, any depth).
Json NestedLists(int depth) {
  Json type = "integer";
  for (int i = 0; i < depth; ++i) {
    Json list = Json::object();
    list["type"] = "list";
    list["containsNull"] = true;
    list["elementType"] = std::move(type);
    type = std::move(list);
  }
  return type;
}

std::string NestedListsText(int depth) {
  std::string out;
  for (int i = 0; i < depth; ++i) out += R"({"type":"list","containsNull":true,"elementType":)";
  out += R"("integer")";
  out += std::string(static_cast<size_t>(depth), '}');
  return out;
}

TEST(TypeNesting, AFiftyThousandDeepBodyIsRefusedWithTheLimit) {
  const std::string body = R"({"name":"t","columns":[{"name":"c","type":)" +
                           NestedListsText(50'000) + R"(,"nullable":true}]})";
  auto parsed = ParseBody(body);
  EXPECT_THAT(parsed, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(parsed, HasErrorMessage("JSON nesting deeper than 512 levels"));
}

TEST(TypeNesting, AFiftyThousandDeepTypeIsRefusedNamingTheField) {
  auto t = TypeFromJson(NestedLists(50'000), "columns[3].type");
  EXPECT_THAT(t, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(t, HasErrorMessage("Field 'columns[3].type' nests struct, list, map and union "
                                 "types deeper than 100 levels"));
}

TEST(TypeNesting, TheLimitRoundTripsAndOneMoreIsRefused) {
  auto body = ParseBody(R"({"type":)" + NestedListsText(model::kMaxTypeDepth) + "}");
  ASSERT_THAT(body, IsOk());
  auto t = TypeFromJson((*body)["type"], "type");
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(model::TypeDepth(*t), model::kMaxTypeDepth);
  EXPECT_EQ(Json::parse(TypeToJson(**t).dump()), (*body)["type"]);
  EXPECT_THAT(TypeFromJson(NestedLists(model::kMaxTypeDepth + 1), "type"),
              HasErrorMessage("deeper than 100 levels"));
}

TEST(TypeNesting, StructsMapsAndUnionsCountAsLevels) {
  Json type = "integer";
  for (int i = 0; i < 34; ++i) {  // 102 levels
    Json s =
        Json::object({{"type", "STRUCT"},
                      {"fields", Json::array({Json::object({{"name", "a"}, {"type", type}})})}});
    Json u = Json::object({{"type", "union"}, {"types", Json::array({"string", std::move(s)})}});
    type = Json::object({{"type", "map"}, {"keyType", "string"}, {"valueType", std::move(u)}});
  }
  EXPECT_THAT(TypeFromJson(type, "t"), HasErrorMessage("deeper than 100 levels"));
  EXPECT_THAT(TypeFromJson(type["valueType"]["types"][1], "t"), IsOk());  // 101 - 1
}

TEST(TypeNesting, ErrorsDeepInsideNameTheWholePath) {
  Json type = NestedLists(3);
  type["elementType"]["elementType"]["elementType"] = "decimal(99999999999999999999,1)";
  EXPECT_THAT(TypeFromJson(type, "columns[0].type"),
              HasErrorMessage("Field 'columns[0].type.elementType.elementType.elementType' has "
                              "an invalid type 'decimal(99999999999999999999,1)'"));
  Json s = Json::parse(R"j({"type":"struct","fields":[{"name":"a","type":"integer"},
      {"name":"b","type":{"type":"map","keyType":"string","valueType":"varchar(0)"}}]})j");
  EXPECT_THAT(TypeFromJson(s, "columns[1].type"),
              HasErrorMessage("Field 'columns[1].type.fields[1].type.valueType' has an invalid "
                              "type 'varchar(0)'"));
  Json u = Json::parse(R"({"type":"union","types":["integer",{"type":"list"}]})");
  EXPECT_THAT(TypeFromJson(u, "t"), HasErrorMessage("Field 't.types[1].elementType' is required"));
}

TEST(TypeNesting, InvalidTypeStringsAreRefusedNamingTheField) {
  for (const char* type : {"decimal(99999999999999999999,1)", "decimal(39,2)", "decimal(5,6)",
                           "fixed(-1)", "fixed(0)", "varchar(0)", "char(0)"}) {
    auto column = ColumnFromJson(Json::object({{"name", "c"}, {"type", type}}), "columns[2]");
    EXPECT_THAT(column, IsError(ErrorCode::kInvalidArgument)) << type;
    EXPECT_THAT(column, HasErrorMessage("columns[2].type")) << type;
  }
}

TEST(TypeNesting, ExpressionsAreBoundedByTheBody) {
  // Functions nest inside functions with no type in between: the JSON limit bounds them.
  std::string body = R"({"e":)";
  for (int i = 0; i < 20'000; ++i) body += R"({"type":"function","funcName":"f","funcArgs":[)";
  body += R"({"type":"field","fieldName":["a"]})";
  for (int i = 0; i < 20'000; ++i) body += "]}";
  body += "}";
  EXPECT_THAT(ParseBody(body), HasErrorMessage("JSON nesting deeper than 512 levels"));
}

}  // namespace
}  // namespace cairn::api::gravitino
