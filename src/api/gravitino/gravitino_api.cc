// SPDX-License-Identifier: Apache-2.0
#include "api/gravitino/gravitino_api.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "api/gravitino/errors.h"
#include "api/gravitino/routes.h"
#include "api/gravitino/serde.h"
#include "common/log.h"
#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "connector/partition_catalog.h"
#include "iceberg/table_metadata.h"
#include "json/json_util.h"
#include "model/kinds.h"
#include "storage/credentials.h"
#include "storage/file_io.h"

namespace cairn::api::gravitino {

using http::Request;
using http::Response;
using service::Action;
using service::ChangeType;
using service::ObjectRef;

// ---- Call
// -----------------------------------------------------------------------------------------

const std::string& Call::Param(std::string_view name) const {
  static const std::string kNone;
  const auto& names = route->path.Parameters();
  for (size_t i = 0; i < names.size() && i < params.size(); ++i) {
    if (names[i] == name) return params[i];
  }
  return kNone;
}

ObjectRef Call::Ref(ObjectType kind) const {
  ObjectRef ref{Param("metalake"), Param("catalog"), {}, "", kind};
  if (const std::string& schema = Param("schema"); !schema.empty()) ref.schema = {schema};
  // A leaf object is named by the parameter of its kind's name ({table}, {fileset}, ...); a
  // partition's by its table's.
  const model::KindDescriptor& row = model::Describe(kind);
  if (row.parent == model::ObjectKind::kSchema) ref.name = Param(row.name);
  return ref;
}

bool Call::Flag(std::string_view name) const {
  auto v = request.Query(name);
  return v && EqualsIgnoreCase(Trim(*v), "true");
}

Result<PageRequest> PageRequestOf(const Call& c) {
  PageRequest out;
  auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 18 &&
           std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  };
  if (auto size = c.request.Query("pageSize")) {
    if (!digits(*size) || std::stoll(std::string(*size)) < 1 ||
        std::stoll(std::string(*size)) > 10000) {
      return InvalidArgument("Query parameter 'pageSize' must be an integer from 1 to 10000");
    }
    out.limit = static_cast<int>(std::stoll(std::string(*size)));
  }
  if (auto token = c.request.Query("pageToken"); token && !token->empty()) {
    if (!digits(*token)) return InvalidArgument("Query parameter 'pageToken' is not a page token");
    out.after = std::stoll(std::string(*token));
  }
  return out;
}

Result<Response> ObjectPageReply(const service::ObjectPage& page) {
  // Written out directly: a page holds up to 10,000 objects, and a JSON value per object costs
  // more than the store read of the page.
  std::string body = R"({"code":0,"metadataObjects":[)";
  body.reserve(body.size() + page.objects.size() * 48);
  for (size_t i = 0; i < page.objects.size(); ++i) {
    if (i > 0) body += ',';
    body += R"({"fullName":)";
    json::AppendQuoted(body, page.objects[i].full_name);
    body += R"(,"type":)";
    json::AppendQuoted(body, model::Describe(page.objects[i].type).name);
    body += '}';
  }
  body += ']';
  if (page.next) body += fmt::format(R"(,"nextPageToken":"{}")", *page.next);
  body += '}';
  Response r;
  r.body = std::move(body);
  return r;
}

Status Call::Authorize(Action action, ObjectType kind) const {
  return objects.Authorize(caller, action, Ref(kind));
}

OrderedJson Identifiers(const std::vector<std::string>& ns, const std::vector<std::string>& names) {
  OrderedJson arr = OrderedJson::array();
  for (const auto& n : names) arr.push_back(OrderedJson{{"namespace", ns}, {"name", n}});
  return OrderedJson{{"identifiers", std::move(arr)}};
}

namespace {

// `pageSize` of a name list: 1..10000.
Result<size_t> NamePageSize(std::string_view text) {
  auto n = ParseInt64(text);
  if (!n || *n < 1 || *n > 10000) {
    return InvalidArgument("Query parameter 'pageSize' must be an integer from 1 to 10000");
  }
  return static_cast<size_t>(*n);
}

// A page as Identifiers, with the page's last name as the token of the next when more follow.
Result<Response> NamePageReply(const std::vector<std::string>& ns, const connector::NamePage& page) {
  OrderedJson body = Identifiers(ns, page.names);
  if (page.more && !page.names.empty()) body["nextPageToken"] = page.names.back();
  return Reply(std::move(body));
}

}  // namespace

Result<Response> NameListReply(const Call& c, const std::vector<std::string>& ns,
                               std::vector<std::string> names) {
  const auto size = c.request.Query("pageSize");
  const auto token = c.request.Query("pageToken");
  const auto contains = c.request.Query("nameContains");
  if (!size && !token && !contains) return Reply(Identifiers(ns, names));
  size_t limit = names.size() + 1;  // no pageSize: every name that matches
  if (size) {
    CAIRN_ASSIGN_OR_RETURN(limit, NamePageSize(*size));
  }
  if (contains && !contains->empty()) {
    const std::string needle = ToLower(*contains);
    std::erase_if(names, [&](const std::string& n) {
      return ToLower(n).find(needle) == std::string::npos;
    });
  }
  return NamePageReply(ns, connector::PageOfNames(std::move(names), token.value_or(""), limit));
}

Result<Response> SchemaChildrenReply(const Call& c, std::vector<std::string> names) {
  return NameListReply(c, {c.Param("metalake"), c.Param("catalog"), c.Param("schema")},
                       std::move(names));
}

