// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cairn::model {

/// Column types in the object model. One representation whatever the source: connectors map
/// them to the source's own types and back.
enum class TypeKind {
  kBoolean,
  kByte,
  kShort,
  kInteger,
  kLong,
  kFloat,
  kDouble,
  kDecimal,  // precision, scale
  kDate,
  kTime,         // precision (-1 = unspecified)
  kTimestamp,    // without time zone; precision
  kTimestampTz,  // with time zone; precision
  kString,
  kChar,     // length
  kVarchar,  // length
  kFixed,    // length
  kBinary,
  kUuid,
  kIntervalDay,
  kIntervalYear,
  kNull,
  kStruct,
  kList,
  kMap,
  kUnion,
  kUnparsed,  // raw text a source reported that has no model equivalent
  kExternal,  // a source-specific type string
};

struct Type;
using TypePtr = std::shared_ptr<const Type>;

/// The deepest nesting of struct, list, map and union types a column may have: a primitive is
/// depth 0, `list<int>` depth 1, `list<struct<a: map<int, int>>>` depth 3. Schemas coming in
/// through either API are checked against it before anything walks them recursively (Iceberg
/// JSON needs up to 3 JSON levels per type level, so a schema at the limit stays far below
/// json::kMaxJsonDepth). No real schema comes near it (Spark, Trino and Parquet tools handle a
/// few dozen at most). See docs/limits.md.
inline constexpr int kMaxTypeDepth = 100;

struct StructField {
  std::string name;
  TypePtr type;
  bool nullable = true;
  std::optional<std::string> comment;
  bool operator==(const StructField& o) const;
};

/// An immutable type tree. Fields that do not apply to the kind keep their defaults.
struct Type {
  TypeKind kind = TypeKind::kNull;
  bool is_unsigned = false;         // byte/short/integer/long
  int precision = -1;               // decimal precision; time/timestamp precision (-1 = none)
  int scale = 0;                    // decimal
  int length = 0;                   // char/varchar/fixed
  std::vector<StructField> fields;  // struct
  TypePtr element;                  // list
  bool element_nullable = true;     // list
  TypePtr key;                      // map
  TypePtr value;                    // map
  bool value_nullable = true;       // map
  std::vector<TypePtr> types;       // union
  std::string raw;                  // unparsed / external

  Type() = default;
  Type(const Type&) = default;
  Type(Type&&) = default;
  Type& operator=(const Type&) = default;
  Type& operator=(Type&&) = default;
  /// Releases the children without recursing, so that dropping a deep tree (however it was
  /// built) cannot exhaust the stack.
  ~Type();

  bool operator==(const Type& o) const;
};

TypePtr MakePrimitive(TypeKind kind);
TypePtr MakeDecimal(int precision, int scale);
TypePtr MakeWithLength(TypeKind kind, int length);
TypePtr MakeWithPrecision(TypeKind kind, int precision);
TypePtr MakeStruct(std::vector<StructField> fields);
TypePtr MakeList(TypePtr element, bool element_nullable);
TypePtr MakeMap(TypePtr key, TypePtr value, bool value_nullable);

bool TypesEqual(const TypePtr& a, const TypePtr& b);

/// The nesting depth of `type` as kMaxTypeDepth counts it, computed without recursion; stops
/// counting (and returns `limit + 1`) as soon as the depth passes `limit`. 0 for nullptr.
int TypeDepth(const TypePtr& type, int limit = kMaxTypeDepth);

/// The primitive type's text form as Gravitino writes it ("decimal(10,2)", "timestamp_tz(6)",
/// "integer unsigned"); empty for complex types.
std::string PrimitiveTypeString(const Type& type);

/// Parses a primitive type string, case-insensitively. Unknown text yields an `unparsed` type,
/// as Gravitino does; malformed parameters (e.g. "decimal(x)") yield nullptr.
TypePtr ParsePrimitiveType(const std::string& text);

}  // namespace cairn::model
