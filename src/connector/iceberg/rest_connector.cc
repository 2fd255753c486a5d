// SPDX-License-Identifier: Apache-2.0
// The Gravitino side of a federated (`catalog-backend` = `rest`) Iceberg catalog: schemas and
// tables are the remote's namespaces and tables, converted with the same functions the managed
// backend uses; every write is a call to the remote's REST API. Governance rows (owners) of the
// objects seen or made through Cairn are kept in step (connector/external_rows.h).
#include "common/util.h"
#include "connector/external_rows.h"
#include "connector/iceberg/iceberg_proxy.h"
#include "iceberg/partitioning.h"
#include "iceberg/table_metadata.h"

namespace cairn::connector {

namespace {

using OrderedJson = nlohmann::ordered_json;
using Query = std::vector<std::pair<std::string, std::string>>;
using store::EntityType;

constexpr int kMaxPages = 10000;

class RestIcebergConnector final : public Connector, public SchemaCatalog, public TableCatalog {
 public:
  RestIcebergConnector(IcebergProxyOptions options, const CatalogInfo& info,
                       store::MetadataStore* store)
      : proxy_(std::move(options)), rows_(store, info.catalog_id, proxy_.options().catalog) {
    Provide<SchemaCatalog>(this);
    Provide<TableCatalog>(this);
    Provide<IcebergProxy>(&proxy_);
    Provide<ExternalRows>(&rows_);
  }

  Status TestConnection() override { return proxy_.TestConnection(CallerAuthorization()); }

  // ---- schemas ----

  Result<std::vector<std::string>> ListSchemas() override {
    std::vector<std::string> out;
    std::string token;
    bool complete = false;
    for (int page = 0; page < kMaxPages; ++page) {
      Query q;
      if (!token.empty()) q.emplace_back("pageToken", token);
      CAIRN_ASSIGN_OR_RETURN(
          OrderedJson body, proxy_.Call("GET", "namespaces", q, std::nullopt, EntityKind::kSchema));
      if (body.contains("namespaces") && body["namespaces"].is_array()) {
        for (const auto& ns : body["namespaces"]) {
          if (ns.is_array() && ns.size() == 1 && ns[0].is_string()) {
            out.push_back(ns[0].get<std::string>());
          }
        }
      }
      auto next = body.find("next-page-token");
      if (next == body.end() || !next->is_string() || next->get<std::string>().empty()) {
        complete = true;
        break;
      }
      token = next->get<std::string>();
    }
    rows_.SeeSchemas(out, complete && CompleteListing());
    return out;
  }

  Result<model::Schema> CreateSchema(const CallContext& ctx, const model::Schema& schema) override {
    OrderedJson props = OrderedJson::object();
    for (const auto& [k, v] : schema.properties) props[k] = v;
    if (schema.comment) props["comment"] = *schema.comment;
    OrderedJson body{{"namespace", OrderedJson::array({schema.name})}, {"properties", props}};
    auto created = proxy_.Call("POST", "namespaces", {}, body, EntityKind::kSchema);
    if (!created) {
      if (created.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kSchema, "Schema {}.{} already exists", Label(),
                             schema.name);
      }
      return std::move(created).error();
    }
    rows_.ClaimSchema(schema.name, ctx);
    return LoadSchema(schema.name);
  }

  Result<model::Schema> LoadSchema(std::string_view name) override {
    auto body = proxy_.Call("GET", "namespaces/" + Ns(name), {}, std::nullopt, EntityKind::kSchema);
    if (!body) return SchemaError(name, std::move(body).error());
    model::Schema s;
    s.name = std::string(name);
    if (body->contains("properties") && (*body)["properties"].is_object()) {
      for (const auto& [k, v] : (*body)["properties"].items()) {
        if (v.is_string()) s.properties[k] = v.get<std::string>();
      }
    }
    if (auto c = s.properties.find("comment"); c != s.properties.end()) {
      s.comment = c->second;
      s.properties.erase(c);
    }
    if (auto row = rows_.TouchSchema(name)) s.audit = row->audit;
    return s;
  }

  Result<model::Schema> AlterSchema(const CallContext& /*ctx*/, std::string_view name,
                                    const std::vector<model::EntityChange>& changes) override {
    OrderedJson updates = OrderedJson::object();
    OrderedJson removals = OrderedJson::array();
    for (const auto& c : changes) {
      if (c.kind == model::EntityChange::Kind::kSetProperty) {
        updates[c.property] = c.value;
      } else if (c.kind == model::EntityChange::Kind::kRemoveProperty) {
        removals.push_back(c.property);
      } else {
        return InvalidArgument("Schemas support only setProperty and removeProperty updates");
      }
    }
    OrderedJson body{{"removals", removals}, {"updates", updates}};
    auto r = proxy_.Call("POST", "namespaces/" + Ns(name) + "/properties", {}, body,
                         EntityKind::kSchema);
    if (!r) return SchemaError(name, std::move(r).error());
    return LoadSchema(name);
  }

