// SPDX-License-Identifier: Apache-2.0
#include "iceberg/snapshots.h"

#include "common/util.h"

namespace cairn::iceberg {

Result<Snapshot> ParseSnapshot(const Json& node) {
  if (!node.is_object())
    return InvalidArgument("Cannot parse table version from a non-object: {}", Text(node));
  Snapshot s;
  if (node.contains("sequence-number")) {
    CAIRN_ASSIGN_OR_RETURN(s.sequence_number, JsonGetLong(node, "sequence-number"));
  }
  CAIRN_ASSIGN_OR_RETURN(s.id, JsonGetLong(node, "snapshot-id"));
  if (node.contains("parent-snapshot-id")) {
    CAIRN_ASSIGN_OR_RETURN(s.parent_id, JsonGetLongOrNull(node, "parent-snapshot-id"));
  }
  CAIRN_ASSIGN_OR_RETURN(s.timestamp_ms, JsonGetLong(node, "timestamp-ms"));
  Json summary;
  if (auto it = node.find("summary"); it != node.end()) {
    if (!it->is_object()) {
      return InvalidArgument("Cannot parse summary from non-object value: {}", Text(*it));
    }
    if (!it->empty()) {
      summary = Json::object();
      summary["operation"] = it->contains("operation") ? Json() : Json("overwrite");
      for (const auto& [k, v] : it->items()) {
        if (!v.is_string())
          return InvalidArgument("Cannot parse to a string value: {}: {}", k, Text(v));
        summary[k] = v;
      }
    }
  }
  CAIRN_ASSIGN_OR_RETURN(std::optional<int> schema_id, JsonGetIntOrNull(node, "schema-id"));
  CAIRN_ASSIGN_OR_RETURN(s.first_row_id, JsonGetLongOrNull(node, "first-row-id"));
  CAIRN_ASSIGN_OR_RETURN(s.added_rows, JsonGetLongOrNull(node, "added-rows"));
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> key_id, JsonGetStringOrNull(node, "key-id"));
  if (s.first_row_id && *s.first_row_id < 0) {
    return InvalidArgument("Invalid first-row-id (cannot be negative): {}", *s.first_row_id);
  }
  if (s.added_rows && *s.added_rows < 0) {
    return InvalidArgument("Invalid added-rows (cannot be negative): {}", *s.added_rows);
  }
  if (s.first_row_id && !s.added_rows) {
    return InvalidArgument("Invalid added-rows (required when first-row-id is set): null");
  }
  Json out = Json::object();
  if (s.sequence_number > 0) out["sequence-number"] = s.sequence_number;
  out["snapshot-id"] = s.id;
  if (s.parent_id) out["parent-snapshot-id"] = *s.parent_id;
  out["timestamp-ms"] = s.timestamp_ms;
  if (!summary.is_null()) out["summary"] = std::move(summary);
  if (node.contains("manifest-list")) {
    CAIRN_ASSIGN_OR_RETURN(std::string list, JsonGetString(node, "manifest-list"));
    out["manifest-list"] = list;
  } else {
    CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> manifests,
                           JsonGetStringList(node, "manifests"));
    out["manifests"] = manifests;
  }
  if (schema_id) out["schema-id"] = *schema_id;
  if (s.first_row_id) out["first-row-id"] = *s.first_row_id;
  if (s.added_rows) out["added-rows"] = *s.added_rows;
  if (key_id) out["key-id"] = *key_id;
  s.json = std::move(out);
  return s;
}

Json Ref::ToJson() const {
  Json j = Json::object();
  j["snapshot-id"] = snapshot_id;
  j["type"] = type;
  if (min_snapshots_to_keep) j["min-snapshots-to-keep"] = *min_snapshots_to_keep;
  if (max_snapshot_age_ms) j["max-snapshot-age-ms"] = *max_snapshot_age_ms;
  if (max_ref_age_ms) j["max-ref-age-ms"] = *max_ref_age_ms;
  return j;
}

