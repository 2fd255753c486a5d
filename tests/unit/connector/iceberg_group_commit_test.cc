// SPDX-License-Identifier: Apache-2.0
// Group commit in IcebergCatalog::CommitTable, against a SQLite store and a temporary warehouse:
// concurrent commits to one table land exactly once, each checked as if alone.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "catalog_rows.h"
#include "iceberg/append_rebase.h"
#include "iceberg/table_metadata.h"
#include "manifest_list_schema.h"
#include "matchers.h"
#include "store/metadata_store.h"

namespace cairn::connector {
namespace {

namespace fs = std::filesystem;
using cairn::testing::HasErrorMessage;
using cairn::testing::IsError;
using cairn::testing::IsOk;
using Json = nlohmann::ordered_json;

constexpr const char* kListSchema = ::cairn::testing::kManifestListSchema;

const Namespace kNs = {"db"};

class GroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cairn-group-commit-" + RandomUuid());
    fs::create_directories(root_);
    store::StoreOptions options;
    options.sqlite_path = (root_ / "cairn.db").string();
    options.pool_size = 8;
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    auto info = cairn::testing::InsertCatalogRows(*store_);
    ASSERT_THAT(info, IsOk());
    info_ = *info;
    catalog_ = std::make_unique<IcebergCatalog>(info_, *store_, (root_ / "wh").string(),
                                                MakeIcebergCaches(IcebergCacheOptions{}));
    ASSERT_THAT(catalog_->CreateNamespace(Ctx(), kNs, {}), IsOk());
    const nlohmann::json request =
        nlohmann::json::parse(R"({"name": "t", "properties": {"format-version": "2"},
      "schema": {"type": "struct", "fields": [
        {"id": 1, "name": "id", "required": true, "type": "long"}]}})");
    ASSERT_THAT(catalog_->CreateTable(Ctx(), kNs, request, false), IsOk());
  }
  void TearDown() override {
    catalog_.reset();
    store_.reset();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  static CallContext Ctx() { return CallContext{"tester", NowMillis()}; }

  Json Metadata() {
    auto loaded = catalog_->LoadTable(kNs, "t");
    EXPECT_THAT(loaded, IsOk());
    return loaded ? Json::parse(*loaded->metadata_text) : Json();
  }

  std::string MetadataDir() const { return (root_ / "wh" / "db" / "t" / "metadata").string(); }

  // A fast append of snapshot `id` on top of main's head in `metadata`, as an engine sends it:
  // its manifest list holds its own manifest and the parent's. The list is written to
  // `*list_bytes` when given (the caller puts it in place), else to its file.
  TableCommit Append(const Json& metadata, int64_t id, std::string* list_bytes = nullptr) {
    std::optional<int64_t> parent;
    auto refs = metadata.find("refs");
    if (refs != metadata.end() && refs->contains("main"))
      parent = (*refs)["main"]["snapshot-id"].get<int64_t>();
    const int64_t seq = metadata.value("last-sequence-number", int64_t{0}) + 1;
    iceberg::AvroFile list;
    list.schema = kListSchema;
    list.metadata = {{"snapshot-id", std::to_string(id)},
                     {"parent-snapshot-id", parent ? std::to_string(*parent) : "null"},
                     {"sequence-number", std::to_string(seq)},
                     {"format-version", "2"}};
    list.records.push_back(Json{{"manifest_path", MetadataDir() + "/m-" + std::to_string(id)},
                                {"manifest_length", 4096},
                                {"partition_spec_id", 0},
                                {"content", 0},
                                {"sequence_number", seq},
                                {"min_sequence_number", seq},
                                {"added_snapshot_id", id},
                                {"added_files_count", 1},
                                {"existing_files_count", 0},
                                {"deleted_files_count", 0},
                                {"added_rows_count", 10},
                                {"existing_rows_count", 0},
                                {"deleted_rows_count", 0}});
    if (parent) {
      for (const auto& s : metadata["snapshots"]) {
        if (s["snapshot-id"] != *parent) continue;
        std::ifstream in(s["manifest-list"].get<std::string>(), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), {});
        auto parent_list = iceberg::ReadAvroFile(bytes);
        EXPECT_THAT(parent_list, IsOk());
        if (parent_list)
          for (auto& r : parent_list->records) list.records.push_back(std::move(r));
      }
    }
    auto bytes = iceberg::WriteAvroFile(list);
    EXPECT_THAT(bytes, IsOk());
    const std::string location = MetadataDir() + "/snap-" + std::to_string(id) + ".avro";
    if (list_bytes != nullptr) {
      *list_bytes = *bytes;
    } else {
      std::ofstream(location, std::ios::binary) << *bytes;
    }
    Json snapshot = {{"snapshot-id", id},
                     {"sequence-number", seq},
                     {"timestamp-ms", NowMillis()},
                     {"manifest-list", location},
                     {"summary",
                      {{"operation", "append"},
                       {"added-data-files", "1"},
                       {"added-records", "10"},
                       {"total-data-files", std::to_string(seq)},
                       {"total-records", std::to_string(seq * 10)}}},
                     {"schema-id", 0}};
    if (parent) snapshot["parent-snapshot-id"] = *parent;
    TableCommit commit;
    commit.ns = kNs;
    commit.name = "t";
    commit.requirements = nlohmann::json::array(
        {{{"type", "assert-ref-snapshot-id"},
          {"ref", "main"},
          {"snapshot-id", parent ? nlohmann::json(*parent) : nlohmann::json(nullptr)}}});
    commit.updates = nlohmann::json::array(
        {{{"action", "add-snapshot"}, {"snapshot", nlohmann::json::parse(snapshot.dump())}},
         {{"action", "set-snapshot-ref"},
          {"ref-name", "main"},
          {"type", "branch"},
          {"snapshot-id", id}}});
    return commit;
  }

  static TableCommit Updates(nlohmann::json requirements, nlohmann::json updates) {
    TableCommit commit;
    commit.ns = kNs;
    commit.name = "t";
    commit.requirements = std::move(requirements);
    commit.updates = std::move(updates);
    return commit;
  }

  // Every id in main's snapshot log exactly once, and main's ancestry holding all of them.
  void ExpectLanded(const std::set<int64_t>& ids) {
    const Json metadata = Metadata();
    std::map<int64_t, int> in_log;
    for (const auto& e : metadata["snapshot-log"]) ++in_log[e["snapshot-id"].get<int64_t>()];
    for (int64_t id : ids) EXPECT_EQ(in_log[id], 1) << "snapshot " << id;
    std::map<int64_t, Json> by_id;
    for (const auto& s : metadata["snapshots"]) by_id[s["snapshot-id"].get<int64_t>()] = s;
    std::set<int64_t> ancestry;
    for (Json id = metadata["current-snapshot-id"]; id.is_number();) {
      ancestry.insert(id.get<int64_t>());
      const Json& s = by_id[id.get<int64_t>()];
      id = s.contains("parent-snapshot-id") ? s["parent-snapshot-id"] : Json();
    }
    for (int64_t id : ids) EXPECT_EQ(ancestry.count(id), 1U) << "snapshot " << id;
    // The head's manifest list holds every snapshot's own manifest once (the lists the rebases
    // wrote carry each other's records on).
    const Json& head = by_id[metadata["current-snapshot-id"].get<int64_t>()];
    std::ifstream in(head["manifest-list"].get<std::string>(), std::ios::binary);
    auto list = iceberg::ReadAvroFile(std::string((std::istreambuf_iterator<char>(in)), {}));
    ASSERT_THAT(list, IsOk());
    std::map<std::string, int> manifests;
    for (const auto& m : list->records) ++manifests[m["manifest_path"].get<std::string>()];
    EXPECT_EQ(manifests.size(), by_id.size());
    for (const auto& [id, snapshot] : by_id) {
      EXPECT_EQ(manifests[MetadataDir() + "/m-" + std::to_string(id)], 1) << "snapshot " << id;
    }
  }

  fs::path root_;
  CatalogInfo info_;
  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<IcebergCatalog> catalog_;
};

