// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "api/gravitino/serde.h"
#include "matchers.h"

namespace cairn::api::gravitino {
namespace {

using cairn::testing::HasErrorMessage;
using cairn::testing::IsError;
using cairn::testing::IsOk;

Json J(const char* text) { return Json::parse(text); }

// ---- types: text in, same text out ----

class TypeRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(TypeRoundTrip, ParsesAndWritesTheSameJson) {
  const Json in = Json::parse(GetParam());
  auto t = TypeFromJson(in, "type");
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(Json::parse(TypeToJson(**t).dump()), in);
}

INSTANTIATE_TEST_SUITE_P(
    AllTypes, TypeRoundTrip,
    ::testing::Values(
        R"j("boolean")j", R"j("byte")j", R"j("byte unsigned")j", R"j("short")j",
        R"j("short unsigned")j", R"j("integer")j", R"j("integer unsigned")j", R"j("long")j",
        R"j("long unsigned")j", R"j("float")j", R"j("double")j", R"j("decimal(10,2)")j",
        R"j("decimal(38,0)")j", R"j("date")j", R"j("time")j", R"j("time(3)")j", R"j("timestamp")j",
        R"j("timestamp(6)")j", R"j("timestamp_tz")j", R"j("timestamp_tz(6)")j", R"j("string")j",
        R"j("char(10)")j", R"j("varchar(255)")j", R"j("fixed(16)")j", R"j("binary")j",
        R"j("uuid")j", R"j("interval_day")j", R"j("interval_year")j", R"j("null")j",
        R"j({"type":"struct","fields":[{"name":"a","type":"integer","nullable":false,"comment":"c"},{"name":"b","type":{"type":"list","containsNull":true,"elementType":"string"},"nullable":true}]})j",
        R"j({"type":"list","containsNull":false,"elementType":"long"})j",
        R"j({"type":"map","keyType":"string","valueType":{"type":"struct","fields":[{"name":"x","type":"double","nullable":true}]},"valueContainsNull":true})j",
        R"j({"type":"union","types":["integer","string"]})j",
        R"j({"type":"unparsed","unparsedType":"geometry"})j",
        R"j({"type":"external","catalogString":"xml"})j"));

TEST(TypeFromJson, IsCaseInsensitiveAndWritesLowerCase) {
  auto t = TypeFromJson(Json("DECIMAL(5,1)"), "type");
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(TypeToJson(**t), "decimal(5,1)");
}

TEST(TypeFromJson, UnknownStringBecomesUnparsed) {
  auto t = TypeFromJson(Json("geometry"), "type");
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ((*t)->kind, model::TypeKind::kUnparsed);
}

class BadType : public ::testing::TestWithParam<const char*> {};

TEST_P(BadType, IsInvalidArgumentNamingTheField) {
  auto t = TypeFromJson(Json::parse(GetParam()), "columns[0].type");
  EXPECT_THAT(t, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(t, HasErrorMessage("columns[0].type"));
}

INSTANTIATE_TEST_SUITE_P(Rows, BadType,
                         ::testing::Values(R"j("decimal(x,1)")j", R"j("decimal(39,1)")j",
                                           R"j("decimal(5,6)")j", R"j("varchar(0)")j",
                                           R"j("fixed(-1)")j", R"j(42)j", R"j({"type":"struct"})j",
                                           R"j({"type":"list"})j",
                                           R"j({"type":"map","keyType":"string"})j",
                                           R"j({"type":"union","types":[]})j",
                                           R"j({"type":"rowset"})j", R"j({"fields":[]})j"));

// ---- table create request ----

TEST(TableFromJson, ParsesWhatThePythonClientSends) {
  const Json body = J(R"j({"name":"t1",
   "columns":[{"name":"id","type":"integer","comment":"id col","nullable":false,"autoIncrement":true},
              {"name":"name","type":"varchar(255)","comment":"name col","nullable":true,"autoIncrement":false},
              {"name":"ts","type":"timestamp_tz(6)","comment":null,"nullable":true,"autoIncrement":false}],
   "comment":"tbl comment",
   "partitioning":[{"strategy":"identity","fieldName":["name"]},{"strategy":"bucket","numBuckets":4,"fieldNames":[["id"]]},{"strategy":"truncate","width":3,"fieldName":["name"]}],
   "distribution":{"strategy":"hash","number":4,"funcArgs":[{"type":"field","fieldName":["id"]}]},
   "sortOrders":[{"sortTerm":{"type":"field","fieldName":["id"]},"direction":"asc","nullOrdering":"nulls_first"}],
   "indexes":[{"indexType":"PRIMARY_KEY","name":"pk","fieldNames":[["id"]]}],
   "properties":{"p":"v"}})j");
  auto t = TableFromJson(body);
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->name, "t1");
  ASSERT_EQ(t->columns.size(), 3U);
  EXPECT_TRUE(t->columns[0].auto_increment);
  EXPECT_FALSE(t->columns[0].nullable);
  EXPECT_FALSE(t->columns[2].comment.has_value());
  EXPECT_EQ(t->partitioning.size(), 3U);
  EXPECT_EQ(t->partitioning[1].num_buckets, 4);
  EXPECT_EQ(t->distribution.strategy, "hash");
  EXPECT_EQ(t->indexes[0].index_type, "PRIMARY_KEY");

