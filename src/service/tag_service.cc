// SPDX-License-Identifier: Apache-2.0
#include "service/tag_service.h"

#include <utility>

namespace cairn::service {

namespace {

model::Tag ToTag(const store::EntityRecord& row) {
  return model::Tag{row.name, row.comment, row.properties, row.audit};
}

}  // namespace

TagService::TagService(store::MetadataStore& store, Authorizer& authorizer, EventStream& events)
    : labels_(store, authorizer, events, kTagLabels) {}

Result<std::vector<model::Tag>> TagService::ListTags(const Caller& caller,
                                                     const std::string& metalake) {
  CAIRN_ASSIGN_OR_RETURN(auto rows, labels_.List(caller, metalake));
  std::vector<model::Tag> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(ToTag(row));
  return out;
}

Result<model::Tag> TagService::CreateTag(const Caller& caller, const std::string& metalake,
                                         const model::Tag& tag) {
  store::EntityRecord row;
  row.name = tag.name;
  row.comment = tag.comment;
  row.properties = tag.properties;
  CAIRN_ASSIGN_OR_RETURN(store::EntityRecord created,
                         labels_.Create(caller, metalake, std::move(row)));
  return ToTag(created);
}

Result<model::Tag> TagService::GetTag(const Caller& caller, const std::string& metalake,
                                      const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(store::EntityRecord row, labels_.Get(caller, metalake, name));
  return ToTag(row);
}

Result<model::Tag> TagService::AlterTag(const Caller& caller, const std::string& metalake,
                                        const std::string& name,
                                        const std::vector<model::EntityChange>& changes) {
  auto edit = [&](store::EntityRecord& row) -> Result<bool> {
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
    return true;
  };
  CAIRN_ASSIGN_OR_RETURN(store::EntityRecord row, labels_.Alter(caller, metalake, name, edit));
  return ToTag(row);
}

Result<bool> TagService::DeleteTag(const Caller& caller, const std::string& metalake,
                                   const std::string& name) {
  return labels_.Delete(caller, metalake, name);
}

Result<ObjectPage> TagService::ObjectsOfTag(const Caller& caller, const std::string& metalake,
                                            const std::string& tag, int64_t after, int limit) {
  return labels_.ObjectsOf(caller, metalake, tag, after, limit);
}

Result<std::vector<model::ObjectTag>> TagService::TagsOfObject(const Caller& caller,
                                                               const std::string& metalake,
                                                               const std::string& type,
                                                               const std::string& full_name) {
  CAIRN_ASSIGN_OR_RETURN(auto found, labels_.OfObject(caller, metalake, type, full_name));
  std::vector<model::ObjectTag> out;
  out.reserve(found.size());
  for (const auto& f : found) out.push_back(model::ObjectTag{ToTag(f.row), f.inherited});
  return out;
}

Result<std::vector<std::string>> TagService::AssociateTags(
    const Caller& caller, const std::string& metalake, const std::string& type,
    const std::string& full_name, const std::vector<std::string>& add,
    const std::vector<std::string>& remove) {
  return labels_.Associate(caller, metalake, type, full_name, add, remove);
}

}  // namespace cairn::service
