// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

namespace cairn::store::postgres {

/// Listens on one PostgreSQL notification channel from a connection of its own, on a thread of
/// its own, and tells its owner what arrives and whether it is still listening.
///
/// `on_notify(payload)` runs for every notification, in order. `on_state(true)` runs once the
/// channel is listened to (at start and after every reconnect), `on_state(false)` as soon as
/// the connection is found lost; notifications sent while it was down are never delivered, so
/// an owner treats a `true` after a `false` as "anything may have changed". The connection is
/// checked with a round trip every `heartbeat` while nothing arrives (and by TCP keepalives and
/// a user timeout), so a connection that died silently is noticed within about two heartbeats.
/// A lost connection is retried with a backoff up to `heartbeat`.
///
/// Both callbacks run on the listener's thread and must not block for long. The destructor stops
/// the thread and waits for it.
class PgListener {
 public:
  PgListener(std::string url, std::string channel, std::function<void(std::string_view)> on_notify,
             std::function<void(bool)> on_state,
             std::chrono::milliseconds heartbeat = std::chrono::milliseconds(1000));
  ~PgListener();
  PgListener(const PgListener&) = delete;
  PgListener& operator=(const PgListener&) = delete;

  bool listening() const { return listening_.load(std::memory_order_acquire); }

 private:
  void Run();

  const std::string url_;
  const std::string channel_;
  const std::function<void(std::string_view)> on_notify_;
  const std::function<void(bool)> on_state_;
  const std::chrono::milliseconds heartbeat_;
  int wake_[2] = {-1, -1};  // a pipe: the destructor writes to it to end a wait at once
  std::atomic<bool> stop_{false};
  std::atomic<bool> listening_{false};
  std::thread thread_;
};

}  // namespace cairn::store::postgres
