// SPDX-License-Identifier: Apache-2.0
#include "iceberg/schema_parse.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "iceberg/schema.h"

namespace cairn::iceberg {

namespace {


// Where a value sits in a request, for messages: a chain of members and array indexes, turned
// into text ("schema.fields[2].type.element") only when an error names it, so that walking a
// deep type costs nothing per level.
struct JsonPath {
  const JsonPath* parent = nullptr;
  std::string_view member;  // empty: the array index `index`
  size_t index = 0;
};

std::string PathText(const JsonPath& path) {
  std::vector<const JsonPath*> chain;
  for (const JsonPath* p = &path; p != nullptr; p = p->parent) chain.push_back(p);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if ((*it)->member.empty()) {
      out += fmt::format("[{}]", (*it)->index);
    } else {
      if (!out.empty()) out += '.';
      out += (*it)->member;
    }
  }
  return out;
}

Result<Json> ParseType(const Json& type, const JsonPath& path, std::vector<int>* ids);

// An empty object with room for `members`: growing an ordered_json object copies its members
// (their keys are const), so a type member followed by more keys would copy the whole subtree
// at every level of a nested type.
Json ObjectWithRoom(size_t members) {
  Json out = Json::object();
  out.get_ref<Json::object_t&>().reserve(members);
  return out;
}

Result<Json> ParseStructFields(const Json& fields_node, const JsonPath& path,
                               std::vector<int>* ids) {
  if (!fields_node.is_array()) {
    return InvalidArgument("Cannot parse struct fields from non-array: {}", Text(fields_node));
  }
  Json fields = Json::array();
  for (size_t i = 0; i < fields_node.size(); ++i) {
    const Json& f = fields_node[i];
    if (!f.is_object())
      return InvalidArgument("Cannot parse struct field from non-object: {}", Text(f));
    CAIRN_ASSIGN_OR_RETURN(int id, JsonGetInt(f, "id"));
    CAIRN_ASSIGN_OR_RETURN(std::string name, JsonGetString(f, "name"));
    auto req = f.find("required");
    if (req == f.end()) return InvalidArgument("Cannot parse missing boolean: required");
    if (!req->is_boolean()) {
      return InvalidArgument("Cannot parse to a boolean value: required: {}", Text(*req));
    }
    CAIRN_ASSIGN_OR_RETURN(const Json* type_node, JsonGetField(f, "type"));
    ids->push_back(id);
    const JsonPath field_path{&path, {}, i};
    CAIRN_ASSIGN_OR_RETURN(Json type, ParseType(*type_node, JsonPath{&field_path, "type"}, ids));
    Json out = ObjectWithRoom(7);
    out["id"] = id;
    out["name"] = std::move(name);
    out["required"] = req->get<bool>();
    out["type"] = std::move(type);
    for (const char* key : {"doc", "initial-default", "write-default"}) {
      if (auto it = f.find(key); it != f.end() && !it->is_null()) out[key] = *it;
    }
    fields.push_back(std::move(out));
  }
  return fields;
}

// Recursion is bounded: ParseSchemaJson checks the nesting (CheckTypeDepth) before calling this.
Result<Json> ParseType(const Json& type, const JsonPath& path, std::vector<int>* ids) {
  if (type.is_string()) {
    auto canonical = CanonicalPrimitiveType(type.get_ref<const std::string&>());
    if (!canonical) {
      return InvalidArgument("{} (at {})", canonical.error().message, PathText(path));
    }
    return Json(std::move(*canonical));
  }
  if (!type.is_object() || !type.contains("type") || !type["type"].is_string()) {
    return InvalidArgument("Cannot parse type from json: {}", Text(type));
  }
  const std::string kind = type["type"].get<std::string>();
  Json out = ObjectWithRoom(6);
  if (kind == "struct") {
    CAIRN_ASSIGN_OR_RETURN(const Json* fields, JsonGetField(type, "fields"));
    out["type"] = "struct";
    CAIRN_ASSIGN_OR_RETURN(out["fields"],
                           ParseStructFields(*fields, JsonPath{&path, "fields"}, ids));
    return out;
  }
  auto required_flag = [&](const char* key) -> Result<bool> {
    auto it = type.find(key);
    if (it == type.end()) return InvalidArgument("Cannot parse missing boolean: {}", key);
    if (!it->is_boolean())
      return InvalidArgument("Cannot parse to a boolean value: {}: {}", key, Text(*it));
    return it->get<bool>();
  };
  if (kind == "list") {
    CAIRN_ASSIGN_OR_RETURN(int element_id, JsonGetInt(type, "element-id"));
    CAIRN_ASSIGN_OR_RETURN(const Json* element, JsonGetField(type, "element"));
    CAIRN_ASSIGN_OR_RETURN(bool element_required, required_flag("element-required"));
    ids->push_back(element_id);
    out["type"] = "list";
    out["element-id"] = element_id;
    CAIRN_ASSIGN_OR_RETURN(out["element"], ParseType(*element, JsonPath{&path, "element"}, ids));
    out["element-required"] = element_required;
    return out;
  }
  if (kind == "map") {
    CAIRN_ASSIGN_OR_RETURN(int key_id, JsonGetInt(type, "key-id"));
    CAIRN_ASSIGN_OR_RETURN(const Json* key, JsonGetField(type, "key"));
    CAIRN_ASSIGN_OR_RETURN(int value_id, JsonGetInt(type, "value-id"));
    CAIRN_ASSIGN_OR_RETURN(const Json* value, JsonGetField(type, "value"));
    CAIRN_ASSIGN_OR_RETURN(bool value_required, required_flag("value-required"));
    ids->push_back(key_id);
    ids->push_back(value_id);
    out["type"] = "map";
    out["key-id"] = key_id;
    CAIRN_ASSIGN_OR_RETURN(out["key"], ParseType(*key, JsonPath{&path, "key"}, ids));
    out["value-id"] = value_id;
    CAIRN_ASSIGN_OR_RETURN(out["value"], ParseType(*value, JsonPath{&path, "value"}, ids));
    out["value-required"] = value_required;
    return out;
  }
  return InvalidArgument("Cannot parse type from json: {}", Text(type));
}

// Every field reachable through structs alone (where identifier fields may live), by id, with
// whether every struct on the way to it is required; the first of duplicate ids wins. One pass,
// so that checking n identifier ids costs n lookups rather than n walks of the schema.
std::unordered_map<int, std::pair<const Json*, bool>> StructFieldsById(const Json& fields) {
  std::unordered_map<int, std::pair<const Json*, bool>> out;
  std::vector<std::pair<const Json*, bool>> pending{{&fields, true}};
  while (!pending.empty()) {
    const auto [list, all_required] = pending.back();
    pending.pop_back();
    if (!list->is_array()) continue;
    for (const auto& f : *list) {
      if (!f.is_object()) continue;
      if (auto id = f.find("id"); id != f.end() && IsInt(*id)) {
        out.try_emplace(id->get<int>(), &f, all_required);
      }
      auto t = f.find("type");
      if (t != f.end() && t->is_object() && t->value("type", "") == "struct") {
        if (auto nested = t->find("fields"); nested != t->end()) {
          pending.emplace_back(&*nested, all_required && f.value("required", false));
        }
      }
    }
  }
  return out;
}
Result<Json> ParseSchemaJsonUnguarded(const Json& schema) {
  if (!schema.is_object())
    return InvalidArgument("Cannot parse schema from non-object: {}", Text(schema));
  if (schema.value("type", "") != "struct") {
    return InvalidArgument("Cannot create schema, not a struct type: {}", Text(schema));
  }
  std::vector<int> ids;
  CAIRN_ASSIGN_OR_RETURN(const Json* fields_node, JsonGetField(schema, "fields"));
  // Bound the nesting before anything below recurses into a type.
  if (fields_node->is_array()) {
    for (size_t i = 0; i < fields_node->size(); ++i) {
      const Json& f = (*fields_node)[i];
      if (!f.is_object()) continue;
      if (auto t = f.find("type"); t != f.end()) {
        CAIRN_RETURN_IF_ERROR(CheckTypeDepth(*t, fmt::format("schema.fields[{}].type", i)));
      }
    }
  }
  const JsonPath root{nullptr, "schema"};
  CAIRN_ASSIGN_OR_RETURN(Json fields,
                         ParseStructFields(*fields_node, JsonPath{&root, "fields"}, &ids));
  std::sort(ids.begin(), ids.end());
  if (auto dup = std::adjacent_find(ids.begin(), ids.end()); dup != ids.end()) {
    return InvalidArgument("Invalid schema: multiple fields for id {}", *dup);
  }
  Json out = Json::object();
  out["type"] = "struct";
  CAIRN_ASSIGN_OR_RETURN(std::optional<int> schema_id, JsonGetIntOrNull(schema, "schema-id"));
  if (schema_id) out["schema-id"] = *schema_id;
  if (auto it = schema.find("identifier-field-ids"); it != schema.end() && !it->is_null()) {
    if (!it->is_array()) {
      return InvalidArgument(
          "Cannot parse JSON array from non-array value: identifier-field-ids: {}", Text(*it));
    }
    const auto by_id = StructFieldsById(fields);
    Json id_list = Json::array();
    for (const auto& v : *it) {
      if (!IsInt(v)) {
        return InvalidArgument(
            "Cannot parse integer from non-int value in identifier-field-ids: {}", Text(v));
      }
      const int id = v.get<int>();
      auto found = by_id.find(id);
      const Json* f = found == by_id.end() ? nullptr : found->second.first;
      const bool all_required = found != by_id.end() && found->second.second;
      if (f == nullptr) {
        return InvalidArgument("Cannot add fieldId {} as an identifier field: field does not exist",
                               id);
      }
      if (!f->at("type").is_string()) {
        return InvalidArgument(
            "Cannot add field {} as an identifier field: not a primitive type field",
            f->value("name", ""));
      }
      if (!f->value("required", false)) {
        return InvalidArgument("Cannot add field {} as an identifier field: not a required field",
                               f->value("name", ""));
      }
      if (!all_required) {
        return InvalidArgument(
            "Cannot add field {} as an identifier field: must not be nested in an optional field",
            f->value("name", ""));
      }
      id_list.push_back(id);
    }
    if (!id_list.empty()) out["identifier-field-ids"] = std::move(id_list);
  }
  out["fields"] = std::move(fields);
  return out;
}

}  // namespace

