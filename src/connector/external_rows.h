// SPDX-License-Identifier: Apache-2.0
// Governance rows of objects that live in an external source (jdbc-* catalogs, federated Iceberg
// catalogs): the source holds the objects, Cairn keeps one row per schema and per table (or
// view) directly under a schema that it has seen, keyed by name under the catalog row, so owners,
// grants and object roles attach to them as to any other object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "connector/connector.h"
#include "store/metadata_store.h"

namespace cairn::connector {

/// The rows of one catalog's external objects. Every method is best effort: a store failure is
/// logged and leaves the source's answer alone (nullopt / nothing done), never an error.
/// - Touch: the row of an object seen (listed, loaded) for the first time carries no creator, so
///   it has no owner until one is set.
/// - Claim: an object created through Cairn is owned by its creator; a row left by an older
///   object of the same name goes first, with the rows below it.
/// - Move: a rename through Cairn keeps the owner; the row follows the new name (and schema).
/// - Forget: a drop through Cairn deletes the row and the rows below it.
/// - See: a listing touches every listed object (one store read for the existing rows, one insert
///   per object never seen before); when the listing is `complete` (it shows everything the
///   source holds, not what one caller may see), rows of objects it no longer shows are deleted,
///   so a new object of an old name does not inherit the old owner.
/// Safe to call from many threads (the store arbitrates races).
class ExternalRows {
 public:
  using EntityRecord = store::EntityRecord;
  using EntityType = store::EntityType;

  /// `store` may be null and `catalog_id` 0 (a connector built only to validate properties):
  /// then nothing is tracked.
  ExternalRows(store::MetadataStore* store, int64_t catalog_id, std::string catalog_label);

  bool Tracking() const { return store_ != nullptr && catalog_id_ != 0; }

  // ---- schemas (children of the catalog row) ----
  std::optional<EntityRecord> FindSchema(std::string_view schema);
  std::optional<EntityRecord> TouchSchema(std::string_view schema);
  std::optional<EntityRecord> ClaimSchema(std::string_view schema, const CallContext& ctx);
  void ForgetSchema(std::string_view schema);
  void SeeSchemas(const std::vector<std::string>& listed, bool complete);

  // ---- tables and views directly under a schema (`type` kTable or kView) ----
  std::optional<EntityRecord> TouchObject(EntityType type, std::string_view schema,
                                          std::string_view name);
  std::optional<EntityRecord> ClaimObject(EntityType type, std::string_view schema,
                                          std::string_view name, const CallContext& ctx);
  std::optional<EntityRecord> MoveObject(EntityType type, std::string_view from_schema,
                                         std::string_view from, std::string_view to_schema,
                                         std::string_view to, const CallContext& ctx);
  void ForgetObject(EntityType type, std::string_view schema, std::string_view name);
  void SeeObjects(EntityType type, std::string_view schema, const std::vector<std::string>& listed,
                  bool complete);

 private:
  std::optional<EntityRecord> Get(EntityType type, int64_t parent, std::string_view name);
  std::optional<EntityRecord> Touch(EntityType type, int64_t parent, std::string_view name);
  std::optional<EntityRecord> Claim(EntityType type, int64_t parent, std::string_view name,
                                    const CallContext& ctx);
  void Forget(EntityType type, int64_t parent, std::string_view name);
  void See(EntityType type, int64_t parent, const std::vector<std::string>& listed, bool complete);
  void Failed(std::string_view op, std::string_view name, std::string_view error) const;

  store::MetadataStore* store_;
  int64_t catalog_id_;
  std::string catalog_label_;
};

}  // namespace cairn::connector
