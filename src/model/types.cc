// SPDX-License-Identifier: Apache-2.0
#include "model/types.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "common/util.h"

namespace cairn::model {

bool StructField::operator==(const StructField& o) const {
  return name == o.name && TypesEqual(type, o.type) && nullable == o.nullable &&
         comment == o.comment;
}

bool TypesEqual(const TypePtr& a, const TypePtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return *a == *b;
}

namespace {

// Moves the children of `t` (owned by no one else) onto `out`.
void TakeChildren(Type& t, std::vector<TypePtr>& out) {
  for (auto& f : t.fields) {
    if (f.type) out.push_back(std::move(f.type));
  }
  for (TypePtr* child : {&t.element, &t.key, &t.value}) {
    if (*child) out.push_back(std::move(*child));
  }
  for (auto& m : t.types) {
    if (m) out.push_back(std::move(m));
  }
  t.fields.clear();
  t.types.clear();
}

}  // namespace

Type::~Type() {
  std::vector<TypePtr> pending;
  TakeChildren(*this, pending);
  while (!pending.empty()) {
    TypePtr child = std::move(pending.back());
    pending.pop_back();
    // The last owner empties the child before it goes, so its own destructor has nothing to
    // recurse into. Every Type is made non-const (make_shared<Type>), so this is no write to a
    // const object; a child someone else still holds is left alone.
    if (child.use_count() == 1) TakeChildren(const_cast<Type&>(*child), pending);
  }
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind || is_unsigned != o.is_unsigned || precision != o.precision ||
      scale != o.scale || length != o.length || fields != o.fields ||
      element_nullable != o.element_nullable || value_nullable != o.value_nullable ||
      raw != o.raw) {
    return false;
  }
  if (!TypesEqual(element, o.element) || !TypesEqual(key, o.key) || !TypesEqual(value, o.value)) {
    return false;
  }
  if (types.size() != o.types.size()) return false;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!TypesEqual(types[i], o.types[i])) return false;
  }
  return true;
}

int TypeDepth(const TypePtr& type, int limit) {
  int deepest = 0;
  std::vector<std::pair<const Type*, int>> pending;
  if (type) pending.emplace_back(type.get(), 1);
  while (!pending.empty()) {
    const Type* const t = pending.back().first;
    const int depth = pending.back().second;
    pending.pop_back();
    const bool complex = t->kind == TypeKind::kStruct || t->kind == TypeKind::kList ||
                         t->kind == TypeKind::kMap || t->kind == TypeKind::kUnion;
    if (!complex) continue;
    deepest = std::max(deepest, depth);
    if (deepest > limit) return limit + 1;
    auto push = [&](const TypePtr& child) {
      if (child) pending.emplace_back(child.get(), depth + 1);
    };
    for (const auto& f : t->fields) push(f.type);
    push(t->element);
    push(t->key);
    push(t->value);
    for (const auto& m : t->types) push(m);
  }
  return deepest;
}

TypePtr MakePrimitive(TypeKind kind) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  return t;
}

TypePtr MakeDecimal(int precision, int scale) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kDecimal;
  t->precision = precision;
  t->scale = scale;
  return t;
}

TypePtr MakeWithLength(TypeKind kind, int length) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  t->length = length;
  return t;
}

TypePtr MakeWithPrecision(TypeKind kind, int precision) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  t->precision = precision;
  return t;
}

TypePtr MakeStruct(std::vector<StructField> fields) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kStruct;
  t->fields = std::move(fields);
  return t;
}

TypePtr MakeList(TypePtr element, bool element_nullable) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kList;
  t->element = std::move(element);
  t->element_nullable = element_nullable;
  return t;
}

TypePtr MakeMap(TypePtr key, TypePtr value, bool value_nullable) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kMap;
  t->key = std::move(key);
  t->value = std::move(value);
  t->value_nullable = value_nullable;
  return t;
}

