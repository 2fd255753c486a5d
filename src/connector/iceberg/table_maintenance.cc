// SPDX-License-Identifier: Apache-2.0
// Table maintenance of managed Iceberg tables (docs/maintenance.md): snapshot expiry, orphan-file
// removal and metadata-file cleanup. What to remove is decided from the table as it stands after
// the change (or, for orphans, after the listing), so a commit that lands meanwhile keeps its
// files; nothing outside the table's location is ever deleted.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <spdlog/spdlog.h>

#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "iceberg/append_rebase.h"
#include "iceberg/table_builder.h"
#include "iceberg/table_metadata.h"
#include "iceberg/table_update.h"
#include "storage/file_io.h"

namespace cairn::connector {

namespace {

constexpr int kManifestEntryDeleted = 2;  // manifest_entry.status: 0 existing, 1 added, 2 deleted

// A location in one spelling, so a listed file and a path a manifest names compare equal:
// `s3a://b/k` and `s3://b/k` alike, `file:/x`, `file:///x` and `/x` alike.
std::string LocationKey(std::string_view location) {
  auto parts = storage::ParseLocation(location);
  if (!parts) return std::string(location);
  std::string key = parts->scheme + "://" + parts->authority;
  for (const auto& s : parts->segments) key += "/" + s;
  return key;
}

struct ContentFile {
  std::string path;
  int64_t size = 0;
  bool live = true;  // not a deleted entry
};

// The records of an Avro file in storage. kNotFound when it is gone.
Result<std::vector<iceberg::Json>> ReadAvroRecords(const storage::StorageOptions& storage,
                                                   const std::string& location) {
  CAIRN_ASSIGN_OR_RETURN(auto io, storage::FileIOFor(location, storage));
  CAIRN_ASSIGN_OR_RETURN(std::string bytes, io->Read(location));
  CAIRN_ASSIGN_OR_RETURN(iceberg::AvroFile file, iceberg::ReadAvroFile(bytes));
  return std::move(file.records);
}

// Reads manifest lists and manifests once each for one maintenance action.
class ManifestReader {
 public:
  explicit ManifestReader(const storage::StorageOptions& storage) : storage_(storage) {}

  // The manifests a manifest list names, with their lengths.
  Result<const std::vector<std::pair<std::string, int64_t>>*> Manifests(const std::string& list) {
    auto it = lists_.find(list);
    if (it != lists_.end()) return &it->second;
    CAIRN_ASSIGN_OR_RETURN(auto records, ReadAvroRecords(storage_, list));
    std::vector<std::pair<std::string, int64_t>> out;
    for (const auto& r : records) {
      const auto& path = iceberg::MemberOrNull(r, "manifest_path");
      if (path.is_string()) {
        out.emplace_back(path.get<std::string>(), iceberg::LongOr(r, "manifest_length", 0));
      }
    }
    return &lists_.emplace(list, std::move(out)).first->second;
  }

  // The data and delete files a manifest names, with their sizes and whether the entry is live.
  Result<std::vector<ContentFile>> Entries(const std::string& manifest) {
    CAIRN_ASSIGN_OR_RETURN(auto records, ReadAvroRecords(storage_, manifest));
    std::vector<ContentFile> out;
    out.reserve(records.size());
    for (const auto& r : records) {
      const auto& file = iceberg::MemberOrNull(r, "data_file");
      const auto& path = iceberg::MemberOrNull(file, "file_path");
      if (!path.is_string()) continue;
      out.push_back(ContentFile{path.get<std::string>(),
                                iceberg::LongOr(file, "file_size_in_bytes", 0),
                                iceberg::IntOr(r, "status", 1) != kManifestEntryDeleted});
    }
    return out;
  }

