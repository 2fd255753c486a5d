// SPDX-License-Identifier: Apache-2.0
#include "service/job_service.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <functional>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <regex>
#include <utility>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/util.h"
#include "connector/iceberg/iceberg_catalog.h"
#include "governance/access_control.h"
#include "service/object_lookup.h"
#include "service/policy_service.h"

extern char** environ;

namespace cairn::service {

using Json = nlohmann::json;
using model::Job;
using model::JobStatus;
using model::JobTemplate;
using store::EntityRecord;
using store::EntityType;

/// A job this server holds: queued in its queue or running on one of its workers.
struct JobService::Running {
  std::atomic<bool> cancel{false};
  std::atomic<pid_t> pid{0};  // the process group of a running shell or Spark job
};

namespace {

constexpr std::string_view kBuiltInPrefix = "builtin-";
constexpr std::string_view kBuiltInScheme = "builtin://iceberg/";

bool IsBuiltInName(std::string_view name) { return name.starts_with(kBuiltInPrefix); }

template <typename T>
Status StatusOf(const Result<T>& r) {
  if (r) return Ok();
  return r.error();
}

// ---- rows ---------------------------------------------------------------------------------

Json StringMap(const std::map<std::string, std::string>& m) {
  Json out = Json::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

std::map<std::string, std::string> MapOf(const Json& j, const char* key) {
  std::map<std::string, std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

std::vector<std::string> ListOf(const Json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string TemplatePayload(const JobTemplate& t) {
  Json j = {{"jobType", model::JobTypeName(t.type)},
            {"executable", t.executable},
            {"arguments", t.arguments},
            {"environments", StringMap(t.environments)},
            {"customFields", StringMap(t.custom_fields)}};
  if (t.type == JobTemplate::Type::kShell) {
    j["scripts"] = t.scripts;
  } else {
    if (t.class_name) j["className"] = *t.class_name;
    j["jars"] = t.jars;
    j["files"] = t.files;
    j["archives"] = t.archives;
    j["configs"] = StringMap(t.configs);
  }
  return j.dump();
}

Result<JobTemplate> TemplateFromRow(const EntityRecord& row) {
  Json j = Json::parse(row.payload, nullptr, false);
  if (!j.is_object()) return Internal("job template {} has a corrupt payload", row.name);
  JobTemplate t;
  t.type = j.value("jobType", "shell") == "spark" ? JobTemplate::Type::kSpark
                                                  : JobTemplate::Type::kShell;
  t.name = row.name;
  t.comment = row.comment;
  t.executable = j.value("executable", "");
  t.arguments = ListOf(j, "arguments");
  t.environments = MapOf(j, "environments");
  t.custom_fields = MapOf(j, "customFields");
  t.scripts = ListOf(j, "scripts");
  if (j.contains("className") && j["className"].is_string()) {
    t.class_name = j["className"].get<std::string>();
  }
  t.jars = ListOf(j, "jars");
  t.files = ListOf(j, "files");
  t.archives = ListOf(j, "archives");
  t.configs = MapOf(j, "configs");
  t.audit = row.audit;
  return t;
}

std::string JobPayload(const Job& job, int64_t template_id, const std::vector<std::string>& groups,
                       int64_t heartbeat_ms) {
  Json j = {{"template", job.template_name},
            {"templateId", template_id},
            {"status", model::JobStatusName(job.status)},
            {"conf", StringMap(job.conf)},
            {"groups", groups},
            {"heartbeat", heartbeat_ms}};
  if (job.started_ms > 0) j["startedAt"] = job.started_ms;
  if (job.finished_ms > 0) j["finishedAt"] = job.finished_ms;
  if (!job.message.empty()) j["message"] = job.message;
  if (!job.result.empty()) j["result"] = job.result;
  if (!job.staging_dir.empty()) j["stagingDir"] = job.staging_dir;
  return j.dump();
}

struct JobRowData {
  Job job;
  int64_t template_id = 0;
  std::vector<std::string> groups;
  int64_t heartbeat_ms = 0;
};

JobRowData JobFromRow(const EntityRecord& row) {
  JobRowData d;
  Json j = Json::parse(row.payload, nullptr, false);
  if (!j.is_object()) j = Json::object();
  d.job.id = row.name;
  d.job.template_name = j.value("template", "");
  d.template_id = j.value("templateId", int64_t{0});
  d.job.status = model::ParseJobStatus(j.value("status", "failed")).value_or(JobStatus::kFailed);
  d.job.conf = MapOf(j, "conf");
  d.groups = ListOf(j, "groups");
  d.heartbeat_ms = j.value("heartbeat", int64_t{0});
  d.job.started_ms = j.value("startedAt", int64_t{0});
  d.job.finished_ms = j.value("finishedAt", int64_t{0});
  d.job.message = j.value("message", "");
  d.job.result = j.value("result", "");
  d.job.staging_dir = j.value("stagingDir", "");
  d.job.audit = row.audit;
  return d;
}

// ---- placeholders ---------------------------------------------------------------------------

// `{{key}}` tokens (key of word characters, '.' and '-') replaced by jobConf's values; a key
// jobConf lacks stays as written.
std::string Fill(const std::string& text, const std::map<std::string, std::string>& conf) {
  static const std::regex kToken(R"(\{\{([\w.-]+)\}\})");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), kToken);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out.append(text, last, static_cast<size_t>(m.position(0)) - last);
    auto value = conf.find(m[1].str());
    out += value != conf.end() ? value->second : m[0].str();
    last = static_cast<size_t>(m.position(0) + m.length(0));
  }
  out.append(text, last, std::string::npos);
  return out;
}

JobTemplate Filled(JobTemplate t, const std::map<std::string, std::string>& conf) {
  auto list = [&](std::vector<std::string>& v) {
    for (auto& s : v) s = Fill(s, conf);
  };
  auto map = [&](std::map<std::string, std::string>& m) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : m) out[Fill(k, conf)] = Fill(v, conf);
    m = std::move(out);
  };
  t.executable = Fill(t.executable, conf);
  list(t.arguments);
  map(t.environments);
  map(t.custom_fields);
  list(t.scripts);
  if (t.class_name) t.class_name = Fill(*t.class_name, conf);
  list(t.jars);
  list(t.files);
  list(t.archives);
  map(t.configs);
  return t;
}

// ---- built-in templates ---------------------------------------------------------------------

JobTemplate BuiltIn(const char* name, const char* action, const char* comment,
                    std::vector<std::string> extra) {
  JobTemplate t;
  t.type = JobTemplate::Type::kShell;
  t.name = name;
  t.comment = comment;
  t.executable = std::string(kBuiltInScheme) + action;
  t.arguments = {"--catalog", "{{catalog}}", "--schema", "{{schema}}", "--table", "{{table}}"};
  for (auto& e : extra) t.arguments.push_back(std::move(e));
  t.custom_fields = {{"version", "v1"}};
  t.audit.creator = "system";
  return t;
}

// What a built-in job is asked: the table and the settings, read from jobConf.
struct MaintenanceRequest {
  std::string catalog;
  connector::Namespace ns;
  std::string table;
  std::optional<int64_t> older_than_ms;
  std::optional<int> retain_last;
  std::vector<int64_t> snapshot_ids;
  bool dry_run = false;
  bool delete_files = true;
};

