// SPDX-License-Identifier: Apache-2.0
// Location parsing and containment: the checks that keep a table's files inside its location.
#include <gtest/gtest.h>

#include "storage/file_io.h"

namespace cairn::storage {
namespace {

TEST(Locations, DotSegmentsBackslashesAndControlCharactersDoNotParse) {
  for (const char* bad : {"s3://b/wh/../x", "s3://b/./x", "file:///wh/../etc", "/wh/..",
                          "s3://b/a\\b", "s3://b/a\nb", "relative/path", "s3:///nobucket",
                          "file://otherhost/x"}) {
    EXPECT_FALSE(ParseLocation(bad)) << bad;
  }
  EXPECT_FALSE(ParseLocation(std::string("/wh/a\0b", 7)));
}

TEST(Locations, LocalPathsAndFileUrisAreOneScheme) {
  auto a = ParseLocation("/wh/ns/t");
  auto b = ParseLocation("file:///wh/ns/t");
  auto c = ParseLocation("file:/wh/ns/t");
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->segments, b->segments);
  EXPECT_EQ(b->segments, c->segments);
  EXPECT_EQ(a->scheme, "file");
  EXPECT_TRUE(LocationWithin("file:/wh/ns/t/data/x.parquet", "/wh/ns/t"));
}

TEST(Locations, WithinComparesWholeSegments) {
  EXPECT_TRUE(LocationWithin("/wh/a", "/wh/a"));
  EXPECT_TRUE(LocationWithin("/wh/a/b", "/wh/a/"));
  EXPECT_FALSE(LocationWithin("/wh/ab", "/wh/a"));
  EXPECT_FALSE(LocationWithin("/wh", "/wh/a"));
  EXPECT_TRUE(LocationWithin("s3a://bucket/wh/t/f", "s3://bucket/wh"));
  EXPECT_FALSE(LocationWithin("s3://other/wh/t", "s3://bucket/wh"));
  EXPECT_FALSE(LocationWithin("s3://bucket/wh/t", "/wh"));
  EXPECT_FALSE(LocationWithin("s3://bucket/wh/../x", "s3://bucket/wh"));
  EXPECT_TRUE(LocationsOverlap("/wh", "/wh/a/b"));
  EXPECT_TRUE(LocationsOverlap("/wh/a/b", "/wh"));
  EXPECT_FALSE(LocationsOverlap("/wh/a", "/wh/b"));
}

TEST(Locations, NormalizeRefusesUrisThatNameSomethingElse) {
  EXPECT_FALSE(NormalizeLocation("s3://b/wh/../other"));
  EXPECT_FALSE(NormalizeLocation("file:///wh/./x"));
  auto local = NormalizeLocation("/wh/ns/../x");
  ASSERT_TRUE(local);
  EXPECT_EQ(*local, "/wh/x");  // plain paths are resolved, then compared
  EXPECT_FALSE(NormalizeLocation(std::string("/wh/\x01x")));
}

}  // namespace
}  // namespace cairn::storage
