// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "common/metrics.h"
#include "common/result.h"
#include "store/sql_connection.h"

namespace cairn::store {

/// A bounded pool of SqlConnections.
///
/// At most `size` connections exist at once; they are opened lazily through `factory` (or handed
/// in up front with AddIdle) and reused. A connection that reports IsBroken() is dropped and
/// replaced by a fresh one on a later Acquire, so a PostgreSQL restart heals by itself.
/// Thread-safe. The pool must outlive every Lease it hands out.
class ConnectionPool {
 public:
  using Factory = std::function<Result<std::unique_ptr<SqlConnection>>()>;

  ConnectionPool(Factory factory, int size, std::chrono::milliseconds acquire_timeout);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;
  ConnectionPool(ConnectionPool&&) = delete;
  ConnectionPool& operator=(ConnectionPool&&) = delete;
  ~ConnectionPool() = default;

  /// Exclusive use of one connection until destroyed (then it goes back to the pool).
  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<SqlConnection> conn)
        : pool_(pool), conn_(std::move(conn)), since_(std::chrono::steady_clock::now()) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (conn_) pool_->Release(std::move(conn_), since_);
    }
    SqlConnection& operator*() const { return *conn_; }
    SqlConnection* operator->() const { return conn_.get(); }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<SqlConnection> conn_;
    std::chrono::steady_clock::time_point since_;
  };

  /// Adds an already open connection (counts against `size`; ignored when the pool is full).
  void AddIdle(std::unique_ptr<SqlConnection> conn);

  /// Waits up to the acquire timeout for a free connection. kUnavailable on timeout or when a
  /// new connection cannot be opened (the factory's error).
  Result<Lease> Acquire();

  struct Stats {
    int size = 0;
    int open = 0;    // idle or lent out
    int in_use = 0;  // lent out
    uint64_t acquired = 0;
    uint64_t timeouts = 0;              // acquisitions that gave up waiting
    metrics::Histogram::Snapshot wait;  // seconds an acquisition waited for a connection
    metrics::Histogram::Snapshot hold;  // seconds a connection was lent out (one store call)
  };
  Stats GetStats() const;

 private:
  void Release(std::unique_ptr<SqlConnection> conn, std::chrono::steady_clock::time_point since);

  const Factory factory_;
  const int size_;
  const std::chrono::milliseconds acquire_timeout_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<SqlConnection>> idle_;  // guarded by mu_
  int open_ = 0;  // connections idle or lent out, guarded by mu_
  std::atomic<uint64_t> acquired_{0};
  std::atomic<uint64_t> timeouts_{0};
  metrics::Histogram wait_{metrics::LatencyBuckets()};
  metrics::Histogram hold_{metrics::LatencyBuckets()};
};

}  // namespace cairn::store