TEST_F(GroupCommitTest, CatalogsWithTheirOwnCachesShareNothing) {
  // Two servers in one process over one store: each builds its own caches.
  IcebergCatalog other(info_, *store_, (root_ / "wh").string(),
                       MakeIcebergCaches(IcebergCacheOptions{}));
  IcebergCacheOptions none;
  none.metadata_cache_bytes = 0;
  none.commit_queue_idle_tables = 0;
  none.rebased_list_cache_entries = 0;
  IcebergCatalog uncached(info_, *store_, (root_ / "wh").string(), MakeIcebergCaches(none));
  auto created = catalog_->LoadTable(kNs, "t");
  ASSERT_THAT(created, IsOk());
  std::string path = created->metadata_location;
  if (path.rfind("file:", 0) == 0) path = path.substr(path.rfind("file://", 0) == 0 ? 7 : 5);
  ASSERT_THAT(other.LoadTable(kNs, "t"), IsOk());  // now in other's cache too
  // Metadata files are never rewritten; doing it here shows who reads the file and who
  // answers from memory.
  Json changed = Json::parse(*created->metadata_text);
  changed["properties"]["rewritten"] = "yes";
  {
    std::ofstream out(path, std::ios::trunc);
    out << changed.dump();
  }
  auto mine = catalog_->LoadTable(kNs, "t");
  ASSERT_THAT(mine, IsOk());
  EXPECT_EQ(*mine->metadata_text, *created->metadata_text);  // its own cache, written at create
  auto theirs = other.LoadTable(kNs, "t");
  ASSERT_THAT(theirs, IsOk());
  EXPECT_EQ(*theirs->metadata_text, *created->metadata_text);  // cached by its own first load
  auto read = uncached.LoadTable(kNs, "t");
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(*read->metadata_text, changed.dump());  // a zero-byte cache keeps nothing
  IcebergCatalog fresh(info_, *store_, (root_ / "wh").string(),
                       MakeIcebergCaches(IcebergCacheOptions{}));
  auto fresh_read = fresh.LoadTable(kNs, "t");
  ASSERT_THAT(fresh_read, IsOk());
  EXPECT_EQ(*fresh_read->metadata_text, changed.dump());  // nothing inherited from the others
}

