// SPDX-License-Identifier: Apache-2.0
#include "api/iceberg/iceberg_api.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "api/iceberg/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "connector/iceberg/iceberg_proxy.h"
#include "iceberg/table_metadata.h"
#include "json/json_util.h"

namespace cairn::api::iceberg {

namespace {

using connector::IcebergCatalog;
using connector::LoadedObject;
using connector::Namespace;
using http::Request;
using http::Response;
using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr char kSeparator = '\x1f';

const std::vector<std::string>& Endpoints() {
  static const std::vector<std::string> endpoints = {
      "GET /v1/{prefix}/namespaces",
      "POST /v1/{prefix}/namespaces",
      "GET /v1/{prefix}/namespaces/{namespace}",
      "HEAD /v1/{prefix}/namespaces/{namespace}",
      "DELETE /v1/{prefix}/namespaces/{namespace}",
      "POST /v1/{prefix}/namespaces/{namespace}/properties",
      "GET /v1/{prefix}/namespaces/{namespace}/tables",
      "POST /v1/{prefix}/namespaces/{namespace}/tables",
      "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      "POST /v1/{prefix}/namespaces/{namespace}/register",
      "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
      "POST /v1/{prefix}/tables/rename",
      "POST /v1/{prefix}/transactions/commit",
      "GET /v1/{prefix}/namespaces/{namespace}/views",
      "POST /v1/{prefix}/namespaces/{namespace}/views",
      "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
      "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
      "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
      "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
      "POST /v1/{prefix}/views/rename",
      "POST /v1/{prefix}/namespaces/{namespace}/register-view",
      "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
  };
  return endpoints;
}

Response JsonResponse(const OrderedJson& body, int status = 200) {
  Response r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

Response NoContent() {
  Response r;
  r.status = 204;
  r.content_type.clear();
  return r;
}

// Form decoding of one path segment: '+' is a space (the Java client), then %XX.
std::optional<std::string> DecodeSegment(std::string_view raw) {
  std::string s(raw);
  for (char& c : s) {
    if (c == '+') c = ' ';
  }
  return PercentDecode(s);
}

Namespace SplitNamespace(const std::string& text) { return Split(text, kSeparator); }

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string ETagFor(const std::string& metadata_location, std::string_view mode) {
  return fmt::format("\"{:016x}\"", Fnv1a(metadata_location + "|" + std::string(mode)));
}

bool MatchesIfNoneMatch(const Request& r, const std::string& etag) {
  auto h = r.Header("If-None-Match");
  if (!h) return false;
  if (Trim(*h) == "*") return true;
  for (const auto& part : Split(*h, ',')) {
    std::string_view p = Trim(part);
    if (p.rfind("W/", 0) == 0) p.remove_prefix(2);
    if (p == etag) return true;
  }
  return false;
}

Result<Json> ParseObject(const std::string& body) {
  CAIRN_ASSIGN_OR_RETURN(Json j,
                         json::ParseJson(body, "Malformed request: the body is not valid JSON"));
  if (!j.is_object()) return InvalidArgument("Malformed request: the body must be a JSON object");
  return j;
}

Result<Namespace> NamespaceFromJson(const Json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end() || !it->is_array())
    return InvalidArgument("Invalid field '{}': expected an array of strings", field);
  Namespace ns;
  for (const auto& level : *it) {
    if (!level.is_string())
      return InvalidArgument("Invalid field '{}': expected an array of strings", field);
    ns.push_back(level.get<std::string>());
  }
  return ns;
}

Result<model::Properties> StringMap(const Json& j, const char* field) {
  model::Properties out;
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_object())
    return InvalidArgument("Invalid field '{}': expected an object of strings", field);
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string())
      return InvalidArgument("Invalid field '{}.{}': expected a string", field, k);
    out[k] = v.get<std::string>();
  }
  return out;
}

// `where` prefixes the field names in errors (e.g. "table-changes[2].").
Result<std::pair<Namespace, std::string>> IdentifierFromJson(const Json& j, const char* field,
                                                             const std::string& where = "") {
  auto it = j.find(field);
  if (it == j.end() || !it->is_object())
    return InvalidArgument("Invalid field '{}{}': expected a table identifier", where, field);
  auto ns = NamespaceFromJson(*it, "namespace");
  if (!ns) {
    return InvalidArgument("Invalid field '{}{}.namespace': expected an array of strings", where,
                           field);
  }
  auto name = it->find("name");
  if (name == it->end() || !name->is_string()) {
    return InvalidArgument("Invalid field '{}{}.name': expected a string", where, field);
  }
  return std::make_pair(std::move(*ns), name->get<std::string>());
}

// A request that does not have the protocol's shape (malformed JSON, a missing or wrongly typed
// field): 400 BadRequestException, as Java's reference server answers a request it cannot parse.
Response BadRequest(const Error& error) {
  return PlainErrorResponse(400, "BadRequestException", error.message);
}

