// SPDX-License-Identifier: Apache-2.0
#include "connector/fileset/fileset_connector.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/util.h"
#include "connector/fileset/fileset_locations.h"
#include "connector/schema_rows.h"
#include "json/json_util.h"
#include "storage/credentials.h"
#include "storage/file_io.h"
#include "store/metadata_store.h"
#include "store/retry.h"

namespace cairn::connector {

namespace {

using fileset::LocationMap;
using store::EntityRecord;
using store::EntityType;

model::Properties Merged(std::initializer_list<const model::Properties*> levels) {
  model::Properties out;
  for (const auto* level : levels) {
    for (const auto& [k, v] : *level) out[k] = v;
  }
  return out;
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

// Directories made while creating a schema or fileset, removed again when the create fails.
class CreatedDirectories {
 public:
  Status Make(const std::string& location, const model::Properties& properties) {
    CAIRN_ASSIGN_OR_RETURN(auto io, OpenIO(location, properties));
    CAIRN_ASSIGN_OR_RETURN(bool created, io->CreateDirectories(location));
    if (created) made_.emplace_back(std::move(io), location);
    return Ok();
  }
  void RollBack() {
    for (auto& [io, location] : made_) {
      if (auto s = io->DeletePrefix(location); !s) {
        spdlog::warn("event=fileset_rollback_failed location=\"{}\" error=\"{}\"", location,
                     s.error().message);
      }
    }
    made_.clear();
  }

 private:
  std::vector<std::pair<std::unique_ptr<storage::FileIO>, std::string>> made_;
};

class FilesetConnector final : public Connector, public SchemaCatalog, public FilesetCatalog {
 public:
  FilesetConnector(CatalogInfo info, store::MetadataStore& store, LocationMap catalog_locations)
      : info_(std::move(info)), store_(store), catalog_locations_(std::move(catalog_locations)) {
    // Validated when the catalog was created; a bad set vends nothing.
    if (auto vendor = storage::CredentialVendor::FromProperties(info_.properties)) {
      credentials_ = *vendor;
    }
    Provide<SchemaCatalog>(this);
    Provide<FilesetCatalog>(this);
    // Vends only when the catalog configures a provider.
    if (credentials_.enabled()) Provide<storage::CredentialVendor>(&credentials_);
  }

  // Everything lives in Cairn's store and on the locations' storage: nothing to reach.
  Status TestConnection() override { return Ok(); }

  // The root `location` may move (later schemas and filesets follow it); named roots may not.
  Status CheckPropertyChange(const model::Properties& before,
                             const model::Properties& after) const override {
    auto named = [](const model::Properties& props) {
      model::Properties out;
      for (const auto& [k, v] : props) {
        if (k.rfind(fileset::kLocationPrefix, 0) == 0) out[k] = v;
      }
      return out;
    };
    const model::Properties old_named = named(before);
    const model::Properties new_named = named(after);
    if (old_named == new_named) return Ok();
    for (const auto* side : {&old_named, &new_named}) {
      for (const auto& [k, v] : *side) {
        const auto* other = side == &old_named ? &new_named : &old_named;
        auto it = other->find(k);
        if (it == other->end() || it->second != v) {
          return InvalidArgument("Property {} is immutable or reserved, cannot be changed", k);
        }
      }
    }
    return Ok();
  }

  // ---- schemas ----

  Result<std::vector<std::string>> ListSchemas() override {
    return ListSchemaNames(store_, info_.catalog_id);
  }

  Result<model::Schema> CreateSchema(const CallContext& ctx, const model::Schema& schema) override {
    if (store_.Get(EntityType::kSchema, info_.catalog_id, schema.name)) {
      return SchemaExists(schema.name);
    }
    CAIRN_ASSIGN_OR_RETURN(
        LocationMap locations,
        fileset::SchemaLocations(catalog_locations_, schema.name, schema.properties));
    const model::Properties storage_props = Merged({&info_.properties, &schema.properties});
    CreatedDirectories dirs;
    for (const auto& [name, location] : locations) {
      if (fileset::ContainsPlaceholder(location)) continue;  // resolved per fileset
      auto normalized = fileset::NormalizeLocation(location);
      if (!normalized)
        return InvalidArgument("Schema location '{}': {}", name, normalized.error().message);
      if (auto s = dirs.Make(*normalized, storage_props); !s) {
        dirs.RollBack();
        return std::move(s).error();
      }
    }
    auto inserted = store_.Insert(NewSchemaRow(info_.catalog_id, schema, ctx));
    if (!inserted) {
      // A racing create of the same schema owns the directories now.
      if (inserted.error().code == ErrorCode::kAlreadyExists) return SchemaExists(schema.name);
      dirs.RollBack();
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
    CAIRN_RETURN_IF_ERROR(CheckSchemaPropertyChanges(changes));
    for (const auto& c : changes) {
      CAIRN_RETURN_IF_ERROR(fileset::CheckSchemaAlterProperty(c.property));
    }
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
    CAIRN_ASSIGN_OR_RETURN(auto filesets, store_.List(EntityType::kFileset, row->id, "", 0));
    if (!filesets.empty() && !cascade) {
      return MakeError(
          ErrorCode::kNotEmpty, EntityKind::kSchema,
          "Schema {}.{} is not empty, it has {} fileset(s); drop them first or use cascade",
          info_.name, name, filesets.size());
    }
    if (!cascade) CAIRN_RETURN_IF_ERROR(CheckNoFunctions(store_, *row, info_.name));
    auto schema_locations = fileset::SchemaLocations(catalog_locations_, name, row->properties);
    CAIRN_ASSIGN_OR_RETURN(bool deleted, store_.Delete(row->id));
    if (!deleted) return false;
    // The files of managed filesets go one by one: an external fileset may lie under the schema
    // directory and must survive.
    for (const auto& f : filesets) {
      auto parsed = ToFileset(f);
      if (!parsed || parsed->type != model::FilesetType::kManaged) continue;
      const model::Properties props = Merged({&info_.properties, &row->properties, &f.properties});
      for (const auto& [location_name, location] : parsed->storage_locations) {
        if (auto s = DeleteLocation(location, props); !s) {
          spdlog::warn(
              "event=fileset_delete_failed catalog={} schema={} fileset={} location=\"{}\" "
              "error=\"{}\"",
              info_.name, name, f.name, location, s.error().message);
        }
      }
    }
    // The schema's own directories go when nothing else is left in them.
    if (schema_locations) {
      const model::Properties props = Merged({&info_.properties, &row->properties});
      for (const auto& [location_name, location] : *schema_locations) {
        if (fileset::ContainsPlaceholder(location)) continue;
        auto normalized = fileset::NormalizeLocation(location);
        if (!normalized) continue;
        auto io = OpenIO(*normalized, props);
        if (!io) continue;
        auto entries = (*io)->ListEntries(*normalized);
        if (entries && entries->empty()) (void)(*io)->DeletePrefix(*normalized);
      }
    }
    return true;
  }

  Result<bool> HasSchemas() override {
    CAIRN_ASSIGN_OR_RETURN(int64_t n, store_.CountChildren(info_.catalog_id));
    return n > 0;
  }

  // A force drop of the catalog drops every schema with its managed filesets' files.
  Status DropAll() override {
    CAIRN_ASSIGN_OR_RETURN(auto names, ListSchemas());
    for (const auto& name : names) CAIRN_RETURN_IF_ERROR(DropSchema(CallContext{}, name, true));
    return Ok();
  }

  // ---- filesets ----

  Result<std::vector<std::string>> ListFilesets(std::string_view schema) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    return ListChildNames(store_, EntityType::kFileset, s.id);
  }

  Result<model::Fileset> CreateFileset(const CallContext& ctx, std::string_view schema,
                                       const model::Fileset& request) override {
    CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kFileset, request.name));
    CAIRN_RETURN_IF_ERROR(fileset::CheckCreateProperties(request.properties));
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    if (store_.Get(EntityType::kFileset, s.id, request.name)) {
      return FilesetExists(schema, request.name);
    }
    if (request.type == model::FilesetType::kExternal && request.storage_locations.empty()) {
      return InvalidArgument(
          "Field 'storageLocation' (or 'storageLocations') is required for the external fileset "
          "{}",
          request.name);
    }
    CAIRN_ASSIGN_OR_RETURN(LocationMap schema_locations,
                           fileset::SchemaLocations(catalog_locations_, schema, s.properties));
    if (schema_locations.empty() && request.storage_locations.empty()) {
      return InvalidArgument(
          "Field 'storageLocation' (or 'storageLocations') is required for fileset {}: neither "
          "catalog {} nor schema {} has a 'location' property",
          request.name, info_.name, schema);
    }
    const fileset::FilesetNames names{info_.name, std::string(schema), request.name};
    CAIRN_ASSIGN_OR_RETURN(LocationMap resolved,
                           fileset::ResolveFilesetLocations(names, request.storage_locations,
                                                            schema_locations, request.properties));
    LocationMap locations;
    for (const auto& [name, location] : resolved) {
      auto normalized = fileset::NormalizeLocation(location);
      if (!normalized) {
        return InvalidArgument("Location name '{}': {}", name, normalized.error().message);
      }
      locations[name] = *normalized;
    }
    CAIRN_ASSIGN_OR_RETURN(model::Properties properties,
                           fileset::WithDefaultLocationName(request.properties, locations));
    CAIRN_RETURN_IF_ERROR(fileset::CheckLocationHierarchy(schema_locations, locations));

    const model::Properties storage_props = Merged({&info_.properties, &s.properties, &properties});
    CAIRN_RETURN_IF_ERROR(
        CheckLocationsFree(s.id, request.name, request.type, locations, storage_props));
    CreatedDirectories dirs;
    for (const auto& [name, location] : locations) {
      if (auto made = dirs.Make(location, storage_props); !made) {
        dirs.RollBack();
        return std::move(made).error();
      }
    }

    nlohmann::json locations_json = nlohmann::json::object();
    for (const auto& [name, location] : locations) locations_json[name] = location;
    EntityRecord row;
    row.type = EntityType::kFileset;
    row.parent_id = s.id;
    row.name = request.name;
    row.comment = request.comment;
    row.properties = properties;
    row.payload = nlohmann::json{{"type", model::FilesetTypeName(request.type)},
                                 {"storageLocations", locations_json}}
                      .dump();
    row.location = locations.at(properties.at(std::string(fileset::kDefaultLocationNameProperty)));
    row.audit.creator = ctx.principal;
    row.audit.create_time = ctx.now_ms;
    auto inserted = store_.Insert(row);
    if (!inserted) {
      if (inserted.error().code == ErrorCode::kAlreadyExists) {
        return FilesetExists(schema, request.name);
      }
      dirs.RollBack();
      return std::move(inserted).error();
    }
    return ToFileset(*inserted);
  }