TEST_F(GroupCommitTest, ConcurrentAppendsAllLandExactlyOnce) {
  constexpr int kThreads = 8;
  constexpr int kCommits = 8;
  std::atomic<int64_t> next_id{1000};
  std::vector<std::vector<int64_t>> acked(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCommits; ++i) {
        const int64_t id = next_id++;
        auto committed = catalog_->CommitTable(Ctx(), Append(Metadata(), id));
        ASSERT_THAT(committed, IsOk());
        // The answer holds the commit (maybe with others after it).
        EXPECT_NE(committed->metadata_text->find(std::to_string(id)), std::string::npos);
        acked[t].push_back(id);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<int64_t> ids;
  for (const auto& a : acked) ids.insert(a.begin(), a.end());
  ASSERT_EQ(ids.size(), static_cast<size_t>(kThreads * kCommits));
  ExpectLanded(ids);
  EXPECT_EQ(Metadata()["snapshots"].size(), ids.size());
}

// The leader of the first batch is held up (its stale append's manifest list is a FIFO nobody
// writes yet), so the commits sent meanwhile queue and go in the next batch together: appends,
// one whose requirement fails, a property change, a no-op, a stale schema assertion and an
// append whose updates fail.
TEST_F(GroupCommitTest, OneBatchAnswersEachCommitAsIfAlone) {
  ASSERT_THAT(catalog_->CommitTable(Ctx(), Append(Metadata(), 1)), IsOk());
  const Json base = Metadata();
  const std::string uuid = base["table-uuid"].get<std::string>();
  ASSERT_THAT(
      catalog_->CommitTable(Ctx(), Updates(nlohmann::json::array(),
                                           nlohmann::json::parse(R"([{"action": "set-properties",
                                             "updates": {"kept": "same"}}])"))),
      IsOk());
  ASSERT_THAT(catalog_->CommitTable(Ctx(), Append(Metadata(), 2)), IsOk());

  // Stale: built on snapshot 1, main is at 2 now, so the server rebases it and reads its list.
  std::string blocked_bytes;
  TableCommit blocked = Append(base, 3, &blocked_bytes);
  const std::string fifo = MetadataDir() + "/snap-3.avro";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::optional<Result<LoadedObject>> blocked_answer;
  std::thread leader([&] { blocked_answer = catalog_->CommitTable(Ctx(), blocked); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  const Json now = Metadata();
  std::vector<TableCommit> commits;
  for (int64_t id = 10; id < 16; ++id) commits.push_back(Append(now, id));  // all built on 2
  commits.push_back(Updates(  // a requirement that fails: alone it would be a 409
      nlohmann::json::parse(
          R"([{"type": "assert-table-uuid", "uuid": "00000000-0000-0000-0000-000000000000"}])"),
      nlohmann::json::parse(R"([{"action": "set-properties", "updates": {"bad": "x"}}])")));
  commits.push_back(Updates(nlohmann::json::array(), nlohmann::json::parse(R"([{"action":
    "set-properties", "updates": {"owner": "group"}}])")));
  commits.push_back(Updates(nlohmann::json::array(), nlohmann::json::parse(R"([{"action":
    "set-properties", "updates": {"kept": "same"}}])")));  // a no-op
  commits.push_back(Updates(
      nlohmann::json::parse(R"([{"type": "assert-current-schema-id", "current-schema-id": 7}])"),
      nlohmann::json::parse(R"([{"action": "set-properties", "updates": {"never": "x"}}])")));
  // A snapshot that exists: only applying it finds that out, after the appends before it were
  // handed the metadata so far (the batch is then redone without it).
  std::string unused;
  TableCommit existing = Append(now, 1, &unused);
  existing.requirements = nlohmann::json::array();
  commits.push_back(existing);
  commits.push_back(Append(now, 16));
  std::vector<std::optional<Result<LoadedObject>>> answers(commits.size());
  std::vector<std::thread> followers;
  for (size_t i = 0; i < commits.size(); ++i)
    followers.emplace_back([&, i] { answers[i] = catalog_->CommitTable(Ctx(), commits[i]); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::ofstream(fifo, std::ios::binary) << blocked_bytes;  // let the first batch go on
  leader.join();
  for (auto& th : followers) th.join();

  ASSERT_THAT(*blocked_answer, IsOk());
  std::set<std::string> locations;
  for (size_t i = 0; i < 6; ++i) {
    ASSERT_THAT(*answers[i], IsOk());
    locations.insert((*answers[i])->metadata_location);
  }
  EXPECT_THAT(*answers[6], IsError(ErrorCode::kConflict));
  EXPECT_THAT(*answers[6], HasErrorMessage("Requirement failed: UUID does not match: expected " +
                                           uuid + " != 00000000-0000-0000-0000-000000000000"));
  ASSERT_THAT(*answers[7], IsOk());
  ASSERT_THAT(*answers[8], IsOk());
  locations.insert((*answers[7])->metadata_location);
  locations.insert((*answers[8])->metadata_location);
  EXPECT_THAT(*answers[9], IsError(ErrorCode::kConflict));
  EXPECT_THAT(*answers[9],
              HasErrorMessage("Requirement failed: current schema changed: expected id 7 != 0"));
  EXPECT_THAT(*answers[10], IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(*answers[10], HasErrorMessage("Snapshot already exists for id: 1"));
  ASSERT_THAT(*answers[11], IsOk());
  locations.insert((*answers[11])->metadata_location);
  // Everything that landed landed in one metadata file, the current one.
  EXPECT_EQ(locations.size(), 1U);
  const Json after = Metadata();
  EXPECT_EQ(*locations.begin(), catalog_->LoadTable(kNs, "t")->metadata_location);
  EXPECT_EQ(after["properties"]["owner"], "group");
  EXPECT_EQ(after["properties"]["kept"], "same");
  EXPECT_FALSE(after["properties"].contains("bad"));
  EXPECT_FALSE(after["properties"].contains("never"));
  ExpectLanded({1, 2, 3, 10, 11, 12, 13, 14, 15, 16});
  // The failed commits wrote nothing that stays: every manifest list is a snapshot's.
  std::set<std::string> lists;
  for (const auto& s : after["snapshots"]) lists.insert(s["manifest-list"].get<std::string>());
  for (const auto& entry : fs::directory_iterator(MetadataDir())) {
    const std::string name = entry.path().filename().string();
    if (name.find("-rebased-") != std::string::npos) {
      EXPECT_EQ(lists.count(entry.path().string()), 1U) << name;
    }
  }
}

TEST_F(GroupCommitTest, ConcurrentCreateTransactionsOneWins) {
  const nlohmann::json requirements = nlohmann::json::parse(R"([{"type": "assert-create"}])");
  const nlohmann::json updates = nlohmann::json::parse(R"([
    {"action": "assign-uuid", "uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1"},
    {"action": "upgrade-format-version", "format-version": 2},
    {"action": "add-schema", "schema": {"type": "struct", "schema-id": 0, "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long"}]}, "last-column-id": 1},
    {"action": "set-current-schema", "schema-id": -1},
    {"action": "add-spec", "spec": {"spec-id": 0, "fields": []}},
    {"action": "set-default-spec", "spec-id": -1},
    {"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}},
    {"action": "set-default-sort-order", "sort-order-id": -1}])");
  constexpr int kThreads = 4;
  std::vector<std::optional<Result<LoadedObject>>> answers(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      TableCommit commit = Updates(requirements, updates);
      commit.name = "created";
      answers[t] = catalog_->CommitTable(Ctx(), commit);
    });
  }
  for (auto& th : threads) th.join();
  int created = 0;
  for (auto& answer : answers) {
    if (*answer) {
      ++created;
    } else {
      EXPECT_THAT(*answer, IsError(ErrorCode::kConflict));
      EXPECT_THAT(*answer, HasErrorMessage("Requirement failed: table already exists"));
    }
  }
  EXPECT_EQ(created, 1);
  EXPECT_THAT(catalog_->LoadTable(kNs, "created"), IsOk());
}

TEST_F(GroupCommitTest, MissingTableIsNotFound) {
  TableCommit commit = Updates(nlohmann::json::array(), nlohmann::json::parse(R"([{"action":
    "set-properties", "updates": {"a": "b"}}])"));
  commit.name = "absent";
  EXPECT_THAT(catalog_->CommitTable(Ctx(), commit), IsError(ErrorCode::kNotFound));
}

}  // namespace
}  // namespace cairn::connector
