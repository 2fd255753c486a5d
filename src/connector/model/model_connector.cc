// SPDX-License-Identifier: Apache-2.0
#include "connector/model/model_connector.h"

#include <algorithm>
#include <regex>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/util.h"
#include "connector/schema_rows.h"
#include "json/json_util.h"
#include "storage/credentials.h"
#include "store/metadata_store.h"
#include "store/retry.h"
#include "store/transact.h"

namespace cairn::connector {

namespace {

using model::ModelVersion;
using Json = nlohmann::json;
using store::EntityRecord;
using store::EntityType;

// Bounds of one model, so that a caller cannot grow a row without end.
constexpr size_t kMaxAliasesPerModel = 10000;
constexpr size_t kMaxUrisPerVersion = 100;
constexpr size_t kMaxTextBytes = 4096;  // an alias, a URI name, a URI

// A version row's name: its number, zero-padded so that the store's name order is number order.
std::string VersionName(int64_t version) { return fmt::format("{:019d}", version); }

// The model row's payload: the next version number and which version holds each alias.
struct ModelState {
  int64_t latest = 0;
  std::map<std::string, int64_t> aliases;
};

Result<ModelState> StateOf(const EntityRecord& row) {
  Json p = json::ParseJsonOrDiscarded(row.payload.empty() ? "{}" : row.payload);
  if (!p.is_object()) return Internal("model {} has a corrupt stored definition", row.name);
  ModelState s;
  s.latest = p.value("latestVersion", int64_t{0});
  if (auto a = p.find("aliases"); a != p.end() && a->is_object()) {
    for (const auto& [alias, version] : a->items()) {
      if (version.is_number_integer()) s.aliases[alias] = version.get<int64_t>();
    }
  }
  return s;
}

std::string PayloadOf(const ModelState& s) {
  Json aliases = Json::object();
  for (const auto& [alias, version] : s.aliases) aliases[alias] = version;
  return Json{{"latestVersion", s.latest}, {"aliases", aliases}}.dump();
}

model::Model ToModel(const EntityRecord& row, const ModelState& state) {
  model::Model m;
  m.name = row.name;
  m.comment = row.comment;
  m.properties = row.properties;
  m.latest_version = state.latest;
  m.audit = row.audit;
  return m;
}

std::string VersionPayload(const ModelVersion& v) {
  Json uris = Json::object();
  for (const auto& [name, uri] : v.uris) uris[name] = uri;
  return Json{{"version", v.version}, {"uris", uris}, {"aliases", v.aliases}}.dump();
}

Result<ModelVersion> ToVersion(const EntityRecord& row) {
  Json p = json::ParseJsonOrDiscarded(row.payload);
  if (!p.is_object() || !p.contains("version")) {
    return Internal("model version {} has a corrupt stored definition", row.name);
  }
  ModelVersion v;
  v.version = p.value("version", int64_t{0});
  v.comment = row.comment;
  v.properties = row.properties;
  v.audit = row.audit;
  if (auto u = p.find("uris"); u != p.end() && u->is_object()) {
    for (const auto& [name, uri] : u->items()) {
      if (uri.is_string()) v.uris[name] = uri.get<std::string>();
    }
  }
  if (auto a = p.find("aliases"); a != p.end() && a->is_array()) {
    for (const auto& alias : *a) {
      if (alias.is_string()) v.aliases.push_back(alias.get<std::string>());
    }
  }
  return v;
}

// Gravitino's rule: an alias is not blank and does not read as a number (a number addresses a
// version by itself): decimal, with a fraction or an exponent or a type suffix, or hexadecimal.
bool LooksNumeric(std::string_view text) {
  static const std::regex kNumber(
      R"([+-]?(0[xX][0-9a-fA-F]+|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[lLfFdD]?))");
  return std::regex_match(text.begin(), text.end(), kNumber);
}

// An alias, a URI name or a URI: not blank, no control characters, UTF-8, bounded.
Status CheckText(std::string_view what, std::string_view text) {
  return model::ValidateLabelText(EntityKind::kNone, what, text, kMaxTextBytes);
}

Status CheckAlias(std::string_view alias, bool on_link) {
  CAIRN_RETURN_IF_ERROR(CheckText("alias", alias));
  if (on_link && LooksNumeric(alias)) {
    return InvalidArgument("alias must not be a number or a number string: '{}'", alias);
  }
  return Ok();
}

Status CheckUris(const std::map<std::string, std::string>& uris) {
  if (uris.empty()) return InvalidArgument("Model version URI cannot be empty");
  if (uris.size() > kMaxUrisPerVersion) {
    return InvalidArgument("A model version holds at most {} URIs", kMaxUrisPerVersion);
  }
  for (const auto& [name, uri] : uris) {
    CAIRN_RETURN_IF_ERROR(CheckText("URI name", name));
    CAIRN_RETURN_IF_ERROR(CheckText(fmt::format("URI of '{}'", name), uri));
  }
  return Ok();
}

Status CheckProperties(const model::Properties& props) {
  for (const auto& [k, v] : props) {
    if (Trim(k).empty()) return InvalidArgument("A property name must not be blank");
    if (k.size() > kMaxTextBytes || v.size() > 64 * 1024) {
      return InvalidArgument("Property '{}' is too long", k.substr(0, 64));
    }
  }
  return Ok();
}

// A lost compare-and-set, or a version row a racing link inserted first: try again. A taken
// alias (kModelVersionAlias) or model name is final.
bool RetryLink(const Error& e) {
  return e.code == ErrorCode::kConflict ||
         (e.code == ErrorCode::kAlreadyExists && e.entity == EntityKind::kNone);
}

class ModelConnector final : public Connector, public SchemaCatalog, public ModelCatalog {
 public:
  ModelConnector(CatalogInfo info, store::MetadataStore& store)
      : info_(std::move(info)), store_(store) {
    // Validated when the catalog was created; a bad set vends nothing.
    if (auto vendor = storage::CredentialVendor::FromProperties(info_.properties)) {
      credentials_ = *vendor;
    }
    Provide<SchemaCatalog>(this);
    Provide<ModelCatalog>(this);
    // Version URIs on S3 get keys scoped to them when the catalog configures a provider.
    if (credentials_.enabled()) Provide<storage::CredentialVendor>(&credentials_);
  }

