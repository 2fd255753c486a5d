// SPDX-License-Identifier: Apache-2.0
#include "api/gravitino/gravitino_api.h"

#include <optional>
#include <set>
#include <vector>

#include "api/gravitino/errors.h"
#include "api/gravitino/serde.h"
#include "common/log.h"
#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "iceberg/table_metadata.h"
#include "storage/credentials.h"

namespace cairn::api::gravitino {

namespace {

using http::Request;
using http::Response;

Response OkEmpty() { return Ok(OrderedJson::object()); }

Response Dropped(bool dropped) { return Ok(OrderedJson{{"dropped", dropped}}); }

bool QueryFlag(const Request& r, std::string_view name) {
  auto v = r.Query(name);
  return v && EqualsIgnoreCase(Trim(*v), "true");
}

OrderedJson Identifiers(const std::vector<std::string>& ns, const std::vector<std::string>& names) {
  OrderedJson arr = OrderedJson::array();
  for (const auto& n : names) arr.push_back(OrderedJson{{"namespace", ns}, {"name", n}});
  return OrderedJson{{"identifiers", std::move(arr)}};
}

// The accepted API version from `Accept: application/vnd.gravitino.vN+json`; nullopt when the
// client asks for one this server does not speak.
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

// Parses a JSON body, or answers with the error.
struct Call {
  const Request& request;
  service::CallContext ctx;
  Operation op;

  Response Fail(const Error& e) const { return ErrorResponse(e, op); }
};

}  // namespace

GravitinoApi::GravitinoApi(service::MetadataService& service, service::Authorizer& authorizer,
                           ApiInfo info, std::function<bool()> ready)
    : service_(service), authz_(authorizer), info_(std::move(info)), ready_(std::move(ready)) {}

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
    spdlog::warn("event=json_type_error interface=gravitino request_id={} method={} path=\"{}\" "
                 "error=\"{}\"",
                 request.request_id, request.method, request.path, e.what());
    return PlainErrorResponse(
        400, 1001, "IllegalArgumentException",
        "Malformed json request: a field of the request body has the wrong JSON type");
  }
}

