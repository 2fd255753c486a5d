// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "model/job.h"
#include "service/caller.h"
#include "governance/audit.h"
#include "service/object_service.h"
#include "store/metadata_store.h"

namespace cairn::service {

/// How the server runs jobs (cairn.jobs.*).
struct JobOptions {
  /// Runs shell and Spark templates as child processes; off, only built-in templates run.
  bool local_executor = false;
  std::string staging_dir;  // where each run gets a directory (default <data dir>/jobs)
  int max_running = 2;      // jobs running at once
  std::string spark_home;   // spark-submit's home (default: $SPARK_HOME)
  int64_t cancel_grace_ms = 10000;  // SIGTERM, then SIGKILL after this long
  int64_t heartbeat_ms = 10000;     // how often a server marks the jobs it holds as alive
  /// A job whose server has not marked it for this long is failed (its server stopped).
  int64_t stale_after_ms = 60000;
  /// How often maintenance policies are read for tables due a run (0: never).
  int64_t schedule_interval_ms = 600000;
  /// Where each finished run is recorded (nullptr: nowhere), with its owner, template, table,
  /// outcome and job id.
  governance::AuditLog* audit = nullptr;
};

/// The built-in templates' names.
inline constexpr const char* kExpireSnapshotsTemplate = "builtin-iceberg-expire-snapshots";
inline constexpr const char* kRemoveOrphanFilesTemplate = "builtin-iceberg-remove-orphan-files";
inline constexpr const char* kCleanMetadataFilesTemplate = "builtin-iceberg-clean-metadata-files";

/// Gravitino's job system (docs/maintenance.md): the job templates of a metalake and their
/// runs. Templates and jobs are rows under their metalake; the built-in templates, which run
/// table maintenance inside the server, are in every metalake without rows. Runs are queued in
/// the server that accepted them and run by its workers, at most `max_running` at once and
/// never two built-in jobs on one table at once; their status is kept in their rows, so any
/// replica answers for them. Errors: kNotFound (kMetalake, kJobTemplate, kJob), kNotInUse
/// (kMetalake), kAlreadyExists (kJobTemplate), kInUse (a template with unfinished jobs),
/// kInvalidArgument (kJobTemplate for built-in names; else naming the field),
/// kPermissionDenied. Safe to call from many threads.
class JobService {
 public:
  JobService(ObjectService& objects, store::MetadataStore& store, JobOptions options);
  ~JobService();
  JobService(const JobService&) = delete;
  JobService& operator=(const JobService&) = delete;

  // ---- templates ----
  /// The templates the caller may use, built-in ones first, then by name.
  Result<std::vector<model::JobTemplate>> ListTemplates(const Caller& caller,
                                                        const std::string& metalake);
  Status RegisterTemplate(const Caller& caller, const std::string& metalake,
                          const model::JobTemplate& job_template);
  Result<model::JobTemplate> GetTemplate(const Caller& caller, const std::string& metalake,
                                         const std::string& name);
  Result<model::JobTemplate> AlterTemplate(const Caller& caller, const std::string& metalake,
                                           const std::string& name,
                                           const std::vector<model::JobTemplateChange>& changes);
  /// False when absent; kInUse while a job of it is unfinished. Its finished jobs go with it.
  Result<bool> DeleteTemplate(const Caller& caller, const std::string& metalake,
                              const std::string& name);

  // ---- jobs ----
  /// The jobs the caller may see (its own, or all for the metalake's owner), of one template
  /// when `template_name` is set, newest first.
  Result<std::vector<model::Job>> ListJobs(const Caller& caller, const std::string& metalake,
                                           const std::optional<std::string>& template_name);
  /// Queues a run; the caller owns it. A built-in template's configuration is checked now
  /// (the table named, the caller's right to modify it, the settings), so a bad one is 400.
  Result<model::Job> RunJob(const Caller& caller, const std::string& metalake,
                            const std::string& template_name,
                            const std::map<std::string, std::string>& conf);
  Result<model::Job> GetJob(const Caller& caller, const std::string& metalake,
                            const std::string& job_id);
  /// A queued job is cancelled at once, a started one is cancelling until it stopped; a
  /// finished one is answered as it is.
  Result<model::Job> CancelJob(const Caller& caller, const std::string& metalake,
                               const std::string& job_id);

