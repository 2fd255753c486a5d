// SPDX-License-Identifier: Apache-2.0
#include "connector/iceberg/iceberg_catalog.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>
#include <variant>

#include <spdlog/spdlog.h>

#include "common/deadline.h"
#include "connector/iceberg/iceberg_metastore.h"
#include "connector/iceberg/manifest_cache.h"
#include "common/util.h"
#include "iceberg/append_rebase.h"
#include "iceberg/commit.h"
#include "iceberg/table_builder.h"
#include "iceberg/table_metadata.h"
#include "iceberg/view_metadata.h"
#include "json/json_util.h"
#include "model/entities.h"
#include "storage/file_io.h"
#include "store/retry.h"

namespace cairn::connector {

using store::EntityRecord;
using store::EntityType;

namespace {

// Table properties that name where a table's files go; each must lie within its location.
constexpr const char* kPathProperties[] = {"write.data.path", "write.metadata.path",
                                           "write.object-storage.path",
                                           "write.folder-storage.path"};

std::string_view StringMember(const iceberg::Json& doc, const char* key) {
  if (!doc.is_object()) return {};
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_string()) return {};
  return it->get_ref<const std::string&>();
}

std::string_view PathProperty(const iceberg::Json& metadata, const char* key) {
  if (!metadata.is_object()) return {};
  auto props = metadata.find("properties");
  if (props == metadata.end()) return {};
  return StringMember(*props, key);
}

std::string HexEncode(std::string_view s) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::optional<std::string> HexDecode(std::string_view s) {
  if (s.size() % 2 != 0) return std::nullopt;
  auto v = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); i += 2) {
    const int h = v(s[i]);
    const int l = v(s[i + 1]);
    if (h < 0 || l < 0) return std::nullopt;
    out += static_cast<char>(h * 16 + l);
  }
  return out;
}

std::string ObjectText(const Namespace& ns, std::string_view name) {
  return fmt::format("{}.{}", NamespaceText(ns), name);
}

Error NoSuchNamespace(const Namespace& ns) {
  return NotFound(EntityKind::kSchema, "Namespace does not exist: {}", NamespaceText(ns));
}

Error NoSuchObject(EntityType type, const Namespace& ns, std::string_view name) {
  if (type == EntityType::kView) {
    return NotFound(EntityKind::kView, "View does not exist: {}", ObjectText(ns, name));
  }
  return NotFound(EntityKind::kTable, "Table does not exist: {}", ObjectText(ns, name));
}

}  // namespace

/// Metadata files are immutable (every change writes a new file under a new name), so their
/// text is cached by location, bounded by size (least recently used out); one file larger than
/// an eighth of the capacity is not kept.
///
/// A local file read a second time is also held open (at most `max_open_files` of them): the
/// text is then proved present with fstat(2) on the open file instead of a path lookup, and an
/// answer can send the bytes with sendfile(2). The file is compared with the text once, when
/// opened. A file on object storage is proved present by a HEAD request at most once every
/// kObjectRecheckMs (a request per load would bound loads by the store's round trip), and its
/// text read a second time is copied into a sealed in-memory file (memfd) that answers are sent
/// from the same way (those copies take at most a quarter of the cache's bound).
///
/// Each entry also remembers the storage locations its document names (a parse of the whole
/// document), for answers that vend credentials or sign requests for them.
class MetadataFileCache {
 public:
  MetadataFileCache(size_t capacity_bytes, size_t max_open_files)
      : capacity_bytes_(capacity_bytes), max_open_files_(max_open_files) {}

  static constexpr int64_t kObjectRecheckMs = 1000;

  struct Hit {
    std::shared_ptr<const std::string> text;  // null: not held
    std::shared_ptr<const OpenFile> file;     // null: not held open
    bool may_open = false;                    // not open yet, and there is room to try
    bool checked_recently = false;            // proved present within kObjectRecheckMs
  };

  Hit Get(const std::string& location) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(location);
    if (it == entries_.end()) {
      ++misses_;
      return {};
    }
    ++hits_;
    lru_.splice(lru_.begin(), lru_, it->second.position);
    const Entry& e = it->second;
    const bool may_open = !e.file && !e.open_tried && open_files_ < max_open_files_;
    return Hit{e.text, e.file, may_open, Recent(e)};
  }

  /// Whether the object at `location` (on object storage) was proved present within
  /// kObjectRecheckMs. Not a lookup of the text: no hit or miss is counted.
  bool CheckedRecently(const std::string& location) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(location);
    return it != entries_.end() && Recent(it->second);
  }

  /// Records that the object at `location`, on object storage, was just proved present.
  void MarkChecked(const std::string& location) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(location);
    if (it != entries_.end()) it->second.checked_ms = SteadyMillis();
  }

  /// The storage locations the document at `location` names: computed by `compute` (from the
  /// entry's own text) the first time, then kept with the entry.
  std::shared_ptr<const std::vector<std::string>> Locations(
      const std::string& location, const std::function<std::vector<std::string>()>& compute) {
    {
      std::lock_guard lock(mu_);
      auto it = entries_.find(location);
      if (it != entries_.end() && it->second.locations) return it->second.locations;
    }
    auto computed = std::make_shared<const std::vector<std::string>>(compute());
    std::lock_guard lock(mu_);
    if (auto it = entries_.find(location); it != entries_.end()) it->second.locations = computed;
    return computed;
  }

  /// Holds `file` open beside the text of `location` (null: the file could not be opened as
  /// the text; not tried again while the text is held).
  void AttachFile(const std::string& location, std::shared_ptr<const OpenFile> file) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(location);
    if (it == entries_.end() || it->second.file || it->second.open_tried) return;
    it->second.open_tried = true;
    if (!file || open_files_ >= max_open_files_) return;
    if (!file->on_disk()) {
      // Copies in memory beside the texts: at most a quarter of the cache's bound.
      if (memory_file_bytes_ + file->size() > capacity_bytes_ / 4) return;
      memory_file_bytes_ += file->size();
    }
    it->second.file = std::move(file);
    ++open_files_;
  }

  /// Whether `location` is held open and its file still has its name; nullopt when it is not
  /// held open (then only a path lookup can tell).
  std::optional<bool> LinkedIfOpen(const std::string& location) {
    std::shared_ptr<const OpenFile> file;
    {
      std::lock_guard lock(mu_);
      auto it = entries_.find(location);
      if (it == entries_.end() || !it->second.file || !it->second.file->on_disk()) {
        return std::nullopt;
      }
      file = it->second.file;
    }
    return file->Linked();
  }

  void AddStats(IcebergStats& out) {
    std::lock_guard lock(mu_);
    out.metadata_cache_hits = hits_;
    out.metadata_cache_misses = misses_;
    out.metadata_cache_entries = entries_.size();
    out.metadata_cache_bytes = bytes_;
    out.metadata_cache_capacity_bytes = capacity_bytes_;
    out.metadata_open_files = open_files_;
  }

  void Put(const std::string& location, std::shared_ptr<const std::string> text) {
    std::lock_guard lock(mu_);
    if (text->size() > capacity_bytes_ / 8 || entries_.count(location) > 0) return;
    lru_.push_front(location);
    bytes_ += text->size();
    entries_.emplace(location, Entry{std::move(text), lru_.begin(), nullptr, false, 0, nullptr});
    while (bytes_ > capacity_bytes_ && !lru_.empty()) EraseLocked(lru_.back());
  }

  void Erase(const std::string& location) {
    std::lock_guard lock(mu_);
    EraseLocked(location);
  }

  /// Whether `location` is held (no hit or miss is counted).
  bool Contains(const std::string& location) {
    std::lock_guard lock(mu_);
    return entries_.count(location) > 0;
  }

 private:
  struct Entry {
    std::shared_ptr<const std::string> text;
    std::list<std::string>::iterator position;
    std::shared_ptr<const OpenFile> file;
    bool open_tried = false;
    int64_t checked_ms = 0;  // steady clock; 0: never proved present by a request to storage
    std::shared_ptr<const std::vector<std::string>> locations;  // null: not computed yet
  };
  static bool Recent(const Entry& e) {
    return e.checked_ms != 0 && SteadyMillis() - e.checked_ms < kObjectRecheckMs;
  }
  static int64_t SteadyMillis() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void EraseLocked(const std::string& location) {
    auto it = entries_.find(location);
    if (it == entries_.end()) return;
    bytes_ -= it->second.text->size();
    if (it->second.file) {
      --open_files_;
      if (!it->second.file->on_disk()) memory_file_bytes_ -= it->second.file->size();
    }
    lru_.erase(it->second.position);
    entries_.erase(it);
  }
  const size_t capacity_bytes_;
  const size_t max_open_files_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // guarded by mu_
  std::list<std::string> lru_;                      // guarded by mu_; most recent first
  size_t bytes_ = 0;                                // guarded by mu_
  size_t open_files_ = 0;                           // guarded by mu_
  size_t memory_file_bytes_ = 0;                    // guarded by mu_; of in-memory files
  uint64_t hits_ = 0;                               // guarded by mu_
  uint64_t misses_ = 0;                             // guarded by mu_
};

namespace {

Error MissingFile(const std::string& location) {
  return NotFound(EntityKind::kNone, "Failed to open input stream for file: {}", location);
}

// A metadata file's text, and the file held open when it is a cached local file.
struct SharedText {
  std::shared_ptr<const std::string> text;
  std::shared_ptr<const OpenFile> file;
};

Result<SharedText> ReadSharedFile(const storage::StorageOptions& storage_,
                                  MetadataFileCache& cache, const std::string& location) {
  MetadataFileCache::Hit hit = cache.Get(location);
  if (hit.text && hit.file && hit.file->on_disk()) {
    // A file removed (or replaced) behind the catalog's back must not be served from memory:
    // its open file has lost its name.
    if (hit.file->Linked()) return SharedText{std::move(hit.text), std::move(hit.file)};
    cache.Erase(location);
    hit = {};
  }
  // Only objects on object storage are marked checked: within the second nothing is asked of
  // storage, so no FileIO is built either.
  if (hit.text && hit.checked_recently && !hit.may_open) {
    return SharedText{std::move(hit.text), std::move(hit.file)};
  }
  CAIRN_ASSIGN_OR_RETURN(auto io, storage::FileIOFor(location, storage_));
  if (hit.text) {
    const std::string path = io->LocalFilePath(location);
    if (!path.empty() || !hit.checked_recently) {
      CAIRN_ASSIGN_OR_RETURN(bool exists, io->Exists(location));
      if (!exists) {
        cache.Erase(location);
        return MissingFile(location);
      }
      if (path.empty()) cache.MarkChecked(location);
    }
    std::shared_ptr<const OpenFile> file = std::move(hit.file);
    if (hit.may_open) {
      // On object storage the bytes are copied once into a sealed in-memory file, so answers
      // are sent from it as from a local file.
      file = path.empty() ? OpenFile::InMemory(*hit.text)
                          : OpenFile::OpenIfContent(path, *hit.text);
      cache.AttachFile(location, file);
    }
    return SharedText{std::move(hit.text), std::move(file)};
  }
  auto text = io->Read(location);
  if (!text) {
    if (text.error().code == ErrorCode::kNotFound) return MissingFile(location);
    return std::move(text).error();
  }
  auto shared = std::make_shared<const std::string>(std::move(*text));
  cache.Put(location, shared);
  return SharedText{std::move(shared), nullptr};
}

Result<std::shared_ptr<const std::string>> ReadShared(const storage::StorageOptions& storage_,
                                                      MetadataFileCache& cache,
                                                      const std::string& location) {
  CAIRN_ASSIGN_OR_RETURN(SharedText read, ReadSharedFile(storage_, cache, location));
  return std::move(read.text);
}

Result<std::string> ReadText(const storage::StorageOptions& storage_, MetadataFileCache& cache,
                             const std::string& location) {
  CAIRN_ASSIGN_OR_RETURN(auto shared, ReadShared(storage_, cache, location));
  return *shared;
}

// Where the next metadata file of an object goes: the `write.metadata.path` property when set,
// else `<location>/metadata`, named after the version of the current file as Java does.
template <typename J>
std::string NextLocation(const J& metadata, const std::string& current) {
  std::string dir;
  auto props = metadata.find("properties");
  if (props != metadata.end() && props->is_object()) {
    auto path = props->find("write.metadata.path");
    if (path != props->end() && path->is_string()) dir = path->template get<std::string>();
  }
  if (dir.empty())
    return iceberg::NextMetadataLocation(metadata.value("location", std::string()), current);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const int version =
      current.empty() ? 0 : iceberg::ParseMetadataFileVersion(current).value_or(-1) + 1;
  return dir + "/" + iceberg::MetadataFileName(version, RandomUuid());
}

// Writes a new metadata file that follows `replaces` (empty for a new object). The new file
// enters the cache only when the one it follows is there: a table someone reads keeps being
// served from memory across its commits, while a bulk of creates nobody reads yet (100,000 of
// them in the benchmark) does not fill the cache and the process's memory.
Status WriteText(const storage::StorageOptions& storage_, MetadataFileCache& cache,
                 const std::string& location, const std::string& text,
                 const std::string& replaces) {
  CAIRN_ASSIGN_OR_RETURN(auto io, storage::FileIOFor(location, storage_));
  CAIRN_RETURN_IF_ERROR(io->WriteNew(location, text));
  if (!replaces.empty() && cache.Contains(replaces)) {
    cache.Put(location, std::make_shared<const std::string>(text));
  }
  return Ok();
}

// Writes a metadata file without waiting for durability (SyncFiles does that).
Status WriteDeferredText(const storage::StorageOptions& storage_, const std::string& location,
                         const std::string& text) {
  CAIRN_ASSIGN_OR_RETURN(auto io, storage::FileIOFor(location, storage_));
  return io->WriteNewDeferred(location, text);
}

// Makes files written with WriteNewDeferred durable: one Sync call per storage scheme.
Status SyncFiles(const storage::StorageOptions& storage_, const std::vector<std::string>& files) {
  std::map<std::string, std::vector<std::string>> by_scheme;
  for (const auto& file : files) {
    const size_t colon = file.find(':');
    std::string scheme = colon == std::string::npos ? "file" : file.substr(0, colon);
    by_scheme[std::move(scheme)].push_back(file);
  }
  for (const auto& [scheme, locations] : by_scheme) {
    CAIRN_ASSIGN_OR_RETURN(auto io, storage::FileIOFor(locations.front(), storage_));
    CAIRN_RETURN_IF_ERROR(io->Sync(locations));
  }
  return Ok();
}

void DeleteQuietly(const storage::StorageOptions& storage_, MetadataFileCache& cache,
                   const std::vector<std::string>& locations) {
  for (const auto& loc : locations) {
    cache.Erase(loc);
    auto io = storage::FileIOFor(loc, storage_);
    if (io) (void)(*io)->Delete(loc);
  }
}

}  // namespace

