// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "store/connection_pool.h"
#include "store/idempotency_store.h"

namespace cairn::store {

/// The IdempotencyStore over the metadata store's connection pool: the same SQL on SQLite and
/// PostgreSQL (migration 4's table). The pool must outlive it.
class SqlIdempotencyStore final : public IdempotencyStore {
 public:
  explicit SqlIdempotencyStore(ConnectionPool& pool) : pool_(pool) {}

  Result<KeyClaim> Claim(const std::string& principal, const std::string& key,
                         const std::string& fingerprint, int64_t now_ms, int64_t lease_until,
                         int64_t expires_at) override;
  Status Finish(const std::string& principal, const std::string& key, const StoredAnswer& answer,
                int64_t expires_at) override;
  Status Release(const std::string& principal, const std::string& key) override;
  Result<int64_t> Purge(int64_t now_ms) override;

 private:
  ConnectionPool& pool_;
};

}  // namespace cairn::store
