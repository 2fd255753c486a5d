// SPDX-License-Identifier: Apache-2.0
// The commands on governance: tags, policies, users, groups, roles, grants, owners, the audit
// log and lineage.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli_context.h"
#include "app/cli_output.h"
#include "common/util.h"

namespace cairn::app::cli {

namespace {

using json = nlohmann::ordered_json;

void AddName(CLI::App* cmd, Args& a, std::string_view what) {
  cmd->add_option("-n,--name", a.name, std::string(what))->required();
}

void AddObject(CLI::App* cmd, Args& a, bool required) {
  CLI::Option* object =
      cmd->add_option("--object", a.object,
                      "Metadata object: catalog[.schema[.table[.column]]] (dotted full name)");
  if (required) object->required();
  cmd->add_option("--type", a.type,
                  "Its type: metalake, catalog, schema, table, view, fileset, topic, model, "
                  "column (default: from the depth of --object)");
}

std::string ObjectPath(const std::string& ml, const ObjectRef& o, std::string_view tail) {
  return ApiPath({"metalakes", ml, "objects", o.type, o.full_name}) + std::string(tail);
}

std::string Names(const json& list) {
  std::vector<std::string> names;
  if (list.is_array()) {
    for (const auto& n : list) names.push_back(CellText(n));
  }
  return Join(names, ", ");
}

void AddAudit(std::vector<std::pair<std::string, std::string>>& fields, const json& audit) {
  fields.emplace_back("Creator", CellText(Member(audit, "creator")));
  fields.emplace_back("Created", CellText(Member(audit, "createTime")));
}

// GET `path`; with --output json the answer, else `show` of it.
template <typename Show>
int Get(Session& s, const std::string& path, Show show) {
  json reply;
  if (int rc = s.Call("GET", path, nullptr, reply)) return rc;
  if (s.json_output()) {
    PrintJsonDocument(s.out(), reply);
    return kExitOk;
  }
  show(reply);
  return kExitOk;
}

void PrintNames(Session& s, const json& reply) {
  std::vector<std::vector<std::string>> rows;
  if (const json& names = Member(reply, "names"); names.is_array()) {
    for (const auto& n : names) rows.push_back({CellText(n)});
  }
  PrintTable(s.out(), {"NAME"}, rows);
}

// ---- tags ------------------------------------------------------------------------------------

int TagList(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  const bool of_object = !s.args().object.empty() || !s.args().type.empty();
  std::string path = ApiPath({"metalakes", ml, "tags"}) + "?details=true";
  if (of_object) {
    ObjectRef o;
    if (int rc = s.Object(ml, o)) return rc;
    path = ObjectPath(ml, o, "/tags?details=true");
  }
  return Get(s, path, [&](const json& reply) {
    std::vector<std::vector<std::string>> rows;
    if (const json& tags = Member(reply, "tags"); tags.is_array()) {
      for (const auto& t : tags) {
        std::vector<std::string> row = {CellText(Member(t, "name")),
                                        CellText(Member(t, "comment"))};
        if (of_object) {
          const json& inherited = Member(t, "inherited");
          row.push_back(inherited.is_boolean() && inherited.get<bool>() ? "yes" : "no");
        } else {
          row.push_back(PropertiesText(Member(t, "properties")));
        }
        rows.push_back(std::move(row));
      }
    }
    PrintTable(s.out(), {"NAME", "COMMENT", of_object ? "INHERITED" : "PROPERTIES"}, rows);
  });
}

int TagDetails(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return Get(s, ApiPath({"metalakes", ml, "tags", s.args().name}), [&](const json& reply) {
    const json& t = Member(reply, "tag");
    std::vector<std::pair<std::string, std::string>> fields = {
        {"Name", CellText(Member(t, "name"))},
        {"Comment", CellText(Member(t, "comment"))},
        {"Properties", PropertiesText(Member(t, "properties"))}};
    AddAudit(fields, Member(t, "audit"));
    PrintFields(s.out(), fields);
  });
}

int TagCreate(Session& s) {
  std::string ml;
  json properties;
  if (int rc = s.Metalake(ml)) return rc;
  if (int rc = s.Properties(properties)) return rc;
  json body = {{"name", s.args().name}, {"comment", s.args().comment}, {"properties", properties}};
  json reply;
  if (int rc = s.Call("POST", ApiPath({"metalakes", ml, "tags"}), &body, reply)) return rc;
  return s.Done(reply, fmt::format("Tag {} created.", s.args().name));
}

int TagDelete(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  json reply;
  if (int rc =
          s.Call("DELETE", ApiPath({"metalakes", ml, "tags", s.args().name}), nullptr, reply)) {
    return rc;
  }
  return s.Deleted(reply, "dropped", fmt::format("Tag {}", s.args().name));
}

int ChangeTags(Session& s, bool add) {
  std::string ml;
  ObjectRef o;
  if (int rc = s.Metalake(ml)) return rc;
  if (int rc = s.Object(ml, o)) return rc;
  json body = {{"tagsToAdd", add ? json(s.args().tags) : json::array()},
               {"tagsToRemove", add ? json::array() : json(s.args().tags)}};
  json reply;
  if (int rc = s.Call("POST", ObjectPath(ml, o, "/tags"), &body, reply)) return rc;
  const std::string now = Names(Member(reply, "names"));
  return s.Done(reply,
                fmt::format("Tags of {} {}: {}", o.type, o.full_name, now.empty() ? "none" : now));
}

int TagAssociate(Session& s) { return ChangeTags(s, true); }
int TagDisassociate(Session& s) { return ChangeTags(s, false); }

// ---- policies --------------------------------------------------------------------------------

int PolicyList(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return Get(s, ApiPath({"metalakes", ml, "policies"}) + "?details=true", [&](const json& reply) {
    std::vector<std::vector<std::string>> rows;
    if (const json& list = Member(reply, "policies"); list.is_array()) {
      for (const auto& p : list) {
        rows.push_back({CellText(Member(p, "name")), CellText(Member(p, "policyType")),
                        CellText(Member(p, "enabled")), CellText(Member(p, "comment"))});
      }
    }
    PrintTable(s.out(), {"NAME", "TYPE", "ENABLED", "COMMENT"}, rows);
  });
}

int PolicyDetails(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return Get(s, ApiPath({"metalakes", ml, "policies", s.args().name}), [&](const json& reply) {
    const json& p = Member(reply, "policy");
    std::vector<std::pair<std::string, std::string>> fields = {
        {"Name", CellText(Member(p, "name"))},
        {"Type", CellText(Member(p, "policyType"))},
        {"Enabled", CellText(Member(p, "enabled"))},
        {"Comment", CellText(Member(p, "comment"))},
        {"Content", CellText(Member(p, "content"))}};
    AddAudit(fields, Member(p, "audit"));
    PrintFields(s.out(), fields);
  });
}

// ---- users and groups ------------------------------------------------------------------------

template <bool kGroup>
struct MemberKind {
  static constexpr std::string_view kCollection = kGroup ? "groups" : "users";
  static constexpr std::string_view kKey = kGroup ? "group" : "user";
  static constexpr std::string_view kDisplay = kGroup ? "Group" : "User";
};

template <bool kGroup>
int MemberList(Session& s) {
  using M = MemberKind<kGroup>;
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return Get(s, ApiPath({"metalakes", ml, M::kCollection}) + "?details=true",
             [&](const json& reply) {
               std::vector<std::vector<std::string>> rows;
               if (const json& list = Member(reply, M::kCollection); list.is_array()) {
                 for (const auto& m : list) {
                   rows.push_back({CellText(Member(m, "name")), Names(Member(m, "roles"))});
                 }
               }
               PrintTable(s.out(), {"NAME", "ROLES"}, rows);
             });
}

template <bool kGroup>
int MemberDetails(Session& s) {
  using M = MemberKind<kGroup>;
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return Get(s, ApiPath({"metalakes", ml, M::kCollection, s.args().name}), [&](const json& reply) {
    const json& m = Member(reply, M::kKey);
    std::vector<std::pair<std::string, std::string>> fields = {
        {"Name", CellText(Member(m, "name"))}, {"Roles", Names(Member(m, "roles"))}};
    AddAudit(fields, Member(m, "audit"));
    PrintFields(s.out(), fields);
  });
}

template <bool kGroup>
int MemberCreate(Session& s) {
  using M = MemberKind<kGroup>;
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  json body = {{"name", s.args().name}};
  json reply;
  if (int rc = s.Call("POST", ApiPath({"metalakes", ml, M::kCollection}), &body, reply)) return rc;
  return s.Done(reply, fmt::format("{} {} added.", M::kDisplay, s.args().name));
}

template <bool kGroup>
int MemberDelete(Session& s) {
  using M = MemberKind<kGroup>;
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  json reply;
  if (int rc = s.Call("DELETE", ApiPath({"metalakes", ml, M::kCollection, s.args().name}), nullptr,
                      reply)) {
    return rc;
  }
  return s.Deleted(reply, "removed", fmt::format("{} {}", M::kDisplay, s.args().name));
}

// ---- roles -----------------------------------------------------------------------------------

int RoleList(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return Get(s, ApiPath({"metalakes", ml, "roles"}),
             [&](const json& reply) { PrintNames(s, reply); });
}

int RoleDetails(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return Get(s, ApiPath({"metalakes", ml, "roles", s.args().name}), [&](const json& reply) {
    const json& r = Member(reply, "role");
    std::vector<std::pair<std::string, std::string>> fields = {
        {"Name", CellText(Member(r, "name"))},
        {"Properties", PropertiesText(Member(r, "properties"))}};
    AddAudit(fields, Member(r, "audit"));
    PrintFields(s.out(), fields);
    std::vector<std::vector<std::string>> rows;
    if (const json& objects = Member(r, "securableObjects"); objects.is_array()) {
      for (const auto& o : objects) {
        std::vector<std::string> privileges;
        if (const json& list = Member(o, "privileges"); list.is_array()) {
          for (const auto& p : list) {
            privileges.push_back(ToLower(CellText(Member(p, "condition"))) == "deny"
                                     ? "deny " + CellText(Member(p, "name"))
                                     : CellText(Member(p, "name")));
          }
        }
        rows.push_back(
            {CellText(Member(o, "type")), CellText(Member(o, "fullName")), Join(privileges, ", ")});
      }
    }
    s.out() << "\n";
    PrintTable(s.out(), {"TYPE", "OBJECT", "PRIVILEGES"}, rows);
  });
}

int RoleCreate(Session& s) {
  std::string ml;
  json properties;
  if (int rc = s.Metalake(ml)) return rc;
  if (int rc = s.Properties(properties)) return rc;
  json body = {
      {"name", s.args().name}, {"properties", properties}, {"securableObjects", json::array()}};
  json reply;
  if (int rc = s.Call("POST", ApiPath({"metalakes", ml, "roles"}), &body, reply)) return rc;
  return s.Done(reply, fmt::format("Role {} created.", s.args().name));
}

int RoleDelete(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  json reply;
  if (int rc =
          s.Call("DELETE", ApiPath({"metalakes", ml, "roles", s.args().name}), nullptr, reply)) {
    return rc;
  }
  return s.Deleted(reply, "deleted", fmt::format("Role {}", s.args().name));
}

// ---- grant / revoke --------------------------------------------------------------------------

int ChangeGrants(Session& s, bool grant) {
  const Args& a = s.args();
  const std::string_view verb = grant ? "grant" : "revoke";
  const std::string_view to = grant ? "to" : "from";
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  const int targets = static_cast<int>(!a.to_user.empty()) + static_cast<int>(!a.to_group.empty()) +
                      static_cast<int>(!a.privileges.empty());
  if (targets != 1) {
    return s.Usage(fmt::format(
        "name exactly one of --{0}-user, --{0}-group (roles) or --privilege (privileges of a "
        "role on --object)",
        to));
  }
  json reply;
  if (a.privileges.empty()) {
    const bool group = !a.to_group.empty();
    const std::string& member = group ? a.to_group : a.to_user;
    json body = {{"roleNames", a.roles}};
    const std::string path =
        ApiPath({"metalakes", ml, "permissions", group ? "groups" : "users", member, verb});
    if (int rc = s.Call("PUT", path, &body, reply)) return rc;
    return s.Done(reply, fmt::format("{} role {} {} {} {}.", grant ? "Granted" : "Revoked",
                                     Join(a.roles, ", "), to, group ? "group" : "user", member));
  }
  if (a.roles.size() != 1) return s.Usage("privileges go to exactly one --role");
  ObjectRef o;
  if (int rc = s.Object(ml, o)) return rc;
  json privileges = json::array();
  std::vector<std::string> names;
  for (const auto& p : a.privileges) {
    names.push_back(ToUpper(p));
    privileges.push_back({{"name", names.back()}, {"condition", "ALLOW"}});
  }
  json body = {{"privileges", privileges}};
  const std::string path =
      ApiPath({"metalakes", ml, "permissions", "roles", a.roles[0], o.type, o.full_name, verb});
  if (int rc = s.Call("PUT", path, &body, reply)) return rc;
  return s.Done(reply, fmt::format("{} {} on {} {} {} role {}.", grant ? "Granted" : "Revoked",
                                   Join(names, ", "), o.type, o.full_name, to, a.roles[0]));
}

int Grant(Session& s) { return ChangeGrants(s, true); }
int Revoke(Session& s) { return ChangeGrants(s, false); }

// ---- owners ----------------------------------------------------------------------------------

std::string OwnerPath(const std::string& ml, const ObjectRef& o) {
  return ApiPath({"metalakes", ml, "owners", o.type, o.full_name});
}

int OwnerGet(Session& s) {
  std::string ml;
  ObjectRef o;
  if (int rc = s.Metalake(ml)) return rc;
  if (int rc = s.Object(ml, o)) return rc;
  return Get(s, OwnerPath(ml, o), [&](const json& reply) {
    const json& owner = Member(reply, "owner");
    if (owner.is_null()) {
      s.out() << "No owner.\n";
      return;
    }
    PrintFields(s.out(), {{"Owner", CellText(Member(owner, "name"))},
                          {"Type", ToLower(CellText(Member(owner, "type")))}});
  });
}

int OwnerSet(Session& s) {
  std::string ml;
  ObjectRef o;
  if (int rc = s.Metalake(ml)) return rc;
  if (int rc = s.Object(ml, o)) return rc;
  json body = {{"name", s.args().owner}, {"type", ToUpper(s.args().owner_type)}};
  json reply;
  if (int rc = s.Call("PUT", OwnerPath(ml, o), &body, reply)) return rc;
  return s.Done(reply, fmt::format("Owner of {} {} set to {} {}.", o.type, o.full_name,
                                   ToLower(s.args().owner_type), s.args().owner));
}

// ---- audit -----------------------------------------------------------------------------------

int AuditQuery(Session& s) {
  const Args& a = s.args();
  std::vector<std::string> query;
  if (!a.principal.empty()) query.push_back(QueryParam("principal", a.principal));
  if (!a.object.empty()) query.push_back(QueryParam("object", a.object));
  if (!a.outcome.empty()) query.push_back(QueryParam("outcome", a.outcome));
  if (a.from_ms >= 0) query.push_back(fmt::format("from={}", a.from_ms));
  if (a.to_ms >= 0) query.push_back(fmt::format("to={}", a.to_ms));
  if (a.limit >= 0) query.push_back(fmt::format("limit={}", a.limit));
  std::string path = "/api/audit";
  if (!query.empty()) path += "?" + Join(query, "&");
  return Get(s, path, [&](const json& reply) {
    std::vector<std::vector<std::string>> rows;
    if (const json& records = Member(reply, "records"); records.is_array()) {
      for (const auto& r : records) {
        rows.push_back({CellText(Member(r, "time")), CellText(Member(r, "principal")),
                        CellText(Member(r, "operation")), CellText(Member(r, "object")),
                        CellText(Member(r, "outcome")), CellText(Member(r, "status"))});
      }
    }
    PrintTable(s.out(), {"TIME", "PRINCIPAL", "OPERATION", "OBJECT", "OUTCOME", "STATUS"}, rows);
  });
}

// ---- lineage ---------------------------------------------------------------------------------

// Every page of the walk, merged: {nodes, edges, total, truncated}.
int LineageWalk(Session& s, std::string_view direction) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  std::vector<std::string> n;
  if (int rc = s.Names(3, "catalog.schema.table", n)) return rc;
  if (s.args().depth < 1 || s.args().depth > 20) return s.Usage("--depth must be in 1..20");
  const std::string base = fmt::format(
      "/api/lineage/graph?{}&{}&direction={}&depth={}&pageSize=1000", QueryParam("metalake", ml),
      QueryParam("fullName", s.args().name), direction, s.args().depth);
  json merged = {{"nodes", json::array()}, {"edges", json::array()}};
  std::string token;
  for (int page = 0; page < 100; ++page) {
    json reply;
    const std::string path = token.empty() ? base : base + "&" + QueryParam("pageToken", token);
    if (int rc = s.Call("GET", path, nullptr, reply)) return rc;
    for (const char* key : {"nodes", "edges"}) {
      if (const json& list = Member(reply, key); list.is_array()) {
        for (const auto& item : list) merged[key].push_back(item);
      }
    }
    merged["total"] = Member(reply, "total");
    merged["truncated"] = Member(reply, "truncated");
    const json& next = Member(reply, "nextPageToken");
    if (!next.is_string() || next.get<std::string>().empty()) break;
    token = next.get<std::string>();
  }
  if (s.json_output()) {
    PrintJsonDocument(s.out(), merged);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& node : merged["nodes"]) {
    const json& depth = Member(node, "depth");
    if (depth.is_number_integer() && depth.get<int64_t>() == 0) continue;  // the table itself
    std::string state;
    if (const json& run = Member(node, "latestRun"); run.is_object()) {
      state = CellText(Member(run, "state"));
    }
    rows.push_back({CellText(depth), CellText(Member(node, "type")),
                    CellText(Member(node, "source")), CellText(Member(node, "namespace")),
                    CellText(Member(node, "name")), state});
  }
  PrintTable(s.out(), {"DEPTH", "TYPE", "SOURCE", "NAMESPACE", "NAME", "LAST_RUN"}, rows);
  if (merged["truncated"].is_boolean() && merged["truncated"].get<bool>()) {
    s.out() << "(the walk stopped at the server's node limit)\n";
  }
  return kExitOk;
}

int LineageUpstream(Session& s) { return LineageWalk(s, "upstream"); }
int LineageDownstream(Session& s) { return LineageWalk(s, "downstream"); }

// ---- coverage --------------------------------------------------------------------------------

// One count as "n/of (pct%)", or "-" when nothing counts.
std::string CoverageCell(int64_t n, int64_t of) {
  if (of == 0) return "-";
  return fmt::format("{}/{} ({:.0f}%)", n, of, 100.0 * static_cast<double>(n) /
                                                   static_cast<double>(of));
}

int64_t Count(const json& counts, const char* key) {
  const json& v = Member(counts, key);
  return v.is_number_integer() ? v.get<int64_t>() : 0;
}

// Every page of the report, with totals per catalog and for the metalake.
int CoverageReport(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  std::string base = fmt::format("/api/metalakes/{}/coverage?pageSize=1000", PercentEncode(ml));
  const std::vector<std::string> scope =
      s.args().name.empty() ? std::vector<std::string>{} : Split(s.args().name, '.');
  if (scope.size() > 2) return s.Usage("--name takes catalog or catalog.schema");
  if (!scope.empty()) base += "&" + QueryParam("catalog", scope[0]);
  if (scope.size() == 2) base += "&" + QueryParam("schema", scope[1]);
  static constexpr const char* kKeys[] = {"objects", "withOwner", "withDescription", "withTags",
                                          "withLineage", "lineageApplicable"};
  json schemas = json::array();
  std::string token;
  for (int page = 0; page < 10000; ++page) {
    json reply;
    const std::string path = token.empty() ? base : base + "&" + QueryParam("pageToken", token);
    if (int rc = s.Call("GET", path, nullptr, reply)) return rc;
    if (const json& list = Member(reply, "schemas"); list.is_array()) {
      for (const auto& row : list) schemas.push_back(row);
    }
    const json& next = Member(reply, "nextPageToken");
    if (!next.is_string() || next.get<std::string>().empty()) break;
    token = next.get<std::string>();
  }
  std::map<std::string, json> by_catalog;
  json zero = json::object();
  for (const char* k : kKeys) zero[k] = 0;
  json total = zero;
  for (const auto& row : schemas) {
    json& c = by_catalog.try_emplace(CellText(Member(row, "catalog")), zero).first->second;
    for (const char* k : kKeys) {
      c[k] = c[k].get<int64_t>() + Count(row, k);
      total[k] = total[k].get<int64_t>() + Count(row, k);
    }
  }
  if (s.json_output()) {
    json catalogs = json::object();
    for (auto& [name, counts] : by_catalog) catalogs[name] = counts;
    PrintJsonDocument(s.out(), json{{"metalake", ml},
                                    {"schemas", schemas},
                                    {"catalogs", catalogs},
                                    {"total", total}});
    return kExitOk;
  }
  auto cells = [](const std::string& catalog, const std::string& schema, const json& c) {
    const int64_t n = Count(c, "objects");
    return std::vector<std::string>{catalog,
                                    schema,
                                    std::to_string(n),
                                    CoverageCell(Count(c, "withOwner"), n),
                                    CoverageCell(Count(c, "withDescription"), n),
                                    CoverageCell(Count(c, "withTags"), n),
                                    CoverageCell(Count(c, "withLineage"),
                                                 Count(c, "lineageApplicable"))};
  };
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : schemas) {
    rows.push_back(cells(CellText(Member(row, "catalog")), CellText(Member(row, "schema")), row));
  }
  for (const auto& [name, counts] : by_catalog) rows.push_back(cells(name, "(all)", counts));
  rows.push_back(cells("(all)", "(all)", total));
  PrintTable(s.out(),
             {"CATALOG", "SCHEMA", "OBJECTS", "OWNER", "DESCRIPTION", "TAGS", "LINEAGE (tables)"},
             rows);
  return kExitOk;
}

}  // namespace

