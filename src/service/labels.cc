// SPDX-License-Identifier: Apache-2.0
#include "service/labels.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "common/util.h"
#include "store/retry.h"

namespace cairn::service {

using store::EntityRecord;
using store::EntityType;
using store::LinkRecord;
using store::LinkType;

namespace {

// What "may access the object" means for labels (Gravitino's CAN_ACCESS_METADATA): the load
// action of its kind.
Action LoadActionOf(ObjectType type) {
  switch (type) {
    case ObjectType::kMetalake:
      return Action::kUseMetalake;
    case ObjectType::kCatalog:
      return Action::kLoadCatalog;
    case ObjectType::kSchema:
      return Action::kLoadSchema;
    case ObjectType::kTable:
    case ObjectType::kColumn:  // a column is seen with its table
      return Action::kLoadTable;
    case ObjectType::kView:
      return Action::kLoadView;
    case ObjectType::kFileset:
      return Action::kLoadFileset;
    default:
      return Action::kLoadObject;
  }
}

// Tags go on catalogs, schemas, the leaf objects of every kind and the columns of tables.
bool Taggable(ObjectType type) {
  return type == ObjectType::kCatalog || type == ObjectType::kSchema ||
         type == ObjectType::kColumn || model::Describe(type).parent == model::ObjectKind::kSchema;
}

// Policies go on catalogs, schemas, tables, filesets, topics and models (Gravitino's list).
bool PolicyAttachable(ObjectType type) {
  switch (type) {
    case ObjectType::kCatalog:
    case ObjectType::kSchema:
    case ObjectType::kTable:
    case ObjectType::kFileset:
    case ObjectType::kTopic:
    case ObjectType::kModel:
      return true;
    default:
      return false;
  }
}

}  // namespace

const LabelKind kTagLabels{ObjectType::kTag,
                           LinkType::kTagObject,
                           EntityKind::kTagAssociation,
                           Action::kCreateTag,
                           Action::kLoadTag,
                           Action::kManageTag,
                           Taggable};
const LabelKind kPolicyLabels{
    ObjectType::kPolicy,   LinkType::kPolicyObject, EntityKind::kPolicyAssociation,
    Action::kCreatePolicy, Action::kLoadPolicy,     Action::kManagePolicy,
    PolicyAttachable};

Labels::Labels(store::MetadataStore& store, Authorizer& authorizer, EventStream& events,
               const LabelKind& kind)
    : store_(store), authz_(authorizer), events_(events), kind_(kind) {}

Result<Target> Labels::Metalake(const std::string& metalake) {
  return InUseMetalake(authz_, metalake);
}

Result<EntityRecord> Labels::Row(const Target& metalake, const std::string& name) {
  auto row = store_.Get(kind_.type, metalake.metalake.id, name);
  if (!row && row.error().code == ErrorCode::kNotFound) {
    const auto& d = model::Describe(kind_.type);
    return NotFound(d.error_kind, "{} {} does not exist", d.display, name);
  }
  return row;
}

Target Labels::LabelTarget(const Target& metalake, const EntityRecord* row,
                           const std::string& name) const {
  Target t;
  t.metalake = metalake.metalake;
  t.object = name;
  t.object_type = kind_.type;
  if (row != nullptr) t.object_row = *row;
  return t;
}

Result<EntityRecord> Labels::Authorized(const Caller& caller, const Target& metalake,
                                        const std::string& name, Action action) {
  auto row = Row(metalake, name);
  if (!row && row.error().code != ErrorCode::kNotFound) return std::move(row).error();
  CAIRN_RETURN_IF_ERROR(
      authz_.Check(caller.principal, action, LabelTarget(metalake, row ? &*row : nullptr, name)));
  return row;
}

void Labels::Publish(const Caller& caller, ChangeType type, const std::string& metalake,
                     const std::string& name, std::string_view new_name) {
  ObjectChange change = MakeChange(caller.ctx, type, kind_.type, metalake);
  change.name = name;
  if (!new_name.empty() && new_name != name) {
    change.type = ChangeType::kRenamed;
    change.renamed_to = ObjectChange::NewName{{}, std::string(new_name)};
  }
  events_.Publish(change);
}

Result<std::vector<EntityRecord>> Labels::List(const Caller& caller, const std::string& metalake) {
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  CAIRN_RETURN_IF_ERROR(authz_.Check(caller.principal, Action::kUseMetalake, ml));
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(kind_.type, ml.metalake.id, "", 0));
  std::vector<EntityRecord> out;
  for (auto& row : rows) {
    CAIRN_ASSIGN_OR_RETURN(bool visible, authz_.Allowed(caller.principal, kind_.load,
                                                        LabelTarget(ml, &row, row.name)));
    if (visible) out.push_back(std::move(row));
  }
  return out;
}

