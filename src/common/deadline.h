// SPDX-License-Identifier: Apache-2.0
// The deadline of the request a thread is handling, checked where work can run long.
#pragma once

#include <chrono>

#include "common/result.h"

namespace cairn {

/// Sets the deadline of the request this thread handles for the scope's lifetime (no deadline
/// when `budget` is zero or negative). Scopes do not nest: the inner one wins until it ends.
class DeadlineScope {
 public:
  explicit DeadlineScope(std::chrono::milliseconds budget);
  ~DeadlineScope();
  DeadlineScope(const DeadlineScope&) = delete;
  DeadlineScope& operator=(const DeadlineScope&) = delete;

 private:
  std::chrono::steady_clock::time_point saved_;
  std::chrono::milliseconds saved_budget_;
};

/// kUnavailable ("the request ran past its deadline of N ms") once the current request's
/// deadline has passed; Ok on a thread with none. Cheap: one clock read.
///
/// Called between the steps of work whose length depends on its input (applying a commit's
/// updates, rebasing an append, scanning a catalog, purging a table's files), never after a
/// write became visible: a request abandoned here has changed nothing, and answers 503.
Status CheckDeadline();

}  // namespace cairn