/// One CommitTable call in its table's queue. `taken` and `result` are guarded by the queues'
/// mutex; the leader computes the answers outside it and stores them under it.
struct QueuedTableCommit {
  const CallContext* ctx = nullptr;
  const TableCommit* commit = nullptr;
  bool taken = false;  // in a leader's batch: it will be answered
  std::optional<Result<LoadedObject>> result;
};

/// The last head this process wrote for a table: its metadata file, parsed and as text.
struct CachedTableHead {
  std::string location;
  // The leader's own: the next batch changes it in place instead of copying the history.
  std::shared_ptr<iceberg::Json> metadata;
  std::shared_ptr<const std::string> text;
  iceberg::HistorySpans history;  // where `text` holds the snapshots and their log
  // The ids and highest sequence number of `metadata`'s snapshots, when known: the next
  // batch's first append starts from them instead of reading the whole history again.
  std::optional<iceberg::SnapshotIndex> snapshot_index;
};

/// Group commit. Of N concurrent commits to one table only one can win the compare-and-set, so
/// commits from this process to a table queue up instead of racing: a commit that finds no leader
/// becomes the leader, takes every queued commit (at most kMaxBatch) and commits them together
/// (IcebergCatalog::CommitBatch) while the next ones queue; then the first unanswered one leads.
/// A batch costs one head read, one metadata file and one compare-and-set however many commits
/// it holds, which is what lets a hot table keep up. Other processes sharing the store are kept
/// out by the compare-and-set alone; multi-table transactions do not queue (no lock ordering to
/// get wrong).
///
/// Waiting is bounded: a commit not taken into a batch within kMaxWait (the leader is stuck on
/// slow storage) leaves the queue and the caller commits it on its own, the compare-and-set
/// deciding, so a stalled commit never holds every worker behind it. A commit already taken
/// waits for its batch's answer, which the leader gives once its own storage and store calls
/// return. The mutex is never held across I/O.
class CommitQueues {
 public:
  /// One table: which catalog object (IcebergCaches::NewCatalogSerial; a catalog whose
  /// properties change gets a new one), its namespace and its name.
  using Key = std::tuple<uint64_t, Namespace, std::string>;
  using BatchFn = std::function<std::vector<Result<LoadedObject>>(
      const std::vector<QueuedTableCommit*>& batch, CachedTableHead& head)>;

  /// Keeps at most `max_idle` tables' queues (and cached heads) while no commit waits.
  explicit CommitQueues(size_t max_idle) : max_idle_(max_idle) {}

  /// Queues `self` and returns true once self.result is set (by a leader, maybe this caller);
  /// false when it left the queue unanswered after kMaxWait.
  bool Run(const Key& key, QueuedTableCommit& self, const BatchFn& commit_batch) {
    std::unique_ptr<Queue> evicted;  // destroyed after the lock is released
    std::unique_lock lock(mu_);
    auto& slot = queues_[key];
    if (!slot) slot = std::make_unique<Queue>();
    Queue& queue = *slot;
    if (queue.idle) {
      idle_.erase(*queue.idle);
      queue.idle.reset();
    }
    ++queue.users;
    queue.waiting.push_back(&self);
    const auto deadline = std::chrono::steady_clock::now() + kMaxWait;
    bool answered = true;
    while (!self.result) {
      if (!queue.leading) {
        queue.leading = true;
        std::vector<QueuedTableCommit*> batch;
        while (!queue.waiting.empty() && batch.size() < kMaxBatch) {
          batch.push_back(queue.waiting.front());
          batch.back()->taken = true;
          queue.waiting.pop_front();
        }
        lock.unlock();
        std::vector<Result<LoadedObject>> answers;
        try {
          answers = commit_batch(batch, queue.head);
        } catch (const std::exception& e) {
          answers.clear();
          for (size_t i = 0; i < batch.size(); ++i) answers.push_back(Internal("{}", e.what()));
        }
        lock.lock();
        for (size_t i = 0; i < batch.size(); ++i) batch[i]->result = std::move(answers[i]);
        queue.leading = false;
        queue.answered.notify_all();
        continue;
      }
      if (self.taken) {
        queue.answered.wait(lock);
      } else if (queue.answered.wait_until(lock, deadline) == std::cv_status::timeout &&
                 !self.taken) {
        queue.waiting.erase(std::find(queue.waiting.begin(), queue.waiting.end(), &self));
        answered = false;
        break;
      }
    }
    if (--queue.users == 0) {
      // Kept while idle for its cached head (the next burst of commits skips reading and
      // parsing the metadata), up to max_idle_ tables, least recently used out.
      if (!queue.head.metadata || max_idle_ == 0) {
        queues_.erase(key);
      } else {
        idle_.push_front(key);
        queue.idle = idle_.begin();
        if (idle_.size() > max_idle_) {
          auto oldest = queues_.find(idle_.back());
          evicted = std::move(oldest->second);
          queues_.erase(oldest);
          idle_.pop_back();
        }
      }
    }
    return answered;
  }

 private:
  static constexpr std::chrono::milliseconds kMaxWait{2000};
  static constexpr size_t kMaxBatch = 64;
  struct Queue {
    std::deque<QueuedTableCommit*> waiting;
    bool leading = false;  // a leader is committing a batch
    int users = 0;         // callers in Run for this table
    std::condition_variable answered;
    std::optional<std::list<Key>::iterator> idle;  // its place in idle_ while users == 0
    CachedTableHead head;  // used by the leader only (`leading` hands it on)
  };
  const size_t max_idle_;
  std::mutex mu_;
  std::map<Key, std::unique_ptr<Queue>> queues_;  // guarded by mu_, like every Queue's fields
  std::list<Key> idle_;                           // guarded by mu_; most recently used first
};

IcebergCaches::IcebergCaches(const IcebergCacheOptions& options)
    : metadata_files_(std::make_unique<MetadataFileCache>(options.metadata_cache_bytes,
                                                          options.metadata_open_files)),
      commit_queues_(std::make_unique<CommitQueues>(options.commit_queue_idle_tables)),
      written_lists_(options.rebased_list_cache_entries),
      manifests_(std::make_unique<ManifestCache>(options.manifest_cache_bytes)) {}

IcebergCaches::~IcebergCaches() = default;

std::shared_ptr<IcebergCaches> MakeIcebergCaches(const IcebergCacheOptions& options) {
  return std::make_shared<IcebergCaches>(options);
}

void IcebergCaches::CountCommit(const Error* error) {
  if (error == nullptr) {
    commits_.fetch_add(1, std::memory_order_relaxed);
  } else if (error->code == ErrorCode::kConflict) {
    commit_conflicts_.fetch_add(1, std::memory_order_relaxed);
  } else if (error->code == ErrorCode::kCommitStateUnknown) {
    commit_state_unknown_.fetch_add(1, std::memory_order_relaxed);
  } else {
    commit_failures_.fetch_add(1, std::memory_order_relaxed);
  }
}

IcebergStats IcebergCaches::Stats() {
  IcebergStats s;
  metadata_files_->AddStats(s);
  manifests_->AddStats(s);
  s.commits = commits_.load(std::memory_order_relaxed);
  s.commit_conflicts = commit_conflicts_.load(std::memory_order_relaxed);
  s.commit_state_unknown = commit_state_unknown_.load(std::memory_order_relaxed);
  s.commit_failures = commit_failures_.load(std::memory_order_relaxed);
  s.append_rebases = append_rebases_.load(std::memory_order_relaxed);
  const iceberg::WrittenLists::Reads reads = written_lists_.reads();
  s.rebase_list_reads_own_records = reads.own_records_only;
  s.rebase_list_reads_whole = reads.whole;
  return s;
}

IcebergStats ReadIcebergStats(IcebergCaches& caches) { return caches.Stats(); }

std::string NamespaceText(const Namespace& ns) { return Join(ns, "."); }

IcebergCatalog::IcebergCatalog(CatalogInfo info, store::MetadataStore& store, std::string warehouse,
                               std::shared_ptr<IcebergCaches> caches,
                               std::shared_ptr<IcebergMetastore> metastore)
    : info_(std::move(info)),
      store_(store),
      warehouse_(std::move(warehouse)),
      caches_(std::move(caches)),
      metastore_(std::move(metastore)),
      files_(caches_->metadata_files()),
      serial_(caches_->NewCatalogSerial()),
      storage_(storage::StorageOptions::FromProperties(info_.properties)) {
  // The properties were validated when the catalog was created; a bad set vends nothing.
  if (auto vendor = storage::CredentialVendor::FromProperties(info_.properties)) {
    credentials_ = *vendor;
  }
  if (auto it = info_.properties.find(kAllowedLocationsProperty); it != info_.properties.end()) {
    for (const auto& part : Split(it->second, ',')) {
      if (auto normalized = storage::NormalizeLocation(part)) allowed_.push_back(*normalized);
    }
  }
  if (allowed_.empty()) allowed_.push_back(warehouse_);
}

std::string IcebergCatalog::DefaultLocation(const Namespace& ns, std::string_view name) const {
  return fmt::format("{}/{}/{}", warehouse_, Join(ns, "/"), name);
}

