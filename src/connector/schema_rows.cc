// SPDX-License-Identifier: Apache-2.0
#include "connector/schema_rows.h"

#include "store/retry.h"

namespace cairn::connector {

Result<std::vector<std::string>> ListChildNames(store::MetadataStore& store, store::EntityType type,
                                                int64_t parent_id) {
  CAIRN_ASSIGN_OR_RETURN(auto rows, store.List(type, parent_id, "", 0));
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(r.name);
  return out;
}

Result<std::vector<std::string>> ListSchemaNames(store::MetadataStore& store, int64_t catalog_id) {
  return ListChildNames(store, store::EntityType::kSchema, catalog_id);
}

Status CheckNoFunctions(store::MetadataStore& store, const store::EntityRecord& schema_row,
                        std::string_view catalog) {
  CAIRN_ASSIGN_OR_RETURN(auto functions,
                         store.List(store::EntityType::kFunction, schema_row.id, "", 1));
  if (functions.empty()) return Ok();
  return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema,
                   "Schema {}.{} is not empty, it has functions; drop them first or use cascade",
                   catalog, schema_row.name);
}

Result<store::EntityRecord> GetSchemaRow(store::MetadataStore& store, int64_t catalog_id,
                                         std::string_view catalog, std::string_view name) {
  auto row = store.Get(store::EntityType::kSchema, catalog_id, name);
  if (!row && row.error().code == ErrorCode::kNotFound) {
    return NotFound(EntityKind::kSchema, "Schema {}.{} does not exist", catalog, name);
  }
  return row;
}

Status CheckSchemaPropertyChanges(const std::vector<model::EntityChange>& changes) {
  for (const auto& c : changes) {
    if (c.kind != model::EntityChange::Kind::kSetProperty &&
        c.kind != model::EntityChange::Kind::kRemoveProperty) {
      return InvalidArgument("Schemas support only setProperty and removeProperty updates");
    }
  }
  return Ok();
}

Result<store::EntityRecord> InsertSchemaRow(store::MetadataStore& store, int64_t catalog_id,
                                            std::string_view catalog_name,
                                            const model::Schema& schema, const CallContext& ctx) {
  auto inserted = store.Insert(NewSchemaRow(catalog_id, schema, ctx));
  if (!inserted && inserted.error().code == ErrorCode::kAlreadyExists) {
    return AlreadyExists(EntityKind::kSchema, "Schema {}.{} already exists", catalog_name,
                         schema.name);
  }
  return inserted;
}

store::EntityRecord NewSchemaRow(int64_t catalog_id, const model::Schema& schema,
                                 const CallContext& ctx) {
  store::EntityRecord row;
  row.type = store::EntityType::kSchema;
  row.parent_id = catalog_id;
  row.name = schema.name;
  row.comment = schema.comment;
  row.properties = schema.properties;
  row.payload = "{}";
  row.audit.creator = ctx.principal;
  row.audit.create_time = ctx.now_ms;
  return row;
}

model::Schema SchemaFromRow(const store::EntityRecord& row) {
  model::Schema s;
  s.name = row.name;
  s.comment = row.comment;
  s.properties = row.properties;
  s.audit = row.audit;
  return s;
}

Result<store::EntityRecord> UpdateSchemaProperties(
    store::MetadataStore& store, std::string_view name,
    const std::vector<model::EntityChange>& changes, const CallContext& ctx,
    const std::function<Result<store::EntityRecord>()>& load) {
  for (const auto& c : changes) {
    if (c.kind != model::EntityChange::Kind::kSetProperty &&
        c.kind != model::EntityChange::Kind::kRemoveProperty) {
      return InvalidArgument("Schemas support only setProperty and removeProperty updates");
    }
  }
  return store::RetryOnConflict(
      [&]() -> Result<store::EntityRecord> {
        CAIRN_ASSIGN_OR_RETURN(store::EntityRecord row, load());
        for (const auto& c : changes) {
          if (c.kind == model::EntityChange::Kind::kSetProperty) {
            row.properties[c.property] = c.value;
          } else {
            row.properties.erase(c.property);
          }
        }
        row.audit.last_modifier = ctx.principal;
        row.audit.last_modified_time = ctx.now_ms;
        return store.CompareAndSet(row);
      },
      [&] { return Unavailable("too many concurrent updates of schema {}; try again", name); });
}

}  // namespace cairn::connector
