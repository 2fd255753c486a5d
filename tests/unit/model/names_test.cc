// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "matchers.h"
#include "model/entities.h"

namespace cairn::model {
namespace {

using cairn::testing::IsError;
using cairn::testing::IsOk;

TEST(Names, MetalakeRule) {
  EXPECT_THAT(ValidateMetalakeName("ml_1"), IsOk());
  EXPECT_THAT(ValidateMetalakeName(std::string(64, 'a')), IsOk());
  EXPECT_THAT(ValidateMetalakeName(std::string(65, 'a')), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateMetalakeName("a-b"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateMetalakeName(""), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateMetalakeName("system"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateMetalakeName("bad name!"), IsError(ErrorCode::kInvalidArgument));
}

TEST(Names, CatalogRuleAllowsDashes) {
  EXPECT_THAT(ValidateCatalogName("my-cat_1"), IsOk());
  EXPECT_THAT(ValidateCatalogName("-cat"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateCatalogName("SYSTEM"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateCatalogName("a.b"), IsError(ErrorCode::kInvalidArgument));
}

TEST(Names, ObjectRuleAllowsSlashEqualsDash) {
  EXPECT_THAT(ValidateObjectName(EntityKind::kTable, "dt=2024/x-y"), IsOk());
  EXPECT_THAT(ValidateObjectName(EntityKind::kTable, "*"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateObjectName(EntityKind::kSchema, "a b"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateObjectName(EntityKind::kSchema, "/a"), IsError(ErrorCode::kInvalidArgument));
}

TEST(CatalogType, ParsesCaseInsensitively) {
  EXPECT_EQ(ParseCatalogType("RELATIONAL"), CatalogType::kRelational);
  EXPECT_EQ(ParseCatalogType("fileset"), CatalogType::kFileset);
  EXPECT_EQ(ParseCatalogType("Messaging"), CatalogType::kMessaging);
  EXPECT_EQ(ParseCatalogType("model"), CatalogType::kModel);
  EXPECT_FALSE(ParseCatalogType("graph").has_value());
  EXPECT_EQ(CatalogTypeName(CatalogType::kRelational), "relational");
}

}  // namespace
}  // namespace cairn::model
