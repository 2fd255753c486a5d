// SPDX-License-Identifier: Apache-2.0
#include "storage/storage_metrics.h"

#include <algorithm>

namespace cairn::storage {

StorageMetrics::StorageMetrics() = default;

void StorageMetrics::Observe(std::string_view method, double seconds, bool failed, int attempts) {
  const auto* it = std::find(kMethods.begin(), kMethods.end(), method);
  Slot& slot = slots_[static_cast<size_t>(it == kMethods.end() ? kMethods.size() - 1
                                                                : it - kMethods.begin())];
  slot.latency.Observe(seconds);
  (failed ? slot.failed : slot.ok).Inc();
  if (attempts > 1) slot.retries.Inc(static_cast<uint64_t>(attempts - 1));
}

std::array<StorageMetrics::MethodStats, StorageMetrics::kMethods.size()> StorageMetrics::Read()
    const {
  std::array<MethodStats, kMethods.size()> out;
  for (size_t i = 0; i < kMethods.size(); ++i) {
    out[i].method = kMethods[i];
    out[i].latency = slots_[i].latency.Read();
    out[i].ok = slots_[i].ok.value();
    out[i].failed = slots_[i].failed.value();
    out[i].retries = slots_[i].retries.value();
  }
  return out;
}

StorageMetrics& S3Metrics() {
  static StorageMetrics metrics;
  return metrics;
}

}  // namespace cairn::storage