constexpr int64_t DAY_MS = 24LL * 60 * 60 * 1000;
constexpr int64_t kDefaultOrphanWindowMs = 3LL * 24 * 60 * 60 * 1000;
constexpr int64_t kMinOrphanWindowMs = 60LL * 60 * 1000;

Result<bool> BoolConf(const std::map<std::string, std::string>& conf, const char* key,
                      bool fallback) {
  auto it = conf.find(key);
  if (it == conf.end() || it->second.empty()) return fallback;
  if (EqualsIgnoreCase(it->second, "true")) return true;
  if (EqualsIgnoreCase(it->second, "false")) return false;
  return InvalidArgument("jobConf '{}' must be true or false, not '{}'", key, it->second);
}

Result<int64_t> LongConf(const std::string& key, const std::string& text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end) {
    return InvalidArgument("jobConf '{}' must be an integer, not '{}'", key, text);
  }
  return v;
}

// `older_than`: epoch milliseconds, or an ISO-8601 duration (P3D, PT1H) before `now_ms`.
Result<std::optional<int64_t>> TimeConf(const std::map<std::string, std::string>& conf,
                                        const char* key, int64_t now_ms) {
  auto it = conf.find(key);
  if (it == conf.end() || it->second.empty()) return std::optional<int64_t>();
  if (!it->second.empty() && (it->second[0] == 'P' || it->second[0] == 'p')) {
    auto seconds = ParseIsoDuration(it->second);
    if (!seconds) {
      return InvalidArgument("jobConf '{}' is not an ISO-8601 duration: '{}'", key, it->second);
    }
    return std::optional<int64_t>(now_ms - *seconds * 1000);
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t ms, LongConf(key, it->second));
  return std::optional<int64_t>(ms);
}

Result<MaintenanceRequest> MaintenanceRequestOf(const std::string& template_name,
                                                const std::map<std::string, std::string>& conf,
                                                int64_t now_ms) {
  MaintenanceRequest r;
  auto required = [&](const char* key) -> Result<std::string> {
    auto it = conf.find(key);
    if (it == conf.end() || Trim(it->second).empty()) {
      return InvalidArgument("jobConf '{}' is required by {}", key, template_name);
    }
    return it->second;
  };
  CAIRN_ASSIGN_OR_RETURN(r.catalog, required("catalog"));
  CAIRN_ASSIGN_OR_RETURN(std::string schema, required("schema"));
  r.ns = Split(schema, '.');
  CAIRN_ASSIGN_OR_RETURN(r.table, required("table"));
  CAIRN_ASSIGN_OR_RETURN(r.older_than_ms, TimeConf(conf, "older_than", now_ms));
  CAIRN_ASSIGN_OR_RETURN(r.dry_run, BoolConf(conf, "dry_run", false));
  if (template_name == kExpireSnapshotsTemplate) {
    CAIRN_ASSIGN_OR_RETURN(r.delete_files, BoolConf(conf, "delete_files", true));
    if (auto it = conf.find("retain_last"); it != conf.end() && !it->second.empty()) {
      CAIRN_ASSIGN_OR_RETURN(int64_t n, LongConf("retain_last", it->second));
      if (n < 1 || n > INT32_MAX) {
        return InvalidArgument("jobConf 'retain_last' must be at least 1, not {}", n);
      }
      r.retain_last = static_cast<int>(n);
    }
    if (auto it = conf.find("snapshot_ids"); it != conf.end() && !it->second.empty()) {
      for (const auto& part : Split(it->second, ',')) {
        CAIRN_ASSIGN_OR_RETURN(int64_t id, LongConf("snapshot_ids", std::string(Trim(part))));
        r.snapshot_ids.push_back(id);
      }
    }
  } else if (template_name == kRemoveOrphanFilesTemplate) {
    if (!r.older_than_ms) r.older_than_ms = now_ms - kDefaultOrphanWindowMs;
    CAIRN_ASSIGN_OR_RETURN(bool short_window, BoolConf(conf, "allow_short_window", false));
    if (!short_window && *r.older_than_ms > now_ms - kMinOrphanWindowMs) {
      return InvalidArgument(
          "jobConf 'older_than' must leave at least an hour for writers in flight "
          "(set allow_short_window=true to override)");
    }
  }
  return r;
}

Json ReportJson(const connector::MaintenanceReport& r) {
  Json j = {{"action", r.action},
            {"dryRun", r.dry_run},
            {"dataFiles", r.data_files},
            {"manifests", r.manifests},
            {"manifestLists", r.manifest_lists},
            {"metadataFiles", r.metadata_files},
            {"statisticsFiles", r.statistics_files},
            {"otherFiles", r.other_files},
            {"files", r.files()},
            {"bytes", r.bytes},
            {"keptOutside", r.kept_outside},
            {"metadataLocation", r.metadata_location}};
  if (r.action == "expire-snapshots") {
    j["expiredSnapshots"] = r.expired_snapshots;
    j["removedRefs"] = r.removed_refs;
  }
  if (r.action == "remove-orphan-files") j["scannedFiles"] = r.scanned_files;
  if (!r.note.empty()) j["note"] = r.note;
  j["deleted"] = r.deleted;
  return j;
}

std::string TableKey(const std::string& metalake, const std::map<std::string, std::string>& conf) {
  auto get = [&](const char* k) {
    auto it = conf.find(k);
    return it == conf.end() ? std::string() : it->second;
  };
  return metalake + "\x1f" + get("catalog") + "\x1f" + get("schema") + "\x1f" + get("table");
}

std::string NewJobId() {
  static std::mt19937_64 rng{std::random_device{}()};
  static std::mutex mu;
  std::lock_guard lock(mu);
  // Time first, so ids sort by when they were made.
  return fmt::format("job-{}", NowMillis() * 1000 + static_cast<int64_t>(rng() % 1000));
}

// The id of a scheduled run: the same on every replica for one table, template and interval,
// so two replicas scheduling the same work at once insert one row (the store's unique name is the
// lease) and the second learns it is taken. Ids still sort by time.
std::string ScheduledJobId(const std::string& table_key, const std::string& template_name,
                           int64_t interval_ms) {
  const int64_t now = NowMillis();
  const int64_t slot = now - now % std::max<int64_t>(interval_ms, 1);
  uint64_t h = 1469598103934665603ULL;  // FNV-1a, stable across builds and replicas
  for (unsigned char c : table_key + "\n" + template_name) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("job-{}-m{:016x}", slot * 1000, h);
}

}  // namespace

