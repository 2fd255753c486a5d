// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "governance/access_control.h"
#include "governance/audit.h"
#include "message/message.h"
#include "service/authenticator.h"
#include "service/authorizer.h"

namespace cairn::api {

/// Cairn's own administration endpoints, in the Gravitino envelope:
///  - `GET /api/audit?principal=&object=&outcome=&from=&to=&limit=`: audit records, newest first
///    (`from`/`to` are epoch milliseconds or ISO instants are not parsed: milliseconds only);
///  - `GET|POST /api/idp/users`, `DELETE /api/idp/users/{user}`: local users of the `basic`
///    authenticator (`{"user","password"}`).
/// With authorization on, only service admins may call them.
class AdminApi {
 public:
  AdminApi(service::Authenticator& authenticator, service::Authorizer& authorizer,
           governance::AuditLog& audit)
      : authenticator_(authenticator), authorizer_(authorizer), audit_(audit) {}

  /// Handles `/api/audit` and `/api/idp/...`; nullopt for other paths.
  std::optional<http::Response> Handle(const http::Request& request,
                                       const governance::Principal& principal) const;

 private:
  service::Authenticator& authenticator_;
  service::Authorizer& authorizer_;
  governance::AuditLog& audit_;
};

}  // namespace cairn::api
