// SPDX-License-Identifier: Apache-2.0
#include "api/lance/lance_api.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/util.h"
#include "json/json_util.h"
#include "storage/credentials.h"
#include "storage/file_io.h"

namespace cairn::api::lance {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;
using http::Request;
using http::Response;
using service::Action;
using service::ObjectRef;
using service::ObjectType;

constexpr std::string_view kProvider = "lakehouse-generic";
constexpr std::string_view kDefaultDelimiter = "$";

// The spec's error codes (ErrorResponse.code) used here.
enum Code {
  kUnsupportedCode = 0,
  kNamespaceNotFound = 1,
  kNamespaceAlreadyExists = 2,
  kNamespaceNotEmpty = 3,
  kTableNotFound = 4,
  kTableAlreadyExists = 5,
  kInvalidInput = 13,
  kConcurrentModification = 14,
  kPermissionDenied = 15,
  kUnauthenticated = 16,
  kServiceUnavailable = 17,
  kInternalCode = 18,
  kThrottling = 21,
};

struct Mapped {
  int status;
  int code;
};

Mapped MapError(const Error& e) {
  const bool table = e.entity == EntityKind::kTable;
  switch (e.code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kUnprocessable:
    case ErrorCode::kNotInUse:
    case ErrorCode::kInUse:
      return {400, kInvalidInput};
    case ErrorCode::kNotFound:
      return table ? Mapped{404, kTableNotFound} : Mapped{404, kNamespaceNotFound};
    case ErrorCode::kAlreadyExists:
      return table ? Mapped{409, kTableAlreadyExists} : Mapped{409, kNamespaceAlreadyExists};
    case ErrorCode::kNotEmpty:
      return {409, kNamespaceNotEmpty};
    case ErrorCode::kConflict:
      return {409, kConcurrentModification};
    case ErrorCode::kUnauthenticated:
      return {401, kUnauthenticated};
    case ErrorCode::kPermissionDenied:
      return {403, kPermissionDenied};
    case ErrorCode::kUnsupported:
      return {406, kUnsupportedCode};
    case ErrorCode::kConnectionFailed:
    case ErrorCode::kUnavailable:
      return {503, kServiceUnavailable};
    case ErrorCode::kTooManyRequests:
      return {429, kThrottling};
    case ErrorCode::kCommitStateUnknown:
    case ErrorCode::kInternal:
      break;
  }
  return {500, kInternalCode};
}

Response ErrorBody(int status, int code, std::string_view message, std::string_view instance) {
  Response r;
  r.status = status;
  OrderedJson body{{"error", message}, {"code", code}};
  if (!instance.empty()) body["instance"] = instance;
  r.body = body.dump();
  return r;
}

Response Reply(const OrderedJson& body) {
  Response r;
  r.body = body.dump();
  return r;
}

// 200 with no content: the spec's answer of the exists operations.
Response NoContent() {
  Response r;
  r.content_type.clear();
  return r;
}

// ---- One request -------------------------------------------------------------------------------

struct Call {
  const Request& request;
  service::Caller caller;
  service::ObjectService& objects;
  std::string metalake;
  std::vector<std::string> id;  // the identifier's levels (none: the root namespace)
  Json body = Json::object();

  ObjectRef Metalake() const { return ObjectRef{metalake, "", {}, "", ObjectType::kMetalake}; }
  ObjectRef Catalog() const { return ObjectRef{metalake, id.at(0), {}, "", ObjectType::kCatalog}; }
  ObjectRef Schema() const { return Catalog().Schema(id.at(1)); }
  ObjectRef Table() const { return Schema().Child(id.at(2), ObjectType::kTable); }
  std::string Dotted() const { return Join(id, "."); }

  bool QueryFlag(std::string_view name) const {
    auto v = request.Query(name);
    return v && EqualsIgnoreCase(Trim(*v), "true");
  }
};

using Handler = Result<Response> (*)(Call&);

struct Route {
  std::string_view method;
  api::PathPattern path;
  Handler handler;
  bool has_body = true;
};

// ---- Fields of request bodies ------------------------------------------------------------------

Result<std::optional<std::string>> OptionalString(const Json& body, std::string_view field) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return InvalidArgument("Field '{}' must be a string", field);
  return std::optional<std::string>{it->get<std::string>()};
}

Result<std::optional<bool>> OptionalBool(const Json& body, std::string_view field) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return std::optional<bool>{};
  if (!it->is_boolean()) return InvalidArgument("Field '{}' must be a boolean", field);
  return std::optional<bool>{it->get<bool>()};
}

Result<model::Properties> PropertiesOf(const Json& body, std::string_view field = "properties") {
  model::Properties props;
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return props;
  if (!it->is_object()) return InvalidArgument("Field '{}' must be an object of strings", field);
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return InvalidArgument("Field '{}.{}' must be a string", field, k);
    props[k] = v.get<std::string>();
  }
  return props;
}