// ---- namespaces ----

Result<EntityRecord> IcebergCatalog::NamespaceRow(store::MetadataStore& store,
                                                  const Namespace& ns) {
  if (ns.empty()) return InvalidArgument("Namespace must not be empty");
  if (metastore_) return SyncNamespace(store, ns);
  std::vector<std::pair<EntityType, std::string>> path;
  path.reserve(ns.size());
  for (const auto& level : ns) path.emplace_back(EntityType::kSchema, level);
  CAIRN_ASSIGN_OR_RETURN(auto rows, store.GetSharedPath(info_.catalog_id, path));
  if (rows->size() < ns.size()) return NoSuchNamespace(ns);
  return rows->back();
}

Result<std::vector<Namespace>> IcebergCatalog::ListNamespaces(const Namespace& parent) {
  if (metastore_) {
    if (!parent.empty()) {
      CAIRN_RETURN_IF_ERROR(NamespaceRow(store_, parent));
      return std::vector<Namespace>{};  // a metastore's namespaces have one level
    }
    CAIRN_ASSIGN_OR_RETURN(auto names, metastore_->ListNamespaces());
    std::sort(names.begin(), names.end());
    std::vector<Namespace> out;
    for (auto& n : names) out.push_back({std::move(n)});
    return out;
  }
  int64_t parent_id = info_.catalog_id;
  if (!parent.empty()) {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord p, NamespaceRow(store_, parent));
    parent_id = p.id;
  }
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kSchema, parent_id, "", 0));
  std::vector<Namespace> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    Namespace ns = parent;
    ns.push_back(r.name);
    out.push_back(std::move(ns));
  }
  return out;
}

Result<model::Properties> IcebergCatalog::CreateNamespace(const CallContext& ctx,
                                                          const Namespace& ns,
                                                          const model::Properties& properties) {
  if (ns.empty()) return InvalidArgument("Namespace must not be empty");
  for (const auto& level : ns) {
    CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(EntityKind::kSchema, level));
  }
  if (metastore_) {
    if (ns.size() > 1) {
      return InvalidArgument("Namespace {} has {} levels; this catalog's metastore keeps one",
                             NamespaceText(ns), ns.size());
    }
    auto made = metastore_->CreateNamespace(ns[0], properties);
    if (!made) {
      if (made.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kSchema, "Namespace already exists: {}",
                             NamespaceText(ns));
      }
      return std::move(made).error();
    }
    model::Properties stored;
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, SyncNamespace(store_, ns, &stored));
    if (row.audit.creator != ctx.principal) {
      row.audit.creator = ctx.principal;
      row.audit.create_time = ctx.now_ms;
      (void)store_.CompareAndSet(row);  // the creator owns it; best effort
    }
    return stored;
  }
  int64_t parent_id = info_.catalog_id;
  if (ns.size() > 1) {
    Namespace parent(ns.begin(), ns.end() - 1);
    CAIRN_ASSIGN_OR_RETURN(EntityRecord p, NamespaceRow(store_, parent));
    parent_id = p.id;
    // Its tables would live inside the default location of a table of that name.
    for (EntityType t : {EntityType::kTable, EntityType::kView}) {
      if (store_.Get(t, parent_id, ns.back())) {
        return AlreadyExists(EntityKind::kSchema, "{} with same name already exists: {}",
                             t == EntityType::kView ? "View" : "Table", NamespaceText(ns));
      }
    }
  }
  EntityRecord row;
  row.type = EntityType::kSchema;
  row.parent_id = parent_id;
  row.name = ns.back();
  row.properties = properties;
  row.payload = "{}";
  row.audit.creator = ctx.principal;
  row.audit.create_time = ctx.now_ms;
  auto inserted = store_.Insert(row);
  if (!inserted) {
    if (inserted.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kSchema, "Namespace already exists: {}", NamespaceText(ns));
    }
    return std::move(inserted).error();
  }
  return inserted->properties;
}

Result<model::Properties> IcebergCatalog::LoadNamespace(const Namespace& ns) {
  if (metastore_ && !ns.empty()) {
    model::Properties props;
    CAIRN_RETURN_IF_ERROR(SyncNamespace(store_, ns, &props));
    return props;
  }
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, NamespaceRow(store_, ns));
  return row.properties;
}

Status IcebergCatalog::DropNamespace(const Namespace& ns) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, NamespaceRow(store_, ns));
  if (metastore_) {
    auto dropped = metastore_->DropNamespace(ns[0]);
    if (!dropped) {
      if (dropped.error().code == ErrorCode::kNotEmpty) {
        return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema,
                         "Namespace {} is not empty: it holds tables", NamespaceText(ns));
      }
      return std::move(dropped).error();
    }
    (void)store_.Delete(row.id);
    if (!*dropped) return NoSuchNamespace(ns);
    return Ok();
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t children, store_.CountChildren(row.id));
  if (children > 0) {
    return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema,
                     "Namespace {} is not empty. {} tables, views or namespaces exist.",
                     NamespaceText(ns), children);
  }
  CAIRN_ASSIGN_OR_RETURN(bool dropped, store_.Delete(row.id));
  if (!dropped) return NoSuchNamespace(ns);
  return Ok();
}

Result<NamespacePropertiesUpdate> IcebergCatalog::UpdateNamespaceProperties(
    const CallContext& ctx, const Namespace& ns, const std::vector<std::string>& removals,
    const model::Properties& updates) {
  for (const auto& key : removals) {
    if (updates.count(key) != 0) {
      return Unprocessable("Duplicate key to update and remove: {}", key);
    }
  }
  if (metastore_) {
    model::Properties before;
    CAIRN_RETURN_IF_ERROR(SyncNamespace(store_, ns, &before));
    NamespacePropertiesUpdate result;
    for (const auto& key : removals) {
      (before.count(key) > 0 ? result.removed : result.missing).push_back(key);
    }
    for (const auto& [k, v] : updates) result.updated.push_back(k);
    CAIRN_RETURN_IF_ERROR(metastore_->UpdateNamespace(ns[0], updates, removals));
    return result;
  }
  return store::RetryOnConflict(
      [&]() -> Result<NamespacePropertiesUpdate> {
        CAIRN_ASSIGN_OR_RETURN(EntityRecord row, NamespaceRow(store_, ns));
        NamespacePropertiesUpdate result;
        for (const auto& key : removals) {
          if (row.properties.erase(key) > 0) {
            result.removed.push_back(key);
          } else {
            result.missing.push_back(key);
          }
        }
        for (const auto& [k, v] : updates) {
          row.properties[k] = v;
          result.updated.push_back(k);
        }
        row.audit.last_modifier = ctx.principal;
        row.audit.last_modified_time = ctx.now_ms;
        CAIRN_RETURN_IF_ERROR(store_.CompareAndSet(row));
        return result;
      },
      [&] {
        return Unavailable("too many concurrent updates of namespace {}; try again",
                           NamespaceText(ns));
      });
}

// ---- shared object helpers ----

Result<EntityRecord> IcebergCatalog::ObjectRow(store::MetadataStore& store, EntityType type,
                                               const Namespace& ns, std::string_view name) {
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const EntityRecord> row,
                         SharedObjectRow(store, type, ns, name));
  return *row;
}

Result<std::shared_ptr<const EntityRecord>> IcebergCatalog::SharedObjectRow(
    store::MetadataStore& store, EntityType type, const Namespace& ns, std::string_view name) {
  if (ns.empty()) return InvalidArgument("Namespace must not be empty");
  // The namespace levels and the object in one round trip. A load in a missing namespace is a
  // missing table, as the Java catalogs answer.
  std::vector<std::pair<EntityType, std::string>> path;
  path.reserve(ns.size() + 1);
  for (const auto& level : ns) path.emplace_back(EntityType::kSchema, level);
  path.emplace_back(type, std::string(name));
  CAIRN_ASSIGN_OR_RETURN(auto rows, store.GetSharedPath(info_.catalog_id, path));
  if (metastore_ && type == EntityType::kTable) {
    std::optional<EntityRecord> row;
    if (rows->size() == path.size()) row = rows->back();
    CAIRN_ASSIGN_OR_RETURN(EntityRecord synced, SyncTable(store, ns, name, std::move(row)));
    return std::make_shared<const EntityRecord>(std::move(synced));
  }
  if (rows->size() < path.size()) return NoSuchObject(type, ns, name);
  // Shares the rows' ownership: the row lives as long as the answer that holds it.
  return std::shared_ptr<const EntityRecord>(rows, &rows->back());
}

Status IcebergCatalog::CheckNameFree(store::MetadataStore& store, const EntityRecord& ns_row,
                                     const Namespace& ns, std::string_view name,
                                     EntityType creating) {
  CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(
      creating == EntityType::kView ? EntityKind::kView : EntityKind::kTable, name));
  if (metastore_ && creating == EntityType::kTable) {
    // The metastore decides whether the name is taken (a row may be left by a table another
    // engine dropped; a table another engine made may have none yet).
    auto existing = ObjectRow(store, EntityType::kTable, ns, name);
    if (existing) {
      return AlreadyExists(EntityKind::kTable, "Table already exists: {}", ObjectText(ns, name));
    }
    if (existing.error().code != ErrorCode::kNotFound) return std::move(existing).error();
    return Ok();
  }
  const EntityType other = creating == EntityType::kTable ? EntityType::kView : EntityType::kTable;
  // A nested namespace of that name would have its tables inside this one's default location.
  if (store.Get(EntityType::kSchema, ns_row.id, name)) {
    return AlreadyExists(creating == EntityType::kView ? EntityKind::kView : EntityKind::kTable,
                         "Namespace with same name already exists: {}", ObjectText(ns, name));
  }
  if (store.Get(creating, ns_row.id, name)) {
    return creating == EntityType::kTable
               ? AlreadyExists(EntityKind::kTable, "Table already exists: {}", ObjectText(ns, name))
               : AlreadyExists(EntityKind::kView, "View already exists: {}", ObjectText(ns, name));
  }
  if (store.Get(other, ns_row.id, name)) {
    return creating == EntityType::kTable
               ? AlreadyExists(EntityKind::kTable, "View with same name already exists: {}",
                               ObjectText(ns, name))
               : AlreadyExists(EntityKind::kView, "Table with same name already exists: {}",
                               ObjectText(ns, name));
  }
  return Ok();
}

Result<Page> IcebergCatalog::ListObjects(EntityType type, const Namespace& ns,
                                         const std::string& page_token, int page_size) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ns_row, NamespaceRow(store_, ns));
  std::string after;
  if (!page_token.empty()) {
    auto decoded = HexDecode(page_token);
    if (!decoded) return InvalidArgument("Invalid page token: {}", page_token);
    after = *decoded;
  }
  if (metastore_ && type == EntityType::kTable) {
    // The metastore's tables, each row brought in line (a table another engine made gets one).
    CAIRN_ASSIGN_OR_RETURN(auto tables, metastore_->ListTables(ns[0]));
    CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(type, ns_row.id, "", 0));
    std::map<std::string, EntityRecord> by_name;
    for (auto& r : rows) by_name.emplace(r.name, std::move(r));
    std::sort(tables.begin(), tables.end());
    for (const auto& [table, location] : tables) {
      auto it = by_name.find(table);
      if (it != by_name.end() && it->second.location == location) continue;
      std::optional<EntityRecord> row;
      if (it != by_name.end()) row = it->second;
      auto synced = SyncTable(store_, ns, table, std::move(row));
      if (synced) by_name[table] = std::move(*synced);
    }
    Page page;
    for (const auto& [table, location] : tables) {
      if (!after.empty() && table <= after) continue;
      auto it = by_name.find(table);
      if (it == by_name.end()) continue;
      if (page_size > 0 && page.names.size() == static_cast<size_t>(page_size)) {
        page.next_token = HexEncode(page.names.back());
        break;
      }
      page.names.push_back(table);
      page.rows.push_back(it->second);
    }
    return page;
  }
  const int limit = page_size > 0 ? page_size : 0;
  // Fetch one more row than asked to know whether another page follows.
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(type, ns_row.id, after, limit > 0 ? limit + 1 : 0));
  Page page;
  const size_t n =
      limit > 0 ? std::min<size_t>(rows.size(), static_cast<size_t>(limit)) : rows.size();
  page.names.reserve(n);
  for (size_t i = 0; i < n; ++i) page.names.push_back(rows[i].name);
  if (limit > 0 && rows.size() > static_cast<size_t>(limit))
    page.next_token = HexEncode(page.names.back());
  rows.resize(n);
  page.rows = std::move(rows);
  return page;
}

