// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

#include "api/admin/admin_api.h"
#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/iceberg_api.h"
#include "api/lance/lance_api.h"
#include "api/mcp/mcp_api.h"
#include "api/ui/ui_api.h"
#include "app/request_limits.h"
#include "app/server_metrics.h"
#include "governance/audit.h"
#include "message/message.h"
#include "service/authenticator.h"

namespace cairn::app {

/// The front of the request pipeline: picks the interface by path, authenticates (401 in that
/// interface's format), hands the request and principal to it, and writes one audit record for
/// every request, whatever its outcome, and counts it in the server's metrics.
struct Router {
  api::gravitino::GravitinoApi& gravitino;
  api::iceberg::IcebergApi& iceberg;
  api::AdminApi& admin;
  service::Authenticator& authenticator;
  governance::AuditLog& audit;
  std::vector<std::string> authenticator_names;  // reported by /configs
  bool authorization_enabled = false;
  std::vector<std::string> service_admins;
  const api::mcp::McpApi* mcp = nullptr;  // null when the MCP endpoint is off (then /mcp is 404)
  const api::lance::LanceApi* lance = nullptr;  // the Lance REST service under /lance
  ServerMetrics* metrics = nullptr;             // counts every request; serves /metrics (null: 404)
  RequestLimiter* limiter = nullptr;            // per-principal and per-interface limits (429)
  const api::ui::UiApi* ui = nullptr;           // the web UI's files under /ui (null: 404)

  http::Response Handle(const http::Request& request) const;

  /// A transport-level error (bad request line, body too large, handler crash) in the format of
  /// the request path's protocol; audited like every other request.
  http::Response RenderTransportError(int status, std::string_view message,
                                      const http::Request& partial) const;

 private:
  /// Handle without the request's span.
  http::Response Serve(const http::Request& request) const;
  /// The answer of the interface (one of request limits' names) the path addresses, for an
  /// authenticated caller.
  http::Response Dispatch(const http::Request& request, const governance::Principal& principal,
                          LimitedInterface interface) const;
  void Audit(const http::Request& request, const std::string& principal, bool authenticated,
             const http::Response& response) const;
};

/// What the audit trail records of a request: the operation ("<METHOD> <route template>") and
/// the full name of the addressed object ("metalake.catalog.schema.table"), derived from the
/// path alone (never from the query string, which may carry secrets).
struct AuditSubject {
  std::string operation;
  std::string object;
  bool creates = false;  // the body names the object the request creates (added to `object`)
  bool routed = false;   // named by a protocol's route table (else by the path's own segments)
};
AuditSubject DescribeRequest(std::string_view method, std::string_view path);

}  // namespace cairn::app
