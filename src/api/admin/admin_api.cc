// SPDX-License-Identifier: Apache-2.0
#include "api/admin/admin_api.h"

#include <nlohmann/json.hpp>

#include "api/gravitino/errors.h"
#include "common/util.h"
#include "json/json_util.h"

namespace cairn::api {

using gravitino::ErrorResponse;
using gravitino::Ok;
using gravitino::Operation;
using gravitino::PlainErrorResponse;

std::optional<http::Response> AdminApi::Handle(const http::Request& request,
                                               const governance::Principal& principal) const {
  const std::string& path = request.path;
  const bool audit = path == "/api/audit";
  const bool idp = path == "/api/idp/users" || path.rfind("/api/idp/users/", 0) == 0;
  if (!audit && !idp) return std::nullopt;
  Operation op;
  if (authorizer_.enabled() && !authorizer_.access().IsServiceAdmin(principal.user)) {
    return ErrorResponse(MakeError(ErrorCode::kPermissionDenied, EntityKind::kNone,
                                   "User '{}' is not a service admin", principal.user),
                         op);
  }
  if (audit) {
    if (request.method != "GET")
      return PlainErrorResponse(405, 1006, "UnsupportedOperationException", "Only GET is allowed");
    governance::AuditQuery q;
    if (auto v = request.Query("principal")) q.principal = *v;
    if (auto v = request.Query("object")) q.object = *v;
    if (auto v = request.Query("outcome")) q.outcome = *v;
    if (auto v = request.Query("interface")) q.interface = *v;
    if (auto v = request.Query("operation")) q.operation = *v;
    for (const char* key : {"from", "to", "limit"}) {
      auto v = request.Query(key);
      if (!v) continue;
      auto n = ParseInt64(*v);
      if (!n || *n < 0) {
        return ErrorResponse(
            InvalidArgument(
                "Query parameter '{}' must be a non-negative integer (epoch ms for from/to)", key),
            op);
      }
      if (std::string(key) == "from") q.from_ms = *n;
      if (std::string(key) == "to") q.to_ms = *n;
      if (std::string(key) == "limit") q.limit = static_cast<size_t>(std::min<int64_t>(*n, 100000));
    }
    audit_.Sync();
    auto records = audit_.Query(q);
    if (!records) return ErrorResponse(records.error(), op);
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& line : *records) arr.push_back(json::ParseOrderedJsonOrDiscarded(line));
    return Ok({{"records", arr}});
  }
  // idp users
  if (!authenticator_.basic_enabled()) {
    return PlainErrorResponse(
        405, 1006, "UnsupportedOperationException",
        "Local users exist only with the 'basic' authenticator (cairn.authenticators)");
  }
  if (path == "/api/idp/users") {
    if (request.method == "GET") {
      auto names = authenticator_.ListBasicUsers();
      if (!names) return ErrorResponse(names.error(), op);
      return Ok({{"names", *names}});
    }
    if (request.method == "POST") {
      auto body = json::ParseJsonOrDiscarded(request.body);
      if (body.is_discarded() || !body.is_object()) {
        return ErrorResponse(InvalidArgument("Malformed json request"), op);
      }
      if (!body.contains("user") || !body["user"].is_string()) {
        return ErrorResponse(InvalidArgument("Field 'user' is required and must be a string"), op);
      }
      if (!body.contains("password") || !body["password"].is_string()) {
        return ErrorResponse(InvalidArgument("Field 'password' is required and must be a string"),
                             op);
      }
      model::Audit a;
      a.creator = principal.user;
      a.create_time = NowMillis();
      auto s = authenticator_.AddBasicUser(body["user"].get<std::string>(),
                                           body["password"].get<std::string>(), a);
      if (!s) return ErrorResponse(s.error(), op);
      return Ok({{"user", {{"name", body["user"]}}}});
    }
    return PlainErrorResponse(405, 1006, "UnsupportedOperationException",
                              "Only GET and POST are allowed");
  }
  if (request.method != "DELETE")
    return PlainErrorResponse(405, 1006, "UnsupportedOperationException", "Only DELETE is allowed");
  auto name = PercentDecode(path.substr(std::string("/api/idp/users/").size()));
  if (!name) return ErrorResponse(InvalidArgument("Malformed user name"), op);
  auto removed = authenticator_.RemoveBasicUser(*name);
  if (!removed) return ErrorResponse(removed.error(), op);
  return Ok({{"removed", *removed}});
}

}  // namespace cairn::api