Result<EntityRecord> Labels::Create(const Caller& caller, const std::string& metalake,
                                    EntityRecord row) {
  const auto& d = model::Describe(kind_.type);
  CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(d.error_kind, row.name));
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  CAIRN_RETURN_IF_ERROR(authz_.Check(caller.principal, kind_.create, ml));
  row.type = kind_.type;
  row.parent_id = ml.metalake.id;
  if (row.payload.empty()) row.payload = "{}";
  row.audit = {};
  row.audit.creator = caller.ctx.principal;  // the creator owns the label
  row.audit.create_time = caller.ctx.now_ms;
  auto inserted = store_.Insert(row);
  if (!inserted) {
    if (inserted.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(d.error_kind, "{} {} already exists", d.display, row.name);
    }
    return std::move(inserted).error();
  }
  Publish(caller, ChangeType::kCreated, metalake, row.name);
  return inserted;
}

Result<EntityRecord> Labels::Get(const Caller& caller, const std::string& metalake,
                                 const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  return Authorized(caller, ml, name, kind_.load);
}

Result<EntityRecord> Labels::Alter(const Caller& caller, const std::string& metalake,
                                   const std::string& name,
                                   const std::function<Result<bool>(EntityRecord&)>& edit) {
  const auto& d = model::Describe(kind_.type);
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  CAIRN_RETURN_IF_ERROR(Authorized(caller, ml, name, kind_.manage));
  bool changed = false;
  std::string new_name = name;
  auto updated = store::RetryOnConflict([&]() -> Result<EntityRecord> {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, Row(ml, name));
    CAIRN_ASSIGN_OR_RETURN(changed, edit(row));
    if (!changed) return row;
    new_name = row.name;
    if (row.name != name) CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(d.error_kind, row.name));
    row.audit.last_modifier = caller.ctx.principal;
    row.audit.last_modified_time = caller.ctx.now_ms;
    return store_.CompareAndSet(row);
  });
  if (!updated) {
    if (updated.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(d.error_kind, "{} {} already exists", d.display, new_name);
    }
    return std::move(updated).error();
  }
  if (changed) Publish(caller, ChangeType::kAltered, metalake, name, updated->name);
  return updated;
}

Result<bool> Labels::Delete(const Caller& caller, const std::string& metalake,
                            const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  auto row = Authorized(caller, ml, name, kind_.manage);
  if (!row && row.error().code == ErrorCode::kNotFound) return false;
  if (!row) return std::move(row).error();
  CAIRN_ASSIGN_OR_RETURN(bool deleted, store_.Delete(row->id));  // its links go with it
  if (deleted) Publish(caller, ChangeType::kDropped, metalake, name);
  return deleted;
}

Result<std::vector<EntityRecord>> Labels::ObjectChain(const Caller& caller,
                                                      const std::string& metalake,
                                                      const std::string& type,
                                                      const std::string& full_name,
                                                      MetadataObjectTarget& object) {
  CAIRN_RETURN_IF_ERROR(Metalake(metalake));  // in use
  CAIRN_ASSIGN_OR_RETURN(object, ResolveOrSee(authz_, see_, caller, metalake, type, full_name));
  if (!kind_.attachable(object.type)) {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject,
                     "A {} cannot be associated with a metadata object of type {}",
                     model::Describe(kind_.type).name, type);
  }
  CAIRN_RETURN_IF_ERROR(authz_.Check(caller.principal, LoadActionOf(object.type), object.target));
  if (object.type == ObjectType::kColumn && see_) {
    // Whether the table has the column is its catalog's answer (one load of the table).
    CAIRN_RETURN_IF_ERROR(see_(caller, object));
  }
  std::vector<EntityRecord> chain;
  const Target& t = object.target;
  if (t.column_row) chain.push_back(*t.column_row);
  if (t.object_row && object.type != ObjectType::kSchema && object.type != ObjectType::kCatalog) {
    chain.push_back(*t.object_row);
  }
  if (t.schema_row && object.type != ObjectType::kCatalog) chain.push_back(*t.schema_row);
  if (t.catalog_row) chain.push_back(*t.catalog_row);
  return chain;
}

