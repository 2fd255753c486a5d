// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/metrics.h"
#include "common/result.h"
#include "model/kinds.h"
#include "model/table.h"
#include "store/idempotency_store.h"
#include "store/lineage_store.h"

namespace cairn::store {

/// What kind of object a stored entity row is: one of the object kinds. The number written to
/// the `type` column is the kind's `store_type` (model/kinds.h), persisted: never reuse one.
using EntityType = model::ObjectKind;

/// What an error about an object of `type` is about.
inline EntityKind ToEntityKind(EntityType type) { return model::Describe(type).error_kind; }

/// One object Cairn owns or tracks: a metalake, a catalog, or an object inside a catalog.
/// Objects form a tree through `parent_id` (0 for metalakes); names are unique among the
/// children of one parent of one type.
struct EntityRecord {
  int64_t id = 0;  // assigned by the store on insert
  EntityType type = EntityType::kMetalake;
  int64_t parent_id = 0;
  std::string name;
  std::optional<std::string> comment;
  model::Properties properties;
  bool in_use = true;
  std::string payload;                  // type-specific JSON document, opaque to the store
  std::optional<std::string> location;  // e.g. the current Iceberg metadata file of a table
  model::Audit audit;
  int64_t version = 0;  // bumped by every update; the compare-and-set token
};

/// What a link between two entity rows means; the link runs from `from_id` to `to_id`. The
/// numeric values are persisted: never reuse one.
enum class LinkType : int {
  kTagObject = 1,             // a tag (from) attached to a metadata object (to)
  kPolicyObject = 2,          // a policy (from) attached to a metadata object (to)
  kLastType = kPolicyObject,  // keep last: rows with a larger type are rejected as corrupt
};

/// One typed many-to-many link between two entity rows. At most one link of a type joins an
/// ordered pair of rows. Links are immutable: replace one by unlinking and linking again.
struct LinkRecord {
  LinkType type = LinkType::kTagObject;
  int64_t from_id = 0;
  int64_t to_id = 0;
  std::string payload;  // optional JSON about this attachment, opaque to the store
  std::string creator;
  int64_t create_time = 0;  // epoch milliseconds
  bool operator==(const LinkRecord&) const = default;
};

/// What a store did so far, for the server's metrics.
struct StoreStats {
  int pool_size = 0;
  int pool_open = 0;    // connections idle or lent out
  int pool_in_use = 0;  // connections lent out
  uint64_t acquired = 0;
  uint64_t acquire_timeouts = 0;
  metrics::Histogram::Snapshot acquire_wait;  // seconds waited for a free connection
  metrics::Histogram::Snapshot call;          // seconds a connection served one call
  bool caches_paths = false;
  uint64_t path_cache_hits = 0;
  uint64_t path_cache_misses = 0;
  bool has_change_feed = false;      // a store shared by replicas that hears their changes
  bool change_feed_connected = false;
  uint64_t changes_announced = 0;    // changes heard from the feed (this replica's own too)
  uint64_t change_feed_resyncs = 0;  // reconnects after which every cached entry was dropped
};

/// The metadata store: everything Cairn owns, behind one interface in domain words.
///
/// Implementations: SQLite (embedded default), PostgreSQL and MySQL/MariaDB. All are safe to
/// call from many threads at once (each call takes a pooled connection). Uniqueness of names is
/// enforced by the database itself, so two racing creates of one name give exactly one success
/// and one kAlreadyExists. Errors: kNotFound, kAlreadyExists, kConflict (version moved), kUnavailable
/// (database busy or unreachable), kInternal (anything else). No SQL or driver type leaks out.
class MetadataStore {
 public:
  virtual ~MetadataStore() = default;

  /// Inserts a new row and returns it with `id` and `version` (= 1) assigned.
  /// kAlreadyExists when (type, parent_id, name) is taken.
  virtual Result<EntityRecord> Insert(const EntityRecord& record) = 0;

  /// Loads one row by its natural key. kNotFound when absent.
  virtual Result<EntityRecord> Get(EntityType type, int64_t parent_id, std::string_view name) = 0;

  /// Resolves a path of names in one round trip: the first (type, name) under `root_parent_id`,
  /// each next one under the row before it. Returns the rows of the longest prefix that exists,
  /// from the root down (empty when the first is missing).
  virtual Result<std::vector<EntityRecord>> GetPath(
      int64_t root_parent_id, const std::vector<std::pair<EntityType, std::string>>& path) = 0;

  /// GetPath's rows, shared and never modified: a store that caches paths hands out its cached
  /// answer without copying the rows (every request inside a catalog resolves two paths).
  using PathRows = std::shared_ptr<const std::vector<EntityRecord>>;
  virtual Result<PathRows> GetSharedPath(
      int64_t root_parent_id, const std::vector<std::pair<EntityType, std::string>>& path) {
    auto rows = GetPath(root_parent_id, path);
    if (!rows) return std::move(rows).error();
    return std::make_shared<const std::vector<EntityRecord>>(std::move(*rows));
  }

  /// Loads one row by id. kNotFound when absent.
  virtual Result<EntityRecord> GetById(int64_t id) = 0;

  /// Lists children of one parent of one type in name order, starting strictly after
  /// `after_name` (empty: from the start), at most `limit` rows (<= 0: all).
  virtual Result<std::vector<EntityRecord>> List(EntityType type, int64_t parent_id,
                                                 std::string_view after_name, int limit) = 0;

  /// Counts the direct children of `parent_id` (of any type).
  virtual Result<int64_t> CountChildren(int64_t parent_id) = 0;

