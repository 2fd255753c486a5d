// SPDX-License-Identifier: Apache-2.0
#include "service/metadata_service.h"

#include <nlohmann/json.hpp>

#include "common/util.h"
#include "json/json_util.h"
#include "store/retry.h"

namespace cairn::service {

using store::EntityRecord;
using store::EntityType;

namespace {

constexpr std::string_view kInUseProperty = "in-use";

model::Metalake ToMetalake(const EntityRecord& row) {
  model::Metalake m;
  m.name = row.name;
  m.comment = row.comment;
  m.properties = row.properties;
  m.in_use = row.in_use;
  m.audit = row.audit;
  return m;
}

void Touch(EntityRecord& row, const CallContext& ctx) {
  row.audit.last_modifier = ctx.principal;
  row.audit.last_modified_time = ctx.now_ms;
}

// Applies rename/comment/property changes to a metalake or catalog row.
Status ApplyEntityChanges(EntityRecord& row, EntityKind kind,
                          const std::vector<model::EntityChange>& changes) {
  for (const auto& change : changes) {
    switch (change.kind) {
      case model::EntityChange::Kind::kRename: {
        Status valid = kind == EntityKind::kMetalake ? model::ValidateMetalakeName(change.new_name)
                                                     : model::ValidateCatalogName(change.new_name);
        CAIRN_RETURN_IF_ERROR(valid);
        row.name = change.new_name;
        break;
      }
      case model::EntityChange::Kind::kUpdateComment:
        row.comment = change.comment;
        break;
      case model::EntityChange::Kind::kSetProperty:
      case model::EntityChange::Kind::kRemoveProperty:
        if (change.property == kInUseProperty) {
          return InvalidArgument(
              "Property '{}' is reserved and cannot be changed; enable or disable the {} instead",
              kInUseProperty, EntityKindName(kind));
        }
        if (change.kind == model::EntityChange::Kind::kSetProperty) {
          row.properties[change.property] = change.value;
        } else {
          row.properties.erase(change.property);
        }
        break;
    }
  }
  return Ok();
}

// Re-reads and re-applies `mutate` until the compare-and-set lands (or a real error occurs),
// so concurrent writers never lose each other's updates.
template <typename Load, typename Mutate>
Result<EntityRecord> UpdateWithRetry(store::MetadataStore& store, Load load, Mutate mutate) {
  return store::RetryOnConflict([&]() -> Result<EntityRecord> {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, load());
    CAIRN_RETURN_IF_ERROR(mutate(row));
    return store.CompareAndSet(row);
  });
}

}  // namespace

MetadataService::MetadataService(store::MetadataStore& store,
                                 const connector::ConnectorRegistry& registry)
    : store_(store), registry_(registry) {}

// ---- metalakes ----

Result<EntityRecord> MetadataService::GetMetalakeRow(std::string_view name) {
  auto row = store_.Get(EntityType::kMetalake, 0, name);
  if (!row.has_value() && row.error().code == ErrorCode::kNotFound) {
    return NotFound(EntityKind::kMetalake, "Metalake {} does not exist", name);
  }
  return row;
}

Result<EntityRecord> MetadataService::GetInUseMetalakeRow(std::string_view name) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, GetMetalakeRow(name));
  if (!row.in_use) {
    return MakeError(ErrorCode::kNotInUse, EntityKind::kMetalake, "Metalake {} is not in use",
                     name);
  }
  return row;
}

Result<model::Metalake> MetadataService::CreateMetalake(const CallContext& ctx,
                                                        const model::Metalake& metalake) {
  CAIRN_RETURN_IF_ERROR(model::ValidateMetalakeName(metalake.name));
  EntityRecord row;
  row.type = EntityType::kMetalake;
  row.parent_id = 0;
  row.name = metalake.name;
  row.comment = metalake.comment;
  row.properties = metalake.properties;
  row.properties.erase(std::string(kInUseProperty));
  row.in_use = true;
  row.payload = "{}";
  row.audit.creator = ctx.principal;
  row.audit.create_time = ctx.now_ms;
  auto inserted = store_.Insert(row);
  if (!inserted.has_value()) {
    if (inserted.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kMetalake, "Metalake {} already exists", metalake.name);
    }
    return std::move(inserted).error();
  }
  Changed(ctx, ChangeType::kCreated, metalake.name);
  return ToMetalake(*inserted);
}

