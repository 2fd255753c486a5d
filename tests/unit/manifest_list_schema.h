// SPDX-License-Identifier: Apache-2.0
// Test data shared by the unit tests that write Iceberg manifest lists.
#pragma once

namespace cairn::testing {

// The v2 manifest list schema as Iceberg writers emit it (field ids included).
inline constexpr const char* kManifestListSchema =
    R"({"type": "record", "name": "manifest_file", "fields": [
  {"name": "manifest_path", "field-id": 500, "type": "string"},
  {"name": "manifest_length", "field-id": 501, "type": "long"},
  {"name": "partition_spec_id", "field-id": 502, "type": "int"},
  {"name": "content", "field-id": 517, "type": "int"},
  {"name": "sequence_number", "field-id": 515, "type": "long"},
  {"name": "min_sequence_number", "field-id": 516, "type": "long"},
  {"name": "added_snapshot_id", "field-id": 503, "type": "long"},
  {"name": "added_files_count", "field-id": 504, "type": "int"},
  {"name": "existing_files_count", "field-id": 505, "type": "int"},
  {"name": "deleted_files_count", "field-id": 506, "type": "int"},
  {"name": "added_rows_count", "field-id": 512, "type": "long"},
  {"name": "existing_rows_count", "field-id": 513, "type": "long"},
  {"name": "deleted_rows_count", "field-id": 514, "type": "long"},
  {"name": "partitions", "field-id": 507, "type": ["null", {"type": "array", "element-id": 508,
    "items": {"type": "record", "name": "r508", "fields": [
      {"name": "contains_null", "field-id": 509, "type": "boolean"},
      {"name": "contains_nan", "field-id": 518, "type": ["null", "boolean"], "default": null},
      {"name": "lower_bound", "field-id": 510, "type": ["null", "bytes"], "default": null},
      {"name": "upper_bound", "field-id": 511, "type": ["null", "bytes"], "default": null}]}}],
   "default": null},
  {"name": "key_metadata", "field-id": 519, "type": ["null", "bytes"], "default": null}]})";

}  // namespace cairn::testing