// A mode field, lower-cased, checked against its values (the spec's modes are case-insensitive).
Result<std::string> ModeOf(const Json& body, std::string_view field, std::string_view fallback,
                           std::initializer_list<std::string_view> allowed) {
  CAIRN_ASSIGN_OR_RETURN(auto value, OptionalString(body, field));
  std::string mode = ToLower(Trim(value.value_or(std::string(fallback))));
  for (auto a : allowed) {
    if (mode == a) return mode;
  }
  std::vector<std::string> names(allowed.begin(), allowed.end());
  return InvalidArgument("Field '{}' is '{}'; expected one of {}", field, value.value_or(""),
                         Join(names, ", "));
}

Status RequireLevels(const Call& c, size_t min, size_t max, std::string_view what) {
  if (c.id.size() >= min && c.id.size() <= max) return Ok();
  return InvalidArgument(
      "Identifier '{}' has {} level(s); {} (namespaces are a catalog and its schemas, tables "
      "are catalog, schema and table)",
      Join(c.id, kDefaultDelimiter), c.id.size(), what);
}

Status RequireTable(const Call& c) {
  return RequireLevels(c, 3, 3, "a table identifier has 3: catalog, schema and table");
}

// A namespace of level 1 is a catalog of provider lakehouse-generic: after `action` on it is
// authorized (a denial comes before "does not exist"), its definition.
Result<model::Catalog> GenericCatalog(Call& c, Action action) {
  CAIRN_RETURN_IF_ERROR(c.objects.Authorize(c.caller, action, c.Catalog()));
  CAIRN_ASSIGN_OR_RETURN(model::Catalog catalog,
                         c.objects.metadata().LoadCatalog(c.metalake, c.id.at(0)));
  if (catalog.provider != kProvider) {
    return NotFound(EntityKind::kCatalog,
                    "Namespace {} does not exist: catalog {} has provider {}, not {}", c.id.at(0),
                    c.id.at(0), catalog.provider, kProvider);
  }
  return catalog;
}

// Properties shown of a catalog: never its secrets.
OrderedJson ShownProperties(const model::Properties& props) {
  OrderedJson out = OrderedJson::object();
  for (const auto& [k, v] : props) {
    if (k.find("password") != std::string::npos || k.find("secret") != std::string::npos ||
        k.find("access-key") != std::string::npos) {
      continue;
    }
    out[k] = v;
  }
  return out;
}

OrderedJson ToJson(const model::Properties& props) {
  OrderedJson out = OrderedJson::object();
  for (const auto& [k, v] : props) out[k] = v;
  return out;
}

// A location as Lance's object store reads it: local paths as `file:///...`.
std::string ClientLocation(std::string_view location) {
  if (std::string_view(location).starts_with("file:///")) return std::string(location);
  if (std::string_view(location).starts_with("file:")) {
    std::string_view path = location.substr(5);
    while (std::string_view(path).starts_with("//")) path.remove_prefix(1);
    return fmt::format("file://{}", path);
  }
  return std::string(location);
}

std::string LocationOf(const model::Table& table) {
  auto it = table.properties.find("location");
  return it == table.properties.end() ? "" : ClientLocation(it->second);
}

// A table's properties, its location as the client reads it.
OrderedJson TableProperties(const model::Table& table) {
  OrderedJson out = ToJson(table.properties);
  if (out.contains("location")) out["location"] = LocationOf(table);
  return out;
}

// What a client needs to reach the table's files on S3: the catalog's endpoint and region, and
// short-lived keys scoped to the table's location when the catalog vends them (read-write for
// who may modify the table). Nothing for local disk.
Result<OrderedJson> StorageOptions(Call& c, const model::Table& table, bool write,
                                   bool vend_requested, Response& response) {
  OrderedJson options = OrderedJson::object();
  auto location = table.properties.find("location");
  if (location == table.properties.end() || !std::string_view(location->second).starts_with("s3"))
    return options;
  CAIRN_ASSIGN_OR_RETURN(model::Catalog catalog,
                         c.objects.metadata().LoadCatalog(c.metalake, c.id.at(0)));
  const auto storage = storage::StorageOptions::FromProperties(catalog.properties);
  if (!storage.s3.endpoint.empty()) {
    options["aws_endpoint"] = storage.s3.endpoint;
    if (std::string_view(storage.s3.endpoint).starts_with("http://"))
      options["allow_http"] = "true";
  }
  options["aws_region"] = storage.s3.region;
  options["aws_virtual_hosted_style_request"] = storage.s3.path_style ? "false" : "true";
  if (!vend_requested) return options;
  CAIRN_ASSIGN_OR_RETURN(auto connector, c.objects.Resolve(c.Catalog()));
  auto* vendor = connector->Find<storage::CredentialVendor>();
  if (vendor == nullptr || !vendor->enabled()) return options;
  const auto level = write ? storage::AccessLevel::kReadWrite : storage::AccessLevel::kRead;
  CAIRN_ASSIGN_OR_RETURN(auto creds, vendor->Vend({location->second}, level, c.caller.ctx.now_ms));
  for (const auto& cred : creds) {
    auto get = [&](const char* key) {
      auto it = cred.info.find(key);
      return it == cred.info.end() ? std::string() : it->second;
    };
    options["aws_access_key_id"] = get("s3-access-key-id");
    options["aws_secret_access_key"] = get("s3-secret-access-key");
    if (auto token = get("s3-session-token"); !token.empty()) options["aws_session_token"] = token;
    if (cred.expire_time_ms > 0) {
      options["expires_at_millis"] = std::to_string(cred.expire_time_ms);
    }
  }
  response.audit_note =
      fmt::format("vended {} {} credentials for {}", Join(vendor->providers(), ","),
                  write ? "read-write" : "read-only", location->second);
  response.vended_access = write ? "read-write" : "read-only";
  return options;
}

