// SPDX-License-Identifier: Apache-2.0
// Gravitino's response envelopes; the one place where errors become its HTTP status, error code
// and exception type.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "message/message.h"

namespace cairn::api::gravitino {

/// What the failed request was doing, for Gravitino's message template:
/// `Failed to operate <kind>(s) [<name>] operation [<OP>] under <parent kind> [<parent>], reason
/// [..]`.
struct Operation {
  EntityKind kind = EntityKind::kNone;
  std::string name;
  std::string op;  // LIST CREATE LOAD ALTER DROP ENABLE DISABLE ...
  EntityKind parent_kind = EntityKind::kNone;
  std::string parent;
};

struct ErrorMapping {
  int http_status;
  int code;
  std::string type;
};

/// Gravitino's (HTTP status, code, exception type) for an error.
ErrorMapping MapError(const Error& error);

/// The success envelope: `{"code":0, ...body's members}` as a 200 response.
http::Response Ok(nlohmann::ordered_json body);

/// The error envelope `{"code","type","message","stack":[]}` as a response. Every message goes out
/// with each `%` doubled: Gravitino's clients (Java and Python alike) pass a server's message
/// through their format function (`String.format`, `message % args`) with no arguments, so `%%`
/// reads back as the `%` that was meant, and a name holding `%` never breaks their error handling.
http::Response ErrorResponse(const Error& error, const Operation& op);
/// `path` with each segment percent-decoded (a segment that does not decode stays as it is), for
/// messages: they name objects as the caller wrote them, not as the URL encoded them.
std::string DisplayPath(std::string_view path);

/// An envelope for transport-level failures (bad target, body too large, unknown route).
http::Response PlainErrorResponse(int http_status, int code, std::string_view type,
                                  std::string_view message);

}  // namespace cairn::api::gravitino
