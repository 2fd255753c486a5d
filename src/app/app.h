// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace cairn::app {

/// The `cairn` command line: `cairn serve [--config FILE] [--host H] [--port P] [--data-dir DIR]`,
/// `cairn version`, the client commands of docs/cli.md (`cairn catalog list`, ...) and
/// `cairn mcp`. Returns the process exit code.
int Main(int argc, char** argv);

}  // namespace cairn::app