  Result<model::Fileset> LoadFileset(std::string_view schema, std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, FilesetRow(s, name));
    return ToFileset(row);
  }

  Result<model::Fileset> AlterFileset(const CallContext& ctx, std::string_view schema,
                                      std::string_view name,
                                      const std::vector<model::EntityChange>& changes) override {
    std::string new_name(name);
    for (const auto& c : changes) {
      if (c.kind == model::EntityChange::Kind::kRename) {
        CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kFileset, c.new_name));
        new_name = c.new_name;
      } else if (c.kind == model::EntityChange::Kind::kSetProperty ||
                 c.kind == model::EntityChange::Kind::kRemoveProperty) {
        CAIRN_RETURN_IF_ERROR(fileset::CheckAlterProperty(c.property));
      }
    }
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    auto updated = store::RetryOnConflict(
        [&]() -> Result<EntityRecord> {
          CAIRN_ASSIGN_OR_RETURN(EntityRecord row, FilesetRow(s, name));
          for (const auto& c : changes) {
            switch (c.kind) {
              case model::EntityChange::Kind::kRename:
                row.name = c.new_name;
                break;
              case model::EntityChange::Kind::kUpdateComment:
                row.comment = c.comment;
                break;
              case model::EntityChange::Kind::kSetProperty:
                row.properties[c.property] = c.value;
                break;
              case model::EntityChange::Kind::kRemoveProperty:
                row.properties.erase(c.property);
                break;
            }
          }
          row.audit.last_modifier = ctx.principal;
          row.audit.last_modified_time = ctx.now_ms;
          return store_.CompareAndSet(row);
        },
        [&] { return Unavailable("too many concurrent updates of fileset {}; try again", name); });
    if (updated) return ToFileset(*updated);
    if (updated.error().code == ErrorCode::kAlreadyExists) return FilesetExists(schema, new_name);
    return std::move(updated).error();
  }

  Result<bool> DropFileset(const CallContext& /*ctx*/, std::string_view schema,
                           std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    auto row = FilesetRow(s, name);
    if (!row) {
      if (row.error().code == ErrorCode::kNotFound) return false;
      return std::move(row).error();
    }
    CAIRN_ASSIGN_OR_RETURN(model::Fileset f, ToFileset(*row));
    if (f.type == model::FilesetType::kManaged) {
      // Files first: when they cannot be deleted the fileset stays, so the drop can be retried.
      const model::Properties props = Merged({&info_.properties, &s.properties, &f.properties});
      for (const auto& [location_name, location] : f.storage_locations) {
        CAIRN_RETURN_IF_ERROR(DeleteLocation(location, props));
      }
    }
    return store_.Delete(row->id);
  }

  Result<std::vector<model::FileInfo>> ListFiles(
      std::string_view schema, std::string_view name, std::string_view sub_path,
      const std::optional<std::string>& location_name) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, FilesetRow(s, name));
    CAIRN_ASSIGN_OR_RETURN(model::Fileset f, ToFileset(row));
    CAIRN_ASSIGN_OR_RETURN(std::string location, fileset::FileLocation(f, sub_path, location_name));
    while (location.size() > 1 && location.back() == '/' && location[location.size() - 2] != '/')
      location.pop_back();
    const model::Properties props = Merged({&info_.properties, &s.properties, &f.properties});
    CAIRN_ASSIGN_OR_RETURN(auto io, OpenIO(location, props));
    CAIRN_ASSIGN_OR_RETURN(auto entries, io->ListEntries(location));
    const std::string_view trimmed = Trim(sub_path);
    const bool root = trimmed.find_first_not_of('/') == std::string_view::npos;
    std::string listed_sub_path(trimmed);
    if (entries.empty() && !root) {
      // Nothing below: an empty directory, a file (listed as itself, as Hadoop file systems
      // do), or nothing at all. The parent's listing tells which.
      const size_t slash = location.rfind('/');
      const std::string parent = location.substr(0, slash);
      const std::string leaf = location.substr(slash + 1);
      CAIRN_ASSIGN_OR_RETURN(auto siblings, io->ListEntries(parent));
      auto self = std::find_if(siblings.begin(), siblings.end(),
                               [&](const auto& e) { return e.name == leaf; });
      if (self == siblings.end()) {
        CAIRN_ASSIGN_OR_RETURN(bool exists, io->Exists(location));
        if (!exists) {
          return InvalidArgument("Query parameter 'sub_path': path {} does not exist in fileset {}",
                                 location, name);
        }
      } else if (!self->is_dir) {
        entries.push_back(*self);
        listed_sub_path = listed_sub_path.substr(0, listed_sub_path.rfind('/') + 1);
      }
    }
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    const fileset::FilesetNames names{info_.name, std::string(schema), std::string(name)};
    std::vector<model::FileInfo> out;
    out.reserve(entries.size());
    for (const auto& e : entries) {
      model::FileInfo info;
      info.name = e.name;
      info.is_dir = e.is_dir;
      info.size = e.is_dir ? 0 : e.size;
      info.last_modified_ms = e.last_modified_ms;
      info.path = fileset::VirtualPath(names, listed_sub_path, e.name);
      out.push_back(std::move(info));
    }
    return out;
  }

  Result<std::string> GetFileLocation(std::string_view schema, std::string_view name,
                                      std::string_view sub_path,
                                      const std::optional<std::string>& location_name) override {
    CAIRN_ASSIGN_OR_RETURN(model::Fileset f, LoadFileset(schema, name));
    return fileset::FileLocation(f, sub_path, location_name);
  }

 private:
  Result<EntityRecord> SchemaRow(std::string_view name) {
    return GetSchemaRow(store_, info_.catalog_id, info_.name, name);
  }

  Result<EntityRecord> FilesetRow(const EntityRecord& schema, std::string_view name) {
    auto row = store_.Get(EntityType::kFileset, schema.id, name);
    if (!row && row.error().code == ErrorCode::kNotFound) {
      return NotFound(EntityKind::kFileset, "Fileset {}.{}.{} does not exist", info_.name,
                      schema.name, name);
    }
    return row;
  }

  // A managed fileset's locations are deleted with it, so they are its alone: they overlap no
  // other fileset's and hold nothing when it is created. An external fileset may share its
  // locations with other external ones, never with a managed one.
  Status CheckLocationsFree(int64_t schema_id, std::string_view name, model::FilesetType type,
                            const LocationMap& locations, const model::Properties& props) {
    const bool managed = type == model::FilesetType::kManaged;
    CAIRN_ASSIGN_OR_RETURN(auto schemas, store_.List(EntityType::kSchema, info_.catalog_id, "", 0));
    for (const auto& schema_row : schemas) {
      CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kFileset, schema_row.id, "", 0));
      for (const auto& row : rows) {
        // A racing create of the same fileset won: that is a 409, not an overlap.
        if (schema_row.id == schema_id && row.name == name) {
          return FilesetExists(schema_row.name, name);
        }
        auto other = ToFileset(row);
        if (!other) continue;
        const bool other_managed = other->type == model::FilesetType::kManaged;
        if (!managed && !other_managed) continue;
        for (const auto& [other_name, other_location] : other->storage_locations) {
          for (const auto& [location_name, location] : locations) {
            if (!storage::LocationsOverlap(location, other_location)) continue;
            return InvalidArgument(
                "Storage location '{}' (location name '{}') overlaps location '{}' of the {} "
                "fileset {}.{}.{}: a managed fileset's files are deleted with it, so its "
                "locations are its alone",
                location, location_name, other_location, model::FilesetTypeName(other->type),
                info_.name, schema_row.name, row.name);
          }
        }
      }
    }
    if (!managed) return Ok();
    for (const auto& [location_name, location] : locations) {
      CAIRN_ASSIGN_OR_RETURN(auto io, OpenIO(location, props));
      auto entries = io->ListEntries(location);
      if (entries && !entries->empty()) {
        return InvalidArgument(
            "Storage location '{}' (location name '{}') already holds files: a managed "
            "fileset's files are deleted with it, so it starts empty (an external fileset can "
            "point at files that exist)",
            location, location_name);
      }
    }
    return Ok();
  }

  Status DeleteLocation(const std::string& location, const model::Properties& props) {
    CAIRN_ASSIGN_OR_RETURN(auto io, OpenIO(location, props));
    return io->DeletePrefix(location);
  }

  Error SchemaExists(std::string_view schema) const {
    return AlreadyExists(EntityKind::kSchema, "Schema {}.{} already exists", info_.name, schema);
  }

  Error FilesetExists(std::string_view schema, std::string_view name) const {
    return AlreadyExists(EntityKind::kFileset, "Fileset {}.{}.{} already exists", info_.name,
                         schema, name);
  }

  static model::Schema ToSchema(const EntityRecord& row) { return SchemaFromRow(row); }

  static Result<model::Fileset> ToFileset(const EntityRecord& row) {
    auto payload = json::ParseJsonOrDiscarded(row.payload);
    if (payload.is_discarded() || !payload.is_object()) {
      return Internal("fileset {} has a corrupt stored definition", row.name);
    }
    model::Fileset f;
    f.name = row.name;
    f.comment = row.comment;
    f.properties = row.properties;
    f.audit = row.audit;
    auto type = model::ParseFilesetType(payload.value("type", ""));
    if (!type) return Internal("fileset {} has an unknown stored type", row.name);
    f.type = *type;
    if (auto it = payload.find("storageLocations"); it != payload.end() && it->is_object()) {
      for (const auto& [k, v] : it->items()) {
        if (v.is_string()) f.storage_locations[k] = v.get<std::string>();
      }
    }
    return f;
  }

  CatalogInfo info_;
  store::MetadataStore& store_;
  storage::CredentialVendor credentials_;
  LocationMap catalog_locations_;
};