Result<LoadedObject> IcebergCatalog::InsertObject(const CallContext& ctx, EntityType type,
                                                  const EntityRecord& ns_row, const Namespace& ns,
                                                  std::string_view name,
                                                  const std::string& location,
                                                  const std::string& text) {
  if (metastore_ && type == EntityType::kTable) {
    CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata, iceberg::ParseMetadata(text));
    auto made = metastore_->CreateTable(ns[0], std::string(name),
                                        std::string(StringMember(metadata, "location")), location,
                                        ctx.principal);
    if (!made) {
      if (made.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kTable, "Table already exists: {}", ObjectText(ns, name));
      }
      return std::move(made).error();
    }
    // A row left by a table another engine dropped goes; the new table's row is its creator's.
    if (auto stale = store_.Get(type, ns_row.id, name)) (void)store_.Delete(stale->id);
  }
  EntityRecord row;
  row.type = type;
  row.parent_id = ns_row.id;
  row.name = std::string(name);
  row.payload = "{}";
  row.location = location;
  row.audit.creator = ctx.principal;
  row.audit.create_time = ctx.now_ms;
  auto inserted = store_.Insert(row);
  if (!inserted) {
    if (metastore_ && type == EntityType::kTable) {
      (void)metastore_->DropTable(ns[0], std::string(name));  // nothing is left behind
    }
    if (inserted.error().code == ErrorCode::kAlreadyExists) {
      CAIRN_RETURN_IF_ERROR(CheckNameFree(store_, ns_row, ns, name, type));
    }
    return std::move(inserted).error();
  }
  return LoadedObject{std::move(*inserted), location, text};
}

Result<LoadedObject> IcebergCatalog::Load(EntityType type, const Namespace& ns,
                                          std::string_view name) {
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const EntityRecord> row,
                         SharedObjectRow(store_, type, ns, name));
  if (!row->location) return Internal("{} has no metadata location", ObjectText(ns, name));
  CAIRN_ASSIGN_OR_RETURN(SharedText read, ReadSharedFile(storage_, files_, *row->location));
  std::string location = *row->location;
  LoadedObject loaded{std::move(row), std::move(location), std::move(read.text)};
  loaded.metadata_file = std::move(read.file);
  return loaded;
}

Status IcebergCatalog::Rename(const CallContext& ctx, EntityType type, const Namespace& from_ns,
                              std::string_view from, const Namespace& to_ns, std::string_view to) {
  CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(
      type == EntityType::kView ? EntityKind::kView : EntityKind::kTable, to));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord target_ns, NamespaceRow(store_, to_ns));
  if (metastore_ && type == EntityType::kTable) {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, ObjectRow(store_, type, from_ns, from));
    if (row.parent_id == target_ns.id && row.name == to) return Ok();
    CAIRN_RETURN_IF_ERROR(RenameTargetFree(target_ns, from_ns, from, to_ns, to, type));
    auto renamed = metastore_->Rename(from_ns[0], std::string(from), to_ns[0], std::string(to));
    if (!renamed) {
      if (renamed.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kTable, "Cannot rename {} to {}. Table already exists",
                             ObjectText(from_ns, from), ObjectText(to_ns, to));
      }
      return std::move(renamed).error();
    }
    row.parent_id = target_ns.id;
    row.name = std::string(to);
    row.audit.last_modifier = ctx.principal;
    row.audit.last_modified_time = ctx.now_ms;
    (void)store_.CompareAndSet(row);  // the row follows the metastore when next read otherwise
    return Ok();
  }
  return store::RetryOnConflict(
      [&]() -> Status {
        CAIRN_ASSIGN_OR_RETURN(EntityRecord row, ObjectRow(store_, type, from_ns, from));
        if (!(row.parent_id == target_ns.id && row.name == to)) {
          CAIRN_RETURN_IF_ERROR(RenameTargetFree(target_ns, from_ns, from, to_ns, to, type));
        }
        row.parent_id = target_ns.id;
        row.name = std::string(to);
        row.audit.last_modifier = ctx.principal;
        row.audit.last_modified_time = ctx.now_ms;
        auto updated = store_.CompareAndSet(row);
        if (updated) return Ok();
        if (updated.error().code == ErrorCode::kAlreadyExists) {
          CAIRN_RETURN_IF_ERROR(RenameTargetFree(target_ns, from_ns, from, to_ns, to, type));
          // The name was taken when this write landed and is free again (its holder was
          // dropped or renamed away): nothing was renamed yet, so try again.
          return Conflict(EntityKind::kTable, "the rename target {} changed; retrying",
                          ObjectText(to_ns, to));
        }
        return std::move(updated).error();
      },
      [&] {
        return Unavailable("too many concurrent updates of {}; try again",
                           ObjectText(from_ns, from));
      });
}

Status IcebergCatalog::RenameTargetFree(const EntityRecord& target_ns, const Namespace& from_ns,
                                        std::string_view from, const Namespace& to_ns,
                                        std::string_view to, EntityType type) {
  for (EntityType t : {EntityType::kTable, EntityType::kView}) {
    if (store_.Get(t, target_ns.id, to)) {
      return AlreadyExists(type == EntityType::kView ? EntityKind::kView : EntityKind::kTable,
                           "Cannot rename {} to {}. {} already exists", ObjectText(from_ns, from),
                           ObjectText(to_ns, to), t == EntityType::kView ? "View" : "Table");
    }
  }
  return Ok();
}

// ---- a metastore's catalog ----

Result<EntityRecord> IcebergCatalog::SyncNamespace(store::MetadataStore& store,
                                                   const Namespace& ns,
                                                   model::Properties* properties) {
  if (ns.size() != 1) return NoSuchNamespace(ns);
  CAIRN_ASSIGN_OR_RETURN(auto props, metastore_->LoadNamespace(ns[0]));
  auto row = store.Get(EntityType::kSchema, info_.catalog_id, ns[0]);
  if (!props) {
    if (row) (void)store.Delete(row->id);  // dropped by another engine: its rows go
    return NoSuchNamespace(ns);
  }
  if (properties != nullptr) *properties = std::move(*props);
  if (row) return row;
  EntityRecord fresh;
  fresh.type = EntityType::kSchema;
  fresh.parent_id = info_.catalog_id;
  fresh.name = ns[0];
  fresh.payload = "{}";
  auto inserted = store.Insert(fresh);
  if (!inserted && inserted.error().code == ErrorCode::kAlreadyExists) {
    return store.Get(EntityType::kSchema, info_.catalog_id, ns[0]);
  }
  return inserted;
}

Result<EntityRecord> IcebergCatalog::SyncTable(store::MetadataStore& store, const Namespace& ns,
                                               std::string_view name,
                                               std::optional<EntityRecord> row) {
  if (ns.size() != 1) return NoSuchObject(EntityType::kTable, ns, name);
  CAIRN_ASSIGN_OR_RETURN(auto pointer, metastore_->Pointer(ns[0], std::string(name)));
  if (!pointer) {
    if (row) (void)store.Delete(row->id);  // dropped by another engine
    return NoSuchObject(EntityType::kTable, ns, name);
  }
  if (row && row->location == *pointer) return std::move(*row);
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (row) {
      EntityRecord next = *row;
      next.location = *pointer;
      auto moved = store.CompareAndSet(next);
      if (moved) return moved;
      if (moved.error().code != ErrorCode::kConflict) return std::move(moved).error();
    } else {
      CAIRN_ASSIGN_OR_RETURN(EntityRecord ns_row, SyncNamespace(store, ns));
      EntityRecord fresh;  // made by another engine: no creator, so no owner until one is set
      fresh.type = EntityType::kTable;
      fresh.parent_id = ns_row.id;
      fresh.name = std::string(name);
      fresh.payload = "{}";
      fresh.location = *pointer;
      auto inserted = store.Insert(fresh);
      if (inserted) return inserted;
      if (inserted.error().code != ErrorCode::kAlreadyExists) return std::move(inserted).error();
    }
    // Another request moved or made the row meanwhile: read it again.
    CAIRN_ASSIGN_OR_RETURN(EntityRecord ns_row, SyncNamespace(store, ns));
    auto again = store.Get(EntityType::kTable, ns_row.id, name);
    row.reset();
    if (again) {
      if (again->location == *pointer) return again;
      row = std::move(*again);
    }
  }
  // The row keeps moving; the metastore's pointer is the answer all the same.
  if (row) {
    row->location = *pointer;
    return std::move(*row);
  }
  return Unavailable("too many concurrent updates of {}; try again", ObjectText(ns, name));
}

Result<EntityRecord> IcebergCatalog::MovePointer(store::MetadataStore& store, const Namespace& ns,
                                                 const std::string& base, EntityRecord next) {
  if (!metastore_) return store.CompareAndSet(next);
  if (next.location && *next.location != base) {
    CAIRN_RETURN_IF_ERROR(metastore_->Swap(ns[0], next.name, base, *next.location));
  }
  auto moved = store.CompareAndSet(next);
  if (moved) return moved;
  // The metastore moved, which is what counts; the row follows it when next read (a load that
  // saw the new pointer may have moved it already).
  if (auto fresh = store.Get(EntityType::kTable, next.parent_id, next.name)) {
    fresh->location = next.location;
    return fresh;
  }
  return next;
}

// ---- tables ----

Result<Page> IcebergCatalog::ListTables(const Namespace& ns, const std::string& page_token,
                                        int page_size) {
  return ListObjects(EntityType::kTable, ns, page_token, page_size);
}

Result<Page> IcebergCatalog::ListTablesAfter(const Namespace& ns, const std::string& after,
                                             int page_size) {
  return ListObjects(EntityType::kTable, ns, after.empty() ? "" : HexEncode(after), page_size);
}

Result<IcebergCatalog::CreateRequest> IcebergCatalog::PrepareCreate(const Namespace& ns,
                                                                    const nlohmann::json& request,
                                                                    EntityType type) {
  const char* kind = type == EntityType::kView ? "view" : "table";
  if (!request.is_object())
    return InvalidArgument("Invalid create {} request: expected an object", kind);
  auto name_it = request.find("name");
  if (name_it == request.end() || !name_it->is_string() || name_it->get<std::string>().empty()) {
    return InvalidArgument("Invalid {} name: missing or empty field 'name'", kind);
  }
  CreateRequest out;
  out.name = name_it->get<std::string>();
  CAIRN_ASSIGN_OR_RETURN(out.ns_row, NamespaceRow(store_, ns));
  CAIRN_RETURN_IF_ERROR(CheckNameFree(store_, out.ns_row, ns, out.name, type));
  std::string location = DefaultLocation(ns, out.name);
  if (auto loc = request.find("location"); loc != request.end() && !loc->is_null()) {
    if (!loc->is_string()) return InvalidArgument("Invalid field 'location': expected a string");
    location = loc->get<std::string>();
  }
  CAIRN_ASSIGN_OR_RETURN(out.location, storage::NormalizeLocation(location));
  out.request = json::ToOrderedJson(request);
  return out;
}

Result<LoadedObject> IcebergCatalog::CreateTable(const CallContext& ctx, const Namespace& ns,
                                                 const nlohmann::json& request, bool stage) {
  CAIRN_ASSIGN_OR_RETURN(CreateRequest target, PrepareCreate(ns, request, EntityType::kTable));
  const std::string& name = target.name;
  const std::string& location = target.location;
  const iceberg::Json& ordered = target.request;
  CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata,
                         iceberg::NewTableMetadataFromRest(ordered, location, ctx.now_ms));
  if (stage) return LoadedObject{EntityRecord{}, "", iceberg::ToJsonText(metadata)};
  // PrepareCreate already resolved the namespace and checked the name.
  return StoreNew(ctx, EntityType::kTable, target.ns_row, ns, name, metadata);
}

