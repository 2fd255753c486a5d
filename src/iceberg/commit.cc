// SPDX-License-Identifier: Apache-2.0
#include "iceberg/commit.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "common/deadline.h"
#include "common/util.h"
#include "iceberg/partitioning.h"
#include "iceberg/table_metadata.h"

namespace cairn::iceberg {

namespace {

constexpr int kSupportedFormatVersion = 3;
constexpr int kDefaultFormatVersion = 2;
constexpr int kMinRowLineageVersion = 3;
constexpr int64_t kOneMinuteMs = 60'000;
constexpr const char* kMain = "main";

std::string Text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool IsInt(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= 2'147'483'647ULL;
  if (v.is_number_integer()) {
    const int64_t x = v.get<int64_t>();
    return x >= -2'147'483'648LL && x <= 2'147'483'647LL;
  }
  return false;
}

bool IsLong(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= 9'223'372'036'854'775'807ULL;
  return v.is_number_integer();
}

Error ConflictError(const std::string& message) {
  return Error{ErrorCode::kConflict, EntityKind::kTable, message};
}

// Sorted-key copies compare regardless of member order.
bool SameJson(const Json& a, const Json& b) { return nlohmann::json(a) == nlohmann::json(b); }

// --- Schemas --------------------------------------------------------------------------------

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

// --- Partition specs and sort orders --------------------------------------------------------

std::string CanonicalTransform(const std::string& transform) {
  std::string lower = ToLower(Trim(transform));
  std::string compact;
  for (char c : lower) {
    if (c != ' ') compact += c;
  }
  for (const char* simple : {"identity", "void", "year", "month", "day", "hour"}) {
    if (compact == simple) return compact;
  }
  for (const char* prefix : {"bucket[", "truncate["}) {
    const std::string p = prefix;
    if (compact.rfind(p, 0) == 0 && compact.back() == ']') {
      auto n =
          ParseInt64(std::string_view(compact).substr(p.size(), compact.size() - p.size() - 1));
      if (n && *n > 0) return compact;
    }
  }
  return transform;  // Java keeps unknown transforms (UnknownTransform) as written
}

struct SpecField {
  std::string name;
  std::string transform;
  int source_id = 0;
  std::optional<int> field_id;
};

Result<std::vector<SpecField>> ParseSpecFields(const Json& spec) {
  if (!spec.is_object())
    return InvalidArgument("Cannot parse partition spec from non-object: {}", Text(spec));
  CAIRN_ASSIGN_OR_RETURN(const Json* fields, JsonGetField(spec, "fields"));
  if (!fields->is_array()) {
    return InvalidArgument("Cannot parse partition spec fields, not an array: {}", Text(*fields));
  }
  std::vector<SpecField> out;
  for (const auto& f : *fields) {
    if (!f.is_object())
      return InvalidArgument("Cannot parse partition field, not an object: {}", Text(f));
    SpecField sf;
    CAIRN_ASSIGN_OR_RETURN(sf.name, JsonGetString(f, "name"));
    CAIRN_ASSIGN_OR_RETURN(std::string transform, JsonGetString(f, "transform"));
    sf.transform = CanonicalTransform(transform);
    CAIRN_ASSIGN_OR_RETURN(sf.source_id, JsonGetInt(f, "source-id"));
    CAIRN_ASSIGN_OR_RETURN(sf.field_id, JsonGetIntOrNull(f, "field-id"));
    out.push_back(std::move(sf));
  }
  return out;
}

std::string SpecFieldText(const SpecField& f) {
  return fmt::format("{}: {}: {}({})", f.field_id.value_or(0), f.name, f.transform, f.source_id);
}

// UnboundPartitionSpec.bind + PartitionSpec.Builder.build against `schema`: field ids as given,
// else the next after the highest so far (from 999); names non-empty, unique and not naming
// another column than their source; sources must exist (void transforms excepted).
Result<std::vector<SpecField>> BindSpec(std::vector<SpecField> fields, const Json& schema,
                                        int* last_assigned) {
  int last = kPartitionDataIdStart - 1;
  std::set<std::string> names;
  for (auto& f : fields) {
    const bool source_exists = FindTypeById(schema, f.source_id) != nullptr;
    if (const Json* same_name = FindField(schema, Split(f.name, '.'));
        same_name != nullptr && source_exists && IntOr(*same_name, "id", -1) != f.source_id) {
      return InvalidArgument(
          "Cannot create identity partition sourced from different field in schema: {}", f.name);
    }
    if (f.name.empty()) return InvalidArgument("Cannot use empty partition name: {}", f.name);
    if (!names.insert(f.name).second) {
      return InvalidArgument("Cannot use partition name more than once: {}", f.name);
    }
    if (f.field_id) {
      last = std::max(last, *f.field_id);
    } else {
      f.field_id = ++last;
    }
  }
  for (const auto& f : fields) {
    if (f.transform != "void" && FindTypeById(schema, f.source_id) == nullptr) {
      return InvalidArgument("Cannot find source column for partition field: {}", SpecFieldText(f));
    }
  }
  *last_assigned = last;
  return fields;
}

Json SpecJson(int spec_id, const std::vector<SpecField>& fields) {
  Json out = Json::object();
  out["spec-id"] = spec_id;
  Json arr = Json::array();
  for (const auto& f : fields) {
    Json j = Json::object();
    j["name"] = f.name;
    j["transform"] = f.transform;
    j["source-id"] = f.source_id;
    j["field-id"] = *f.field_id;
    arr.push_back(std::move(j));
  }
  out["fields"] = std::move(arr);
  return out;
}

// PartitionSpec.compatibleWith: same fields by source, transform and name (ids ignored).
bool CompatibleSpec(const Json& spec, const std::vector<SpecField>& fields) {
  const Json& existing = MemberOrNull(spec, "fields");
  if (!existing.is_array() || existing.size() != fields.size()) return false;
  for (size_t i = 0; i < fields.size(); ++i) {
    const Json& e = existing[i];
    if (IntOr(e, "source-id", -1) != fields[i].source_id ||
        CanonicalTransform(e.value("transform", "")) != fields[i].transform ||
        e.value("name", "") != fields[i].name) {
      return false;
    }
  }
  return true;
}

struct SortField {
  std::string transform;
  int source_id = 0;
  std::string direction;
  std::string null_order;
};

Result<std::vector<SortField>> ParseSortFields(const Json& order) {
  if (!order.is_object())
    return InvalidArgument("Cannot parse sort order from non-object: {}", Text(order));
  CAIRN_ASSIGN_OR_RETURN(const Json* fields, JsonGetField(order, "fields"));
  if (!fields->is_array()) {
    return InvalidArgument("Cannot parse sort order fields, not an array: {}", Text(*fields));
  }
  std::vector<SortField> out;
  for (const auto& f : *fields) {
    if (!f.is_object())
      return InvalidArgument("Cannot parse sort field, not an object: {}", Text(f));
    SortField sf;
    CAIRN_ASSIGN_OR_RETURN(std::string transform, JsonGetString(f, "transform"));
    sf.transform = CanonicalTransform(transform);
    CAIRN_ASSIGN_OR_RETURN(sf.source_id, JsonGetInt(f, "source-id"));
    CAIRN_ASSIGN_OR_RETURN(std::string direction, JsonGetString(f, "direction"));
    sf.direction = ToLower(direction);
    if (sf.direction != "asc" && sf.direction != "desc") {
      return InvalidArgument("Invalid sort direction: {}", direction);
    }
    CAIRN_ASSIGN_OR_RETURN(std::string null_order, JsonGetString(f, "null-order"));
    sf.null_order = ToLower(null_order);
    if (sf.null_order != "nulls-first" && sf.null_order != "nulls-last") {
      return InvalidArgument("Invalid null order: {}", null_order);
    }
    out.push_back(std::move(sf));
  }
  return out;
}

Json SortOrderJson(int order_id, const std::vector<SortField>& fields) {
  Json out = Json::object();
  out["order-id"] = order_id;
  Json arr = Json::array();
  for (const auto& f : fields) {
    Json j = Json::object();
    j["transform"] = f.transform;
    j["source-id"] = f.source_id;
    j["direction"] = f.direction;
    j["null-order"] = f.null_order;
    arr.push_back(std::move(j));
  }
  out["fields"] = std::move(arr);
  return out;
}

bool SameOrder(const Json& order, const std::vector<SortField>& fields) {
  const Json& existing = MemberOrNull(order, "fields");
  if (!existing.is_array() || existing.size() != fields.size()) return false;
  for (size_t i = 0; i < fields.size(); ++i) {
    const Json& e = existing[i];
    if (IntOr(e, "source-id", -1) != fields[i].source_id ||
        CanonicalTransform(e.value("transform", "")) != fields[i].transform ||
        ToLower(e.value("direction", "")) != fields[i].direction ||
        ToLower(e.value("null-order", "")) != fields[i].null_order) {
      return false;
    }
  }
  return true;
}

Status CheckSortSources(const std::vector<SortField>& fields, const Json& schema) {
  for (const auto& f : fields) {
    if (f.transform != "void" && FindTypeById(schema, f.source_id) == nullptr) {
      return InvalidArgument("Cannot find source column for sort field: {}({}) {} {}", f.transform,
                             f.source_id, ToUpper(f.direction),
                             f.null_order == "nulls-first" ? "NULLS_FIRST" : "NULLS_LAST");
    }
  }
  return Ok();
}

// --- Snapshots, refs, statistics --------------------------------------------------------------

struct Snapshot {
  Json json;  // in SnapshotParser's field order
  int64_t id = 0;
  std::optional<int64_t> parent_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
};

Result<Snapshot> ParseSnapshot(const Json& node) {
  if (!node.is_object())
    return InvalidArgument("Cannot parse table version from a non-object: {}", Text(node));
  Snapshot s;
  if (node.contains("sequence-number")) {
    CAIRN_ASSIGN_OR_RETURN(s.sequence_number, JsonGetLong(node, "sequence-number"));
  }
  CAIRN_ASSIGN_OR_RETURN(s.id, JsonGetLong(node, "snapshot-id"));
  if (node.contains("parent-snapshot-id")) {
    CAIRN_ASSIGN_OR_RETURN(s.parent_id, JsonGetLongOrNull(node, "parent-snapshot-id"));
  }
  CAIRN_ASSIGN_OR_RETURN(s.timestamp_ms, JsonGetLong(node, "timestamp-ms"));
  Json summary;
  if (auto it = node.find("summary"); it != node.end()) {
    if (!it->is_object()) {
      return InvalidArgument("Cannot parse summary from non-object value: {}", Text(*it));
    }
    if (!it->empty()) {
      summary = Json::object();
      summary["operation"] = it->contains("operation") ? Json() : Json("overwrite");
      for (const auto& [k, v] : it->items()) {
        if (!v.is_string())
          return InvalidArgument("Cannot parse to a string value: {}: {}", k, Text(v));
        summary[k] = v;
      }
    }
  }
  CAIRN_ASSIGN_OR_RETURN(std::optional<int> schema_id, JsonGetIntOrNull(node, "schema-id"));
  CAIRN_ASSIGN_OR_RETURN(s.first_row_id, JsonGetLongOrNull(node, "first-row-id"));
  CAIRN_ASSIGN_OR_RETURN(s.added_rows, JsonGetLongOrNull(node, "added-rows"));
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> key_id, JsonGetStringOrNull(node, "key-id"));
  if (s.first_row_id && *s.first_row_id < 0) {
    return InvalidArgument("Invalid first-row-id (cannot be negative): {}", *s.first_row_id);
  }
  if (s.added_rows && *s.added_rows < 0) {
    return InvalidArgument("Invalid added-rows (cannot be negative): {}", *s.added_rows);
  }
  if (s.first_row_id && !s.added_rows) {
    return InvalidArgument("Invalid added-rows (required when first-row-id is set): null");
  }
  Json out = Json::object();
  if (s.sequence_number > 0) out["sequence-number"] = s.sequence_number;
  out["snapshot-id"] = s.id;
  if (s.parent_id) out["parent-snapshot-id"] = *s.parent_id;
  out["timestamp-ms"] = s.timestamp_ms;
  if (!summary.is_null()) out["summary"] = std::move(summary);
  if (node.contains("manifest-list")) {
    CAIRN_ASSIGN_OR_RETURN(std::string list, JsonGetString(node, "manifest-list"));
    out["manifest-list"] = list;
  } else {
    CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> manifests,
                           JsonGetStringList(node, "manifests"));
    out["manifests"] = manifests;
  }
  if (schema_id) out["schema-id"] = *schema_id;
  if (s.first_row_id) out["first-row-id"] = *s.first_row_id;
  if (s.added_rows) out["added-rows"] = *s.added_rows;
  if (key_id) out["key-id"] = *key_id;
  s.json = std::move(out);
  return s;
}

