// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/iceberg/idempotency.h"
#include "api/routes.h"
#include "message/message.h"
#include "service/object_service.h"

namespace cairn::connector {
class ExternalRows;
class IcebergProxy;
}  // namespace cairn::connector

namespace cairn::api::iceberg {

using api::RouteDescription;

/// The route `method path` (a full path starting with /iceberg) takes, or nullopt when none; a
/// namespace among its names is dotted.
std::optional<RouteDescription> DescribeRoute(std::string_view method, std::string_view path);

/// The `endpoints` GET /v1/config advertises: `<METHOD> <pattern>` of every served route.
std::vector<std::string> AdvertisedEndpoints();

class ScanPlans;

struct IcebergApiOptions {
  /// Metalake used when a client names only the catalog as its warehouse.
  std::string default_metalake;
  /// Honours Idempotency-Key on mutations and advertises its lifetime (nullptr: neither).
  IdempotentRequests* idempotency = nullptr;
  /// Scan planning: manifest entries one answer covers before the plan is split into plan
  /// tasks (cairn.iceberg.scan-plan-files-per-task), and the `scan-planning-mode` GET
  /// /v1/config sets for clients ("server" or "client"; empty: the client's own choice).
  size_t scan_plan_files_per_task = 1000;
  std::string scan_planning_mode;
  /// The plans this server answered, for GET and DELETE of a plan id (made by IcebergApi).
  std::shared_ptr<ScanPlans> scan_plans;
};

/// The Iceberg REST catalog protocol under `/iceberg/v1`, over the `lakehouse-iceberg`
/// catalogs of every metalake. The prefix of a catalog is `<metalake>.<catalog>`.
class IcebergApi {
 public:
  IcebergApi(service::ObjectService& objects, IcebergApiOptions options);

  /// Handles a request whose path starts with `/iceberg`, for an authenticated principal.
  /// Never throws for any request body: a wrongly typed field is a 400 naming it, and a JSON type
  /// error that a reader missed is a 400 `BadRequestException` whose message does not carry the
  /// JSON library's text (that is logged instead).
  http::Response Handle(const http::Request& request, const governance::Principal& principal) const;

 private:
  /// Handle without idempotency keys: the safety net around Dispatch.
  http::Response Guarded(const http::Request& request,
                         const governance::Principal& principal) const;
  /// Handle without the safety net: routing, authorization and the call.
  http::Response Dispatch(const http::Request& request,
                          const governance::Principal& principal) const;
  /// A request for a federated catalog (catalog-backend `rest`): checked with the Authorizer
  /// when the catalog has `rest.check-privileges`, then forwarded (docs/federation.md); after a
  /// 2xx answer `rows` (the catalog's governance rows, when kept) follow what the remote did.
  http::Response Forward(const http::Request& request, const governance::Principal& principal,
                         const std::pair<std::string, std::string>& names,
                         connector::IcebergProxy& proxy, connector::ExternalRows* rows,
                         const std::vector<std::string>& seg) const;
  /// GET /v1/config of a federated catalog: the remote's defaults and overrides, this server's
  /// prefix.
  http::Response FederatedConfig(const http::Request& request, const std::string& prefix,
                                 connector::IcebergProxy& proxy) const;

  service::ObjectService& objects_;  // resolve, authorize, publish: the path every interface takes
  service::MetadataService& service_;
  service::Authorizer& authz_;
  IcebergApiOptions options_;
};

}  // namespace cairn::api::iceberg
