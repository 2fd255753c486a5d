// SPDX-License-Identifier: Apache-2.0
#include "service/object_service.h"

#include <algorithm>
#include <utility>

#include "common/log.h"
#include "connector/iceberg/iceberg_catalog.h"

namespace cairn::service {

ObjectRef ObjectRef::Schema(std::string schema_name) const {
  return ObjectRef{metalake, catalog, {std::move(schema_name)}, "", ObjectType::kSchema};
}

ObjectRef ObjectRef::Child(std::string child, ObjectType child_kind) const {
  return ObjectRef{metalake, catalog, schema, std::move(child), child_kind};
}

ObjectService::ObjectService(MetadataService& metadata, Authorizer& authorizer,
                             LineageOptions lineage)
    : metadata_(metadata),
      authz_(authorizer),
      tags_(metadata.store(), authorizer, metadata.events()),
      policies_(metadata.store(), authorizer, metadata.events()),
      statistics_(metadata.store(), authorizer),
      lineage_(metadata.store(), *this, lineage) {
  auto see = [this](const Caller& caller, const MetadataObjectTarget& object) -> Status {
    return SeeInSource(caller, object);
  };
  tags_.labels().SetSeer(see);
  policies_.labels().SetSeer(see);
  statistics_.SetSeer(see);
  statistics_.SetSourceStatistics(
      [this](const Caller&, const MetadataObjectTarget& table) { return SourceStatistics(table); });
}

Result<std::vector<model::Statistic>> ObjectService::SourceStatistics(
    const MetadataObjectTarget& table) {
  const Target& t = table.target;
  CAIRN_ASSIGN_OR_RETURN(auto connector, metadata_.OpenCatalog(t.metalake.name, t.catalog));
  auto* iceberg = connector->Find<connector::IcebergCatalog>();
  if (iceberg == nullptr) return std::vector<model::Statistic>{};
  auto loaded = iceberg->LoadTable(t.schema, t.object);
  if (!loaded && loaded.error().code == ErrorCode::kNotFound) {
    return std::vector<model::Statistic>{};  // dropped since it was resolved
  }
  if (!loaded) return std::move(loaded).error();
  return IcebergSnapshotStatistics(*loaded->metadata_text, loaded->row->audit);
}

Status ObjectService::SeeInSource(const Caller& caller, const MetadataObjectTarget& object) {
  const Target& t = object.target;
  if (!t.catalog_row || t.schema.size() != 1) return NotFound(EntityKind::kMetadataObject, "");
  ObjectRef ref{t.metalake.name, t.catalog, t.schema};
  // Loading through the catalog is what makes a source's object known (its connector keeps
  // the governance row of what it has seen); for a catalog whose objects all have rows, the
  // load answers "does not exist" as the row did.
  Status seen = Ok();
  if (object.type == ObjectType::kSchema) {
    auto schema = LoadSchema(caller, ref);
    if (!schema) seen = std::move(schema).error();
  } else if (object.type == ObjectType::kTable) {
    auto table = LoadTable(caller, ref.Child(t.object, ObjectType::kTable));
    if (!table) seen = std::move(table).error();
  } else if (object.type == ObjectType::kTopic) {
    auto topic = LoadTopic(caller, ref.Child(t.object, ObjectType::kTopic));
    if (!topic) seen = std::move(topic).error();
  } else if (object.type == ObjectType::kColumn) {
    auto table = LoadTable(caller, ref.Child(t.object, ObjectType::kTable));
    if (!table) {
      seen = std::move(table).error();
    } else if (std::none_of(table->columns.begin(), table->columns.end(),
                            [&](const model::Column& c) { return c.name == t.column; })) {
      return NotFound(EntityKind::kMetadataObject, "Column {} does not exist in table {}.{}.{}",
                      t.column, t.catalog, t.schema[0], t.object);
    }
  } else {
    return NotFound(EntityKind::kMetadataObject, "");
  }
  if (!seen && seen.error().code == ErrorCode::kUnsupported) {
    return NotFound(EntityKind::kMetadataObject, "");
  }
  return seen;
}

Result<std::shared_ptr<connector::Connector>> ObjectService::OpenCatalog(const Caller& caller,
                                                                         Action action,
                                                                         const ObjectRef& ref) {
  auto handle = metadata_.Open(ref.metalake, ref.catalog);
  if (authz_.enabled()) {
    // The rows the open read are the authorize stage's too; when it failed (a missing or
    // disabled catalog), the decision is made on the names, and a denial wins.
    auto target = handle
                      ? authz_.ResolveFrom(std::move(handle->metalake), std::move(handle->catalog),
                                           ref.schema, ref.name, ref.kind)
                      : authz_.Resolve(ref.metalake, ref.catalog, ref.schema, ref.name, ref.kind);
    if (!target) return std::move(target).error();
    CAIRN_RETURN_IF_ERROR(authz_.Check(caller.principal, action, *target));
  }
  if (!handle) return std::move(handle).error();
  return std::move(handle->connector);
}

Result<std::shared_ptr<connector::Connector>> ObjectService::Resolve(const ObjectRef& ref) {
  return metadata_.OpenCatalog(ref.metalake, ref.catalog);
}

Status ObjectService::Authorize(const Caller& caller, Action action, const ObjectRef& ref) {
  return Authorize(caller.principal, action, ref.metalake, ref.catalog, ref.schema, ref.name,
                   ref.kind);
}

Status ObjectService::Authorize(const governance::Principal& principal, Action action,
                                std::string_view metalake, std::string_view catalog,
                                const std::vector<std::string>& schema, std::string_view name,
                                ObjectType kind) {
  return authz_.Authorize(principal, action, metalake, catalog, schema, name, kind);
}

Result<std::vector<std::string>> ObjectService::Visible(
    const Caller& caller, Action action, const ObjectRef& parent, std::vector<std::string> names,
    ObjectType kind, const std::vector<store::EntityRecord>* rows) {
  return authz_.Visible(caller.principal, action, parent.metalake, parent.catalog, parent.schema,
                        std::move(names), kind, rows);
}

void ObjectService::Publish(const Caller& caller, ChangeType type, const ObjectRef& ref,
                            std::string_view new_name, std::string detail) {
  ObjectChange change = MakeChange(caller.ctx, type, ref.kind, ref.metalake, ref.catalog,
                                   ref.schema, ref.name, new_name);
  change.detail = std::move(detail);
  metadata_.events().Publish(change);
}

void ObjectService::PublishRename(const Caller& caller, const ObjectRef& ref,
                                  std::vector<std::string> schema, std::string name) {
  ObjectChange change = MakeChange(caller.ctx, ChangeType::kRenamed, ref.kind, ref.metalake,
                                   ref.catalog, ref.schema, ref.name);
  change.renamed_to = ObjectChange::NewName{std::move(schema), std::move(name)};
  metadata_.events().Publish(change);
}

Error ObjectService::Missing(const ObjectRef& ref, std::string_view operations) {
  return Unsupported("Catalog {} does not support {} operations", ref.catalog, operations);
}

// ---- Schemas ------------------------------------------------------------------------------------

Result<std::vector<std::string>> ObjectService::ListSchemas(const Caller& caller,
                                                            const ObjectRef& catalog) {
  CAIRN_ASSIGN_OR_RETURN(auto schemas,
                         Open<connector::SchemaCatalog>(caller, Action::kLoadCatalog, catalog));
  CAIRN_ASSIGN_OR_RETURN(auto names, schemas->ListSchemas());
  return Visible(caller, Action::kLoadSchema, catalog, std::move(names), ObjectType::kSchema);
}

Result<model::Schema> ObjectService::CreateSchema(const Caller& caller, const ObjectRef& catalog,
                                                  const model::Schema& schema) {
  CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kSchema, schema.name));
  const ObjectRef ref = catalog.Schema(schema.name);
  CAIRN_ASSIGN_OR_RETURN(auto schemas,
                         Open<connector::SchemaCatalog>(caller, Action::kCreateSchema, ref));
  CAIRN_ASSIGN_OR_RETURN(model::Schema created, schemas->CreateSchema(caller.ctx, schema));
  Publish(caller, ChangeType::kCreated, catalog.Schema(created.name));
  return created;
}