// The readers below name the field in every error; none of them throws on any JSON value.
Result<std::string> RequiredString(const Json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) {
    return InvalidArgument("Missing field '{}': expected a string", field);
  }
  if (!it->is_string()) return InvalidArgument("Invalid field '{}': expected a string", field);
  return it->get<std::string>();
}

Status OptionalOfType(const Json& j, const char* field, bool (Json::*is)() const noexcept,
                      const char* expected) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null() || ((*it).*is)()) return Ok();
  return InvalidArgument("Invalid field '{}': expected {}", field, expected);
}

Result<bool> OptionalBool(const Json& j, const char* field, bool fallback) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return InvalidArgument("Invalid field '{}': expected a boolean", field);
  return it->get<bool>();
}

// The top-level members of a CreateTableRequest or CreateViewRequest that this layer checks
// before the catalog reads the request (nested schema fields are checked where they are parsed).
Status CheckCreateRequest(const Json& body, bool view) {
  CAIRN_RETURN_IF_ERROR(RequiredString(body, "name"));
  CAIRN_RETURN_IF_ERROR(OptionalOfType(body, "location", &Json::is_string, "a string"));
  CAIRN_RETURN_IF_ERROR(StringMap(body, "properties"));
  if (view) {
    for (const char* field : {"schema", "view-version"}) {
      auto it = body.find(field);
      if (it == body.end() || it->is_null()) {
        return InvalidArgument("Missing field '{}': expected an object", field);
      }
      if (!it->is_object()) return InvalidArgument("Invalid field '{}': expected an object", field);
    }
    return Ok();
  }
  auto schema = body.find("schema");
  if (schema == body.end() || schema->is_null()) {
    return InvalidArgument("Missing field 'schema': expected an object");
  }
  if (!schema->is_object()) return InvalidArgument("Invalid field 'schema': expected an object");
  CAIRN_RETURN_IF_ERROR(OptionalOfType(body, "partition-spec", &Json::is_object, "an object"));
  CAIRN_RETURN_IF_ERROR(OptionalOfType(body, "write-order", &Json::is_object, "an object"));
  CAIRN_RETURN_IF_ERROR(OptionalBool(body, "stage-create", false));
  return Ok();
}

OrderedJson NamespaceJson(const Namespace& ns) {
  OrderedJson a = OrderedJson::array();
  for (const auto& l : ns) a.push_back(l);
  return a;
}

OrderedJson PropertiesJson(const model::Properties& p) {
  OrderedJson o = OrderedJson::object();
  for (const auto& [k, v] : p) o[k] = v;
  return o;
}

// `{"metadata-location": ..., "metadata": <file text verbatim>, "config": {}}`: the stored
// document is spliced into the response by reference (shared with the metadata file cache), never
// parsed, re-serialized or copied. `metadata_override` (a filtered document) is copied instead.
void SetLoadResult(Response& r, const LoadedObject& obj, bool with_config,
                   const std::string* metadata_override, const std::string* access = nullptr) {
  std::string& head = r.body;
  head.clear();
  head += "{";
  if (!obj.metadata_location.empty()) {
    head += "\"metadata-location\":";
    cairn::json::AppendQuoted(head, obj.metadata_location);
    head += ",";
  }
  head += "\"metadata\":";
  std::string& tail = metadata_override != nullptr ? head : r.body_tail;
  if (metadata_override != nullptr) {
    head += *metadata_override;
  } else {
    r.spliced = obj.metadata_text;
  }
  if (access != nullptr && !access->empty()) {
    tail += ",";
    tail += *access;  // `"config":{...},"storage-credentials":[...]`
  } else if (with_config) {
    tail += ",\"config\":{}";
  }
  tail += "}";
}

// Client-side storage settings a catalog hands out (never secrets): the S3 endpoint and
// addressing style, so a client configured with nothing but the catalog URI can reach storage.
OrderedJson StorageDefaults(const storage::StorageOptions& storage) {
  OrderedJson out = OrderedJson::object();
  if (storage.s3.endpoint.empty()) return out;
  out["s3.endpoint"] = storage.s3.endpoint;
  out["s3.path-style-access"] = storage.s3.path_style ? "true" : "false";
  out["s3.region"] = storage.s3.region;
  out["client.region"] = storage.s3.region;
  return out;
}

bool WantsVendedCredentials(const Request& request) {
  auto header = request.Header("X-Iceberg-Access-Delegation");
  if (!header) return false;
  for (const auto& part : Split(*header, ',')) {
    if (EqualsIgnoreCase(Trim(part), "vended-credentials")) return true;
  }
  return false;
}