// Sorted names from after `page_token`, at most `limit` of them; the token of the next page when
// more remain.
Result<OrderedJson> Page(const Call& c, std::vector<std::string> names, std::string_view field) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (auto token = c.request.Query("page_token"); token && !token->empty()) {
    names.erase(names.begin(), std::upper_bound(names.begin(), names.end(), *token));
  }
  std::optional<std::string> next;
  if (auto limit = c.request.Query("limit"); limit && !limit->empty()) {
    auto parsed = ParseInt64(*limit);
    if (!parsed || *parsed < 1) {
      return InvalidArgument("Query parameter 'limit' must be a positive integer, not '{}'",
                             *limit);
    }
    if (static_cast<int64_t>(names.size()) > *parsed) {
      names.resize(static_cast<size_t>(*parsed));
      next = names.back();
    }
  }
  OrderedJson out{{field, names}};
  if (next) out["page_token"] = *next;
  return out;
}

// ---- Namespaces --------------------------------------------------------------------------------

Result<Response> ListNamespaces(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireLevels(c, 0, 2, "a namespace has at most 2"));
  std::vector<std::string> names;
  if (c.id.empty()) {
    CAIRN_RETURN_IF_ERROR(c.objects.Authorize(c.caller, Action::kUseMetalake, c.Metalake()));
    CAIRN_ASSIGN_OR_RETURN(auto catalogs, c.objects.metadata().ListCatalogs(c.metalake));
    for (const auto& catalog : catalogs) {
      if (catalog.provider == kProvider) names.push_back(catalog.name);
    }
    CAIRN_ASSIGN_OR_RETURN(names, c.objects.Visible(c.caller, Action::kLoadCatalog, c.Metalake(),
                                                    std::move(names), ObjectType::kCatalog));
  } else if (c.id.size() == 1) {
    CAIRN_RETURN_IF_ERROR(GenericCatalog(c, Action::kLoadCatalog));
    CAIRN_ASSIGN_OR_RETURN(names, c.objects.ListSchemas(c.caller, c.Catalog()));
  } else {
    // A schema holds tables, not namespaces.
    CAIRN_RETURN_IF_ERROR(GenericCatalog(c, Action::kLoadCatalog));
    CAIRN_RETURN_IF_ERROR(c.objects.LoadSchema(c.caller, c.Schema()));
  }
  CAIRN_ASSIGN_OR_RETURN(OrderedJson page, Page(c, std::move(names), "namespaces"));
  return Reply(page);
}

Result<model::Catalog> CreateCatalog(Call& c, const model::Properties& props) {
  model::Catalog catalog;
  catalog.metalake = c.metalake;
  catalog.name = c.id.at(0);
  catalog.type = model::CatalogType::kRelational;
  catalog.provider = std::string(kProvider);
  if (auto comment = props.find("comment"); comment != props.end()) {
    catalog.comment = comment->second;
  }
  catalog.properties = props;
  catalog.properties.erase("comment");
  return c.objects.metadata().CreateCatalog(c.caller.ctx, catalog);
}

Result<model::Schema> CreateSchema(Call& c, const model::Properties& props) {
  model::Schema schema;
  schema.name = c.id.at(1);
  if (auto comment = props.find("comment"); comment != props.end()) {
    schema.comment = comment->second;
  }
  schema.properties = props;
  schema.properties.erase("comment");
  return c.objects.CreateSchema(c.caller, c.Catalog(), schema);
}

model::Properties WithComment(model::Properties props, const std::optional<std::string>& comment) {
  if (comment) props["comment"] = *comment;
  return props;
}

