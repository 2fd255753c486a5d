// SPDX-License-Identifier: Apache-2.0
#include "iceberg/maintenance.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::cairn::testing::HasErrorMessage;
using ::cairn::testing::IsOk;

constexpr int64_t kDay = 24LL * 60 * 60 * 1000;
constexpr int64_t kNow = 100 * kDay;

// A table whose main branch is the chain 1 <- 2 <- ... <- n, snapshot i taken `n - i` days
// before kNow.
Json Chain(int n) {
  Json md = {{"format-version", 2}, {"location", "/wh/t"}, {"properties", Json::object()}};
  Json snapshots = Json::array();
  for (int i = 1; i <= n; ++i) {
    Json s = {{"snapshot-id", i},
              {"timestamp-ms", kNow - (n - i) * kDay},
              {"manifest-list", "/wh/t/metadata/snap-" + std::to_string(i) + ".avro"}};
    if (i > 1) s["parent-snapshot-id"] = i - 1;
    snapshots.push_back(std::move(s));
  }
  md["snapshots"] = std::move(snapshots);
  md["current-snapshot-id"] = n;
  md["refs"] = {{"main", {{"snapshot-id", n}, {"type", "branch"}}}};
  return md;
}

std::vector<int64_t> Expired(const Json& md, ExpireOptions options) {
  options.now_ms = kNow;
  auto plan = PlanSnapshotExpiry(md, options);
  EXPECT_THAT(plan, IsOk());
  return plan ? plan->snapshot_ids : std::vector<int64_t>{};
}

TEST(PlanSnapshotExpiry, DefaultKeepsFiveDaysAndTheCurrentSnapshot) {
  // Snapshots 1..10, ages 9..0 days: the default age of five days keeps ages 0..5 (5..10).
  EXPECT_EQ(Expired(Chain(10), {}), (std::vector<int64_t>{1, 2, 3, 4}));
  // A lone old snapshot is current: never expired.
  Json one = Chain(1);
  one["snapshots"][0]["timestamp-ms"] = 0;
  EXPECT_TRUE(Expired(one, {}).empty());
}

TEST(PlanSnapshotExpiry, OlderThanAndRetainLast) {
  ExpireOptions all;
  all.older_than_ms = kNow + 1;
  EXPECT_EQ(Expired(Chain(5), all), (std::vector<int64_t>{1, 2, 3, 4}));
  all.retain_last = 3;
  EXPECT_EQ(Expired(Chain(5), all), (std::vector<int64_t>{1, 2}));
  ExpireOptions zero;
  zero.retain_last = 0;
  zero.now_ms = kNow;
  EXPECT_THAT(PlanSnapshotExpiry(Chain(5), zero), HasErrorMessage("at least 1"));
}

TEST(PlanSnapshotExpiry, TablePropertiesBoundTheHistory) {
  Json md = Chain(10);
  md["properties"]["history.expire.max-snapshot-age-ms"] = std::to_string(2 * kDay);
  EXPECT_EQ(Expired(md, {}), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7}));
  md["properties"]["history.expire.min-snapshots-to-keep"] = "6";
  EXPECT_EQ(Expired(md, {}), (std::vector<int64_t>{1, 2, 3, 4}));
  // A malformed value falls back to the default rather than expiring everything.
  md["properties"]["history.expire.max-snapshot-age-ms"] = "soon";
  md["properties"].erase("history.expire.min-snapshots-to-keep");
  EXPECT_EQ(Expired(md, {}), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(PlanSnapshotExpiry, TagsAndBranchesKeepTheirSnapshots) {
  Json md = Chain(10);
  md["refs"]["v1"] = {{"snapshot-id", 2}, {"type", "tag"}};
  // A branch from snapshot 3 holding snapshot 11 (old), with its own retention of two.
  md["snapshots"].push_back(
      {{"snapshot-id", 11}, {"parent-snapshot-id", 3}, {"timestamp-ms", kNow - 8 * kDay}});
  md["refs"]["dev"] = {{"snapshot-id", 11}, {"type", "branch"}, {"min-snapshots-to-keep", 2}};
  ExpireOptions all;
  all.older_than_ms = kNow + 1;
  // main keeps 10; the tag keeps 2; dev keeps 11 and 3.
  EXPECT_EQ(Expired(md, all), (std::vector<int64_t>{1, 4, 5, 6, 7, 8, 9}));
}

TEST(PlanSnapshotExpiry, OldRefsGoByTheirMaxRefAge) {
  Json md = Chain(10);
  md["refs"]["old-tag"] = {{"snapshot-id", 1}, {"type", "tag"}, {"max-ref-age-ms", kDay}};
  md["refs"]["young-tag"] = {{"snapshot-id", 9}, {"type", "tag"}, {"max-ref-age-ms", 3 * kDay}};
  ExpireOptions options;
  options.now_ms = kNow;
  auto plan = PlanSnapshotExpiry(md, options);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->refs, (std::vector<std::string>{"old-tag"}));
  EXPECT_EQ(plan->snapshot_ids, (std::vector<int64_t>{1, 2, 3, 4}));
  // The table's max ref age applies to refs without their own; main is never removed.
  md["refs"]["plain-tag"] = {{"snapshot-id", 8}, {"type", "tag"}};
  md["properties"]["history.expire.max-ref-age-ms"] = "1";
  plan = PlanSnapshotExpiry(md, options);
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->refs, (std::vector<std::string>{"old-tag", "plain-tag"}));
}

