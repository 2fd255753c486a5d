// SPDX-License-Identifier: Apache-2.0
// The fileset connector against a real (in-memory SQLite) store and a temporary directory.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/util.h"
#include "connector/connector.h"
#include "matchers.h"
#include "store/metadata_store.h"

namespace cairn::connector {
namespace {

namespace fs = std::filesystem;
using cairn::testing::IsError;
using cairn::testing::IsOk;

class FilesetConnectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cairn-fileset-" + RandomUuid());
    fs::create_directories(root_);
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    registry_ = MakeDefaultRegistry(ConnectorDeps{store_.get(), root_.string()});
    store::EntityRecord ml;
    ml.type = store::EntityType::kMetalake;
    ml.name = "ml";
    ml.payload = "{}";
    auto ml_row = store_->Insert(ml);
    ASSERT_THAT(ml_row, IsOk());
    store::EntityRecord cat;
    cat.type = store::EntityType::kCatalog;
    cat.parent_id = ml_row->id;
    cat.name = "cat";
    cat.payload = R"({"type":"fileset","provider":"fileset"})";
    auto cat_row = store_->Insert(cat);
    ASSERT_THAT(cat_row, IsOk());
    catalog_id_ = cat_row->id;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  std::unique_ptr<Connector> Open(model::Properties props) {
    CatalogInfo info{catalog_id_,     "ml", "cat", model::CatalogType::kFileset, "fileset",
                     std::move(props)};
    auto conn = registry_->Create(info);
    EXPECT_THAT(conn, IsOk());
    return conn ? std::move(*conn) : nullptr;
  }

  static model::Schema Schema(std::string name, model::Properties props = {}) {
    model::Schema s;
    s.name = std::move(name);
    s.properties = std::move(props);
    return s;
  }

  static model::Fileset Fileset(std::string name, model::FilesetType type,
                                std::map<std::string, std::string> locations = {},
                                model::Properties props = {}) {
    model::Fileset f;
    f.name = std::move(name);
    f.type = type;
    f.storage_locations = std::move(locations);
    f.properties = std::move(props);
    return f;
  }

  fs::path root_;
  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<ConnectorRegistry> registry_;
  int64_t catalog_id_ = 0;
  CallContext ctx_{"alice", 1000};
};

TEST_F(FilesetConnectorTest, ManagedFilesetInheritsAndOwnsItsDirectory) {
  auto conn = Open({{"location", (root_ / "lake").string()}});
  ASSERT_NE(conn->Find<FilesetCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<TableCatalog>(), nullptr);  // a fileset catalog has filesets, not tables
  ASSERT_THAT(conn->Find<SchemaCatalog>()->CreateSchema(ctx_, Schema("s")), IsOk());
  EXPECT_TRUE(fs::is_directory(root_ / "lake" / "s"));
  auto* fc = conn->Find<FilesetCatalog>();
  auto f = fc->CreateFileset(ctx_, "s", Fileset("f", model::FilesetType::kManaged));
  ASSERT_THAT(f, IsOk());
  EXPECT_EQ(f->storage_locations.at("unknown"), "file:" + (root_ / "lake" / "s" / "f").string());
  EXPECT_EQ(f->properties.at("default-location-name"), "unknown");
  EXPECT_TRUE(fs::is_directory(root_ / "lake" / "s" / "f"));
  std::ofstream(root_ / "lake" / "s" / "f" / "a.txt") << "hello";

  auto one = fc->ListFiles("s", "f", "a.txt", std::nullopt);
  ASSERT_THAT(one, IsOk());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].path, "/fileset/cat/s/f/a.txt");
  EXPECT_THAT(fc->ListFiles("s", "f", "missing", std::nullopt),
              IsError(ErrorCode::kInvalidArgument));
  auto files = fc->ListFiles("s", "f", "/", std::nullopt);
  ASSERT_THAT(files, IsOk());
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].name, "a.txt");
  EXPECT_EQ((*files)[0].size, 5);
  EXPECT_EQ((*files)[0].path, "/fileset/cat/s/f/a.txt");

  ASSERT_THAT(fc->DropFileset(ctx_, "s", "f"), IsOk());
  EXPECT_FALSE(fs::exists(root_ / "lake" / "s" / "f"));
  auto again = fc->DropFileset(ctx_, "s", "f");
  ASSERT_THAT(again, IsOk());
  EXPECT_FALSE(*again);
}

TEST_F(FilesetConnectorTest, ExternalFilesetKeepsItsFilesOnDrop) {
  auto conn = Open({});
  auto* fc = conn->Find<FilesetCatalog>();
  ASSERT_THAT(conn->Find<SchemaCatalog>()->CreateSchema(ctx_, Schema("s")), IsOk());
  fs::create_directories(root_ / "ext");
  std::ofstream(root_ / "ext" / "keep.txt") << "x";
  EXPECT_THAT(fc->CreateFileset(ctx_, "s", Fileset("e", model::FilesetType::kExternal)),
              IsError(ErrorCode::kInvalidArgument));
  ASSERT_THAT(fc->CreateFileset(ctx_, "s",
                                Fileset("e", model::FilesetType::kExternal,
                                        {{"unknown", (root_ / "ext").string()}})),
              IsOk());
  ASSERT_THAT(fc->DropFileset(ctx_, "s", "e"), IsOk());
  EXPECT_TRUE(fs::exists(root_ / "ext" / "keep.txt"));
}

