// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/json_readers.h"
#include "iceberg/schema.h"
#include "iceberg/schema_parse.h"

namespace cairn::iceberg {

// The Iceberg REST commit engine on metadata JSON, written against Java's TableMetadata.Builder,
// UpdateRequirement and the REST CatalogHandlers (Iceberg 1.11). Pure functions, no I/O, safe to
// call from any thread. Error messages use Java's wording so clients see what the Java reference
// server would say.
//
// This is the entry point; the parts live beside it: json_readers.h (JsonUtil-style readers),
// schema_parse.h (schemas), specs.h (partition specs, sort orders), snapshots.h (snapshots,
// refs, statistics, keys), requirements.h (typed requirements, shared with views),
// table_update.h (typed updates), table_builder.h (applying them), create_table.cc.

/// Checks a table commit's requirements (the UpdateTableRequest "requirements" array) against
/// the current metadata `base` (nullptr: the table does not exist), as CatalogHandlers does.
///  - kInvalidArgument: `requirements` is not an array of objects, a requirement has no or an
///    unknown "type" (Java: "Unrecognized update requirement. Cannot convert to json: <type>"),
///    a field is missing or malformed (JsonUtil's wording, naming the field, e.g. "Cannot parse
///    missing string: uuid"), assert-create mixed with other requirements ("Invalid create
///    requirements: ..."), or assert-view-uuid ("Cannot validate AssertViewUUID against a table").
///  - kNotFound(kTable): `base` is nullptr and a requirement other than assert-create is present.
///  - kConflict(kTable): a requirement does not hold; the message is Java's exactly, e.g.
///    "Requirement failed: table already exists", "Requirement failed: UUID does not match:
///    expected <base uuid> != <requested uuid>", "Requirement failed: branch main has changed:
///    expected id 1 != 2", "Requirement failed: branch or tag main is missing, expected 1",
///    "Requirement failed: branch main was created concurrently".
Status CheckTableRequirements(const Json* base, const Json& requirements);

/// Applies the MetadataUpdate array `updates` in order, as Java's TableMetadata.Builder does,
/// to `base`, or (base == nullptr, a create transaction) to an empty table: format version from
/// the first upgrade-format-version update (else 2), a random table-uuid, no location.
/// Every action of Iceberg 1.11 is supported (assign-uuid ... remove-encryption-key); "-1" in
/// set-current-schema / set-default-spec / set-default-sort-order means the one added last in
/// this call. Schemas, specs and sort orders identical to existing ones reuse their ids.
/// The result has last-updated-ms = `now_ms`, refs.main consistent with current-snapshot-id,
/// snapshot-log maintained as Java (intermediate snapshots and history before removed snapshots
/// dropped) and Java's field order (NormalizeMetadata). metadata-log is NOT touched: the caller
/// finishes with FinishCommit(previous location, previous last-updated-ms, now).
/// When no update changes anything (Java's "changes().isEmpty()") the result is *base as is and
/// `*changed` (when given) is false; callers should then not write a new metadata file.
/// Errors:
///  - kInvalidArgument: malformed updates (field named), unknown actions ("Cannot convert
///    metadata update action to json: <action>"), and every validation Java's Builder does
///    (downgrade, unknown schema/spec/order/snapshot ids, removing the current schema or default
///    spec, a snapshot id that exists, v3 snapshot without first-row-id, an incomplete new
///    table, ...).
///  - kConflict(kTable) "Validation failed, please retry: ...": an added snapshot's sequence
///    number or first-row-id is behind the table (Java's RetryableValidationException, which
///    CatalogHandlers turns into CommitFailedException).
Result<Json> ApplyTableUpdates(const Json* base, const Json& updates, int64_t now_ms,
                               bool* changed = nullptr);

/// ApplyTableUpdates on a document the caller gives up, so that its history is not copied (a
/// group commit applies many commits in a row). `base` is consumed, also on error. Unlike the
/// above, the result always goes through the builder: when nothing changed (`*changed` false) it
/// is `base` with the defaults of an older format filled in and Java's field order.
Result<Json> ApplyTableUpdates(Json&& base, const Json& updates, int64_t now_ms,
                               bool* changed = nullptr);

/// The metadata of a new table for a REST CreateTableRequest {name, location?, schema,
/// partition-spec?, write-order?, properties?, stage-create?}, as Java's
/// TableMetadata.newTableMetadata: fresh column ids in TypeUtil.assignFreshIds order (nested
/// ids after each struct's own fields), identifier-field-ids remapped, the partition spec rebuilt
/// as spec 0 with field ids from 1000 and source ids remapped by column, the sort order as order
/// 1 (or the unsorted order 0) with remapped sources, format-version from
/// properties["format-version"] (default 2, 1..3), Java's reserved properties dropped,
/// "write.parquet.compression-codec":"zstd" added unless given, a random table-uuid,
/// last-updated-ms = now_ms. `location` (trailing '/' dropped) is the table location the caller
/// resolved; when empty the request's "location" is used.
/// kInvalidArgument: a missing or malformed field (named, e.g. "Cannot parse missing field:
/// schema"), an invalid schema, partition or sort field, an unsupported format version, types
/// the version cannot hold, no location at all.
Result<Json> NewTableMetadataFromRest(const Json& create_request, const std::string& location,
                                      int64_t now_ms);

}  // namespace cairn::iceberg