namespace {

Response OkEmpty() { return Ok(OrderedJson::object()); }

Response Dropped(bool dropped) { return Ok(OrderedJson{{"dropped", dropped}}); }

// False when the client asks, in `Accept: application/vnd.gravitino.vN+json`, for an API version
// this server does not speak.
bool AcceptsV1(const Request& r) {
  auto accept = r.Header("Accept");
  if (!accept) return true;
  constexpr std::string_view kPrefix = "application/vnd.gravitino.v";
  const size_t pos = accept->find(kPrefix);
  if (pos == std::string::npos) return true;
  const size_t start = pos + kPrefix.size();
  const size_t end = accept->find('+', start);
  return accept->substr(start, end - start) == "1";
}

std::optional<std::vector<std::string>> PathSegments(std::string_view path) {
  return api::PathSegments(path, "/api");
}

api::RouteMatch<Route> Match(std::string_view method, const std::vector<std::string>& seg) {
  const auto& routes = Routes();
  return api::FindRoute(std::span<const Route>(routes), method, seg);
}

// The path parameter that names an object of `kind`, and the kind and parameters of its parent,
// for Gravitino's message template ("... operation [LOAD] under schema [c.s] ...").
struct Subject {
  std::string_view name_param;
  EntityKind parent_kind;
  std::vector<std::string_view> parent_params;
};

// The leaf kind of a schema whose errors are about `kind` (kTable for a partition's table, and for
// kinds above the leaf level, whose checks take no leaf).
ObjectType LeafKindOf(EntityKind kind) {
  for (const auto& row : model::kKinds) {
    if (row.error_kind == kind && row.parent == model::ObjectKind::kSchema) return row.kind;
  }
  return ObjectType::kTable;
}

Subject SubjectOf(EntityKind kind) {
  switch (kind) {
    case EntityKind::kMetalake:
      return {"metalake", EntityKind::kNone, {}};
    case EntityKind::kCatalog:
      return {"catalog", EntityKind::kMetalake, {"metalake"}};
    case EntityKind::kSchema:
      return {"schema", EntityKind::kCatalog, {"catalog"}};
    case EntityKind::kPartition:
      return {"partition", EntityKind::kTable, {"catalog", "schema", "table"}};
    case EntityKind::kUser:
      return {"user", EntityKind::kMetalake, {"metalake"}};
    case EntityKind::kGroup:
      return {"group", EntityKind::kMetalake, {"metalake"}};
    case EntityKind::kRole:
      return {"role", EntityKind::kMetalake, {"metalake"}};
    case EntityKind::kMetadataObject:
    case EntityKind::kStatistic:  // the statistics of the object `fullName`
      return {"fullName", EntityKind::kMetalake, {"metalake"}};
    case EntityKind::kTag:
      return {"tag", EntityKind::kMetalake, {"metalake"}};
    case EntityKind::kPolicy:
      return {"policy", EntityKind::kMetalake, {"metalake"}};
    case EntityKind::kJobTemplate:
      return {"template", EntityKind::kMetalake, {"metalake"}};
    case EntityKind::kJob:
      return {"jobId", EntityKind::kMetalake, {"metalake"}};
    default:
      // Any other leaf kind of a schema (views, topics, models, functions): as tables.
      if (const ObjectType leaf = LeafKindOf(kind); model::Describe(leaf).error_kind == kind) {
        return {model::Describe(leaf).name, EntityKind::kSchema, {"catalog", "schema"}};
      }
      return {"", EntityKind::kNone, {}};
  }
}

// The error template of a call, from its route: the object the path names ("*" for a list, to be
// named by the handler for a create), and its parent.
Operation OperationOf(const Call& c) {
  const Route& r = *c.route;
  const Subject subject = SubjectOf(r.kind);
  Operation op{r.kind, "", std::string(r.op), subject.parent_kind, ""};
  op.name = c.Param(subject.name_param);
  if (op.name.empty() && r.op == "LIST") op.name = "*";
  std::vector<std::string> parent;
  for (auto p : subject.parent_params) parent.push_back(c.Param(p));
  op.parent = Join(parent, ".");
  return op;
}

Response NoRoute(const Request& request) {
  return PlainErrorResponse(
      404, 1003, "NotFoundException",
      fmt::format("No endpoint matches {} {}", request.method, DisplayPath(request.path)));
}

Response NotAllowed(const Request& request) {
  return PlainErrorResponse(
      405, 1006, "UnsupportedOperationException",
      fmt::format("Method {} is not allowed on {}", request.method, DisplayPath(request.path)));
}

}  // namespace

GravitinoApi::GravitinoApi(service::ObjectService& objects, ApiInfo info,
                           std::function<bool()> ready)
    : objects_(objects), info_(std::move(info)), ready_(std::move(ready)) {}

Response GravitinoApi::Health(std::string_view which) const {
  const bool ready = ready_();
  OrderedJson http_check{
      {"name", "httpServer"}, {"status", "up"}, {"details", OrderedJson::object()}};
  OrderedJson store_check{{"name", "entityStore"},
                          {"status", ready ? "up" : "down"},
                          {"details", OrderedJson::object()}};
  OrderedJson checks = OrderedJson::array();
  bool up = true;
  if (which != "ready") checks.push_back(http_check);
  if (which != "live") {
    checks.push_back(store_check);
    up = ready;
  }
  Response r = Ok(OrderedJson{{"status", up ? "up" : "down"}, {"checks", std::move(checks)}});
  if (!up) r.status = 503;
  return r;
}

Response GravitinoApi::Handle(const Request& request,
                              const governance::Principal& principal) const {
  try {
    return Dispatch(request, principal);
  } catch (const nlohmann::json::exception& e) {
    // A reader that trusted a field's JSON type. The client learns only that its request was
    // malformed; the library's text (which names no field) is for the server log.
    spdlog::warn(
        "event=json_type_error interface=gravitino request_id={} method={} path=\"{}\" "
        "error=\"{}\"",
        request.request_id, request.method, request.path, e.what());
    return PlainErrorResponse(
        400, 1001, "IllegalArgumentException",
        "Malformed json request: a field of the request body has the wrong JSON type");
  }
}

