// SPDX-License-Identifier: Apache-2.0
// Policies of the Gravitino API: `/metalakes/{m}/policies[/{policy}[/objects]]` and the policies
// of a metadata object, `/metalakes/{m}/objects/{type}/{fullName}/policies[/{policy}]`.
#include <algorithm>
#include <cctype>
#include <optional>

#include "api/gravitino/routes.h"
#include "common/util.h"
#include "model/policy.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;
using service::Action;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The built-in policy type names (Gravitino's `BuiltInType.fromPolicyType`, any case).
Result<std::string> PolicyTypeFromJson(const Json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null() || !it->is_string() ||
      Trim(it->get_ref<const std::string&>()).empty()) {
    return InvalidArgument("Field '{}' is required and must be a non-empty string", field);
  }
  const std::string type = Lower(it->get<std::string>());
  if (type == model::kCustomPolicy || type == model::kIcebergCompactionPolicy) return type;
  if (type.starts_with("system_"))
    return InvalidArgument("Unknown built-in policy type: {}", it->get<std::string>());
  return InvalidArgument("Unknown policy type: {}, it should start with 'system_' or be 'custom'",
                         it->get<std::string>());
}

// An optional non-negative (or, with `min` 1, positive) long of the compaction content.
Result<int64_t> ContentLong(const Json& content, const char* field, int64_t fallback, int64_t min) {
  auto it = content.find(field);
  if (it == content.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) {
    return InvalidArgument("Field 'content.{}' must be an integer", field);
  }
  if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(INT64_MAX)) {
    return InvalidArgument("Field 'content.{}' is out of range", field);
  }
  const int64_t v = it->get<int64_t>();
  if (v < min) return InvalidArgument("Field 'content.{}' must be >= {}", field, min);
  return v;
}

bool OptionKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
}

// Gravitino's IcebergCompactionContent: thresholds, weights and rewrite options, defaulted.
Result<model::PolicyContent> CompactionContentFromJson(const Json& content) {
  OrderedJson rules;
  CAIRN_ASSIGN_OR_RETURN(rules["minDataFileMse"],
                         ContentLong(content, "minDataFileMse", 405323966463344LL, 0));
  CAIRN_ASSIGN_OR_RETURN(rules["minDeleteFileNumber"],
                         ContentLong(content, "minDeleteFileNumber", 1, 0));
  CAIRN_ASSIGN_OR_RETURN(rules["dataFileMseWeight"],
                         ContentLong(content, "dataFileMseWeight", 1, 0));
  CAIRN_ASSIGN_OR_RETURN(rules["deleteFileNumberWeight"],
                         ContentLong(content, "deleteFileNumberWeight", 100, 0));
  CAIRN_ASSIGN_OR_RETURN(rules["maxPartitionNum"], ContentLong(content, "maxPartitionNum", 50, 1));
  CAIRN_ASSIGN_OR_RETURN(auto options, PropertiesFromJson(content, "rewriteOptions"));
  OrderedJson opts = OrderedJson::object();
  for (const auto& [key, value] : options) {
    if (key.empty() || !std::all_of(key.begin(), key.end(), OptionKeyChar)) {
      return InvalidArgument("Field 'content.rewriteOptions': key '{}' contains illegal characters",
                             key);
    }
    if (key.starts_with("job.options.")) {
      return InvalidArgument(
          "Field 'content.rewriteOptions': key '{}' must not start with 'job.options.'", key);
    }
    if (Trim(value).empty()) {
      return InvalidArgument("Field 'content.rewriteOptions': option '{}' must have a value", key);
    }
    opts[key] = value;
  }
  rules["rewriteOptions"] = std::move(opts);
  model::PolicyContent out;
  out.rules = rules.dump();
  out.properties = {{"strategy.type", "iceberg-data-compaction"},
                    {"job.template-name", "builtin-iceberg-rewrite-data-files"}};
  return out;  // the object types are the built-in type's (the policy service sets them)
}