std::vector<int> IdentifierIds(const Json& schema) {
  std::vector<int> ids;
  if (auto it = schema.find("identifier-field-ids"); it != schema.end() && it->is_array()) {
    for (const auto& v : *it) {
      if (v.is_number_integer()) ids.push_back(v.get<int>());
    }
  }
  return ids;
}

// Java's assignFreshIds, in place (a copy per level would make it quadratic in the depth): a
// struct numbers its own fields first, then visits their types; a list takes its element id
// before its element type; a map its key and value ids before their types. Runs on a schema
// ParseSchemaJson accepted, so ids are ints and the nesting is bounded.
void AssignFreshIds(Json& type, int* last_id, std::unordered_map<int, int>* mapping) {
  if (!type.is_object()) return;
  const std::string kind = type.value("type", "");
  if (kind == "struct") {
    Json& fields = type["fields"];
    for (auto& f : fields) {
      const int id = ++*last_id;
      (*mapping)[f["id"].get<int>()] = id;
      f["id"] = id;
    }
    for (auto& f : fields) AssignFreshIds(f["type"], last_id, mapping);
  } else if (kind == "list") {
    const int id = ++*last_id;
    (*mapping)[type["element-id"].get<int>()] = id;
    type["element-id"] = id;
    AssignFreshIds(type["element"], last_id, mapping);
  } else if (kind == "map") {
    const int key_id = ++*last_id;
    const int value_id = ++*last_id;
    (*mapping)[type["key-id"].get<int>()] = key_id;
    (*mapping)[type["value-id"].get<int>()] = value_id;
    type["key-id"] = key_id;
    type["value-id"] = value_id;
    AssignFreshIds(type["key"], last_id, mapping);
    AssignFreshIds(type["value"], last_id, mapping);
  }
}