Response GravitinoApi::Dispatch(const Request& request,
                                const governance::Principal& principal) const {
  if (!AcceptsV1(request)) {
    Response r;
    r.status = 406;
    r.content_type = "text/plain";
    r.body = "Unsupported version";
    return r;
  }
  // Decode path segments after /api.
  std::vector<std::string> seg;
  {
    std::string_view rest = std::string_view(request.path).substr(4);  // after "/api"
    for (const auto& raw : Split(rest, '/')) {
      if (raw.empty()) continue;
      auto decoded = PercentDecode(raw);
      if (!decoded) {
        return PlainErrorResponse(400, 1001, "IllegalArgumentException",
                                  "Malformed percent-encoding in the request path");
      }
      seg.push_back(std::move(*decoded));
    }
  }
  const std::string& method = request.method;
  Call call{request, {principal.user, NowMillis(), "gravitino"}, {}};
  using governance::ObjectType;
  using service::Action;
  auto not_allowed = [&] {
    return PlainErrorResponse(405, 1006, "UnsupportedOperationException",
                              fmt::format("Method {} is not allowed on {}", method, DisplayPath(request.path)));
  };
  auto parse_body = [&]() -> Result<Json> { return ParseBody(request.body); };

  const size_t n = seg.size();
  // ---- service endpoints ----
  if (n == 1 && seg[0] == "version") {
    if (method != "GET") return not_allowed();
    return Ok(OrderedJson{{"version", OrderedJson{{"version", info_.version},
                                                  {"compileDate", info_.compile_date},
                                                  {"gitCommit", info_.git_commit}}}});
  }
  if (n >= 1 && seg[0] == "health" && n <= 2) {
    if (method != "GET") return not_allowed();
    return Health(n == 2 ? seg[1] : "");
  }
  if (n == 2 && seg[0] == "authn" && seg[1] == "me") {
    if (method != "GET") return not_allowed();
    return Ok(OrderedJson{{"principal", call.ctx.principal}});
  }
  if (n == 0 || seg[0] != "metalakes") {
    return PlainErrorResponse(404, 1003, "NotFoundException",
                              fmt::format("No endpoint matches {} {}", method, DisplayPath(request.path)));
  }

  // ---- metalakes ----
  if (n == 1) {
    if (method == "GET") {
      call.op = {EntityKind::kMetalake, "*", "LIST", EntityKind::kNone, ""};
      auto list = service_.ListMetalakes();
      if (!list) return call.Fail(list.error());
      OrderedJson arr = OrderedJson::array();
      for (const auto& m : *list) {
        if (authz_.enabled()) {
          auto target = authz_.Resolve(m.name);
          if (!target && target.error().code == ErrorCode::kNotFound) continue;  // dropped since
          if (!target) return call.Fail(target.error());
          auto can_see = authz_.CanSeeMetalake(principal, target->metalake);
          if (!can_see) return call.Fail(can_see.error());
          if (!*can_see) continue;
        }
        arr.push_back(MetalakeToJson(m));
      }
      return Ok(OrderedJson{{"metalakes", std::move(arr)}});
    }
    if (method == "POST") {
      call.op = {EntityKind::kMetalake, "", "CREATE", EntityKind::kNone, ""};
      auto body = parse_body();
      if (!body) return call.Fail(body.error());
      model::Metalake m;
      auto name = RequiredString(*body, "name");
      if (!name) return call.Fail(name.error());
      m.name = *name;
      call.op.name = m.name;
      auto comment = OptionalString(*body, "comment");
      if (!comment) return call.Fail(comment.error());
      m.comment = *comment;
      auto props = PropertiesFromJson(*body, "properties");
      if (!props) return call.Fail(props.error());
      m.properties = *props;
      if (authz_.enabled() && !authz_.access().IsServiceAdmin(principal.user)) {
        return call.Fail(MakeError(ErrorCode::kPermissionDenied, EntityKind::kNone,
                                   "User '{}' is not a service admin and cannot create metalakes",
                                   principal.user));
      }
      auto created = service_.CreateMetalake(call.ctx, m);
      if (!created) return call.Fail(created.error());
      if (authz_.enabled()) {
        // The creator owns the metalake and is its first user.
        auto target = authz_.Resolve(m.name);
        if (target) (void)authz_.access().AddUser(target->metalake, principal.user, created->audit);
      }
      return Ok(OrderedJson{{"metalake", MetalakeToJson(*created)}});
    }
    return not_allowed();
  }
  const std::string& ml = seg[1];
  // Publishes a change of an object inside a catalog of this metalake (schema: no `name`).
  auto changed = [&](service::ChangeType type, ObjectType kind, const std::string& catalog,
                     std::vector<std::string> schema, const std::string& name = "",
                     const std::string& new_name = "") {
    service_.events().Publish(
        service::MakeChange(call.ctx, type, kind, ml, catalog, std::move(schema), name, new_name));
  };
  // The table capability of an opened catalog; a provider without tables (a fileset catalog)
  // answers 405, as Gravitino does.
  auto tables_of = [&](const Result<std::shared_ptr<connector::Connector>>& conn,
                       const std::string& catalog) -> Result<connector::TableCatalog*> {
    if (!conn) return conn.error();
    connector::TableCatalog* tables = (*conn)->Find<connector::TableCatalog>();
    if (tables == nullptr) {
      return Unsupported("Catalog {} does not support table operations", catalog);
    }
    return tables;
  };
  auto schemas_of = [&](const Result<std::shared_ptr<connector::Connector>>& conn,
                        const std::string& catalog) -> Result<connector::SchemaCatalog*> {
    if (!conn) return conn.error();
    connector::SchemaCatalog* schemas = (*conn)->Find<connector::SchemaCatalog>();
    if (schemas == nullptr) {
      return Unsupported("Catalog {} does not support schema operations", catalog);
    }
    return schemas;
  };
  auto guard = [&](Action action, const std::string& catalog = "",
                   std::vector<std::string> schema = {}, const std::string& object = "",
                   ObjectType type = ObjectType::kTable) -> std::optional<Response> {
    auto s = authz_.Authorize(principal, action, ml, catalog, schema, object, type);
    if (!s) return call.Fail(s.error());
    return std::nullopt;
  };
  auto filter = [&](Action action, std::vector<std::string> names, const std::string& catalog = "",
                    std::vector<std::string> schema = {}) -> Result<std::vector<std::string>> {
    return authz_.Visible(principal, action, ml, catalog, schema, std::move(names));
  };
  static const std::set<std::string> kAccessAreas = {"users",       "groups", "roles",
                                                     "permissions", "owners", "objects"};
  if (n == 6 && seg[2] == "objects" && seg[5] == "credentials") {
    return Credentials(request, principal, ml, seg[3], seg[4], call.ctx.now_ms);
  }
  if (n >= 3 && kAccessAreas.count(seg[2]) > 0) return HandleAccessControl(request, principal, seg);
  if (n == 2) {
    call.op = {EntityKind::kMetalake, ml, "", EntityKind::kNone, ""};
    if (method == "GET") {
      call.op.op = "LOAD";
      if (auto d = guard(Action::kUseMetalake)) return *d;
      auto m = service_.LoadMetalake(ml);
      if (!m) return call.Fail(m.error());
      return Ok(OrderedJson{{"metalake", MetalakeToJson(*m)}});
    }
    if (method == "PUT") {
      call.op.op = "ALTER";
      if (auto d = guard(Action::kManageMetalake)) return *d;
      auto body = parse_body();
      if (!body) return call.Fail(body.error());
      auto changes = EntityUpdatesFromJson(*body, EntityKind::kMetalake);
      if (!changes) return call.Fail(changes.error());
      auto m = service_.AlterMetalake(call.ctx, ml, *changes);
      if (!m) return call.Fail(m.error());
      return Ok(OrderedJson{{"metalake", MetalakeToJson(*m)}});
    }
    if (method == "PATCH") {
      auto body = parse_body();
      if (!body) return call.Fail(body.error());
      auto in_use = body->find("inUse");
      if (in_use == body->end() || !in_use->is_boolean()) {
        return call.Fail(InvalidArgument("Field 'inUse' is required and must be a boolean"));
      }
      call.op.op = in_use->get<bool>() ? "ENABLE" : "DISABLE";
      if (auto d = guard(Action::kManageMetalake)) return *d;
      auto s = service_.SetMetalakeInUse(call.ctx, ml, in_use->get<bool>());
      if (!s) return call.Fail(s.error());
      return OkEmpty();
    }
    if (method == "DELETE") {
      call.op.op = "DROP";
      if (authz_.enabled() && service_.LoadMetalake(ml)) {
        if (auto d = guard(Action::kManageMetalake)) return *d;
      }
      auto dropped = service_.DropMetalake(call.ctx, ml, QueryFlag(request, "force"));
      if (!dropped) return call.Fail(dropped.error());
      return Dropped(*dropped);
    }
    return not_allowed();
  }
  if (seg[2] != "catalogs") {
    return PlainErrorResponse(404, 1003, "NotFoundException",
                              fmt::format("No endpoint matches {} {}", method, DisplayPath(request.path)));
  }

  // ---- catalogs ----
  auto catalog_from_body = [&](const Json& body) -> Result<model::Catalog> {
    model::Catalog c;
    c.metalake = ml;
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
  };
  if (n == 3) {
    call.op = {EntityKind::kCatalog, "*", "", EntityKind::kMetalake, ml};
    if (method == "GET") {
      call.op.op = "LIST";
      if (auto d = guard(Action::kUseMetalake)) return *d;
      auto list = service_.ListCatalogs(ml);
      if (!list) return call.Fail(list.error());
      std::vector<std::string> names;
      for (const auto& c : *list) names.push_back(c.name);
      auto kept = filter(Action::kLoadCatalog, std::move(names));
      if (!kept) return call.Fail(kept.error());
      names = std::move(*kept);
      const std::set<std::string> visible(names.begin(), names.end());
      if (QueryFlag(request, "details")) {
        OrderedJson arr = OrderedJson::array();
        for (const auto& c : *list) {
          if (visible.count(c.name) > 0) arr.push_back(CatalogToJson(c));
        }
        return Ok(OrderedJson{{"catalogs", std::move(arr)}});
      }
      return Ok(Identifiers({ml}, names));
    }
    if (method == "POST") {
      call.op.op = "CREATE";
      if (auto d = guard(Action::kCreateCatalog)) return *d;  // before the body is parsed
      auto body = parse_body();
      if (!body) return call.Fail(body.error());
      auto c = catalog_from_body(*body);
      if (!c) return call.Fail(c.error());
      call.op.name = c->name;
      if (auto d = guard(Action::kCreateCatalog)) return *d;
      auto created = service_.CreateCatalog(call.ctx, *c);
      if (!created) return call.Fail(created.error());
      return Ok(OrderedJson{{"catalog", CatalogToJson(*created)}});
    }
    return not_allowed();
  }
  if (n == 4 && seg[3] == "testConnection" && method == "POST") {
    call.op = {EntityKind::kCatalog, "", "CREATE", EntityKind::kMetalake, ml};
    if (auto d = guard(Action::kCreateCatalog)) return *d;  // before the body is parsed
    auto body = parse_body();
    if (!body) return call.Fail(body.error());
    auto c = catalog_from_body(*body);
    if (!c) return call.Fail(c.error());
    call.op.name = c->name;
    if (auto d = guard(Action::kCreateCatalog)) return *d;
    auto s = service_.TestConnection(*c);
    if (!s) return call.Fail(s.error());
    return OkEmpty();
  }
  const std::string& cat = seg[3];
  if (n == 4) {
    call.op = {EntityKind::kCatalog, cat, "", EntityKind::kMetalake, ml};
    if (method == "GET") {
      call.op.op = "LOAD";
      if (auto d = guard(Action::kLoadCatalog, cat)) return *d;
      auto c = service_.LoadCatalog(ml, cat);
      if (!c) return call.Fail(c.error());
      return Ok(OrderedJson{{"catalog", CatalogToJson(*c)}});
    }
    if (method == "PUT") {
      call.op.op = "ALTER";
      if (auto d = guard(Action::kManageCatalog, cat)) return *d;
      auto body = parse_body();
      if (!body) return call.Fail(body.error());
      auto changes = EntityUpdatesFromJson(*body, EntityKind::kCatalog);
      if (!changes) return call.Fail(changes.error());
      auto c = service_.AlterCatalog(call.ctx, ml, cat, *changes);
      if (!c) return call.Fail(c.error());
      return Ok(OrderedJson{{"catalog", CatalogToJson(*c)}});
    }
    if (method == "PATCH") {
      auto body = parse_body();
      if (!body) return call.Fail(body.error());
      auto in_use = body->find("inUse");
      if (in_use == body->end() || !in_use->is_boolean()) {
        return call.Fail(InvalidArgument("Field 'inUse' is required and must be a boolean"));
      }
      call.op.op = in_use->get<bool>() ? "ENABLE" : "DISABLE";
      if (auto d = guard(Action::kManageCatalog, cat)) return *d;
      auto s = service_.SetCatalogInUse(call.ctx, ml, cat, in_use->get<bool>());
      if (!s) return call.Fail(s.error());
      return OkEmpty();
    }
    if (method == "DELETE") {
      call.op.op = "DROP";
      if (auto d = guard(Action::kManageCatalog, cat)) return *d;
      auto dropped = service_.DropCatalog(call.ctx, ml, cat, QueryFlag(request, "force"));
      if (!dropped) return call.Fail(dropped.error());
      return Dropped(*dropped);
    }
    return not_allowed();
  }
  if (n == 5 && seg[4] == "testConnection") {
    if (method != "POST") return not_allowed();
    call.op = {EntityKind::kCatalog, cat, "LOAD", EntityKind::kMetalake, ml};
    if (auto d = guard(Action::kLoadCatalog, cat)) return *d;
    auto s = service_.TestExistingConnection(ml, cat);
    if (!s) return call.Fail(s.error());
    return OkEmpty();
  }
  if (seg[4] != "schemas") {
    return PlainErrorResponse(404, 1003, "NotFoundException",
                              fmt::format("No endpoint matches {} {}", method, DisplayPath(request.path)));
  }

  // ---- schemas ----
  const std::string catalog_full = cat;
  if (n == 5) {
    call.op = {EntityKind::kSchema, "*", "", EntityKind::kCatalog, catalog_full};
    if (method != "GET" && method != "POST") return not_allowed();
    auto conn = service_.OpenCatalog(ml, cat);
    if (method == "GET") {
      call.op.op = "LIST";
      if (auto d = guard(Action::kLoadCatalog, cat)) return *d;
      auto schemas = schemas_of(conn, cat);
      if (!schemas) return call.Fail(schemas.error());
      auto names = (*schemas)->ListSchemas();
      if (!names) return call.Fail(names.error());
      auto kept = filter(Action::kLoadSchema, std::move(*names), cat);
      if (!kept) return call.Fail(kept.error());
      return Ok(Identifiers({ml, cat}, std::move(*kept)));
    }
    call.op.op = "CREATE";
    // Whoever may create a schema may use the catalog: decided before the body is parsed.
    if (auto d = guard(Action::kLoadCatalog, cat)) return *d;
    auto body = parse_body();
    if (!body) return call.Fail(body.error());
    model::Schema s;
    auto name = RequiredString(*body, "name");
    if (!name) return call.Fail(name.error());
    s.name = *name;
    call.op.name = s.name;
    auto comment = OptionalString(*body, "comment");
    if (!comment) return call.Fail(comment.error());
    s.comment = *comment;
    auto props = PropertiesFromJson(*body, "properties");
    if (!props) return call.Fail(props.error());
    s.properties = *props;
    auto valid = model::ValidateObjectName(EntityKind::kSchema, s.name);
    if (!valid) return call.Fail(valid.error());
    if (auto d = guard(Action::kCreateSchema, cat, {s.name})) return *d;
    auto schemas = schemas_of(conn, cat);
    if (!schemas) return call.Fail(schemas.error());
    auto created = (*schemas)->CreateSchema(call.ctx, s);
    if (!created) return call.Fail(created.error());
    changed(service::ChangeType::kCreated, ObjectType::kSchema, cat, {created->name});
    return Ok(OrderedJson{{"schema", SchemaToJson(*created)}});
  }
  const std::string& sch = seg[5];
  if (n == 6) {
    call.op = {EntityKind::kSchema, sch, "", EntityKind::kCatalog, catalog_full};
    if (method != "GET" && method != "PUT" && method != "DELETE") return not_allowed();
    auto conn = service_.OpenCatalog(ml, cat);
    if (method == "GET") {
      call.op.op = "LOAD";
      if (auto d = guard(Action::kLoadSchema, cat, {sch})) return *d;
      auto schemas = schemas_of(conn, cat);
      if (!schemas) return call.Fail(schemas.error());
      auto s = (*schemas)->LoadSchema(sch);
      if (!s) return call.Fail(s.error());
      return Ok(OrderedJson{{"schema", SchemaToJson(*s)}});
    }
    if (method == "PUT") {
      call.op.op = "ALTER";
      if (auto d = guard(Action::kManageSchema, cat, {sch})) return *d;
      auto body = parse_body();
      if (!body) return call.Fail(body.error());
      auto changes = EntityUpdatesFromJson(*body, EntityKind::kSchema);
      if (!changes) return call.Fail(changes.error());
      auto schemas = schemas_of(conn, cat);
      if (!schemas) return call.Fail(schemas.error());
      auto s = (*schemas)->AlterSchema(call.ctx, sch, *changes);
      if (!s) return call.Fail(s.error());
      changed(service::ChangeType::kAltered, ObjectType::kSchema, cat, {sch}, "", s->name);
      return Ok(OrderedJson{{"schema", SchemaToJson(*s)}});
    }
    call.op.op = "DROP";
    if (auto d = guard(Action::kManageSchema, cat, {sch})) return *d;
    auto schemas = schemas_of(conn, cat);
    if (!schemas) return call.Fail(schemas.error());
    auto dropped = (*schemas)->DropSchema(call.ctx, sch, QueryFlag(request, "cascade"));
    if (!dropped) return call.Fail(dropped.error());
    if (*dropped) changed(service::ChangeType::kDropped, ObjectType::kSchema, cat, {sch});
    return Dropped(*dropped);
  }
  if (seg[6] == "filesets") return HandleFilesets(request, principal, seg);
  if (seg[6] != "tables") {
    return PlainErrorResponse(404, 1003, "NotFoundException",
                              fmt::format("No endpoint matches {} {}", method, DisplayPath(request.path)));
  }

  // ---- tables ----
  const std::string schema_full = cat + "." + sch;
  if (n == 7) {
    call.op = {EntityKind::kTable, "*", "", EntityKind::kSchema, schema_full};
    if (method != "GET" && method != "POST") return not_allowed();
    auto conn = service_.OpenCatalog(ml, cat);
    if (method == "GET") {
      call.op.op = "LIST";
      if (auto d = guard(Action::kLoadSchema, cat, {sch})) return *d;
      auto tables = tables_of(conn, cat);
      if (!tables) return call.Fail(tables.error());
      auto names = (*tables)->ListTables(sch);
      if (!names) return call.Fail(names.error());
      auto kept = filter(Action::kLoadTable, std::move(*names), cat, {sch});
      if (!kept) return call.Fail(kept.error());
      return Ok(Identifiers({ml, cat, sch}, std::move(*kept)));
    }
    call.op.op = "CREATE";
    if (auto d = guard(Action::kCreateTable, cat, {sch})) return *d;  // before the body is parsed
    auto body = parse_body();
    if (!body) return call.Fail(body.error());
    auto table = TableFromJson(*body);
    if (!table) {
      if (auto nm = OptionalString(*body, "name"); nm && *nm) call.op.name = **nm;
      return call.Fail(table.error());
    }
    call.op.name = table->name;
    auto valid = model::ValidateObjectName(EntityKind::kTable, table->name);
    if (!valid) return call.Fail(valid.error());
    if (auto d = guard(Action::kCreateTable, cat, {sch}, table->name)) return *d;
    auto tables = tables_of(conn, cat);
    if (!tables) return call.Fail(tables.error());
    auto created = (*tables)->CreateTable(call.ctx, sch, *table);
    if (!created) return call.Fail(created.error());
    changed(service::ChangeType::kCreated, ObjectType::kTable, cat, {sch}, created->name);
    return Ok(OrderedJson{{"table", TableToJson(*created)}});
  }
  const std::string& tbl = seg[7];
  if (n == 8) {
    call.op = {EntityKind::kTable, tbl, "", EntityKind::kSchema, schema_full};
    if (method != "GET" && method != "PUT" && method != "DELETE") return not_allowed();
    auto conn = service_.OpenCatalog(ml, cat);
    if (method == "GET") {
      call.op.op = "LOAD";
      {
        auto privileges = request.Query("privileges").value_or("");
        const bool modify = ToUpper(privileges).find("MODIFY_TABLE") != std::string::npos;
        if (auto d = guard(modify ? Action::kModifyTable : Action::kLoadTable, cat, {sch}, tbl))
          return *d;
      }
      auto tables = tables_of(conn, cat);
      if (!tables) return call.Fail(tables.error());
      auto t = (*tables)->LoadTable(sch, tbl);
      if (!t) return call.Fail(t.error());
      return Ok(OrderedJson{{"table", TableToJson(*t)}});
    }
    if (method == "PUT") {
      call.op.op = "ALTER";
      if (auto d = guard(Action::kModifyTable, cat, {sch}, tbl)) return *d;
      auto body = parse_body();
      if (!body) return call.Fail(body.error());
      auto changes = TableUpdatesFromJson(*body);
      if (!changes) return call.Fail(changes.error());
      for (const auto& c : *changes) {
        if (c.kind == model::TableChange::Kind::kRename) {
          auto v = model::ValidateObjectName(EntityKind::kTable, c.new_name);
          if (!v) return call.Fail(v.error());
        }
      }
      auto tables = tables_of(conn, cat);
      if (!tables) return call.Fail(tables.error());
      auto t = (*tables)->AlterTable(call.ctx, sch, tbl, *changes);
      if (!t) return call.Fail(t.error());
      changed(service::ChangeType::kAltered, ObjectType::kTable, cat, {sch}, tbl, t->name);
      return Ok(OrderedJson{{"table", TableToJson(*t)}});
    }
    call.op.op = "DROP";
    if (auto d = guard(Action::kDropTable, cat, {sch}, tbl)) return *d;
    auto tables = tables_of(conn, cat);
    if (!tables) return call.Fail(tables.error());
    auto dropped = (*tables)->DropTable(call.ctx, sch, tbl, QueryFlag(request, "purge"));
    if (!dropped) return call.Fail(dropped.error());
    if (*dropped) changed(service::ChangeType::kDropped, ObjectType::kTable, cat, {sch}, tbl);
    return Dropped(*dropped);
  }

  // ---- partitions ----
  // No provider served here has partition objects (Iceberg partitions are transforms, JDBC
  // sources have none): the table is resolved and authorized as for any partition call, then the
  // call gets Gravitino's "unsupported operation" answer for the table.
  if (seg[8] == "partitions" && (n == 9 || n == 10)) {
    const bool one = n == 10;
    call.op = {EntityKind::kPartition, one ? seg[9] : "*", "", EntityKind::kTable,
               schema_full + "." + tbl};
    if (one && method != "GET" && method != "DELETE") return not_allowed();
    if (!one && method != "GET" && method != "POST") return not_allowed();
    call.op.op = method == "GET" ? (one ? "LOAD" : "LIST") : (one ? "DROP" : "CREATE");
    const Action action = method == "GET" ? Action::kLoadTable : Action::kModifyTable;
    if (auto d = guard(action, cat, {sch}, tbl)) return *d;
    auto tables = tables_of(service_.OpenCatalog(ml, cat), cat);
    if (!tables) return call.Fail(tables.error());
    auto t = (*tables)->LoadTable(sch, tbl);
    if (!t) return call.Fail(t.error());
    return call.Fail(Unsupported("Table {} does not support partition operations",
                                 schema_full + "." + tbl));
  }
  return PlainErrorResponse(404, 1003, "NotFoundException",
                            fmt::format("No endpoint matches {} {}", method, DisplayPath(request.path)));
}