// Match the route; its authorize step (before the body is read); its handler; the one place an
// Error becomes Gravitino's error envelope.
Response GravitinoApi::Dispatch(const Request& request,
                                const governance::Principal& principal) const {
  if (!AcceptsV1(request)) {
    Response r;
    r.status = 406;
    r.content_type = "text/plain";
    r.body = "Unsupported version";
    return r;
  }
  auto seg = PathSegments(request.path);
  if (!seg) {
    return PlainErrorResponse(400, 1001, "IllegalArgumentException",
                              "Malformed percent-encoding in the request path");
  }
  service::Authorizer& authz = objects_.authorizer();
  auto found = Match(request.method, *seg);
  // Users, groups, roles, permissions, owners and object roles exist only with authorization;
  // so does every other path of those areas (404 or 405 with it on).
  static const std::set<std::string, std::less<>> kAccessAreas = {"users", "groups", "roles",
                                                                  "permissions", "owners"};
  const bool access_area = found.route == nullptr && seg->size() >= 3 && (*seg)[0] == "metalakes" &&
                           kAccessAreas.count((*seg)[2]) > 0;
  if (!authz.enabled() &&
      ((found.route != nullptr && found.route->needs_authorization) || access_area)) {
    return PlainErrorResponse(
        405, 1006, "UnsupportedOperationException",
        "You should set 'cairn.authorization.enable' to true in the server configuration to enable "
        "the authorization of the system, otherwise these interfaces can't work.");
  }
  if (found.route == nullptr) return found.path_known ? NotAllowed(request) : NoRoute(request);
  Call c{request,
         principal,
         service::Caller{
             principal,
             {principal.user, NowMillis(), request.via.empty() ? "gravitino" : request.via}},
         objects_,
         objects_.metadata(),
         authz,
         *this,
         found.route,
         std::move(found.params)};
  c.op = OperationOf(c);
  if (c.route->action) {
    auto s = c.Authorize(*c.route->action, LeafKindOf(c.route->kind));
    if (!s) return ErrorResponse(s.error(), c.op);
  }
  auto response = c.route->handler(c);
  if (!response) return ErrorResponse(response.error(), c.op);
  return std::move(*response);
}

// The routes matched in order: the service's own, then objects by depth, filesets and access
// control. Dispatch, the authorize step, the error templates and the audit names come from here.
const std::vector<Route>& Routes() {
  static const std::vector<Route> routes = [] {
    std::vector<Route> all;
    for (auto area : kRouteAreas) {
      for (auto& r : area()) all.push_back(std::move(r));
    }
    return all;
  }();
  return routes;
}

std::optional<RouteDescription> DescribeRoute(std::string_view method, std::string_view path) {
  auto seg = PathSegments(path);
  if (!seg) return std::nullopt;
  auto found = Match(method, *seg);
  if (found.route == nullptr) return std::nullopt;
  RouteDescription d;
  // The text of a route with one method is built once: this runs for every audited request.
  static const std::vector<std::string> kOperations = [] {
    std::vector<std::string> out;
    for (const auto& r : Routes()) {
      out.push_back(r.method == "*" ? std::string()
                                    : fmt::format("{} /api{}", r.method, r.path.text()));
    }
    return out;
  }();
  const std::string& known = kOperations[static_cast<size_t>(found.route - Routes().data())];
  d.operation =
      known.empty() ? fmt::format("{} /api{}", method, found.route->path.text()) : known;
  d.creates = found.route->op == "CREATE" || found.route->op == "ADD";
  // The object is named by its path; an owner's or role's object by its full name alone.
  const auto& names = found.route->path.Parameters();
  for (size_t i = 0; i < names.size() && i < found.params.size(); ++i) {
    if (names[i] != "type") d.names.push_back(std::move(found.params[i]));
  }
  return d;
}

namespace {
Result<Response> Credentials(Call& c);
}  // namespace

// ---- Service endpoints
// ----------------------------------------------------------------------------

namespace {

Result<Response> GetVersion(Call& c) {
  const ApiInfo& info = c.api.info();
  return Reply(OrderedJson{{"version", OrderedJson{{"version", info.version},
                                                   {"compileDate", info.compile_date},
                                                   {"gitCommit", info.git_commit}}}});
}

// `/health`, `/health/live` or `/health/ready`.
Result<Response> GetHealth(Call& c) {
  const std::string_view path = c.route->path.text();
  const size_t slash = path.rfind('/');
  const std::string_view last = path.substr(slash + 1);
  return c.api.Health(last == "health" ? "" : last);
}

Result<Response> GetMe(Call& c) {
  return Reply(OrderedJson{{"principal", c.caller.ctx.principal}});
}

}  // namespace

std::vector<Route> ServiceRoutes() {
  using K = EntityKind;
  return {
      {"GET", api::PathPattern("/version"), K::kNone, "", std::nullopt, GetVersion},
      {"GET", api::PathPattern("/health"), K::kNone, "", std::nullopt, GetHealth},
      {"GET", api::PathPattern("/health/live"), K::kNone, "", std::nullopt, GetHealth},
      {"GET", api::PathPattern("/health/ready"), K::kNone, "", std::nullopt, GetHealth},
      {"GET", api::PathPattern("/authn/me"), K::kNone, "", std::nullopt, GetMe},
  };
}

// ---- Metalakes
// ------------------------------------------------------------------------------------

namespace {

Result<Response> ListMetalakes(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto list, c.service.ListMetalakes());
  OrderedJson arr = OrderedJson::array();
  for (const auto& m : list) {
    if (c.authz.enabled()) {
      auto target = c.authz.Resolve(m.name);
      if (!target && target.error().code == ErrorCode::kNotFound) continue;  // dropped since
      if (!target) return std::move(target).error();
      CAIRN_ASSIGN_OR_RETURN(bool can_see, c.authz.CanSeeMetalake(c.principal, target->metalake));
      if (!can_see) continue;
    }
    arr.push_back(MetalakeToJson(m));
  }
  return Reply(OrderedJson{{"metalakes", std::move(arr)}});
}