Result<LoadedObject> IcebergCatalog::CreateTableWithMetadata(const CallContext& ctx,
                                                             const Namespace& ns,
                                                             std::string_view name,
                                                             const iceberg::Json& metadata) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ns_row, NamespaceRow(store_, ns));
  CAIRN_RETURN_IF_ERROR(CheckNameFree(store_, ns_row, ns, name, EntityType::kTable));
  return StoreNew(ctx, EntityType::kTable, ns_row, ns, name, metadata);
}

Result<LoadedObject> IcebergCatalog::StoreNew(const CallContext& ctx, EntityType type,
                                              const EntityRecord& ns_row, const Namespace& ns,
                                              std::string_view name,
                                              const iceberg::Json& metadata) {
  CAIRN_RETURN_IF_ERROR(CheckLocations(ns, name, metadata, nullptr));
  const std::string text = iceberg::ToJsonText(metadata);
  const std::string metadata_location = NextLocation(metadata, "");
  CAIRN_RETURN_IF_ERROR(WriteText(storage_, files_, metadata_location, text, ""));
  auto created = InsertObject(ctx, type, ns_row, ns, name, metadata_location, text);
  if (!created)
    DeleteQuietly(storage_, files_, {metadata_location});  // never leave a file no row points at
  return created;
}

Result<LoadedObject> IcebergCatalog::UpdateTable(
    const CallContext& ctx, const Namespace& ns, std::string_view name,
    const MetadataTransform& transform,
    const std::optional<std::pair<Namespace, std::string>>& rename_to) {
  std::optional<EntityRecord> target_ns;
  if (rename_to) {
    CAIRN_ASSIGN_OR_RETURN(target_ns, NamespaceRow(store_, rename_to->first));
  }
  // The transform may itself answer kConflict (a requirement failed): only a lost
  // compare-and-set is tried again.
  bool lost_race = false;
  return store::RetryOnConflict(
      [&]() -> Result<LoadedObject> {
        lost_race = false;
        CAIRN_ASSIGN_OR_RETURN(EntityRecord row, ObjectRow(store_, EntityType::kTable, ns, name));
        if (!row.location) return Internal("{} has no metadata location", ObjectText(ns, name));
        const std::string base_location = *row.location;
        CAIRN_ASSIGN_OR_RETURN(auto base_text, ReadShared(storage_, files_, *row.location));
        CAIRN_ASSIGN_OR_RETURN(iceberg::Json base, iceberg::ParseMetadata(*base_text));
        CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata, transform(base));
        CAIRN_RETURN_IF_ERROR(CheckLocations(ns, name, metadata, &base));
        std::string new_location;
        std::shared_ptr<const std::string> text = base_text;
        if (metadata != base) {
          metadata = iceberg::FinishCommit(std::move(metadata), *row.location,
                                           base.value("last-updated-ms", int64_t{0}), ctx.now_ms);
          new_location = NextLocation(metadata, *row.location);
          text = std::make_shared<const std::string>(iceberg::ToJsonText(metadata));
          CAIRN_RETURN_IF_ERROR(WriteText(storage_, files_, new_location, *text, *row.location));
          row.location = new_location;
        }
        const EntityRecord pointer_row = row;  // before a rename: the metastore's view
        if (rename_to) {
          if (!(row.parent_id == target_ns->id && row.name == rename_to->second)) {
            auto free = RenameTargetFree(*target_ns, ns, name, rename_to->first, rename_to->second,
                                         EntityType::kTable);
            if (!free) {
              if (!new_location.empty()) DeleteQuietly(storage_, files_, {new_location});
              return std::move(free).error();
            }
          }
          row.parent_id = target_ns->id;
          row.name = rename_to->second;
        }
        row.audit.last_modifier = ctx.principal;
        row.audit.last_modified_time = ctx.now_ms;
        if (metastore_) {
          // The pointer first (the metastore's swap decides the race), then the name.
          Result<EntityRecord> moved = pointer_row;
          if (!new_location.empty()) moved = MovePointer(store_, ns, base_location, pointer_row);
          if (!moved) {
            if (!new_location.empty()) DeleteQuietly(storage_, files_, {new_location});
            lost_race = moved.error().code == ErrorCode::kConflict;
            return std::move(moved).error();
          }
          if (rename_to && !(rename_to->first == ns && rename_to->second == name)) {
            CAIRN_RETURN_IF_ERROR(metastore_->Rename(ns[0], std::string(name),
                                                     rename_to->first[0], rename_to->second));
            EntityRecord renamed = *moved;
            renamed.parent_id = target_ns->id;
            renamed.name = rename_to->second;
            renamed.audit = row.audit;
            moved = store_.CompareAndSet(renamed);
            if (!moved) {
              moved = ObjectRow(store_, EntityType::kTable, rename_to->first, rename_to->second);
            }
            if (!moved) return std::move(moved).error();
          }
          std::string location = *row.location;
          return LoadedObject{std::move(*moved), std::move(location), std::move(text)};
        }
        Result<EntityRecord> updated = row;
        updated = store_.CompareAndSet(row);
        if (updated) {
          std::string location = *updated->location;
          return LoadedObject{std::move(*updated), std::move(location), std::move(text)};
        }
        if (!new_location.empty()) DeleteQuietly(storage_, files_, {new_location});
        if (updated.error().code == ErrorCode::kAlreadyExists && rename_to) {
          CAIRN_RETURN_IF_ERROR(RenameTargetFree(*target_ns, ns, name, rename_to->first,
                                                 rename_to->second, EntityType::kTable));
          lost_race = true;  // the name was freed meanwhile: try again
        }
        lost_race = lost_race || updated.error().code == ErrorCode::kConflict;
        return std::move(updated).error();
      },
      [&] {
        return Unavailable("too many concurrent updates of {}; try again", ObjectText(ns, name));
      },
      [&](const Error&) { return lost_race; });
}

Result<LoadedObject> IcebergCatalog::LoadTable(const Namespace& ns, std::string_view name) {
  return Load(EntityType::kTable, ns, name);
}

Result<EntityRecord> IcebergCatalog::TableRow(const Namespace& ns, std::string_view name) {
  return ObjectRow(store_, EntityType::kTable, ns, name);
}

Status IcebergCatalog::CheckMetadataExists(const EntityRecord& row) {
  if (!row.location) return Internal("{} has no metadata location", row.name);
  // A file held open answers with fstat(2); one that lost its name is looked up by path (a new
  // file may have been put under it).
  if (files_.LinkedIfOpen(*row.location).value_or(false)) return Ok();
  if (files_.CheckedRecently(*row.location)) return Ok();  // object storage, within the second
  CAIRN_ASSIGN_OR_RETURN(auto io, storage::FileIOFor(*row.location, storage_));
  CAIRN_ASSIGN_OR_RETURN(bool exists, io->Exists(*row.location));
  if (!exists)
    return NotFound(EntityKind::kNone, "Failed to open input stream for file: {}", *row.location);
  if (io->LocalFilePath(*row.location).empty()) files_.MarkChecked(*row.location);
  return Ok();
}

std::shared_ptr<const std::vector<std::string>> IcebergCatalog::StorageLocationsOf(
    const std::string& metadata_location, const std::string& metadata_text) {
  return files_.Locations(metadata_location,
                          [&] { return iceberg::StorageLocations(metadata_text); });
}

Result<LoadedObject> IcebergCatalog::RegisterTable(const CallContext& ctx, const Namespace& ns,
                                                   std::string_view name,
                                                   const std::string& metadata_location,
                                                   bool overwrite) {
  if (name.empty()) return InvalidArgument("Invalid table name: must not be empty");
  if (metadata_location.empty())
    return InvalidArgument("Invalid metadata-location: must not be empty");
  CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(EntityKind::kTable, name));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ns_row, NamespaceRow(store_, ns));
  CAIRN_RETURN_IF_ERROR(CheckAllowed("metadata-location", metadata_location));
  auto text = ReadText(storage_, files_, metadata_location);
  if (!text) {
    return InvalidArgument("Cannot read metadata file '{}': {}", metadata_location,
                           text.error().message);
  }
  CAIRN_ASSIGN_OR_RETURN(iceberg::Json registered, iceberg::ParseMetadata(*text));
  CAIRN_RETURN_IF_ERROR(CheckLocations(ns, name, registered, nullptr));
  auto existing = store_.Get(EntityType::kTable, ns_row.id, name);
  if (existing && overwrite) {
    return store::RetryOnConflict(
        [&]() -> Result<LoadedObject> {
          CAIRN_ASSIGN_OR_RETURN(EntityRecord row, ObjectRow(store_, EntityType::kTable, ns, name));
          const std::string base = row.location.value_or("");
          row.location = metadata_location;
          row.audit.last_modifier = ctx.principal;
          row.audit.last_modified_time = ctx.now_ms;
          CAIRN_ASSIGN_OR_RETURN(EntityRecord updated, MovePointer(store_, ns, base, row));
          return LoadedObject{std::move(updated), metadata_location, *text};
        },
        [&] {
          return Unavailable("too many concurrent updates of {}; try again", ObjectText(ns, name));
        });
  }
  CAIRN_RETURN_IF_ERROR(CheckNameFree(store_, ns_row, ns, name, EntityType::kTable));
  return InsertObject(ctx, EntityType::kTable, ns_row, ns, name, metadata_location, *text);
}

