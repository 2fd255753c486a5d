// SPDX-License-Identifier: Apache-2.0
#include "iceberg/append_rebase.h"

#include <map>
#include <string>
#include <unordered_set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "iceberg/commit.h"
#include "manifest_list_schema.h"
#include "matchers.h"

namespace cairn::iceberg {
namespace {

using ::cairn::testing::HasErrorMessage;
using ::cairn::testing::IsError;
using ::cairn::testing::IsOk;

constexpr const char* kListSchema = ::cairn::testing::kManifestListSchema;

// Another writer's schema for the same columns: no key_metadata, fields in another order.
constexpr const char* kOtherListSchema = R"({"type": "record", "name": "manifest_file", "fields": [
  {"name": "manifest_path", "type": "string"},
  {"name": "manifest_length", "type": "long"},
  {"name": "partition_spec_id", "type": "int"},
  {"name": "content", "type": "int"},
  {"name": "min_sequence_number", "type": "long"},
  {"name": "sequence_number", "type": "long"},
  {"name": "added_snapshot_id", "type": "long"},
  {"name": "added_files_count", "type": "int"},
  {"name": "existing_files_count", "type": "int"},
  {"name": "deleted_files_count", "type": "int"},
  {"name": "added_rows_count", "type": "long"},
  {"name": "existing_rows_count", "type": "long"},
  {"name": "deleted_rows_count", "type": "long"},
  {"name": "partitions", "type": ["null", {"type": "array", "items": {"type": "record",
    "name": "r508", "fields": [
      {"name": "contains_null", "type": "boolean"},
      {"name": "contains_nan", "type": ["null", "boolean"]},
      {"name": "lower_bound", "type": ["null", "bytes"]},
      {"name": "upper_bound", "type": ["null", "bytes"]}]}}]}]})";

constexpr const char* kDir = "s3://b/t/metadata/";

struct MemIo {
  std::map<std::string, std::string> files;
  WrittenLists written_lists;
  RebaseIo Io() {
    return RebaseIo{[this](const std::string& location) -> Result<std::string> {
                      auto it = files.find(location);
                      if (it == files.end()) return NotFound(EntityKind::kNone, "{}", location);
                      return it->second;
                    },
                    [this](const std::string& location, const std::string& bytes) -> Status {
                      if (!files.emplace(location, bytes).second) {
                        return AlreadyExists(EntityKind::kNone, "{}", location);
                      }
                      return Ok();
                    },
                    &written_lists};
  }
};

Json Manifest(const std::string& name, int64_t added_by, int64_t seq, int added_files,
              int existing_files = 0) {
  return Json{{"manifest_path", std::string(kDir) + name},
              {"manifest_length", 4096},
              {"partition_spec_id", 0},
              {"content", 0},
              {"sequence_number", seq},
              {"min_sequence_number", seq},
              {"added_snapshot_id", added_by},
              {"added_files_count", added_files},
              {"existing_files_count", existing_files},
              {"deleted_files_count", 0},
              {"added_rows_count", added_files * 10},
              {"existing_rows_count", existing_files * 10},
              {"deleted_rows_count", 0},
              {"partitions", Json::array({Json{{"contains_null", false},
                                               {"contains_nan", nullptr},
                                               {"lower_bound", Json::binary({1, 0, 0, 0})},
                                               {"upper_bound", Json::binary({9, 0, 0, 0})}}})}};
}

std::string ListFile(const char* schema, int64_t snapshot_id, std::optional<int64_t> parent,
                     int64_t seq, std::vector<Json> manifests) {
  AvroFile file;
  file.schema = schema;
  file.metadata = {{"snapshot-id", std::to_string(snapshot_id)},
                   {"parent-snapshot-id", parent ? std::to_string(*parent) : "null"},
                   {"sequence-number", std::to_string(seq)},
                   {"format-version", "2"}};
  file.records = std::move(manifests);
  auto bytes = WriteAvroFile(file);
  EXPECT_THAT(bytes, IsOk());
  return bytes ? *bytes : std::string();
}

