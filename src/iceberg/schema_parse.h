// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "iceberg/json_readers.h"

namespace cairn::iceberg {

// Iceberg schemas in requests, as Java's SchemaParser reads them, and what the commit and
// create paths do to them (fresh ids, schema ids, format-version checks). Pure functions,
// thread-safe.

/// Validates an Iceberg schema JSON (with field ids) and returns it in SchemaParser's field order
/// ({"type":"struct","schema-id"?, "identifier-field-ids"? (when non-empty), "fields"}), every
/// primitive type in the text Java writes (CanonicalPrimitiveType: "decimal(10, 2)").
/// kInvalidArgument naming what is wrong: missing id/name/required/type, duplicate field ids,
/// identifier fields that are missing, optional or not primitive, a primitive type the spec does
/// not define ("Cannot parse type string to primitive: blob (at schema.fields[2].type)"), and a
/// column nesting struct/list/map types deeper than model::kMaxTypeDepth ("Invalid type at
/// schema.fields[0].type: ... deeper than 100 levels"), checked before any recursion. Time is
/// linear in the size of the schema.
Result<Json> ParseSchemaJson(const Json& schema);

/// Whether two schemas are the same apart from their schema ids (Schema.sameSchema).
bool SameSchemaJson(const Json& a, const Json& b);

/// The schema's identifier-field-ids that are integers, in their order (none when absent).
std::vector<int> IdentifierIds(const Json& schema);

/// Java's TypeUtil.assignFreshIds on a schema ParseSchemaJson accepted, in place: a struct
/// numbers its own fields first, then visits their types; a list takes its element id before
/// its element type; a map its key and value ids before their types. Ids continue from
/// `*last_id`; `*mapping` gains old id -> new id.
void AssignFreshIds(Json& type, int* last_id, std::unordered_map<int, int>* mapping);

/// {"type":"struct","schema-id":id, "identifier-field-ids"? (when non-empty), "fields"} from
/// `schema` (no fields: an empty array).
Json WithSchemaId(const Json& schema, int id);

/// Schema.checkCompatibility: kInvalidArgument "Invalid schema for v<N>:" listing every type
/// and non-null initial default `format_version` cannot hold.
Status CheckSchemaForVersion(const Json& schema, int format_version);

}  // namespace cairn::iceberg