std::vector<JobTemplate> JobService::BuiltInTemplates() {
  return {
      BuiltIn(kExpireSnapshotsTemplate, "expire-snapshots",
              "Built-in Iceberg snapshot expiry: removes old snapshots and the files only they "
              "reference",
              {"--older-than", "{{older_than}}", "--retain-last", "{{retain_last}}",
               "--snapshot-ids", "{{snapshot_ids}}", "--dry-run", "{{dry_run}}"}),
      BuiltIn(kRemoveOrphanFilesTemplate, "remove-orphan-files",
              "Built-in Iceberg orphan file removal: deletes unreferenced files under the "
              "table's location older than a safety window",
              {"--older-than", "{{older_than}}", "--dry-run", "{{dry_run}}"}),
      BuiltIn(kCleanMetadataFilesTemplate, "clean-metadata-files",
              "Built-in Iceberg metadata file cleanup per "
              "write.metadata.delete-after-commit.enabled",
              {"--dry-run", "{{dry_run}}"}),
  };
}

JobService::JobService(ObjectService& objects, store::MetadataStore& store, JobOptions options)
    : objects_(objects), store_(store), options_(std::move(options)) {
  const int n = std::max(1, options_.max_running);
  for (int i = 0; i < n; ++i) workers_.emplace_back([this] { Work(); });
  housekeeper_ = std::thread([this] { Housekeep(); });
}

JobService::~JobService() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (auto& [id, running] : held_) {
      running->cancel = true;
      if (pid_t pid = running->pid.load(); pid > 0) kill(-pid, SIGTERM);
    }
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
  housekeeper_.join();
}

// ---- templates ------------------------------------------------------------------------------

Result<Target> JobService::MetalakeTarget(const std::string& metalake) {
  return InUseMetalake(objects_.authorizer(), metalake);
}

Target JobService::TemplateTarget(const Target& metalake, const EntityRecord* row,
                                  const std::string& name) const {
  Target t;
  t.metalake = metalake.metalake;
  t.object = name;
  t.object_type = EntityType::kJobTemplate;
  if (row != nullptr) t.object_row = *row;
  return t;
}

Result<std::optional<EntityRecord>> JobService::StoredTemplate(const Target& metalake,
                                                               const std::string& name) {
  if (IsBuiltInName(name)) return std::optional<EntityRecord>();
  auto found = TemplateRow(metalake, name);
  if (!found && found.error().code != ErrorCode::kNotFound) return std::move(found).error();
  if (!found) return std::optional<EntityRecord>();
  return std::optional<EntityRecord>(std::move(*found));
}

Result<EntityRecord> JobService::TemplateRow(const Target& metalake, const std::string& name) {
  auto row = store_.Get(EntityType::kJobTemplate, metalake.metalake.id, name);
  if (!row && row.error().code == ErrorCode::kNotFound) {
    return NotFound(EntityKind::kJobTemplate,
                    "Job template with name {} under metalake {} does not exist", name,
                    metalake.metalake.name);
  }
  return row;
}

Result<JobTemplate> JobService::TemplateOf(const Target& metalake, const std::string& name) {
  if (IsBuiltInName(name)) {
    for (auto& t : BuiltInTemplates()) {
      if (t.name == name) return t;
    }
    return NotFound(EntityKind::kJobTemplate,
                    "Job template with name {} under metalake {} does not exist", name,
                    metalake.metalake.name);
  }
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, TemplateRow(metalake, name));
  return TemplateFromRow(row);
}

Result<std::vector<JobTemplate>> JobService::ListTemplates(const Caller& caller,
                                                           const std::string& metalake) {
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  std::vector<JobTemplate> out;
  auto& authz = objects_.authorizer();
  for (auto& t : BuiltInTemplates()) {
    CAIRN_ASSIGN_OR_RETURN(bool ok, authz.Allowed(caller.principal, Action::kLoadJobTemplate,
                                                  TemplateTarget(m, nullptr, t.name)));
    if (ok) out.push_back(std::move(t));
  }
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kJobTemplate, m.metalake.id, "", 0));
  for (const auto& row : rows) {
    CAIRN_ASSIGN_OR_RETURN(bool ok, authz.Allowed(caller.principal, Action::kLoadJobTemplate,
                                                  TemplateTarget(m, &row, row.name)));
    if (!ok) continue;
    CAIRN_ASSIGN_OR_RETURN(JobTemplate t, TemplateFromRow(row));
    out.push_back(std::move(t));
  }
  return out;
}

Status JobService::RegisterTemplate(const Caller& caller, const std::string& metalake,
                                    const JobTemplate& t) {
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  CAIRN_RETURN_IF_ERROR(objects_.authorizer().Check(caller.principal, Action::kRegisterJobTemplate,
                                                    TemplateTarget(m, nullptr, t.name)));
  if (IsBuiltInName(t.name)) {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kJobTemplate,
                     "Job template name '{}' is reserved for built-in templates. User-created job "
                     "templates cannot have names starting with 'builtin-'",
                     t.name);
  }
  CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(EntityKind::kJobTemplate, t.name));
  EntityRecord row;
  row.type = EntityType::kJobTemplate;
  row.parent_id = m.metalake.id;
  row.name = t.name;
  row.comment = t.comment;
  row.payload = TemplatePayload(t);
  row.audit.creator = caller.principal.user;
  row.audit.create_time = caller.ctx.now_ms;
  auto inserted = store_.Insert(row);
  if (!inserted && inserted.error().code == ErrorCode::kAlreadyExists) {
    return AlreadyExists(EntityKind::kJobTemplate,
                         "Job template with name {} under metalake {} already exists", t.name,
                         metalake);
  }
  return StatusOf(inserted);
}

Result<JobTemplate> JobService::GetTemplate(const Caller& caller, const std::string& metalake,
                                            const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  CAIRN_ASSIGN_OR_RETURN(std::optional<EntityRecord> row, StoredTemplate(m, name));
  CAIRN_RETURN_IF_ERROR(objects_.authorizer().Check(caller.principal, Action::kLoadJobTemplate,
                                                    TemplateTarget(m, row ? &*row : nullptr, name)));
  if (row) return TemplateFromRow(*row);
  return TemplateOf(m, name);
}

