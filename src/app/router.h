// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

#include "api/admin/admin_api.h"
#include "api/gravitino/gravitino_api.h"
#include "api/iceberg/iceberg_api.h"
#include "governance/audit.h"
#include "http/message.h"
#include "service/authenticator.h"

namespace cairn::app {

/// The front of the request pipeline: picks the interface by path, authenticates (401 in that
/// interface's format), hands the request and principal to it, and writes one audit record for
/// every request, whatever its outcome.
struct Router {
  api::gravitino::GravitinoApi& gravitino;
  api::iceberg::IcebergApi& iceberg;
  api::AdminApi& admin;
  service::Authenticator& authenticator;
  governance::AuditLog& audit;

  http::Response Handle(const http::Request& request) const;
};

/// A transport-level error (bad request line, body too large) in the format of `path`'s protocol.
http::Response RenderTransportError(int status, std::string_view message, std::string_view path);

}  // namespace cairn::app
