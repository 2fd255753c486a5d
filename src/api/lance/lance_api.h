// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/routes.h"
#include "common/error.h"
#include "message/message.h"
#include "service/object_service.h"

namespace cairn::api::lance {

using api::RouteDescription;

/// The route `method path` (a full path starting with /lance) takes, or nullopt when none; the
/// names are the metalake and the identifier's levels.
std::optional<RouteDescription> DescribeRoute(std::string_view method, std::string_view path);

struct LanceApiOptions {
  /// The metalake `/lance/v1` serves; empty: the server's only metalake. `/lance/{metalake}/v1`
  /// names one explicitly.
  std::string metalake;
};

/// The Lance namespace REST protocol (lance-format/lance-namespace `rest.yaml`) under `/lance`:
/// level 1 of an identifier is a `lakehouse-generic` catalog, level 2 a schema, level 3 a table
/// (`catalog$schema$table`, `$` or the `delimiter` query parameter). Namespaces and tables are
/// metadata operations through the object service, so the one authorizer decides and the same
/// tables are seen through the Gravitino API; clients read and write the Lance files themselves
/// at the location (and with the storage options) answered here. Operations that would make the
/// server read or write a dataset's files answer the spec's Unsupported error. See docs/lance.md.
class LanceApi {
 public:
  LanceApi(service::ObjectService& objects, LanceApiOptions options);

  /// Handles a request whose path starts with `/lance`, for an authenticated principal. Never
  /// throws for any request body.
  http::Response Handle(const http::Request& request, const governance::Principal& principal) const;

  /// Lance's `ErrorResponse {error, code, detail, instance}` for `error`, with the HTTP status
  /// and error code the spec gives its kind (`table` when the error is about a table).
  static http::Response ErrorResponse(const Error& error, std::string_view instance);
  /// An error that reached no operation (authentication, transport), with its HTTP status.
  static http::Response TransportError(int status, std::string_view message,
                                       std::string_view instance);

 private:
  http::Response Dispatch(const http::Request& request,
                          const governance::Principal& principal) const;

  service::ObjectService& objects_;
  LanceApiOptions options_;
};

}  // namespace cairn::api::lance
