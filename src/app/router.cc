// SPDX-License-Identifier: Apache-2.0
#include "app/router.h"

#include <nlohmann/json.hpp>

#include "api/gravitino/errors.h"
#include "api/iceberg/errors.h"
#include "common/util.h"

namespace cairn::app {

namespace {

enum class Interface { kGravitino, kIceberg, kService };

Interface InterfaceOf(std::string_view path) {
  if (path == "/iceberg" || path.rfind("/iceberg/", 0) == 0) return Interface::kIceberg;
  if (path == "/api" || path.rfind("/api/", 0) == 0) return Interface::kGravitino;
  return Interface::kService;
}

std::string_view InterfaceName(Interface i) {
  switch (i) {
    case Interface::kGravitino: return "gravitino";
    case Interface::kIceberg: return "iceberg";
    case Interface::kService: return "http";
  }
  return "http";
}

bool SkipsAuthentication(const http::Request& r) {
  return r.method == "CLOSE" || r.path == "/health" || r.path == "/health/live" || r.path == "/health/ready" ||
         r.path == "/api/health" || r.path == "/api/health/live" || r.path == "/api/health/ready" ||
         r.path == "/api/version" || r.path == "/configs";
}

// The addressed object, from the decoded resource path (no query: it may hold tokens).
std::string ObjectOf(const http::Request& r, Interface i) {
  std::string_view rest = r.path;
  if (i == Interface::kGravitino) rest.remove_prefix(std::min<size_t>(4, rest.size()));
  if (i == Interface::kIceberg) rest.remove_prefix(std::min<size_t>(8, rest.size()));
  auto decoded = PercentDecode(rest);
  std::string out = decoded.value_or(std::string(rest));
  for (char& c : out) {
    if (c == '\x1f') c = '.';
  }
  return out;
}

}  // namespace

http::Response RenderTransportError(int status, std::string_view message, std::string_view path) {
  if (InterfaceOf(path) == Interface::kIceberg) {
    const char* type = status == 413 ? "PayloadTooLargeException"
                       : status < 500 ? "BadRequestException"
                                      : "ServiceFailureException";
    return api::iceberg::PlainErrorResponse(status, type, message);
  }
  const int code = status < 500 ? 1001 : 1002;
  return api::gravitino::PlainErrorResponse(status, code, code == 1001 ? "IllegalArgumentException" : "RuntimeException",
                                            message);
}

http::Response Router::Handle(const http::Request& request) const {
  const Interface interface = InterfaceOf(request.path);
  governance::Principal principal;
  http::Response response;
  bool authenticated = true;
  if (!SkipsAuthentication(request)) {
    auto p = authenticator.Authenticate(request.Header("Authorization"));
    if (p) {
      principal = std::move(*p);
    } else {
      authenticated = false;
      const Error& e = p.error();
      response = interface == Interface::kIceberg ? api::iceberg::ErrorResponse(e)
                                                  : api::gravitino::ErrorResponse(e, api::gravitino::Operation{});
      response.headers.emplace_back("WWW-Authenticate", authenticator.Challenge());
    }
  }
  if (authenticated) {
    const std::string& path = request.path;
    if (request.method == "CLOSE") {
      response = http::Response{};  // the Python client's close(): 200 with an empty body
    } else if (interface == Interface::kIceberg) {
      response = iceberg.Handle(request, principal);
    } else if (interface == Interface::kGravitino) {
      if (auto r = admin.Handle(request, principal)) {
        response = std::move(*r);
      } else {
        response = gravitino.Handle(request, principal);
      }
    } else if (path == "/health" || path == "/health/live" || path == "/health/ready") {
      response = request.method == "GET"
                     ? gravitino.Health(path == "/health" ? "" : path.substr(8))
                     : api::gravitino::PlainErrorResponse(405, 1006, "UnsupportedOperationException",
                                                          "Only GET is allowed on health endpoints");
    } else if (path == "/configs") {
      nlohmann::json body{{"gravitino.authenticators", {"simple"}},
                          {"gravitino.authorization.enable", false},
                          {"gravitino.schema.separator", ":"}};
      response.body = body.dump();
    } else {
      response = api::gravitino::PlainErrorResponse(404, 1003, "NotFoundException",
                                                    fmt::format("No endpoint matches {} {}", request.method, path));
    }
  }
  governance::AuditRecord record;
  record.time_ms = NowMillis();
  record.principal = authenticated ? principal.user : "";
  record.interface = std::string(InterfaceName(interface));
  record.operation = request.method;
  record.object = ObjectOf(request, interface);
  record.status = response.status;
  record.outcome = response.status == 401 || response.status == 403 ? "denied"
                   : response.status < 400                          ? "success"
                                                                    : "failure";
  record.request_id = request.request_id;
  record.client = request.remote_address;
  audit.Write(record);
  return response;
}

}  // namespace cairn::app