Json Summary(const char* operation, int files, int64_t totals_files) {
  return Json{{"operation", operation},
              {"added-data-files", std::to_string(files)},
              {"added-records", std::to_string(files * 10)},
              {"added-files-size", std::to_string(files * 100)},
              {"changed-partition-count", "1"},
              {"total-records", std::to_string(totals_files * 10)},
              {"total-files-size", std::to_string(totals_files * 100)},
              {"total-data-files", std::to_string(totals_files)},
              {"total-delete-files", "0"},
              {"total-position-deletes", "0"},
              {"total-equality-deletes", "0"}};
}

// Snapshot P = 1 (one file), then C = 2 appended concurrently (one file) and landed; S = 3 was
// written against P (one file).
class RebaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io_.files[std::string(kDir) + "snap-1.avro"] =
        ListFile(kListSchema, 1, std::nullopt, 1, {Manifest("m-p.avro", 1, 1, 1)});
    io_.files[std::string(kDir) + "snap-2.avro"] = ListFile(
        kOtherListSchema, 2, 1, 2, {Manifest("m-c.avro", 2, 2, 1), Manifest("m-p.avro", 1, 1, 1)});
    io_.files[std::string(kDir) + "snap-3.avro"] = ListFile(
        kListSchema, 3, 1, 2, {Manifest("m-s.avro", 3, 2, 2), Manifest("m-p.avro", 1, 1, 1)});
    current_ = Json::parse(R"({
      "format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
      "location": "s3://b/t", "last-sequence-number": 2, "last-updated-ms": 1600000002000,
      "last-column-id": 1, "current-schema-id": 0,
      "schemas": [{"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": true, "type": "long"}]}],
      "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}],
      "last-partition-id": 999, "default-sort-order-id": 0,
      "sort-orders": [{"order-id": 0, "fields": []}], "properties": {},
      "current-snapshot-id": 2, "refs": {"main": {"snapshot-id": 2, "type": "branch"}},
      "snapshots": [], "statistics": [], "partition-statistics": [],
      "snapshot-log": [{"timestamp-ms": 1600000001000, "snapshot-id": 1},
                       {"timestamp-ms": 1600000002000, "snapshot-id": 2}],
      "metadata-log": []})");
    current_["snapshots"] =
        Json::array({Snapshot(1, std::nullopt, 1, 1600000001000, Summary("append", 1, 1)),
                     Snapshot(2, 1, 2, 1600000002000, Summary("append", 1, 2))});
    requirements_ = Json::parse(R"([
      {"type": "assert-table-uuid", "uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1"},
      {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 1}])");
    updates_ =
        Json::array({Json{{"action", "add-snapshot"},
                          {"snapshot", Snapshot(3, 1, 2, 1600000001500, Summary("append", 2, 3))}},
                     Json{{"action", "set-snapshot-ref"},
                          {"ref-name", "main"},
                          {"type", "branch"},
                          {"snapshot-id", 3}}});
  }

  static Json Snapshot(int64_t id, std::optional<int64_t> parent, int64_t seq, int64_t ts,
                       Json summary) {
    Json s = Json::object();
    s["snapshot-id"] = id;
    if (parent) s["parent-snapshot-id"] = *parent;
    s["sequence-number"] = seq;
    s["timestamp-ms"] = ts;
    s["manifest-list"] = std::string(kDir) + "snap-" + std::to_string(id) + ".avro";
    s["summary"] = std::move(summary);
    s["schema-id"] = 0;
    return s;
  }

  void ExpectConflictAndNothingWritten(const char* why) {
    const size_t before = io_.files.size();
    auto result = RebaseAppend(current_, requirements_, updates_, io_.Io());
    EXPECT_THAT(result, IsError(ErrorCode::kConflict));
    EXPECT_THAT(result, HasErrorMessage(why));
    EXPECT_EQ(io_.files.size(), before);
  }

  // S lands rebased as S'; U (id 4) lands on S' by another writer. Returns S''s records (the
  // list the rebase wrote, read back), with current_ at U and `requirements`/`updates` for T
  // (id 5), written on S'.
  std::vector<Json> LandSThenU(Json* requirements, Json* updates) {
    auto first = RebaseAppend(current_, requirements_, updates_, io_.Io());
    EXPECT_THAT(first, IsOk());
    if (!first) return {};
    Json s_prime = first->second[0]["snapshot"];
    auto s_file = ReadAvroFile(io_.files[s_prime["manifest-list"].get<std::string>()]);
    EXPECT_THAT(s_file, IsOk());
    if (!s_file) return {};
    std::vector<Json> u_manifests = {Manifest("m-u.avro", 4, 4, 1)};
    for (const auto& m : s_file->records) u_manifests.push_back(m);
    io_.files[std::string(kDir) + "snap-4.avro"] =
        ListFile(kListSchema, 4, 3, 4, std::move(u_manifests));
    current_["snapshots"].push_back(s_prime);
    current_["snapshots"].push_back(
        Snapshot(4, 3, 4, 1600000004000, Summary("append", 1, 5)));
    current_["last-sequence-number"] = 4;
    current_["current-snapshot-id"] = 4;
    current_["refs"]["main"]["snapshot-id"] = 4;
    *requirements = requirements_;
    (*requirements)[1]["snapshot-id"] = 3;
    *updates = updates_;
    (*updates)[0]["snapshot"] = Snapshot(5, 3, 4, 1600000003500, Summary("append", 1, 5));
    (*updates)[1]["snapshot-id"] = 5;
    return s_file->records;
  }

  MemIo io_;
  Json current_;
  Json requirements_;
  Json updates_;
};