Result<Response> CreateMetalake(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  model::Metalake m;
  CAIRN_ASSIGN_OR_RETURN(m.name, RequiredString(body, "name"));
  c.op.name = m.name;
  CAIRN_ASSIGN_OR_RETURN(m.comment, OptionalString(body, "comment"));
  CAIRN_ASSIGN_OR_RETURN(m.properties, PropertiesFromJson(body, "properties"));
  if (c.authz.enabled() && !c.authz.access().IsServiceAdmin(c.principal.user)) {
    return MakeError(ErrorCode::kPermissionDenied, EntityKind::kNone,
                     "User '{}' is not a service admin and cannot create metalakes",
                     c.principal.user);
  }
  CAIRN_ASSIGN_OR_RETURN(model::Metalake created, c.service.CreateMetalake(c.caller.ctx, m));
  if (c.authz.enabled()) {
    // The creator owns the metalake and is its first user.
    auto target = c.authz.Resolve(m.name);
    if (target) (void)c.authz.access().AddUser(target->metalake, c.principal.user, created.audit);
  }
  return Reply(OrderedJson{{"metalake", MetalakeToJson(created)}});
}

Result<Response> LoadMetalake(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Metalake m, c.service.LoadMetalake(c.Param("metalake")));
  return Reply(OrderedJson{{"metalake", MetalakeToJson(m)}});
}

Result<Response> AlterMetalake(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto changes, EntityUpdatesFromJson(body, EntityKind::kMetalake));
  CAIRN_ASSIGN_OR_RETURN(model::Metalake m,
                         c.service.AlterMetalake(c.caller.ctx, c.Param("metalake"), changes));
  return Reply(OrderedJson{{"metalake", MetalakeToJson(m)}});
}

// PATCH {"inUse": bool} of a metalake or catalog: the operation is ENABLE or DISABLE.
Result<bool> InUseOf(Call& c, const Json& body) {
  auto in_use = body.find("inUse");
  if (in_use == body.end() || !in_use->is_boolean()) {
    return InvalidArgument("Field 'inUse' is required and must be a boolean");
  }
  c.op.op = in_use->get<bool>() ? "ENABLE" : "DISABLE";
  return in_use->get<bool>();
}

Result<Response> SetMetalakeInUse(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(bool in_use, InUseOf(c, body));
  CAIRN_RETURN_IF_ERROR(c.Authorize(Action::kManageMetalake));
  CAIRN_RETURN_IF_ERROR(c.service.SetMetalakeInUse(c.caller.ctx, c.Param("metalake"), in_use));
  return OkEmpty();
}

Result<Response> DropMetalake(Call& c) {
  const std::string& ml = c.Param("metalake");
  // Dropping a metalake that is not there is no denial: the answer is `dropped: false`.
  if (c.authz.enabled() && c.service.LoadMetalake(ml)) {
    CAIRN_RETURN_IF_ERROR(c.Authorize(Action::kManageMetalake));
  }
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.service.DropMetalake(c.caller.ctx, ml, c.Flag("force")));
  return Dropped(dropped);
}

// ---- Catalogs
// -------------------------------------------------------------------------------------

Result<model::Catalog> CatalogFromBody(const std::string& metalake, const Json& body) {
  model::Catalog c;
  c.metalake = metalake;
  CAIRN_ASSIGN_OR_RETURN(c.name, RequiredString(body, "name"));
  CAIRN_ASSIGN_OR_RETURN(std::string type, RequiredString(body, "type"));
  auto parsed = model::ParseCatalogType(type);
  if (!parsed) {
    return InvalidArgument(
        "Field 'type' has an unknown catalog type '{}'; expected one of relational, fileset, "
        "messaging, model",
        type);
  }
  c.type = *parsed;
  CAIRN_ASSIGN_OR_RETURN(auto provider, OptionalString(body, "provider"));
  if (!provider || Trim(*provider).empty()) {
    if (c.type == model::CatalogType::kFileset) {
      provider = "fileset";
    } else if (c.type == model::CatalogType::kModel) {
      provider = "model";
    } else {
      return InvalidArgument("Field 'provider' is required for catalogs of type '{}'", type);
    }
  }
  c.provider = *provider == "hadoop" ? "fileset" : *provider;
  CAIRN_ASSIGN_OR_RETURN(c.comment, OptionalString(body, "comment"));
  CAIRN_ASSIGN_OR_RETURN(c.properties, PropertiesFromJson(body, "properties"));
  return c;
}

// The catalog a create or test-connection body describes (the route has decided that the caller
// may create catalogs).
Result<model::Catalog> NewCatalog(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(model::Catalog catalog, CatalogFromBody(c.Param("metalake"), body));
  c.op.name = catalog.name;
  return catalog;
}

Result<Response> ListCatalogs(Call& c) {
  const std::string& ml = c.Param("metalake");
  CAIRN_ASSIGN_OR_RETURN(auto list, c.service.ListCatalogs(ml));
  std::vector<std::string> names;
  for (const auto& catalog : list) names.push_back(catalog.name);
  CAIRN_ASSIGN_OR_RETURN(names, c.objects.Visible(c.caller, Action::kLoadCatalog, c.Ref(),
                                                  std::move(names), ObjectType::kCatalog));
  if (c.Flag("details")) {
    const std::set<std::string> visible(names.begin(), names.end());
    OrderedJson arr = OrderedJson::array();
    for (const auto& catalog : list) {
      if (visible.count(catalog.name) > 0) arr.push_back(CatalogToJson(catalog));
    }
    return Reply(OrderedJson{{"catalogs", std::move(arr)}});
  }
  return NameListReply(c, {ml}, std::move(names));
}

Result<Response> CreateCatalog(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Catalog catalog, NewCatalog(c));
  CAIRN_ASSIGN_OR_RETURN(model::Catalog created, c.service.CreateCatalog(c.caller.ctx, catalog));
  return Reply(OrderedJson{{"catalog", CatalogToJson(created)}});
}

Result<Response> TestNewConnection(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Catalog catalog, NewCatalog(c));
  CAIRN_RETURN_IF_ERROR(c.service.TestConnection(catalog));
  return OkEmpty();
}

Result<Response> LoadCatalog(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Catalog catalog,
                         c.service.LoadCatalog(c.Param("metalake"), c.Param("catalog")));
  return Reply(OrderedJson{{"catalog", CatalogToJson(catalog)}});
}