struct Ref {
  int64_t snapshot_id = 0;
  std::string type;  // "branch" or "tag"
  std::optional<int> min_snapshots_to_keep;
  std::optional<int64_t> max_snapshot_age_ms;
  std::optional<int64_t> max_ref_age_ms;

  Json ToJson() const {
    Json j = Json::object();
    j["snapshot-id"] = snapshot_id;
    j["type"] = type;
    if (min_snapshots_to_keep) j["min-snapshots-to-keep"] = *min_snapshots_to_keep;
    if (max_snapshot_age_ms) j["max-snapshot-age-ms"] = *max_snapshot_age_ms;
    if (max_ref_age_ms) j["max-ref-age-ms"] = *max_ref_age_ms;
    return j;
  }
};

// SnapshotRef.Builder validations.
Result<Ref> MakeRef(const Json& node) {
  Ref r;
  CAIRN_ASSIGN_OR_RETURN(r.snapshot_id, JsonGetLong(node, "snapshot-id"));
  CAIRN_ASSIGN_OR_RETURN(std::string type, JsonGetString(node, "type"));
  r.type = ToLower(type);
  if (r.type != "branch" && r.type != "tag") {
    return InvalidArgument("Invalid snapshot ref type: {}", type);
  }
  CAIRN_ASSIGN_OR_RETURN(r.min_snapshots_to_keep, JsonGetIntOrNull(node, "min-snapshots-to-keep"));
  CAIRN_ASSIGN_OR_RETURN(r.max_snapshot_age_ms, JsonGetLongOrNull(node, "max-snapshot-age-ms"));
  CAIRN_ASSIGN_OR_RETURN(r.max_ref_age_ms, JsonGetLongOrNull(node, "max-ref-age-ms"));
  const bool tag = r.type == "tag";
  if (r.min_snapshots_to_keep) {
    if (tag) return InvalidArgument("Tags do not support setting minSnapshotsToKeep");
    if (*r.min_snapshots_to_keep <= 0) {
      return InvalidArgument("Min snapshots to keep must be greater than 0");
    }
  }
  if (r.max_snapshot_age_ms) {
    if (tag) return InvalidArgument("Tags do not support setting maxSnapshotAgeMs");
    if (*r.max_snapshot_age_ms <= 0) {
      return InvalidArgument("Max snapshot age must be greater than 0 ms");
    }
  }
  if (r.max_ref_age_ms && *r.max_ref_age_ms <= 0) {
    return InvalidArgument("Max reference age must be greater than 0");
  }
  return r;
}

Result<Json> ParseStatistics(const Json& node, bool partition) {
  if (!node.is_object())
    return InvalidArgument("Cannot parse statistics file from non-object: {}", Text(node));
  Json out = Json::object();
  CAIRN_ASSIGN_OR_RETURN(out["snapshot-id"], JsonGetLong(node, "snapshot-id"));
  CAIRN_ASSIGN_OR_RETURN(out["statistics-path"], JsonGetString(node, "statistics-path"));
  CAIRN_ASSIGN_OR_RETURN(out["file-size-in-bytes"], JsonGetLong(node, "file-size-in-bytes"));
  if (!partition) {
    CAIRN_ASSIGN_OR_RETURN(out["file-footer-size-in-bytes"],
                           JsonGetLong(node, "file-footer-size-in-bytes"));
    if (auto it = node.find("key-metadata"); it != node.end() && !it->is_null()) {
      out["key-metadata"] = *it;
    }
    CAIRN_ASSIGN_OR_RETURN(const Json* blobs, JsonGetField(node, "blob-metadata"));
    if (!blobs->is_array()) {
      return InvalidArgument("Cannot parse blob metadata from non-array: {}", Text(*blobs));
    }
    out["blob-metadata"] = *blobs;
  }
  for (const auto& [k, v] : node.items()) {
    if (!out.contains(k)) out[k] = v;
  }
  return out;
}