TEST(AvroFileTest, RoundTripsRecordsAndMetadata) {
  AvroFile file;
  file.schema = kListSchema;
  file.metadata = {{"snapshot-id", "7"}, {"format-version", "2"}};
  Json with_key = Manifest("a.avro", 7, 3, 2);
  with_key["key_metadata"] = Json::binary({0xff, 0x00, 0x7f});
  Json without_partitions = Manifest("b.avro", 6, 2, 1);
  without_partitions["partitions"] = nullptr;
  file.records = {with_key, without_partitions};
  auto bytes = WriteAvroFile(file);
  ASSERT_THAT(bytes, IsOk());
  EXPECT_EQ(bytes->substr(0, 4), std::string("Obj\x01", 4));
  auto read = ReadAvroFile(*bytes);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->schema, kListSchema);
  EXPECT_EQ(read->metadata, file.metadata);
  ASSERT_EQ(read->records.size(), 2U);
  EXPECT_EQ(read->records[0], with_key);
  without_partitions["key_metadata"] = nullptr;
  EXPECT_EQ(read->records[1], without_partitions);
}

TEST(AvroFileTest, RejectsMalformedInput) {
  EXPECT_THAT(ReadAvroFile("nope"), IsError(ErrorCode::kInvalidArgument));
  AvroFile file;
  file.schema = kListSchema;
  file.records = {Manifest("a.avro", 7, 3, 2)};
  auto bytes = WriteAvroFile(file);
  ASSERT_THAT(bytes, IsOk());
  EXPECT_THAT(ReadAvroFile(bytes->substr(0, bytes->size() - 3)),
              IsError(ErrorCode::kInvalidArgument));
  std::string bad_sync = *bytes;
  bad_sync.back() = static_cast<char>(bad_sync.back() ^ 1);
  EXPECT_THAT(ReadAvroFile(bad_sync), IsError(ErrorCode::kInvalidArgument));
  // Records that do not fit the schema.
  Json missing = Manifest("a.avro", 7, 3, 2);
  missing.erase("manifest_length");
  file.records = {missing};
  EXPECT_THAT(WriteAvroFile(file), IsError(ErrorCode::kInvalidArgument));
  Json extra = Manifest("a.avro", 7, 3, 2);
  extra["first_row_id"] = 5;
  file.records = {extra};
  EXPECT_THAT(WriteAvroFile(file), IsError(ErrorCode::kInvalidArgument));
  file.schema = "{not a schema";
  file.records = {};
  EXPECT_THAT(WriteAvroFile(file), IsError(ErrorCode::kInvalidArgument));
}

