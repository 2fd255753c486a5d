// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/open_file.h"
#include "common/result.h"
#include "connector/connector.h"
#include "iceberg/append_rebase.h"
#include "iceberg/maintenance.h"
#include "iceberg/scan_plan.h"
#include "iceberg/schema.h"
#include "iceberg/table_builder.h"
#include "model/table.h"
#include "storage/credentials.h"
#include "storage/file_io.h"
#include "store/metadata_store.h"

namespace cairn::connector {

/// A multi-level Iceberg namespace, e.g. {"a", "b"}.
using Namespace = std::vector<std::string>;

/// Dotted form used in messages: "a.b".
std::string NamespaceText(const Namespace& ns);

/// A table or view as stored: its row (location = current metadata file) and the metadata
/// document text, verbatim as written to storage.
struct LoadedObject {
  LoadedObject(store::EntityRecord r, std::string location, std::string text)
      : row(std::make_shared<const store::EntityRecord>(std::move(r))),
        metadata_location(std::move(location)),
        metadata_text(std::make_shared<const std::string>(std::move(text))) {}
  LoadedObject(store::EntityRecord r, std::string location, std::shared_ptr<const std::string> text)
      : row(std::make_shared<const store::EntityRecord>(std::move(r))),
        metadata_location(std::move(location)),
        metadata_text(std::move(text)) {}
  LoadedObject(std::shared_ptr<const store::EntityRecord> r, std::string location,
               std::shared_ptr<const std::string> text)
      : row(std::move(r)), metadata_location(std::move(location)), metadata_text(std::move(text)) {}

  /// Never null. A load shares the store's cached path rows: no row is copied on a read.
  std::shared_ptr<const store::EntityRecord> row;
  std::string metadata_location;
  std::shared_ptr<const std::string> metadata_text;  // shared with the metadata file cache
  /// The metadata file held open by the cache when its bytes are `metadata_text` (a local file
  /// loaded before); null otherwise.
  std::shared_ptr<const OpenFile> metadata_file;
};

/// One table's part of a commit: requirements and updates as the REST protocol sends them.
struct TableCommit {
  Namespace ns;
  std::string name;
  nlohmann::json requirements = nlohmann::json::array();
  nlohmann::json updates = nlohmann::json::array();
};

// Group commit state and the metadata file cache, defined in iceberg_catalog.cc.
struct QueuedTableCommit;
struct CachedTableHead;
class CommitQueues;
class MetadataFileCache;
class ManifestCache;
class IcebergMetastore;

/// What the managed Iceberg catalogs of one server share, each bounded by IcebergCacheOptions:
/// metadata file texts by location, the commit queues of the tables being committed to (with
/// the last head each wrote), and the manifest lists append rebases wrote. One per server
/// (ConnectorDeps::iceberg_caches), so two servers in one process share nothing. Safe to use
/// from many threads.
class IcebergCaches {
 public:
  explicit IcebergCaches(const IcebergCacheOptions& options);
  ~IcebergCaches();
  IcebergCaches(const IcebergCaches&) = delete;
  IcebergCaches& operator=(const IcebergCaches&) = delete;

  MetadataFileCache& metadata_files() { return *metadata_files_; }
  CommitQueues& commit_queues() { return *commit_queues_; }
  iceberg::WrittenLists& written_lists() { return written_lists_; }
  ManifestCache& manifests() { return *manifests_; }
  /// A number no other catalog using these caches has: what its tables' queues are keyed by.
  uint64_t NewCatalogSerial() { return next_serial_.fetch_add(1) + 1; }

  /// The outcome of one table commit (null: it landed), counted for the server's metrics.
  void CountCommit(const Error* error);
  void CountAppendRebase() { append_rebases_.fetch_add(1, std::memory_order_relaxed); }
  IcebergStats Stats();

