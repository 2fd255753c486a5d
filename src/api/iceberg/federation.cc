// SPDX-License-Identifier: Apache-2.0
// /iceberg/v1/{prefix}/... of a federated catalog (catalog-backend `rest`): optionally authorized
// here (`rest.check-privileges`), then forwarded to the remote catalog and answered with the
// remote's status, ETag and body; after a successful write the governance rows of the objects it
// created, renamed or dropped are kept in step. See docs/federation.md.
#include <set>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "api/iceberg/errors.h"
#include "api/iceberg/iceberg_api.h"
#include "common/util.h"
#include "connector/external_rows.h"
#include "connector/iceberg/iceberg_proxy.h"
#include "json/json_util.h"

namespace cairn::api::iceberg {

namespace {

using governance::ObjectType;
using http::Request;
using http::Response;
using service::Action;
using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;
using Namespace = std::vector<std::string>;

struct Check {
  Action action;
  Namespace ns;
  std::string object;
  ObjectType type = ObjectType::kTable;
};

// What a listing's answer must be filtered by (when privileges are checked here).
enum class ListKind { kNone, kNamespaces, kTables, kViews };

Namespace SplitNamespace(const std::string& text) { return Split(text, '\x1f'); }

// The part of the raw (still encoded) path after /iceberg/v1/{prefix}/.
std::string RemainderAfterPrefix(const std::string& path) {
  std::string_view rest = std::string_view(path).substr(std::string_view("/iceberg").size());
  int skipped = 0;
  while (!rest.empty() && skipped < 2) {
    while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    const size_t slash = rest.find('/');
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    ++skipped;
  }
  while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  return std::string(rest);
}

std::optional<std::pair<Namespace, std::string>> Identifier(const Json& body, const char* field) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_object()) return std::nullopt;
  auto ns = it->find("namespace");
  auto name = it->find("name");
  if (ns == it->end() || !ns->is_array() || name == it->end() || !name->is_string()) {
    return std::nullopt;
  }
  Namespace levels;
  for (const auto& l : *ns) {
    if (!l.is_string()) return std::nullopt;
    levels.push_back(l.get<std::string>());
  }
  return std::make_pair(std::move(levels), name->get<std::string>());
}

bool CreatesTable(const Json& body) {
  auto reqs = body.find("requirements");
  if (reqs == body.end() || !reqs->is_array()) return false;
  for (const auto& r : *reqs) {
    if (!r.is_object()) continue;
    auto type = r.find("type");
    if (type != r.end() && type->is_string() && *type == "assert-create") return true;
  }
  return false;
}

