// SPDX-License-Identifier: Apache-2.0
// The commands on the metadata tree: metalakes, catalogs, schemas and what schemas hold.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli_context.h"
#include "app/cli_output.h"
#include "common/util.h"

namespace cairn::app::cli {

namespace {

using json = nlohmann::ordered_json;

// ---- shared pieces ---------------------------------------------------------------------------

void AddName(CLI::App* cmd, Args& a, std::string_view shape) {
  cmd->add_option("-n,--name", a.name, std::string(shape));
}

void AddCommentAndProperties(CLI::App* cmd, Args& a) {
  cmd->add_option("-c,--comment", a.comment, "Comment");
  cmd->add_option("-p,--properties", a.properties,
                  "Properties as key=value (comma-separated or repeated)");
}

std::string Flag(const json& value) {
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return CellText(value);
}

void AddAudit(std::vector<std::pair<std::string, std::string>>& fields, const json& audit) {
  fields.emplace_back("Creator", CellText(Member(audit, "creator")));
  fields.emplace_back("Created", CellText(Member(audit, "createTime")));
  if (!Member(audit, "lastModifiedTime").is_null()) {
    fields.emplace_back("Modified", CellText(Member(audit, "lastModifiedTime")) + " by " +
                                        CellText(Member(audit, "lastModifier")));
  }
}

void PrintProperties(std::ostream& out, const json& properties) {
  if (!properties.is_object() || properties.empty()) return;
  std::vector<std::vector<std::string>> rows;
  for (const auto& [k, v] : properties.items()) rows.push_back({k, CellText(v)});
  out << "\n";
  PrintTable(out, {"PROPERTY", "VALUE"}, rows);
}

// Name, comment, audit and properties of an object of the tree; `extra` after the comment.
void PrintEntity(Session& s, const json& entity,
                 const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"Name", CellText(Member(entity, "name"))}};
  fields.insert(fields.end(), extra.begin(), extra.end());
  fields.emplace_back("Comment", CellText(Member(entity, "comment")));
  AddAudit(fields, Member(entity, "audit"));
  PrintFields(s.out(), fields);
  PrintProperties(s.out(), Member(entity, "properties"));
}

