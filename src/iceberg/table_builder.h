// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
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

}  // namespace cairn::iceberg