Result<Json> ParseEncryptionKey(const Json& node) {
  if (!node.is_object()) {
    return InvalidArgument("Invalid encryption key, must be non-null object: {}", Text(node));
  }
  Json out = Json::object();
  CAIRN_ASSIGN_OR_RETURN(out["key-id"], JsonGetString(node, "key-id"));
  CAIRN_ASSIGN_OR_RETURN(out["encrypted-key-metadata"],
                         JsonGetString(node, "encrypted-key-metadata"));
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> by,
                         JsonGetStringOrNull(node, "encrypted-by-id"));
  if (by) out["encrypted-by-id"] = *by;
  if (node.contains("properties")) {
    CAIRN_ASSIGN_OR_RETURN(auto props, JsonGetStringMap(node, "properties"));
    if (!props.empty()) out["properties"] = props;
  }
  return out;
}

// --- Reading a base document --------------------------------------------------------------

// ordered_json keeps an object's members in a vector of pairs with a const key, which the vector
// cannot move: growing an object past its capacity copies every member, the history arrays
// included. A base document that Prepare may extend is copied with room to spare.
Json CopyWithRoom(const Json& object, size_t extra) {
  Json out = Json::object();
  auto& members = out.get_ref<Json::object_t&>();
  members.reserve(object.size() + extra);
  for (const auto& [key, value] : object.items()) members.emplace_back(key, value);
  return out;
}

// Fills what TableMetadataParser derives for older documents (v1 "schema"/"partition-spec", no
// sort orders, refs implied by current-snapshot-id) so the builder sees Java's in-memory model.
void Prepare(Json& md) {
  const int version = IntOr(md, "format-version", 1);
  if (!md.contains("schemas") || !md["schemas"].is_array()) {
    Json schema = md.contains("schema") ? md["schema"] : Json::object();
    if (!schema.contains("schema-id")) schema = WithSchemaId(schema, 0);
    md["schemas"] = Json::array({schema});
    md["current-schema-id"] = schema["schema-id"];
  }
  if (!md.contains("current-schema-id")) md["current-schema-id"] = 0;
  if (!md.contains("partition-specs") || !md["partition-specs"].is_array()) {
    Json spec = Json::object();
    spec["spec-id"] = 0;
    spec["fields"] = md.contains("partition-spec") ? md["partition-spec"] : Json::array();
    md["partition-specs"] = Json::array({spec});
    md["default-spec-id"] = 0;
  }
  if (!md.contains("default-spec-id")) md["default-spec-id"] = 0;
  if (!md.contains("last-partition-id")) {
    int last = kPartitionDataIdStart - 1;
    for (const auto& s : md["partition-specs"]) {
      for (const auto& f : s.value("fields", Json::array()))
        last = std::max(last, IntOr(f, "field-id", 0));
    }
    md["last-partition-id"] = last;
  }
  if (!md.contains("sort-orders") || !md["sort-orders"].is_array() || md["sort-orders"].empty()) {
    md["sort-orders"] = Json::array({SortOrderJson(0, {})});
    md["default-sort-order-id"] = 0;
  }
  if (!md.contains("default-sort-order-id")) md["default-sort-order-id"] = 0;
  if (!md.contains("last-column-id")) {
    int last = 0;
    for (const auto& s : md["schemas"]) last = std::max(last, MaxFieldId(s));
    md["last-column-id"] = last;
  }
  if (!md.contains("properties") || !md["properties"].is_object())
    md["properties"] = Json::object();
  for (const char* key : {"snapshots", "snapshot-log", "metadata-log", "statistics",
                          "partition-statistics", "encryption-keys"}) {
    if (!md.contains(key) || !md[key].is_array()) md[key] = Json::array();
  }
  auto cur = md.find("current-snapshot-id");
  int64_t current = cur != md.end() && cur->is_number_integer() ? cur->get<int64_t>() : -1;
  md["current-snapshot-id"] = current;
  if (!md.contains("refs") || !md["refs"].is_object()) {
    md["refs"] = Json::object();
    if (current != -1) {
      Json main = Json::object();
      main["snapshot-id"] = current;
      main["type"] = "branch";
      md["refs"][kMain] = std::move(main);
    }
  }
  if (version >= 2 && !md.contains("last-sequence-number")) md["last-sequence-number"] = 0;
  if (!md.contains("next-row-id")) md["next-row-id"] = 0;
}

// --- The builder --------------------------------------------------------------------------

class TableBuilder {
 public:
  TableBuilder(Json md, int64_t now_ms) : md_(std::move(md)), now_ms_(now_ms) {
    format_version_ = IntOr(md_, "format-version", 1);
    last_sequence_number_ = LongOr(md_, "last-sequence-number", int64_t{0});
    next_row_id_ = LongOr(md_, "next-row-id", int64_t{0});
  }

  Status Apply(const Json& update);
  Result<Json> Build();
  int changes() const { return changes_; }

 private:
  Status AssignUuid(const Json& u);
  Status UpgradeFormatVersion(const Json& u);
  Status AddSchema(const Json& u);
  Status SetCurrentSchema(int schema_id);
  Status AddSpec(const Json& u);
  Status SetDefaultSpec(int spec_id);
  Status AddSortOrder(const Json& u);
  Status SetDefaultSortOrder(int order_id);
  Status AddSnapshot(const Json& u);
  Status SetRef(const std::string& name, const Ref& ref);
  void RemoveRef(const std::string& name);
  void RemoveSnapshots(const std::set<int64_t>& ids);
  void RemoveStatistics(const char* key, int64_t snapshot_id);
  void SetStatistics(const char* key, Json file);

  const Json* SchemaById(int id) const {
    for (const auto& s : md_["schemas"]) {
      if (IntOr(s, "schema-id", -1) == id) return &s;
    }
    return nullptr;
  }
  const Json* CurrentSchemaJson() const { return SchemaById(IntOr(md_, "current-schema-id", 0)); }
  bool HasSpec(int id) const {
    return std::any_of(md_["partition-specs"].begin(), md_["partition-specs"].end(),
                       [&](const Json& s) { return IntOr(s, "spec-id", -1) == id; });
  }
  bool HasOrder(int id) const {
    return std::any_of(md_["sort-orders"].begin(), md_["sort-orders"].end(),
                       [&](const Json& s) { return IntOr(s, "order-id", -1) == id; });
  }
  const Json* SnapshotById(int64_t id) const {
    for (const auto& s : md_["snapshots"]) {
      if (LongOr(s, "snapshot-id", int64_t{-1}) == id) return &s;
    }
    return nullptr;
  }
  static bool Contains(const std::vector<int>& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  }
  static bool Contains(const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  }

  Json md_;
  int64_t now_ms_;
  int format_version_ = kDefaultFormatVersion;
  int64_t last_sequence_number_ = 0;
  int64_t next_row_id_ = 0;
  int changes_ = 0;
  std::optional<int> last_added_schema_;
  std::optional<int> last_added_spec_;
  std::optional<int> last_added_order_;
  std::vector<int> added_schema_ids_;
  std::vector<int> added_spec_ids_;
  std::vector<int> added_order_ids_;
  std::vector<int64_t> added_snapshot_ids_;
  std::vector<int64_t> main_set_to_added_;  // main set to a snapshot added earlier in the commit
  bool removed_snapshots_ = false;
};

Status TableBuilder::AssignUuid(const Json& u) {
  CAIRN_ASSIGN_OR_RETURN(std::string uuid, JsonGetString(u, "uuid"));
  if (md_.value("table-uuid", "") != uuid) {
    md_["table-uuid"] = uuid;
    ++changes_;
  }
  return Ok();
}

Status TableBuilder::UpgradeFormatVersion(const Json& u) {
  CAIRN_ASSIGN_OR_RETURN(int version, JsonGetInt(u, "format-version"));
  if (version > kSupportedFormatVersion) {
    return InvalidArgument(
        "Cannot upgrade table to unsupported format version: v{} (supported: v{})", version,
        kSupportedFormatVersion);
  }
  if (version < format_version_) {
    return InvalidArgument("Cannot downgrade v{} table to v{}", format_version_, version);
  }
  if (version == format_version_) return Ok();
  format_version_ = version;
  md_["format-version"] = version;
  if (version >= 2 && !md_.contains("table-uuid")) md_["table-uuid"] = RandomUuid();
  ++changes_;
  return Ok();
}

