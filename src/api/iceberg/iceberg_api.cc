// SPDX-License-Identifier: Apache-2.0
#include "api/iceberg/iceberg_api.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <functional>
#include <set>

#include <nlohmann/json.hpp>

#include "api/iceberg/errors.h"
#include "api/routes.h"
#include "common/log.h"
#include "common/util.h"
#include "connector/external_rows.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "connector/iceberg/iceberg_proxy.h"
#include "iceberg/scan_plan.h"
#include "iceberg/table_metadata.h"
#include "json/json_util.h"
#include "storage/sigv4.h"

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

Namespace SplitNamespace(const std::string& text) { return Split(text, kSeparator); }

// A 64-bit hash of `s` eight bytes at a time (the last word zero-padded, the length mixed in),
// with splitmix64's finaliser: the same on every replica and build, and a tenth of the
// instructions of a byte-at-a-time hash on a metadata location.
uint64_t WordHash(std::string_view s, uint64_t h) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  uint64_t w = 0;
  if (i < s.size()) std::memcpy(&w, s.data() + i, s.size() - i);
  h = (h ^ w ^ (static_cast<uint64_t>(s.size()) << 56)) * kMul;
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBULL;
  h ^= h >> 31;
  return h;
}

// A hash of the location and the mode as 16 hex digits in quotes. Every load computes one.
std::string ETagFor(const std::string& metadata_location, std::string_view mode) {
  const uint64_t h = WordHash(mode, WordHash(metadata_location, 0x2545F4914F6CDD1DULL));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(18, '"');
  for (int i = 0; i < 16; ++i) out[static_cast<size_t>(16 - i)] = kHex[(h >> (4 * i)) & 0xF];
  return out;
}

