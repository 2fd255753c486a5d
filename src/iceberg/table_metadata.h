// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/schema.h"
#include "model/table.h"

namespace cairn::iceberg {

/// What a new Iceberg table is made of.
struct NewTableRequest {
  std::string location;
  std::vector<model::Column> columns;
  std::vector<std::string> identifier_field_names;  // dotted column paths; optional
  std::vector<model::Transform> partitioning;
  std::vector<model::SortOrder> sort_orders;
  model::Properties properties;
  int format_version = 2;  // overridden by a "format-version" property, as in Java
  std::string table_uuid;  // generated when empty
  int64_t now_ms = 0;
};

/// The creation request for a Gravitino table definition: its columns, partitioning, sort
/// orders and properties, the comment as the `comment` property and the distribution as
/// `write.distribution-mode`. `location` is the `location` property when set, else
/// `default_location` (either may be empty: the caller or the server picks). kInvalidArgument
/// for a distribution Iceberg cannot express.
Result<NewTableRequest> NewTableRequestFor(const model::Table& table,
                                           const std::string& default_location, int64_t now_ms);

/// The table property holding how many previous metadata files metadata-log keeps.
inline constexpr const char* kPreviousVersionsMaxProperty = "write.metadata.previous-versions-max";
inline constexpr int kPreviousVersionsMaxDefault = 100;

/// The metadata document Java's TableMetadata.newTableMetadata + TableMetadataParser.toJson
/// write for a new table, with Java's field order: fresh column ids (see ToIcebergSchema),
/// schema 0, partition spec 0 (field ids from 1000; last-partition-id 999 when unpartitioned),
/// sort order 1 when sorted (else the unsorted order 0), properties = the requested ones minus
/// Java's reserved keys (format-version, uuid, snapshot-count, current-snapshot-id,
/// current-snapshot-summary, current-snapshot-timestamp-ms, current-schema,
/// default-partition-spec, default-sort-order) plus "write.parquet.compression-codec":"zstd"
/// unless given; no snapshots (current-snapshot-id -1 for v1/v2, null for v3; v3 adds
/// next-row-id 0; v1 also writes the legacy "schema" and "partition-spec").
/// kInvalidArgument: format version outside 1..3, a type the version cannot hold, and every
/// error of ToIcebergSchema / ToPartitionSpec / ToSortOrder.
Result<Json> NewTableMetadata(const NewTableRequest& request);

/// Java's TableProperties.RESERVED_PROPERTIES: keys that describe the document itself
/// (format-version, uuid, current-snapshot-id, ...) and are never stored as table properties.
bool IsReservedTableProperty(const std::string& key);

/// The parts of a new table's metadata document (NewTableDocument).
struct TableDocumentParts {
  int format_version = 2;
  std::string table_uuid;
  std::optional<std::string> location;  // none: no "location" member
  int64_t last_updated_ms = 0;
  int last_column_id = 0;
  std::optional<Json> schema;      // schema 0; none: "schemas" is empty
  std::optional<Json> spec;        // spec 0; none: "partition-specs" is empty
  int last_partition_id = 0;
  std::optional<Json> sort_order;  // the default order; none: "sort-orders" is empty
  Json properties = Json::object();
};

/// The document of a table without history, in TableMetadataParser's field order: the given
/// parts, current-snapshot-id -1 (null for v3+), last-sequence-number 0 for v2+, next-row-id 0
/// for v3+, v1's legacy "schema" and "partition-spec", and empty refs, snapshots, statistics,
/// partition-statistics, snapshot-log and metadata-log. Every new table is made by it (from a
/// Gravitino definition, a REST create-table request, or the empty start of a create
/// transaction).
Json NewTableDocument(TableDocumentParts parts);

/// "00001-<uuid>.metadata.json": the version zero-padded to 5 digits, as Java names files.
std::string MetadataFileName(int version, const std::string& uuid);

/// The version prefix of a metadata file location ("…/00012-<uuid>.metadata.json" -> 12), as
/// Java's BaseMetastoreTableOperations.parseVersion; nullopt when the file name has none.
std::optional<int> ParseMetadataFileVersion(std::string_view location);

/// "<table_location>/metadata/<version+1 padded>-<random uuid>.metadata.json" where version is
/// parsed from `current_metadata_location`; version 0 when it is empty or unparsable (Java's
/// first file for a new table is 00000-…). A trailing '/' on table_location is dropped.
/// The "write.metadata.path" property is not honoured here.
std::string NextMetadataLocation(std::string_view table_location,
                                 std::string_view current_metadata_location);

/// Applies Gravitino table changes to Iceberg metadata, as Gravitino's IcebergTableOpsHelper
/// with Iceberg's UpdateSchema/UpdateProperties. Changes apply in order to a working copy; all
/// succeed or the input is untouched (the error is returned).
///  - updateComment: property "comment". setProperty/removeProperty: "location", "comment",
///    "current-snapshot-id", "cherry-pick-snapshot-id", "sort-order", "identifier-fields" are
///    refused (kInvalidArgument); "format-version" upgrades the table (downgrades refused);
///    Java's other reserved keys are silently dropped; removing a missing key is fine.
///  - Column changes address columns by path (structs by name; "element", "key", "value"
///    through lists and maps). addColumn: optional only (required -> kInvalidArgument), no
///    default value or auto-increment, id = last-column-id+1 then nested ids, position
///    first/after/default(last). renameColumn, deleteColumn (ifExists; refused for identifier
///    fields and sources of the default partition spec or sort order), updateColumnType (only
///    int->long, float->double, decimal(P,S)->decimal(P2>=P,S)), updateColumnComment,
///    updateColumnPosition (first/after a sibling/default = last), updateColumnNullability
///    (optional->required refused). Missing columns -> kInvalidArgument (Gravitino answers 400).
///  - updateColumnDefaultValue, updateColumnAutoIncrement, addIndex, deleteIndex ->
///    kInvalidArgument. rename -> kInternal: the caller must handle it before.
/// A changed schema is added with id max+1 (or an identical existing schema's id is reused) and
/// made current; last-column-id is updated; last-updated-ms is set to `now_ms`.
Result<Json> ApplyTableChanges(const Json& metadata, const std::vector<model::TableChange>& changes,
                               int64_t now_ms);

/// Completes a commit that replaces `previous_metadata_location`: appends
/// {"timestamp-ms": previous_last_updated_ms, "metadata-file": previous location} to
/// metadata-log (nothing when the location is empty), keeps at most
/// write.metadata.previous-versions-max entries (default 100, at least 1), sets last-updated-ms,
/// and puts top-level fields in Java's order.
Json FinishCommit(Json new_metadata, const std::string& previous_metadata_location,
                  int64_t previous_last_updated_ms, int64_t now_ms);

/// Top-level fields in TableMetadataParser's order (unknown fields after, in their order); drops
/// the v1-only "schema"/"partition-spec" from v2+ documents and writes a v3+ table's missing
/// current snapshot as null.
Json NormalizeMetadata(Json metadata);

/// Compact JSON text, as Java writes metadata files; invalid UTF-8 is replaced, never thrown.
std::string ToJsonText(const Json& value);

/// Where the elements of an array member of a metadata text are: bytes [begin, begin + size)
/// hold its first `count` elements as ToJsonText writes them, joined by commas.
struct ElementsSpan {
  size_t begin = 0;
  size_t size = 0;
  size_t count = 0;
};

/// A table's history in a metadata text: the arrays that only grow while commits append.
struct HistorySpans {
  ElementsSpan snapshots;     // "snapshots"
  ElementsSpan snapshot_log;  // "snapshot-log"
};

/// ToJsonText(metadata), with the first `known` elements of "snapshots" and "snapshot-log"
/// copied from `known_text` (an earlier text of the same table) instead of rendered again; the
/// caller knows they have not changed since (a table's history only grows unless snapshots are
/// removed). A commit to a table with a long history rendered it all again, most of a group
/// commit's time. `spans` gets where the history is in the result.
std::string ToJsonText(const Json& metadata, std::string_view known_text,
                       const HistorySpans& known, HistorySpans* spans);

/// Parses a metadata file. kInvalidArgument when it is not a JSON object with a format-version.
Result<Json> ParseMetadata(std::string_view text);

/// The current schema of a metadata document (by current-schema-id, or the v1 "schema"), or
/// nullptr.
const Json* CurrentSchema(const Json& metadata);
/// The default partition spec, or nullptr.
const Json* DefaultSpec(const Json& metadata);
/// The default sort order, or nullptr.
const Json* DefaultSortOrder(const Json& metadata);
/// The string-valued table properties.
model::Properties PropertiesOf(const Json& metadata);

/// The model view of a metadata document (name and audit left empty): columns of the current
/// schema, comment from the "comment" property, properties, partitioning, sort orders and the
/// distribution from write.distribution-mode.
Result<model::Table> TableFromMetadata(const Json& metadata);

/// Where a table keeps its files: its `location` and the `write.data.path` /
/// `write.metadata.path` properties when they point elsewhere (no trailing slashes, no repeats).
/// Empty when the text is not metadata.
std::vector<std::string> StorageLocations(std::string_view metadata_text);

}  // namespace cairn::iceberg