Result<JobTemplate> JobService::AlterTemplate(const Caller& caller, const std::string& metalake,
                                              const std::string& name,
                                              const std::vector<model::JobTemplateChange>& changes) {
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  auto found = IsBuiltInName(name) ? Result<EntityRecord>(NotFound(EntityKind::kJobTemplate, ""))
                                   : TemplateRow(m, name);
  if (!found && found.error().code != ErrorCode::kNotFound) return std::move(found).error();
  CAIRN_RETURN_IF_ERROR(objects_.authorizer().Check(
      caller.principal, Action::kManageJobTemplate, TemplateTarget(m, found ? &*found : nullptr, name)));
  if (IsBuiltInName(name)) {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kJobTemplate,
                     "Cannot alter built-in job template '{}'. Built-in job templates are managed "
                     "by the system and cannot be modified or deleted by users",
                     name);
  }
  if (!found) return std::move(found).error();
  for (int attempt = 0;; ++attempt) {
    EntityRecord row = *found;
    CAIRN_ASSIGN_OR_RETURN(JobTemplate t, TemplateFromRow(row));
    for (const auto& c : changes) {
      switch (c.kind) {
        case model::JobTemplateChange::Kind::kRename:
          if (IsBuiltInName(c.new_name)) {
            return MakeError(ErrorCode::kInvalidArgument, EntityKind::kJobTemplate,
                             "Job template name '{}' is reserved for built-in templates. "
                             "User-created job templates cannot have names starting with "
                             "'builtin-'",
                             c.new_name);
          }
          CAIRN_RETURN_IF_ERROR(model::ValidateSegmentName(EntityKind::kJobTemplate, c.new_name));
          t.name = c.new_name;
          break;
        case model::JobTemplateChange::Kind::kUpdateComment:
          t.comment = c.new_comment;
          break;
        case model::JobTemplateChange::Kind::kUpdateTemplate:
          if (c.template_type != t.type) {
            return InvalidArgument("Job template {} is not a {} job template, cannot update to {} "
                                   "template",
                                   name, model::JobTypeName(c.template_type),
                                   model::JobTypeName(c.template_type));
          }
          if (c.new_executable) t.executable = *c.new_executable;
          if (c.new_arguments) t.arguments = *c.new_arguments;
          if (c.new_environments) t.environments = *c.new_environments;
          if (c.new_custom_fields) t.custom_fields = *c.new_custom_fields;
          if (c.new_scripts) t.scripts = *c.new_scripts;
          if (c.new_class_name) t.class_name = *c.new_class_name;
          if (c.new_jars) t.jars = *c.new_jars;
          if (c.new_files) t.files = *c.new_files;
          if (c.new_archives) t.archives = *c.new_archives;
          if (c.new_configs) t.configs = *c.new_configs;
          break;
      }
    }
    row.name = t.name;
    row.comment = t.comment;
    row.payload = TemplatePayload(t);
    row.audit.last_modifier = caller.principal.user;
    row.audit.last_modified_time = caller.ctx.now_ms;
    auto updated = store_.CompareAndSet(row);
    if (updated) return TemplateFromRow(*updated);
    if (updated.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kJobTemplate,
                           "Job template with name {} under metalake {} already exists", t.name,
                           metalake);
    }
    if (updated.error().code != ErrorCode::kConflict || attempt >= 5) {
      return std::move(updated).error();
    }
    found = TemplateRow(m, name);
    if (!found) return std::move(found).error();
  }
}

Result<bool> JobService::DeleteTemplate(const Caller& caller, const std::string& metalake,
                                        const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  CAIRN_ASSIGN_OR_RETURN(std::optional<EntityRecord> row, StoredTemplate(m, name));
  CAIRN_RETURN_IF_ERROR(objects_.authorizer().Check(caller.principal, Action::kManageJobTemplate,
                                                    TemplateTarget(m, row ? &*row : nullptr, name)));
  if (IsBuiltInName(name)) {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kJobTemplate,
                     "Cannot delete built-in job template '{}'. Built-in job templates are "
                     "managed by the system and cannot be modified or deleted by users",
                     name);
  }
  if (!row) return false;
  CAIRN_ASSIGN_OR_RETURN(auto jobs, store_.List(EntityType::kJob, m.metalake.id, "", 0));
  std::vector<int64_t> finished;
  for (const auto& j : jobs) {
    const JobRowData d = JobFromRow(j);
    if (d.template_id != row->id) continue;
    if (!model::IsFinished(d.job.status)) {
      return MakeError(ErrorCode::kInUse, EntityKind::kJobTemplate,
                       "Job template {} under metalake {} has active jobs associated with it",
                       name, metalake);
    }
    finished.push_back(j.id);
  }
  CAIRN_ASSIGN_OR_RETURN(bool dropped, store_.Delete(row->id));
  for (int64_t id : finished) (void)store_.Delete(id);
  if (!options_.staging_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(options_.staging_dir) / metalake / name, ec);
  }
  return dropped;
}

// ---- jobs -----------------------------------------------------------------------------------

Result<EntityRecord> JobService::JobRow(const Target& metalake, const std::string& job_id) {
  auto row = store_.Get(EntityType::kJob, metalake.metalake.id, job_id);
  if (!row && row.error().code == ErrorCode::kNotFound) {
    return NotFound(EntityKind::kJob, "Job with ID {} under metalake {} does not exist", job_id,
                    metalake.metalake.name);
  }
  return row;
}

std::string JobService::TemplateNameOf(const EntityRecord& job_row) {
  const JobRowData d = JobFromRow(job_row);
  if (d.template_id == 0) return d.job.template_name;
  auto t = store_.GetById(d.template_id);
  return t ? t->name : d.job.template_name;
}

Result<std::vector<Job>> JobService::ListJobs(const Caller& caller, const std::string& metalake,
                                              const std::optional<std::string>& template_name) {
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  std::optional<int64_t> template_id;
  if (template_name) {
    if (IsBuiltInName(*template_name)) {
      CAIRN_RETURN_IF_ERROR(StatusOf(TemplateOf(m, *template_name)));
      template_id = 0;
    } else {
      CAIRN_ASSIGN_OR_RETURN(EntityRecord t, TemplateRow(m, *template_name));
      template_id = t.id;
    }
  }
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kJob, m.metalake.id, "", 0));
  std::map<int64_t, std::string> names;  // template row id -> current name
  std::vector<Job> out;
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
    JobRowData d = JobFromRow(*it);
    if (template_id && (d.template_id != *template_id ||
                        (*template_id == 0 && d.job.template_name != *template_name))) {
      continue;
    }
    Target t;
    t.metalake = m.metalake;
    t.object = it->name;
    t.object_type = EntityType::kJob;
    t.object_row = *it;
    CAIRN_ASSIGN_OR_RETURN(bool ok,
                           objects_.authorizer().Allowed(caller.principal, Action::kLoadJob, t));
    if (!ok) continue;
    if (d.template_id != 0) {
      auto n = names.find(d.template_id);
      if (n == names.end()) n = names.emplace(d.template_id, TemplateNameOf(*it)).first;
      d.job.template_name = n->second;
    }
    out.push_back(std::move(d.job));
  }
  return out;
}

Result<Job> JobService::GetJob(const Caller& caller, const std::string& metalake,
                               const std::string& job_id) {
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  auto row = JobRow(m, job_id);
  if (!row && row.error().code != ErrorCode::kNotFound) return std::move(row).error();
  Target t;
  t.metalake = m.metalake;
  t.object = job_id;
  t.object_type = EntityType::kJob;
  if (row) t.object_row = *row;
  CAIRN_RETURN_IF_ERROR(objects_.authorizer().Check(caller.principal, Action::kLoadJob, t));
  if (!row) return std::move(row).error();
  Job job = JobFromRow(*row).job;
  job.template_name = TemplateNameOf(*row);
  return job;
}

