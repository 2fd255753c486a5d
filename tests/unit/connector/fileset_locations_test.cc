// SPDX-License-Identifier: Apache-2.0
#include "connector/fileset/fileset_locations.h"

#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn::connector::fileset {
namespace {

using cairn::testing::HasErrorMessage;
using cairn::testing::IsError;
using cairn::testing::IsOk;
using ::testing::ElementsAre;
using ::testing::Pair;

const FilesetNames kNames{"cat", "sch", "fs"};

TEST(FilesetPlaceholders, DetectsAndReplaces) {
  EXPECT_TRUE(ContainsPlaceholder("file:/a/{{schema}}"));
  EXPECT_FALSE(ContainsPlaceholder("file:/a/{{schema"));
  EXPECT_FALSE(ContainsPlaceholder("file:/a/b"));
  auto r = ReplacePlaceholders("/r/{{catalog}}/{{schema}}-{{fileset}}-{{v}}",
                               {{"catalog", "c"}, {"schema", "s"}, {"fileset", "f"}, {"v", "1"}});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(*r, "/r/c/s-f-1");
}

TEST(FilesetPlaceholders, MissingValueNamesThePlaceholderProperty) {
  auto r = ReplacePlaceholders("/r/{{version}}", {{"fileset", "f"}});
  EXPECT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(r, HasErrorMessage("placeholder-version"));
}

TEST(FilesetPlaceholders, EmptyPlaceholderIsRejected) {
  EXPECT_THAT(CheckPlaceholders("/r/{{}}/x"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(CheckPlaceholders("/r/{{a}}/x"), IsOk());
}

TEST(FilesetLocations, NormalizesLocalPathsAndKeepsUris) {
  EXPECT_EQ(*NormalizeLocation("/tmp/a/"), "file:/tmp/a");
  EXPECT_EQ(*NormalizeLocation("file:///tmp/a"), "file:/tmp/a");
  EXPECT_EQ(*NormalizeLocation("file:/tmp/./b/../a//"), "file:/tmp/a");
  EXPECT_EQ(*NormalizeLocation("s3://bucket/p/"), "s3://bucket/p");
  EXPECT_THAT(NormalizeLocation("relative/dir"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(NormalizeLocation("  "), IsError(ErrorCode::kInvalidArgument));
}

TEST(FilesetLocations, CatalogLocationsFromProperties) {
  auto r = CatalogLocations({{"location", "/root"}, {"location-hot", "s3://b/hot"}, {"x", "y"}});
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(*r, ElementsAre(Pair("hot", "s3://b/hot"), Pair("unknown", "/root")));
  EXPECT_THAT(CatalogLocations({{"location", " "}}), HasErrorMessage("'location'"));
  EXPECT_THAT(CatalogLocations({{"location-", "/x"}}), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(CatalogLocations({{"location-unknown", "/x"}}), HasErrorMessage("reserved"));
  EXPECT_THAT(CatalogLocations({{"location-a", ""}}), HasErrorMessage("location-a"));
}

TEST(FilesetLocations, SchemaInheritsCatalogLocationsPlusItsName) {
  auto r =
      SchemaLocations({{"unknown", "/root/"}, {"hot", "/hot/{{schema}}/{{fileset}}"}}, "sch", {});
  ASSERT_THAT(r, IsOk());
  // A location with placeholders is kept whole, to be resolved per fileset.
  EXPECT_THAT(
      *r, ElementsAre(Pair("hot", "/hot/{{schema}}/{{fileset}}"), Pair("unknown", "/root/sch")));
}

TEST(FilesetLocations, SchemaPropertiesOverrideCatalogLocations) {
  auto r = SchemaLocations({{"unknown", "/root"}, {"hot", "/hot"}}, "sch",
                           {{"location", "/own"}, {"location-cold", "/cold"}});
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(*r,
              ElementsAre(Pair("cold", "/cold"), Pair("hot", "/hot/sch"), Pair("unknown", "/own")));
}

TEST(FilesetLocations, ManagedFilesetInheritsSchemaLocationPlusItsName) {
  auto r = ResolveFilesetLocations(kNames, {}, {{"unknown", "/root/sch"}}, {});
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(*r, ElementsAre(Pair("unknown", "/root/sch/fs")));
}

TEST(FilesetLocations, ExplicitLocationWins) {
  auto r = ResolveFilesetLocations(kNames, {{"unknown", "/mine"}}, {{"unknown", "/root/sch"}}, {});
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(*r, ElementsAre(Pair("unknown", "/mine")));
}

TEST(FilesetLocations, NamedLocationsAreTheUnionOfExplicitAndInherited) {
  auto r = ResolveFilesetLocations(kNames, {{"extra", "/x/{{fileset}}"}},
                                   {{"unknown", "/root/sch"}, {"hot", "/hot/sch"}}, {});
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(*r, ElementsAre(Pair("extra", "/x/fs"), Pair("hot", "/hot/sch/fs"),
                              Pair("unknown", "/root/sch/fs")));
}

TEST(FilesetLocations, InheritedPlaceholderLocationIsResolvedWithoutAppendingTheName) {
  auto r = ResolveFilesetLocations(kNames, {},
                                   {{"unknown", "/r/{{catalog}}/{{schema}}/{{fileset}}-{{v}}"}},
                                   {{"placeholder-v", "2"}});
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(*r, ElementsAre(Pair("unknown", "/r/cat/sch/fs-2")));
}

TEST(FilesetLocations, ExplicitPlaceholderNeedsItsProperty) {
  auto r = ResolveFilesetLocations(kNames, {{"unknown", "/r/{{v}}"}}, {}, {});
  EXPECT_THAT(r, HasErrorMessage("placeholder-v"));
}

TEST(FilesetLocations, BlankExplicitLocationIsRejected) {
  EXPECT_THAT(ResolveFilesetLocations(kNames, {{"a", " "}}, {}, {}),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ResolveFilesetLocations(kNames, {{"", "/x"}}, {}, {}),
              IsError(ErrorCode::kInvalidArgument));
}

TEST(FilesetDefaultLocation, SingleLocationIsTheDefault) {
  auto r = WithDefaultLocationName({}, {{"unknown", "file:/a"}});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->at("default-location-name"), "unknown");
  EXPECT_THAT(WithDefaultLocationName({{"default-location-name", "x"}}, {{"unknown", "file:/a"}}),
              IsError(ErrorCode::kInvalidArgument));
}

TEST(FilesetDefaultLocation, SeveralLocationsNeedAValidDefault) {
  const LocationMap two{{"a", "file:/a"}, {"b", "file:/b"}};
  EXPECT_THAT(WithDefaultLocationName({}, two), HasErrorMessage("default-location-name"));
  EXPECT_THAT(WithDefaultLocationName({{"default-location-name", "c"}}, two),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(WithDefaultLocationName({{"default-location-name", "b"}}, two), IsOk());
}

TEST(FilesetHierarchy, FilesetMayNotContainItsSchemaLocation) {
  EXPECT_THAT(CheckLocationHierarchy({{"unknown", "/root/sch"}}, {{"unknown", "file:/root"}}),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(CheckLocationHierarchy({{"unknown", "/root/sch"}}, {{"unknown", "file:/root/sch"}}),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(
      CheckLocationHierarchy({{"unknown", "/root/sch"}}, {{"unknown", "file:/root/sch/fs"}}),
      IsOk());
  EXPECT_THAT(CheckLocationHierarchy({{"unknown", "/root/sch"}}, {{"unknown", "file:/root/s"}}),
              IsOk());
}

TEST(FilesetProperties, ReservedAndImmutable) {
  EXPECT_THAT(CheckCreateProperties({{"placeholder-fileset", "x"}}), HasErrorMessage("reserved"));
  EXPECT_THAT(CheckCreateProperties({{"placeholder-v", "x"}}), IsOk());
  EXPECT_THAT(CheckAlterProperty("default-location-name"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(CheckAlterProperty("placeholder-v"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(CheckAlterProperty("k"), IsOk());
  EXPECT_THAT(CheckSchemaAlterProperty("location"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(CheckSchemaAlterProperty("location-hot"), IsError(ErrorCode::kInvalidArgument));
}

model::Fileset TwoLocations() {
  model::Fileset f;
  f.name = "fs";
  f.storage_locations = {{"a", "file:/a/"}, {"b", "s3://bkt/b"}};
  f.properties = {{"default-location-name", "b"}};
  return f;
}

TEST(FilesetFileLocation, LeadingSlashIsOptional) {
  const auto f = TwoLocations();
  EXPECT_EQ(*FileLocation(f, "x/y.txt", std::nullopt), "s3://bkt/b/x/y.txt");
  EXPECT_EQ(*FileLocation(f, "/x/y.txt", std::nullopt), "s3://bkt/b/x/y.txt");
  EXPECT_EQ(*FileLocation(f, " /x ", "a"), "file:/a/x");
  EXPECT_EQ(*FileLocation(f, "", "a"), "file:/a/");  // an empty sub path is the location itself
}

TEST(FilesetFileLocation, UnknownLocationNameIsNotFound) {
  auto r = FileLocation(TwoLocations(), "/x", std::string("nope"));
  EXPECT_THAT(r, IsError(ErrorCode::kNotFound));
  EXPECT_EQ(r.error().entity, EntityKind::kLocationName);
}

TEST(FilesetFileLocation, DotDotCannotLeaveTheFileset) {
  EXPECT_THAT(FileLocation(TwoLocations(), "a/../../etc", std::nullopt),
              HasErrorMessage("sub_path"));
  EXPECT_THAT(FileLocation(TwoLocations(), "a/..b", std::nullopt), IsOk());
}

TEST(FilesetVirtualPath, JoinsSubPathAndName) {
  EXPECT_EQ(VirtualPath(kNames, "/", "f.txt"), "/fileset/cat/sch/fs/f.txt");
  EXPECT_EQ(VirtualPath(kNames, "", "f.txt"), "/fileset/cat/sch/fs/f.txt");
  EXPECT_EQ(VirtualPath(kNames, "d/e/", "f.txt"), "/fileset/cat/sch/fs/d/e/f.txt");
}

}  // namespace
}  // namespace cairn::connector::fileset
