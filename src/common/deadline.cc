// SPDX-License-Identifier: Apache-2.0
#include "common/deadline.h"

namespace cairn {

namespace {

using Clock = std::chrono::steady_clock;

thread_local Clock::time_point t_deadline = Clock::time_point::max();
thread_local std::chrono::milliseconds t_budget{0};

}  // namespace

DeadlineScope::DeadlineScope(std::chrono::milliseconds budget)
    : saved_(t_deadline), saved_budget_(t_budget) {
  t_budget = budget;
  t_deadline = budget.count() > 0 ? Clock::now() + budget : Clock::time_point::max();
}

DeadlineScope::~DeadlineScope() {
  t_deadline = saved_;
  t_budget = saved_budget_;
}

Status CheckDeadline() {
  if (t_deadline == Clock::time_point::max() || Clock::now() < t_deadline) return Ok();
  return Unavailable("The request ran past its deadline of {} ms and was abandoned",
                     t_budget.count());
}

}  // namespace cairn