Json WithSchemaId(const Json& schema, int id) {
  Json out = Json::object();
  out["type"] = "struct";
  out["schema-id"] = id;
  if (auto ids = schema.find("identifier-field-ids"); ids != schema.end() && !ids->empty()) {
    out["identifier-field-ids"] = *ids;
  }
  // A document read from storage may have no fields at all (const operator[] would be UB).
  auto fields = schema.find("fields");
  out["fields"] = fields != schema.end() ? *fields : Json::array();
  return out;
}

// Schema.checkCompatibility: types and initial defaults the format version cannot hold.
Status CheckSchemaForVersion(const Json& schema, int format_version) {
  std::map<int, std::string> problems;
  // One path, grown and shrunk on the way (a copy per level would be quadratic in the depth);
  // it becomes text only for a problem. Recursion is bounded by the parsers' nesting limits.
  model::FieldName path;
  auto visit = [&](auto&& self, const Json& type) -> void {
    if (!type.is_object()) return;
    const std::string kind = type.value("type", "");
    auto check = [&](int id, std::string name, const Json& t, const Json* field) {
      path.push_back(std::move(name));
      if (t.is_string()) {
        const int min = MinFormatVersion(t);
        if (min > format_version) {
          problems[id] = fmt::format("Invalid type for {}: {} is not supported until v{}",
                                     JoinFieldName(path), t.get<std::string>(), min);
        }
      }
      if (field != nullptr && format_version < 3) {
        auto d = field->find("initial-default");
        if (d != field->end() && !d->is_null()) {
          problems[id] = fmt::format(
              "Invalid initial default for {}: non-null default ({}) is not supported until v3",
              JoinFieldName(path), Text(*d));
        }
      }
      self(self, t);
      path.pop_back();
    };
    if (kind == "struct") {
      for (const auto& f : type["fields"]) {
        check(IntOr(f, "id", 0), f.value("name", ""), f["type"], &f);
      }
    } else if (kind == "list") {
      check(IntOr(type, "element-id", 0), "element", type["element"], nullptr);
    } else if (kind == "map") {
      check(IntOr(type, "key-id", 0), "key", type["key"], nullptr);
      check(IntOr(type, "value-id", 0), "value", type["value"], nullptr);
    }
  };
  visit(visit, schema);
  if (problems.empty()) return Ok();
  std::string message = fmt::format("Invalid schema for v{}:", format_version);
  for (const auto& [id, p] : problems) message += "\n- " + p;
  return InvalidArgument("{}", message);
}
Result<Json> ParseSchemaJson(const Json& schema) {
  return CatchJsonErrors("Invalid schema", [&] { return ParseSchemaJsonUnguarded(schema); });
}

bool SameSchemaJson(const Json& a, const Json& b) {
  std::vector<int> ia = IdentifierIds(a);
  std::vector<int> ib = IdentifierIds(b);
  std::sort(ia.begin(), ia.end());
  std::sort(ib.begin(), ib.end());
  return ia == ib && SameJson(a.value("fields", Json::array()), b.value("fields", Json::array()));
}
}  // namespace cairn::iceberg
