// SPDX-License-Identifier: Apache-2.0
#include "connector/jdbc/jdbc_session.h"

#include <algorithm>
#include <set>

namespace cairn::connector::jdbc {
namespace {

// The named pools alive in the process, for /metrics.
std::mutex g_pools_mu;
std::set<SessionPool*>& Pools() {
  static std::set<SessionPool*> pools;
  return pools;
}

}  // namespace

SessionPool::SessionPool(SessionFactory factory, Options options)
    : factory_(std::move(factory)), options_(std::move(options)) {
  if (options_.max_size < 1) options_.max_size = 1;
  if (options_.min_size > options_.max_size) options_.min_size = options_.max_size;
  if (!options_.name.empty()) {
    std::lock_guard lock(g_pools_mu);
    Pools().insert(this);
  }
}

SessionPool::~SessionPool() {
  std::lock_guard lock(g_pools_mu);
  Pools().erase(this);
}

std::vector<PoolStats> ReadPoolStats() {
  std::vector<PoolStats> out;
  std::lock_guard lock(g_pools_mu);
  for (SessionPool* pool : Pools()) {
    PoolStats s;
    s.name = pool->options_.name;
    s.max = pool->options_.max_size;
    {
      std::lock_guard pool_lock(pool->mu_);
      s.open = pool->open_;
      s.leased = pool->leased_;
    }
    s.acquired = pool->acquired_.value();
    s.timeouts = pool->timeouts_.value();
    s.connect_failures = pool->connect_failures_.value();
    s.wait = pool->wait_.Read();
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(),
            [](const PoolStats& a, const PoolStats& b) { return a.name < b.name; });
  return out;
}

SessionPool::Lease::~Lease() {
  if (session_ && pool_ != nullptr) pool_->Release(std::move(session_));
}

Result<SessionPool::Lease> SessionPool::Acquire() {
  const auto started = std::chrono::steady_clock::now();
  auto lease = AcquireUncounted();
  if (lease) {
    wait_.Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    acquired_.Inc();
    std::lock_guard lock(mu_);
    ++leased_;
  } else if (lease.error().code == ErrorCode::kUnavailable) {
    timeouts_.Inc();
  } else {
    connect_failures_.Inc();
  }
  return lease;
}

Result<SessionPool::Lease> SessionPool::AcquireUncounted() {
  const auto deadline = std::chrono::steady_clock::now() + options_.wait;
  std::unique_lock lock(mu_);
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (now < hold_until_) {
      return Unavailable(
          "{}; not tried again for {} ms", hold_reason_,
          std::chrono::duration_cast<std::chrono::milliseconds>(hold_until_ - now).count());
    }
    while (!idle_.empty()) {
      Idle idle = std::move(idle_.back());
      idle_.pop_back();
      const bool stale = std::chrono::steady_clock::now() - idle.since > options_.idle_check;
      if (!stale) return Lease(this, std::move(idle.session));
      // A connection that idled a while may have been closed by the server: check it without
      // holding the lock.
      lock.unlock();
      const bool alive = idle.session->Ping();
      if (alive) return Lease(this, std::move(idle.session));
      idle.session.reset();
      lock.lock();
      --open_;
      cv_.notify_one();
    }
    if (open_ < options_.max_size) {
      ++open_;
      lock.unlock();
      const auto started = std::chrono::steady_clock::now();
      auto session = factory_();
      if (!session) {
        lock.lock();
        --open_;
        if (std::chrono::steady_clock::now() - started >= options_.slow_connect) {
          hold_until_ = std::chrono::steady_clock::now() + options_.hold_off;
          hold_reason_ = "the source did not answer the last connection attempt in time";
        }
        cv_.notify_all();
        return std::move(session).error();
      }
      return Lease(this, std::move(*session));
    }
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
        open_ >= options_.max_size) {
      return Unavailable(
          "all {} connections to the source are busy; no connection became free within {} ms",
          options_.max_size, options_.wait.count());
    }
  }
}

void SessionPool::Release(std::unique_ptr<Session> session) {
  std::vector<std::unique_ptr<Session>> to_close;
  {
    std::lock_guard lock(mu_);
    --leased_;
    const auto now = std::chrono::steady_clock::now();
    if (session->Broken()) {
      if (session->TimedOut()) {
        hold_until_ = now + options_.hold_off;
        hold_reason_ = "the source did not answer a statement in time";
        // Idle connections to a hanging source would only hang their next callers too.
        for (auto& idle : idle_) to_close.push_back(std::move(idle.session));
        open_ -= static_cast<int>(idle_.size());
        idle_.clear();
      }
      to_close.push_back(std::move(session));
      --open_;
    } else if (now < hold_until_) {
      // Given back while the source hangs: it would only hang its next caller.
      to_close.push_back(std::move(session));
      --open_;
    } else {
      idle_.push_back(Idle{std::move(session), now});
    }
    // Close connections above the minimum that have idled too long (oldest first).
    while (static_cast<int>(idle_.size()) > options_.min_size &&
           now - idle_.front().since > options_.idle_close) {
      to_close.push_back(std::move(idle_.front().session));
      idle_.erase(idle_.begin());
      --open_;
    }
    cv_.notify_one();
  }
  // Closing a connection may block on the network: outside the lock.
  to_close.clear();
}

int SessionPool::open_count() {
  std::lock_guard lock(mu_);
  return open_;
}

int SessionPool::idle_count() {
  std::lock_guard lock(mu_);
  return static_cast<int>(idle_.size());
}

}  // namespace cairn::connector::jdbc