TEST_F(RebaseTest, RebasesConcurrentAppend) {
  auto result = RebaseAppend(current_, requirements_, updates_, io_.Io());
  ASSERT_THAT(result, IsOk());
  const auto& [requirements, updates] = *result;
  EXPECT_EQ(requirements[0], requirements_[0]);
  EXPECT_EQ(requirements[1]["snapshot-id"], 2);
  ASSERT_EQ(updates.size(), 2U);
  EXPECT_EQ(updates[1], updates_[1]);
  const Json& s = updates[0]["snapshot"];
  EXPECT_EQ(s["snapshot-id"], 3);
  EXPECT_EQ(s["parent-snapshot-id"], 2);
  EXPECT_EQ(s["sequence-number"], 3);
  EXPECT_EQ(s["timestamp-ms"], 1600000002000);  // not before main's
  EXPECT_EQ(s["schema-id"], 0);
  EXPECT_EQ(s["summary"]["operation"], "append");
  EXPECT_EQ(s["summary"]["added-data-files"], "2");
  EXPECT_EQ(s["summary"]["total-data-files"], "4");
  EXPECT_EQ(s["summary"]["total-records"], "40");
  EXPECT_EQ(s["summary"]["total-files-size"], "400");
  EXPECT_EQ(s["summary"]["total-delete-files"], "0");
  EXPECT_EQ(s["summary"]["total-position-deletes"], "0");
  EXPECT_EQ(s["summary"]["total-equality-deletes"], "0");
  EXPECT_EQ(s["summary"]["changed-partition-count"], "1");

  const std::string list = s["manifest-list"].get<std::string>();
  EXPECT_TRUE(list.starts_with(std::string(kDir) + "snap-3-rebased-")) << list;
  EXPECT_TRUE(list.ends_with(".avro")) << list;
  ASSERT_EQ(io_.files.count(list), 1U);
  EXPECT_EQ(io_.files.size(), 4U);
  auto file = ReadAvroFile(io_.files[list]);
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->schema, kListSchema);
  using Meta = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(file->metadata, (Meta{{"snapshot-id", "3"},
                                  {"parent-snapshot-id", "2"},
                                  {"sequence-number", "3"},
                                  {"format-version", "2"}}));
  ASSERT_EQ(file->records.size(), 3U);
  Json m_s = Manifest("m-s.avro", 3, 3, 2);
  m_s["key_metadata"] = nullptr;
  Json m_c = Manifest("m-c.avro", 2, 2, 1);
  m_c["key_metadata"] = nullptr;
  Json m_p = Manifest("m-p.avro", 1, 1, 1);
  m_p["key_metadata"] = nullptr;
  EXPECT_EQ(file->records[0], m_s);
  EXPECT_EQ(file->records[1], m_c);
  EXPECT_EQ(file->records[2], m_p);

  // The rewritten commit applies on the current table.
  EXPECT_THAT(CheckTableRequirements(&current_, requirements), IsOk());
  auto applied = ApplyTableUpdates(&current_, updates, 1600000003000);
  ASSERT_THAT(applied, IsOk());
  EXPECT_EQ((*applied)["current-snapshot-id"], 3);
  EXPECT_EQ((*applied)["last-sequence-number"], 3);
}

TEST_F(RebaseTest, RebasesOverSeveralAppendsAndFromAnEmptyTable) {
  // Main did not exist when S was written; C is now the table's first snapshot.
  current_["snapshots"] =
      Json::array({Snapshot(2, std::nullopt, 1, 1600000002000, Summary("append", 1, 1))});
  current_["last-sequence-number"] = 1;
  current_["snapshot-log"] = Json::parse(R"([{"timestamp-ms": 1600000002000, "snapshot-id": 2}])");
  io_.files[std::string(kDir) + "snap-2.avro"] =
      ListFile(kListSchema, 2, std::nullopt, 1, {Manifest("m-c.avro", 2, 1, 1)});
  io_.files[std::string(kDir) + "snap-3.avro"] =
      ListFile(kListSchema, 3, std::nullopt, 1, {Manifest("m-s.avro", 3, 1, 2)});
  requirements_[1]["snapshot-id"] = nullptr;
  updates_[0]["snapshot"].erase("parent-snapshot-id");
  updates_[0]["snapshot"]["sequence-number"] = 1;
  auto result = RebaseAppend(current_, requirements_, updates_, io_.Io());
  ASSERT_THAT(result, IsOk());
  const Json& s = result->second[0]["snapshot"];
  EXPECT_EQ(s["parent-snapshot-id"], 2);
  EXPECT_EQ(s["sequence-number"], 2);
  EXPECT_EQ(s["summary"]["total-data-files"], "3");
  auto file = ReadAvroFile(io_.files[s["manifest-list"].get<std::string>()]);
  ASSERT_THAT(file, IsOk());
  ASSERT_EQ(file->records.size(), 2U);
  EXPECT_EQ(file->records[0]["sequence_number"], 2);
  EXPECT_EQ(file->records[0]["min_sequence_number"], 2);
  EXPECT_EQ(file->records[1]["manifest_path"], std::string(kDir) + "m-c.avro");
}