Result<model::Metalake> MetadataService::LoadMetalake(std::string_view name) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, GetMetalakeRow(name));
  return ToMetalake(row);
}

Result<std::vector<model::Metalake>> MetadataService::ListMetalakes() {
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kMetalake, 0, "", 0));
  std::vector<model::Metalake> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(ToMetalake(row));
  return out;
}

Result<model::Metalake> MetadataService::AlterMetalake(
    const CallContext& ctx, std::string_view name,
    const std::vector<model::EntityChange>& changes) {
  auto updated = UpdateWithRetry(
      store_, [&] { return GetInUseMetalakeRow(name); },
      [&](EntityRecord& row) -> Status {
        CAIRN_RETURN_IF_ERROR(ApplyEntityChanges(row, EntityKind::kMetalake, changes));
        Touch(row, ctx);
        return Ok();
      });
  if (!updated.has_value()) {
    if (updated.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kMetalake, "Metalake {} already exists",
                           changes.empty() ? "" : changes.back().new_name);
    }
    return std::move(updated).error();
  }
  Changed(ctx, ChangeType::kAltered, name, "", updated->name);
  return ToMetalake(*updated);
}

Status MetadataService::SetMetalakeInUse(const CallContext& ctx, std::string_view name,
                                         bool in_use) {
  auto updated = UpdateWithRetry(
      store_, [&] { return GetMetalakeRow(name); },
      [&](EntityRecord& row) -> Status {
        row.in_use = in_use;
        Touch(row, ctx);
        return Ok();
      });
  if (!updated.has_value()) return std::move(updated).error();
  Changed(ctx, ChangeType::kAltered, name);
  return Ok();
}

Result<bool> MetadataService::DropMetalake(const CallContext& ctx, std::string_view name,
                                           bool force) {
  auto row = GetMetalakeRow(name);
  if (!row.has_value()) {
    if (row.error().code == ErrorCode::kNotFound) return false;
    return std::move(row).error();
  }
  if (row->in_use && !force) {
    return MakeError(ErrorCode::kInUse, EntityKind::kMetalake,
                     "Metalake {} is in use, please disable it first or use force option", name);
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t children, store_.CountChildren(row->id));
  if (children > 0 && !force) {
    return MakeError(ErrorCode::kNotEmpty, EntityKind::kMetalake,
                     "Metalake {} has catalogs, please drop them first or use force option", name);
  }
  if (force) {
    CAIRN_ASSIGN_OR_RETURN(auto catalogs, store_.List(EntityType::kCatalog, row->id, "", 0));
    for (const auto& c : catalogs) ForgetConnector(c.id);
  }
  CAIRN_ASSIGN_OR_RETURN(bool dropped, store_.Delete(row->id));
  if (dropped) Changed(ctx, ChangeType::kDropped, name);
  return dropped;
}

// ---- catalogs ----

Result<EntityRecord> MetadataService::GetCatalogRow(int64_t metalake_id, std::string_view name) {
  auto row = store_.Get(EntityType::kCatalog, metalake_id, name);
  if (!row.has_value() && row.error().code == ErrorCode::kNotFound) {
    return NotFound(EntityKind::kCatalog, "Catalog {} does not exist", name);
  }
  return row;
}

