// SPDX-License-Identifier: Apache-2.0
// Connector::Find: each built-in provider offers exactly the capabilities it has, and each one
// found is the object that serves it (calls through it reach the catalog).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "catalog_rows.h"
#include "common/util.h"
#include "connector/connector.h"
#include "connector/external_rows.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "connector/iceberg/iceberg_proxy.h"
#include "connector/partition_catalog.h"
#include "matchers.h"
#include "storage/credentials.h"
#include "store/metadata_store.h"

namespace cairn::connector {
namespace {

namespace fs = std::filesystem;
using cairn::testing::IsOk;

// The properties that make a catalog vend storage keys.
const model::Properties kVending = {{"credential-providers", "s3-secret-key"},
                                    {"s3-access-key-id", "key"},
                                    {"s3-secret-access-key", "secret"}};

class ConnectorCapabilitiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cairn-capabilities-" + RandomUuid());
    fs::create_directories(root_);
    store::StoreOptions options;
    options.sqlite_path = ":memory:";
    auto opened = store::OpenStore(options);
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(*opened);
    registry_ = MakeDefaultRegistry(ConnectorDeps{store_.get(), root_.string()});
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // A connector of `provider` for a fresh catalog of `type` with `props`.
  std::unique_ptr<Connector> Open(const std::string& provider, model::CatalogType type,
                                  model::Properties props) {
    auto info = cairn::testing::InsertCatalogRows(*store_, provider);
    EXPECT_THAT(info, IsOk());
    if (!info) return nullptr;
    info->type = type;
    info->properties = std::move(props);
    auto conn = registry_->Create(*info);
    EXPECT_THAT(conn, IsOk());
    return conn ? std::move(*conn) : nullptr;
  }

  static model::Schema Schema(std::string name) {
    model::Schema s;
    s.name = std::move(name);
    return s;
  }

