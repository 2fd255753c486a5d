// SPDX-License-Identifier: Apache-2.0
// Models of the Gravitino API (models.yaml): `.../catalogs/{c}/schemas/{s}/models[/{model}[...]]`,
// their versions by number (`/versions/{version}`) and by alias (`/aliases/{alias}`), and the
// URI lookups (docs/models.md).
#include <optional>

#include "api/gravitino/routes.h"
#include "common/util.h"
#include "model/ml_model.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;
using service::Action;

OrderedJson PropertiesJson(const model::Properties& props) {
  OrderedJson out = OrderedJson::object();
  for (const auto& [k, v] : props) out[k] = v;
  return out;
}

// ModelDTO: null fields left out, as Gravitino writes them.
OrderedJson ModelToJson(const model::Model& m) {
  OrderedJson j{{"name", m.name}};
  if (m.comment) j["comment"] = *m.comment;
  j["properties"] = PropertiesJson(m.properties);
  j["latestVersion"] = m.latest_version;
  j["audit"] = AuditToJson(m.audit);
  return j;
}

// ModelVersionDTO; `uri` is the URI kept under `unknown`, when there is one.
OrderedJson VersionToJson(const model::ModelVersion& v) {
  OrderedJson j{{"version", v.version}};
  if (v.comment) j["comment"] = *v.comment;
  j["aliases"] = v.aliases;
  if (auto it = v.uris.find(std::string(model::kUnknownUriName)); it != v.uris.end()) {
    j["uri"] = it->second;
  }
  OrderedJson uris = OrderedJson::object();
  for (const auto& [name, uri] : v.uris) uris[name] = uri;
  j["uris"] = std::move(uris);
  j["properties"] = PropertiesJson(v.properties);
  j["audit"] = AuditToJson(v.audit);
  return j;
}

// `{version}` of the path: a non-negative integer.
Result<model::VersionRef> VersionOf(const Call& c) {
  const std::string& text = c.Param("version");
  auto number = ParseInt64(text);
  if (!number || *number < 0 || *number > INT32_MAX) {
    return InvalidArgument("Path parameter 'version' must be a non-negative integer, got '{}'",
                           text);
  }
  return model::VersionRef{*number, ""};
}

// `{alias}` of the path; as in Gravitino, an alias that reads as a whole number is that version.
model::VersionRef AliasOf(const Call& c) {
  const std::string& text = c.Param("alias");
  if (auto number = ParseInt64(text); number && *number >= 0) {
    return model::VersionRef{*number, ""};
  }
  return model::VersionRef{std::nullopt, text};
}

Result<model::VersionRef> RefOf(const Call& c) {
  if (!c.Param("version").empty()) return VersionOf(c);
  return AliasOf(c);
}

Result<std::vector<std::string>> StringArray(const Json& body, const char* field) {
  if (IsNullOrAbsent(body, field)) return std::vector<std::string>{};
  return NameListFromJson(body, field);
}

Result<Response> ListModels(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto names, c.objects.ListModels(c.caller, c.Ref(ObjectType::kSchema)));
  return SchemaChildrenReply(c, std::move(names));
}

// ModelRegisterRequest: name (required), comment, properties.
Result<Response> RegisterModel(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  model::Model m;
  CAIRN_ASSIGN_OR_RETURN(m.name, RequiredString(body, "name"));
  c.op.name = m.name;
  CAIRN_ASSIGN_OR_RETURN(m.comment, OptionalString(body, "comment"));
  CAIRN_ASSIGN_OR_RETURN(m.properties, PropertiesFromJson(body, "properties"));
  CAIRN_ASSIGN_OR_RETURN(model::Model registered,
                         c.objects.RegisterModel(c.caller, c.Ref(ObjectType::kSchema), m));
  return Reply(OrderedJson{{"model", ModelToJson(registered)}});
}

Result<Response> GetModel(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Model m, c.objects.GetModel(c.caller, c.Ref(ObjectType::kModel)));
  return Reply(OrderedJson{{"model", ModelToJson(m)}});
}

// setProperty / removeProperty fields shared by models and versions.
Status PropertyChange(const Json& u, bool set, std::string& property, std::string& value) {
  CAIRN_ASSIGN_OR_RETURN(property, RequiredString(u, "property"));
  if (Trim(property).empty()) {
    return InvalidArgument("\"property\" field is required and cannot be empty");
  }
  if (!set) return cairn::Ok();
  auto v = u.find("value");
  if (v == u.end() || !v->is_string()) {
    return InvalidArgument("\"value\" field is required and cannot be null");
  }
  value = v->get<std::string>();
  return cairn::Ok();
}

