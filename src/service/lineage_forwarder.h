// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/result.h"

namespace cairn::connector {
class HttpClient;
}

namespace cairn::service {

/// Where accepted lineage events are sent on to (docs/lineage.md, "Forwarding"): another
/// OpenLineage receiver such as Marquez or a second Cairn, as Gravitino's http sink does.
struct LineageForwardOptions {
  std::string url;                          // the receiver's base URL; empty: no forwarding
  std::string endpoint = "api/v1/lineage";  // OpenLineage's default path under it
  std::string api_key;                      // sent as `Authorization: Bearer ...` when set
  long timeout_ms = 5000;                   // per attempt
  size_t queue_capacity = 10000;            // events waiting to be sent
  int attempts = 3;                         // per event, with a growing pause between them
};

/// Checks the options (an http or https URL; a positive timeout and capacity). kInvalidArgument
/// naming the setting otherwise.
Status ValidateForwardOptions(const LineageForwardOptions& options);

/// Sends events, in the order they were offered, one at a time, on its own thread. Forwarding
/// never slows or refuses ingest: an event offered while the queue is full is not forwarded
/// (it is still stored), and one the receiver keeps refusing (no answer, or a 408, 429 or 5xx
/// after every attempt; any other 4xx at once) is dropped; both are counted and logged. Safe to
/// call from many threads; the destructor waits for the event in flight, not for the queue.
class LineageForwarder {
 public:
  explicit LineageForwarder(LineageForwardOptions options);
  ~LineageForwarder();
  LineageForwarder(const LineageForwarder&) = delete;
  LineageForwarder& operator=(const LineageForwarder&) = delete;

  /// Queues one event's JSON text; false when the queue was full (it is then not forwarded).
  bool Offer(std::string body);

  struct Counters {
    uint64_t sent = 0;     // answered 2xx
    uint64_t failed = 0;   // given up on
    uint64_t skipped = 0;  // offered while the queue was full
  };
  Counters counters() const;
  /// Waits until every event offered before the call is sent or given up on (tests).
  void Flush();

 private:
  void Run();
  bool Send(const std::string& body);

  const LineageForwardOptions options_;
  const std::string target_;  // url + endpoint
  std::unique_ptr<connector::HttpClient> http_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<std::string> queue_;  // guarded by mu_
  uint64_t offered_ = 0;           // guarded by mu_
  uint64_t done_ = 0;              // guarded by mu_
  Counters counters_;              // guarded by mu_
  bool stop_ = false;              // guarded by mu_
  std::thread sender_;
};

}  // namespace cairn::service
