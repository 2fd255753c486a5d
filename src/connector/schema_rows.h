// SPDX-License-Identifier: Apache-2.0
// Schemas that live only in Cairn's store (managed Iceberg namespaces, fileset schemas): one row
// per schema under the catalog row. What the providers share; each adds its own checks and side
// effects (directories, cascades) around these.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "connector/connector.h"
#include "store/metadata_store.h"

namespace cairn::connector {

/// The names of the rows of `type` under `parent_id`, in the store's (name) order.
Result<std::vector<std::string>> ListChildNames(store::MetadataStore& store, store::EntityType type,
                                                int64_t parent_id);

/// The names of the catalog's schemas, in the store's order.
Result<std::vector<std::string>> ListSchemaNames(store::MetadataStore& store, int64_t catalog_id);

/// The row of schema `name` of the catalog; kNotFound (kSchema) naming `catalog.name` when absent.
Result<store::EntityRecord> GetSchemaRow(store::MetadataStore& store, int64_t catalog_id,
                                         std::string_view catalog, std::string_view name);

/// Ok when the schema row holds no functions (rows of Cairn's own in every schema); kNotEmpty
/// naming `catalog.schema` otherwise, for a drop without cascade.
Status CheckNoFunctions(store::MetadataStore& store, const store::EntityRecord& schema_row,
                        std::string_view catalog);

/// Ok when every change is a setProperty or removeProperty (all a store-kept schema takes).
Status CheckSchemaPropertyChanges(const std::vector<model::EntityChange>& changes);

/// The row of a new schema, created by `ctx.principal` now (not yet inserted).
store::EntityRecord NewSchemaRow(int64_t catalog_id, const model::Schema& schema,
                                 const CallContext& ctx);

/// Inserts the row of a new schema of catalog `catalog_name`; kAlreadyExists (kSchema) naming it
/// when the catalog has one of that name.
Result<store::EntityRecord> InsertSchemaRow(store::MetadataStore& store, int64_t catalog_id,
                                            std::string_view catalog_name,
                                            const model::Schema& schema, const CallContext& ctx);

/// The schema a row holds.
model::Schema SchemaFromRow(const store::EntityRecord& row);

/// Applies setProperty / removeProperty changes to a schema row with compare-and-set, re-reading
/// the row (through `load`) after a lost race. kInvalidArgument for other kinds of change;
/// kUnavailable after too many lost races.
Result<store::EntityRecord> UpdateSchemaProperties(
    store::MetadataStore& store, std::string_view name,
    const std::vector<model::EntityChange>& changes, const CallContext& ctx,
    const std::function<Result<store::EntityRecord>()>& load);

}  // namespace cairn::connector