// A list answer: `identifiers` ([{namespace, name}]) or `names`, one name a row.
int ListNames(Session& s, const std::string& path) {
  json reply;
  if (int rc = s.Call("GET", path, nullptr, reply)) return rc;
  if (s.json_output()) {
    PrintJsonDocument(s.out(), reply);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  const json& identifiers = Member(reply, "identifiers");
  if (identifiers.is_array()) {
    for (const auto& id : identifiers) rows.push_back({CellText(Member(id, "name"))});
  }
  const json& names = Member(reply, "names");
  if (names.is_array()) {
    for (const auto& n : names) rows.push_back({CellText(n)});
  }
  PrintTable(s.out(), {"NAME"}, rows);
  return kExitOk;
}

// GET `path`, then the object under `key` of the answer shown by `show`.
template <typename Show>
int Details(Session& s, const std::string& path, std::string_view key, Show show) {
  json reply;
  if (int rc = s.Call("GET", path, nullptr, reply)) return rc;
  if (s.json_output()) {
    PrintJsonDocument(s.out(), reply);
    return kExitOk;
  }
  show(Member(reply, key));
  return kExitOk;
}

// The updates of `update`, `set` and `remove` (Gravitino's `@type` change objects).
int SendUpdates(Session& s, const std::string& path, const json& updates, std::string_view what) {
  json body = {{"updates", updates}};
  json reply;
  if (int rc = s.Call("PUT", path, &body, reply)) return rc;
  return s.Done(reply, fmt::format("{} updated.", what));
}

int Update(Session& s, const std::string& path, std::string_view what) {
  const Args& a = s.args();
  if (a.enable && a.disable) return s.Usage("--enable and --disable exclude each other");
  json updates = json::array();
  if (!a.rename.empty()) updates.push_back({{"@type", "rename"}, {"newName", a.rename}});
  if (!a.comment.empty())
    updates.push_back({{"@type", "updateComment"}, {"newComment", a.comment}});
  if (updates.empty() && !a.enable && !a.disable) {
    return s.Usage("nothing to change: pass --rename, --comment, --enable or --disable");
  }
  json reply;
  if (a.enable || a.disable) {
    json body = {{"inUse", a.enable}};
    if (int rc = s.Call("PATCH", path, &body, reply)) return rc;
  }
  if (!updates.empty()) {
    json body = {{"updates", updates}};
    if (int rc = s.Call("PUT", path, &body, reply)) return rc;
  }
  return s.Done(reply, fmt::format("{} updated.", what));
}

int SetProperty(Session& s, const std::string& path, std::string_view what) {
  const Args& a = s.args();
  if (a.property.empty()) return s.Usage("--property is required");
  return SendUpdates(
      s, path,
      json::array({{{"@type", "setProperty"}, {"property", a.property}, {"value", a.value}}}),
      what);
}

int RemoveProperty(Session& s, const std::string& path, std::string_view what) {
  const Args& a = s.args();
  if (a.property.empty()) return s.Usage("--property is required");
  return SendUpdates(s, path,
                     json::array({{{"@type", "removeProperty"}, {"property", a.property}}}), what);
}

void AddUpdateOptions(CLI::App* cmd, Args& a) {
  cmd->add_option("--rename", a.rename, "New name");
  cmd->add_option("-c,--comment", a.comment, "New comment");
  cmd->add_flag("--enable", a.enable, "Put it in use");
  cmd->add_flag("--disable", a.disable, "Take it out of use (needed before a delete)");
}

void AddPropertyOptions(CLI::App* cmd, Args& a, bool with_value) {
  cmd->add_option("-P,--property", a.property, "Property name")->required();
  if (with_value) cmd->add_option("-V,--value", a.value, "Property value")->required();
}

// ---- metalake --------------------------------------------------------------------------------

std::string MetalakePath(const std::string& ml) { return ApiPath({"metalakes", ml}); }

int MetalakeList(Session& s) {
  json reply;
  if (int rc = s.Call("GET", "/api/metalakes", nullptr, reply)) return rc;
  if (s.json_output()) {
    PrintJsonDocument(s.out(), reply);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  const json& list = Member(reply, "metalakes");
  if (list.is_array()) {
    for (const auto& m : list) {
      rows.push_back({CellText(Member(m, "name")), CellText(Member(m, "comment")),
                      CellText(Member(Member(m, "properties"), "in-use"))});
    }
  }
  PrintTable(s.out(), {"NAME", "COMMENT", "IN USE"}, rows);
  return kExitOk;
}

int MetalakeDetails(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return Details(s, MetalakePath(ml), "metalake", [&](const json& m) { PrintEntity(s, m, {}); });
}

int MetalakeCreate(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  json properties;
  if (int rc = s.Properties(properties)) return rc;
  json body = {{"name", ml}, {"comment", s.args().comment}, {"properties", properties}};
  json reply;
  if (int rc = s.Call("POST", "/api/metalakes", &body, reply)) return rc;
  return s.Done(reply, fmt::format("Metalake {} created.", ml));
}

int MetalakeUpdate(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return Update(s, MetalakePath(ml), fmt::format("Metalake {}", ml));
}

int MetalakeSet(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return SetProperty(s, MetalakePath(ml), fmt::format("Metalake {}", ml));
}

int MetalakeRemove(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  return RemoveProperty(s, MetalakePath(ml), fmt::format("Metalake {}", ml));
}

int MetalakeDelete(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  std::string path = MetalakePath(ml);
  if (s.args().force) path += "?force=true";
  json reply;
  if (int rc = s.Call("DELETE", path, nullptr, reply)) return rc;
  return s.Deleted(reply, "dropped", fmt::format("Metalake {}", ml));
}

// ---- catalog ---------------------------------------------------------------------------------

std::string CatalogType(const std::string& provider) {
  if (provider == "fileset") return "fileset";
  if (provider == "kafka") return "messaging";
  if (provider == "model") return "model";
  if (provider.rfind("lakehouse-", 0) == 0 || provider.rfind("jdbc-", 0) == 0 ||
      provider == "hive") {
    return "relational";
  }
  return "";
}

// The body of a create or a connection test: name, type, provider, comment, properties.
int CatalogBody(Session& s, const std::string& name, json& body) {
  const Args& a = s.args();
  const std::string type = a.type.empty() ? CatalogType(a.provider) : ToLower(a.type);
  // The server picks the provider of fileset and model catalogs itself.
  if (a.provider.empty() && type != "fileset" && type != "model") {
    return s.Usage("--provider is required (it may be left out with --type fileset or model)");
  }
  if (type.empty()) {
    return s.Usage(fmt::format(
        "--type is required for provider '{}' (relational, fileset, messaging or model)",
        a.provider));
  }
  json properties;
  if (int rc = s.Properties(properties)) return rc;
  body = {{"name", name}, {"type", type}};
  if (!a.provider.empty()) body["provider"] = a.provider;
  body["comment"] = a.comment;
  body["properties"] = properties;
  return kExitOk;
}

int CatalogList(Session& s) {
  std::string ml;
  if (int rc = s.Metalake(ml)) return rc;
  json reply;
  if (int rc =
          s.Call("GET", ApiPath({"metalakes", ml, "catalogs"}) + "?details=true", nullptr, reply)) {
    return rc;
  }
  if (s.json_output()) {
    PrintJsonDocument(s.out(), reply);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  const json& list = Member(reply, "catalogs");
  if (list.is_array()) {
    for (const auto& c : list) {
      rows.push_back({CellText(Member(c, "name")), CellText(Member(c, "type")),
                      CellText(Member(c, "provider")), CellText(Member(c, "comment"))});
    }
  }
  PrintTable(s.out(), {"NAME", "TYPE", "PROVIDER", "COMMENT"}, rows);
  return kExitOk;
}

int CatalogDetails(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(1, "catalog", ml, n)) return rc;
  return Details(s, TreePath(ml, n), "catalog", [&](const json& c) {
    PrintEntity(s, c,
                {{"Type", CellText(Member(c, "type"))},
                 {"Provider", CellText(Member(c, "provider"))},
                 {"In use", Flag(Member(Member(c, "properties"), "in-use"))}});
  });
}

int CatalogCreate(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  json body;
  if (int rc = s.Target(1, "catalog", ml, n)) return rc;
  if (int rc = CatalogBody(s, n[0], body)) return rc;
  json reply;
  if (int rc = s.Call("POST", ApiPath({"metalakes", ml, "catalogs"}), &body, reply)) return rc;
  return s.Done(reply, fmt::format("Catalog {} created.", n[0]));
}

int CatalogTest(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  json body;
  if (int rc = s.Target(1, "catalog", ml, n)) return rc;
  if (int rc = CatalogBody(s, n[0], body)) return rc;
  json reply;
  if (int rc =
          s.Call("POST", ApiPath({"metalakes", ml, "catalogs", "testConnection"}), &body, reply)) {
    return rc;
  }
  return s.Done(reply, fmt::format("Connection test of catalog {} succeeded.", n[0]));
}

int CatalogUpdate(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(1, "catalog", ml, n)) return rc;
  return Update(s, TreePath(ml, n), fmt::format("Catalog {}", n[0]));
}

int CatalogSet(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(1, "catalog", ml, n)) return rc;
  return SetProperty(s, TreePath(ml, n), fmt::format("Catalog {}", n[0]));
}

