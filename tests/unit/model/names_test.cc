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

TEST(Names, ObjectRuleAllowsEqualsAndDashButNoSlash) {
  EXPECT_THAT(ValidateObjectName(EntityKind::kTable, "dt=2024-x_y"), IsOk());
  EXPECT_THAT(ValidateObjectName(EntityKind::kTable, "*"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateObjectName(EntityKind::kSchema, "a b"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateObjectName(EntityKind::kSchema, "/a"), IsError(ErrorCode::kInvalidArgument));
  // A table inside another table's directory.
  EXPECT_THAT(ValidateObjectName(EntityKind::kTable, "x/metadata"),
              IsError(ErrorCode::kInvalidArgument));
}

TEST(Names, SegmentRuleRefusesWhatIsNotOneSegment) {
  for (std::string_view bad :
       {"", ".", "..", "a/b", "../x", "a\\b", "tab\there", "nl\n", "\x1f", "del\x7f", " ",
        "   ", "\xff\xfe", "\xc0\xaf", "\xed\xa0\x80"}) {
    EXPECT_THAT(ValidateSegmentName(EntityKind::kTable, bad), IsError(ErrorCode::kInvalidArgument))
        << "'" << bad << "'";
  }
  EXPECT_THAT(ValidateSegmentName(EntityKind::kTable, std::string("a\0b", 3)),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateSegmentName(EntityKind::kTable, std::string(256, 'n')),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateSegmentName(EntityKind::kTable, std::string(1 << 20, 'n')),
              IsError(ErrorCode::kInvalidArgument));
}

TEST(Names, SegmentRuleAcceptsOrdinaryNames) {
  for (std::string_view good : {"t", "a.b", "...x", "with space", "t\xc3\xa4" "ble", "%2E%2E",
                                "\xf0\x9f\x90\x9f", "-", "_"}) {
    EXPECT_THAT(ValidateSegmentName(EntityKind::kTable, good), IsOk()) << good;
  }
  EXPECT_THAT(ValidateSegmentName(EntityKind::kTable, std::string(255, 'n')), IsOk());
}

TEST(Names, MessagesNeverCarryControlCharactersOrHugeNames) {
  auto e = ValidateSegmentName(EntityKind::kTable, std::string("a\0b\nc", 5));
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message.find('\0'), std::string::npos);
  EXPECT_EQ(e.error().message.find('\n'), std::string::npos);
  EXPECT_NE(e.error().message.find("table name"), std::string::npos) << e.error().message;
  auto big = ValidateSegmentName(EntityKind::kSchema, std::string(1 << 20, 'n'));
  ASSERT_FALSE(big);
  EXPECT_LT(big.error().message.size(), 400u);
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
