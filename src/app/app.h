// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace cairn::app {

/// The `cairn` command line: `cairn serve [--config FILE] [--host H] [--port P] [--data-dir DIR]`
/// and `cairn version`. Returns the process exit code.
int Main(int argc, char** argv);

}  // namespace cairn::app
