// SPDX-License-Identifier: Apache-2.0
#include "connector/iceberg/iceberg_connector.h"

#include <filesystem>

#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "connector/iceberg/iceberg_proxy.h"
#include "connector/schema_rows.h"
#include "iceberg/partitioning.h"
#include "iceberg/table_metadata.h"
#include "storage/credentials.h"
#include "storage/file_io.h"
#include "storage/s3_client.h"
#include "store/metadata_store.h"

namespace cairn::connector {

namespace {

using store::EntityRecord;
using store::EntityType;

constexpr const char* kBackendProperty = "catalog-backend";
constexpr const char* kWarehouseProperty = "warehouse";

class ManagedIcebergConnector final : public Connector, public SchemaCatalog, public TableCatalog {
 public:
  ManagedIcebergConnector(CatalogInfo info, store::MetadataStore& store, std::string warehouse,
                          bool warehouse_defaulted, std::shared_ptr<IcebergCaches> caches)
      : info_(std::move(info)),
        store_(store),
        warehouse_(std::move(warehouse)),
        warehouse_defaulted_(warehouse_defaulted),
        iceberg_(info_, store_, warehouse_, std::move(caches)) {
    Provide<SchemaCatalog>(this);
    Provide<TableCatalog>(this);
    Provide<IcebergCatalog>(&iceberg_);
    // Vends only when the catalog configures a provider.
    if (iceberg_.credentials().enabled())
      Provide<storage::CredentialVendor>(&iceberg_.credentials());
  }

  model::Properties ResolvedProperties() const override {
    if (!warehouse_defaulted_) return {};
    return {{kWarehouseProperty, warehouse_}};
  }

