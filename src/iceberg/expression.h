// SPDX-License-Identifier: Apache-2.0
#pragma once

// Iceberg filter expressions as the REST spec writes them (the `filter` of a scan plan request),
// bound to a schema, and what a planner needs of them: the inclusive projection onto a partition
// spec, the evaluation against manifest summaries, partition tuples and column metrics, and the
// residual a file's partition leaves. The rules are Iceberg's (Java's ExpressionParser, Binder,
// Projections, ManifestEvaluator, InclusiveMetricsEvaluator and ResidualEvaluator); the code is
// this project's. Pure functions over values, no I/O. docs/iceberg-rest.md#scan-planning.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/json_readers.h"

namespace cairn::iceberg {

// 128-bit integers (decimal unscaled values up to 38 digits), a GCC and Clang extension.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

/// An Iceberg primitive type, as far as comparing and projecting values needs it.
enum class TypeId {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,
  kTimestampTz,
  kTimestampNs,
  kTimestampTzNs,
  kString,
  kUuid,
  kFixed,
  kBinary,
  kOther,  // nested, variant, geometry, unknown: never compared
};

struct PrimitiveType {
  TypeId id = TypeId::kOther;
  int precision = 0;  // decimal
  int scale = 0;      // decimal
  int length = 0;     // fixed
};

/// The type a type JSON names (kOther for nested and unsupported types).
PrimitiveType ParsePrimitiveType(const Json& type);

/// A typed value: booleans, every integer-like type (int, long, date, time, timestamps, decimals
/// as their unscaled value), floating point, and byte strings (string, uuid, fixed, binary).
struct Value {
  enum class Kind { kNull, kBool, kInt, kDouble, kBytes };
  Kind kind = Kind::kNull;
  bool b = false;
  Int128 i = 0;  // also a decimal's unscaled value
  double d = 0;
  std::string s;

  static Value Null() { return Value(); }
  static Value Bool(bool v) {
    Value x;
    x.kind = Kind::kBool;
    x.b = v;
    return x;
  }
  static Value Int(Int128 v) {
    Value x;
    x.kind = Kind::kInt;
    x.i = v;
    return x;
  }
  static Value Double(double v) {
    Value x;
    x.kind = Kind::kDouble;
    x.d = v;
    return x;
  }
  static Value Bytes(std::string v) {
    Value x;
    x.kind = Kind::kBytes;
    x.s = std::move(v);
    return x;
  }
  bool is_null() const { return kind == Kind::kNull; }
  bool is_nan() const;
};

/// -1, 0 or 1; both values of one kind (callers compare values of one type).
int Compare(const Value& a, const Value& b);

/// A value from Iceberg's single-value binary serialization (bounds, partition summaries);
/// nullopt when the bytes do not fit the type.
std::optional<Value> FromBinary(const PrimitiveType& type, std::string_view bytes);

/// A value from a manifest's Avro record as the Avro reader gives it (int, long, float, double,
/// string, bytes as a JSON binary, boolean); nullopt when it does not fit.
std::optional<Value> FromAvro(const PrimitiveType& type, const Json& value);

/// A value as Java's SingleValueParser writes it in JSON (dates and times as ISO text, decimals
/// as text, bytes as upper-case hex), for content files' partition tuples.
Json ToSingleValueJson(const PrimitiveType& type, const Value& value);

/// A transform of a partition field or a term.
struct Transform {
  enum class Kind { kIdentity, kBucket, kTruncate, kYear, kMonth, kDay, kHour, kVoid, kUnknown };
  Kind kind = Kind::kUnknown;
  int param = 0;  // bucket count, truncate width
  std::string text;
};
Transform ParseTransform(std::string_view text);
/// The type a transform produces from `source`.
PrimitiveType TransformResultType(const Transform& t, const PrimitiveType& source);
/// The transform applied to one value (null stays null); nullopt when it does not apply.
std::optional<Value> ApplyTransform(const Transform& t, const PrimitiveType& source,
                                    const Value& v);

/// Iceberg's 32-bit Murmur3 hash of a value, as the bucket transform uses it.
int32_t BucketHash(const PrimitiveType& type, const Value& v);

/// A bound expression tree.
struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

enum class Op {
  kTrue,
  kFalse,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kNotNull,
  kIsNan,
  kNotNan,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kEq,
  kNotEq,
  kStartsWith,
  kNotStartsWith,
  kIn,
  kNotIn,
};

struct Expr {
  Op op = Op::kTrue;
  ExprPtr left, right;  // and/or; not uses left
  // A predicate: the field it reads (a schema field id, or a partition field's position when
  // the expression is projected), its type, an optional transform applied to the field first
  // (a transform term the planner cannot prune with), and its literals.
  int field = -1;
  PrimitiveType type;
  std::optional<Transform> term_transform;
  std::vector<Value> values;
  Json json;  // the predicate as the request wrote it, for residuals
};

ExprPtr True();
ExprPtr False();
ExprPtr And(ExprPtr a, ExprPtr b);
ExprPtr Or(ExprPtr a, ExprPtr b);

/// The fields of a schema by name (struct fields by dotted path, list elements and map keys and
/// values by Iceberg's names), with their ids and types.
class SchemaIndex {
 public:
  explicit SchemaIndex(const Json& schema);
  struct Field {
    int id;
    PrimitiveType type;
    std::string name;
  };
  const Field* Find(std::string_view name, bool case_sensitive) const;
  const Field* ById(int id) const;

