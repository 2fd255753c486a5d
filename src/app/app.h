// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <span>

#include "api/ui/ui_api.h"

namespace cairn::app {

/// The `cairn` command line: `cairn serve [--config FILE] [--host H] [--port P] [--data-dir DIR]`,
/// `cairn version`, the client commands of docs/cli.md (`cairn catalog list`, ...) and
/// `cairn mcp`. Returns the process exit code.
/// `ui`: the web UI's files compiled into the binary (none: /ui answers that it is not built).
int Main(int argc, char** argv, std::span<const api::ui::UiFile> ui = {});

}  // namespace cairn::app
