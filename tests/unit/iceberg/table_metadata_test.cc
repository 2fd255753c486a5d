// SPDX-License-Identifier: Apache-2.0
#include "iceberg/table_metadata.h"

#include <gtest/gtest.h>

#include "iceberg/partitioning.h"

namespace cairn::iceberg {
namespace {

using Kind = model::TableChange::Kind;

constexpr const char* kUuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
constexpr int64_t kNow = 1700000000000;

model::TypePtr P(const std::string& text) { return model::ParsePrimitiveType(text); }

model::Column Col(std::string name, model::TypePtr type, bool nullable = true,
                  std::optional<std::string> comment = std::nullopt) {
  model::Column c;
  c.name = std::move(name);
  c.type = std::move(type);
  c.nullable = nullable;
  c.comment = std::move(comment);
  return c;
}

model::Transform Day(model::FieldName f) {
  model::Transform t;
  t.strategy = "day";
  t.field_name = std::move(f);
  return t;
}

model::SortOrder SortBy(model::FieldName f) {
  model::SortOrder s;
  s.term.kind = model::Expression::Kind::kField;
  s.term.field_name = std::move(f);
  return s;
}

NewTableRequest GoldenRequest() {
  NewTableRequest r;
  r.location = "file:///tmp/wh/db/t";
  r.columns = {Col("id", P("long"), false), Col("data", P("string"), true, "the data"),
               Col("ts", P("timestamp_tz"))};
  model::Transform bucket;
  bucket.strategy = "bucket";
  bucket.field_names = {{"id"}};
  bucket.num_buckets = 16;
  r.partitioning = {Day({"ts"}), bucket};
  r.sort_orders = {SortBy({"id"})};
  r.properties = {{"owner", "x"}, {"format-version", "2"}, {"uuid", "ignored"}};
  r.table_uuid = kUuid;
  r.now_ms = kNow;
  return r;
}

// What Java's TableMetadataParser writes for the same table (properties sorted here; Java's
// HashMap order is unspecified).
constexpr const char* kGoldenV2 =
    R"({"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1",)"
    R"("location":"file:///tmp/wh/db/t","last-sequence-number":0,"last-updated-ms":1700000000000,)"
    R"("last-column-id":3,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[)"
    R"({"id":1,"name":"id","required":true,"type":"long"},)"
    R"({"id":2,"name":"data","required":false,"type":"string","doc":"the data"},)"
    R"({"id":3,"name":"ts","required":false,"type":"timestamptz"}]}],)"
    R"("default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[)"
    R"({"name":"ts_day","transform":"day","source-id":3,"field-id":1000},)"
    R"({"name":"id_bucket","transform":"bucket[16]","source-id":1,"field-id":1001}]}],)"
    R"("last-partition-id":1001,"default-sort-order-id":1,"sort-orders":[{"order-id":1,"fields":[)"
    R"({"transform":"identity","source-id":1,"direction":"asc","null-order":"nulls-first"}]}],)"
    R"("properties":{"owner":"x","write.parquet.compression-codec":"zstd"},)"
    R"("current-snapshot-id":-1,"refs":{},"snapshots":[],"statistics":[],)"
    R"("partition-statistics":[],"snapshot-log":[],"metadata-log":[]})";

TEST(NewTableMetadataTest, GoldenV2) {
  auto md = NewTableMetadata(GoldenRequest());
  ASSERT_TRUE(md.has_value()) << md.error().message;
  EXPECT_EQ(ToJsonText(*md), kGoldenV2);
}

TEST(NewTableMetadataTest, UnpartitionedUnsortedV1) {
  NewTableRequest r = GoldenRequest();
  r.partitioning.clear();
  r.sort_orders.clear();
  r.properties = {{"write.parquet.compression-codec", "snappy"}};
  r.format_version = 1;
  auto md = NewTableMetadata(r);
  ASSERT_TRUE(md.has_value()) << md.error().message;
  EXPECT_EQ((*md)["format-version"], 1);
  EXPECT_FALSE(md->contains("last-sequence-number"));
  EXPECT_EQ((*md)["schema"], (*md)["schemas"][0]);
  EXPECT_EQ((*md)["partition-spec"], Json::array());
  EXPECT_EQ((*md)["last-partition-id"], 999);
  EXPECT_EQ((*md)["default-sort-order-id"], 0);
  EXPECT_EQ((*md)["sort-orders"].dump(), R"([{"order-id":0,"fields":[]}])");
  EXPECT_EQ((*md)["properties"].dump(), R"({"write.parquet.compression-codec":"snappy"})");
  EXPECT_EQ((*md)["current-snapshot-id"], -1);
  // v1 field order: schema after last-column-id, partition-spec before default-spec-id.
  const std::string text = ToJsonText(*md);
  EXPECT_LT(text.find("\"last-column-id\""), text.find("\"schema\""));
  EXPECT_LT(text.find("\"schema\""), text.find("\"current-schema-id\""));
  EXPECT_LT(text.find("\"partition-spec\""), text.find("\"default-spec-id\""));
}

TEST(NewTableMetadataTest, V3AndVersionErrors) {
  NewTableRequest r = GoldenRequest();
  r.properties = {{"format-version", "3"}};
  auto md = NewTableMetadata(r);
  ASSERT_TRUE(md.has_value()) << md.error().message;
  EXPECT_EQ((*md)["format-version"], 3);
  EXPECT_TRUE((*md)["current-snapshot-id"].is_null());
  EXPECT_EQ((*md)["next-row-id"], 0);
  const std::string text = ToJsonText(*md);
  EXPECT_LT(text.find("\"current-snapshot-id\":null"), text.find("\"next-row-id\":0"));
  EXPECT_LT(text.find("\"next-row-id\""), text.find("\"refs\""));

  r.properties = {{"format-version", "4"}};
  EXPECT_EQ(NewTableMetadata(r).error().code, ErrorCode::kInvalidArgument);
  r.properties = {{"format-version", "two"}};
  EXPECT_EQ(NewTableMetadata(r).error().code, ErrorCode::kInvalidArgument);
  r.properties = {};
  r.format_version = 0;
  EXPECT_EQ(NewTableMetadata(r).error().code, ErrorCode::kInvalidArgument);

  // v3-only types need v3.
  r.format_version = 2;
  r.columns.push_back(Col("nanos", P("timestamp(9)")));
  auto v2 = NewTableMetadata(r);
  ASSERT_FALSE(v2.has_value());
  EXPECT_NE(v2.error().message.find("nanos"), std::string::npos);
  r.format_version = 3;
  EXPECT_TRUE(NewTableMetadata(r).has_value());
}

TEST(NewTableMetadataTest, GeneratesUuidAndPropagatesErrors) {
  NewTableRequest r = GoldenRequest();
  r.table_uuid.clear();
  auto md = NewTableMetadata(r);
  ASSERT_TRUE(md.has_value());
  EXPECT_EQ((*md)["table-uuid"].get<std::string>().size(), 36U);
  r.partitioning = {Day({"nope"})};
  EXPECT_EQ(NewTableMetadata(r).error().code, ErrorCode::kInvalidArgument);
}

TEST(MetadataFileTest, Naming) {
  EXPECT_EQ(MetadataFileName(1, "abc"), "00001-abc.metadata.json");
  EXPECT_EQ(MetadataFileName(123456, "abc"), "123456-abc.metadata.json");
  EXPECT_EQ(ParseMetadataFileVersion("s3://b/t/metadata/00012-abc-def.metadata.json"), 12);
  EXPECT_EQ(ParseMetadataFileVersion("00000-x.metadata.json"), 0);
  EXPECT_EQ(ParseMetadataFileVersion("/t/metadata/v3.metadata.json"), std::nullopt);
  EXPECT_EQ(ParseMetadataFileVersion("/t/metadata/abc-1.metadata.json"), std::nullopt);
  EXPECT_EQ(ParseMetadataFileVersion(""), std::nullopt);

  const std::string next =
      NextMetadataLocation("file:///wh/t/", "file:///wh/t/metadata/00007-u.metadata.json");
  EXPECT_EQ(next.rfind("file:///wh/t/metadata/00008-", 0), 0U) << next;
  EXPECT_EQ(next.size(), std::string("file:///wh/t/metadata/00008-").size() + 36 +
                             std::string(".metadata.json").size());
  EXPECT_EQ(NextMetadataLocation("/wh/t", "").rfind("/wh/t/metadata/00000-", 0), 0U);
}

// Base table for alters: 1 id long required (identifier), 2 data string, 3 ts timestamptz,
// 4 info struct {6 city string}, 5 cnt int; partitioned by day(ts), sorted by data.
Json AlterBase() {
  NewTableRequest r;
  r.location = "/wh/t";
  r.columns = {Col("id", P("long"), false), Col("data", P("string")), Col("ts", P("timestamp_tz")),
               Col("info", model::MakeStruct({{"city", P("string"), true, std::nullopt}})),
               Col("cnt", P("integer"))};
  r.identifier_field_names = {"id"};
  r.partitioning = {Day({"ts"})};
  r.sort_orders = {SortBy({"data"})};
  r.table_uuid = kUuid;
  r.now_ms = 1;
  return *NewTableMetadata(r);
}

model::TableChange Change(Kind kind, model::FieldName field = {}) {
  model::TableChange c;
  c.kind = kind;
  c.field_name = std::move(field);
  return c;
}
model::TableChange AddCol(model::FieldName field, model::TypePtr type,
                          model::ColumnPosition::Kind pos = model::ColumnPosition::Kind::kDefault,
                          std::string after = "") {
  model::TableChange c = Change(Kind::kAddColumn, std::move(field));
  c.type = std::move(type);
  c.position.kind = pos;
  c.position.after = std::move(after);
  return c;
}
model::TableChange Prop(Kind kind, std::string key, std::string value = "") {
  model::TableChange c = Change(kind);
  c.property = std::move(key);
  c.value = std::move(value);
  return c;
}

std::vector<std::string> FieldNames(const Json& md, model::FieldName parent = {}) {
  const Json* schema = CurrentSchema(md);
  const Json& type = parent.empty() ? *schema : (*FindField(*schema, parent))["type"];
  std::vector<std::string> out;
  for (const auto& f : type["fields"]) out.push_back(f["name"].get<std::string>());
  return out;
}

Json Apply(const Json& md, std::vector<model::TableChange> changes) {
  auto r = ApplyTableChanges(md, changes, 42);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  return r.has_value() ? *r : Json();
}

TEST(ApplyTableChangesTest, CommentAndProperties) {
  model::TableChange comment = Change(Kind::kUpdateComment);
  comment.comment = "hello";
  Json md = Apply(AlterBase(), {comment, Prop(Kind::kSetProperty, "k", "v"),
                                Prop(Kind::kSetProperty, "snapshot-count", "9"),
                                Prop(Kind::kRemoveProperty, "write.parquet.compression-codec"),
                                Prop(Kind::kRemoveProperty, "not-there")});
  EXPECT_EQ(md["properties"].dump(), R"({"comment":"hello","k":"v"})");
  EXPECT_EQ(md["last-updated-ms"], 42);
  EXPECT_EQ(md["schemas"].size(), 1U);  // no schema change, no new schema
  EXPECT_EQ(md["current-schema-id"], 0);
  EXPECT_EQ(*TableFromMetadata(md)->comment, "hello");
}

TEST(ApplyTableChangesTest, FormatVersionUpgrade) {
  Json md = Apply(AlterBase(), {Prop(Kind::kSetProperty, "format-version", "3")});
  EXPECT_EQ(md["format-version"], 3);
  EXPECT_EQ(md["next-row-id"], 0);
  EXPECT_TRUE(md["current-snapshot-id"].is_null());
  EXPECT_FALSE(md["properties"].contains("format-version"));
  auto down = ApplyTableChanges(md, {Prop(Kind::kSetProperty, "format-version", "2")}, 1);
  ASSERT_FALSE(down.has_value());
  EXPECT_EQ(down.error().message, "Cannot downgrade v3 table to v2");
}

TEST(ApplyTableChangesTest, AddColumns) {
  model::TableChange nested_struct =
      AddCol({"addr"},
             model::MakeStruct({{"zip", P("string"), true, std::nullopt},
                                {"geo", model::MakeList(P("double"), true), true, std::nullopt}}));
  nested_struct.comment = "address";
  Json md =
      Apply(AlterBase(), {AddCol({"first"}, P("string"), model::ColumnPosition::Kind::kFirst),
                          AddCol({"mid"}, P("date"), model::ColumnPosition::Kind::kAfter, "data"),
                          AddCol({"info", "zip"}, P("integer")), nested_struct});
  EXPECT_EQ(FieldNames(md),
            (std::vector<std::string>{"first", "id", "data", "mid", "ts", "info", "cnt", "addr"}));
  EXPECT_EQ(FieldNames(md, {"info"}), (std::vector<std::string>{"city", "zip"}));
  const Json* schema = CurrentSchema(md);
  EXPECT_EQ((*FindField(*schema, {"first"}))["id"], 7);
  EXPECT_EQ((*FindField(*schema, {"mid"}))["id"], 8);
  EXPECT_EQ((*FindField(*schema, {"info", "zip"}))["id"], 9);
  // SchemaUpdate: the column's id first, then fresh ids inside its type.
  EXPECT_EQ(FindField(*schema, {"addr"})->dump(),
            R"({"id":10,"name":"addr","required":false,"type":{"type":"struct","fields":[)"
            R"({"id":11,"name":"zip","required":false,"type":"string"},)"
            R"({"id":12,"name":"geo","required":false,"type":{"type":"list","element-id":13,)"
            R"("element":"double","element-required":false}}]},"doc":"address"})");
  EXPECT_EQ(md["last-column-id"], 13);
  EXPECT_EQ(md["current-schema-id"], 1);
  ASSERT_EQ(md["schemas"].size(), 2U);
  EXPECT_EQ(md["schemas"][1]["schema-id"], 1);
  EXPECT_EQ(md["schemas"][1]["identifier-field-ids"], Json::parse("[1]"));
}

TEST(ApplyTableChangesTest, ColumnUpdates) {
  model::TableChange rename = Change(Kind::kRenameColumn, {"info", "city"});
  rename.new_name = "town";
  model::TableChange type = Change(Kind::kUpdateColumnType, {"cnt"});
  type.type = P("long");
  model::TableChange comment = Change(Kind::kUpdateColumnComment, {"data"});
  comment.comment = "payload";
  model::TableChange move = Change(Kind::kUpdateColumnPosition, {"cnt"});
  move.position.kind = model::ColumnPosition::Kind::kFirst;
  model::TableChange move_last = Change(Kind::kUpdateColumnPosition, {"id"});
  model::TableChange nullable = Change(Kind::kUpdateColumnNullability, {"id"});
  nullable.nullable = true;
  Json md = Apply(AlterBase(), {rename, type, comment, move, move_last});
  EXPECT_EQ(FieldNames(md), (std::vector<std::string>{"cnt", "data", "ts", "info", "id"}));
  EXPECT_EQ(FieldNames(md, {"info"}), (std::vector<std::string>{"town"}));
  const Json* schema = CurrentSchema(md);
  EXPECT_EQ((*FindField(*schema, {"cnt"}))["type"], "long");
  EXPECT_EQ((*FindField(*schema, {"data"}))["doc"], "payload");
  EXPECT_EQ(md["last-column-id"], 6);

  model::TableChange del = Change(Kind::kDeleteColumn, {"info", "town"});
  model::TableChange del_missing = Change(Kind::kDeleteColumn, {"ghost"});
  del_missing.if_exists = true;
  // id is an identifier field (it must stay required); drop that to make it optional.
  md["schemas"][1].erase("identifier-field-ids");
  Json md2 = Apply(md, {del, del_missing, nullable});
  EXPECT_EQ(FieldNames(md2, {"info"}), std::vector<std::string>{});
  EXPECT_EQ((*FindField(*CurrentSchema(md2), {"id"}))["required"], false);
  EXPECT_EQ(md2["current-schema-id"], 2);
}

TEST(ApplyTableChangesTest, ReusesIdenticalSchema) {
  model::TableChange there = Change(Kind::kRenameColumn, {"data"});
  there.new_name = "payload";
  model::TableChange back = Change(Kind::kRenameColumn, {"payload"});
  back.new_name = "data";
  Json same = Apply(AlterBase(), {there, back});
  EXPECT_EQ(same["schemas"].size(), 1U);
  Json renamed = Apply(AlterBase(), {there});
  EXPECT_EQ(renamed["current-schema-id"], 1);
  Json restored = Apply(renamed, {back});
  EXPECT_EQ(restored["current-schema-id"], 0);
  EXPECT_EQ(restored["schemas"].size(), 2U);
}

struct ErrorRow {
  std::string name;
  model::TableChange change;
  ErrorCode code;
  std::string message_part;
};

std::vector<ErrorRow> ErrorRows() {
  std::vector<ErrorRow> rows;
  auto add = [&](std::string name, model::TableChange c, std::string part,
                 ErrorCode code = ErrorCode::kInvalidArgument) {
    rows.push_back({std::move(name), std::move(c), code, std::move(part)});
  };
  model::TableChange required = AddCol({"req"}, P("string"));
  required.nullable = false;
  add("AddRequired", required, "cannot add required column: req");
  add("AddExisting", AddCol({"data"}, P("string")), "name already exists: data");
  add("AddMissingParent", AddCol({"nope", "x"}, P("string")), "Couldn't find parent field: nope");
  add("AddNonStructParent", AddCol({"data", "x"}, P("string")), "non-struct field");
  add("AddAfterMissing", AddCol({"x"}, P("string"), model::ColumnPosition::Kind::kAfter, "zz"),
      "missing column: zz");
  add("AddByte", AddCol({"b"}, P("byte")), "Iceberg does not support type 'byte' of column 'b'");
  add("AddNanosToV2", AddCol({"n"}, P("timestamp(9)")), "not supported until v3");
  model::TableChange with_default = AddCol({"d"}, P("string"));
  with_default.default_value = model::Expression{};
  add("AddDefault", with_default, "default value");
  model::TableChange auto_inc = AddCol({"a"}, P("long"));
  auto_inc.auto_increment = true;
  add("AddAutoIncrement", auto_inc, "auto increment");
  model::TableChange rename = Change(Kind::kRenameColumn, {"ghost"});
  rename.new_name = "x";
  add("RenameMissing", rename, "Cannot rename missing column: ghost");
  model::TableChange rename_clash = Change(Kind::kRenameColumn, {"data"});
  rename_clash.new_name = "ts";
  add("RenameClash", rename_clash, "already exists");
  add("DeleteMissing", Change(Kind::kDeleteColumn, {"ghost"}), "delete column not exists: ghost");
  add("DeleteIdentifier", Change(Kind::kDeleteColumn, {"id"}), "Cannot delete identifier field id");
  add("DeletePartitionSource", Change(Kind::kDeleteColumn, {"ts"}), "partition field ts_day");
  add("DeleteSortSource", Change(Kind::kDeleteColumn, {"data"}), "sort order");
  model::TableChange narrow = Change(Kind::kUpdateColumnType, {"id"});
  narrow.type = P("integer");
  add("NarrowType", narrow, "Cannot change column type: id: long -> int");
  model::TableChange to_int = Change(Kind::kUpdateColumnType, {"data"});
  to_int.type = P("integer");
  add("StringToInt", to_int, "string -> int");
  model::TableChange to_struct = Change(Kind::kUpdateColumnType, {"data"});
  to_struct.type = model::MakeStruct({{"x", P("integer"), true, std::nullopt}});
  add("ToStruct", to_struct, "not a primitive type");
  model::TableChange type_missing = Change(Kind::kUpdateColumnType, {"ghost"});
  type_missing.type = P("long");
  add("TypeMissing", type_missing, "Cannot update missing field: ghost");
  model::TableChange require = Change(Kind::kUpdateColumnNullability, {"data"});
  require.nullable = false;
  add("MakeRequired", require, "optional -> required");
  model::TableChange optional_identifier = Change(Kind::kUpdateColumnNullability, {"id"});
  optional_identifier.nullable = true;
  add("MakeIdentifierOptional", optional_identifier, "identifier field id");
  model::TableChange comment_missing = Change(Kind::kUpdateColumnComment, {"info", "ghost"});
  comment_missing.comment = "c";
  add("CommentMissing", comment_missing, "info.ghost");
  model::TableChange move = Change(Kind::kUpdateColumnPosition, {"data"});
  move.position.kind = model::ColumnPosition::Kind::kAfter;
  move.position.after = "ghost";
  add("MoveAfterMissing", move, "after missing column: ghost");
  model::TableChange move_self = move;
  move_self.position.after = "data";
  add("MoveAfterItself", move_self, "after itself");
  add("DefaultValue", Change(Kind::kUpdateColumnDefaultValue, {"data"}), "default value");
  add("AutoIncrement", Change(Kind::kUpdateColumnAutoIncrement, {"id"}), "auto increment");
  add("AddIndex", Change(Kind::kAddIndex), "index");
  add("DeleteIndex", Change(Kind::kDeleteIndex), "index");
  add("SetLocation", Prop(Kind::kSetProperty, "location", "/x"), "location is not allowed");
  add("SetComment", Prop(Kind::kSetProperty, "comment", "x"), "comment is not allowed");
  add("RemoveIdentifierFields", Prop(Kind::kRemoveProperty, "identifier-fields"),
      "identifier-fields is not allowed to remove");
  add("BadFormatVersion", Prop(Kind::kSetProperty, "format-version", "9"), "v9");
  add("Rename", Change(Kind::kRename), "RenameTable", ErrorCode::kInternal);
  return rows;
}

class ApplyTableChangesErrorTest : public ::testing::TestWithParam<ErrorRow> {};

TEST_P(ApplyTableChangesErrorTest, Fails) {
  const auto& row = GetParam();
  auto r = ApplyTableChanges(AlterBase(), {row.change}, 42);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, row.code);
  EXPECT_NE(r.error().message.find(row.message_part), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(Rows, ApplyTableChangesErrorTest, ::testing::ValuesIn(ErrorRows()),
                         [](const auto& row_info) { return row_info.param.name; });

TEST(FinishCommitTest, AppendsAndTrimsMetadataLog) {
  Json md = AlterBase();
  md["properties"][kPreviousVersionsMaxProperty] = "2";
  md = FinishCommit(md, "/wh/t/metadata/00000-a.metadata.json", 1, 10);
  md = FinishCommit(md, "/wh/t/metadata/00001-b.metadata.json", 10, 20);
  md = FinishCommit(md, "/wh/t/metadata/00002-c.metadata.json", 20, 30);
  EXPECT_EQ(md["metadata-log"].dump(),
            R"([{"timestamp-ms":10,"metadata-file":"/wh/t/metadata/00001-b.metadata.json"},)"
            R"({"timestamp-ms":20,"metadata-file":"/wh/t/metadata/00002-c.metadata.json"}])");
  EXPECT_EQ(md["last-updated-ms"], 30);
  Json first = FinishCommit(AlterBase(), "", 0, 5);
  EXPECT_EQ(first["metadata-log"], Json::array());
}

TEST(MetadataTest, NormalizeParseAndModelView) {
  Json scrambled = Json::object();
  scrambled["metadata-log"] = Json::array();
  scrambled["x-extra"] = 1;
  scrambled["format-version"] = 2;
  scrambled["schema"] = Json::object();
  EXPECT_EQ(ToJsonText(NormalizeMetadata(scrambled)),
            R"({"format-version":2,"metadata-log":[],"x-extra":1})");

  auto parsed = ParseMetadata(kGoldenV2);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(ToJsonText(*parsed), kGoldenV2);  // parse + write keeps Java's order
  EXPECT_FALSE(ParseMetadata("{").has_value());
  EXPECT_FALSE(ParseMetadata("[]").has_value());
  EXPECT_FALSE(ParseMetadata(R"({"location":"x"})").has_value());

  Json md = *parsed;
  md["properties"][kDistributionModeProperty] = "hash";
  auto table = TableFromMetadata(md);
  ASSERT_TRUE(table.has_value()) << table.error().message;
  ASSERT_EQ(table->columns.size(), 3U);
  EXPECT_EQ(table->columns[0].name, "id");
  EXPECT_EQ(table->columns[1].comment, "the data");
  EXPECT_EQ(model::PrimitiveTypeString(*table->columns[2].type), "timestamp_tz(6)");
  EXPECT_FALSE(table->columns[0].nullable);
  EXPECT_EQ(table->partitioning.size(), 2U);
  EXPECT_EQ(table->partitioning[1].num_buckets, 16);
  EXPECT_EQ(table->sort_orders.size(), 1U);
  EXPECT_EQ(table->distribution.strategy, "hash");
  EXPECT_EQ(table->properties.at("owner"), "x");
}

// A snapshot of the history as a commit adds it (with characters that need escaping).
Json HistorySnapshot(int64_t id) {
  Json s = Json::object();
  s["snapshot-id"] = id;
  if (id > 1) s["parent-snapshot-id"] = id - 1;
  s["sequence-number"] = id;
  s["manifest-list"] = "s3://b/t/metadata/snap-" + std::to_string(id) + ".avro";
  s["summary"] = Json{{"operation", "append"}, {"note", "quote \" tab \t é"}};
  return s;
}

// The elements an ElementsSpan points at, with their brackets.
std::string Elements(const std::string& text, const ElementsSpan& span) {
  return text.substr(span.begin - 1, span.size + 2);
}

TEST(MetadataTest, ToJsonTextReusesTheHistoryOfAnEarlierText) {
  Json md = *ParseMetadata(kGoldenV2);
  HistorySpans spans;
  std::string text = ToJsonText(md, "", HistorySpans{}, &spans);
  EXPECT_EQ(text, ToJsonText(md));
  EXPECT_EQ(spans.snapshots.count, 0U);
  EXPECT_EQ(Elements(text, spans.snapshots), "[]");
  EXPECT_EQ(Elements(text, spans.snapshot_log), "[]");
  // Three commits, each adding snapshots and log entries: every text is what a whole rendering
  // gives, and its spans cover exactly the history.
  int64_t next = 1;
  for (int added : {1, 3, 2}) {
    for (int i = 0; i < added; ++i) {
      md["snapshots"].push_back(HistorySnapshot(next));
      md["snapshot-log"].push_back(Json{{"timestamp-ms", kNow + next}, {"snapshot-id", next}});
      ++next;
    }
    md["last-updated-ms"] = kNow + next;
    HistorySpans next_spans;
    const std::string next_text = ToJsonText(md, text, spans, &next_spans);
    EXPECT_EQ(next_text, ToJsonText(md));
    EXPECT_EQ(next_spans.snapshots.count, md["snapshots"].size());
    EXPECT_EQ(next_spans.snapshot_log.count, md["snapshot-log"].size());
    EXPECT_EQ(Elements(next_text, next_spans.snapshots), ToJsonText(md["snapshots"]));
    EXPECT_EQ(Elements(next_text, next_spans.snapshot_log), ToJsonText(md["snapshot-log"]));
    text = next_text;
    spans = next_spans;
  }
  // The known text is taken as it is: the caller vouches for it (here a stale one shows).
  Json changed = md;
  changed["snapshots"][0]["summary"]["note"] = "changed";
  changed["snapshot-log"][0]["timestamp-ms"] = 1;
  HistorySpans unused;
  EXPECT_NE(ToJsonText(changed, text, spans, &unused), ToJsonText(changed));
  EXPECT_EQ(ToJsonText(changed, text, HistorySpans{}, &unused), ToJsonText(changed));
  // A span that does not fit the text, or more elements than the metadata has: rendered whole.
  Json fewer = md;
  fewer["snapshots"].erase(fewer["snapshots"].size() - 1);
  fewer["snapshot-log"].erase(fewer["snapshot-log"].size() - 1);
  EXPECT_EQ(ToJsonText(fewer, text, spans, &unused), ToJsonText(fewer));
  EXPECT_EQ(ToJsonText(md, "{}", spans, &unused), ToJsonText(md));
  // No history arrays: the plain rendering, and empty spans.
  Json bare = Json::object();
  bare["format-version"] = 2;
  bare["snapshots"] = "not an array";
  EXPECT_EQ(ToJsonText(bare, text, spans, &unused), ToJsonText(bare));
  EXPECT_EQ(unused.snapshots.count, 0U);
  EXPECT_EQ(unused.snapshot_log.count, 0U);
}

TEST(MetadataTest, ToJsonTextReplacesInvalidUtf8) {
  Json j = Json::object();
  j["k"] = std::string("a\xff", 2);
  EXPECT_EQ(ToJsonText(j), "{\"k\":\"a\xEF\xBF\xBD\"}");
}

}  // namespace
}  // namespace cairn::iceberg