  Result<bool> DropSchema(const CallContext& ctx, std::string_view name, bool cascade) override {
    if (cascade) {
      auto tables = ListTables(name);
      if (!tables) {
        if (tables.error().code == ErrorCode::kNotFound) return false;
        return std::move(tables).error();
      }
      for (const auto& t : *tables) CAIRN_RETURN_IF_ERROR(DropTable(ctx, name, t, false));
    }
    auto r = proxy_.Call("DELETE", "namespaces/" + Ns(name), {}, std::nullopt, EntityKind::kSchema);
    if (!r) {
      if (r.error().code == ErrorCode::kNotFound) {
        rows_.ForgetSchema(name);
        return false;
      }
      if (r.error().code == ErrorCode::kNotEmpty || r.error().code == ErrorCode::kAlreadyExists) {
        return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema,
                         "Schema {}.{} is not empty; drop its tables first or use cascade", Label(),
                         name);
      }
      return std::move(r).error();
    }
    rows_.ForgetSchema(name);
    return true;
  }

  Result<bool> HasSchemas() override {
    CAIRN_ASSIGN_OR_RETURN(auto names, ListSchemas());
    return !names.empty();
  }

  // ---- tables ----

  Result<std::vector<std::string>> ListTables(std::string_view schema) override {
    std::vector<std::string> out;
    std::string token;
    bool complete = false;
    for (int page = 0; page < kMaxPages; ++page) {
      Query q;
      if (!token.empty()) q.emplace_back("pageToken", token);
      auto body = proxy_.Call("GET", "namespaces/" + Ns(schema) + "/tables", q, std::nullopt,
                              EntityKind::kSchema);
      if (!body) return SchemaError(schema, std::move(body).error());
      if (body->contains("identifiers") && (*body)["identifiers"].is_array()) {
        for (const auto& id : (*body)["identifiers"]) {
          if (id.is_object() && id.contains("name") && id["name"].is_string()) {
            out.push_back(id["name"].get<std::string>());
          }
        }
      }
      auto next = body->find("next-page-token");
      if (next == body->end() || !next->is_string() || next->get<std::string>().empty()) {
        complete = true;
        break;
      }
      token = next->get<std::string>();
    }
    rows_.SeeObjects(EntityType::kTable, schema, out, complete && CompleteListing());
    return out;
  }