int CatalogRemove(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(1, "catalog", ml, n)) return rc;
  return RemoveProperty(s, TreePath(ml, n), fmt::format("Catalog {}", n[0]));
}

int CatalogDelete(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(1, "catalog", ml, n)) return rc;
  std::string path = TreePath(ml, n);
  if (s.args().force) path += "?force=true";
  json reply;
  if (int rc = s.Call("DELETE", path, nullptr, reply)) return rc;
  return s.Deleted(reply, "dropped", fmt::format("Catalog {}", n[0]));
}

// ---- schema ----------------------------------------------------------------------------------

int SchemaList(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(1, "catalog", ml, n)) return rc;
  return ListNames(s, TreePath(ml, n) + "/schemas");
}

int SchemaDetails(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(2, "catalog.schema", ml, n)) return rc;
  return Details(s, TreePath(ml, n), "schema", [&](const json& e) { PrintEntity(s, e, {}); });
}

int SchemaCreate(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  json properties;
  if (int rc = s.Target(2, "catalog.schema", ml, n)) return rc;
  if (int rc = s.Properties(properties)) return rc;
  json body = {{"name", n[1]}, {"comment", s.args().comment}, {"properties", properties}};
  json reply;
  if (int rc = s.Call("POST", TreePath(ml, {n[0]}) + "/schemas", &body, reply)) return rc;
  return s.Done(reply, fmt::format("Schema {}.{} created.", n[0], n[1]));
}

