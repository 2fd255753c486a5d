// SPDX-License-Identifier: Apache-2.0
// The metadata coverage report, a Cairn extension of the Gravitino API: per schema, how many of
// the objects the caller may see have an owner, a description, tags and lineage
// (docs/governance-coverage.md).

#include <optional>
#include <set>

#include "api/gravitino/routes.h"
#include "common/util.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;
using service::Action;
using service::ObjectRef;

constexpr int kDefaultSchemasPerPage = 100;
constexpr int kMaxSchemasPerPage = 1000;

// What is counted, for one kind of object or for all of them.
struct Counts {
  int64_t objects = 0;
  int64_t owner = 0;
  int64_t description = 0;
  int64_t tags = 0;
  int64_t lineage = 0;
  int64_t lineage_applicable = 0;  // tables: the objects OpenLineage events name

  void Add(const Counts& o) {
    objects += o.objects;
    owner += o.owner;
    description += o.description;
    tags += o.tags;
    lineage += o.lineage;
    lineage_applicable += o.lineage_applicable;
  }
};

OrderedJson Share(int64_t n, int64_t of) {
  if (of == 0) return nullptr;
  return static_cast<double>(n) / static_cast<double>(of);
}

OrderedJson CountsToJson(const Counts& c) {
  return OrderedJson{{"objects", c.objects},
                     {"withOwner", c.owner},
                     {"withDescription", c.description},
                     {"withTags", c.tags},
                     {"withLineage", c.lineage},
                     {"lineageApplicable", c.lineage_applicable},
                     {"shares",
                      OrderedJson{{"owner", Share(c.owner, c.objects)},
                                  {"description", Share(c.description, c.objects)},
                                  {"tags", Share(c.tags, c.objects)},
                                  {"lineage", Share(c.lineage, c.lineage_applicable)}}}};
}

// The kinds of object a catalog of `type` holds, with their names on the wire.
std::vector<std::pair<ObjectType, std::string_view>> KindsOf(model::CatalogType type) {
  switch (type) {
    case model::CatalogType::kRelational:
      return {{ObjectType::kTable, "table"}, {ObjectType::kView, "view"}};
    case model::CatalogType::kFileset:
      return {{ObjectType::kFileset, "fileset"}};
    case model::CatalogType::kMessaging:
      return {{ObjectType::kTopic, "topic"}};
    case model::CatalogType::kModel:
      return {{ObjectType::kModel, "model"}};
  }
  return {};
}

Result<std::vector<std::string>> NamesOf(Call& c, ObjectType kind, const ObjectRef& schema) {
  switch (kind) {
    case ObjectType::kTable:
      return c.objects.ListTables(c.caller, schema);
    case ObjectType::kView:
      return c.objects.ListViews(c.caller, schema);
    case ObjectType::kFileset:
      return c.objects.ListFilesets(c.caller, schema);
    case ObjectType::kTopic:
      return c.objects.ListTopics(c.caller, schema);
    case ObjectType::kModel:
      return c.objects.ListModels(c.caller, schema);
    default:
      return std::vector<std::string>{};
  }
}

// The object's comment, as loading it answers (which also gives an object made in the source
// its governance row, so its owner can be read).
Result<std::optional<std::string>> CommentOf(Call& c, ObjectType kind, const ObjectRef& ref) {
  switch (kind) {
    case ObjectType::kTable: {
      CAIRN_ASSIGN_OR_RETURN(auto t, c.objects.LoadTable(c.caller, ref));
      return t.comment;
    }
    case ObjectType::kView: {
      CAIRN_ASSIGN_OR_RETURN(auto v, c.objects.LoadView(c.caller, ref));
      return v.comment;
    }
    case ObjectType::kFileset: {
      CAIRN_ASSIGN_OR_RETURN(auto f, c.objects.LoadFileset(c.caller, ref));
      return f.comment;
    }
    case ObjectType::kTopic: {
      CAIRN_ASSIGN_OR_RETURN(auto t, c.objects.LoadTopic(c.caller, ref));
      return t.comment;
    }
    case ObjectType::kModel: {
      CAIRN_ASSIGN_OR_RETURN(auto m, c.objects.GetModel(c.caller, ref));
      return m.comment;
    }
    default:
      return std::optional<std::string>{};
  }
}

// Whether any OpenLineage event named the table as an input or an output.
bool HasLineage(Call& c, const std::string& metalake, const std::string& full_name) {
  service::LineageQuery q;
  q.metalake = metalake;
  q.object_name = full_name;
  q.depth = 1;
  q.page_size = 2;
  auto page = c.objects.lineage().Graph(c.caller, q);
  return page && page->total > 1;  // more than the table itself
}

