// SPDX-License-Identifier: Apache-2.0
// The statistics service: which names a user may set, what is stored, partition ranges, and
// that a refused request writes nothing.
#include "service/statistics_service.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "governance/access_control.h"
#include "matchers.h"
#include "service/authorizer.h"
#include "store/metadata_store.h"

namespace cairn::service {
namespace {

using cairn::testing::IsOk;
using store::EntityRecord;
using store::EntityType;

class StatisticsServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    access_ = std::make_unique<governance::AccessControl>(*store_, governance::AccessConfig{});
    authz_ = std::make_unique<Authorizer>(*store_, *access_);
    stats_ = std::make_unique<StatisticsService>(*store_, *authz_);
    const int64_t lake = Insert(EntityType::kMetalake, 0, "m");
    const int64_t catalog = Insert(EntityType::kCatalog, lake, "c");
    schema_id_ = Insert(EntityType::kSchema, catalog, "s");
    table_id_ = Insert(EntityType::kTable, schema_id_, "t");
  }

  int64_t Insert(EntityType type, int64_t parent, const std::string& name) {
    EntityRecord r;
    r.type = type;
    r.parent_id = parent;
    r.name = name;
    r.payload = "{}";
    auto inserted = store_->Insert(r);
    EXPECT_THAT(inserted, IsOk());
    return inserted ? inserted->id : 0;
  }

  Caller caller(std::string who = "ana", int64_t now = 5) {
    principal_.user = who;
    return Caller{principal_, connector::CallContext{who, now, "test"}};
  }

  static model::StatisticsUpdate Values(std::vector<std::pair<std::string, std::string>> values,
                                        std::string partition = "") {
    model::StatisticsUpdate u;
    u.partition = std::move(partition);
    u.values = std::move(values);
    return u;
  }

  std::vector<EntityRecord> Rows(EntityType type) {
    auto rows = store_->List(type, table_id_, "", 0);
    EXPECT_THAT(rows, IsOk());
    return rows ? *rows : std::vector<EntityRecord>{};
  }

  std::vector<std::string> PartitionNames(const model::PartitionRange& range) {
    auto listed = stats_->ListPartitions(caller(), "m", "table", "c.s.t", range);
    EXPECT_THAT(listed, IsOk());
    std::vector<std::string> names;
    if (listed) {
      for (const auto& p : *listed) names.push_back(p.partition);
    }
    return names;
  }

  governance::Principal principal_{"ana", {}};
  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<governance::AccessControl> access_;
  std::unique_ptr<Authorizer> authz_;
  std::unique_ptr<StatisticsService> stats_;
  int64_t schema_id_ = 0;
  int64_t table_id_ = 0;
};

TEST_F(StatisticsServiceTest, SetValuesReadBackWithTheirCreator) {
  ASSERT_THAT(stats_->Update(caller(), "m", "table", "c.s.t",
                             Values({{"custom-rows", "42"}, {"custom-owner", R"("etl")"}})),
              IsOk());
  auto listed = stats_->List(caller(), "m", "table", "c.s.t");
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].name, "custom-owner");
  EXPECT_EQ((*listed)[0].value, R"("etl")");
  EXPECT_EQ((*listed)[1].name, "custom-rows");
  EXPECT_EQ((*listed)[1].value, "42");
  EXPECT_FALSE((*listed)[1].reserved);
  EXPECT_TRUE((*listed)[1].modifiable);
  EXPECT_EQ((*listed)[1].audit.creator, "ana");

  // A second writer changes the value; the creator stays, the modifier is the writer.
  ASSERT_THAT(
      stats_->Update(caller("bo", 9), "m", "table", "c.s.t", Values({{"custom-rows", "43"}})),
      IsOk());
  auto row = store_->Get(EntityType::kStatistic, table_id_, "custom-rows");
  ASSERT_THAT(row, IsOk());
  EXPECT_EQ(row->payload, "43");
  EXPECT_EQ(row->audit.creator, "ana");
  EXPECT_EQ(row->audit.last_modifier, "bo");
  EXPECT_EQ(row->audit.last_modified_time, 9);
}