Result<std::unique_ptr<Connector>> MakeFilesetConnector(const CatalogInfo& info,
                                                        const ConnectorDeps& deps) {
  auto locations = fileset::CatalogLocations(info.properties);
  if (!locations) return std::move(locations).error();
  for (const auto& [name, location] : *locations) {
    if (fileset::ContainsPlaceholder(location)) continue;
    const std::string property = name == fileset::kUnknownLocationName
                                     ? std::string(fileset::kLocationProperty)
                                     : std::string(fileset::kLocationPrefix) + name;
    auto normalized = fileset::NormalizeLocation(location);
    if (!normalized) {
      return InvalidArgument("Property '{}' is invalid: {}", property, normalized.error().message);
    }
    auto io =
        storage::FileIOFor(*normalized, storage::StorageOptions::FromProperties(info.properties));
    if (!io) return InvalidArgument("Property '{}' is invalid: {}", property, io.error().message);
  }
  if (auto vendor = storage::CredentialVendor::FromProperties(info.properties); !vendor) {
    return std::move(vendor).error();
  }
  if (deps.store == nullptr) return Internal("the fileset connector needs the metadata store");
  return std::unique_ptr<Connector>(
      std::make_unique<FilesetConnector>(info, *deps.store, std::move(*locations)));
}

}  // namespace

void RegisterFilesetConnector(ConnectorRegistry& registry) {
  registry.Register("fileset", model::CatalogType::kFileset, MakeFilesetConnector);
}

}  // namespace cairn::connector