// CustomPolicyContent: supportedObjectTypes (required), customRules (any object), properties.
Result<model::PolicyContent> CustomContentFromJson(const Json& content) {
  model::PolicyContent out;
  auto types = content.find("supportedObjectTypes");
  if (types == content.end() || types->is_null()) {
    return InvalidArgument("Field 'content.supportedObjectTypes' is required");
  }
  if (!types->is_array()) {
    return InvalidArgument("Field 'content.supportedObjectTypes' must be an array of types");
  }
  for (size_t i = 0; i < types->size(); ++i) {
    const Json& t = (*types)[i];
    auto kind = t.is_string() ? model::FindKindBySecurable(t.get<std::string>()) : std::nullopt;
    if (!kind) {
      return InvalidArgument(
          "Field 'content.supportedObjectTypes[{}]' is not a metadata object type", i);
    }
    out.supported_object_types.push_back(*kind);
  }
  std::sort(out.supported_object_types.begin(), out.supported_object_types.end());
  out.supported_object_types.erase(
      std::unique(out.supported_object_types.begin(), out.supported_object_types.end()),
      out.supported_object_types.end());
  auto rules = content.find("customRules");
  if (rules != content.end() && !rules->is_null()) {
    if (!rules->is_object())
      return InvalidArgument("Field 'content.customRules' must be an object");
    out.rules = rules->dump();
  }
  auto props = PropertiesFromJson(content, "properties");
  if (!props) return std::move(props).error().WithContext("content");
  out.properties = std::move(*props);
  return out;
}

Result<model::PolicyContent> ContentFromJson(const Json& j, const char* field,
                                             const std::string& policy_type) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) {
    return InvalidArgument("Field '{}' is required and cannot be null", field);
  }
  if (!it->is_object()) return InvalidArgument("Field '{}' must be an object", field);
  if (policy_type == model::kIcebergCompactionPolicy) return CompactionContentFromJson(*it);
  return CustomContentFromJson(*it);
}

OrderedJson ContentToJson(const model::Policy& p) {
  OrderedJson rules = OrderedJson::parse(p.content.rules, nullptr, false);
  if (rules.is_discarded()) rules = OrderedJson::object();
  if (p.policy_type != model::kCustomPolicy) return rules;  // a built-in's fields
  OrderedJson types = OrderedJson::array();
  for (auto t : p.content.supported_object_types) types.push_back(model::Describe(t).name);
  OrderedJson props = OrderedJson::object();
  for (const auto& [k, v] : p.content.properties) props[k] = v;
  return OrderedJson{{"customRules", std::move(rules)},
                     {"supportedObjectTypes", std::move(types)},
                     {"properties", std::move(props)}};
}

// PolicyDTO: `inherited` is null on the policy endpoints and true/false on an object's.
OrderedJson PolicyToJson(const model::Policy& p, std::optional<bool> inherited = std::nullopt) {
  OrderedJson j{{"name", p.name}};
  j["comment"] = p.comment ? OrderedJson(*p.comment) : OrderedJson(nullptr);
  j["policyType"] = p.policy_type;
  j["enabled"] = p.enabled;
  j["content"] = ContentToJson(p);
  j["inherited"] = inherited ? OrderedJson(*inherited) : OrderedJson(nullptr);
  j["audit"] = AuditToJson(p.audit);
  return j;
}

OrderedJson PolicyList(const std::vector<model::Policy>& policies, bool details) {
  if (details) {
    OrderedJson arr = OrderedJson::array();
    for (const auto& p : policies) arr.push_back(PolicyToJson(p));
    return OrderedJson{{"policies", std::move(arr)}};
  }
  std::vector<std::string> names;
  for (const auto& p : policies) names.push_back(p.name);
  return OrderedJson{{"names", names}};
}

Result<Response> ListPolicies(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto policies,
                         c.objects.policies().ListPolicies(c.caller, c.Param("metalake")));
  return Reply(PolicyList(policies, c.Flag("details")));
}