Result<LoadedObject> IcebergCatalog::CommitOnce(store::MetadataStore& store, const CallContext& ctx,
                                                const TableCommit& commit,
                                                std::vector<std::string>& written,
                                                bool& lost_race) {
  lost_race = false;
  auto row = ObjectRow(store, EntityType::kTable, commit.ns, commit.name);
  if (!row) {
    if (row.error().code != ErrorCode::kNotFound) return std::move(row).error();
    const iceberg::Json requirements = json::ToOrderedJson(commit.requirements);
    const iceberg::Json updates = json::ToOrderedJson(commit.updates);
    // A create transaction: assert-create on a table that does not exist yet.
    bool asserts_create = false;
    for (const auto& r : requirements)
      asserts_create = asserts_create || r.value("type", "") == "assert-create";
    if (!asserts_create) return std::move(row).error();
    CAIRN_ASSIGN_OR_RETURN(EntityRecord ns_row, NamespaceRow(store, commit.ns));
    CAIRN_RETURN_IF_ERROR(iceberg::CheckTableRequirements(nullptr, requirements));
    CAIRN_RETURN_IF_ERROR(CheckNameFree(store, ns_row, commit.ns, commit.name, EntityType::kTable));
    CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata,
                           iceberg::ApplyTableUpdates(nullptr, updates, ctx.now_ms));
    metadata = iceberg::FinishCommit(std::move(metadata), "", 0, ctx.now_ms);
    if (StringMember(metadata, "location").empty())
      metadata["location"] = DefaultLocation(commit.ns, commit.name);
    CAIRN_RETURN_IF_ERROR(CheckLocations(commit.ns, commit.name, metadata, nullptr));
    const std::string metadata_location = NextLocation(metadata, "");
    const std::string text = iceberg::ToJsonText(metadata);
    CAIRN_RETURN_IF_ERROR(WriteText(storage_, files_, metadata_location, text, ""));
    written.push_back(metadata_location);
    EntityRecord fresh;
    fresh.type = EntityType::kTable;
    fresh.parent_id = ns_row.id;
    fresh.name = commit.name;
    fresh.payload = "{}";
    fresh.location = metadata_location;
    fresh.audit.creator = ctx.principal;
    fresh.audit.create_time = ctx.now_ms;
    if (metastore_) {
      auto made = metastore_->CreateTable(commit.ns[0], commit.name,
                                          std::string(StringMember(metadata, "location")),
                                          metadata_location, ctx.principal);
      if (!made) {
        if (made.error().code == ErrorCode::kAlreadyExists) {
          return MakeError(ErrorCode::kConflict, EntityKind::kTable,
                           "Requirement failed: table already exists");
        }
        return std::move(made).error();
      }
      if (auto stale = store.Get(EntityType::kTable, ns_row.id, commit.name)) {
        (void)store.Delete(stale->id);
      }
    }
    auto inserted = store.Insert(fresh);
    if (!inserted) {
      if (metastore_) (void)metastore_->DropTable(commit.ns[0], commit.name);
      if (inserted.error().code == ErrorCode::kAlreadyExists) {
        return MakeError(ErrorCode::kConflict, EntityKind::kTable,
                         "Requirement failed: table already exists");
      }
      return std::move(inserted).error();
    }
    return LoadedObject{std::move(*inserted), metadata_location, text};
  }
  if (!row->location)
    return Internal("{} has no metadata location", ObjectText(commit.ns, commit.name));
  CAIRN_ASSIGN_OR_RETURN(std::string base_text, ReadText(storage_, files_, *row->location));
  CAIRN_ASSIGN_OR_RETURN(iceberg::Json base, iceberg::ParseMetadata(base_text));
  CAIRN_ASSIGN_OR_RETURN(iceberg::Json effective_updates,
                         CheckCommit(base, commit, written, /*defer_sync=*/false));
  bool changed = true;
  CAIRN_ASSIGN_OR_RETURN(
      iceberg::Json metadata,
      iceberg::ApplyTableUpdates(&base, effective_updates, ctx.now_ms, &changed));
  CAIRN_RETURN_IF_ERROR(CheckLocations(commit.ns, commit.name, metadata, &base));
  if (!changed) {
    // Nothing to write: the current metadata is the answer.
    std::string location = *row->location;
    return LoadedObject{std::move(*row), std::move(location), std::move(base_text)};
  }
  metadata = iceberg::FinishCommit(std::move(metadata), *row->location,
                                   base.value("last-updated-ms", int64_t{0}), ctx.now_ms);
  const std::string metadata_location = NextLocation(metadata, *row->location);
  const std::string text = iceberg::ToJsonText(metadata);
  CAIRN_RETURN_IF_ERROR(WriteText(storage_, files_, metadata_location, text, *row->location));
  written.push_back(metadata_location);
  EntityRecord next = *row;
  next.location = metadata_location;
  next.audit.last_modifier = ctx.principal;
  next.audit.last_modified_time = ctx.now_ms;
  auto updated = MovePointer(store, commit.ns, *row->location, next);
  if (!updated) {
    const ErrorCode code = updated.error().code;
    if (code == ErrorCode::kConflict) {
      lost_race = true;
      return std::move(updated).error();
    }
    // The swap may or may not have happened: the outcome is unknown, never a retryable 409.
    return MakeError(ErrorCode::kCommitStateUnknown, EntityKind::kTable,
                     "Commit state unknown for {}: {}", ObjectText(commit.ns, commit.name),
                     updated.error().message);
  }
  return LoadedObject{std::move(*updated), metadata_location, text};
}

Result<iceberg::Json> IcebergCatalog::CheckCommit(const iceberg::Json& base,
                                                  const TableCommit& commit,
                                                  std::vector<std::string>& written,
                                                  bool defer_sync,
                                                  const iceberg::SnapshotIndex* index) {
  const iceberg::Json requirements = json::ToOrderedJson(commit.requirements);
  iceberg::Json updates = json::ToOrderedJson(commit.updates);
  if (auto met = iceberg::CheckTableRequirements(&base, requirements); !met) {
    if (met.error().code != ErrorCode::kConflict) return std::move(met).error();
    // A fast append whose parent is no longer main's head: append its manifests on top of the
    // new head instead of failing, so concurrent appends all land without client retries.
    iceberg::RebaseIo io;
    io.written_lists = &caches_->written_lists();
    io.snapshot_ids = index != nullptr ? &index->ids : nullptr;
    io.read = [this](const std::string& location) -> Result<std::string> {
      CAIRN_ASSIGN_OR_RETURN(auto file_io, storage::FileIOFor(location, storage_));
      return file_io->Read(location);
    };
    io.write_new = [this, &written, defer_sync](const std::string& location,
                                                const std::string& bytes) -> Status {
      CAIRN_ASSIGN_OR_RETURN(auto file_io, storage::FileIOFor(location, storage_));
      CAIRN_RETURN_IF_ERROR(defer_sync ? file_io->WriteNewDeferred(location, bytes)
                                       : file_io->WriteNew(location, bytes));
      written.push_back(location);
      return Ok();
    };
    auto attempt = iceberg::RebaseAppend(base, requirements, updates, io);
    if (!attempt) return std::move(met).error();  // not a rebasable append: the original 409
    CAIRN_RETURN_IF_ERROR(iceberg::CheckTableRequirements(&base, attempt->first));
    caches_->CountAppendRebase();
    return std::move(attempt->second);
  }
  return updates;
}

Result<LoadedObject> IcebergCatalog::CommitAlone(const CallContext& ctx,
                                                 const TableCommit& commit) {
  // A lost compare-and-set (the row's version moved) is retried against the new base, where the
  // requirements are checked again; a failed requirement (kConflict too) is reported. Both leave
  // only files nobody points at.
  bool lost_race = false;
  return store::RetryOnConflict(
      [&]() -> Result<LoadedObject> {
        std::vector<std::string> written;
        auto result = CommitOnce(store_, ctx, commit, written, lost_race);
        if (!result && result.error().code != ErrorCode::kCommitStateUnknown) {
          DeleteQuietly(storage_, files_, written);
        }
        return result;
      },
      [&] {
        return Unavailable("too many concurrent commits to {}; try again",
                           ObjectText(commit.ns, commit.name));
      },
      [&](const Error&) { return lost_race; });
}

Result<LoadedObject> IcebergCatalog::CommitTable(const CallContext& ctx,
                                                 const TableCommit& commit) {
  QueuedTableCommit self;
  self.ctx = &ctx;
  self.commit = &commit;
  const bool answered = caches_->commit_queues().Run(
      {serial_, commit.ns, commit.name}, self,
      [this](const std::vector<QueuedTableCommit*>& batch, CachedTableHead& head) {
        return CommitBatch(batch, head);
      });
  Result<LoadedObject> result =
      answered ? std::move(*self.result) : CommitAlone(ctx, commit);  // waited too long: alone
  caches_->CountCommit(result ? nullptr : &result.error());
  return result;
}

std::vector<Result<LoadedObject>> IcebergCatalog::CommitBatch(
    const std::vector<QueuedTableCommit*>& batch, CachedTableHead& head) {
  std::vector<std::optional<Result<LoadedObject>>> answers(batch.size());
  const TableCommit& table = *batch.front()->commit;
  size_t next = 0;  // the first commit not answered yet
  // Not store::RetryOnConflict: one pass answers several commits, a commit whose table is
  // missing goes alone, and a redo without a failed commit is not a lost race. The bound is
  // the same: kMaxConflictAttempts lost compare-and-sets and the rest give up.
  int attempts = 0;
  while (next < batch.size()) {
    auto row = ObjectRow(store_, EntityType::kTable, table.ns, table.name);
    if (!row && row.error().code == ErrorCode::kNotFound) {
      // No table: a create transaction (assert-create), or the table's 404. One at a time.
      answers[next] = CommitAlone(*batch[next]->ctx, *batch[next]->commit);
      ++next;
      continue;
    }
    if (!row) {
      for (size_t i = next; i < batch.size(); ++i) answers[i] = row.error();
      break;
    }
    if (attempts++ == store::kMaxConflictAttempts) {
      for (size_t i = next; i < batch.size(); ++i) {
        answers[i] = Unavailable("too many concurrent commits to {}; try again",
                                 ObjectText(table.ns, table.name));
      }
      break;
    }
    const std::span<QueuedTableCommit* const> rest(batch.begin() + next, batch.end());
    const std::span<std::optional<Result<LoadedObject>>> rest_answers(answers.begin() + next,
                                                                      answers.end());
    const BatchAttempt outcome = CommitBatchOnce(*row, rest, rest_answers, head);
    if (outcome == BatchAttempt::kAnswered) break;
    if (outcome == BatchAttempt::kRedo) --attempts;  // one commit fewer: bounded by the batch
  }
  std::vector<Result<LoadedObject>> out;
  out.reserve(answers.size());
  for (auto& answer : answers) out.push_back(std::move(*answer));
  return out;
}

namespace {

// True when `updates` leave the snapshots and the snapshot log of the metadata before them as
// they were (only adding to their ends): the shape of an append, with at most one snapshot and
// one ref set (a second could take an intermediate snapshot's log entry out again), statistics
// and properties. No removal of snapshots or refs.
bool KeepsHistory(const std::vector<iceberg::TableUpdate>& updates) {
  namespace update = iceberg::update;
  int snapshots = 0;
  int refs = 0;
  for (const iceberg::TableUpdate& u : updates) {
    if (std::holds_alternative<update::AddSnapshot>(u)) {
      ++snapshots;
    } else if (std::holds_alternative<update::SetSnapshotRef>(u)) {
      ++refs;
    } else if (!std::holds_alternative<update::SetProperties>(u) &&
               !std::holds_alternative<update::RemoveProperties>(u) &&
               !std::holds_alternative<update::SetStatistics>(u) &&
               !std::holds_alternative<update::RemoveStatistics>(u)) {
      return false;
    }
  }
  return snapshots <= 1 && refs <= 1;
}

}  // namespace

