// SPDX-License-Identifier: Apache-2.0
#include "connector/generic/generic_connector.h"

#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/util.h"
#include "connector/fileset/fileset_locations.h"
#include "connector/schema_rows.h"
#include "json/json_util.h"
#include "model/json_codec.h"
#include "storage/credentials.h"
#include "storage/file_io.h"
#include "store/metadata_store.h"
#include "store/retry.h"

namespace cairn::connector {

namespace {

using Json = nlohmann::json;
using store::EntityRecord;
using store::EntityType;

constexpr std::string_view kFormat = "format";
constexpr std::string_view kLocation = "location";
constexpr std::string_view kExternal = "external";
constexpr std::string_view kRegister = "lance.register";

// The formats a generic table may have. Lance is the one clients of this server speak today.
bool KnownFormat(std::string_view format) { return EqualsIgnoreCase(format, "lance"); }

bool IsTrue(const model::Properties& props, std::string_view key) {
  auto it = props.find(std::string(key));
  return it != props.end() && EqualsIgnoreCase(Trim(it->second), "true");
}

// Properties a table keeps for its life: its location and format decide where its files are and
// what they are; `external` decides whether a drop deletes them.
bool ImmutableTableProperty(std::string_view key) {
  return key == kFormat || key == kLocation || key == kExternal || key == kRegister;
}

Result<std::string> Normalized(std::string_view location, std::string_view what) {
  auto normalized = fileset::NormalizeLocation(location);
  if (!normalized) return InvalidArgument("{}: {}", what, normalized.error().message);
  // Normalization keeps the segments as written: a `..` would name another place than it reads.
  if (auto parsed = storage::ParseLocation(*normalized); !parsed) {
    return InvalidArgument("{}: {}", what, parsed.error().message);
  }
  return *normalized;
}

Result<std::unique_ptr<storage::FileIO>> OpenIO(const std::string& location,
                                                const model::Properties& properties) {
  auto io = storage::FileIOFor(location, storage::StorageOptions::FromProperties(properties));
  if (!io) {
    return InvalidArgument("Storage location '{}' cannot be used: {}", location,
                           io.error().message);
  }
  return std::move(*io);
}

// What a table row keeps beyond its columns and properties.
struct TableState {
  std::string format;
  bool external = false;
  std::vector<model::Column> columns;
};

std::string PayloadOf(const TableState& s) {
  nlohmann::ordered_json columns = nlohmann::ordered_json::array();
  for (const auto& c : s.columns) columns.push_back(model::ColumnToJson(c));
  return nlohmann::ordered_json{
      {"format", s.format}, {"external", s.external}, {"columns", std::move(columns)}}
      .dump();
}

Result<TableState> StateOf(const EntityRecord& row) {
  Json p = json::ParseJsonOrDiscarded(row.payload);
  if (!p.is_object()) return Internal("table {} has a corrupt stored definition", row.name);
  TableState s;
  s.format = p.value("format", "lance");
  s.external = p.value("external", false);
  if (auto c = p.find("columns"); c != p.end() && c->is_array()) {
    for (size_t i = 0; i < c->size(); ++i) {
      auto column = model::ColumnFromJson((*c)[i], fmt::format("columns[{}]", i));
      if (!column) return Internal("table {} has a corrupt stored column", row.name);
      s.columns.push_back(std::move(*column));
    }
  }
  return s;
}

model::Table ToTable(const EntityRecord& row, const TableState& state) {
  model::Table t;
  t.name = row.name;
  t.comment = row.comment;
  t.columns = state.columns;
  t.properties = row.properties;
  t.properties[std::string(kFormat)] = state.format;
  if (row.location) t.properties[std::string(kLocation)] = *row.location;
  if (state.external) t.properties[std::string(kExternal)] = "true";
  t.audit = row.audit;
  return t;
}

class GenericConnector final : public Connector,
                               public SchemaCatalog,
                               public TableCatalog,
                               public GenericTableCatalog {
 public:
  GenericConnector(CatalogInfo info, store::MetadataStore& store, std::string root)
      : info_(std::move(info)), store_(store), root_(std::move(root)) {
    // Validated when the catalog was created; a bad set vends nothing.
    if (auto vendor = storage::CredentialVendor::FromProperties(info_.properties)) {
      credentials_ = *vendor;
    }
    Provide<SchemaCatalog>(this);
    Provide<TableCatalog>(this);
    Provide<GenericTableCatalog>(this);
    if (credentials_.enabled()) Provide<storage::CredentialVendor>(&credentials_);
  }

  // Everything lives in Cairn's store and on the tables' storage: nothing to reach.
  Status TestConnection() override { return Ok(); }

  Status DropAll() override {
    CAIRN_ASSIGN_OR_RETURN(auto names, ListSchemas());
    for (const auto& name : names) CAIRN_RETURN_IF_ERROR(DropSchema(CallContext{}, name, true));
    return Ok();
  }

  // Tables keep the location they were created with, so the root may move (later tables follow).
  Status CheckPropertyChange(const model::Properties& /*before*/,
                             const model::Properties& after) const override {
    if (auto it = after.find(std::string(kLocation)); it != after.end()) {
      CAIRN_RETURN_IF_ERROR(Normalized(it->second, "Property 'location' is invalid"));
    }
    return Ok();
  }

  // ---- schemas ----

  Result<std::vector<std::string>> ListSchemas() override {
    return ListSchemaNames(store_, info_.catalog_id);
  }

  Result<model::Schema> CreateSchema(const CallContext& ctx, const model::Schema& schema) override {
    model::Schema s = schema;
    if (auto it = s.properties.find(std::string(kLocation)); it != s.properties.end()) {
      CAIRN_ASSIGN_OR_RETURN(it->second,
                             Normalized(it->second, "Schema property 'location' is invalid"));
      if (!root_.empty() && !storage::LocationWithin(it->second, root_)) {
        return InvalidArgument(
            "Schema property 'location' ('{}') must lie within the catalog's location '{}'",
            it->second, root_);
      }
    }
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row,
                           InsertSchemaRow(store_, info_.catalog_id, info_.name, s, ctx));
    return SchemaFromRow(row);
  }

