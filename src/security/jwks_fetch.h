// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "common/result.h"

namespace cairn::security {

/// Downloads a JWKS document from an http(s) URL (an identity provider's `jwks_uri`), with TLS
/// verification, a timeout and a 1 MiB size limit. kUnavailable when the provider cannot be
/// reached or answers other than 200; kInvalidArgument for a URL of another scheme.
Result<std::string> FetchJwks(const std::string& url, long timeout_ms = 5000);

}  // namespace cairn::security