IcebergCatalog::BatchAttempt IcebergCatalog::CommitBatchOnce(
    const EntityRecord& row, std::span<QueuedTableCommit* const> batch,
    std::span<std::optional<Result<LoadedObject>>> answers, CachedTableHead& head) {
  const TableCommit& table = *batch.front()->commit;
  std::vector<size_t> open;  // the commits this attempt answers
  for (size_t i = 0; i < batch.size(); ++i)
    if (!answers[i]) open.push_back(i);
  auto answer_all = [&](const Error& error) {
    for (size_t i : open) answers[i] = error;
    return BatchAttempt::kAnswered;
  };
  if (!row.location)
    return answer_all(Internal("{} has no metadata location", ObjectText(table.ns, table.name)));
  // The base: the head this process wrote last when the row still points at it (and the file is
  // still there), else the file read and parsed.
  std::shared_ptr<const iceberg::Json> base;
  std::shared_ptr<const std::string> base_text;
  bool from_head = false;
  if (head.metadata && head.location == *row.location) {
    auto io = storage::FileIOFor(*row.location, storage_);
    if (!io) return answer_all(io.error());
    auto exists = (*io)->Exists(*row.location);
    if (!exists) return answer_all(exists.error());
    if (*exists) {
      base = head.metadata;
      base_text = head.text;
      from_head = true;
    }
  }
  if (!base) {
    head = CachedTableHead{};
    auto text = ReadShared(storage_, files_, *row.location);
    if (!text) return answer_all(text.error());
    auto parsed = iceberg::ParseMetadata(**text);
    if (!parsed) return answer_all(parsed.error());
    base = std::make_shared<const iceberg::Json>(std::move(*parsed));
    base_text = std::move(*text);
  }
  // What later steps need of the base, which the batch may take over (below): its placement
  // (what CheckLocations compares with) and its time.
  const iceberg::Json base_placement = {
      {"location", base->value("location", iceberg::Json())},
      {"properties", base->value("properties", iceberg::Json::object())}};
  const int64_t base_updated_ms = base->value("last-updated-ms", int64_t{0});
  // The head's history keeps its text while the batch only appends.
  const iceberg::HistorySpans head_history = from_head ? head.history : iceberg::HistorySpans{};
  bool history_kept = from_head;

  // Each commit in turn, as if alone, on top of the ones applied before it.
  iceberg::Json running;  // the metadata so far, once a commit changed something
  std::optional<iceberg::SnapshotIndex> running_index;  // of running's snapshots, when set
  const iceberg::Json* current = base.get();
  std::vector<size_t> applied;     // commits in `running` (or no-ops on it)
  std::vector<std::string> files;  // the manifest lists their rebases wrote
  int64_t now_ms = 0;
  bool any_changed = false;
  for (size_t i : open) {
    const QueuedTableCommit& queued = *batch[i];
    std::vector<std::string> written;
    // The running index describes `running` whenever it is set (a hot table's history runs to
    // thousands of snapshots: a rebase then finds whether an id is taken in one lookup).
    const iceberg::SnapshotIndex* index =
        current == &running && running_index ? &*running_index : nullptr;
    auto updates = CheckCommit(*current, *queued.commit, written, /*defer_sync=*/true, index);
    if (!updates) {
      DeleteQuietly(storage_, files_, written);
      answers[i] = std::move(updates).error();
      continue;
    }
    // A commit that adds a snapshot always changes the metadata, so the metadata so far can be
    // handed over instead of copied (the history grows with every commit); if it fails anyway,
    // what came before is rebuilt by redoing the batch without it.
    auto parsed = iceberg::ParseTableUpdates(*updates);
    if (!parsed) {
      DeleteQuietly(storage_, files_, written);
      answers[i] = std::move(parsed).error();
      continue;
    }
    const bool snapshot_added =
        std::any_of(parsed->begin(), parsed->end(), [](const iceberg::TableUpdate& u) {
          return std::holds_alternative<iceberg::update::AddSnapshot>(u);
        });
    // The first such commit takes the head's metadata over instead of copying it (only the
    // leader uses it; a redo or a later batch reads the file again).
    if (snapshot_added && current == base.get() && from_head && head.metadata) {
      running = std::move(*head.metadata);
      running_index = std::move(head.snapshot_index);
      head = CachedTableHead{};
      current = &running;
    }
    const bool adds_snapshot = snapshot_added && current == &running;
    history_kept = history_kept && KeepsHistory(*parsed);
    bool changed = false;
    auto next = adds_snapshot ? iceberg::ApplyTableUpdates(std::move(running), std::move(*parsed),
                                                           queued.ctx->now_ms, &changed,
                                                           &running_index)
                              : iceberg::ApplyTableUpdates(current, std::move(*parsed),
                                                           queued.ctx->now_ms, &changed);
    if (next) {
      if (auto placed =
              CheckLocations(queued.commit->ns, queued.commit->name, *next, &base_placement);
          !placed) {
        next = std::move(placed).error();
      }
    }
    if (!next) {
      DeleteQuietly(storage_, files_, written);
      answers[i] = std::move(next).error();
      if (adds_snapshot) {
        DeleteQuietly(storage_, files_, files);
        for (size_t j : open)
          if (j != i) answers[j].reset();
        return BatchAttempt::kRedo;
      }
      continue;
    }
    applied.push_back(i);
    files.insert(files.end(), written.begin(), written.end());
    now_ms = std::max(now_ms, queued.ctx->now_ms);
    if (changed) {
      if (!adds_snapshot) running_index.reset();  // running is replaced by a copy's result
      running = std::move(*next);
      current = &running;
      any_changed = true;
    }
  }
  if (!any_changed) {
    // Nothing to write: the current metadata answers every commit that did not fail.
    for (size_t i : applied) answers[i] = LoadedObject{row, *row.location, base_text};
    return BatchAttempt::kAnswered;
  }

  iceberg::Json metadata =
      iceberg::FinishCommit(std::move(running), *row.location, base_updated_ms, now_ms);
  const std::string location = NextLocation(metadata, *row.location);
  iceberg::HistorySpans history;
  auto text = std::make_shared<const std::string>(iceberg::ToJsonText(
      metadata, *base_text, history_kept ? head_history : iceberg::HistorySpans{}, &history));
  auto answer_applied = [&](const Error& error) {
    for (size_t i : applied) answers[i] = error;
    return BatchAttempt::kAnswered;
  };
  // The metadata file and every manifest list it points at are durable before the pointer moves.
  if (Status stored = WriteDeferredText(storage_, location, *text); !stored) {
    DeleteQuietly(storage_, files_, files);
    return answer_applied(stored.error());
  }
  files.push_back(location);
  if (Status synced = SyncFiles(storage_, files); !synced) {
    DeleteQuietly(storage_, files_, files);
    return answer_applied(synced.error());
  }
  if (row.location && files_.Contains(*row.location)) files_.Put(location, text);
  EntityRecord next = row;
  next.location = location;
  next.audit.last_modifier = batch[applied.back()]->ctx->principal;
  next.audit.last_modified_time = now_ms;
  auto updated = MovePointer(store_, table.ns, *row.location, next);
  if (!updated) {
    if (updated.error().code == ErrorCode::kConflict) {
      // Another writer moved the row: nothing of this attempt landed; redo every commit.
      DeleteQuietly(storage_, files_, files);
      for (auto& answer : answers) answer.reset();
      return BatchAttempt::kLostRace;
    }
    // The swap may or may not have happened: the outcome is unknown, never a retryable 409, and
    // the files stay (the row may point at them).
    return answer_applied(MakeError(ErrorCode::kCommitStateUnknown, EntityKind::kTable,
                                    "Commit state unknown for {}: {}",
                                    ObjectText(table.ns, table.name), updated.error().message));
  }
  for (size_t i : applied) answers[i] = LoadedObject{*updated, location, text};
  head.location = location;
  head.metadata = std::make_shared<iceberg::Json>(std::move(metadata));
  head.text = std::move(text);
  head.history = history;
  head.snapshot_index = std::move(running_index);
  return BatchAttempt::kAnswered;
}

Status IcebergCatalog::CommitTransaction(const CallContext& ctx,
                                         const std::vector<TableCommit>& commits) {
  if (metastore_ && commits.size() > 1) {
    return Unsupported(
        "This catalog's tables live in a metastore, which cannot commit {} tables atomically; "
        "commit them one at a time",
        commits.size());
  }
  if (metastore_ && commits.size() == 1) {
    auto one = CommitAlone(ctx, commits[0]);
    if (!one) return std::move(one).error();
    return Ok();
  }
  bool lost_race = false;
  return store::RetryOnConflict(
      [&]() -> Status {
        lost_race = false;
        std::vector<std::string> written;
        Status status = store_.RunInTransaction([&](store::MetadataStore& tx) -> Status {
          for (const auto& commit : commits) {
            auto r = CommitOnce(tx, ctx, commit, written, lost_race);
            if (!r) return std::move(r).error();
          }
          return Ok();
        });
        // Rolled back: no pointer moved, so every file written is garbage.
        if (!status) DeleteQuietly(storage_, files_, written);
        return status;
      },
      [] { return Unavailable("too many concurrent commits; try again"); },
      [&](const Error&) { return lost_race; });
}

Status IcebergCatalog::RenameTable(const CallContext& ctx, const Namespace& from_ns,
                                   std::string_view from, const Namespace& to_ns,
                                   std::string_view to) {
  return Rename(ctx, EntityType::kTable, from_ns, from, to_ns, to);
}

Result<bool> IcebergCatalog::DropTable(const Namespace& ns, std::string_view name, bool purge) {
  auto row = ObjectRow(store_, EntityType::kTable, ns, name);
  if (!row) {
    if (row.error().code == ErrorCode::kNotFound) return false;
    return std::move(row).error();
  }
  std::optional<iceberg::Json> metadata;
  if (purge && row->location) {
    if (auto text = ReadText(storage_, files_, *row->location)) {
      if (auto parsed = iceberg::ParseMetadata(*text)) metadata = std::move(*parsed);
    }
  }
  if (metastore_) {
    CAIRN_ASSIGN_OR_RETURN(bool gone, metastore_->DropTable(ns[0], std::string(name)));
    (void)store_.Delete(row->id);
    if (gone && purge) PurgeFiles(*row->location, metadata);
    return gone;
  }
  CAIRN_ASSIGN_OR_RETURN(bool dropped, store_.Delete(row->id));
  if (dropped && purge) PurgeFiles(*row->location, metadata);
  return dropped;
}

Status IcebergCatalog::CheckAllowed(std::string_view field, std::string_view location) const {
  if (auto parsed = storage::ParseLocation(location); !parsed) {
    return InvalidArgument("Invalid {}: {}", field, parsed.error().message);
  }
  for (const auto& allowed : allowed_) {
    if (storage::LocationWithin(location, allowed)) return Ok();
  }
  return InvalidArgument(
      "Invalid {} '{}': it must lie under one of the catalog's allowed locations ({}; catalog "
      "property '{}')",
      field, location, Join(allowed_, ", "), kAllowedLocationsProperty);
}

Status IcebergCatalog::CheckLocations(const Namespace& ns, std::string_view name,
                                      const iceberg::Json& metadata,
                                      const iceberg::Json* base) const {
  const std::string_view raw = StringMember(metadata, "location");
  if (raw.empty()) return InvalidArgument("Invalid location: the metadata has none");
  const bool moved = base == nullptr || StringMember(*base, "location") != raw;
  if (moved) {
    auto normalized = storage::NormalizeLocation(raw);
    if (!normalized) return InvalidArgument("Invalid location: {}", normalized.error().message);
    const std::string& location = *normalized;
    CAIRN_RETURN_IF_ERROR(CheckAllowed("location", location));
    auto default_location = storage::NormalizeLocation(DefaultLocation(ns, name));
    const bool is_default = default_location &&
                            storage::LocationWithin(location, *default_location) &&
                            storage::LocationWithin(*default_location, location);
    if (!is_default) {
      // Placed by hand: it must not hold the warehouse or a namespace's directory (where default
      // locations go), nor share files with another table or view.
      if (storage::LocationWithin(warehouse_, location)) {
        return InvalidArgument("Invalid location '{}': it holds the catalog's warehouse '{}'",
                               location, warehouse_);
      }
      std::vector<std::pair<int64_t, Namespace>> pending = {{info_.catalog_id, {}}};
      while (!pending.empty()) {
        auto [parent_id, parent_ns] = std::move(pending.back());
        pending.pop_back();
        CAIRN_ASSIGN_OR_RETURN(auto children, store_.List(EntityType::kSchema, parent_id, "", 0));
        for (auto& child : children) {
          CAIRN_RETURN_IF_ERROR(CheckDeadline());
          Namespace child_ns = parent_ns;
          child_ns.push_back(child.name);
          const std::string ns_dir = fmt::format("{}/{}", warehouse_, Join(child_ns, "/"));
          if (storage::LocationWithin(ns_dir, location)) {
            return InvalidArgument(
                "Invalid location '{}': it holds the directory of namespace {} ('{}')", location,
                NamespaceText(child_ns), ns_dir);
          }
          for (EntityType t : {EntityType::kTable, EntityType::kView}) {
            CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(t, child.id, "", 0));
            for (const auto& row : rows) {
              if (!row.location || (child_ns == ns && row.name == name)) continue;
              auto text = ReadShared(storage_, files_, *row.location);
              if (!text) continue;
              auto other = json::ParseOrderedJsonOrDiscarded(**text);
              const std::string_view other_location = StringMember(other, "location");
              if (!other_location.empty() && storage::LocationsOverlap(location, other_location)) {
                return InvalidArgument(
                    "Invalid location '{}': it overlaps the location of {} {} ('{}')", location,
                    t == EntityType::kView ? "view" : "table", ObjectText(child_ns, row.name),
                    other_location);
              }
            }
          }
          pending.emplace_back(child.id, std::move(child_ns));
        }
      }
    }
  }
  for (const char* key : kPathProperties) {
    const std::string_view value = PathProperty(metadata, key);
    if (value.empty()) continue;
    if (!moved && PathProperty(*base, key) == value) continue;
    if (!storage::LocationWithin(value, raw)) {
      return InvalidArgument("Invalid property '{}': '{}' must lie within the location '{}'", key,
                             value, raw);
    }
  }
  return Ok();
}