  Status TestConnection() override {
    auto io = storage::FileIOFor(warehouse_, iceberg_.storage());
    if (!io)
      return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog, "{}",
                       io.error().message);
    if (warehouse_.rfind("s3", 0) == 0) {
      // Listing the warehouse proves the endpoint, the keys and the bucket in one call.
      auto listed = (*io)->ListEntries(warehouse_);
      if (!listed) {
        return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog,
                         "Warehouse '{}' is not reachable: {}", warehouse_, listed.error().message);
      }
      return Ok();
    }
    if (warehouse_.rfind("file:", 0) == 0 || warehouse_.rfind('/', 0) == 0) {
      std::string path = warehouse_.rfind("file://", 0) == 0 ? warehouse_.substr(7) : warehouse_;
      std::error_code ec;
      std::filesystem::create_directories(path, ec);
      if (ec) {
        return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog,
                         "Warehouse '{}' is not usable: {}", warehouse_, ec.message());
      }
    }
    return Ok();
  }

  // ---- schemas ----

  Result<std::vector<std::string>> ListSchemas() override {
    return ListSchemaNames(store_, info_.catalog_id);
  }

  Result<model::Schema> CreateSchema(const CallContext& ctx, const model::Schema& schema) override {
    auto inserted = store_.Insert(NewSchemaRow(info_.catalog_id, schema, ctx));
    if (!inserted) {
      if (inserted.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kSchema, "Schema {}.{} already exists", info_.name,
                             schema.name);
      }
      return std::move(inserted).error();
    }
    return ToSchema(*inserted);
  }

  Result<model::Schema> LoadSchema(std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, SchemaRow(name));
    return ToSchema(row);
  }

  Result<model::Schema> AlterSchema(const CallContext& ctx, std::string_view name,
                                    const std::vector<model::EntityChange>& changes) override {
    CAIRN_ASSIGN_OR_RETURN(
        EntityRecord row,
        UpdateSchemaProperties(store_, name, changes, ctx, [&] { return SchemaRow(name); }));
    return ToSchema(row);
  }

  Result<bool> DropSchema(const CallContext& /*ctx*/, std::string_view name,
                          bool cascade) override {
    auto row = SchemaRow(name);
    if (!row) {
      if (row.error().code == ErrorCode::kNotFound) return false;
      return std::move(row).error();
    }
    CAIRN_ASSIGN_OR_RETURN(int64_t children, store_.CountChildren(row->id));
    if (children > 0 && !cascade) {
      return MakeError(
          ErrorCode::kNotEmpty, EntityKind::kSchema,
          "Schema {}.{} is not empty, it has {} table(s); drop them first or use cascade",
          info_.name, name, children);
    }
    return store_.Delete(row->id);
  }

  Result<bool> HasSchemas() override {
    CAIRN_ASSIGN_OR_RETURN(int64_t n, store_.CountChildren(info_.catalog_id));
    return n > 0;
  }

  // ---- tables ----

  Result<std::vector<std::string>> ListTables(std::string_view schema) override {
    CAIRN_ASSIGN_OR_RETURN(connector::Page page, iceberg_.ListTables({std::string(schema)}, "", 0));
    return std::move(page.names);
  }

  Result<model::Table> CreateTable(const CallContext& ctx, std::string_view schema,
                                   const model::Table& table) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    if (!table.indexes.empty()) {
      return InvalidArgument("Iceberg tables do not support indexes (table {})", table.name);
    }
    if (store_.Get(EntityType::kTable, s.id, table.name)) {
      return TableExists(schema, table.name);
    }
    CAIRN_ASSIGN_OR_RETURN(
        iceberg::NewTableRequest request,
        iceberg::NewTableRequestFor(table, fmt::format("{}/{}/{}", warehouse_, schema, table.name),
                                    ctx.now_ms));
    CAIRN_ASSIGN_OR_RETURN(request.location, storage::NormalizeLocation(request.location));
    CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata, iceberg::NewTableMetadata(request));
    auto created =
        iceberg_.CreateTableWithMetadata(ctx, {std::string(schema)}, table.name, metadata);
    if (!created) {
      if (created.error().code == ErrorCode::kAlreadyExists) return TableExists(schema, table.name);
      return std::move(created).error();
    }
    return ToTable(created->row, metadata);
  }

  Result<model::Table> LoadTable(std::string_view schema, std::string_view name) override {
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));  // a missing schema is its own 404
    auto loaded = iceberg_.LoadTable({std::string(schema)}, name);
    if (!loaded) return TableError(schema, name, std::move(loaded).error());
    CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata, iceberg::ParseMetadata(*loaded->metadata_text));
    return ToTable(loaded->row, metadata);
  }

  Result<model::Table> AlterTable(const CallContext& ctx, std::string_view schema,
                                  std::string_view name,
                                  const std::vector<model::TableChange>& changes) override {
    std::vector<model::TableChange> metadata_changes;
    std::optional<std::pair<Namespace, std::string>> rename_to;
    for (const auto& c : changes) {
      if (c.kind == model::TableChange::Kind::kRename) {
        rename_to =
            std::make_pair(Namespace{c.new_schema.value_or(std::string(schema))}, c.new_name);
      } else {
        metadata_changes.push_back(c);
      }
    }
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));
    if (rename_to) CAIRN_RETURN_IF_ERROR(SchemaRow(rename_to->first[0]));
    auto updated = iceberg_.UpdateTable(
        ctx, {std::string(schema)}, name,
        [&](const iceberg::Json& base) -> Result<iceberg::Json> {
          if (metadata_changes.empty()) return base;
          return iceberg::ApplyTableChanges(base, metadata_changes, ctx.now_ms);
        },
        rename_to);
    if (!updated) {
      if (updated.error().code == ErrorCode::kAlreadyExists && rename_to) {
        return TableExists(rename_to->first[0], rename_to->second);
      }
      return TableError(schema, name, std::move(updated).error());
    }
    CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata, iceberg::ParseMetadata(*updated->metadata_text));
    return ToTable(updated->row, metadata);
  }

  Result<bool> DropTable(const CallContext& /*ctx*/, std::string_view schema, std::string_view name,
                         bool purge) override {
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));  // a missing schema is an error, not "not dropped"
    return iceberg_.DropTable({std::string(schema)}, name, purge);
  }

  Status DropAll() override { return Ok(); }

 private:
  Result<EntityRecord> SchemaRow(std::string_view name) {
    auto row = store_.Get(EntityType::kSchema, info_.catalog_id, name);
    if (!row && row.error().code == ErrorCode::kNotFound) {
      return NotFound(EntityKind::kSchema, "Schema {}.{} does not exist", info_.name, name);
    }
    return row;
  }

  // Errors from the Iceberg catalog use Iceberg's wording; the Gravitino API names the catalog.
  Error TableError(std::string_view schema, std::string_view name, Error error) const {
    if (error.code == ErrorCode::kNotFound && error.entity == EntityKind::kTable) {
      return NotFound(EntityKind::kTable, "Table {}.{}.{} does not exist", info_.name, schema,
                      name);
    }
    return error;
  }

  Error TableExists(std::string_view schema, std::string_view name) const {
    return AlreadyExists(EntityKind::kTable, "Table {}.{}.{} already exists", info_.name, schema,
                         name);
  }

  static model::Schema ToSchema(const EntityRecord& row) { return SchemaFromRow(row); }

  static Result<model::Table> ToTable(const EntityRecord& row, const iceberg::Json& metadata) {
    CAIRN_ASSIGN_OR_RETURN(model::Table t, iceberg::TableFromMetadata(metadata));
    t.name = row.name;
    t.audit = row.audit;
    return t;
  }

  CatalogInfo info_;
  store::MetadataStore& store_;
  std::string warehouse_;
  bool warehouse_defaulted_;
  IcebergCatalog iceberg_;
};

