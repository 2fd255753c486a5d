// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/json_readers.h"
#include "model/table.h"

namespace cairn::iceberg {

/// An Iceberg schema JSON ({"type":"struct","schema-id":N,"fields":[...]}) and the highest
/// field id it assigned.
struct IcebergSchema {
  Json schema;
  int last_column_id = 0;
};

/// Converts model columns to a new table's Iceberg schema, assigning fresh field ids exactly as
/// Java's TypeUtil.assignFreshIds does in TableMetadata.newTableMetadata: ids start at 1; every
/// struct numbers all of its own fields first, then the nested types of those fields in order;
/// a list takes its element id before its element type is visited, a map takes its key id then
/// its value id before visiting key and value types.
///
/// Mapping (as Gravitino's ToIcebergType): boolean, integer->int, long, float, double,
/// decimal(p,s)->"decimal(p, s)", date, time (precision unset or 6), timestamp->timestamp,
/// timestamp_tz->timestamptz (precision unset or 6; 9 -> timestamp_ns/timestamptz_ns, v3 only),
/// string, uuid, fixed(n)->"fixed[n]", binary, null->unknown (v3 only), struct/list/map. Nullable
/// becomes required=!nullable (element-required, value-required); comment becomes "doc".
/// Errors (kInvalidArgument, naming the column): byte/short (Gravitino rejects them), char/varchar,
/// unsigned integers, union, intervals, unparsed/external types, other time precisions, a column
/// default value or auto-increment, duplicate names, and identifier fields that are missing,
/// optional or not primitive.
Result<IcebergSchema> ToIcebergSchema(const std::vector<model::Column>& columns, int schema_id,
                                      const std::vector<std::string>& identifier_field_names = {});

/// Converts one model type to an Iceberg type JSON. Ids for nested fields are drawn as
/// `++*last_id`, in assignFreshIds order. `column` only names the column in error messages.
Result<Json> ToIcebergType(const model::TypePtr& type, const std::string& column, int* last_id);

/// Converts an Iceberg schema JSON back to model columns (as Gravitino's FromIcebergType:
/// time/timestamp/timestamptz get precision 6, timestamp_ns/timestamptz_ns precision 9,
/// fixed[n] -> fixed(n), unknown -> null, anything unrecognised -> an external type holding the
/// Iceberg text). "doc" becomes the comment; required becomes nullable=false.
/// kInvalidArgument when the JSON is not a well-formed schema.
Result<std::vector<model::Column>> FromIcebergSchema(const Json& schema);

/// Converts one Iceberg type JSON (a string for primitives, an object otherwise).
Result<model::TypePtr> FromIcebergType(const Json& type);

/// The Iceberg type text of a model type for messages ("struct", "decimal(10,2)", ...).
std::string ModelTypeText(const model::TypePtr& type);

/// The struct field JSON at `path` in a schema (or struct type) JSON, or nullptr. Path parts
/// step into struct fields by name; through a list use "element", through a map "key" or
/// "value" (Iceberg's own naming), e.g. {"points", "element", "x"}. Case-sensitive.
const Json* FindField(const Json& schema, const model::FieldName& path);

/// As FindField, but only steps through structs (partition and sort sources cannot live in
/// lists or maps).
const Json* FindStructField(const Json& schema, const model::FieldName& path);

/// The path of names leading to the field (struct field, list element or map key/value) with
/// `id`, or nullopt.
std::optional<model::FieldName> FindFieldPath(const Json& schema, int id);

/// The type JSON of the field with `id` (any nesting), or nullptr.
const Json* FindTypeById(const Json& schema, int id);

/// "a.b.c": how Iceberg and Gravitino print a field path.
std::string JoinFieldName(const model::FieldName& path);

/// The highest field id used anywhere in a type (0 when none).
int MaxFieldId(const Json& type);

/// Every field id in a type, including nested ones.
void CollectFieldIds(const Json& type, std::vector<int>* ids);

/// Whether Iceberg allows changing a column from `from` to `to` (primitive type JSON strings):
/// the same type, int->long, float->double, decimal(P,S)->decimal(P2,S) with P2 >= P.
bool IsPromotionAllowed(const Json& from, const Json& to);

/// The lowest table format version that can hold `type` (3 for unknown, timestamp_ns,
/// timestamptz_ns, variant, geometry, geography; else 1).
int MinFormatVersion(const Json& type);

/// Checks an Iceberg primitive type string as Java's Types.fromTypeName reads it (letters
/// case-insensitive, blanks allowed inside the brackets) and returns the text Java writes for it:
/// boolean, int, long, float, double, date, time, timestamp, timestamptz, timestamp_ns,
/// timestamptz_ns, string, uuid, binary, unknown, variant, "fixed[L]" (1 <= L <= 2^31-1),
/// "decimal(P, S)" (1 <= P <= 38, 0 <= S <= P), "geometry" / "geometry(crs)" and "geography" /
/// "geography(crs)" / "geography(crs, algorithm)" (spherical, vincenty, thomas, andoyer, karney;
/// the CRS keeps its case). Which format version may hold a type is MinFormatVersion's business.
/// kInvalidArgument naming the text otherwise ("Cannot parse type string to primitive: blob",
/// Java's words; "Invalid decimal type decimal(40, 2): ..."); the caller adds where it was.
Result<std::string> CanonicalPrimitiveType(std::string_view text);

/// Checks that the Iceberg type JSON `type` (found at `field`, for the message) nests struct,
/// list and map types at most model::kMaxTypeDepth deep, in one pass without recursion and
/// before anything walks it recursively. Members that are not types are ignored (the parsers
/// report them). kInvalidArgument naming `field` and the limit.
Status CheckTypeDepth(const Json& type, std::string_view field);

/// Whether a type JSON is primitive (a string).
inline bool IsPrimitive(const Json& type) { return type.is_string(); }

}  // namespace cairn::iceberg
