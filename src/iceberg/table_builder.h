// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_set>
#include <vector>

#include "common/result.h"
#include "iceberg/json_readers.h"
#include "iceberg/table_update.h"

namespace cairn::iceberg {

// The table builder: typed updates (table_update.h) applied to table metadata as Java's
// TableMetadata.Builder does. The JSON entry points are in commit.h; these take updates parsed
// already. Pure functions, thread-safe.

inline constexpr int kSupportedFormatVersion = 3;
inline constexpr int kDefaultFormatVersion = 2;
inline constexpr int kMinRowLineageVersion = 3;
inline constexpr const char* kMainBranch = "main";

/// Fills, in place, what TableMetadataParser derives for older documents (v1 "schema" and
/// "partition-spec", no sort orders, refs implied by current-snapshot-id, missing lists), so
/// that the builder and the requirement checks see Java's in-memory model.
void PrepareBase(Json& md);

/// ApplyTableUpdates (commit.h) on updates ParseTableUpdates returned; the same contract, apart
/// from the malformed-update errors, which ParseTableUpdates reported already. `updates` is
/// consumed.
Result<Json> ApplyTableUpdates(const Json* base, std::vector<TableUpdate> updates, int64_t now_ms,
                               bool* changed = nullptr);
Result<Json> ApplyTableUpdates(Json&& base, std::vector<TableUpdate> updates, int64_t now_ms,
                               bool* changed = nullptr);

/// The ids of a table document's snapshots and their highest sequence number: what the builder
/// reads the whole history for before it adds a snapshot. A caller that applies commit after
/// commit to one document it keeps (a group commit) keeps this beside it.
struct SnapshotIndex {
  std::unordered_set<int64_t> ids;
  int64_t max_sequence_number = 0;
};

/// The same, with `index` describing `base`'s snapshots when set: the builder starts from it
/// instead of reading the history. On success it describes the result's snapshots (or is unset,
/// when the builder never needed it); on failure it is unset.
Result<Json> ApplyTableUpdates(Json&& base, std::vector<TableUpdate> updates, int64_t now_ms,
                               bool* changed, std::optional<SnapshotIndex>* index);

}  // namespace cairn::iceberg
