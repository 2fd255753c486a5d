// SPDX-License-Identifier: Apache-2.0
// Iceberg types as the spec defines them, and the nesting limits, through every way a schema
// comes in: a REST create-table body, an add-schema update, a view, a Gravitino create or alter.
#include <string>

#include <gtest/gtest.h>

#include "iceberg/commit.h"
#include "iceberg/schema.h"
#include "iceberg/table_metadata.h"
#include "iceberg/view_metadata.h"
#include "json/json_util.h"
#include "matchers.h"
#include "model/types.h"

namespace cairn::iceberg {
namespace {

using ::cairn::testing::HasErrorMessage;
using ::cairn::testing::IsError;
using ::cairn::testing::IsOk;

constexpr int64_t kNow = 1700000000000;

Json J(const char* text) { return Json::parse(text); }

// `depth` lists around an int, built from the inside out (no recursion, any depth).
Json NestedLists(int depth) {
  Json type = "int";
  for (int i = 0; i < depth; ++i) {
    Json list = Json::object();
    list["type"] = "list";
    list["element-id"] = i + 2;
    list["element"] = std::move(type);
    list["element-required"] = false;
    type = std::move(list);
  }
  return type;
}

// The same shape as text, as a client would send it.
std::string NestedListsText(int depth) {
  std::string prefix;
  std::string suffix;
  for (int i = 0; i < depth; ++i) {
    prefix += R"({"type":"list","element-id":)" + std::to_string(i + 2) + R"(,"element":)";
    suffix += R"(,"element-required":false})";
  }
  return prefix + R"("int")" + suffix;
}

Json CreateRequest(std::initializer_list<Json> column_types) {
  Json fields = Json::array();
  int id = 1000;
  for (const Json& t : column_types) {
    Json f = Json::object();
    f["id"] = id;
    f["name"] = "c" + std::to_string(id++);
    f["required"] = false;
    f["type"] = t;
    fields.push_back(std::move(f));
  }
  Json schema = Json::object();
  schema["type"] = "struct";
  schema["fields"] = std::move(fields);
  Json req = Json::object();
  req["name"] = "t";
  req["schema"] = std::move(schema);
  return req;
}

Result<Json> Create(const Json& request, int format_version = 2) {
  Json req = request;
  req["properties"]["format-version"] = std::to_string(format_version);
  return NewTableMetadataFromRest(req, "file:///w/t", kNow);
}

// ---- primitive type strings ----

struct Canonical {
  const char* in;
  const char* out;
};

class ValidPrimitive : public ::testing::TestWithParam<Canonical> {};

TEST_P(ValidPrimitive, IsWrittenAsJavaWritesIt) {
  auto canonical = CanonicalPrimitiveType(GetParam().in);
  ASSERT_THAT(canonical, IsOk());
  EXPECT_EQ(*canonical, GetParam().out);
  // What is written reads back as itself.
  auto again = CanonicalPrimitiveType(*canonical);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*again, *canonical);
}

INSTANTIATE_TEST_SUITE_P(
    Spec, ValidPrimitive,
    ::testing::Values(
        Canonical{"boolean", "boolean"}, Canonical{"int", "int"}, Canonical{"long", "long"},
        Canonical{"float", "float"}, Canonical{"double", "double"}, Canonical{"date", "date"},
        Canonical{"time", "time"}, Canonical{"timestamp", "timestamp"},
        Canonical{"timestamptz", "timestamptz"}, Canonical{"timestamp_ns", "timestamp_ns"},
        Canonical{"timestamptz_ns", "timestamptz_ns"}, Canonical{"string", "string"},
        Canonical{"uuid", "uuid"}, Canonical{"binary", "binary"}, Canonical{"unknown", "unknown"},
        Canonical{"variant", "variant"}, Canonical{"LONG", "long"},
        Canonical{"decimal(10, 2)", "decimal(10, 2)"}, Canonical{"decimal(10,2)", "decimal(10, 2)"},
        Canonical{"Decimal( 38 , 38 )", "decimal(38, 38)"},
        Canonical{"decimal(1,0)", "decimal(1, 0)"}, Canonical{"fixed[16]", "fixed[16]"},
        Canonical{"FIXED[ 1 ]", "fixed[1]"}, Canonical{"fixed[2147483647]", "fixed[2147483647]"},
        Canonical{"geometry", "geometry"}, Canonical{"geometry(srid:4326)", "geometry(srid:4326)"},
        Canonical{"geography", "geography"},
        Canonical{"geography(OGC:CRS84, Karney)", "geography(OGC:CRS84, karney)"},
        Canonical{"geography(srid:4269)", "geography(srid:4269)"}));

class InvalidPrimitive : public ::testing::TestWithParam<const char*> {};

TEST_P(InvalidPrimitive, IsInvalidArgumentNamingTheText) {
  auto canonical = CanonicalPrimitiveType(GetParam());
  EXPECT_THAT(canonical, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(canonical, HasErrorMessage(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(
    Spec, InvalidPrimitive,
    ::testing::Values("blob", "", " int", "int ", "integer", "struct", "list", "decimal",
                      "decimal(99999999999999999999,1)", "decimal(39,1)", "decimal(0,0)",
                      "decimal(10,11)", "decimal(-1,0)", "decimal(10,-1)", "decimal(10)",
                      "decimal(1,2,3)", "decimal(a,b)", "decimal(10,2", "fixed[-1]", "fixed[0]",
                      "fixed[]", "fixed[2147483648]", "fixed[99999999999999999999]", "fixed(16)",
                      "fixed[1", "geometry()", "geometry(a,b)", "geography(crs, flat)",
                      "geography(a, karney, x)", "geometry(a(b))", "timestamp_tz"));

TEST(InvalidPrimitive, MessageSaysWhatIsWrong) {
  EXPECT_THAT(CanonicalPrimitiveType("blob"),
              HasErrorMessage("Cannot parse type string to primitive: blob"));
  EXPECT_THAT(CanonicalPrimitiveType("decimal(40,2)"),
              HasErrorMessage("the precision must be 1 to 38 and the scale 0 to the precision"));
  EXPECT_THAT(CanonicalPrimitiveType("fixed[0]"),
              HasErrorMessage("the length must be 1 to 2147483647"));
}

// ---- types in a REST create-table request ----

TEST(CreateTableTypes, EachInvalidTypeIsRefusedNamingItsField) {
  struct Row {
    Json type;
    const char* field;
  };
  const Row rows[] = {
      {"blob", "schema.fields[2].type"},
      {"decimal(99999999999999999999,1)", "schema.fields[2].type"},
      {"fixed[-1]", "schema.fields[2].type"},
      {J(R"({"type":"list","element-id":9,"element":"blob","element-required":false})"),
       "schema.fields[2].type.element"},
      {J(R"j({"type":"map","key-id":9,"key":"string","value-id":10,"value":"decimal(39,0)",
             "value-required":false})j"),
       "schema.fields[2].type.value"},
      {J(R"({"type":"struct","fields":[{"id":9,"name":"a","required":false,"type":"int"},
             {"id":10,"name":"b","required":false,"type":"fixed[0]"}]})"),
       "schema.fields[2].type.fields[1].type"},
  };
  for (const auto& row : rows) {
    auto md = Create(CreateRequest({"int", "string", row.type}));
    EXPECT_THAT(md, IsError(ErrorCode::kInvalidArgument)) << row.type.dump();
    EXPECT_THAT(md, HasErrorMessage(std::string("(at ") + row.field + ")")) << row.type.dump();
  }
}

TEST(CreateTableTypes, ValidTypesRoundTripInJavasForm) {
  auto md =
      Create(CreateRequest({"boolean", "INT", "long", "float", "double", "date", "time",
                            "timestamp", "timestamptz", "string", "uuid", "binary", "decimal(10,2)",
                            "fixed[16]", J(R"j({"type":"map","key-id":1,"key":"string","value-id":2,
                           "value":"DECIMAL(38, 0)","value-required":true})j")}));
  ASSERT_THAT(md, IsOk());
  const Json& fields = (*md)["schemas"][0]["fields"];
  std::vector<std::string> types;
  for (const auto& f : fields) {
    types.push_back(f["type"].is_string() ? f["type"].get<std::string>() : f["type"].dump());
  }
  EXPECT_EQ(types, (std::vector<std::string>{
                       "boolean", "int", "long", "float", "double", "date", "time", "timestamp",
                       "timestamptz", "string", "uuid", "binary", "decimal(10, 2)", "fixed[16]",
                       R"({"type":"map","key-id":16,"key":"string","value-id":17,)"
                       R"j("value":"decimal(38, 0)","value-required":true})j"}));
  // The file the server writes loads again, as Iceberg and as the Gravitino model.
  auto back = ParseMetadata(ToJsonText(*md));
  ASSERT_THAT(back, IsOk());
  EXPECT_THAT(TableFromMetadata(*back), IsOk());
  EXPECT_THAT(ApplyTableUpdates(&*back, Json::array(), kNow), IsOk());
}

TEST(CreateTableTypes, V3TypesNeedV3) {
  for (const char* type : {"variant", "unknown", "timestamp_ns", "geometry(srid:4326)",
                           "geography(srid:4326, spherical)"}) {
    EXPECT_THAT(Create(CreateRequest({type}), 2), HasErrorMessage("is not supported until v3"))
        << type;
    EXPECT_THAT(Create(CreateRequest({type}), 3), IsOk()) << type;
  }
}

// ---- nesting ----

TEST(CreateTableNesting, AFiftyThousandDeepTypeIsRefusedWithTheLimit) {
  // As a body: the JSON limit refuses it before anything is built.
  const std::string body = R"({"name":"t","schema":{"type":"struct","fields":[{"id":1,)"
                           R"("name":"c","required":false,"type":)" +
                           NestedListsText(50'000) + "}]}}";
  EXPECT_THAT(json::ParseJson(body), HasErrorMessage("JSON nesting deeper than 512 levels"));
  // As a document already in memory: the type limit refuses it, without recursing into it.
  auto md = Create(CreateRequest({"int", NestedLists(50'000)}));
  EXPECT_THAT(md, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(md, HasErrorMessage("Invalid type at schema.fields[1].type: struct, list and map "
                                  "types nest deeper than 100 levels"));
}

TEST(CreateTableNesting, TheLimitIsAcceptedAndOneMoreRefused) {
  auto at_limit_text = json::ParseOrderedJson(NestedListsText(model::kMaxTypeDepth));
  ASSERT_THAT(at_limit_text, IsOk());
  auto md = Create(CreateRequest({*at_limit_text}));
  ASSERT_THAT(md, IsOk());
  EXPECT_EQ((*md)["last-column-id"], model::kMaxTypeDepth + 1);
  // Ids assigned in Java's order: the column, then each element on the way down.
  const Json* t = &(*md)["schemas"][0]["fields"][0]["type"];
  for (int level = 0; level < model::kMaxTypeDepth; ++level) {
    ASSERT_EQ((*t)["element-id"], level + 2);
    t = &(*t)["element"];
  }
  EXPECT_EQ(*t, "int");
  // The written file loads again.
  auto back = ParseMetadata(ToJsonText(*md));
  ASSERT_THAT(back, IsOk());
  EXPECT_THAT(TableFromMetadata(*back), IsOk());

  EXPECT_THAT(Create(CreateRequest({NestedLists(model::kMaxTypeDepth + 1)})),
              HasErrorMessage("nest deeper than 100 levels"));
}

TEST(CreateTableNesting, StructsAndMapsCountAsLevels) {
  // map<string, struct<a: list<int>>> nested: 3 levels per round.
  Json type = "int";
  int id = 10;
  for (int i = 0; i < 34; ++i) {  // 102 levels
    Json list = J(R"({"type":"list","element-required":false})");
    list["element-id"] = id++;
    list["element"] = std::move(type);
    Json field = J(R"({"name":"a","required":false})");
    field["id"] = id++;
    field["type"] = std::move(list);
    Json strct = J(R"({"type":"struct"})");
    strct["fields"] = Json::array({std::move(field)});
    Json map = J(R"({"type":"map","key":"string","value-required":false})");
    map["key-id"] = id++;
    map["value-id"] = id++;
    map["value"] = std::move(strct);
    type = std::move(map);
  }
  EXPECT_THAT(Create(CreateRequest({type})), HasErrorMessage("nest deeper than 100 levels"));
  EXPECT_THAT(CheckTypeDepth(type["value"]["fields"][0]["type"], "x"), IsOk());  // 101
  EXPECT_THAT(CheckTypeDepth(type["value"]["fields"][0]["type"]["element"], "x"), IsOk());
}

TEST(CreateTableNesting, ADeepCreateCostsItsSize) {
  // A wide and deep schema (what made create quadratic: a copy of each subtree per level, and
  // a walk of the whole schema per identifier field) must come back right, quickly enough that
  // the suite does not notice; the timings are in docs/limits.md, not asserted here.
  Json fields = Json::array();
  Json ids = Json::array();
  for (int i = 0; i < 2000; ++i) {
    Json f = Json::object();
    f["id"] = i + 1;
    f["name"] = "c" + std::to_string(i);
    f["required"] = true;
    f["type"] = "long";
    fields.push_back(std::move(f));
    ids.push_back(i + 1);
  }
  Json deep = Json::object();
  deep["id"] = 5000;
  deep["name"] = "deep";
  deep["required"] = false;
  Json lists = NestedLists(model::kMaxTypeDepth);
  // Renumber the element ids away from the columns'.
  Json* t = &lists;
  for (int id = 6000; t->is_object(); ++id, t = &(*t)["element"]) (*t)["element-id"] = id;
  deep["type"] = std::move(lists);
  fields.push_back(std::move(deep));
  Json req = Json::object();
  req["name"] = "t";
  req["schema"] = Json::object({{"type", "struct"},
                                {"fields", std::move(fields)},
                                {"identifier-field-ids", std::move(ids)}});
  auto md = Create(req);
  ASSERT_THAT(md, IsOk());
  EXPECT_EQ((*md)["schemas"][0]["identifier-field-ids"].size(), 2000U);
  EXPECT_EQ((*md)["last-column-id"], 2001 + model::kMaxTypeDepth);
}

TEST(AddSchemaTypes, AreCheckedLikeCreate) {
  auto md = Create(CreateRequest({"int"}));
  ASSERT_THAT(md, IsOk());
  Json add = J(R"({"action":"add-schema","schema":{"type":"struct","fields":[
      {"id":1,"name":"a","required":false,"type":"int"},
      {"id":2,"name":"b","required":false,"type":"blob"}]}})");
  auto r = ApplyTableUpdates(&*md, Json::array({add}), kNow);
  EXPECT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(r, HasErrorMessage("Cannot parse type string to primitive: blob (at "
                                 "schema.fields[1].type)"));

  add["schema"]["fields"][1]["type"] = NestedLists(model::kMaxTypeDepth + 1);
  EXPECT_THAT(ApplyTableUpdates(&*md, Json::array({add}), kNow),
              HasErrorMessage("schema.fields[1].type: struct, list and map types nest deeper "
                              "than 100 levels"));

  add["schema"]["fields"][1]["type"] = "Decimal(9,3)";
  auto ok = ApplyTableUpdates(&*md, Json::array({add}), kNow);
  ASSERT_THAT(ok, IsOk());
  EXPECT_EQ((*ok)["schemas"][1]["fields"][1]["type"], "decimal(9, 3)");
}

TEST(ViewTypes, AreCheckedLikeTables) {
  Json req = J(R"({"name":"v","schema":{"type":"struct","schema-id":0,"fields":[
      {"id":1,"name":"a","required":false,"type":"fixed[-1]"}]},
      "view-version":{"version-id":1,"timestamp-ms":1,"schema-id":0,"summary":{},
        "representations":[{"type":"sql","sql":"select 1","dialect":"spark"}],
        "default-namespace":["db"]}})");
  EXPECT_THAT(NewViewMetadata(req, "file:///w/v", kNow),
              HasErrorMessage("Invalid fixed type fixed[-1]: the length must be 1 to 2147483647 "
                              "(at schema.fields[0].type)"));
}

// ---- what the server wrote before these checks still loads ----

TEST(StoredMetadata, DeeperThanTheTypeLimitStillLoads) {
  // A table made before the type limit, 150 lists deep: within the JSON limit, so it loads
  // and converts (its recursion is bounded by the JSON limit), and commits to it work.
  Json md = J(R"({"format-version":2,"table-uuid":"u","location":"file:///w/t",
      "last-sequence-number":0,"last-updated-ms":1,"last-column-id":151,"current-schema-id":0,
      "schemas":[{"type":"struct","schema-id":0,"fields":[]}],"default-spec-id":0,
      "partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
      "default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":{},
      "current-snapshot-id":-1,"refs":{},"snapshots":[],"statistics":[],
      "partition-statistics":[],"snapshot-log":[],"metadata-log":[]})");
  Json f = J(R"({"id":1,"name":"c","required":false})");
  f["type"] = NestedLists(150);
  md["schemas"][0]["fields"].push_back(std::move(f));
  auto back = ParseMetadata(ToJsonText(md));
  ASSERT_THAT(back, IsOk());
  auto table = TableFromMetadata(*back);
  ASSERT_THAT(table, IsOk());
  EXPECT_EQ(model::TypeDepth(table->columns[0].type, 1000), 150);
  EXPECT_THAT(ApplyTableUpdates(&*back, J(R"([{"action":"set-properties",
                                               "updates":{"k":"v"}}])"),
                                kNow),
              IsOk());
}

TEST(StoredMetadata, NonCanonicalTypesWrittenBeforeStillLoad) {
  Json md = J(R"j({"format-version":2,"table-uuid":"u","location":"file:///w/t",
      "last-sequence-number":0,"last-updated-ms":1,"last-column-id":2,"current-schema-id":0,
      "schemas":[{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"a","required":false,"type":"Decimal(10,2)"},
        {"id":2,"name":"b","required":false,"type":"blob"}]}],
      "default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
      "default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":{},
      "current-snapshot-id":-1,"refs":{},"snapshots":[]})j");
  auto back = ParseMetadata(ToJsonText(md));
  ASSERT_THAT(back, IsOk());
  EXPECT_THAT(TableFromMetadata(*back), IsOk());
  EXPECT_THAT(ApplyTableUpdates(&*back, J(R"([{"action":"set-properties",
                                               "updates":{"k":"v"}}])"),
                                kNow),
              IsOk());
}

