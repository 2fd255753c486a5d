// SPDX-License-Identifier: Apache-2.0
#include "model/job.h"

namespace cairn::model {

std::string_view JobTypeName(JobTemplate::Type type) {
  return type == JobTemplate::Type::kSpark ? "spark" : "shell";
}

namespace {

constexpr std::pair<JobStatus, std::string_view> kStatusNames[] = {
    {JobStatus::kQueued, "queued"},         {JobStatus::kStarted, "started"},
    {JobStatus::kFailed, "failed"},         {JobStatus::kSucceeded, "succeeded"},
    {JobStatus::kCancelling, "cancelling"}, {JobStatus::kCancelled, "cancelled"},
};

}  // namespace

std::string_view JobStatusName(JobStatus status) {
  for (const auto& [s, name] : kStatusNames) {
    if (s == status) return name;
  }
  return "failed";
}

std::optional<JobStatus> ParseJobStatus(std::string_view name) {
  for (const auto& [s, n] : kStatusNames) {
    if (n == name) return s;
  }
  return std::nullopt;
}

bool IsFinished(JobStatus status) {
  return status == JobStatus::kSucceeded || status == JobStatus::kFailed ||
         status == JobStatus::kCancelled;
}

}  // namespace cairn::model
