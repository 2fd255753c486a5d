// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "message/message.h"
#include "service/authorizer.h"
#include "service/metadata_service.h"

namespace cairn::api::gravitino {

struct ApiInfo {
  std::string version = "1.3.1";  // reported to clients; 1.3 clients need >= 1.3.0
  std::string compile_date;
  std::string git_commit;
};

/// The Gravitino-compatible REST API under `/api`: routing, request parsing, response
/// envelopes and error mapping. Holds no state of its own; safe from many threads.
class GravitinoApi {
 public:
  GravitinoApi(service::MetadataService& service, service::Authorizer& authorizer, ApiInfo info,
               std::function<bool()> ready);

  /// Handles a request whose path starts with `/api`, for an authenticated principal.
  /// Never throws for any request body: a wrongly typed field is a 400 (code 1001) naming it,
  /// and a JSON type error that a reader missed is a 400 `IllegalArgumentException` whose
  /// message does not carry the JSON library's text (that is logged instead).
  http::Response Handle(const http::Request& request, const governance::Principal& principal) const;

  /// `/health`, `/health/live`, `/health/ready` (also served outside `/api`).
  http::Response Health(std::string_view which) const;

 private:
  /// Handle without the safety net: routing, authorization and the call.
  http::Response Dispatch(const http::Request& request,
                          const governance::Principal& principal) const;

  /// Users, groups, roles, permissions, owners and object roles (405 when authorization is off).
  http::Response HandleAccessControl(const http::Request& request,
                                     const governance::Principal& principal,
                                     const std::vector<std::string>& seg) const;

  /// Storage credentials for a catalog, table or fileset (`objects/{type}/{name}/credentials`).
  http::Response Credentials(const http::Request& request, const governance::Principal& principal,
                             const std::string& metalake, const std::string& type,
                             const std::string& full_name, int64_t now_ms) const;

  /// `.../schemas/{s}/filesets[/{f}[/files|/location]]` of fileset catalogs.
  http::Response HandleFilesets(const http::Request& request,
                                const governance::Principal& principal,
                                const std::vector<std::string>& seg) const;

  service::MetadataService& service_;
  service::Authorizer& authz_;
  ApiInfo info_;
  std::function<bool()> ready_;
};

}  // namespace cairn::api::gravitino