Result<model::Catalog> MetadataService::ToCatalog(std::string_view metalake,
                                                  const EntityRecord& row) const {
  model::Catalog c;
  c.metalake = std::string(metalake);
  c.name = row.name;
  c.comment = row.comment;
  c.properties = row.properties;
  c.in_use = row.in_use;
  c.audit = row.audit;
  auto payload = json::ParseJsonOrDiscarded(row.payload);
  if (payload.is_discarded() || !payload.is_object()) {
    return Internal("catalog {} has a corrupt stored definition", row.name);
  }
  auto type = model::ParseCatalogType(payload.value("type", ""));
  if (!type) return Internal("catalog {} has an unknown stored type", row.name);
  c.type = *type;
  c.provider = payload.value("provider", "");
  return c;
}

Result<model::Catalog> MetadataService::CreateCatalog(const CallContext& ctx,
                                                      const model::Catalog& catalog) {
  CAIRN_RETURN_IF_ERROR(model::ValidateCatalogName(catalog.name));
  CAIRN_RETURN_IF_ERROR(registry_.CheckProvider(catalog.type, catalog.provider));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord metalake, GetInUseMetalakeRow(catalog.metalake));
  model::Properties props = catalog.properties;
  props.erase(std::string(kInUseProperty));
  // Validate the properties by building the connector before anything is stored.
  connector::CatalogInfo info{0,    catalog.metalake, catalog.name, catalog.type, catalog.provider,
                              props};
  CAIRN_ASSIGN_OR_RETURN(auto probe, registry_.Create(info));
  for (auto& [k, v] : probe->ResolvedProperties()) props.emplace(k, v);

  EntityRecord row;
  row.type = EntityType::kCatalog;
  row.parent_id = metalake.id;
  row.name = catalog.name;
  row.comment = catalog.comment;
  row.properties = props;
  row.in_use = true;
  row.payload =
      nlohmann::json{{"type", model::CatalogTypeName(catalog.type)}, {"provider", catalog.provider}}
          .dump();
  row.audit.creator = ctx.principal;
  row.audit.create_time = ctx.now_ms;
  auto inserted = store_.Insert(row);
  if (!inserted.has_value()) {
    if (inserted.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kCatalog, "Catalog {} already exists", catalog.name);
    }
    return std::move(inserted).error();
  }
  Changed(ctx, ChangeType::kCreated, catalog.metalake, catalog.name);
  return ToCatalog(catalog.metalake, *inserted);
}

Status MetadataService::TestConnection(const model::Catalog& catalog) {
  CAIRN_RETURN_IF_ERROR(model::ValidateCatalogName(catalog.name));
  CAIRN_RETURN_IF_ERROR(registry_.CheckProvider(catalog.type, catalog.provider));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord metalake, GetInUseMetalakeRow(catalog.metalake));
  auto existing = store_.Get(EntityType::kCatalog, metalake.id, catalog.name);
  if (existing.has_value()) {
    return AlreadyExists(EntityKind::kCatalog, "Catalog {} already exists", catalog.name);
  }
  connector::CatalogInfo info{
      0, catalog.metalake, catalog.name, catalog.type, catalog.provider, catalog.properties};
  CAIRN_ASSIGN_OR_RETURN(auto conn, registry_.Create(info));
  return conn->TestConnection();
}

Status MetadataService::TestExistingConnection(std::string_view metalake, std::string_view name) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ml, GetInUseMetalakeRow(metalake));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, GetCatalogRow(ml.id, name));
  CAIRN_ASSIGN_OR_RETURN(model::Catalog c, ToCatalog(metalake, row));
  CAIRN_ASSIGN_OR_RETURN(auto conn, ConnectorFor(c, row));
  return conn->TestConnection();
}

Result<model::Catalog> MetadataService::LoadCatalog(std::string_view metalake,
                                                    std::string_view name) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ml, GetInUseMetalakeRow(metalake));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, GetCatalogRow(ml.id, name));
  return ToCatalog(metalake, row);
}

Result<std::vector<model::Catalog>> MetadataService::ListCatalogs(std::string_view metalake) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ml, GetInUseMetalakeRow(metalake));
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kCatalog, ml.id, "", 0));
  std::vector<model::Catalog> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    CAIRN_ASSIGN_OR_RETURN(model::Catalog c, ToCatalog(metalake, row));
    out.push_back(std::move(c));
  }
  return out;
}