Result<model::Schema> ObjectService::LoadSchema(const Caller& caller, const ObjectRef& schema) {
  CAIRN_ASSIGN_OR_RETURN(auto schemas,
                         Open<connector::SchemaCatalog>(caller, Action::kLoadSchema, schema));
  return schemas->LoadSchema(schema.schema.at(0));
}

Result<model::Schema> ObjectService::AlterSchema(const Caller& caller, const ObjectRef& schema,
                                                 const std::vector<model::EntityChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(auto schemas,
                         Open<connector::SchemaCatalog>(caller, Action::kManageSchema, schema));
  CAIRN_ASSIGN_OR_RETURN(model::Schema altered,
                         schemas->AlterSchema(caller.ctx, schema.schema.at(0), changes));
  Publish(caller, ChangeType::kAltered, schema, altered.name);
  return altered;
}

Result<bool> ObjectService::DropSchema(const Caller& caller, const ObjectRef& schema,
                                       bool cascade) {
  CAIRN_ASSIGN_OR_RETURN(auto schemas,
                         Open<connector::SchemaCatalog>(caller, Action::kManageSchema, schema));
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         schemas->DropSchema(caller.ctx, schema.schema.at(0), cascade));
  if (dropped) Publish(caller, ChangeType::kDropped, schema);
  return dropped;
}

