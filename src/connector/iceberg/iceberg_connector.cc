// SPDX-License-Identifier: Apache-2.0
#include "connector/iceberg/iceberg_connector.h"

#include <algorithm>
#include <filesystem>

#include "common/util.h"
#include "connector/hive/hive_iceberg.h"
#include "connector/iceberg/iceberg_metastore.h"
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

// The comment of a view, kept as Iceberg keeps a table's: the `comment` property.
constexpr const char* kCommentProperty = "comment";

class ManagedIcebergConnector final : public Connector,
                                      public SchemaCatalog,
                                      public TableCatalog,
                                      public ViewCatalog {
 public:
  ManagedIcebergConnector(CatalogInfo info, store::MetadataStore& store, std::string warehouse,
                          bool warehouse_defaulted, std::shared_ptr<IcebergCaches> caches,
                          std::shared_ptr<IcebergMetastore> metastore = nullptr)
      : info_(std::move(info)),
        store_(store),
        warehouse_(std::move(warehouse)),
        warehouse_defaulted_(warehouse_defaulted),
        iceberg_(info_, store_, warehouse_, std::move(caches), std::move(metastore)) {
    Provide<SchemaCatalog>(this);
    Provide<TableCatalog>(this);
    Provide<ViewCatalog>(this);
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
    if (iceberg_.has_metastore()) {
      auto listed = iceberg_.ListNamespaces({});
      if (!listed) {
        return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog, "{}",
                         listed.error().message);
      }
    }
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
    if (iceberg_.has_metastore()) {
      CAIRN_ASSIGN_OR_RETURN(auto namespaces, iceberg_.ListNamespaces({}));
      std::vector<std::string> names;
      for (auto& ns : namespaces) names.push_back(std::move(ns[0]));
      return names;
    }
    return ListSchemaNames(store_, info_.catalog_id);
  }

  Result<model::Schema> CreateSchema(const CallContext& ctx, const model::Schema& schema) override {
    if (iceberg_.has_metastore()) {
      model::Properties props = schema.properties;
      if (schema.comment) props[kCommentProperty] = *schema.comment;
      auto made = iceberg_.CreateNamespace(ctx, {schema.name}, props);
      if (!made) {
        if (made.error().code == ErrorCode::kAlreadyExists) {
          return AlreadyExists(EntityKind::kSchema, "Schema {}.{} already exists", info_.name,
                               schema.name);
        }
        return std::move(made).error();
      }
      return LoadSchema(schema.name);
    }
    CAIRN_ASSIGN_OR_RETURN(auto row,
                           InsertSchemaRow(store_, info_.catalog_id, info_.name, schema, ctx));
    return ToSchema(row);
  }

  Result<model::Schema> LoadSchema(std::string_view name) override {
    if (iceberg_.has_metastore()) {
      // The metastore's database: its properties and comment, the row's owner and audit.
      CAIRN_ASSIGN_OR_RETURN(model::Properties props, MetastoreNamespace(name));
      CAIRN_ASSIGN_OR_RETURN(EntityRecord row,
                             GetSchemaRow(store_, info_.catalog_id, info_.name, name));
      model::Schema out = ToSchema(row);
      out.comment.reset();
      if (auto c = props.find(kCommentProperty); c != props.end()) {
        if (!c->second.empty()) out.comment = c->second;
        props.erase(c);
      }
      out.properties = std::move(props);
      return out;
    }
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, SchemaRow(name));
    return ToSchema(row);
  }

  Result<model::Schema> AlterSchema(const CallContext& ctx, std::string_view name,
                                    const std::vector<model::EntityChange>& changes) override {
    if (iceberg_.has_metastore()) {
      model::Properties updates;
      std::vector<std::string> removals;
      for (const auto& c : changes) {
        switch (c.kind) {
          case model::EntityChange::Kind::kSetProperty:
            updates[c.property] = c.value;
            break;
          case model::EntityChange::Kind::kRemoveProperty:
            removals.push_back(c.property);
            break;
          case model::EntityChange::Kind::kUpdateComment:
            updates[kCommentProperty] = c.comment.value_or("");
            break;
          case model::EntityChange::Kind::kRename:
            return InvalidArgument("Schemas of catalog {} cannot be renamed", info_.name);
        }
      }
      CAIRN_RETURN_IF_ERROR(
          iceberg_.UpdateNamespaceProperties(ctx, {std::string(name)}, removals, updates));
      return LoadSchema(name);
    }
    CAIRN_ASSIGN_OR_RETURN(
        EntityRecord row,
        UpdateSchemaProperties(store_, name, changes, ctx, [&] { return SchemaRow(name); }));
    return ToSchema(row);
  }

  Result<bool> DropSchema(const CallContext& /*ctx*/, std::string_view name,
                          bool cascade) override {
    if (iceberg_.has_metastore()) {
      const Namespace ns{std::string(name)};
      auto tables = iceberg_.ListTables(ns, "", 0);
      if (!tables) {
        if (tables.error().code == ErrorCode::kNotFound) return false;
        return std::move(tables).error();
      }
      if (!tables->names.empty() && !cascade) {
        return MakeError(
            ErrorCode::kNotEmpty, EntityKind::kSchema,
            "Schema {}.{} is not empty, it has {} table(s); drop them first or use cascade",
            info_.name, name, tables->names.size());
      }
      for (const auto& t : tables->names) CAIRN_RETURN_IF_ERROR(iceberg_.DropTable(ns, t, false));
      auto dropped = iceberg_.DropNamespace(ns);
      if (!dropped) {
        if (dropped.error().code == ErrorCode::kNotFound) return false;
        return std::move(dropped).error();
      }
      return true;
    }
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
    if (iceberg_.has_metastore()) {
      // The metastore's own `default` database does not keep the catalog from being dropped.
      CAIRN_ASSIGN_OR_RETURN(auto names, ListSchemas());
      return std::any_of(names.begin(), names.end(),
                         [](const std::string& n) { return n != "default"; });
    }
    CAIRN_ASSIGN_OR_RETURN(int64_t n, store_.CountChildren(info_.catalog_id));
    return n > 0;
  }

  // ---- tables ----

  Result<std::vector<std::string>> ListTables(std::string_view schema) override {
    CAIRN_ASSIGN_OR_RETURN(connector::Page page, iceberg_.ListTables({std::string(schema)}, "", 0));
    return std::move(page.names);
  }

  // One range of the store's name index (the Iceberg REST paging), not the whole schema.
  Result<NamePage> ListTablesAfter(std::string_view schema, const std::string& after,
                                   size_t limit) override {
    CAIRN_ASSIGN_OR_RETURN(connector::Page page,
                           iceberg_.ListTablesAfter({std::string(schema)}, after,
                                                    static_cast<int>(limit)));
    return NamePage{std::move(page.names), page.next_token.has_value()};
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
    return ToTable(*created->row, metadata);
  }

  Result<model::Table> LoadTable(std::string_view schema, std::string_view name) override {
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));  // a missing schema is its own 404
    auto loaded = iceberg_.LoadTable({std::string(schema)}, name);
    if (!loaded) return TableError(schema, name, std::move(loaded).error());
    CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata, iceberg::ParseMetadata(*loaded->metadata_text));
    return ToTable(*loaded->row, metadata);
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
    return ToTable(*updated->row, metadata);
  }

  Result<bool> DropTable(const CallContext& /*ctx*/, std::string_view schema, std::string_view name,
                         bool purge) override {
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));  // a missing schema is an error, not "not dropped"
    return iceberg_.DropTable({std::string(schema)}, name, purge);
  }

  Status DropAll() override { return Ok(); }

  // ---- views: the Iceberg views the REST service keeps, in Gravitino's shape ----

  Result<std::vector<std::string>> ListViews(std::string_view schema) override {
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));
    CAIRN_ASSIGN_OR_RETURN(connector::Page page, iceberg_.ListViews({std::string(schema)}, "", 0));
    return std::move(page.names);
  }

  Result<model::View> CreateView(const CallContext& ctx, std::string_view schema,
                                 const model::View& view) override {
    CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kView, view.name));
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));
    CAIRN_ASSIGN_OR_RETURN(iceberg::Json version, ViewVersion(view, schema, 1, 0, ctx.now_ms));
    CAIRN_ASSIGN_OR_RETURN(iceberg::IcebergSchema s, iceberg::ToIcebergSchema(view.columns, 0));
    iceberg::Json properties = iceberg::Json::object();
    for (const auto& [k, v] : view.properties) properties[k] = v;
    if (view.comment) properties[kCommentProperty] = *view.comment;
    nlohmann::json request{{"name", view.name},
                           {"schema", nlohmann::json::parse(s.schema.dump())},
                           {"view-version", nlohmann::json::parse(version.dump())},
                           {"properties", nlohmann::json::parse(properties.dump())}};
    auto created = iceberg_.CreateView(ctx, {std::string(schema)}, request);
    if (!created) return ViewError(schema, view.name, std::move(created).error());
    return ToView(*created);
  }

  Result<model::View> LoadView(std::string_view schema, std::string_view name) override {
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));
    auto loaded = iceberg_.LoadView({std::string(schema)}, name);
    if (!loaded) return ViewError(schema, name, std::move(loaded).error());
    return ToView(*loaded);
  }

  Result<model::View> AlterView(const CallContext& ctx, std::string_view schema,
                                std::string_view name,
                                const std::vector<model::ViewChange>& changes) override {
    using Kind = model::ViewChange::Kind;
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));
    const Namespace ns{std::string(schema)};
    std::optional<std::string> rename_to;
    nlohmann::json updates = nlohmann::json::array();
    for (const auto& c : changes) {
      switch (c.kind) {
        case Kind::kRename:
          CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kView, c.new_name));
          rename_to = c.new_name;
          break;
        case Kind::kSetProperty:
          if (c.property == kCommentProperty) {
            return InvalidArgument("Property '{}' is the view's comment: set it with replaceView",
                                   kCommentProperty);
          }
          updates.push_back({{"action", "set-properties"}, {"updates", {{c.property, c.value}}}});
          break;
        case Kind::kRemoveProperty:
          updates.push_back({{"action", "remove-properties"}, {"removals", {c.property}}});
          break;
        case Kind::kReplace: {
          CAIRN_ASSIGN_OR_RETURN(auto loaded, iceberg_.LoadView(ns, name));
          CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata,
                                 iceberg::ParseMetadata(*loaded.metadata_text));
          const int64_t next_version = NextViewVersionId(metadata);
          CAIRN_ASSIGN_OR_RETURN(iceberg::IcebergSchema s,
                                 iceberg::ToIcebergSchema(c.body.columns, NextSchemaId(metadata)));
          CAIRN_ASSIGN_OR_RETURN(iceberg::Json version,
                                 ViewVersion(c.body, schema, next_version, -1, ctx.now_ms));
          updates.push_back(
              {{"action", "add-schema"}, {"schema", nlohmann::json::parse(s.schema.dump())}});
          updates.push_back({{"action", "add-view-version"},
                             {"view-version", nlohmann::json::parse(version.dump())}});
          updates.push_back({{"action", "set-current-view-version"}, {"view-version-id", -1}});
          if (c.body.comment) {
            updates.push_back(
                {{"action", "set-properties"}, {"updates", {{kCommentProperty, *c.body.comment}}}});
          } else {
            updates.push_back({{"action", "remove-properties"}, {"removals", {kCommentProperty}}});
          }
          break;
        }
      }
    }
    if (!updates.empty()) {
      auto replaced = iceberg_.ReplaceView(ctx, ns, name, nlohmann::json::array(), updates);
      if (!replaced) return ViewError(schema, name, std::move(replaced).error());
    }
    std::string current(name);
    if (rename_to && *rename_to != name) {
      auto renamed = iceberg_.RenameView(ctx, ns, name, ns, *rename_to);
      if (!renamed) return ViewError(schema, *rename_to, std::move(renamed).error());
      current = *rename_to;
    }
    return LoadView(schema, current);
  }

  Result<bool> DropView(const CallContext& /*ctx*/, std::string_view schema,
                        std::string_view name) override {
    CAIRN_RETURN_IF_ERROR(SchemaRow(schema));
    return iceberg_.DropView({std::string(schema)}, name);
  }

 private:
  // One view version of Iceberg's view spec from Gravitino's body.
  Result<iceberg::Json> ViewVersion(const model::View& view, std::string_view schema,
                                    int64_t version_id, int schema_id, int64_t now_ms) const {
    if (view.representations.empty()) {
      return InvalidArgument("Field 'representations' must hold at least one representation");
    }
    iceberg::Json reps = iceberg::Json::array();
    for (size_t i = 0; i < view.representations.size(); ++i) {
      const auto& r = view.representations[i];
      if (Trim(r.dialect).empty() || Trim(r.sql).empty()) {
        return InvalidArgument("Field 'representations[{}]' needs a dialect and a sql text", i);
      }
      reps.push_back({{"type", "sql"}, {"sql", r.sql}, {"dialect", r.dialect}});
    }
    iceberg::Json version{
        {"version-id", version_id},
        {"timestamp-ms", now_ms},
        {"schema-id", schema_id},
        {"summary", {{"engine-name", "cairn"}}},
        {"representations", std::move(reps)},
        {"default-namespace", {view.default_schema.value_or(std::string(schema))}}};
    if (view.default_catalog) version["default-catalog"] = *view.default_catalog;
    return version;
  }

  static int64_t NextViewVersionId(const iceberg::Json& metadata) {
    int64_t top = 0;
    for (const auto& v : metadata.value("versions", iceberg::Json::array())) {
      top = std::max<int64_t>(top, v.value("version-id", int64_t{0}));
    }
    return top + 1;
  }

  static int NextSchemaId(const iceberg::Json& metadata) {
    int top = -1;
    for (const auto& s : metadata.value("schemas", iceberg::Json::array())) {
      top = std::max(top, s.value("schema-id", 0));
    }
    return top + 1;
  }

  Result<model::View> ToView(const LoadedObject& loaded) const {
    CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata, iceberg::ParseMetadata(*loaded.metadata_text));
    model::View v;
    v.name = loaded.row->name;
    v.audit = loaded.row->audit;
    const int64_t current = metadata.value("current-version-id", int64_t{-1});
    iceberg::Json found;
    for (const auto& candidate : metadata.value("versions", iceberg::Json::array())) {
      if (candidate.value("version-id", int64_t{-2}) == current) {
        found = candidate;
        break;
      }
    }
    if (!found.is_object()) return Internal("view {} has no current version", v.name);
    for (const auto& r : found.value("representations", iceberg::Json::array())) {
      if (r.value("type", "") != "sql") continue;
      v.representations.push_back({r.value("dialect", ""), r.value("sql", "")});
    }
    if (auto ns = found.find("default-namespace");
        ns != found.end() && ns->is_array() && !ns->empty() && ns->back().is_string()) {
      v.default_schema = ns->back().get<std::string>();
    }
    if (auto c = found.find("default-catalog"); c != found.end() && c->is_string()) {
      v.default_catalog = c->get<std::string>();
    }
    const int schema_id = found.value("schema-id", 0);
    for (const auto& s : metadata.value("schemas", iceberg::Json::array())) {
      if (s.value("schema-id", -1) != schema_id) continue;
      CAIRN_ASSIGN_OR_RETURN(v.columns, iceberg::FromIcebergSchema(s));
    }
    const iceberg::Json properties = metadata.value("properties", iceberg::Json::object());
    for (const auto& [k, value] : properties.items()) {
      if (!value.is_string()) continue;
      if (k == kCommentProperty) {
        v.comment = value.get<std::string>();
      } else {
        v.properties[k] = value.get<std::string>();
      }
    }
    return v;
  }

  Error ViewError(std::string_view schema, std::string_view name, Error error) const {
    if (error.code == ErrorCode::kNotFound && error.entity == EntityKind::kView) {
      return NotFound(EntityKind::kView, "View {}.{}.{} does not exist", info_.name, schema, name);
    }
    if (error.code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kView, "View {}.{}.{} already exists (as a view or a table)",
                           info_.name, schema, name);
    }
    return error;
  }

  Result<EntityRecord> SchemaRow(std::string_view name) {
    // With a metastore it decides; its databases get rows when first seen.
    if (iceberg_.has_metastore()) CAIRN_RETURN_IF_ERROR(MetastoreNamespace(name));
    return GetSchemaRow(store_, info_.catalog_id, info_.name, name);
  }

  // The metastore's properties of database `name` (its row brought in line).
  Result<model::Properties> MetastoreNamespace(std::string_view name) {
    auto props = iceberg_.LoadNamespace({std::string(name)});
    if (!props && props.error().code == ErrorCode::kNotFound) {
      return NotFound(EntityKind::kSchema, "Schema {}.{} does not exist", info_.name, name);
    }
    return props;
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
  const bool hive = backend != props.end() && EqualsIgnoreCase(backend->second, "hive");
  if (backend != props.end() && !EqualsIgnoreCase(backend->second, "managed") && !hive) {
    if (EqualsIgnoreCase(backend->second, "rest")) return MakeRestIcebergConnector(info, deps);
    return InvalidArgument(
        "Property '{}' has an unsupported value '{}'; supported: managed, rest, hive",
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
  std::shared_ptr<IcebergMetastore> metastore;
  if (hive) {
    CAIRN_ASSIGN_OR_RETURN(metastore, hive::MakeHiveIcebergMetastore(info, deps, warehouse));
  }
  return std::unique_ptr<Connector>(std::make_unique<ManagedIcebergConnector>(
      info, *deps.store, warehouse, defaulted, std::move(caches), std::move(metastore)));
}

}  // namespace

void RegisterIcebergConnector(ConnectorRegistry& registry) {
  registry.Register("lakehouse-iceberg", model::CatalogType::kRelational, MakeIcebergConnector);
}

}  // namespace cairn::connector