TEST_F(RebaseTest, DropsTotalsMainDoesNotHave) {
  current_["snapshots"][1]["summary"].erase("total-records");
  auto result = RebaseAppend(current_, requirements_, updates_, io_.Io());
  ASSERT_THAT(result, IsOk());
  const Json& summary = result->second[0]["snapshot"]["summary"];
  EXPECT_FALSE(summary.contains("total-records"));
  EXPECT_EQ(summary["total-data-files"], "4");
}

TEST_F(RebaseTest, RefusesNonAppends) {
  updates_[0]["snapshot"]["summary"]["operation"] = "overwrite";
  ExpectConflictAndNothingWritten("not an append with");
  updates_[0]["snapshot"]["summary"]["operation"] = "delete";
  ExpectConflictAndNothingWritten("not an append with");
}

TEST_F(RebaseTest, RefusesWhenTheConcurrentCommitIsNotAnAppend) {
  current_["snapshots"][1]["summary"]["operation"] = "delete";
  ExpectConflictAndNothingWritten("concurrent commit is not an append");
}

TEST_F(RebaseTest, RefusesAnotherFailingRequirement) {
  requirements_[0]["uuid"] = "00000000-0000-0000-0000-000000000000";
  ExpectConflictAndNothingWritten("UUID does not match");
}

TEST_F(RebaseTest, RefusesAnIdTheTableHasWhetherItLooksOrIsTold) {
  const Json appended = updates_;
  updates_[0]["snapshot"]["snapshot-id"] = 2;  // main's own
  updates_[1]["snapshot-id"] = 2;
  ExpectConflictAndNothingWritten("the snapshot id exists");
  // Told the table's ids, it looks nowhere else: a set naming S's id refuses it, and one
  // without it lets the same append through.
  updates_ = appended;
  std::unordered_set<int64_t> ids;
  for (const auto& s : current_["snapshots"]) ids.insert(s["snapshot-id"].get<int64_t>());
  RebaseIo io = io_.Io();
  io.snapshot_ids = &ids;
  EXPECT_THAT(RebaseAppend(current_, requirements_, updates_, io), IsOk());
  ids.insert(updates_[0]["snapshot"]["snapshot-id"].get<int64_t>());
  auto refused = RebaseAppend(current_, requirements_, updates_, io);
  EXPECT_THAT(refused, IsError(ErrorCode::kConflict));
  EXPECT_THAT(refused, HasErrorMessage("the snapshot id exists"));
}

TEST_F(RebaseTest, RefusesWhenMainDidNotMove) {
  requirements_[1]["snapshot-id"] = 2;
  updates_[0]["snapshot"]["parent-snapshot-id"] = 2;
  ExpectConflictAndNothingWritten("main has not moved");
}

TEST_F(RebaseTest, RefusesWhenTheParentIsNotAnAncestor) {
  current_["snapshots"][1].erase("parent-snapshot-id");
  ExpectConflictAndNothingWritten("not an ancestor");
}

TEST_F(RebaseTest, RefusesASchemaChange) {
  current_["schemas"].push_back(Json::parse(
      R"({"type": "struct", "schema-id": 1, "fields": [{"id": 1, "name": "id", "required": true, "type": "long"},
         {"id": 2, "name": "x", "required": false, "type": "int"}]})"));
  current_["current-schema-id"] = 1;
  ExpectConflictAndNothingWritten("schema changed");
}