Result<Job> JobService::RunJob(const Caller& caller, const std::string& metalake,
                               const std::string& template_name,
                               const std::map<std::string, std::string>& conf) {
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  CAIRN_ASSIGN_OR_RETURN(std::optional<EntityRecord> row, StoredTemplate(m, template_name));
  CAIRN_RETURN_IF_ERROR(
      objects_.authorizer().Check(caller.principal, Action::kRunJob,
                                  TemplateTarget(m, row ? &*row : nullptr, template_name)));
  CAIRN_ASSIGN_OR_RETURN(JobTemplate t,
                         row ? TemplateFromRow(*row) : TemplateOf(m, template_name));
  if (IsBuiltInName(template_name)) {
    CAIRN_ASSIGN_OR_RETURN(MaintenanceRequest r,
                           MaintenanceRequestOf(template_name, conf, caller.ctx.now_ms));
    // The table exists, is a managed Iceberg table, and the caller may modify it: refused now,
    // not as a failed job later.
    ObjectRef ref{metalake, r.catalog, r.ns, r.table, ObjectType::kTable};
    CAIRN_ASSIGN_OR_RETURN(auto connector,
                           objects_.OpenCatalog(caller, Action::kModifyTable, ref));
    auto* iceberg = connector->Find<connector::IcebergCatalog>();
    if (iceberg == nullptr) {
      return InvalidArgument("Catalog {} is not a managed Iceberg catalog: {} runs only there",
                             r.catalog, template_name);
    }
    CAIRN_RETURN_IF_ERROR(StatusOf(iceberg->TableRow(r.ns, r.table)));
  } else if (!options_.local_executor) {
    return InvalidArgument(
        "Job template {} runs a {} program, and the local job executor is off "
        "(cairn.jobs.local-executor.enabled)",
        template_name, model::JobTypeName(t.type));
  }
  return Enqueue(caller.principal, m, t, row ? row->id : 0, conf);
}

Result<std::optional<Job>> JobService::EnqueueMaintenance(
    const governance::Principal& principal, const std::string& metalake,
    const std::string& template_name, const std::map<std::string, std::string>& conf,
    int64_t interval_ms) {
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  CAIRN_ASSIGN_OR_RETURN(JobTemplate t, TemplateOf(m, template_name));
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kJob, m.metalake.id, "", 0));
  const std::string key = TableKey(metalake, conf);
  for (const auto& row : rows) {
    const JobRowData d = JobFromRow(row);
    if (!model::IsFinished(d.job.status) && d.job.template_name == template_name &&
        TableKey(metalake, d.job.conf) == key) {
      return std::optional<Job>();
    }
  }
  auto job = Enqueue(principal, m, t, 0, conf, ScheduledJobId(key, template_name, interval_ms));
  if (!job && job.error().code == ErrorCode::kAlreadyExists) return std::optional<Job>();
  if (!job) return std::move(job).error();
  return std::optional<Job>(std::move(*job));
}

Result<Job> JobService::Enqueue(const governance::Principal& principal, const Target& metalake,
                                const JobTemplate& job_template, int64_t template_row_id,
                                const std::map<std::string, std::string>& conf,
                                const std::string& id) {
  Job job;
  job.id = id.empty() ? NewJobId() : id;
  job.template_name = job_template.name;
  job.status = JobStatus::kQueued;
  job.conf = conf;
  EntityRecord row;
  row.type = EntityType::kJob;
  row.parent_id = metalake.metalake.id;
  row.name = job.id;
  row.audit.creator = principal.user;
  row.audit.create_time = NowMillis();
  row.payload = JobPayload(job, template_row_id, principal.groups, NowMillis());
  CAIRN_ASSIGN_OR_RETURN(EntityRecord inserted, store_.Insert(row));
  {
    std::lock_guard lock(mu_);
    if (stopping_) return Unavailable("the server is stopping");
    held_[inserted.id] = std::make_shared<Running>();
    queue_.push_back(QueuedJob{inserted.id, metalake.metalake.name});
  }
  cv_.notify_all();  // one cv for the queue, busy tables and the housekeeper: wake all
  spdlog::info("event=job_queued metalake={} job={} template={} owner={}", metalake.metalake.name,
               job.id, job.template_name, principal.user);
  job.audit = inserted.audit;
  return job;
}

Result<EntityRecord> JobService::EditJob(int64_t row_id,
                                         const std::function<bool(Job&)>& edit) {
  for (int attempt = 0;; ++attempt) {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord row, store_.GetById(row_id));
    JobRowData d = JobFromRow(row);
    if (!edit(d.job)) return row;
    row.payload = JobPayload(d.job, d.template_id, d.groups, NowMillis());
    row.audit.last_modifier = row.audit.creator;
    row.audit.last_modified_time = NowMillis();
    auto updated = store_.CompareAndSet(row);
    if (updated || updated.error().code != ErrorCode::kConflict || attempt >= 20) return updated;
  }
}

Result<Job> JobService::CancelJob(const Caller& caller, const std::string& metalake,
                                  const std::string& job_id) {
  CAIRN_ASSIGN_OR_RETURN(Job job, GetJob(caller, metalake, job_id));
  if (job.status != JobStatus::kQueued && job.status != JobStatus::kStarted) return job;
  CAIRN_ASSIGN_OR_RETURN(Target m, MetalakeTarget(metalake));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, JobRow(m, job_id));
  CAIRN_ASSIGN_OR_RETURN(EntityRecord updated, EditJob(row.id, [&](Job& j) {
                           if (j.status == JobStatus::kQueued) {
                             j.status = JobStatus::kCancelled;
                             j.finished_ms = NowMillis();
                             return true;
                           }
                           if (j.status == JobStatus::kStarted) {
                             j.status = JobStatus::kCancelling;
                             return true;
                           }
                           return false;
                         }));
  {
    std::lock_guard lock(mu_);
    auto it = held_.find(row.id);
    if (it != held_.end()) {
      it->second->cancel = true;
      if (pid_t pid = it->second->pid.load(); pid > 0) kill(-pid, SIGTERM);
    }
  }
  updated.audit.last_modifier = caller.principal.user;
  Job out = JobFromRow(updated).job;
  out.template_name = TemplateNameOf(updated);
  spdlog::info("event=job_cancel metalake={} job={} status={} by={}", metalake, job_id,
               model::JobStatusName(out.status), caller.principal.user);
  return out;
}

// ---- the workers ----------------------------------------------------------------------------

void JobService::Work() {
  for (;;) {
    QueuedJob next;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      next = queue_.front();
      queue_.pop_front();
    }
    RunOne(next);
    std::lock_guard lock(mu_);
    held_.erase(next.row_id);
  }
}