bool MatchesIfNoneMatch(const Request& r, const std::string& etag) {
  auto h = r.HeaderView("If-None-Match");
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
    r.spliced_file = obj.metadata_file;
  }
  if (access != nullptr && !access->empty()) {
    tail.reserve(tail.size() + access->size() + 2);  // one allocation for the three appends
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

// Whether the client's X-Iceberg-Access-Delegation lists `mechanism`.
bool DelegationLists(const Request& request, std::string_view mechanism) {
  const auto it = request.headers.find(std::string_view("X-Iceberg-Access-Delegation"));
  if (it == request.headers.end()) return false;
  bool listed = false;
  ForEachListElement(it->second, [&](std::string_view element) {
    listed = listed || EqualsIgnoreCase(element, mechanism);
  });
  return listed;
}

bool WantsVendedCredentials(const Request& request) {
  return DelegationLists(request, "vended-credentials");
}

// The table's storage locations on S3 (the ones keys are vended or requests signed for).
// The S3 locations a loaded object's metadata names (remembered per metadata file by the
// catalog: finding them parses the whole document).
std::vector<std::string> S3Locations(IcebergCatalog& catalog, const LoadedObject& obj) {
  std::vector<std::string> locations =
      *catalog.StorageLocationsOf(obj.metadata_location, *obj.metadata_text);
  std::erase_if(locations, [](const std::string& l) { return l.rfind("s3", 0) != 0; });
  return locations;
}

// The client asked to have its storage requests signed, and not for keys (keys win when both
// are listed, as clients that list both can use either).
bool WantsRemoteSigning(const Request& request) {
  return !WantsVendedCredentials(request) && DelegationLists(request, "remote-signing");
}

// The `config` member of a load result whose storage requests the catalog signs: where to send
// them (relative to the catalog URI, which clients take as the signer's URI by default). Empty
// when the catalog has no S3 keys to sign with or the table has no S3 location.
std::string SigningAccessText(IcebergCatalog& catalog, const LoadedObject& obj,
                              const std::string& prefix, const Namespace& ns,
                              const std::string& table) {
  const auto& s3 = catalog.storage().s3;
  if (s3.access_key_id.empty() || s3.secret_access_key.empty()) return "";
  if (S3Locations(catalog, obj).empty()) return "";
  OrderedJson config = StorageDefaults(catalog.storage());
  config["s3.remote-signing-enabled"] = "true";
  config["s3.signer"] = "S3V4RestSigner";
  config["s3.signer.endpoint"] =
      fmt::format("v1/{}/namespaces/{}/tables/{}/sign", PercentEncode(prefix),
                  PercentEncode(Join(ns, "\x1f")), PercentEncode(table));
  return "\"config\":" + config.dump();
}

// Everything the vended access text is rendered from: the access level, the storage settings,
// the providers, the locations and the credentials (by the serial the vendor names each one's
// content with). Compared field by field: a vended load checks it on every request.
struct VendedTextInputs {
  bool write = false;
  std::string endpoint;
  std::string region;
  bool path_style = false;
  std::vector<std::string> providers;
  std::vector<std::string> locations;
  std::vector<uint64_t> serials;

  bool Matches(bool w, const storage::S3Options& s3, const std::vector<std::string>& p,
               const std::vector<std::string>& l,
               const std::vector<std::shared_ptr<const storage::Credential>>& creds) const {
    if (write != w || path_style != s3.path_style || endpoint != s3.endpoint ||
        region != s3.region || providers != p || locations != l ||
        serials.size() != creds.size()) {
      return false;
    }
    for (size_t i = 0; i < creds.size(); ++i) {
      if (serials[i] != creds[i]->serial) return false;
    }
    return true;
  }
};

// The `config` and `storage-credentials` members of a load result carrying vended keys for the
// table's locations. Null when the catalog vends nothing.
Result<std::shared_ptr<const std::string>> VendedAccessText(IcebergCatalog& catalog,
                                                            const LoadedObject& obj, bool write,
                                                            int64_t now_ms, std::string& note) {
  auto& vendor = catalog.credentials();
  if (!vendor.enabled()) return std::shared_ptr<const std::string>();
  const std::vector<std::string> locations = S3Locations(catalog, obj);
  if (locations.empty()) return std::shared_ptr<const std::string>();
  CAIRN_ASSIGN_OR_RETURN(
      auto creds, vendor.VendShared(locations,
                                    write ? storage::AccessLevel::kReadWrite
                                          : storage::AccessLevel::kRead,
                                    now_ms));
  // Cached credentials are answered on every vended load until they are re-minted: the text is
  // rendered once per thread for the same credentials, locations and storage settings. A
  // credential the vendor gave no serial is rendered every time.
  const storage::S3Options& s3 = catalog.storage().s3;
  struct Rendered {
    VendedTextInputs inputs;
    std::shared_ptr<const std::string> text;
    std::string note;
  };
  thread_local std::array<Rendered, 4> rendered;
  thread_local size_t next_rendered = 0;
  for (const auto& r : rendered) {
    if (r.text && r.inputs.Matches(write, s3, vendor.providers(), locations, creds)) {
      note = r.note;
      return r.text;
    }
  }
  // Written as text: a vended load answers this on every request, and a session token is
  // long (serialising it through a JSON document cost a seventh of such a load's CPU). Members
  // in the order they are first set, a later credential's value replacing an earlier one's.
  std::vector<std::pair<std::string, std::string>> members;
  auto set = [&](std::string_view key, std::string value) {
    for (auto& [k, v] : members) {
      if (k == key) {
        v = std::move(value);
        return;
      }
    }
    members.emplace_back(std::string(key), std::move(value));
  };
  const OrderedJson defaults = StorageDefaults(catalog.storage());
  for (const auto& [key, value] : defaults.items()) set(key, value.get<std::string>());
  for (const auto& c : creds) {
    set("s3.access-key-id", c->info.at("s3-access-key-id"));
    set("s3.secret-access-key", c->info.at("s3-secret-access-key"));
    if (auto t = c->info.find("s3-session-token"); t != c->info.end()) {
      set("s3.session-token", t->second);
      set("s3.session-token-expires-at-ms", std::to_string(c->expire_time_ms));
    }
  }
  std::string config = "{";
  for (const auto& [key, value] : members) {
    if (config.size() > 1) config += ',';
    cairn::json::AppendQuoted(config, key);
    config += ':';
    cairn::json::AppendQuoted(config, value);
  }
  config += '}';
  std::string out = "\"config\":" + config + ",\"storage-credentials\":[";
  for (size_t i = 0; i < locations.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"prefix\":";
    cairn::json::AppendQuoted(out, locations[i]);
    out += ",\"config\":";
    out += config;
    out += '}';
  }
  out += ']';
  note = fmt::format("vended {} {} credentials for {}", Join(vendor.providers(), ","),
                     write ? "read-write" : "read-only", Join(locations, ","));
  auto text = std::make_shared<const std::string>(std::move(out));
  const bool named = std::all_of(creds.begin(), creds.end(), [](const auto& c) {
    return c->serial != 0;
  });
  if (named) {
    VendedTextInputs inputs{write, s3.endpoint, s3.region, s3.path_style, vendor.providers(),
                            locations, {}};
    for (const auto& c : creds) inputs.serials.push_back(c->serial);
    rendered[next_rendered] = Rendered{std::move(inputs), text, note};
    next_rendered = (next_rendered + 1) % rendered.size();
  }
  return text;
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

// ---- Route table -------------------------------------------------------------------------------

using governance::ObjectType;
using service::Action;

struct Call;
using Handler = Response (*)(Call&);

// When the route's authorize step runs: before the handler, on the object its path names; or in
// the handler, once it has read the target from the body or the query (the handler then
// authorizes with the route's action, and may add the checks a second object needs).
enum class AuthorizeAt { kPath, kHandler };

struct Route {
  std::string_view method;  // "*": any method
  api::PathPattern path;    // relative to /iceberg
  ObjectType kind;          // the kind of object the path addresses
  Action action;            // what the authorize step checks
  AuthorizeAt at;
  bool advertised;  // listed in GET /v1/config `endpoints`
  Handler handler;
  // For a path naming an object that does not exist yet: the action to check instead (a commit
  // to a missing table is a create transaction).
  std::optional<Action> action_if_absent = std::nullopt;
  // Routes outside a catalog's prefix (config, oauth): no catalog is opened for them.
  bool scoped = true;
};

const std::vector<Route>& Routes();

// One request on its way through a route: who, what, and the catalog of its prefix.
struct Call {
  const Request& request;
  const governance::Principal& principal;
  service::ObjectService& objects;
  service::Authorizer& authz;
  service::MetadataService& service;
  const IcebergApiOptions& options;
  connector::CallContext ctx;
  const Route* route = nullptr;
  std::vector<std::string> params{};               // the path's parameters, in the pattern's order
  std::string prefix{};                            // {prefix}
  Namespace ns{};                                  // {namespace}
  std::string name{};                              // {table} / {view}
  IcebergCatalog* catalog = nullptr;               // the prefix's catalog (scoped routes)
  std::shared_ptr<connector::Connector> holder{};  // keeps the connector alive for the request
  connector::IcebergProxy* proxy = nullptr;        // set when the catalog is federated
  // GET /v1/config of a federated catalog (prefix, proxy).
  std::function<Response(const std::string&, connector::IcebergProxy&)> federated_config{};

  Response Fail(const Error& e) const { return ErrorResponse(e); }

  // The metalake and catalog `warehouse` names, as views of it (or of the default metalake).
  Result<std::pair<std::string_view, std::string_view>> WarehouseNames(
      std::string_view warehouse) const {
    const size_t dot = warehouse.find('.');
    if (dot == std::string_view::npos) {
      if (options.default_metalake.empty()) {
        return InvalidArgument("Invalid warehouse '{}': expected '<metalake>.<catalog>'",
                               warehouse);
      }
      return std::make_pair(std::string_view(options.default_metalake), warehouse);
    }
    return std::make_pair(warehouse.substr(0, dot), warehouse.substr(dot + 1));
  }
  Result<std::pair<std::string, std::string>> Warehouse(const std::string& warehouse) const {
    CAIRN_ASSIGN_OR_RETURN(auto names, WarehouseNames(warehouse));
    return std::make_pair(std::string(names.first), std::string(names.second));
  }

  Result<IcebergCatalog*> Open(const std::string& warehouse) {
    CAIRN_ASSIGN_OR_RETURN(auto names, Warehouse(warehouse));
    CAIRN_ASSIGN_OR_RETURN(holder, objects.Resolve(service::ObjectRef{names.first, names.second}));
    proxy = holder->Find<connector::IcebergProxy>();
    if (proxy != nullptr) return nullptr;
    IcebergCatalog* c = holder->Find<IcebergCatalog>();
    if (c == nullptr) {
      return InvalidArgument("Catalog '{}' is not a lakehouse-iceberg catalog", warehouse);
    }
    return c;
  }

  service::Caller Caller() const { return service::Caller{principal, ctx}; }

  // The object `object` of `type` in `target_ns` of the catalog `warehouse` names.
  Result<service::ObjectRef> Ref(const std::string& warehouse, const Namespace& target_ns = {},
                                 const std::string& object = "",
                                 ObjectType type = ObjectType::kTable) const {
    CAIRN_ASSIGN_OR_RETURN(auto names, Warehouse(warehouse));
    return service::ObjectRef{names.first, names.second, target_ns, object, type};
  }

  // The authorize stage: one decision, before any store write. nullopt when allowed.
  std::optional<Response> Authorize(Action action, const Namespace& target_ns = {},
                                    const std::string& object = "",
                                    ObjectType type = ObjectType::kTable) const {
    return AuthorizeIn(prefix, action, target_ns, object, type);
  }
  std::optional<Response> AuthorizeIn(const std::string& warehouse, Action action,
                                      const Namespace& target_ns = {},
                                      const std::string& object = "",
                                      ObjectType type = ObjectType::kTable) const {
    if (!authz.enabled()) return std::nullopt;
    auto names = WarehouseNames(warehouse);
    if (!names) return Fail(names.error());
    if (auto s = objects.Authorize(principal, action, names->first, names->second, target_ns,
                                   object, type);
        !s) {
      return Fail(s.error());
    }
    return std::nullopt;
  }

  // The names of `names` (children of `parent`) the caller may see with `action`.
  Result<std::vector<std::string>> Visible(
      Action action, const Namespace& parent, std::vector<std::string> names,
      const std::vector<store::EntityRecord>* rows = nullptr) const {
    if (!authz.enabled()) return names;
    CAIRN_ASSIGN_OR_RETURN(auto ref, Ref(prefix, parent));
    const ObjectType type = action == Action::kLoadView ? ObjectType::kView : ObjectType::kTable;
    return objects.Visible(Caller(), action, ref, std::move(names), type, rows);
  }

  // Vended keys for a table the caller may load, when the client asked for them: read-write
  // when the caller may also modify the table, read-only otherwise. Sets `access` to the members
  // to splice into the load result and notes the vend for the audit record.
  std::optional<Response> Vend(const std::string& table, const LoadedObject& obj,
                               std::string& access, Response& answer) const {
    const bool write = !Authorize(Action::kModifyTable, ns, table).has_value();
    auto text = VendedAccessText(*catalog, obj, write, ctx.now_ms, answer.audit_note);
    if (!text) return Fail(text.error());
    access = *text ? **text : std::string();
    if (!access.empty()) answer.vended_access = write ? "read-write" : "read-only";
    return std::nullopt;
  }

  bool Views() const { return route->kind == ObjectType::kView; }

  // Publishes a change made through this route (a namespace: no `object`).
  void Changed(service::ChangeType type, ObjectType kind, const Namespace& target_ns,
               const std::string& object = "", std::string detail = "",
               std::optional<std::pair<Namespace, std::string>> renamed_to = std::nullopt) const {
    auto ref = Ref(prefix, target_ns, object, kind);
    if (!ref) return;
    if (renamed_to) {
      objects.PublishRename(Caller(), *ref, renamed_to->first, renamed_to->second);
    } else {
      objects.Publish(Caller(), type, *ref, "", std::move(detail));
    }
  }
  bool creating = false;  // a commit to a table that does not exist yet (a create transaction)
};

// A lookup (GET or HEAD) of a table or view that does not exist, by a caller who may use its
// schema, answers 404 instead of the denial: engines look every name up as a view before they
// look it up as a table (Trino does), and a reader of tables who holds no view privilege must
// hear "no such view" to go on. A caller who may not use the schema learns nothing (403 for a
// name that exists or not); one who may use it can tell a missing name from a denied one.
std::optional<Response> MissingToReader(Call& c, Action action) {
  if (action != Action::kLoadTable && action != Action::kLoadView) return std::nullopt;
  const bool head = c.request.method == "HEAD";
  if (c.name.empty() || (!head && c.request.method != "GET")) return std::nullopt;
  const bool view = action == Action::kLoadView;
  auto row = view ? c.catalog->ViewRow(c.ns, c.name) : c.catalog->TableRow(c.ns, c.name);
  if (row || row.error().code != ErrorCode::kNotFound) return std::nullopt;
  if (c.Authorize(Action::kLoadSchema, c.ns)) return std::nullopt;
  if (head) return ExistsResponse(row);
  return c.Fail(view ? NotFound(EntityKind::kView, "View does not exist: {}.{}",
                                connector::NamespaceText(c.ns), c.name)
                     : NotFound(EntityKind::kTable, "Table does not exist: {}.{}",
                                connector::NamespaceText(c.ns), c.name));
}

// ---- Handlers: one per route ------------------------------------------------------------------

Response GetConfig(Call& c) {
  auto warehouse = c.request.Query("warehouse");
  if (!warehouse || warehouse->empty()) {
    return PlainErrorResponse(
        400, "BadRequestException",
        "Missing query parameter 'warehouse': expected '<metalake>.<catalog>'");
  }
  auto names = c.Warehouse(*warehouse);
  if (!names) return c.Fail(names.error());
  auto catalog = c.Open(*warehouse);
  if (!(c.proxy != nullptr && !c.proxy->options().check_privileges)) {
    if (auto d = c.AuthorizeIn(*warehouse, c.route->action)) return *d;
  }
  if (c.proxy != nullptr) return c.federated_config(names->first + "." + names->second, *c.proxy);
  if (!catalog) return c.Fail(catalog.error());
  OrderedJson body;
  body["defaults"] = StorageDefaults((*catalog)->storage());
  body["overrides"] = OrderedJson{{"prefix", names->first + "." + names->second}};
  if (!c.options.scan_planning_mode.empty()) {
    // Read by PyIceberg and Java 1.11; Java builds before 1.11 read the older boolean.
    body["overrides"]["scan-planning-mode"] = c.options.scan_planning_mode;
    body["overrides"]["rest-scan-planning-enabled"] =
        c.options.scan_planning_mode == "server" ? "true" : "false";
  }
  OrderedJson endpoints = OrderedJson::array();
  for (const auto& r : Routes()) {
    if (r.advertised) endpoints.push_back(fmt::format("{} {}", r.method, r.path.text()));
  }
  body["endpoints"] = std::move(endpoints);
  if (c.options.idempotency != nullptr && c.options.idempotency->enabled()) {
    body["idempotency-key-lifetime"] = c.options.idempotency->AdvertisedLifetime();
  }
  return JsonResponse(body);
}

Response PostToken(Call&) {
  return PlainErrorResponse(400, "BadRequestException",
                            "This server does not issue OAuth2 tokens; use your identity provider");
}

Response Rename(Call& c) {
  const bool view = c.Views();
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  auto source = IdentifierFromJson(*body, "source");
  if (!source) return BadRequest(source.error());
  auto dest = IdentifierFromJson(*body, "destination");
  if (!dest) return BadRequest(dest.error());
  if (auto d = c.Authorize(c.route->action, source->first, source->second, c.route->kind)) {
    return *d;
  }
  if (auto d = c.Authorize(view ? Action::kCreateView : Action::kCreateTable, dest->first,
                           dest->second, c.route->kind)) {
    return *d;
  }
  auto s =
      view
          ? c.catalog->RenameView(c.ctx, source->first, source->second, dest->first, dest->second)
          : c.catalog->RenameTable(c.ctx, source->first, source->second, dest->first, dest->second);
  if (!s) return c.Fail(s.error());
  c.Changed(service::ChangeType::kRenamed, c.route->kind, source->first, source->second, "",
            std::make_pair(dest->first, dest->second));
  return NoContent();
}

Response CommitTransaction(Call& c) {
  auto body = ParseObject(c.request.body);
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
    connector::TableCommit commit{id->first, id->second, std::move(parts->first),
                                  std::move(parts->second)};
    if (auto d = c.Authorize(c.route->action, commit.ns, commit.name)) return *d;
    commits.push_back(std::move(commit));
  }
  auto s = c.catalog->CommitTransaction(c.ctx, commits);
  if (!s) return c.Fail(s.error());
  for (const auto& commit : commits) {
    c.Changed(service::ChangeType::kCommitted, ObjectType::kTable, commit.ns, commit.name);
  }
  return NoContent();
}

Response ListNamespaces(Call& c) {
  Namespace parent;
  if (auto p = c.request.Query("parent"); p && !p->empty()) parent = SplitNamespace(*p);
  if (!parent.empty()) {
    if (auto d = c.Authorize(c.route->action, parent)) return *d;
  }
  auto list = c.catalog->ListNamespaces(parent);
  if (!list) return c.Fail(list.error());
  if (c.authz.enabled() && parent.empty()) {
    std::vector<std::string> names;
    for (const auto& ns : *list) names.push_back(ns.back());
    auto kept = c.Visible(c.route->action, {}, names);
    if (!kept) return c.Fail(kept.error());
    const std::set<std::string> keep(kept->begin(), kept->end());
    std::erase_if(*list, [&](const Namespace& ns) { return keep.count(ns.back()) == 0; });
  }
  OrderedJson arr = OrderedJson::array();
  // Page over the joined names (namespaces per parent are few; the store lists them in order).
  const std::string token = c.request.Query("pageToken").value_or("");
  const int page_size =
      static_cast<int>(ParseInt64(c.request.Query("pageSize").value_or("")).value_or(0));
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

Response CreateNamespace(Call& c) {
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  auto ns = NamespaceFromJson(*body, "namespace");
  if (!ns) return BadRequest(ns.error());
  auto props = StringMap(*body, "properties");
  if (!props) return BadRequest(props.error());
  if (auto d = c.Authorize(c.route->action, *ns)) return *d;
  auto created = c.catalog->CreateNamespace(c.ctx, *ns, *props);
  if (!created) return c.Fail(created.error());
  c.Changed(service::ChangeType::kCreated, ObjectType::kSchema, *ns);
  return JsonResponse(
      OrderedJson{{"namespace", NamespaceJson(*ns)}, {"properties", PropertiesJson(*created)}});
}

Response LoadNamespace(Call& c) {
  auto props = c.catalog->LoadNamespace(c.ns);
  if (!props) return c.Fail(props.error());
  return JsonResponse(
      OrderedJson{{"namespace", NamespaceJson(c.ns)}, {"properties", PropertiesJson(*props)}});
}

Response NamespaceExists(Call& c) { return ExistsResponse(c.catalog->LoadNamespace(c.ns)); }

Response DropNamespace(Call& c) {
  auto s = c.catalog->DropNamespace(c.ns);
  if (!s) return c.Fail(s.error());
  c.Changed(service::ChangeType::kDropped, ObjectType::kSchema, c.ns);
  return NoContent();
}

Response UpdateNamespaceProperties(Call& c) {
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  std::vector<std::string> removals;
  if (auto r = body->find("removals"); r != body->end() && !r->is_null()) {
    if (!r->is_array()) {
      return BadRequest(InvalidArgument("Invalid field 'removals': expected an array of strings"));
    }
    for (const auto& k : *r) {
      if (!k.is_string()) {
        return BadRequest(
            InvalidArgument("Invalid field 'removals': expected an array of strings"));
      }
      removals.push_back(k.get<std::string>());
    }
  }
  auto updates = StringMap(*body, "updates");
  if (!updates) return BadRequest(updates.error());
  if (auto d = c.Authorize(c.route->action, c.ns)) return *d;
  auto result = c.catalog->UpdateNamespaceProperties(c.ctx, c.ns, removals, *updates);
  if (!result) return c.Fail(result.error());
  c.Changed(service::ChangeType::kAltered, ObjectType::kSchema, c.ns);
  return JsonResponse(OrderedJson{
      {"updated", result->updated}, {"removed", result->removed}, {"missing", result->missing}});
}

Response ListObjects(Call& c) {
  const bool views = c.Views();
  const std::string token = c.request.Query("pageToken").value_or("");
  const int page_size =
      static_cast<int>(ParseInt64(c.request.Query("pageSize").value_or("")).value_or(0));
  auto page = views ? c.catalog->ListViews(c.ns, token, page_size)
                    : c.catalog->ListTables(c.ns, token, page_size);
  if (!page) return c.Fail(page.error());
  auto kept = c.Visible(views ? Action::kLoadView : Action::kLoadTable, c.ns,
                        std::move(page->names), &page->rows);
  if (!kept) return c.Fail(kept.error());
  OrderedJson ids = OrderedJson::array();
  for (const auto& name : *kept) {
    ids.push_back(OrderedJson{{"namespace", NamespaceJson(c.ns)}, {"name", name}});
  }
  OrderedJson body{{"identifiers", std::move(ids)}};
  if (page->next_token) body["next-page-token"] = *page->next_token;
  return JsonResponse(body);
}

// POST .../tables or .../views. The create privilege does not depend on the body: the route
// checks it before the body is read; then once more with the new object's name.
Response CreateObject(Call& c) {
  const bool views = c.Views();
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  if (auto valid = CheckCreateRequest(*body, views); !valid) return BadRequest(valid.error());
  const std::string new_name = (*body)["name"].get<std::string>();
  if (auto d = c.Authorize(c.route->action, c.ns, new_name, c.route->kind)) return *d;
  if (views) {
    auto created = c.catalog->CreateView(c.ctx, c.ns, *body);
    if (!created) return c.Fail(created.error());
    c.Changed(service::ChangeType::kCreated, ObjectType::kView, c.ns, new_name,
              created->metadata_location);
    Response r;
    SetLoadResult(r, *created, true, nullptr);
    return r;
  }
  const bool stage = *OptionalBool(*body, "stage-create", false);
  auto created = c.catalog->CreateTable(c.ctx, c.ns, *body, stage);
  if (!created) return c.Fail(created.error());
  // A staged table exists once its create transaction commits (published then).
  if (!stage) {
    c.Changed(service::ChangeType::kCreated, ObjectType::kTable, c.ns, new_name,
              created->metadata_location);
  }
  Response r;
  std::string access;
  if (WantsVendedCredentials(c.request)) {
    if (auto d = c.Vend(new_name, *created, access, r)) return *d;
  } else if (WantsRemoteSigning(c.request)) {
    access = SigningAccessText(*c.catalog, *created, c.prefix, c.ns, new_name);
  }
  SetLoadResult(r, *created, true, nullptr, &access);
  if (!stage) r.headers.emplace_back("ETag", ETagFor(created->metadata_location, "all"));
  return r;
}

Response Register(Call& c) {
  const bool view = c.Views();
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  auto name = RequiredString(*body, "name");
  if (!name) return BadRequest(name.error());
  auto loc = RequiredString(*body, "metadata-location");
  if (!loc) return BadRequest(loc.error());
  auto overwrite = OptionalBool(*body, "overwrite", false);
  if (!overwrite) return BadRequest(overwrite.error());
  if (auto d = c.Authorize(c.route->action, c.ns, *name, c.route->kind)) return *d;
  auto registered = view ? c.catalog->RegisterView(c.ctx, c.ns, *name, *loc)
                         : c.catalog->RegisterTable(c.ctx, c.ns, *name, *loc, *overwrite);
  if (!registered) return c.Fail(registered.error());
  c.Changed(service::ChangeType::kCreated, c.route->kind, c.ns, *name,
            registered->metadata_location);
  Response r;
  SetLoadResult(r, *registered, true, nullptr);
  return r;
}

Response LoadCredentials(Call& c) {
  auto table = c.catalog->LoadTable(c.ns, c.name);
  if (!table) return c.Fail(table.error());
  Response r;
  std::string access;
  if (auto d = c.Vend(c.name, *table, access, r)) return *d;
  // `access` is `"config":{...},"storage-credentials":[...]`; this route answers only the list.
  const size_t list = access.find("\"storage-credentials\":");
  r.body = list == std::string::npos ? std::string("{\"storage-credentials\":[]}")
                                     : "{" + access.substr(list) + "}";
  return r;
}

// ---- Scan planning (docs/iceberg-rest.md#scan-planning) ---------------------------------------

}  // namespace

// The plans this server answered, so GET .../plan/{plan-id} can answer again (the same snapshot
// planned again: manifests never change) and DELETE can release the id. Plans complete before
// their first answer, so nothing but the request is kept; bounded by count and age.
class ScanPlans {
 public:
  struct Plan {
    std::string table;  // prefix, namespace and name
    OrderedJson request;  // with the snapshot planned pinned
    int64_t created_ms = 0;
  };
  void Put(const std::string& id, Plan plan) {
    std::lock_guard lock(mu_);
    Expire(plan.created_ms);
    plans_[id] = std::move(plan);
    order_.push_back(id);
    while (order_.size() > kMaxPlans) {
      plans_.erase(order_.front());
      order_.pop_front();
    }
  }
  std::optional<Plan> Get(const std::string& id, const std::string& table, int64_t now_ms) {
    std::lock_guard lock(mu_);
    Expire(now_ms);
    auto it = plans_.find(id);
    if (it == plans_.end() || it->second.table != table) return std::nullopt;
    return it->second;
  }
  bool Erase(const std::string& id, const std::string& table) {
    std::lock_guard lock(mu_);
    auto it = plans_.find(id);
    if (it == plans_.end() || it->second.table != table) return false;
    plans_.erase(it);
    return true;
  }

 private:
  static constexpr size_t kMaxPlans = 4096;
  static constexpr int64_t kMaxAgeMs = 3'600'000;
  void Expire(int64_t now_ms) {
    while (!order_.empty()) {
      auto it = plans_.find(order_.front());
      if (it != plans_.end() && now_ms - it->second.created_ms < kMaxAgeMs) break;
      if (it != plans_.end()) plans_.erase(it);
      order_.pop_front();
    }
  }
  std::mutex mu_;
  std::unordered_map<std::string, Plan> plans_;
  std::deque<std::string> order_;
};

namespace {

std::string PlanTableKey(const Call& c) {
  return c.prefix + "\x1f" + connector::NamespaceText(c.ns) + "\x1f" + c.name;
}

Response NoSuchPlan(std::string_view id) {
  return PlainErrorResponse(404, "NoSuchPlanIdException",
                            fmt::format("Scan plan does not exist: {}", id));
}

// Plans the scan `request` describes and answers it as a completed plan with `plan_id`.
Response AnswerPlan(Call& c, const OrderedJson& request, const std::string& plan_id,
                    bool remember) {
  auto parsed = cairn::iceberg::ParseScanRequest(request);
  if (!parsed) return BadRequest(parsed.error());
  auto plan = c.catalog->PlanScan(c.ns, c.name, *parsed, c.options.scan_plan_files_per_task);
  if (!plan) return c.Fail(plan.error());
  OrderedJson body = OrderedJson::object();
  body["status"] = "completed";
  body["plan-id"] = plan_id;
  for (auto& [key, value] : plan->body.items()) body[key] = std::move(value);
  Response r;
  if (WantsVendedCredentials(c.request)) {
    auto table = c.catalog->LoadTable(c.ns, c.name);
    if (!table) return c.Fail(table.error());
    std::string access;
    if (auto d = c.Vend(c.name, *table, access, r)) return *d;
    const size_t list = access.find("\"storage-credentials\":");
    if (list != std::string::npos) {
      auto creds = OrderedJson::parse("{" + access.substr(list) + "}", nullptr, false);
      if (creds.is_object()) body["storage-credentials"] = creds["storage-credentials"];
    }
  }
  if (remember && c.options.scan_plans != nullptr) {
    OrderedJson pinned = request;
    if (plan->snapshot_id >= 0 && !pinned.contains("start-snapshot-id")) {
      pinned["snapshot-id"] = plan->snapshot_id;
    }
    c.options.scan_plans->Put(plan_id, {PlanTableKey(c), std::move(pinned), c.ctx.now_ms});
  }
  r.body = body.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  r.audit_note = fmt::format("planned snapshot {}", plan->snapshot_id);
  return r;
}

Response PlanTableScan(Call& c) {
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  return AnswerPlan(c, OrderedJson(*body), RandomUuid(), true);
}

Response FetchPlanningResult(Call& c) {
  const std::string& id = c.params.back();
  auto row = c.catalog->TableRow(c.ns, c.name);
  if (!row) return c.Fail(row.error());
  auto plan = c.options.scan_plans == nullptr
                  ? std::nullopt
                  : c.options.scan_plans->Get(id, PlanTableKey(c), c.ctx.now_ms);
  if (!plan) return NoSuchPlan(id);
  return AnswerPlan(c, plan->request, id, false);
}

Response CancelPlanning(Call& c) {
  const std::string& id = c.params.back();
  auto row = c.catalog->TableRow(c.ns, c.name);
  if (!row) return c.Fail(row.error());
  if (c.options.scan_plans == nullptr || !c.options.scan_plans->Erase(id, PlanTableKey(c))) {
    return NoSuchPlan(id);
  }
  return NoContent();
}

Response FetchScanTasks(Call& c) {
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  auto task = RequiredString(*body, "plan-task");
  if (!task) return BadRequest(task.error());
  auto row = c.catalog->TableRow(c.ns, c.name);
  if (!row) return c.Fail(row.error());
  auto tasks = c.catalog->FetchScanTasks(c.ns, c.name, *task);
  if (!tasks) {
    if (tasks.error().code == ErrorCode::kNotFound) {
      return PlainErrorResponse(404, "NoSuchPlanTaskException", tasks.error().message);
    }
    return c.Fail(tasks.error());
  }
  Response r;
  r.body = tasks->dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  return r;
}

// S3 requests a client signs through the catalog (remote signing), checked against the table:
// the object, the listed prefix or every key of a multi-object delete lies under one of the
// table's locations, on the catalog's own endpoint; reading methods need the table's read
// privilege, the others its modify privilege. docs/storage.md#remote-signing.
Response SignRequest(Call& c) {
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  auto method = RequiredString(*body, "method");
  if (!method) return BadRequest(method.error());
  auto uri = RequiredString(*body, "uri");
  if (!uri) return BadRequest(uri.error());
  std::string region;
  if (auto r = body->find("region"); r != body->end() && r->is_string()) {
    region = r->get<std::string>();
  }
  storage::HeaderList headers;
  if (auto h = body->find("headers"); h != body->end()) {
    if (!h->is_object()) {
      return BadRequest(InvalidArgument("Invalid field 'headers': expected an object"));
    }
    for (const auto& [name, values] : h->items()) {
      if (!values.is_array()) {
        return BadRequest(InvalidArgument("Invalid field 'headers.{}': expected an array", name));
      }
      std::string joined;
      for (const auto& v : values) {
        if (!v.is_string()) {
          return BadRequest(InvalidArgument("Invalid field 'headers.{}': expected strings", name));
        }
        joined += (joined.empty() ? "" : ",") + v.get<std::string>();
      }
      headers.emplace_back(name, joined);
    }
  }
  std::string payload;
  if (auto b = body->find("body"); b != body->end() && b->is_string()) {
    payload = b->get<std::string>();
  }
  const std::string verb = ToUpper(*method);
  const bool reads = verb == "GET" || verb == "HEAD";
  const bool writes = verb == "PUT" || verb == "POST" || verb == "DELETE";
  if (!reads && !writes) {
    return BadRequest(
        InvalidArgument("Invalid field 'method': {} requests are not signed", *method));
  }
  if (auto d = c.Authorize(reads ? Action::kLoadTable : Action::kModifyTable, c.ns, c.name)) {
    return *d;
  }
  auto table = c.catalog->LoadTable(c.ns, c.name);
  if (!table) return c.Fail(table.error());
  const auto& s3 = c.catalog->storage().s3;
  if (s3.access_key_id.empty() || s3.secret_access_key.empty() || s3.endpoint.empty()) {
    return BadRequest(InvalidArgument(
        "Catalog {} does not sign storage requests: it has no S3 endpoint and keys", c.prefix));
  }
  auto url = storage::ParseHttpUrl(*uri);
  if (!url) return BadRequest(InvalidArgument("Invalid field 'uri': {}", url.error().message));
  auto target = storage::S3RequestTarget(*url, s3, verb, payload);
  if (!target) {
    return PlainErrorResponse(403, "ForbiddenException",
                              fmt::format("Not signed: {}", target.error().message));
  }
  const auto locations = cairn::iceberg::StorageLocations(*table->metadata_text);
  auto outside = [&](const std::string& what, bool prefix) {
    return std::none_of(locations.begin(), locations.end(), [&](const std::string& l) {
      return prefix ? storage::PrefixWithin(what, l) : storage::LocationWithin(what, l);
    });
  };
  std::vector<std::string> touched;
  for (const auto& [list, prefix] : {std::pair{&target->objects, false},
                                     std::pair{&target->prefixes, true}}) {
    for (const auto& what : *list) {
      if (outside(what, prefix)) {
        return PlainErrorResponse(
            403, "ForbiddenException",
            fmt::format("Not signed: {} {} is outside the locations of table {}", verb, what,
                        c.name));
      }
      touched.push_back(what);
    }
  }
  Response r;
  OrderedJson signed_headers = OrderedJson::object();
  for (const auto& [name, value] : storage::SignS3Request(
           verb, *url, headers, s3, region.empty() ? s3.region : region, NowMillis())) {
    signed_headers[name] = OrderedJson::array({value});
  }
  r.body = OrderedJson{{"uri", *uri}, {"headers", std::move(signed_headers)}}.dump();
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.audit_note = fmt::format("signed {} {}", verb, Join(touched, ","));
  return r;
}

Response ReportMetrics(Call& c) {
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  if (auto d = c.Authorize(c.route->action, c.ns, c.name)) return *d;
  auto row = c.catalog->TableRow(c.ns, c.name);
  if (!row) return c.Fail(row.error());
  return NoContent();
}

Response LoadView(Call& c) {
  auto view = c.catalog->LoadView(c.ns, c.name);
  if (!view) return c.Fail(view.error());
  Response r;
  SetLoadResult(r, *view, true, nullptr);
  return r;
}

Response ViewExists(Call& c) { return ExistsResponse(c.catalog->ViewRow(c.ns, c.name)); }

Response ReplaceView(Call& c) {
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  auto parts = CommitParts(*body);
  if (!parts) return BadRequest(parts.error());
  auto view = c.catalog->ReplaceView(c.ctx, c.ns, c.name, parts->first, parts->second);
  if (!view) return c.Fail(view.error());
  c.Changed(service::ChangeType::kAltered, ObjectType::kView, c.ns, c.name,
            view->metadata_location);
  Response r;
  SetLoadResult(r, *view, true, nullptr);
  return r;
}

Response DropView(Call& c) {
  auto dropped = c.catalog->DropView(c.ns, c.name);
  if (!dropped) return c.Fail(dropped.error());
  if (!*dropped) {
    return c.Fail(NotFound(EntityKind::kView, "View does not exist: {}.{}",
                           connector::NamespaceText(c.ns), c.name));
  }
  c.Changed(service::ChangeType::kDropped, ObjectType::kView, c.ns, c.name);
  return NoContent();
}

Response LoadTable(Call& c) {
  std::string mode = c.request.Query("snapshots").value_or("all");
  if (mode.empty()) mode = "all";
  if (mode != "all" && mode != "refs") {
    return c.Fail(InvalidArgument(
        "Invalid query parameter 'snapshots': expected 'all' or 'refs', got '{}'", mode));
  }
  if (c.request.HeaderView("If-None-Match")) {
    // Answered from the row alone: the metadata file is not read.
    auto row = c.catalog->TableRow(c.ns, c.name);
    if (!row) return c.Fail(row.error());
    const std::string etag = ETagFor(row->location.value_or(""), mode);
    if (MatchesIfNoneMatch(c.request, etag)) {
      auto present = c.catalog->CheckMetadataExists(*row);
      if (!present) return c.Fail(present.error());
      Response r;
      r.status = 304;
      r.content_type.clear();
      r.headers.emplace_back("ETag", etag);
      return r;
    }
  }
  auto table = c.catalog->LoadTable(c.ns, c.name);
  if (!table) return c.Fail(table.error());
  Response r;
  std::string access;
  // Most loads ask for neither keys nor signing: one lookup of the header tells.
  const bool delegation = c.request.headers.count("X-Iceberg-Access-Delegation") > 0;
  if (delegation && WantsVendedCredentials(c.request)) {
    if (auto d = c.Vend(c.name, *table, access, r)) return *d;
  } else if (delegation && WantsRemoteSigning(c.request)) {
    access = SigningAccessText(*c.catalog, *table, c.prefix, c.ns, c.name);
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

Response TableExists(Call& c) { return ExistsResponse(c.catalog->TableRow(c.ns, c.name)); }

Response CommitTable(Call& c) {
  auto body = ParseObject(c.request.body);
  if (!body) return BadRequest(body.error());
  auto parts = CommitParts(*body);
  if (!parts) return BadRequest(parts.error());
  connector::TableCommit commit{c.ns, c.name, std::move(parts->first), std::move(parts->second)};
  auto committed = c.catalog->CommitTable(c.ctx, commit);
  if (!committed) return c.Fail(committed.error());
  c.Changed(c.creating ? service::ChangeType::kCreated : service::ChangeType::kCommitted,
            ObjectType::kTable, c.ns, c.name, committed->metadata_location);
  Response r;
  SetLoadResult(r, *committed, false, nullptr);
  r.headers.emplace_back("ETag", ETagFor(committed->metadata_location, "all"));
  return r;
}

Response DropTable(Call& c) {
  const bool purge = EqualsIgnoreCase(c.request.Query("purgeRequested").value_or("false"), "true");
  auto dropped = c.catalog->DropTable(c.ns, c.name, purge);
  if (!dropped) return c.Fail(dropped.error());
  if (!*dropped) {
    return c.Fail(NotFound(EntityKind::kTable, "Table does not exist: {}.{}",
                           connector::NamespaceText(c.ns), c.name));
  }
  c.Changed(service::ChangeType::kDropped, ObjectType::kTable, c.ns, c.name);
  return NoContent();
}

// The Iceberg REST routes this server serves, in the order of the specification's paths. The
// dispatch, the authorize step, the audit operation names and the `endpoints` of GET /v1/config
// all come from this table.
const std::vector<Route>& Routes() {
  using K = ObjectType;
  using A = Action;
  constexpr AuthorizeAt kPath = AuthorizeAt::kPath;
  constexpr AuthorizeAt kHandler = AuthorizeAt::kHandler;
  static const std::vector<Route> routes = {
      {"GET", api::PathPattern("/v1/config"), K::kCatalog, A::kLoadCatalog, kHandler, false,
       GetConfig, std::nullopt, false},
      {"*", api::PathPattern("/v1/oauth/tokens"), K::kCatalog, A::kLoadCatalog, kHandler, false,
       PostToken, std::nullopt, false},
      {"GET", api::PathPattern("/v1/{prefix}/namespaces"), K::kSchema, A::kLoadSchema, kHandler,
       true, ListNamespaces},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces"), K::kSchema, A::kCreateSchema, kHandler,
       true, CreateNamespace},
      {"GET", api::PathPattern("/v1/{prefix}/namespaces/{namespace}"), K::kSchema, A::kLoadSchema,
       kPath, true, LoadNamespace},
      {"HEAD", api::PathPattern("/v1/{prefix}/namespaces/{namespace}"), K::kSchema, A::kLoadSchema,
       kPath, true, NamespaceExists},
      {"DELETE", api::PathPattern("/v1/{prefix}/namespaces/{namespace}"), K::kSchema,
       A::kManageSchema, kPath, true, DropNamespace},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/properties"), K::kSchema,
       A::kManageSchema, kHandler, true, UpdateNamespaceProperties},
      {"GET", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables"), K::kTable,
       A::kLoadSchema, kPath, true, ListObjects},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables"), K::kTable,
       A::kCreateTable, kPath, true, CreateObject},
      {"GET", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}"), K::kTable,
       A::kLoadTable, kPath, true, LoadTable},
      {"HEAD", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}"), K::kTable,
       A::kLoadTable, kPath, true, TableExists},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}"), K::kTable,
       A::kModifyTable, kPath, true, CommitTable, A::kCreateTable},
      {"DELETE", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}"), K::kTable,
       A::kDropTable, kPath, true, DropTable},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/register"), K::kTable,
       A::kCreateTable, kHandler, true, Register},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics"),
       K::kTable, A::kLoadTable, kHandler, true, ReportMetrics},
      {"POST", api::PathPattern("/v1/{prefix}/tables/rename"), K::kTable, A::kDropTable, kHandler,
       true, Rename},
      {"POST", api::PathPattern("/v1/{prefix}/transactions/commit"), K::kTable, A::kModifyTable,
       kHandler, true, CommitTransaction},
      {"GET", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/views"), K::kView,
       A::kLoadSchema, kPath, true, ListObjects},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/views"), K::kView,
       A::kCreateView, kPath, true, CreateObject},
      {"GET", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/views/{view}"), K::kView,
       A::kLoadView, kPath, true, LoadView},
      {"HEAD", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/views/{view}"), K::kView,
       A::kLoadView, kPath, true, ViewExists},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/views/{view}"), K::kView,
       A::kManageView, kPath, true, ReplaceView},
      {"DELETE", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/views/{view}"), K::kView,
       A::kManageView, kPath, true, DropView},
      {"POST", api::PathPattern("/v1/{prefix}/views/rename"), K::kView, A::kManageView, kHandler,
       true, Rename},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/register-view"), K::kView,
       A::kCreateView, kHandler, true, Register},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan"),
       K::kTable, A::kLoadTable, kPath, true, PlanTableScan},
      {"GET",
       api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}"),
       K::kTable, A::kLoadTable, kPath, true, FetchPlanningResult},
      {"DELETE",
       api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}"),
       K::kTable, A::kLoadTable, kPath, true, CancelPlanning},
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks"),
       K::kTable, A::kLoadTable, kPath, true, FetchScanTasks},
      {"GET", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials"),
       K::kTable, A::kLoadTable, kPath, true, LoadCredentials},
      // The S3 signer's route (its own spec, not the catalog's): named in load results, not
      // in /v1/config's endpoints.
      {"POST", api::PathPattern("/v1/{prefix}/namespaces/{namespace}/tables/{table}/sign"),
       K::kTable, A::kLoadTable, kHandler, false, SignRequest},
  };
  return routes;
}