int SchemaSet(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(2, "catalog.schema", ml, n)) return rc;
  return SetProperty(s, TreePath(ml, n), fmt::format("Schema {}.{}", n[0], n[1]));
}

int SchemaRemove(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(2, "catalog.schema", ml, n)) return rc;
  return RemoveProperty(s, TreePath(ml, n), fmt::format("Schema {}.{}", n[0], n[1]));
}

int SchemaDelete(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(2, "catalog.schema", ml, n)) return rc;
  std::string path = TreePath(ml, n);
  if (s.args().cascade) path += "?cascade=true";
  json reply;
  if (int rc = s.Call("DELETE", path, nullptr, reply)) return rc;
  return s.Deleted(reply, "dropped", fmt::format("Schema {}.{}", n[0], n[1]));
}

// ---- objects in a schema ---------------------------------------------------------------------

int SchemaChildren(Session& s, std::string_view collection) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = s.Target(2, "catalog.schema", ml, n)) return rc;
  return ListNames(s, TreePath(ml, n) + "/" + std::string(collection));
}

int TableList(Session& s) { return SchemaChildren(s, "tables"); }
int FilesetList(Session& s) { return SchemaChildren(s, "filesets"); }
int ModelList(Session& s) { return SchemaChildren(s, "models"); }
int TopicList(Session& s) { return SchemaChildren(s, "topics"); }

// The metalake and `catalog.schema.<leaf>` of a command on one object in a schema.
int Leaf(Session& s, std::string_view leaf, std::string& ml, std::vector<std::string>& n) {
  if (int rc = s.Metalake(ml)) return rc;
  return s.Names(3, fmt::format("catalog.schema.{}", leaf), n);
}

void DescribeTable(Session& s, const json& t) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"Name", CellText(Member(t, "name"))}, {"Comment", CellText(Member(t, "comment"))}};
  AddAudit(fields, Member(t, "audit"));
  PrintFields(s.out(), fields);

  std::vector<std::vector<std::string>> columns;
  const json& cols = Member(t, "columns");
  if (cols.is_array()) {
    for (const auto& c : cols) {
      const json& nullable = Member(c, "nullable");
      columns.push_back({CellText(Member(c, "name")), TypeText(Member(c, "type")),
                         nullable.is_boolean() && !nullable.get<bool>() ? "false" : "true",
                         Flag(Member(c, "autoIncrement")),
                         ExpressionText(Member(c, "defaultValue")),
                         CellText(Member(c, "comment"))});
    }
  }
  s.out() << "\n";
  PrintTable(s.out(), {"COLUMN", "TYPE", "NULLABLE", "AUTO_INCREMENT", "DEFAULT", "COMMENT"},
             columns);

  std::vector<std::string> partitioning;
  if (const json& p = Member(t, "partitioning"); p.is_array()) {
    for (const auto& transform : p) partitioning.push_back(TransformText(transform));
  }
  std::vector<std::string> sort_orders;
  if (const json& o = Member(t, "sortOrders"); o.is_array()) {
    for (const auto& order : o) sort_orders.push_back(SortOrderText(order));
  }
  std::vector<std::string> indexes;
  if (const json& x = Member(t, "indexes"); x.is_array()) {
    for (const auto& index : x) {
      std::vector<std::string> names;
      if (const json& f = Member(index, "fieldNames"); f.is_array()) {
        for (const auto& name : f)
          names.push_back(ExpressionText({{"type", "field"}, {"fieldName", name}}));
      }
      indexes.push_back(fmt::format("{} {}({})", CellText(Member(index, "indexType")),
                                    CellText(Member(index, "name")), Join(names, ", ")));
    }
  }
  s.out() << "\n";
  PrintFields(s.out(), {{"Partitioning", partitioning.empty() ? "none" : Join(partitioning, ", ")},
                        {"Sort orders", sort_orders.empty() ? "none" : Join(sort_orders, ", ")},
                        {"Distribution", Member(t, "distribution").is_null()
                                             ? "none"
                                             : DistributionText(Member(t, "distribution"))},
                        {"Indexes", indexes.empty() ? "none" : Join(indexes, ", ")}});
  PrintProperties(s.out(), Member(t, "properties"));
}

