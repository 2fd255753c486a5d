// SPDX-License-Identifier: Apache-2.0
#include "app/router.h"

#include <map>
#include <set>
#include <variant>

#include <nlohmann/json.hpp>

#include "api/gravitino/errors.h"
#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/errors.h"
#include "api/iceberg/iceberg_api.h"
#include "api/lance/lance_api.h"
#include "api/mcp/mcp_api.h"
#include "common/trace.h"
#include "common/util.h"
#include "connector/connector.h"
#include "json/json_util.h"

namespace cairn::app {

namespace {

// The interface a request comes through, by its path (request limits name the same ones).
using Interface = LimitedInterface;

Interface InterfaceOf(std::string_view path) {
  if (path == "/iceberg" || path.rfind("/iceberg/", 0) == 0) return Interface::kIceberg;
  if (path == "/api" || path.rfind("/api/", 0) == 0) return Interface::kGravitino;
  if (path == "/lance" || path.rfind("/lance/", 0) == 0) return Interface::kLance;
  if (path == "/mcp" || path == "/mcp/") return Interface::kMcp;
  return Interface::kService;
}

std::string_view InterfaceName(Interface i) { return LimitedInterfaceName(i); }

// An error of the request's front stages (authenticate, limits) in its interface's format; MCP
// answers it as a transport error with `mcp_status`.
http::Response FrontError(Interface interface, const Error& e, int mcp_status,
                          const std::string& path) {
  switch (interface) {
    case Interface::kIceberg:
      return api::iceberg::ErrorResponse(e);
    case Interface::kLance:
      return api::lance::LanceApi::ErrorResponse(e, path);
    case Interface::kMcp:
      return api::mcp::McpApi::TransportError(mcp_status, e.message);
    default:
      return api::gravitino::ErrorResponse(e, api::gravitino::Operation{});
  }
}

bool SkipsAuthentication(const http::Request& r) {
  // Compared as views: a length that differs settles it without reading the text.
  static constexpr std::string_view kOpen[] = {
      "/metrics",         "/health",           "/health/live", "/health/ready", "/api/health",
      "/api/health/live", "/api/health/ready", "/api/version", "/configs"};
  const std::string_view path = r.path;
  for (const std::string_view open : kOpen) {
    if (path == open) return true;
  }
  return std::string_view(r.method) == "CLOSE" ||
         api::ui::UiApi::Handles(path);  // the UI's static files; its calls authenticate
}

// For requests no route table knows (a 404, the admin API): collection segment -> placeholder of
// the name that follows it, so their audit names still group by shape. Routed requests are
// named by their route's pattern.
const std::map<std::string, std::string, std::less<>>& NameKeywords() {
  static const std::map<std::string, std::string, std::less<>> keywords = {
      {"metalakes", "{metalake}"},   {"catalogs", "{catalog}"},    {"schemas", "{schema}"},
      {"tables", "{table}"},         {"views", "{view}"},          {"filesets", "{fileset}"},
      {"topics", "{topic}"},         {"models", "{model}"},        {"functions", "{function}"},
      {"partitions", "{partition}"}, {"users", "{user}"},          {"groups", "{group}"},
      {"roles", "{role}"},           {"namespaces", "{namespace}"}};
  return keywords;
}

// Gravitino's fileset audit headers, each checked against its set of values (UNKNOWN otherwise).
std::map<std::string, std::string> CallerContext(const http::Request& request) {
  static const std::set<std::string, std::less<>> kClientTypes = {"HADOOP_GVFS", "PYTHON_GVFS",
                                                                  "UNKNOWN"};
  static const std::set<std::string, std::less<>> kOperations = {"CREATE",
                                                                 "OPEN",
                                                                 "OPEN_AND_WRITE",
                                                                 "OPEN_AND_APPEND",
                                                                 "APPEND",
                                                                 "RENAME",
                                                                 "DELETE",
                                                                 "GET_FILE_STATUS",
                                                                 "LIST_STATUS",
                                                                 "MKDIRS",
                                                                 "GET_DEFAULT_REPLICATION",
                                                                 "GET_DEFAULT_BLOCK_SIZE",
                                                                 "SET_WORKING_DIR",
                                                                 "EXISTS",
                                                                 "CREATED_TIME",
                                                                 "UNKNOWN"};
  std::map<std::string, std::string> out;
  auto add = [&](const char* header, const std::set<std::string, std::less<>>& allowed) {
    auto value = request.Header(header);
    if (!value || Trim(*value).empty()) return;
    const std::string v(Trim(*value));
    out[header] = allowed.count(v) > 0 ? v : "UNKNOWN";
  };
  add("InternalClientType", kClientTypes);
  add("FilesetDataOperation", kOperations);
  return out;
}

}  // namespace

AuditSubject DescribeRequest(std::string_view method, std::string_view path) {
  const Interface interface = InterfaceOf(path);
  // Iceberg REST: the operation is the route's own pattern (api/iceberg's route table).
  if (interface == Interface::kIceberg) {
    if (auto route = api::iceberg::DescribeRoute(method, path)) {
      AuditSubject subject;
      subject.operation = std::move(route->operation);
      subject.object = Join(route->names, ".");
      subject.routed = true;
      subject.creates = route->creates;
      return subject;
    }
  }
  // Gravitino API: the route's own pattern (api/gravitino's route table).
  if (interface == Interface::kGravitino) {
    if (auto route = api::gravitino::DescribeRoute(method, path)) {
      AuditSubject subject;
      subject.operation = std::move(route->operation);
      subject.object = Join(route->names, ".");
      subject.routed = true;
      subject.creates = route->creates;
      return subject;
    }
  }
  // Lance REST: the route's own pattern, the identifier's levels as the names.
  if (interface == Interface::kLance) {
    if (auto route = api::lance::DescribeRoute(method, path)) {
      AuditSubject subject;
      subject.operation = std::move(route->operation);
      subject.object = Join(route->names, ".");
      subject.routed = true;
      return subject;
    }
  }
  std::vector<std::string> segs;
  for (const auto& raw : Split(path, '/')) {
    if (raw.empty()) continue;
    std::string plus = raw;
    if (interface == Interface::kIceberg) {
      for (char& c : plus) {
        if (c == '+') c = ' ';
      }
    }
    segs.push_back(PercentDecode(plus).value_or(raw));
  }
  std::vector<std::string> template_parts;
  std::vector<std::string> names;
  const auto& keywords = NameKeywords();
  for (size_t i = 0; i < segs.size(); ++i) {
    const std::string& seg = segs[i];
    // Iceberg: /iceberg/v1/{prefix}/... where the prefix is "<metalake>.<catalog>".
    if (interface == Interface::kIceberg && i == 2 && segs[1] == "v1" && seg != "config") {
      template_parts.push_back("{prefix}");
      names.push_back(seg);
      continue;
    }
    auto kw = keywords.find(seg);
    const bool action_follows =
        i + 1 < segs.size() && (segs[i + 1] == "rename" || segs[i + 1] == "testConnection");
    if (kw != keywords.end() && i + 1 < segs.size() && !action_follows) {
      template_parts.push_back(seg);
      const std::string& name = segs[i + 1];
      template_parts.push_back(kw->second);
      if (seg == "namespaces") {
        std::string dotted = name;
        for (char& c : dotted) {
          if (c == '\x1f') c = '.';
        }
        names.push_back(dotted);
      } else {
        names.push_back(name);
      }
      ++i;
      continue;
    }
    template_parts.push_back(seg);
  }
  AuditSubject subject;
  subject.operation = fmt::format("{} /{}", method, Join(template_parts, "/"));
  subject.object = Join(names, ".");
  // A POST to a collection no route table knows (the admin API) may still name what it makes.
  subject.creates = method == "POST" && !segs.empty() && keywords.count(segs.back()) > 0;
  return subject;
}

// A create names its object in the body: `name` (Gravitino, Iceberg tables and views) or
// `namespace` (Iceberg namespaces).
void AddCreatedName(AuditSubject& subject, const std::string& body) {
  if (!subject.creates || body.empty()) return;
  auto j = json::ParseJsonOrDiscarded(body);
  if (!j.is_object()) return;
  std::string name;
  if (auto n = j.find("name"); n != j.end() && n->is_string()) name = n->get<std::string>();
  if (auto ns = j.find("namespace"); name.empty() && ns != j.end() && ns->is_array()) {
    std::vector<std::string> levels;
    for (const auto& l : *ns) {
      if (l.is_string()) levels.push_back(l.get<std::string>());
    }
    name = Join(levels, ".");
  }
  if (name.empty()) return;
  subject.object = subject.object.empty() ? name : subject.object + "." + name;
}

http::Response Router::RenderTransportError(int status, std::string_view message,
                                            const http::Request& partial) const {
  http::Response response;
  if (InterfaceOf(partial.path) == Interface::kIceberg) {
    const char* type = status == 413  ? "PayloadTooLargeException"
                       : status < 500 ? "BadRequestException"
                                      : "ServiceFailureException";
    response = api::iceberg::PlainErrorResponse(status, type, message);
  } else if (InterfaceOf(partial.path) == Interface::kMcp) {
    response = api::mcp::McpApi::TransportError(status, message);
  } else if (InterfaceOf(partial.path) == Interface::kLance) {
    response = api::lance::LanceApi::TransportError(status, message, partial.path);
  } else {
    const int code = status < 500 ? 1001 : 1002;
    response = api::gravitino::PlainErrorResponse(
        status, code, code == 1001 ? "IllegalArgumentException" : "RuntimeException", message);
  }
  Audit(partial, "", false, response);
  return response;
}

namespace {

// What the audit record and the span name the request by: the route the front end matched, or
// the path described again.
AuditSubject SubjectOf(const http::Request& request, const http::Response& response) {
  if (!response.audit_route) return DescribeRequest(request.method, request.path);
  AuditSubject subject;
  subject.operation = response.audit_route->operation;
  subject.object = response.audit_route->object;
  subject.creates = response.audit_route->creates;
  subject.routed = true;
  return subject;
}

}  // namespace

void Router::Audit(const http::Request& request, const std::string& principal, bool authenticated,
                   const http::Response& response) const {
  // The operation and the object: the matched route's own text, read in place, unless the
  // body completes the name or no route table matched (then described from the path).
  std::optional<AuditSubject> described;
  std::string_view operation;
  std::string_view object;
  bool routed = true;
  if (response.audit_route && !response.audit_route->creates) {
    operation = response.audit_route->operation;
    object = response.audit_route->object;
  } else {
    described = SubjectOf(request, response);
    AddCreatedName(*described, request.body);
    operation = described->operation;
    object = described->object;
    routed = described->routed;
  }
  std::string warehouse;
  if (object.empty() && operation == "GET /iceberg/v1/config") {
    warehouse = request.Query("warehouse").value_or("");  // the catalog a client is configuring
    object = warehouse;
  }
  governance::AuditRecord record;
  record.time_ms = NowMillis();
  record.principal = authenticated ? std::string_view(principal) : std::string_view();
  record.interface = InterfaceName(InterfaceOf(request.path));
  record.operation = response.audit_operation.empty() ? operation : response.audit_operation;
  record.object = response.audit_object.empty() ? object : response.audit_object;
  record.status = response.status;
  // A lookup that finds nothing (an engine asking whether a view of that name exists, say) is
  // not a failed request. The outcome is that of the call that decided the request (an MCP tool
  // call answers 200 with the tool's refusal inside).
  const int decided = response.audit_status != 0 ? response.audit_status : response.status;
  const bool lookup = response.audit_status != 0
                          ? response.audit_lookup
                          : request.method == "GET" || request.method == "HEAD";
  record.outcome = decided == 401 || decided == 403 ? "denied"
                   : decided < 400                  ? "success"
                   : decided == 404 && lookup       ? "not_found"
                                                    : "failure";
  record.request_id = request.request_id;
  record.client = request.remote_address;
  record.detail = response.audit_note;
  if (record.detail.empty() && record.outcome == "denied" &&
      (request.HeaderView("X-Iceberg-Access-Delegation") ||
       operation.ends_with("/credentials"))) {
    record.detail = "storage credentials refused";
  }
  if (InterfaceOf(request.path) == Interface::kGravitino)
    record.caller_context = CallerContext(request);
  if (metrics != nullptr) {
    const double seconds =
        request.received == std::chrono::steady_clock::time_point{}
            ? 0.0
            : std::chrono::duration<double>(std::chrono::steady_clock::now() - request.received)
                  .count();
    // A request no route table names is named by its path's own segments. Only the endpoints
    // outside the tables (admin, health) answer those with success; every refused one is
    // counted as "unmatched", so a caller sending endless distinct paths adds one series, not
    // one each, and cannot crowd out the routes' series.
    std::string_view series = record.operation;
    if (!routed && response.audit_operation.empty()) {
      if (request.method == "CLOSE") {
        series = "CLOSE";
      } else if (response.status >= 400) {
        series = "unmatched";
      }
    }
    metrics->ObserveRequest(record.interface, series, response.status, seconds,
                            response.vended_access);
  }
  audit.Write(record);
}

http::Response Router::Handle(const http::Request& request) const {
  // The request's span: a child of the caller's when it sent a traceparent. Named after the
  // route once it is known; the store, storage and connector calls below are its children.
  std::optional<trace::SpanContext> remote;
  if (trace::Enabled()) {
    if (auto header = request.HeaderView("traceparent")) remote = trace::ParseTraceparent(*header);
  }
  trace::Span span("request", trace::Kind::kServer, remote);
  http::Response response = Serve(request);
  if (span.recording()) {
    const AuditSubject subject = SubjectOf(request, response);
    span.Rename(response.audit_operation.empty() ? subject.operation : response.audit_operation);
    span.Set("http.request.method", request.method);
    span.Set("url.path", request.path);
    span.Set("http.response.status_code", static_cast<int64_t>(response.status));
    span.Set("cairn.interface", InterfaceName(InterfaceOf(request.path)));
    if (!request.request_id.empty()) span.Set("cairn.request_id", request.request_id);
    if (response.status >= 500) span.Fail(fmt::format("answered {}", response.status));
  }
  return response;
}

// The answer of the interface `request` addresses, for an authenticated caller.
http::Response Router::Dispatch(const http::Request& request,
                                const governance::Principal& principal,
                                LimitedInterface interface) const {
  // Federated catalogs may pass the caller's own credentials on to their remote.
  connector::CallerAuthorizationScope caller(request.HeaderView("Authorization"));
  const std::string& path = request.path;
  if (request.method == "CLOSE") {
    return http::Response{};  // the Python client's close(): 200 with an empty body
  }
  if (interface == Interface::kIceberg) return iceberg.Handle(request, principal);
  if (ui != nullptr && api::ui::UiApi::Handles(path)) return ui->Handle(request);
  if (interface == Interface::kLance && lance != nullptr) return lance->Handle(request, principal);
  if (interface == Interface::kMcp && mcp != nullptr) return mcp->Handle(request, principal);
  if (interface == Interface::kGravitino) {
    if (auto r = admin.Handle(request, principal)) return std::move(*r);
    return gravitino.Handle(request, principal);
  }
  if (path == "/health" || path == "/health/live" || path == "/health/ready") {
    return request.method == "GET" ? gravitino.Health(path == "/health" ? "" : path.substr(8))
                                   : api::gravitino::PlainErrorResponse(
                                         405, 1006, "UnsupportedOperationException",
                                         "Only GET is allowed on health endpoints");
  }
  if (path == "/metrics" && metrics != nullptr) {
    if (request.method != "GET") {
      return api::gravitino::PlainErrorResponse(405, 1006, "UnsupportedOperationException",
                                                "Only GET is allowed on /metrics");
    }
    http::Response response;
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = metrics->Render();
    return response;
  }
  if (path == "/configs") {
    nlohmann::json body{{"gravitino.authenticators", authenticator_names},
                        {"gravitino.authorization.enable", authorization_enabled},
                        {"gravitino.schema.separator", ":"}};
    if (authorization_enabled) body["gravitino.authorization.serviceAdmins"] = service_admins;
    http::Response response;
    response.body = body.dump();
    return response;
  }
  return api::gravitino::PlainErrorResponse(
      404, 1003, "NotFoundException",
      fmt::format("No endpoint matches {} {}", request.method, api::gravitino::DisplayPath(path)));
}

http::Response Router::Serve(const http::Request& request) const {
  const Interface interface = InterfaceOf(request.path);
  governance::Principal principal;
  std::optional<http::Response> refusal;  // authentication's
  bool authenticated = true;
  if (!SkipsAuthentication(request)) {
    trace::Span authenticate("authenticate");
    auto p = authenticator.Authenticate(request.HeaderView("Authorization"),
                                        request.client_certificate_cn);
    if (p) authenticate.Set("enduser.id", p->user);
    else authenticate.Fail(p.error().message);
    if (p) {
      principal = std::move(*p);
    } else {
      authenticated = false;
      refusal = FrontError(interface, p.error(), 401, request.path);
      refusal->headers.emplace_back("WWW-Authenticate", authenticator.Challenge());
    }
  }
  // Limits apply to authenticated callers, after authentication (so a principal is known) and
  // before anything else: a refused request costs no store, storage or connector work.
  RequestLimiter::Ticket ticket;
  if (authenticated && limiter != nullptr && limiter->enabled() && !SkipsAuthentication(request)) {
    auto admitted = limiter->Admit(interface, principal.user);
    if (auto* refused = std::get_if<RequestLimiter::Refusal>(&admitted)) {
      http::Response response = FrontError(interface,
                            Error{ErrorCode::kTooManyRequests, EntityKind::kNone, refused->message},
                            429, request.path);
      response.headers.emplace_back("Retry-After", std::to_string(refused->retry_after_s));
      response.hold_ms = std::min(limiter->refusal_delay_ms(), refused->retry_after_s * 1000);
      if (metrics != nullptr) {
        metrics->ObserveLimited(InterfaceName(interface), refused->limit);
      }
      Audit(request, principal.user, authenticated, response);
      return response;
    }
    ticket = std::move(std::get<RequestLimiter::Ticket>(admitted));
  }
  http::Response response =
      authenticated ? Dispatch(request, principal, interface) : std::move(*refusal);
  Audit(request, principal.user, authenticated, response);
  return response;
}

}  // namespace cairn::app
