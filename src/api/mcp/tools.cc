// SPDX-License-Identifier: Apache-2.0
#include "api/mcp/tools.h"

#include <algorithm>
#include <set>

#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/iceberg_api.h"
#include "common/util.h"
#include "model/kinds.h"
#include "service/object_service.h"

namespace cairn::api::mcp {

namespace {

using nlohmann::json;
using Answer = ToolCall::Answer;

// ---------------------------------------------------------------------------------------------
// Input schemas
// ---------------------------------------------------------------------------------------------

json Text(std::string_view description, int max_length = 1024) {
  return json{{"type", "string"},
              {"minLength", 1},
              {"maxLength", max_length},
              {"description", std::string(description)}};
}

json Integer(std::string_view description, int64_t minimum, int64_t maximum) {
  return json{{"type", "integer"},
              {"minimum", minimum},
              {"maximum", maximum},
              {"description", std::string(description)}};
}

json Choice(std::string_view description, std::vector<std::string> values) {
  return json{{"type", "string"}, {"enum", values}, {"description", std::string(description)}};
}

json Names(std::string_view description) {
  return json{{"type", "array"},
              {"items", Text("a name", 1024)},
              {"maxItems", 1000},
              {"description", std::string(description)}};
}

const json& MetalakeArg() {
  static const json arg = Text(
      "The metalake. Optional when the server has a default metalake "
      "(cairn.mcp.default-metalake).");
  return arg;
}

// An object schema over `properties` (each `{name, schema}`), `required` naming some of them.
// `metalake` is added to every tool but list_metalakes.
json Input(std::vector<std::pair<std::string, json>> properties, std::vector<std::string> required,
           bool metalake = true) {
  json props = json::object();
  if (metalake) props["metalake"] = MetalakeArg();
  for (auto& [name, schema] : properties) props[name] = std::move(schema);
  json schema{
      {"type", "object"}, {"properties", std::move(props)}, {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = std::move(required);
  return schema;
}

std::pair<std::string, json> CatalogArg() { return {"catalog", Text("The catalog's name.")}; }
std::pair<std::string, json> SchemaArg() { return {"schema", Text("The schema's name.")}; }

const std::vector<std::string> kObjectTypes = {"metalake", "catalog", "schema", "table",
                                               "view",     "fileset", "topic",  "model",
                                               "function", "column"};

std::pair<std::string, json> TypeArg() {
  return {"type", Choice("The kind of the metadata object.", kObjectTypes)};
}
std::pair<std::string, json> FullNameArg() {
  return {"full_name",
          Text("The object's full name inside the metalake: a catalog as `catalog`, a schema as "
               "`catalog.schema`, a table, view, fileset, topic, model or function as "
               "`catalog.schema.name`, a column as `catalog.schema.table.column`; for a "
               "metalake, its own name.")};
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

std::string Enc(std::string_view s) { return PercentEncode(s); }

// A failed interface call as the tool's result, in the interface's words.
ToolResult Failed(const Answer& a, std::string object = "") {
  ToolResult r;
  r.is_error = true;
  r.status = a.status;
  r.object = std::move(object);
  json error{{"status", a.status}};
  if (a.body.is_object()) {
    // Gravitino: {code, type, message}; Iceberg REST: {error: {message, type, code}}.
    const json& e =
        a.body.contains("error") && a.body["error"].is_object() ? a.body["error"] : a.body;
    if (auto t = e.find("type"); t != e.end() && t->is_string()) error["type"] = *t;
    if (auto m = e.find("message"); m != e.end() && m->is_string()) error["message"] = *m;
  }
  if (!error.contains("message")) error["message"] = fmt::format("HTTP {}", a.status);
  r.structured = {{"error", std::move(error)}};
  return r;
}

ToolResult Invalid(std::string message, int status = 400) {
  ToolResult r;
  r.is_error = true;
  r.status = status;
  r.structured = {{"error", {{"status", status}, {"message", std::move(message)}}}};
  return r;
}

ToolResult Done(json structured, std::string object = "") {
  ToolResult r;
  r.structured = std::move(structured);
  r.object = std::move(object);
  return r;
}

// The body of a Gravitino answer without its `code`.
json Body(const Answer& a) {
  json b = a.body;
  if (b.is_object()) b.erase("code");
  return b;
}

// The names of `{"identifiers": [{namespace, name}]}`.
json IdentifierNames(const Answer& a) {
  json names = json::array();
  if (auto ids = a.body.find("identifiers"); ids != a.body.end() && ids->is_array()) {
    for (const auto& id : *ids) {
      if (id.is_object() && id.contains("name")) names.push_back(id["name"]);
    }
  }
  return names;
}

struct Path {
  std::string metalake;
  std::string text;    // below /api, encoded
  std::string object;  // dotted, for the audit record
};

// metalake[/catalog[/schema]]; empty metalake -> nullopt (the caller reports it).
std::optional<Path> PathOf(const ToolCall& c, int depth) {
  Path p;
  p.metalake = c.Metalake();
  if (p.metalake.empty()) return std::nullopt;
  p.text = "/metalakes/" + Enc(p.metalake);
  p.object = p.metalake;
  if (depth >= 1) {
    const std::string catalog = c.Str("catalog");
    p.text += "/catalogs/" + Enc(catalog);
    p.object += "." + catalog;
  }
  if (depth >= 2) {
    const std::string schema = c.Str("schema");
    p.text += "/schemas/" + Enc(schema);
    p.object += "." + schema;
  }
  return p;
}

ToolResult NoMetalake() {
  return Invalid("'metalake' is required: the server has no default metalake");
}

using Query = std::vector<std::pair<std::string, std::string>>;

// GET `path` on the Gravitino API; the answer's `field` (`empty` when absent) as the result's
// `key`, for `object`.
ToolResult Relay(const ToolCall& c, const std::string& path, const Query& query,
                 std::string_view field, std::string_view key, const json& empty,
                 const std::string& object) {
  Answer a = c.Gravitino("GET", path, query);
  if (!a.ok()) return Failed(a, object);
  return Done(json{{std::string(key), a.body.value(std::string(field), empty)}}, object);
}
ToolResult Relay(const ToolCall& c, const std::string& path, const Query& query,
                 std::string_view field, const json& empty, const std::string& object) {
  return Relay(c, path, query, field, field, empty, object);
}

// A list of the children of a catalog or schema: `collection` below the path, names under `key`.
ToolResult ListNames(const ToolCall& c, int depth, std::string_view collection,
                     std::string_view key) {
  auto p = PathOf(c, depth);
  if (!p) return NoMetalake();
  Answer a = c.Gravitino("GET", p->text + "/" + std::string(collection));
  if (!a.ok()) return Failed(a, p->object);
  return Done(json{{std::string(key), IdentifierNames(a)}}, p->object);
}

// One object of a schema: GET <schema path>/<collection>/<name argument>, the body's `field`.
ToolResult LoadChild(const ToolCall& c, std::string_view collection, std::string_view arg,
                     std::string_view field) {
  auto p = PathOf(c, 2);
  if (!p) return NoMetalake();
  const std::string name = c.Str(arg);
  const std::string object = p->object + "." + name;
  return Relay(c, p->text + "/" + std::string(collection) + "/" + Enc(name), {}, field,
               json::object(), object);
}

std::string ObjectsPath(const Path& p, const ToolCall& c) {
  return p.text + "/objects/" + Enc(c.Str("type")) + "/" + Enc(c.Str("full_name"));
}

// ---------------------------------------------------------------------------------------------
// Table snapshots (Iceberg REST)
// ---------------------------------------------------------------------------------------------

ToolResult TableSnapshots(const ToolCall& c) {
  auto p = PathOf(c, 2);
  if (!p) return NoMetalake();
  const std::string table = c.Str("table");
  const std::string object = p->object + "." + table;
  const int64_t limit = c.Int("limit", 20);
  // The table must first be visible through the Gravitino API (the same decision as any load).
  Answer gt = c.Gravitino("GET", p->text + "/tables/" + Enc(table));
  if (!gt.ok()) return Failed(gt, object);
  Answer a =
      c.Iceberg("GET", "/v1/" + Enc(p->metalake + "." + c.Str("catalog")) + "/namespaces/" +
                           Enc(c.Str("schema")) + "/tables/" + Enc(table) + "?snapshots=all");
  if (!a.ok()) {
    if (a.status == 404 || a.status == 400 || a.status == 405) {
      return Invalid("Snapshots exist only for tables of Iceberg catalogs", 400);
    }
    return Failed(a, object);
  }
  const json md = a.body.value("metadata", json::object());
  json snapshots = json::array();
  if (auto s = md.find("snapshots"); s != md.end() && s->is_array()) {
    std::vector<json> all(s->begin(), s->end());
    std::sort(all.begin(), all.end(), [](const json& x, const json& y) {
      return x.value("timestamp-ms", int64_t{0}) > y.value("timestamp-ms", int64_t{0});
    });
    for (auto& snap : all) {
      if (static_cast<int64_t>(snapshots.size()) >= limit) break;
      json out{{"snapshotId", snap.value("snapshot-id", json())},
               {"parentSnapshotId", snap.value("parent-snapshot-id", json())},
               {"sequenceNumber", snap.value("sequence-number", json())},
               {"timestamp", FormatIsoMillis(snap.value("timestamp-ms", int64_t{0}))},
               {"schemaId", snap.value("schema-id", json())},
               {"operation", json()},
               {"summary", json::object()}};
      if (auto sum = snap.find("summary"); sum != snap.end() && sum->is_object()) {
        out["operation"] = sum->value("operation", json());
        json rest = *sum;
        rest.erase("operation");
        out["summary"] = std::move(rest);
      }
      snapshots.push_back(std::move(out));
    }
  }
  // What changed recently besides data: the metadata files of the last commits, newest first.
  json changes = json::array();
  if (auto log = md.find("metadata-log"); log != md.end() && log->is_array()) {
    for (auto it = log->rbegin(); it != log->rend(); ++it) {
      if (static_cast<int64_t>(changes.size()) >= limit) break;
      changes.push_back(json{{"timestamp", FormatIsoMillis(it->value("timestamp-ms", int64_t{0}))},
                             {"metadataFile", it->value("metadata-file", json())}});
    }
  }
  json refs = json::object();
  if (auto r = md.find("refs"); r != md.end() && r->is_object()) refs = *r;
  const size_t total =
      md.contains("snapshots") && md["snapshots"].is_array() ? md["snapshots"].size() : 0;
  return Done(json{{"table", object},
                   {"currentSnapshotId", md.value("current-snapshot-id", json())},
                   {"lastUpdated", FormatIsoMillis(md.value("last-updated-ms", int64_t{0}))},
                   {"formatVersion", md.value("format-version", json())},
                   {"refs", std::move(refs)},
                   {"snapshotCount", total},
                   {"snapshots", std::move(snapshots)},
                   {"metadataLog", std::move(changes)}},
              object);
}

// ---------------------------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------------------------

bool Contains(const std::string& haystack, const std::string& needle_lower) {
  return ToLower(haystack).find(needle_lower) != std::string::npos;
}

struct SearchState {
  const ToolCall& call;
  std::string metalake;
  std::string needle;  // lower case
  std::set<std::string> kinds;
  int64_t limit;
  int64_t budget;  // interface calls left
  json hits = json::array();
  bool truncated = false;
  // Objects tagged with a tag whose name matches: "type:fullName" -> tag names.
  std::map<std::string, std::vector<std::string>> tagged;

  bool Full() {
    if (static_cast<int64_t>(hits.size()) >= limit) {
      truncated = true;
      return true;
    }
    if (budget <= 0) {
      truncated = true;
      return true;
    }
    return false;
  }
  Answer Get(const std::string& path,
             const std::vector<std::pair<std::string, std::string>>& query = {}) {
    --budget;
    return call.Gravitino("GET", path, query);
  }
  bool Wants(std::string_view kind) const {
    return kinds.empty() || kinds.count(std::string(kind));
  }

  // Adds `full_name` of `kind` when its name, comment or tags match; `extra` are further
  // matches found by the caller (columns).
  void Consider(std::string_view kind, const std::string& full_name, const std::string& name,
                const std::string& comment, std::vector<json> extra = {}) {
    json matched = json::array();
    if (Contains(name, needle)) matched.push_back(json{{"field", "name"}, {"value", name}});
    if (!comment.empty() && Contains(comment, needle)) {
      matched.push_back(json{{"field", "comment"}, {"value", comment}});
    }
    if (auto t = tagged.find(std::string(kind) + ":" + full_name); t != tagged.end()) {
      for (const auto& tag : t->second) matched.push_back(json{{"field", "tag"}, {"value", tag}});
    }
    for (auto& e : extra) matched.push_back(std::move(e));
    if (matched.empty() || Full()) return;
    hits.push_back(json{{"type", std::string(kind)},
                        {"fullName", full_name},
                        {"comment", comment.empty() ? json() : json(comment)},
                        {"matched", std::move(matched)}});
  }
};

std::string StrOf(const json& j, std::string_view key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

ToolResult Search(const ToolCall& c) {
  const std::string metalake = c.Metalake();
  if (metalake.empty()) return NoMetalake();
  SearchState s{c, metalake, ToLower(c.Str("query")), {}, c.Int("limit", 50), 5000};
  if (auto k = c.args().find("kinds"); k != c.args().end()) {
    for (const auto& kind : *k) s.kinds.insert(kind.get<std::string>());
  }
  const std::string only_catalog = c.Str("catalog");
  const std::string ml = "/metalakes/" + Enc(metalake);
  // Tags whose names match, and the objects they are attached to (those the caller may see).
  Answer tags = s.Get(ml + "/tags");
  if (!tags.ok()) return Failed(tags, metalake);
  if (auto names = tags.body.find("names"); names != tags.body.end() && names->is_array()) {
    for (const auto& t : *names) {
      const std::string tag = t.get<std::string>();
      if (!Contains(tag, s.needle)) continue;
      Answer objs = s.Get(ml + "/tags/" + Enc(tag) + "/objects");
      if (!objs.ok()) continue;
      for (const auto& o : objs.body.value("metadataObjects", json::array())) {
        s.tagged[ToLower(StrOf(o, "type")) + ":" + StrOf(o, "fullName")].push_back(tag);
      }
    }
  }
  Answer catalogs = s.Get(ml + "/catalogs", {{"details", "true"}});
  if (!catalogs.ok()) return Failed(catalogs, metalake);
  for (const auto& cat : catalogs.body.value("catalogs", json::array())) {
    if (s.Full()) break;
    const std::string cname = StrOf(cat, "name");
    if (!only_catalog.empty() && cname != only_catalog) continue;
    const std::string type = ToLower(StrOf(cat, "type"));
    if (s.Wants("catalog")) s.Consider("catalog", cname, cname, StrOf(cat, "comment"));
    const std::string cpath = ml + "/catalogs/" + Enc(cname);
    Answer schemas = s.Get(cpath + "/schemas");
    if (!schemas.ok()) continue;
    for (const auto& sname_j : IdentifierNames(schemas)) {
      if (s.Full()) break;
      const std::string sname = sname_j.get<std::string>();
      const std::string sfull = cname + "." + sname;
      const std::string spath = cpath + "/schemas/" + Enc(sname);
      if (s.Wants("schema")) {
        std::string comment;
        if (!s.needle.empty()) {
          Answer sch = s.Get(spath);
          if (sch.ok()) comment = StrOf(sch.body.value("schema", json::object()), "comment");
        }
        s.Consider("schema", sfull, sname, comment);
      }
      // The collections this kind of catalog serves.
      std::vector<std::pair<std::string, std::string>> collections;  // kind, segment
      if (type == "relational") collections = {{"table", "tables"}, {"view", "views"}};
      if (type == "fileset") collections = {{"fileset", "filesets"}};
      if (type == "model") collections = {{"model", "models"}};
      if (type == "messaging") collections = {{"topic", "topics"}};
      for (const auto& [kind, segment] : collections) {
        if (!s.Wants(kind) && !(kind == "table" && s.Wants("column"))) continue;
        Answer list = s.Get(spath + "/" + segment);
        if (!list.ok()) continue;  // e.g. views of a catalog that has none
        for (const auto& oname_j : IdentifierNames(list)) {
          if (s.Full()) break;
          const std::string oname = oname_j.get<std::string>();
          const std::string ofull = sfull + "." + oname;
          Answer one = s.Get(spath + "/" + segment + "/" + Enc(oname));
          if (!one.ok()) continue;
          const json& body = one.body.value(kind, json::object());
          std::vector<json> extra;
          if (kind == "table") {
            for (const auto& col : body.value("columns", json::array())) {
              const std::string col_name = StrOf(col, "name");
              const std::string col_comment = StrOf(col, "comment");
              if (Contains(col_name, s.needle) ||
                  (!col_comment.empty() && Contains(col_comment, s.needle))) {
                extra.push_back(json{{"field", "column"}, {"value", col_name}});
              } else if (auto t = s.tagged.find("column:" + ofull + "." + col_name);
                         t != s.tagged.end()) {
                for (const auto& tag : t->second) {
                  extra.push_back(json{{"field", "column tag"}, {"value", col_name + ": " + tag}});
                }
              }
            }
            if (!s.Wants("table")) {
              if (!extra.empty() && !s.Full()) {
                s.hits.push_back(json{{"type", "table"},
                                      {"fullName", ofull},
                                      {"comment", json()},
                                      {"matched", std::move(extra)}});
              }
              continue;
            }
          }
          s.Consider(kind, ofull, oname, StrOf(body, "comment"), std::move(extra));
        }
      }
    }
  }
  return Done(json{{"metalake", metalake},
                   {"query", c.Str("query")},
                   {"results", std::move(s.hits)},
                   {"truncated", s.truncated}},
              metalake);
}

// ---------------------------------------------------------------------------------------------
// The caller's own privileges
// ---------------------------------------------------------------------------------------------

struct Ability {
  const char* name;
  service::Action action;
};

std::vector<Ability> AbilitiesOf(model::ObjectKind kind) {
  using A = service::Action;
  using K = model::ObjectKind;
  switch (kind) {
    case K::kMetalake:
      return {{"use", A::kUseMetalake},
              {"manage", A::kManageMetalake},
              {"create_catalog", A::kCreateCatalog},
              {"manage_users", A::kManageUsers},
              {"manage_groups", A::kManageGroups},
              {"create_role", A::kCreateRole},
              {"manage_grants", A::kManageGrants},
              {"create_tag", A::kCreateTag},
              {"create_policy", A::kCreatePolicy}};
    case K::kCatalog:
      return {{"load", A::kLoadCatalog},
              {"manage", A::kManageCatalog},
              {"create_schema", A::kCreateSchema},
              {"grant", A::kGrantOnObject}};
    case K::kSchema:
      return {{"load", A::kLoadSchema},
              {"manage", A::kManageSchema},
              {"create_table", A::kCreateTable},
              {"create_view", A::kCreateView},
              {"create_fileset", A::kCreateFileset},
              {"grant", A::kGrantOnObject}};
    case K::kTable:
    case K::kColumn:
      return {{"load", A::kLoadTable},
              {"modify", A::kModifyTable},
              {"drop", A::kDropTable},
              {"grant", A::kGrantOnObject}};
    case K::kView:
      return {{"load", A::kLoadView}, {"manage", A::kManageView}, {"grant", A::kGrantOnObject}};
    case K::kFileset:
      return {{"load", A::kLoadFileset},
              {"write", A::kWriteFileset},
              {"drop", A::kDropFileset},
              {"grant", A::kGrantOnObject}};
    default:
      return {{"load", A::kLoadObject},
              {"write", A::kWriteObject},
              {"drop", A::kDropObject},
              {"grant", A::kGrantOnObject}};
  }
}

ToolResult MyPrivileges(const ToolCall& c) {
  const std::string metalake = c.Metalake();
  if (metalake.empty()) return NoMetalake();
  const std::string type = c.Str("type");
  const std::string full_name = type == "metalake" ? metalake : c.Str("full_name");
  const std::string object = metalake + "." + full_name;
  service::Authorizer& authz = c.context().objects->authorizer();
  const governance::Principal& me = c.principal();
  json out{{"principal", me.user}, {"groups", me.groups}, {"type", type}, {"fullName", full_name}};
  if (!authz.enabled()) {
    out["authorization"] = false;
    out["note"] = "Authorization is off on this server: every caller may do everything.";
    // Still only for objects that exist.
    if (type != "metalake") {
      auto t = authz.ResolveMetadataObject(metalake, type, full_name);
      if (!t) {
        Answer a{t.error().code == ErrorCode::kNotFound ? 404 : 400,
                 json{{"type", "NoSuchMetadataObjectException"}, {"message", t.error().message}}};
        return Failed(a, object);
      }
    }
    return Done(std::move(out), object);
  }
  out["authorization"] = true;
  service::Target target;
  model::ObjectKind kind = model::ObjectKind::kMetalake;
  if (type == "metalake") {
    auto t = authz.Resolve(metalake);
    if (!t) return Failed(Answer{404, json{{"message", t.error().message}}}, object);
    target = std::move(*t);
  } else {
    auto t = authz.ResolveMetadataObject(metalake, type, full_name);
    if (!t) {
      return Failed(
          Answer{t.error().code == ErrorCode::kNotFound ? 404 : 400,
                 json{{"type", "NoSuchMetadataObjectException"}, {"message", t.error().message}}},
          object);
    }
    target = std::move(t->target);
    kind = t->type;
  }
  // Seeing the object comes first: a caller learns nothing about an object it may not load.
  const std::vector<Ability> abilities = AbilitiesOf(kind);
  auto first = authz.Allowed(me, abilities.front().action, target);
  if (!first) return Invalid(first.error().message, 503);
  if (!*first) {
    return Failed(
        Answer{403, json{{"type", "ForbiddenException"},
                         {"message", fmt::format("{} may not {} {} {}", me.user,
                                                 abilities.front().name, type, full_name)}}},
        object);
  }
  json can = json::object();
  for (const Ability& ability : abilities) {
    auto allowed = authz.Allowed(me, ability.action, target);
    if (!allowed) return Invalid(allowed.error().message, 503);
    can[ability.name] = *allowed;
  }
  out["can"] = std::move(can);
  // The owner of the object, and whether the caller is it.
  const model::ObjectKind row_kind =
      kind == model::ObjectKind::kColumn ? model::ObjectKind::kTable : kind;
  if (const store::EntityRecord* row = target.RowOf(row_kind)) {
    const governance::Owner owner = governance::OwnerOf(*row);
    const bool mine = owner.is_group ? std::find(me.groups.begin(), me.groups.end(), owner.name) !=
                                           me.groups.end()
                                     : owner.name == me.user;
    out["owner"] = json{{"name", owner.name}, {"type", owner.is_group ? "GROUP" : "USER"}};
    out["isOwner"] = mine;
  }
  // The privileges the caller's roles grant on this object and on the objects above it.
  auto grants = authz.access().GrantsOf(target.metalake, me);
  if (!grants) return Invalid(grants.error().message, 503);
  std::vector<std::pair<model::ObjectKind, std::string>> chain;
  chain.emplace_back(model::ObjectKind::kMetalake, metalake);
  if (!target.catalog.empty()) chain.emplace_back(model::ObjectKind::kCatalog, target.catalog);
  if (!target.schema.empty()) {
    chain.emplace_back(model::ObjectKind::kSchema, target.catalog + "." + Join(target.schema, "."));
  }
  if (!target.object.empty() && kind != model::ObjectKind::kSchema &&
      kind != model::ObjectKind::kCatalog) {
    const model::ObjectKind leaf =
        kind == model::ObjectKind::kColumn ? model::ObjectKind::kTable : kind;
    chain.emplace_back(leaf, target.catalog + "." + Join(target.schema, ".") + "." + target.object);
  }
  json granted = json::array();
  for (const auto& link : chain) {
    auto it = (*grants)->entries.find(link);
    if (it == (*grants)->entries.end()) continue;
    for (const auto& [privilege, allow] : it->second) {
      granted.push_back(
          json{{"on", json{{"type", std::string(model::Describe(link.first).securable)},
                           {"fullName", link.second}}},
               {"privilege", privilege},
               {"condition", allow ? "ALLOW" : "DENY"}});
    }
  }
  out["member"] = (*grants)->member;
  out["granted"] = std::move(granted);
  return Done(std::move(out), object);
}

// ---------------------------------------------------------------------------------------------
// The tool table
// ---------------------------------------------------------------------------------------------

std::vector<Tool> MakeTools() {
  std::vector<Tool> t;
  auto add = [&t](std::string name, std::string title, std::string description, json input,
                  std::function<ToolResult(const ToolCall&)> run, bool writes = false) {
    t.push_back(Tool{std::move(name), std::move(title), std::move(description), std::move(input),
                     writes, std::move(run)});
  };

  add("list_metalakes", "List metalakes", "The metalakes the caller may use.", Input({}, {}, false),
      [](const ToolCall& c) {
        Answer a = c.Gravitino("GET", "/metalakes");
        if (!a.ok()) return Failed(a);
        json out = json::array();
        for (const auto& m : a.body.value("metalakes", json::array())) {
          out.push_back(json{{"name", m.value("name", json())},
                             {"comment", m.value("comment", json())},
                             {"properties", m.value("properties", json::object())}});
        }
        return Done(json{{"metalakes", std::move(out)}});
      });
  add("list_catalogs", "List catalogs",
      "The catalogs of a metalake the caller may see, with their type (relational, fileset, "
      "model, messaging), provider, comment and properties.",
      Input({}, {}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        Answer a = c.Gravitino("GET", p->text + "/catalogs", {{"details", "true"}});
        if (!a.ok()) return Failed(a, p->object);
        json out = json::array();
        for (const auto& cat : a.body.value("catalogs", json::array())) {
          json one = cat;
          one.erase("audit");
          out.push_back(std::move(one));
        }
        return Done(json{{"catalogs", std::move(out)}}, p->object);
      });
  add("get_catalog", "Get a catalog", "One catalog: type, provider, comment, properties.",
      Input({CatalogArg()}, {"catalog"}), [](const ToolCall& c) {
        auto p = PathOf(c, 1);
        if (!p) return NoMetalake();
        return Relay(c, p->text, {}, "catalog", json::object(), p->object);
      });
  add("list_schemas", "List schemas", "The schemas of a catalog the caller may see.",
      Input({CatalogArg()}, {"catalog"}),
      [](const ToolCall& c) { return ListNames(c, 1, "schemas", "schemas"); });
  add("get_schema", "Get a schema", "One schema: comment and properties.",
      Input({CatalogArg(), SchemaArg()}, {"catalog", "schema"}), [](const ToolCall& c) {
        auto p = PathOf(c, 2);
        if (!p) return NoMetalake();
        return Relay(c, p->text, {}, "schema", json::object(), p->object);
      });
  add("list_tables", "List tables", "The tables of a schema the caller may see.",
      Input({CatalogArg(), SchemaArg()}, {"catalog", "schema"}),
      [](const ToolCall& c) { return ListNames(c, 2, "tables", "tables"); });
  add("get_table", "Get a table",
      "A table with full details: columns (name, type, comment, nullable, default), "
      "partitioning, sort orders, distribution, indexes, comment and properties.",
      Input({CatalogArg(), SchemaArg(), {"table", Text("The table's name.")}},
            {"catalog", "schema", "table"}),
      [](const ToolCall& c) { return LoadChild(c, "tables", "table", "table"); });
  add("get_table_snapshots", "Get a table's snapshots and recent changes",
      "For a table of an Iceberg catalog: the current snapshot, branches and tags, the most "
      "recent snapshots (newest first: operation, time, summary figures such as added records "
      "and files) and the latest metadata changes.",
      Input({CatalogArg(),
             SchemaArg(),
             {"table", Text("The table's name.")},
             {"limit", Integer("How many snapshots and changes to show (default 20).", 1, 1000)}},
            {"catalog", "schema", "table"}),
      TableSnapshots);
  add("list_views", "List views", "The views of a schema the caller may see.",
      Input({CatalogArg(), SchemaArg()}, {"catalog", "schema"}),
      [](const ToolCall& c) { return ListNames(c, 2, "views", "views"); });
  add("get_view", "Get a view", "A view: columns, its SQL per dialect, comment and properties.",
      Input({CatalogArg(), SchemaArg(), {"view", Text("The view's name.")}},
            {"catalog", "schema", "view"}),
      [](const ToolCall& c) { return LoadChild(c, "views", "view", "view"); });
  add("list_filesets", "List filesets", "The filesets of a schema the caller may see.",
      Input({CatalogArg(), SchemaArg()}, {"catalog", "schema"}),
      [](const ToolCall& c) { return ListNames(c, 2, "filesets", "filesets"); });
  add("get_fileset", "Get a fileset",
      "A fileset: type (managed or external), storage locations, comment and properties.",
      Input({CatalogArg(), SchemaArg(), {"fileset", Text("The fileset's name.")}},
            {"catalog", "schema", "fileset"}),
      [](const ToolCall& c) { return LoadChild(c, "filesets", "fileset", "fileset"); });
  add("list_fileset_files", "List files of a fileset",
      "The files and directories in a fileset's storage, at `sub_path` (default: its root).",
      Input({CatalogArg(),
             SchemaArg(),
             {"fileset", Text("The fileset's name.")},
             {"sub_path", Text("A path inside the fileset, e.g. `/2026/12`.", 4096)},
             {"location_name", Text("Which of the fileset's locations (default: its default).")}},
            {"catalog", "schema", "fileset"}),
      [](const ToolCall& c) {
        auto p = PathOf(c, 2);
        if (!p) return NoMetalake();
        const std::string fileset = c.Str("fileset");
        const std::string object = p->object + "." + fileset;
        Query query;
        if (auto sub = c.Str("sub_path"); !sub.empty()) query.emplace_back("sub_path", sub);
        if (auto loc = c.Str("location_name"); !loc.empty()) {
          query.emplace_back("location_name", loc);
        }
        return Relay(c, p->text + "/filesets/" + Enc(fileset) + "/files", query, "files",
                     json::array(), object);
      });
  add("list_models", "List models", "The models of a schema the caller may see.",
      Input({CatalogArg(), SchemaArg()}, {"catalog", "schema"}),
      [](const ToolCall& c) { return ListNames(c, 2, "models", "models"); });
  add("get_model", "Get a model", "A model: its latest version number, comment and properties.",
      Input({CatalogArg(), SchemaArg(), {"model", Text("The model's name.")}},
            {"catalog", "schema", "model"}),
      [](const ToolCall& c) { return LoadChild(c, "models", "model", "model"); });
  add("list_model_versions", "List a model's versions",
      "Every version of a model: number, URIs, aliases, comment and properties.",
      Input({CatalogArg(), SchemaArg(), {"model", Text("The model's name.")}},
            {"catalog", "schema", "model"}),
      [](const ToolCall& c) {
        auto p = PathOf(c, 2);
        if (!p) return NoMetalake();
        const std::string model = c.Str("model");
        const std::string object = p->object + "." + model;
        return Relay(c, p->text + "/models/" + Enc(model) + "/versions", {{"details", "true"}},
                     "infos", "versions", json::array(), object);
      });
  add("get_model_version", "Get a model version",
      "One version of a model, by its number or by one of its aliases.",
      Input({CatalogArg(),
             SchemaArg(),
             {"model", Text("The model's name.")},
             {"version", Integer("The version number.", 0, 2147483647)},
             {"alias", Text("An alias of the version (instead of its number).")}},
            {"catalog", "schema", "model"}),
      [](const ToolCall& c) {
        auto p = PathOf(c, 2);
        if (!p) return NoMetalake();
        const std::string model = c.Str("model");
        const std::string object = p->object + "." + model;
        const bool by_alias = c.args().contains("alias");
        if (by_alias == c.args().contains("version")) {
          return Invalid("Give exactly one of 'version' and 'alias'");
        }
        const std::string tail = by_alias ? "/aliases/" + Enc(c.Str("alias"))
                                          : "/versions/" + std::to_string(c.Int("version", 0));
        return Relay(c, p->text + "/models/" + Enc(model) + tail, {}, "modelVersion",
                     json::object(), object);
      });
  add("list_topics", "List topics", "The topics of a schema of a Kafka catalog the caller may see.",
      Input({CatalogArg(), SchemaArg()}, {"catalog", "schema"}),
      [](const ToolCall& c) { return ListNames(c, 2, "topics", "topics"); });
  add("get_topic", "Get a topic",
      "A topic: partitions, replication and its configuration, comment and properties.",
      Input({CatalogArg(), SchemaArg(), {"topic", Text("The topic's name.")}},
            {"catalog", "schema", "topic"}),
      [](const ToolCall& c) { return LoadChild(c, "topics", "topic", "topic"); });
  add("list_functions", "List functions",
      "The functions registered in a schema the caller may see, with their definitions.",
      Input({CatalogArg(), SchemaArg()}, {"catalog", "schema"}), [](const ToolCall& c) {
        auto p = PathOf(c, 2);
        if (!p) return NoMetalake();
        return Relay(c, p->text + "/functions", {{"details", "true"}}, "functions", json::array(),
                     p->object);
      });
  add("get_function", "Get a function",
      "A function: type, definitions (parameters, return type) and implementations per runtime.",
      Input({CatalogArg(), SchemaArg(), {"function", Text("The function's name.")}},
            {"catalog", "schema", "function"}),
      [](const ToolCall& c) { return LoadChild(c, "functions", "function", "function"); });

  // Tags and policies.
  add("list_tags", "List tags", "The tags of a metalake, with comments and properties.",
      Input({}, {}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        return Relay(c, p->text + "/tags", {{"details", "true"}}, "tags", json::array(), p->object);
      });
  add("get_tag", "Get a tag", "One tag: comment and properties.",
      Input({{"tag", Text("The tag's name.")}}, {"tag"}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        Answer a = c.Gravitino("GET", p->text + "/tags/" + Enc(c.Str("tag")));
        if (!a.ok()) return Failed(a, p->object + "." + c.Str("tag"));
        return Done(json{{"tag", a.body.value("tag", json::object())}}, p->object);
      });
  add("list_tags_for_object", "List the tags of an object",
      "The tags attached to a metadata object, including those it inherits from its parents.",
      Input({TypeArg(), FullNameArg()}, {"type", "full_name"}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        const std::string object = p->object + "." + c.Str("full_name");
        return Relay(c, ObjectsPath(*p, c) + "/tags", {{"details", "true"}}, "tags", json::array(),
                     object);
      });
  add("list_objects_for_tag", "List the objects a tag is attached to",
      "The metadata objects a tag is attached to, among those the caller may see.",
      Input({{"tag", Text("The tag's name.")}}, {"tag"}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        return Relay(c, p->text + "/tags/" + Enc(c.Str("tag")) + "/objects", {}, "metadataObjects",
                     json::array(), p->object);
      });
  add("list_policies", "List policies",
      "The policies of a metalake: type, whether enabled, what they apply to and their content.",
      Input({}, {}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        return Relay(c, p->text + "/policies", {{"details", "true"}}, "policies", json::array(),
                     p->object);
      });
  add("get_policy", "Get a policy", "One policy with its content.",
      Input({{"policy", Text("The policy's name.")}}, {"policy"}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        return Relay(c, p->text + "/policies/" + Enc(c.Str("policy")), {}, "policy", json::object(),
                     p->object);
      });
  add("list_policies_for_object", "List the policies of an object",
      "The policies attached to a metadata object, including inherited ones.",
      Input({TypeArg(), FullNameArg()}, {"type", "full_name"}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        const std::string object = p->object + "." + c.Str("full_name");
        return Relay(c, ObjectsPath(*p, c) + "/policies", {{"details", "true"}}, "policies",
                     json::array(), object);
      });
  add("list_objects_for_policy", "List the objects a policy is attached to",
      "The metadata objects a policy is attached to, among those the caller may see.",
      Input({{"policy", Text("The policy's name.")}}, {"policy"}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        return Relay(c, p->text + "/policies/" + Enc(c.Str("policy")) + "/objects", {},
                     "metadataObjects", json::array(), p->object);
      });

  // Statistics, lineage, owners, privileges.
  add("list_statistics", "List statistics of a table",
      "The statistics of a table (row count, sizes, custom ones), as stored or as its source "
      "reports them.",
      Input({{"full_name", Text("The table as `catalog.schema.table`.")}}, {"full_name"}),
      [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        const std::string object = p->object + "." + c.Str("full_name");
        return Relay(c, p->text + "/objects/table/" + Enc(c.Str("full_name")) + "/statistics", {},
                     "statistics", json::array(), object);
      });
  add("list_partition_statistics", "List statistics of a table's partitions",
      "The statistics of a table's partitions, optionally of a range of partition names.",
      Input({{"full_name", Text("The table as `catalog.schema.table`.")},
             {"from", Text("The first partition name of the range.")},
             {"to", Text("The last partition name of the range.")}},
            {"full_name"}),
      [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        const std::string object = p->object + "." + c.Str("full_name");
        Query query;
        if (auto from = c.Str("from"); !from.empty()) query.emplace_back("from", from);
        if (auto to = c.Str("to"); !to.empty()) query.emplace_back("to", to);
        return Relay(
            c, p->text + "/objects/table/" + Enc(c.Str("full_name")) + "/statistics/partitions",
            query, "partitionStatistics", json::array(), object);
      });
  add("get_lineage", "Get a table's lineage",
      "The jobs and datasets upstream and/or downstream of a table, from the OpenLineage events "
      "the server received. Tables the caller may not load are shown without their names.",
      Input({{"full_name", Text("The table as `catalog.schema.table`.")},
             {"direction",
              Choice("Which way to walk (default both).", {"upstream", "downstream", "both"})},
             {"depth",
              Integer("Jobs between the table and the farthest dataset (default 3).", 1, 20)},
             {"page_size", Integer("Nodes per answer (default 100).", 1, 1000)}},
            {"full_name"}),
      [](const ToolCall& c) {
        const std::string metalake = c.Metalake();
        if (metalake.empty()) return NoMetalake();
        const std::string object = metalake + "." + c.Str("full_name");
        Answer a = c.Gravitino("GET", "/lineage/graph",
                               {{"metalake", metalake},
                                {"fullName", c.Str("full_name")},
                                {"direction", c.Str("direction", "both")},
                                {"depth", std::to_string(c.Int("depth", 3))},
                                {"pageSize", std::to_string(c.Int("page_size", 100))}});
        if (!a.ok()) return Failed(a, object);
        return Done(Body(a), object);
      });
  add("get_owner", "Get the owner of an object",
      "The user or group that owns a metadata object (needs authorization on the server).",
      Input({TypeArg(), FullNameArg()}, {"type", "full_name"}), [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        const std::string object = p->object + "." + c.Str("full_name");
        return Relay(c, p->text + "/owners/" + Enc(c.Str("type")) + "/" + Enc(c.Str("full_name")),
                     {}, "owner", json(), object);
      });
  add("get_my_privileges", "Get my privileges on an object",
      "What the caller may do with a metadata object (load, modify, drop, grant, create "
      "children), whether it owns it, and the privileges its roles grant on the object and the "
      "objects above it.",
      Input({TypeArg(), {"full_name", Text("As for the other tools; not needed for a metalake.")}},
            {"type"}),
      MyPrivileges);
  add("search", "Search the metalake",
      "Finds catalogs, schemas, tables, views, filesets, models and topics whose name, comment, "
      "tags or column names contain the query (case-insensitive), among the objects the caller "
      "may see.",
      Input({{"query", Text("The text to look for.", 256)},
             {"kinds",
              json{{"type", "array"},
                   {"items", Choice("A kind of object.", {"catalog", "schema", "table", "view",
                                                          "fileset", "model", "topic", "column"})},
                   {"maxItems", 8},
                   {"description", "Only these kinds (default: all)."}}},
             CatalogArg(),
             {"limit", Integer("At most this many results (default 50).", 1, 500)}},
            {"query"}),
      Search);

  // Tools that change metadata (only when the server allows them).
  add(
      "associate_tags", "Attach or detach tags",
      "Attaches tags to a metadata object and/or detaches tags from it. Answers the object's "
      "tags afterwards.",
      Input({TypeArg(),
             FullNameArg(),
             {"tags_to_add", Names("Tags to attach.")},
             {"tags_to_remove", Names("Tags to detach.")}},
            {"type", "full_name"}),
      [](const ToolCall& c) {
        auto p = PathOf(c, 0);
        if (!p) return NoMetalake();
        const std::string object = p->object + "." + c.Str("full_name");
        json body{{"tagsToAdd", c.args().value("tags_to_add", json::array())},
                  {"tagsToRemove", c.args().value("tags_to_remove", json::array())}};
        Answer a = c.Gravitino("POST", ObjectsPath(*p, c) + "/tags", {}, &body);
        if (!a.ok()) return Failed(a, object);
        return Done(json{{"tags", a.body.value("names", json::array())}}, object);
      },
      true);
  add(
      "link_model_version", "Register a model version",
      "Links a new version of a model to its artifact URIs, with optional aliases, comment and "
      "properties. Answers the new version.",
      Input({CatalogArg(),
             SchemaArg(),
             {"model", Text("The model's name.")},
             {"uris",
              json{{"type", "object"},
                   {"description", "Named URIs of the artifact, e.g. {\"s3\": \"s3://...\"}."},
                   {"additionalProperties", Text("a URI", 4096)}}},
             {"uri", Text("The artifact's URI (when it has one).", 4096)},
             {"aliases", Names("Aliases of the new version.")},
             {"comment", Text("A comment.", 4096)},
             {"properties",
              json{{"type", "object"}, {"additionalProperties", Text("a value", 4096)}}}},
            {"catalog", "schema", "model"}),
      [](const ToolCall& c) {
        auto p = PathOf(c, 2);
        if (!p) return NoMetalake();
        const std::string model = c.Str("model");
        const std::string object = p->object + "." + model;
        json body{{"aliases", c.args().value("aliases", json::array())}};
        for (const char* key : {"uris", "uri", "comment", "properties"}) {
          if (c.args().contains(key)) body[key] = c.args()[key];
        }
        const std::string base = p->text + "/models/" + Enc(model) + "/versions";
        Answer a = c.Gravitino("POST", base, {}, &body);
        if (!a.ok()) return Failed(a, object);
        // The answer of a link carries no number: the newest version of the model is it.
        Answer m = c.Gravitino("GET", p->text + "/models/" + Enc(model));
        json version = json::object();
        if (m.ok()) {
          const json latest = m.body.value("model", json::object()).value("latestVersion", json());
          if (latest.is_number_integer() && latest.get<int64_t>() > 0) {
            Answer v = c.Gravitino("GET", base + "/" + std::to_string(latest.get<int64_t>() - 1));
            if (v.ok()) version = v.body.value("modelVersion", json::object());
          }
        }
        return Done(json{{"linked", true}, {"modelVersion", std::move(version)}}, object);
      },
      true);
  return t;
}

// ---------------------------------------------------------------------------------------------
// Argument checks
// ---------------------------------------------------------------------------------------------

std::string TypeName(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

std::string Check(const json& schema, const json& value, const std::string& where) {
  const std::string type = schema.value("type", std::string());
  const std::string name = "'" + where + "'";
  if (type == "string") {
    if (!value.is_string()) return name + " must be a string, not " + TypeName(value);
    const std::string& s = value.get_ref<const std::string&>();
    if (s.find('\0') != std::string::npos) return name + " must not contain NUL";
    if (auto min = schema.find("minLength"); min != schema.end() && s.size() < min->get<size_t>()) {
      return name + " must not be empty";
    }
    if (auto max = schema.find("maxLength"); max != schema.end() && s.size() > max->get<size_t>()) {
      return fmt::format("{} must be at most {} characters", name, max->get<size_t>());
    }
    if (auto e = schema.find("enum"); e != schema.end()) {
      if (std::find(e->begin(), e->end(), value) == e->end()) {
        std::vector<std::string> allowed;
        for (const auto& v : *e) allowed.push_back(v.get<std::string>());
        return fmt::format("{} must be one of {}", name, Join(allowed, ", "));
      }
    }
  } else if (type == "integer") {
    if (!value.is_number_integer() && !value.is_number_unsigned()) {
      return name + " must be an integer, not " + TypeName(value);
    }
    if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{INT64_MAX}) {
      return name + " is out of range";
    }
    const int64_t v = value.get<int64_t>();
    if (auto min = schema.find("minimum"); min != schema.end() && v < min->get<int64_t>()) {
      return fmt::format("{} must be at least {}", name, min->get<int64_t>());
    }
    if (auto max = schema.find("maximum"); max != schema.end() && v > max->get<int64_t>()) {
      return fmt::format("{} must be at most {}", name, max->get<int64_t>());
    }
  } else if (type == "boolean") {
    if (!value.is_boolean()) return name + " must be a boolean, not " + TypeName(value);
  } else if (type == "array") {
    if (!value.is_array()) return name + " must be an array, not " + TypeName(value);
    if (auto max = schema.find("maxItems");
        max != schema.end() && value.size() > max->get<size_t>()) {
      return fmt::format("{} must have at most {} items", name, max->get<size_t>());
    }
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < value.size(); ++i) {
        if (auto e = Check(*items, value[i], fmt::format("{}[{}]", where, i)); !e.empty()) return e;
      }
    }
  } else if (type == "object") {
    if (!value.is_object()) return name + " must be an object, not " + TypeName(value);
    const json props = schema.value("properties", json::object());
    for (const auto& req : schema.value("required", json::array())) {
      if (!value.contains(req.get<std::string>())) {
        return "'" + (where.empty() ? "" : where + ".") + req.get<std::string>() + "' is required";
      }
    }
    const auto additional = schema.find("additionalProperties");
    for (const auto& [key, member] : value.items()) {
      const std::string path = where.empty() ? key : where + "." + key;
      if (auto p = props.find(key); p != props.end()) {
        if (auto e = Check(*p, member, path); !e.empty()) return e;
      } else if (additional != schema.end() && additional->is_boolean() &&
                 !additional->get<bool>()) {
        return "'" + EscapeControl(path) + "' is not an argument of this tool";
      } else if (additional != schema.end() && additional->is_object()) {
        if (auto e = Check(*additional, member, path); !e.empty()) return e;
      }
    }
  }
  return "";
}

}  // namespace

std::string ValidateArguments(const json& schema, const json& arguments) {
  return Check(schema, arguments, "");
}

Tools::Tools() : tools_(MakeTools()) {}

const Tool* Tools::Find(std::string_view name) const {
  for (const Tool& t : tools_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

ToolCall::ToolCall(const ToolContext& context, const governance::Principal& principal,
                   const json& arguments, std::string request_id)
    : context_(context),
      principal_(principal),
      arguments_(arguments),
      request_id_(std::move(request_id)) {}

std::string ToolCall::Str(std::string_view key, std::string_view fallback) const {
  auto it = arguments_.find(key);
  if (it == arguments_.end() || !it->is_string()) return std::string(fallback);
  return it->get<std::string>();
}

int64_t ToolCall::Int(std::string_view key, int64_t fallback) const {
  auto it = arguments_.find(key);
  if (it == arguments_.end() || !it->is_number_integer()) return fallback;
  return it->get<int64_t>();
}

bool ToolCall::Bool(std::string_view key, bool fallback) const {
  auto it = arguments_.find(key);
  if (it == arguments_.end() || !it->is_boolean()) return fallback;
  return it->get<bool>();
}

std::string ToolCall::Metalake() const { return Str("metalake", context_.default_metalake); }

namespace {

ToolCall::Answer ToAnswer(const http::Response& r) {
  ToolCall::Answer a;
  a.status = r.status;
  std::string text = r.body;
  if (r.spliced) text += *r.spliced;
  text += r.body_tail;
  a.body = text.empty() ? json::object() : json::parse(text, nullptr, false);
  if (a.body.is_discarded()) a.body = json::object();
  return a;
}

std::string QueryString(const std::vector<std::pair<std::string, std::string>>& query) {
  std::string out;
  for (const auto& [k, v] : query) {
    out += out.empty() ? "?" : "&";
    out += PercentEncode(k) + "=" + PercentEncode(v);
  }
  return out;
}

}  // namespace

ToolCall::Answer ToolCall::Gravitino(std::string_view method, const std::string& path,
                                     const std::vector<std::pair<std::string, std::string>>& query,
                                     const json* body) const {
  http::Request r;
  r.method = std::string(method);
  r.path = "/api" + path;
  r.target = r.path + QueryString(query);
  r.query = query;
  r.headers["Accept"] = "application/vnd.gravitino.v1+json";
  if (body != nullptr) {
    r.headers["Content-Type"] = "application/json";
    r.body = body->dump();
  }
  r.request_id = request_id_;
  r.via = "mcp";
  return ToAnswer(context_.gravitino->Handle(r, principal_));
}

ToolCall::Answer ToolCall::Iceberg(std::string_view method, const std::string& path) const {
  http::Request r;
  r.method = std::string(method);
  r.target = "/iceberg" + path;
  if (!http::ParseTarget(r.target, r.path, r.query)) return Answer{400, json::object()};
  r.request_id = request_id_;
  r.via = "mcp";
  return ToAnswer(context_.iceberg->Handle(r, principal_));
}

}  // namespace cairn::api::mcp