  // Everything lives in Cairn's store.
  Status TestConnection() override { return Ok(); }

  Status DropAll() override {
    CAIRN_ASSIGN_OR_RETURN(auto names, ListSchemas());
    for (const auto& name : names) CAIRN_RETURN_IF_ERROR(DropSchema(CallContext{}, name, true));
    return Ok();
  }

  // ---- schemas ----

  Result<std::vector<std::string>> ListSchemas() override {
    return ListSchemaNames(store_, info_.catalog_id);
  }

  Result<model::Schema> CreateSchema(const CallContext& ctx, const model::Schema& schema) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row,
                           InsertSchemaRow(store_, info_.catalog_id, info_.name, schema, ctx));
    return SchemaFromRow(row);
  }

  Result<model::Schema> LoadSchema(std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, SchemaRow(name));
    return SchemaFromRow(row);
  }

  Result<model::Schema> AlterSchema(const CallContext& ctx, std::string_view name,
                                    const std::vector<model::EntityChange>& changes) override {
    CAIRN_RETURN_IF_ERROR(CheckSchemaPropertyChanges(changes));
    CAIRN_ASSIGN_OR_RETURN(
        EntityRecord row,
        UpdateSchemaProperties(store_, name, changes, ctx, [&] { return SchemaRow(name); }));
    return SchemaFromRow(row);
  }

  Result<bool> DropSchema(const CallContext& /*ctx*/, std::string_view name,
                          bool cascade) override {
    auto row = SchemaRow(name);
    if (!row && row.error().code == ErrorCode::kNotFound) return false;
    if (!row) return std::move(row).error();
    if (!cascade) {
      CAIRN_ASSIGN_OR_RETURN(auto models, store_.List(EntityType::kModel, row->id, "", 1));
      if (!models.empty()) {
        return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema,
                         "Schema {}.{} is not empty, it has models; drop them first or use cascade",
                         info_.name, name);
      }
      CAIRN_RETURN_IF_ERROR(CheckNoFunctions(store_, *row, info_.name));
    }
    return store_.Delete(row->id);  // its models and their versions with it
  }

  Result<bool> HasSchemas() override {
    CAIRN_ASSIGN_OR_RETURN(int64_t n, store_.CountChildren(info_.catalog_id));
    return n > 0;
  }

  // ---- models ----

  Result<std::vector<std::string>> ListModels(std::string_view schema) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    return ListChildNames(store_, EntityType::kModel, s.id);
  }

  Result<model::Model> RegisterModel(const CallContext& ctx, std::string_view schema,
                                     const model::Model& m) override {
    CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kModel, m.name));
    CAIRN_RETURN_IF_ERROR(CheckProperties(m.properties));
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    EntityRecord row;
    row.type = EntityType::kModel;
    row.parent_id = s.id;
    row.name = m.name;
    row.comment = m.comment;
    row.properties = m.properties;
    row.payload = PayloadOf(ModelState{});
    row.audit.creator = ctx.principal;
    row.audit.create_time = ctx.now_ms;
    auto inserted = store_.Insert(row);
    if (!inserted && inserted.error().code == ErrorCode::kAlreadyExists) {
      return ModelExists(schema, m.name);
    }
    if (!inserted) return std::move(inserted).error();
    return ToModel(*inserted, ModelState{});
  }

  Result<model::Model> GetModel(std::string_view schema, std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, ModelRow(schema, name));
    CAIRN_ASSIGN_OR_RETURN(ModelState state, StateOf(row));
    return ToModel(row, state);
  }

  Result<model::Model> AlterModel(const CallContext& ctx, std::string_view schema,
                                  std::string_view name,
                                  const std::vector<model::ModelChange>& changes) override {
    using Kind = model::ModelChange::Kind;
    for (const auto& c : changes) {
      if (c.kind == Kind::kRename) {
        CAIRN_RETURN_IF_ERROR(model::ValidateObjectName(EntityKind::kModel, c.new_name));
      }
    }
    std::string new_name(name);
    auto altered = store::RetryOnConflict([&]() -> Result<model::Model> {
      CAIRN_ASSIGN_OR_RETURN(EntityRecord row, ModelRow(schema, name));
      for (const auto& c : changes) {
        switch (c.kind) {
          case Kind::kRename:
            row.name = c.new_name;
            break;
          case Kind::kUpdateComment:
            row.comment = c.comment;
            break;
          case Kind::kSetProperty:
            row.properties[c.property] = c.value;
            break;
          case Kind::kRemoveProperty:
            row.properties.erase(c.property);
            break;
        }
      }
      CAIRN_RETURN_IF_ERROR(CheckProperties(row.properties));
      new_name = row.name;
      row.audit.last_modifier = ctx.principal;
      row.audit.last_modified_time = ctx.now_ms;
      CAIRN_ASSIGN_OR_RETURN(EntityRecord written, store_.CompareAndSet(row));
      CAIRN_ASSIGN_OR_RETURN(ModelState state, StateOf(written));
      return ToModel(written, state);
    });
    if (!altered && altered.error().code == ErrorCode::kAlreadyExists) {
      return ModelExists(schema, new_name);
    }
    return altered;
  }

  Result<bool> DeleteModel(const CallContext& /*ctx*/, std::string_view schema,
                           std::string_view name) override {
    auto row = ModelRow(schema, name);
    if (!row && row.error().code == ErrorCode::kNotFound) return false;
    if (!row) return std::move(row).error();
    return store_.Delete(row->id);
  }

  // ---- versions ----

  Result<std::vector<ModelVersion>> ListVersions(std::string_view schema,
                                                 std::string_view model) override {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord m, ModelRow(schema, model));
    CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kModelVersion, m.id, "", 0));
    std::vector<ModelVersion> out;
    out.reserve(rows.size());
    for (const auto& r : rows) {
      CAIRN_ASSIGN_OR_RETURN(ModelVersion v, ToVersion(r));
      out.push_back(std::move(v));
    }
    return out;
  }

  Result<ModelVersion> LinkVersion(const CallContext& ctx, std::string_view schema,
                                   std::string_view model, const ModelVersion& request) override {
    CAIRN_RETURN_IF_ERROR(CheckUris(request.uris));
    CAIRN_RETURN_IF_ERROR(CheckProperties(request.properties));
    std::set<std::string> seen;
    for (const auto& alias : request.aliases) {
      CAIRN_RETURN_IF_ERROR(CheckAlias(alias, /*on_link=*/true));
      if (!seen.insert(alias).second) return AliasTaken(alias, model);
    }
    CAIRN_ASSIGN_OR_RETURN(EntityRecord schema_row, SchemaRow(schema));
    ModelVersion linked;
    const Status done = store::Transact(
        store_,
        [&](store::MetadataStore& tx) -> Status {
          CAIRN_ASSIGN_OR_RETURN(EntityRecord m, ModelRowIn(tx, schema_row, model));
          CAIRN_ASSIGN_OR_RETURN(ModelState state, StateOf(m));
          for (const auto& alias : request.aliases) {
            if (state.aliases.count(alias) > 0) return AliasTaken(alias, model);
          }
          if (state.aliases.size() + request.aliases.size() > kMaxAliasesPerModel) {
            return InvalidArgument("A model holds at most {} aliases", kMaxAliasesPerModel);
          }
          linked = request;
          linked.version = state.latest;
          linked.audit = {};
          linked.audit.creator = ctx.principal;
          linked.audit.create_time = ctx.now_ms;
          EntityRecord row;
          row.type = EntityType::kModelVersion;
          row.parent_id = m.id;
          row.name = VersionName(linked.version);
          row.comment = linked.comment;
          row.properties = linked.properties;
          row.payload = VersionPayload(linked);
          row.audit = linked.audit;
          auto inserted = tx.Insert(row);
          if (!inserted) {
            Error e = std::move(inserted).error();
            if (e.code == ErrorCode::kAlreadyExists) e.entity = EntityKind::kNone;  // retried
            return e;
          }
          ++state.latest;
          for (const auto& alias : request.aliases) state.aliases[alias] = linked.version;
          m.payload = PayloadOf(state);  // the model's own audit stays: a link is no alter
          CAIRN_RETURN_IF_ERROR(tx.CompareAndSet(m));
          return Ok();
        },
        RetryLink);
    CAIRN_RETURN_IF_ERROR(done);
    return linked;
  }

  Result<ModelVersion> GetVersion(std::string_view schema, std::string_view model,
                                  const model::VersionRef& ref) override {
    auto m = ModelRow(schema, model);
    if (!m && m.error().code == ErrorCode::kNotFound) return VersionMissing(model, ref);
    if (!m) return std::move(m).error();
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, VersionRow(store_, *m, model, ref));
    return ToVersion(row);
  }

  Result<ModelVersion> AlterVersion(
      const CallContext& ctx, std::string_view schema, std::string_view model,
      const model::VersionRef& ref,
      const std::vector<model::ModelVersionChange>& changes) override {
    using Kind = model::ModelVersionChange::Kind;
    for (const auto& c : changes) {
      if (c.kind == Kind::kUpdateAliases) {
        for (const auto& a : c.aliases_to_add) CAIRN_RETURN_IF_ERROR(CheckAlias(a, true));
      }
      if (c.kind == Kind::kUpdateUri || c.kind == Kind::kAddUri) {
        CAIRN_RETURN_IF_ERROR(CheckText("URI name", c.uri_name));
        CAIRN_RETURN_IF_ERROR(CheckText("URI", c.uri));
      }
    }
    CAIRN_ASSIGN_OR_RETURN(EntityRecord schema_row, SchemaRow(schema));
    ModelVersion out;
    const Status done = store::Transact(store_, [&](store::MetadataStore& tx) -> Status {
      auto m = ModelRowIn(tx, schema_row, model);
      if (!m) return std::move(m).error();
      CAIRN_ASSIGN_OR_RETURN(EntityRecord row, VersionRow(tx, *m, model, ref));
      CAIRN_ASSIGN_OR_RETURN(ModelVersion v, ToVersion(row));
      CAIRN_ASSIGN_OR_RETURN(ModelState state, StateOf(*m));
      bool aliases_changed = false;
      for (const auto& c : changes) {
        switch (c.kind) {
          case Kind::kUpdateComment:
            v.comment = c.comment;
            break;
          case Kind::kSetProperty:
            v.properties[c.property] = c.value;
            break;
          case Kind::kRemoveProperty:
            v.properties.erase(c.property);
            break;
          case Kind::kUpdateUri:
            if (auto it = v.uris.find(c.uri_name); it != v.uris.end()) it->second = c.uri;
            break;
          case Kind::kAddUri:
            v.uris.emplace(c.uri_name, c.uri);  // a name already there keeps its URI
            break;
          case Kind::kRemoveUri:
            v.uris.erase(c.uri_name);
            break;
          case Kind::kUpdateAliases: {
            auto in = [](const std::vector<std::string>& list, const std::string& a) {
              return std::find(list.begin(), list.end(), a) != list.end();
            };
            for (const auto& a : c.aliases_to_remove) {
              if (in(c.aliases_to_add, a)) continue;  // in both lists: neither
              auto it = std::find(v.aliases.begin(), v.aliases.end(), a);
              if (it == v.aliases.end()) continue;
              v.aliases.erase(it);
              state.aliases.erase(a);
              aliases_changed = true;
            }
            for (const auto& a : c.aliases_to_add) {
              if (in(c.aliases_to_remove, a) || in(v.aliases, a)) continue;
              if (state.aliases.count(a) > 0) return AliasTaken(a, model);
              v.aliases.push_back(a);
              state.aliases[a] = v.version;
              aliases_changed = true;
            }
            break;
          }
        }
      }
      CAIRN_RETURN_IF_ERROR(CheckUris(v.uris));
      CAIRN_RETURN_IF_ERROR(CheckProperties(v.properties));
      if (state.aliases.size() > kMaxAliasesPerModel) {
        return InvalidArgument("A model holds at most {} aliases", kMaxAliasesPerModel);
      }
      v.audit.last_modifier = ctx.principal;
      v.audit.last_modified_time = ctx.now_ms;
      row.comment = v.comment;
      row.properties = v.properties;
      row.payload = VersionPayload(v);
      row.audit = v.audit;
      CAIRN_RETURN_IF_ERROR(tx.CompareAndSet(row));
      if (aliases_changed) {
        m->payload = PayloadOf(state);
        CAIRN_RETURN_IF_ERROR(tx.CompareAndSet(*m));
      }
      out = std::move(v);
      return Ok();
    });
    CAIRN_RETURN_IF_ERROR(done);
    return out;
  }

  Result<bool> DeleteVersion(const CallContext& /*ctx*/, std::string_view schema,
                             std::string_view model, const model::VersionRef& ref) override {
    auto schema_row = SchemaRow(schema);
    if (!schema_row && schema_row.error().code == ErrorCode::kNotFound) return false;
    if (!schema_row) return std::move(schema_row).error();
    bool deleted = false;
    const Status done = store::Transact(store_, [&](store::MetadataStore& tx) -> Status {
      deleted = false;
      auto m = ModelRowIn(tx, *schema_row, model);
      if (!m && m.error().code == ErrorCode::kNotFound) return Ok();
      if (!m) return std::move(m).error();
      auto row = VersionRow(tx, *m, model, ref);
      if (!row && row.error().code == ErrorCode::kNotFound) return Ok();
      if (!row) return std::move(row).error();
      CAIRN_ASSIGN_OR_RETURN(ModelVersion v, ToVersion(*row));
      CAIRN_ASSIGN_OR_RETURN(ModelState state, StateOf(*m));
      CAIRN_ASSIGN_OR_RETURN(deleted, tx.Delete(row->id));
      bool freed = false;
      for (const auto& a : v.aliases) freed = state.aliases.erase(a) > 0 || freed;
      if (freed) {
        m->payload = PayloadOf(state);
        CAIRN_RETURN_IF_ERROR(tx.CompareAndSet(*m));
      }
      return Ok();
    });
    CAIRN_RETURN_IF_ERROR(done);
    return deleted;
  }

 private:
  Result<EntityRecord> SchemaRow(std::string_view name) {
    return GetSchemaRow(store_, info_.catalog_id, info_.name, name);
  }

  Result<EntityRecord> ModelRowIn(store::MetadataStore& store, const EntityRecord& schema,
                                  std::string_view name) {
    auto row = store.Get(EntityType::kModel, schema.id, name);
    if (!row && row.error().code == ErrorCode::kNotFound) {
      return NotFound(EntityKind::kModel, "Model {}.{}.{} does not exist", info_.name, schema.name,
                      name);
    }
    return row;
  }

  Result<EntityRecord> ModelRow(std::string_view schema, std::string_view name) {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord s, SchemaRow(schema));
    return ModelRowIn(store_, s, name);
  }

  // The version row `ref` names: by number, or through the model's alias map.
  Result<EntityRecord> VersionRow(store::MetadataStore& store, const EntityRecord& model_row,
                                  std::string_view model, const model::VersionRef& ref) {
    std::optional<int64_t> number = ref.number;
    if (!number) {
      CAIRN_ASSIGN_OR_RETURN(ModelState state, StateOf(model_row));
      auto it = state.aliases.find(ref.alias);
      if (it == state.aliases.end()) return VersionMissing(model, ref);
      number = it->second;
    }
    if (*number < 0) return VersionMissing(model, ref);
    auto row = store.Get(EntityType::kModelVersion, model_row.id, VersionName(*number));
    if (!row && row.error().code == ErrorCode::kNotFound) return VersionMissing(model, ref);
    return row;
  }

  Error VersionMissing(std::string_view model, const model::VersionRef& ref) const {
    if (ref.number) {
      return NotFound(EntityKind::kModelVersion, "Model version {} of model {} does not exist",
                      *ref.number, model);
    }
    return NotFound(EntityKind::kModelVersion,
                    "Model version with alias {} of model {} does not exist", ref.alias, model);
  }

  Error AliasTaken(std::string_view alias, std::string_view model) const {
    return AlreadyExists(EntityKind::kModelVersionAlias,
                         "Model version alias {} already exists in model {}", alias, model);
  }

  Error ModelExists(std::string_view schema, std::string_view name) const {
    return AlreadyExists(EntityKind::kModel, "Model {}.{}.{} already exists", info_.name, schema,
                         name);
  }

  CatalogInfo info_;
  store::MetadataStore& store_;
  storage::CredentialVendor credentials_;
};

Result<std::unique_ptr<Connector>> MakeModelConnector(const CatalogInfo& info,
                                                      const ConnectorDeps& deps) {
  if (auto vendor = storage::CredentialVendor::FromProperties(info.properties); !vendor) {
    return std::move(vendor).error();
  }
  if (deps.store == nullptr) return Internal("the model connector needs the metadata store");
  return std::unique_ptr<Connector>(std::make_unique<ModelConnector>(info, *deps.store));
}

}  // namespace

void RegisterModelConnector(ConnectorRegistry& registry) {
  registry.Register("model", model::CatalogType::kModel, MakeModelConnector);
}

}  // namespace cairn::connector
