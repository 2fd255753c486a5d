// SPDX-License-Identifier: Apache-2.0
// The model connector against a real store: version numbers under concurrent links, the alias
// rules, and that a refused call writes nothing.
#include <filesystem>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/util.h"
#include "connector/connector.h"
#include "matchers.h"
#include "store/metadata_store.h"

namespace cairn::connector {
namespace {

namespace fs = std::filesystem;
using cairn::testing::IsOk;

class ModelConnectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A file, so that concurrent links go through several connections of the pool.
    dir_ = fs::temp_directory_path() / ("cairn-model-" + RandomUuid());
    fs::create_directories(dir_);
    store::StoreOptions options;
    options.sqlite_path = (dir_ / "cairn.db").string();
    options.pool_size = 4;
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    registry_ = MakeDefaultRegistry(ConnectorDeps{store_.get(), dir_.string()});
    store::EntityRecord ml;
    ml.type = store::EntityType::kMetalake;
    ml.name = "ml";
    ml.payload = "{}";
    auto ml_row = store_->Insert(ml);
    ASSERT_THAT(ml_row, IsOk());
    store::EntityRecord cat;
    cat.type = store::EntityType::kCatalog;
    cat.parent_id = ml_row->id;
    cat.name = "mc";
    cat.payload = R"({"type":"model","provider":"model"})";
    auto cat_row = store_->Insert(cat);
    ASSERT_THAT(cat_row, IsOk());
    auto conn = registry_->Create(
        CatalogInfo{cat_row->id, "ml", "mc", model::CatalogType::kModel, "model", {}});
    ASSERT_THAT(conn, IsOk());
    connector_ = std::move(*conn);
    models_ = connector_->Find<ModelCatalog>();
    ASSERT_NE(models_, nullptr);
    model::Schema s;
    s.name = "s";
    ASSERT_THAT(connector_->Find<SchemaCatalog>()->CreateSchema(ctx_, s), IsOk());
    model::Model m;
    m.name = "m";
    ASSERT_THAT(models_->RegisterModel(ctx_, "s", m), IsOk());
  }
  void TearDown() override {
    connector_.reset();
    store_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static model::ModelVersion Version(std::string uri, std::vector<std::string> aliases = {}) {
    model::ModelVersion v;
    v.uris["unknown"] = std::move(uri);
    v.aliases = std::move(aliases);
    return v;
  }

  fs::path dir_;
  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<ConnectorRegistry> registry_;
  std::unique_ptr<Connector> connector_;
  ModelCatalog* models_ = nullptr;
  CallContext ctx_{"ana", 5, "test"};
};

TEST_F(ModelConnectorTest, ConcurrentLinksGetDistinctNumbers) {
  constexpr int kThreads = 8;
  constexpr int kEach = 5;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto linked = models_->LinkVersion(
            ctx_, "s", "m",
            Version(fmt::format("s3://b/{}/{}", t, i), {fmt::format("t{}i{}", t, i)}));
        if (!linked) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << t;
  auto versions = models_->ListVersions("s", "m");
  ASSERT_THAT(versions, IsOk());
  ASSERT_EQ(versions->size(), static_cast<size_t>(kThreads * kEach));
  for (size_t i = 0; i < versions->size(); ++i) EXPECT_EQ((*versions)[i].version, int64_t(i));
  auto m = models_->GetModel("s", "m");
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(m->latest_version, kThreads * kEach);
  // Every alias leads to the version that took it.
  for (const auto& v : *versions) {
    auto by_alias = models_->GetVersion("s", "m", model::VersionRef{std::nullopt, v.aliases.at(0)});
    ASSERT_THAT(by_alias, IsOk());
    EXPECT_EQ(by_alias->version, v.version);
  }
}

TEST_F(ModelConnectorTest, NumericAliasesAreRefusedAndWordsAreNot) {
  for (const char* bad : {"1", "-3", "1.5", "1e3", "0x1F", "07", "2L", " "}) {
    auto linked = models_->LinkVersion(ctx_, "s", "m", Version("s3://x", {bad}));
    ASSERT_FALSE(linked.has_value()) << bad;
    EXPECT_EQ(linked.error().code, ErrorCode::kInvalidArgument) << bad;
  }
  for (const char* good : {"a0", "prod", "v1", "e5x", "0xZZ", "1-2"}) {
    EXPECT_THAT(models_->LinkVersion(ctx_, "s", "m", Version("s3://x", {good})), IsOk()) << good;
  }
}

TEST_F(ModelConnectorTest, ATakenAliasLinksNothing) {
  ASSERT_THAT(models_->LinkVersion(ctx_, "s", "m", Version("s3://0", {"prod"})), IsOk());
  auto again = models_->LinkVersion(ctx_, "s", "m", Version("s3://1", {"new", "prod"}));
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, ErrorCode::kAlreadyExists);
  EXPECT_EQ(again.error().entity, EntityKind::kModelVersionAlias);
  auto dup = models_->LinkVersion(ctx_, "s", "m", Version("s3://1", {"x", "x"}));
  ASSERT_FALSE(dup.has_value());
  EXPECT_EQ(dup.error().entity, EntityKind::kModelVersionAlias);
  auto versions = models_->ListVersions("s", "m");
  ASSERT_THAT(versions, IsOk());
  EXPECT_EQ(versions->size(), 1u);
  EXPECT_EQ(models_->GetModel("s", "m")->latest_version, 1);
  auto fresh = models_->GetVersion("s", "m", model::VersionRef{std::nullopt, "new"});
  ASSERT_FALSE(fresh.has_value());
  EXPECT_EQ(fresh.error().entity, EntityKind::kModelVersion);
}