TEST_F(RebaseTest, RefusesOtherUpdateShapes) {
  updates_.push_back(Json{{"action", "set-current-schema"}, {"schema-id", 0}});
  ExpectConflictAndNothingWritten("not [add-snapshot");
  updates_.erase(2);
  updates_.push_back(updates_[1]);  // a second ref
  ExpectConflictAndNothingWritten("not [add-snapshot");
  updates_.erase(2);
  updates_[1]["ref-name"] = "dev";
  ExpectConflictAndNothingWritten("not set as the main");
}

// What Trino sends with every INSERT: the new snapshot's statistics file in the same commit.
Json StatisticsOf(int64_t snapshot) {
  return Json{
      {"action", "set-statistics"},
      {"snapshot-id", snapshot},
      {"statistics",
       {{"snapshot-id", snapshot},
        {"statistics-path", "s3://b/t/metadata/stats-" + std::to_string(snapshot) + ".puffin"},
        {"file-size-in-bytes", 413},
        {"file-footer-size-in-bytes", 313},
        {"blob-metadata", Json::array()}}}};
}

TEST_F(RebaseTest, CarriesTheNewSnapshotsStatisticsAndPropertiesOver) {
  updates_.push_back(StatisticsOf(3));
  updates_.push_back(Json{{"action", "set-properties"}, {"updates", {{"trino.written", "1"}}}});
  auto result = RebaseAppend(current_, requirements_, updates_, io_.Io());
  ASSERT_THAT(result, IsOk());
  const auto& [requirements, updates] = *result;
  ASSERT_EQ(updates.size(), 4U);
  EXPECT_EQ(updates[0]["snapshot"]["parent-snapshot-id"], 2);
  EXPECT_EQ(updates[1], updates_[1]);
  EXPECT_EQ(updates[2], updates_[2]);
  EXPECT_EQ(updates[3], updates_[3]);
  EXPECT_THAT(CheckTableRequirements(&current_, requirements), IsOk());
  auto applied = ApplyTableUpdates(&current_, updates, 1600000003000);
  ASSERT_THAT(applied, IsOk());
  EXPECT_EQ((*applied)["current-snapshot-id"], 3);
  ASSERT_EQ((*applied)["statistics"].size(), 1U);
  EXPECT_EQ((*applied)["statistics"][0]["snapshot-id"], 3);
  EXPECT_EQ((*applied)["properties"]["trino.written"], "1");
}

TEST_F(RebaseTest, CarriesOverStatisticsThatComeBeforeTheRef) {
  updates_.insert(updates_.begin() + 1, StatisticsOf(3));
  auto result = RebaseAppend(current_, requirements_, updates_, io_.Io());
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->second[1], updates_[1]);
  EXPECT_EQ(result->second[2]["snapshot-id"], 3);
}

TEST_F(RebaseTest, RefusesStatisticsOfAnotherSnapshot) {
  updates_.push_back(StatisticsOf(2));  // main's: computed without this append's rows
  ExpectConflictAndNothingWritten("statistics are not those of the appended snapshot");
  updates_.erase(2);
  Json mixed = StatisticsOf(3);
  mixed["snapshot-id"] = 2;
  updates_.push_back(mixed);
  ExpectConflictAndNothingWritten("statistics are not those of the appended snapshot");
}

TEST_F(RebaseTest, RefusesOtherFormatVersions) {
  current_["format-version"] = 3;
  ExpectConflictAndNothingWritten("format version 2");
}

TEST_F(RebaseTest, RefusesUnreadableManifestLists) {
  io_.files.erase(std::string(kDir) + "snap-2.avro");
  ExpectConflictAndNothingWritten("cannot read manifest list");
  io_.files[std::string(kDir) + "snap-2.avro"] = "garbage";
  ExpectConflictAndNothingWritten("not an Avro object container");
}

TEST_F(RebaseTest, RefusesMergedManifests) {
  // S merged P's manifest into its own: its list no longer is P's plus new manifests.
  io_.files[std::string(kDir) + "snap-3.avro"] =
      ListFile(kListSchema, 3, 1, 2, {Manifest("m-s.avro", 3, 2, 2, 1)});
  ExpectConflictAndNothingWritten("not plain added data files");
  io_.files[std::string(kDir) + "snap-3.avro"] =
      ListFile(kListSchema, 3, 1, 2, {Manifest("m-s.avro", 3, 2, 2)});
  ExpectConflictAndNothingWritten("not its parent's plus");
}

