// SPDX-License-Identifier: Apache-2.0
// The lakehouse-generic connector against a real store and a real directory: where a table's
// files go, which locations are refused, and which drops delete files.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "catalog_rows.h"
#include "common/util.h"
#include "connector/connector.h"
#include "matchers.h"
#include "store/metadata_store.h"

namespace cairn::connector {
namespace {

namespace fs = std::filesystem;
using cairn::testing::HasErrorMessage;
using cairn::testing::IsError;
using cairn::testing::IsOk;

void Touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "data";
}

class GenericConnectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cairn-generic-" + RandomUuid());
    root_ = dir_ / "lake";
    fs::create_directories(root_);
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    registry_ = MakeDefaultRegistry(ConnectorDeps{store_.get(), dir_.string()});
    auto info = cairn::testing::InsertCatalogRows(*store_, "lakehouse-generic");
    ASSERT_THAT(info, IsOk());
    info->properties["location"] = root_.string();
    auto conn = registry_->Create(*info);
    ASSERT_THAT(conn, IsOk());
    connector_ = std::move(*conn);
    schemas_ = connector_->Find<SchemaCatalog>();
    tables_ = connector_->Find<TableCatalog>();
    generic_ = connector_->Find<GenericTableCatalog>();
    ASSERT_NE(schemas_, nullptr);
    ASSERT_NE(tables_, nullptr);
    ASSERT_NE(generic_, nullptr);
    model::Schema s;
    s.name = "s";
    ASSERT_THAT(schemas_->CreateSchema(ctx_, s), IsOk());
  }
  void TearDown() override {
    connector_.reset();
    store_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static model::Table Lance(std::string name, model::Properties extra = {}) {
    model::Table t;
    t.name = std::move(name);
    t.properties = std::move(extra);
    t.properties.emplace("format", "lance");
    return t;
  }

  static std::string Location(const model::Table& t) { return t.properties.at("location"); }
  // The directory of a table on local disk (locations are kept as `file:` URIs).
  static fs::path Dir(const model::Table& t) {
    const std::string& loc = t.properties.at("location");
    EXPECT_EQ(loc.rfind("file:", 0), 0u) << loc;
    return fs::path(loc.substr(5));
  }
  static std::string Uri(const fs::path& p) { return "file:" + p.string(); }

  fs::path dir_;
  fs::path root_;
  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<ConnectorRegistry> registry_;
  std::unique_ptr<Connector> connector_;
  SchemaCatalog* schemas_ = nullptr;
  TableCatalog* tables_ = nullptr;
  GenericTableCatalog* generic_ = nullptr;
  CallContext ctx_{"ana", 7, "test"};
};

TEST_F(GenericConnectorTest, TableLocationDefaultsUnderTheSchemaUnderTheCatalog) {
  auto t = tables_->CreateTable(ctx_, "s", Lance("docs"));
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(Location(*t), Uri(root_ / "s" / "docs"));
  EXPECT_EQ(t->properties.at("format"), "lance");
  EXPECT_EQ(t->properties.count("external"), 0u);
  EXPECT_EQ(t->audit.creator, "ana");

  // A schema with a location of its own places its tables there.
  model::Schema other;
  other.name = "o";
  other.properties["location"] = (root_ / "elsewhere").string();
  ASSERT_THAT(schemas_->CreateSchema(ctx_, other), IsOk());
  auto u = tables_->CreateTable(ctx_, "o", Lance("docs"));
  ASSERT_THAT(u, IsOk());
  EXPECT_EQ(Location(*u), Uri(root_ / "elsewhere" / "docs"));

  auto loaded = tables_->LoadTable("o", "docs");
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ(Location(*loaded), Location(*u));
}

TEST_F(GenericConnectorTest, FormatIsRequiredAndMustBeKnown) {
  model::Table none;
  none.name = "t";
  EXPECT_THAT(tables_->CreateTable(ctx_, "s", none), HasErrorMessage("'format' is required"));
  model::Table parquet = Lance("t");
  parquet.properties["format"] = "parquet";
  EXPECT_THAT(tables_->CreateTable(ctx_, "s", parquet), IsError(ErrorCode::kInvalidArgument));
  model::Table upper = Lance("t");
  upper.properties["format"] = " LANCE ";
  auto t = tables_->CreateTable(ctx_, "s", upper);
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->properties.at("format"), "lance");
}

TEST_F(GenericConnectorTest, LocationsOutsideTheSchemaAreRefusedAndNothingIsWritten) {
  const std::string outside = (dir_ / "outside").string();
  const std::string dotted = (root_ / "s" / ".." / ".." / "outside").string();
  const std::string the_schema_itself = (root_ / "s").string();
  for (const std::string& bad : {outside, dotted, the_schema_itself, std::string("relative/x")}) {
    auto t = tables_->CreateTable(ctx_, "s", Lance("t", {{"location", bad}}));
    EXPECT_THAT(t, IsError(ErrorCode::kInvalidArgument)) << bad;
  }
  auto names = tables_->ListTables("s");
  ASSERT_THAT(names, IsOk());
  EXPECT_TRUE(names->empty());

  model::Schema escaping;
  escaping.name = "e";
  escaping.properties["location"] = outside;
  EXPECT_THAT(schemas_->CreateSchema(ctx_, escaping), HasErrorMessage("must lie within"));
}

