// SPDX-License-Identifier: Apache-2.0
// The status line and header fields of the server's answers, as sent on the wire.
#pragma once

#include <string>
#include <string_view>

#include "message/message.h"

namespace cairn::http {

/// The status line and header of `response`, through the empty line that ends them (RFC 9112):
/// `Server`, `Content-Type` (when there is a body or an error), `X-Request-Id`, the response's
/// own headers (one of the same name replaces an earlier one, ours included), `Connection` when
/// it differs from the version's default, and `Content-Length` of the body (none for 1xx, 204
/// and 304; an answer to HEAD is the GET answer's head, then no body). CR, LF and NUL never
/// reach the wire from a value: an answer cannot be split in two by what a handler put in a
/// header.
std::string ResponseHead(const Response& response, bool http11, bool keep_alive,
                         std::string_view request_id);

/// The reason phrase of a status code ("Not Found"); "Unknown" for codes it does not know.
std::string_view ReasonPhrase(int status);

}  // namespace cairn::http