  Result<model::Schema> LoadSchema(std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, SchemaRow(name));
    return SchemaFromRow(row);
  }

  Result<model::Schema> AlterSchema(const CallContext& ctx, std::string_view name,
                                    const std::vector<model::EntityChange>& changes) override {
    CAIRN_RETURN_IF_ERROR(CheckSchemaPropertyChanges(changes));
    for (const auto& c : changes) {
      if (c.property == kLocation) {
        return InvalidArgument("Property location is immutable or reserved, cannot be changed");
      }
    }
    CAIRN_ASSIGN_OR_RETURN(
        EntityRecord row,
        UpdateSchemaProperties(store_, name, changes, ctx, [&] { return SchemaRow(name); }));
    return SchemaFromRow(row);
  }

  Result<bool> DropSchema(const CallContext& ctx, std::string_view name, bool cascade) override {
    auto row = SchemaRow(name);
    if (!row && row.error().code == ErrorCode::kNotFound) return false;
    if (!row) return std::move(row).error();
    CAIRN_ASSIGN_OR_RETURN(auto tables, store_.List(EntityType::kTable, row->id, "", 0));
    if (!cascade) {
      if (!tables.empty()) {
        return MakeError(
            ErrorCode::kNotEmpty, EntityKind::kSchema,
            "Schema {}.{} is not empty, it has {} table(s); drop them first or use cascade",
            info_.name, name, tables.size());
      }
      CAIRN_RETURN_IF_ERROR(CheckNoFunctions(store_, *row, info_.name));
    }
    // Files first, table by table: a table whose files cannot be deleted stays, with its schema,
    // so the drop can be retried.
    for (const auto& t : tables) {
      CAIRN_ASSIGN_OR_RETURN(bool dropped, DropTableRow(ctx, *row, t));
      (void)dropped;
    }
    return store_.Delete(row->id);
  }

