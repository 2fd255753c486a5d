// SPDX-License-Identifier: Apache-2.0
#include "service/tag_service.h"

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

model::Tag ToTag(const EntityRecord& row) {
  return model::Tag{row.name, row.comment, row.properties, row.audit};
}

// What "may access the object" means for tags (Gravitino's CAN_ACCESS_METADATA): the load action
// of its kind.
Action LoadActionOf(ObjectType type) {
  switch (type) {
    case ObjectType::kMetalake:
      return Action::kUseMetalake;
    case ObjectType::kCatalog:
      return Action::kLoadCatalog;
    case ObjectType::kSchema:
      return Action::kLoadSchema;
    case ObjectType::kTable:
      return Action::kLoadTable;
    case ObjectType::kView:
      return Action::kLoadView;
    case ObjectType::kFileset:
      return Action::kLoadFileset;
    default:
      return Action::kLoadObject;
  }
}

// The kinds a tag can be attached to (Gravitino: catalog, schema and the leaf objects).
bool Taggable(ObjectType type) {
  return type == ObjectType::kCatalog || type == ObjectType::kSchema ||
         model::Describe(type).parent == model::ObjectKind::kSchema;
}

}  // namespace

TagService::TagService(store::MetadataStore& store, Authorizer& authorizer, EventStream& events)
    : store_(store), authz_(authorizer), events_(events) {}

Result<Target> TagService::Metalake(const std::string& metalake) {
  CAIRN_ASSIGN_OR_RETURN(Target target, authz_.Resolve(metalake));
  if (!target.metalake.in_use) {
    return MakeError(ErrorCode::kNotInUse, EntityKind::kMetalake, "Metalake {} is not in use",
                     metalake);
  }
  return target;
}

Result<EntityRecord> TagService::TagRow(const Target& metalake, const std::string& name) {
  auto row = store_.Get(EntityType::kTag, metalake.metalake.id, name);
  if (!row && row.error().code == ErrorCode::kNotFound) {
    return NotFound(EntityKind::kTag, "Tag {} does not exist", name);
  }
  return row;
}

Target TagService::TagTarget(const Target& metalake, const EntityRecord* row,
                             const std::string& name) {
  Target t;
  t.metalake = metalake.metalake;
  t.object = name;
  t.object_type = ObjectType::kTag;
  if (row != nullptr) t.object_row = *row;
  return t;
}

Result<EntityRecord> TagService::AuthorizedTag(const Caller& caller, const Target& metalake,
                                               const std::string& name, Action action) {
  auto row = TagRow(metalake, name);
  if (!row && row.error().code != ErrorCode::kNotFound) return std::move(row).error();
  CAIRN_RETURN_IF_ERROR(
      authz_.Check(caller.principal, action, TagTarget(metalake, row ? &*row : nullptr, name)));
  return row;
}

void TagService::Publish(const Caller& caller, ChangeType type, const std::string& metalake,
                         const std::string& name, std::string_view new_name) {
  ObjectChange change = MakeChange(caller.ctx, type, ObjectType::kTag, metalake);
  change.name = name;
  if (!new_name.empty() && new_name != name) {
    change.type = ChangeType::kRenamed;
    change.renamed_to = ObjectChange::NewName{{}, std::string(new_name)};
  }
  events_.Publish(change);
}

Result<std::vector<model::Tag>> TagService::ListTags(const Caller& caller,
                                                     const std::string& metalake) {
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  CAIRN_RETURN_IF_ERROR(authz_.Check(caller.principal, Action::kUseMetalake, ml));
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kTag, ml.metalake.id, "", 0));
  std::vector<model::Tag> out;
  for (const auto& row : rows) {
    CAIRN_ASSIGN_OR_RETURN(bool visible, authz_.Allowed(caller.principal, Action::kLoadTag,
                                                        TagTarget(ml, &row, row.name)));
    if (visible) out.push_back(ToTag(row));
  }
  return out;
}

Result<model::Tag> TagService::CreateTag(const Caller& caller, const std::string& metalake,
                                         const model::Tag& tag) {
  CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(EntityKind::kTag, tag.name));
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  CAIRN_RETURN_IF_ERROR(authz_.Check(caller.principal, Action::kCreateTag, ml));
  EntityRecord row;
  row.type = EntityType::kTag;
  row.parent_id = ml.metalake.id;
  row.name = tag.name;
  row.comment = tag.comment;
  row.properties = tag.properties;
  row.payload = "{}";
  row.audit.creator = caller.ctx.principal;  // the creator owns the tag
  row.audit.create_time = caller.ctx.now_ms;
  auto inserted = store_.Insert(row);
  if (!inserted) {
    if (inserted.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kTag, "Tag {} already exists", tag.name);
    }
    return std::move(inserted).error();
  }
  Publish(caller, ChangeType::kCreated, metalake, tag.name);
  return ToTag(*inserted);
}

