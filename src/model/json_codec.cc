// SPDX-License-Identifier: Apache-2.0
#include "model/json_codec.h"

#include <fmt/format.h>

#include "common/util.h"

namespace cairn::model {

namespace json_fields {
std::string TypeName(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

Error WrongType(const std::string& field, const char* expected, const Json& got) {
  return InvalidArgument("Field '{}' must be {}, got {}", field, expected, TypeName(got));
}

const Json* Find(const Json& j, const char* field) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string Path(const std::string& parent, const char* field) {
  return parent.empty() ? std::string(field) : parent + "." + field;
}

Result<bool> OptionalBool(const Json& j, const char* field, bool fallback, const std::string& ctx) {
  const Json* v = Find(j, field);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) return WrongType(Path(ctx, field), "a boolean", *v);
  return v->get<bool>();
}

Result<int> OptionalInt(const Json& j, const char* field, int fallback, const std::string& ctx) {
  const Json* v = Find(j, field);
  if (v == nullptr) return fallback;
  if (!v->is_number_integer()) return WrongType(Path(ctx, field), "an integer", *v);
  const auto value = v->get<int64_t>();
  if (value < INT32_MIN || value > INT32_MAX) {
    return InvalidArgument("Field '{}' is out of range", Path(ctx, field));
  }
  return static_cast<int>(value);
}

Result<std::string> StringIn(const Json& j, const char* field, const std::string& ctx) {
  const Json* v = Find(j, field);
  if (v == nullptr) return InvalidArgument("Field '{}' is required", Path(ctx, field));
  if (!v->is_string()) return WrongType(Path(ctx, field), "a string", *v);
  return v->get<std::string>();
}

Result<FieldName> FieldNameFromJson(const Json& j, const char* field, const std::string& ctx) {
  const Json* v = Find(j, field);
  const std::string path = Path(ctx, field);
  if (v == nullptr) return InvalidArgument("Field '{}' is required", path);
  if (!v->is_array() || v->empty())
    return InvalidArgument("Field '{}' must be a non-empty array of strings", path);
  FieldName out;
  for (const auto& e : *v) {
    if (!e.is_string() || e.get<std::string>().empty()) {
      return InvalidArgument("Field '{}' must be a non-empty array of non-empty strings", path);
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

Result<std::vector<FieldName>> FieldNamesFromJson(const Json& j, const char* field,
                                                  const std::string& ctx) {
  const Json* v = Find(j, field);
  const std::string path = Path(ctx, field);
  if (v == nullptr) return InvalidArgument("Field '{}' is required", path);
  if (!v->is_array()) return WrongType(path, "an array of field names", *v);
  std::vector<FieldName> out;
  Json wrapper = Json::object();
  for (const auto& e : *v) {
    wrapper["n"] = e;
    CAIRN_ASSIGN_OR_RETURN(auto name, FieldNameFromJson(wrapper, "n", path));
    out.push_back(std::move(name));
  }
  return out;
}

Result<std::vector<Expression>> ExpressionsFromJson(const Json& j, const char* field,
                                                    const std::string& ctx) {
  const Json* v = Find(j, field);
  std::vector<Expression> out;
  if (v == nullptr) return out;
  const std::string path = Path(ctx, field);
  if (!v->is_array()) return WrongType(path, "an array", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(auto e, ExpressionFromJson((*v)[i], fmt::format("{}[{}]", path, i)));
    out.push_back(std::move(e));
  }
  return out;
}

OrderedJson FieldNameToJson(const FieldName& f) {
  OrderedJson a = OrderedJson::array();
  for (const auto& s : f) a.push_back(s);
  return a;
}

}  // namespace json_fields

using namespace json_fields;  // NOLINT(google-build-using-namespace): this file's own helpers

// ---- types ----

namespace {

// Where a type sits in the body ("columns[0].type.elementType"), as a chain that becomes text
// only when an error names it: building the text at every level would cost the square of the
// depth.
struct TypePath {
  const std::string* root = nullptr;  // the field TypeFromJson was called with
  const TypePath* parent = nullptr;
  const char* member = nullptr;  // ".member", or "member[index]" with has_index
  size_t index = 0;
  bool has_index = false;

  std::string Text() const {
    std::vector<const TypePath*> chain;
    for (const TypePath* p = this; p != nullptr; p = p->parent) chain.push_back(p);
    std::string out = *chain.back()->root;
    for (auto it = chain.rbegin() + 1; it != chain.rend(); ++it) {
      out += '.';
      out += (*it)->member;
      if ((*it)->has_index) out += fmt::format("[{}]", (*it)->index);
    }
    return out;
  }
};

// Bounds the nesting of a Gravitino type JSON (struct fields, list elementType, map keyType and
// valueType, union types) in one pass without recursion, before TypeFromJsonAt recurses.
Status CheckTypeDepth(const Json& j, const std::string& field) {
  std::vector<std::pair<const Json*, int>> pending{{&j, 1}};
  while (!pending.empty()) {
    const Json* const node = pending.back().first;
    const int depth = pending.back().second;
    pending.pop_back();
    const Json* kind = Find(*node, "type");
    if (kind == nullptr || !kind->is_string()) continue;
    const std::string k = ToLower(kind->get_ref<const std::string&>());
    if (k != "struct" && k != "list" && k != "map" && k != "union") continue;
    if (depth > kMaxTypeDepth) {
      return InvalidArgument(
          "Field '{}' nests struct, list, map and union types deeper than {} levels", field,
          kMaxTypeDepth);
    }
    auto push = [&](const Json* child) {
      if (child != nullptr) pending.emplace_back(child, depth + 1);
    };
    push(Find(*node, "elementType"));
    push(Find(*node, "keyType"));
    push(Find(*node, "valueType"));
    for (const char* list : {"fields", "types"}) {
      const Json* members = Find(*node, list);
      if (members == nullptr || !members->is_array()) continue;
      for (const auto& m : *members) push(list[0] == 'f' ? Find(m, "type") : &m);
    }
  }
  return Ok();
}

Result<std::string> StringAt(const Json& j, const char* field, const TypePath& path) {
  const Json* v = Find(j, field);
  if (v == nullptr) return InvalidArgument("Field '{}' is required", Path(path.Text(), field));
  if (!v->is_string()) return WrongType(Path(path.Text(), field), "a string", *v);
  return v->get<std::string>();
}

Result<bool> OptionalBoolAt(const Json& j, const char* field, bool fallback, const TypePath& path) {
  const Json* v = Find(j, field);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) return WrongType(Path(path.Text(), field), "a boolean", *v);
  return v->get<bool>();
}

// Recursion is bounded: TypeFromJson checks the nesting first.
Result<TypePtr> TypeFromJsonAt(const Json& j, const TypePath& path) {
  if (j.is_string()) {
    auto t = ParsePrimitiveType(j.get<std::string>());
    if (!t) {
      return InvalidArgument("Field '{}' has an invalid type '{}'", path.Text(),
                             j.get<std::string>());
    }
    return t;
  }
  if (!j.is_object()) return WrongType(path.Text(), "a type string or object", j);
  CAIRN_ASSIGN_OR_RETURN(std::string kind, StringAt(j, "type", path));
  kind = ToLower(kind);
  if (kind == "struct") {
    const Json* fields = Find(j, "fields");
    if (fields == nullptr || !fields->is_array()) {
      return InvalidArgument("Field '{}.fields' is required and must be an array", path.Text());
    }
    std::vector<StructField> out;
    out.reserve(fields->size());
    for (size_t i = 0; i < fields->size(); ++i) {
      const Json& f = (*fields)[i];
      const TypePath field_path{nullptr, &path, "fields", i, true};
      if (!f.is_object()) return WrongType(field_path.Text(), "an object", f);
      StructField sf;
      CAIRN_ASSIGN_OR_RETURN(sf.name, StringAt(f, "name", field_path));
      if (sf.name.empty()) {
        return InvalidArgument("Field '{}.name' must not be empty", field_path.Text());
      }
      const Json* ft = Find(f, "type");
      if (ft == nullptr) return InvalidArgument("Field '{}.type' is required", field_path.Text());
      CAIRN_ASSIGN_OR_RETURN(sf.type, TypeFromJsonAt(*ft, TypePath{nullptr, &field_path, "type"}));
      CAIRN_ASSIGN_OR_RETURN(sf.nullable, OptionalBoolAt(f, "nullable", true, field_path));
      const Json* c = Find(f, "comment");
      if (c != nullptr) {
        if (!c->is_string()) return WrongType(field_path.Text() + ".comment", "a string", *c);
        sf.comment = c->get<std::string>();
      }
      out.push_back(std::move(sf));
    }
    return MakeStruct(std::move(out));
  }
  if (kind == "list") {
    const Json* e = Find(j, "elementType");
    if (e == nullptr) return InvalidArgument("Field '{}.elementType' is required", path.Text());
    CAIRN_ASSIGN_OR_RETURN(auto element,
                           TypeFromJsonAt(*e, TypePath{nullptr, &path, "elementType"}));
    CAIRN_ASSIGN_OR_RETURN(bool contains_null, OptionalBoolAt(j, "containsNull", true, path));
    return MakeList(std::move(element), contains_null);
  }
  if (kind == "map") {
    const Json* k = Find(j, "keyType");
    const Json* v = Find(j, "valueType");
    if (k == nullptr) return InvalidArgument("Field '{}.keyType' is required", path.Text());
    if (v == nullptr) return InvalidArgument("Field '{}.valueType' is required", path.Text());
    CAIRN_ASSIGN_OR_RETURN(auto key, TypeFromJsonAt(*k, TypePath{nullptr, &path, "keyType"}));
    CAIRN_ASSIGN_OR_RETURN(auto value, TypeFromJsonAt(*v, TypePath{nullptr, &path, "valueType"}));
    CAIRN_ASSIGN_OR_RETURN(bool value_null, OptionalBoolAt(j, "valueContainsNull", true, path));
    return MakeMap(std::move(key), std::move(value), value_null);
  }
  if (kind == "union") {
    const Json* types = Find(j, "types");
    if (types == nullptr || !types->is_array() || types->empty()) {
      return InvalidArgument("Field '{}.types' is required and must be a non-empty array",
                             path.Text());
    }
    auto t = std::make_shared<Type>();
    t->kind = TypeKind::kUnion;
    t->types.reserve(types->size());
    for (size_t i = 0; i < types->size(); ++i) {
      CAIRN_ASSIGN_OR_RETURN(
          auto member, TypeFromJsonAt((*types)[i], TypePath{nullptr, &path, "types", i, true}));
      t->types.push_back(std::move(member));
    }
    return TypePtr(t);
  }
  if (kind == "unparsed") {
    auto t = std::make_shared<Type>();
    t->kind = TypeKind::kUnparsed;
    CAIRN_ASSIGN_OR_RETURN(t->raw, StringAt(j, "unparsedType", path));
    return TypePtr(t);
  }
  if (kind == "external") {
    auto t = std::make_shared<Type>();
    t->kind = TypeKind::kExternal;
    CAIRN_ASSIGN_OR_RETURN(t->raw, StringAt(j, "catalogString", path));
    return TypePtr(t);
  }
  return InvalidArgument("Field '{}.type' has an unknown complex type '{}'", path.Text(), kind);
}

}  // namespace

Result<TypePtr> TypeFromJson(const Json& j, const std::string& field) {
  CAIRN_RETURN_IF_ERROR(CheckTypeDepth(j, field));
  return TypeFromJsonAt(j, TypePath{&field});
}

namespace {

// An empty object with room for `members`: growing an ordered_json object copies its members
// (their keys are const), which for a type member is its whole subtree, at every level.
OrderedJson ObjectWithRoom(size_t members) {
  OrderedJson out = OrderedJson::object();
  out.get_ref<OrderedJson::object_t&>().reserve(members);
  return out;
}

}  // namespace

// Recursion is bounded by the depth of `t`: kMaxTypeDepth for types from a request, the
// JSON nesting limit for types read from metadata.
OrderedJson TypeToJson(const Type& t) {
  switch (t.kind) {
    case TypeKind::kStruct: {
      OrderedJson fields = OrderedJson::array();
      fields.get_ref<OrderedJson::array_t&>().reserve(t.fields.size());
      for (const auto& f : t.fields) {
        OrderedJson o = ObjectWithRoom(4);
        o["name"] = f.name;
        o["type"] = TypeToJson(*f.type);
        o["nullable"] = f.nullable;
        if (f.comment) o["comment"] = *f.comment;
        fields.push_back(std::move(o));
      }
      OrderedJson o = ObjectWithRoom(2);
      o["type"] = "struct";
      o["fields"] = std::move(fields);
      return o;
    }
    case TypeKind::kList: {
      OrderedJson o = ObjectWithRoom(3);
      o["type"] = "list";
      o["containsNull"] = t.element_nullable;
      o["elementType"] = TypeToJson(*t.element);
      return o;
    }
    case TypeKind::kMap: {
      OrderedJson o = ObjectWithRoom(4);
      o["type"] = "map";
      o["keyType"] = TypeToJson(*t.key);
      o["valueType"] = TypeToJson(*t.value);
      o["valueContainsNull"] = t.value_nullable;
      return o;
    }
    case TypeKind::kUnion: {
      OrderedJson types = OrderedJson::array();
      for (const auto& m : t.types) types.push_back(TypeToJson(*m));
      OrderedJson o = ObjectWithRoom(2);
      o["type"] = "union";
      o["types"] = std::move(types);
      return o;
    }
    case TypeKind::kUnparsed:
      return OrderedJson{{"type", "unparsed"}, {"unparsedType", t.raw}};
    case TypeKind::kExternal:
      return OrderedJson{{"type", "external"}, {"catalogString", t.raw}};
    default:
      return PrimitiveTypeString(t);
  }
}

// ---- expressions ----

Result<Expression> ExpressionFromJson(const Json& j, const std::string& field) {
  if (!j.is_object()) return WrongType(field, "an expression object", j);
  CAIRN_ASSIGN_OR_RETURN(std::string kind, StringIn(j, "type", field));
  kind = ToLower(kind);
  Expression e;
  if (kind == "literal") {
    e.kind = Expression::Kind::kLiteral;
    const Json* dt = Find(j, "dataType");
    if (dt == nullptr) return InvalidArgument("Field '{}.dataType' is required", field);
    CAIRN_ASSIGN_OR_RETURN(e.data_type, TypeFromJson(*dt, field + ".dataType"));
    const Json* v = Find(j, "value");
    if (v != nullptr) {
      if (!v->is_string()) return WrongType(field + ".value", "a string", *v);
      e.value = v->get<std::string>();
    }
    return e;
  }
  if (kind == "field") {
    e.kind = Expression::Kind::kField;
    CAIRN_ASSIGN_OR_RETURN(e.field_name, FieldNameFromJson(j, "fieldName", field));
    return e;
  }
  if (kind == "function") {
    e.kind = Expression::Kind::kFunction;
    CAIRN_ASSIGN_OR_RETURN(e.func_name, StringIn(j, "funcName", field));
    CAIRN_ASSIGN_OR_RETURN(e.args, ExpressionsFromJson(j, "funcArgs", field));
    return e;
  }
  if (kind == "unparsed") {
    e.kind = Expression::Kind::kUnparsed;
    CAIRN_ASSIGN_OR_RETURN(e.unparsed, StringIn(j, "unparsedExpression", field));
    return e;
  }
  return InvalidArgument("Field '{}.type' has an unknown expression type '{}'", field, kind);
}

OrderedJson ExpressionToJson(const Expression& e) {
  switch (e.kind) {
    case Expression::Kind::kLiteral: {
      OrderedJson o{{"type", "literal"}, {"dataType", TypeToJson(*e.data_type)}};
      if (e.value) o["value"] = *e.value;
      return o;
    }
    case Expression::Kind::kField:
      return OrderedJson{{"type", "field"}, {"fieldName", FieldNameToJson(e.field_name)}};
    case Expression::Kind::kFunction: {
      OrderedJson args = OrderedJson::array();
      for (const auto& a : e.args) args.push_back(ExpressionToJson(a));
      return OrderedJson{
          {"type", "function"}, {"funcName", e.func_name}, {"funcArgs", std::move(args)}};
    }
    case Expression::Kind::kUnparsed:
      return OrderedJson{{"type", "unparsed"}, {"unparsedExpression", e.unparsed}};
  }
  return nullptr;
}

// ---- columns ----

Result<Column> ColumnFromJson(const Json& j, const std::string& field) {
  if (!j.is_object()) return WrongType(field, "a column object", j);
  Column c;
  CAIRN_ASSIGN_OR_RETURN(c.name, StringIn(j, "name", field));
  if (Trim(c.name).empty()) return InvalidArgument("Field '{}.name' must not be blank", field);
  const Json* t = Find(j, "type");
  if (t == nullptr) return InvalidArgument("Field '{}.type' is required", field);
  CAIRN_ASSIGN_OR_RETURN(c.type, TypeFromJson(*t, field + ".type"));
  const Json* comment = Find(j, "comment");
  if (comment != nullptr) {
    if (!comment->is_string()) return WrongType(field + ".comment", "a string", *comment);
    c.comment = comment->get<std::string>();
  }
  CAIRN_ASSIGN_OR_RETURN(c.nullable, OptionalBool(j, "nullable", true, field));
  CAIRN_ASSIGN_OR_RETURN(c.auto_increment, OptionalBool(j, "autoIncrement", false, field));
  const Json* dv = Find(j, "defaultValue");
  if (dv != nullptr) {
    CAIRN_ASSIGN_OR_RETURN(auto e, ExpressionFromJson(*dv, field + ".defaultValue"));
    c.default_value = std::move(e);
  }
  return c;
}

OrderedJson ColumnToJson(const Column& c) {
  OrderedJson o;
  o["name"] = c.name;
  o["type"] = TypeToJson(*c.type);
  if (c.comment) o["comment"] = *c.comment;
  o["nullable"] = c.nullable;
  o["autoIncrement"] = c.auto_increment;
  if (c.default_value) o["defaultValue"] = ExpressionToJson(*c.default_value);
  return o;
}

}  // namespace cairn::model