TEST_F(GenericConnectorTest, ATableLocationOverlapsNoOtherTable) {
  auto a = tables_->CreateTable(ctx_, "s", Lance("a"));
  ASSERT_THAT(a, IsOk());
  // Inside another table's folder, and a folder that holds another table's.
  auto inside = tables_->CreateTable(ctx_, "s", Lance("b", {{"location", Location(*a) + "/b"}}));
  EXPECT_THAT(inside, HasErrorMessage("overlaps"));
  auto above_dir = root_ / "s" / "group";
  ASSERT_THAT(
      tables_->CreateTable(ctx_, "s", Lance("c", {{"location", (above_dir / "c").string()}})),
      IsOk());
  auto above = tables_->CreateTable(ctx_, "s", Lance("d", {{"location", above_dir.string()}}));
  EXPECT_THAT(above, HasErrorMessage("overlaps"));
  // A sibling whose name merely starts the same is its own place.
  auto sibling = tables_->CreateTable(ctx_, "s", Lance("ab", {{"location", Location(*a) + "b"}}));
  EXPECT_THAT(sibling, IsOk());
  // The same name twice is an exists error, not an overlap.
  EXPECT_THAT(tables_->CreateTable(ctx_, "s", Lance("a")), IsError(ErrorCode::kAlreadyExists));
}

TEST_F(GenericConnectorTest, AManagedTableStartsEmptyAnExternalOneMayHoldFiles) {
  Touch(root_ / "s" / "full" / "_versions" / "1.manifest");
  EXPECT_THAT(tables_->CreateTable(ctx_, "s", Lance("full")), HasErrorMessage("already holds"));
  auto external = tables_->CreateTable(ctx_, "s", Lance("full", {{"external", "true"}}));
  ASSERT_THAT(external, IsOk());
  EXPECT_EQ(external->properties.at("external"), "true");
  auto declared = generic_->IsOnlyDeclared(*external);
  ASSERT_THAT(declared, IsOk());
  EXPECT_FALSE(*declared);
}

TEST_F(GenericConnectorTest, DropDeletesAManagedTablesFilesAndKeepsAnExternalOnes) {
  auto managed = tables_->CreateTable(ctx_, "s", Lance("m"));
  ASSERT_THAT(managed, IsOk());
  auto declared = generic_->IsOnlyDeclared(*managed);
  ASSERT_THAT(declared, IsOk());
  EXPECT_TRUE(*declared);
  Touch(Dir(*managed) / "_versions" / "1.manifest");
  Touch(Dir(*managed) / "data" / "0.lance");
  declared = generic_->IsOnlyDeclared(*managed);
  ASSERT_THAT(declared, IsOk());
  EXPECT_FALSE(*declared);

  const fs::path ext_dir = root_ / "s" / "x";
  Touch(ext_dir / "data" / "0.lance");
  ASSERT_THAT(tables_->CreateTable(ctx_, "s", Lance("x", {{"lance.register", "true"}})), IsOk());

  auto dropped = tables_->DropTable(ctx_, "s", "m", false);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_TRUE(*dropped);
  EXPECT_FALSE(fs::exists(Dir(*managed)));
  dropped = tables_->DropTable(ctx_, "s", "x", false);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_TRUE(*dropped);
  EXPECT_TRUE(fs::exists(ext_dir / "data" / "0.lance"));
  // A second drop finds nothing.
  dropped = tables_->DropTable(ctx_, "s", "m", false);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_FALSE(*dropped);
}

TEST_F(GenericConnectorTest, DeregisterKeepsTheFilesAndFreesTheName) {
  auto t = tables_->CreateTable(ctx_, "s", Lance("t"));
  ASSERT_THAT(t, IsOk());
  Touch(Dir(*t) / "_versions" / "1.manifest");
  auto gone = generic_->DeregisterTable(ctx_, "s", "t");
  ASSERT_THAT(gone, IsOk());
  EXPECT_EQ(Location(*gone), Location(*t));
  EXPECT_TRUE(fs::exists(Dir(*t) / "_versions" / "1.manifest"));
  EXPECT_THAT(tables_->LoadTable("s", "t"), IsError(ErrorCode::kNotFound));
  EXPECT_THAT(generic_->DeregisterTable(ctx_, "s", "t"), IsError(ErrorCode::kNotFound));
  // Registered again over the files it left.
  EXPECT_THAT(tables_->CreateTable(ctx_, "s", Lance("t", {{"external", "true"}})), IsOk());
}