Status TableBuilder::AddSchema(const Json& u) {
  CAIRN_ASSIGN_OR_RETURN(const Json* node, JsonGetField(u, "schema"));
  CAIRN_ASSIGN_OR_RETURN(Json schema, ParseSchemaJson(*node));
  const int last_column_id = IntOr(md_, "last-column-id", 0);
  const int new_last = std::max(last_column_id, MaxFieldId(schema));
  CAIRN_RETURN_IF_ERROR(CheckSchemaForVersion(schema, format_version_));

  // reuseOrCreateNewSchemaId: an identical schema's id, else one more than the highest.
  int new_id = IntOr(md_, "current-schema-id", 0);
  bool found = false;
  for (const auto& s : md_["schemas"]) {
    const int id = IntOr(s, "schema-id", 0);
    if (SameSchemaJson(s, schema)) {
      new_id = id;
      found = true;
      break;
    }
    if (id >= new_id) new_id = id + 1;
  }
  if (found && new_last == last_column_id) {
    const bool is_new = last_added_schema_ && Contains(added_schema_ids_, new_id);
    last_added_schema_ = is_new ? std::optional<int>(new_id) : std::nullopt;
    return Ok();
  }
  md_["last-column-id"] = new_last;
  if (!found) md_["schemas"].push_back(WithSchemaId(schema, new_id));
  added_schema_ids_.push_back(new_id);
  last_added_schema_ = new_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::SetCurrentSchema(int schema_id) {
  if (schema_id == -1) {
    if (!last_added_schema_) {
      return InvalidArgument("Cannot set last added schema: no schema has been added");
    }
    return SetCurrentSchema(*last_added_schema_);
  }
  if (IntOr(md_, "current-schema-id", 0) == schema_id) return Ok();
  if (SchemaById(schema_id) == nullptr) {
    return InvalidArgument("Cannot set current schema to unknown schema: {}", schema_id);
  }
  md_["current-schema-id"] = schema_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::AddSpec(const Json& u) {
  CAIRN_ASSIGN_OR_RETURN(const Json* node, JsonGetField(u, "spec"));
  CAIRN_ASSIGN_OR_RETURN(std::vector<SpecField> fields, ParseSpecFields(*node));
  const Json* schema = CurrentSchemaJson();
  if (schema == nullptr) {
    return InvalidArgument("Cannot add a partition spec: the table has no current schema");
  }
  int spec_last = 0;
  CAIRN_ASSIGN_OR_RETURN(fields, BindSpec(std::move(fields), *schema, &spec_last));

  int new_id = 0;
  std::optional<int> existing;
  for (const auto& s : md_["partition-specs"]) {
    const int id = IntOr(s, "spec-id", 0);
    if (CompatibleSpec(s, fields)) {
      existing = id;
      break;
    }
    if (new_id <= id) new_id = id + 1;
  }
  if (existing) {
    const bool is_new = last_added_spec_ && Contains(added_spec_ids_, *last_added_spec_);
    last_added_spec_ = is_new ? existing : std::nullopt;
    return Ok();
  }
  if (format_version_ == 1) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (*fields[i].field_id != kPartitionDataIdStart + static_cast<int>(i)) {
        return InvalidArgument("Spec does not use sequential IDs that are required in v1: {}",
                               Text(SpecJson(new_id, fields)));
      }
    }
  }
  md_["partition-specs"].push_back(SpecJson(new_id, fields));
  md_["last-partition-id"] = std::max(IntOr(md_, "last-partition-id", 0), spec_last);
  added_spec_ids_.push_back(new_id);
  last_added_spec_ = new_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::SetDefaultSpec(int spec_id) {
  if (spec_id == -1) {
    if (!last_added_spec_)
      return InvalidArgument("Cannot set last added spec: no spec has been added");
    return SetDefaultSpec(*last_added_spec_);
  }
  if (IntOr(md_, "default-spec-id", 0) == spec_id) return Ok();
  if (!HasSpec(spec_id)) {
    return InvalidArgument("Cannot set default partition spec to unknown spec: {}", spec_id);
  }
  md_["default-spec-id"] = spec_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::AddSortOrder(const Json& u) {
  CAIRN_ASSIGN_OR_RETURN(const Json* node, JsonGetField(u, "sort-order"));
  CAIRN_ASSIGN_OR_RETURN(std::vector<SortField> fields, ParseSortFields(*node));
  const Json* schema = CurrentSchemaJson();
  if (schema == nullptr)
    return InvalidArgument("Cannot add a sort order: the table has no current schema");
  CAIRN_RETURN_IF_ERROR(CheckSortSources(fields, *schema));
  int new_id = 0;
  std::optional<int> existing;
  if (!fields.empty()) {
    new_id = 1;
    for (const auto& o : md_["sort-orders"]) {
      const int id = IntOr(o, "order-id", 0);
      if (SameOrder(o, fields)) {
        existing = id;
        break;
      }
      if (new_id <= id) new_id = id + 1;
    }
  } else if (HasOrder(0)) {
    existing = 0;
  }
  if (existing) {
    const bool is_new = last_added_order_ && Contains(added_order_ids_, *last_added_order_);
    last_added_order_ = is_new ? existing : std::nullopt;
    return Ok();
  }
  md_["sort-orders"].push_back(SortOrderJson(new_id, fields));
  added_order_ids_.push_back(new_id);
  last_added_order_ = new_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::SetDefaultSortOrder(int order_id) {
  if (order_id == -1) {
    if (!last_added_order_) {
      return InvalidArgument("Cannot set last added sort order: no sort order has been added");
    }
    return SetDefaultSortOrder(*last_added_order_);
  }
  if (IntOr(md_, "default-sort-order-id", 0) == order_id) return Ok();
  if (!HasOrder(order_id)) {
    return InvalidArgument("Cannot set default sort order to unknown sort order: {}", order_id);
  }
  md_["default-sort-order-id"] = order_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::AddSnapshot(const Json& u) {
  CAIRN_ASSIGN_OR_RETURN(const Json* node, JsonGetField(u, "snapshot"));
  CAIRN_ASSIGN_OR_RETURN(Snapshot s, ParseSnapshot(*node));
  if (md_["schemas"].empty()) {
    return InvalidArgument("Attempting to add a snapshot before a schema is added");
  }
  if (md_["partition-specs"].empty()) {
    return InvalidArgument("Attempting to add a snapshot before a partition spec is added");
  }
  if (md_["sort-orders"].empty()) {
    return InvalidArgument("Attempting to add a snapshot before a sort order is added");
  }
  if (SnapshotById(s.id) != nullptr) {
    return InvalidArgument("Snapshot already exists for id: {}", s.id);
  }
  if (format_version_ != 1 && s.sequence_number <= last_sequence_number_ && s.parent_id) {
    return ConflictError(fmt::format(
        "Validation failed, please retry: Cannot add snapshot with sequence number {} older "
        "than last sequence number {}",
        s.sequence_number, last_sequence_number_));
  }
  if (format_version_ >= kMinRowLineageVersion) {
    if (!s.first_row_id) return InvalidArgument("Cannot add a snapshot: first-row-id is null");
    if (*s.first_row_id < next_row_id_) {
      return ConflictError(fmt::format(
          "Validation failed, please retry: Cannot add a snapshot, first-row-id is behind table "
          "next-row-id: {} < {}",
          *s.first_row_id, next_row_id_));
    }
  }
  last_sequence_number_ = s.sequence_number;
  if (format_version_ >= kMinRowLineageVersion) next_row_id_ += s.added_rows.value_or(0);
  md_["snapshots"].push_back(std::move(s.json));
  added_snapshot_ids_.push_back(s.id);
  ++changes_;
  return Ok();
}

Status TableBuilder::SetRef(const std::string& name, const Ref& ref) {
  Json& refs = md_["refs"];
  if (auto it = refs.find(name); it != refs.end() && SameJson(*it, ref.ToJson())) return Ok();
  const Json* snapshot = SnapshotById(ref.snapshot_id);
  if (snapshot == nullptr) {
    return InvalidArgument("Cannot set {} to unknown snapshot: {}", name, ref.snapshot_id);
  }
  if (name == kMain && ref.type != "branch") {
    return InvalidArgument("Cannot set {} to a tag, it must be a branch", kMain);
  }
  if (name == kMain) {
    md_["current-snapshot-id"] = ref.snapshot_id;
    // A rollback to an existing snapshot is logged at the time of the change.
    const bool added = Contains(added_snapshot_ids_, ref.snapshot_id);
    Json entry = Json::object();
    entry["timestamp-ms"] = added ? LongOr(*snapshot, "timestamp-ms", now_ms_) : now_ms_;
    entry["snapshot-id"] = ref.snapshot_id;
    md_["snapshot-log"].push_back(std::move(entry));
    if (added) main_set_to_added_.push_back(ref.snapshot_id);
  }
  refs[name] = ref.ToJson();
  ++changes_;
  return Ok();
}

void TableBuilder::RemoveRef(const std::string& name) {
  if (name == kMain) md_["current-snapshot-id"] = -1;
  Json& refs = md_["refs"];
  if (refs.contains(name)) {
    refs.erase(name);
    ++changes_;
  }
}

void TableBuilder::RemoveStatistics(const char* key, int64_t snapshot_id) {
  Json& files = md_[key];
  const size_t before = files.size();
  Json kept = Json::array();
  for (auto& f : files) {
    if (LongOr(f, "snapshot-id", int64_t{-1}) != snapshot_id) kept.push_back(std::move(f));
  }
  files = std::move(kept);
  if (files.size() != before) ++changes_;
}

void TableBuilder::SetStatistics(const char* key, Json file) {
  Json& files = md_[key];
  const int64_t id = file["snapshot-id"].get<int64_t>();
  for (auto& f : files) {
    if (LongOr(f, "snapshot-id", int64_t{-1}) == id) {
      f = std::move(file);
      ++changes_;
      return;
    }
  }
  files.push_back(std::move(file));
  ++changes_;
}

void TableBuilder::RemoveSnapshots(const std::set<int64_t>& ids) {
  Json kept = Json::array();
  for (auto& s : md_["snapshots"]) {
    const int64_t id = LongOr(s, "snapshot-id", int64_t{-1});
    if (ids.count(id) > 0) {
      ++changes_;
      removed_snapshots_ = true;
      RemoveStatistics("statistics", id);
      RemoveStatistics("partition-statistics", id);
    } else {
      kept.push_back(std::move(s));
    }
  }
  md_["snapshots"] = std::move(kept);
  std::vector<std::string> dangling;
  for (const auto& [name, ref] : md_["refs"].items()) {
    if (SnapshotById(LongOr(ref, "snapshot-id", int64_t{-1})) == nullptr) dangling.push_back(name);
  }
  for (const auto& name : dangling) RemoveRef(name);
}

Status TableBuilder::Apply(const Json& update) {
  if (!update.is_object()) {
    return InvalidArgument("Cannot parse metadata update from non-object value: {}", Text(update));
  }
  auto action_it = update.find("action");
  if (action_it == update.end() || action_it->is_null()) {
    return InvalidArgument("Cannot parse metadata update. Missing field: action");
  }
  CAIRN_ASSIGN_OR_RETURN(std::string action, JsonGetString(update, "action"));
  action = ToLower(action);
  const Json& u = update;
  if (action == "assign-uuid") return AssignUuid(u);
  if (action == "upgrade-format-version") return UpgradeFormatVersion(u);
  if (action == "add-schema") return AddSchema(u);
  if (action == "set-current-schema") {
    CAIRN_ASSIGN_OR_RETURN(int id, JsonGetInt(u, "schema-id"));
    return SetCurrentSchema(id);
  }
  if (action == "add-spec") return AddSpec(u);
  if (action == "set-default-spec") {
    CAIRN_ASSIGN_OR_RETURN(int id, JsonGetInt(u, "spec-id"));
    return SetDefaultSpec(id);
  }
  if (action == "add-sort-order") return AddSortOrder(u);
  if (action == "set-default-sort-order") {
    CAIRN_ASSIGN_OR_RETURN(int id, JsonGetInt(u, "sort-order-id"));
    return SetDefaultSortOrder(id);
  }
  if (action == "add-snapshot") return AddSnapshot(u);
  if (action == "set-snapshot-ref") {
    CAIRN_ASSIGN_OR_RETURN(std::string name, JsonGetString(u, "ref-name"));
    CAIRN_ASSIGN_OR_RETURN(Ref ref, MakeRef(u));
    return SetRef(name, ref);
  }
  if (action == "remove-snapshots") {
    auto it = u.find("snapshot-ids");
    if (it == u.end() || it->is_null()) {
      return InvalidArgument("Invalid set of snapshot ids to remove: must be non-null");
    }
    if (!it->is_array()) {
      return InvalidArgument("Cannot parse JSON array from non-array value: snapshot-ids: {}",
                             Text(*it));
    }
    std::set<int64_t> ids;
    for (const auto& v : *it) {
      if (!IsLong(v)) {
        return InvalidArgument("Cannot parse long from non-long value in snapshot-ids: {}",
                               Text(v));
      }
      ids.insert(v.get<int64_t>());
    }
    RemoveSnapshots(ids);
    return Ok();
  }
  if (action == "remove-snapshot-ref") {
    CAIRN_ASSIGN_OR_RETURN(std::string name, JsonGetString(u, "ref-name"));
    RemoveRef(name);
    return Ok();
  }
  if (action == "set-location") {
    CAIRN_ASSIGN_OR_RETURN(std::string location, JsonGetString(u, "location"));
    if (md_.contains("location") && md_["location"] == location) return Ok();
    while (location.size() > 1 && location.back() == '/') location.pop_back();
    md_["location"] = location;
    ++changes_;
    return Ok();
  }
  if (action == "set-properties") {
    // The REST spec says "updates"; Java first wrote "updated" and still reads both.
    const char* key = u.contains("updated") && !u.contains("updates") ? "updated" : "updates";
    CAIRN_ASSIGN_OR_RETURN(auto updates, JsonGetStringMap(u, key));
    if (updates.empty()) return Ok();
    for (const auto& [k, v] : updates) md_["properties"][k] = v;
    ++changes_;
    return Ok();
  }
  if (action == "remove-properties") {
    const char* key = u.contains("removed") && !u.contains("removals") ? "removed" : "removals";
    CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> removals, JsonGetStringList(u, key));
    if (removals.empty()) return Ok();
    for (const auto& k : removals) md_["properties"].erase(k);
    ++changes_;
    return Ok();
  }
  if (action == "set-statistics" || action == "set-partition-statistics") {
    const bool partition = action == "set-partition-statistics";
    CAIRN_ASSIGN_OR_RETURN(const Json* node,
                           JsonGetField(u, partition ? "partition-statistics" : "statistics"));
    CAIRN_ASSIGN_OR_RETURN(Json file, ParseStatistics(*node, partition));
    SetStatistics(partition ? "partition-statistics" : "statistics", std::move(file));
    return Ok();
  }
  if (action == "remove-statistics" || action == "remove-partition-statistics") {
    CAIRN_ASSIGN_OR_RETURN(int64_t id, JsonGetLong(u, "snapshot-id"));
    RemoveStatistics(action == "remove-statistics" ? "statistics" : "partition-statistics", id);
    return Ok();
  }
  if (action == "remove-partition-specs" || action == "remove-schemas") {
    const bool specs = action == "remove-partition-specs";
    const char* key = specs ? "spec-ids" : "schema-ids";
    auto it = u.find(key);
    if (it == u.end()) return InvalidArgument("Cannot parse missing set: {}", key);
    if (!it->is_array()) {
      return InvalidArgument("Cannot parse JSON array from non-array value: {}: {}", key,
                             Text(*it));
    }
    std::set<int> ids;
    for (const auto& v : *it) {
      if (!IsInt(v)) {
        return InvalidArgument("Cannot parse integer from non-int value in {}: {}", key, Text(v));
      }
      ids.insert(v.get<int>());
    }
    if (specs && ids.count(IntOr(md_, "default-spec-id", 0)) > 0) {
      return InvalidArgument("Cannot remove the default partition spec");
    }
    if (!specs && ids.count(IntOr(md_, "current-schema-id", 0)) > 0) {
      return InvalidArgument("Cannot remove the current schema");
    }
    if (ids.empty()) return Ok();
    Json& list = md_[specs ? "partition-specs" : "schemas"];
    Json kept = Json::array();
    for (auto& item : list) {
      if (ids.count(item.value(specs ? "spec-id" : "schema-id", -1)) == 0)
        kept.push_back(std::move(item));
    }
    list = std::move(kept);
    ++changes_;
    return Ok();
  }
  if (action == "add-encryption-key") {
    auto it = u.find("encryption-key");
    if (it == u.end() || !it->is_object()) {
      return InvalidArgument("Invalid encryption key, must be non-null object: {}",
                             it == u.end() ? "null" : Text(*it));
    }
    CAIRN_ASSIGN_OR_RETURN(Json key, ParseEncryptionKey(*it));
    Json& keys = md_["encryption-keys"];
    for (const auto& k : keys) {
      if (k.value("key-id", "") == key["key-id"]) return Ok();
    }
    keys.push_back(std::move(key));
    ++changes_;
    return Ok();
  }
  if (action == "remove-encryption-key") {
    CAIRN_ASSIGN_OR_RETURN(std::string id, JsonGetString(u, "key-id"));
    Json& keys = md_["encryption-keys"];
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].value("key-id", "") == id) {
        keys.erase(i);
        ++changes_;
        break;
      }
    }
    return Ok();
  }
  if (action == "add-view-version" || action == "set-current-view-version") {
    return InvalidArgument("Cannot apply update {} to a table", action == "add-view-version"
                                                                    ? "AddViewVersion"
                                                                    : "SetCurrentViewVersion");
  }
  return InvalidArgument("Cannot convert metadata update action to json: {}", action);
}