// Drops a catalog namespace: restrict refuses one with schemas; cascade drops them with their
// tables (the files of managed tables too).
Result<model::Catalog> DropCatalog(Call& c, bool cascade) {
  CAIRN_ASSIGN_OR_RETURN(model::Catalog catalog, GenericCatalog(c, Action::kManageCatalog));
  if (!cascade) {
    CAIRN_ASSIGN_OR_RETURN(auto schemas, c.objects.Open<connector::SchemaCatalog>(
                                             c.caller, Action::kManageCatalog, c.Catalog()));
    CAIRN_ASSIGN_OR_RETURN(bool has_schemas, schemas->HasSchemas());
    if (has_schemas) {
      return MakeError(ErrorCode::kNotEmpty, EntityKind::kCatalog,
                       "Namespace {} is not empty: it has schemas (drop with behavior cascade)",
                       catalog.name);
    }
  }
  CAIRN_ASSIGN_OR_RETURN(
      bool dropped, c.objects.metadata().DropCatalog(c.caller.ctx, c.metalake, catalog.name, true));
  if (!dropped) return NotFound(EntityKind::kCatalog, "Namespace {} does not exist", catalog.name);
  return catalog;
}

Result<Response> CreateNamespace(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(std::string mode,
                         ModeOf(c.body, "mode", "create", {"create", "exist_ok", "overwrite"}));
  CAIRN_ASSIGN_OR_RETURN(model::Properties props, PropertiesOf(c.body));
  if (c.id.empty()) {
    return AlreadyExists(EntityKind::kCatalog, "The root namespace always exists");
  }
  CAIRN_RETURN_IF_ERROR(RequireLevels(c, 1, 2, "a namespace has at most 2"));
  if (c.id.size() == 1) {
    CAIRN_RETURN_IF_ERROR(c.objects.Authorize(c.caller, Action::kCreateCatalog, c.Metalake()));
    auto created = CreateCatalog(c, props);
    if (!created && created.error().code == ErrorCode::kAlreadyExists && mode != "create") {
      CAIRN_ASSIGN_OR_RETURN(model::Catalog existing, GenericCatalog(c, Action::kLoadCatalog));
      if (mode == "exist_ok") {
        return Reply(
            {{"properties", ShownProperties(WithComment(existing.properties, existing.comment))}});
      }
      CAIRN_RETURN_IF_ERROR(DropCatalog(c, true));
      created = CreateCatalog(c, props);
    }
    if (!created) return std::move(created).error();
    return Reply(
        {{"properties", ShownProperties(WithComment(created->properties, created->comment))}});
  }
  CAIRN_RETURN_IF_ERROR(GenericCatalog(c, Action::kLoadCatalog));
  auto created = CreateSchema(c, props);
  if (!created && created.error().code == ErrorCode::kAlreadyExists && mode != "create") {
    if (mode == "exist_ok") {
      CAIRN_ASSIGN_OR_RETURN(model::Schema existing, c.objects.LoadSchema(c.caller, c.Schema()));
      return Reply({{"properties", ToJson(WithComment(existing.properties, existing.comment))}});
    }
    CAIRN_RETURN_IF_ERROR(c.objects.DropSchema(c.caller, c.Schema(), true));
    created = CreateSchema(c, props);
  }
  if (!created) return std::move(created).error();
  return Reply({{"properties", ToJson(WithComment(created->properties, created->comment))}});
}

Result<Response> DescribeNamespace(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireLevels(c, 0, 2, "a namespace has at most 2"));
  if (c.id.empty()) {
    CAIRN_RETURN_IF_ERROR(c.objects.Authorize(c.caller, Action::kUseMetalake, c.Metalake()));
    return Reply({{"properties", OrderedJson::object()}});
  }
  CAIRN_ASSIGN_OR_RETURN(model::Catalog catalog, GenericCatalog(c, Action::kLoadCatalog));
  if (c.id.size() == 1) {
    return Reply(
        {{"properties", ShownProperties(WithComment(catalog.properties, catalog.comment))}});
  }
  CAIRN_ASSIGN_OR_RETURN(model::Schema schema, c.objects.LoadSchema(c.caller, c.Schema()));
  return Reply({{"properties", ToJson(WithComment(schema.properties, schema.comment))}});
}