void AddAccessCommands(CommandTree& tree) {
  Args& a = tree.args();

  CLI::App* tag = tree.Group("tag", "Tags and their objects");
  AddObject(tree.Leaf(tag, "list", "List the tags, or those of --object", TagList), a, false);
  AddName(tree.Leaf(tag, "details", "Show a tag", TagDetails), a, "Tag");
  CLI::App* tcreate = tree.Leaf(tag, "create", "Create a tag", TagCreate);
  AddName(tcreate, a, "Tag");
  tcreate->add_option("-c,--comment", a.comment, "Comment");
  tcreate->add_option("-p,--properties", a.properties, "Properties as key=value");
  AddName(tree.Leaf(tag, "delete", "Delete a tag", TagDelete), a, "Tag");
  for (auto [verb, help, handler] :
       {std::tuple{"associate", "Attach tags to an object", &TagAssociate},
        std::tuple{"disassociate", "Detach tags from an object", &TagDisassociate}}) {
    CLI::App* cmd = tree.Leaf(tag, verb, help, handler);
    AddObject(cmd, a, true);
    cmd->add_option("-t,--tag", a.tags, "Tag names")->required();
  }

  CLI::App* policy = tree.Group("policy", "Policies");
  tree.Leaf(policy, "list", "List the policies", PolicyList);
  AddName(tree.Leaf(policy, "details", "Show a policy", PolicyDetails), a, "Policy");

  for (const bool group : {false, true}) {
    CLI::App* cmd = tree.Group(group ? "group" : "user",
                               group ? "Groups of the metalake" : "Users of the metalake");
    tree.Leaf(cmd, "list", "List them with their roles",
              group ? MemberList<true> : MemberList<false>);
    AddName(
        tree.Leaf(cmd, "details", "Show one", group ? MemberDetails<true> : MemberDetails<false>),
        a, group ? "Group" : "User");
    AddName(tree.Leaf(cmd, "create", "Add one", group ? MemberCreate<true> : MemberCreate<false>),
            a, group ? "Group" : "User");
    AddName(
        tree.Leaf(cmd, "delete", "Remove one", group ? MemberDelete<true> : MemberDelete<false>), a,
        group ? "Group" : "User");
  }

  CLI::App* role = tree.Group("role", "Roles (grant them with `cairn grant`)");
  tree.Leaf(role, "list", "List the roles", RoleList);
  AddName(tree.Leaf(role, "details", "Show a role with its privileges", RoleDetails), a, "Role");
  CLI::App* rcreate = tree.Leaf(role, "create", "Create a role", RoleCreate);
  AddName(rcreate, a, "Role");
  rcreate->add_option("-p,--properties", a.properties, "Properties as key=value");
  AddName(tree.Leaf(role, "delete", "Delete a role", RoleDelete), a, "Role");

  for (const bool grant : {true, false}) {
    const std::string to = grant ? "to" : "from";
    CLI::App* cmd = tree.Leaf(nullptr, grant ? "grant" : "revoke",
                              grant ? "Grant roles to a user or group, or privileges to a role"
                                    : "Revoke roles from a user or group, or privileges from a "
                                      "role",
                              grant ? Grant : Revoke);
    cmd->add_option("-r,--role", a.roles, "Role name(s)")->required();
    cmd->add_option("--" + to + "-user", a.to_user, "The user " + to + " whom");
    cmd->add_option("--" + to + "-group", a.to_group, "The group " + to + " which");
    cmd->add_option("--privilege", a.privileges,
                    "Privilege(s) of the role on --object: select_table, use_catalog, ...");
    AddObject(cmd, a, false);
  }

  CLI::App* owner = tree.Group("owner", "Owners of objects");
  AddObject(tree.Leaf(owner, "get", "Show the owner of an object", OwnerGet), a, false);
  CLI::App* oset = tree.Leaf(owner, "set", "Set the owner of an object", OwnerSet);
  AddObject(oset, a, false);
  oset->add_option("--owner", a.owner, "The new owner")->required();
  oset->add_option("--owner-type", a.owner_type, "user (default) or group")
      ->check(CLI::IsMember({"user", "group"}, CLI::ignore_case));

  CLI::App* audit = tree.Group("audit", "The audit log (service admins)");
  CLI::App* query = tree.Leaf(audit, "query", "Records, newest first", AuditQuery);
  query->add_option("--principal", a.principal, "Only this principal");
  query->add_option("--object", a.object, "Only objects whose dotted name starts so");
  query->add_option("--outcome", a.outcome, "success, denied, not_found or failure");
  query->add_option("--from", a.from_ms, "From (epoch milliseconds)");
  query->add_option("--to", a.to_ms, "To (epoch milliseconds)");
  query->add_option("--limit", a.limit, "At most this many records");

  CLI::App* lineage = tree.Group("lineage", "Lineage of a table (--name catalog.schema.table)");
  for (auto [verb, help, handler] :
       {std::tuple{"upstream", "What the table is made from", &LineageUpstream},
        std::tuple{"downstream", "What is made from the table", &LineageDownstream}}) {
    CLI::App* cmd = tree.Leaf(lineage, verb, help, handler);
    cmd->add_option("-n,--name", a.name, "catalog.schema.table");
    cmd->add_option("--depth", a.depth, "Jobs between the table and the farthest dataset (1..20)");
  }

  CLI::App* coverage = tree.Group("coverage", "Metadata coverage: owners, descriptions, tags, lineage");
  CLI::App* report = tree.Leaf(coverage, "report",
                               "Per schema, per catalog and for the metalake, the share of objects "
                               "with an owner, a description, tags and lineage",
                               CoverageReport);
  report->add_option("-n,--name", a.name, "Only this catalog, or catalog.schema");
}

}  // namespace cairn::app::cli