Result<Json> TableBuilder::Build() {
  if (md_["schemas"].empty() || CurrentSchemaJson() == nullptr) {
    return InvalidArgument("Invalid table metadata: no current schema");
  }
  if (md_["partition-specs"].empty())
    return InvalidArgument("Partition specs cannot be null or empty");
  if (md_["sort-orders"].empty()) return InvalidArgument("Sort orders cannot be null or empty");
  const Json& schema = *CurrentSchemaJson();
  const Json* spec = DefaultSpec(md_);
  if (spec == nullptr) {
    return InvalidArgument("Cannot find default partition spec: {}", Text(md_["default-spec-id"]));
  }
  for (const auto& f : MemberOrNull(*spec, "fields")) {
    if (CanonicalTransform(f.value("transform", "")) != "void" &&
        FindTypeById(schema, IntOr(f, "source-id", -1)) == nullptr) {
      return InvalidArgument("Cannot find source column for partition field: {}: {}: {}({})",
                             IntOr(f, "field-id", 0), f.value("name", ""), f.value("transform", ""),
                             IntOr(f, "source-id", -1));
    }
  }
  const Json* order = DefaultSortOrder(md_);
  if (order == nullptr) {
    return InvalidArgument("Cannot find default sort order: {}",
                           Text(md_["default-sort-order-id"]));
  }
  CAIRN_ASSIGN_OR_RETURN(std::vector<SortField> sort_fields, ParseSortFields(*order));
  CAIRN_RETURN_IF_ERROR(CheckSortSources(sort_fields, schema));
  if (format_version_ == 1 && last_sequence_number_ != 0) {
    return InvalidArgument("Sequence number must be 0 in v1: {}", last_sequence_number_);
  }
  for (const auto& s : md_["snapshots"]) {
    const int64_t seq = LongOr(s, "sequence-number", int64_t{0});
    if (seq > last_sequence_number_) {
      return InvalidArgument(
          "Invalid snapshot with sequence number {} greater than last sequence number {}", seq,
          last_sequence_number_);
    }
  }

  // updateSnapshotLog: drop intermediate snapshots of this commit and, when snapshots were
  // removed, the history before any entry whose snapshot is gone.
  const int64_t current = md_["current-snapshot-id"].get<int64_t>();
  std::vector<int64_t> intermediate;
  for (int64_t id : main_set_to_added_) {
    if (id != current) intermediate.push_back(id);
  }
  if (!intermediate.empty() || removed_snapshots_) {
    Json log = Json::array();
    for (auto& e : md_["snapshot-log"]) {
      const int64_t id = LongOr(e, "snapshot-id", int64_t{-1});
      if (SnapshotById(id) != nullptr) {
        if (!Contains(intermediate, id)) log.push_back(std::move(e));
      } else if (removed_snapshots_) {
        log = Json::array();
      }
    }
    if (SnapshotById(current) != nullptr &&
        (log.empty() || LongOr(log.back(), "snapshot-id", int64_t{-1}) != current)) {
      return InvalidArgument(
          "Cannot set invalid snapshot log: latest entry is not the current snapshot");
    }
    md_["snapshot-log"] = std::move(log);
  }
  if (!md_["snapshot-log"].empty()) {
    const int64_t last = LongOr(md_["snapshot-log"].back(), "timestamp-ms", int64_t{0});
    if (now_ms_ - last < -kOneMinuteMs) {
      return InvalidArgument("Invalid update timestamp {}: before last snapshot log entry at {}",
                             now_ms_, last);
    }
  }

  md_["format-version"] = format_version_;
  if (!md_.contains("table-uuid") && format_version_ > 1) md_["table-uuid"] = RandomUuid();
  if (format_version_ > 1) {
    md_["last-sequence-number"] = last_sequence_number_;
  } else {
    md_.erase("last-sequence-number");
  }
  if (format_version_ >= kMinRowLineageVersion) {
    md_["next-row-id"] = next_row_id_;
  } else {
    md_.erase("next-row-id");
  }
  if (md_["encryption-keys"].empty()) md_.erase("encryption-keys");
  if (format_version_ == 1) {
    md_["schema"] = schema;
    md_["partition-spec"] = MemberOrNull(*spec, "fields");
  }
  md_["last-updated-ms"] = now_ms_;
  if (!md_.contains("metadata-log")) md_["metadata-log"] = Json::array();
  return NormalizeMetadata(std::move(md_));
}

