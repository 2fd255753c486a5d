// SPDX-License-Identifier: Apache-2.0
// Jobs of the Gravitino API (docs/maintenance.md): `/metalakes/{m}/jobs/templates[/{template}]`
// and `/metalakes/{m}/jobs/runs[/{jobId}]`, the nine operations of Gravitino 1.3's jobs.yaml.
#include <optional>

#include "api/gravitino/routes.h"
#include "common/util.h"
#include "model/job.h"
#include "service/job_service.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;
using model::JobTemplate;
using service::Action;

Result<service::JobService*> Jobs(const Call& c) {
  service::JobService* jobs = c.api.jobs();
  if (jobs == nullptr) return Unsupported("Jobs are not served by this server");
  return jobs;
}

// An optional array of strings (null or absent: empty). Any string, blank included: arguments
// may be.
Result<std::vector<std::string>> StringList(const Json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) return std::vector<std::string>{};
  if (!it->is_array()) return InvalidArgument("Field '{}' must be an array of strings", field);
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string()) return InvalidArgument("Field '{}' must be an array of strings", field);
    out.push_back(v.get<std::string>());
  }
  return out;
}

Result<std::map<std::string, std::string>> StringMap(const Json& j, const char* field) {
  CAIRN_ASSIGN_OR_RETURN(model::Properties p, PropertiesFromJson(j, field));
  return std::map<std::string, std::string>(p.begin(), p.end());
}

OrderedJson MapJson(const std::map<std::string, std::string>& m) {
  OrderedJson out = OrderedJson::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

// JobTemplateDTO: shell or spark by `jobType`; lists and maps always present.
OrderedJson TemplateToJson(const JobTemplate& t) {
  OrderedJson j{{"jobType", model::JobTypeName(t.type)}, {"name", t.name}};
  if (t.comment) j["comment"] = *t.comment;
  j["executable"] = t.executable;
  j["arguments"] = t.arguments;
  j["environments"] = MapJson(t.environments);
  j["customFields"] = MapJson(t.custom_fields);
  if (t.type == JobTemplate::Type::kShell) {
    j["scripts"] = t.scripts;
  } else {
    if (t.class_name) j["className"] = *t.class_name;
    j["jars"] = t.jars;
    j["files"] = t.files;
    j["archives"] = t.archives;
    j["configs"] = MapJson(t.configs);
  }
  j["audit"] = AuditToJson(t.audit);
  return j;
}

Result<JobTemplate::Type> JobTypeOf(const Json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) {
    return InvalidArgument("\"{}\" is required and cannot be null", field);
  }
  if (it->is_string() && it->get_ref<const std::string&>() == "shell") {
    return JobTemplate::Type::kShell;
  }
  if (it->is_string() && it->get_ref<const std::string&>() == "spark") {
    return JobTemplate::Type::kSpark;
  }
  return InvalidArgument("Field '{}' must be \"shell\" or \"spark\"", field);
}

Result<std::string> NonBlank(const Json& j, const char* field) {
  CAIRN_ASSIGN_OR_RETURN(auto v, OptionalString(j, field));
  if (!v || Trim(*v).empty()) {
    return InvalidArgument("\"{}\" is required and cannot be empty", field);
  }
  return *v;
}

Result<JobTemplate> TemplateFromJson(const Json& body) {
  auto it = body.find("jobTemplate");
  if (it == body.end() || it->is_null()) {
    return InvalidArgument("\"jobTemplate\" must not be null");
  }
  if (!it->is_object()) return InvalidArgument("Field 'jobTemplate' must be an object");
  const Json& j = *it;
  JobTemplate t;
  CAIRN_ASSIGN_OR_RETURN(t.type, JobTypeOf(j, "jobType"));
  CAIRN_ASSIGN_OR_RETURN(t.name, NonBlank(j, "name"));
  CAIRN_ASSIGN_OR_RETURN(t.comment, OptionalString(j, "comment"));
  CAIRN_ASSIGN_OR_RETURN(t.executable, NonBlank(j, "executable"));
  CAIRN_ASSIGN_OR_RETURN(t.arguments, StringList(j, "arguments"));
  CAIRN_ASSIGN_OR_RETURN(t.environments, StringMap(j, "environments"));
  CAIRN_ASSIGN_OR_RETURN(t.custom_fields, StringMap(j, "customFields"));
  if (t.type == JobTemplate::Type::kShell) {
    CAIRN_ASSIGN_OR_RETURN(t.scripts, StringList(j, "scripts"));
  } else {
    CAIRN_ASSIGN_OR_RETURN(t.class_name, OptionalString(j, "className"));
    CAIRN_ASSIGN_OR_RETURN(t.jars, StringList(j, "jars"));
    CAIRN_ASSIGN_OR_RETURN(t.files, StringList(j, "files"));
    CAIRN_ASSIGN_OR_RETURN(t.archives, StringList(j, "archives"));
    CAIRN_ASSIGN_OR_RETURN(t.configs, StringMap(j, "configs"));
  }
  return t;
}

