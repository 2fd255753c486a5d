// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>

namespace cairn::service {

/// The `simple` authenticator: the user name of an `Authorization: Basic` header (password
/// ignored), or "anonymous" without one.
std::string SimplePrincipal(const std::optional<std::string>& authorization);

}  // namespace cairn::service