std::string StringField(const Json& body, const char* field) {
  auto it = body.find(field);
  return it != body.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// After the remote answered a request with 2xx: the governance rows follow what it did. Only
// top-level namespaces (schemas) and the tables and views directly under them have rows.
// Creates are owned by the caller, renames move the row, drops delete it, loads create the row
// of an object seen for the first time (no owner). Store failures are logged by ExternalRows and
// never change the remote's answer.
void KeepRows(const Request& request, const std::vector<std::string>& seg,
              connector::ExternalRows& rows, const connector::CallContext& ctx) {
  using store::EntityType;
  const std::string& m = request.method;
  const size_t n = seg.size();
  const std::string& area = seg[2];
  auto body = [&]() -> Json {
    Json j = json::ParseJsonOrDiscarded(request.body);
    return j.is_object() ? j : Json::object();
  };
  const bool read = m == "GET" || m == "HEAD";
  if (n == 4 && (area == "tables" || area == "views") && seg[3] == "rename" && m == "POST") {
    const EntityType type = area == "views" ? EntityType::kView : EntityType::kTable;
    Json b = body();
    auto source = Identifier(b, "source");
    auto dest = Identifier(b, "destination");
    if (!source || !dest) return;
    const bool from_top = source->first.size() == 1;
    const bool to_top = dest->first.size() == 1;
    if (from_top && to_top) {
      rows.MoveObject(type, source->first[0], source->second, dest->first[0], dest->second, ctx);
    } else if (from_top) {
      rows.ForgetObject(type, source->first[0], source->second);
    } else if (to_top) {
      rows.TouchObject(type, dest->first[0], dest->second);
    }
    return;
  }
  if (n == 4 && area == "transactions" && seg[3] == "commit" && m == "POST") {
    Json b = body();
    auto changes = b.find("table-changes");
    if (changes == b.end() || !changes->is_array()) return;
    for (const auto& change : *changes) {
      if (!change.is_object() || !CreatesTable(change)) continue;
      auto id = Identifier(change, "identifier");
      if (id && id->first.size() == 1) {
        rows.ClaimObject(EntityType::kTable, id->first[0], id->second, ctx);
      }
    }
    return;
  }
  if (area != "namespaces") return;
  if (n == 3) {
    if (m != "POST") return;
    Json b = body();
    auto ns = b.find("namespace");
    if (ns != b.end() && ns->is_array() && ns->size() == 1 && (*ns)[0].is_string()) {
      rows.ClaimSchema((*ns)[0].get<std::string>(), ctx);
    }
    return;
  }
  const Namespace ns = SplitNamespace(seg[3]);
  if (ns.size() != 1) return;
  const std::string& schema = ns[0];
  if (n == 4) {
    if (m == "DELETE") rows.ForgetSchema(schema);
    if (read) rows.TouchSchema(schema);
    return;
  }
  const std::string& sub = seg[4];
  const EntityType type =
      sub == "views" || sub == "register-view" ? EntityType::kView : EntityType::kTable;
  if (n == 5 && m == "POST" &&
      (sub == "tables" || sub == "views" || sub == "register" || sub == "register-view")) {
    Json b = body();
    const std::string name = StringField(b, "name");
    if (name.empty()) return;
    // A staged create makes nothing yet: its commit with assert-create does.
    if (sub == "tables" && b.contains("stage-create") && b["stage-create"].is_boolean() &&
        b["stage-create"].get<bool>()) {
      return;
    }
    // A register that overwrites an existing table keeps that table's owner.
    if (b.contains("overwrite") && b["overwrite"].is_boolean() && b["overwrite"].get<bool>()) {
      rows.TouchObject(type, schema, name);
      return;
    }
    rows.ClaimObject(type, schema, name, ctx);
    return;
  }
  if (n == 6 && (sub == "tables" || sub == "views")) {
    const std::string& name = seg[5];
    if (m == "DELETE") {
      rows.ForgetObject(type, schema, name);
    } else if (read) {
      rows.TouchObject(type, schema, name);
    } else if (m == "POST" && sub == "tables" && CreatesTable(body())) {
      rows.ClaimObject(type, schema, name, ctx);
    }
  }
}

// The same decisions as for a managed catalog's routes (iceberg_api.cc), by route. Routes the
// managed catalog does not have need catalog ownership.
Result<std::vector<Check>> RequiredChecks(const Request& request,
                                          const std::vector<std::string>& seg, ListKind& list) {
  const std::string& m = request.method;
  const size_t n = seg.size();
  list = ListKind::kNone;
  auto body = [&]() -> Json {
    Json j = json::ParseJsonOrDiscarded(request.body);
    return j.is_object() ? j : Json::object();
  };
  const bool read = m == "GET" || m == "HEAD";
  std::vector<Check> checks;
  const std::string& area = seg[2];
  if (n == 4 && (area == "tables" || area == "views") && seg[3] == "rename") {
    const bool view = area == "views";
    const ObjectType type = view ? ObjectType::kView : ObjectType::kTable;
    Json b = body();
    auto source = Identifier(b, "source");
    auto dest = Identifier(b, "destination");
    if (!source || !dest) {
      return InvalidArgument("Invalid rename: 'source' and 'destination' must be identifiers");
    }
    checks.push_back(
        {view ? Action::kManageView : Action::kDropTable, source->first, source->second, type});
    checks.push_back(
        {view ? Action::kCreateView : Action::kCreateTable, dest->first, dest->second, type});
    return checks;
  }
  if (n == 4 && area == "transactions" && seg[3] == "commit") {
    Json b = body();
    auto changes = b.find("table-changes");
    if (changes == b.end() || !changes->is_array()) {
      return InvalidArgument("Invalid field 'table-changes': expected an array");
    }
    for (const auto& change : *changes) {
      auto id = change.is_object() ? Identifier(change, "identifier") : std::nullopt;
      if (!id) return InvalidArgument("Invalid table change: field 'identifier' is required");
      checks.push_back({CreatesTable(change) ? Action::kCreateTable : Action::kModifyTable,
                        id->first, id->second});
    }
    return checks;
  }
  if (area != "namespaces") {
    checks.push_back({Action::kManageCatalog, {}, ""});
    return checks;
  }
  if (n == 3) {
    if (m == "POST") {
      Json b = body();
      Namespace ns;
      if (auto it = b.find("namespace"); it != b.end() && it->is_array()) {
        for (const auto& l : *it) {
          if (l.is_string()) ns.push_back(l.get<std::string>());
        }
      }
      if (ns.empty()) return InvalidArgument("Invalid field 'namespace': expected an array");
      checks.push_back({Action::kCreateSchema, ns, ""});
      return checks;
    }
    if (auto p = request.Query("parent"); p && !p->empty()) {
      checks.push_back({Action::kLoadSchema, SplitNamespace(*p), ""});
    } else {
      list = ListKind::kNamespaces;
    }
    return checks;
  }
  const Namespace ns = SplitNamespace(seg[3]);
  if (n == 4) {
    checks.push_back({read ? Action::kLoadSchema : Action::kManageSchema, ns, ""});
    return checks;
  }
  const std::string& sub = seg[4];
  if (n == 5 && sub == "properties") {
    checks.push_back({Action::kManageSchema, ns, ""});
    return checks;
  }
  const bool views = sub == "views";
  const ObjectType type = views ? ObjectType::kView : ObjectType::kTable;
  if (n == 5 && (sub == "tables" || views)) {
    if (m == "POST") {
      checks.push_back(
          {views ? Action::kCreateView : Action::kCreateTable, ns, StringField(body(), "name"),
           type});
    } else {
      checks.push_back({Action::kLoadSchema, ns, ""});
      list = views ? ListKind::kViews : ListKind::kTables;
    }
    return checks;
  }
  if (n == 5 && (sub == "register" || sub == "register-view")) {
    const bool view = sub == "register-view";
    checks.push_back({view ? Action::kCreateView : Action::kCreateTable, ns,
                      StringField(body(), "name"), view ? ObjectType::kView : ObjectType::kTable});
    return checks;
  }
  if ((sub == "tables" || views) && n >= 6) {
    const std::string& name = seg[5];
    if (n > 6) {
      // metrics, credentials, scan planning: reading the table.
      checks.push_back({views ? Action::kLoadView : Action::kLoadTable, ns, name, type});
      return checks;
    }
    Action action = views ? Action::kLoadView : Action::kLoadTable;
    if (m == "DELETE") action = views ? Action::kManageView : Action::kDropTable;
    if (m == "POST") {
      action = views ? Action::kManageView
                     : (CreatesTable(body()) ? Action::kCreateTable : Action::kModifyTable);
    }
    checks.push_back({action, ns, name, type});
    return checks;
  }
  checks.push_back({Action::kManageCatalog, {}, ""});
  return checks;
}

}  // namespace