int TableDetails(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = Leaf(s, "table", ml, n)) return rc;
  return Details(s, TreePath(ml, n, "tables"), "table",
                 [&](const json& t) { DescribeTable(s, t); });
}

int TableSnapshots(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = Leaf(s, "table", ml, n)) return rc;
  // The Iceberg REST service names a catalog by the prefix `<metalake>.<catalog>`.
  const std::string path = "/iceberg/v1/" + PercentEncode(ml + "." + n[0]) + "/namespaces/" +
                           PercentEncode(n[1]) + "/tables/" + PercentEncode(n[2]);
  json reply;
  if (int rc = s.Call("GET", path, nullptr, reply)) return rc;
  const json& metadata = Member(reply, "metadata");
  const json& current = Member(metadata, "current-snapshot-id");
  const json& snapshots = Member(metadata, "snapshots");
  if (s.json_output()) {
    PrintJsonDocument(s.out(), {{"current-snapshot-id", current},
                                {"snapshots", snapshots.is_array() ? snapshots : json::array()}});
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  if (snapshots.is_array()) {
    for (const auto& snap : snapshots) {
      const json& id = Member(snap, "snapshot-id");
      const json& summary = Member(snap, "summary");
      const json& ts = Member(snap, "timestamp-ms");
      rows.push_back({CellText(id), CellText(Member(snap, "parent-snapshot-id")),
                      CellText(Member(snap, "sequence-number")),
                      ts.is_number_integer() ? FormatIsoMillis(ts.get<int64_t>()) : CellText(ts),
                      CellText(Member(summary, "operation")),
                      CellText(Member(summary, "added-records")),
                      CellText(Member(summary, "total-records")), id == current ? "*" : ""});
    }
  }
  PrintTable(s.out(),
             {"SNAPSHOT_ID", "PARENT_ID", "SEQUENCE", "TIMESTAMP", "OPERATION", "ADDED_RECORDS",
              "TOTAL_RECORDS", "CURRENT"},
             rows);
  return kExitOk;
}

int FilesetDetails(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = Leaf(s, "fileset", ml, n)) return rc;
  return Details(s, TreePath(ml, n, "filesets"), "fileset", [&](const json& f) {
    std::vector<std::pair<std::string, std::string>> extra = {
        {"Type", CellText(Member(f, "type"))}};
    if (const json& locations = Member(f, "storageLocations"); locations.is_object()) {
      for (const auto& [k, v] : locations.items()) {
        extra.emplace_back(fmt::format("Location {}", k), CellText(v));
      }
    }
    PrintEntity(s, f, extra);
  });
}

int FilesetFiles(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = Leaf(s, "fileset", ml, n)) return rc;
  std::string path = TreePath(ml, n, "filesets") + "/files";
  std::vector<std::string> query;
  if (!s.args().sub_path.empty()) query.push_back(QueryParam("sub_path", s.args().sub_path));
  if (!s.args().location_name.empty()) {
    query.push_back(QueryParam("location_name", s.args().location_name));
  }
  if (!query.empty()) path += "?" + Join(query, "&");
  json reply;
  if (int rc = s.Call("GET", path, nullptr, reply)) return rc;
  if (s.json_output()) {
    PrintJsonDocument(s.out(), reply);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  if (const json& files = Member(reply, "files"); files.is_array()) {
    for (const auto& f : files) {
      const json& modified = Member(f, "lastModified");
      const bool dir = Member(f, "isDir").is_boolean() && Member(f, "isDir").get<bool>();
      rows.push_back({CellText(Member(f, "name")), dir ? "dir" : "file",
                      CellText(Member(f, "size")),
                      modified.is_number_integer() && modified.get<int64_t>() > 0
                          ? FormatIsoMillis(modified.get<int64_t>())
                          : "",
                      CellText(Member(f, "path"))});
    }
  }
  PrintTable(s.out(), {"NAME", "TYPE", "SIZE", "MODIFIED", "PATH"}, rows);
  return kExitOk;
}