namespace {

std::string WithUnsigned(const Type& t, const char* name) {
  return t.is_unsigned ? fmt::format("{} unsigned", name) : std::string(name);
}

std::string WithPrecision(const Type& t, const char* name) {
  return t.precision >= 0 ? fmt::format("{}({})", name, t.precision) : std::string(name);
}

// Parses "name(a)" or "name(a,b)" parameters; returns false on malformed input.
bool ParseParams(std::string_view inside, std::vector<int>& out) {
  for (const auto& part : Split(inside, ',')) {
    auto v = ParseInt64(Trim(part));
    if (!v || *v < 0 || *v > 1'000'000'000) return false;
    out.push_back(static_cast<int>(*v));
  }
  return true;
}

}  // namespace

std::string PrimitiveTypeString(const Type& t) {
  switch (t.kind) {
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kByte:
      return WithUnsigned(t, "byte");
    case TypeKind::kShort:
      return WithUnsigned(t, "short");
    case TypeKind::kInteger:
      return WithUnsigned(t, "integer");
    case TypeKind::kLong:
      return WithUnsigned(t, "long");
    case TypeKind::kFloat:
      return "float";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kDecimal:
      return fmt::format("decimal({},{})", t.precision, t.scale);
    case TypeKind::kDate:
      return "date";
    case TypeKind::kTime:
      return WithPrecision(t, "time");
    case TypeKind::kTimestamp:
      return WithPrecision(t, "timestamp");
    case TypeKind::kTimestampTz:
      return WithPrecision(t, "timestamp_tz");
    case TypeKind::kString:
      return "string";
    case TypeKind::kChar:
      return fmt::format("char({})", t.length);
    case TypeKind::kVarchar:
      return fmt::format("varchar({})", t.length);
    case TypeKind::kFixed:
      return fmt::format("fixed({})", t.length);
    case TypeKind::kBinary:
      return "binary";
    case TypeKind::kUuid:
      return "uuid";
    case TypeKind::kIntervalDay:
      return "interval_day";
    case TypeKind::kIntervalYear:
      return "interval_year";
    case TypeKind::kNull:
      return "null";
    case TypeKind::kStruct:
    case TypeKind::kList:
    case TypeKind::kMap:
    case TypeKind::kUnion:
    case TypeKind::kUnparsed:
    case TypeKind::kExternal:
      return "";
  }
  return "";
}

TypePtr ParsePrimitiveType(const std::string& text) {
  const std::string lower = ToLower(Trim(text));
  struct Simple {
    const char* name;
    TypeKind kind;
    bool is_unsigned;
  };
  static const Simple kSimple[] = {
      {"boolean", TypeKind::kBoolean, false},
      {"byte", TypeKind::kByte, false},
      {"byte unsigned", TypeKind::kByte, true},
      {"short", TypeKind::kShort, false},
      {"short unsigned", TypeKind::kShort, true},
      {"integer", TypeKind::kInteger, false},
      {"integer unsigned", TypeKind::kInteger, true},
      {"long", TypeKind::kLong, false},
      {"long unsigned", TypeKind::kLong, true},
      {"float", TypeKind::kFloat, false},
      {"double", TypeKind::kDouble, false},
      {"date", TypeKind::kDate, false},
      {"time", TypeKind::kTime, false},
      {"timestamp", TypeKind::kTimestamp, false},
      {"timestamp_tz", TypeKind::kTimestampTz, false},
      {"string", TypeKind::kString, false},
      {"binary", TypeKind::kBinary, false},
      {"uuid", TypeKind::kUuid, false},
      {"interval_day", TypeKind::kIntervalDay, false},
      {"interval_year", TypeKind::kIntervalYear, false},
      {"null", TypeKind::kNull, false},
  };
  for (const auto& s : kSimple) {
    if (lower == s.name) {
      auto t = std::make_shared<Type>();
      t->kind = s.kind;
      t->is_unsigned = s.is_unsigned;
      return t;
    }
  }
  const size_t open = lower.find('(');
  if (open != std::string::npos && !lower.empty() && lower.back() == ')') {
    const std::string name(Trim(std::string_view(lower).substr(0, open)));
    std::vector<int> params;
    const bool ok =
        ParseParams(std::string_view(lower).substr(open + 1, lower.size() - open - 2), params);
    auto bad = [&]() -> bool { return !ok; };
    if (name == "decimal") {
      if (bad() || params.size() != 2 || params[0] < 1 || params[0] > 38 || params[1] > params[0]) {
        return nullptr;
      }
      return MakeDecimal(params[0], params[1]);
    }
    if (name == "char" || name == "varchar" || name == "fixed") {
      if (bad() || params.size() != 1 || params[0] < 1) return nullptr;
      const TypeKind kind = name == "char"      ? TypeKind::kChar
                            : name == "varchar" ? TypeKind::kVarchar
                                                : TypeKind::kFixed;
      return MakeWithLength(kind, params[0]);
    }
    if (name == "time" || name == "timestamp" || name == "timestamp_tz") {
      if (bad() || params.size() != 1 || params[0] > 12) return nullptr;
      const TypeKind kind = name == "time"        ? TypeKind::kTime
                            : name == "timestamp" ? TypeKind::kTimestamp
                                                  : TypeKind::kTimestampTz;
      return MakeWithPrecision(kind, params[0]);
    }
  }
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kUnparsed;
  t->raw = text;
  return t;
}

}  // namespace cairn::model