  // Written back, every part keeps its shape; audit is added.
  model::Table with_audit = *t;
  with_audit.audit.creator = "anonymous";
  OrderedJson out = TableToJson(with_audit);
  EXPECT_EQ(out["columns"][0]["type"], "integer");
  EXPECT_FALSE(out["columns"][2].contains("comment"));
  EXPECT_EQ(out["partitioning"][1]["fieldNames"][0][0], "id");
  EXPECT_EQ(out["sortOrders"][0]["nullOrdering"], "nulls_first");
  EXPECT_EQ(out["indexes"][0]["properties"], OrderedJson::object());
  EXPECT_EQ(out["audit"]["creator"], "anonymous");
  EXPECT_EQ(Json::parse(out["distribution"].dump()), body["distribution"]);
}

struct BadTable {
  const char* body;
  const char* field;
};

class BadTableRequest : public ::testing::TestWithParam<BadTable> {};

TEST_P(BadTableRequest, NamesTheField) {
  auto t = TableFromJson(Json::parse(GetParam().body));
  EXPECT_THAT(t, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(t, HasErrorMessage(GetParam().field));
}

INSTANTIATE_TEST_SUITE_P(
    Rows, BadTableRequest,
    ::testing::Values(
        BadTable{R"j({"columns":[{"name":"a","type":"integer"}]})j", "name"},
        BadTable{R"j({"name":5,"columns":[{"name":"a","type":"integer"}]})j", "name"},
        BadTable{R"j({"name":"t"})j", "columns"},
        BadTable{R"j({"name":"t","columns":[]})j", "columns"},
        BadTable{R"j({"name":"t","columns":"a"})j", "columns"},
        BadTable{R"j({"name":"t","columns":[{"name":"a"}]})j", "columns[0].type"},
        BadTable{R"j({"name":"t","columns":[{"name":"a","type":"integer","nullable":"yes"}]})j",
                 "columns[0].nullable"},
        BadTable{R"j({"name":"t","columns":[{"name":"a","type":"integer"}],"properties":{"k":1}})j",
                 "properties.k"},
        BadTable{
            R"j({"name":"t","columns":[{"name":"a","type":"integer"}],"partitioning":[{"strategy":"bucket","numBuckets":0,"fieldNames":[["a"]]}]})j",
            "partitioning[0].numBuckets"},
        BadTable{
            R"j({"name":"t","columns":[{"name":"a","type":"integer"}],"partitioning":[{"strategy":"zorder"}]})j",
            "partitioning[0].strategy"},
        BadTable{
            R"j({"name":"t","columns":[{"name":"a","type":"integer"}],"distribution":{"strategy":"spread"}})j",
            "distribution.strategy"},
        BadTable{
            R"j({"name":"t","columns":[{"name":"a","type":"integer"}],"sortOrders":[{"sortTerm":{"type":"field","fieldName":["a"]},"direction":"up"}]})j",
            "sortOrders[0].direction"},
        BadTable{
            R"j({"name":"t","columns":[{"name":"a","type":"integer"}],"indexes":[{"indexType":"HASH","fieldNames":[["a"]]}]})j",
            "indexes[0].indexType"}));

// ---- updates ----

TEST(TableUpdates, ParsesEveryType) {
  const Json body = J(R"j({"updates":[
    {"@type":"rename","newName":"t2","newSchemaName":"s2"},
    {"@type":"updateComment","newComment":"c"},
    {"@type":"setProperty","property":"k","value":"v"},
    {"@type":"removeProperty","property":"k"},
    {"@type":"addColumn","fieldName":["c"],"type":"long","comment":null,"position":{"after":"a"},"nullable":true,"autoIncrement":false},
    {"@type":"renameColumn","oldFieldName":["c"],"newFieldName":"d"},
    {"@type":"updateColumnDefaultValue","fieldName":["d"],"newDefaultValue":{"type":"literal","dataType":"long","value":"1"}},
    {"@type":"updateColumnType","fieldName":["d"],"newType":"long"},
    {"@type":"updateColumnComment","fieldName":["d"],"newComment":"x"},
    {"@type":"updateColumnPosition","fieldName":["d"],"newPosition":"first"},
    {"@type":"updateColumnNullability","fieldName":["d"],"nullable":true},
    {"@type":"deleteColumn","fieldName":["d"],"ifExists":true},
    {"@type":"updateColumnAutoIncrement","fieldName":["d"],"autoIncrement":true},
    {"@type":"addTableIndex","index":{"indexType":"unique_key","name":"u","fieldNames":[["a"]]}},
    {"@type":"deleteTableIndex","name":"u","ifExists":false}]})j");
  auto changes = TableUpdatesFromJson(body);
  ASSERT_THAT(changes, IsOk());
  ASSERT_EQ(changes->size(), 15U);
  using K = model::TableChange::Kind;
  EXPECT_EQ((*changes)[0].kind, K::kRename);
  EXPECT_EQ(*(*changes)[0].new_schema, "s2");
  EXPECT_EQ((*changes)[4].position.kind, model::ColumnPosition::Kind::kAfter);
  EXPECT_EQ((*changes)[4].position.after, "a");
  EXPECT_EQ((*changes)[9].position.kind, model::ColumnPosition::Kind::kFirst);
  EXPECT_TRUE((*changes)[11].if_exists);
  EXPECT_EQ((*changes)[13].index.index_type, "UNIQUE_KEY");
  EXPECT_EQ((*changes)[14].kind, K::kDeleteIndex);
}

