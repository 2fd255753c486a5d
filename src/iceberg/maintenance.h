// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "iceberg/json_readers.h"

namespace cairn::iceberg {

// Table maintenance decided on a metadata document alone (docs/maintenance.md): which snapshots
// and refs a snapshot expiry removes, and which files a document references. Pure functions,
// thread-safe; the catalog does the reading, committing and deleting.

/// Table properties that bound a table's history, with Java's defaults.
inline constexpr const char* kMaxSnapshotAgeProperty = "history.expire.max-snapshot-age-ms";
inline constexpr int64_t kMaxSnapshotAgeDefault = 5LL * 24 * 60 * 60 * 1000;  // five days
inline constexpr const char* kMinSnapshotsToKeepProperty = "history.expire.min-snapshots-to-keep";
inline constexpr int kMinSnapshotsToKeepDefault = 1;
inline constexpr const char* kMaxRefAgeProperty = "history.expire.max-ref-age-ms";
inline constexpr const char* kDeleteAfterCommitProperty =
    "write.metadata.delete-after-commit.enabled";
inline constexpr const char* kGcEnabledProperty = "gc.enabled";

/// What an expiry is asked to do; unset members come from the table's properties.
struct ExpireOptions {
  int64_t now_ms = 0;
  /// Snapshots older than this may go (default: now - history.expire.max-snapshot-age-ms).
  std::optional<int64_t> older_than_ms;
  /// Snapshots each branch keeps whatever their age (default:
  /// history.expire.min-snapshots-to-keep); a branch's own min-snapshots-to-keep wins.
  std::optional<int> retain_last;
  /// Snapshots to expire whatever their age; kInvalidArgument when one is a ref's head.
  std::vector<int64_t> snapshot_ids;
};

/// The refs and snapshots an expiry removes, as Java's RemoveSnapshots decides them:
///  - a branch or tag other than main goes when its head is older than its max-ref-age-ms (or
///    the table's history.expire.max-ref-age-ms; none by default);
///  - a retained branch keeps the ancestors of its head while fewer than its min-snapshots-to-
///    keep are kept or while they are younger than its max-snapshot-age-ms (the defaults:
///    `options`, then the table's properties); a retained tag keeps its snapshot;
///  - a snapshot in no retained ref's history is kept while younger than the default age;
///  - the current snapshot and every ref's head are always kept.
struct ExpirePlan {
  std::vector<int64_t> snapshot_ids;  // ascending
  std::vector<std::string> refs;      // ascending
  bool empty() const { return snapshot_ids.empty() && refs.empty(); }
};
Result<ExpirePlan> PlanSnapshotExpiry(const Json& metadata, const ExpireOptions& options);

/// The REST updates that apply `plan`: remove-snapshot-ref for each ref, then one
/// remove-snapshots (absent when it removes none).
Json ExpiryUpdates(const ExpirePlan& plan);

/// A boolean table property ("true"/"false", any case), `fallback` when absent or neither.
bool BoolTableProperty(const Json& metadata, const char* key, bool fallback);

/// The files a metadata document names itself: its metadata-log files, the manifest lists of
/// its snapshots and its statistics files (not what the lists and manifests name).
struct DocumentFiles {
  std::set<std::string> metadata_files;  // metadata-log entries
  std::set<std::string> manifest_lists;
  std::set<std::string> statistics;  // statistics and partition statistics files
};
DocumentFiles FilesOf(const Json& metadata);

}  // namespace cairn::iceberg
