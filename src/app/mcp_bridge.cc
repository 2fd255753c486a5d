// SPDX-License-Identifier: Apache-2.0
#include "app/mcp_bridge.h"

#include <string>

#include <nlohmann/json.hpp>

#include "common/util.h"

namespace cairn::app {

namespace {

using nlohmann::json;

// An error answer to the message `id` (null when it could not be read).
std::string ErrorLine(const json& id, int code, const std::string& message) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

constexpr std::string_view kProtocolVersionKey = "io.modelcontextprotocol/protocolVersion";

}  // namespace

int RunMcpBridge(RestClient& client, std::istream& in, std::ostream& out) {
  // The handshake-era session the server opened for this process, and the version in use.
  std::string session;
  std::string version;
  std::string line;
  while (std::getline(in, line)) {
    if (Trim(line).empty()) continue;
    json msg = json::parse(line, nullptr, false);
    json id = nullptr;
    std::string method;
    if (msg.is_object()) {
      if (auto it = msg.find("id"); it != msg.end()) id = *it;
      if (auto it = msg.find("method"); it != msg.end() && it->is_string()) method = *it;
    }
    std::vector<std::pair<std::string, std::string>> headers = {
        {"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}};
    // The routing headers of the stateless revision mirror the message; the handshake era
    // carries its session and the version it agreed.
    std::string message_version = version;
    if (msg.is_object()) {
      const json* params =
          msg.contains("params") && msg["params"].is_object() ? &msg["params"] : nullptr;
      if (params != nullptr && params->contains("_meta") && (*params)["_meta"].is_object()) {
        const json& meta = (*params)["_meta"];
        if (auto v = meta.find(kProtocolVersionKey); v != meta.end() && v->is_string()) {
          message_version = v->get<std::string>();
          headers.emplace_back("Mcp-Method", method);
          if (method == "tools/call" && params->contains("name") && (*params)["name"].is_string()) {
            headers.emplace_back("Mcp-Name", (*params)["name"].get<std::string>());
          }
        }
      }
      if (method == "initialize") {
        session.clear();
        message_version.clear();
      }
    }
    if (!message_version.empty()) headers.emplace_back("MCP-Protocol-Version", message_version);
    if (!session.empty() && method != "initialize") headers.emplace_back("Mcp-Session-Id", session);
    ClientResponse answer = client.Send("POST", "/mcp", line, headers);
    if (answer.status == 0) {
      // No server to ask: the client still gets an answer to a request.
      if (!id.is_null()) {
        out << ErrorLine(id, -32603, "Cairn server unreachable: " + answer.error) << "\n"
            << std::flush;
      }
      continue;
    }
    if (method == "initialize" && answer.status == 200) {
      if (auto s = answer.headers.find("Mcp-Session-Id"); s != answer.headers.end()) {
        session = s->second;
      }
      json result = json::parse(answer.body, nullptr, false);
      if (result.is_object() && result.contains("result") && result["result"].is_object()) {
        version = result["result"].value("protocolVersion", std::string());
      }
    }
    if (answer.status == 202 || answer.body.empty()) continue;  // a notification's receipt
    json body = json::parse(answer.body, nullptr, false);
    if (!body.is_object()) {
      if (!id.is_null()) {
        out << ErrorLine(id, -32603, fmt::format("Cairn server answered HTTP {}", answer.status))
            << "\n"
            << std::flush;
      }
      continue;
    }
    out << body.dump(-1, ' ', false, json::error_handler_t::replace) << "\n" << std::flush;
  }
  return 0;
}

}  // namespace cairn::app