void JobService::RunOne(const QueuedJob& queued) {
  std::shared_ptr<Running> running;
  {
    std::lock_guard lock(mu_);
    auto it = held_.find(queued.row_id);
    if (it == held_.end()) return;
    running = it->second;
  }
  auto row = store_.GetById(queued.row_id);
  if (!row) return;  // its template was deleted with it
  JobRowData d = JobFromRow(*row);
  if (d.job.status != JobStatus::kQueued) return;  // cancelled while queued

  // Built-in jobs of one table wait for each other.
  const bool built_in = IsBuiltInName(d.job.template_name) && d.template_id == 0;
  const std::string table_key = built_in ? TableKey(queued.metalake, d.job.conf) : "";
  if (built_in) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return stopping_ || busy_tables_.count(table_key) == 0; });
    if (stopping_) return;
    busy_tables_.insert(table_key);
  }
  struct Release {
    JobService* self;
    std::string key;
    ~Release() {
      if (key.empty()) return;
      {
        std::lock_guard lock(self->mu_);
        self->busy_tables_.erase(key);
      }
      self->cv_.notify_all();
    }
  } release{this, table_key};

  auto started = EditJob(queued.row_id, [&](Job& j) {
    if (j.status != JobStatus::kQueued) return false;
    j.status = JobStatus::kStarted;
    j.started_ms = NowMillis();
    return true;
  });
  if (!started || JobFromRow(*started).job.status != JobStatus::kStarted) return;
  d = JobFromRow(*started);
  spdlog::info("event=job_started metalake={} job={} template={}", queued.metalake, d.job.id,
               d.job.template_name);

  Status outcome = Ok();
  std::string result;
  if (built_in) {
    auto report = RunBuiltIn(d.job, queued.metalake, d.groups, *running);
    if (report) {
      result = std::move(*report);
    } else {
      outcome = std::move(report).error();
    }
  } else {
    auto t = store_.GetById(d.template_id);
    if (!t) {
      outcome = NotFound(EntityKind::kJobTemplate, "the job's template is gone");
    } else if (!options_.local_executor) {
      outcome = InvalidArgument("the local job executor is off");
    } else {
      auto parsed = TemplateFromRow(*t);
      outcome = parsed ? RunProcess(d.job, queued.row_id, *parsed, queued.metalake, *running)
                       : StatusOf(parsed);
    }
  }
  const bool cancelled = running->cancel.load();
  auto finished = EditJob(queued.row_id, [&](Job& j) {
    if (model::IsFinished(j.status)) return false;
    const bool cancelling = j.status == JobStatus::kCancelling || cancelled;
    if (outcome) {
      j.status = JobStatus::kSucceeded;
    } else {
      j.status = cancelling ? JobStatus::kCancelled : JobStatus::kFailed;
      j.message = outcome.error().message;
    }
    j.result = result;
    j.finished_ms = NowMillis();
    return true;
  });
  if (finished) {
    const Job j = JobFromRow(*finished).job;
    spdlog::info("event=job_finished metalake={} job={} template={} status={} millis={} error=\"{}\"",
                 queued.metalake, j.id, j.template_name, model::JobStatusName(j.status),
                 j.finished_ms - j.started_ms, j.message);
    if (options_.audit != nullptr) {
      // Every run in the audit trail, scheduled ones too: who ran what on which object.
      auto conf = [&](const char* k) {
        auto it = j.conf.find(k);
        return it == j.conf.end() ? std::string() : it->second;
      };
      // The record's text lives here until it is written.
      const std::string operation = "RUN_JOB " + j.template_name;
      const std::string object = built_in ? fmt::format("{}.{}.{}.{}", queued.metalake,
                                                        conf("catalog"), conf("schema"),
                                                        conf("table"))
                                          : queued.metalake;
      const std::string detail = fmt::format("job {} {}{}{}", j.id, model::JobStatusName(j.status),
                                             j.message.empty() ? "" : ": ", j.message);
      governance::AuditRecord record;
      record.time_ms = j.finished_ms;
      record.principal = finished->audit.creator;
      record.interface = "jobs";
      record.operation = operation;
      record.object = object;
      record.outcome = j.status == JobStatus::kSucceeded ? "success" : "failure";
      record.status = 0;  // no HTTP exchange: the outcome says how it ended
      record.request_id = j.id;
      record.detail = detail;
      options_.audit->Write(record);
    }
  }
}

Status JobService::PutStatistic(int64_t table_id, const std::string& name,
                                const std::string& value, const std::string& principal) {
  for (int attempt = 0;; ++attempt) {
    auto row = store_.Get(EntityType::kStatistic, table_id, name);
    if (row) {
      row->payload = value;
      row->audit.last_modifier = principal;
      row->audit.last_modified_time = NowMillis();
      auto updated = store_.CompareAndSet(*row);
      if (updated || updated.error().code != ErrorCode::kConflict || attempt >= 5) {
        return StatusOf(updated);
      }
      continue;
    }
    if (row.error().code != ErrorCode::kNotFound) return StatusOf(row);
    EntityRecord fresh;
    fresh.type = EntityType::kStatistic;
    fresh.parent_id = table_id;
    fresh.name = name;
    fresh.payload = value;
    fresh.audit.creator = principal;
    fresh.audit.create_time = NowMillis();
    auto inserted = store_.Insert(fresh);
    if (inserted || inserted.error().code != ErrorCode::kAlreadyExists || attempt >= 5) {
      return StatusOf(inserted);
    }
  }
}

Result<std::string> JobService::RunBuiltIn(const Job& job, const std::string& metalake,
                                           const std::vector<std::string>& groups,
                                           Running& running) {
  governance::Principal principal{job.audit.creator, groups};
  const Caller caller{principal, connector::CallContext{job.audit.creator, NowMillis(), "job"}};
  CAIRN_ASSIGN_OR_RETURN(MaintenanceRequest r,
                         MaintenanceRequestOf(job.template_name, job.conf, caller.ctx.now_ms));
  ObjectRef ref{metalake, r.catalog, r.ns, r.table, ObjectType::kTable};
  // Decided again now: a grant revoked since the run was asked for stops the job.
  CAIRN_ASSIGN_OR_RETURN(auto connector, objects_.OpenCatalog(caller, Action::kModifyTable, ref));
  auto* iceberg = connector->Find<connector::IcebergCatalog>();
  if (iceberg == nullptr) {
    return InvalidArgument("Catalog {} is not a managed Iceberg catalog", r.catalog);
  }
  if (running.cancel) return Unavailable("cancelled before it started");
  Result<connector::MaintenanceReport> report = Internal("unknown built-in template");
  if (job.template_name == kExpireSnapshotsTemplate) {
    iceberg::ExpireOptions o;
    o.now_ms = caller.ctx.now_ms;
    o.older_than_ms = r.older_than_ms;
    o.retain_last = r.retain_last;
    o.snapshot_ids = r.snapshot_ids;
    report = iceberg->ExpireSnapshots(caller.ctx, r.ns, r.table, o, r.delete_files, r.dry_run);
  } else if (job.template_name == kRemoveOrphanFilesTemplate) {
    report = iceberg->RemoveOrphanFiles(caller.ctx, r.ns, r.table, *r.older_than_ms, r.dry_run);
  } else if (job.template_name == kCleanMetadataFilesTemplate) {
    report = iceberg->CleanMetadataFiles(caller.ctx, r.ns, r.table, r.dry_run);
  }
  if (!report) return std::move(report).error();
  if (!r.dry_run && report->files() + static_cast<int64_t>(report->expired_snapshots.size()) > 0) {
    objects_.Publish(caller, ChangeType::kAltered, ref, "",
                     fmt::format("{} by {}", report->action, job.id));
  }
  if (!r.dry_run) {
    // The table's last run of this action, as read-only statistics of the table.
    if (auto table = iceberg->TableRow(r.ns, r.table)) {
      const std::string prefix = "maintenance." + report->action + ".";
      const std::map<std::string, std::string> values = {
          {prefix + "last-run", std::to_string(NowMillis())},
          {prefix + "job-id", Json(job.id).dump()},
          {prefix + "files-removed", std::to_string(report->files())},
          {prefix + "bytes-removed", std::to_string(report->bytes)},
          {prefix + "snapshots-expired", std::to_string(report->expired_snapshots.size())},
          {prefix + "duration-ms", std::to_string(NowMillis() - caller.ctx.now_ms)}};
      for (const auto& [name, value] : values) {
        auto s = PutStatistic(table->id, name, value, job.audit.creator);
        if (!s) {
          spdlog::warn("event=job_statistic_failed job={} statistic={} error=\"{}\"", job.id,
                       name, s.error().message);
        }
      }
    }
  }
  return ReportJson(*report).dump();
}