// The `config` and `storage-credentials` members of a load result carrying vended keys for the
// table's locations. Empty when the catalog vends nothing.
Result<std::string> VendedAccessText(IcebergCatalog& catalog, const std::string& metadata_text,
                                     bool write, int64_t now_ms, std::string& note) {
  auto& vendor = catalog.credentials();
  if (!vendor.enabled()) return std::string();
  std::vector<std::string> locations = cairn::iceberg::StorageLocations(metadata_text);
  std::erase_if(locations, [](const std::string& l) { return l.rfind("s3", 0) != 0; });
  if (locations.empty()) return std::string();
  CAIRN_ASSIGN_OR_RETURN(
      auto creds,
      vendor.Vend(locations, write ? storage::AccessLevel::kReadWrite : storage::AccessLevel::kRead,
                  now_ms));
  OrderedJson config = StorageDefaults(catalog.storage());
  for (const auto& c : creds) {
    config["s3.access-key-id"] = c.info.at("s3-access-key-id");
    config["s3.secret-access-key"] = c.info.at("s3-secret-access-key");
    if (auto t = c.info.find("s3-session-token"); t != c.info.end()) {
      config["s3.session-token"] = t->second;
      config["s3.session-token-expires-at-ms"] = std::to_string(c.expire_time_ms);
    }
  }
  OrderedJson storage_credentials = OrderedJson::array();
  for (const auto& loc : locations) {
    storage_credentials.push_back({{"prefix", loc}, {"config", config}});
  }
  note = fmt::format("vended {} {} credentials for {}", Join(vendor.providers(), ","),
                     write ? "read-write" : "read-only", Join(locations, ","));
  return "\"config\":" + config.dump() + ",\"storage-credentials\":" + storage_credentials.dump();
}

// Keeps only the snapshots that a branch or tag points to (snapshots=refs).
std::string RefsOnly(const std::string& text) {
  OrderedJson m = json::ParseOrderedJsonOrDiscarded(text);
  if (m.is_discarded() || !m.contains("snapshots")) return text;
  std::vector<int64_t> keep;
  if (m.contains("refs") && m["refs"].is_object()) {
    for (const auto& [name, ref] : m["refs"].items()) {
      if (ref.contains("snapshot-id") && ref["snapshot-id"].is_number_integer()) {
        keep.push_back(ref["snapshot-id"].get<int64_t>());
      }
    }
  }
  OrderedJson snapshots = OrderedJson::array();
  for (const auto& s : m["snapshots"]) {
    if (s.contains("snapshot-id") &&
        std::find(keep.begin(), keep.end(), s["snapshot-id"].get<int64_t>()) != keep.end()) {
      snapshots.push_back(s);
    }
  }
  m["snapshots"] = std::move(snapshots);
  return m.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// HEAD answers: 204 when the lookup succeeded, else the error's status with no body.
template <typename T>
Response ExistsResponse(const Result<T>& lookup) {
  if (lookup) return NoContent();
  Response r = ErrorResponse(lookup.error());
  r.body.clear();
  return r;
}

// Every element of `list` (the member `field` of a request) is an object whose `key` is a string:
// the requirement `type` or update `action` that the commit engine dispatches on.
Status CheckTaggedObjects(const Json& list, std::string_view field, const char* key) {
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& e = list[i];
    if (!e.is_object()) {
      return InvalidArgument("Invalid field '{}[{}]': expected an object", field, i);
    }
    auto k = e.find(key);
    if (k == e.end() || k->is_null()) {
      return InvalidArgument("Missing field '{}[{}].{}'", field, i, key);
    }
    if (!k->is_string()) {
      return InvalidArgument("Invalid field '{}[{}].{}': expected a string", field, i, key);
    }
  }
  return Ok();
}

// The `requirements` and `updates` arrays of a commit request (absent or null: empty), each an
// array of objects tagged with a string `type` / `action`. `where` prefixes the field names in
// errors (e.g. "table-changes[2].").
Result<std::pair<Json, Json>> CommitParts(const Json& body, const std::string& where = "") {
  Json requirements = Json::array();
  Json updates = Json::array();
  if (auto r = body.find("requirements"); r != body.end() && !r->is_null()) requirements = *r;
  if (auto u = body.find("updates"); u != body.end() && !u->is_null()) updates = *u;
  if (!requirements.is_array()) {
    return InvalidArgument("Invalid field '{}requirements': expected an array", where);
  }
  if (!updates.is_array()) {
    return InvalidArgument("Invalid field '{}updates': expected an array", where);
  }
  CAIRN_RETURN_IF_ERROR(CheckTaggedObjects(requirements, where + "requirements", "type"));
  CAIRN_RETURN_IF_ERROR(CheckTaggedObjects(updates, where + "updates", "action"));
  return std::make_pair(std::move(requirements), std::move(updates));
}

struct Ctx {
  const Request& request;
  connector::CallContext call;
};

}  // namespace

