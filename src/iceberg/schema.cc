// SPDX-License-Identifier: Apache-2.0
#include "iceberg/schema.h"

#include <algorithm>
#include <set>

#include "common/util.h"

namespace cairn::iceberg {

namespace {

using model::TypeKind;
using model::TypePtr;

Error UnsupportedType(const TypePtr& type, const std::string& column) {
  return InvalidArgument("Iceberg does not support type '{}' of column '{}'", ModelTypeText(type),
                         column);
}

Result<Json> PrimitiveToIceberg(const TypePtr& type, const std::string& column) {
  const model::Type& t = *type;
  switch (t.kind) {
    case TypeKind::kBoolean:
      return Json("boolean");
    case TypeKind::kInteger:
      if (t.is_unsigned) return UnsupportedType(type, column);
      return Json("int");
    case TypeKind::kLong:
      if (t.is_unsigned) return UnsupportedType(type, column);
      return Json("long");
    case TypeKind::kFloat:
      return Json("float");
    case TypeKind::kDouble:
      return Json("double");
    case TypeKind::kDecimal:
      if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision) {
        return UnsupportedType(type, column);
      }
      return Json(fmt::format("decimal({}, {})", t.precision, t.scale));
    case TypeKind::kDate:
      return Json("date");
    case TypeKind::kTime:
      if (t.precision != -1 && t.precision != 6) {
        return InvalidArgument(
            "Iceberg only supports microsecond precision (6) for time type, but got precision: {} "
            "(column '{}')",
            t.precision, column);
      }
      return Json("time");
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz: {
      const bool tz = t.kind == TypeKind::kTimestampTz;
      if (t.precision == -1 || t.precision == 6) return Json(tz ? "timestamptz" : "timestamp");
      if (t.precision == 9) return Json(tz ? "timestamptz_ns" : "timestamp_ns");
      return InvalidArgument(
          "Iceberg only supports microsecond precision (6) for {} type, but got precision: {} "
          "(column '{}')",
          tz ? "timestamptz" : "timestamp", t.precision, column);
    }
    case TypeKind::kString:
      return Json("string");
    case TypeKind::kFixed:
      return Json(fmt::format("fixed[{}]", t.length));
    case TypeKind::kBinary:
      return Json("binary");
    case TypeKind::kUuid:
      return Json("uuid");
    case TypeKind::kNull:
      return Json("unknown");
    default:
      return UnsupportedType(type, column);
  }
}

Json MakeField(int id, const std::string& name, bool required, Json type,
               const std::optional<std::string>& doc) {
  Json f = Json::object();
  f["id"] = id;
  f["name"] = name;
  f["required"] = required;
  f["type"] = std::move(type);
  if (doc) f["doc"] = *doc;
  return f;
}

// Mirrors AssignFreshIds.struct: all of this struct's ids first, then nested types in order.
Result<Json> StructToIceberg(const std::vector<model::StructField>& fields,
                             const std::string& column, int* last_id) {
  std::vector<int> ids;
  ids.reserve(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) ids.push_back(++*last_id);
  Json out = Json::array();
  std::set<std::string> names;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& f = fields[i];
    if (!names.insert(f.name).second) {
      return InvalidArgument("Duplicate field name '{}' in column '{}'", f.name, column);
    }
    CAIRN_ASSIGN_OR_RETURN(Json type, ToIcebergType(f.type, column, last_id));
    out.push_back(MakeField(ids[i], f.name, !f.nullable, std::move(type), f.comment));
  }
  Json s = Json::object();
  s["type"] = "struct";
  s["fields"] = std::move(out);
  return s;
}