Result<Response> AlterCatalog(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto changes, EntityUpdatesFromJson(body, EntityKind::kCatalog));
  CAIRN_ASSIGN_OR_RETURN(
      model::Catalog catalog,
      c.service.AlterCatalog(c.caller.ctx, c.Param("metalake"), c.Param("catalog"), changes));
  return Reply(OrderedJson{{"catalog", CatalogToJson(catalog)}});
}

Result<Response> SetCatalogInUse(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(bool in_use, InUseOf(c, body));
  CAIRN_RETURN_IF_ERROR(c.Authorize(Action::kManageCatalog));
  CAIRN_RETURN_IF_ERROR(
      c.service.SetCatalogInUse(c.caller.ctx, c.Param("metalake"), c.Param("catalog"), in_use));
  return OkEmpty();
}

Result<Response> DropCatalog(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.service.DropCatalog(c.caller.ctx, c.Param("metalake"),
                                                             c.Param("catalog"), c.Flag("force")));
  return Dropped(dropped);
}

Result<Response> TestExistingConnection(Call& c) {
  CAIRN_RETURN_IF_ERROR(c.service.TestExistingConnection(c.Param("metalake"), c.Param("catalog")));
  return OkEmpty();
}

// ---- Schemas
// --------------------------------------------------------------------------------------

Result<Response> ListSchemas(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto names, c.objects.ListSchemas(c.caller, c.Ref(ObjectType::kCatalog)));
  return NameListReply(c, {c.Param("metalake"), c.Param("catalog")}, std::move(names));
}

Result<Response> CreateSchema(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  model::Schema s;
  CAIRN_ASSIGN_OR_RETURN(s.name, RequiredString(body, "name"));
  c.op.name = s.name;
  CAIRN_ASSIGN_OR_RETURN(s.comment, OptionalString(body, "comment"));
  CAIRN_ASSIGN_OR_RETURN(s.properties, PropertiesFromJson(body, "properties"));
  CAIRN_ASSIGN_OR_RETURN(model::Schema created,
                         c.objects.CreateSchema(c.caller, c.Ref(ObjectType::kCatalog), s));
  return Reply(OrderedJson{{"schema", SchemaToJson(created)}});
}

Result<Response> LoadSchema(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::Schema s,
                         c.objects.LoadSchema(c.caller, c.Ref(ObjectType::kSchema)));
  return Reply(OrderedJson{{"schema", SchemaToJson(s)}});
}

Result<Response> AlterSchema(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto changes, EntityUpdatesFromJson(body, EntityKind::kSchema));
  CAIRN_ASSIGN_OR_RETURN(model::Schema s,
                         c.objects.AlterSchema(c.caller, c.Ref(ObjectType::kSchema), changes));
  return Reply(OrderedJson{{"schema", SchemaToJson(s)}});
}

Result<Response> DropSchema(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(
      bool dropped, c.objects.DropSchema(c.caller, c.Ref(ObjectType::kSchema), c.Flag("cascade")));
  return Dropped(dropped);
}

// ---- Tables
// ---------------------------------------------------------------------------------------

Result<Response> ListTables(Call& c) {
  // A page without a search reads only its range of the source where the source can.
  const auto size = c.request.Query("pageSize");
  if (size && !c.request.Query("nameContains")) {
    CAIRN_ASSIGN_OR_RETURN(size_t limit, NamePageSize(*size));
    CAIRN_ASSIGN_OR_RETURN(auto page, c.objects.ListTablesPage(
                                          c.caller, c.Ref(ObjectType::kSchema),
                                          c.request.Query("pageToken").value_or(""), limit));
    return NamePageReply({c.Param("metalake"), c.Param("catalog"), c.Param("schema")}, page);
  }
  CAIRN_ASSIGN_OR_RETURN(auto names, c.objects.ListTables(c.caller, c.Ref(ObjectType::kSchema)));
  return SchemaChildrenReply(c, std::move(names));
}

Result<Response> CreateTable(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  auto table = TableFromJson(body);
  if (!table) {
    if (auto name = OptionalString(body, "name"); name && *name) c.op.name = **name;
    return std::move(table).error();
  }
  c.op.name = table->name;
  CAIRN_ASSIGN_OR_RETURN(model::Table created,
                         c.objects.CreateTable(c.caller, c.Ref(ObjectType::kSchema), *table));
  return Reply(OrderedJson{{"table", TableToJson(created)}});
}

Result<Response> LoadTable(Call& c) {
  // `?privileges=MODIFY_TABLE`: the caller loads the table to write it.
  const std::string privileges = ToUpper(c.request.Query("privileges").value_or(""));
  const Action action = privileges.find("MODIFY_TABLE") != std::string::npos ? Action::kModifyTable
                                                                             : Action::kLoadTable;
  CAIRN_ASSIGN_OR_RETURN(model::Table t, c.objects.LoadTable(c.caller, c.Ref(), action));
  return Reply(OrderedJson{{"table", TableToJson(t)}});
}

Result<Response> AlterTable(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto changes, TableUpdatesFromJson(body));
  CAIRN_ASSIGN_OR_RETURN(model::Table t, c.objects.AlterTable(c.caller, c.Ref(), changes));
  return Reply(OrderedJson{{"table", TableToJson(t)}});
}

Result<Response> DropTable(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.objects.DropTable(c.caller, c.Ref(), c.Flag("purge")));
  return Dropped(dropped);
}

// ---- Partitions (Hive tables; docs/hive.md)

namespace jf = model::json_fields;

// PartitionDTO of an identity partition.
OrderedJson PartitionToJson(const model::Partition& p) {
  OrderedJson names = OrderedJson::array();
  for (const auto& f : p.field_names) names.push_back(jf::FieldNameToJson(f));
  OrderedJson values = OrderedJson::array();
  for (const auto& v : p.values) values.push_back(ExpressionToJson(v));
  OrderedJson props = OrderedJson::object();
  for (const auto& [k, v] : p.properties) props[k] = v;
  return OrderedJson{{"type", "identity"},
                     {"name", p.name},
                     {"fieldNames", std::move(names)},
                     {"values", std::move(values)},
                     {"properties", std::move(props)}};
}