// A `new*` member: absent or null keeps the template's value.
template <typename T, typename F>
Result<std::optional<T>> Optional(const Json& j, const char* field, F read) {
  if (IsNullOrAbsent(j, field)) return std::optional<T>();
  CAIRN_ASSIGN_OR_RETURN(T v, read(j, field));
  return std::optional<T>(std::move(v));
}

Result<model::JobTemplateChange> ChangeFromJson(const Json& u, const std::string& type) {
  model::JobTemplateChange c;
  if (type == "rename") {
    c.kind = model::JobTemplateChange::Kind::kRename;
    CAIRN_ASSIGN_OR_RETURN(c.new_name, NonBlank(u, "newName"));
    return c;
  }
  if (type == "updateComment") {
    c.kind = model::JobTemplateChange::Kind::kUpdateComment;
    CAIRN_ASSIGN_OR_RETURN(c.new_comment, OptionalString(u, "newComment"));
    return c;
  }
  if (type != "updateTemplate") return InvalidArgument("Unknown job template update: {}", type);
  c.kind = model::JobTemplateChange::Kind::kUpdateTemplate;
  auto nt = u.find("newTemplate");
  if (nt == u.end() || !nt->is_object()) {
    return InvalidArgument("\"newTemplate\" is required and must be an object");
  }
  const Json& t = *nt;
  CAIRN_ASSIGN_OR_RETURN(c.template_type, JobTypeOf(t, "@type"));
  auto string = [](const Json& j, const char* f) -> Result<std::string> {
    CAIRN_ASSIGN_OR_RETURN(auto v, OptionalString(j, f));
    return v.value_or("");
  };
  using Strings = std::vector<std::string>;
  using Map = std::map<std::string, std::string>;
  CAIRN_ASSIGN_OR_RETURN(c.new_executable, Optional<std::string>(t, "newExecutable", string));
  CAIRN_ASSIGN_OR_RETURN(c.new_arguments, Optional<Strings>(t, "newArguments", StringList));
  CAIRN_ASSIGN_OR_RETURN(c.new_environments, Optional<Map>(t, "newEnvironments", StringMap));
  CAIRN_ASSIGN_OR_RETURN(c.new_custom_fields, Optional<Map>(t, "newCustomFields", StringMap));
  if (c.template_type == JobTemplate::Type::kShell) {
    CAIRN_ASSIGN_OR_RETURN(c.new_scripts, Optional<Strings>(t, "newScripts", StringList));
  } else {
    CAIRN_ASSIGN_OR_RETURN(c.new_class_name, Optional<std::string>(t, "newClassName", string));
    CAIRN_ASSIGN_OR_RETURN(c.new_jars, Optional<Strings>(t, "newJars", StringList));
    CAIRN_ASSIGN_OR_RETURN(c.new_files, Optional<Strings>(t, "newFiles", StringList));
    CAIRN_ASSIGN_OR_RETURN(c.new_archives, Optional<Strings>(t, "newArchives", StringList));
    CAIRN_ASSIGN_OR_RETURN(c.new_configs, Optional<Map>(t, "newConfigs", StringMap));
  }
  return c;
}

// JobDTO: the four members Gravitino's clients require, then Cairn's own (prefixed, which the
// clients ignore): the run's configuration, times, why it failed, a built-in job's report and
// the local executor's logs.
OrderedJson JobToJson(const model::Job& job) {
  OrderedJson j{{"jobId", job.id},
                {"jobTemplateName", job.template_name},
                {"status", model::JobStatusName(job.status)},
                {"audit", AuditToJson(job.audit)}};
  j["cairn.jobConf"] = MapJson(job.conf);
  if (job.started_ms > 0) j["cairn.startedAt"] = job.started_ms;
  if (job.finished_ms > 0) j["cairn.finishedAt"] = job.finished_ms;
  if (!job.message.empty()) j["cairn.message"] = job.message;
  if (!job.result.empty()) {
    auto report = OrderedJson::parse(job.result, nullptr, false);
    if (!report.is_discarded()) j["cairn.result"] = std::move(report);
  }
  if (!job.staging_dir.empty()) j["cairn.stagingDir"] = job.staging_dir;
  return j;
}

Result<Response> ListTemplates(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto* jobs, Jobs(c));
  CAIRN_ASSIGN_OR_RETURN(auto templates, jobs->ListTemplates(c.caller, c.Param("metalake")));
  if (c.Flag("details")) {
    OrderedJson arr = OrderedJson::array();
    for (const auto& t : templates) arr.push_back(TemplateToJson(t));
    return Reply(OrderedJson{{"jobTemplates", std::move(arr)}});
  }
  std::vector<std::string> names;
  for (const auto& t : templates) names.push_back(t.name);
  return Reply(OrderedJson{{"names", names}});
}

Result<Response> RegisterTemplate(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto* jobs, Jobs(c));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  if (!body.is_object()) return InvalidArgument("The request body must be a JSON object");
  CAIRN_ASSIGN_OR_RETURN(JobTemplate t, TemplateFromJson(body));
  c.op.name = t.name;
  t.audit.creator = c.principal.user;
  CAIRN_RETURN_IF_ERROR(jobs->RegisterTemplate(c.caller, c.Param("metalake"), t));
  return Reply(OrderedJson::object());
}