Result<model::Catalog> MetadataService::AlterCatalog(
    const CallContext& ctx, std::string_view metalake, std::string_view name,
    const std::vector<model::EntityChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ml, GetInUseMetalakeRow(metalake));
  auto updated = UpdateWithRetry(
      store_,
      [&]() -> Result<EntityRecord> {
        CAIRN_ASSIGN_OR_RETURN(EntityRecord row, GetCatalogRow(ml.id, name));
        if (!row.in_use) {
          return MakeError(ErrorCode::kNotInUse, EntityKind::kCatalog, "Catalog {} is not in use",
                           name);
        }
        return row;
      },
      [&](EntityRecord& row) -> Status {
        const model::Properties before = row.properties;
        CAIRN_RETURN_IF_ERROR(ApplyEntityChanges(row, EntityKind::kCatalog, changes));
        CAIRN_ASSIGN_OR_RETURN(model::Catalog c, ToCatalog(metalake, row));
        connector::CatalogInfo info{row.id, c.metalake, c.name, c.type, c.provider, row.properties};
        CAIRN_ASSIGN_OR_RETURN(auto probe, registry_.Create(info));
        CAIRN_RETURN_IF_ERROR(probe->CheckPropertyChange(before, row.properties));
        Touch(row, ctx);
        return Ok();
      });
  if (!updated.has_value()) {
    if (updated.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kCatalog, "Catalog {} already exists",
                           changes.empty() ? "" : changes.back().new_name);
    }
    return std::move(updated).error();
  }
  ForgetConnector(updated->id);
  Changed(ctx, ChangeType::kAltered, metalake, name, updated->name);
  return ToCatalog(metalake, *updated);
}

Status MetadataService::SetCatalogInUse(const CallContext& ctx, std::string_view metalake,
                                        std::string_view name, bool in_use) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ml, GetInUseMetalakeRow(metalake));
  auto updated = UpdateWithRetry(
      store_, [&] { return GetCatalogRow(ml.id, name); },
      [&](EntityRecord& row) -> Status {
        row.in_use = in_use;
        Touch(row, ctx);
        return Ok();
      });
  if (!updated.has_value()) return std::move(updated).error();
  ForgetConnector(updated->id);
  Changed(ctx, ChangeType::kAltered, metalake, name);
  return Ok();
}

Result<bool> MetadataService::DropCatalog(const CallContext& ctx, std::string_view metalake,
                                          std::string_view name, bool force) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ml, GetInUseMetalakeRow(metalake));
  auto row = GetCatalogRow(ml.id, name);
  if (!row.has_value()) {
    if (row.error().code == ErrorCode::kNotFound) return false;
    return std::move(row).error();
  }
  if (row->in_use && !force) {
    return MakeError(ErrorCode::kInUse, EntityKind::kCatalog,
                     "Catalog {} is in use, please disable it first or use force option", name);
  }
  CAIRN_ASSIGN_OR_RETURN(model::Catalog c, ToCatalog(metalake, *row));
  connector::CatalogInfo info{row->id, c.metalake, c.name, c.type, c.provider, row->properties};
  auto conn = registry_.Create(info);
  if (conn.has_value()) {
    // Asked only without force: a forced drop must also work when a federated source is down.
    if (!force) {
      // A provider without schemas has none to keep the catalog from going.
      bool has_schemas = false;
      if (auto* schemas = (*conn)->Find<connector::SchemaCatalog>()) {
        CAIRN_ASSIGN_OR_RETURN(has_schemas, schemas->HasSchemas());
      }
      if (has_schemas) {
        return MakeError(ErrorCode::kNotEmpty, EntityKind::kCatalog,
                         "Catalog {} has schemas, please drop them first or use force option",
                         name);
      }
    }
    CAIRN_RETURN_IF_ERROR((*conn)->DropAll());
  } else if (!force) {
    return std::move(conn).error();
  }
  ForgetConnector(row->id);
  CAIRN_ASSIGN_OR_RETURN(bool dropped, store_.Delete(row->id));
  if (dropped) Changed(ctx, ChangeType::kDropped, metalake, name);
  return dropped;
}