 private:
  std::unique_ptr<MetadataFileCache> metadata_files_;
  std::unique_ptr<CommitQueues> commit_queues_;
  iceberg::WrittenLists written_lists_;
  std::unique_ptr<ManifestCache> manifests_;
  std::atomic<uint64_t> next_serial_{0};
  std::atomic<uint64_t> commits_{0};
  std::atomic<uint64_t> commit_conflicts_{0};
  std::atomic<uint64_t> commit_state_unknown_{0};
  std::atomic<uint64_t> commit_failures_{0};
  std::atomic<uint64_t> append_rebases_{0};
};

struct Page {
  std::vector<std::string> names;
  std::vector<store::EntityRecord> rows;  // the rows of `names`, same order
  std::optional<std::string> next_token;
};

/// What one table maintenance action did (docs/maintenance.md): what it removed, counted by kind
/// of file with the bytes where storage or the manifests tell them, and what it left and why.
struct MaintenanceReport {
  std::string action;  // "expire-snapshots", "remove-orphan-files", "clean-metadata-files"
  bool dry_run = false;
  std::vector<int64_t> expired_snapshots;
  std::vector<std::string> removed_refs;
  int64_t data_files = 0;  // data and delete files
  int64_t manifests = 0;
  int64_t manifest_lists = 0;
  int64_t metadata_files = 0;
  int64_t statistics_files = 0;
  int64_t other_files = 0;  // orphans that are none of the above by their names
  int64_t bytes = 0;
  int64_t kept_outside = 0;  // unreferenced, but outside the table's location: never deleted
  int64_t scanned_files = 0;  // files listed under the table's location (orphan removal)
  std::vector<std::string> deleted;  // the locations removed (or, in a dry run, to remove)
  std::string metadata_location;     // the table's metadata file after the action
  std::string note;                  // why nothing or less was done, when so

  int64_t files() const {
    return data_files + manifests + manifest_lists + metadata_files + statistics_files +
           other_files;
  }
};

struct NamespacePropertiesUpdate {
  std::vector<std::string> updated;
  std::vector<std::string> removed;
  std::vector<std::string> missing;
};

/// A managed Iceberg catalog in Iceberg's own terms. Namespaces are schema rows (top level
/// under the catalog, nested under their parent namespace); tables and views are rows under
/// their namespace whose `location` is the current metadata file. Every change writes a new
/// metadata file and moves the row with compare-and-set; on a lost race the changes are
/// re-checked and re-applied against the new base. Safe to call from many threads.
///
/// Errors: kNotFound with EntityKind kSchema (namespace), kTable or kView; kAlreadyExists;
/// kNotEmpty (namespace); kConflict (a requirement failed: the commit did not happen);
/// kCommitStateUnknown (the store failed while swapping the pointer); kInvalidArgument.
class IcebergCatalog {
 public:
  /// Catalog property: comma-separated locations under which a table's location may be placed
  /// explicitly (default: the warehouse).
  static constexpr const char* kAllowedLocationsProperty = "allowed-locations";

  /// `caches` (not null) are shared with the server's other catalogs. `metastore`, when given,
  /// holds the namespaces and table pointers (catalog-backend `hive`); the rows follow it.
  IcebergCatalog(CatalogInfo info, store::MetadataStore& store, std::string warehouse,
                 std::shared_ptr<IcebergCaches> caches,
                 std::shared_ptr<IcebergMetastore> metastore = nullptr);

  /// Whether a metastore holds the namespaces and pointers (catalog-backend `hive`).
  bool has_metastore() const { return metastore_ != nullptr; }

  const std::string& warehouse() const { return warehouse_; }
  const storage::StorageOptions& storage() const { return storage_; }
  /// Vends storage keys for this catalog's tables (configured by `credential-providers`).
  storage::CredentialVendor& credentials() { return credentials_; }

  // ---- namespaces ----
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent);
  Result<model::Properties> CreateNamespace(const CallContext& ctx, const Namespace& ns,
                                            const model::Properties& properties);
  Result<model::Properties> LoadNamespace(const Namespace& ns);
  /// kNotEmpty when it holds tables, views or namespaces.
  Status DropNamespace(const Namespace& ns);
  /// kInvalidArgument (the protocol's 422) when a key is both removed and updated.
  Result<NamespacePropertiesUpdate> UpdateNamespaceProperties(
      const CallContext& ctx, const Namespace& ns, const std::vector<std::string>& removals,
      const model::Properties& updates);