Result<Response> CreatePolicy(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  model::Policy policy;
  CAIRN_ASSIGN_OR_RETURN(policy.name, RequiredString(body, "name"));
  c.op.name = policy.name;
  CAIRN_ASSIGN_OR_RETURN(policy.comment, OptionalString(body, "comment"));
  CAIRN_ASSIGN_OR_RETURN(policy.policy_type, PolicyTypeFromJson(body, "policyType"));
  if (auto it = body.find("enabled"); it != body.end() && !it->is_null()) {
    if (!it->is_boolean()) return InvalidArgument("Field 'enabled' must be a boolean");
    policy.enabled = it->get<bool>();
  }
  CAIRN_ASSIGN_OR_RETURN(policy.content, ContentFromJson(body, "content", policy.policy_type));
  CAIRN_ASSIGN_OR_RETURN(model::Policy created,
                         c.objects.policies().CreatePolicy(c.caller, c.Param("metalake"), policy));
  return Reply(OrderedJson{{"policy", PolicyToJson(created)}});
}

Result<Response> GetPolicy(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(
      model::Policy policy,
      c.objects.policies().GetPolicy(c.caller, c.Param("metalake"), c.Param("policy")));
  return Reply(OrderedJson{{"policy", PolicyToJson(policy)}});
}

// One PolicyUpdateRequest: rename, updateComment, updateContent.
Result<model::PolicyChange> PolicyChangeOf(const Json& u, const std::string& type) {
  model::PolicyChange change;
  if (type == "rename") {
    change.kind = model::PolicyChange::Kind::kRename;
    CAIRN_ASSIGN_OR_RETURN(change.new_name, RequiredString(u, "newName"));
  } else if (type == "updateComment") {
    change.kind = model::PolicyChange::Kind::kUpdateComment;
    CAIRN_ASSIGN_OR_RETURN(change.comment, OptionalString(u, "newComment"));
  } else if (type == "updateContent") {
    change.kind = model::PolicyChange::Kind::kUpdateContent;
    CAIRN_ASSIGN_OR_RETURN(change.policy_type, PolicyTypeFromJson(u, "policyType"));
    CAIRN_ASSIGN_OR_RETURN(change.content, ContentFromJson(u, "newContent", change.policy_type));
  } else {
    return InvalidArgument("Unknown policy update type '{}'", type);
  }
  return change;
}

Result<Response> AlterPolicy(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto changes, UpdatesOf<model::PolicyChange>(body, PolicyChangeOf));
  CAIRN_ASSIGN_OR_RETURN(
      model::Policy policy,
      c.objects.policies().AlterPolicy(c.caller, c.Param("metalake"), c.Param("policy"), changes));
  return Reply(OrderedJson{{"policy", PolicyToJson(policy)}});
}

// PolicySetRequest: `{"enable": bool}`.
Result<Response> SetPolicy(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  auto it = body.find("enable");
  if (it == body.end() || !it->is_boolean()) {
    return InvalidArgument("Field 'enable' is required and must be a boolean");
  }
  c.op.op = it->get<bool>() ? "ENABLE" : "DISABLE";
  CAIRN_RETURN_IF_ERROR(c.objects.policies().SetEnabled(c.caller, c.Param("metalake"),
                                                        c.Param("policy"), it->get<bool>()));
  return Reply(OrderedJson::object());  // BaseResponse
}

Result<Response> DeletePolicy(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.objects.policies().DeletePolicy(
                                           c.caller, c.Param("metalake"), c.Param("policy")));
  return Reply(OrderedJson{{"dropped", dropped}});
}

Result<Response> ObjectsOfPolicy(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(PageRequest page, PageRequestOf(c));
  CAIRN_ASSIGN_OR_RETURN(
      auto objects, c.objects.policies().ObjectsOfPolicy(
                        c.caller, c.Param("metalake"), c.Param("policy"), page.after, page.limit));
  return ObjectPageReply(objects);
}

