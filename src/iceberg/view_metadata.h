// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "iceberg/schema.h"

namespace cairn::iceberg {

// Iceberg view metadata (format version 1) as JSON, written against Java's ViewMetadata.Builder
// and ViewMetadataParser. Pure functions, no I/O, thread-safe. Documents are written in
// ViewMetadataParser's field order: view-uuid, format-version, location, properties (only when
// non-empty), schemas, current-version-id, versions, version-log. View metadata files are named
// like table ones (MetadataFileName / NextMetadataLocation in table_metadata.h).

/// The table property-like view property bounding how many versions are kept.
inline constexpr const char* kViewVersionHistorySizeProperty = "version.history.num-entries";
inline constexpr int kViewVersionHistorySizeDefault = 10;
/// Whether a replace may drop a SQL dialect of the previous version.
inline constexpr const char* kViewReplaceDropDialectAllowed = "replace.drop-dialect.allowed";

/// A view version as ViewVersionParser.fromJson reads it, written back in its field order.
/// kInvalidArgument naming the malformed or missing field.
Result<Json> ParseViewVersion(const Json& node);

/// The metadata of a new view for a REST CreateViewRequest {name, location?, schema,
/// view-version {version-id, timestamp-ms, schema-id, summary, representations[],
/// default-catalog?, default-namespace}, properties?}, as the Java catalogs' view builder
/// create(): the schema (field ids kept) becomes schema 0, the version becomes version 1 with
/// schema-id 0 and timestamp-ms = now_ms, one version-log entry, a random view-uuid.
/// The request's summary is kept (Java's server writes its own environment instead).
/// `location` (trailing '/' dropped) is the location the caller resolved; when empty the
/// request's "location" is used.
/// kInvalidArgument: missing or malformed fields (named, JsonUtil wording), representations
/// that are not "sql" ("Found unsupported view representations: [...]"), two queries for one
/// dialect, no location at all.
Result<Json> NewViewMetadata(const Json& create_view_request, const std::string& location,
                             int64_t now_ms);

/// Checks a view commit's requirements against `base` (nullptr: the view does not exist).
/// kInvalidArgument: malformed requirements or unknown types, and table requirements ("Cannot
/// validate AssertTableUUID against a view"). kNotFound(kView): `base` is nullptr and there
/// are requirements. kConflict(kView): "Requirement failed: view UUID does not match: expected
/// <base uuid> != <requested uuid>".
Status CheckViewRequirements(const Json* base, const Json& requirements);

/// Applies a view commit's updates in order as ViewMetadata.Builder does: assign-uuid (no
/// reassignment), upgrade-format-version, add-schema (identical schemas reuse their id),
/// set-location, set-properties, remove-properties, add-view-version (an identical version is
/// reused; otherwise its id is raised above every existing id; schema-id -1 = the schema added
/// last), set-current-view-version (-1 = the version added last; version-log gains one entry,
/// timestamped with the version when it was added in this call, else `now_ms`). Versions beyond
/// version.history.num-entries (default 10) are expired as Java does (the current one and those
/// added now are kept), and the version-log before an expired version is dropped. Unless
/// replace.drop-dialect.allowed is true, a new current version must keep every SQL dialect of the
/// previous one. When nothing changes the result is `base` and `*changed` (when given) is false.
/// kInvalidArgument: malformed updates, table-only actions ("Cannot apply update AddSnapshot
/// to a view"), unknown actions, and Java's validation failures.
Result<Json> ApplyViewUpdates(const Json& base, const Json& updates, int64_t now_ms,
                              bool* changed = nullptr);

}  // namespace cairn::iceberg
