// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/mcp/tools.h"
#include "message/message.h"
#include "service/authorizer.h"

namespace cairn::api::mcp {

struct McpOptions {
  bool enabled = true;
  /// Tools that change metadata (associate tags, link a model version) are listed and callable.
  bool allow_writes = false;
  /// Origins a browser page may call from, besides the server's own (`Origin` equal to the
  /// request's `Host`); `*` allows any.
  std::vector<std::string> allowed_origins;
  /// The metalake a tool call addresses when it names none.
  std::string default_metalake;
  /// Sessions of the handshake-era protocol (2025-11-25 and before) kept at once; the least
  /// recently used goes first.
  size_t max_sessions = 10000;
  int64_t session_idle_ms = 60LL * 60 * 1000;
  std::string server_version;
};

/// The protocol revisions served: the stateless per-request one, and the handshake-era ones.
inline constexpr const char* kModernVersions[] = {"2026-07-28"};
inline constexpr const char* kHandshakeVersions[] = {"2024-11-05", "2025-03-26", "2025-06-18",
                                                     "2025-11-25"};

/// The Model Context Protocol at `/mcp` (Streamable HTTP: one JSON-RPC message per POST, a JSON
/// answer). Speaks 2026-07-28 (no handshake: every request carries its version and the client's
/// capabilities in `_meta`; `server/discover`) and the handshake-era revisions (`initialize`,
/// `Mcp-Session-Id`). Tools reach the catalog through the Gravitino and Iceberg REST interfaces
/// of this process, as the authenticated principal: the same authorizer decides, and nothing is
/// shown that the principal may not see. See docs/mcp.md.
class McpApi {
 public:
  McpApi(ToolContext context, McpOptions options);

  http::Response Handle(const http::Request& request, const governance::Principal& principal) const;

  /// A JSON-RPC error as the HTTP answer (`id` null): for a request that never reached the
  /// protocol (authentication failed, a transport error).
  static http::Response TransportError(int http_status, std::string_view message);

  const McpOptions& options() const { return options_; }

 private:
  struct Session {
    std::string principal;
    std::string version;
    std::chrono::steady_clock::time_point last_used;
  };

  http::Response Post(const http::Request& request, const governance::Principal& principal) const;
  std::string NewSession(const std::string& principal, const std::string& version) const;
  /// The session's protocol version, refreshed; empty when there is no such live session of
  /// `principal`.
  std::string TouchSession(const std::string& id, const std::string& principal) const;
  bool EndSession(const std::string& id, const std::string& principal) const;
  bool OriginAllowed(const http::Request& request) const;

  ToolContext context_;
  McpOptions options_;
  Tools tools_;
  mutable std::mutex sessions_mu_;
  mutable std::map<std::string, Session> sessions_;
};

}  // namespace cairn::api::mcp