void MetadataService::Changed(const CallContext& ctx, ChangeType type, std::string_view metalake,
                              std::string_view catalog, std::string_view new_name) {
  const auto kind =
      catalog.empty() ? governance::ObjectType::kMetalake : governance::ObjectType::kCatalog;
  events_.Publish(MakeChange(ctx, type, kind, std::string(metalake), std::string(catalog), {}, "",
                             new_name));
}

Result<CatalogHandle> MetadataService::Open(std::string_view metalake, std::string_view catalog) {
  CAIRN_ASSIGN_OR_RETURN(OpenedRows opened, OpenRows(metalake, catalog));
  return CatalogHandle{(*opened.rows)[0], (*opened.rows)[1], std::move(opened.connector)};
}

Result<MetadataService::OpenedRows> MetadataService::OpenRows(std::string_view metalake,
                                                              std::string_view catalog) {
  // Both rows in one round trip: this runs on every request inside a catalog.
  CAIRN_ASSIGN_OR_RETURN(store::MetadataStore::PathRows shared,
                         store_.GetSharedPath(0, {{EntityType::kMetalake, std::string(metalake)},
                                                  {EntityType::kCatalog, std::string(catalog)}}));
  const std::vector<EntityRecord>& rows = *shared;
  if (rows.empty()) return NotFound(EntityKind::kMetalake, "Metalake {} does not exist", metalake);
  if (!rows[0].in_use) {
    return MakeError(ErrorCode::kNotInUse, EntityKind::kMetalake, "Metalake {} is not in use",
                     metalake);
  }
  if (rows.size() < 2) return NotFound(EntityKind::kCatalog, "Catalog {} does not exist", catalog);
  const EntityRecord& row = rows[1];
  if (!row.in_use) {
    return MakeError(ErrorCode::kNotInUse, EntityKind::kCatalog, "Catalog {} is not in use",
                     catalog);
  }
  std::shared_ptr<connector::Connector> connector = BuiltConnector(row);  // the common case
  if (!connector) {
    CAIRN_ASSIGN_OR_RETURN(model::Catalog c, ToCatalog(metalake, row));
    CAIRN_ASSIGN_OR_RETURN(connector, ConnectorFor(c, row));
  }
  return OpenedRows{std::move(shared), std::move(connector)};
}

Result<std::shared_ptr<connector::Connector>> MetadataService::OpenCatalog(
    std::string_view metalake, std::string_view catalog) {
  CAIRN_ASSIGN_OR_RETURN(OpenedRows opened, OpenRows(metalake, catalog));
  return std::move(opened.connector);
}

std::shared_ptr<connector::Connector> MetadataService::BuiltConnector(const EntityRecord& row) {
  std::lock_guard lock(mu_);
  auto it = connectors_.find(row.id);
  if (it != connectors_.end() && it->second.version == row.version) return it->second.connector;
  return nullptr;
}

Result<std::shared_ptr<connector::Connector>> MetadataService::ConnectorFor(
    const model::Catalog& catalog, const EntityRecord& row) {
  if (auto cached = BuiltConnector(row)) return cached;
  connector::CatalogInfo info{row.id,       catalog.metalake, catalog.name,
                              catalog.type, catalog.provider, row.properties};
  CAIRN_ASSIGN_OR_RETURN(auto created, registry_.Create(info));
  std::shared_ptr<connector::Connector> shared(std::move(created));
  std::lock_guard lock(mu_);
  connectors_[row.id] = CachedConnector{row.version, shared};
  return shared;
}

void MetadataService::ForgetConnector(int64_t catalog_id) {
  std::lock_guard lock(mu_);
  connectors_.erase(catalog_id);
}

}  // namespace cairn::service
