// SPDX-License-Identifier: Apache-2.0
#include "iceberg/specs.h"

#include <algorithm>
#include <set>

#include "common/util.h"
#include "iceberg/partitioning.h"
#include "iceberg/schema.h"

namespace cairn::iceberg {

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

namespace {

std::string SpecFieldText(const SpecField& f) {
  return fmt::format("{}: {}: {}({})", f.field_id.value_or(0), f.name, f.transform, f.source_id);
}

}  // namespace

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
}  // namespace cairn::iceberg