// The decoded segments of an /iceberg path, relative to /iceberg; nullopt on bad encoding.
std::optional<std::vector<std::string>> PathSegments(std::string_view path) {
  return api::PathSegments(path, "/iceberg", /*plus_is_space=*/true);
}

api::RouteMatch<Route> Match(std::string_view method, const std::vector<std::string>& seg) {
  const auto& routes = Routes();
  return api::FindRoute(std::span<const Route>(routes), method, seg);
}

}  // namespace

namespace {

// The audit's operation of a route with one method, built once per route (empty for a route
// of any method, whose text depends on the request's).
const std::string& KnownOperation(const Route& route) {
  static const std::vector<std::string> kOperations = [] {
    std::vector<std::string> out;
    for (const auto& r : Routes()) {
      out.push_back(r.method == "*" ? std::string()
                                    : fmt::format("{} /iceberg{}", r.method, r.path.text()));
    }
    return out;
  }();
  return kOperations[static_cast<size_t>(&route - Routes().data())];
}

bool Creates(const Route& route) {
  const Action a = route.action;
  return a == Action::kCreateSchema || a == Action::kCreateTable || a == Action::kCreateView;
}

// The names the path gives the route's parameters, a namespace's levels joined with '.'.
std::vector<std::string> ParameterNames(const Route& route, std::vector<std::string> params) {
  const auto& names = route.path.Parameters();
  params.resize(std::min(params.size(), names.size()));
  for (size_t i = 0; i < params.size(); ++i) {
    if (names[i] == "namespace") std::replace(params[i].begin(), params[i].end(), kSeparator, '.');
  }
  return params;
}

// What the audit names a request by when it matched `found` (DescribeRoute, without matching
// the path again); none for no route or a route of any method.
std::optional<Response::AuditRoute> AuditRouteOf(const api::RouteMatch<Route>& found) {
  if (found.route == nullptr) return std::nullopt;
  const std::string& known = KnownOperation(*found.route);
  if (known.empty()) return std::nullopt;
  return Response::AuditRoute{known, Join(ParameterNames(*found.route, found.params), "."),
                              Creates(*found.route)};
}

}  // namespace