TEST(PlanSnapshotExpiry, UnreferencedSnapshotsGoByAge) {
  Json md = Chain(3);
  md["snapshots"].push_back({{"snapshot-id", 20}, {"timestamp-ms", kNow - 9 * kDay}});
  md["snapshots"].push_back({{"snapshot-id", 21}, {"timestamp-ms", kNow - kDay}});
  EXPECT_EQ(Expired(md, {}), (std::vector<int64_t>{20}));
}

TEST(PlanSnapshotExpiry, ExplicitIdsButNeverARefHead) {
  Json md = Chain(5);
  ExpireOptions options;
  options.snapshot_ids = {4};
  EXPECT_EQ(Expired(md, options), (std::vector<int64_t>{4}));
  options.snapshot_ids = {5};
  options.now_ms = kNow;
  EXPECT_THAT(PlanSnapshotExpiry(md, options), HasErrorMessage("Still referenced by refs: [main]"));
}

TEST(PlanSnapshotExpiry, ACycleInACorruptDocumentEnds) {
  Json md = Chain(3);
  md["snapshots"][0]["parent-snapshot-id"] = 3;
  ExpireOptions all;
  all.older_than_ms = kNow + 1;
  EXPECT_EQ(Expired(md, all), (std::vector<int64_t>{1, 2}));
}

TEST(PlanSnapshotExpiry, VersionOneDocumentWithoutRefs) {
  Json md = Chain(4);
  md.erase("refs");
  ExpireOptions all;
  all.older_than_ms = kNow + 1;
  EXPECT_EQ(Expired(md, all), (std::vector<int64_t>{1, 2, 3}));
}

TEST(ExpiryUpdates, RefsThenSnapshots) {
  ExpirePlan plan{{3, 4}, {"old"}};
  const Json updates = ExpiryUpdates(plan);
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_EQ(updates[0]["action"], "remove-snapshot-ref");
  EXPECT_EQ(updates[0]["ref-name"], "old");
  EXPECT_EQ(updates[1]["action"], "remove-snapshots");
  EXPECT_EQ(updates[1]["snapshot-ids"], Json::array({3, 4}));
  EXPECT_TRUE(ExpiryUpdates(ExpirePlan{}).empty());
}

TEST(FilesOf, NamesTheDocumentsOwnFiles) {
  Json md = Chain(2);
  md["metadata-log"] = Json::array({{{"timestamp-ms", 1}, {"metadata-file", "/wh/t/metadata/0.json"}}});
  md["statistics"] = Json::array({{{"snapshot-id", 2}, {"statistics-path", "/wh/t/s.stats"}}});
  md["partition-statistics"] =
      Json::array({{{"snapshot-id", 2}, {"statistics-path", "/wh/t/p.parquet"}}});
  const DocumentFiles files = FilesOf(md);
  EXPECT_EQ(files.metadata_files, (std::set<std::string>{"/wh/t/metadata/0.json"}));
  EXPECT_EQ(files.manifest_lists.size(), 2u);
  EXPECT_EQ(files.statistics, (std::set<std::string>{"/wh/t/p.parquet", "/wh/t/s.stats"}));
}

TEST(BoolTableProperty, AnyCaseElseFallback) {
  Json md = {{"properties", {{"a", "TRUE"}, {"b", "false"}, {"c", "yes"}}}};
  EXPECT_TRUE(BoolTableProperty(md, "a", false));
  EXPECT_FALSE(BoolTableProperty(md, "b", true));
  EXPECT_TRUE(BoolTableProperty(md, "c", true));
  EXPECT_FALSE(BoolTableProperty(md, "missing", false));
}

}  // namespace
}  // namespace cairn::iceberg