Json EmptyTable(const Json& updates) {
  int version = kDefaultFormatVersion;
  for (const auto& u : updates) {
    if (u.is_object() && u.value("action", "") == "upgrade-format-version" &&
        u.contains("format-version") && IsInt(u["format-version"])) {
      version = u["format-version"].get<int>();
      break;
    }
  }
  Json md = Json::object();
  md["format-version"] = version;
  md["table-uuid"] = RandomUuid();
  md["last-sequence-number"] = 0;
  md["last-column-id"] = 0;
  md["current-schema-id"] = 0;
  md["schemas"] = Json::array();
  md["default-spec-id"] = 0;
  md["partition-specs"] = Json::array();
  md["last-partition-id"] = 0;
  md["default-sort-order-id"] = 0;
  md["sort-orders"] = Json::array();
  md["properties"] = Json::object();
  md["current-snapshot-id"] = -1;
  md["next-row-id"] = 0;
  md["encryption-keys"] = Json::array();
  md["refs"] = Json::object();
  md["snapshots"] = Json::array();
  md["statistics"] = Json::array();
  md["partition-statistics"] = Json::array();
  md["snapshot-log"] = Json::array();
  md["metadata-log"] = Json::array();
  return md;
}

// --- Requirements -------------------------------------------------------------------------

struct Requirement {
  std::string type;
  const Json* node = nullptr;
};

const char* RequirementClass(const std::string& type) {
  static const std::map<std::string, const char*> kNames = {
      {"assert-create", "AssertTableDoesNotExist"},
      {"assert-table-uuid", "AssertTableUUID"},
      {"assert-view-uuid", "AssertViewUUID"},
      {"assert-ref-snapshot-id", "AssertRefSnapshotID"},
      {"assert-last-assigned-field-id", "AssertLastAssignedFieldId"},
      {"assert-current-schema-id", "AssertCurrentSchemaID"},
      {"assert-last-assigned-partition-id", "AssertLastAssignedPartitionId"},
      {"assert-default-spec-id", "AssertDefaultSpecID"},
      {"assert-default-sort-order-id", "AssertDefaultSortOrderID"}};
  auto it = kNames.find(type);
  return it == kNames.end() ? nullptr : it->second;
}

// Parses every requirement up front, as Jackson does for the whole request.
Result<std::vector<Requirement>> ParseRequirements(const Json& requirements) {
  if (!requirements.is_array()) {
    return InvalidArgument("Cannot parse requirements from non-array: {}", Text(requirements));
  }
  std::vector<Requirement> out;
  for (const auto& r : requirements) {
    if (!r.is_object()) {
      return InvalidArgument("Cannot parse update requirement from non-object value: {}", Text(r));
    }
    if (!r.contains("type") || r["type"].is_null()) {
      return InvalidArgument("Cannot parse update requirement. Missing field: type");
    }
    CAIRN_ASSIGN_OR_RETURN(std::string type, JsonGetString(r, "type"));
    type = ToLower(type);
    if (RequirementClass(type) == nullptr) {
      return InvalidArgument("Unrecognized update requirement. Cannot convert to json: {}", type);
    }
    if (type == "assert-table-uuid" || type == "assert-view-uuid") {
      CAIRN_RETURN_IF_ERROR(JsonGetString(r, "uuid"));
    } else if (type == "assert-ref-snapshot-id") {
      CAIRN_RETURN_IF_ERROR(JsonGetString(r, "ref"));
      CAIRN_RETURN_IF_ERROR(JsonGetLongOrNull(r, "snapshot-id"));
    } else if (type != "assert-create") {
      const std::string key = type == "assert-last-assigned-field-id" ? "last-assigned-field-id"
                              : type == "assert-current-schema-id"    ? "current-schema-id"
                              : type == "assert-last-assigned-partition-id"
                                  ? "last-assigned-partition-id"
                              : type == "assert-default-spec-id" ? "default-spec-id"
                                                                 : "default-sort-order-id";
      CAIRN_RETURN_IF_ERROR(JsonGetInt(r, key));
    }
    out.push_back({type, &r});
  }
  return out;
}

