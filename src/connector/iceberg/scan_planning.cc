// SPDX-License-Identifier: Apache-2.0
// Server-side scan planning of managed Iceberg tables (docs/iceberg-rest.md#scan-planning): the
// manifests of the chosen snapshot pruned by the filter's projection onto each partition spec,
// their live entries by partition values and column metrics, each data file with the delete
// files that apply to it. Plans larger than one answer are split into plan tasks: tokens that
// name the snapshot, the manifests and the filter, checked again when redeemed, so any replica
// can answer them and nothing is kept between the calls.
#include <set>

#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "connector/iceberg/manifest_cache.h"
#include "iceberg/append_rebase.h"
#include "iceberg/table_metadata.h"
#include "security/base64.h"
#include "storage/file_io.h"

namespace cairn::connector {

// ---- ManifestCache ---------------------------------------------------------------------------

std::shared_ptr<const void> ManifestCache::Find(const std::string& key, bool list) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  order_.splice(order_.begin(), order_, it->second.lru);
  if (list) return it->second.list;
  return it->second.files;
}

void ManifestCache::Insert(const std::string& key, Entry entry) {
  if (entry.bytes > max_bytes_) return;
  std::lock_guard lock(mu_);
  if (auto it = entries_.find(key); it != entries_.end()) {
    bytes_ -= it->second.bytes;
    order_.erase(it->second.lru);
    entries_.erase(it);
  }
  order_.push_front(key);
  entry.lru = order_.begin();
  bytes_ += entry.bytes;
  entries_.emplace(key, std::move(entry));
  while (bytes_ > max_bytes_ && !order_.empty()) {
    auto victim = entries_.find(order_.back());
    bytes_ -= victim->second.bytes;
    entries_.erase(victim);
    order_.pop_back();
  }
}

Result<std::shared_ptr<const std::vector<iceberg::ManifestInfo>>> ManifestCache::List(
    const std::string& path, const Reader& read) {
  const std::string key = "L" + path;
  if (auto hit = Find(key, true)) {
    return std::static_pointer_cast<const std::vector<iceberg::ManifestInfo>>(hit);
  }
  CAIRN_ASSIGN_OR_RETURN(auto records, read());
  auto list = std::make_shared<const std::vector<iceberg::ManifestInfo>>(
      iceberg::ParseManifestList(records));
  Entry e;
  e.list = list;
  e.bytes = 64 + path.size();
  for (const auto& m : *list) e.bytes += sizeof(m) + m.path.size() + m.partitions.size() * 64;
  Insert(key, std::move(e));
  return list;
}

Result<std::shared_ptr<const ManifestCache::Files>> ManifestCache::Entries(
    const iceberg::ManifestInfo& manifest, const Reader& read) {
  const std::string key = "M" + manifest.path;
  if (auto hit = Find(key, false)) return std::static_pointer_cast<const Files>(hit);
  CAIRN_ASSIGN_OR_RETURN(auto records, read());
  auto parsed = iceberg::ParseManifestEntries(records, manifest);
  auto files = std::make_shared<Files>();
  files->reserve(parsed.size());
  Entry e;
  e.bytes = 64 + manifest.path.size();
  for (auto& f : parsed) {
    e.bytes += f.ApproximateBytes();
    files->push_back(std::make_shared<const iceberg::ContentFile>(std::move(f)));
  }
  std::shared_ptr<const Files> out = std::move(files);
  e.files = out;
  Insert(key, std::move(e));
  return out;
}

void ManifestCache::AddStats(IcebergStats& s) {
  std::lock_guard lock(mu_);
  s.manifest_cache_hits = hits_;
  s.manifest_cache_misses = misses_;
  s.manifest_cache_bytes = bytes_;
}

// ---- Planning --------------------------------------------------------------------------------