Result<model::ModelChange> ModelChangeOf(const Json& u, const std::string& type) {
  using Kind = model::ModelChange::Kind;
  model::ModelChange c;
  if (type == "rename") {
    c.kind = Kind::kRename;
    CAIRN_ASSIGN_OR_RETURN(c.new_name, RequiredString(u, "newName"));
  } else if (type == "updateComment") {
    c.kind = Kind::kUpdateComment;
    CAIRN_ASSIGN_OR_RETURN(c.comment, OptionalString(u, "newComment"));
  } else if (type == "setProperty" || type == "removeProperty") {
    c.kind = type == "setProperty" ? Kind::kSetProperty : Kind::kRemoveProperty;
    CAIRN_RETURN_IF_ERROR(PropertyChange(u, c.kind == Kind::kSetProperty, c.property, c.value));
  } else {
    return InvalidArgument("Unknown model update type '{}'", type);
  }
  return c;
}

Result<Response> AlterModel(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto changes, UpdatesOf<model::ModelChange>(body, ModelChangeOf));
  CAIRN_ASSIGN_OR_RETURN(model::Model m,
                         c.objects.AlterModel(c.caller, c.Ref(ObjectType::kModel), changes));
  return Reply(OrderedJson{{"model", ModelToJson(m)}});
}

Result<Response> DeleteModel(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.objects.DeleteModel(c.caller, c.Ref(ObjectType::kModel)));
  return Reply(OrderedJson{{"dropped", dropped}});
}

Result<Response> ListVersions(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto versions,
                         c.objects.ListModelVersions(c.caller, c.Ref(ObjectType::kModel)));
  if (c.Flag("details")) {
    OrderedJson infos = OrderedJson::array();
    for (const auto& v : versions) infos.push_back(VersionToJson(v));
    return Reply(OrderedJson{{"infos", std::move(infos)}});
  }
  OrderedJson numbers = OrderedJson::array();
  for (const auto& v : versions) numbers.push_back(v.version);
  return Reply(OrderedJson{{"versions", std::move(numbers)}});
}

// ModelVersionLinkRequest: uri and/or uris (a plain `uri` is kept under `unknown`), aliases,
// comment, properties.
Result<Response> LinkVersion(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  model::ModelVersion v;
  CAIRN_ASSIGN_OR_RETURN(v.properties, PropertiesFromJson(body, "uris"));
  for (auto& [name, uri] : v.properties) v.uris.emplace(name, uri);
  v.properties.clear();
  CAIRN_ASSIGN_OR_RETURN(auto uri, OptionalString(body, "uri"));
  if (v.uris.empty() && (!uri || Trim(*uri).empty())) {
    return InvalidArgument("\"uri\" field cannot be empty if uris field is null or empty");
  }
  if (uri) v.uris[std::string(model::kUnknownUriName)] = *uri;
  CAIRN_ASSIGN_OR_RETURN(v.aliases, StringArray(body, "aliases"));
  CAIRN_ASSIGN_OR_RETURN(v.comment, OptionalString(body, "comment"));
  CAIRN_ASSIGN_OR_RETURN(v.properties, PropertiesFromJson(body, "properties"));
  CAIRN_ASSIGN_OR_RETURN(model::ModelVersion linked,
                         c.objects.LinkModelVersion(c.caller, c.Ref(ObjectType::kModel), v));
  CAIRN_ASSIGN_OR_RETURN(Response r, Reply(OrderedJson::object()));  // BaseResponse
  r.audit_object = fmt::format("{}.{}.{}.{} version {}", c.Param("metalake"), c.Param("catalog"),
                               c.Param("schema"), c.Param("model"), linked.version);
  return r;
}

Result<Response> GetVersion(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::VersionRef ref, RefOf(c));
  CAIRN_ASSIGN_OR_RETURN(model::ModelVersion v,
                         c.objects.GetModelVersion(c.caller, c.Ref(ObjectType::kModel), ref));
  return Reply(OrderedJson{{"modelVersion", VersionToJson(v)}});
}

