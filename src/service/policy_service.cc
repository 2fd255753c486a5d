// SPDX-License-Identifier: Apache-2.0
#include "service/policy_service.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace cairn::service {

namespace {

using Json = nlohmann::json;

// The object types of the built-in Iceberg compaction policy.
constexpr ObjectType kCompactionTypes[] = {ObjectType::kCatalog, ObjectType::kSchema,
                                           ObjectType::kTable};

bool BuiltIn(const std::string& policy_type) { return policy_type != model::kCustomPolicy; }

// The content as stored: a built-in policy's object types are its type's, a custom one's must
// not be empty.
Result<model::PolicyContent> Checked(const std::string& policy_type,
                                     model::PolicyContent content) {
  if (policy_type == model::kIcebergCompactionPolicy) {
    content.supported_object_types.assign(std::begin(kCompactionTypes), std::end(kCompactionTypes));
  } else if (policy_type != model::kCustomPolicy) {
    return InvalidArgument("Unknown policy type: {}", policy_type);
  }
  if (content.supported_object_types.empty()) {
    return InvalidArgument("Field 'content.supportedObjectTypes' cannot be empty");
  }
  auto rules = Json::parse(content.rules, nullptr, false);
  if (rules.is_discarded() || !rules.is_object()) {
    return InvalidArgument("Field 'content' must hold an object of rules");
  }
  return content;
}

std::string Payload(const model::Policy& p) {
  Json types = Json::array();
  for (ObjectType t : p.content.supported_object_types) types.push_back(model::Describe(t).name);
  Json payload{{"policyType", p.policy_type},
               {"enabled", p.enabled},
               {"supportedObjectTypes", std::move(types)},
               {"rules", Json::parse(p.content.rules)}};
  return payload.dump();
}

}  // namespace

PolicyService::PolicyService(store::MetadataStore& store, Authorizer& authorizer,
                             EventStream& events)
    : labels_(store, authorizer, events, kPolicyLabels) {}

Result<model::Policy> PolicyService::FromRow(const store::EntityRecord& row) {
  auto payload = Json::parse(row.payload, nullptr, false);
  auto corrupt = [&]() -> Error {
    return MakeError(ErrorCode::kInternal, EntityKind::kPolicy,
                     "The stored policy {} is corrupt", row.name);
  };
  if (payload.is_discarded() || !payload.is_object()) return corrupt();
  model::Policy p;
  p.name = row.name;
  p.comment = row.comment;
  p.audit = row.audit;
  p.content.properties = row.properties;
  auto type = payload.find("policyType");
  auto enabled = payload.find("enabled");
  auto types = payload.find("supportedObjectTypes");
  auto rules = payload.find("rules");
  if (type == payload.end() || !type->is_string() || enabled == payload.end() ||
      !enabled->is_boolean() || types == payload.end() || !types->is_array() ||
      rules == payload.end() || !rules->is_object()) {
    return corrupt();
  }
  p.policy_type = type->get<std::string>();
  p.enabled = enabled->get<bool>();
  for (const auto& t : *types) {
    auto kind = t.is_string() ? model::FindKindBySecurable(t.get<std::string>()) : std::nullopt;
    if (!kind) return corrupt();
    p.content.supported_object_types.push_back(*kind);
  }
  p.content.rules = rules->dump();
  return p;
}

Result<std::vector<model::Policy>> PolicyService::ListPolicies(const Caller& caller,
                                                               const std::string& metalake) {
  CAIRN_ASSIGN_OR_RETURN(auto rows, labels_.List(caller, metalake));
  std::vector<model::Policy> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    CAIRN_ASSIGN_OR_RETURN(model::Policy p, FromRow(row));
    out.push_back(std::move(p));
  }
  return out;
}

Result<model::Policy> PolicyService::CreatePolicy(const Caller& caller,
                                                  const std::string& metalake,
                                                  const model::Policy& policy) {
  model::Policy p = policy;
  CAIRN_ASSIGN_OR_RETURN(p.content, Checked(p.policy_type, p.content));
  store::EntityRecord row;
  row.name = p.name;
  row.comment = p.comment;
  row.properties = p.content.properties;
  row.payload = Payload(p);
  CAIRN_ASSIGN_OR_RETURN(store::EntityRecord created,
                         labels_.Create(caller, metalake, std::move(row)));
  return FromRow(created);
}