 private:
  std::map<std::string, Field, std::less<>> by_name_;
  std::map<std::string, std::string, std::less<>> lower_;  // lower-case name -> name
  std::map<int, std::string> by_id_;
};

/// Parses and binds a filter expression JSON (`where` names the request member for messages).
/// kInvalidArgument naming the member and the problem: an unknown operation, a field the schema
/// lacks, a literal that is not of the field's type.
Result<ExprPtr> BindFilter(const Json& filter, const SchemaIndex& schema, bool case_sensitive,
                           std::string_view where = "filter");

/// NOT pushed down to the predicates (Java's RewriteNot).
ExprPtr RewriteNot(const ExprPtr& e);

/// A partition spec's fields with their source field and result types.
struct BoundPartitionField {
  int source_id = 0;
  int field_id = 0;
  std::string name;
  Transform transform;
  PrimitiveType source_type;
  PrimitiveType result_type;
};
std::vector<BoundPartitionField> BindPartitionSpec(const Json& spec, const SchemaIndex& schema);

/// The inclusive projection of a NOT-free bound expression onto a spec: an expression over
/// partition positions that is true for every partition holding a matching row.
ExprPtr ProjectInclusive(const ExprPtr& e, const std::vector<BoundPartitionField>& spec);

/// A manifest's partition field summary.
struct FieldSummary {
  bool contains_null = true;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower, upper;  // single-value binary
};

/// Whether a manifest with these summaries may hold matching files (a projected expression).
bool ManifestMayMatch(const ExprPtr& projected, const std::vector<BoundPartitionField>& spec,
                      const std::vector<FieldSummary>& summaries);

/// Whether a partition tuple satisfies a projected expression.
bool PartitionMatches(const ExprPtr& projected, const std::vector<Value>& partition);

/// A data file's column metrics.
struct FileMetrics {
  int64_t record_count = -1;
  std::map<int, int64_t> value_counts, null_counts, nan_counts;
  std::map<int, std::string> lower, upper;  // single-value binary
};

/// Whether a file with these metrics may hold rows matching a NOT-free bound expression.
bool MetricsMayMatch(const ExprPtr& e, const FileMetrics& metrics);

/// What remains of a NOT-free bound expression for a file of `spec` with `partition`: predicates
/// decided by identity partition values become true or false.
ExprPtr Residual(const ExprPtr& e, const std::vector<BoundPartitionField>& spec,
                 const std::vector<Value>& partition);

/// The expression as filter JSON (for residuals).
Json ToJson(const ExprPtr& e);

}  // namespace cairn::iceberg
