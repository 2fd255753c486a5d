// SPDX-License-Identifier: Apache-2.0
// Views of the Gravitino API (views.yaml): `.../catalogs/{c}/schemas/{s}/views[/{view}]`, the
// same Iceberg views the Iceberg REST service serves (docs/views.md).
#include <optional>

#include "api/gravitino/routes.h"
#include "common/util.h"
#include "model/view.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;
using service::Action;

OrderedJson ViewToJson(const model::View& v) {
  OrderedJson j{{"name", v.name}};
  j["comment"] = v.comment ? OrderedJson(*v.comment) : OrderedJson(nullptr);
  OrderedJson columns = OrderedJson::array();
  for (const auto& c : v.columns) columns.push_back(ColumnToJson(c));
  j["columns"] = std::move(columns);
  OrderedJson reps = OrderedJson::array();
  for (const auto& r : v.representations) {
    reps.push_back(OrderedJson{{"type", "sql"}, {"dialect", r.dialect}, {"sql", r.sql}});
  }
  j["representations"] = std::move(reps);
  j["defaultCatalog"] = v.default_catalog ? OrderedJson(*v.default_catalog) : OrderedJson(nullptr);
  j["defaultSchema"] = v.default_schema ? OrderedJson(*v.default_schema) : OrderedJson(nullptr);
  OrderedJson props = OrderedJson::object();
  for (const auto& [k, value] : v.properties) props[k] = value;
  j["properties"] = std::move(props);
  j["audit"] = AuditToJson(v.audit);
  return j;
}

// The body of a view: columns, representations (required, at least one), default catalog and
// schema, comment; as a create request or a replaceView update carries it.
Result<model::View> ViewBodyFromJson(const Json& j) {
  model::View v;
  CAIRN_ASSIGN_OR_RETURN(v.comment, OptionalString(j, "comment"));
  CAIRN_ASSIGN_OR_RETURN(v.default_catalog, OptionalString(j, "defaultCatalog"));
  CAIRN_ASSIGN_OR_RETURN(v.default_schema, OptionalString(j, "defaultSchema"));
  if (auto cols = j.find("columns"); cols != j.end() && !cols->is_null()) {
    if (!cols->is_array()) return InvalidArgument("Field 'columns' must be an array");
    for (size_t i = 0; i < cols->size(); ++i) {
      CAIRN_ASSIGN_OR_RETURN(model::Column c,
                             ColumnFromJson((*cols)[i], fmt::format("columns[{}]", i)));
      v.columns.push_back(std::move(c));
    }
  }
  auto reps = j.find("representations");
  if (reps == j.end() || !reps->is_array() || reps->empty()) {
    return InvalidArgument("Field 'representations' is required and must hold at least one");
  }
  for (size_t i = 0; i < reps->size(); ++i) {
    const Json& r = (*reps)[i];
    const std::string at = fmt::format("representations[{}]", i);
    if (!r.is_object()) return InvalidArgument("Field '{}' must be an object", at);
    auto type = OptionalString(r, "type");
    if (!type || !*type || **type != "sql") {
      return InvalidArgument("Field '{}.type' must be 'sql'", at);
    }
    auto dialect = RequiredString(r, "dialect");
    if (!dialect) return std::move(dialect).error().WithContext(at);
    auto sql = RequiredString(r, "sql");
    if (!sql) return std::move(sql).error().WithContext(at);
    v.representations.push_back({std::move(*dialect), std::move(*sql)});
  }
  return v;
}

Result<Response> ListViews(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto names, c.objects.ListViews(c.caller, c.Ref(ObjectType::kSchema)));
  return SchemaChildrenReply(c, std::move(names));
}

Result<Response> CreateView(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(std::string name, RequiredString(body, "name"));
  c.op.name = name;
  CAIRN_ASSIGN_OR_RETURN(model::View view, ViewBodyFromJson(body));
  view.name = std::move(name);
  CAIRN_ASSIGN_OR_RETURN(view.properties, PropertiesFromJson(body, "properties"));
  CAIRN_ASSIGN_OR_RETURN(model::View created,
                         c.objects.CreateView(c.caller, c.Ref(ObjectType::kSchema), view));
  return Reply(OrderedJson{{"view", ViewToJson(created)}});
}

Result<Response> LoadView(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(model::View v, c.objects.LoadView(c.caller, c.Ref(ObjectType::kView)));
  return Reply(OrderedJson{{"view", ViewToJson(v)}});
}

// One ViewUpdateRequest: rename, setProperty, removeProperty, replaceView.
Result<model::ViewChange> ViewChangeOf(const Json& u, const std::string& type) {
  using Kind = model::ViewChange::Kind;
  model::ViewChange change;
  if (type == "rename") {
    change.kind = Kind::kRename;
    CAIRN_ASSIGN_OR_RETURN(change.new_name, RequiredString(u, "newName"));
  } else if (type == "setProperty" || type == "removeProperty") {
    change.kind = type == "setProperty" ? Kind::kSetProperty : Kind::kRemoveProperty;
    CAIRN_ASSIGN_OR_RETURN(change.property, RequiredString(u, "property"));
    if (change.kind == Kind::kSetProperty) {
      CAIRN_ASSIGN_OR_RETURN(change.value, RequiredString(u, "value"));
    }
  } else if (type == "replaceView") {
    change.kind = Kind::kReplace;
    CAIRN_ASSIGN_OR_RETURN(change.body, ViewBodyFromJson(u));
  } else {
    return InvalidArgument("Unknown view update type '{}'", type);
  }
  return change;
}

Result<Response> AlterView(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto changes, UpdatesOf<model::ViewChange>(body, ViewChangeOf));
  if (changes.empty()) return InvalidArgument("Field 'updates' must hold at least one update");
  CAIRN_ASSIGN_OR_RETURN(model::View v,
                         c.objects.AlterView(c.caller, c.Ref(ObjectType::kView), changes));
  return Reply(OrderedJson{{"view", ViewToJson(v)}});
}

Result<Response> DropView(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.objects.DropView(c.caller, c.Ref(ObjectType::kView)));
  return Reply(OrderedJson{{"dropped", dropped}});
}

}  // namespace

std::vector<Route> ViewRoutes() {
  using K = EntityKind;
  constexpr std::nullopt_t kService = std::nullopt;  // the object service decides
  constexpr std::string_view kViews =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/views";
  constexpr std::string_view kView =
      "/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/views/{view}";
  return {
      {"GET", api::PathPattern(kViews), K::kView, "LIST", kService, ListViews},
      // Decided before the body is parsed; the object service decides again on the name.
      {"POST", api::PathPattern(kViews), K::kView, "CREATE", Action::kCreateView, CreateView},
      {"GET", api::PathPattern(kView), K::kView, "LOAD", kService, LoadView},
      {"PUT", api::PathPattern(kView), K::kView, "ALTER", Action::kManageView, AlterView},
      {"DELETE", api::PathPattern(kView), K::kView, "DROP", kService, DropView},
  };
}

}  // namespace cairn::api::gravitino