Result<model::Policy> PolicyService::GetPolicy(const Caller& caller, const std::string& metalake,
                                               const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(store::EntityRecord row, labels_.Get(caller, metalake, name));
  return FromRow(row);
}

Result<model::Policy> PolicyService::AlterPolicy(const Caller& caller,
                                                 const std::string& metalake,
                                                 const std::string& name,
                                                 const std::vector<model::PolicyChange>& changes) {
  auto edit = [&](store::EntityRecord& row) -> Result<bool> {
    CAIRN_ASSIGN_OR_RETURN(model::Policy p, FromRow(row));
    for (size_t i = 0; i < changes.size(); ++i) {
      const auto& change = changes[i];
      switch (change.kind) {
        case model::PolicyChange::Kind::kRename:
          p.name = change.new_name;
          break;
        case model::PolicyChange::Kind::kUpdateComment:
          p.comment = change.comment;
          break;
        case model::PolicyChange::Kind::kUpdateContent: {
          if (change.policy_type != p.policy_type) {
            return InvalidArgument("updates[{}]: Policy type mismatch: expected {} but got {}", i,
                                   p.policy_type, change.policy_type);
          }
          CAIRN_ASSIGN_OR_RETURN(model::PolicyContent content,
                                 Checked(p.policy_type, change.content));
          if (BuiltIn(p.policy_type) &&
              content.supported_object_types != p.content.supported_object_types) {
            return InvalidArgument("updates[{}]: the object types of a {} policy cannot change", i,
                                   p.policy_type);
          }
          p.content = std::move(content);
          break;
        }
      }
    }
    row.name = p.name;
    row.comment = p.comment;
    row.properties = p.content.properties;
    row.payload = Payload(p);
    return true;
  };
  CAIRN_ASSIGN_OR_RETURN(store::EntityRecord row, labels_.Alter(caller, metalake, name, edit));
  return FromRow(row);
}

Status PolicyService::SetEnabled(const Caller& caller, const std::string& metalake,
                                 const std::string& name, bool enabled) {
  auto edit = [&](store::EntityRecord& row) -> Result<bool> {
    CAIRN_ASSIGN_OR_RETURN(model::Policy p, FromRow(row));
    if (p.enabled == enabled) return false;
    p.enabled = enabled;
    row.payload = Payload(p);
    return true;
  };
  CAIRN_RETURN_IF_ERROR(labels_.Alter(caller, metalake, name, edit));
  return Ok();
}

Result<bool> PolicyService::DeletePolicy(const Caller& caller, const std::string& metalake,
                                         const std::string& name) {
  return labels_.Delete(caller, metalake, name);
}

Result<ObjectPage> PolicyService::ObjectsOfPolicy(const Caller& caller,
                                                  const std::string& metalake,
                                                  const std::string& name, int64_t after,
                                                  int limit) {
  return labels_.ObjectsOf(caller, metalake, name, after, limit);
}

Result<std::vector<model::ObjectPolicy>> PolicyService::PoliciesOfObject(
    const Caller& caller, const std::string& metalake, const std::string& type,
    const std::string& full_name) {
  CAIRN_ASSIGN_OR_RETURN(auto found, labels_.OfObject(caller, metalake, type, full_name));
  std::vector<model::ObjectPolicy> out;
  out.reserve(found.size());
  for (const auto& f : found) {
    CAIRN_ASSIGN_OR_RETURN(model::Policy p, FromRow(f.row));
    out.push_back(model::ObjectPolicy{std::move(p), f.inherited});
  }
  return out;
}

Result<std::vector<std::string>> PolicyService::AssociatePolicies(
    const Caller& caller, const std::string& metalake, const std::string& type,
    const std::string& full_name, const std::vector<std::string>& add,
    const std::vector<std::string>& remove) {
  return labels_.Associate(caller, metalake, type, full_name, add, remove);
}

}  // namespace cairn::service