TEST_F(FilesetConnectorTest, FailedCreateLeavesNothingBehind) {
  auto conn = Open({});
  auto* fc = conn->Find<FilesetCatalog>();
  ASSERT_THAT(conn->Find<SchemaCatalog>()->CreateSchema(ctx_, Schema("s")), IsOk());
  std::ofstream(root_ / "a-file") << "x";
  // "a" sorts first and is created, then "b" (a file) fails: "a" must be removed again.
  auto r = fc->CreateFileset(
      ctx_, "s",
      Fileset("f", model::FilesetType::kManaged,
              {{"a", (root_ / "new-a").string()}, {"b", (root_ / "a-file").string()}},
              {{"default-location-name", "a"}}));
  EXPECT_THAT(r, IsError(ErrorCode::kInvalidArgument));
  EXPECT_FALSE(fs::exists(root_ / "new-a"));
  EXPECT_THAT(fc->LoadFileset("s", "f"), IsError(ErrorCode::kNotFound));
}

TEST_F(FilesetConnectorTest, DropSchemaCascadeDeletesManagedFilesOnly) {
  auto conn = Open({{"location", (root_ / "lake").string()}});
  auto* fc = conn->Find<FilesetCatalog>();
  ASSERT_THAT(conn->Find<SchemaCatalog>()->CreateSchema(ctx_, Schema("s")), IsOk());
  ASSERT_THAT(fc->CreateFileset(ctx_, "s", Fileset("m", model::FilesetType::kManaged)), IsOk());
  ASSERT_THAT(fc->CreateFileset(ctx_, "s",
                                Fileset("e", model::FilesetType::kExternal,
                                        {{"unknown", (root_ / "outside").string()}})),
              IsOk());
  EXPECT_THAT(conn->Find<SchemaCatalog>()->DropSchema(ctx_, "s", false),
              IsError(ErrorCode::kNotEmpty));
  auto dropped = conn->Find<SchemaCatalog>()->DropSchema(ctx_, "s", true);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_TRUE(*dropped);
  EXPECT_FALSE(fs::exists(root_ / "lake" / "s"));
  EXPECT_TRUE(fs::is_directory(root_ / "outside"));
  EXPECT_THAT(fc->ListFilesets("s"), IsError(ErrorCode::kNotFound));
}

TEST_F(FilesetConnectorTest, AlterRenamesAndGuardsImmutableProperties) {
  auto conn = Open({{"location", (root_ / "lake").string()}});
  auto* fc = conn->Find<FilesetCatalog>();
  ASSERT_THAT(conn->Find<SchemaCatalog>()->CreateSchema(ctx_, Schema("s")), IsOk());
  ASSERT_THAT(fc->CreateFileset(ctx_, "s", Fileset("f", model::FilesetType::kManaged)), IsOk());
  ASSERT_THAT(fc->CreateFileset(ctx_, "s", Fileset("g", model::FilesetType::kManaged)), IsOk());
  model::EntityChange rename;
  rename.kind = model::EntityChange::Kind::kRename;
  rename.new_name = "g";
  EXPECT_THAT(fc->AlterFileset(ctx_, "s", "f", {rename}), IsError(ErrorCode::kAlreadyExists));
  rename.new_name = "h";
  auto renamed = fc->AlterFileset(ctx_, "s", "f", {rename});
  ASSERT_THAT(renamed, IsOk());
  EXPECT_EQ(renamed->name, "h");
  // The files stay where they are.
  EXPECT_EQ(renamed->storage_locations.at("unknown"),
            "file:" + (root_ / "lake" / "s" / "f").string());
  model::EntityChange set;
  set.kind = model::EntityChange::Kind::kSetProperty;
  set.property = "default-location-name";
  set.value = "x";
  EXPECT_THAT(fc->AlterFileset(ctx_, "s", "h", {set}), IsError(ErrorCode::kInvalidArgument));
}

TEST_F(FilesetConnectorTest, NamedCatalogLocationsCannotChange) {
  auto conn = Open({{"location", "/a"}, {"location-hot", "/hot"}});
  EXPECT_THAT(conn->CheckPropertyChange({{"location", "/a"}, {"location-hot", "/hot"}},
                                        {{"location", "/b"}, {"location-hot", "/hot"}, {"k", "v"}}),
              IsOk());
  EXPECT_THAT(conn->CheckPropertyChange({{"location-hot", "/hot"}}, {{"location-hot", "/h2"}}),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(conn->CheckPropertyChange({{"location-hot", "/hot"}}, {}),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(conn->CheckPropertyChange({}, {{"location-new", "/n"}}),
              IsError(ErrorCode::kInvalidArgument));
}

TEST_F(FilesetConnectorTest, CatalogPropertiesAreValidated) {
  CatalogInfo info{catalog_id_, "ml",
                   "cat",       model::CatalogType::kFileset,
                   "fileset",   {{"location", "relative/path"}}};
  EXPECT_THAT(registry_->Create(info), IsError(ErrorCode::kInvalidArgument));
  info.properties = {{"location-unknown", "/x"}};
  EXPECT_THAT(registry_->Create(info), IsError(ErrorCode::kInvalidArgument));
  info.properties = {{"location", "hdfs://nn/x"}};
  EXPECT_THAT(registry_->Create(info), IsError(ErrorCode::kInvalidArgument));
}

}  // namespace
}  // namespace cairn::connector