// `{"partitions":[PartitionDTO]}`: exactly one, an identity partition.
Result<model::Partition> PartitionFromJson(const Json& body) {
  if (!body.is_object()) return InvalidArgument("The request body must be a JSON object");
  const Json* list = jf::Find(body, "partitions");
  if (list == nullptr || !list->is_array()) {
    return InvalidArgument("Field 'partitions' is required: an array of one partition");
  }
  if (list->size() != 1) {
    return InvalidArgument("Field 'partitions' must hold exactly one partition, not {}",
                           list->size());
  }
  const Json& j = (*list)[0];
  if (!j.is_object()) return jf::WrongType("partitions[0]", "a partition object", j);
  CAIRN_ASSIGN_OR_RETURN(std::string type, jf::StringIn(j, "type", "partitions[0]"));
  if (ToLower(type) != "identity") {
    return InvalidArgument(
        "Field 'partitions[0].type' is '{}'; this table takes identity partitions", type);
  }
  model::Partition p;
  CAIRN_ASSIGN_OR_RETURN(auto name, OptionalString(j, "name"));
  if (name) p.name = *name;
  const Json* names = jf::Find(j, "fieldNames");
  if (names == nullptr || !names->is_array()) {
    return InvalidArgument("Field 'partitions[0].fieldNames' is required: an array of names");
  }
  for (size_t i = 0; i < names->size(); ++i) {
    const Json& f = (*names)[i];
    const std::string at = fmt::format("partitions[0].fieldNames[{}]", i);
    if (!f.is_array() || f.empty()) return jf::WrongType(at, "an array of strings", f);
    model::FieldName fn;
    for (const auto& part : f) {
      if (!part.is_string()) return jf::WrongType(at, "an array of strings", f);
      fn.push_back(part.get<std::string>());
    }
    p.field_names.push_back(std::move(fn));
  }
  const Json* values = jf::Find(j, "values");
  if (values == nullptr || !values->is_array()) {
    return InvalidArgument("Field 'partitions[0].values' is required: an array of literals");
  }
  for (size_t i = 0; i < values->size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(auto e, ExpressionFromJson((*values)[i],
                                                      fmt::format("partitions[0].values[{}]", i)));
    p.values.push_back(std::move(e));
  }
  CAIRN_ASSIGN_OR_RETURN(p.properties, PropertiesFromJson(j, "properties"));
  return p;
}

// The table's catalog, once the caller may `action` the table, and its partitions; a catalog
// without partition objects (Iceberg's partitions are transforms, JDBC sources have none) gets
// Gravitino's "unsupported operation" answer for the table, after the table was found.
Result<connector::PartitionCatalog*> OpenPartitions(Call& c, Action action,
                                                    std::shared_ptr<connector::Connector>& keep) {
  CAIRN_ASSIGN_OR_RETURN(keep, c.objects.OpenCatalog(c.caller, action, c.Ref()));
  auto* partitions = keep->Find<connector::PartitionCatalog>();
  if (partitions == nullptr) {
    CAIRN_RETURN_IF_ERROR(c.objects.LoadTable(c.caller, c.Ref(), action));
    return Unsupported("Table {} does not support partition operations", c.op.parent);
  }
  return partitions;
}

Result<Response> ListPartitions(Call& c) {
  std::shared_ptr<connector::Connector> keep;
  CAIRN_ASSIGN_OR_RETURN(auto* parts, OpenPartitions(c, Action::kLoadTable, keep));
  const ObjectRef ref = c.Ref();
  if (c.Flag("details")) {
    CAIRN_ASSIGN_OR_RETURN(auto list, parts->ListPartitions(ref.schema[0], ref.name));
    OrderedJson out = OrderedJson::array();
    for (const auto& p : list) out.push_back(PartitionToJson(p));
    return Reply(OrderedJson{{"partitions", std::move(out)}});
  }
  CAIRN_ASSIGN_OR_RETURN(auto names, parts->ListPartitionNames(ref.schema[0], ref.name));
  return Reply(OrderedJson{{"names", names}});
}

Result<Response> GetPartition(Call& c) {
  std::shared_ptr<connector::Connector> keep;
  CAIRN_ASSIGN_OR_RETURN(auto* parts, OpenPartitions(c, Action::kLoadTable, keep));
  const ObjectRef ref = c.Ref();
  CAIRN_ASSIGN_OR_RETURN(auto p,
                         parts->GetPartition(ref.schema[0], ref.name, c.Param("partition")));
  return Reply(OrderedJson{{"partition", PartitionToJson(p)}});
}

Result<Response> AddPartition(Call& c) {
  std::shared_ptr<connector::Connector> keep;
  CAIRN_ASSIGN_OR_RETURN(auto* parts, OpenPartitions(c, Action::kModifyTable, keep));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(model::Partition wanted, PartitionFromJson(body));
  const ObjectRef ref = c.Ref();
  CAIRN_ASSIGN_OR_RETURN(auto made,
                         parts->AddPartition(c.caller.ctx, ref.schema[0], ref.name, wanted));
  c.objects.Publish(c.caller, ChangeType::kAltered, ref);
  OrderedJson out = OrderedJson::array();
  out.push_back(PartitionToJson(made));
  return Reply(OrderedJson{{"partitions", std::move(out)}});
}

Result<Response> DropPartition(Call& c) {
  std::shared_ptr<connector::Connector> keep;
  CAIRN_ASSIGN_OR_RETURN(auto* parts, OpenPartitions(c, Action::kModifyTable, keep));
  const ObjectRef ref = c.Ref();
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         parts->DropPartition(c.caller.ctx, ref.schema[0], ref.name,
                                              c.Param("partition"), c.Flag("purge")));
  if (dropped) c.objects.Publish(c.caller, ChangeType::kAltered, ref);
  return Dropped(dropped);
}

}  // namespace