std::optional<int> ParseBracketInt(std::string_view text, std::string_view prefix, char open,
                                   char close) {
  if (text.size() < prefix.size() + 2 || text.substr(0, prefix.size()) != prefix ||
      text[prefix.size()] != open || text.back() != close) {
    return std::nullopt;
  }
  auto v = ParseInt64(Trim(text.substr(prefix.size() + 1, text.size() - prefix.size() - 2)));
  if (!v || *v < 0 || *v > 1'000'000'000) return std::nullopt;
  return static_cast<int>(*v);
}

// "decimal(10, 2)" or "decimal(10,2)" -> {10, 2}.
std::optional<std::pair<int, int>> ParseDecimal(std::string_view text) {
  if (text.substr(0, 8) != "decimal(" || text.back() != ')') return std::nullopt;
  auto parts = Split(text.substr(8, text.size() - 9), ',');
  if (parts.size() != 2) return std::nullopt;
  auto p = ParseInt64(Trim(parts[0]));
  auto s = ParseInt64(Trim(parts[1]));
  if (!p || !s || *p < 1 || *p > 38 || *s < 0 || *s > *p) return std::nullopt;
  return std::make_pair(static_cast<int>(*p), static_cast<int>(*s));
}

Result<model::TypePtr> PrimitiveFromIceberg(const std::string& text) {
  struct Simple {
    const char* name;
    TypeKind kind;
    int precision;
  };
  static const Simple kSimple[] = {
      {"boolean", TypeKind::kBoolean, -1},
      {"int", TypeKind::kInteger, -1},
      {"long", TypeKind::kLong, -1},
      {"float", TypeKind::kFloat, -1},
      {"double", TypeKind::kDouble, -1},
      {"date", TypeKind::kDate, -1},
      {"time", TypeKind::kTime, 6},
      {"timestamp", TypeKind::kTimestamp, 6},
      {"timestamptz", TypeKind::kTimestampTz, 6},
      {"timestamp_ns", TypeKind::kTimestamp, 9},
      {"timestamptz_ns", TypeKind::kTimestampTz, 9},
      {"string", TypeKind::kString, -1},
      {"uuid", TypeKind::kUuid, -1},
      {"binary", TypeKind::kBinary, -1},
      {"unknown", TypeKind::kNull, -1},
  };
  const std::string lower = ToLower(Trim(text));
  for (const auto& s : kSimple) {
    if (lower == s.name) {
      return s.precision >= 0 ? model::MakeWithPrecision(s.kind, s.precision)
                              : model::MakePrimitive(s.kind);
    }
  }
  if (auto d = ParseDecimal(lower)) return model::MakeDecimal(d->first, d->second);
  if (auto n = ParseBracketInt(lower, "fixed", '[', ']')) {
    return model::MakeWithLength(TypeKind::kFixed, *n);
  }
  // variant, geometry(...), geography(...) and future types: keep the Iceberg text.
  auto t = std::make_shared<model::Type>();
  t->kind = TypeKind::kExternal;
  t->raw = text;
  return model::TypePtr(t);
}

Result<model::StructField> FieldFromIceberg(const Json& field) {
  if (!field.is_object()) return InvalidArgument("Invalid Iceberg struct field: not an object");
  auto name = field.find("name");
  auto type = field.find("type");
  if (name == field.end() || !name->is_string() || type == field.end()) {
    return InvalidArgument("Invalid Iceberg struct field: missing name or type");
  }
  model::StructField out;
  out.name = name->get<std::string>();
  CAIRN_ASSIGN_OR_RETURN(out.type, FromIcebergType(*type));
  auto req = field.find("required");
  out.nullable = !(req != field.end() && req->is_boolean() && req->get<bool>());
  auto doc = field.find("doc");
  if (doc != field.end() && doc->is_string()) out.comment = doc->get<std::string>();
  return out;
}

const Json* FieldsOf(const Json& struct_type) {
  if (!struct_type.is_object()) return nullptr;
  auto it = struct_type.find("fields");
  if (it == struct_type.end() || !it->is_array()) return nullptr;
  return &*it;
}

const Json* FindImpl(const Json& type, const model::FieldName& path, size_t i, bool structs_only) {
  if (i >= path.size() || !type.is_object()) return nullptr;
  const std::string kind = type.value("type", "");
  if (kind == "struct") {
    const Json* fields = FieldsOf(type);
    if (fields == nullptr) return nullptr;
    for (const auto& f : *fields) {
      if (f.value("name", "") == path[i]) {
        if (i + 1 == path.size()) return &f;
        auto t = f.find("type");
        return t == f.end() ? nullptr : FindImpl(*t, path, i + 1, structs_only);
      }
    }
    return nullptr;
  }
  if (structs_only || i + 1 == path.size()) return nullptr;  // element/key/value are not fields
  const char* member = nullptr;
  if (kind == "list" && path[i] == "element") member = "element";
  if (kind == "map" && path[i] == "key") member = "key";
  if (kind == "map" && path[i] == "value") member = "value";
  if (member == nullptr) return nullptr;
  auto t = type.find(member);
  return t == type.end() ? nullptr : FindImpl(*t, path, i + 1, structs_only);
}

bool FindPathImpl(const Json& type, int id, model::FieldName* path) {
  if (!type.is_object()) return false;
  const std::string kind = type.value("type", "");
  if (kind == "struct") {
    const Json* fields = FieldsOf(type);
    if (fields == nullptr) return false;
    for (const auto& f : *fields) {
      path->push_back(f.value("name", ""));
      if (IntOr(f, "id", -1) == id) return true;
      auto t = f.find("type");
      if (t != f.end() && FindPathImpl(*t, id, path)) return true;
      path->pop_back();
    }
    return false;
  }
  auto step = [&](const char* id_key, const char* member, const char* name) {
    path->push_back(name);
    if (type.value(id_key, -1) == id) return true;
    auto t = type.find(member);
    if (t != type.end() && FindPathImpl(*t, id, path)) return true;
    path->pop_back();
    return false;
  };
  if (kind == "list") return step("element-id", "element", "element");
  if (kind == "map") return step("key-id", "key", "key") || step("value-id", "value", "value");
  return false;
}

const Json* FindTypeImpl(const Json& type, int id) {
  if (!type.is_object()) return nullptr;
  const std::string kind = type.value("type", "");
  if (kind == "struct") {
    const Json* fields = FieldsOf(type);
    if (fields == nullptr) return nullptr;
    for (const auto& f : *fields) {
      auto t = f.find("type");
      if (t == f.end()) continue;
      if (IntOr(f, "id", -1) == id) return &*t;
      if (const Json* found = FindTypeImpl(*t, id)) return found;
    }
    return nullptr;
  }
  auto step = [&](const char* id_key, const char* member) -> const Json* {
    auto t = type.find(member);
    if (t == type.end()) return nullptr;
    if (type.value(id_key, -1) == id) return &*t;
    return FindTypeImpl(*t, id);
  };
  if (kind == "list") return step("element-id", "element");
  if (kind == "map") {
    if (const Json* k = step("key-id", "key")) return k;
    return step("value-id", "value");
  }
  return nullptr;
}

// Digits only, as Java's \d+ and Integer.parseInt: nullopt when empty, not digits or above int.
std::optional<int64_t> ParseDigits(std::string_view text) {
  text = Trim(text);
  if (text.empty() || text.size() > 10) return std::nullopt;
  int64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v > 2'147'483'647) return std::nullopt;
  return v;
}

// "name(inside)" / "name[inside]", blanks allowed before the bracket: the inside, else nullopt.
std::optional<std::string_view> Bracketed(std::string_view text, std::string_view name, char open,
                                          char close) {
  if (text.substr(0, name.size()) != name) return std::nullopt;
  std::string_view rest = text.substr(name.size());
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (rest.size() < 2 || rest.front() != open || rest.back() != close) return std::nullopt;
  return rest.substr(1, rest.size() - 2);
}

}  // namespace