// ---- Tables -------------------------------------------------------------------------------------

Result<std::vector<std::string>> ObjectService::ListTables(const Caller& caller,
                                                           const ObjectRef& schema) {
  CAIRN_ASSIGN_OR_RETURN(auto tables,
                         Open<connector::TableCatalog>(caller, Action::kLoadSchema, schema));
  CAIRN_ASSIGN_OR_RETURN(auto names, tables->ListTables(schema.schema.at(0)));
  return Visible(caller, Action::kLoadTable, schema, std::move(names), ObjectType::kTable);
}

Result<connector::NamePage> ObjectService::ListTablesPage(const Caller& caller,
                                                          const ObjectRef& schema,
                                                          std::string after, size_t limit) {
  CAIRN_ASSIGN_OR_RETURN(auto tables,
                         Open<connector::TableCatalog>(caller, Action::kLoadSchema, schema));
  connector::NamePage out;
  // Ranges of limit + 1 names until the page is full: names the caller may not see are left
  // out, so a range may give fewer than it read.
  for (;;) {
    CAIRN_ASSIGN_OR_RETURN(auto range,
                           tables->ListTablesAfter(schema.schema.at(0), after, limit + 1));
    if (range.names.empty()) return out;
    after = range.names.back();
    const bool more = range.more;
    CAIRN_ASSIGN_OR_RETURN(auto visible, Visible(caller, Action::kLoadTable, schema,
                                                 std::move(range.names), ObjectType::kTable));
    for (auto& name : visible) {
      if (out.names.size() == limit) {
        out.more = true;
        return out;
      }
      out.names.push_back(std::move(name));
    }
    if (!more) return out;
  }
}

Result<model::Table> ObjectService::CreateTable(const Caller& caller, const ObjectRef& schema,
                                                const model::Table& table) {
  CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kTable, table.name));
  const ObjectRef ref = schema.Child(table.name, ObjectType::kTable);
  CAIRN_ASSIGN_OR_RETURN(auto tables,
                         Open<connector::TableCatalog>(caller, Action::kCreateTable, ref));
  CAIRN_ASSIGN_OR_RETURN(model::Table created,
                         tables->CreateTable(caller.ctx, schema.schema.at(0), table));
  Publish(caller, ChangeType::kCreated, schema.Child(created.name, ObjectType::kTable));
  return created;
}

Result<model::Table> ObjectService::LoadTable(const Caller& caller, const ObjectRef& table,
                                              Action action) {
  CAIRN_ASSIGN_OR_RETURN(auto tables, Open<connector::TableCatalog>(caller, action, table));
  return tables->LoadTable(table.schema.at(0), table.name);
}

Result<model::Table> ObjectService::AlterTable(const Caller& caller, const ObjectRef& table,
                                               const std::vector<model::TableChange>& changes) {
  for (const auto& c : changes) {
    if (c.kind == model::TableChange::Kind::kRename) {
      CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kTable, c.new_name));
    }
  }
  CAIRN_ASSIGN_OR_RETURN(auto tables,
                         Open<connector::TableCatalog>(caller, Action::kModifyTable, table));
  CAIRN_ASSIGN_OR_RETURN(model::Table altered,
                         tables->AlterTable(caller.ctx, table.schema.at(0), table.name, changes));
  FollowColumnChanges(table, altered.name, changes);
  Publish(caller, ChangeType::kAltered, table, altered.name);
  return altered;
}