  /// Queues a built-in run for `principal` without a caller's request (the maintenance
  /// scheduler), unless one of the same template for the same table is unfinished or another
  /// replica queued it in this `interval_ms` (nullopt then).
  Result<std::optional<model::Job>> EnqueueMaintenance(
      const governance::Principal& principal, const std::string& metalake,
      const std::string& template_name, const std::map<std::string, std::string>& conf,
      int64_t interval_ms);

  /// Queues the built-in runs the enabled maintenance policies make due (docs/maintenance.md):
  /// for each table below an attachment, each action whose last run is older than the policy's
  /// interval. Returns how many runs were queued. Called by the server every
  /// schedule_interval_ms.
  Result<int> ScheduleMaintenance();

  /// The built-in templates, as the API shows them.
  static std::vector<model::JobTemplate> BuiltInTemplates();

 private:
  struct Running;
  struct QueuedJob {
    int64_t row_id = 0;
    std::string metalake;
  };

  Result<Target> MetalakeTarget(const std::string& metalake);
  Target TemplateTarget(const Target& metalake, const store::EntityRecord* row,
                        const std::string& name) const;
  Result<store::EntityRecord> TemplateRow(const Target& metalake, const std::string& name);
  /// The stored row of a template the user registered; nullopt for a built-in name or none.
  Result<std::optional<store::EntityRecord>> StoredTemplate(const Target& metalake,
                                                            const std::string& name);
  Result<store::EntityRecord> JobRow(const Target& metalake, const std::string& job_id);
  Result<model::JobTemplate> TemplateOf(const Target& metalake, const std::string& name);
  /// The template's name for a job row (built-in names stay; a row follows its renames).
  std::string TemplateNameOf(const store::EntityRecord& job_row);
  /// Inserts a queued job row (`id`: a given job id; empty: a fresh one) and queues it here.
  Result<model::Job> Enqueue(const governance::Principal& principal, const Target& metalake,
                             const model::JobTemplate& job_template, int64_t template_row_id,
                             const std::map<std::string, std::string>& conf,
                             const std::string& id = "");
  /// Rewrites a job row's payload by compare-and-set; `edit` returns false to leave it.
  Result<store::EntityRecord> EditJob(int64_t row_id,
                                      const std::function<bool(model::Job&)>& edit);

  void Work();
  void Housekeep();
  void RunOne(const QueuedJob& queued);
  /// Runs a built-in job: its report, JSON text.
  Result<std::string> RunBuiltIn(const model::Job& job, const std::string& metalake,
                                 const std::vector<std::string>& groups, Running& running);
  /// Writes one of a table's statistics (a built-in job's result), replacing its value.
  Status PutStatistic(int64_t table_id, const std::string& name, const std::string& value,
                      const std::string& principal);
  /// Runs a shell or Spark job as a child process; Ok when it exited 0.
  Status RunProcess(const model::Job& job, int64_t row_id, const model::JobTemplate& job_template,
                    const std::string& metalake, Running& running);

  ObjectService& objects_;
  store::MetadataStore& store_;
  const JobOptions options_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<QueuedJob> queue_;                               // guarded by mu_
  std::map<int64_t, std::shared_ptr<Running>> held_;          // queued or running here; mu_
  std::set<std::string> busy_tables_;                         // guarded by mu_
  bool stopping_ = false;                                     // guarded by mu_
  std::vector<std::thread> workers_;
  std::thread housekeeper_;
};

}  // namespace cairn::service