  // ---- tables ----
  /// Names in order; `page_token` is the opaque token of the previous page (empty: start).
  Result<Page> ListTables(const Namespace& ns, const std::string& page_token, int page_size);
  /// The same, after a table name (empty: from the start) rather than a page token.
  Result<Page> ListTablesAfter(const Namespace& ns, const std::string& after, int page_size);
  /// Creates from a REST CreateTableRequest. `stage` builds the metadata without storing it.
  Result<LoadedObject> CreateTable(const CallContext& ctx, const Namespace& ns,
                                   const nlohmann::json& request, bool stage);
  /// Stores a new table whose metadata document the caller built (the table-or-view name must
  /// be free); the file goes where the document's location and properties say.
  Result<LoadedObject> CreateTableWithMetadata(const CallContext& ctx, const Namespace& ns,
                                               std::string_view name,
                                               const nlohmann::ordered_json& metadata);
  /// Computes the next metadata document from the current one (returning the base unchanged
  /// means there is nothing to write).
  using MetadataTransform =
      std::function<Result<nlohmann::ordered_json>(const nlohmann::ordered_json& base)>;
  /// Applies `transform` and compare-and-sets the pointer; when another writer won, re-reads and
  /// re-applies, so no update is lost. With `rename_to`, the row moves to that namespace and
  /// name in the same compare-and-set.
  Result<LoadedObject> UpdateTable(
      const CallContext& ctx, const Namespace& ns, std::string_view name,
      const MetadataTransform& transform,
      const std::optional<std::pair<Namespace, std::string>>& rename_to = std::nullopt);
  Result<LoadedObject> LoadTable(const Namespace& ns, std::string_view name);
  /// The row alone (no file read): for existence checks and ETags.
  Result<store::EntityRecord> TableRow(const Namespace& ns, std::string_view name);
  /// kNotFound when the row's metadata file is gone (checked without reading it).
  Status CheckMetadataExists(const store::EntityRecord& row);
  /// The storage locations (the table's, its data and metadata paths) the metadata file at
  /// `metadata_location` names: parsed from `metadata_text` once, then remembered with the
  /// cached file.
  std::shared_ptr<const std::vector<std::string>> StorageLocationsOf(
      const std::string& metadata_location, const std::string& metadata_text);
  Result<LoadedObject> RegisterTable(const CallContext& ctx, const Namespace& ns,
                                     std::string_view name, const std::string& metadata_location,
                                     bool overwrite);
  /// Commits one table; with an assert-create requirement on a missing table it creates it.
  /// Concurrent commits to one table are grouped: one of them commits every queued one from a
  /// single read of the table's metadata, with one metadata file and one compare-and-set, each
  /// checked and applied in turn as if alone (a failed one answers its own error and is left
  /// out). Each answer carries the group's metadata, so it may hold commits made after it.
  Result<LoadedObject> CommitTable(const CallContext& ctx, const TableCommit& commit);
  /// All tables or none.
  Status CommitTransaction(const CallContext& ctx, const std::vector<TableCommit>& commits);
  Status RenameTable(const CallContext& ctx, const Namespace& from_ns, std::string_view from,
                     const Namespace& to_ns, std::string_view to);
  /// False when absent. `purge` deletes the table's files too.
  Result<bool> DropTable(const Namespace& ns, std::string_view name, bool purge);

  // ---- maintenance (table_maintenance.cc) ----
  /// Removes the snapshots and refs iceberg::PlanSnapshotExpiry picks, committed like any other
  /// change (a concurrent commit is never undone: the plan is made again on the new head when
  /// the compare-and-set loses), then deletes within the table's location the manifest lists,
  /// manifests, data and delete files and statistics files that only removed snapshots
  /// referenced, as the table stands after the commit. kInvalidArgument when gc.enabled is
  /// false and files would be deleted.
  /// Server-side scan planning (docs/iceberg-rest.md#scan-planning): the data files of the
  /// request's snapshot that may hold matching rows, with their delete files and residuals, as
  /// the REST spec's `file-scan-tasks` / `delete-files`; or, when more than `files_per_task`
  /// manifest entries would be read, `plan-tasks` to redeem with FetchScanTasks.
  /// kInvalidArgument naming the member for a bad filter, snapshot or column.
  struct ScanPlan {
    iceberg::Json body;        // plan-tasks, file-scan-tasks, delete-files
    int64_t snapshot_id = -1;  // the snapshot planned (-1: none)
  };
  Result<ScanPlan> PlanScan(const Namespace& ns, std::string_view name,
                            const iceberg::ScanRequest& request, size_t files_per_task);
  /// The tasks of one plan task token. kNotFound when the token is malformed, names a file that
  /// is not a data manifest of its snapshot, or its snapshot is gone.
  Result<iceberg::Json> FetchScanTasks(const Namespace& ns, std::string_view name,
                                       std::string_view plan_task);