Result<std::string> CanonicalPrimitiveType(std::string_view text) {
  static const char* const kNames[] = {"boolean",     "int",          "long",           "float",
                                       "double",      "date",         "time",           "timestamp",
                                       "timestamptz", "timestamp_ns", "timestamptz_ns", "string",
                                       "uuid",        "binary",       "unknown",        "variant"};
  const std::string lower = ToLower(text);
  for (const char* name : kNames) {
    if (lower == name) return lower;
  }
  if (auto inside = Bracketed(lower, "decimal", '(', ')')) {
    auto parts = Split(*inside, ',');
    std::optional<int64_t> p;
    std::optional<int64_t> s;
    if (parts.size() == 2) {
      p = ParseDigits(parts[0]);
      s = ParseDigits(parts[1]);
    }
    if (!p || !s || *p < 1 || *p > 38 || *s > *p) {
      return InvalidArgument(
          "Invalid decimal type {}: the precision must be 1 to 38 and the scale 0 to the precision",
          text);
    }
    return fmt::format("decimal({}, {})", *p, *s);
  }
  if (auto inside = Bracketed(lower, "fixed", '[', ']')) {
    auto length = ParseDigits(*inside);
    if (!length || *length < 1) {
      return InvalidArgument("Invalid fixed type {}: the length must be 1 to 2147483647", text);
    }
    return fmt::format("fixed[{}]", *length);
  }
  // Geospatial types keep the CRS as written (Java matches them case-insensitively on the
  // original text).
  if (lower == "geometry" || lower == "geography") return lower;
  for (std::string_view name : {std::string_view("geometry"), std::string_view("geography")}) {
    auto inside = Bracketed(lower, name, '(', ')');
    if (!inside) continue;
    // Same offsets in the original text: lower-casing keeps the length.
    const size_t at = static_cast<size_t>(inside->data() - lower.data());
    auto parts = Split(text.substr(at, inside->size()), ',');
    const std::string crs(parts.empty() ? std::string_view() : Trim(parts[0]));
    const bool geography = name == "geography";
    bool ok = !crs.empty() && crs.find_first_of("()") == std::string::npos &&
              parts.size() <= (geography ? 2U : 1U);
    std::string algorithm;
    if (ok && parts.size() == 2) {
      algorithm = ToLower(Trim(parts[1]));
      static const char* const kAlgorithms[] = {"spherical", "vincenty", "thomas", "andoyer",
                                                "karney"};
      ok = std::any_of(std::begin(kAlgorithms), std::end(kAlgorithms),
                       [&](const char* a) { return algorithm == a; });
    }
    if (!ok) {
      return InvalidArgument("Invalid {} type {}: expected {}(crs{}) with a non-empty CRS", name,
                             text, name,
                             geography ? "[, spherical|vincenty|thomas|andoyer|karney]" : "");
    }
    if (algorithm.empty()) return fmt::format("{}({})", name, crs);
    return fmt::format("{}({}, {})", name, crs, algorithm);
  }
  return InvalidArgument("Cannot parse type string to primitive: {}", text);
}