// The text of a route with one method is built once: this runs for every audited request the
// front end did not describe itself.
std::optional<RouteDescription> DescribeRoute(std::string_view method, std::string_view path) {
  auto seg = PathSegments(path);
  if (!seg) return std::nullopt;
  auto found = Match(method, *seg);
  if (found.route == nullptr) return std::nullopt;
  RouteDescription d;
  const std::string& known = KnownOperation(*found.route);
  d.operation =
      known.empty() ? fmt::format("{} /iceberg{}", method, found.route->path.text()) : known;
  d.creates = Creates(*found.route);
  d.names = ParameterNames(*found.route, std::move(found.params));
  return d;
}

std::vector<std::string> AdvertisedEndpoints() {
  std::vector<std::string> out;
  for (const auto& r : Routes()) {
    if (r.advertised) out.push_back(fmt::format("{} {}", r.method, r.path.text()));
  }
  return out;
}

namespace {

// Scan planning and signing are reads sent as POST or DELETE: never stored and replayed as an
// idempotent mutation (a plan's answer can be large, and a replay would hide a newer snapshot).
bool PlansOrSigns(const Request& request) {
  auto d = DescribeRoute(request.method, request.path);
  if (!d) return false;
  const std::string_view op = d->operation;
  return op.ends_with("/plan") || op.ends_with("/plan/{plan-id}") || op.ends_with("/tasks") ||
         op.ends_with("/sign");
}

}  // namespace

