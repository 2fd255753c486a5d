// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/result.h"
#include "iceberg/json_readers.h"
#include "iceberg/snapshots.h"
#include "iceberg/specs.h"

namespace cairn::iceberg {

// The MetadataUpdate actions of a table commit (Iceberg 1.11's MetadataUpdateParser), parsed
// once into one struct per action. Everything a request alone determines is checked when it is
// parsed; what depends on the table (unknown ids, downgrades, sources missing from the current
// schema, ...) is checked when the table builder applies it (table_builder.h).
namespace update {

struct AssignUuid {
  std::string uuid;
};
struct UpgradeFormatVersion {
  int format_version = 0;
};
struct AddSchema {
  Json schema;  // as ParseSchemaJson returns it
};
struct SetCurrentSchema {
  int schema_id = 0;  // -1: the schema added last
};
struct AddSpec {
  std::vector<SpecField> fields;  // not bound yet
};
struct SetDefaultSpec {
  int spec_id = 0;  // -1: the spec added last
};
struct AddSortOrder {
  std::vector<SortField> fields;
};
struct SetDefaultSortOrder {
  int sort_order_id = 0;  // -1: the order added last
};
struct AddSnapshot {
  Snapshot snapshot;
};
struct SetSnapshotRef {
  std::string ref_name;
  Ref ref;
};
struct RemoveSnapshots {
  std::set<int64_t> snapshot_ids;
};
struct RemoveSnapshotRef {
  std::string ref_name;
};
struct SetLocation {
  std::string location;  // as given; trailing '/' are dropped when it is applied
};
struct SetProperties {
  std::map<std::string, std::string> updates;
};
struct RemoveProperties {
  std::vector<std::string> removals;
};
/// set-statistics, or set-partition-statistics when `partition`.
struct SetStatistics {
  bool partition = false;
  Json file;  // as ParseStatistics returns it
};
/// remove-statistics, or remove-partition-statistics when `partition`.
struct RemoveStatistics {
  bool partition = false;
  int64_t snapshot_id = 0;
};
struct RemovePartitionSpecs {
  std::set<int> spec_ids;
};
struct RemoveSchemas {
  std::set<int> schema_ids;
};
struct AddEncryptionKey {
  Json key;  // as ParseEncryptionKey returns it
};
struct RemoveEncryptionKey {
  std::string key_id;
};
// The two actions of views only.
struct AddViewVersion {
  Json version;  // as ParseViewVersion returns it
};
struct SetCurrentViewVersion {
  int version_id = 0;  // -1: the version added last
};

}  // namespace update

using TableUpdate =
    std::variant<update::AssignUuid, update::UpgradeFormatVersion, update::AddSchema,
                 update::SetCurrentSchema, update::AddSpec, update::SetDefaultSpec,
                 update::AddSortOrder, update::SetDefaultSortOrder, update::AddSnapshot,
                 update::SetSnapshotRef, update::RemoveSnapshots, update::RemoveSnapshotRef,
                 update::SetLocation, update::SetProperties, update::RemoveProperties,
                 update::SetStatistics, update::RemoveStatistics, update::RemovePartitionSpecs,
                 update::RemoveSchemas, update::AddEncryptionKey, update::RemoveEncryptionKey>;

/// The MetadataUpdate actions a view commit takes: the six it shares with tables, and its own two.
using ViewUpdate =
    std::variant<update::AssignUuid, update::UpgradeFormatVersion, update::AddSchema,
                 update::SetLocation, update::SetProperties, update::RemoveProperties,
                 update::AddViewVersion, update::SetCurrentViewVersion>;

/// A MetadataUpdate action of Iceberg 1.11: its name on the wire, Java's class name (for
/// messages), and whether table and view commits take it. One table for both kinds of commit.
struct UpdateAction {
  std::string_view name;        // "add-view-version"
  std::string_view java_class;  // "AddViewVersion"
  bool table = false;
  bool view = false;
};

/// The action named `name` (lower case), or nullptr.
const UpdateAction* FindUpdateAction(std::string_view name);

/// Parses a commit's "updates" array, every element in order, stopping at the first error.
/// kInvalidArgument with Java's wording: not an array ("Cannot parse metadata updates from
/// non-array: ..."), an element that is not an object ("Cannot parse metadata update from
/// non-object value: ..."), no action ("Cannot parse metadata update. Missing field: action"),
/// an unknown action ("Cannot convert metadata update action to json: <action>"; actions are
/// case-insensitive), a view action ("Cannot apply update AddViewVersion to a table"), and any
/// missing or malformed member (named). kUnavailable when the request's deadline passes
/// between elements (CheckDeadline).
Result<std::vector<TableUpdate>> ParseTableUpdates(const Json& updates);

/// Parses a view commit's "updates" array, as ParseTableUpdates does a table's, with the same
/// readers for the actions both take; a table-only action is "Cannot apply update AddSnapshot to
/// a view".
Result<std::vector<ViewUpdate>> ParseViewUpdates(const Json& updates);

}  // namespace cairn::iceberg