std::vector<Route> ObjectRoutes() {
  using K = EntityKind;
  using A = Action;
  constexpr std::nullopt_t kService = std::nullopt;  // the object service decides
  constexpr std::string_view kTables =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/tables";
  constexpr std::string_view kTable =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/tables/{table}";
  constexpr std::string_view kPartitions =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/tables/{table}/partitions";
  constexpr std::string_view kPartition =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/tables/{table}/partitions/"
      "{partition}";
  return {
      {"GET", api::PathPattern("/metalakes"), K::kMetalake, "LIST", std::nullopt, ListMetalakes},
      {"POST", api::PathPattern("/metalakes"), K::kMetalake, "CREATE", std::nullopt,
       CreateMetalake},
      {"GET", api::PathPattern("/metalakes/{metalake}"), K::kMetalake, "LOAD", A::kUseMetalake,
       LoadMetalake},
      {"PUT", api::PathPattern("/metalakes/{metalake}"), K::kMetalake, "ALTER", A::kManageMetalake,
       AlterMetalake},
      {"PATCH", api::PathPattern("/metalakes/{metalake}"), K::kMetalake, "", std::nullopt,
       SetMetalakeInUse},
      {"DELETE", api::PathPattern("/metalakes/{metalake}"), K::kMetalake, "DROP", std::nullopt,
       DropMetalake},

      {"GET", api::PathPattern("/metalakes/{metalake}/catalogs"), K::kCatalog, "LIST",
       A::kUseMetalake, ListCatalogs},
      {"POST", api::PathPattern("/metalakes/{metalake}/catalogs"), K::kCatalog, "CREATE",
       A::kCreateCatalog, CreateCatalog},
      {"POST", api::PathPattern("/metalakes/{metalake}/catalogs/testConnection"), K::kCatalog,
       "CREATE", A::kCreateCatalog, TestNewConnection},
      {"GET", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}"), K::kCatalog, "LOAD",
       A::kLoadCatalog, LoadCatalog},
      {"PUT", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}"), K::kCatalog, "ALTER",
       A::kManageCatalog, AlterCatalog},
      {"PATCH", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}"), K::kCatalog, "",
       std::nullopt, SetCatalogInUse},
      {"DELETE", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}"), K::kCatalog, "DROP",
       A::kManageCatalog, DropCatalog},
      {"POST", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}/testConnection"),
       K::kCatalog, "LOAD", A::kLoadCatalog, TestExistingConnection},

      {"GET", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}/schemas"), K::kSchema,
       "LIST", kService, ListSchemas},
      // Whoever may create a schema may use the catalog: decided before the body is parsed.
      {"POST", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}/schemas"), K::kSchema,
       "CREATE", A::kLoadCatalog, CreateSchema},
      {"GET", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}"),
       K::kSchema, "LOAD", kService, LoadSchema},
      {"PUT", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}"),
       K::kSchema, "ALTER", A::kManageSchema, AlterSchema},
      {"DELETE", api::PathPattern("/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}"),
       K::kSchema, "DROP", kService, DropSchema},

      {"GET", api::PathPattern(kTables), K::kTable, "LIST", kService, ListTables},
      {"POST", api::PathPattern(kTables), K::kTable, "CREATE", A::kCreateTable, CreateTable},
      {"GET", api::PathPattern(kTable), K::kTable, "LOAD", kService, LoadTable},
      {"PUT", api::PathPattern(kTable), K::kTable, "ALTER", A::kModifyTable, AlterTable},
      {"DELETE", api::PathPattern(kTable), K::kTable, "DROP", kService, DropTable},

      {"GET", api::PathPattern(kPartitions), K::kPartition, "LIST", kService, ListPartitions},
      {"POST", api::PathPattern(kPartitions), K::kPartition, "CREATE", A::kModifyTable,
       AddPartition},
      {"GET", api::PathPattern(kPartition), K::kPartition, "LOAD", kService, GetPartition},
      {"DELETE", api::PathPattern(kPartition), K::kPartition, "DROP", kService, DropPartition},

      {"GET", api::PathPattern("/metalakes/{metalake}/objects/{type}/{fullName}/credentials"),
       K::kMetadataObject, "", std::nullopt, Credentials},
  };
}

// ---- Credentials
// ----------------------------------------------------------------------------------