void ObjectService::FollowColumnChanges(const ObjectRef& table, const std::string& new_name,
                                        const std::vector<model::TableChange>& changes) {
  using Kind = model::TableChange::Kind;
  const bool any = std::any_of(changes.begin(), changes.end(), [](const model::TableChange& c) {
    return (c.kind == Kind::kRenameColumn || c.kind == Kind::kDeleteColumn) &&
           c.field_name.size() == 1;
  });
  if (!any) return;
  // The source has changed already: a failure here leaves a label under the old name, which
  // the column check then refuses to show; it is logged, the alteration stands.
  auto fail = [&](const Error& e) {
    spdlog::warn("event=column_labels_not_followed table={}.{} error=\"{}\"", table.catalog,
                 new_name, e.message);
  };
  std::string new_schema = table.schema.at(0);
  for (const auto& c : changes) {
    if (c.kind == Kind::kRename && c.new_schema) new_schema = *c.new_schema;
  }
  auto target = authz_.Resolve(table.metalake, table.catalog, {new_schema}, new_name);
  if (!target) return fail(target.error());
  if (!target->object_row) return;  // a catalog whose tables have no rows: no labels either
  const int64_t table_id = target->object_row->id;
  for (const auto& c : changes) {
    if (c.field_name.size() != 1) continue;
    if (c.kind != Kind::kRenameColumn && c.kind != Kind::kDeleteColumn) continue;
    auto row = metadata_.store().Get(store::EntityType::kColumn, table_id, c.field_name[0]);
    if (!row) {
      if (row.error().code != ErrorCode::kNotFound) fail(row.error());
      continue;
    }
    if (c.kind == Kind::kDeleteColumn) {
      if (auto gone = metadata_.store().Delete(row->id); !gone) fail(gone.error());
      continue;
    }
    row->name = c.new_name;
    if (auto moved = metadata_.store().CompareAndSet(*row); !moved) fail(moved.error());
  }
}

Result<bool> ObjectService::DropTable(const Caller& caller, const ObjectRef& table, bool purge) {
  CAIRN_ASSIGN_OR_RETURN(auto tables,
                         Open<connector::TableCatalog>(caller, Action::kDropTable, table));
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         tables->DropTable(caller.ctx, table.schema.at(0), table.name, purge));
  if (dropped) Publish(caller, ChangeType::kDropped, table);
  return dropped;
}

// ---- Filesets -----------------------------------------------------------------------------------

Result<std::vector<std::string>> ObjectService::ListFilesets(const Caller& caller,
                                                             const ObjectRef& schema) {
  CAIRN_ASSIGN_OR_RETURN(auto filesets,
                         Open<connector::FilesetCatalog>(caller, Action::kLoadSchema, schema));
  CAIRN_ASSIGN_OR_RETURN(auto names, filesets->ListFilesets(schema.schema.at(0)));
  return Visible(caller, Action::kLoadFileset, schema, std::move(names), ObjectType::kFileset);
}

Result<model::Fileset> ObjectService::CreateFileset(const Caller& caller, const ObjectRef& schema,
                                                    const model::Fileset& fileset) {
  CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kFileset, fileset.name));
  const ObjectRef ref = schema.Child(fileset.name, ObjectType::kFileset);
  CAIRN_ASSIGN_OR_RETURN(auto filesets,
                         Open<connector::FilesetCatalog>(caller, Action::kCreateFileset, ref));
  CAIRN_ASSIGN_OR_RETURN(model::Fileset created,
                         filesets->CreateFileset(caller.ctx, schema.schema.at(0), fileset));
  Publish(caller, ChangeType::kCreated, schema.Child(created.name, ObjectType::kFileset));
  return created;
}

Result<model::Fileset> ObjectService::LoadFileset(const Caller& caller, const ObjectRef& fileset) {
  CAIRN_ASSIGN_OR_RETURN(auto filesets,
                         Open<connector::FilesetCatalog>(caller, Action::kLoadFileset, fileset));
  return filesets->LoadFileset(fileset.schema.at(0), fileset.name);
}

Result<model::Fileset> ObjectService::AlterFileset(
    const Caller& caller, const ObjectRef& fileset,
    const std::vector<model::EntityChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(auto filesets,
                         Open<connector::FilesetCatalog>(caller, Action::kWriteFileset, fileset));
  CAIRN_ASSIGN_OR_RETURN(
      model::Fileset altered,
      filesets->AlterFileset(caller.ctx, fileset.schema.at(0), fileset.name, changes));
  Publish(caller, ChangeType::kAltered, fileset, altered.name);
  return altered;
}

