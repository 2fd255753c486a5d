// SPDX-License-Identifier: Apache-2.0
// IcebergCatalog with an IcebergMetastore holding its namespaces and pointers (catalog-backend
// hive), against a SQLite store and an in-memory metastore with the real one's rules: the
// metastore decides what exists, rows follow it, and a swap that loses is re-read and re-applied.
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include <gtest/gtest.h>

#include "catalog_rows.h"
#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "connector/iceberg/iceberg_metastore.h"
#include "matchers.h"
#include "store/metadata_store.h"

namespace cairn::connector {
namespace {

namespace fs = std::filesystem;
using cairn::testing::IsOk;

// Namespaces and pointers in memory. `steal_next_swap`: the next swap finds the pointer moved by
// another writer (to `stolen_to`) and loses, as a real metastore's compare-and-swap would.
class MemoryMetastore final : public IcebergMetastore {
 public:
  Result<std::vector<std::string>> ListNamespaces() override {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto& [ns, props] : namespaces_) out.push_back(ns);
    return out;
  }
  Result<std::optional<model::Properties>> LoadNamespace(const std::string& ns) override {
    std::lock_guard lock(mu_);
    auto it = namespaces_.find(ns);
    if (it == namespaces_.end()) return std::optional<model::Properties>();
    return std::optional<model::Properties>(it->second);
  }
  Status CreateNamespace(const std::string& ns, const model::Properties& props) override {
    std::lock_guard lock(mu_);
    if (!namespaces_.emplace(ns, props).second) return AlreadyExists(EntityKind::kSchema, "{}", ns);
    return Ok();
  }
  Status UpdateNamespace(const std::string& ns, const model::Properties& updates,
                         const std::vector<std::string>& removals) override {
    std::lock_guard lock(mu_);
    auto& props = namespaces_.at(ns);
    for (const auto& k : removals) props.erase(k);
    for (const auto& [k, v] : updates) props[k] = v;
    return Ok();
  }
  Result<bool> DropNamespace(const std::string& ns) override {
    std::lock_guard lock(mu_);
    for (const auto& [key, pointer] : tables_) {
      if (key.first == ns) return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema, "{}", ns);
    }
    return namespaces_.erase(ns) > 0;
  }
  Result<std::vector<std::pair<std::string, std::string>>> ListTables(
      const std::string& ns) override {
    std::lock_guard lock(mu_);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [key, pointer] : tables_) {
      if (key.first == ns) out.emplace_back(key.second, pointer);
    }
    return out;
  }
  Result<std::optional<std::string>> Pointer(const std::string& ns,
                                             const std::string& name) override {
    std::lock_guard lock(mu_);
    auto it = tables_.find({ns, name});
    if (it == tables_.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  Status CreateTable(const std::string& ns, const std::string& name, const std::string&,
                     const std::string& metadata_location, const std::string&) override {
    std::lock_guard lock(mu_);
    if (namespaces_.count(ns) == 0) return NotFound(EntityKind::kSchema, "{}", ns);
    if (!tables_.emplace(std::make_pair(ns, name), metadata_location).second) {
      return AlreadyExists(EntityKind::kTable, "{}", name);
    }
    return Ok();
  }
  Status Swap(const std::string& ns, const std::string& name, const std::string& expected,
              const std::string& next) override {
    std::lock_guard lock(mu_);
    auto& pointer = tables_.at({ns, name});
    ++swaps;
    if (steal_next_swap) {
      steal_next_swap = false;
      pointer = stolen_to;
    }
    if (pointer != expected) return Conflict(EntityKind::kTable, "moved");
    pointer = next;
    return Ok();
  }
  Status Rename(const std::string& ns, const std::string& name, const std::string& to_ns,
                const std::string& to) override {
    std::lock_guard lock(mu_);
    auto node = tables_.extract({ns, name});
    node.key() = {to_ns, to};
    tables_.insert(std::move(node));
    return Ok();
  }
  Result<bool> DropTable(const std::string& ns, const std::string& name) override {
    std::lock_guard lock(mu_);
    return tables_.erase({ns, name}) > 0;
  }

  void SetPointer(const std::string& ns, const std::string& name, const std::string& to) {
    std::lock_guard lock(mu_);
    tables_[{ns, name}] = to;
  }

  bool steal_next_swap = false;
  std::string stolen_to;
  int swaps = 0;

 private:
  std::mutex mu_;
  std::map<std::string, model::Properties> namespaces_;
  std::map<std::pair<std::string, std::string>, std::string> tables_;
};

const Namespace kNs = {"db"};

class IcebergMetastoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cairn-iceberg-metastore-" + RandomUuid());
    fs::create_directories(root_);
    store::StoreOptions options;
    options.sqlite_path = (root_ / "cairn.db").string();
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    auto info = cairn::testing::InsertCatalogRows(*store_);
    ASSERT_THAT(info, IsOk());
    info_ = *info;
    metastore_ = std::make_shared<MemoryMetastore>();
    catalog_ = std::make_unique<IcebergCatalog>(info_, *store_, (root_ / "wh").string(),
                                                MakeIcebergCaches(IcebergCacheOptions{}),
                                                metastore_);
    ASSERT_THAT(catalog_->CreateNamespace(Ctx(), kNs, {{"team", "data"}}), IsOk());
    ASSERT_THAT(catalog_->CreateTable(Ctx(), kNs, nlohmann::json::parse(R"({"name": "t",
      "schema": {"type": "struct", "fields": [
        {"id": 1, "name": "id", "required": true, "type": "long"}]}})"), false),
                IsOk());
  }
  void TearDown() override {
    catalog_.reset();
    store_.reset();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  static CallContext Ctx() { return CallContext{"tester", NowMillis()}; }

  // Sets property `key` (no requirements: it applies on any base).
  Result<LoadedObject> SetProperty(const std::string& key) {
    TableCommit c;
    c.ns = kNs;
    c.name = "t";
    c.updates = nlohmann::json::array(
        {{{"action", "set-properties"}, {"updates", {{key, "v"}}}}});
    return catalog_->CommitTable(Ctx(), c);
  }

  std::string Pointer() { return metastore_->Pointer("db", "t")->value_or(""); }

  fs::path root_;
  std::unique_ptr<store::MetadataStore> store_;
  CatalogInfo info_;
  std::shared_ptr<MemoryMetastore> metastore_;
  std::unique_ptr<IcebergCatalog> catalog_;
};