Result<Response> PoliciesOfObject(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(
      auto policies, c.objects.policies().PoliciesOfObject(c.caller, c.Param("metalake"),
                                                           c.Param("type"), c.Param("fullName")));
  if (c.Flag("details")) {
    OrderedJson arr = OrderedJson::array();
    for (const auto& p : policies) arr.push_back(PolicyToJson(p.policy, p.inherited));
    return Reply(OrderedJson{{"policies", std::move(arr)}});
  }
  std::vector<std::string> names;
  for (const auto& p : policies) names.push_back(p.policy.name);
  return Reply(OrderedJson{{"names", names}});
}

// One policy of an object, found on the object or one of its ancestors.
Result<Response> PolicyOfObject(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(
      auto policies, c.objects.policies().PoliciesOfObject(c.caller, c.Param("metalake"),
                                                           c.Param("type"), c.Param("fullName")));
  for (const auto& p : policies) {
    if (p.policy.name == c.Param("policy")) {
      return Reply(OrderedJson{{"policy", PolicyToJson(p.policy, p.inherited)}});
    }
  }
  return NotFound(EntityKind::kPolicy, "Policy {} does not exist on {} {}", c.Param("policy"),
                  c.Param("type"), c.Param("fullName"));
}

Result<Response> AssociatePolicies(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto add, NameListFromJson(body, "policiesToAdd"));
  CAIRN_ASSIGN_OR_RETURN(auto remove, NameListFromJson(body, "policiesToRemove"));
  if (IsNullOrAbsent(body, "policiesToAdd") && IsNullOrAbsent(body, "policiesToRemove")) {
    return InvalidArgument("Fields 'policiesToAdd' and 'policiesToRemove' cannot both be null");
  }
  CAIRN_ASSIGN_OR_RETURN(auto names, c.objects.policies().AssociatePolicies(
                                         c.caller, c.Param("metalake"), c.Param("type"),
                                         c.Param("fullName"), add, remove));
  return Reply(OrderedJson{{"names", names}});
}

}  // namespace

std::vector<Route> PolicyRoutes() {
  using K = EntityKind;
  constexpr std::nullopt_t kService = std::nullopt;  // the policy service decides
  constexpr std::string_view kPolicies = "/metalakes/{metalake}/policies";
  constexpr std::string_view kPolicy = "/metalakes/{metalake}/policies/{policy}";
  constexpr std::string_view kPolicyObjects = "/metalakes/{metalake}/policies/{policy}/objects";
  constexpr std::string_view kObjectPolicies =
      "/metalakes/{metalake}/objects/{type}/{fullName}/policies";
  constexpr std::string_view kObjectPolicy =
      "/metalakes/{metalake}/objects/{type}/{fullName}/policies/{policy}";
  return {
      {"GET", api::PathPattern(kPolicies), K::kPolicy, "LIST", kService, ListPolicies},
      // Decided before the body is parsed; the policy service decides again.
      {"POST", api::PathPattern(kPolicies), K::kPolicy, "CREATE", Action::kCreatePolicy,
       CreatePolicy},
      {"GET", api::PathPattern(kPolicy), K::kPolicy, "GET", kService, GetPolicy},
      {"PUT", api::PathPattern(kPolicy), K::kPolicy, "ALTER", kService, AlterPolicy},
      {"PATCH", api::PathPattern(kPolicy), K::kPolicy, "", kService, SetPolicy},
      {"DELETE", api::PathPattern(kPolicy), K::kPolicy, "DELETE", kService, DeletePolicy},
      {"GET", api::PathPattern(kPolicyObjects), K::kPolicy, "LIST", kService, ObjectsOfPolicy},
      {"GET", api::PathPattern(kObjectPolicies), K::kPolicy, "LIST", kService, PoliciesOfObject},
      {"POST", api::PathPattern(kObjectPolicies), K::kPolicy, "ASSOCIATE", kService,
       AssociatePolicies},
      {"GET", api::PathPattern(kObjectPolicy), K::kPolicy, "GET", kService, PolicyOfObject},
  };
}

}  // namespace cairn::api::gravitino
