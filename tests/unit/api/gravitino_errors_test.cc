// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/gravitino/errors.h"

namespace cairn::api::gravitino {
namespace {

struct Row {
  ErrorCode code;
  EntityKind entity;
  int status;
  int gravitino_code;
  const char* type;
};

class ErrorMappingTest : public ::testing::TestWithParam<Row> {};

TEST_P(ErrorMappingTest, MapsToGravitinoStatusCodeAndType) {
  const Row& row = GetParam();
  const ErrorMapping m = MapError(Error{row.code, row.entity, "boom"});
  EXPECT_EQ(m.http_status, row.status);
  EXPECT_EQ(m.code, row.gravitino_code);
  EXPECT_EQ(m.type, row.type);
}

INSTANTIATE_TEST_SUITE_P(
    AllRows, ErrorMappingTest,
    ::testing::Values(
        Row{ErrorCode::kInvalidArgument, EntityKind::kTable, 400, 1001, "IllegalArgumentException"},
        Row{ErrorCode::kUnprocessable, EntityKind::kNone, 400, 1001, "IllegalArgumentException"},
        Row{ErrorCode::kNotFound, EntityKind::kMetalake, 404, 1003, "NoSuchMetalakeException"},
        Row{ErrorCode::kNotFound, EntityKind::kCatalog, 404, 1003, "NoSuchCatalogException"},
        Row{ErrorCode::kNotFound, EntityKind::kSchema, 404, 1003, "NoSuchSchemaException"},
        Row{ErrorCode::kNotFound, EntityKind::kTable, 404, 1003, "NoSuchTableException"},
        Row{ErrorCode::kNotFound, EntityKind::kFileset, 404, 1003, "NoSuchFilesetException"},
        Row{ErrorCode::kNotFound, EntityKind::kLocationName, 404, 1003,
            "NoSuchLocationNameException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kFileset, 409, 1004,
            "FilesetAlreadyExistsException"},
        Row{ErrorCode::kNotFound, EntityKind::kColumn, 404, 1003, "NoSuchColumnException"},
        Row{ErrorCode::kNotFound, EntityKind::kTag, 404, 1003, "NoSuchTagException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kTag, 409, 1004, "TagAlreadyExistsException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kTagAssociation, 409, 1004,
            "TagAlreadyAssociatedException"},
        Row{ErrorCode::kNotFound, EntityKind::kPolicy, 404, 1003, "NoSuchPolicyException"},
        Row{ErrorCode::kInvalidArgument, EntityKind::kStatistic, 400, 1001,
            "IllegalStatisticNameException"},
        Row{ErrorCode::kUnsupported, EntityKind::kStatistic, 405, 1006,
            "UnmodifiableStatisticException"},
        Row{ErrorCode::kNotFound, EntityKind::kModel, 404, 1003, "NoSuchModelException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kModel, 409, 1004,
            "ModelAlreadyExistsException"},
        Row{ErrorCode::kNotFound, EntityKind::kModelVersion, 404, 1003,
            "NoSuchModelVersionException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kModelVersionAlias, 409, 1004,
            "ModelVersionAliasesAlreadyExistException"},
        Row{ErrorCode::kNotFound, EntityKind::kModelVersionUri, 404, 1003,
            "NoSuchModelVersionURINameException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kPolicy, 409, 1004,
            "PolicyAlreadyExistsException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kPolicyAssociation, 409, 1004,
            "PolicyAlreadyAssociatedException"},
        Row{ErrorCode::kNotFound, EntityKind::kNone, 404, 1003, "NotFoundException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kMetalake, 409, 1004,
            "MetalakeAlreadyExistsException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kCatalog, 409, 1004,
            "CatalogAlreadyExistsException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kSchema, 409, 1004,
            "SchemaAlreadyExistsException"},
        Row{ErrorCode::kAlreadyExists, EntityKind::kTable, 409, 1004,
            "TableAlreadyExistsException"},
        Row{ErrorCode::kNotEmpty, EntityKind::kMetalake, 409, 1005, "NonEmptyMetalakeException"},
        Row{ErrorCode::kNotEmpty, EntityKind::kCatalog, 409, 1005, "NonEmptyCatalogException"},
        Row{ErrorCode::kNotEmpty, EntityKind::kSchema, 409, 1005, "NonEmptySchemaException"},
        Row{ErrorCode::kNotInUse, EntityKind::kMetalake, 409, 1009, "MetalakeNotInUseException"},
        Row{ErrorCode::kNotInUse, EntityKind::kCatalog, 409, 1009, "CatalogNotInUseException"},
        Row{ErrorCode::kNotInUse, EntityKind::kTable, 409, 1009, "NotInUseException"},
        Row{ErrorCode::kInUse, EntityKind::kMetalake, 409, 1010, "MetalakeInUseException"},
        Row{ErrorCode::kInUse, EntityKind::kCatalog, 409, 1010, "CatalogInUseException"},
        Row{ErrorCode::kConflict, EntityKind::kTable, 409, 1100, "ConcurrentModificationException"},
        Row{ErrorCode::kCommitStateUnknown, EntityKind::kTable, 500, 1002, "RuntimeException"},
        Row{ErrorCode::kUnauthenticated, EntityKind::kNone, 401, 1011, "UnauthorizedException"},
        Row{ErrorCode::kPermissionDenied, EntityKind::kTable, 403, 1008, "ForbiddenException"},
        Row{ErrorCode::kUnsupported, EntityKind::kTable, 405, 1006,
            "UnsupportedOperationException"},
        Row{ErrorCode::kConnectionFailed, EntityKind::kCatalog, 502, 1007,
            "ConnectionFailedException"},
        Row{ErrorCode::kUnavailable, EntityKind::kTable, 503, 1002, "RuntimeException"},
        Row{ErrorCode::kUnavailable, EntityKind::kCatalog, 503, 1007, "ConnectionFailedException"},
        Row{ErrorCode::kInternal, EntityKind::kNone, 500, 1002, "RuntimeException"}));

TEST(ErrorResponse, UsesGravitinoMessageTemplateUnderParent) {
  Operation op{EntityKind::kTable, "t1", "LOAD", EntityKind::kSchema, "cat.s1"};
  http::Response r =
      ErrorResponse(Error{ErrorCode::kNotFound, EntityKind::kTable, "Table t1 does not exist"}, op);
  EXPECT_EQ(r.status, 404);
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["code"], 1003);
  EXPECT_EQ(body["type"], "NoSuchTableException");
  EXPECT_EQ(body["message"],
            "Failed to operate table(s) [t1] operation [LOAD] under schema [cat.s1], reason [Table "
            "t1 does not exist]");
  EXPECT_TRUE(body["stack"].is_array());
}

TEST(ErrorResponse, MetalakeMessageHasNoParent) {
  Operation op{EntityKind::kMetalake, "ml", "DROP", EntityKind::kNone, ""};
  http::Response r = ErrorResponse(Error{ErrorCode::kInUse, EntityKind::kMetalake, "in use"}, op);
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["message"],
            "Failed to operate metalake(s) [ml] operation [DROP], reason [in use]");
}

TEST(ErrorResponse, InvalidUtf8InMessageDoesNotThrow) {
  http::Response r =
      PlainErrorResponse(400, 1001, "IllegalArgumentException", std::string("bad \xff name"));
  EXPECT_EQ(r.status, 400);
  EXPECT_FALSE(nlohmann::json::parse(r.body, nullptr, false).is_discarded());
}

}  // namespace
}  // namespace cairn::api::gravitino
