// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/result.h"
#include "iceberg/json_readers.h"

namespace cairn::iceberg {

// The UpdateRequirement types of Iceberg 1.11 (UpdateRequirementParser), in one table shared by
// table and view commits, and their parser. The checks are CheckTableRequirements (commit.h)
// and CheckViewRequirements (view_metadata.h). Pure functions, thread-safe.

enum class RequirementType {
  kAssertCreate,
  kAssertTableUuid,
  kAssertViewUuid,
  kAssertRefSnapshotId,
  kAssertLastAssignedFieldId,
  kAssertCurrentSchemaId,
  kAssertLastAssignedPartitionId,
  kAssertDefaultSpecId,
  kAssertDefaultSortOrderId,
};

/// What a requirement type is: its name on the wire, Java's class name (for messages), what it
/// is about (kTable or kView), and for the id assertions the member holding the expected id,
/// the metadata member it is compared with and the words of its failure.
struct RequirementKind {
  RequirementType type;
  std::string_view name;        // "assert-current-schema-id"
  std::string_view java_class;  // "AssertCurrentSchemaID"
  EntityKind subject;
  std::string_view id_member = {};        // "current-schema-id"
  std::string_view metadata_member = {};  // "current-schema-id"
  std::string_view failure = {};          // "current schema changed"
};

/// The kind named `name` (lower case), or nullptr.
const RequirementKind* FindRequirementKind(std::string_view name);

/// One parsed requirement; the members its kind has are set.
struct Requirement {
  const RequirementKind* kind = nullptr;
  std::string uuid;                     // assert-table-uuid, assert-view-uuid
  std::string ref;                      // assert-ref-snapshot-id
  std::optional<int64_t> snapshot_id;   // assert-ref-snapshot-id (none: the ref must not exist)
  int expected_id = 0;                  // the id assertions

  RequirementType type() const { return kind->type; }
};

/// Parses a commit's "requirements" array for a commit on a `subject` (kTable or kView), every
/// element up front as Jackson reads the whole request. kInvalidArgument with Java's wording:
/// not an array ("Cannot parse requirements from non-array: ..."), an element that is not an
/// object, has no type ("Cannot parse update requirement. Missing field: type") or an unknown
/// one ("Unrecognized update requirement. Cannot convert to json: <type>"), a missing or
/// malformed member (named). A view commit reads only the type of a table requirement (the
/// check refuses it as a whole).
Result<std::vector<Requirement>> ParseRequirements(const Json& requirements, EntityKind subject);

}  // namespace cairn::iceberg
