// SPDX-License-Identifier: Apache-2.0
// Idempotency keys of the Iceberg REST protocol: a mutation sent again with the same
// `Idempotency-Key` is answered with the first attempt's final answer instead of running again
// (docs/iceberg-rest.md#idempotency-keys).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "message/message.h"
#include "store/idempotency_store.h"

namespace cairn::api::iceberg {

struct IdempotencyOptions {
  /// How long a client may retry with one key, advertised in GET /v1/config as
  /// `idempotency-key-lifetime`. Zero: keys are not honoured, and not advertised.
  std::chrono::seconds lifetime{std::chrono::minutes(30)};
  /// Kept this much longer than advertised, for clock skew and slow retries.
  std::chrono::seconds grace{std::chrono::minutes(5)};
  /// How long a running request holds its key: a server that dies while holding it frees it
  /// after this. At least the request deadline.
  std::chrono::milliseconds lease{std::chrono::seconds(90)};
  /// How long a retry waits for the first attempt still running before a 503 (retryable).
  std::chrono::milliseconds wait{std::chrono::seconds(5)};
};

/// Runs mutations at most once per (principal, key). Thread-safe.
class IdempotentRequests {
 public:
  /// `store` nullptr (a store without the table): keys are not honoured.
  IdempotentRequests(store::IdempotencyStore* store, IdempotencyOptions options);

  bool enabled() const { return store_ != nullptr && options_.lifetime.count() > 0; }
  /// The lifetime as an ISO-8601 duration ("PT30M").
  std::string AdvertisedLifetime() const;

  /// `run` once for `key` of `principal` and the final answer for every retry with that key
  /// and the same request; 422 for the key used with a different request, 400 for a key that
  /// is not a UUID, 503 while the first attempt still runs elsewhere. 5xx answers and answers
  /// that depend on the moment (401, 403, 408, 419, 429) are not kept: a retry runs again.
  ///
  /// An answer that carried vended storage keys is not kept with them: its replay is `load` of
  /// the table it named (a fresh load, with keys vended to the caller as now allowed), which
  /// the spec permits ("the response body may reflect a newer state of the catalog").
  http::Response Run(const http::Request& request, const std::string& principal,
                     const std::string& key, const std::function<http::Response()>& run,
                     const std::function<http::Response(const std::string& path)>& load);

 private:
  void MaybePurge(int64_t now_ms);

  store::IdempotencyStore* store_;
  IdempotencyOptions options_;
  std::atomic<int64_t> next_purge_ms_{0};
};

/// True for the methods and routes the spec gives an Idempotency-Key: every POST and DELETE of
/// the catalog except metrics reports and the token endpoint.
bool TakesIdempotencyKey(const http::Request& request);

}  // namespace cairn::api::iceberg