TEST_F(StatisticsServiceTest, ANameOutsideCustomIsIllegalAndNothingIsWritten) {
  auto updated =
      stats_->Update(caller(), "m", "table", "c.s.t", Values({{"custom-a", "1"}, {"rows", "2"}}));
  ASSERT_FALSE(updated.has_value());
  EXPECT_EQ(updated.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(updated.error().entity, EntityKind::kStatistic);
  EXPECT_NE(updated.error().message.find("custom-"), std::string::npos);
  EXPECT_TRUE(Rows(EntityType::kStatistic).empty());  // all or nothing
}

TEST_F(StatisticsServiceTest, AReservedNameIsUnmodifiable) {
  for (const char* name : {"row_count", "snapshot_id", "total_size_bytes"}) {
    auto updated = stats_->Update(caller(), "m", "table", "c.s.t", Values({{name, "1"}}));
    ASSERT_FALSE(updated.has_value()) << name;
    EXPECT_EQ(updated.error().code, ErrorCode::kUnsupported) << name;
    EXPECT_EQ(updated.error().entity, EntityKind::kStatistic) << name;
    auto dropped = stats_->Drop(caller(), "m", "table", "c.s.t", {name});
    ASSERT_FALSE(dropped.has_value()) << name;
    EXPECT_EQ(dropped.error().code, ErrorCode::kUnsupported) << name;
  }
  EXPECT_TRUE(Rows(EntityType::kStatistic).empty());
}

TEST_F(StatisticsServiceTest, BadNamesAndValuesAreRefusedNamingTheField) {
  struct Case {
    std::string name;
    std::string value;
  } cases[] = {{"", "1"},
               {"custom-" + std::string(300, 'x'), "1"},
               {std::string("custom-a\0b", 10), "1"},
               {"custom-\x01", "1"},
               {"custom-\xff\xfe", "1"},
               {"custom-n", "null"},
               {"custom-big", "\"" + std::string(70 * 1024, 'v') + "\""}};
  for (const auto& c : cases) {
    auto updated = stats_->Update(caller(), "m", "table", "c.s.t", Values({{c.name, c.value}}));
    ASSERT_FALSE(updated.has_value()) << c.name.size();
    EXPECT_EQ(updated.error().code, ErrorCode::kInvalidArgument) << c.name.size();
    EXPECT_NE(updated.error().message.find("updates"), std::string::npos)
        << updated.error().message;
  }
  auto empty = stats_->Update(caller(), "m", "table", "c.s.t", Values({}));
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(Rows(EntityType::kStatistic).empty());
}

TEST_F(StatisticsServiceTest, OnlyTablesCarryStatistics) {
  auto listed = stats_->List(caller(), "m", "schema", "c.s");
  ASSERT_FALSE(listed.has_value());
  EXPECT_EQ(listed.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(listed.error().message.find("only supported for tables"), std::string::npos);
  auto missing = stats_->List(caller(), "m", "table", "c.s.nope");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  auto no_lake = stats_->Update(caller(), "zz", "table", "c.s.t", Values({{"custom-a", "1"}}));
  ASSERT_FALSE(no_lake.has_value());
  EXPECT_EQ(no_lake.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(no_lake.error().entity, EntityKind::kMetalake);
}

TEST_F(StatisticsServiceTest, DropSaysWhetherAnythingWent) {
  ASSERT_THAT(stats_->Update(caller(), "m", "table", "c.s.t",
                             Values({{"custom-a", "1"}, {"custom-b", "2"}})),
              IsOk());
  auto none = stats_->Drop(caller(), "m", "table", "c.s.t", {"custom-zz"});
  ASSERT_THAT(none, IsOk());
  EXPECT_FALSE(*none);
  auto some = stats_->Drop(caller(), "m", "table", "c.s.t", {"custom-a", "custom-zz"});
  ASSERT_THAT(some, IsOk());
  EXPECT_TRUE(*some);
  auto rows = Rows(EntityType::kStatistic);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "custom-b");
}

TEST_F(StatisticsServiceTest, ATableHoldsAtMostAThousandStatistics) {
  std::vector<std::pair<std::string, std::string>> values;
  for (int i = 0; i < 1000; ++i) values.emplace_back("custom-" + std::to_string(i), "1");
  ASSERT_THAT(stats_->Update(caller(), "m", "table", "c.s.t", Values(values)), IsOk());
  auto more = stats_->Update(caller(), "m", "table", "c.s.t",
                             Values({{"custom-0", "2"}, {"custom-extra", "1"}}));
  ASSERT_FALSE(more.has_value());
  EXPECT_EQ(more.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(Rows(EntityType::kStatistic).size(), 1000u);
  auto kept = store_->Get(EntityType::kStatistic, table_id_, "custom-0");
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(kept->payload, "1");  // the refused request changed nothing
}

TEST_F(StatisticsServiceTest, PartitionRangesFollowTheirBounds) {
  std::vector<model::StatisticsUpdate> updates;
  for (const char* p : {"p1", "p2", "p3", "p4"}) updates.push_back(Values({{"custom-n", "1"}}, p));
  ASSERT_THAT(stats_->UpdatePartitions(caller(), "m", "table", "c.s.t", updates), IsOk());
  EXPECT_EQ(Rows(EntityType::kPartitionStatistics).size(), 4u);

  using V = std::vector<std::string>;
  model::PartitionRange all;
  EXPECT_EQ(PartitionNames(all), (V{"p1", "p2", "p3", "p4"}));
  model::PartitionRange between;  // [p2, p4): Gravitino's default bounds
  between.from = "p2";
  between.to = "p4";
  EXPECT_EQ(PartitionNames(between), (V{"p2", "p3"}));
  between.from_inclusive = false;
  between.to_inclusive = true;
  EXPECT_EQ(PartitionNames(between), (V{"p3", "p4"}));
  model::PartitionRange up_to;
  up_to.to = "p2";
  up_to.to_inclusive = true;
  EXPECT_EQ(PartitionNames(up_to), (V{"p1", "p2"}));
  model::PartitionRange down_to;
  down_to.from = "p3";
  EXPECT_EQ(PartitionNames(down_to), (V{"p3", "p4"}));
  model::PartitionRange missing_bound;  // a bound that names no partition still bounds
  missing_bound.from = "p25";
  EXPECT_EQ(PartitionNames(missing_bound), (V{"p3", "p4"}));
  model::PartitionRange empty;
  empty.from = "p3";
  empty.to = "p2";
  EXPECT_TRUE(PartitionNames(empty).empty());
}

TEST_F(StatisticsServiceTest, PartitionStatisticsMergeAndDrop) {
  ASSERT_THAT(stats_->UpdatePartitions(caller(), "m", "table", "c.s.t",
                                       {Values({{"custom-a", "1"}}, "2024-01-01"),
                                        Values({{"custom-b", "[1,2]"}}, "2024-01-01")}),
              IsOk());
  ASSERT_THAT(stats_->UpdatePartitions(caller("bo", 7), "m", "table", "c.s.t",
                                       {Values({{"custom-a", R"({"x":true})"}}, "2024-01-01")}),
              IsOk());
  auto listed = stats_->ListPartitions(caller(), "m", "table", "c.s.t", {});
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->size(), 1u);
  const auto& stats = (*listed)[0].statistics;
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "custom-a");
  EXPECT_EQ(stats[0].value, R"({"x":true})");
  EXPECT_EQ(stats[0].audit.creator, "ana");
  EXPECT_EQ(stats[0].audit.last_modifier, "bo");
  EXPECT_EQ(stats[1].value, "[1,2]");

  auto unknown = stats_->DropPartitions(caller(), "m", "table", "c.s.t",
                                        {model::StatisticsDrop{"2024-01-02", {"custom-a"}}});
  ASSERT_THAT(unknown, IsOk());
  EXPECT_FALSE(*unknown);
  auto dropped =
      stats_->DropPartitions(caller(), "m", "table", "c.s.t",
                             {model::StatisticsDrop{"2024-01-01", {"custom-a", "custom-b"}}});
  ASSERT_THAT(dropped, IsOk());
  EXPECT_TRUE(*dropped);
  EXPECT_TRUE(Rows(EntityType::kPartitionStatistics).empty());  // an emptied partition goes
}

TEST_F(StatisticsServiceTest, APartitionUpdateIsAllOrNothing) {
  auto updated = stats_->UpdatePartitions(
      caller(), "m", "table", "c.s.t",
      {Values({{"custom-a", "1"}}, "p1"), Values({{"file_count", "1"}}, "p2")});
  ASSERT_FALSE(updated.has_value());
  EXPECT_EQ(updated.error().code, ErrorCode::kUnsupported);
  auto unnamed =
      stats_->UpdatePartitions(caller(), "m", "table", "c.s.t", {Values({{"custom-a", "1"}}, "")});
  ASSERT_FALSE(unnamed.has_value());
  EXPECT_EQ(unnamed.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(unnamed.error().message.find("updates[0].partitionName"), std::string::npos)
      << unnamed.error().message;
  EXPECT_TRUE(Rows(EntityType::kPartitionStatistics).empty());
}

TEST_F(StatisticsServiceTest, StatisticsGoWithTheTable) {
  ASSERT_THAT(stats_->Update(caller(), "m", "table", "c.s.t", Values({{"custom-a", "1"}})), IsOk());
  ASSERT_THAT(
      stats_->UpdatePartitions(caller(), "m", "table", "c.s.t", {Values({{"custom-a", "1"}}, "p")}),
      IsOk());
  auto deleted = store_->Delete(table_id_);
  ASSERT_THAT(deleted, IsOk());
  ASSERT_TRUE(*deleted);
  // A table of the same name made later starts with none.
  table_id_ = Insert(EntityType::kTable, schema_id_, "t");
  auto listed = stats_->List(caller(), "m", "table", "c.s.t");
  ASSERT_THAT(listed, IsOk());
  EXPECT_TRUE(listed->empty());
  EXPECT_TRUE(Rows(EntityType::kPartitionStatistics).empty());
}

TEST(IcebergSnapshotStatistics, ReadsTheCurrentSnapshotsSummary) {
  const std::string metadata = R"({
    "format-version": 2, "current-snapshot-id": 22,
    "snapshots": [
      {"snapshot-id": 11, "timestamp-ms": 100,
       "summary": {"operation": "append", "total-records": "5"}},
      {"snapshot-id": 22, "timestamp-ms": 200,
       "summary": {"operation": "append", "total-records": "12", "total-data-files": "3",
                   "total-delete-files": "0", "total-files-size": "4096",
                   "total-position-deletes": "0", "total-equality-deletes": "0"}}]})";
  model::Audit table_audit{"ana", 50, {}, {}};
  auto stats = IcebergSnapshotStatistics(metadata, table_audit);
  ASSERT_THAT(stats, IsOk());
  std::map<std::string, std::string> by_name;
  for (const auto& s : *stats) {
    EXPECT_TRUE(s.reserved);
    EXPECT_FALSE(s.modifiable);
    EXPECT_EQ(s.audit.create_time, 200);
    by_name[s.name] = s.value;
  }
  EXPECT_EQ(by_name["row_count"], "12");
  EXPECT_EQ(by_name["file_count"], "3");
  EXPECT_EQ(by_name["total_size_bytes"], "4096");
  EXPECT_EQ(by_name["snapshot_id"], "22");
  EXPECT_EQ(stats->size(), 7u);
  EXPECT_TRUE(std::is_sorted(stats->begin(), stats->end(),
                             [](const auto& a, const auto& b) { return a.name < b.name; }));
}

TEST(IcebergSnapshotStatistics, ATableWithNoSnapshotCountsZero) {
  auto stats = IcebergSnapshotStatistics(R"({"format-version":2,"current-snapshot-id":-1})",
                                         model::Audit{"ana", 50, {}, {}});
  ASSERT_THAT(stats, IsOk());
  ASSERT_EQ(stats->size(), 6u);  // no snapshot id
  for (const auto& s : *stats) {
    EXPECT_EQ(s.value, "0") << s.name;
    EXPECT_EQ(s.audit.create_time, 50);
  }
  auto broken = IcebergSnapshotStatistics("[1]", model::Audit{});
  EXPECT_FALSE(broken.has_value());
}

}  // namespace
}  // namespace cairn::service