  Result<MaintenanceReport> ExpireSnapshots(const CallContext& ctx, const Namespace& ns,
                                            std::string_view name,
                                            const iceberg::ExpireOptions& options,
                                            bool delete_files, bool dry_run);
  /// Deletes the files under the table's location that nothing the table references (its
  /// metadata files, manifest lists, manifests, data, delete and statistics files, of every
  /// snapshot) names and that were last modified before `older_than_ms`, so an in-flight
  /// writer's files are never taken. kInvalidArgument when gc.enabled is false.
  Result<MaintenanceReport> RemoveOrphanFiles(const CallContext& ctx, const Namespace& ns,
                                              std::string_view name, int64_t older_than_ms,
                                              bool dry_run);
  /// With write.metadata.delete-after-commit.enabled, deletes the table's metadata files that
  /// are neither current nor in its metadata-log (which keeps
  /// write.metadata.previous-versions-max entries) and are older than the current one.
  Result<MaintenanceReport> CleanMetadataFiles(const CallContext& ctx, const Namespace& ns,
                                               std::string_view name, bool dry_run);

  // ---- views ----
  Result<Page> ListViews(const Namespace& ns, const std::string& page_token, int page_size);
  Result<LoadedObject> CreateView(const CallContext& ctx, const Namespace& ns,
                                  const nlohmann::json& request);
  Result<LoadedObject> LoadView(const Namespace& ns, std::string_view name);
  Result<store::EntityRecord> ViewRow(const Namespace& ns, std::string_view name);
  Result<LoadedObject> ReplaceView(const CallContext& ctx, const Namespace& ns,
                                   std::string_view name, const nlohmann::json& requirements,
                                   const nlohmann::json& updates);
  Result<LoadedObject> RegisterView(const CallContext& ctx, const Namespace& ns,
                                    std::string_view name, const std::string& metadata_location);
  Status RenameView(const CallContext& ctx, const Namespace& from_ns, std::string_view from,
                    const Namespace& to_ns, std::string_view to);
  Result<bool> DropView(const Namespace& ns, std::string_view name);

 private:
  Result<store::EntityRecord> NamespaceRow(store::MetadataStore& store, const Namespace& ns);
  Result<store::EntityRecord> ObjectRow(store::MetadataStore& store, store::EntityType type,
                                        const Namespace& ns, std::string_view name);
  /// ObjectRow without a copy: the row inside the store's shared path rows.
  Result<std::shared_ptr<const store::EntityRecord>> SharedObjectRow(
      store::MetadataStore& store, store::EntityType type, const Namespace& ns,
      std::string_view name);
  Status CheckNameFree(store::MetadataStore& store, const store::EntityRecord& ns_row,
                       const Namespace& ns, std::string_view name, store::EntityType creating);
  Result<Page> ListObjects(store::EntityType type, const Namespace& ns,
                           const std::string& page_token, int page_size);
  Result<LoadedObject> InsertObject(const CallContext& ctx, store::EntityType type,
                                    const store::EntityRecord& ns_row, const Namespace& ns,
                                    std::string_view name, const std::string& location,
                                    const std::string& text);
  Result<LoadedObject> Load(store::EntityType type, const Namespace& ns, std::string_view name);
  Status Rename(const CallContext& ctx, store::EntityType type, const Namespace& from_ns,
                std::string_view from, const Namespace& to_ns, std::string_view to);
  std::string DefaultLocation(const Namespace& ns, std::string_view name) const;
  // The common part of table and view creates: the name, the namespace exists and the name is
  // free, the normalized location, and the request in ordered form.
  struct CreateRequest {
    store::EntityRecord ns_row;
    std::string name;
    std::string location;
    nlohmann::ordered_json request;
  };
  // Writes the first metadata file and inserts the row (deleting the file if the insert fails).
  Result<LoadedObject> StoreNew(const CallContext& ctx, store::EntityType type,
                                const store::EntityRecord& ns_row, const Namespace& ns,
                                std::string_view name, const nlohmann::ordered_json& metadata);
  Result<CreateRequest> PrepareCreate(const Namespace& ns, const nlohmann::json& request,
                                      store::EntityType type);
  Status RenameTargetFree(const store::EntityRecord& target_ns, const Namespace& from_ns,
                          std::string_view from, const Namespace& to_ns, std::string_view to,
                          store::EntityType type);
  // Deletes what a dropped table owns: the files its metadata references (metadata files,
  // manifest lists, manifests, data and delete files, statistics) that lie within its location,
  // then the directories under its location that this left empty. Nothing else.
  void PurgeFiles(const std::string& metadata_location,
                  const std::optional<nlohmann::ordered_json>& metadata);
  // Deletes a dropped view's metadata files: the current one and the earlier versions of the
  // same view beside it, within the view's location, unless its `gc.enabled` is false.
  void DropViewFiles(const std::string& metadata_location, const nlohmann::ordered_json& metadata);