int ModelDetails(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = Leaf(s, "model", ml, n)) return rc;
  return Details(s, TreePath(ml, n, "models"), "model", [&](const json& m) {
    PrintEntity(s, m, {{"Latest version", CellText(Member(m, "latestVersion"))}});
  });
}

int ModelVersions(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = Leaf(s, "model", ml, n)) return rc;
  json reply;
  if (int rc =
          s.Call("GET", TreePath(ml, n, "models") + "/versions?details=true", nullptr, reply)) {
    return rc;
  }
  if (s.json_output()) {
    PrintJsonDocument(s.out(), reply);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  if (const json& infos = Member(reply, "infos"); infos.is_array()) {
    for (const auto& v : infos) {
      std::vector<std::string> aliases;
      if (const json& a = Member(v, "aliases"); a.is_array()) {
        for (const auto& alias : a) aliases.push_back(CellText(alias));
      }
      rows.push_back({CellText(Member(v, "version")), Join(aliases, ", "),
                      PropertiesText(Member(v, "uris")), CellText(Member(v, "comment"))});
    }
  }
  PrintTable(s.out(), {"VERSION", "ALIASES", "URIS", "COMMENT"}, rows);
  return kExitOk;
}

int TopicDetails(Session& s) {
  std::string ml;
  std::vector<std::string> n;
  if (int rc = Leaf(s, "topic", ml, n)) return rc;
  return Details(s, TreePath(ml, n, "topics"), "topic",
                 [&](const json& t) { PrintEntity(s, t, {}); });
}

}  // namespace