namespace {

// The storage locations a vend for `type` `full_name` covers, once the caller may read the
// object; `write` when it may also write it; `connector` is the object's catalog.
struct VendTarget {
  std::vector<std::string> locations;
  bool write = false;
  std::shared_ptr<connector::Connector> connector;
};

// The object's catalog, opened once the caller may `read` the object; `write` decides whether
// the keys may write.
Result<VendTarget> Opened(Call& c, const ObjectRef& ref, Action read, Action write) {
  VendTarget t;
  CAIRN_ASSIGN_OR_RETURN(t.connector, c.objects.OpenCatalog(c.caller, read, ref));
  t.write = c.objects.Authorize(c.caller, write, ref).has_value();
  return t;
}

// A leaf object `catalog.schema.name` of the path's metalake.
ObjectRef LeafRef(const Call& c, const std::vector<std::string>& parts, ObjectType kind) {
  return ObjectRef{c.Param("metalake"), parts[0], {parts[1]}, parts[2], kind};
}

Result<VendTarget> CatalogVendTarget(Call& c, const std::vector<std::string>& parts) {
  const ObjectRef ref{c.Param("metalake"), parts[0], {}, "", ObjectType::kCatalog};
  CAIRN_ASSIGN_OR_RETURN(VendTarget t,
                         Opened(c, ref, Action::kLoadCatalog, Action::kManageCatalog));
  CAIRN_ASSIGN_OR_RETURN(model::Catalog catalog, c.service.LoadCatalog(ref.metalake, parts[0]));
  for (const char* key : {"location", "warehouse"}) {
    if (auto it = catalog.properties.find(key); it != catalog.properties.end()) {
      t.locations.push_back(it->second);
      break;
    }
  }
  return t;
}

Result<VendTarget> TableVendTarget(Call& c, const std::vector<std::string>& parts) {
  CAIRN_ASSIGN_OR_RETURN(VendTarget t, Opened(c, LeafRef(c, parts, ObjectType::kTable),
                                              Action::kLoadTable, Action::kModifyTable));
  if (auto* iceberg = t.connector->Find<connector::IcebergCatalog>()) {
    CAIRN_ASSIGN_OR_RETURN(auto table, iceberg->LoadTable({parts[1]}, parts[2]));
    t.locations = cairn::iceberg::StorageLocations(*table.metadata_text);
    return t;
  }
  auto* tables = t.connector->Find<connector::TableCatalog>();
  if (tables == nullptr)
    return Unsupported("Catalog {} does not support table operations", parts[0]);
  CAIRN_ASSIGN_OR_RETURN(auto table, tables->LoadTable(parts[1], parts[2]));
  // A table whose files the client writes (a Lance table of a lakehouse-generic catalog) names
  // them by its `location`.
  if (auto location = table.properties.find("location"); location != table.properties.end()) {
    t.locations.push_back(location->second);
  }
  return t;
}

// Every URI of every version of the model, each prefix once (a URI under another is covered by
// it); read-write for who may link versions.
Result<VendTarget> ModelVendTarget(Call& c, const std::vector<std::string>& parts) {
  CAIRN_ASSIGN_OR_RETURN(VendTarget t, Opened(c, LeafRef(c, parts, ObjectType::kModel),
                                              Action::kLoadObject, Action::kWriteObject));
  auto* models = t.connector->Find<connector::ModelCatalog>();
  if (models == nullptr) return InvalidArgument("Catalog '{}' is not a model catalog", parts[0]);
  CAIRN_ASSIGN_OR_RETURN(auto versions, models->ListVersions(parts[1], parts[2]));
  std::vector<std::string> uris;
  for (const auto& v : versions) {
    for (const auto& [name, uri] : v.uris) uris.push_back(uri);
  }
  std::sort(uris.begin(), uris.end());
  uris.erase(std::unique(uris.begin(), uris.end()), uris.end());
  for (const auto& uri : uris) {
    const bool covered = std::any_of(t.locations.begin(), t.locations.end(), [&](const auto& l) {
      return storage::LocationWithin(uri, l);
    });
    if (!covered) t.locations.push_back(uri);
  }
  return t;
}

Result<VendTarget> FilesetVendTarget(Call& c, const std::vector<std::string>& parts) {
  CAIRN_ASSIGN_OR_RETURN(VendTarget t, Opened(c, LeafRef(c, parts, ObjectType::kFileset),
                                              Action::kLoadFileset, Action::kWriteFileset));
  auto* filesets = t.connector->Find<connector::FilesetCatalog>();
  if (filesets == nullptr)
    return InvalidArgument("Catalog '{}' is not a fileset catalog", parts[0]);
  CAIRN_ASSIGN_OR_RETURN(model::Fileset fileset, filesets->LoadFileset(parts[1], parts[2]));
  // `Current-Location-Name` picks one location; without it every location is covered.
  if (auto name = c.request.Header("Current-Location-Name"); name && !name->empty()) {
    auto it = fileset.storage_locations.find(*name);
    if (it == fileset.storage_locations.end()) {
      return NotFound(EntityKind::kLocationName,
                      "Location name '{}' does not exist in fileset '{}'", *name,
                      c.Param("fullName"));
    }
    t.locations.push_back(it->second);
  } else {
    for (const auto& entry : fileset.storage_locations) t.locations.push_back(entry.second);
  }
  return t;
}

// GET /metalakes/{m}/objects/{type}/{fullName}/credentials: storage keys scoped to the object's
// location, read-write when the caller may write the object, read-only otherwise.
Result<Response> Credentials(Call& c) {
  const std::string& type_text = c.Param("type");
  const std::string& full_name = c.Param("fullName");
  const std::string type = ToLower(type_text);
  const std::vector<std::string> parts = Split(full_name, '.');
  Result<VendTarget> target = InvalidArgument(
      "Credentials are served for metadata objects of type catalog, table, fileset and model, "
      "not '{}'",
      type_text);
  if (type == "catalog") {
    if (parts.size() != 1) {
      return InvalidArgument("Invalid metadata object full name '{}' for type catalog", full_name);
    }
    target = CatalogVendTarget(c, parts);
  } else if (type == "table" || type == "fileset" || type == "model") {
    if (parts.size() != 3) {
      return InvalidArgument(
          "Invalid metadata object full name '{}' for type {}: expected catalog.schema.{}",
          full_name, type, type);
    }
    target = type == "table"     ? TableVendTarget(c, parts)
             : type == "fileset" ? FilesetVendTarget(c, parts)
                                 : ModelVendTarget(c, parts);
  }
  if (!target) return std::move(target).error();
  OrderedJson list = OrderedJson::array();
  auto* vendor = target->connector->Find<storage::CredentialVendor>();
  std::erase_if(target->locations, [](const std::string& l) { return l.rfind("s3", 0) != 0; });
  Response r;
  if (vendor != nullptr && vendor->enabled() && !target->locations.empty()) {
    const auto level =
        target->write ? storage::AccessLevel::kReadWrite : storage::AccessLevel::kRead;
    CAIRN_ASSIGN_OR_RETURN(auto creds, vendor->Vend(target->locations, level, c.caller.ctx.now_ms));
    for (const auto& cred : creds) {
      OrderedJson info = OrderedJson::object();
      for (const auto& [k, v] : cred.info) info[k] = v;
      list.push_back({{"credentialType", cred.type},
                      {"expireTimeInMs", cred.expire_time_ms},
                      {"credentialInfo", info}});
    }
    r.audit_note =
        fmt::format("vended {} {} credentials for {}", Join(vendor->providers(), ","),
                    target->write ? "read-write" : "read-only", Join(target->locations, ","));
    r.vended_access = target->write ? "read-write" : "read-only";
  }
  OrderedJson body{{"code", 0}, {"credentials", list}};
  r.body = body.dump();
  return r;
}

}  // namespace

}  // namespace cairn::api::gravitino
