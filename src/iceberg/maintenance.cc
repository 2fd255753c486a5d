// SPDX-License-Identifier: Apache-2.0
#include "iceberg/maintenance.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "iceberg/table_builder.h"

namespace cairn::iceberg {

namespace {

const std::string* PropertyText(const Json& metadata, const char* key) {
  const Json& props = MemberOrNull(metadata, "properties");
  if (!props.is_object()) return nullptr;
  auto it = props.find(key);
  if (it == props.end() || !it->is_string()) return nullptr;
  return &it->get_ref<const std::string&>();
}

std::optional<int64_t> LongProperty(const Json& metadata, const char* key) {
  const std::string* text = PropertyText(metadata, key);
  if (text == nullptr) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return v;
}

struct RefInfo {
  std::string name;
  int64_t snapshot_id = -1;
  bool branch = true;
  std::optional<int> min_snapshots_to_keep;
  std::optional<int64_t> max_snapshot_age_ms;
  std::optional<int64_t> max_ref_age_ms;
};

std::vector<RefInfo> RefsOf(const Json& metadata) {
  std::vector<RefInfo> out;
  const Json& refs = MemberOrNull(metadata, "refs");
  if (refs.is_object()) {
    for (const auto& [name, ref] : refs.items()) {
      RefInfo r;
      r.name = name;
      r.snapshot_id = LongOr(ref, "snapshot-id", -1);
      r.branch = MemberOrNull(ref, "type") != "tag";
      if (ref.contains("min-snapshots-to-keep")) {
        r.min_snapshots_to_keep = IntOr(ref, "min-snapshots-to-keep", 1);
      }
      if (ref.contains("max-snapshot-age-ms")) {
        r.max_snapshot_age_ms = LongOr(ref, "max-snapshot-age-ms", INT64_MAX);
      }
      if (ref.contains("max-ref-age-ms")) r.max_ref_age_ms = LongOr(ref, "max-ref-age-ms", INT64_MAX);
      out.push_back(std::move(r));
    }
  }
  // A document written before refs existed has its current snapshot as main.
  const int64_t current = LongOr(metadata, "current-snapshot-id", -1);
  const bool has_main = std::any_of(out.begin(), out.end(),
                                    [](const RefInfo& r) { return r.name == kMainBranch; });
  if (!has_main && current >= 0) out.push_back(RefInfo{kMainBranch, current, true, {}, {}, {}});
  return out;
}

}  // namespace

bool BoolTableProperty(const Json& metadata, const char* key, bool fallback) {
  const std::string* text = PropertyText(metadata, key);
  if (text == nullptr) return fallback;
  std::string lower(*text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true") return true;
  if (lower == "false") return false;
  return fallback;
}

Result<ExpirePlan> PlanSnapshotExpiry(const Json& metadata, const ExpireOptions& options) {
  struct SnapshotInfo {
    int64_t timestamp_ms = 0;
    std::optional<int64_t> parent;
  };
  std::unordered_map<int64_t, SnapshotInfo> snapshots;
  const Json& list = MemberOrNull(metadata, "snapshots");
  if (list.is_array()) {
    for (const auto& s : list) {
      const int64_t id = LongOr(s, "snapshot-id", -1);
      SnapshotInfo info{LongOr(s, "timestamp-ms", 0), std::nullopt};
      if (s.contains("parent-snapshot-id") && !s["parent-snapshot-id"].is_null()) {
        info.parent = LongOr(s, "parent-snapshot-id", -1);
      }
      snapshots.emplace(id, info);
    }
  }

  const int64_t default_max_age =
      std::max<int64_t>(0, LongProperty(metadata, kMaxSnapshotAgeProperty)
                               .value_or(kMaxSnapshotAgeDefault));
  const int64_t default_older_than =
      options.older_than_ms.value_or(options.now_ms - default_max_age);
  int default_min_keep = kMinSnapshotsToKeepDefault;
  if (auto v = LongProperty(metadata, kMinSnapshotsToKeepProperty); v && *v >= 1 && *v <= INT32_MAX) {
    default_min_keep = static_cast<int>(*v);
  }
  if (options.retain_last) {
    if (*options.retain_last < 1) {
      return InvalidArgument("Number of snapshots to retain must be at least 1, cannot be: {}",
                             *options.retain_last);
    }
    default_min_keep = *options.retain_last;
  }
  const std::optional<int64_t> default_max_ref_age = LongProperty(metadata, kMaxRefAgeProperty);

  ExpirePlan plan;
  std::unordered_set<int64_t> retained;
  std::vector<RefInfo> kept_refs;
  const std::vector<RefInfo> refs = RefsOf(metadata);
  for (const RefInfo& ref : refs) {
    auto head = snapshots.find(ref.snapshot_id);
    if (ref.name != kMainBranch && head != snapshots.end()) {
      const std::optional<int64_t> max_ref_age =
          ref.max_ref_age_ms ? ref.max_ref_age_ms : default_max_ref_age;
      if (max_ref_age && options.now_ms - head->second.timestamp_ms > *max_ref_age) {
        plan.refs.push_back(ref.name);
        continue;
      }
    }
    kept_refs.push_back(ref);
  }

  // Every snapshot in a kept branch's history, or a kept tag's snapshot, counts as referenced.
  std::unordered_set<int64_t> referenced;
  for (const RefInfo& ref : kept_refs) {
    retained.insert(ref.snapshot_id);
    if (!ref.branch) {
      referenced.insert(ref.snapshot_id);
      continue;
    }
    const int min_keep = ref.min_snapshots_to_keep.value_or(default_min_keep);
    const int64_t older_than =
        ref.max_snapshot_age_ms ? options.now_ms - *ref.max_snapshot_age_ms : default_older_than;
    size_t kept = 0;
    bool expiring = false;
    std::unordered_set<int64_t> seen;  // a cycle in a corrupt document ends the walk
    for (auto it = snapshots.find(ref.snapshot_id); it != snapshots.end() && seen.insert(it->first).second;) {
      referenced.insert(it->first);
      if (!expiring && (kept < static_cast<size_t>(min_keep) || it->second.timestamp_ms >= older_than)) {
        retained.insert(it->first);
        ++kept;
      } else {
        expiring = true;
      }
      if (!it->second.parent) break;
      it = snapshots.find(*it->second.parent);
    }
  }
  for (const auto& [id, info] : snapshots) {
    if (referenced.count(id) == 0 && info.timestamp_ms >= default_older_than) retained.insert(id);
  }

  // Explicitly named snapshots go whatever their age, unless a ref still points at them.
  for (int64_t id : options.snapshot_ids) {
    for (const RefInfo& ref : kept_refs) {
      if (ref.snapshot_id == id) {
        return InvalidArgument("Cannot expire {}. Still referenced by refs: [{}]", id, ref.name);
      }
    }
    if (snapshots.count(id) > 0) retained.erase(id);
  }
  const int64_t current = LongOr(metadata, "current-snapshot-id", -1);
  if (current >= 0) retained.insert(current);

  for (const auto& [id, info] : snapshots) {
    if (retained.count(id) == 0) plan.snapshot_ids.push_back(id);
  }
  std::sort(plan.snapshot_ids.begin(), plan.snapshot_ids.end());
  std::sort(plan.refs.begin(), plan.refs.end());
  return plan;
}

Json ExpiryUpdates(const ExpirePlan& plan) {
  Json updates = Json::array();
  for (const auto& ref : plan.refs) {
    updates.push_back(Json{{"action", "remove-snapshot-ref"}, {"ref-name", ref}});
  }
  if (!plan.snapshot_ids.empty()) {
    Json ids = Json::array();
    for (int64_t id : plan.snapshot_ids) ids.push_back(id);
    updates.push_back(Json{{"action", "remove-snapshots"}, {"snapshot-ids", std::move(ids)}});
  }
  return updates;
}

DocumentFiles FilesOf(const Json& metadata) {
  DocumentFiles out;
  auto strings = [&](const char* array, const char* member, std::set<std::string>& into) {
    const Json& items = MemberOrNull(metadata, array);
    if (!items.is_array()) return;
    for (const auto& item : items) {
      const Json& v = MemberOrNull(item, member);
      if (v.is_string() && !v.get_ref<const std::string&>().empty()) into.insert(v.get<std::string>());
    }
  };
  strings("metadata-log", "metadata-file", out.metadata_files);
  strings("snapshots", "manifest-list", out.manifest_lists);
  strings("statistics", "statistics-path", out.statistics);
  strings("partition-statistics", "statistics-path", out.statistics);
  return out;
}

}  // namespace cairn::iceberg
