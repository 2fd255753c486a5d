// SPDX-License-Identifier: Apache-2.0
#include "connector/external_rows.h"

#include <set>

#include <spdlog/spdlog.h>

#include "store/retry.h"

namespace cairn::connector {

namespace {

// A racing caller inserted the row (or took the name) first: read again and go on from there.
bool LostInsertRace(const Error& error) { return error.code == ErrorCode::kAlreadyExists; }

bool LostMoveRace(const Error& error) {
  return error.code == ErrorCode::kConflict || error.code == ErrorCode::kAlreadyExists;
}

Error ConcurrentChanges() { return Unavailable("concurrent changes"); }

}  // namespace

ExternalRows::ExternalRows(store::MetadataStore* store, int64_t catalog_id,
                           std::string catalog_label)
    : store_(store), catalog_id_(catalog_id), catalog_label_(std::move(catalog_label)) {}

void ExternalRows::Failed(std::string_view op, std::string_view name,
                          std::string_view error) const {
  spdlog::warn("event=ownership_row_failed catalog={} op={} name={} error=\"{}\"", catalog_label_,
               op, name, error);
}

std::optional<store::EntityRecord> ExternalRows::Get(EntityType type, int64_t parent,
                                                     std::string_view name) {
  if (!Tracking()) return std::nullopt;
  auto row = store_->Get(type, parent, name);
  if (!row) {
    if (row.error().code != ErrorCode::kNotFound) Failed("get", name, row.error().message);
    return std::nullopt;
  }
  return std::move(*row);
}

std::optional<store::EntityRecord> ExternalRows::Touch(EntityType type, int64_t parent,
                                                       std::string_view name) {
  if (!Tracking()) return std::nullopt;
  auto touched = store::RetryOnConflict(
      [&]() -> Result<EntityRecord> {
        auto row = store_->Get(type, parent, name);
        if (row || row.error().code != ErrorCode::kNotFound) return row;
        EntityRecord r;
        r.type = type;
        r.parent_id = parent;
        r.name = std::string(name);
        r.payload = "{}";
        return store_->Insert(r);
      },
      ConcurrentChanges, LostInsertRace);
  if (touched) return std::move(*touched);
  Failed("touch", name, touched.error().message);
  return std::nullopt;
}

std::optional<store::EntityRecord> ExternalRows::Claim(EntityType type, int64_t parent,
                                                       std::string_view name,
                                                       const CallContext& ctx) {
  if (!Tracking()) return std::nullopt;
  auto claimed = store::RetryOnConflict(
      [&]() -> Result<EntityRecord> {
        auto row = store_->Get(type, parent, name);
        if (row) {
          (void)store_->Delete(row->id);
        } else if (row.error().code != ErrorCode::kNotFound) {
          return std::move(row).error();
        }
        EntityRecord r;
        r.type = type;
        r.parent_id = parent;
        r.name = std::string(name);
        r.payload = "{}";
        r.audit.creator = ctx.principal;
        r.audit.create_time = ctx.now_ms;
        return store_->Insert(r);
      },
      ConcurrentChanges, LostInsertRace);
  if (claimed) return std::move(*claimed);
  Failed("claim", name, claimed.error().message);
  return std::nullopt;
}

void ExternalRows::Forget(EntityType type, int64_t parent, std::string_view name) {
  if (auto row = Get(type, parent, name)) {
    auto deleted = store_->Delete(row->id);
    if (!deleted) Failed("forget", name, deleted.error().message);
  }
}

void ExternalRows::See(EntityType type, int64_t parent, const std::vector<std::string>& listed,
                       bool complete) {
  if (!Tracking()) return;
  auto rows = store_->List(type, parent, "", 0);
  if (!rows) {
    Failed("see", "", rows.error().message);
    return;
  }
  std::set<std::string> known;
  for (const auto& r : *rows) known.insert(r.name);
  const std::set<std::string> live(listed.begin(), listed.end());
  for (const auto& name : live) {
    if (!known.count(name)) (void)Touch(type, parent, name);
  }
  if (!complete) return;
  for (const auto& r : *rows) {
    if (!live.count(r.name)) (void)store_->Delete(r.id);
  }
}

// ---- schemas ----

std::optional<store::EntityRecord> ExternalRows::FindSchema(std::string_view schema) {
  return Get(EntityType::kSchema, catalog_id_, schema);
}

std::optional<store::EntityRecord> ExternalRows::TouchSchema(std::string_view schema) {
  return Touch(EntityType::kSchema, catalog_id_, schema);
}

std::optional<store::EntityRecord> ExternalRows::ClaimSchema(std::string_view schema,
                                                             const CallContext& ctx) {
  return Claim(EntityType::kSchema, catalog_id_, schema, ctx);
}

void ExternalRows::ForgetSchema(std::string_view schema) {
  Forget(EntityType::kSchema, catalog_id_, schema);
}

void ExternalRows::SeeSchemas(const std::vector<std::string>& listed, bool complete) {
  See(EntityType::kSchema, catalog_id_, listed, complete);
}

// ---- tables and views ----

std::optional<store::EntityRecord> ExternalRows::TouchObject(EntityType type,
                                                             std::string_view schema,
                                                             std::string_view name) {
  auto schema_row = TouchSchema(schema);
  if (!schema_row) return std::nullopt;
  return Touch(type, schema_row->id, name);
}

std::optional<store::EntityRecord> ExternalRows::ClaimObject(EntityType type,
                                                             std::string_view schema,
                                                             std::string_view name,
                                                             const CallContext& ctx) {
  auto schema_row = TouchSchema(schema);
  if (!schema_row) return std::nullopt;
  return Claim(type, schema_row->id, name, ctx);
}

std::optional<store::EntityRecord> ExternalRows::MoveObject(
    EntityType type, std::string_view from_schema, std::string_view from,
    std::string_view to_schema, std::string_view to, const CallContext& ctx) {
  auto dest_schema = TouchSchema(to_schema);
  if (!dest_schema) return std::nullopt;
  auto moved = store::RetryOnConflict(
      [&]() -> Result<std::optional<EntityRecord>> {
        auto source_schema = from_schema == to_schema ? dest_schema : FindSchema(from_schema);
        std::optional<EntityRecord> row;
        if (source_schema) row = Get(type, source_schema->id, from);
        if (!row) return Touch(type, dest_schema->id, to);  // never seen before: no owner to keep
        const bool same_place = row->parent_id == dest_schema->id && row->name == to;
        if (!same_place) {
          // A row left by an object of the new name that no longer exists gives way.
          Forget(type, dest_schema->id, to);
          row->parent_id = dest_schema->id;
          row->name = std::string(to);
        }
        row->audit.last_modifier = ctx.principal;
        row->audit.last_modified_time = ctx.now_ms;
        CAIRN_ASSIGN_OR_RETURN(EntityRecord updated, store_->CompareAndSet(*row));
        return std::optional<EntityRecord>(std::move(updated));
      },
      ConcurrentChanges, LostMoveRace);
  if (moved) return std::move(*moved);
  Failed("move", from, moved.error().message);
  return std::nullopt;
}

void ExternalRows::ForgetObject(EntityType type, std::string_view schema, std::string_view name) {
  if (auto schema_row = FindSchema(schema)) Forget(type, schema_row->id, name);
}

void ExternalRows::SeeObjects(EntityType type, std::string_view schema,
                              const std::vector<std::string>& listed, bool complete) {
  auto schema_row = listed.empty() ? FindSchema(schema) : TouchSchema(schema);
  if (schema_row) See(type, schema_row->id, listed, complete);
}

}  // namespace cairn::connector