// GET /metalakes/{m}/objects/{type}/{fullName}/credentials: storage keys scoped to the object's
// location, read-write when the caller may write the object, read-only otherwise.
Response GravitinoApi::Credentials(const Request& request, const governance::Principal& principal,
                                   const std::string& ml, const std::string& type_text,
                                   const std::string& full_name, int64_t now_ms) const {
  struct {
    Operation op;
    Response Fail(const Error& e) const { return ErrorResponse(e, op); }
  } call;
  call.op = {EntityKind::kMetadataObject, full_name, "", EntityKind::kNone, "GET_CREDENTIALS"};
  if (request.method != "GET") {
    return PlainErrorResponse(
        405, 1001, "IllegalArgumentException",
        fmt::format("Method {} is not allowed on {}", request.method, DisplayPath(request.path)));
  }
  const std::string type = ToLower(type_text);
  const std::vector<std::string> parts = Split(full_name, '.');
  auto check = [&](service::Action action, const std::vector<std::string>& schema,
                   const std::string& object,
                   governance::ObjectType object_type = governance::ObjectType::kTable) -> Status {
    if (!authz_.enabled()) return cairn::Ok();
    CAIRN_ASSIGN_OR_RETURN(auto target, authz_.Resolve(ml, parts[0], schema, object, object_type));
    return authz_.Check(principal, action, target);
  };
  std::vector<std::string> locations;
  bool write = false;
  std::shared_ptr<connector::Connector> connector;
  if (type == "catalog") {
    if (parts.size() != 1) {
      return call.Fail(
          InvalidArgument("Invalid metadata object full name '{}' for type catalog", full_name));
    }
    if (auto s = check(service::Action::kLoadCatalog, {}, ""); !s) return call.Fail(s.error());
    write = check(service::Action::kManageCatalog, {}, "").has_value();
    auto catalog = service_.LoadCatalog(ml, parts[0]);
    if (!catalog) return call.Fail(catalog.error());
    for (const char* key : {"location", "warehouse"}) {
      if (auto it = catalog->properties.find(key); it != catalog->properties.end()) {
        locations.push_back(it->second);
        break;
      }
    }
    auto opened = service_.OpenCatalog(ml, parts[0]);
    if (!opened) return call.Fail(opened.error());
    connector = *opened;
  } else if (type == "table") {
    if (parts.size() != 3) {
      return call.Fail(InvalidArgument(
          "Invalid metadata object full name '{}' for type table: expected catalog.schema.table",
          full_name));
    }
    if (auto s = check(service::Action::kLoadTable, {parts[1]}, parts[2]); !s)
      return call.Fail(s.error());
    write = check(service::Action::kModifyTable, {parts[1]}, parts[2]).has_value();
    auto opened = service_.OpenCatalog(ml, parts[0]);
    if (!opened) return call.Fail(opened.error());
    connector = *opened;
    connector::IcebergCatalog* iceberg = connector->Find<connector::IcebergCatalog>();
    if (iceberg != nullptr) {
      auto table = iceberg->LoadTable({parts[1]}, parts[2]);
      if (!table) return call.Fail(table.error());
      locations = cairn::iceberg::StorageLocations(*table->metadata_text);
    } else {
      connector::TableCatalog* tables = connector->Find<connector::TableCatalog>();
      if (tables == nullptr) {
        return call.Fail(Unsupported("Catalog {} does not support table operations", parts[0]));
      }
      auto table = tables->LoadTable(parts[1], parts[2]);
      if (!table) return call.Fail(table.error());
    }
  } else if (type == "fileset") {
    if (parts.size() != 3) {
      return call.Fail(
          InvalidArgument("Invalid metadata object full name '{}' for type fileset: expected "
                          "catalog.schema.fileset",
                          full_name));
    }
    if (auto s = check(service::Action::kLoadFileset, {parts[1]}, parts[2],
                       governance::ObjectType::kFileset);
        !s) {
      return call.Fail(s.error());
    }
    write = check(service::Action::kWriteFileset, {parts[1]}, parts[2],
                  governance::ObjectType::kFileset)
                .has_value();
    auto opened = service_.OpenCatalog(ml, parts[0]);
    if (!opened) return call.Fail(opened.error());
    connector = *opened;
    connector::FilesetCatalog* filesets = connector->Find<connector::FilesetCatalog>();
    if (filesets == nullptr) {
      return call.Fail(InvalidArgument("Catalog '{}' is not a fileset catalog", parts[0]));
    }
    auto fileset = filesets->LoadFileset(parts[1], parts[2]);
    if (!fileset) return call.Fail(fileset.error());
    // `Current-Location-Name` picks one location; without it every location is covered.
    if (auto name = request.Header("Current-Location-Name"); name && !name->empty()) {
      auto it = fileset->storage_locations.find(*name);
      if (it == fileset->storage_locations.end()) {
        return call.Fail(NotFound(EntityKind::kLocationName,
                                  "Location name '{}' does not exist in fileset '{}'", *name,
                                  full_name));
      }
      locations.push_back(it->second);
    } else {
      for (const auto& entry : fileset->storage_locations) locations.push_back(entry.second);
    }
  } else {
    return call.Fail(InvalidArgument(
        "Credentials are served for metadata objects of type catalog, table and fileset, not "
        "'{}'",
        type_text));
  }
  OrderedJson list = OrderedJson::array();
  storage::CredentialVendor* vendor =
      connector ? connector->Find<storage::CredentialVendor>() : nullptr;
  std::erase_if(locations, [](const std::string& l) { return l.rfind("s3", 0) != 0; });
  Response r;
  if (vendor != nullptr && vendor->enabled() && !locations.empty()) {
    auto creds = vendor->Vend(
        locations, write ? storage::AccessLevel::kReadWrite : storage::AccessLevel::kRead, now_ms);
    if (!creds) return call.Fail(creds.error());
    for (const auto& c : *creds) {
      OrderedJson info = OrderedJson::object();
      for (const auto& [k, v] : c.info) info[k] = v;
      list.push_back({{"credentialType", c.type},
                      {"expireTimeInMs", c.expire_time_ms},
                      {"credentialInfo", info}});
    }
    r.audit_note = fmt::format("vended {} {} credentials for {}", Join(vendor->providers(), ","),
                               write ? "read-write" : "read-only", Join(locations, ","));
  }
  OrderedJson body{{"code", 0}, {"credentials", list}};
  r.body = body.dump();
  return r;
}

}  // namespace cairn::api::gravitino