Result<Response> DropNamespace(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(std::string mode, ModeOf(c.body, "mode", "fail", {"fail", "skip"}));
  CAIRN_ASSIGN_OR_RETURN(std::string behavior,
                         ModeOf(c.body, "behavior", "restrict", {"restrict", "cascade"}));
  if (c.id.empty()) return InvalidArgument("The root namespace cannot be dropped");
  CAIRN_RETURN_IF_ERROR(RequireLevels(c, 1, 2, "a namespace has at most 2"));
  const bool cascade = behavior == "cascade";
  auto missing = [&](const Error& e) -> Result<Response> {
    if (e.code == ErrorCode::kNotFound && mode == "skip") return Reply(OrderedJson::object());
    return e;
  };
  if (c.id.size() == 1) {
    auto dropped = DropCatalog(c, cascade);
    if (!dropped) return missing(dropped.error());
    return Reply(
        {{"properties", ShownProperties(WithComment(dropped->properties, dropped->comment))}});
  }
  if (auto catalog = GenericCatalog(c, Action::kLoadCatalog); !catalog) {
    return missing(catalog.error());
  }
  auto schema = c.objects.LoadSchema(c.caller, c.Schema());
  if (!schema) return missing(schema.error());
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.objects.DropSchema(c.caller, c.Schema(), cascade));
  if (!dropped) {
    return missing(NotFound(EntityKind::kSchema, "Namespace {} does not exist", c.Dotted()));
  }
  return Reply({{"properties", ToJson(WithComment(schema->properties, schema->comment))}});
}

Result<Response> NamespaceExists(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireLevels(c, 0, 2, "a namespace has at most 2"));
  if (c.id.empty()) {
    CAIRN_RETURN_IF_ERROR(c.objects.Authorize(c.caller, Action::kUseMetalake, c.Metalake()));
    return NoContent();
  }
  CAIRN_RETURN_IF_ERROR(GenericCatalog(c, Action::kLoadCatalog));
  if (c.id.size() == 2) CAIRN_RETURN_IF_ERROR(c.objects.LoadSchema(c.caller, c.Schema()));
  return NoContent();
}

// The connector of the table's catalog for the generic-table calls, `action` authorized.
Result<service::Opened<connector::GenericTableCatalog>> GenericTables(Call& c, Action action,
                                                                      const ObjectRef& ref) {
  auto opened = c.objects.Open<connector::GenericTableCatalog>(c.caller, action, ref);
  if (!opened && opened.error().code == ErrorCode::kUnsupported) {
    return NotFound(EntityKind::kCatalog, "Namespace {} does not exist: catalog {} is not of {}",
                    ref.catalog, ref.catalog, kProvider);
  }
  return opened;
}

Result<Response> ListTables(Call& c) {
  CAIRN_RETURN_IF_ERROR(
      RequireLevels(c, 2, 2, "tables are listed in a namespace of 2: catalog and schema"));
  CAIRN_ASSIGN_OR_RETURN(auto generic, GenericTables(c, Action::kLoadCatalog, c.Catalog()));
  CAIRN_ASSIGN_OR_RETURN(auto names, c.objects.ListTables(c.caller, c.Schema()));
  if (auto include = c.request.Query("include_declared");
      include && EqualsIgnoreCase(Trim(*include), "false")) {
    std::vector<std::string> written;
    for (const auto& name : names) {
      auto table = c.objects.LoadTable(c.caller, c.Schema().Child(name, ObjectType::kTable));
      if (!table) continue;
      auto declared = generic->IsOnlyDeclared(*table);
      if (declared && !*declared) written.push_back(name);
    }
    names = std::move(written);
  }
  CAIRN_ASSIGN_OR_RETURN(OrderedJson page, Page(c, std::move(names), "tables"));
  return Reply(page);
}

// ---- Tables ------------------------------------------------------------------------------------

// Whether the caller may write the table's files (and so gets read-write keys).
bool MayWrite(Call& c) {
  return c.objects.Authorize(c.caller, Action::kModifyTable, c.Table()).has_value();
}

Result<bool> VendRequested(const Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto vend, OptionalBool(c.body, "vend_credentials"));
  if (auto q = c.request.Query("vend_credentials"); q && EqualsIgnoreCase(Trim(*q), "false")) {
    return false;
  }
  return vend.value_or(true);
}

Result<Response> DeclareTable(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireTable(c));
  CAIRN_ASSIGN_OR_RETURN(auto location, OptionalString(c.body, "location"));
  CAIRN_ASSIGN_OR_RETURN(model::Properties props, PropertiesOf(c.body));
  CAIRN_ASSIGN_OR_RETURN(bool vend, VendRequested(c));
  CAIRN_RETURN_IF_ERROR(GenericTables(c, Action::kLoadCatalog, c.Catalog()));
  model::Table table;
  table.name = c.id.at(2);
  table.properties = std::move(props);
  if (auto comment = table.properties.find("comment"); comment != table.properties.end()) {
    table.comment = comment->second;
    table.properties.erase(comment);
  }
  table.properties["format"] = "lance";
  if (location) table.properties["location"] = *location;
  CAIRN_ASSIGN_OR_RETURN(model::Table created, c.objects.CreateTable(c.caller, c.Schema(), table));
  Response r;
  CAIRN_ASSIGN_OR_RETURN(OrderedJson options, StorageOptions(c, created, true, vend, r));
  OrderedJson body{{"location", LocationOf(created)}};
  if (!options.empty()) body["storage_options"] = std::move(options);
  body["properties"] = TableProperties(created);
  r.body = body.dump();
  return r;
}