IcebergApi::IcebergApi(service::ObjectService& objects, IcebergApiOptions options)
    : objects_(objects),
      service_(objects.metadata()),
      authz_(objects.authorizer()),
      options_(std::move(options)) {
  if (options_.scan_plans == nullptr) options_.scan_plans = std::make_shared<ScanPlans>();
}

Response IcebergApi::Handle(const Request& request, const governance::Principal& principal) const {
  if (IdempotentRequests* keys = options_.idempotency;
      keys != nullptr && keys->enabled() && TakesIdempotencyKey(request)) {
    if (auto key = request.Header("Idempotency-Key"); key && !PlansOrSigns(request)) {
      auto load = [&](const std::string& path) {
        Request get = request;
        get.method = "GET";
        get.path = path;
        get.target = path;
        get.query.clear();
        get.body.clear();
        return Guarded(get, principal);
      };
      return keys->Run(
          request, principal.user, *key, [&] { return Guarded(request, principal); }, load);
    }
  }
  return Guarded(request, principal);
}

Response IcebergApi::Guarded(const Request& request, const governance::Principal& principal) const {
  try {
    return Dispatch(request, principal);
  } catch (const nlohmann::json::exception& e) {
    // A reader that trusted a field's JSON type. The client learns only that its request was
    // malformed; the library's text (which names no field) is for the server log.
    spdlog::warn(
        "event=json_type_error interface=iceberg request_id={} method={} path=\"{}\" "
        "error=\"{}\"",
        request.request_id, request.method, request.path, e.what());
    return PlainErrorResponse(
        400, "BadRequestException",
        "Malformed request: a field of the request body has the wrong JSON type");
  }
}