namespace {

using iceberg::Json;

// What a plan and its tasks share: the snapshot, the bound filter, the specs and the stats
// columns, all derived from the table and the request.
struct PlanScope {
  Json metadata;
  int64_t snapshot_id = -1;  // -1: the table has no snapshot (an empty plan)
  std::string manifest_list;
  std::set<int64_t> appends;  // incremental: the append snapshots in (start, end]
  bool incremental = false;
  int schema_id = 0;
  iceberg::ExprPtr filter = iceberg::True();
  Json filter_json;  // as the request wrote it (null: none)
  bool case_sensitive = true;
  std::vector<int> stats_ids;
  std::map<int, std::vector<iceberg::BoundPartitionField>> specs;
  std::map<int, iceberg::ExprPtr> projected;  // by spec id

  const std::vector<iceberg::BoundPartitionField>& Spec(int id) const {
    static const std::vector<iceberg::BoundPartitionField> kNone;
    auto it = specs.find(id);
    return it == specs.end() ? kNone : it->second;
  }
  const iceberg::ExprPtr& Projected(int id) {
    auto it = projected.find(id);
    if (it == projected.end()) {
      it = projected.emplace(id, iceberg::ProjectInclusive(filter, Spec(id))).first;
    }
    return it->second;
  }
};

// The member of the metadata's `list` whose `key` is `id` ("snapshots" / "snapshot-id", ...).
const Json* ById(const Json& metadata, std::string_view list, std::string_view key, int64_t id) {
  const Json& items = iceberg::MemberOrNull(metadata, list);
  if (!items.is_array()) return nullptr;
  for (const auto& item : items) {
    const Json& v = iceberg::MemberOrNull(item, key);
    if (iceberg::IsLong(v) && v.get<int64_t>() == id) return &item;
  }
  return nullptr;
}
const Json* SnapshotById(const Json& metadata, int64_t id) {
  return ById(metadata, "snapshots", "snapshot-id", id);
}
const Json* SchemaById(const Json& metadata, int id) {
  return ById(metadata, "schemas", "schema-id", id);
}

struct ScopeInput {
  std::optional<int64_t> snapshot_id, start, end;
  std::optional<int> schema_id;  // pinned (a plan task)
  bool use_snapshot_schema = false;
  Json filter;
  bool case_sensitive = true;
  std::optional<std::vector<std::string>> select, stats_fields;
  std::optional<std::vector<int>> stats_ids;  // pinned (a plan task)
};

Result<PlanScope> MakeScope(Json metadata, const ScopeInput& in) {
  PlanScope s;
  s.metadata = std::move(metadata);
  const Json& md = s.metadata;
  const Json* snapshot = nullptr;
  if (in.end) {
    s.incremental = true;
    snapshot = SnapshotById(md, *in.end);
    if (snapshot == nullptr) {
      return InvalidArgument("Invalid field 'end-snapshot-id': Cannot find snapshot with ID {}",
                             *in.end);
    }
    if (SnapshotById(md, *in.start) == nullptr) {
      return InvalidArgument("Invalid field 'start-snapshot-id': Cannot find snapshot with ID {}",
                             *in.start);
    }
    // Walk back from the end to the start (exclusive), keeping the appends.
    const Json* at = snapshot;
    bool reached = *in.start == *in.end;
    for (int guard = 0; at != nullptr && !reached && guard < 1'000'000; ++guard) {
      const int64_t id = iceberg::LongOr(*at, "snapshot-id", -1);
      if (id == *in.start) {
        reached = true;
        break;
      }
      const Json& op = iceberg::MemberOrNull(iceberg::MemberOrNull(*at, "summary"), "operation");
      if (op == "append") s.appends.insert(id);
      const int64_t parent = iceberg::LongOr(*at, "parent-snapshot-id", -1);
      at = parent < 0 ? nullptr : SnapshotById(md, parent);
    }
    if (!reached) {
      return InvalidArgument(
          "Invalid field 'start-snapshot-id': snapshot {} is not an ancestor of snapshot {}",
          *in.start, *in.end);
    }
  } else if (in.snapshot_id) {
    snapshot = SnapshotById(md, *in.snapshot_id);
    if (snapshot == nullptr) {
      return InvalidArgument("Invalid field 'snapshot-id': Cannot find snapshot with ID {}",
                             *in.snapshot_id);
    }
  } else {
    const int64_t current = iceberg::LongOr(md, "current-snapshot-id", -1);
    if (current >= 0) snapshot = SnapshotById(md, current);
  }
  if (snapshot != nullptr) {
    s.snapshot_id = iceberg::LongOr(*snapshot, "snapshot-id", -1);
    const Json& list = iceberg::MemberOrNull(*snapshot, "manifest-list");
    if (!list.is_string()) {
      return InvalidArgument("Snapshot {} has no manifest list (v1 inline manifests are not "
                             "planned by the server)",
                             s.snapshot_id);
    }
    s.manifest_list = list.get<std::string>();
  }
  // The schema the filter and the names bind to.
  const Json* schema = iceberg::CurrentSchema(md);
  if (in.schema_id) {
    schema = SchemaById(md, *in.schema_id);
  } else if ((in.use_snapshot_schema || in.end) && snapshot != nullptr) {
    const int id = iceberg::IntOr(*snapshot, "schema-id", -1);
    if (const Json* pinned = SchemaById(md, id)) schema = pinned;
  }
  if (schema == nullptr) return InvalidArgument("The table has no schema to plan with");
  s.schema_id = iceberg::IntOr(*schema, "schema-id", 0);
  const iceberg::SchemaIndex index(*schema);
  s.case_sensitive = in.case_sensitive;
  if (!in.filter.is_null()) {
    CAIRN_ASSIGN_OR_RETURN(auto bound, iceberg::BindFilter(in.filter, index, in.case_sensitive));
    s.filter = iceberg::RewriteNot(bound);
    s.filter_json = in.filter;
  }
  for (const auto* names : {&in.select, &in.stats_fields}) {
    if (!*names) continue;
    const char* member = names == &in.select ? "select" : "stats-fields";
    for (const auto& n : **names) {
      const auto* field = index.Find(n, in.case_sensitive);
      if (field == nullptr) {
        return InvalidArgument("Invalid field '{}': Cannot find field '{}' in the table schema",
                               member, n);
      }
      if (names == &in.stats_fields) s.stats_ids.push_back(field->id);
    }
  }
  if (in.stats_ids) s.stats_ids = *in.stats_ids;
  const Json& specs = iceberg::MemberOrNull(md, "partition-specs");
  if (specs.is_array()) {
    for (const auto& spec : specs) {
      s.specs[iceberg::IntOr(spec, "spec-id", 0)] = iceberg::BindPartitionSpec(spec, index);
    }
  }
  return s;
}

// A plan task: the manifests (and, for one large manifest, a range of its entries) whose
// matching data files one call to /tasks returns.
struct TaskToken {
  int64_t snapshot_id = -1;
  std::vector<std::string> manifests;
  int64_t offset = 0, count = -1;  // entry ordinals [offset, offset + count); -1: all
  std::optional<int64_t> start, end;
  int schema_id = 0;
  Json filter;
  bool case_sensitive = true;
  std::vector<int> stats_ids;
};

std::string EncodeToken(const TaskToken& t) {
  Json j = Json::object();
  j["v"] = 1;
  j["s"] = t.snapshot_id;
  j["m"] = t.manifests;
  if (t.count >= 0) {
    j["o"] = t.offset;
    j["n"] = t.count;
  }
  if (t.start) j["i"] = Json::array({*t.start, *t.end});
  j["h"] = t.schema_id;
  if (!t.filter.is_null()) j["f"] = t.filter;
  if (!t.case_sensitive) j["c"] = false;
  if (!t.stats_ids.empty()) j["x"] = t.stats_ids;
  return security::Base64UrlEncode(j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

Result<TaskToken> DecodeToken(std::string_view text) {
  auto invalid = [&] {
    return NotFound(EntityKind::kTable, "Plan task does not exist or is not valid for this table");
  };
  auto raw = security::Base64UrlDecode(text);
  if (!raw) return invalid();
  Json j = Json::parse(*raw, nullptr, false);
  if (j.is_discarded() || !j.is_object() || iceberg::IntOr(j, "v", 0) != 1) return invalid();
  TaskToken t;
  t.snapshot_id = iceberg::LongOr(j, "s", -1);
  const Json& m = iceberg::MemberOrNull(j, "m");
  if (!m.is_array() || m.empty()) return invalid();
  for (const auto& p : m) {
    if (!p.is_string()) return invalid();
    t.manifests.push_back(p.get<std::string>());
  }
  t.offset = iceberg::LongOr(j, "o", 0);
  t.count = iceberg::LongOr(j, "n", -1);
  if (t.offset < 0) return invalid();
  const Json& inc = iceberg::MemberOrNull(j, "i");
  if (inc.is_array() && inc.size() == 2 && iceberg::IsLong(inc[0]) && iceberg::IsLong(inc[1])) {
    t.start = inc[0].get<int64_t>();
    t.end = inc[1].get<int64_t>();
  }
  t.schema_id = iceberg::IntOr(j, "h", 0);
  t.filter = iceberg::MemberOrNull(j, "f");
  const Json& cs = iceberg::MemberOrNull(j, "c");
  t.case_sensitive = !cs.is_boolean() || cs.get<bool>();
  const Json& x = iceberg::MemberOrNull(j, "x");
  if (x.is_array()) {
    for (const auto& id : x) {
      if (!iceberg::IsInt(id)) return invalid();
      t.stats_ids.push_back(id.get<int>());
    }
  }
  return t;
}

// The answer being built: tasks and the delete files they reference, each listed once.
struct TaskWriter {
  Json tasks = Json::array();
  Json deletes = Json::array();
  std::map<size_t, size_t> delete_positions;  // index in the DeleteIndex -> position in deletes
};

// Reads and caches the manifest list and manifests of a scope.
class ScanPlanner {
 public:
  ScanPlanner(ManifestCache& cache, const storage::StorageOptions& storage, PlanScope& scope)
      : cache_(cache), storage_(storage), scope_(scope) {}

  Result<std::shared_ptr<const std::vector<iceberg::ManifestInfo>>> Manifests() {
    return cache_.List(scope_.manifest_list, [&] { return Read(scope_.manifest_list); });
  }

  // The data manifests the filter may need.
  Result<std::vector<const iceberg::ManifestInfo*>> DataManifests(
      const std::vector<iceberg::ManifestInfo>& all) {
    std::vector<const iceberg::ManifestInfo*> out;
    for (const auto& m : all) {
      if (m.deletes) continue;
      if (scope_.incremental && !scope_.appends.contains(m.added_snapshot_id)) continue;
      if (!iceberg::ManifestMayMatch(scope_.Projected(m.spec_id), scope_.Spec(m.spec_id),
                                     m.partitions)) {
        continue;
      }
      out.push_back(&m);
    }
    return out;
  }

  Result<iceberg::DeleteIndex> Deletes(const std::vector<iceberg::ManifestInfo>& all) {
    std::vector<std::shared_ptr<const iceberg::ContentFile>> files;
    if (!scope_.incremental) {
      for (const auto& m : all) {
        if (!m.deletes) continue;
        if (!iceberg::ManifestMayMatch(scope_.Projected(m.spec_id), scope_.Spec(m.spec_id),
                                       m.partitions)) {
          continue;
        }
        CAIRN_ASSIGN_OR_RETURN(auto entries, Entries(m));
        for (const auto& f : *entries) {
          if (f->content != 0) files.push_back(f);
        }
      }
    }
    return iceberg::DeleteIndex(std::move(files), scope_.specs);
  }

  Result<std::shared_ptr<const ManifestCache::Files>> Entries(const iceberg::ManifestInfo& m) {
    return cache_.Entries(m, [&] { return Read(m.path); });
  }

  // Appends the matching data files of `m` with ordinals in [offset, offset + count).
  Status AddTasks(const iceberg::ManifestInfo& m, int64_t offset, int64_t count,
                  const iceberg::DeleteIndex& deletes, TaskWriter& out) {
    CAIRN_ASSIGN_OR_RETURN(auto entries, Entries(m));
    const auto& spec = scope_.Spec(m.spec_id);
    const auto& projected = scope_.Projected(m.spec_id);
    for (const auto& f : *entries) {
      if (f->content != 0) continue;
      if (f->ordinal < offset || (count >= 0 && f->ordinal >= offset + count)) continue;
      if (scope_.incremental && (!f->added || !scope_.appends.contains(f->snapshot_id))) continue;
      const auto partition = iceberg::PartitionValues(*f, spec);
      if (!iceberg::PartitionMatches(projected, partition)) continue;
      if (!iceberg::FileMayMatch(scope_.filter, *f)) continue;
      Json task = Json::object();
      task["data-file"] = iceberg::ContentFileJson(*f, spec, scope_.stats_ids);
      const auto refs = deletes.For(*f);
      if (!refs.empty()) {
        Json positions = Json::array();
        for (size_t i : refs) {
          auto [it, fresh] = out.delete_positions.emplace(i, out.deletes.size());
          if (fresh) {
            const auto& d = *deletes.files()[i];
            out.deletes.push_back(iceberg::ContentFileJson(d, scope_.Spec(d.spec_id), {}));
          }
          positions.push_back(it->second);
        }
        task["delete-file-references"] = std::move(positions);
      }
      if (!scope_.filter_json.is_null()) {
        task["residual-filter"] = iceberg::ToJson(iceberg::Residual(scope_.filter, spec, partition));
      }
      out.tasks.push_back(std::move(task));
    }
    return Ok();
  }

 private:
  Result<std::vector<Json>> Read(const std::string& location) {
    CAIRN_ASSIGN_OR_RETURN(auto io, storage::FileIOFor(location, storage_));
    CAIRN_ASSIGN_OR_RETURN(std::string bytes, io->Read(location));
    CAIRN_ASSIGN_OR_RETURN(iceberg::AvroFile file, iceberg::ReadAvroFile(bytes));
    return std::move(file.records);
  }

  ManifestCache& cache_;
  const storage::StorageOptions& storage_;
  PlanScope& scope_;
};

Json Answer(TaskWriter& w, Json plan_tasks) {
  Json out = Json::object();
  out["plan-tasks"] = std::move(plan_tasks);
  out["file-scan-tasks"] = std::move(w.tasks);
  if (!w.deletes.empty()) out["delete-files"] = std::move(w.deletes);
  return out;
}

}  // namespace

Result<IcebergCatalog::ScanPlan> IcebergCatalog::PlanScan(const Namespace& ns,
                                                          std::string_view name,
                                                          const iceberg::ScanRequest& request,
                                                          size_t files_per_task) {
  CAIRN_ASSIGN_OR_RETURN(auto table, LoadTable(ns, name));
  CAIRN_ASSIGN_OR_RETURN(auto metadata, iceberg::ParseMetadata(*table.metadata_text));
  return iceberg::CatchJsonErrors("Cannot plan the scan", [&]() -> Result<ScanPlan> {
    ScopeInput in;
    in.snapshot_id = request.snapshot_id;
    in.start = request.start_snapshot_id;
    in.end = request.end_snapshot_id;
    in.use_snapshot_schema = request.use_snapshot_schema;
    in.filter = request.filter;
    in.case_sensitive = request.case_sensitive;
    in.select = request.select;
    in.stats_fields = request.stats_fields;
    CAIRN_ASSIGN_OR_RETURN(PlanScope scope, MakeScope(std::move(metadata), in));
    TaskWriter writer;
    if (scope.snapshot_id < 0 || (scope.incremental && scope.appends.empty())) {
      return ScanPlan{Answer(writer, Json::array()), scope.snapshot_id};
    }
    ScanPlanner planner(caches_->manifests(), storage_, scope);
    CAIRN_ASSIGN_OR_RETURN(auto manifests, planner.Manifests());
    CAIRN_ASSIGN_OR_RETURN(auto data, planner.DataManifests(*manifests));
    int64_t total = 0;
    bool unknown = false;
    for (const auto* m : data) {
      if (m->entries < 0) unknown = true;
      total += std::max<int64_t>(m->entries, 0);
    }
    const auto per_task = static_cast<int64_t>(std::max<size_t>(files_per_task, 1));
    if (!unknown && total <= per_task) {
      CAIRN_ASSIGN_OR_RETURN(auto deletes, planner.Deletes(*manifests));
      for (const auto* m : data) {
        CAIRN_RETURN_IF_ERROR(planner.AddTasks(*m, 0, -1, deletes, writer));
      }
      return ScanPlan{Answer(writer, Json::array()), scope.snapshot_id};
    }
    // Too large for one answer: plan tasks of about `per_task` entries each, small manifests
    // grouped, a large one split by entry ranges.
    TaskToken base;
    base.snapshot_id = scope.snapshot_id;
    if (scope.incremental) {
      base.start = request.start_snapshot_id;
      base.end = request.end_snapshot_id;
    }
    base.schema_id = scope.schema_id;
    base.filter = scope.filter_json;
    base.case_sensitive = scope.case_sensitive;
    base.stats_ids = scope.stats_ids;
    Json tokens = Json::array();
    TaskToken group = base;
    int64_t grouped = 0;
    auto flush = [&] {
      if (!group.manifests.empty()) tokens.push_back(EncodeToken(group));
      group = base;
      grouped = 0;
    };
    for (const auto* m : data) {
      if (m->entries > per_task) {
        for (int64_t off = 0; off < m->entries; off += per_task) {
          TaskToken split = base;
          split.manifests = {m->path};
          split.offset = off;
          split.count = per_task;
          tokens.push_back(EncodeToken(split));
        }
        continue;
      }
      if (grouped + std::max<int64_t>(m->entries, 1) > per_task) flush();
      group.manifests.push_back(m->path);
      grouped += std::max<int64_t>(m->entries, 1);
    }
    flush();
    return ScanPlan{Answer(writer, std::move(tokens)), scope.snapshot_id};
  });
}

Result<iceberg::Json> IcebergCatalog::FetchScanTasks(const Namespace& ns, std::string_view name,
                                                     std::string_view plan_task) {
  CAIRN_ASSIGN_OR_RETURN(TaskToken token, DecodeToken(plan_task));
  CAIRN_ASSIGN_OR_RETURN(auto table, LoadTable(ns, name));
  CAIRN_ASSIGN_OR_RETURN(auto metadata, iceberg::ParseMetadata(*table.metadata_text));
  auto gone = [] {
    return NotFound(EntityKind::kTable, "Plan task does not exist or is not valid for this table");
  };
  return iceberg::CatchJsonErrors("Cannot fetch the scan tasks", [&]() -> Result<Json> {
    ScopeInput in;
    if (token.start) {
      in.start = token.start;
      in.end = token.end;
    } else {
      in.snapshot_id = token.snapshot_id;
    }
    in.schema_id = token.schema_id;
    in.filter = token.filter;
    in.case_sensitive = token.case_sensitive;
    in.stats_ids = token.stats_ids;
    auto scope = MakeScope(std::move(metadata), in);
    if (!scope) return gone();  // the snapshot or schema is gone (expired since the plan)
    if (scope->snapshot_id != token.snapshot_id) return gone();
    ScanPlanner planner(caches_->manifests(), storage_, *scope);
    CAIRN_ASSIGN_OR_RETURN(auto manifests, planner.Manifests());
    // Only the snapshot's own data manifests are read: a token naming another file is refused.
    std::vector<const iceberg::ManifestInfo*> named;
    for (const auto& path : token.manifests) {
      auto it = std::find_if(manifests->begin(), manifests->end(), [&](const auto& m) {
        return !m.deletes && m.path == path;
      });
      if (it == manifests->end()) return gone();
      named.push_back(&*it);
    }
    CAIRN_ASSIGN_OR_RETURN(auto deletes, planner.Deletes(*manifests));
    TaskWriter writer;
    for (const auto* m : named) {
      CAIRN_RETURN_IF_ERROR(planner.AddTasks(*m, token.offset, token.count, deletes, writer));
    }
    return Answer(writer, Json::array());
  });
}

}  // namespace cairn::connector
