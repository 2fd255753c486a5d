// SPDX-License-Identifier: Apache-2.0
// The one place where errors become Iceberg REST status codes and error types.
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"
#include "message/message.h"

namespace cairn::api::iceberg {

struct ErrorMapping {
  int http_status;
  std::string type;
};

/// Iceberg's (HTTP status, exception type) for an error, as the Java client and the REST
/// compatibility kit expect them.
ErrorMapping MapError(const Error& error);

/// `{"error":{"message","type","code"}}`.
http::Response ErrorResponse(const Error& error);
http::Response PlainErrorResponse(int status, std::string_view type, std::string_view message);

}  // namespace cairn::api::iceberg