Response IcebergApi::Forward(const Request& request, const governance::Principal& principal,
                             const std::pair<std::string, std::string>& names,
                             connector::IcebergProxy& proxy, connector::ExternalRows* rows,
                             const std::vector<std::string>& seg) const {
  // Dot segments would let the remote (or curl) resolve the path outside this catalog's prefix.
  for (const auto& s : seg) {
    if (s == "." || s == "..") {
      return PlainErrorResponse(400, "BadRequestException",
                                "Path segments '.' and '..' are not allowed");
    }
  }
  const bool check = proxy.options().check_privileges && authz_.enabled();
  ListKind list = ListKind::kNone;
  Namespace list_ns;
  if (check) {
    auto checks = RequiredChecks(request, seg, list);
    if (!checks) return ErrorResponse(checks.error());
    for (const auto& c : *checks) {
      auto target = authz_.Resolve(names.first, names.second, c.ns, c.object, c.type);
      if (!target) return ErrorResponse(target.error());
      target->object_type = c.type;
      auto allowed = authz_.Check(principal, c.action, *target);
      if (!allowed) return ErrorResponse(allowed.error());
    }
    if (list == ListKind::kTables || list == ListKind::kViews) list_ns = SplitNamespace(seg[3]);
  }
  connector::ProxyRequest forward;
  forward.method = request.method;
  forward.path = RemainderAfterPrefix(request.path);
  forward.query = request.query;
  for (const auto& [k, v] : request.headers) forward.headers.emplace_back(k, v);
  forward.body = request.body;
  forward.authorization = request.Header("Authorization");
  auto reply = proxy.Forward(forward);
  if (!reply) return ErrorResponse(reply.error());
  Response r;
  r.status = reply->status;
  r.content_type = reply->content_type;
  r.headers = std::move(reply->headers);
  r.body = std::move(reply->body);
  if (rows != nullptr && rows->Tracking() && r.status >= 200 && r.status < 300) {
    try {
      KeepRows(request, seg, *rows, connector::CallContext{principal.user, NowMillis()});
    } catch (const std::exception& e) {
      spdlog::warn("event=ownership_row_failed catalog={}.{} path={} error=\"{}\"", names.first,
                   names.second, request.path, e.what());
    }
  }
  if (list == ListKind::kNone || r.status != 200) return r;

  // Keep only what the caller may see, as for a managed catalog's listings.
  OrderedJson body = json::ParseOrderedJsonOrDiscarded(r.body);
  if (!body.is_object()) return r;
  const bool namespaces = list == ListKind::kNamespaces;
  const char* field = namespaces ? "namespaces" : "identifiers";
  if (!body.contains(field) || !body[field].is_array()) return r;
  std::vector<std::string> listed;
  for (const auto& item : body[field]) {
    if (namespaces && item.is_array() && !item.empty() && item[0].is_string()) {
      listed.push_back(item[0].get<std::string>());
    } else if (!namespaces && item.is_object() && item.contains("name") &&
               item["name"].is_string()) {
      listed.push_back(item["name"].get<std::string>());
    }
  }
  const ObjectType type = list == ListKind::kViews ? ObjectType::kView : ObjectType::kTable;
  auto parent = authz_.Resolve(names.first, names.second, list_ns, "", type);
  if (!parent) return ErrorResponse(parent.error());
  parent->object_type = type;
  const Action action = namespaces                 ? Action::kLoadSchema
                        : list == ListKind::kViews ? Action::kLoadView
                                                   : Action::kLoadTable;
  auto kept = authz_.Filter(principal, action, *parent, listed);
  if (!kept) return ErrorResponse(kept.error());
  const std::set<std::string> keep(kept->begin(), kept->end());
  OrderedJson filtered = OrderedJson::array();
  for (auto& item : body[field]) {
    std::string name;
    if (namespaces && item.is_array() && !item.empty() && item[0].is_string()) {
      name = item[0].get<std::string>();
    } else if (!namespaces && item.is_object() && item.contains("name") &&
               item["name"].is_string()) {
      name = item["name"].get<std::string>();
    }
    if (keep.count(name) != 0) filtered.push_back(std::move(item));
  }
  body[field] = std::move(filtered);
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

Response IcebergApi::FederatedConfig(const Request& request, const std::string& prefix,
                                     connector::IcebergProxy& proxy) const {
  connector::ProxyResponse failure;
  failure.status = 0;
  auto config = proxy.Config(request.Header("Authorization"), &failure);
  if (!config) {
    if (failure.status == 0) return ErrorResponse(config.error());
    Response r;
    r.status = failure.status;
    r.content_type = failure.content_type;
    r.body = std::move(failure.body);
    return r;
  }
  OrderedJson defaults = config->defaults;
  defaults.erase("prefix");
  OrderedJson overrides = config->overrides;
  overrides.erase("prefix");
  overrides.erase("uri");  // clients keep talking to this server
  overrides["prefix"] = prefix;
  OrderedJson body{{"defaults", std::move(defaults)}, {"overrides", std::move(overrides)}};
  if (config->endpoints) body["endpoints"] = *config->endpoints;
  Response r;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

}  // namespace cairn::api::iceberg
