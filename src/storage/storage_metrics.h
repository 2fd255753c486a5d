// SPDX-License-Identifier: Apache-2.0
// What the server's object storage calls cost: per method, the latency of each call (its retries
// included), its outcome and its retries. Process-wide, read by /metrics.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "common/metrics.h"

namespace cairn::storage {

class StorageMetrics {
 public:
  static constexpr std::array<std::string_view, 6> kMethods = {"GET",    "PUT",  "HEAD",
                                                               "DELETE", "POST", "OTHER"};
  struct MethodStats {
    std::string_view method;
    metrics::Histogram::Snapshot latency;
    uint64_t ok = 0;
    uint64_t failed = 0;
    uint64_t retries = 0;
  };

  StorageMetrics();
  /// One call: `failed` when it ended without an answer from storage (unreachable, 5xx after
  /// every attempt), however many `attempts` it took.
  void Observe(std::string_view method, double seconds, bool failed, int attempts);
  std::array<MethodStats, kMethods.size()> Read() const;

 private:
  struct Slot {
    Slot() : latency(metrics::LatencyBuckets()) {}
    metrics::Histogram latency;
    metrics::Counter ok;
    metrics::Counter failed;
    metrics::Counter retries;
  };
  std::array<Slot, kMethods.size()> slots_;
};

/// The S3 client's figures, for every catalog and fileset of the process.
StorageMetrics& S3Metrics();

}  // namespace cairn::storage