// One schema's counts by kind. An object that vanishes between the list and its load (a
// concurrent drop) is not counted; any other failure ends the report with its error.
Result<std::map<std::string, Counts>> CountSchema(Call& c, const model::Catalog& catalog,
                                                  const ObjectRef& schema) {
  const std::string& ml = schema.metalake;
  std::map<std::string, Counts> by_kind;
  for (const auto& [kind, kind_name] : KindsOf(catalog.type)) {
    auto names = NamesOf(c, kind, schema);
    if (!names) {
      // A catalog without views (or another kind) has none to count.
      if (names.error().code == ErrorCode::kUnsupported) continue;
      return std::move(names).error();
    }
    Counts& counts = by_kind[std::string(kind_name)];
    for (const auto& name : *names) {
      const ObjectRef ref = schema.Child(name, kind);
      auto comment = CommentOf(c, kind, ref);
      if (!comment) {
        if (comment.error().code == ErrorCode::kNotFound) continue;
        return std::move(comment).error();
      }
      const std::string full = Join(std::vector<std::string>{catalog.name, schema.schema.front(),
                                                             name},
                                    ".");
      ++counts.objects;
      if (*comment && !Trim(**comment).empty()) ++counts.description;
      if (auto object = c.authz.ResolveMetadataObject(ml, std::string(kind_name), full)) {
        const store::EntityRecord* row = object->target.RowOf(object->type);
        if (row != nullptr && !governance::OwnerOf(*row).name.empty()) ++counts.owner;
      }
      if (auto tags = c.objects.tags().TagsOfObject(c.caller, ml, std::string(kind_name), full)) {
        for (const auto& t : *tags) {
          if (!t.inherited) {
            ++counts.tags;
            break;
          }
        }
      }
      if (kind == ObjectType::kTable) {
        ++counts.lineage_applicable;
        if (HasLineage(c, ml, full)) ++counts.lineage;
      }
    }
  }
  return by_kind;
}

Result<Response> Coverage(Call& c) {
  const std::string& ml = c.Param("metalake");
  const auto catalog_filter = c.request.Query("catalog");
  const auto schema_filter = c.request.Query("schema");
  if (schema_filter && !catalog_filter) {
    return InvalidArgument("Query parameter 'schema' needs 'catalog'");
  }
  int page_size = kDefaultSchemasPerPage;
  int64_t offset = 0;
  if (auto size = c.request.Query("pageSize")) {
    auto n = ParseInt64(*size);
    if (!n || *n < 1 || *n > kMaxSchemasPerPage) {
      return InvalidArgument("Query parameter 'pageSize' must be an integer from 1 to {}",
                             kMaxSchemasPerPage);
    }
    page_size = static_cast<int>(*n);
  }
  if (auto token = c.request.Query("pageToken"); token && !token->empty()) {
    auto n = ParseInt64(*token);
    if (!n || *n < 0) return InvalidArgument("Query parameter 'pageToken' is not a page token");
    offset = *n;
  }

  // The catalogs and schemas the caller may see, in order: the report's rows.
  CAIRN_ASSIGN_OR_RETURN(auto catalogs, c.service.ListCatalogs(ml));
  std::vector<std::string> names;
  for (const auto& catalog : catalogs) names.push_back(catalog.name);
  CAIRN_ASSIGN_OR_RETURN(names, c.objects.Visible(c.caller, Action::kLoadCatalog, c.Ref(),
                                                  std::move(names), ObjectType::kCatalog));
  const std::set<std::string> visible(names.begin(), names.end());
  if (catalog_filter && visible.count(*catalog_filter) == 0) {
    return NotFound(EntityKind::kCatalog, "Catalog {}.{} does not exist", ml, *catalog_filter);
  }
  std::vector<std::pair<const model::Catalog*, std::string>> rows;  // (catalog, schema)
  for (const auto& catalog : catalogs) {
    if (visible.count(catalog.name) == 0) continue;
    if (catalog_filter && catalog.name != *catalog_filter) continue;
    ObjectRef catalog_ref{ml, catalog.name};
    auto schemas = c.objects.ListSchemas(c.caller, catalog_ref);
    if (!schemas) {
      // A federated catalog whose source is down: its row says so, the others still count.
      if (catalog_filter) return std::move(schemas).error();
      continue;
    }
    for (const auto& schema : *schemas) {
      if (schema_filter && schema != *schema_filter) continue;
      rows.emplace_back(&catalog, schema);
    }
  }
  if (schema_filter && rows.empty()) {
    return NotFound(EntityKind::kSchema, "Schema {}.{}.{} does not exist", ml, *catalog_filter,
                    *schema_filter);
  }

  OrderedJson schemas = OrderedJson::array();
  Counts page_total;
  const size_t begin = static_cast<size_t>(std::min<int64_t>(offset, rows.size()));
  const size_t end = std::min(rows.size(), begin + static_cast<size_t>(page_size));
  for (size_t i = begin; i < end; ++i) {
    const auto& [catalog, schema] = rows[i];
    const ObjectRef ref = ObjectRef{ml, catalog->name}.Schema(schema);
    CAIRN_ASSIGN_OR_RETURN(auto by_kind, CountSchema(c, *catalog, ref));
    Counts total;
    OrderedJson kinds = OrderedJson::object();
    for (const auto& [kind, counts] : by_kind) {
      total.Add(counts);
      kinds[kind] = CountsToJson(counts);
    }
    page_total.Add(total);
    OrderedJson row{{"catalog", catalog->name}, {"schema", schema}};
    row.update(CountsToJson(total));
    row["kinds"] = std::move(kinds);
    schemas.push_back(std::move(row));
  }
  OrderedJson body{{"metalake", ml}, {"schemas", std::move(schemas)},
                   {"pageTotal", CountsToJson(page_total)}};
  body["nextPageToken"] = end < rows.size() ? OrderedJson(std::to_string(end)) : OrderedJson();
  return Reply(std::move(body));
}

}  // namespace

std::vector<Route> CoverageRoutes() {
  using A = Action;
  return {{"GET", api::PathPattern("/metalakes/{metalake}/coverage"), EntityKind::kMetalake, "",
           A::kUseMetalake, Coverage}};
}

}  // namespace cairn::api::gravitino