  Result<model::Table> CreateTable(const CallContext& ctx, std::string_view schema,
                                   const model::Table& table) override {
    if (!table.indexes.empty()) {
      return InvalidArgument("Iceberg tables do not support indexes (table {})", table.name);
    }
    // The managed backend's conversion, then the parts of the document a create request takes.
    // No default location: the remote places the table unless the definition names one.
    CAIRN_ASSIGN_OR_RETURN(iceberg::NewTableRequest request,
                           iceberg::NewTableRequestFor(table, "", ctx.now_ms));
    CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata, iceberg::NewTableMetadata(request));
    OrderedJson body;
    body["name"] = table.name;
    if (!request.location.empty()) body["location"] = request.location;
    if (const auto* s = iceberg::CurrentSchema(metadata)) body["schema"] = *s;
    if (const auto* spec = iceberg::DefaultSpec(metadata)) body["partition-spec"] = *spec;
    if (const auto* order = iceberg::DefaultSortOrder(metadata)) body["write-order"] = *order;
    OrderedJson props = OrderedJson::object();
    for (const auto& [k, v] : request.properties) props[k] = v;
    if (metadata.contains("format-version")) {
      props["format-version"] = std::to_string(metadata["format-version"].get<int>());
    }
    body["properties"] = props;
    body["stage-create"] = false;
    auto created =
        proxy_.Call("POST", "namespaces/" + Ns(schema) + "/tables", {}, body, EntityKind::kTable);
    if (!created) {
      if (created.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kTable, "Table {}.{}.{} already exists", Label(), schema,
                             table.name);
      }
      return SchemaError(schema, std::move(created).error());
    }
    auto row = rows_.ClaimObject(EntityType::kTable, schema, table.name, ctx);
    CAIRN_ASSIGN_OR_RETURN(model::Table out, ToTable(table.name, *created));
    if (row) out.audit = row->audit;
    return out;
  }

  Result<model::Table> LoadTable(std::string_view schema, std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(OrderedJson loaded, LoadRemote(schema, name));
    CAIRN_ASSIGN_OR_RETURN(model::Table out, ToTable(name, loaded));
    if (auto row = rows_.TouchObject(EntityType::kTable, schema, name)) out.audit = row->audit;
    return out;
  }

  Result<model::Table> AlterTable(const CallContext& ctx, std::string_view schema,
                                  std::string_view name,
                                  const std::vector<model::TableChange>& changes) override {
    std::vector<model::TableChange> metadata_changes;
    std::optional<std::pair<std::string, std::string>> rename_to;
    for (const auto& c : changes) {
      if (c.kind == model::TableChange::Kind::kRename) {
        rename_to = std::make_pair(c.new_schema.value_or(std::string(schema)), c.new_name);
      } else {
        metadata_changes.push_back(c);
      }
    }
    CAIRN_ASSIGN_OR_RETURN(OrderedJson loaded, LoadRemote(schema, name));
    if (!metadata_changes.empty()) {
      const iceberg::Json& base = loaded["metadata"];
      CAIRN_ASSIGN_OR_RETURN(iceberg::Json updated,
                             iceberg::ApplyTableChanges(base, metadata_changes, ctx.now_ms));
      CAIRN_ASSIGN_OR_RETURN(OrderedJson commit, CommitRequest(base, updated));
      if (!commit["updates"].empty()) {
        auto committed =
            proxy_.Call("POST", TablePath(schema, name), {}, commit, EntityKind::kTable);
        if (!committed) return TableError(schema, name, std::move(committed).error());
        loaded = std::move(*committed);
      }
    }
    std::string final_schema(schema);
    std::string final_name(name);
    if (rename_to) {
      OrderedJson body{
          {"source", {{"namespace", OrderedJson::array({std::string(schema)})}, {"name", name}}},
          {"destination",
           {{"namespace", OrderedJson::array({rename_to->first})}, {"name", rename_to->second}}}};
      auto renamed = proxy_.Call("POST", "tables/rename", {}, body, EntityKind::kTable);
      if (!renamed) {
        if (renamed.error().code == ErrorCode::kAlreadyExists) {
          return AlreadyExists(EntityKind::kTable, "Table {}.{}.{} already exists", Label(),
                               rename_to->first, rename_to->second);
        }
        return TableError(schema, name, std::move(renamed).error());
      }
      final_schema = rename_to->first;
      final_name = rename_to->second;
    }
    // The row follows a rename (owner kept); without one it records the modification.
    auto row = rows_.MoveObject(EntityType::kTable, schema, name, final_schema, final_name, ctx);
    if (rename_to) {
      CAIRN_ASSIGN_OR_RETURN(loaded, LoadRemote(final_schema, final_name));
    }
    CAIRN_ASSIGN_OR_RETURN(model::Table out, ToTable(final_name, loaded));
    if (row) out.audit = row->audit;
    return out;
  }

  Result<bool> DropTable(const CallContext& /*ctx*/, std::string_view schema, std::string_view name,
                         bool purge) override {
    Query q;
    if (purge) q.emplace_back("purgeRequested", "true");
    auto r = proxy_.Call("DELETE", TablePath(schema, name), q, std::nullopt, EntityKind::kTable);
    if (!r) {
      if (r.error().code == ErrorCode::kNotFound && r.error().entity == EntityKind::kTable) {
        rows_.ForgetObject(EntityType::kTable, schema, name);
        return false;
      }
      return SchemaError(schema, std::move(r).error());
    }
    rows_.ForgetObject(EntityType::kTable, schema, name);
    return true;
  }

  // The remote keeps its objects when the catalog goes; the governance rows go with the catalog
  // row.
  Status DropAll() override { return Ok(); }

 private:
  static std::string Ns(std::string_view schema) {
    return IcebergProxy::NamespacePath({std::string(schema)});
  }
  static std::string TablePath(std::string_view schema, std::string_view name) {
    return "namespaces/" + Ns(schema) + "/tables/" + HttpClient::Escape(name);
  }
  const std::string& Label() const { return proxy_.options().catalog; }

  // A listing shows everything the remote holds only when it was not made with the caller's own
  // token (which the remote may use to hide objects): only then may rows be pruned by it.
  bool CompleteListing() const { return !proxy_.ActsAsCaller(CallerAuthorization()); }

  Result<OrderedJson> LoadRemote(std::string_view schema, std::string_view name) {
    auto loaded = proxy_.Call("GET", TablePath(schema, name), {}, std::nullopt, EntityKind::kTable);
    if (!loaded) return TableError(schema, name, std::move(loaded).error());
    if (!loaded->is_object() || !loaded->contains("metadata") ||
        !(*loaded)["metadata"].is_object()) {
      return Internal("Catalog {}: the remote answered a table load without metadata", Label());
    }
    return loaded;
  }

  // Gravitino's wording for a missing schema or table; other errors as the remote said them.
  Error SchemaError(std::string_view schema, Error error) const {
    if (error.code == ErrorCode::kNotFound && error.entity == EntityKind::kSchema) {
      return NotFound(EntityKind::kSchema, "Schema {}.{} does not exist ({})", Label(), schema,
                      error.message);
    }
    return error;
  }
  Error TableError(std::string_view schema, std::string_view name, Error error) const {
    if (error.code == ErrorCode::kNotFound && error.entity == EntityKind::kTable) {
      return NotFound(EntityKind::kTable, "Table {}.{}.{} does not exist ({})", Label(), schema,
                      name, error.message);
    }
    return SchemaError(schema, std::move(error));
  }

  // The REST updates that turn `base` into `updated` for what ApplyTableChanges changes: the
  // current schema, the properties and the format version.
  static Result<OrderedJson> CommitRequest(const iceberg::Json& base,
                                           const iceberg::Json& updated) {
    OrderedJson requirements = OrderedJson::array();
    OrderedJson updates = OrderedJson::array();
    if (base.contains("table-uuid")) {
      requirements.push_back({{"type", "assert-table-uuid"}, {"uuid", base["table-uuid"]}});
    }
    const int base_version = base.value("format-version", 2);
    const int new_version = updated.value("format-version", 2);
    if (new_version > base_version) {
      updates.push_back({{"action", "upgrade-format-version"}, {"format-version", new_version}});
    }
    const auto* base_schema = iceberg::CurrentSchema(base);
    const auto* new_schema = iceberg::CurrentSchema(updated);
    if (new_schema != nullptr && (base_schema == nullptr || *base_schema != *new_schema)) {
      if (base.contains("current-schema-id")) {
        requirements.push_back({{"type", "assert-current-schema-id"},
                                {"current-schema-id", base["current-schema-id"]}});
      }
      bool known = false;
      const int new_id = new_schema->value("schema-id", -1);
      if (base.contains("schemas") && base["schemas"].is_array()) {
        for (const auto& s : base["schemas"]) {
          if (s.value("schema-id", -2) == new_id) known = true;
        }
      }
      if (known) {
        updates.push_back({{"action", "set-current-schema"}, {"schema-id", new_id}});
      } else {
        if (base.contains("last-column-id")) {
          requirements.push_back({{"type", "assert-last-assigned-field-id"},
                                  {"last-assigned-field-id", base["last-column-id"]}});
        }
        OrderedJson add{{"action", "add-schema"}, {"schema", *new_schema}};
        if (updated.contains("last-column-id")) add["last-column-id"] = updated["last-column-id"];
        updates.push_back(std::move(add));
        updates.push_back({{"action", "set-current-schema"}, {"schema-id", -1}});
      }
    }
    const model::Properties before = iceberg::PropertiesOf(base);
    const model::Properties after = iceberg::PropertiesOf(updated);
    OrderedJson set = OrderedJson::object();
    OrderedJson removed = OrderedJson::array();
    for (const auto& [k, v] : after) {
      auto it = before.find(k);
      if (it == before.end() || it->second != v) set[k] = v;
    }
    for (const auto& [k, v] : before) {
      if (after.count(k) == 0) removed.push_back(k);
    }
    if (!set.empty()) updates.push_back({{"action", "set-properties"}, {"updates", set}});
    if (!removed.empty()) {
      updates.push_back({{"action", "remove-properties"}, {"removals", removed}});
    }
    return OrderedJson{{"requirements", requirements}, {"updates", updates}};
  }

  Result<model::Table> ToTable(std::string_view name, const OrderedJson& loaded) const {
    if (!loaded.is_object() || !loaded.contains("metadata")) {
      return Internal("Catalog {}: the remote answered without table metadata", Label());
    }
    CAIRN_ASSIGN_OR_RETURN(model::Table t, iceberg::TableFromMetadata(loaded["metadata"]));
    t.name = std::string(name);
    return t;
  }

  IcebergProxy proxy_;
  ExternalRows rows_;
};

}  // namespace

Result<std::unique_ptr<Connector>> MakeRestIcebergConnector(const CatalogInfo& info,
                                                            const ConnectorDeps& deps) {
  CAIRN_ASSIGN_OR_RETURN(IcebergProxyOptions options, ParseIcebergProxyOptions(info));
  return std::unique_ptr<Connector>(
      std::make_unique<RestIcebergConnector>(std::move(options), info, deps.store));
}

}  // namespace cairn::connector
