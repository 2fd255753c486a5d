// SPDX-License-Identifier: Apache-2.0
#include "store/connection_pool.h"

#include <algorithm>
#include <utility>

#include "common/trace.h"

namespace cairn::store {

ConnectionPool::ConnectionPool(Factory factory, int size, std::chrono::milliseconds acquire_timeout)
    : factory_(std::move(factory)), size_(std::max(1, size)), acquire_timeout_(acquire_timeout) {}

void ConnectionPool::AddIdle(std::unique_ptr<SqlConnection> conn) {
  {
    std::lock_guard lock(mu_);
    if (open_ >= size_) return;
    ++open_;
    idle_.push_back(std::move(conn));
  }
  cv_.notify_one();
}

Result<ConnectionPool::Lease> ConnectionPool::Acquire() {
  std::unique_ptr<SqlConnection> conn;
  {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock lock(mu_);
    const bool ready =
        cv_.wait_for(lock, acquire_timeout_, [&] { return !idle_.empty() || open_ < size_; });
    wait_.Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!ready) {
      timeouts_.fetch_add(1, std::memory_order_relaxed);
      return Unavailable("no metadata store connection free after {} ms (pool size {})",
                         acquire_timeout_.count(), size_);
    }
    if (!idle_.empty()) {
      conn = std::move(idle_.back());
      idle_.pop_back();
    }
    if (!conn) ++open_;  // reserve a slot for the connection opened below
  }
  if (conn && conn->IsBroken()) {
    conn.reset();  // keep its slot: it is replaced right away
  }
  if (!conn) {
    // Open outside the lock: connecting to a remote server can take a while.
    Result<std::unique_ptr<SqlConnection>> opened = factory_();
    if (!opened) {
      {
        std::lock_guard lock(mu_);
        --open_;
      }
      cv_.notify_one();
      return std::move(opened).error();
    }
    conn = std::move(opened).value();
  }
  acquired_.fetch_add(1, std::memory_order_relaxed);
  return Lease(this, std::move(conn));
}

ConnectionPool::Stats ConnectionPool::GetStats() const {
  Stats s;
  {
    std::lock_guard lock(mu_);
    s.size = size_;
    s.open = open_;
    s.in_use = open_ - static_cast<int>(idle_.size());
  }
  s.acquired = acquired_.load(std::memory_order_relaxed);
  s.timeouts = timeouts_.load(std::memory_order_relaxed);
  s.wait = wait_.Read();
  s.hold = hold_.Read();
  return s;
}

void ConnectionPool::Release(std::unique_ptr<SqlConnection> conn,
                             std::chrono::steady_clock::time_point since) {
  const auto held = std::chrono::steady_clock::now() - since;
  hold_.Observe(std::chrono::duration<double>(held).count());
  if (trace::Enabled()) {
    const int64_t end = trace::NowNanos();
    trace::Record("store.call", trace::Kind::kClient,
                  end - std::chrono::duration_cast<std::chrono::nanoseconds>(held).count(), end,
                  {{"db.system", std::string(conn->dialect() == Dialect::kSqlite     ? "sqlite"
                                             : conn->dialect() == Dialect::kPostgres ? "postgresql"
                                                                                     : "mysql")}});
  }
  const bool broken = conn->IsBroken();
  {
    std::lock_guard lock(mu_);
    if (broken) {
      --open_;
    } else {
      idle_.push_back(std::move(conn));
    }
  }
  if (broken) conn.reset();  // close outside the lock
  cv_.notify_one();
}

}  // namespace cairn::store