Result<bool> ObjectService::DropFileset(const Caller& caller, const ObjectRef& fileset) {
  CAIRN_ASSIGN_OR_RETURN(auto filesets,
                         Open<connector::FilesetCatalog>(caller, Action::kDropFileset, fileset));
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         filesets->DropFileset(caller.ctx, fileset.schema.at(0), fileset.name));
  if (dropped) Publish(caller, ChangeType::kDropped, fileset);
  return dropped;
}

Result<std::vector<model::FileInfo>> ObjectService::ListFiles(
    const Caller& caller, const ObjectRef& fileset, std::string_view sub_path,
    const std::optional<std::string>& location_name) {
  CAIRN_ASSIGN_OR_RETURN(auto filesets,
                         Open<connector::FilesetCatalog>(caller, Action::kLoadFileset, fileset));
  return filesets->ListFiles(fileset.schema.at(0), fileset.name, sub_path, location_name);
}

Result<std::string> ObjectService::GetFileLocation(
    const Caller& caller, const ObjectRef& fileset, std::string_view sub_path,
    const std::optional<std::string>& location_name) {
  CAIRN_ASSIGN_OR_RETURN(auto filesets,
                         Open<connector::FilesetCatalog>(caller, Action::kLoadFileset, fileset));
  return filesets->GetFileLocation(fileset.schema.at(0), fileset.name, sub_path, location_name);
}

// ---- Models -------------------------------------------------------------------------------------

Result<std::vector<std::string>> ObjectService::ListModels(const Caller& caller,
                                                           const ObjectRef& schema) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kLoadSchema, schema));
  CAIRN_ASSIGN_OR_RETURN(auto names, models->ListModels(schema.schema.at(0)));
  return Visible(caller, Action::kLoadObject, schema, std::move(names), ObjectType::kModel);
}

Result<model::Model> ObjectService::RegisterModel(const Caller& caller, const ObjectRef& schema,
                                                  const model::Model& model) {
  CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kModel, model.name));
  const ObjectRef ref = schema.Child(model.name, ObjectType::kModel);
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kCreateObject, ref));
  CAIRN_ASSIGN_OR_RETURN(model::Model registered,
                         models->RegisterModel(caller.ctx, schema.schema.at(0), model));
  Publish(caller, ChangeType::kCreated, ref);
  return registered;
}

Result<model::Model> ObjectService::GetModel(const Caller& caller, const ObjectRef& model) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kLoadObject, model));
  return models->GetModel(model.schema.at(0), model.name);
}

Result<model::Model> ObjectService::AlterModel(const Caller& caller, const ObjectRef& model,
                                               const std::vector<model::ModelChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kDropObject, model));
  CAIRN_ASSIGN_OR_RETURN(model::Model altered,
                         models->AlterModel(caller.ctx, model.schema.at(0), model.name, changes));
  Publish(caller, ChangeType::kAltered, model, altered.name);
  return altered;
}

Result<bool> ObjectService::DeleteModel(const Caller& caller, const ObjectRef& model) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kDropObject, model));
  CAIRN_ASSIGN_OR_RETURN(bool deleted,
                         models->DeleteModel(caller.ctx, model.schema.at(0), model.name));
  if (deleted) Publish(caller, ChangeType::kDropped, model);
  return deleted;
}

Result<std::vector<model::ModelVersion>> ObjectService::ListModelVersions(const Caller& caller,
                                                                          const ObjectRef& model) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kLoadObject, model));
  return models->ListVersions(model.schema.at(0), model.name);
}

Result<model::ModelVersion> ObjectService::LinkModelVersion(const Caller& caller,
                                                            const ObjectRef& model,
                                                            const model::ModelVersion& version) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kWriteObject, model));
  CAIRN_ASSIGN_OR_RETURN(model::ModelVersion linked,
                         models->LinkVersion(caller.ctx, model.schema.at(0), model.name, version));
  Publish(caller, ChangeType::kAltered, model, "", fmt::format("version +{}", linked.version));
  return linked;
}

Result<model::ModelVersion> ObjectService::GetModelVersion(const Caller& caller,
                                                           const ObjectRef& model,
                                                           const model::VersionRef& version) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kLoadObject, model));
  return models->GetVersion(model.schema.at(0), model.name, version);
}

Result<model::ModelVersion> ObjectService::AlterModelVersion(
    const Caller& caller, const ObjectRef& model, const model::VersionRef& version,
    const std::vector<model::ModelVersionChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kDropObject, model));
  CAIRN_ASSIGN_OR_RETURN(
      model::ModelVersion altered,
      models->AlterVersion(caller.ctx, model.schema.at(0), model.name, version, changes));
  Publish(caller, ChangeType::kAltered, model, "", fmt::format("version ~{}", altered.version));
  return altered;
}