void AddObjectCommands(CommandTree& tree) {
  Args& a = tree.args();

  CLI::App* metalake = tree.Group("metalake", "Metalakes (named by --metalake)");
  tree.Leaf(metalake, "list", "List the metalakes", MetalakeList);
  tree.Leaf(metalake, "details", "Show a metalake", MetalakeDetails);
  AddCommentAndProperties(tree.Leaf(metalake, "create", "Create a metalake", MetalakeCreate), a);
  AddUpdateOptions(
      tree.Leaf(metalake, "update", "Rename, comment, enable or disable", MetalakeUpdate), a);
  AddPropertyOptions(tree.Leaf(metalake, "set", "Set a property", MetalakeSet), a, true);
  AddPropertyOptions(tree.Leaf(metalake, "remove", "Remove a property", MetalakeRemove), a, false);
  tree.Leaf(metalake, "delete", "Delete a metalake", MetalakeDelete)
      ->add_flag("-f,--force", a.force, "Delete even when in use, with everything in it");

  CLI::App* catalog = tree.Group("catalog", "Catalogs (--name catalog)");
  tree.Leaf(catalog, "list", "List the catalogs of the metalake", CatalogList);
  AddName(tree.Leaf(catalog, "details", "Show a catalog", CatalogDetails), a, "catalog");
  for (auto [verb, help, handler] :
       {std::tuple{"create", "Create a catalog", &CatalogCreate},
        std::tuple{"test", "Test the connection of a catalog before creating it", &CatalogTest}}) {
    CLI::App* cmd = tree.Leaf(catalog, verb, help, handler);
    AddName(cmd, a, "catalog");
    cmd->add_option(
        "--provider", a.provider,
        "Provider: lakehouse-iceberg, jdbc-postgresql, jdbc-mysql, fileset, kafka, model");
    cmd->add_option("--type", a.type,
                    "Catalog type: relational, fileset, messaging, model (default: from the "
                    "provider)");
    AddCommentAndProperties(cmd, a);
  }
  CLI::App* update =
      tree.Leaf(catalog, "update", "Rename, comment, enable or disable", CatalogUpdate);
  AddName(update, a, "catalog");
  AddUpdateOptions(update, a);
  CLI::App* set = tree.Leaf(catalog, "set", "Set a property", CatalogSet);
  AddName(set, a, "catalog");
  AddPropertyOptions(set, a, true);
  CLI::App* remove = tree.Leaf(catalog, "remove", "Remove a property", CatalogRemove);
  AddName(remove, a, "catalog");
  AddPropertyOptions(remove, a, false);
  CLI::App* drop = tree.Leaf(catalog, "delete", "Delete a catalog", CatalogDelete);
  AddName(drop, a, "catalog");
  drop->add_flag("-f,--force", a.force, "Delete even when in use, with everything in it");

  CLI::App* schema = tree.Group("schema", "Schemas (--name catalog.schema)");
  AddName(tree.Leaf(schema, "list", "List the schemas of a catalog", SchemaList), a, "catalog");
  AddName(tree.Leaf(schema, "details", "Show a schema", SchemaDetails), a, "catalog.schema");
  CLI::App* screate = tree.Leaf(schema, "create", "Create a schema", SchemaCreate);
  AddName(screate, a, "catalog.schema");
  AddCommentAndProperties(screate, a);
  CLI::App* sset = tree.Leaf(schema, "set", "Set a property", SchemaSet);
  AddName(sset, a, "catalog.schema");
  AddPropertyOptions(sset, a, true);
  CLI::App* sremove = tree.Leaf(schema, "remove", "Remove a property", SchemaRemove);
  AddName(sremove, a, "catalog.schema");
  AddPropertyOptions(sremove, a, false);
  CLI::App* sdrop = tree.Leaf(schema, "delete", "Delete a schema", SchemaDelete);
  AddName(sdrop, a, "catalog.schema");
  sdrop->add_flag("--cascade", a.cascade, "Also delete what the schema holds");

  CLI::App* table = tree.Group("table", "Tables (--name catalog.schema.table)");
  AddName(tree.Leaf(table, "list", "List the tables of a schema", TableList), a, "catalog.schema");
  AddName(tree.Leaf(table, "details",
                    "Describe a table: columns, partitioning, sort orders, distribution, "
                    "properties",
                    TableDetails),
          a, "catalog.schema.table");
  AddName(tree.Leaf(table, "snapshots", "List the snapshots of an Iceberg table", TableSnapshots),
          a, "catalog.schema.table");

  CLI::App* fileset = tree.Group("fileset", "Filesets (--name catalog.schema.fileset)");
  AddName(tree.Leaf(fileset, "list", "List the filesets of a schema", FilesetList), a,
          "catalog.schema");
  AddName(tree.Leaf(fileset, "details", "Show a fileset", FilesetDetails), a,
          "catalog.schema.fileset");
  CLI::App* files = tree.Leaf(fileset, "files", "List the files of a fileset", FilesetFiles);
  AddName(files, a, "catalog.schema.fileset");
  files->add_option("--sub-path", a.sub_path, "Directory below the fileset (default /)");
  files->add_option("--location-name", a.location_name, "Named location (default: the default)");

  CLI::App* model = tree.Group("model", "Models (--name catalog.schema.model)");
  AddName(tree.Leaf(model, "list", "List the models of a schema", ModelList), a, "catalog.schema");
  AddName(tree.Leaf(model, "details", "Show a model", ModelDetails), a, "catalog.schema.model");
  AddName(tree.Leaf(model, "versions", "List the versions of a model", ModelVersions), a,
          "catalog.schema.model");

  CLI::App* topic = tree.Group("topic", "Topics (--name catalog.schema.topic)");
  AddName(tree.Leaf(topic, "list", "List the topics of a schema", TopicList), a, "catalog.schema");
  AddName(tree.Leaf(topic, "details", "Show a topic", TopicDetails), a, "catalog.schema.topic");
}

}  // namespace cairn::app::cli