  // Deletes files (missing ones are fine), dropping them from the metadata file cache.
  void DeleteFiles(const std::vector<std::string>& locations);

  // kInvalidArgument naming `field` unless `location` lies under an allowed location.
  Status CheckAllowed(std::string_view field, std::string_view location) const;
  // Where a table or view (new: `base` null; or changed from `base`) puts its files: its
  // location is its default one, or lies under an allowed location outside the warehouse and
  // overlaps no other table's or view's; each write.*.path property lies within it.
  Status CheckLocations(const Namespace& ns, std::string_view name,
                        const nlohmann::ordered_json& metadata,
                        const nlohmann::ordered_json* base) const;

  // One commit attempt against `store` (the catalog store or a transaction view). Writes the
  // new metadata file and records it in `written` before the compare-and-set; sets `lost_race`
  // when the compare-and-set lost to a concurrent writer (worth re-applying on the new base).
  Result<LoadedObject> CommitOnce(store::MetadataStore& store, const CallContext& ctx,
                                  const TableCommit& commit, std::vector<std::string>& written,
                                  bool& lost_race);

  // Checks `commit`'s requirements against `base` and returns the updates to apply: its own, or,
  // for a fast append that lost a race against other appends, the ones RebaseAppend made for
  // `base` (the new manifest list recorded in `written`; made durable by WriteNew, or only
  // written when `defer_sync`, and then the caller syncs it before pointing at it). `index`,
  // when given, describes `base`'s snapshots.
  Result<iceberg::Json> CheckCommit(const iceberg::Json& base, const TableCommit& commit,
                                    std::vector<std::string>& written, bool defer_sync,
                                    const iceberg::SnapshotIndex* index = nullptr);
  // One commit on its own, retried against the new head when it loses the compare-and-set.
  Result<LoadedObject> CommitAlone(const CallContext& ctx, const TableCommit& commit);
  // Commits `batch` (commits to one table, in order) and answers each, same order. `head` is the
  // last head this process wrote for the table, reused while the row still points at it.
  std::vector<Result<LoadedObject>> CommitBatch(const std::vector<QueuedTableCommit*>& batch,
                                                CachedTableHead& head);
  // One attempt of CommitBatch from `row`, for the commits whose answer is still empty.
  //  kAnswered: every one of them has its answer;
  //  kLostRace: the compare-and-set lost; none has (every answer was cleared): redo from the new
  //  row; kRedo: one commit failed after the metadata so far was handed to it; it has its answer,
  //  the
  //   others have none: redo without it.
  enum class BatchAttempt { kAnswered, kLostRace, kRedo };
  BatchAttempt CommitBatchOnce(const store::EntityRecord& row,
                               std::span<QueuedTableCommit* const> batch,
                               std::span<std::optional<Result<LoadedObject>>> answers,
                               CachedTableHead& head);

  // ---- a metastore's catalog (catalog-backend `hive`; metastore_ set) ----
  // The namespace's row, inserted when the metastore has the namespace and no row yet; a row
  // of a namespace the metastore lost is answered as missing. `properties`, when given, gets the
  // metastore's properties of the namespace (read once for both).
  Result<store::EntityRecord> SyncNamespace(store::MetadataStore& store, const Namespace& ns,
                                            model::Properties* properties = nullptr);
  // The table's row in line with the metastore's pointer: inserted (a table made by another
  // engine), moved to the current metadata file, or deleted (dropped by another engine).
  Result<store::EntityRecord> SyncTable(store::MetadataStore& store, const Namespace& ns,
                                        std::string_view name,
                                        std::optional<store::EntityRecord> row);
  // Moves a table's pointer from `base` to `next.location`: the metastore's compare-and-swap
  // first (it decides the race), then the row; without a metastore, the row's compare-and-set.
  Result<store::EntityRecord> MovePointer(store::MetadataStore& store, const Namespace& ns,
                                          const std::string& base, store::EntityRecord next);

  CatalogInfo info_;
  store::MetadataStore& store_;
  std::string warehouse_;
  std::shared_ptr<IcebergCaches> caches_;
  std::shared_ptr<IcebergMetastore> metastore_;
  MetadataFileCache& files_;         // caches_->metadata_files()
  const uint64_t serial_;            // this catalog object's key in caches_->commit_queues()
  storage::StorageOptions storage_;  // how to reach the warehouse (S3 endpoint and keys)
  storage::CredentialVendor credentials_;
  std::vector<std::string> allowed_;  // normalized allowed locations (kAllowedLocationsProperty)
};

}  // namespace cairn::connector