Status CheckOne(const Requirement& r, const Json& md) {
  const Json& n = *r.node;
  auto fail = [](const std::string& what) { return ConflictError("Requirement failed: " + what); };
  if (r.type == "assert-create") return fail("table already exists");
  if (r.type == "assert-view-uuid") {
    return InvalidArgument("Cannot validate AssertViewUUID against a table");
  }
  if (r.type == "assert-table-uuid") {
    const std::string uuid = n["uuid"].get<std::string>();
    const std::string base = md.contains("table-uuid") && md["table-uuid"].is_string()
                                 ? md["table-uuid"].get<std::string>()
                                 : "null";
    if (!EqualsIgnoreCase(uuid, base)) {
      return fail(fmt::format("UUID does not match: expected {} != {}", base, uuid));
    }
    return Ok();
  }
  if (r.type == "assert-ref-snapshot-id") {
    const std::string name = n["ref"].get<std::string>();
    const std::optional<int64_t> expected =
        n.contains("snapshot-id") && !n["snapshot-id"].is_null()
            ? std::optional<int64_t>(n["snapshot-id"].get<int64_t>())
            : std::nullopt;
    const Json& refs = md["refs"];
    if (auto it = refs.find(name); it != refs.end()) {
      const std::string type = it->value("type", "branch") == "tag" ? "tag" : "branch";
      const int64_t actual = LongOr(*it, "snapshot-id", int64_t{-1});
      if (!expected) return fail(fmt::format("{} {} was created concurrently", type, name));
      if (*expected != actual) {
        return fail(
            fmt::format("{} {} has changed: expected id {} != {}", type, name, *expected, actual));
      }
    } else if (expected) {
      return fail(fmt::format("branch or tag {} is missing, expected {}", name, *expected));
    }
    return Ok();
  }
  struct IntCheck {
    const char* type;
    const char* field;
    const char* md_field;
    const char* what;
  };
  static const IntCheck kChecks[] = {
      {"assert-last-assigned-field-id", "last-assigned-field-id", "last-column-id",
       "last assigned field id changed"},
      {"assert-current-schema-id", "current-schema-id", "current-schema-id",
       "current schema changed"},
      {"assert-last-assigned-partition-id", "last-assigned-partition-id", "last-partition-id",
       "last assigned partition id changed"},
      {"assert-default-spec-id", "default-spec-id", "default-spec-id",
       "default partition spec changed"},
      {"assert-default-sort-order-id", "default-sort-order-id", "default-sort-order-id",
       "default sort order changed"},
  };
  for (const auto& c : kChecks) {
    if (r.type != c.type) continue;
    const int expected = n[c.field].get<int>();
    const int actual = md.value(c.md_field, 0);
    if (expected != actual) {
      return fail(fmt::format("{}: expected id {} != {}", c.what, expected, actual));
    }
    return Ok();
  }
  return Internal("unhandled requirement {}", r.type);
}

}  // namespace

// --- Public helpers -----------------------------------------------------------------------

Result<int> JsonGetInt(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing int: {}", key);
  if (!IsInt(*it))
    return InvalidArgument("Cannot parse to an integer value: {}: {}", key, Text(*it));
  return it->get<int>();
}

Result<int64_t> JsonGetLong(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing long: {}", key);
  if (!IsLong(*it)) return InvalidArgument("Cannot parse to a long value: {}: {}", key, Text(*it));
  return it->get<int64_t>();
}

Result<std::optional<int>> JsonGetIntOrNull(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null()) return std::optional<int>();
  CAIRN_ASSIGN_OR_RETURN(int v, JsonGetInt(node, key));
  return std::optional<int>(v);
}

Result<std::optional<int64_t>> JsonGetLongOrNull(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null()) return std::optional<int64_t>();
  CAIRN_ASSIGN_OR_RETURN(int64_t v, JsonGetLong(node, key));
  return std::optional<int64_t>(v);
}

Result<std::string> JsonGetString(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing string: {}", key);
  if (!it->is_string())
    return InvalidArgument("Cannot parse to a string value: {}: {}", key, Text(*it));
  return it->get<std::string>();
}

Result<std::optional<std::string>> JsonGetStringOrNull(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null()) return std::optional<std::string>();
  CAIRN_ASSIGN_OR_RETURN(std::string v, JsonGetString(node, key));
  return std::optional<std::string>(v);
}

Result<const Json*> JsonGetField(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null())
    return InvalidArgument("Cannot parse missing field: {}", key);
  return &*it;
}

Result<std::map<std::string, std::string>> JsonGetStringMap(const Json& node,
                                                            std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing map: {}", key);
  if (!it->is_object()) {
    return InvalidArgument("Cannot parse string map from non-object value: {}: {}", key, Text(*it));
  }
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) {
      return InvalidArgument("Cannot parse to a string value: {}: {}", k, Text(v));
    }
    out[k] = v.get<std::string>();
  }
  return out;
}

Result<std::vector<std::string>> JsonGetStringList(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing list: {}", key);
  if (!it->is_array()) {
    return InvalidArgument("Cannot parse string array from non-array: {}", Text(*it));
  }
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string())
      return InvalidArgument("Cannot parse string from non-text value: {}", Text(v));
    out.push_back(v.get<std::string>());
  }
  return out;
}

