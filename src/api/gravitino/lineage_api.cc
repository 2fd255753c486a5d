// SPDX-License-Identifier: Apache-2.0
// Lineage: OpenLineage run events in, at Gravitino's `/api/lineage` and at the path stock
// OpenLineage clients use (`/api/v1/lineage`, and its `/batch`), and Cairn's own graph query,
// `/api/lineage/graph` (docs/lineage.md). They sit in this route table, not an interface of
// their own, because they share the API's prefix, principal and error envelope.
#include <optional>

#include <nlohmann/json.hpp>

#include "api/gravitino/routes.h"
#include "common/util.h"
#include "json/json_util.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;
using service::DatasetVisibility;

constexpr size_t kMaxBatchEvents = 1000;

// Gravitino answers 429 once its sink queues are nearly full; Retry-After tells a client when.
Response QueueFull(const Error& error) {
  Response r = PlainErrorResponse(429, 1002, "RuntimeException", error.message);
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

Result<Response> IngestEvent(Call& c) {
  auto job = c.objects.lineage().Ingest(c.caller, c.request.body);
  if (!job) {
    if (job.error().code == ErrorCode::kUnavailable) return QueueFull(job.error());
    return std::move(job).error();
  }
  Response r;
  r.status = 201;
  r.content_type = "application/json";
  r.audit_object = *job;
  return r;
}

// The OpenLineage batch form: a JSON array of events, each accepted or refused on its own.
Result<Response> IngestBatch(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(
      Json events, json::ParseJson(c.request.body, "Malformed lineage batch: the body is not JSON"));
  if (!events.is_array()) {
    return InvalidArgument("Malformed lineage batch: the body must be a JSON array of events");
  }
  if (events.size() > kMaxBatchEvents) {
    return InvalidArgument("Malformed lineage batch: more than {} events", kMaxBatchEvents);
  }
  size_t ok = 0;
  bool full = false;
  OrderedJson failed = OrderedJson::array();
  std::vector<std::string> jobs;
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string text =
        events[i].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    auto job = c.objects.lineage().Ingest(c.caller, text);
    if (job) {
      ++ok;
      if (jobs.size() < 10) jobs.push_back(*job);
      continue;
    }
    const bool retriable = job.error().code == ErrorCode::kUnavailable;
    full = full || retriable;
    failed.push_back(
        OrderedJson{{"index", i}, {"reason", job.error().message}, {"retriable", retriable}});
  }
  if (ok == 0 && full) return QueueFull(MakeError(ErrorCode::kUnavailable, EntityKind::kNone,
                                                  "The lineage event queue is full"));
  const size_t failures = events.size() - ok;
  OrderedJson body{{"status", failures == 0 ? "success" : "partial_success"},
                   {"summary",
                    {{"received", events.size()}, {"successful", ok}, {"failed", failures}}},
                   {"failed_events", std::move(failed)}};
  Response r;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  r.audit_object = Join(jobs, ",");
  return r;
}

Result<int64_t> IntParam(const Call& c, std::string_view name, int64_t fallback) {
  auto v = c.request.Query(name);
  if (!v) return fallback;
  auto n = ParseInt64(Trim(*v));
  if (!n) return InvalidArgument("Parameter '{}' must be an integer", name);
  return *n;
}

std::string NodeId(bool job, int64_t id) { return fmt::format("{}:{}", job ? "job" : "dataset", id); }

std::string_view SourceName(DatasetVisibility v) {
  switch (v) {
    case DatasetVisibility::kCairn:
      return "cairn";
    case DatasetVisibility::kExternal:
      return "external";
    case DatasetVisibility::kHidden:
      return "hidden";
  }
  return "external";
}

OrderedJson NodeToJson(const service::LineageNode& n) {
  OrderedJson j{{"id", NodeId(n.is_job, n.id)}, {"type", n.is_job ? "job" : "dataset"},
                {"depth", n.depth}};
  if (n.is_job) {
    j["namespace"] = n.job.ns;
    j["name"] = n.job.name;
    j["latestRun"] = OrderedJson{{"runId", n.job.last_run_id},
                                 {"state", n.job.last_state},
                                 {"eventTime", n.job.last_event_time}};
    return j;
  }
  j["source"] = SourceName(n.visibility);
  if (n.visibility == DatasetVisibility::kHidden) return j;
  j["namespace"] = n.dataset.ns;
  j["name"] = n.dataset.name;
  if (n.visibility == DatasetVisibility::kCairn) {
    j["object"] = OrderedJson{
        {"metalake", n.dataset.metalake}, {"type", "table"}, {"fullName", n.dataset.object_name}};
  }
  OrderedJson columns = OrderedJson::array();
  for (const auto& col : n.columns) {
    OrderedJson inputs = OrderedJson::array();
    for (const auto& in : col.inputs) {
      if (in.visibility == DatasetVisibility::kHidden) {
        inputs.push_back(OrderedJson{{"dataset", NodeId(false, in.dataset_id)}, {"hidden", true}});
        continue;
      }
      OrderedJson f{{"dataset", NodeId(false, in.dataset_id)},
                    {"namespace", in.ns},
                    {"name", in.name},
                    {"field", in.field}};
      if (!in.transformation.empty()) f["transformation"] = in.transformation;
      inputs.push_back(std::move(f));
    }
    columns.push_back(OrderedJson{{"field", col.field}, {"inputFields", std::move(inputs)}});
  }
  j["columnLineage"] = std::move(columns);
  return j;
}