Status CheckTypeDepth(const Json& type, std::string_view field) {
  std::vector<std::pair<const Json*, int>> pending;
  pending.emplace_back(&type, 1);
  while (!pending.empty()) {
    const Json* const node = pending.back().first;
    const int depth = pending.back().second;
    pending.pop_back();
    if (!node->is_object()) continue;
    auto kind_it = node->find("type");
    if (kind_it == node->end() || !kind_it->is_string()) continue;
    const auto& kind = kind_it->get_ref<const std::string&>();
    const bool is_struct = kind == "struct";
    if (!is_struct && kind != "list" && kind != "map") continue;
    if (depth > model::kMaxTypeDepth) {
      return InvalidArgument(
          "Invalid type at {}: struct, list and map types nest deeper than {} levels", field,
          model::kMaxTypeDepth);
    }
    auto push = [&](const Json& parent, const char* member) {
      if (auto it = parent.find(member); it != parent.end()) pending.emplace_back(&*it, depth + 1);
    };
    if (is_struct) {
      if (const Json* fields = FieldsOf(*node)) {
        for (const auto& f : *fields) {
          if (f.is_object()) push(f, "type");
        }
      }
    } else if (kind == "list") {
      push(*node, "element");
    } else {
      push(*node, "key");
      push(*node, "value");
    }
  }
  return Ok();
}

std::string ModelTypeText(const model::TypePtr& type) {
  if (!type) return "null";
  switch (type->kind) {
    case TypeKind::kStruct:
      return "struct";
    case TypeKind::kList:
      return "list";
    case TypeKind::kMap:
      return "map";
    case TypeKind::kUnion:
      return "union";
    case TypeKind::kUnparsed:
    case TypeKind::kExternal:
      return type->raw;
    default:
      return model::PrimitiveTypeString(*type);
  }
}

Result<Json> ToIcebergType(const model::TypePtr& type, const std::string& column, int* last_id) {
  if (!type) return InvalidArgument("Column '{}' has no type", column);
  switch (type->kind) {
    case TypeKind::kStruct:
      return StructToIceberg(type->fields, column, last_id);
    case TypeKind::kList: {
      const int id = ++*last_id;  // AssignFreshIds.list: the element id before the element type
      CAIRN_ASSIGN_OR_RETURN(Json element, ToIcebergType(type->element, column, last_id));
      Json l = Json::object();
      l["type"] = "list";
      l["element-id"] = id;
      l["element"] = std::move(element);
      l["element-required"] = !type->element_nullable;
      return l;
    }
    case TypeKind::kMap: {
      const int key_id = ++*last_id;
      const int value_id = ++*last_id;
      CAIRN_ASSIGN_OR_RETURN(Json key, ToIcebergType(type->key, column, last_id));
      CAIRN_ASSIGN_OR_RETURN(Json value, ToIcebergType(type->value, column, last_id));
      Json m = Json::object();
      m["type"] = "map";
      m["key-id"] = key_id;
      m["key"] = std::move(key);
      m["value-id"] = value_id;
      m["value"] = std::move(value);
      m["value-required"] = !type->value_nullable;
      return m;
    }
    default:
      return PrimitiveToIceberg(type, column);
  }
}