Result<model::ModelVersionChange> VersionChangeOf(const Json& u, const std::string& type) {
  using Kind = model::ModelVersionChange::Kind;
  model::ModelVersionChange c;
  if (type == "updateComment") {
    c.kind = Kind::kUpdateComment;
    CAIRN_ASSIGN_OR_RETURN(c.comment, OptionalString(u, "newComment"));
  } else if (type == "setProperty" || type == "removeProperty") {
    c.kind = type == "setProperty" ? Kind::kSetProperty : Kind::kRemoveProperty;
    CAIRN_RETURN_IF_ERROR(PropertyChange(u, c.kind == Kind::kSetProperty, c.property, c.value));
  } else if (type == "updateUri") {
    c.kind = Kind::kUpdateUri;
    CAIRN_ASSIGN_OR_RETURN(c.uri, RequiredString(u, "newUri"));
    CAIRN_ASSIGN_OR_RETURN(auto name, OptionalString(u, "uriName"));
    c.uri_name = name && !Trim(*name).empty() ? *name : std::string(model::kUnknownUriName);
  } else if (type == "addUri") {
    c.kind = Kind::kAddUri;
    CAIRN_ASSIGN_OR_RETURN(c.uri_name, RequiredString(u, "uriName"));
    CAIRN_ASSIGN_OR_RETURN(c.uri, RequiredString(u, "uri"));
  } else if (type == "removeUri") {
    c.kind = Kind::kRemoveUri;
    CAIRN_ASSIGN_OR_RETURN(c.uri_name, RequiredString(u, "uriName"));
  } else if (type == "updateAliases") {
    c.kind = Kind::kUpdateAliases;
    if (IsNullOrAbsent(u, "aliasesToAdd") && IsNullOrAbsent(u, "aliasesToRemove")) {
      return InvalidArgument("At least one of aliasesToAdd or aliasesToRemove must be non-null");
    }
    CAIRN_ASSIGN_OR_RETURN(c.aliases_to_add, StringArray(u, "aliasesToAdd"));
    CAIRN_ASSIGN_OR_RETURN(c.aliases_to_remove, StringArray(u, "aliasesToRemove"));
  } else {
    return InvalidArgument("Unknown model version update type '{}'", type);
  }
  return c;
}

Result<Response> AlterVersion(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::VersionRef ref, RefOf(c));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto changes, UpdatesOf<model::ModelVersionChange>(body, VersionChangeOf));
  CAIRN_ASSIGN_OR_RETURN(
      model::ModelVersion v,
      c.objects.AlterModelVersion(c.caller, c.Ref(ObjectType::kModel), ref, changes));
  return Reply(OrderedJson{{"modelVersion", VersionToJson(v)}});
}

Result<Response> DeleteVersion(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::VersionRef ref, RefOf(c));
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         c.objects.DeleteModelVersion(c.caller, c.Ref(ObjectType::kModel), ref));
  return Reply(OrderedJson{{"dropped", dropped}});
}

Result<Response> GetVersionUri(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::VersionRef ref, RefOf(c));
  std::optional<std::string> name;
  if (auto q = c.request.Query("uriName")) name = std::string(*q);
  CAIRN_ASSIGN_OR_RETURN(std::string uri, c.objects.GetModelVersionUri(
                                              c.caller, c.Ref(ObjectType::kModel), ref, name));
  return Reply(OrderedJson{{"uri", uri}});
}

}  // namespace

std::vector<Route> ModelRoutes() {
  using K = EntityKind;
  constexpr std::nullopt_t kService = std::nullopt;  // the object service decides
  constexpr std::string_view kModels =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/models";
  constexpr std::string_view kModel =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/models/{model}";
  constexpr std::string_view kVersions =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/models/{model}/versions";
  constexpr std::string_view kVersion =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/models/{model}/versions/{version}";
  constexpr std::string_view kVersionUri =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/models/{model}/versions/{version}/"
      "uri";
  constexpr std::string_view kAlias =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/models/{model}/aliases/{alias}";
  constexpr std::string_view kAliasUri =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/models/{model}/aliases/{alias}/"
      "uri";
  return {
      {"GET", api::PathPattern(kModels), K::kModel, "LIST", kService, ListModels},
      // Decided before the body is parsed; the object service decides again on the name.
      {"POST", api::PathPattern(kModels), K::kModel, "REGISTER", Action::kCreateObject,
       RegisterModel},
      {"GET", api::PathPattern(kModel), K::kModel, "GET", kService, GetModel},
      {"PUT", api::PathPattern(kModel), K::kModel, "ALTER", Action::kDropObject, AlterModel},
      {"DELETE", api::PathPattern(kModel), K::kModel, "DELETE", kService, DeleteModel},
      {"GET", api::PathPattern(kVersions), K::kModel, "LIST_VERSIONS", kService, ListVersions},
      {"POST", api::PathPattern(kVersions), K::kModel, "LINK", Action::kWriteObject, LinkVersion},
      {"GET", api::PathPattern(kVersion), K::kModel, "GET", kService, GetVersion},
      {"PUT", api::PathPattern(kVersion), K::kModel, "ALTER", Action::kDropObject, AlterVersion},
      {"DELETE", api::PathPattern(kVersion), K::kModel, "DELETE", kService, DeleteVersion},
      {"GET", api::PathPattern(kVersionUri), K::kModel, "GET", kService, GetVersionUri},
      {"GET", api::PathPattern(kAlias), K::kModel, "GET", kService, GetVersion},
      {"PUT", api::PathPattern(kAlias), K::kModel, "ALTER", Action::kDropObject, AlterVersion},
      {"DELETE", api::PathPattern(kAlias), K::kModel, "DELETE", kService, DeleteVersion},
      {"GET", api::PathPattern(kAliasUri), K::kModel, "GET", kService, GetVersionUri},
  };
}

}  // namespace cairn::api::gravitino
