// SPDX-License-Identifier: Apache-2.0
// The hive provider's mappings: Hive type strings both ways, metastore tables to the object model
// and back, alters applied to a metastore table, partition names, metastore URIs.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hms/hive_metastore_types.h>

#include "connector/hive/hive_connector.h"
#include "connector/hive/hive_types.h"
#include "connector/hive/hms_client.h"
#include "matchers.h"
#include "model/types.h"

namespace cairn::connector::hive {
namespace {

using cairn::testing::HasErrorMessage;
using cairn::testing::IsOk;
using model::TypeKind;

std::string RoundTrip(const std::string& text) {
  auto back = ToHiveType(FromHiveType(text), "c");
  return back ? *back : "error: " + back.error().message;
}

TEST(HiveTypes, PrimitivesMapBothWays) {
  EXPECT_EQ(FromHiveType("BIGINT")->kind, TypeKind::kLong);
  EXPECT_EQ(FromHiveType("integer")->kind, TypeKind::kInteger);
  EXPECT_EQ(FromHiveType("double precision")->kind, TypeKind::kDouble);
  EXPECT_EQ(FromHiveType("interval_day_time")->kind, TypeKind::kIntervalDay);
  auto dec = FromHiveType("decimal");
  EXPECT_EQ(dec->kind, TypeKind::kDecimal);
  EXPECT_EQ(dec->precision, 10);
  EXPECT_EQ(dec->scale, 0);
  for (const char* t : {"boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
                        "decimal(38,10)", "string", "char(3)", "varchar(65535)", "date",
                        "timestamp", "binary", "interval_year_month", "interval_day_time"}) {
    EXPECT_EQ(RoundTrip(t), t);
  }
}

TEST(HiveTypes, NestedTypesMapBothWays) {
  for (const char* t : {"array<string>", "map<string,array<int>>",
                        "struct<a:int,b:map<string,decimal(5,1)>>", "uniontype<int,string>",
                        "array<struct<`odd name`:int>>"}) {
    EXPECT_EQ(RoundTrip(t), t);
  }
  auto s = FromHiveType("struct< a : int , b:string comment 'the b' >");
  ASSERT_EQ(s->kind, TypeKind::kStruct);
  ASSERT_EQ(s->fields.size(), 2u);
  EXPECT_EQ(s->fields[1].name, "b");
  EXPECT_EQ(s->fields[1].comment, "the b");
  // Hive cannot keep a struct field's comment (HIVE-26593): refused, never dropped silently.
  EXPECT_THAT(ToHiveType(s, "col"), HasErrorMessage("comments of struct fields"));
}

TEST(HiveTypes, UnknownTextIsAnExternalTypeKeptVerbatim) {
  for (const char* t : {"timestamp with local time zone", "geometry", "decimal(x)",
                        "array<int", "varchar", "struct<a int>"}) {
    auto type = FromHiveType(t);
    EXPECT_EQ(type->kind, TypeKind::kExternal) << t;
    EXPECT_EQ(type->raw, t);
    EXPECT_EQ(RoundTrip(t), t);
  }
}

TEST(HiveTypes, DeepNestingStopsAtTheLimit) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "array<";
  deep += "int";
  for (int i = 0; i < 100000; ++i) deep += ">";
  EXPECT_EQ(FromHiveType(deep)->kind, TypeKind::kExternal);
}

TEST(HiveTypes, TypesHiveLacksAreRefusedNamingTheColumn) {
  EXPECT_THAT(ToHiveType(model::MakePrimitive(TypeKind::kUuid), "u"), HasErrorMessage("'u'"));
  EXPECT_THAT(ToHiveType(model::MakeWithPrecision(TypeKind::kTime, 3), "t"),
              HasErrorMessage("time"));
  EXPECT_THAT(ToHiveType(model::MakeWithPrecision(TypeKind::kTimestampTz, 6), "z"),
              HasErrorMessage("time zone"));
  EXPECT_THAT(ToHiveType(model::MakeWithLength(TypeKind::kChar, 300), "c"),
              HasErrorMessage("255"));
}

model::Column Col(std::string name, model::TypePtr type) {
  model::Column c;
  c.name = std::move(name);
  c.type = std::move(type);
  return c;
}

model::Table Orders() {
  model::Table t;
  t.name = "orders";
  t.comment = "all orders";
  t.columns = {Col("id", model::MakePrimitive(TypeKind::kLong)),
               Col("name", model::MakePrimitive(TypeKind::kString)),
               Col("dt", model::MakePrimitive(TypeKind::kDate))};
  model::Transform tr;
  tr.strategy = "identity";
  tr.field_name = {"dt"};
  t.partitioning = {tr};
  t.properties = {{"format", "ORC"}, {"serde.parameter.orc.compress", "ZLIB"}, {"k", "v"}};
  return t;
}

TEST(HiveTables, CreateSplitsPartitionColumnsAndPicksTheFormat) {
  auto made = TableToHive("sales", Orders(), "alice", 5'000'000);
  ASSERT_THAT(made, IsOk());
  const hms::Table& h = *made;
  EXPECT_EQ(h.dbName, "sales");
  EXPECT_EQ(h.owner, "alice");
  EXPECT_EQ(h.createTime, 5000);
  ASSERT_EQ(h.sd.cols.size(), 2u);
  EXPECT_EQ(h.sd.cols[0].type, "bigint");
  ASSERT_EQ(h.partitionKeys.size(), 1u);
  EXPECT_EQ(h.partitionKeys[0].name, "dt");
  EXPECT_EQ(h.partitionKeys[0].type, "date");
  EXPECT_EQ(h.sd.inputFormat, "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat");
  EXPECT_EQ(h.sd.serdeInfo.serializationLib, "org.apache.hadoop.hive.ql.io.orc.OrcSerde");
  EXPECT_EQ(h.sd.serdeInfo.parameters.at("orc.compress"), "ZLIB");
  EXPECT_EQ(h.parameters.at("comment"), "all orders");
  EXPECT_EQ(h.parameters.at("k"), "v");
  EXPECT_EQ(h.parameters.count("format"), 0u);
  EXPECT_EQ(h.tableType, "MANAGED_TABLE");

  model::Table back = TableFromHive(h);
  EXPECT_EQ(back.name, "orders");
  EXPECT_EQ(back.comment, "all orders");
  ASSERT_EQ(back.columns.size(), 3u);
  EXPECT_EQ(back.columns[2].name, "dt");
  ASSERT_EQ(back.partitioning.size(), 1u);
  EXPECT_EQ(back.partitioning[0].field_name, model::FieldName{"dt"});
  EXPECT_EQ(back.properties.at("serde.parameter.orc.compress"), "ZLIB");
  EXPECT_EQ(back.properties.at("table-type"), "MANAGED_TABLE");
  EXPECT_EQ(back.properties.count("comment"), 0u);
}

TEST(HiveTables, ExternalTablesAreMarkedForTheMetastore) {
  auto t = Orders();
  t.properties["table-type"] = "external_table";
  t.properties["location"] = "s3a://bucket/orders";
  auto made = TableToHive("sales", t, "alice", 0);
  ASSERT_THAT(made, IsOk());
  EXPECT_EQ(made->tableType, "EXTERNAL_TABLE");
  EXPECT_EQ(made->parameters.at("EXTERNAL"), "TRUE");
  EXPECT_EQ(made->sd.location, "s3a://bucket/orders");
}

TEST(HiveTables, DefinitionsHiveCannotHoldAreRefused) {
  auto t = Orders();
  t.partitioning[0].field_name = {"id"};
  EXPECT_THAT(TableToHive("s", t, "a", 0), HasErrorMessage("come last"));
  t = Orders();
  t.partitioning[0].strategy = "day";
  EXPECT_THAT(TableToHive("s", t, "a", 0), HasErrorMessage("identity"));
  t = Orders();
  t.columns[1].nullable = false;
  EXPECT_THAT(TableToHive("s", t, "a", 0), HasErrorMessage("nullable"));
  t = Orders();
  t.columns[1].name = "ID";
  EXPECT_THAT(TableToHive("s", t, "a", 0), HasErrorMessage("twice"));
  t = Orders();
  t.properties["totalSize"] = "1";
  EXPECT_THAT(TableToHive("s", t, "a", 0), HasErrorMessage("reserved"));
  t = Orders();
  t.distribution.strategy = "hash";
  t.distribution.number = 0;
  EXPECT_THAT(TableToHive("s", t, "a", 0), HasErrorMessage("bucket count"));
}

TEST(HiveTables, AltersApplyInOrderOrNotAtAll) {
  auto made = TableToHive("sales", Orders(), "alice", 0);
  ASSERT_THAT(made, IsOk());
  hms::Table h = *made;
  using K = model::TableChange::Kind;
  model::TableChange add;
  add.kind = K::kAddColumn;
  add.field_name = {"qty"};
  add.type = model::MakePrimitive(TypeKind::kInteger);
  add.position.kind = model::ColumnPosition::Kind::kFirst;
  model::TableChange rename;
  rename.kind = K::kRenameColumn;
  rename.field_name = {"name"};
  rename.new_name = "label";
  model::TableChange prop;
  prop.kind = K::kSetProperty;
  prop.property = "serde.parameter.orc.compress";
  prop.value = "SNAPPY";
  ASSERT_THAT(ApplyTableChanges(h, {add, rename, prop}), IsOk());
  ASSERT_EQ(h.sd.cols.size(), 3u);
  EXPECT_EQ(h.sd.cols[0].name, "qty");
  EXPECT_EQ(h.sd.cols[2].name, "label");
  EXPECT_EQ(h.sd.serdeInfo.parameters.at("orc.compress"), "SNAPPY");

  // A refused change leaves the table untouched, the earlier changes of the request included.
  const hms::Table before = h;
  add.field_name = {"extra"};
  model::TableChange drop_key;
  drop_key.kind = K::kDeleteColumn;
  drop_key.field_name = {"dt"};
  EXPECT_THAT(ApplyTableChanges(h, {add, drop_key}), HasErrorMessage("partition column"));
  EXPECT_EQ(h, before);
  model::TableChange loc;
  loc.kind = K::kSetProperty;
  loc.property = "location";
  loc.value = "/elsewhere";
  EXPECT_THAT(ApplyTableChanges(h, {loc}), HasErrorMessage("cannot change"));
  EXPECT_EQ(h, before);
}

TEST(HiveTables, TablesOfOtherFormatsAreLeftOutOfListings) {
  auto table = [](std::string name, std::string key, std::string value) {
    hms::Table t;
    t.__set_tableName(std::move(name));
    t.__set_parameters({{std::move(key), std::move(value)}});
    return t;
  };
  const std::vector<hms::Table> objects = {
      table("plain", "k", "v"), table("ice", "table_type", "ICEBERG"),
      table("pai", "TABLE_TYPE", "paimon"), table("hu", "provider", "hudi")};
  EXPECT_THAT(HiveTableNames({"plain", "ice", "pai", "hu", "hu_ro", "hu_rt", "other"}, objects),
              ::testing::ElementsAre("plain", "other"));
}

TEST(HivePartitions, NamesAreEscapedAsHiveEscapesThem) {
  EXPECT_EQ(PartitionName({"dt", "Country"}, {"2024-01-01", "us"}), "dt=2024-01-01/country=us");
  EXPECT_EQ(PartitionName({"p"}, {"a/b=c:d%"}), "p=a%2Fb%3Dc%3Ad%25");
  EXPECT_EQ(PartitionName({"p"}, {""}), "p=__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(PartitionName({"p"}, {std::string("x\ny", 3)}), "p=x%0Ay");
}

TEST(HiveUris, MetastoreUrisAreParsed) {
  auto uris = ParseMetastoreUris(" thrift://a:9083, thrift://[::1]:1 ,thrift://b ");
  ASSERT_THAT(uris, IsOk());
  ASSERT_EQ(uris->size(), 3u);
  EXPECT_EQ((*uris)[0].host, "a");
  EXPECT_EQ((*uris)[1].host, "::1");
  EXPECT_EQ((*uris)[1].port, 1);
  EXPECT_EQ((*uris)[2].port, 9083);
  EXPECT_THAT(ParseMetastoreUris(""), HasErrorMessage("metastore.uris"));
  EXPECT_THAT(ParseMetastoreUris("http://a:1"), HasErrorMessage("thrift://"));
  EXPECT_THAT(ParseMetastoreUris("thrift://a:0"), HasErrorMessage("port"));
  EXPECT_THAT(ParseMetastoreUris("thrift://u@a:1"), HasErrorMessage("host"));
  EXPECT_THAT(ParseMetastoreUris("thrift://a:1/db"), HasErrorMessage("path"));
}

}  // namespace
}  // namespace cairn::connector::hive