Result<Response> DescribeTable(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireTable(c));
  CAIRN_ASSIGN_OR_RETURN(auto with_uri, OptionalBool(c.body, "with_table_uri"));
  CAIRN_ASSIGN_OR_RETURN(auto check_declared, OptionalBool(c.body, "check_declared"));
  CAIRN_ASSIGN_OR_RETURN(auto detailed, OptionalBool(c.body, "load_detailed_metadata"));
  (void)detailed;  // the schema and version live in the dataset's files, which the client reads
  if (auto v = c.body.find("version");
      v != c.body.end() && !v->is_null() && !v->is_number_integer()) {
    return InvalidArgument("Field 'version' must be an integer");
  }
  CAIRN_ASSIGN_OR_RETURN(bool vend, VendRequested(c));
  CAIRN_ASSIGN_OR_RETURN(auto generic, GenericTables(c, Action::kLoadTable, c.Table()));
  CAIRN_ASSIGN_OR_RETURN(model::Table table, c.objects.LoadTable(c.caller, c.Table()));
  Response r;
  CAIRN_ASSIGN_OR_RETURN(OrderedJson options, StorageOptions(c, table, MayWrite(c), vend, r));
  const std::string location = LocationOf(table);
  OrderedJson body{{"table", c.id.at(2)},
                   {"namespace", std::vector<std::string>{c.id.at(0), c.id.at(1)}},
                   {"location", location}};
  if (with_uri.value_or(false) || c.QueryFlag("with_table_uri")) body["table_uri"] = location;
  if (!options.empty()) body["storage_options"] = std::move(options);
  body["properties"] = TableProperties(table);
  if (check_declared.value_or(false) || c.QueryFlag("check_declared")) {
    CAIRN_ASSIGN_OR_RETURN(bool declared, generic->IsOnlyDeclared(table));
    body["is_only_declared"] = declared;
  }
  r.body = body.dump();
  return r;
}

Result<Response> RegisterTable(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireTable(c));
  CAIRN_ASSIGN_OR_RETURN(auto location, OptionalString(c.body, "location"));
  if (!location || Trim(*location).empty()) return InvalidArgument("Field 'location' is required");
  CAIRN_ASSIGN_OR_RETURN(std::string mode,
                         ModeOf(c.body, "mode", "create", {"create", "overwrite"}));
  CAIRN_ASSIGN_OR_RETURN(model::Properties props, PropertiesOf(c.body));
  CAIRN_ASSIGN_OR_RETURN(auto generic, GenericTables(c, Action::kCreateTable, c.Table()));
  model::Table table;
  table.name = c.id.at(2);
  table.properties = std::move(props);
  table.properties["format"] = "lance";
  table.properties["location"] = *location;
  table.properties["lance.register"] = "true";
  auto declared = generic->IsOnlyDeclared(table);
  if (!declared) {
    return InvalidArgument("Field 'location' ('{}') cannot be read: {}", *location,
                           declared.error().message);
  }
  if (*declared) {
    return InvalidArgument("Field 'location' ('{}') holds no Lance dataset (no _versions)",
                           *location);
  }
  auto created = c.objects.CreateTable(c.caller, c.Schema(), table);
  if (!created && created.error().code == ErrorCode::kAlreadyExists && mode == "overwrite") {
    CAIRN_ASSIGN_OR_RETURN(auto tables, GenericTables(c, Action::kDropTable, c.Table()));
    CAIRN_RETURN_IF_ERROR(tables->DeregisterTable(c.caller.ctx, c.id.at(1), c.id.at(2)));
    c.objects.Publish(c.caller, service::ChangeType::kDropped, c.Table());
    created = c.objects.CreateTable(c.caller, c.Schema(), table);
  }
  if (!created) return std::move(created).error();
  return Reply({{"location", LocationOf(*created)}, {"properties", TableProperties(*created)}});
}

OrderedJson Removed(const Call& c, const model::Table& table) {
  return OrderedJson{
      {"id", c.id}, {"location", LocationOf(table)}, {"properties", TableProperties(table)}};
}

Result<Response> DeregisterTable(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireTable(c));
  CAIRN_ASSIGN_OR_RETURN(auto tables, GenericTables(c, Action::kDropTable, c.Table()));
  CAIRN_ASSIGN_OR_RETURN(model::Table table,
                         tables->DeregisterTable(c.caller.ctx, c.id.at(1), c.id.at(2)));
  c.objects.Publish(c.caller, service::ChangeType::kDropped, c.Table());
  return Reply(Removed(c, table));
}

Result<Response> TableExists(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireTable(c));
  CAIRN_RETURN_IF_ERROR(GenericTables(c, Action::kLoadTable, c.Table()));
  CAIRN_RETURN_IF_ERROR(c.objects.LoadTable(c.caller, c.Table()));
  return NoContent();
}

