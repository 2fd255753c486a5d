// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.h"
#include "iceberg/json_readers.h"

namespace cairn::iceberg {

// Snapshots, snapshot refs, statistics files and encryption keys in commit requests, as Java's
// SnapshotParser, SnapshotRefParser, StatisticsFileParser / PartitionStatisticsFileParser and
// EncryptedKeyParser read them. Pure functions, thread-safe. Messages are Java's.

/// A snapshot as read from an add-snapshot update.
struct Snapshot {
  Json json;  // in SnapshotParser's field order
  int64_t id = 0;
  std::optional<int64_t> parent_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
};

/// SnapshotParser.fromJson. kInvalidArgument for a non-object, missing or malformed fields
/// (named), a summary that is not a string map, negative first-row-id or added-rows, or a
/// first-row-id without added-rows.
Result<Snapshot> ParseSnapshot(const Json& node);

/// A branch or tag.
struct Ref {
  int64_t snapshot_id = 0;
  std::string type;  // "branch" or "tag"
  std::optional<int> min_snapshots_to_keep;
  std::optional<int64_t> max_snapshot_age_ms;
  std::optional<int64_t> max_ref_age_ms;

  /// SnapshotRefParser's document (retention members only when set).
  Json ToJson() const;
};

/// The ref of a set-snapshot-ref update (its snapshot-id, type and retention members), with
/// SnapshotRef.Builder's validations: kInvalidArgument "Invalid snapshot ref type: x",
/// "Tags do not support setting minSnapshotsToKeep", non-positive retention values, ...
Result<Ref> ParseRef(const Json& node);

/// A statistics file (`partition`: a partition statistics file), members in Java's order and
/// unknown members kept after them. kInvalidArgument for missing or malformed members.
Result<Json> ParseStatistics(const Json& node, bool partition);

/// An encryption key {key-id, encrypted-key-metadata, encrypted-by-id?, properties?}.
/// kInvalidArgument "Invalid encryption key, must be non-null object: ..." or a named member.
Result<Json> ParseEncryptionKey(const Json& node);

}  // namespace cairn::iceberg