TEST_F(IcebergMetastoreTest, CommitsMoveTheMetastoresPointer) {
  auto loaded = catalog_->LoadTable(kNs, "t");
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->metadata_location, Pointer());
  auto committed = SetProperty("a");
  ASSERT_THAT(committed, IsOk());
  EXPECT_EQ(committed->metadata_location, Pointer());
  EXPECT_NE(committed->metadata_location, loaded->metadata_location);
  // The row follows.
  auto row = catalog_->TableRow(kNs, "t");
  ASSERT_THAT(row, IsOk());
  EXPECT_EQ(row->location, Pointer());
}

TEST_F(IcebergMetastoreTest, ALostSwapIsReadAgainAndApplied) {
  auto first = SetProperty("a");
  ASSERT_THAT(first, IsOk());
  auto second = SetProperty("b");  // another writer's file, as far as this commit knows
  ASSERT_THAT(second, IsOk());
  // Back to the first file behind the catalog's back, then a swap that finds it moved again.
  metastore_->SetPointer("db", "t", first->metadata_location);
  metastore_->steal_next_swap = true;
  metastore_->stolen_to = second->metadata_location;
  const int swaps = metastore_->swaps;
  auto third = SetProperty("c");
  ASSERT_THAT(third, IsOk());
  EXPECT_GE(metastore_->swaps - swaps, 2);  // lost once, then landed
  EXPECT_EQ(Pointer(), third->metadata_location);
  auto md = nlohmann::json::parse(*third->metadata_text);
  // Applied on the writer's head that won (which has a and b), not on the stale base.
  EXPECT_EQ(md["properties"].value("a", ""), "v");
  EXPECT_EQ(md["properties"].value("b", ""), "v");
  EXPECT_EQ(md["properties"].value("c", ""), "v");
}

TEST_F(IcebergMetastoreTest, RowsFollowWhatOtherEnginesDo) {
  auto first = catalog_->LoadTable(kNs, "t");
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(SetProperty("a"), IsOk());
  // Another engine rolls the pointer back: read at once.
  metastore_->SetPointer("db", "t", first->metadata_location);
  auto loaded = catalog_->LoadTable(kNs, "t");
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(loaded->metadata_location, first->metadata_location);
  // Another engine registers a table: listed with a row of its own, and loads.
  metastore_->SetPointer("db", "copy", first->metadata_location);
  auto page = catalog_->ListTables(kNs, "", 0);
  ASSERT_THAT(page, IsOk());
  EXPECT_EQ(page->names, (std::vector<std::string>{"copy", "t"}));
  ASSERT_THAT(catalog_->LoadTable(kNs, "copy"), IsOk());
  auto row = catalog_->TableRow(kNs, "copy");
  ASSERT_THAT(row, IsOk());
  EXPECT_TRUE(row->audit.creator.empty());  // no owner until one is set
  // ... and drops it: gone, its row too, and the name is free again.
  ASSERT_THAT(metastore_->DropTable("db", "copy"), IsOk());
  auto gone = catalog_->LoadTable(kNs, "copy");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, ErrorCode::kNotFound);
  auto schema_row = store_->Get(store::EntityType::kSchema, info_.catalog_id, "db");
  ASSERT_THAT(schema_row, IsOk());
  EXPECT_FALSE(store_->Get(store::EntityType::kTable, schema_row->id, "copy"));
}

TEST_F(IcebergMetastoreTest, NamespacesAreTheMetastoresOneLevelOnly) {
  auto props = catalog_->LoadNamespace(kNs);
  ASSERT_THAT(props, IsOk());
  EXPECT_EQ(props->at("team"), "data");
  auto nested = catalog_->CreateNamespace(Ctx(), {"db", "inner"}, {});
  ASSERT_FALSE(nested);
  EXPECT_EQ(nested.error().code, ErrorCode::kInvalidArgument);
  auto busy = catalog_->DropNamespace(kNs);
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.error().code, ErrorCode::kNotEmpty);
  // A namespace made by another engine is there at once.
  ASSERT_THAT(metastore_->CreateNamespace("other", {}), IsOk());
  auto listed = catalog_->ListNamespaces({});
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(*listed, (std::vector<Namespace>{{"db"}, {"other"}}));
}

TEST_F(IcebergMetastoreTest, MultiTableTransactionsAreRefused) {
  TableCommit a;
  a.ns = kNs;
  a.name = "t";
  TableCommit b = a;
  auto refused = catalog_->CommitTransaction(Ctx(), {a, b});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace cairn::connector
