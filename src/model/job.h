// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cstdint>

#include "model/table.h"

namespace cairn::model {

/// Gravitino's job templates (docs/maintenance.md): a program run by the local executor, as a
/// shell command or through spark-submit. `{{key}}` placeholders are filled from a run's
/// configuration.
struct JobTemplate {
  enum class Type { kShell, kSpark };
  Type type = Type::kShell;
  std::string name;
  std::optional<std::string> comment;
  std::string executable;
  std::vector<std::string> arguments;
  std::map<std::string, std::string> environments;
  std::map<std::string, std::string> custom_fields;
  // shell
  std::vector<std::string> scripts;
  // spark
  std::optional<std::string> class_name;
  std::vector<std::string> jars;
  std::vector<std::string> files;
  std::vector<std::string> archives;
  std::map<std::string, std::string> configs;
  Audit audit;
};

/// "shell" or "spark", as on the wire.
std::string_view JobTypeName(JobTemplate::Type type);

/// One change of a template (PUT .../jobs/templates/{name}). For kUpdateTemplate, an unset
/// member keeps the template's value, a set one replaces it whole.
struct JobTemplateChange {
  enum class Kind { kRename, kUpdateComment, kUpdateTemplate };
  Kind kind = Kind::kRename;
  std::string new_name;
  std::optional<std::string> new_comment;
  JobTemplate::Type template_type = JobTemplate::Type::kShell;
  std::optional<std::string> new_executable;
  std::optional<std::vector<std::string>> new_arguments;
  std::optional<std::map<std::string, std::string>> new_environments;
  std::optional<std::map<std::string, std::string>> new_custom_fields;
  std::optional<std::vector<std::string>> new_scripts;
  std::optional<std::string> new_class_name;
  std::optional<std::vector<std::string>> new_jars;
  std::optional<std::vector<std::string>> new_files;
  std::optional<std::vector<std::string>> new_archives;
  std::optional<std::map<std::string, std::string>> new_configs;
};

/// Where a job is: queued, started, then succeeded, failed or cancelled (through cancelling
/// when cancelled while started).
enum class JobStatus { kQueued, kStarted, kFailed, kSucceeded, kCancelling, kCancelled };

/// "queued", "started", ... as on the wire.
std::string_view JobStatusName(JobStatus status);
std::optional<JobStatus> ParseJobStatus(std::string_view name);
/// Succeeded, failed or cancelled.
bool IsFinished(JobStatus status);

/// A run of a template.
struct Job {
  std::string id;  // "job-<number>"
  std::string template_name;
  JobStatus status = JobStatus::kQueued;
  std::map<std::string, std::string> conf;
  int64_t started_ms = 0;   // 0 until started
  int64_t finished_ms = 0;  // 0 until finished
  std::string message;      // why it failed, when it did
  std::string result;       // a built-in job's report, JSON text; empty otherwise
  std::string staging_dir;  // the local executor's directory of the run, with output.log
  Audit audit;
};

}  // namespace cairn::model