Result<Response> DropTable(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireTable(c));
  CAIRN_RETURN_IF_ERROR(GenericTables(c, Action::kDropTable, c.Table()));
  CAIRN_ASSIGN_OR_RETURN(model::Table table, c.objects.LoadTable(c.caller, c.Table()));
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.objects.DropTable(c.caller, c.Table(), true));
  if (!dropped) return NotFound(EntityKind::kTable, "Table {} does not exist", c.Dotted());
  return Reply(Removed(c, table));
}

// Creating a table from an Arrow IPC stream means writing the dataset's first files: the client
// writes them (declare, then write at the location), never this server.
Result<Response> CreateTableWithData(Call& c) {
  CAIRN_RETURN_IF_ERROR(RequireTable(c));
  CAIRN_RETURN_IF_ERROR(GenericTables(c, Action::kCreateTable, c.Table()));
  return Unsupported(
      "Table operation 'create' (an Arrow IPC body) is not supported: this server never writes "
      "a dataset's files; declare the table and write the dataset at its location (pylance "
      "write_dataset does)");
}

Result<Response> UnsupportedTableOperation(Call& c) {
  auto path = api::PathSegments(c.request.path, "/lance");
  std::string op = path && path->size() >= 4 ? Join({path->begin() + 3, path->end()}, "/") : "";
  return Unsupported(
      "Table operation '{}' is not supported: it reads or changes the dataset's files, which "
      "Lance clients do themselves at the table's location",
      op);
}

const std::vector<Route>& Routes() {
  static const std::vector<Route> routes = [] {
    std::vector<Route> r;
    auto add = [&](std::string_view method, std::string_view path, Handler h, bool body) {
      r.push_back(Route{method, api::PathPattern(path), h, body});
    };
    add("GET", "/v1/namespace/list", ListNamespaces, false);
    add("GET", "/v1/namespace/{id}/list", ListNamespaces, false);
    add("POST", "/v1/namespace/{id}/create", CreateNamespace, true);
    add("POST", "/v1/namespace/{id}/describe", DescribeNamespace, true);
    add("POST", "/v1/namespace/{id}/drop", DropNamespace, true);
    add("POST", "/v1/namespace/{id}/exists", NamespaceExists, true);
    add("GET", "/v1/namespace/{id}/table/list", ListTables, false);
    add("POST", "/v1/table/{id}/declare", DeclareTable, true);
    add("POST", "/v1/table/{id}/create-empty", DeclareTable, true);
    add("POST", "/v1/table/{id}/describe", DescribeTable, true);
    add("POST", "/v1/table/{id}/register", RegisterTable, true);
    add("POST", "/v1/table/{id}/deregister", DeregisterTable, true);
    add("POST", "/v1/table/{id}/exists", TableExists, true);
    add("POST", "/v1/table/{id}/drop", DropTable, true);
    add("POST", "/v1/table/{id}/create", CreateTableWithData, false);
    // Every other table operation of the spec (data, columns, indexes, versions, tags, ...).
    add("*", "/v1/table/{id}/{op}", UnsupportedTableOperation, false);
    add("*", "/v1/table/{id}/{op}/{sub}", UnsupportedTableOperation, false);
    add("*", "/v1/table/{id}/{op}/{name}/{sub}", UnsupportedTableOperation, false);
    return r;
  }();
  return routes;
}

// The segments after `/lance`, and the metalake they name (`/lance/{metalake}/v1/...`).
struct Split {
  std::string metalake;
  std::vector<std::string> segments;
};

std::optional<Split> SplitPath(std::string_view path) {
  auto seg = api::PathSegments(path, "/lance");
  if (!seg) return std::nullopt;
  Split s;
  if (!seg->empty() && (*seg)[0] != "v1") {
    s.metalake = (*seg)[0];
    seg->erase(seg->begin());
  }
  s.segments = std::move(*seg);
  return s;
}

Result<std::vector<std::string>> Levels(std::string_view raw, std::string_view delimiter) {
  std::vector<std::string> levels;
  if (raw == delimiter) return levels;
  size_t start = 0;
  while (true) {
    const size_t at = raw.find(delimiter, start);
    const std::string_view level =
        raw.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start);
    if (level.empty()) {
      return InvalidArgument("Identifier '{}' has an empty level (delimiter '{}')", raw, delimiter);
    }
    levels.emplace_back(level);
    if (at == std::string_view::npos) break;
    start = at + delimiter.size();
  }
  return levels;
}

}  // namespace

