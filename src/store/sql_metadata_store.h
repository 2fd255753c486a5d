// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/connection_pool.h"
#include "store/metadata_store.h"
#include "store/sql_connection.h"
#include "store/sql_idempotency_store.h"
#include "store/sql_lineage_store.h"

namespace cairn::store {

/// The one MetadataStore implementation, written against SqlConnection so SQLite and
/// PostgreSQL run the same SQL and logic. Every call borrows a pooled connection (thread-safe);
/// RunInTransaction keeps one connection for the whole body.
///
/// Construct through OpenStore, or directly with a pool whose connections are already migrated.
///
/// With `cache_paths`, GetPath answers repeated lookups from memory. Every write through this
/// store (Insert, CompareAndSet, Delete, a transaction) moves a generation counter once it has
/// committed, and an entry is used only while the generation it was read at is still current, so
/// a lookup never sees a state older than the last write this process finished. On its own that
/// is right only for a database no other process writes (the embedded SQLite store). A store
/// shared by replicas (PostgreSQL) also caches when a change feed is attached (AttachChangeFeed):
/// every change another process commits moves the generation as it is announced
/// (AnnounceChange), and while the feed is not connected (SetFeedConnected(false)) the cache is
/// bypassed, so a lookup is never older than the feed's delivery delay.
class SqlMetadataStore final : public MetadataStore {
 public:
  explicit SqlMetadataStore(std::unique_ptr<ConnectionPool> pool, bool cache_paths = false);

  Result<EntityRecord> Insert(const EntityRecord& record) override;
  Result<EntityRecord> Get(EntityType type, int64_t parent_id, std::string_view name) override;
  Result<EntityRecord> GetById(int64_t id) override;
  Result<std::vector<EntityRecord>> GetPath(
      int64_t root_parent_id, const std::vector<std::pair<EntityType, std::string>>& path) override;
  Result<PathRows> GetSharedPath(
      int64_t root_parent_id, const std::vector<std::pair<EntityType, std::string>>& path) override;
  Result<std::vector<EntityRecord>> List(EntityType type, int64_t parent_id,
                                         std::string_view after_name, int limit) override;
  Result<int64_t> CountChildren(int64_t parent_id) override;
  Result<EntityRecord> CompareAndSet(const EntityRecord& record) override;
  Result<bool> Delete(int64_t id) override;
  Result<LinkRecord> Link(const LinkRecord& record) override;
  Result<bool> Unlink(LinkType type, int64_t from_id, int64_t to_id) override;
  Result<std::vector<LinkRecord>> ListLinksFrom(LinkType type, int64_t from_id, int64_t after_to_id,
                                                int limit) override;
  Result<std::vector<LinkRecord>> ListLinksTo(LinkType type, int64_t to_id, int64_t after_from_id,
                                              int limit) override;
  Result<std::vector<EntityRecord>> ListLinkedRows(LinkType type, int64_t from_id,
                                                   int64_t after_to_id, int limit) override;
  /// The body must use `tx`, not this store: with a pool of one (":memory:") a call on the
  /// outer store would wait for the connection the transaction holds, then fail kUnavailable.
  Status RunInTransaction(const std::function<Status(MetadataStore& tx)>& body) override;
  bool Ping() override;
  LineageStore* Lineage() override { return &lineage_; }
  IdempotencyStore* Idempotency() override { return &idempotency_; }
  StoreStats Stats() const override;
  void SubscribeToChanges(std::function<void(std::optional<EntityType>)> listener) override;

  /// Starts the feed that delivers other processes' changes (`start` returns it; it may call
  /// AnnounceChange and SetFeedConnected from then on) and keeps it as long as the store; it is
  /// destroyed first. Until SetFeedConnected(true) the path cache is bypassed.
  void AttachChangeFeed(const std::function<std::shared_ptr<void>()>& start);
  /// A change of a row of `type` (nullopt: unknown) committed by any process.
  void AnnounceChange(std::optional<EntityType> type);
  /// The feed connected (true: changes from now on are announced; anything before may have been
  /// missed, so every cached entry is dropped and subscribers hear nullopt) or lost (false).
  void SetFeedConnected(bool connected);

 private:
  /// Moves the generation when a write scope ends (after its commit or rollback).
  class WriteScope {
   public:
    explicit WriteScope(SqlMetadataStore& store) : store_(store) {}
    WriteScope(const WriteScope&) = delete;
    WriteScope& operator=(const WriteScope&) = delete;
    ~WriteScope() { store_.generation_.fetch_add(1, std::memory_order_acq_rel); }

   private:
    SqlMetadataStore& store_;
  };
  struct CachedPath {
    uint64_t generation = 0;
    PathRows rows;
  };
  static constexpr size_t kMaxCachedPaths = 4096;

  std::unique_ptr<ConnectionPool> pool_;
  SqlLineageStore lineage_;
  SqlIdempotencyStore idempotency_;
  const bool cache_paths_;
  const uint64_t id_;  // this store among all in the process (the per-thread memo's key)
  std::atomic<uint64_t> generation_{0};
  std::atomic<uint64_t> path_hits_{0};
  std::atomic<uint64_t> path_misses_{0};
  std::mutex cache_mu_;
  std::unordered_map<std::string, CachedPath> paths_;  // guarded by cache_mu_
  // False while a change feed is attached but not connected: lookups then bypass the cache.
  std::atomic<bool> coherent_{true};
  std::atomic<bool> has_feed_{false};
  std::atomic<uint64_t> announced_{0};
  std::atomic<uint64_t> resyncs_{0};
  std::mutex subscribers_mu_;
  std::vector<std::function<void(std::optional<EntityType>)>> subscribers_;  // subscribers_mu_
  std::shared_ptr<void> feed_;  // last: stopped before anything it calls into goes away
};

}  // namespace cairn::store