Result<Response> GetTemplate(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto* jobs, Jobs(c));
  CAIRN_ASSIGN_OR_RETURN(JobTemplate t,
                         jobs->GetTemplate(c.caller, c.Param("metalake"), c.Param("template")));
  return Reply(OrderedJson{{"jobTemplate", TemplateToJson(t)}});
}

Result<Response> AlterTemplate(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto* jobs, Jobs(c));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  if (!body.is_object()) return InvalidArgument("The request body must be a JSON object");
  if (IsNullOrAbsent(body, "updates")) return InvalidArgument("updates must not be null");
  CAIRN_ASSIGN_OR_RETURN(auto changes, UpdatesOf<model::JobTemplateChange>(body, ChangeFromJson));
  CAIRN_ASSIGN_OR_RETURN(JobTemplate t, jobs->AlterTemplate(c.caller, c.Param("metalake"),
                                                            c.Param("template"), changes));
  return Reply(OrderedJson{{"jobTemplate", TemplateToJson(t)}});
}

Result<Response> DeleteTemplate(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto* jobs, Jobs(c));
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         jobs->DeleteTemplate(c.caller, c.Param("metalake"), c.Param("template")));
  return Reply(OrderedJson{{"dropped", dropped}});
}

Result<Response> ListJobs(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto* jobs, Jobs(c));
  std::optional<std::string> template_name;
  if (auto q = c.request.Query("jobTemplateName"); q && !q->empty()) template_name = *q;
  CAIRN_ASSIGN_OR_RETURN(auto list, jobs->ListJobs(c.caller, c.Param("metalake"), template_name));
  OrderedJson arr = OrderedJson::array();
  for (const auto& j : list) arr.push_back(JobToJson(j));
  return Reply(OrderedJson{{"jobs", std::move(arr)}});
}

Result<Response> RunJob(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto* jobs, Jobs(c));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  if (!body.is_object()) return InvalidArgument("The request body must be a JSON object");
  CAIRN_ASSIGN_OR_RETURN(std::string name, NonBlank(body, "jobTemplateName"));
  c.op.name = name;
  CAIRN_ASSIGN_OR_RETURN(auto conf, StringMap(body, "jobConf"));
  CAIRN_ASSIGN_OR_RETURN(model::Job job, jobs->RunJob(c.caller, c.Param("metalake"), name, conf));
  return Reply(OrderedJson{{"job", JobToJson(job)}});
}

Result<Response> GetJob(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto* jobs, Jobs(c));
  CAIRN_ASSIGN_OR_RETURN(model::Job job,
                         jobs->GetJob(c.caller, c.Param("metalake"), c.Param("jobId")));
  return Reply(OrderedJson{{"job", JobToJson(job)}});
}

Result<Response> CancelJob(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto* jobs, Jobs(c));
  CAIRN_ASSIGN_OR_RETURN(model::Job job,
                         jobs->CancelJob(c.caller, c.Param("metalake"), c.Param("jobId")));
  return Reply(OrderedJson{{"job", JobToJson(job)}});
}

}  // namespace

std::vector<Route> JobRoutes() {
  using K = EntityKind;
  constexpr std::string_view kTemplates = "/metalakes/{metalake}/jobs/templates";
  constexpr std::string_view kTemplate = "/metalakes/{metalake}/jobs/templates/{template}";
  constexpr std::string_view kRuns = "/metalakes/{metalake}/jobs/runs";
  constexpr std::string_view kRun = "/metalakes/{metalake}/jobs/runs/{jobId}";
  // Registering is decided on the metalake before the body is read; the job service decides
  // the others itself (they need the template's or job's row: its owner, USE_JOB_TEMPLATE),
  // before it reads the template or job and before a run's configuration is acted on.
  const std::optional<Action> kService = std::nullopt;
  return {
      {"GET", api::PathPattern(kTemplates), K::kJobTemplate, "LIST", kService, ListTemplates},
      {"POST", api::PathPattern(kTemplates), K::kJobTemplate, "REGISTER",
       Action::kRegisterJobTemplate, RegisterTemplate},
      {"GET", api::PathPattern(kTemplate), K::kJobTemplate, "GET", kService, GetTemplate},
      {"PUT", api::PathPattern(kTemplate), K::kJobTemplate, "ALTER", kService, AlterTemplate},
      {"DELETE", api::PathPattern(kTemplate), K::kJobTemplate, "DELETE", kService,
       DeleteTemplate},
      {"GET", api::PathPattern(kRuns), K::kJob, "LIST", kService, ListJobs},
      {"POST", api::PathPattern(kRuns), K::kJob, "RUN", kService, RunJob},
      {"GET", api::PathPattern(kRun), K::kJob, "GET", kService, GetJob},
      {"POST", api::PathPattern(kRun), K::kJob, "CANCEL", kService, CancelJob},
  };
}

}  // namespace cairn::api::gravitino