Result<IcebergSchema> ToIcebergSchema(const std::vector<model::Column>& columns, int schema_id,
                                      const std::vector<std::string>& identifier_field_names) {
  std::vector<model::StructField> fields;
  fields.reserve(columns.size());
  std::set<std::string> names;
  for (const auto& c : columns) {
    if (c.default_value.has_value()) {
      return InvalidArgument("Iceberg does not support column default value. Illegal column: {}",
                             c.name);
    }
    if (c.auto_increment) {
      return InvalidArgument("Iceberg doesn't support auto increment column: {}", c.name);
    }
    if (!names.insert(c.name).second) {
      return InvalidArgument("Cannot create a schema with duplicate column name: {}", c.name);
    }
    // Before ToIcebergType recurses into it.
    if (model::TypeDepth(c.type) > model::kMaxTypeDepth) {
      return InvalidArgument(
          "Invalid type of column '{}': struct, list and map types nest deeper than {} levels",
          c.name, model::kMaxTypeDepth);
    }
    fields.push_back(model::StructField{c.name, c.type, c.nullable, c.comment});
  }
  // Top-level columns are a struct; errors inside it must name the top-level column, so convert
  // each top-level type separately while keeping AssignFreshIds order.
  int last_id = 0;
  std::vector<int> ids;
  for (size_t i = 0; i < fields.size(); ++i) ids.push_back(++last_id);
  Json out_fields = Json::array();
  for (size_t i = 0; i < fields.size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(Json type, ToIcebergType(fields[i].type, fields[i].name, &last_id));
    out_fields.push_back(
        MakeField(ids[i], fields[i].name, !fields[i].nullable, std::move(type), fields[i].comment));
  }
  Json schema = Json::object();
  schema["type"] = "struct";
  schema["schema-id"] = schema_id;
  Json probe = Json::object();
  probe["type"] = "struct";
  probe["fields"] = out_fields;
  if (!identifier_field_names.empty()) {
    Json ids_json = Json::array();
    for (const auto& name : identifier_field_names) {
      model::FieldName path = Split(name, '.');
      const Json* f = FindStructField(probe, path);
      if (f == nullptr) {
        return InvalidArgument("Cannot add field {} as an identifier field: not found", name);
      }
      if (!(*f)["type"].is_string()) {
        return InvalidArgument("Cannot add field {} as an identifier field: not a primitive type",
                               name);
      }
      if (!(*f)["required"].get<bool>()) {
        return InvalidArgument("Cannot add field {} as an identifier field: not a required field",
                               name);
      }
      ids_json.push_back((*f)["id"]);
    }
    schema["identifier-field-ids"] = std::move(ids_json);
  }
  schema["fields"] = std::move(out_fields);
  return IcebergSchema{std::move(schema), last_id};
}

namespace {

Result<model::TypePtr> FromIcebergTypeUnguarded(const Json& type) {
  if (type.is_string()) return PrimitiveFromIceberg(type.get<std::string>());
  if (!type.is_object()) return InvalidArgument("Invalid Iceberg type: {}", type.dump());
  const std::string kind = type.value("type", "");
  if (kind == "struct") {
    const Json* fields = FieldsOf(type);
    if (fields == nullptr) return InvalidArgument("Invalid Iceberg struct: missing fields");
    std::vector<model::StructField> out;
    for (const auto& f : *fields) {
      CAIRN_ASSIGN_OR_RETURN(auto field, FieldFromIceberg(f));
      out.push_back(std::move(field));
    }
    return model::MakeStruct(std::move(out));
  }
  if (kind == "list") {
    auto e = type.find("element");
    if (e == type.end()) return InvalidArgument("Invalid Iceberg list: missing element");
    CAIRN_ASSIGN_OR_RETURN(auto element, FromIcebergType(*e));
    return model::MakeList(std::move(element), !type.value("element-required", false));
  }
  if (kind == "map") {
    auto k = type.find("key");
    auto v = type.find("value");
    if (k == type.end() || v == type.end()) {
      return InvalidArgument("Invalid Iceberg map: missing key or value");
    }
    CAIRN_ASSIGN_OR_RETURN(auto key, FromIcebergType(*k));
    CAIRN_ASSIGN_OR_RETURN(auto value, FromIcebergType(*v));
    return model::MakeMap(std::move(key), std::move(value), !type.value("value-required", false));
  }
  return InvalidArgument("Invalid Iceberg type: {}",
                         type.dump(-1, ' ', false, Json::error_handler_t::replace));
}

}  // namespace