Result<std::vector<LabelOnObject>> Labels::OfObject(const Caller& caller,
                                                    const std::string& metalake,
                                                    const std::string& type,
                                                    const std::string& full_name) {
  MetadataObjectTarget object;
  CAIRN_ASSIGN_OR_RETURN(auto chain, ObjectChain(caller, metalake, type, full_name, object));
  std::vector<LabelOnObject> out;
  std::set<int64_t> seen;
  const EntityRecord* own = object.target.RowOf(object.type);  // none for an unlabelled column
  for (size_t level = 0; level < chain.size(); ++level) {
    const bool inherited = own == nullptr || chain[level].id != own->id;
    CAIRN_ASSIGN_OR_RETURN(auto links, store_.ListLinksTo(kind_.link, chain[level].id, 0, 0));
    std::vector<LabelOnObject> found;
    for (const auto& link : links) {
      if (!seen.insert(link.from_id).second) continue;  // on the object itself and above it
      auto label = store_.GetById(link.from_id);
      if (!label && label.error().code == ErrorCode::kNotFound) continue;  // deleted since
      if (!label) return std::move(label).error();
      CAIRN_ASSIGN_OR_RETURN(bool visible,
                             authz_.Allowed(caller.principal, kind_.load,
                                            LabelTarget(object.target, &*label, label->name)));
      if (visible) found.push_back(LabelOnObject{std::move(*label), inherited});
    }
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.row.name < b.row.name; });
    for (auto& f : found) out.push_back(std::move(f));
  }
  return out;
}