// SnapshotRef.Builder validations.
Result<Ref> ParseRef(const Json& node) {
  Ref r;
  CAIRN_ASSIGN_OR_RETURN(r.snapshot_id, JsonGetLong(node, "snapshot-id"));
  CAIRN_ASSIGN_OR_RETURN(std::string type, JsonGetString(node, "type"));
  r.type = ToLower(type);
  if (r.type != "branch" && r.type != "tag") {
    return InvalidArgument("Invalid snapshot ref type: {}", type);
  }
  CAIRN_ASSIGN_OR_RETURN(r.min_snapshots_to_keep, JsonGetIntOrNull(node, "min-snapshots-to-keep"));
  CAIRN_ASSIGN_OR_RETURN(r.max_snapshot_age_ms, JsonGetLongOrNull(node, "max-snapshot-age-ms"));
  CAIRN_ASSIGN_OR_RETURN(r.max_ref_age_ms, JsonGetLongOrNull(node, "max-ref-age-ms"));
  const bool tag = r.type == "tag";
  if (r.min_snapshots_to_keep) {
    if (tag) return InvalidArgument("Tags do not support setting minSnapshotsToKeep");
    if (*r.min_snapshots_to_keep <= 0) {
      return InvalidArgument("Min snapshots to keep must be greater than 0");
    }
  }
  if (r.max_snapshot_age_ms) {
    if (tag) return InvalidArgument("Tags do not support setting maxSnapshotAgeMs");
    if (*r.max_snapshot_age_ms <= 0) {
      return InvalidArgument("Max snapshot age must be greater than 0 ms");
    }
  }
  if (r.max_ref_age_ms && *r.max_ref_age_ms <= 0) {
    return InvalidArgument("Max reference age must be greater than 0");
  }
  return r;
}

Result<Json> ParseStatistics(const Json& node, bool partition) {
  if (!node.is_object())
    return InvalidArgument("Cannot parse statistics file from non-object: {}", Text(node));
  Json out = Json::object();
  CAIRN_ASSIGN_OR_RETURN(out["snapshot-id"], JsonGetLong(node, "snapshot-id"));
  CAIRN_ASSIGN_OR_RETURN(out["statistics-path"], JsonGetString(node, "statistics-path"));
  CAIRN_ASSIGN_OR_RETURN(out["file-size-in-bytes"], JsonGetLong(node, "file-size-in-bytes"));
  if (!partition) {
    CAIRN_ASSIGN_OR_RETURN(out["file-footer-size-in-bytes"],
                           JsonGetLong(node, "file-footer-size-in-bytes"));
    if (auto it = node.find("key-metadata"); it != node.end() && !it->is_null()) {
      out["key-metadata"] = *it;
    }
    CAIRN_ASSIGN_OR_RETURN(const Json* blobs, JsonGetField(node, "blob-metadata"));
    if (!blobs->is_array()) {
      return InvalidArgument("Cannot parse blob metadata from non-array: {}", Text(*blobs));
    }
    out["blob-metadata"] = *blobs;
  }
  for (const auto& [k, v] : node.items()) {
    if (!out.contains(k)) out[k] = v;
  }
  return out;
}

Result<Json> ParseEncryptionKey(const Json& node) {
  if (!node.is_object()) {
    return InvalidArgument("Invalid encryption key, must be non-null object: {}", Text(node));
  }
  Json out = Json::object();
  CAIRN_ASSIGN_OR_RETURN(out["key-id"], JsonGetString(node, "key-id"));
  CAIRN_ASSIGN_OR_RETURN(out["encrypted-key-metadata"],
                         JsonGetString(node, "encrypted-key-metadata"));
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> by,
                         JsonGetStringOrNull(node, "encrypted-by-id"));
  if (by) out["encrypted-by-id"] = *by;
  if (node.contains("properties")) {
    CAIRN_ASSIGN_OR_RETURN(auto props, JsonGetStringMap(node, "properties"));
    if (!props.empty()) out["properties"] = props;
  }
  return out;
}
}  // namespace cairn::iceberg