Result<std::unique_ptr<Connector>> MakeIcebergConnector(const CatalogInfo& info,
                                                        const ConnectorDeps& deps) {
  const auto& props = info.properties;
  auto backend = props.find(kBackendProperty);
  if (backend != props.end() && !EqualsIgnoreCase(backend->second, "managed")) {
    if (EqualsIgnoreCase(backend->second, "rest")) return MakeRestIcebergConnector(info, deps);
    return InvalidArgument("Property '{}' has an unsupported value '{}'; supported: managed, rest",
                           kBackendProperty, backend->second);
  }
  std::string warehouse;
  bool defaulted = false;
  auto wh = props.find(kWarehouseProperty);
  if (wh != props.end()) {
    auto normalized = storage::NormalizeLocation(wh->second);
    if (!normalized) {
      return InvalidArgument("Property '{}' is invalid: {}", kWarehouseProperty,
                             normalized.error().message);
    }
    warehouse = *normalized;
    auto io = storage::FileIOFor(warehouse, storage::StorageOptions::FromProperties(props));
    if (!io)
      return InvalidArgument("Property '{}' is invalid: {}", kWarehouseProperty,
                             io.error().message);
    if (warehouse.rfind("s3", 0) == 0) {
      if (auto bucket = storage::ParseS3Location(warehouse); !bucket) {
        return InvalidArgument("Property '{}' is invalid: {}", kWarehouseProperty,
                               bucket.error().message);
      }
      for (const char* key : {"s3-access-key-id", "s3-secret-access-key"}) {
        auto it = props.find(key);
        if (it == props.end() || it->second.empty()) {
          return InvalidArgument("Missing property '{}': required for the s3 warehouse '{}'", key,
                                 warehouse);
        }
      }
    }
  } else {
    warehouse = fmt::format("{}/warehouse/{}/{}", deps.data_dir, info.metalake, info.name);
    defaulted = true;
  }
  if (auto vendor = storage::CredentialVendor::FromProperties(props); !vendor) {
    return std::move(vendor).error();
  }
  if (deps.store == nullptr) return Internal("the Iceberg connector needs the metadata store");
  // A registry built without MakeDefaultRegistry may have no caches: the catalog gets its own.
  auto caches =
      deps.iceberg_caches ? deps.iceberg_caches : MakeIcebergCaches(IcebergCacheOptions{});
  return std::unique_ptr<Connector>(std::make_unique<ManagedIcebergConnector>(
      info, *deps.store, warehouse, defaulted, std::move(caches)));
}

}  // namespace

void RegisterIcebergConnector(ConnectorRegistry& registry) {
  registry.Register("lakehouse-iceberg", model::CatalogType::kRelational, MakeIcebergConnector);
}

}  // namespace cairn::connector