  fs::path root_;
  std::unique_ptr<store::MetadataStore> store_;
  std::unique_ptr<ConnectorRegistry> registry_;
  CallContext ctx_{"alice", 1000};
};

TEST_F(ConnectorCapabilitiesTest, FilesetCatalogHasSchemasAndFilesetsButNoTables) {
  auto conn = Open("fileset", model::CatalogType::kFileset, {});
  ASSERT_NE(conn, nullptr);
  EXPECT_NE(conn->Find<SchemaCatalog>(), nullptr);
  EXPECT_NE(conn->Find<FilesetCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<TableCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<IcebergCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<IcebergProxy>(), nullptr);
  EXPECT_EQ(conn->Find<ExternalRows>(), nullptr);
  EXPECT_EQ(conn->Find<storage::CredentialVendor>(), nullptr);  // none configured

  // Both interfaces are the same catalog: a schema made through one holds filesets of the other.
  ASSERT_THAT(conn->Find<SchemaCatalog>()->CreateSchema(ctx_, Schema("s")), IsOk());
  auto filesets = conn->Find<FilesetCatalog>()->ListFilesets("s");
  ASSERT_THAT(filesets, IsOk());
  EXPECT_TRUE(filesets->empty());
}

TEST_F(ConnectorCapabilitiesTest, FilesetCatalogVendsCredentialsOnlyWhenConfigured) {
  auto conn = Open("fileset", model::CatalogType::kFileset, kVending);
  ASSERT_NE(conn, nullptr);
  auto* vendor = conn->Find<storage::CredentialVendor>();
  ASSERT_NE(vendor, nullptr);
  EXPECT_TRUE(vendor->enabled());
}

TEST_F(ConnectorCapabilitiesTest, ManagedIcebergCatalogHasSchemasTablesAndIceberg) {
  auto conn = Open("lakehouse-iceberg", model::CatalogType::kRelational, {});
  ASSERT_NE(conn, nullptr);
  EXPECT_NE(conn->Find<SchemaCatalog>(), nullptr);
  EXPECT_NE(conn->Find<TableCatalog>(), nullptr);
  EXPECT_NE(conn->Find<IcebergCatalog>(), nullptr);
  EXPECT_NE(conn->Find<ViewCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<ModelCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<FilesetCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<PartitionCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<IcebergProxy>(), nullptr);
  EXPECT_EQ(conn->Find<ExternalRows>(), nullptr);
  EXPECT_EQ(conn->Find<storage::CredentialVendor>(), nullptr);

  // A schema and table made through the Gravitino-shaped interfaces are there in Iceberg's terms.
  ASSERT_THAT(conn->Find<SchemaCatalog>()->CreateSchema(ctx_, Schema("db")), IsOk());
  model::Table table;
  table.name = "t";
  model::Column id;
  id.name = "id";
  id.type = model::MakePrimitive(model::TypeKind::kLong);
  table.columns.push_back(id);
  ASSERT_THAT(conn->Find<TableCatalog>()->CreateTable(ctx_, "db", table), IsOk());
  EXPECT_THAT(conn->Find<IcebergCatalog>()->LoadTable({"db"}, "t"), IsOk());
}

TEST_F(ConnectorCapabilitiesTest, ManagedIcebergCatalogVendsCredentialsOnlyWhenConfigured) {
  auto conn = Open("lakehouse-iceberg", model::CatalogType::kRelational, kVending);
  ASSERT_NE(conn, nullptr);
  auto* vendor = conn->Find<storage::CredentialVendor>();
  ASSERT_NE(vendor, nullptr);
  EXPECT_TRUE(vendor->enabled());
  // The same vendor the Iceberg REST service uses for this catalog.
  EXPECT_EQ(vendor, &conn->Find<IcebergCatalog>()->credentials());
}

TEST_F(ConnectorCapabilitiesTest, FederatedIcebergCatalogIsAProxyWithTrackedRows) {
  auto conn = Open("lakehouse-iceberg", model::CatalogType::kRelational,
                   {{"catalog-backend", "rest"}, {"uri", "http://127.0.0.1:9"}});
  ASSERT_NE(conn, nullptr);
  EXPECT_NE(conn->Find<SchemaCatalog>(), nullptr);
  EXPECT_NE(conn->Find<TableCatalog>(), nullptr);
  ASSERT_NE(conn->Find<IcebergProxy>(), nullptr);
  EXPECT_EQ(conn->Find<IcebergProxy>()->options().uri, "http://127.0.0.1:9");
  EXPECT_NE(conn->Find<ExternalRows>(), nullptr);
  EXPECT_EQ(conn->Find<IcebergCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<FilesetCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<ViewCatalog>(), nullptr);  // views of a remote catalog: not on /api yet
  EXPECT_EQ(conn->Find<storage::CredentialVendor>(), nullptr);
}

TEST_F(ConnectorCapabilitiesTest, ModelCatalogHasSchemasAndModelsOnly) {
  auto conn = Open("model", model::CatalogType::kModel, {});
  ASSERT_NE(conn, nullptr);
  EXPECT_NE(conn->Find<SchemaCatalog>(), nullptr);
  EXPECT_NE(conn->Find<ModelCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<TableCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<ViewCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<FilesetCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<IcebergCatalog>(), nullptr);
  EXPECT_THAT(conn->TestConnection(), IsOk());
}

TEST_F(ConnectorCapabilitiesTest, KafkaCatalogHasTheDefaultSchemaAndTopics) {
  // Building the connector contacts no broker; the port has none.
  auto conn = Open("kafka", model::CatalogType::kMessaging,
                   {{"bootstrap.servers", "127.0.0.1:9"}, {"socket.keepalive.enable", "true"}});
  ASSERT_NE(conn, nullptr);
  EXPECT_NE(conn->Find<SchemaCatalog>(), nullptr);
  EXPECT_NE(conn->Find<TopicCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<TableCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<ModelCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<FilesetCatalog>(), nullptr);
  auto schemas = conn->Find<SchemaCatalog>()->ListSchemas();
  ASSERT_THAT(schemas, IsOk());
  EXPECT_EQ(*schemas, std::vector<std::string>{"default"});
  EXPECT_FALSE(conn->Find<SchemaCatalog>()->LoadSchema("other"));
  EXPECT_FALSE(conn->Find<SchemaCatalog>()->CreateSchema(ctx_, Schema("other")));
}

TEST_F(ConnectorCapabilitiesTest, KafkaCatalogPropertiesAreChecked) {
  auto info = cairn::testing::InsertCatalogRows(*store_, "kafka");
  ASSERT_THAT(info, IsOk());
  info->type = model::CatalogType::kMessaging;
  for (const model::Properties& props :
       {model::Properties{}, model::Properties{{"bootstrap.servers", "  "}},
        model::Properties{{"bootstrap.servers", "127.0.0.1:9"}, {"socket.timeout.ms", "soon"}}}) {
    info->properties = props;
    auto conn = registry_->Create(*info);
    ASSERT_FALSE(conn);
    EXPECT_EQ(conn.error().code, ErrorCode::kInvalidArgument) << conn.error().message;
  }
}

TEST_F(ConnectorCapabilitiesTest, JdbcCatalogHasSchemasAndTables) {
  // Building the connector opens no connection, so no database is needed.
  auto conn = Open("jdbc-postgresql", model::CatalogType::kRelational,
                   {{"jdbc-url", "jdbc:postgresql://127.0.0.1:9/db"},
                    {"jdbc-user", "u"},
                    {"jdbc-password", "p"},
                    {"jdbc-database", "db"},
                    {"jdbc-driver", "org.postgresql.Driver"}});
  ASSERT_NE(conn, nullptr);
  EXPECT_NE(conn->Find<SchemaCatalog>(), nullptr);
  EXPECT_NE(conn->Find<TableCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<PartitionCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<FilesetCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<IcebergCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<IcebergProxy>(), nullptr);
  EXPECT_EQ(conn->Find<storage::CredentialVendor>(), nullptr);
}

TEST_F(ConnectorCapabilitiesTest, HiveCatalogHasSchemasTablesAndPartitions) {
  // Building the connector opens no connection, so no metastore is needed.
  auto conn = Open("hive", model::CatalogType::kRelational,
                   {{"metastore.uris", "thrift://127.0.0.1:9"}});
  ASSERT_NE(conn, nullptr);
  EXPECT_NE(conn->Find<SchemaCatalog>(), nullptr);
  EXPECT_NE(conn->Find<TableCatalog>(), nullptr);
  EXPECT_NE(conn->Find<PartitionCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<FilesetCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<IcebergCatalog>(), nullptr);
  EXPECT_EQ(conn->Find<storage::CredentialVendor>(), nullptr);
}

// Provide itself: a null capability is not offered, and a second one of a type replaces the first.
struct Probe {
  int id = 0;
};

class ProbeConnector final : public Connector {
 public:
  ProbeConnector(Probe* first, Probe* second) {
    Provide<SchemaCatalog>(nullptr);
    Provide<Probe>(first);
    Provide<Probe>(second);
  }
  Status TestConnection() override { return Ok(); }
  Status DropAll() override { return Ok(); }
};

TEST(ConnectorFind, NullIsNotProvidedAndALaterCapabilityReplacesAnEarlierOne) {
  Probe a{1};
  Probe b{2};
  ProbeConnector both(&a, &b);
  EXPECT_EQ(both.Find<SchemaCatalog>(), nullptr);
  EXPECT_EQ(both.Find<Probe>(), &b);
  ProbeConnector first_only(&a, nullptr);
  EXPECT_EQ(first_only.Find<Probe>(), &a);
  EXPECT_EQ(first_only.Find<TableCatalog>(), nullptr);
}

}  // namespace
}  // namespace cairn::connector