namespace {

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

// --- Entry points -------------------------------------------------------------------------

namespace {

Status CheckTableRequirementsUnguarded(const Json* base, const Json& requirements) {
  CAIRN_ASSIGN_OR_RETURN(std::vector<Requirement> reqs, ParseRequirements(requirements));
  const bool is_create = std::any_of(
      reqs.begin(), reqs.end(), [](const Requirement& r) { return r.type == "assert-create"; });
  if (is_create) {
    std::vector<std::string> invalid;
    for (const auto& r : reqs) {
      if (r.type != "assert-create") invalid.push_back(RequirementClass(r.type));
    }
    if (!invalid.empty()) {
      return InvalidArgument("Invalid create requirements: [{}]", Join(invalid, ", "));
    }
  }
  if (base == nullptr) {
    if (!is_create && !reqs.empty()) return NotFound(EntityKind::kTable, "Table does not exist");
    return Ok();
  }
  if (reqs.empty()) return Ok();
  // The requirements read only small top-level fields (uuid, refs, ids), so the history arrays,
  // which grow with every commit, are not copied (Prepare derives nothing from them).
  Json md = Json::object();
  if (base->is_object()) {
    md.get_ref<Json::object_t&>().reserve(base->size() + 16);
    for (const auto& [key, value] : base->items()) {
      if (key == "snapshots" || key == "snapshot-log" || key == "metadata-log" ||
          key == "statistics" || key == "partition-statistics") {
        continue;
      }
      md[key] = value;
    }
  }
  Prepare(md);
  for (const auto& r : reqs) CAIRN_RETURN_IF_ERROR(CheckOne(r, md));
  return Ok();
}

}  // namespace

Status CheckTableRequirements(const Json* base, const Json& requirements) {
  return CatchJsonErrors("Invalid table metadata or commit requirements",
                         [&] { return CheckTableRequirementsUnguarded(base, requirements); });
}

namespace {

Result<Json> ApplyTableUpdatesUnguarded(const Json* base, const Json& updates, int64_t now_ms,
                                        bool* changed) {
  if (changed != nullptr) *changed = false;
  if (!updates.is_array()) {
    return InvalidArgument("Cannot parse metadata updates from non-array: {}", Text(updates));
  }
  Json start;
  if (base == nullptr) {
    start = EmptyTable(updates);
  } else {
    if (!base->is_object()) return InvalidArgument("Invalid table metadata: not a JSON object");
    start = CopyWithRoom(*base, 16);
    Prepare(start);
  }
  TableBuilder builder(std::move(start), now_ms);
  for (const auto& u : updates) {
    CAIRN_RETURN_IF_ERROR(CheckDeadline());
    CAIRN_RETURN_IF_ERROR(builder.Apply(u));
  }
  if (builder.changes() == 0 && base != nullptr) return *base;
  CAIRN_ASSIGN_OR_RETURN(Json out, builder.Build());
  if (changed != nullptr) *changed = true;
  return out;
}

}  // namespace

Result<Json> ApplyTableUpdates(const Json* base, const Json& updates, int64_t now_ms,
                               bool* changed) {
  return CatchJsonErrors("Invalid table metadata or commit updates", [&] {
    return ApplyTableUpdatesUnguarded(base, updates, now_ms, changed);
  });
}

namespace {

Result<Json> ApplyTableUpdatesUnguarded(Json&& base, const Json& updates, int64_t now_ms,
                                        bool* changed) {
  if (changed != nullptr) *changed = false;
  if (!updates.is_array()) {
    return InvalidArgument("Cannot parse metadata updates from non-array: {}", Text(updates));
  }
  if (!base.is_object()) return InvalidArgument("Invalid table metadata: not a JSON object");
  Json start = std::move(base);
  auto& members = start.get_ref<Json::object_t&>();
  if (members.capacity() < members.size() + 16) start = CopyWithRoom(start, 16);
  Prepare(start);
  TableBuilder builder(std::move(start), now_ms);
  for (const auto& u : updates) {
    CAIRN_RETURN_IF_ERROR(CheckDeadline());
    CAIRN_RETURN_IF_ERROR(builder.Apply(u));
  }
  const bool any = builder.changes() > 0;
  CAIRN_ASSIGN_OR_RETURN(Json out, builder.Build());
  if (changed != nullptr) *changed = any;
  return out;
}

}  // namespace

Result<Json> ApplyTableUpdates(Json&& base, const Json& updates, int64_t now_ms, bool* changed) {
  return CatchJsonErrors("Invalid table metadata or commit updates", [&] {
    return ApplyTableUpdatesUnguarded(std::move(base), updates, now_ms, changed);
  });
}

namespace {

Result<Json> NewTableMetadataFromRestUnguarded(const Json& create_request,
                                               const std::string& location, int64_t now_ms) {
  const Json& req = create_request;
  if (!req.is_object()) {
    return InvalidArgument("Cannot parse create table request from non-object: {}", Text(req));
  }
  CAIRN_ASSIGN_OR_RETURN(std::string name, JsonGetString(req, "name"));
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> req_location,
                         JsonGetStringOrNull(req, "location"));
  CAIRN_ASSIGN_OR_RETURN(const Json* schema_node, JsonGetField(req, "schema"));
  CAIRN_ASSIGN_OR_RETURN(Json schema, ParseSchemaJson(*schema_node));
  std::map<std::string, std::string> properties;
  if (req.contains("properties") && !req["properties"].is_null()) {
    CAIRN_ASSIGN_OR_RETURN(properties, JsonGetStringMap(req, "properties"));
  }

  int version = kDefaultFormatVersion;
  if (auto it = properties.find("format-version"); it != properties.end()) {
    auto v = ParseInt64(Trim(it->second));
    if (!v) return InvalidArgument("Invalid format-version: {}", it->second);
    if (*v < 1 || *v > kSupportedFormatVersion) {
      return InvalidArgument("Unsupported format version: v{} (supported: v{})", *v,
                             kSupportedFormatVersion);
    }
    version = static_cast<int>(*v);
  }

  // Fresh ids; old -> new follows the structure, which is what Java's lookup by name yields.
  int last_column_id = 0;
  std::unordered_map<int, int> mapping;
  Json fresh = schema;
  AssignFreshIds(fresh, &last_column_id, &mapping);
  Json fresh_schema = Json::object();
  fresh_schema["type"] = "struct";
  fresh_schema["schema-id"] = 0;
  std::vector<int> identifiers = IdentifierIds(schema);
  if (!identifiers.empty()) {
    Json ids = Json::array();
    for (int id : identifiers) ids.push_back(mapping.at(id));
    fresh_schema["identifier-field-ids"] = std::move(ids);
  }
  fresh_schema["fields"] = std::move(fresh["fields"]);
  CAIRN_RETURN_IF_ERROR(CheckSchemaForVersion(fresh_schema, version));

  auto remap = [&](int old_id, const char* what) -> Result<int> {
    auto it = mapping.find(old_id);
    if (it == mapping.end())
      return InvalidArgument("Cannot find source column for {}: {}", what, old_id);
    return it->second;
  };

  std::vector<SpecField> spec_fields;
  if (auto it = req.find("partition-spec"); it != req.end() && !it->is_null()) {
    CAIRN_ASSIGN_OR_RETURN(spec_fields, ParseSpecFields(*it));
    for (auto& f : spec_fields) {
      // Validate against the request schema, then rebuild with fresh ids from 1000.
      if (f.transform != "void" && FindTypeById(schema, f.source_id) == nullptr) {
        return InvalidArgument("Cannot find source column: {}", f.source_id);
      }
      CAIRN_ASSIGN_OR_RETURN(f.source_id, remap(f.source_id, "partition field"));
      f.field_id.reset();
    }
  }
  int last_partition_id = kPartitionDataIdStart - 1;
  CAIRN_ASSIGN_OR_RETURN(spec_fields,
                         BindSpec(std::move(spec_fields), fresh_schema, &last_partition_id));

  std::vector<SortField> sort_fields;
  if (auto it = req.find("write-order"); it != req.end() && !it->is_null()) {
    CAIRN_ASSIGN_OR_RETURN(sort_fields, ParseSortFields(*it));
    CAIRN_RETURN_IF_ERROR(CheckSortSources(sort_fields, schema));
    for (auto& f : sort_fields) {
      CAIRN_ASSIGN_OR_RETURN(f.source_id, remap(f.source_id, "sort field"));
    }
  }
  const int order_id = sort_fields.empty() ? 0 : 1;

  std::string table_location = location.empty() ? req_location.value_or("") : location;
  while (table_location.size() > 1 && table_location.back() == '/') table_location.pop_back();
  if (table_location.empty()) return InvalidArgument("Invalid table location: {} has none", name);

  static const std::set<std::string> kReserved = {
      "format-version",           "uuid",
      "snapshot-count",           "current-snapshot-id",
      "current-snapshot-summary", "current-snapshot-timestamp-ms",
      "current-schema",           "default-partition-spec",
      "default-sort-order"};
  std::map<std::string, std::string> persisted;
  persisted["write.parquet.compression-codec"] = "zstd";
  for (const auto& [k, v] : properties) {
    if (kReserved.count(k) == 0) persisted[k] = v;
  }

  Json md = Json::object();
  md["format-version"] = version;
  md["table-uuid"] = RandomUuid();
  md["location"] = table_location;
  if (version > 1) md["last-sequence-number"] = 0;
  md["last-updated-ms"] = now_ms;
  md["last-column-id"] = last_column_id;
  if (version == 1) md["schema"] = fresh_schema;
  md["current-schema-id"] = 0;
  md["schemas"] = Json::array({fresh_schema});
  Json spec = SpecJson(0, spec_fields);
  if (version == 1) md["partition-spec"] = spec["fields"];
  md["default-spec-id"] = 0;
  md["partition-specs"] = Json::array({spec});
  md["last-partition-id"] = last_partition_id;
  md["default-sort-order-id"] = order_id;
  md["sort-orders"] = Json::array({SortOrderJson(order_id, sort_fields)});
  md["properties"] = persisted;
  md["current-snapshot-id"] = version >= 3 ? Json(nullptr) : Json(-1);
  if (version >= 3) md["next-row-id"] = 0;
  md["refs"] = Json::object();
  md["snapshots"] = Json::array();
  md["statistics"] = Json::array();
  md["partition-statistics"] = Json::array();
  md["snapshot-log"] = Json::array();
  md["metadata-log"] = Json::array();
  return md;
}

}  // namespace

Result<Json> NewTableMetadataFromRest(const Json& create_request, const std::string& location,
                                      int64_t now_ms) {
  return CatchJsonErrors("Invalid create table request", [&] {
    return NewTableMetadataFromRestUnguarded(create_request, location, now_ms);
  });
}

}  // namespace cairn::iceberg