 private:
  const storage::StorageOptions& storage_;
  std::unordered_map<std::string, std::vector<std::pair<std::string, int64_t>>> lists_;
};

Result<iceberg::Json> ParsedMetadata(const LoadedObject& table) {
  return iceberg::ParseMetadata(*table.metadata_text);
}

std::string TableLocation(const iceberg::Json& metadata) {
  const auto& location = iceberg::MemberOrNull(metadata, "location");
  return location.is_string() ? location.get<std::string>() : std::string();
}

Status CheckGcEnabled(const iceberg::Json& metadata, std::string_view what) {
  if (!iceberg::BoolTableProperty(metadata, iceberg::kGcEnabledProperty, true)) {
    return InvalidArgument("Cannot {}: GC is disabled (deleting files may corrupt other tables)",
                           what);
  }
  return Ok();
}

// Every file under `root`, depth first; directories are descended into, not returned.
Status ListRecursively(storage::FileIO& io, const std::string& root,
                       std::vector<storage::FileEntry>& out) {
  std::vector<std::string> pending = {root};
  while (!pending.empty()) {
    const std::string dir = std::move(pending.back());
    pending.pop_back();
    CAIRN_ASSIGN_OR_RETURN(auto entries, io.ListEntries(dir));
    for (auto& e : entries) {
      if (e.is_dir) {
        pending.push_back(e.location);
      } else {
        out.push_back(std::move(e));
      }
    }
  }
  return Ok();
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Result<MaintenanceReport> IcebergCatalog::ExpireSnapshots(const CallContext& ctx,
                                                          const Namespace& ns,
                                                          std::string_view name,
                                                          const iceberg::ExpireOptions& options,
                                                          bool delete_files, bool dry_run) {
  MaintenanceReport report;
  report.action = "expire-snapshots";
  report.dry_run = dry_run;
  iceberg::ExpireOptions opts = options;
  if (opts.now_ms == 0) opts.now_ms = ctx.now_ms;

  // The base the expiry was last planned on (the one that landed, when it did).
  iceberg::Json before;
  iceberg::ExpirePlan plan;
  std::optional<LoadedObject> after;
  if (dry_run) {
    CAIRN_ASSIGN_OR_RETURN(after, LoadTable(ns, name));
    CAIRN_ASSIGN_OR_RETURN(before, ParsedMetadata(*after));
    CAIRN_ASSIGN_OR_RETURN(plan, iceberg::PlanSnapshotExpiry(before, opts));
    if (delete_files && !plan.empty()) {
      CAIRN_RETURN_IF_ERROR(CheckGcEnabled(before, "expire snapshots"));
    }
  } else {
    auto committed = UpdateTable(ctx, ns, name, [&](const iceberg::Json& base) -> Result<iceberg::Json> {
      before = base;
      CAIRN_ASSIGN_OR_RETURN(plan, iceberg::PlanSnapshotExpiry(base, opts));
      if (plan.empty()) return base;
      if (delete_files) CAIRN_RETURN_IF_ERROR(CheckGcEnabled(base, "expire snapshots"));
      CAIRN_ASSIGN_OR_RETURN(auto updates, iceberg::ParseTableUpdates(iceberg::ExpiryUpdates(plan)));
      return iceberg::ApplyTableUpdates(&base, std::move(updates), ctx.now_ms);
    });
    if (!committed) return std::move(committed).error();
    after = std::move(*committed);
  }
  report.expired_snapshots = plan.snapshot_ids;
  report.removed_refs = plan.refs;
  report.metadata_location = after->metadata_location;
  if (plan.empty() || !delete_files) {
    if (plan.empty()) report.note = "no snapshot is due to expire";
    return report;
  }

  // What stays referenced is read from the table as it is now: a commit that landed after the
  // expiry keeps everything it names.
  iceberg::Json now_metadata;
  if (dry_run) {
    CAIRN_ASSIGN_OR_RETURN(auto updates, iceberg::ParseTableUpdates(iceberg::ExpiryUpdates(plan)));
    CAIRN_ASSIGN_OR_RETURN(now_metadata,
                           iceberg::ApplyTableUpdates(&before, std::move(updates), opts.now_ms));
  } else {
    CAIRN_ASSIGN_OR_RETURN(auto current, LoadTable(ns, name));
    CAIRN_ASSIGN_OR_RETURN(now_metadata, ParsedMetadata(current));
  }
  const std::string table_location = TableLocation(now_metadata);
  const iceberg::DocumentFiles was = iceberg::FilesOf(before);
  const iceberg::DocumentFiles is = iceberg::FilesOf(now_metadata);

  ManifestReader reader(storage_);
  std::vector<std::string> lists;
  for (const auto& l : was.manifest_lists) {
    if (is.manifest_lists.count(l) == 0) lists.push_back(l);
  }
  std::set<std::string> retained_manifests;
  for (const auto& l : is.manifest_lists) {
    auto manifests = reader.Manifests(l);
    if (!manifests) {
      // Without every retained list nothing can be shown unreferenced: keep all but the lists.
      report.note = fmt::format("files kept: manifest list {} could not be read: {}", l,
                                manifests.error().message);
      lists.clear();
      break;
    }
    for (const auto& [m, _] : **manifests) retained_manifests.insert(m);
  }

  std::map<std::string, int64_t> manifests;  // of removed snapshots only, with lengths
  for (const auto& l : lists) {
    auto listed = reader.Manifests(l);
    if (!listed) continue;  // gone already: its manifests are left for orphan removal
    for (const auto& [m, length] : **listed) {
      if (retained_manifests.count(m) == 0) manifests.emplace(m, length);
    }
  }
  std::map<std::string, int64_t> content;  // candidates, by key, with sizes
  std::unordered_map<std::string, std::string> content_paths;
  for (const auto& [m, _] : manifests) {
    auto entries = reader.Entries(m);
    if (!entries) continue;
    for (const auto& e : *entries) {
      std::string key = LocationKey(e.path);
      content.emplace(key, e.size);
      content_paths.emplace(std::move(key), e.path);
    }
  }
  if (!content.empty()) {
    for (const auto& m : retained_manifests) {
      auto entries = reader.Entries(m);
      if (!entries) {
        report.note = fmt::format("data files kept: manifest {} could not be read: {}", m,
                                  entries.error().message);
        content.clear();
        break;
      }
      for (const auto& e : *entries) {
        if (e.live) content.erase(LocationKey(e.path));
      }
    }
  }

  std::vector<std::string> doomed;
  auto take = [&](const std::string& location, int64_t size, int64_t& counter) {
    if (table_location.empty() || !storage::LocationWithin(location, table_location)) {
      ++report.kept_outside;
      return;
    }
    doomed.push_back(location);
    ++counter;
    report.bytes += size;
  };
  // Data files first, then what names them: a stop half way leaves only unreferenced files,
  // which orphan removal takes later.
  for (const auto& [key, size] : content) take(content_paths[key], size, report.data_files);
  for (const auto& [m, length] : manifests) take(m, length, report.manifests);
  for (const auto& l : lists) take(l, 0, report.manifest_lists);
  for (const auto& s : was.statistics) {
    if (is.statistics.count(s) == 0) take(s, 0, report.statistics_files);
  }
  if (!dry_run) DeleteFiles(doomed);
  report.deleted = std::move(doomed);
  spdlog::info(
      "event=expire_snapshots table={} snapshots={} refs={} data_files={} manifests={} lists={} "
      "statistics={} bytes={} kept_outside={} dry_run={}",
      fmt::format("{}.{}", NamespaceText(ns), name), report.expired_snapshots.size(),
      report.removed_refs.size(), report.data_files, report.manifests, report.manifest_lists,
      report.statistics_files, report.bytes, report.kept_outside, dry_run);
  return report;
}

Result<MaintenanceReport> IcebergCatalog::RemoveOrphanFiles(const CallContext& /*ctx*/,
                                                            const Namespace& ns,
                                                            std::string_view name,
                                                            int64_t older_than_ms, bool dry_run) {
  MaintenanceReport report;
  report.action = "remove-orphan-files";
  report.dry_run = dry_run;
  CAIRN_ASSIGN_OR_RETURN(auto table, LoadTable(ns, name));
  CAIRN_ASSIGN_OR_RETURN(auto metadata, ParsedMetadata(table));
  CAIRN_RETURN_IF_ERROR(CheckGcEnabled(metadata, "remove orphan files"));
  const std::string table_location = TableLocation(metadata);
  if (table_location.empty()) return InvalidArgument("Table {}.{} has no location", NamespaceText(ns), name);

  // List first, then read what is referenced: a file written after the listing is not a
  // candidate, and one referenced by a commit that landed before the read is kept.
  CAIRN_ASSIGN_OR_RETURN(auto io, storage::FileIOFor(table_location, storage_));
  std::vector<storage::FileEntry> listed;
  CAIRN_RETURN_IF_ERROR(ListRecursively(*io, table_location, listed));
  report.scanned_files = static_cast<int64_t>(listed.size());

  CAIRN_ASSIGN_OR_RETURN(table, LoadTable(ns, name));
  CAIRN_ASSIGN_OR_RETURN(metadata, ParsedMetadata(table));
  report.metadata_location = table.metadata_location;
  std::unordered_set<std::string> referenced = {LocationKey(table.metadata_location)};
  const iceberg::DocumentFiles doc = iceberg::FilesOf(metadata);
  for (const auto* set : {&doc.metadata_files, &doc.manifest_lists, &doc.statistics}) {
    for (const auto& f : *set) referenced.insert(LocationKey(f));
  }
  ManifestReader reader(storage_);
  std::set<std::string> manifests;
  for (const auto& l : doc.manifest_lists) {
    auto listed_manifests = reader.Manifests(l);
    if (!listed_manifests) {
      if (listed_manifests.error().code == ErrorCode::kNotFound) continue;  // names nothing
      return Unavailable("Cannot remove orphan files of {}.{}: manifest list {} could not be read: {}",
                         NamespaceText(ns), name, l, listed_manifests.error().message);
    }
    for (const auto& [m, _] : **listed_manifests) manifests.insert(m);
  }
  for (const auto& m : manifests) {
    referenced.insert(LocationKey(m));
    auto entries = reader.Entries(m);
    if (!entries) {
      if (entries.error().code == ErrorCode::kNotFound) continue;
      return Unavailable("Cannot remove orphan files of {}.{}: manifest {} could not be read: {}",
                         NamespaceText(ns), name, m, entries.error().message);
    }
    for (const auto& e : *entries) referenced.insert(LocationKey(e.path));  // deleted ones too
  }

  for (const auto& f : listed) {
    if (f.last_modified_ms >= older_than_ms) continue;
    if (referenced.count(LocationKey(f.location)) > 0) continue;
    report.deleted.push_back(f.location);
    report.bytes += f.size;
    if (EndsWith(f.name, ".metadata.json")) {
      ++report.metadata_files;
    } else if (f.name.starts_with("snap-") && EndsWith(f.name, ".avro")) {
      ++report.manifest_lists;
    } else if (EndsWith(f.name, ".avro")) {
      ++report.manifests;
    } else if (EndsWith(f.name, ".stats") || EndsWith(f.name, ".puffin")) {
      ++report.statistics_files;
    } else if (EndsWith(f.name, ".parquet") || EndsWith(f.name, ".orc")) {
      ++report.data_files;
    } else {
      ++report.other_files;
    }
  }
  if (!dry_run) DeleteFiles(report.deleted);
  spdlog::info("event=remove_orphan_files table={}.{} scanned={} removed={} bytes={} dry_run={}",
               NamespaceText(ns), name, report.scanned_files, report.files(), report.bytes, dry_run);
  return report;
}

Result<MaintenanceReport> IcebergCatalog::CleanMetadataFiles(const CallContext& /*ctx*/,
                                                             const Namespace& ns,
                                                             std::string_view name, bool dry_run) {
  MaintenanceReport report;
  report.action = "clean-metadata-files";
  report.dry_run = dry_run;
  CAIRN_ASSIGN_OR_RETURN(auto table, LoadTable(ns, name));
  CAIRN_ASSIGN_OR_RETURN(auto metadata, ParsedMetadata(table));
  report.metadata_location = table.metadata_location;
  if (!iceberg::BoolTableProperty(metadata, iceberg::kDeleteAfterCommitProperty, false)) {
    report.note = fmt::format("{} is not enabled", iceberg::kDeleteAfterCommitProperty);
    return report;
  }
  const std::string table_location = TableLocation(metadata);
  const size_t slash = table.metadata_location.rfind('/');
  if (slash == std::string::npos || table_location.empty()) return report;
  const std::string dir = table.metadata_location.substr(0, slash);
  CAIRN_ASSIGN_OR_RETURN(auto io, storage::FileIOFor(dir, storage_));
  CAIRN_ASSIGN_OR_RETURN(auto entries, io->ListEntries(dir));
  int64_t current_modified = -1;
  const std::string current_key = LocationKey(table.metadata_location);
  for (const auto& e : entries) {
    if (LocationKey(e.location) == current_key) current_modified = e.last_modified_ms;
  }
  if (current_modified < 0) return report;  // storage lists it late: nothing is provably old
  std::unordered_set<std::string> kept = {current_key};
  for (const auto& f : iceberg::FilesOf(metadata).metadata_files) kept.insert(LocationKey(f));
  for (const auto& e : entries) {
    // Older than the current file: a file written after it may belong to a commit in flight.
    if (e.is_dir || !EndsWith(e.name, ".metadata.json") || e.last_modified_ms >= current_modified)
      continue;
    if (kept.count(LocationKey(e.location)) > 0) continue;
    if (!storage::LocationWithin(e.location, table_location)) {
      ++report.kept_outside;
      continue;
    }
    report.deleted.push_back(e.location);
    report.bytes += e.size;
    ++report.metadata_files;
  }
  if (!dry_run) DeleteFiles(report.deleted);
  return report;
}

}  // namespace cairn::connector
