// SPDX-License-Identifier: Apache-2.0
// Documents the fuzzers (tests/fuzz) found to crash or throw: each is now an error, never
// undefined behaviour or an exception out of the layer.
#include <gtest/gtest.h>

#include "iceberg/commit.h"
#include "iceberg/table_metadata.h"
#include "iceberg/view_metadata.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::cairn::testing::HasErrorMessage;
using ::cairn::testing::IsError;
using ::cairn::testing::IsOk;

constexpr int64_t kNow = 1700000000000;

Json Parsed(const char* text) {
  auto md = ParseMetadata(text);
  EXPECT_THAT(md, IsOk());
  return md ? *md : Json::object();
}

const Json kSetProperty = Json::parse(R"j([{"action":"set-properties","updates":{"k":"v"}}])j");

TEST(HostileMetadata, NoSchemaAtAllReadsAsAnEmptySchema) {
  // fuzz_table_metadata: Prepare made {"schema-id":0} of nothing and read its missing fields.
  const Json md = Parsed(R"j({"format-version":1,"location":"file:///w/t","last-updated-ms":1,
      "partition-spec":[],"properties":{},"current-snapshot-id":-1,"snapshots":[]})j");
  for (auto out : {ApplyTableUpdates(&md, kSetProperty, kNow),
                   ApplyTableUpdates(Json(md), kSetProperty, kNow)}) {
    ASSERT_THAT(out, IsOk());
    EXPECT_EQ((*out)["schemas"][0]["fields"], Json::array());
    EXPECT_THAT(ParseMetadata(ToJsonText(*out)), IsOk());
  }
}

TEST(HostileMetadata, ASchemaWithoutFieldsIsAnError) {
  // fuzz_table_metadata: a Gravitino alter compared the schema's missing fields.
  const Json md = Parsed(R"j({"format-version":1,"location":"file:///w/t","last-updated-ms":1,
      "last-column-id":2,"schema":{"type":"struct","fkelds":[]},"partition-spec":[],
      "properties":{},"current-snapshot-id":-1,"snapshots":[]})j");
  model::TableChange change;
  change.kind = model::TableChange::Kind::kSetProperty;
  change.property = "k";
  change.value = "v";
  EXPECT_THAT(ApplyTableChanges(md, {change}, kNow), IsOk());
  EXPECT_THAT(TableFromMetadata(md), IsError(ErrorCode::kInvalidArgument));
}

TEST(HostileMetadata, ASpecWithoutFieldsIsAnError) {
  // fuzz_table_metadata: Build read the default spec's missing fields.
  const Json md = Parsed(R"j({"format-version":2,"table-uuid":"u","location":"s3://b/t",
      "last-sequence-number":0,"last-updated-ms":1,"last-column-id":1,"current-schema-id":0,
      "schemas":[{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"id","required":true,"type":"long"}]}],
      "default-spec-id":0,"partition-specs":[{"spec-id":0,"field-":[]}],"last-partition-id":999,
      "default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":{},
      "current-snapshot-id":-1,"refs":{},"snapshots":[]})j");
  auto out = ApplyTableUpdates(&md, kSetProperty, kNow);
  ASSERT_THAT(out, IsOk());  // a spec without fields is an unpartitioned spec
  EXPECT_THAT(ParseMetadata(ToJsonText(*out)), IsOk());
}

TEST(HostileMetadata, MembersOfTheWrongJsonTypeAreErrorsNotExceptions) {
  // fuzz_table_metadata: "partition-spec":["last-column-id"] made value() throw in Prepare.
  const Json md = Parsed(R"j({"format-version":1,"location":"file:///w/t","last-updated-ms":1,
      "last-column-id":2,"schema":{"type":"struct","fields":[
        {"id":1,"name":"x","required":true,"type":"long"}]},
      "partition-spec":["last-column-id"],"properties":{},"current-snapshot-id":-2,
      "snapshots":[]})j");
  auto out = ApplyTableUpdates(&md, kSetProperty, kNow);
  EXPECT_THAT(out, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(out, HasErrorMessage("a member has the wrong JSON type"));
  EXPECT_THAT(
      CheckTableRequirements(
          &md, Json::parse(R"j([{"type":"assert-current-schema-id","current-schema-id":0}])j")),
      ::testing::AnyOf(IsOk(), IsError(ErrorCode::kInvalidArgument),
                       IsError(ErrorCode::kConflict)));
}

TEST(HostileMetadata, ASchemaWhoseTypeIsNotAStringIsAnError) {
  // fuzz_schema: {"type":0} made value("type", "") throw.
  auto schema = ParseSchemaJson(Json::parse(R"j({"type":0})j"));
  EXPECT_THAT(schema, IsError(ErrorCode::kInvalidArgument));
  Json request = Json::parse(R"j({"name":"t","schema":{"type":0}})j");
  EXPECT_THAT(NewTableMetadataFromRest(request, "file:///w/t", kNow),
              IsError(ErrorCode::kInvalidArgument));
  Json view = Json::parse(R"j({"name":"v","schema":{"type":[]},"view-version":{}})j");
  EXPECT_THAT(NewViewMetadata(view, "file:///w/v", kNow), IsError(ErrorCode::kInvalidArgument));
}

TEST(HostileMetadata, ATypeMemberOfTheWrongJsonTypeIsAnError) {
  // fuzz_iceberg_type: "value-required":"int" made value() throw in the model conversion.
  const Json type = Json::parse(R"j({"type":"map","key-id":2,"key":"string","value-id":1,
      "value":"int","value-required":"int"})j");
  EXPECT_THAT(FromIcebergType(type), HasErrorMessage("a member has the wrong JSON type"));
  Json schema =
      Json::parse(R"j({"type":"struct","fields":[{"id":1,"name":"m","required":false}]})j");
  schema["fields"][0]["type"] = type;
  EXPECT_THAT(FromIcebergSchema(schema), IsError(ErrorCode::kInvalidArgument));
}

TEST(HostileMetadata, IdsThatAreNotIntsAreIgnored) {
  // fuzz_table_metadata: a value-id of 4.7e38 was converted to int (undefined behaviour).
  const Json md = Parsed(R"j({"format-version":2,"table-uuid":"u","location":"file:///w/t",
      "last-sequence-number":0,"last-updated-ms":0,"current-schema-id":0,
      "schemas":[{"type":"struct","schema-id":0,"fields":[
        {"id":1,"name":"m","required":false,"type":{"type":"map","key-id":3,"key":"string",
          "value-id":466666666666666666666666666666666666666,"value":"int",
          "value-required":false}},
        {"id":9999999999,"name":"n","required":false,"type":"int"}]}],
      "default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
      "default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":{},
      "current-snapshot-id":null,"next-row-id":5,"refs":{},"snapshots":[]})j");
  EXPECT_EQ(MaxFieldId(*CurrentSchema(md)), 3);
  model::TableChange change;
  change.kind = model::TableChange::Kind::kAddColumn;
  change.field_name = {"x"};
  change.type = model::MakePrimitive(model::TypeKind::kLong);
  auto out = ApplyTableChanges(md, {change}, kNow);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ((*out)["last-column-id"], 4);
}

}  // namespace
}  // namespace cairn::iceberg