Result<model::TypePtr> FromIcebergType(const Json& type) {
  return CatchJsonErrors("Invalid Iceberg type", [&] { return FromIcebergTypeUnguarded(type); });
}

namespace {

Result<std::vector<model::Column>> FromIcebergSchemaUnguarded(const Json& schema) {
  const Json* fields = FieldsOf(schema);
  if (fields == nullptr) return InvalidArgument("Invalid Iceberg schema: missing fields");
  std::vector<model::Column> out;
  out.reserve(fields->size());
  for (const auto& f : *fields) {
    CAIRN_ASSIGN_OR_RETURN(auto field, FieldFromIceberg(f));
    model::Column c;
    c.name = std::move(field.name);
    c.type = std::move(field.type);
    c.nullable = field.nullable;
    c.comment = std::move(field.comment);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Result<std::vector<model::Column>> FromIcebergSchema(const Json& schema) {
  return CatchJsonErrors("Invalid Iceberg schema",
                         [&] { return FromIcebergSchemaUnguarded(schema); });
}

const Json* FindField(const Json& schema, const model::FieldName& path) {
  return FindImpl(schema, path, 0, false);
}

const Json* FindStructField(const Json& schema, const model::FieldName& path) {
  return FindImpl(schema, path, 0, true);
}

std::optional<model::FieldName> FindFieldPath(const Json& schema, int id) {
  model::FieldName path;
  if (FindPathImpl(schema, id, &path)) return path;
  return std::nullopt;
}

const Json* FindTypeById(const Json& schema, int id) { return FindTypeImpl(schema, id); }

std::string JoinFieldName(const model::FieldName& path) { return Join(path, "."); }

void CollectFieldIds(const Json& type, std::vector<int>* ids) {
  if (!type.is_object()) return;
  const std::string kind = type.value("type", "");
  if (kind == "struct") {
    if (const Json* fields = FieldsOf(type)) {
      for (const auto& f : *fields) {
        ids->push_back(IntOr(f, "id", 0));
        if (auto t = f.find("type"); t != f.end()) CollectFieldIds(*t, ids);
      }
    }
  } else if (kind == "list") {
    ids->push_back(IntOr(type, "element-id", 0));
    if (auto t = type.find("element"); t != type.end()) CollectFieldIds(*t, ids);
  } else if (kind == "map") {
    ids->push_back(IntOr(type, "key-id", 0));
    ids->push_back(IntOr(type, "value-id", 0));
    if (auto t = type.find("key"); t != type.end()) CollectFieldIds(*t, ids);
    if (auto t = type.find("value"); t != type.end()) CollectFieldIds(*t, ids);
  }
}

int MaxFieldId(const Json& type) {
  std::vector<int> ids;
  CollectFieldIds(type, &ids);
  return ids.empty() ? 0 : *std::max_element(ids.begin(), ids.end());
}

bool IsPromotionAllowed(const Json& from, const Json& to) {
  if (!from.is_string() || !to.is_string()) return false;
  const std::string a = ToLower(from.get<std::string>());
  const std::string b = ToLower(to.get<std::string>());
  if (a == b) return true;
  if (a == "int" && b == "long") return true;
  if (a == "float" && b == "double") return true;
  auto da = ParseDecimal(a);
  auto db = ParseDecimal(b);
  return da && db && da->second == db->second && db->first >= da->first;
}

int MinFormatVersion(const Json& type) {
  if (type.is_string()) {
    const std::string t = ToLower(type.get<std::string>());
    if (t == "unknown" || t == "timestamp_ns" || t == "timestamptz_ns" || t == "variant" ||
        t.rfind("geometry", 0) == 0 || t.rfind("geography", 0) == 0) {
      return 3;
    }
    return 1;
  }
  int v = 1;
  if (!type.is_object()) return v;
  const std::string kind = type.value("type", "");
  if (kind == "struct") {
    if (const Json* fields = FieldsOf(type)) {
      for (const auto& f : *fields) {
        if (auto t = f.find("type"); t != f.end()) v = std::max(v, MinFormatVersion(*t));
      }
    }
  } else if (kind == "list") {
    if (auto t = type.find("element"); t != type.end()) v = std::max(v, MinFormatVersion(*t));
  } else if (kind == "map") {
    if (auto t = type.find("key"); t != type.end()) v = std::max(v, MinFormatVersion(*t));
    if (auto t = type.find("value"); t != type.end()) v = std::max(v, MinFormatVersion(*t));
  }
  return v;
}

}  // namespace cairn::iceberg