TEST_F(GenericConnectorTest, AlterKeepsLocationFormatAndColumnsAsTheyAre) {
  ASSERT_THAT(tables_->CreateTable(ctx_, "s", Lance("t")), IsOk());
  using K = model::TableChange::Kind;
  for (const char* key : {"location", "format", "external", "lance.register"}) {
    model::TableChange set;
    set.kind = K::kSetProperty;
    set.property = key;
    set.value = "x";
    EXPECT_THAT(tables_->AlterTable(ctx_, "s", "t", {set}), HasErrorMessage("immutable")) << key;
  }
  model::TableChange add;
  add.kind = K::kAddColumn;
  add.field_name = {"c"};
  add.type = model::MakePrimitive(model::TypeKind::kLong);
  EXPECT_THAT(tables_->AlterTable(ctx_, "s", "t", {add}), IsError(ErrorCode::kUnsupported));
  model::TableChange move;
  move.kind = K::kRename;
  move.new_name = "t2";
  move.new_schema = "other";
  EXPECT_THAT(tables_->AlterTable(ctx_, "s", "t", {move}), IsError(ErrorCode::kInvalidArgument));

  // A rename with a comment and a property lands whole; the location stays where it was.
  model::TableChange rename;
  rename.kind = K::kRename;
  rename.new_name = "t2";
  model::TableChange comment;
  comment.kind = K::kUpdateComment;
  comment.comment = "passages";
  model::TableChange prop;
  prop.kind = K::kSetProperty;
  prop.property = "owner.team";
  prop.value = "search";
  auto altered = tables_->AlterTable(ctx_, "s", "t", {rename, comment, prop});
  ASSERT_THAT(altered, IsOk());
  EXPECT_EQ(altered->name, "t2");
  EXPECT_EQ(altered->comment, "passages");
  EXPECT_EQ(altered->properties.at("owner.team"), "search");
  EXPECT_EQ(Location(*altered), Uri(root_ / "s" / "t"));
  EXPECT_EQ(altered->audit.last_modifier, "ana");
  EXPECT_THAT(tables_->LoadTable("s", "t"), IsError(ErrorCode::kNotFound));
}

TEST_F(GenericConnectorTest, SchemaDropNeedsCascadeAndCascadeDeletesManagedFiles) {
  auto t = tables_->CreateTable(ctx_, "s", Lance("t"));
  ASSERT_THAT(t, IsOk());
  Touch(Dir(*t) / "_versions" / "1.manifest");
  EXPECT_THAT(schemas_->DropSchema(ctx_, "s", false), IsError(ErrorCode::kNotEmpty));
  EXPECT_TRUE(fs::exists(Dir(*t)));
  auto dropped = schemas_->DropSchema(ctx_, "s", true);
  ASSERT_THAT(dropped, IsOk());
  EXPECT_TRUE(*dropped);
  EXPECT_FALSE(fs::exists(Dir(*t)));
  EXPECT_THAT(schemas_->LoadSchema("s"), IsError(ErrorCode::kNotFound));
}

TEST_F(GenericConnectorTest, ACatalogWithoutLocationNeedsOneOnEachTable) {
  store::StoreOptions options;
  options.sqlite_path = ":memory:";
  auto opened = store::OpenStore(options);
  ASSERT_THAT(opened, IsOk());
  auto info = cairn::testing::InsertCatalogRows(**opened, "lakehouse-generic");
  ASSERT_THAT(info, IsOk());
  auto registry = MakeDefaultRegistry(ConnectorDeps{opened->get(), dir_.string()});
  auto conn = registry->Create(*info);
  ASSERT_THAT(conn, IsOk());
  model::Schema s;
  s.name = "s";
  ASSERT_THAT((*conn)->Find<SchemaCatalog>()->CreateSchema(ctx_, s), IsOk());
  auto* tables = (*conn)->Find<TableCatalog>();
  EXPECT_THAT(tables->CreateTable(ctx_, "s", Lance("t")),
              HasErrorMessage("'location' is required"));
  const fs::path anywhere = dir_ / "anywhere" / "t";
  auto t = tables->CreateTable(ctx_, "s", Lance("t", {{"location", anywhere.string()}}));
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(Location(*t), Uri(anywhere));
}

TEST_F(GenericConnectorTest, BadCatalogPropertiesAreRefusedAtCreation) {
  CatalogInfo bad{1, "ml", "cat", model::CatalogType::kRelational, "lakehouse-generic", {}};
  for (const char* location : {"relative/path", "ftp://host/x", "  "}) {
    bad.properties["location"] = location;
    EXPECT_THAT(registry_->Create(bad), IsError(ErrorCode::kInvalidArgument)) << location;
  }
}

}  // namespace
}  // namespace cairn::connector
