// SPDX-License-Identifier: Apache-2.0
#pragma once

// Server-side scan planning (the REST spec's planTableScan and fetchScanTasks): the request, the
// manifests as a planner reads them, which delete files apply to which data files, and the
// content files as the spec's JSON. Pure: the connector reads the Avro files and hands their
// records in. docs/iceberg-rest.md#scan-planning.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "iceberg/expression.h"
#include "iceberg/json_readers.h"

namespace cairn::iceberg {

/// A PlanTableScanRequest body, checked.
struct ScanRequest {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> start_snapshot_id, end_snapshot_id;  // incremental: (start, end]
  std::optional<std::vector<std::string>> select;
  Json filter;  // null: no filter
  bool case_sensitive = true;
  bool use_snapshot_schema = false;
  std::optional<std::vector<std::string>> stats_fields;
  std::optional<int64_t> min_rows_requested;
};

/// kInvalidArgument naming the member, as the spec's rules say (snapshot-id and
/// start-snapshot-id exclusive, end-snapshot-id required with start-snapshot-id).
Result<ScanRequest> ParseScanRequest(const Json& body);

/// One manifest as a manifest list names it.
struct ManifestInfo {
  std::string path;
  int64_t length = 0;
  int spec_id = 0;
  bool deletes = false;  // content 1
  int64_t sequence_number = 0;
  int64_t added_snapshot_id = -1;
  int64_t entries = -1;  // added + existing + deleted files, -1 when the list does not say
  std::vector<FieldSummary> partitions;
};

/// The manifests of a manifest list's records (v1 lists have no content or sequence numbers).
std::vector<ManifestInfo> ParseManifestList(const std::vector<Json>& records);

/// A live (added or existing) data or delete file of a manifest, with what the plan needs of it.
struct ContentFile {
  int content = 0;  // 0 data, 1 position deletes, 2 equality deletes
  int64_t ordinal = 0;  // position in its manifest
  int64_t snapshot_id = -1;
  bool added = false;  // status ADDED in its manifest
  int64_t data_sequence_number = 0;
  int spec_id = 0;
  std::string path;
  std::string format;  // lower case: parquet, avro, orc, puffin
  std::vector<Json> partition_avro;  // partition values as the manifest holds them, spec order
  int64_t record_count = 0;
  int64_t file_size = 0;
  std::map<int, int64_t> column_sizes;
  FileMetrics metrics;
  std::optional<std::string> key_metadata;
  std::optional<std::vector<int64_t>> split_offsets;
  std::optional<std::vector<int>> equality_ids;
  std::optional<int> sort_order_id;
  std::optional<int64_t> first_row_id;
  std::optional<std::string> referenced_data_file;
  std::optional<int64_t> content_offset, content_size;

  size_t ApproximateBytes() const;
};

/// The live entries of a manifest's records; sequence numbers and snapshot ids the entries
/// inherit come from `manifest`.
std::vector<ContentFile> ParseManifestEntries(const std::vector<Json>& records,
                                              const ManifestInfo& manifest);

/// The partition tuple of a file in its spec's types.
std::vector<Value> PartitionValues(const ContentFile& file, const std::vector<BoundPartitionField>& spec);

/// Which delete files apply to which data files (the spec's scan planning rules): position
/// deletes and deletion vectors of the same partition (and spec) with a sequence number at least
/// the data file's, restricted to their referenced data file when they name one; equality
/// deletes of the same partition, or of an unpartitioned spec, with a greater sequence number; a
/// deletion vector replaces the position delete files of its data file.
class DeleteIndex {
 public:
  /// `specs`: the spec fields by spec id (to tell an unpartitioned spec).
  DeleteIndex(std::vector<std::shared_ptr<const ContentFile>> deletes,
              const std::map<int, std::vector<BoundPartitionField>>& specs);
  /// Indices into files() of the delete files for one data file.
  std::vector<size_t> For(const ContentFile& data) const;
  const std::vector<std::shared_ptr<const ContentFile>>& files() const { return files_; }

 private:
  std::vector<std::shared_ptr<const ContentFile>> files_;
  std::map<std::string, std::vector<size_t>> by_partition_;  // spec id + partition -> files
  std::map<std::string, std::vector<size_t>> vectors_;       // data file path -> its DVs
  std::vector<size_t> global_equality_;
};

/// The spec's content file JSON. Column metrics only for `stats_ids` (none when empty).
Json ContentFileJson(const ContentFile& file, const std::vector<BoundPartitionField>& spec,
                     const std::vector<int>& stats_ids);

/// The file metrics of `file` restricted to nothing: whether the metrics-based evaluation keeps
/// the file for `filter` (a NOT-free bound expression).
bool FileMayMatch(const ExprPtr& filter, const ContentFile& file);

}  // namespace cairn::iceberg