namespace {

// The paths a manifest list or manifest names under `field` (a record member, or a member of
// the record's `data_file` struct); empty when the file does not read.
std::vector<std::string> AvroPaths(const storage::StorageOptions& storage_,
                                   const std::string& location, const char* record_field,
                                   const char* field) {
  std::vector<std::string> out;
  auto io = storage::FileIOFor(location, storage_);
  if (!io) return out;
  auto bytes = (*io)->Read(location);
  if (!bytes) return out;
  auto file = iceberg::ReadAvroFile(*bytes);
  if (!file) {
    spdlog::warn("event=purge_unreadable file=\"{}\" error=\"{}\"", location, file.error().message);
    return out;
  }
  for (const auto& record : file->records) {
    const iceberg::Json* holder = &record;
    if (record_field != nullptr) {
      auto it = record.find(record_field);
      if (it == record.end() || !it->is_object()) continue;
      holder = &*it;
    }
    auto path = holder->find(field);
    if (path != holder->end() && path->is_string()) out.push_back(path->get<std::string>());
  }
  return out;
}

// Removes the empty directories under `root` (a local path), deepest first, and `root` itself
// when it ends up empty. Directories holding anything are left alone.
void PruneEmptyDirectories(const std::string& root) {
  namespace fs = std::filesystem;
  std::string path = root.rfind("file://", 0) == 0 ? root.substr(7)
                     : root.rfind("file:", 0) == 0 ? root.substr(5)
                                                   : root;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return;
  std::vector<fs::path> dirs;
  for (auto it = fs::recursive_directory_iterator(
           path, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) dirs.push_back(it->path());
  }
  std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) {
    return a.native().size() > b.native().size();
  });
  dirs.emplace_back(path);
  for (const auto& d : dirs) {
    if (fs::is_empty(d, ec) && !ec) fs::remove(d, ec);
  }
}

}  // namespace

void IcebergCatalog::DeleteFiles(const std::vector<std::string>& locations) {
  DeleteQuietly(storage_, files_, locations);
}

void IcebergCatalog::PurgeFiles(const std::string& metadata_location,
                                const std::optional<iceberg::Json>& metadata) {
  // Only files this table's metadata refers to, and of those only the ones within its own
  // location: a directory is never deleted wholesale (it may hold what another table or a
  // person put there), and a path a commit pointed elsewhere is never followed out of it.
  std::vector<std::string> files = {metadata_location};
  std::string table_location;
  if (metadata && metadata->is_object()) {
    table_location = std::string(StringMember(*metadata, "location"));
    auto member = [&](const char* key) -> const iceberg::Json* {
      auto it = metadata->find(key);
      return it != metadata->end() && it->is_array() ? &*it : nullptr;
    };
    if (const auto* log = member("metadata-log")) {
      for (const auto& entry : *log) files.emplace_back(StringMember(entry, "metadata-file"));
    }
    if (const auto* snapshots = member("snapshots")) {
      std::set<std::string> manifests;
      for (const auto& snapshot : *snapshots) {
        const std::string list(StringMember(snapshot, "manifest-list"));
        if (list.empty()) continue;
        files.push_back(list);
        if (!storage::LocationWithin(list, table_location)) continue;
        for (auto& m : AvroPaths(storage_, list, nullptr, "manifest_path")) {
          manifests.insert(std::move(m));
        }
      }
      for (const auto& manifest : manifests) {
        if (!CheckDeadline()) break;  // the rest stays behind, as after a crash mid-purge
        files.push_back(manifest);
        if (!storage::LocationWithin(manifest, table_location)) continue;
        for (auto& f : AvroPaths(storage_, manifest, "data_file", "file_path")) {
          files.push_back(std::move(f));
        }
      }
    }
    for (const char* key : {"statistics", "partition-statistics"}) {
      if (const auto* stats = member(key)) {
        for (const auto& s : *stats) files.emplace_back(StringMember(s, "statistics-path"));
      }
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  std::vector<std::string> owned;
  size_t outside = 0;
  for (auto& f : files) {
    if (f.empty()) continue;
    if (!table_location.empty() && storage::LocationWithin(f, table_location)) {
      owned.push_back(std::move(f));
    } else {
      ++outside;
    }
  }
  DeleteQuietly(storage_, files_, owned);
  if (outside > 0) {
    spdlog::info("event=purge_kept files={} table_location=\"{}\" reason=outside_location", outside,
                 table_location);
  }
  const bool local = table_location.rfind('/', 0) == 0 || table_location.rfind("file:", 0) == 0;
  if (local) PruneEmptyDirectories(table_location);
}

// ---- views ----

Result<Page> IcebergCatalog::ListViews(const Namespace& ns, const std::string& page_token,
                                       int page_size) {
  return ListObjects(EntityType::kView, ns, page_token, page_size);
}

Result<LoadedObject> IcebergCatalog::CreateView(const CallContext& ctx, const Namespace& ns,
                                                const nlohmann::json& request) {
  if (metastore_) {
    return Unsupported("This catalog's metastore keeps tables only; views are not supported");
  }
  CAIRN_ASSIGN_OR_RETURN(CreateRequest target, PrepareCreate(ns, request, EntityType::kView));
  const std::string& name = target.name;
  const std::string& location = target.location;
  const iceberg::Json& ordered = target.request;
  CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata,
                         iceberg::NewViewMetadata(ordered, location, ctx.now_ms));
  return StoreNew(ctx, EntityType::kView, target.ns_row, ns, name, metadata);
}

Result<LoadedObject> IcebergCatalog::LoadView(const Namespace& ns, std::string_view name) {
  return Load(EntityType::kView, ns, name);
}

Result<EntityRecord> IcebergCatalog::ViewRow(const Namespace& ns, std::string_view name) {
  return ObjectRow(store_, EntityType::kView, ns, name);
}

Result<LoadedObject> IcebergCatalog::ReplaceView(const CallContext& ctx, const Namespace& ns,
                                                 std::string_view name,
                                                 const nlohmann::json& requirements_in,
                                                 const nlohmann::json& updates_in) {
  const iceberg::Json requirements = json::ToOrderedJson(requirements_in);
  const iceberg::Json updates = json::ToOrderedJson(updates_in);
  // A failed requirement is kConflict too: only a lost compare-and-set is tried again.
  bool lost_race = false;
  return store::RetryOnConflict(
      [&]() -> Result<LoadedObject> {
        lost_race = false;
        CAIRN_ASSIGN_OR_RETURN(EntityRecord row, ObjectRow(store_, EntityType::kView, ns, name));
        if (!row.location) return Internal("{} has no metadata location", ObjectText(ns, name));
        CAIRN_ASSIGN_OR_RETURN(std::string base_text, ReadText(storage_, files_, *row.location));
        auto base = json::ParseOrderedJsonOrDiscarded(base_text);
        if (base.is_discarded())
          return Internal("view metadata '{}' is not valid JSON", *row.location);
        CAIRN_RETURN_IF_ERROR(iceberg::CheckViewRequirements(&base, requirements));
        CAIRN_ASSIGN_OR_RETURN(iceberg::Json metadata,
                               iceberg::ApplyViewUpdates(base, updates, ctx.now_ms));
        CAIRN_RETURN_IF_ERROR(CheckLocations(ns, name, metadata, &base));
        const std::string metadata_location = NextLocation(metadata, *row.location);
        const std::string text = iceberg::ToJsonText(metadata);
        CAIRN_RETURN_IF_ERROR(WriteText(storage_, files_, metadata_location, text, *row.location));
        row.location = metadata_location;
        row.audit.last_modifier = ctx.principal;
        row.audit.last_modified_time = ctx.now_ms;
        auto updated = store_.CompareAndSet(row);
        if (updated) return LoadedObject{std::move(*updated), metadata_location, text};
        DeleteQuietly(storage_, files_, {metadata_location});
        lost_race = updated.error().code == ErrorCode::kConflict;
        if (lost_race) return std::move(updated).error();
        return MakeError(ErrorCode::kCommitStateUnknown, EntityKind::kView,
                         "Commit state unknown for {}: {}", ObjectText(ns, name),
                         updated.error().message);
      },
      [&] {
        return Unavailable("too many concurrent commits to {}; try again", ObjectText(ns, name));
      },
      [&](const Error&) { return lost_race; });
}

Result<LoadedObject> IcebergCatalog::RegisterView(const CallContext& ctx, const Namespace& ns,
                                                  std::string_view name,
                                                  const std::string& metadata_location) {
  CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(EntityKind::kView, name));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord ns_row, NamespaceRow(store_, ns));
  CAIRN_RETURN_IF_ERROR(CheckAllowed("metadata-location", metadata_location));
  auto text = ReadText(storage_, files_, metadata_location);
  if (!text)
    return InvalidArgument("Cannot read metadata file '{}': {}", metadata_location,
                           text.error().message);
  {
    auto parsed = json::ParseOrderedJsonOrDiscarded(*text);
    if (parsed.is_discarded() || !parsed.is_object())
      return InvalidArgument("Metadata file '{}' is not a view metadata document",
                             metadata_location);
    CAIRN_RETURN_IF_ERROR(CheckLocations(ns, name, parsed, nullptr));
  }
  CAIRN_RETURN_IF_ERROR(CheckNameFree(store_, ns_row, ns, name, EntityType::kView));
  return InsertObject(ctx, EntityType::kView, ns_row, ns, name, metadata_location, *text);
}

Status IcebergCatalog::RenameView(const CallContext& ctx, const Namespace& from_ns,
                                  std::string_view from, const Namespace& to_ns,
                                  std::string_view to) {
  return Rename(ctx, EntityType::kView, from_ns, from, to_ns, to);
}

Result<bool> IcebergCatalog::DropView(const Namespace& ns, std::string_view name) {
  auto row = ObjectRow(store_, EntityType::kView, ns, name);
  if (!row) {
    if (row.error().code == ErrorCode::kNotFound) return false;
    return std::move(row).error();
  }
  std::optional<iceberg::Json> metadata;
  if (row->location) {
    if (auto text = ReadText(storage_, files_, *row->location)) {
      auto parsed = json::ParseOrderedJsonOrDiscarded(*text);
      if (!parsed.is_discarded() && parsed.is_object()) metadata = std::move(parsed);
    }
  }
  CAIRN_ASSIGN_OR_RETURN(bool dropped, store_.Delete(row->id));
  if (dropped && row->location && metadata) DropViewFiles(*row->location, *metadata);
  return dropped;
}

void IcebergCatalog::DropViewFiles(const std::string& metadata_location,
                                   const iceberg::Json& metadata) {
  // A view is nothing but its metadata files, and each one holds the whole version history, so
  // a dropped view leaves nothing behind (as Iceberg's own catalogs do, `gc.enabled=false`
  // keeps them). Taken are the current file and the earlier versions beside it that carry this
  // view's uuid, and only within the view's own location: never a file another view (or
  // anything else) owns.
  if (PathProperty(metadata, "gc.enabled") == "false") return;
  const std::string view_location(StringMember(metadata, "location"));
  const std::string uuid(StringMember(metadata, "view-uuid"));
  if (view_location.empty() || !storage::LocationWithin(metadata_location, view_location)) return;
  std::vector<std::string> doomed = {metadata_location};
  const auto slash = metadata_location.rfind('/');
  auto io = storage::FileIOFor(metadata_location, storage_);
  if (!uuid.empty() && slash != std::string::npos && io) {
    const std::string dir = metadata_location.substr(0, slash);
    if (auto names = (*io)->List(dir)) {
      for (const auto& name : *names) {
        const std::string location = dir + "/" + name;
        if (location == metadata_location || !iceberg::ParseMetadataFileVersion(location)) continue;
        auto text = (*io)->Read(location);
        if (!text) continue;
        auto other = json::ParseOrderedJsonOrDiscarded(*text);
        if (!other.is_discarded() && StringMember(other, "view-uuid") == uuid)
          doomed.push_back(location);
      }
    }
  }
  DeleteQuietly(storage_, files_, doomed);
}

}  // namespace cairn::connector
