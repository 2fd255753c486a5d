// SPDX-License-Identifier: Apache-2.0
// Idempotency keys of mutating requests: the final answer to a request, kept for a while so a
// retry carrying the same key gets that answer instead of running again. Kept in the metadata
// store, so every replica sees every key.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"

namespace cairn::store {

/// The answer a finished request gave, as replayed.
struct StoredAnswer {
  int status = 0;
  std::string content_type;
  std::string headers;  // a JSON object of the response headers worth replaying
  std::string body;
};

/// What claiming a key found.
struct KeyClaim {
  enum class Outcome {
    kClaimed,   // the caller runs the request, then Finish or Release
    kFinished,  // an earlier request with this key and this fingerprint finished: `answer`
    kRunning,   // an earlier request with this key is still running (its lease holds)
    kMismatch,  // the key was used for a different request
  };
  Outcome outcome = Outcome::kClaimed;
  StoredAnswer answer;
};

/// Keys are scoped to a principal: one caller's key never answers another's request. Thread-safe.
class IdempotencyStore {
 public:
  virtual ~IdempotencyStore() = default;

  /// Claims `key` for a request with `fingerprint` (a digest of what the request asks). A new
  /// key, an expired one, or a running one whose lease ran out (its server died) is claimed:
  /// the claim holds until `lease_until`, and the key lives until `expires_at` (epoch ms).
  virtual Result<KeyClaim> Claim(const std::string& principal, const std::string& key,
                                 const std::string& fingerprint, int64_t now_ms,
                                 int64_t lease_until, int64_t expires_at) = 0;

  /// Records the final answer of a claimed key; it is replayed until `expires_at`.
  virtual Status Finish(const std::string& principal, const std::string& key,
                        const StoredAnswer& answer, int64_t expires_at) = 0;

  /// Forgets a claimed key whose request did not finish (a 5xx): a retry runs it again.
  virtual Status Release(const std::string& principal, const std::string& key) = 0;

  /// Deletes keys that expired before `now_ms`; returns how many.
  virtual Result<int64_t> Purge(int64_t now_ms) = 0;
};

}  // namespace cairn::store
