// SPDX-License-Identifier: Apache-2.0
#include "iceberg/requirements.h"

#include <algorithm>
#include <vector>

#include "common/util.h"
#include "iceberg/commit.h"
#include "iceberg/table_builder.h"

namespace cairn::iceberg {

namespace {

constexpr RequirementKind kKinds[] = {
    {RequirementType::kAssertCreate, "assert-create", "AssertTableDoesNotExist",
     EntityKind::kTable},
    {RequirementType::kAssertTableUuid, "assert-table-uuid", "AssertTableUUID", EntityKind::kTable},
    {RequirementType::kAssertViewUuid, "assert-view-uuid", "AssertViewUUID", EntityKind::kView},
    {RequirementType::kAssertRefSnapshotId, "assert-ref-snapshot-id", "AssertRefSnapshotID",
     EntityKind::kTable},
    {RequirementType::kAssertLastAssignedFieldId, "assert-last-assigned-field-id",
     "AssertLastAssignedFieldId", EntityKind::kTable, "last-assigned-field-id", "last-column-id",
     "last assigned field id changed"},
    {RequirementType::kAssertCurrentSchemaId, "assert-current-schema-id", "AssertCurrentSchemaID",
     EntityKind::kTable, "current-schema-id", "current-schema-id", "current schema changed"},
    {RequirementType::kAssertLastAssignedPartitionId, "assert-last-assigned-partition-id",
     "AssertLastAssignedPartitionId", EntityKind::kTable, "last-assigned-partition-id",
     "last-partition-id", "last assigned partition id changed"},
    {RequirementType::kAssertDefaultSpecId, "assert-default-spec-id", "AssertDefaultSpecID",
     EntityKind::kTable, "default-spec-id", "default-spec-id", "default partition spec changed"},
    {RequirementType::kAssertDefaultSortOrderId, "assert-default-sort-order-id",
     "AssertDefaultSortOrderID", EntityKind::kTable, "default-sort-order-id",
     "default-sort-order-id", "default sort order changed"},
};

// The members of `r` its kind needs.
Status ParseMembers(const Json& r, Requirement& out) {
  switch (out.type()) {
    case RequirementType::kAssertCreate:
      return Ok();
    case RequirementType::kAssertTableUuid:
    case RequirementType::kAssertViewUuid: {
      CAIRN_ASSIGN_OR_RETURN(out.uuid, JsonGetString(r, "uuid"));
      return Ok();
    }
    case RequirementType::kAssertRefSnapshotId: {
      CAIRN_ASSIGN_OR_RETURN(out.ref, JsonGetString(r, "ref"));
      CAIRN_ASSIGN_OR_RETURN(out.snapshot_id, JsonGetLongOrNull(r, "snapshot-id"));
      return Ok();
    }
    case RequirementType::kAssertLastAssignedFieldId:
    case RequirementType::kAssertCurrentSchemaId:
    case RequirementType::kAssertLastAssignedPartitionId:
    case RequirementType::kAssertDefaultSpecId:
    case RequirementType::kAssertDefaultSortOrderId: {
      CAIRN_ASSIGN_OR_RETURN(out.expected_id, JsonGetInt(r, out.kind->id_member));
      return Ok();
    }
  }
  return Internal("unhandled requirement {}", out.kind->name);
}

Error Failed(const std::string& what) {
  return Conflict(EntityKind::kTable, "Requirement failed: {}", what);
}

Status CheckOne(const Requirement& r, const Json& md) {
  switch (r.type()) {
    case RequirementType::kAssertCreate:
      return Failed("table already exists");
    case RequirementType::kAssertViewUuid:
      return InvalidArgument("Cannot validate AssertViewUUID against a table");
    case RequirementType::kAssertTableUuid: {
      const std::string base = md.contains("table-uuid") && md["table-uuid"].is_string()
                                   ? md["table-uuid"].get<std::string>()
                                   : "null";
      if (!EqualsIgnoreCase(r.uuid, base)) {
        return Failed(fmt::format("UUID does not match: expected {} != {}", base, r.uuid));
      }
      return Ok();
    }
    case RequirementType::kAssertRefSnapshotId: {
      const std::string& name = r.ref;
      const Json& refs = md["refs"];
      if (auto it = refs.find(name); it != refs.end()) {
        const std::string type = it->value("type", "branch") == "tag" ? "tag" : "branch";
        const int64_t actual = LongOr(*it, "snapshot-id", int64_t{-1});
        if (!r.snapshot_id) {
          return Failed(fmt::format("{} {} was created concurrently", type, name));
        }
        if (*r.snapshot_id != actual) {
          return Failed(fmt::format("{} {} has changed: expected id {} != {}", type, name,
                                    *r.snapshot_id, actual));
        }
      } else if (r.snapshot_id) {
        return Failed(
            fmt::format("branch or tag {} is missing, expected {}", name, *r.snapshot_id));
      }
      return Ok();
    }
    case RequirementType::kAssertLastAssignedFieldId:
    case RequirementType::kAssertCurrentSchemaId:
    case RequirementType::kAssertLastAssignedPartitionId:
    case RequirementType::kAssertDefaultSpecId:
    case RequirementType::kAssertDefaultSortOrderId: {
      const int actual = md.value(r.kind->metadata_member, 0);
      if (r.expected_id != actual) {
        return Failed(
            fmt::format("{}: expected id {} != {}", r.kind->failure, r.expected_id, actual));
      }
      return Ok();
    }
  }
  return Internal("unhandled requirement {}", r.kind->name);
}

Status CheckTableRequirementsUnguarded(const Json* base, const Json& requirements) {
  CAIRN_ASSIGN_OR_RETURN(std::vector<Requirement> reqs,
                         ParseRequirements(requirements, EntityKind::kTable));
  const bool is_create = std::any_of(reqs.begin(), reqs.end(), [](const Requirement& r) {
    return r.type() == RequirementType::kAssertCreate;
  });
  if (is_create) {
    std::vector<std::string> invalid;
    for (const auto& r : reqs) {
      if (r.type() != RequirementType::kAssertCreate) {
        invalid.emplace_back(r.kind->java_class);
      }
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
  // which grow with every commit, are not copied (PrepareBase derives nothing from them).
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
  PrepareBase(md);
  for (const auto& r : reqs) CAIRN_RETURN_IF_ERROR(CheckOne(r, md));
  return Ok();
}

}  // namespace

const RequirementKind* FindRequirementKind(std::string_view name) {
  for (const auto& kind : kKinds) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

Result<std::vector<Requirement>> ParseRequirements(const Json& requirements, EntityKind subject) {
  if (!requirements.is_array()) {
    return InvalidArgument("Cannot parse requirements from non-array: {}", Text(requirements));
  }
  std::vector<Requirement> out;
  out.reserve(requirements.size());
  for (const auto& r : requirements) {
    if (!r.is_object()) {
      return InvalidArgument("Cannot parse update requirement from non-object value: {}", Text(r));
    }
    if (!r.contains("type") || r["type"].is_null()) {
      return InvalidArgument("Cannot parse update requirement. Missing field: type");
    }
    CAIRN_ASSIGN_OR_RETURN(std::string type, JsonGetString(r, "type"));
    type = ToLower(type);
    Requirement req;
    req.kind = FindRequirementKind(type);
    if (req.kind == nullptr) {
      return InvalidArgument("Unrecognized update requirement. Cannot convert to json: {}", type);
    }
    if (subject == EntityKind::kTable || req.kind->subject == subject) {
      CAIRN_RETURN_IF_ERROR(ParseMembers(r, req));
    }
    out.push_back(std::move(req));
  }
  return out;
}

Status CheckTableRequirements(const Json* base, const Json& requirements) {
  return CatchJsonErrors("Invalid table metadata or commit requirements",
                         [&] { return CheckTableRequirementsUnguarded(base, requirements); });
}

}  // namespace cairn::iceberg
