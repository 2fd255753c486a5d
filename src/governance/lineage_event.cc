// SPDX-License-Identifier: Apache-2.0
#include "governance/lineage_event.h"

#include <array>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/util.h"

namespace cairn::governance {
namespace {

using Json = nlohmann::json;

std::string_view TypeName(const Json& v) { return v.type_name(); }

Error Malformed(std::string_view field, std::string_view what) {
  return MakeError(ErrorCode::kInvalidArgument, EntityKind::kNone,
                   "Malformed lineage event: field '{}' {}", field, what);
}

Result<std::string> RequiredText(const Json& object, const char* key, std::string_view field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Malformed(field, "is required");
  if (!it->is_string()) {
    return Malformed(field, fmt::format("must be a string, not {}", TypeName(*it)));
  }
  std::string value = it->get<std::string>();
  if (Trim(value).empty()) return Malformed(field, "must not be empty");
  if (value.size() > kMaxLineageNameBytes) {
    return Malformed(field, fmt::format("is longer than {} bytes", kMaxLineageNameBytes));
  }
  return value;
}

Result<const Json*> RequiredObject(const Json& object, const char* key, std::string_view field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Malformed(field, "is required");
  if (!it->is_object()) {
    return Malformed(field, fmt::format("must be an object, not {}", TypeName(*it)));
  }
  return &*it;
}

// An optional `facets`-like member: absent, null or an object.
Status OptionalObject(const Json& object, const char* key, std::string_view field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null() || it->is_object()) return Ok();
  return Malformed(field, fmt::format("must be an object, not {}", TypeName(*it)));
}

bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (s[i] == '-')) return false;
    if (!dash && std::isxdigit(static_cast<unsigned char>(s[i])) == 0) return false;
  }
  return true;
}

Result<store::LineageDatasetName> DatasetName(const Json& d, std::string_view field) {
  if (!d.is_object()) {
    return Malformed(field, fmt::format("must be an object, not {}", TypeName(d)));
  }
  store::LineageDatasetName out;
  CAIRN_ASSIGN_OR_RETURN(out.ns, RequiredText(d, "namespace", fmt::format("{}.namespace", field)));
  CAIRN_ASSIGN_OR_RETURN(out.name, RequiredText(d, "name", fmt::format("{}.name", field)));
  CAIRN_RETURN_IF_ERROR(OptionalObject(d, "facets", fmt::format("{}.facets", field)));
  return out;
}

Result<std::vector<store::LineageDatasetName>> Datasets(const Json& event, const char* key,
                                                         std::vector<const Json*>& raw) {
  std::vector<store::LineageDatasetName> out;
  auto it = event.find(key);
  if (it == event.end() || it->is_null()) return out;
  if (!it->is_array()) {
    return Malformed(key, fmt::format("must be an array, not {}", TypeName(*it)));
  }
  if (it->size() > kMaxLineageDatasets) {
    return Malformed(key, fmt::format("has more than {} datasets", kMaxLineageDatasets));
  }
  for (size_t i = 0; i < it->size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(auto d, DatasetName((*it)[i], fmt::format("{}[{}]", key, i)));
    out.push_back(std::move(d));
    raw.push_back(&(*it)[i]);
  }
  return out;
}

// "TYPE/SUBTYPE" of each transformation, joined by ", "; or the legacy transformationType.
std::string Transformation(const Json& input_field, const Json& column) {
  std::string out;
  auto t = input_field.find("transformations");
  if (t != input_field.end() && t->is_array()) {
    for (const Json& x : *t) {
      if (!x.is_object()) continue;
      std::string one;
      if (auto type = x.find("type"); type != x.end() && type->is_string()) one = *type;
      if (auto sub = x.find("subtype"); sub != x.end() && sub->is_string()) {
        one += "/" + sub->get<std::string>();
      }
      if (one.empty()) continue;
      if (!out.empty()) out += ", ";
      out += one;
    }
  }
  if (out.empty()) {
    if (auto legacy = column.find("transformationType");
        legacy != column.end() && legacy->is_string()) {
      out = legacy->get<std::string>();
    }
  }
  return out.substr(0, kMaxLineageNameBytes);
}

Status ColumnFacts(const Json& output, const store::LineageDatasetName& out_name,
                   std::string_view field, std::vector<store::LineageColumnFact>& facts) {
  auto facets = output.find("facets");
  if (facets == output.end() || !facets->is_object()) return Ok();
  auto facet = facets->find("columnLineage");
  if (facet == facets->end() || facet->is_null()) return Ok();
  const std::string facet_field = fmt::format("{}.facets.columnLineage", field);
  if (!facet->is_object()) {
    return Malformed(facet_field, fmt::format("must be an object, not {}", TypeName(*facet)));
  }
  auto fields = facet->find("fields");
  if (fields == facet->end() || fields->is_null()) return Ok();
  if (!fields->is_object()) {
    return Malformed(facet_field + ".fields",
                     fmt::format("must be an object, not {}", TypeName(*fields)));
  }
  for (const auto& [column, spec] : fields->items()) {
    const std::string column_field = fmt::format("{}.fields.{}", facet_field, column);
    if (column.empty() || column.size() > kMaxLineageNameBytes) {
      return Malformed(column_field, "must name a column");
    }
    if (!spec.is_object()) {
      return Malformed(column_field, fmt::format("must be an object, not {}", TypeName(spec)));
    }
    auto inputs = spec.find("inputFields");
    if (inputs == spec.end() || inputs->is_null()) continue;
    if (!inputs->is_array()) {
      return Malformed(column_field + ".inputFields",
                       fmt::format("must be an array, not {}", TypeName(*inputs)));
    }
    for (size_t i = 0; i < inputs->size(); ++i) {
      const Json& in = (*inputs)[i];
      const std::string in_field = fmt::format("{}.inputFields[{}]", column_field, i);
      if (!in.is_object()) {
        return Malformed(in_field, fmt::format("must be an object, not {}", TypeName(in)));
      }
      if (facts.size() >= kMaxLineageColumnFacts) {
        return Malformed(facet_field,
                         fmt::format("has more than {} input fields", kMaxLineageColumnFacts));
      }
      store::LineageColumnFact fact;
      fact.output = out_name;
      fact.output_field = column;
      CAIRN_ASSIGN_OR_RETURN(fact.input.ns,
                             RequiredText(in, "namespace", in_field + ".namespace"));
      CAIRN_ASSIGN_OR_RETURN(fact.input.name, RequiredText(in, "name", in_field + ".name"));
      CAIRN_ASSIGN_OR_RETURN(fact.input_field, RequiredText(in, "field", in_field + ".field"));
      fact.transformation = Transformation(in, spec);
      facts.push_back(std::move(fact));
    }
  }
  return Ok();
}

}  // namespace

