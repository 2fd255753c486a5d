// SPDX-License-Identifier: Apache-2.0
#include "iceberg/scan_plan.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace cairn::iceberg {
namespace {

constexpr int kStatusDeleted = 2;
constexpr int kStatusAdded = 1;

std::optional<int64_t> OptionalLong(const Json& object, std::string_view key) {
  const Json& v = MemberOrNull(object, key);
  if (!IsLong(v)) return std::nullopt;
  return v.get<int64_t>();
}

std::string BinaryText(const Json& v) {
  const auto& bin = v.get_binary();
  return std::string(reinterpret_cast<const char*>(bin.data()), bin.size());
}

// An Iceberg int-keyed map as Avro holds it (an array of {key, value} records).
template <typename F>
void ForEachPair(const Json& array, F&& f) {
  if (!array.is_array()) return;
  for (const auto& kv : array) {
    const Json& k = MemberOrNull(kv, "key");
    if (!k.is_number_integer()) continue;
    f(k.get<int>(), MemberOrNull(kv, "value"));
  }
}

std::map<int, int64_t> CountMap(const Json& array) {
  std::map<int, int64_t> out;
  ForEachPair(array, [&](int k, const Json& v) {
    if (IsLong(v)) out[k] = v.get<int64_t>();
  });
  return out;
}

std::map<int, std::string> BytesMap(const Json& array) {
  std::map<int, std::string> out;
  ForEachPair(array, [&](int k, const Json& v) {
    if (v.is_binary()) out[k] = BinaryText(v);
  });
  return out;
}

Result<std::optional<std::vector<std::string>>> StringList(const Json& body, std::string_view key) {
  const Json& v = MemberOrNull(body, key);
  if (v.is_null()) return std::optional<std::vector<std::string>>();
  if (!v.is_array()) return InvalidArgument("Invalid field '{}': expected a list of strings", key);
  std::vector<std::string> out;
  for (const auto& s : v) {
    if (!s.is_string()) return InvalidArgument("Invalid field '{}': expected a list of strings", key);
    out.push_back(s.get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Json KeysValues(const std::map<int, int64_t>& m, const std::vector<int>& ids) {
  Json keys = Json::array(), values = Json::array();
  for (int id : ids) {
    if (auto it = m.find(id); it != m.end()) {
      keys.push_back(id);
      values.push_back(it->second);
    }
  }
  return Json{{"keys", std::move(keys)}, {"values", std::move(values)}};
}

Json HexKeysValues(const std::map<int, std::string>& m, const std::vector<int>& ids) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  Json keys = Json::array(), values = Json::array();
  for (int id : ids) {
    if (auto it = m.find(id); it != m.end()) {
      keys.push_back(id);
      std::string hex;
      for (unsigned char c : it->second) {
        hex.push_back(kDigits[c >> 4]);
        hex.push_back(kDigits[c & 15]);
      }
      values.push_back(std::move(hex));
    }
  }
  return Json{{"keys", std::move(keys)}, {"values", std::move(values)}};
}

// The key a file's partition is indexed by: its spec and its partition values.
std::string PartitionKey(const ContentFile& f) {
  Json key = Json::array();
  key.push_back(f.spec_id);
  for (const auto& v : f.partition_avro) key.push_back(v);
  return key.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

Result<ScanRequest> ParseScanRequest(const Json& body) {
  if (!body.is_object()) return InvalidArgument("Invalid scan plan request: expected an object");
  ScanRequest r;
  for (const char* key : {"snapshot-id", "start-snapshot-id", "end-snapshot-id",
                          "min-rows-requested"}) {
    const Json& v = MemberOrNull(body, key);
    if (!v.is_null() && !IsLong(v)) {
      return InvalidArgument("Invalid field '{}': expected a long, got {}", key, Text(v));
    }
  }
  r.snapshot_id = OptionalLong(body, "snapshot-id");
  r.start_snapshot_id = OptionalLong(body, "start-snapshot-id");
  r.end_snapshot_id = OptionalLong(body, "end-snapshot-id");
  r.min_rows_requested = OptionalLong(body, "min-rows-requested");
  if (r.snapshot_id && (r.start_snapshot_id || r.end_snapshot_id)) {
    return InvalidArgument(
        "Invalid field 'snapshot-id': cannot be combined with start-snapshot-id or "
        "end-snapshot-id");
  }
  if (r.start_snapshot_id && !r.end_snapshot_id) {
    return InvalidArgument("Invalid field 'end-snapshot-id': required with start-snapshot-id");
  }
  if (r.end_snapshot_id && !r.start_snapshot_id) {
    return InvalidArgument("Invalid field 'start-snapshot-id': required with end-snapshot-id");
  }
  if (r.min_rows_requested && *r.min_rows_requested < 0) {
    return InvalidArgument("Invalid field 'min-rows-requested': must not be negative");
  }
  CAIRN_ASSIGN_OR_RETURN(r.select, StringList(body, "select"));
  CAIRN_ASSIGN_OR_RETURN(r.stats_fields, StringList(body, "stats-fields"));
  for (const char* key : {"case-sensitive", "use-snapshot-schema"}) {
    const Json& v = MemberOrNull(body, key);
    if (!v.is_null() && !v.is_boolean()) {
      return InvalidArgument("Invalid field '{}': expected a boolean, got {}", key, Text(v));
    }
  }
  if (const Json& cs = MemberOrNull(body, "case-sensitive"); cs.is_boolean()) {
    r.case_sensitive = cs.get<bool>();
  }
  if (const Json& u = MemberOrNull(body, "use-snapshot-schema"); u.is_boolean()) {
    r.use_snapshot_schema = u.get<bool>();
  }
  r.filter = MemberOrNull(body, "filter");
  return r;
}

std::vector<ManifestInfo> ParseManifestList(const std::vector<Json>& records) {
  std::vector<ManifestInfo> out;
  out.reserve(records.size());
  for (const auto& r : records) {
    const Json& path = MemberOrNull(r, "manifest_path");
    if (!path.is_string()) continue;
    ManifestInfo m;
    m.path = path.get<std::string>();
    m.length = LongOr(r, "manifest_length", 0);
    m.spec_id = IntOr(r, "partition_spec_id", 0);
    m.deletes = IntOr(r, "content", 0) == 1;
    m.sequence_number = LongOr(r, "sequence_number", 0);
    m.added_snapshot_id = LongOr(r, "added_snapshot_id", -1);
    int64_t entries = 0;
    bool counted = true;
    for (const auto* key : {"added_files_count", "existing_files_count", "deleted_files_count"}) {
      int64_t n = LongOr(r, key, -1);
      if (n < 0) {
        const std::string v1 = std::string(key).replace(std::string(key).find("files"), 5, "data_files");
        n = LongOr(r, v1, -1);
      }
      if (n < 0) counted = false;
      entries += std::max<int64_t>(n, 0);
    }
    m.entries = counted ? entries : -1;
    const Json& parts = MemberOrNull(r, "partitions");
    if (parts.is_array()) {
      for (const auto& p : parts) {
        FieldSummary s;
        const Json& cn = MemberOrNull(p, "contains_null");
        s.contains_null = !cn.is_boolean() || cn.get<bool>();
        const Json& nan = MemberOrNull(p, "contains_nan");
        if (nan.is_boolean()) s.contains_nan = nan.get<bool>();
        const Json& lo = MemberOrNull(p, "lower_bound");
        if (lo.is_binary()) s.lower = BinaryText(lo);
        const Json& hi = MemberOrNull(p, "upper_bound");
        if (hi.is_binary()) s.upper = BinaryText(hi);
        m.partitions.push_back(std::move(s));
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<ContentFile> ParseManifestEntries(const std::vector<Json>& records,
                                              const ManifestInfo& manifest) {
  std::vector<ContentFile> out;
  int64_t ordinal = -1;
  for (const auto& r : records) {
    ++ordinal;
    const int status = IntOr(r, "status", kStatusAdded);
    if (status == kStatusDeleted) continue;
    const Json& file = MemberOrNull(r, "data_file");
    const Json& path = MemberOrNull(file, "file_path");
    if (!path.is_string()) continue;
    ContentFile f;
    f.ordinal = ordinal;
    f.added = status == kStatusAdded;
    f.snapshot_id = LongOr(r, "snapshot_id", manifest.added_snapshot_id);
    auto seq = OptionalLong(r, "sequence_number");
    f.data_sequence_number = seq ? *seq : manifest.sequence_number;
    f.spec_id = manifest.spec_id;
    f.content = IntOr(file, "content", manifest.deletes ? 1 : 0);
    f.path = path.get<std::string>();
    const Json& format = MemberOrNull(file, "file_format");
    if (format.is_string()) {
      f.format = format.get<std::string>();
      for (auto& c : f.format) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    const Json& partition = MemberOrNull(file, "partition");
    if (partition.is_object()) {
      for (const auto& [name, value] : partition.items()) f.partition_avro.push_back(value);
    }
    f.record_count = LongOr(file, "record_count", 0);
    f.file_size = LongOr(file, "file_size_in_bytes", 0);
    f.column_sizes = CountMap(MemberOrNull(file, "column_sizes"));
    f.metrics.record_count = f.record_count;
    f.metrics.value_counts = CountMap(MemberOrNull(file, "value_counts"));
    f.metrics.null_counts = CountMap(MemberOrNull(file, "null_value_counts"));
    f.metrics.nan_counts = CountMap(MemberOrNull(file, "nan_value_counts"));
    f.metrics.lower = BytesMap(MemberOrNull(file, "lower_bounds"));
    f.metrics.upper = BytesMap(MemberOrNull(file, "upper_bounds"));
    if (const Json& k = MemberOrNull(file, "key_metadata"); k.is_binary()) f.key_metadata = BinaryText(k);
    if (const Json& s = MemberOrNull(file, "split_offsets"); s.is_array()) {
      std::vector<int64_t> offsets;
      for (const auto& o : s) {
        if (IsLong(o)) offsets.push_back(o.get<int64_t>());
      }
      f.split_offsets = std::move(offsets);
    }
    if (const Json& e = MemberOrNull(file, "equality_ids"); e.is_array()) {
      std::vector<int> ids;
      for (const auto& i : e) {
        if (IsInt(i)) ids.push_back(i.get<int>());
      }
      f.equality_ids = std::move(ids);
    }
    if (const Json& s = MemberOrNull(file, "sort_order_id"); IsInt(s)) f.sort_order_id = s.get<int>();
    f.first_row_id = OptionalLong(file, "first_row_id");
    if (const Json& ref = MemberOrNull(file, "referenced_data_file"); ref.is_string()) {
      f.referenced_data_file = ref.get<std::string>();
    }
    f.content_offset = OptionalLong(file, "content_offset");
    f.content_size = OptionalLong(file, "content_size_in_bytes");
    out.push_back(std::move(f));
  }
  return out;
}

size_t ContentFile::ApproximateBytes() const {
  size_t n = sizeof(ContentFile) + path.size() + format.size() + partition_avro.size() * 32;
  n += (column_sizes.size() + metrics.value_counts.size() + metrics.null_counts.size() +
        metrics.nan_counts.size()) * 48;
  for (const auto& [k, v] : metrics.lower) n += 48 + v.size();
  for (const auto& [k, v] : metrics.upper) n += 48 + v.size();
  if (referenced_data_file) n += referenced_data_file->size();
  return n;
}

std::vector<Value> PartitionValues(const ContentFile& file, const std::vector<BoundPartitionField>& spec) {
  std::vector<Value> out;
  out.reserve(spec.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    if (i >= file.partition_avro.size()) {
      out.push_back(Value::Null());
      continue;
    }
    auto v = FromAvro(spec[i].result_type, file.partition_avro[i]);
    out.push_back(v ? std::move(*v) : Value::Null());
  }
  return out;
}

DeleteIndex::DeleteIndex(std::vector<std::shared_ptr<const ContentFile>> deletes,
                         const std::map<int, std::vector<BoundPartitionField>>& specs)
    : files_(std::move(deletes)) {
  for (size_t i = 0; i < files_.size(); ++i) {
    const ContentFile& d = *files_[i];
    const bool dv = d.format == "puffin" && d.referenced_data_file.has_value();
    if (dv) {
      vectors_[*d.referenced_data_file].push_back(i);
      continue;
    }
    auto spec = specs.find(d.spec_id);
    const bool unpartitioned = spec == specs.end() || spec->second.empty();
    if (d.content == 2 && unpartitioned) {
      global_equality_.push_back(i);
    } else {
      by_partition_[PartitionKey(d)].push_back(i);
    }
  }
}

std::vector<size_t> DeleteIndex::For(const ContentFile& data) const {
  std::vector<size_t> out;
  bool has_vector = false;
  if (auto it = vectors_.find(data.path); it != vectors_.end()) {
    for (size_t i : it->second) {
      if (files_[i]->data_sequence_number >= data.data_sequence_number) {
        out.push_back(i);
        has_vector = true;
      }
    }
  }
  auto equality_applies = [&](const ContentFile& d) {
    return d.data_sequence_number > data.data_sequence_number;
  };
  if (auto it = by_partition_.find(PartitionKey(data)); it != by_partition_.end()) {
    for (size_t i : it->second) {
      const ContentFile& d = *files_[i];
      if (d.content == 1) {
        if (has_vector || d.data_sequence_number < data.data_sequence_number) continue;
        if (d.referenced_data_file && *d.referenced_data_file != data.path) continue;
        out.push_back(i);
      } else if (d.content == 2 && equality_applies(d)) {
        out.push_back(i);
      }
    }
  }
  for (size_t i : global_equality_) {
    if (equality_applies(*files_[i])) out.push_back(i);
  }
  return out;
}

Json ContentFileJson(const ContentFile& f, const std::vector<BoundPartitionField>& spec,
                     const std::vector<int>& stats_ids) {
  static constexpr const char* kContent[] = {"data", "position-deletes", "equality-deletes"};
  Json out = Json::object();
  out["spec-id"] = f.spec_id;
  out["content"] = kContent[std::clamp(f.content, 0, 2)];
  out["file-path"] = f.path;
  out["file-format"] = f.format;
  Json partition = Json::array();
  const auto values = PartitionValues(f, spec);
  for (size_t i = 0; i < spec.size(); ++i) {
    partition.push_back(ToSingleValueJson(spec[i].result_type, values[i]));
  }
  out["partition"] = std::move(partition);
  out["file-size-in-bytes"] = f.file_size;
  out["record-count"] = f.record_count;
  if (!stats_ids.empty()) {
    out["column-sizes"] = KeysValues(f.column_sizes, stats_ids);
    out["value-counts"] = KeysValues(f.metrics.value_counts, stats_ids);
    out["null-value-counts"] = KeysValues(f.metrics.null_counts, stats_ids);
    out["nan-value-counts"] = KeysValues(f.metrics.nan_counts, stats_ids);
    out["lower-bounds"] = HexKeysValues(f.metrics.lower, stats_ids);
    out["upper-bounds"] = HexKeysValues(f.metrics.upper, stats_ids);
  }
  if (f.key_metadata) {
    PrimitiveType binary;
    binary.id = TypeId::kBinary;
    out["key-metadata"] = ToSingleValueJson(binary, Value::Bytes(*f.key_metadata));
  }
  if (f.split_offsets) out["split-offsets"] = *f.split_offsets;
  if (f.equality_ids) out["equality-ids"] = *f.equality_ids;
  if (f.sort_order_id) out["sort-order-id"] = *f.sort_order_id;
  if (f.first_row_id) {
    out["first-row-id"] = *f.first_row_id;
    if (f.content == 0) out["data-sequence-number"] = f.data_sequence_number;
  }
  if (f.content != 0) {
    if (f.referenced_data_file) out["referenced-data-file"] = *f.referenced_data_file;
    if (f.content_offset) out["content-offset"] = *f.content_offset;
    if (f.content_size) out["content-size-in-bytes"] = *f.content_size;
  }
  return out;
}

bool FileMayMatch(const ExprPtr& filter, const ContentFile& file) {
  return MetricsMayMatch(filter, file.metrics);
}

}  // namespace cairn::iceberg
