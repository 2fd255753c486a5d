// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

#include <spdlog/spdlog.h>

namespace cairn {

/// Configures the process-wide logger (stderr, UTC timestamps). Messages are written in logfmt
/// (`event=request method=GET status=200 ...`) so they stay machine-readable.
/// `level` is one of trace|debug|info|warn|error|off.
void InitLogging(std::string_view level);

}  // namespace cairn