Result<model::Tag> TagService::GetTag(const Caller& caller, const std::string& metalake,
                                      const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, AuthorizedTag(caller, ml, name, Action::kLoadTag));
  return ToTag(row);
}

Result<model::Tag> TagService::AlterTag(const Caller& caller, const std::string& metalake,
                                        const std::string& name,
                                        const std::vector<model::EntityChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  CAIRN_RETURN_IF_ERROR(AuthorizedTag(caller, ml, name, Action::kManageTag));
  for (const auto& change : changes) {
    if (change.kind == model::EntityChange::Kind::kRename) {
      CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(EntityKind::kTag, change.new_name));
    }
  }
  auto updated = store::RetryOnConflict([&]() -> Result<EntityRecord> {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, TagRow(ml, name));
    for (const auto& change : changes) {
      switch (change.kind) {
        case model::EntityChange::Kind::kRename:
          row.name = change.new_name;
          break;
        case model::EntityChange::Kind::kUpdateComment:
          row.comment = change.comment;
          break;
        case model::EntityChange::Kind::kSetProperty:
          row.properties[change.property] = change.value;
          break;
        case model::EntityChange::Kind::kRemoveProperty:
          row.properties.erase(change.property);
          break;
      }
    }
    row.audit.last_modifier = caller.ctx.principal;
    row.audit.last_modified_time = caller.ctx.now_ms;
    return store_.CompareAndSet(row);
  });
  if (!updated) {
    if (updated.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kTag, "Tag {} already exists",
                           changes.empty() ? "" : changes.back().new_name);
    }
    return std::move(updated).error();
  }
  Publish(caller, ChangeType::kAltered, metalake, name, updated->name);
  return ToTag(*updated);
}

Result<bool> TagService::DeleteTag(const Caller& caller, const std::string& metalake,
                                   const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  auto row = AuthorizedTag(caller, ml, name, Action::kManageTag);
  if (!row && row.error().code == ErrorCode::kNotFound) return false;
  if (!row) return std::move(row).error();
  CAIRN_ASSIGN_OR_RETURN(bool deleted, store_.Delete(row->id));  // its links go with it
  if (deleted) Publish(caller, ChangeType::kDropped, metalake, name);
  return deleted;
}

Result<std::vector<EntityRecord>> TagService::ObjectChain(const Caller& caller,
                                                          const std::string& metalake,
                                                          const std::string& type,
                                                          const std::string& full_name,
                                                          MetadataObjectTarget& object) {
  CAIRN_RETURN_IF_ERROR(Metalake(metalake));  // in use
  auto resolved = authz_.ResolveMetadataObject(metalake, type, full_name);
  if (!resolved) return std::move(resolved).error();
  object = std::move(*resolved);
  if (!Taggable(object.type)) {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject,
                     "Tags cannot be associated with a metadata object of type {}", type);
  }
  CAIRN_RETURN_IF_ERROR(authz_.Check(caller.principal, LoadActionOf(object.type), object.target));
  std::vector<EntityRecord> chain;
  const Target& t = object.target;
  if (t.object_row && object.type != ObjectType::kSchema && object.type != ObjectType::kCatalog) {
    chain.push_back(*t.object_row);
  }
  if (t.schema_row && object.type != ObjectType::kCatalog) chain.push_back(*t.schema_row);
  if (t.catalog_row) chain.push_back(*t.catalog_row);
  return chain;
}

Result<std::vector<model::ObjectTag>> TagService::TagsOfObject(const Caller& caller,
                                                               const std::string& metalake,
                                                               const std::string& type,
                                                               const std::string& full_name) {
  MetadataObjectTarget object;
  CAIRN_ASSIGN_OR_RETURN(auto chain, ObjectChain(caller, metalake, type, full_name, object));
  std::vector<model::ObjectTag> out;
  std::set<int64_t> seen;
  for (size_t level = 0; level < chain.size(); ++level) {
    CAIRN_ASSIGN_OR_RETURN(auto links, store_.ListLinksTo(LinkType::kTagObject, chain[level].id, 0, 0));
    std::vector<model::ObjectTag> found;
    for (const auto& link : links) {
      if (!seen.insert(link.from_id).second) continue;  // on the object itself and above it
      auto tag = store_.GetById(link.from_id);
      if (!tag && tag.error().code == ErrorCode::kNotFound) continue;  // deleted since
      if (!tag) return std::move(tag).error();
      found.push_back(model::ObjectTag{ToTag(*tag), level > 0});
    }
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.tag.name < b.tag.name; });
    for (auto& f : found) out.push_back(std::move(f));
  }
  return out;
}

