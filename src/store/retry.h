// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <type_traits>
#include <utility>

#include "common/error.h"
#include "common/result.h"

namespace cairn::store {

/// How many times a read-modify-write over MetadataStore::CompareAndSet is tried before it gives
/// up with kUnavailable.
///
/// An attempt loses only when another writer's compare-and-set landed on the same row between
/// its read and its write, so every lost round is some other writer's success: a caller gives up
/// only after 32 other updates of that one row landed during its own call. That is every worker
/// of a default server on an 8-core machine (max(8, 4 x cores) = 32) each winning once ahead of
/// it, more than a single hot row sees in practice; commits to one Iceberg table from one process
/// are queued instead of racing (group commit), so for them a lost round means another process.
/// An attempt is one row read and one conditional write (plus a metadata file for a table
/// commit), so 32 of them stay well inside a request's deadline.
inline constexpr int kMaxConflictAttempts = 32;

/// True for the error of a compare-and-set that lost the race: the row's version moved.
inline bool IsConflict(const Error& error) { return error.code == ErrorCode::kConflict; }

/// The error a caller gets when every attempt lost: kUnavailable (retrying the same call later
/// can succeed), with the message clients have always seen.
inline Error TooManyConcurrentUpdates() {
  return Unavailable("too many concurrent updates; try again");
}

namespace internal {
template <typename R>
struct IsResult : std::false_type {};
template <typename T>
struct IsResult<Result<T>> : std::true_type {};
}  // namespace internal

/// Runs `attempt` (read the row, apply the change, compare-and-set) until it does not lose the
/// race: again while it fails with an error `retry` accepts (by default kConflict, what
/// CompareAndSet answers when the version moved), at most `max_attempts` times in all. Returns
/// the first success or the first other error unchanged; when the last attempt lost too, the
/// error `exhausted()` makes. Attempts follow each other without a pause: every lost round is
/// another writer's success, and a jittered backoff (50 us doubling to 2 ms) was measured no
/// faster with 8 or 32 writers on one row, nor in tests/iceberg/test_concurrency.py or the
/// Gravitino concurrent-update test, so there is none.
///
/// `attempt` returns a Result<T> and must re-read what it changes each time: nothing it
/// computed from an earlier read holds once that read lost.
template <typename Attempt, typename Exhausted, typename Retry = bool (*)(const Error&)>
auto RetryOnConflict(Attempt&& attempt, Exhausted&& exhausted, Retry&& retry = IsConflict,
                     int max_attempts = kMaxConflictAttempts) -> decltype(attempt()) {
  using R = decltype(attempt());
  static_assert(internal::IsResult<R>::value, "an attempt returns a Result");
  static_assert(std::is_convertible_v<decltype(exhausted()), Error>,
                "exhausted() makes the Error of the last lost attempt");
  for (int i = 0; i < max_attempts; ++i) {
    R result = attempt();
    if (result.has_value() || !retry(result.error())) return result;
  }
  return R(exhausted());
}

/// The same, giving up with TooManyConcurrentUpdates().
template <typename Attempt>
auto RetryOnConflict(Attempt&& attempt) -> decltype(attempt()) {
  return RetryOnConflict(std::forward<Attempt>(attempt), TooManyConcurrentUpdates);
}

}  // namespace cairn::store