IcebergApi::IcebergApi(service::MetadataService& service, service::Authorizer& authorizer,
                       IcebergApiOptions options)
    : service_(service), authz_(authorizer), options_(std::move(options)) {}

Response IcebergApi::Handle(const Request& request, const governance::Principal& principal) const {
  try {
    return Dispatch(request, principal);
  } catch (const nlohmann::json::exception& e) {
    // A reader that trusted a field's JSON type. The client learns only that its request was
    // malformed; the library's text (which names no field) is for the server log.
    spdlog::warn("event=json_type_error interface=iceberg request_id={} method={} path=\"{}\" "
                 "error=\"{}\"",
                 request.request_id, request.method, request.path, e.what());
    return PlainErrorResponse(
        400, "BadRequestException",
        "Malformed request: a field of the request body has the wrong JSON type");
  }
}

Response IcebergApi::Dispatch(const Request& request,
                              const governance::Principal& principal) const {
  using governance::ObjectType;
  using service::Action;
  std::vector<std::string> seg;
  for (const auto& raw :
       Split(std::string_view(request.path).substr(std::string_view("/iceberg").size()), '/')) {
    if (raw.empty()) continue;
    auto decoded = DecodeSegment(raw);
    if (!decoded)
      return PlainErrorResponse(400, "BadRequestException",
                                "Malformed percent-encoding in the request path");
    seg.push_back(std::move(*decoded));
  }
  const std::string& method = request.method;
  Ctx ctx{request, {principal.user, NowMillis()}};
  auto fail = [](const Error& e) { return ErrorResponse(e); };
  auto not_found = [&] {
    return PlainErrorResponse(404, "NotFoundException",
                              fmt::format("No route for request: {} {}", method, request.path));
  };
  auto not_allowed = [&] {
    return PlainErrorResponse(405, "MethodNotAllowedException",
                              fmt::format("Method {} is not allowed on {}", method, request.path));
  };
  if (seg.empty() || seg[0] != "v1") return not_found();
  const size_t n = seg.size();

  auto resolve_warehouse =
      [&](const std::string& warehouse) -> Result<std::pair<std::string, std::string>> {
    const size_t dot = warehouse.find('.');
    if (dot == std::string::npos) {
      if (options_.default_metalake.empty()) {
        return InvalidArgument("Invalid warehouse '{}': expected '<metalake>.<catalog>'",
                               warehouse);
      }
      return std::make_pair(options_.default_metalake, warehouse);
    }
    return std::make_pair(warehouse.substr(0, dot), warehouse.substr(dot + 1));
  };
  std::shared_ptr<connector::Connector> holder;  // keeps the connector alive for this request
  connector::IcebergProxy* proxy = nullptr;      // set when the catalog is federated
  auto open = [&](const std::string& prefix) -> Result<IcebergCatalog*> {
    CAIRN_ASSIGN_OR_RETURN(auto names, resolve_warehouse(prefix));
    CAIRN_ASSIGN_OR_RETURN(holder, service_.OpenCatalog(names.first, names.second));
    proxy = holder->AsIcebergProxy();
    if (proxy != nullptr) return nullptr;
    IcebergCatalog* catalog = holder->AsIcebergCatalog();
    if (catalog == nullptr) {
      return InvalidArgument("Catalog '{}' is not a lakehouse-iceberg catalog", prefix);
    }
    return catalog;
  };

  // The authorize stage: one decision for every route, before any store write.
  auto guard = [&](const std::string& prefix, Action action, const Namespace& ns = {},
                   const std::string& object = "",
                   ObjectType type = ObjectType::kTable) -> std::optional<Response> {
    if (!authz_.enabled()) return std::nullopt;
    auto names = resolve_warehouse(prefix);
    if (!names) return fail(names.error());
    auto target = authz_.Resolve(names->first, names->second, ns, object, type);
    if (!target) return fail(target.error());
    auto s = authz_.Check(principal, action, *target);
    if (!s) return fail(s.error());
    return std::nullopt;
  };
  // Vended keys for a table the caller may load, when the client asked for them: read-write
  // when the caller may also modify the table, read-only otherwise. Sets `access` to the
  // members to splice into the load result and notes the vend for the audit record.
  auto vend = [&](const std::string& prefix, IcebergCatalog& catalog, const Namespace& ns,
                  const std::string& name, const std::string& metadata_text, std::string& access,
                  std::string& note) -> std::optional<Response> {
    const bool write = !guard(prefix, Action::kModifyTable, ns, name).has_value();
    auto text = VendedAccessText(catalog, metadata_text, write, ctx.call.now_ms, note);
    if (!text) return fail(text.error());
    access = std::move(*text);
    return std::nullopt;
  };
  auto visible = [&](const std::string& prefix, Action action, const Namespace& ns,
                     std::vector<std::string> names,
                     const std::vector<store::EntityRecord>* rows =
                         nullptr) -> Result<std::vector<std::string>> {
    if (!authz_.enabled()) return names;
    CAIRN_ASSIGN_OR_RETURN(auto wh, resolve_warehouse(prefix));
    CAIRN_ASSIGN_OR_RETURN(
        auto target,
        authz_.Resolve(wh.first, wh.second, ns, "",
                       action == Action::kLoadView ? ObjectType::kView : ObjectType::kTable));
    if (action == Action::kLoadView) target.object_type = ObjectType::kView;
    return authz_.Filter(principal, action, target, std::move(names), rows);
  };

  // ---- config ----
  if (n == 2 && seg[1] == "config") {
    if (method != "GET") return not_allowed();
    auto warehouse = request.Query("warehouse");
    if (!warehouse || warehouse->empty()) {
      return PlainErrorResponse(
          400, "BadRequestException",
          "Missing query parameter 'warehouse': expected '<metalake>.<catalog>'");
    }
    auto names = resolve_warehouse(*warehouse);
    if (!names) return fail(names.error());
    auto catalog = open(*warehouse);
    if (!(proxy != nullptr && !proxy->options().check_privileges)) {
      if (auto d = guard(*warehouse, Action::kLoadCatalog)) return *d;
    }
    if (proxy != nullptr) {
      return FederatedConfig(request, names->first + "." + names->second, *proxy);
    }
    if (!catalog) return fail(catalog.error());
    OrderedJson body;
    body["defaults"] = StorageDefaults((*catalog)->storage());
    body["overrides"] = OrderedJson{{"prefix", names->first + "." + names->second}};
    body["endpoints"] = Endpoints();
    return JsonResponse(body);
  }
  if (n == 3 && seg[1] == "oauth" && seg[2] == "tokens") {
    return PlainErrorResponse(
        400, "BadRequestException",
        "This server does not issue OAuth2 tokens; use your identity provider");
  }
  if (n < 3) return not_found();
  const std::string& prefix = seg[1];
  // A federated catalog that leaves access control to its remote is not checked here; every
  // other catalog is authorized before anything else (a missing one is a denial, not a 404).
  auto catalog_r = open(prefix);
  if (!(proxy != nullptr && !proxy->options().check_privileges)) {
    if (auto d = guard(prefix, Action::kLoadCatalog)) return *d;
  }
  if (!catalog_r) return fail(catalog_r.error());
  if (proxy != nullptr) {
    auto names = resolve_warehouse(prefix);
    if (!names) return fail(names.error());
    return Forward(request, principal, *names, *proxy, holder->TrackedRows(), seg);
  }
  IcebergCatalog& catalog = **catalog_r;
  const std::string& area = seg[2];

  // ---- top-level actions ----
  if (n == 4 && (area == "tables" || area == "views") && seg[3] == "rename") {
    if (method != "POST") return not_allowed();
    const bool view = area == "views";
    const ObjectType type = view ? ObjectType::kView : ObjectType::kTable;
    auto body = ParseObject(request.body);
    if (!body) return BadRequest(body.error());
    auto source = IdentifierFromJson(*body, "source");
    if (!source) return BadRequest(source.error());
    auto dest = IdentifierFromJson(*body, "destination");
    if (!dest) return BadRequest(dest.error());
    if (auto d = guard(prefix, view ? Action::kManageView : Action::kDropTable, source->first,
                       source->second, type)) {
      return *d;
    }
    if (auto d = guard(prefix, view ? Action::kCreateView : Action::kCreateTable, dest->first,
                       dest->second, type)) {
      return *d;
    }
    auto s = view ? catalog.RenameView(ctx.call, source->first, source->second, dest->first,
                                       dest->second)
                  : catalog.RenameTable(ctx.call, source->first, source->second, dest->first,
                                        dest->second);
    if (!s) return fail(s.error());
    return NoContent();
  }
  if (n == 4 && area == "transactions" && seg[3] == "commit") {
    if (method != "POST") return not_allowed();
    auto body = ParseObject(request.body);
    if (!body) return BadRequest(body.error());
    auto changes = body->find("table-changes");
    if (changes == body->end() || !changes->is_array()) {
      return BadRequest(InvalidArgument("Invalid field 'table-changes': expected an array"));
    }
    std::vector<connector::TableCommit> commits;
    for (size_t i = 0; i < changes->size(); ++i) {
      const Json& change = (*changes)[i];
      const std::string where = fmt::format("table-changes[{}].", i);
      if (!change.is_object()) {
        return BadRequest(
            InvalidArgument("Invalid field 'table-changes[{}]': expected an object", i));
      }
      auto id = IdentifierFromJson(change, "identifier", where);
      if (!id) return BadRequest(id.error());
      auto parts = CommitParts(change, where);
      if (!parts) return BadRequest(parts.error());
      connector::TableCommit c{id->first, id->second, std::move(parts->first),
                               std::move(parts->second)};
      if (auto d = guard(prefix, Action::kModifyTable, c.ns, c.name)) return *d;
      commits.push_back(std::move(c));
    }
    auto s = catalog.CommitTransaction(ctx.call, commits);
    if (!s) return fail(s.error());
    return NoContent();
  }
  if (area != "namespaces") return not_found();

  // ---- namespaces ----
  if (n == 3) {
    if (method == "GET") {
      Namespace parent;
      if (auto p = request.Query("parent"); p && !p->empty()) parent = SplitNamespace(*p);
      if (!parent.empty()) {
        if (auto d = guard(prefix, Action::kLoadSchema, parent)) return *d;
      }
      auto list = catalog.ListNamespaces(parent);
      if (!list) return fail(list.error());
      if (authz_.enabled() && parent.empty()) {
        std::vector<std::string> names;
        for (const auto& ns : *list) names.push_back(ns.back());
        auto kept = visible(prefix, Action::kLoadSchema, {}, names);
        if (!kept) return fail(kept.error());
        const std::set<std::string> keep(kept->begin(), kept->end());
        list->erase(std::remove_if(list->begin(), list->end(),
                                   [&](const Namespace& ns) { return keep.count(ns.back()) == 0; }),
                    list->end());
      }
      OrderedJson arr = OrderedJson::array();
      // Page over the joined names (namespaces per parent are few; the store lists them in order).
      const std::string token = request.Query("pageToken").value_or("");
      const int page_size =
          static_cast<int>(ParseInt64(request.Query("pageSize").value_or("")).value_or(0));
      size_t start = 0;
      if (!token.empty()) {
        while (start < list->size() && Join((*list)[start], "\x1f") <= token) ++start;
      }
      size_t end = list->size();
      if (page_size > 0) end = std::min(end, start + static_cast<size_t>(page_size));
      for (size_t i = start; i < end; ++i) arr.push_back(NamespaceJson((*list)[i]));
      OrderedJson body{{"namespaces", std::move(arr)}};
      if (end < list->size()) body["next-page-token"] = Join((*list)[end - 1], "\x1f");
      return JsonResponse(body);
    }
    if (method == "POST") {
      auto body = ParseObject(request.body);
      if (!body) return BadRequest(body.error());
      auto ns = NamespaceFromJson(*body, "namespace");
      if (!ns) return BadRequest(ns.error());
      auto props = StringMap(*body, "properties");
      if (!props) return BadRequest(props.error());
      if (auto d = guard(prefix, Action::kCreateSchema, *ns)) return *d;
      auto created = catalog.CreateNamespace(ctx.call, *ns, *props);
      if (!created) return fail(created.error());
      return JsonResponse(
          OrderedJson{{"namespace", NamespaceJson(*ns)}, {"properties", PropertiesJson(*created)}});
    }
    return not_allowed();
  }
  const Namespace ns = SplitNamespace(seg[3]);
  if (n == 4) {
    if (method == "GET" || method == "HEAD") {
      if (auto d = guard(prefix, Action::kLoadSchema, ns)) return *d;
    } else if (method == "DELETE") {
      if (auto d = guard(prefix, Action::kManageSchema, ns)) return *d;
    }
    if (method == "GET") {
      auto props = catalog.LoadNamespace(ns);
      if (!props) return fail(props.error());
      return JsonResponse(
          OrderedJson{{"namespace", NamespaceJson(ns)}, {"properties", PropertiesJson(*props)}});
    }
    if (method == "HEAD") return ExistsResponse(catalog.LoadNamespace(ns));
    if (method == "DELETE") {
      auto s = catalog.DropNamespace(ns);
      if (!s) return fail(s.error());
      return NoContent();
    }
    return not_allowed();
  }
  const std::string& sub = seg[4];
  if (n == 5 && sub == "properties") {
    if (method != "POST") return not_allowed();
    auto body = ParseObject(request.body);
    if (!body) return BadRequest(body.error());
    std::vector<std::string> removals;
    if (auto r = body->find("removals"); r != body->end() && !r->is_null()) {
      if (!r->is_array())
        return BadRequest(
            InvalidArgument("Invalid field 'removals': expected an array of strings"));
      for (const auto& k : *r) {
        if (!k.is_string())
          return BadRequest(
              InvalidArgument("Invalid field 'removals': expected an array of strings"));
        removals.push_back(k.get<std::string>());
      }
    }
    auto updates = StringMap(*body, "updates");
    if (!updates) return BadRequest(updates.error());
    if (auto d = guard(prefix, Action::kManageSchema, ns)) return *d;
    auto result = catalog.UpdateNamespaceProperties(ctx.call, ns, removals, *updates);
    if (!result) return fail(result.error());
    return JsonResponse(OrderedJson{
        {"updated", result->updated}, {"removed", result->removed}, {"missing", result->missing}});
  }
  const bool views = sub == "views";
  if (n == 5 && (sub == "tables" || views)) {
    if (method == "GET") {
      const std::string token = request.Query("pageToken").value_or("");
      const int page_size =
          static_cast<int>(ParseInt64(request.Query("pageSize").value_or("")).value_or(0));
      if (auto d = guard(prefix, Action::kLoadSchema, ns)) return *d;
      auto page = views ? catalog.ListViews(ns, token, page_size)
                        : catalog.ListTables(ns, token, page_size);
      if (!page) return fail(page.error());
      auto kept = visible(prefix, views ? Action::kLoadView : Action::kLoadTable, ns,
                          std::move(page->names), &page->rows);
      if (!kept) return fail(kept.error());
      page->names = std::move(*kept);
      OrderedJson ids = OrderedJson::array();
      for (const auto& name : page->names)
        ids.push_back(OrderedJson{{"namespace", NamespaceJson(ns)}, {"name", name}});
      OrderedJson body{{"identifiers", std::move(ids)}};
      if (page->next_token) body["next-page-token"] = *page->next_token;
      return JsonResponse(body);
    }
    if (method == "POST") {
      // The create privilege does not depend on the body: decided before it is parsed.
      if (auto d = guard(prefix, views ? Action::kCreateView : Action::kCreateTable, ns, "",
                         views ? ObjectType::kView : ObjectType::kTable)) {
        return *d;
      }
      auto body = ParseObject(request.body);
      if (!body) return BadRequest(body.error());
      if (auto valid = CheckCreateRequest(*body, views); !valid) return BadRequest(valid.error());
      const std::string new_name = (*body)["name"].get<std::string>();
      if (auto d = guard(prefix, views ? Action::kCreateView : Action::kCreateTable, ns, new_name,
                         views ? ObjectType::kView : ObjectType::kTable)) {
        return *d;
      }
      if (views) {
        auto created = catalog.CreateView(ctx.call, ns, *body);
        if (!created) return fail(created.error());
        Response r;
        SetLoadResult(r, *created, true, nullptr);
        return r;
      }
      const bool stage = *OptionalBool(*body, "stage-create", false);
      auto created = catalog.CreateTable(ctx.call, ns, *body, stage);
      if (!created) return fail(created.error());
      Response r;
      std::string access;
      if (WantsVendedCredentials(request)) {
        if (auto d = vend(prefix, catalog, ns, new_name, *created->metadata_text, access,
                          r.audit_note)) {
          return *d;
        }
      }
      SetLoadResult(r, *created, true, nullptr, &access);
      if (!stage) r.headers.emplace_back("ETag", ETagFor(created->metadata_location, "all"));
      return r;
    }
    return not_allowed();
  }
  if (n == 5 && (sub == "register" || sub == "register-view")) {
    if (method != "POST") return not_allowed();
    auto body = ParseObject(request.body);
    if (!body) return BadRequest(body.error());
    auto name = RequiredString(*body, "name");
    if (!name) return BadRequest(name.error());
    auto loc = RequiredString(*body, "metadata-location");
    if (!loc) return BadRequest(loc.error());
    auto overwrite = OptionalBool(*body, "overwrite", false);
    if (!overwrite) return BadRequest(overwrite.error());
    if (auto d = guard(prefix, sub == "register" ? Action::kCreateTable : Action::kCreateView, ns,
                       *name, sub == "register" ? ObjectType::kTable : ObjectType::kView)) {
      return *d;
    }
    auto registered = sub == "register"
                          ? catalog.RegisterTable(ctx.call, ns, *name, *loc, *overwrite)
                          : catalog.RegisterView(ctx.call, ns, *name, *loc);
    if (!registered) return fail(registered.error());
    Response r;
    SetLoadResult(r, *registered, true, nullptr);
    return r;
  }
  if ((sub != "tables" && !views) || n < 6) return not_found();
  const std::string& name = seg[5];
  if (n == 7 && sub == "tables" && seg[6] == "credentials") {
    if (method != "GET") return not_allowed();
    if (auto d = guard(prefix, Action::kLoadTable, ns, name)) return *d;
    auto table = catalog.LoadTable(ns, name);
    if (!table) return fail(table.error());
    Response r;
    std::string access;
    if (auto d = vend(prefix, catalog, ns, name, *table->metadata_text, access, r.audit_note)) {
      return *d;
    }
    // `access` is `"config":{...},"storage-credentials":[...]`; this route answers only the list.
    const size_t list = access.find("\"storage-credentials\":");
    r.body = list == std::string::npos ? std::string("{\"storage-credentials\":[]}")
                                       : "{" + access.substr(list) + "}";
    return r;
  }
  if (n == 7 && sub == "tables" && seg[6] == "metrics") {
    if (method != "POST") return not_allowed();
    auto body = ParseObject(request.body);
    if (!body) return BadRequest(body.error());
    if (auto d = guard(prefix, Action::kLoadTable, ns, name)) return *d;
    auto row = catalog.TableRow(ns, name);
    if (!row) return fail(row.error());
    return NoContent();
  }
  if (n != 6) return not_found();

  if (views) {
    const Action action =
        method == "GET" || method == "HEAD" ? Action::kLoadView : Action::kManageView;
    if (auto d = guard(prefix, action, ns, name, ObjectType::kView)) return *d;
    if (method == "GET") {
      auto view = catalog.LoadView(ns, name);
      if (!view) return fail(view.error());
      Response r;
      SetLoadResult(r, *view, true, nullptr);
      return r;
    }
    if (method == "HEAD") return ExistsResponse(catalog.ViewRow(ns, name));
    if (method == "POST") {
      auto body = ParseObject(request.body);
      if (!body) return BadRequest(body.error());
      auto parts = CommitParts(*body);
      if (!parts) return BadRequest(parts.error());
      auto view = catalog.ReplaceView(ctx.call, ns, name, parts->first, parts->second);
      if (!view) return fail(view.error());
      Response r;
      SetLoadResult(r, *view, true, nullptr);
      return r;
    }
    if (method == "DELETE") {
      auto dropped = catalog.DropView(ns, name);
      if (!dropped) return fail(dropped.error());
      if (!*dropped) {
        return fail(NotFound(EntityKind::kView, "View does not exist: {}.{}",
                             connector::NamespaceText(ns), name));
      }
      return NoContent();
    }
    return not_allowed();
  }

  // ---- one table ----
  {
    Action action = Action::kLoadTable;
    if (method == "DELETE") action = Action::kDropTable;
    if (method == "POST") {
      // A commit to a table that does not exist yet is a create transaction.
      action = catalog.TableRow(ns, name) ? Action::kModifyTable : Action::kCreateTable;
    }
    if (auto d = guard(prefix, action, ns, name)) return *d;
  }
  if (method == "GET") {
    std::string mode = request.Query("snapshots").value_or("all");
    if (mode.empty()) mode = "all";
    if (mode != "all" && mode != "refs") {
      return fail(InvalidArgument(
          "Invalid query parameter 'snapshots': expected 'all' or 'refs', got '{}'", mode));
    }
    if (request.Header("If-None-Match")) {
      // Answered from the row alone: the metadata file is not read.
      auto row = catalog.TableRow(ns, name);
      if (!row) return fail(row.error());
      const std::string etag = ETagFor(row->location.value_or(""), mode);
      if (MatchesIfNoneMatch(request, etag)) {
        auto present = catalog.CheckMetadataExists(*row);
        if (!present) return fail(present.error());
        Response r;
        r.status = 304;
        r.content_type.clear();
        r.headers.emplace_back("ETag", etag);
        return r;
      }
    }
    auto table = catalog.LoadTable(ns, name);
    if (!table) return fail(table.error());
    Response r;
    std::string access;
    if (WantsVendedCredentials(request)) {
      if (auto d = vend(prefix, catalog, ns, name, *table->metadata_text, access, r.audit_note)) {
        return *d;
      }
    }
    if (mode == "refs") {
      const std::string filtered = RefsOnly(*table->metadata_text);
      SetLoadResult(r, *table, true, &filtered, &access);
    } else {
      SetLoadResult(r, *table, true, nullptr, &access);
    }
    r.headers.emplace_back("ETag", ETagFor(table->metadata_location, mode));
    return r;
  }
  if (method == "HEAD") return ExistsResponse(catalog.TableRow(ns, name));
  if (method == "POST") {
    auto body = ParseObject(request.body);
    if (!body) return BadRequest(body.error());
    auto parts = CommitParts(*body);
    if (!parts) return BadRequest(parts.error());
    connector::TableCommit c{ns, name, std::move(parts->first), std::move(parts->second)};
    auto committed = catalog.CommitTable(ctx.call, c);
    if (!committed) return fail(committed.error());
    Response r;
    SetLoadResult(r, *committed, false, nullptr);
    r.headers.emplace_back("ETag", ETagFor(committed->metadata_location, "all"));
    return r;
  }
  if (method == "DELETE") {
    const bool purge = EqualsIgnoreCase(request.Query("purgeRequested").value_or("false"), "true");
    auto dropped = catalog.DropTable(ns, name, purge);
    if (!dropped) return fail(dropped.error());
    if (!*dropped) {
      return fail(NotFound(EntityKind::kTable, "Table does not exist: {}.{}",
                           connector::NamespaceText(ns), name));
    }
    return NoContent();
  }
  return not_allowed();
}

}  // namespace cairn::api::iceberg
