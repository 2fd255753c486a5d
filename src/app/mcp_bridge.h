// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <istream>
#include <ostream>

#include "app/rest_client.h"

namespace cairn::app {

/// `cairn mcp`: an MCP server over stdio for clients that start a local process. Each JSON-RPC
/// message read from `in` (one per line) is sent to the `/mcp` endpoint of the Cairn server
/// `client` talks to, with its credentials; each answer is written to `out` as one line. Returns
/// the process exit code (0 at the end of `in`).
int RunMcpBridge(RestClient& client, std::istream& in, std::ostream& out);

}  // namespace cairn::app