// Match the route; open the prefix's catalog and check that the caller may use it (a federated
// catalog that leaves access control to its remote is forwarded instead); the route's authorize
// step; its handler.
Response IcebergApi::Dispatch(const Request& request,
                              const governance::Principal& principal) const {
  auto seg = PathSegments(request.path);
  if (!seg) {
    return PlainErrorResponse(400, "BadRequestException",
                              "Malformed percent-encoding in the request path");
  }
  const std::string& method = request.method;
  auto not_found = [&] {
    return PlainErrorResponse(404, "NotFoundException",
                              fmt::format("No route for request: {} {}", method, request.path));
  };
  auto not_allowed = [&] {
    return PlainErrorResponse(405, "MethodNotAllowedException",
                              fmt::format("Method {} is not allowed on {}", method, request.path));
  };
  auto found = Match(method, *seg);
  std::optional<Response::AuditRoute> audit_route = AuditRouteOf(found);
  Response answer = [&]() -> Response {
    Call c{request,
           principal,
           objects_,
           authz_,
           service_,
           options_,
           {principal.user, NowMillis(), request.via.empty() ? "iceberg" : request.via}};
    c.route = found.route;
    c.params = std::move(found.params);
    c.federated_config = [&](const std::string& prefix, connector::IcebergProxy& proxy) {
      return FederatedConfig(request, prefix, proxy);
    };
    const bool unscoped = (c.route != nullptr && !c.route->scoped) ||
                          (c.route == nullptr && found.path_known && seg->size() == 2);
    if (unscoped) {
      if (c.route == nullptr) return not_allowed();
      return c.route->handler(c);
    }
    if (seg->empty() || (*seg)[0] != "v1" || seg->size() < 3) return not_found();
    c.prefix = (*seg)[1];
    // Every catalog is authorized before anything else (a missing one is a denial, not a 404).
    // A route whose own check implies the catalog's (service::ImpliesLoadCatalog) is checked
    // alone, and the catalog only when that check fails, so that a denial names the catalog
    // first as before: one decision instead of two on every allowed request.
    auto catalog = c.Open(c.prefix);
    const bool route_checks_catalog =
        catalog && c.proxy == nullptr && c.route != nullptr && c.route->at == AuthorizeAt::kPath &&
        service::ImpliesLoadCatalog(c.route->action) &&
        (!c.route->action_if_absent || service::ImpliesLoadCatalog(*c.route->action_if_absent));
    if (!route_checks_catalog && !(c.proxy != nullptr && !c.proxy->options().check_privileges)) {
      if (auto d = c.Authorize(Action::kLoadCatalog)) return *d;
    }
    if (!catalog) return c.Fail(catalog.error());
    if (c.proxy != nullptr) {
      auto names = c.Warehouse(c.prefix);
      if (!names) return c.Fail(names.error());
      return Forward(request, principal, *names, *c.proxy,
                     c.holder->Find<connector::ExternalRows>(), *seg);
    }
    if (c.route == nullptr) return found.path_known ? not_allowed() : not_found();
    c.catalog = *catalog;
    const auto& names = c.route->path.Parameters();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "namespace") c.ns = SplitNamespace(c.params[i]);
      if (names[i] == "table" || names[i] == "view") c.name = c.params[i];
    }
    if (c.route->at == AuthorizeAt::kPath) {
      Action action = c.route->action;
      if (c.route->action_if_absent && !c.name.empty() && !c.catalog->TableRow(c.ns, c.name)) {
        action = *c.route->action_if_absent;
        c.creating = true;
      }
      if (auto d = c.Authorize(action, c.ns, c.name, c.route->kind)) {
        if (route_checks_catalog) {
          if (auto catalog_denied = c.Authorize(Action::kLoadCatalog)) return *catalog_denied;
        }
        if (auto missing = MissingToReader(c, action)) return *missing;
        return *d;
      }
    }
    return c.route->handler(c);
  }();
  if (!answer.audit_route) answer.audit_route = std::move(audit_route);
  return answer;
}

}  // namespace cairn::api::iceberg
