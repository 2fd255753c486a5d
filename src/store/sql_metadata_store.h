// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>

#include "store/connection_pool.h"
#include "store/metadata_store.h"
#include "store/sql_connection.h"

namespace cairn::store {

/// The one MetadataStore implementation, written against SqlConnection so SQLite and
/// PostgreSQL run the same SQL and logic. Every call borrows a pooled connection (thread-safe);
/// RunInTransaction keeps one connection for the whole body.
///
/// Construct through OpenStore, or directly with a pool whose connections are already migrated.
class SqlMetadataStore final : public MetadataStore {
 public:
  explicit SqlMetadataStore(std::unique_ptr<ConnectionPool> pool);

  Result<EntityRecord> Insert(const EntityRecord& record) override;
  Result<EntityRecord> Get(EntityType type, int64_t parent_id, std::string_view name) override;
  Result<EntityRecord> GetById(int64_t id) override;
  Result<std::vector<EntityRecord>> GetPath(
      int64_t root_parent_id, const std::vector<std::pair<EntityType, std::string>>& path) override;
  Result<std::vector<EntityRecord>> List(EntityType type, int64_t parent_id,
                                         std::string_view after_name, int limit) override;
  Result<int64_t> CountChildren(int64_t parent_id) override;
  Result<EntityRecord> CompareAndSet(const EntityRecord& record) override;
  Result<bool> Delete(int64_t id) override;
  /// The body must use `tx`, not this store: with a pool of one (":memory:") a call on the
  /// outer store would wait for the connection the transaction holds, then fail kUnavailable.
  Status RunInTransaction(const std::function<Status(MetadataStore& tx)>& body) override;
  bool Ping() override;

 private:
  std::unique_ptr<ConnectionPool> pool_;
};

}  // namespace cairn::store