Result<std::vector<std::string>> TagService::AssociateTags(
    const Caller& caller, const std::string& metalake, const std::string& type,
    const std::string& full_name, const std::vector<std::string>& add,
    const std::vector<std::string>& remove) {
  MetadataObjectTarget object;
  CAIRN_ASSIGN_OR_RETURN(auto chain, ObjectChain(caller, metalake, type, full_name, object));
  const EntityRecord* row = object.target.RowOf(object.type);
  if (row == nullptr) {
    return NotFound(EntityKind::kMetadataObject, "Metadata object {} does not exist", full_name);
  }
  for (const auto& name : add) {
    if (std::find(remove.begin(), remove.end(), name) != remove.end()) {
      return InvalidArgument("Tag {} is both in 'tagsToAdd' and in 'tagsToRemove'", name);
    }
  }
  const Target& ml = object.target;  // its metalake row, read (and found in use) with it
  // Every tag named is checked (it exists, the caller may apply it) before anything is written.
  std::map<std::string, EntityRecord> tags;
  for (const auto* names : {&add, &remove}) {
    for (const auto& name : *names) {
      if (tags.count(name) > 0) continue;
      CAIRN_ASSIGN_OR_RETURN(EntityRecord tag, AuthorizedTag(caller, ml, name, Action::kLoadTag));
      tags.emplace(name, std::move(tag));
    }
  }
  Status written = store_.RunInTransaction([&](store::MetadataStore& tx) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto links, tx.ListLinksTo(LinkType::kTagObject, row->id, 0, 0));
    std::set<int64_t> attached;
    for (const auto& l : links) attached.insert(l.from_id);
    for (const auto& name : add) {
      const EntityRecord& tag = tags.at(name);
      if (attached.count(tag.id) > 0) {
        return MakeError(ErrorCode::kAlreadyExists, EntityKind::kTagAssociation,
                         "Tag {} is already associated with {} {}", name, type, full_name);
      }
      LinkRecord link;
      link.type = LinkType::kTagObject;
      link.from_id = tag.id;
      link.to_id = row->id;
      link.payload = "{}";
      link.creator = caller.ctx.principal;
      link.create_time = caller.ctx.now_ms;
      CAIRN_RETURN_IF_ERROR(tx.Link(link));
      attached.insert(tag.id);
    }
    for (const auto& name : remove) {
      CAIRN_RETURN_IF_ERROR(tx.Unlink(LinkType::kTagObject, tags.at(name).id, row->id));
    }
    return Ok();
  });
  CAIRN_RETURN_IF_ERROR(written);
  if (!add.empty() || !remove.empty()) {
    ObjectChange change = MakeChange(caller.ctx, ChangeType::kAltered, object.type, metalake);
    change.name = full_name;
    std::vector<std::string> detail;
    for (const auto& n : add) detail.push_back("tag +" + n);
    for (const auto& n : remove) detail.push_back("tag -" + n);
    change.detail = Join(detail, ",");
    events_.Publish(change);
  }
  CAIRN_ASSIGN_OR_RETURN(auto links, store_.ListLinksTo(LinkType::kTagObject, row->id, 0, 0));
  std::vector<std::string> names;
  for (const auto& link : links) {
    auto tag = store_.GetById(link.from_id);
    if (tag) names.push_back(tag->name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::vector<model::MetadataObjectName>> TagService::ObjectsOfTag(
    const Caller& caller, const std::string& metalake, const std::string& tag_name) {
  CAIRN_ASSIGN_OR_RETURN(Target ml, Metalake(metalake));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord tag, AuthorizedTag(caller, ml, tag_name, Action::kLoadTag));
  CAIRN_ASSIGN_OR_RETURN(auto links, store_.ListLinksFrom(LinkType::kTagObject, tag.id, 0, 0));
  std::vector<model::MetadataObjectName> out;
  for (const auto& link : links) {
    // The object's name is its path below the metalake: walk up its parents.
    std::vector<std::string> path;
    std::optional<model::ObjectKind> kind;
    int64_t id = link.to_id;
    bool gone = false;
    while (id != ml.metalake.id) {
      auto row = store_.GetById(id);
      if (!row && row.error().code == ErrorCode::kNotFound) {
        gone = true;  // dropped since the links were read
        break;
      }
      if (!row) return std::move(row).error();
      if (!kind) kind = row->type;
      path.insert(path.begin(), row->name);
      id = row->parent_id;
      if (path.size() > 8) break;  // deeper than any object kind: a corrupt chain
    }
    if (gone || !kind) continue;
    model::MetadataObjectName name{Join(path, "."), *kind};
    if (authz_.enabled()) {
      // The object's rows by its names, for the decision (read only when one is made).
      auto named = authz_.ResolveMetadataObject(metalake, std::string(model::Describe(*kind).name),
                                                name.full_name);
      if (!named) continue;  // no longer addressable (e.g. a nested namespace)
      CAIRN_ASSIGN_OR_RETURN(bool visible, authz_.Allowed(caller.principal, LoadActionOf(*kind),
                                                          named->target));
      if (!visible) continue;
    }
    out.push_back(std::move(name));
  }
  return out;
}

}  // namespace cairn::service