TEST_F(ModelConnectorTest, DeletingAVersionFreesItsAliasesNotItsNumber) {
  ASSERT_THAT(models_->LinkVersion(ctx_, "s", "m", Version("s3://0", {"prod"})), IsOk());
  auto deleted = models_->DeleteVersion(ctx_, "s", "m", model::VersionRef{0, ""});
  ASSERT_THAT(deleted, IsOk());
  EXPECT_TRUE(*deleted);
  auto relinked = models_->LinkVersion(ctx_, "s", "m", Version("s3://1", {"prod"}));
  ASSERT_THAT(relinked, IsOk());
  EXPECT_EQ(relinked->version, 1);
  auto gone = models_->DeleteVersion(ctx_, "s", "m", model::VersionRef{0, ""});
  ASSERT_THAT(gone, IsOk());
  EXPECT_FALSE(*gone);
}

TEST_F(ModelConnectorTest, AVersionKeepsAtLeastOneUri) {
  ASSERT_THAT(models_->LinkVersion(ctx_, "s", "m", Version("s3://0")), IsOk());
  model::ModelVersionChange remove;
  remove.kind = model::ModelVersionChange::Kind::kRemoveUri;
  remove.uri_name = "unknown";
  auto altered = models_->AlterVersion(ctx_, "s", "m", model::VersionRef{0, ""}, {remove});
  ASSERT_FALSE(altered.has_value());
  EXPECT_EQ(altered.error().code, ErrorCode::kInvalidArgument);
  auto v = models_->GetVersion("s", "m", model::VersionRef{0, ""});
  ASSERT_THAT(v, IsOk());
  EXPECT_EQ(v->uris.at("unknown"), "s3://0");
}

TEST_F(ModelConnectorTest, ASchemaWithModelsDropsOnlyWithCascade) {
  auto* schemas = connector_->Find<SchemaCatalog>();
  auto kept = schemas->DropSchema(ctx_, "s", false);
  ASSERT_FALSE(kept.has_value());
  EXPECT_EQ(kept.error().code, ErrorCode::kNotEmpty);
  ASSERT_THAT(models_->LinkVersion(ctx_, "s", "m", Version("s3://0")), IsOk());
  auto metalake = store_->Get(store::EntityType::kMetalake, 0, "ml");
  ASSERT_THAT(metalake, IsOk());
  auto catalog = store_->Get(store::EntityType::kCatalog, metalake->id, "mc");
  ASSERT_THAT(catalog, IsOk());
  auto schema = store_->Get(store::EntityType::kSchema, catalog->id, "s");
  ASSERT_THAT(schema, IsOk());
  auto model_row = store_->Get(store::EntityType::kModel, schema->id, "m");
  ASSERT_THAT(model_row, IsOk());
  auto before = store_->List(store::EntityType::kModelVersion, model_row->id, "", 0);
  ASSERT_THAT(before, IsOk());
  EXPECT_EQ(before->size(), 1u);
  auto dropped = schemas->DropSchema(ctx_, "s", true);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_TRUE(*dropped);
  auto rows = store_->List(store::EntityType::kModelVersion, model_row->id, "", 0);
  ASSERT_THAT(rows, IsOk());
  EXPECT_TRUE(rows->empty());
  EXPECT_FALSE(store_->GetById(model_row->id).has_value());
}

}  // namespace
}  // namespace cairn::connector