namespace {

// Makes `source` (a local path or file: URI) available in `dir` under its base name, as a
// symbolic link. kInvalidArgument for other schemes: the executor fetches nothing remote.
Result<std::string> Stage(const std::filesystem::path& dir, const std::string& source) {
  std::string path = source;
  if (path.starts_with("file://")) {
    path = path.substr(7);
  } else if (path.starts_with("file:")) {
    path = path.substr(5);
  }
  if (path.empty() || path[0] != '/') {
    return InvalidArgument("'{}' is not an absolute local path; the local executor fetches "
                           "nothing remote",
                           source);
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound(EntityKind::kNone, "'{}' does not exist", path);
  const auto target = dir / std::filesystem::path(path).filename();
  std::filesystem::remove(target, ec);
  std::filesystem::create_symlink(path, target, ec);
  if (ec) return Internal("cannot stage '{}': {}", path, ec.message());
  return target.string();
}

std::string Joined(const std::vector<std::string>& v) { return Join(v, ","); }

}  // namespace

Status JobService::RunProcess(const Job& job, int64_t row_id, const JobTemplate& raw_template,
                              const std::string& metalake, Running& running) {
  const JobTemplate t = Filled(raw_template, job.conf);
  const std::filesystem::path dir =
      std::filesystem::path(options_.staging_dir) / metalake / raw_template.name / job.id;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Internal("cannot create the staging directory {}: {}", dir.string(), ec.message());
  (void)EditJob(row_id, [&](Job& j) {
    j.staging_dir = dir.string();
    return true;
  });

  CAIRN_ASSIGN_OR_RETURN(std::string executable, Stage(dir, t.executable));
  for (const auto& s : t.scripts) CAIRN_RETURN_IF_ERROR(StatusOf(Stage(dir, s)));
  std::vector<std::string> argv;
  if (t.type == JobTemplate::Type::kShell) {
    argv.push_back(executable);
  } else {
    std::string home = options_.spark_home;
    if (home.empty()) {
      if (const char* env = std::getenv("SPARK_HOME")) home = env;
    }
    if (home.empty()) return InvalidArgument("SPARK_HOME is not set (cairn.jobs.spark-home)");
    const std::string submit = home + "/bin/spark-submit";
    if (access(submit.c_str(), X_OK) != 0) {
      return InvalidArgument("{} is not an executable", submit);
    }
    argv.push_back(submit);
    if (t.class_name && !Trim(*t.class_name).empty()) {
      argv.insert(argv.end(), {"--class", *t.class_name});
    }
    auto staged = [&](const std::vector<std::string>& v) -> Result<std::string> {
      std::vector<std::string> out;
      for (const auto& f : v) {
        CAIRN_ASSIGN_OR_RETURN(std::string s, Stage(dir, f));
        out.push_back(std::move(s));
      }
      return Joined(out);
    };
    for (auto [flag, list] : {std::pair{"--jars", &t.jars}, std::pair{"--files", &t.files},
                              std::pair{"--archives", &t.archives}}) {
      if (list->empty()) continue;
      CAIRN_ASSIGN_OR_RETURN(std::string joined, staged(*list));
      argv.insert(argv.end(), {flag, joined});
    }
    for (const auto& [k, v] : t.configs) argv.insert(argv.end(), {"--conf", k + "=" + v});
    argv.push_back(executable);
  }
  argv.insert(argv.end(), t.arguments.begin(), t.arguments.end());

  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    const size_t eq = kv.find('=');
    if (eq != std::string_view::npos) env[std::string(kv.substr(0, eq))] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : t.environments) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);

  std::vector<char*> c_argv;
  for (auto& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  for (auto& e : env_strings) c_env.push_back(e.data());
  c_env.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string out_log = (dir / "output.log").string();
  const std::string err_log = (dir / "error.log").string();
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // The server ignores SIGPIPE (a peer that hangs up mid-answer must not end it) and its
  // threads may block signals: a job starts with the default disposition and an empty mask.
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, c_argv[0], &actions, &attr, c_argv.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return Internal("cannot start {}: {}", argv[0], std::strerror(rc));
  running.pid = pid;
  if (running.cancel) kill(-pid, SIGTERM);

  int status = 0;
  int64_t term_sent_ms = running.cancel ? NowMillis() : 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (running.cancel && term_sent_ms == 0) {
      kill(-pid, SIGTERM);
      term_sent_ms = NowMillis();
    }
    if (term_sent_ms > 0 && NowMillis() - term_sent_ms > options_.cancel_grace_ms) {
      kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  running.pid = 0;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Ok();
  if (WIFSIGNALED(status)) {
    return Internal("{} ended by signal {} (see {})", t.executable, WTERMSIG(status), err_log);
  }
  return Internal("{} exited with status {} (see {})", t.executable, WEXITSTATUS(status), err_log);
}

// ---- maintenance by policy ------------------------------------------------------------------

namespace {

// What a maintenance policy asks, from its custom rules (`maintenance.*`).
struct MaintenancePolicy {
  int64_t interval_ms = DAY_MS;
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> runs;  // template, conf
};

std::optional<std::string> RuleText(const Json& rules, const std::string& key) {
  auto it = rules.find(key);
  if (it == rules.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

std::optional<MaintenancePolicy> MaintenancePolicyOf(const model::Policy& policy) {
  if (!policy.enabled || policy.policy_type != model::kCustomPolicy) return std::nullopt;
  const auto& types = policy.content.supported_object_types;
  if (std::find(types.begin(), types.end(), model::ObjectKind::kTable) == types.end()) {
    return std::nullopt;
  }
  const Json rules = Json::parse(policy.content.rules, nullptr, false);
  if (!rules.is_object() || RuleText(rules, "maintenance.enabled").value_or("") != "true") {
    return std::nullopt;
  }
  MaintenancePolicy m;
  if (auto v = RuleText(rules, "maintenance.interval")) {
    if (auto seconds = ParseIsoDuration(*v); seconds && *seconds > 0) m.interval_ms = *seconds * 1000;
  }
  const std::string actions = RuleText(rules, "maintenance.actions")
                                  .value_or("expire-snapshots,remove-orphan-files,"
                                            "clean-metadata-files");
  for (const auto& raw : Split(actions, ',')) {
    const std::string action(Trim(raw));
    std::map<std::string, std::string> conf;
    auto copy = [&](const char* rule, const char* key) {
      if (auto v = RuleText(rules, std::string("maintenance.") + action + "." + rule)) {
        conf[key] = *v;
      }
    };
    if (action == "expire-snapshots") {
      copy("older-than", "older_than");
      copy("retain-last", "retain_last");
      m.runs.emplace_back(kExpireSnapshotsTemplate, std::move(conf));
    } else if (action == "remove-orphan-files") {
      copy("older-than", "older_than");
      m.runs.emplace_back(kRemoveOrphanFilesTemplate, std::move(conf));
    } else if (action == "clean-metadata-files") {
      m.runs.emplace_back(kCleanMetadataFilesTemplate, std::move(conf));
    }
  }
  return m;
}

}  // namespace

Result<int> JobService::ScheduleMaintenance() {
  int queued = 0;
  CAIRN_ASSIGN_OR_RETURN(auto metalakes, store_.List(EntityType::kMetalake, 0, "", 0));
  for (const auto& metalake : metalakes) {
    if (!metalake.in_use) continue;
    CAIRN_ASSIGN_OR_RETURN(auto policies, store_.List(EntityType::kPolicy, metalake.id, "", 0));
    for (const auto& policy_row : policies) {
      auto policy = PolicyService::FromRow(policy_row);
      if (!policy) continue;
      const auto plan = MaintenancePolicyOf(*policy);
      if (!plan) continue;
      // Its jobs run as the policy's owner, whose rights on each table are checked as for any
      // run (a table the owner may not modify fails its job, and nothing is touched).
      const governance::Owner owner = governance::OwnerOf(policy_row);
      if (owner.is_group) continue;
      const governance::Principal principal{owner.name, {}};
      CAIRN_ASSIGN_OR_RETURN(auto attached,
                             store_.ListLinkedRows(store::LinkType::kPolicyObject, policy_row.id,
                                                   0, 0));
      // The tables below each attachment: (catalog, namespace levels, table row).
      struct Found {
        std::string catalog;
        std::vector<std::string> ns;
        EntityRecord table;
      };
      std::vector<Found> tables;
      std::function<void(const EntityRecord&, const std::string&, std::vector<std::string>)> below =
          [&](const EntityRecord& row, const std::string& catalog, std::vector<std::string> ns) {
            if (row.type == EntityType::kTable) {
              tables.push_back(Found{catalog, ns, row});
              return;
            }
            if (row.type == EntityType::kSchema) ns.push_back(row.name);
            for (EntityType child : {EntityType::kSchema, EntityType::kTable}) {
              if (row.type == EntityType::kCatalog && child == EntityType::kTable) continue;
              auto children = store_.List(child, row.id, "", 0);
              if (!children) continue;
              for (const auto& c : *children) below(c, catalog, ns);
            }
          };
      for (const auto& row : attached) {
        // The names above the attached row, up to its catalog.
        std::vector<std::string> ns;
        std::string catalog;
        std::optional<EntityRecord> up = row.type == EntityType::kCatalog
                                             ? std::optional<EntityRecord>()
                                             : std::optional<EntityRecord>(row);
        if (row.type == EntityType::kCatalog) catalog = row.name;
        int64_t parent = row.type == EntityType::kCatalog ? 0 : row.parent_id;
        while (parent != 0) {
          auto p = store_.GetById(parent);
          if (!p) break;
          if (p->type == EntityType::kCatalog) {
            catalog = p->name;
            break;
          }
          if (p->type != EntityType::kSchema) break;
          ns.insert(ns.begin(), p->name);
          parent = p->parent_id;
        }
        if (catalog.empty()) continue;
        if (row.type == EntityType::kSchema || row.type == EntityType::kCatalog) {
          below(row, catalog, ns);
        } else if (row.type == EntityType::kTable) {
          tables.push_back(Found{catalog, ns, row});
        }
      }
      for (const auto& t : tables) {
        // Only managed Iceberg catalogs' tables have maintenance.
        ObjectRef ref{metalake.name, t.catalog, t.ns, t.table.name, ObjectType::kTable};
        auto connector = objects_.Resolve(ref);
        if (!connector || (*connector)->Find<connector::IcebergCatalog>() == nullptr) continue;
        for (const auto& [template_name, settings] : plan->runs) {
          const std::string action(std::string_view(template_name).substr(
              std::string_view("builtin-iceberg-").size()));
          auto last = store_.Get(EntityType::kStatistic, t.table.id,
                                 "maintenance." + action + ".last-run");
          if (last) {
            int64_t at = 0;
            std::from_chars(last->payload.data(), last->payload.data() + last->payload.size(), at);
            if (NowMillis() - at < plan->interval_ms) continue;
          }
          std::map<std::string, std::string> conf = settings;
          conf["catalog"] = t.catalog;
          conf["schema"] = Join(t.ns, ".");
          conf["table"] = t.table.name;
          auto job =
              EnqueueMaintenance(principal, metalake.name, template_name, conf, plan->interval_ms);
          if (job && *job) {
            ++queued;
            spdlog::info("event=maintenance_scheduled metalake={} policy={} table={}.{}.{} job={}",
                         metalake.name, policy_row.name, t.catalog, Join(t.ns, "."),
                         t.table.name, (*job)->id);
          }
        }
      }
    }
  }
  return queued;
}

// ---- housekeeping ---------------------------------------------------------------------------

void JobService::Housekeep() {
  int64_t last_sweep = 0;
  int64_t last_schedule = NowMillis();
  for (;;) {
    std::vector<int64_t> held;
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(100, options_.heartbeat_ms)),
                   [&] { return stopping_; });
      if (stopping_) return;
      for (const auto& [id, _] : held_) held.push_back(id);
    }
    if (options_.schedule_interval_ms > 0 &&
        NowMillis() - last_schedule >= options_.schedule_interval_ms) {
      last_schedule = NowMillis();
      auto scheduled = ScheduleMaintenance();
      if (!scheduled) {
        spdlog::warn("event=maintenance_schedule_failed error=\"{}\"", scheduled.error().message);
      }
    }
    // The jobs this server holds are alive: their heartbeat moves.
    for (int64_t id : held) (void)EditJob(id, [](Job&) { return true; });
    if (NowMillis() - last_sweep < options_.stale_after_ms / 2) continue;
    last_sweep = NowMillis();
    // Jobs whose server stopped holding them (it stopped) will never finish: fail them.
    auto metalakes = store_.List(EntityType::kMetalake, 0, "", 0);
    if (!metalakes) continue;
    for (const auto& m : *metalakes) {
      auto jobs = store_.List(EntityType::kJob, m.id, "", 0);
      if (!jobs) continue;
      for (const auto& row : *jobs) {
        const JobRowData d = JobFromRow(row);
        if (model::IsFinished(d.job.status) ||
            NowMillis() - d.heartbeat_ms < options_.stale_after_ms) {
          continue;
        }
        {
          std::lock_guard lock(mu_);
          if (held_.count(row.id) > 0) continue;
        }
        (void)EditJob(row.id, [](Job& j) {
          if (model::IsFinished(j.status)) return false;
          j.status = j.status == JobStatus::kCancelling ? JobStatus::kCancelled : JobStatus::kFailed;
          j.message = "the server running the job stopped before it finished";
          j.finished_ms = NowMillis();
          return true;
        });
      }
    }
  }
}

}  // namespace cairn::service