std::optional<RouteDescription> DescribeRoute(std::string_view method, std::string_view path) {
  auto split = SplitPath(path);
  if (!split) return std::nullopt;
  auto found = api::FindRoute<Route>(Routes(), method, split->segments);
  if (found.route == nullptr) return std::nullopt;
  RouteDescription d;
  d.operation = fmt::format("{} /lance{}", method, found.route->path.text());
  if (!split->metalake.empty()) d.names.push_back(split->metalake);
  if (!found.params.empty()) {
    auto levels = Levels(found.params[0], kDefaultDelimiter);
    if (levels) {
      for (auto& l : *levels) d.names.push_back(std::move(l));
    }
  }
  return d;
}

LanceApi::LanceApi(service::ObjectService& objects, LanceApiOptions options)
    : objects_(objects), options_(std::move(options)) {}

Response LanceApi::ErrorResponse(const Error& error, std::string_view instance) {
  const Mapped m = MapError(error);
  return ErrorBody(m.status, m.code, error.message, instance);
}

Response LanceApi::TransportError(int status, std::string_view message, std::string_view instance) {
  const int code = status == 401   ? kUnauthenticated
                   : status == 403 ? kPermissionDenied
                   : status == 503 ? kServiceUnavailable
                   : status >= 500 ? kInternalCode
                                   : kInvalidInput;
  return ErrorBody(status, code, message, instance);
}

Response LanceApi::Handle(const Request& request, const governance::Principal& principal) const {
  try {
    return Dispatch(request, principal);
  } catch (const nlohmann::json::exception& e) {
    spdlog::warn("event=json_type_error interface=lance request_id={} path=\"{}\" error=\"{}\"",
                 request.request_id, request.path, e.what());
    return ErrorBody(400, kInvalidInput,
                     "Malformed request: a field of the request body has the wrong JSON type",
                     request.path);
  }
}

Response LanceApi::Dispatch(const Request& request, const governance::Principal& principal) const {
  auto split = SplitPath(request.path);
  if (!split) {
    return ErrorBody(400, kInvalidInput, "Malformed percent-encoding in the request path",
                     request.path);
  }
  auto found = api::FindRoute<Route>(Routes(), request.method, split->segments);
  if (found.route == nullptr) {
    if (found.path_known) {
      return ErrorBody(405, kInvalidInput,
                       fmt::format("Method {} is not allowed on {}", request.method, request.path),
                       request.path);
    }
    return ErrorBody(404, kUnsupportedCode,
                     fmt::format("No Lance REST operation {} {}", request.method, request.path),
                     request.path);
  }
  auto fail = [&](const Error& e) { return ErrorResponse(e, request.path); };

  // The metalake: named in the path, else configured, else the only one.
  std::string metalake = split->metalake.empty() ? options_.metalake : split->metalake;
  if (metalake.empty()) {
    auto all = objects_.metadata().ListMetalakes();
    if (!all) return fail(all.error());
    if (all->size() != 1) {
      return fail(MakeError(all->empty() ? ErrorCode::kNotFound : ErrorCode::kInvalidArgument,
                            EntityKind::kMetalake,
                            "The server has {} metalakes: set cairn.lance.metalake, or address "
                            "/lance/{{metalake}}/v1",
                            all->size()));
    }
    metalake = all->front().name;
  }

  Call c{request,
         service::Caller{principal, {principal.user, NowMillis(), "lance"}},
         objects_,
         std::move(metalake),
         {}};
  if (!found.params.empty()) {
    const std::string delimiter =
        request.Query("delimiter").value_or(std::string(kDefaultDelimiter));
    if (delimiter.empty()) {
      return fail(InvalidArgument("Query parameter 'delimiter' must not be empty"));
    }
    auto levels = Levels(found.params[0], delimiter);
    if (!levels) return fail(levels.error());
    c.id = std::move(*levels);
  }
  if (found.route->has_body && !Trim(request.body).empty()) {
    auto body = json::ParseJson(request.body, "Malformed request body: not JSON");
    if (!body) return fail(body.error());
    if (!body->is_object()) return fail(InvalidArgument("The request body must be a JSON object"));
    c.body = std::move(*body);
    // The identifier is in the path and may be in the body: both must name the same object.
    if (auto id = c.body.find("id"); id != c.body.end() && !id->is_null()) {
      if (!id->is_array() ||
          !std::all_of(id->begin(), id->end(), [](const Json& l) { return l.is_string(); })) {
        return fail(InvalidArgument("Field 'id' must be an array of strings"));
      }
      if (id->get<std::vector<std::string>>() != c.id) {
        return fail(
            InvalidArgument("Field 'id' ({}) does not match the identifier in the path ({})",
                            id->dump(), Join(c.id, kDefaultDelimiter)));
      }
    }
  }
  std::vector<std::string> names{c.metalake};
  names.insert(names.end(), c.id.begin(), c.id.end());
  auto result = found.route->handler(c);
  Response response = result ? std::move(*result) : fail(result.error());
  response.audit_object = Join(names, ".");
  return response;
}

}  // namespace cairn::api::lance