TEST(TableUpdates, UnknownTypeIsRejectedWithItsName) {
  auto changes = TableUpdatesFromJson(J(R"j({"updates":[{"@type":"dropEverything"}]})j"));
  EXPECT_THAT(changes, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(changes, HasErrorMessage("dropEverything"));
}

TEST(TableUpdates, MissingTypeAndBadPositionAreRejected) {
  EXPECT_THAT(TableUpdatesFromJson(J(R"j({"updates":[{"newName":"x"}]})j")),
              HasErrorMessage("@type"));
  EXPECT_THAT(
      TableUpdatesFromJson(J(
          R"j({"updates":[{"@type":"updateColumnPosition","fieldName":["a"],"newPosition":"middle"}]})j")),
      HasErrorMessage("newPosition"));
  EXPECT_THAT(TableUpdatesFromJson(J(R"j({"updates":{}})j")), HasErrorMessage("updates"));
  EXPECT_THAT(TableUpdatesFromJson(J(R"j({})j")), HasErrorMessage("updates"));
}

TEST(EntityUpdates, SchemaAcceptsOnlyPropertyChanges) {
  EXPECT_THAT(EntityUpdatesFromJson(
                  J(R"j({"updates":[{"@type":"setProperty","property":"k","value":"v"}]})j"),
                  EntityKind::kSchema),
              IsOk());
  EXPECT_THAT(EntityUpdatesFromJson(J(R"j({"updates":[{"@type":"rename","newName":"x"}]})j"),
                                    EntityKind::kSchema),
              IsError(ErrorCode::kInvalidArgument));
  auto ml = EntityUpdatesFromJson(
      J(R"j({"updates":[{"@type":"rename","newName":"x"},{"@type":"updateComment","newComment":"c"},{"@type":"removeProperty","property":"k"}]})j"),
      EntityKind::kMetalake);
  ASSERT_THAT(ml, IsOk());
  EXPECT_EQ(ml->size(), 3U);
}

TEST(Filesets, CreateRequestKeepsABareLocationAsUnknown) {
  auto f = FilesetFromJson(J(R"({"name":"f","comment":null,"type":"EXTERNAL",
      "storageLocation":"/a","storageLocations":{"hot":"s3://b/h"},"properties":null})"));
  ASSERT_THAT(f, IsOk());
  EXPECT_EQ(f->type, model::FilesetType::kExternal);
  EXPECT_EQ(f->storage_locations.at("unknown"), "/a");
  EXPECT_EQ(f->storage_locations.at("hot"), "s3://b/h");
  auto managed = FilesetFromJson(J(R"({"name":"f"})"));
  ASSERT_THAT(managed, IsOk());
  EXPECT_EQ(managed->type, model::FilesetType::kManaged);
  EXPECT_THAT(FilesetFromJson(J(R"({"name":"f","type":"temp"})")), HasErrorMessage("'type'"));
  EXPECT_THAT(FilesetFromJson(J(R"({"type":"managed"})")), HasErrorMessage("'name'"));
  EXPECT_THAT(FilesetFromJson(J(R"({"name":"f","storageLocation":"/a",
      "storageLocations":{"unknown":"/b"}})")),
              IsError(ErrorCode::kInvalidArgument));
}

TEST(Filesets, DtoHasStorageLocationOnlyForTheUnknownName) {
  model::Fileset f;
  f.name = "f";
  f.storage_locations = {{"hot", "s3://b/h"}};
  f.properties = {{"default-location-name", "hot"}};
  const Json out = Json::parse(FilesetToJson(f).dump());
  EXPECT_EQ(out["type"], "managed");
  EXPECT_FALSE(out.contains("storageLocation"));
  EXPECT_FALSE(out.contains("comment"));
  EXPECT_EQ(out["storageLocations"]["hot"], "s3://b/h");
  f.storage_locations["unknown"] = "file:/x";
  EXPECT_EQ(Json::parse(FilesetToJson(f).dump())["storageLocation"], "file:/x");
}

TEST(EntityUpdates, FilesetsAcceptRemoveComment) {
  auto changes = EntityUpdatesFromJson(
      J(R"({"updates":[{"@type":"removeComment"},{"@type":"updateComment","newComment":null}]})"),
      EntityKind::kFileset);
  ASSERT_THAT(changes, IsOk());
  ASSERT_EQ(changes->size(), 2u);
  EXPECT_EQ((*changes)[0].kind, model::EntityChange::Kind::kUpdateComment);
  EXPECT_FALSE((*changes)[0].comment.has_value());
  EXPECT_THAT(
      EntityUpdatesFromJson(J(R"({"updates":[{"@type":"removeComment"}]})"), EntityKind::kCatalog),
      IsError(ErrorCode::kInvalidArgument));
}

TEST(ParseBody, RejectsMalformedJsonAndNonObjects) {
  EXPECT_THAT(ParseBody("{"), HasErrorMessage("Malformed json request"));
  EXPECT_THAT(ParseBody("[1]"), HasErrorMessage("Malformed json request"));
  EXPECT_THAT(ParseBody(""), HasErrorMessage("Malformed json request"));
  EXPECT_THAT(ParseBody(R"j({"a":1})j"), IsOk());
}

TEST(CatalogToJson, HidesSecretsAndAddsInUse) {
  model::Catalog c;
  c.name = "pg";
  c.provider = "jdbc-postgresql";
  c.properties = {{"jdbc-url", "jdbc:postgresql://h/db"},
                  {"jdbc-user", "u"},
                  {"jdbc-password", "p"},
                  {"jdbc.pool.test-on-borrow", "true"},
                  {"jdbc.pool.max-size", "5"}};
  c.in_use = false;
  OrderedJson j = CatalogToJson(c);
  EXPECT_EQ(j["type"], "relational");
  EXPECT_FALSE(j["properties"].contains("jdbc-password"));
  EXPECT_FALSE(j["properties"].contains("jdbc-user"));
  EXPECT_FALSE(j["properties"].contains("jdbc.pool.test-on-borrow"));
  EXPECT_EQ(j["properties"]["jdbc.pool.max-size"], "5");
  EXPECT_EQ(j["properties"]["in-use"], "false");
  EXPECT_EQ(j["properties"]["jdbc-url"], "jdbc:postgresql://h/db");
}

}  // namespace
}  // namespace cairn::api::gravitino
