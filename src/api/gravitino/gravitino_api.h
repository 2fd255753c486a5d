// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/routes.h"
#include "message/message.h"
#include "service/object_service.h"

namespace cairn::service {
class JobService;
}  // namespace cairn::service

namespace cairn::api::gravitino {

struct ApiInfo {
  std::string version = "1.3.1";  // reported to clients; 1.3 clients need >= 1.3.0
  std::string compile_date;
  std::string git_commit;
};

using api::RouteDescription;

/// The route `method path` (a full path starting with /api) takes, or nullopt when none.
std::optional<RouteDescription> DescribeRoute(std::string_view method, std::string_view path);

/// The Gravitino-compatible REST API under `/api`: one route table (api/gravitino/routes.h),
/// request parsing, response envelopes and error mapping; every call on an object inside a
/// catalog goes through the object service. Holds no state of its own; safe from many threads.
class GravitinoApi {
 public:
  GravitinoApi(service::ObjectService& objects, ApiInfo info, std::function<bool()> ready);

  /// Handles a request whose path starts with `/api`, for an authenticated principal.
  /// Never throws for any request body: a wrongly typed field is a 400 (code 1001) naming it,
  /// and a JSON type error that a reader missed is a 400 `IllegalArgumentException` whose
  /// message does not carry the JSON library's text (that is logged instead).
  http::Response Handle(const http::Request& request, const governance::Principal& principal) const;

  /// `/health`, `/health/live`, `/health/ready` (also served outside `/api`).
  http::Response Health(std::string_view which) const;

  const ApiInfo& info() const { return info_; }

  /// The job service the jobs routes use (not owned; none: they answer 405).
  void SetJobs(service::JobService* jobs) { jobs_ = jobs; }
  service::JobService* jobs() const { return jobs_; }

 private:
  /// Handle without the safety net: routing, authorization and the call.
  http::Response Dispatch(const http::Request& request,
                          const governance::Principal& principal) const;


  service::ObjectService& objects_;
  ApiInfo info_;
  std::function<bool()> ready_;
  service::JobService* jobs_ = nullptr;
};

}  // namespace cairn::api::gravitino