Result<std::vector<std::string>> Labels::Associate(const Caller& caller,
                                                   const std::string& metalake,
                                                   const std::string& type,
                                                   const std::string& full_name,
                                                   const std::vector<std::string>& add,
                                                   const std::vector<std::string>& remove) {
  const auto& d = model::Describe(kind_.type);
  MetadataObjectTarget object;
  CAIRN_ASSIGN_OR_RETURN(auto chain, ObjectChain(caller, metalake, type, full_name, object));
  const bool column = object.type == ObjectType::kColumn;
  const EntityRecord* row = object.target.RowOf(object.type);
  if (row == nullptr && !(column && object.target.object_row)) {
    return NotFound(EntityKind::kMetadataObject, "Metadata object {} does not exist", full_name);
  }
  // A name both to add and to remove is neither (Gravitino's rule); repeats count once.
  std::vector<std::string> adding, removing;
  for (const auto& name : add) {
    if (std::find(remove.begin(), remove.end(), name) == remove.end() &&
        std::find(adding.begin(), adding.end(), name) == adding.end()) {
      adding.push_back(name);
    }
  }
  for (const auto& name : remove) {
    if (std::find(add.begin(), add.end(), name) == add.end() &&
        std::find(removing.begin(), removing.end(), name) == removing.end()) {
      removing.push_back(name);
    }
  }
  const Target& ml = object.target;  // its metalake row, read (and found in use) with it
  // Every label named is checked (it exists, the caller may apply it) before anything is written.
  std::map<std::string, EntityRecord> labels;
  for (const auto* names : {&adding, &removing}) {
    for (const auto& name : *names) {
      if (labels.count(name) > 0) continue;
      CAIRN_ASSIGN_OR_RETURN(EntityRecord label, Authorized(caller, ml, name, kind_.load));
      labels.emplace(name, std::move(label));
    }
  }
  std::optional<EntityRecord> column_row;
  if (row == nullptr) {  // a column that carries no label yet
    if (adding.empty()) return std::vector<std::string>{};
    CAIRN_ASSIGN_OR_RETURN(column_row,
                           ColumnRow(caller, *object.target.object_row, object.target.column));
    row = &*column_row;
  }
  Status written = store_.RunInTransaction([&](store::MetadataStore& tx) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto links, tx.ListLinksTo(kind_.link, row->id, 0, 0));
    std::set<int64_t> attached;
    for (const auto& l : links) attached.insert(l.from_id);
    for (const auto& name : adding) {
      const EntityRecord& label = labels.at(name);
      if (attached.count(label.id) > 0) {
        return MakeError(ErrorCode::kAlreadyExists, kind_.association,
                         "{} {} is already associated with {} {}", d.display, name, type,
                         full_name);
      }
      LinkRecord link;
      link.type = kind_.link;
      link.from_id = label.id;
      link.to_id = row->id;
      link.payload = "{}";
      link.creator = caller.ctx.principal;
      link.create_time = caller.ctx.now_ms;
      CAIRN_RETURN_IF_ERROR(tx.Link(link));
      attached.insert(label.id);
    }
    for (const auto& name : removing) {
      CAIRN_RETURN_IF_ERROR(tx.Unlink(kind_.link, labels.at(name).id, row->id));
    }
    return Ok();
  });
  CAIRN_RETURN_IF_ERROR(written);
  if (!adding.empty() || !removing.empty()) {
    ObjectChange change = MakeChange(caller.ctx, ChangeType::kAltered, object.type, metalake);
    change.name = full_name;
    std::vector<std::string> detail;
    for (const auto& n : adding) detail.push_back(fmt::format("{} +{}", d.name, n));
    for (const auto& n : removing) detail.push_back(fmt::format("{} -{}", d.name, n));
    change.detail = Join(detail, ",");
    events_.Publish(change);
  }
  CAIRN_ASSIGN_OR_RETURN(auto links, store_.ListLinksTo(kind_.link, row->id, 0, 0));
  std::vector<std::string> names;
  for (const auto& link : links) {
    auto label = store_.GetById(link.from_id);
    if (label) names.push_back(label->name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<EntityRecord> Labels::ColumnRow(const Caller& caller, const EntityRecord& table,
                                       const std::string& column) {
  EntityRecord row;
  row.type = EntityType::kColumn;
  row.parent_id = table.id;
  row.name = column;
  row.payload = "{}";
  row.audit.creator = caller.ctx.principal;
  row.audit.create_time = caller.ctx.now_ms;
  auto inserted = store_.Insert(row);
  if (inserted || inserted.error().code != ErrorCode::kAlreadyExists) return inserted;
  return store_.Get(EntityType::kColumn, table.id, column);  // a racing request made it first
}

Result<ObjectPage> Labels::ObjectsOf(const Caller& caller, const std::string& metalake,
                                     const std::string& name, int64_t after, int limit) {
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord label, Authorized(caller, ml, name, kind_.load));
  // The objects' rows with their links, in one read.
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.ListLinkedRows(kind_.link, label.id, after, limit));
  ObjectPage page;
  if (limit > 0 && static_cast<int>(rows.size()) == limit) page.next = rows.back().id;
  // The objects' parents (schemas, catalogs) repeat along a page: each is read once.
  std::map<int64_t, std::optional<EntityRecord>> parents;
  auto parent = [&](int64_t id) -> Result<const EntityRecord*> {
    auto [it, fresh] = parents.try_emplace(id);
    if (fresh) {
      auto row = store_.GetById(id);
      if (!row && row.error().code != ErrorCode::kNotFound) return std::move(row).error();
      if (row) it->second = std::move(*row);
    }
    return it->second ? &*it->second : nullptr;
  };
  for (const auto& object_row : rows) {
    // The object's name is its path below the metalake: walk up its parents.
    std::vector<std::string> path{object_row.name};
    int64_t id = object_row.parent_id;
    bool gone = false;
    while (id != ml.metalake.id) {
      CAIRN_ASSIGN_OR_RETURN(const EntityRecord* row, parent(id));
      if (row == nullptr || path.size() > 8) {  // dropped since, or a corrupt chain
        gone = true;
        break;
      }
      path.insert(path.begin(), row->name);
      id = row->parent_id;
    }
    if (gone) continue;
    const model::ObjectKind kind = object_row.type;
    model::MetadataObjectName object{Join(path, "."), kind};
    if (authz_.enabled()) {
      // The object's rows by its names, for the decision (read only when one is made).
      auto named = authz_.ResolveMetadataObject(metalake, std::string(model::Describe(kind).name),
                                                object.full_name);
      if (!named) continue;  // no longer addressable (e.g. a nested namespace)
      CAIRN_ASSIGN_OR_RETURN(bool visible,
                             authz_.Allowed(caller.principal, LoadActionOf(kind), named->target));
      if (!visible) continue;
    }
    page.objects.push_back(std::move(object));
  }
  return page;
}

}  // namespace cairn::service