Result<Response> LineageGraph(Call& c) {
  service::LineageQuery q;
  q.metalake = c.request.Query("metalake").value_or("");
  q.object_name = c.request.Query("fullName").value_or("");
  q.ns = c.request.Query("namespace").value_or("");
  q.name = c.request.Query("name").value_or("");
  const std::string direction = ToLower(c.request.Query("direction").value_or("both"));
  if (direction == "upstream") {
    q.downstream = false;
  } else if (direction == "downstream") {
    q.upstream = false;
  } else if (direction != "both") {
    return InvalidArgument("Parameter 'direction' must be upstream, downstream or both");
  }
  CAIRN_ASSIGN_OR_RETURN(int64_t depth, IntParam(c, "depth", 3));
  CAIRN_ASSIGN_OR_RETURN(int64_t page_size, IntParam(c, "pageSize", 100));
  CAIRN_ASSIGN_OR_RETURN(q.offset, IntParam(c, "pageToken", 0));
  if (depth < 1 || depth > service::kMaxLineageDepth) {
    return InvalidArgument("Parameter 'depth' must be between 1 and {}", service::kMaxLineageDepth);
  }
  if (page_size < 1 || page_size > service::kMaxLineagePageSize) {
    return InvalidArgument("Parameter 'pageSize' must be between 1 and {}",
                           service::kMaxLineagePageSize);
  }
  q.depth = static_cast<int>(depth);
  q.page_size = static_cast<int>(page_size);
  CAIRN_ASSIGN_OR_RETURN(service::LineagePage page, c.objects.lineage().Graph(c.caller, q));
  OrderedJson nodes = OrderedJson::array();
  for (const auto& n : page.nodes) nodes.push_back(NodeToJson(n));
  OrderedJson edges = OrderedJson::array();
  for (const auto& e : page.edges) {
    edges.push_back(OrderedJson{{"from", NodeId(e.from_job, e.from)},
                                {"to", NodeId(!e.from_job, e.to)},
                                {"runId", e.last_run_id},
                                {"eventTime", e.last_event_time}});
  }
  OrderedJson body{{"nodes", std::move(nodes)},
                   {"edges", std::move(edges)},
                   {"total", page.total},
                   {"truncated", page.truncated}};
  body["nextPageToken"] =
      page.next_offset ? OrderedJson(std::to_string(*page.next_offset)) : OrderedJson(nullptr);
  CAIRN_ASSIGN_OR_RETURN(Response r, Reply(std::move(body)));
  r.audit_object = q.metalake.empty() ? q.ns + " " + q.name : q.metalake + "." + q.object_name;
  return r;
}

Result<Response> RunEvents(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto events, c.objects.lineage().RunEvents(c.Param("runId")));
  OrderedJson arr = OrderedJson::array();
  for (const auto& e : events) {
    OrderedJson j{{"eventType", e.event_type}, {"eventTime", e.event_time}};
    j["event"] = OrderedJson::parse(e.body, nullptr, false);
    arr.push_back(std::move(j));
  }
  CAIRN_ASSIGN_OR_RETURN(Response r, Reply(OrderedJson{{"runId", ToLower(c.Param("runId"))},
                                                       {"events", std::move(arr)}}));
  r.audit_object = c.Param("runId");
  return r;
}

}  // namespace

std::vector<Route> LineageRoutes() {
  using K = EntityKind;
  constexpr std::nullopt_t kService = std::nullopt;  // ingest needs an authenticated caller only
  return {
      {"POST", api::PathPattern("/lineage"), K::kNone, "", kService, IngestEvent},
      {"POST", api::PathPattern("/v1/lineage"), K::kNone, "", kService, IngestEvent},
      {"POST", api::PathPattern("/v1/lineage/batch"), K::kNone, "", kService, IngestBatch},
      {"GET", api::PathPattern("/lineage/graph"), K::kNone, "", kService, LineageGraph},
      {"GET", api::PathPattern("/lineage/runs/{runId}"), K::kNone, "", kService, RunEvents},
  };
}

}  // namespace cairn::api::gravitino