Result<bool> ObjectService::DeleteModelVersion(const Caller& caller, const ObjectRef& model,
                                               const model::VersionRef& version) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kDropObject, model));
  CAIRN_ASSIGN_OR_RETURN(
      bool deleted, models->DeleteVersion(caller.ctx, model.schema.at(0), model.name, version));
  if (deleted) Publish(caller, ChangeType::kAltered, model, "", "version -");
  return deleted;
}

Result<std::string> ObjectService::GetModelVersionUri(const Caller& caller, const ObjectRef& model,
                                                      const model::VersionRef& version,
                                                      const std::optional<std::string>& uri_name) {
  CAIRN_ASSIGN_OR_RETURN(auto models,
                         Open<connector::ModelCatalog>(caller, Action::kLoadObject, model));
  CAIRN_ASSIGN_OR_RETURN(model::ModelVersion v,
                         models->GetVersion(model.schema.at(0), model.name, version));
  std::optional<std::string> name = uri_name;
  if (!name && v.uris.size() == 1) return v.uris.begin()->second;
  if (!name) {
    const std::string key(model::kDefaultUriNameProperty);
    if (auto it = v.properties.find(key); it != v.properties.end()) {
      name = it->second;
    } else {
      CAIRN_ASSIGN_OR_RETURN(model::Model m, models->GetModel(model.schema.at(0), model.name));
      if (auto mt = m.properties.find(key); mt != m.properties.end()) name = mt->second;
    }
  }
  if (!name) {
    return InvalidArgument(
        "The default uri name needs to be set when the uri name is not specified (property {} "
        "of the version or the model)",
        model::kDefaultUriNameProperty);
  }
  auto it = v.uris.find(*name);
  if (it == v.uris.end()) {
    return NotFound(EntityKind::kModelVersionUri, "URI name {} does not exist in model version {}",
                    *name, v.version);
  }
  return it->second;
}

// ---- Views --------------------------------------------------------------------------------------

Result<std::vector<std::string>> ObjectService::ListViews(const Caller& caller,
                                                          const ObjectRef& schema) {
  CAIRN_ASSIGN_OR_RETURN(auto views,
                         Open<connector::ViewCatalog>(caller, Action::kLoadSchema, schema));
  CAIRN_ASSIGN_OR_RETURN(auto names, views->ListViews(schema.schema.at(0)));
  return Visible(caller, Action::kLoadView, schema, std::move(names), ObjectType::kView);
}

Result<model::View> ObjectService::CreateView(const Caller& caller, const ObjectRef& schema,
                                              const model::View& view) {
  CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kView, view.name));
  const ObjectRef ref = schema.Child(view.name, ObjectType::kView);
  CAIRN_ASSIGN_OR_RETURN(auto views,
                         Open<connector::ViewCatalog>(caller, Action::kCreateView, ref));
  CAIRN_ASSIGN_OR_RETURN(model::View created,
                         views->CreateView(caller.ctx, schema.schema.at(0), view));
  Publish(caller, ChangeType::kCreated, ref);
  return created;
}

Result<model::View> ObjectService::LoadView(const Caller& caller, const ObjectRef& view) {
  CAIRN_ASSIGN_OR_RETURN(auto views, Open<connector::ViewCatalog>(caller, Action::kLoadView, view));
  return views->LoadView(view.schema.at(0), view.name);
}

Result<model::View> ObjectService::AlterView(const Caller& caller, const ObjectRef& view,
                                             const std::vector<model::ViewChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(auto views,
                         Open<connector::ViewCatalog>(caller, Action::kManageView, view));
  CAIRN_ASSIGN_OR_RETURN(model::View altered,
                         views->AlterView(caller.ctx, view.schema.at(0), view.name, changes));
  Publish(caller, ChangeType::kAltered, view, altered.name);
  return altered;
}

Result<bool> ObjectService::DropView(const Caller& caller, const ObjectRef& view) {
  CAIRN_ASSIGN_OR_RETURN(auto views,
                         Open<connector::ViewCatalog>(caller, Action::kManageView, view));
  CAIRN_ASSIGN_OR_RETURN(bool dropped, views->DropView(caller.ctx, view.schema.at(0), view.name));
  if (dropped) Publish(caller, ChangeType::kDropped, view);
  return dropped;
}

}  // namespace cairn::service