Result<store::LineageEventRecord> ParseRunEvent(const Json& event, std::string body) {
  if (!event.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kNone,
                     "Malformed lineage event: the body must be a JSON object, not {}",
                     TypeName(event));
  }
  store::LineageEventRecord r;
  CAIRN_ASSIGN_OR_RETURN(r.event_time, RequiredText(event, "eventTime", "eventTime"));
  CAIRN_ASSIGN_OR_RETURN(r.producer, RequiredText(event, "producer", "producer"));
  r.event_type = "OTHER";
  if (auto t = event.find("eventType"); t != event.end() && !t->is_null()) {
    static constexpr std::array<std::string_view, 6> kTypes = {"START", "RUNNING", "COMPLETE",
                                                               "ABORT", "FAIL",    "OTHER"};
    if (!t->is_string()) {
      return Malformed("eventType", fmt::format("must be a string, not {}", TypeName(*t)));
    }
    const std::string type = t->get<std::string>();
    bool known = false;
    for (auto k : kTypes) known = known || k == type;
    if (!known) {
      return Malformed("eventType",
                       "must be one of START, RUNNING, COMPLETE, ABORT, FAIL, OTHER");
    }
    r.event_type = type;
  }
  CAIRN_ASSIGN_OR_RETURN(const Json* run, RequiredObject(event, "run", "run"));
  CAIRN_ASSIGN_OR_RETURN(r.run_id, RequiredText(*run, "runId", "run.runId"));
  if (!IsUuid(r.run_id)) return Malformed("run.runId", "must be a UUID");
  r.run_id = ToLower(r.run_id);
  CAIRN_RETURN_IF_ERROR(OptionalObject(*run, "facets", "run.facets"));
  CAIRN_ASSIGN_OR_RETURN(const Json* job, RequiredObject(event, "job", "job"));
  CAIRN_ASSIGN_OR_RETURN(r.job_ns, RequiredText(*job, "namespace", "job.namespace"));
  CAIRN_ASSIGN_OR_RETURN(r.job_name, RequiredText(*job, "name", "job.name"));
  CAIRN_RETURN_IF_ERROR(OptionalObject(*job, "facets", "job.facets"));
  std::vector<const Json*> raw_inputs;
  std::vector<const Json*> raw_outputs;
  CAIRN_ASSIGN_OR_RETURN(r.inputs, Datasets(event, "inputs", raw_inputs));
  CAIRN_ASSIGN_OR_RETURN(r.outputs, Datasets(event, "outputs", raw_outputs));
  for (size_t i = 0; i < raw_outputs.size(); ++i) {
    CAIRN_RETURN_IF_ERROR(
        ColumnFacts(*raw_outputs[i], r.outputs[i], fmt::format("outputs[{}]", i), r.columns));
  }
  r.body = std::move(body);
  return r;
}

std::optional<DatasetNaming> MapDatasetName(std::string_view ns, std::string_view name) {
  const std::vector<std::string> parts = Split(std::string(name), '.');
  if (parts.size() != 3) return std::nullopt;
  for (const auto& p : parts) {
    if (p.empty() || p.find('/') != std::string::npos) return std::nullopt;
  }
  DatasetNaming n;
  if (ns.find("://") == std::string_view::npos) {
    if (ns.empty() || ns.find('/') != std::string_view::npos) return std::nullopt;
    n.metalake = std::string(ns);
  }
  n.catalog = parts[0];
  n.schema = parts[1];
  n.table = parts[2];
  return n;
}

std::vector<std::pair<std::string, std::string>> SymlinkNames(const Json& dataset) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!dataset.is_object()) return out;
  auto facets = dataset.find("facets");
  if (facets == dataset.end() || !facets->is_object()) return out;
  auto symlinks = facets->find("symlinks");
  if (symlinks == facets->end() || !symlinks->is_object()) return out;
  auto ids = symlinks->find("identifiers");
  if (ids == symlinks->end() || !ids->is_array()) return out;
  for (const Json& id : *ids) {
    if (!id.is_object()) continue;
    auto ns = id.find("namespace");
    auto name = id.find("name");
    if (ns == id.end() || name == id.end() || !ns->is_string() || !name->is_string()) continue;
    out.emplace_back(ns->get<std::string>(), name->get<std::string>());
    if (out.size() >= 8) break;
  }
  return out;
}

}  // namespace cairn::governance