  /// Replaces the mutable fields (parent_id, name, comment, properties, in_use, payload,
  /// location, audit) of row `record.id` if its version is still `record.version`, and returns
  /// the row with the new version. kConflict when the version moved (or the row vanished);
  /// kAlreadyExists when a rename collides.
  virtual Result<EntityRecord> CompareAndSet(const EntityRecord& record) = 0;

  /// Deletes a row and, recursively, all of its descendants, together with every link from or
  /// to any of them. Returns false when the row did not exist.
  virtual Result<bool> Delete(int64_t id) = 0;

  /// Links `record.from_id` to `record.to_id` with `record.type` and returns the stored link.
  /// kAlreadyExists when that (type, from, to) link exists; kNotFound when either row does not
  /// exist (checked by the database, so a link never outlives a row deleted concurrently);
  /// kInvalidArgument for a type outside LinkType. The store does not check what types of
  /// entity the ends are.
  virtual Result<LinkRecord> Link(const LinkRecord& record) = 0;

  /// Removes the (type, from_id, to_id) link. Returns false when there was none.
  virtual Result<bool> Unlink(LinkType type, int64_t from_id, int64_t to_id) = 0;

  /// Lists the links of `type` from `from_id` in ascending `to_id` order, starting strictly
  /// after `after_to_id` (0: from the start), at most `limit` links (<= 0: all). Empty when the
  /// row has none or does not exist.
  virtual Result<std::vector<LinkRecord>> ListLinksFrom(LinkType type, int64_t from_id,
                                                        int64_t after_to_id, int limit) = 0;

  /// Lists the links of `type` to `to_id` in ascending `from_id` order, starting strictly after
  /// `after_from_id` (0: from the start), at most `limit` links (<= 0: all).
  virtual Result<std::vector<LinkRecord>> ListLinksTo(LinkType type, int64_t to_id,
                                                      int64_t after_from_id, int limit) = 0;

  /// The rows the links of `type` from `from_id` lead to, in the links' order (ListLinksFrom's
  /// paging), read with the links in one query.
  virtual Result<std::vector<EntityRecord>> ListLinkedRows(LinkType type, int64_t from_id,
                                                           int64_t after_to_id, int limit) = 0;

  /// Runs `body` against a view of this store inside one database transaction: committed when
  /// `body` succeeds, rolled back otherwise. Calls on `tx` are serialized on one connection.
  virtual Status RunInTransaction(const std::function<Status(MetadataStore& tx)>& body) = 0;

  /// True when the database answers a trivial query (readiness probe).
  virtual bool Ping() = 0;

  /// The lineage events and graph kept in this store, or null when it keeps none. Owned by the
  /// store; not part of a RunInTransaction body (an event is folded in by a transaction of its
  /// own).
  virtual LineageStore* Lineage() { return nullptr; }

  /// The idempotency keys of mutating requests kept in this store (nullptr when it keeps none).
  /// Not part of a RunInTransaction body.
  virtual IdempotencyStore* Idempotency() { return nullptr; }

  /// The pool's and caches' figures so far (empty for a store without them).
  virtual StoreStats Stats() const { return {}; }

  /// Calls `listener` for every change of an entity row that any process sharing this store
  /// commits, with the row's kind, or with nullopt when changes may have been missed (the feed
  /// reconnected) and everything must be taken as changed. Only stores shared by replicas
  /// announce changes (PostgreSQL); elsewhere `listener` is never called. Runs on the store's
  /// feed thread: keep it short and non-blocking.
  virtual void SubscribeToChanges(std::function<void(std::optional<EntityType>)> listener) {
    (void)listener;
  }
};

struct StoreOptions {
  std::string type = "sqlite";  // sqlite | postgres | mysql
  std::string sqlite_path;      // file path, or ":memory:" for tests
  std::string postgres_url;     // libpq conninfo or postgresql:// URI
  std::string mysql_url;        // mysql://user:password@host:port/database[?socket=path]
  int pool_size = 4;
  int busy_timeout_ms = 5000;
  int acquire_timeout_ms = 10000;  // how long a call waits for a free pooled connection
  /// Answer repeated path lookups (GetPath) from memory. SQLite: invalidated by every write this
  /// store makes, so only for a database no other process writes (see LockSqliteStore).
  /// PostgreSQL: also invalidated by every change another replica commits, heard through the
  /// database's notifications; bypassed while that feed is not connected.
  bool cache_paths = false;
  /// PostgreSQL: how often the change feed's connection is checked when nothing arrives.
  int change_feed_heartbeat_ms = 1000;
};

/// Opens the configured store and runs pending schema migrations.
///
/// "sqlite": opens `sqlite_path` (creating the file and its parent directories); ":memory:"
/// uses a single connection so every call sees the same database. "postgres": connects to
/// `postgres_url`; migrations are serialized across replicas by an advisory lock. "mysql":
/// connects to `mysql_url` (an existing database); migrations take a named lock.
/// Errors: kInvalidArgument for an unknown `type` (naming `cairn.store.type`) or a missing
/// path/url; kUnavailable when the database cannot be reached; kInternal when migrating fails.
Result<std::unique_ptr<MetadataStore>> OpenStore(const StoreOptions& options);

/// Takes an exclusive lock (flock) on a SQLite database file, creating it and its parent
/// directories if needed, held until the returned handle is released. A server holds it for its
/// whole life, so a second server on the same file is refused at start-up (kUnavailable, naming
/// the file) instead of two processes writing behind each other's caches.
Result<std::shared_ptr<void>> LockSqliteStore(const std::string& path);

}  // namespace cairn::store