// ---- the Gravitino side of the Iceberg connector ----

TEST(GravitinoAlter, AddingAColumnCannotDeepenPastTheLimit) {
  // A column 60 lists deep inside a struct; adding a 60-deep type under the struct is fine on
  // its own but puts the column past the limit.
  model::TypePtr inner = model::MakePrimitive(model::TypeKind::kInteger);
  for (int i = 0; i < 60; ++i) inner = model::MakeList(inner, true);
  model::TypePtr top = model::MakeStruct({model::StructField{"x", inner, true, std::nullopt}});
  for (int i = 0; i < 39; ++i) {
    top = model::MakeStruct({model::StructField{"s", top, true, std::nullopt}});
  }
  NewTableRequest request;
  request.location = "file:///w/t";
  request.columns.push_back(model::Column{});
  request.columns[0].name = "s";
  request.columns[0].type = top;  // depth 100
  request.now_ms = kNow;
  auto md = NewTableMetadata(request);
  ASSERT_THAT(md, IsOk());

  model::TableChange add;
  add.kind = model::TableChange::Kind::kAddColumn;
  add.field_name = {"s", "s", "y"};  // under two structs
  add.type = model::MakeList(model::MakePrimitive(model::TypeKind::kInteger), true);
  auto shallow = ApplyTableChanges(*md, {add}, kNow);
  EXPECT_THAT(shallow, IsOk());  // depth 3

  add.field_name.assign(40, "s");
  add.field_name.back() = "x";
  add.field_name.push_back("element");
  model::FieldName path = {"s"};
  for (int i = 0; i < 39; ++i) path.push_back("s");
  path.push_back("y");
  add.field_name = path;  // under 40 structs: 40 + the list's 61 > 100
  model::TypePtr deep = model::MakePrimitive(model::TypeKind::kInteger);
  for (int i = 0; i < 61; ++i) deep = model::MakeList(deep, true);
  add.type = deep;
  auto too_deep = ApplyTableChanges(*md, {add}, kNow);
  EXPECT_THAT(too_deep, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(too_deep, HasErrorMessage("nest deeper than 100 levels"));
}

TEST(GravitinoCreate, AModelTypeDeeperThanTheLimitIsRefusedByName) {
  model::TypePtr deep = model::MakePrimitive(model::TypeKind::kLong);
  for (int i = 0; i < 50'000; ++i) deep = model::MakeList(deep, true);
  model::Column c;
  c.name = "deep";
  c.type = deep;
  auto schema = ToIcebergSchema({c}, 0);
  EXPECT_THAT(schema, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(schema, HasErrorMessage("column 'deep'"));
}

}  // namespace
}  // namespace cairn::iceberg