TEST_F(RebaseTest, ComparesTheParentsManifestsInAnyOrder) {
  // P's list holds two manifests; S's list carries them in the other order.
  io_.files[std::string(kDir) + "snap-1.avro"] =
      ListFile(kListSchema, 1, std::nullopt, 1,
               {Manifest("m-p.avro", 1, 1, 1), Manifest("m-q.avro", 1, 1, 1)});
  io_.files[std::string(kDir) + "snap-3.avro"] =
      ListFile(kListSchema, 3, 1, 2,
               {Manifest("m-s.avro", 3, 2, 2), Manifest("m-q.avro", 1, 1, 1),
                Manifest("m-p.avro", 1, 1, 1)});
  EXPECT_THAT(RebaseAppend(current_, requirements_, updates_, io_.Io()), IsOk());
  // A manifest twice is not the same as once.
  io_.files[std::string(kDir) + "snap-3.avro"] =
      ListFile(kListSchema, 3, 1, 2,
               {Manifest("m-s.avro", 3, 2, 2), Manifest("m-p.avro", 1, 1, 1),
                Manifest("m-p.avro", 1, 1, 1)});
  ExpectConflictAndNothingWritten("not its parent's plus");
}

std::vector<std::string> PathsOf(const std::string& bytes) {
  auto file = ReadAvroFile(bytes);
  EXPECT_THAT(file, IsOk());
  std::vector<std::string> paths;
  if (file) {
    for (const auto& m : file->records) paths.push_back(m["manifest_path"].get<std::string>());
  }
  return paths;
}

// Then T, written on S' (its own manifest plus S''s), is rebased onto U: the lists written by
// the first rebase are used without being read back, and T's list is read only as far as its
// own manifest, since the rest is S''s records byte for byte. The result is the same as from
// the files.
TEST_F(RebaseTest, RebasesOntoAListItWrote) {
  Json requirements;
  Json updates;
  const std::vector<Json> s_records = LandSThenU(&requirements, &updates);
  ASSERT_FALSE(s_records.empty());
  std::vector<Json> t_manifests = {Manifest("m-t.avro", 5, 4, 1)};
  for (const auto& m : s_records) t_manifests.push_back(m);
  io_.files[std::string(kDir) + "snap-5.avro"] =
      ListFile(kListSchema, 5, 3, 4, std::move(t_manifests));
  const WrittenLists::Reads before = io_.written_lists.reads();
  auto second = RebaseAppend(current_, requirements, updates, io_.Io());
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(io_.written_lists.reads().own_records_only, before.own_records_only + 1);
  EXPECT_EQ(io_.written_lists.reads().whole, before.whole);
  const Json& t = second->second[0]["snapshot"];
  EXPECT_EQ(t["parent-snapshot-id"], 4);
  EXPECT_EQ(t["sequence-number"], 5);
  const std::string& t_bytes = io_.files[t["manifest-list"].get<std::string>()];
  EXPECT_EQ(PathsOf(t_bytes), (std::vector<std::string>{
                                  std::string(kDir) + "m-t.avro", std::string(kDir) + "m-u.avro",
                                  std::string(kDir) + "m-s.avro", std::string(kDir) + "m-c.avro",
                                  std::string(kDir) + "m-p.avro"}));
  auto t_file = ReadAvroFile(t_bytes);
  ASSERT_THAT(t_file, IsOk());
  EXPECT_EQ(t_file->records[0]["sequence_number"], 5);
  EXPECT_EQ(t_file->records[1], ReadAvroFile(io_.files[std::string(kDir) + "snap-4.avro"])
                                    ->records[0]);  // U's manifest, as U wrote it
}