  Result<bool> HasSchemas() override {
    CAIRN_ASSIGN_OR_RETURN(int64_t n, store_.CountChildren(info_.catalog_id));
    return n > 0;
  }

  // ---- tables ----

  Result<std::vector<std::string>> ListTables(std::string_view schema) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    return ListChildNames(store_, EntityType::kTable, s.id);
  }

  Result<model::Table> CreateTable(const CallContext& ctx, std::string_view schema,
                                   const model::Table& table) override {
    CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kTable, table.name));
    if (!table.partitioning.empty() || !table.sort_orders.empty() || !table.indexes.empty() ||
        !EqualsIgnoreCase(table.distribution.strategy, "none")) {
      return InvalidArgument(
          "Tables of catalog {} (provider lakehouse-generic) take no partitioning, sort orders, "
          "distribution or indexes: the dataset's format keeps its own layout",
          info_.name);
    }
    TableState state;
    state.columns = table.columns;
    auto format = table.properties.find(std::string(kFormat));
    if (format == table.properties.end() || Trim(format->second).empty()) {
      return InvalidArgument("Table property 'format' is required (supported: lance)");
    }
    if (!KnownFormat(Trim(format->second))) {
      return InvalidArgument("Table property 'format' is '{}'; supported: lance", format->second);
    }
    state.format = ToLower(Trim(format->second));
    state.external = IsTrue(table.properties, kExternal) || IsTrue(table.properties, kRegister);

    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    CAIRN_ASSIGN_OR_RETURN(std::string location, TableLocation(s, table));
    const model::Properties props = StorageProperties(s);
    CAIRN_RETURN_IF_ERROR(CheckLocationFree(s, table.name, location, state.external, props));

    EntityRecord row;
    row.type = EntityType::kTable;
    row.parent_id = s.id;
    row.name = table.name;
    row.comment = table.comment;
    row.properties = table.properties;
    for (auto key : {kFormat, kLocation, kExternal}) row.properties.erase(std::string(key));
    row.payload = PayloadOf(state);
    row.location = location;
    row.audit.creator = ctx.principal;
    row.audit.create_time = ctx.now_ms;
    auto inserted = store_.Insert(row);
    if (!inserted && inserted.error().code == ErrorCode::kAlreadyExists) {
      return TableExists(schema, table.name);
    }
    if (!inserted) return std::move(inserted).error();
    return ToTable(*inserted, state);
  }

  Result<model::Table> LoadTable(std::string_view schema, std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, TableRow(s, name));
    CAIRN_ASSIGN_OR_RETURN(TableState state, StateOf(row));
    return ToTable(row, state);
  }

  Result<model::Table> AlterTable(const CallContext& ctx, std::string_view schema,
                                  std::string_view name,
                                  const std::vector<model::TableChange>& changes) override {
    using K = model::TableChange::Kind;
    std::string new_name(name);
    for (const auto& c : changes) {
      switch (c.kind) {
        case K::kRename:
          if (c.new_schema && *c.new_schema != schema) {
            return InvalidArgument("A table of catalog {} cannot move to another schema",
                                   info_.name);
          }
          CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kTable, c.new_name));
          new_name = c.new_name;
          break;
        case K::kUpdateComment:
          break;
        case K::kSetProperty:
        case K::kRemoveProperty:
          if (ImmutableTableProperty(c.property)) {
            return InvalidArgument("Property {} is immutable or reserved, cannot be changed",
                                   c.property);
          }
          break;
        default:
          return Unsupported(
              "Catalog {} does not alter the columns of its tables: they live in the dataset's "
              "own files, which its clients write",
              info_.name);
      }
    }
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    auto updated = store::RetryOnConflict(
        [&]() -> Result<EntityRecord> {
          CAIRN_ASSIGN_OR_RETURN(EntityRecord row, TableRow(s, name));
          for (const auto& c : changes) {
            if (c.kind == K::kRename) row.name = c.new_name;
            if (c.kind == K::kUpdateComment) row.comment = c.comment;
            if (c.kind == K::kSetProperty) row.properties[c.property] = c.value;
            if (c.kind == K::kRemoveProperty) row.properties.erase(c.property);
          }
          row.audit.last_modifier = ctx.principal;
          row.audit.last_modified_time = ctx.now_ms;
          return store_.CompareAndSet(row);
        },
        [&] { return Unavailable("too many concurrent updates of table {}; try again", name); });
    if (!updated && updated.error().code == ErrorCode::kAlreadyExists) {
      return TableExists(schema, new_name);
    }
    if (!updated) return std::move(updated).error();
    CAIRN_ASSIGN_OR_RETURN(TableState state, StateOf(*updated));
    return ToTable(*updated, state);
  }

  Result<bool> DropTable(const CallContext& ctx, std::string_view schema, std::string_view name,
                         bool /*purge*/) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    auto row = TableRow(s, name);
    if (!row && row.error().code == ErrorCode::kNotFound) return false;
    if (!row) return std::move(row).error();
    return DropTableRow(ctx, s, *row);
  }

  // ---- generic tables ----

  Result<model::Table> DeregisterTable(const CallContext& /*ctx*/, std::string_view schema,
                                       std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, TableRow(s, name));
    CAIRN_ASSIGN_OR_RETURN(TableState state, StateOf(row));
    CAIRN_ASSIGN_OR_RETURN(bool deleted, store_.Delete(row.id));
    if (!deleted) return TableNotFound(s.name, name);
    return ToTable(row, state);
  }

  Result<bool> IsOnlyDeclared(const model::Table& table) override {
    auto location = table.properties.find(std::string(kLocation));
    if (location == table.properties.end()) return true;
    // A Lance dataset's first commit writes its first manifest under `_versions/`.
    CAIRN_ASSIGN_OR_RETURN(auto io, OpenIO(location->second, info_.properties));
    CAIRN_ASSIGN_OR_RETURN(auto entries,
                           io->ListEntries(fileset::JoinLocation(location->second, "_versions")));
    return entries.empty();
  }

 private:
  Result<EntityRecord> SchemaRow(std::string_view name) {
    return GetSchemaRow(store_, info_.catalog_id, info_.name, name);
  }

  Result<EntityRecord> TableRow(const EntityRecord& schema, std::string_view name) {
    auto row = store_.Get(EntityType::kTable, schema.id, name);
    if (!row && row.error().code == ErrorCode::kNotFound) return TableNotFound(schema.name, name);
    return row;
  }

  model::Properties StorageProperties(const EntityRecord& schema) const {
    model::Properties props = info_.properties;
    for (const auto& [k, v] : schema.properties) props[k] = v;
    return props;
  }

  // The schema's own location, else the catalog's plus the schema's name; empty when neither.
  std::string SchemaLocation(const EntityRecord& schema) const {
    if (auto it = schema.properties.find(std::string(kLocation)); it != schema.properties.end()) {
      return it->second;
    }
    if (root_.empty()) return "";
    return fileset::JoinLocation(root_, schema.name);
  }

  Result<std::string> TableLocation(const EntityRecord& schema, const model::Table& table) const {
    const std::string parent = SchemaLocation(schema);
    auto explicit_location = table.properties.find(std::string(kLocation));
    if (explicit_location == table.properties.end() || Trim(explicit_location->second).empty()) {
      if (parent.empty()) {
        return InvalidArgument(
            "Table property 'location' is required for table {}: neither catalog {} nor schema "
            "{} has a 'location' property",
            table.name, info_.name, schema.name);
      }
      return fileset::JoinLocation(parent, table.name);
    }
    CAIRN_ASSIGN_OR_RETURN(
        std::string location,
        Normalized(explicit_location->second, "Table property 'location' is invalid"));
    if (!parent.empty() && !storage::LocationWithin(location, parent)) {
      return InvalidArgument(
          "Table property 'location' ('{}') must lie within the location of schema {}.{} ('{}')",
          location, info_.name, schema.name, parent);
    }
    if (!parent.empty() && storage::LocationWithin(parent, location)) {
      return InvalidArgument(
          "Table property 'location' ('{}') must lie below the location of schema {}.{}", location,
          info_.name, schema.name);
    }
    return location;
  }

  // A table's location is its own: it overlaps no other table of the catalog (so keys vended for
  // one never reach another's files, and a drop never deletes another's), and a table whose
  // files a drop deletes starts with none.
  Status CheckLocationFree(const EntityRecord& schema, std::string_view name,
                           const std::string& location, bool external,
                           const model::Properties& props) {
    CAIRN_ASSIGN_OR_RETURN(auto schemas, store_.List(EntityType::kSchema, info_.catalog_id, "", 0));
    for (const auto& schema_row : schemas) {
      CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kTable, schema_row.id, "", 0));
      for (const auto& row : rows) {
        if (schema_row.id == schema.id && row.name == name) {
          return TableExists(schema.name, name);
        }
        if (!row.location || !storage::LocationsOverlap(location, *row.location)) continue;
        return InvalidArgument(
            "Table location '{}' overlaps location '{}' of table {}.{}.{}: a table's location is "
            "its own",
            location, *row.location, info_.name, schema_row.name, row.name);
      }
    }
    if (external) return Ok();
    CAIRN_ASSIGN_OR_RETURN(auto io, OpenIO(location, props));
    auto entries = io->ListEntries(location);
    if (entries && !entries->empty()) {
      return InvalidArgument(
          "Table location '{}' already holds files: a table whose files are deleted with it "
          "starts empty (register an existing dataset as an external table instead)",
          location);
    }
    return Ok();
  }

  // Deletes a managed table's files, then its row.
  Result<bool> DropTableRow(const CallContext& /*ctx*/, const EntityRecord& schema,
                            const EntityRecord& row) {
    CAIRN_ASSIGN_OR_RETURN(TableState state, StateOf(row));
    if (!state.external && row.location) {
      CAIRN_ASSIGN_OR_RETURN(auto io, OpenIO(*row.location, StorageProperties(schema)));
      CAIRN_RETURN_IF_ERROR(io->DeletePrefix(*row.location));
    }
    return store_.Delete(row.id);
  }

  Error TableExists(std::string_view schema, std::string_view name) const {
    return AlreadyExists(EntityKind::kTable, "Table {}.{}.{} already exists", info_.name, schema,
                         name);
  }

  Error TableNotFound(std::string_view schema, std::string_view name) const {
    return NotFound(EntityKind::kTable, "Table {}.{}.{} does not exist", info_.name, schema, name);
  }

  CatalogInfo info_;
  store::MetadataStore& store_;
  std::string root_;  // the catalog's normalized `location`, or empty
  storage::CredentialVendor credentials_;
};

Result<std::unique_ptr<Connector>> MakeGenericConnector(const CatalogInfo& info,
                                                        const ConnectorDeps& deps) {
  std::string root;
  if (auto it = info.properties.find(std::string(kLocation)); it != info.properties.end()) {
    CAIRN_ASSIGN_OR_RETURN(root, Normalized(it->second, "Property 'location' is invalid"));
    auto io = storage::FileIOFor(root, storage::StorageOptions::FromProperties(info.properties));
    if (!io) return InvalidArgument("Property 'location' is invalid: {}", io.error().message);
  }
  if (auto vendor = storage::CredentialVendor::FromProperties(info.properties); !vendor) {
    return std::move(vendor).error();
  }
  if (deps.store == nullptr) return Internal("the lakehouse-generic connector needs the store");
  return std::unique_ptr<Connector>(
      std::make_unique<GenericConnector>(info, *deps.store, std::move(root)));
}

}  // namespace

void RegisterGenericConnector(ConnectorRegistry& registry) {
  registry.Register("lakehouse-generic", model::CatalogType::kRelational, MakeGenericConnector);
}

}  // namespace cairn::connector