// When T's list does not end with S''s records as they were written, it is read whole and
// judged by its manifests' paths as before: a changed field of an inherited manifest still
// rebases (the new list takes main's manifests, not T's copies), a manifest twice does not, and
// neither does one of T's own placed after the inherited ones with a parent's missing.
TEST_F(RebaseTest, ReadsTheWholeListWhenItDoesNotEndWithItsParentsRecords) {
  Json requirements;
  Json updates;
  const std::vector<Json> s_records = LandSThenU(&requirements, &updates);
  ASSERT_FALSE(s_records.empty());
  const std::string t_list = std::string(kDir) + "snap-5.avro";

  std::vector<Json> changed = {Manifest("m-t.avro", 5, 4, 1)};
  for (const auto& m : s_records) changed.push_back(m);
  changed.back()["manifest_length"] = 1;
  io_.files[t_list] = ListFile(kListSchema, 5, 3, 4, changed);
  WrittenLists::Reads before = io_.written_lists.reads();
  auto rebased = RebaseAppend(current_, requirements, updates, io_.Io());
  ASSERT_THAT(rebased, IsOk());
  EXPECT_EQ(io_.written_lists.reads().whole, before.whole + 1);
  EXPECT_EQ(io_.written_lists.reads().own_records_only, before.own_records_only);
  auto out = ReadAvroFile(io_.files[rebased->second[0]["snapshot"]["manifest-list"]]);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->records.back()["manifest_length"], 4096);

  std::vector<Json> twice = {Manifest("m-t.avro", 5, 4, 1), s_records.front()};
  for (const auto& m : s_records) twice.push_back(m);
  io_.files[t_list] = ListFile(kListSchema, 5, 3, 4, twice);
  requirements_ = requirements;
  updates_ = updates;
  before = io_.written_lists.reads();
  ExpectConflictAndNothingWritten("not its parent's plus");
  EXPECT_EQ(io_.written_lists.reads().whole, before.whole + 1);

  std::vector<Json> dropped(s_records.begin(), s_records.end() - 1);
  dropped.push_back(Manifest("m-t.avro", 5, 4, 1));
  io_.files[t_list] = ListFile(kListSchema, 5, 3, 4, dropped);
  ExpectConflictAndNothingWritten("not its parent's plus");
}

// A list's records as a chain: each rebased list's own segment in front of the list it was
// written on. The chain compares and lists paths across its segments, and a chain as deep as a
// long-lived hot table's (one segment per commit) is let go without running out of stack.
TEST(RecordChainTest, ComparesAndListsAcrossSegmentsAndReleasesDeepChains) {
  auto segment = [](std::string records, std::vector<std::string> paths,
                    std::shared_ptr<const RecordChain> rest) {
    auto c = std::make_shared<RecordChain>();
    c->count = static_cast<int64_t>(paths.size());
    c->paths = std::move(paths);
    c->total_count = c->count + (rest ? rest->total_count : 0);
    c->total_size = records.size() + (rest ? rest->total_size : 0);
    c->records = std::move(records);
    c->rest = std::move(rest);
    return std::shared_ptr<const RecordChain>(std::move(c));
  };
  auto oldest = segment("cc", {"c"}, nullptr);
  auto middle = segment("bbb", {"b1", "b2"}, oldest);
  auto newest = segment("a", {"a"}, middle);
  EXPECT_EQ(newest->total_count, 4);
  EXPECT_EQ(newest->total_size, 6u);
  EXPECT_TRUE(newest->Equals("abbbcc"));
  EXPECT_FALSE(newest->Equals("abbbcd"));
  EXPECT_FALSE(newest->Equals("abbbc"));
  EXPECT_FALSE(newest->Equals("abbbccc"));
  EXPECT_TRUE(middle->Equals("bbbcc"));
  EXPECT_EQ(newest->AllPaths(), (std::vector<std::string>{"a", "b1", "b2", "c"}));

  std::shared_ptr<const RecordChain> deep;
  for (int i = 0; i < 1'000'000; ++i) deep = segment("r", {}, std::move(deep));
  auto branch = segment("x", {}, deep);  // a second list on top of the same history
  EXPECT_EQ(branch->total_size, 1'000'001u);
  deep.reset();  // the history stays alive through `branch`
  EXPECT_TRUE(branch->Equals("x" + std::string(1'000'000, 'r')));
  branch.reset();  // and goes with it, one segment at a time
}

}  // namespace
}  // namespace cairn::iceberg
