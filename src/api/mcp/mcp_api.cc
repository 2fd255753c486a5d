// SPDX-License-Identifier: Apache-2.0
#include "api/mcp/mcp_api.h"

#include <algorithm>
#include <optional>

#include <openssl/rand.h>

#include "common/util.h"
#include "json/json_util.h"

namespace cairn::api::mcp {

namespace {

using nlohmann::json;

// JSON-RPC 2.0 and MCP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kHeaderMismatch = -32020;
constexpr int kUnsupportedVersion = -32022;
constexpr int kSessionNotFound = -32001;

constexpr std::string_view kProtocolVersionKey = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view kClientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view kServerInfoKey = "io.modelcontextprotocol/serverInfo";

constexpr const char* kInstructions =
    "Tools over the metadata of a Cairn catalog server: metalakes, catalogs, schemas, tables "
    "(columns, partitioning, snapshots), views, filesets and their files, models and versions, "
    "topics, functions, tags, policies, statistics, lineage, owners and the caller's own "
    "privileges. Objects are named by metalake, catalog, schema and name; `search` finds them "
    "by name, comment, tag or column. Every call runs as the authenticated caller and shows only "
    "what the caller may see.";

bool IsModernVersion(std::string_view v) {
  return std::find(std::begin(kModernVersions), std::end(kModernVersions), v) !=
         std::end(kModernVersions);
}

bool IsHandshakeVersion(std::string_view v) {
  return std::find(std::begin(kHandshakeVersions), std::end(kHandshakeVersions), v) !=
         std::end(kHandshakeVersions);
}

json AllVersions() {
  json out = json::array();
  for (const char* v : kHandshakeVersions) out.push_back(v);
  for (const char* v : kModernVersions) out.push_back(v);
  return out;
}

http::Response JsonAnswer(int status, const json& body) {
  http::Response r;
  r.status = status;
  r.content_type = "application/json";
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

json ErrorBody(const json& id, int code, std::string_view message, const json* data = nullptr) {
  json error{{"code", code}, {"message", std::string(message)}};
  if (data != nullptr) error["data"] = *data;
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

// The HTTP status of a JSON-RPC error on the stateless revision's wire.
int ModernStatus(int code) {
  switch (code) {
    case kParseError:
    case kInvalidRequest:
    case kInvalidParams:
    case kHeaderMismatch:
    case kUnsupportedVersion:
      return 400;
    case kMethodNotFound:
      return 404;
    default:
      return 200;
  }
}

bool MediaTypeIs(std::string_view header, std::string_view type) {
  for (const auto& part : Split(header, ',')) {
    std::string_view p = Trim(part);
    p = Trim(p.substr(0, p.find(';')));
    if (EqualsIgnoreCase(p, type)) return true;
  }
  return false;
}

std::string RandomSessionId() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return RandomUuid();
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

// One JSON-RPC request after the envelope checks: what dispatch needs and what it reports.
struct Exchange {
  const http::Request& request;
  const governance::Principal& principal;
  json id;
  std::string method;
  json params;
  std::string version;
  bool modern = false;
  // For the audit record.
  std::string operation;
  std::string object;
  int tool_status = 0;
  bool tool_writes = false;
};

}  // namespace

McpApi::McpApi(ToolContext context, McpOptions options)
    : context_(std::move(context)), options_(std::move(options)) {}

http::Response McpApi::TransportError(int http_status, std::string_view message) {
  return JsonAnswer(http_status,
                    ErrorBody(nullptr, http_status == 401 ? -32001 : kInvalidRequest, message));
}

bool McpApi::OriginAllowed(const http::Request& request) const {
  auto origin = request.Header("Origin");
  if (!origin) return true;  // not a browser
  for (const auto& allowed : options_.allowed_origins) {
    if (allowed == "*" || EqualsIgnoreCase(allowed, *origin)) return true;
  }
  // The server's own origin: scheme://host[:port] equal to the Host the page was served from.
  auto host = request.Header("Host");
  if (!host) return false;
  std::string_view o = *origin;
  for (std::string_view scheme : {"http://", "https://"}) {
    if (o.substr(0, scheme.size()) == scheme)
      return EqualsIgnoreCase(o.substr(scheme.size()), *host);
  }
  return false;
}

std::string McpApi::NewSession(const std::string& principal, const std::string& version) const {
  std::string id = RandomSessionId();
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(sessions_mu_);
  if (sessions_.size() >= options_.max_sessions) {
    // Expired ones first; else the least recently used.
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      const auto idle =
          std::chrono::duration_cast<std::chrono::milliseconds>(now - it->second.last_used);
      it = idle.count() > options_.session_idle_ms ? sessions_.erase(it) : std::next(it);
    }
    if (sessions_.size() >= options_.max_sessions && !sessions_.empty()) {
      auto oldest = std::min_element(sessions_.begin(), sessions_.end(), [](auto& a, auto& b) {
        return a.second.last_used < b.second.last_used;
      });
      sessions_.erase(oldest);
    }
  }
  sessions_[id] = Session{principal, version, now};
  return id;
}

std::string McpApi::TouchSession(const std::string& id, const std::string& principal) const {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(sessions_mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return "";
  const auto idle =
      std::chrono::duration_cast<std::chrono::milliseconds>(now - it->second.last_used);
  if (idle.count() > options_.session_idle_ms) {
    sessions_.erase(it);
    return "";
  }
  // A session belongs to the principal that opened it; another one is told it does not exist.
  if (it->second.principal != principal) return "";
  it->second.last_used = now;
  return it->second.version;
}

bool McpApi::EndSession(const std::string& id, const std::string& principal) const {
  std::lock_guard lock(sessions_mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.principal != principal) return false;
  sessions_.erase(it);
  return true;
}

http::Response McpApi::Handle(const http::Request& request,
                              const governance::Principal& principal) const {
  http::Response response;
  if (!OriginAllowed(request)) {
    response = TransportError(403, "Origin not allowed");
  } else if (request.method == "POST") {
    return Post(request, principal);
  } else if (request.method == "DELETE") {
    auto id = request.Header("Mcp-Session-Id");
    if (!id) {
      response = TransportError(400, "Missing Mcp-Session-Id header");
    } else if (!EndSession(*id, principal.user)) {
      response = JsonAnswer(404, ErrorBody(nullptr, kSessionNotFound, "Session not found"));
    } else {
      response.status = 204;
      response.content_type.clear();
    }
  } else {
    // No stream of server-initiated messages is offered: this server never sends any.
    response = TransportError(405, "Method not allowed: POST a JSON-RPC message");
    response.headers.emplace_back("Allow", "POST, DELETE");
  }
  response.audit_operation = fmt::format("{} /mcp", request.method);
  return response;
}

http::Response McpApi::Post(const http::Request& request,
                            const governance::Principal& principal) const {
  auto finish = [](http::Response r, const std::string& operation) {
    r.audit_operation = operation.empty() ? "POST /mcp" : operation;
    return r;
  };
  auto content_type = request.Header("Content-Type");
  if (!content_type || !MediaTypeIs(*content_type, "application/json")) {
    return finish(TransportError(415, "Content-Type must be application/json"), "");
  }
  if (auto accept = request.Header("Accept"); accept && !MediaTypeIs(*accept, "application/json") &&
                                              !MediaTypeIs(*accept, "*/*") &&
                                              !MediaTypeIs(*accept, "application/*")) {
    return finish(TransportError(406, "Accept must allow application/json"), "");
  }
  auto parsed = cairn::json::ParseJson(request.body);
  if (!parsed) {
    return finish(
        JsonAnswer(400, ErrorBody(nullptr, kParseError, "Parse error: " + parsed.error().message)),
        "");
  }
  const json& msg = *parsed;
  if (msg.is_array()) {
    return finish(JsonAnswer(400, ErrorBody(nullptr, kInvalidRequest,
                                            "Invalid request: batches are not supported")),
                  "");
  }
  if (!msg.is_object()) {
    return finish(JsonAnswer(400, ErrorBody(nullptr, kInvalidRequest,
                                            "Invalid request: a JSON-RPC message is an object")),
                  "");
  }
  json id = nullptr;
  const auto id_it = msg.find("id");
  const bool has_id = id_it != msg.end();
  if (has_id) {
    if (!id_it->is_string() && !id_it->is_number_integer()) {
      return finish(JsonAnswer(400, ErrorBody(nullptr, kInvalidRequest,
                                              "Invalid request: 'id' must be a string or an "
                                              "integer")),
                    "");
    }
    id = *id_it;
  }
  const auto jsonrpc = msg.find("jsonrpc");
  if (jsonrpc == msg.end() || *jsonrpc != "2.0") {
    return finish(JsonAnswer(400, ErrorBody(id, kInvalidRequest,
                                            "Invalid request: 'jsonrpc' must be \"2.0\"")),
                  "");
  }
  const auto method_it = msg.find("method");
  if (method_it == msg.end()) {
    if (has_id && (msg.contains("result") || msg.contains("error"))) {
      // An answer to a request of the server's: it sends none, so there is nothing to match.
      http::Response r;
      r.status = 202;
      r.content_type.clear();
      return finish(std::move(r), "");
    }
    return finish(
        JsonAnswer(400, ErrorBody(id, kInvalidRequest, "Invalid request: 'method' is required")),
        "");
  }
  if (!method_it->is_string()) {
    return finish(JsonAnswer(400, ErrorBody(id, kInvalidRequest,
                                            "Invalid request: 'method' must be a string")),
                  "");
  }
  const std::string method = method_it->get<std::string>();
  json params = msg.value("params", json::object());
  if (!params.is_object()) {
    return finish(JsonAnswer(400, ErrorBody(id, kInvalidParams,
                                            "Invalid params: 'params' must be an object")),
                  "mcp " + method);
  }
  if (!has_id) {
    // A notification (initialized, cancelled, ...): acknowledged; nothing here acts on one.
    http::Response r;
    r.status = 202;
    r.content_type.clear();
    return finish(std::move(r), "mcp " + method);
  }

  Exchange x{request, principal, id, method, params};
  x.operation = "mcp " + method;
  const json* meta = nullptr;
  if (auto m = params.find("_meta"); m != params.end() && m->is_object()) meta = &*m;
  auto version_header = request.Header("MCP-Protocol-Version");
  x.modern = method != "initialize" &&
             (method == "server/discover" || (meta && meta->contains(kProtocolVersionKey)) ||
              (version_header && IsModernVersion(*version_header)));
  http::Response r;
  auto fail = [&](int code, std::string_view message, const json* data = nullptr) {
    return finish(
        JsonAnswer(x.modern ? ModernStatus(code)
                            : (code == kParseError || code == kInvalidRequest ? 400 : 200),
                   ErrorBody(id, code, message, data)),
        x.operation);
  };

  if (x.modern) {
    // The per-request envelope: the version and the client's capabilities in `_meta`, mirrored
    // by the routing headers; the version must be one served.
    if (meta == nullptr || !meta->contains(kProtocolVersionKey) ||
        !meta->contains(kClientCapabilitiesKey)) {
      return fail(kInvalidParams, fmt::format("params._meta must carry '{}' and '{}'",
                                              kProtocolVersionKey, kClientCapabilitiesKey));
    }
    const json& version = (*meta)[std::string(kProtocolVersionKey)];
    if (!version_header || !version.is_string() || *version_header != version.get<std::string>()) {
      return fail(kHeaderMismatch,
                  "MCP-Protocol-Version header does not match the request's protocol version");
    }
    auto method_header = request.Header("Mcp-Method");
    if (!method_header || *method_header != method) {
      return fail(kHeaderMismatch, "Mcp-Method header does not match the request's method");
    }
    if (method == "tools/call") {
      auto name_header = request.Header("Mcp-Name");
      if (auto n = params.find("name"); n != params.end() && n->is_string() &&
                                        (!name_header || *name_header != n->get<std::string>())) {
        return fail(kHeaderMismatch, "Mcp-Name header does not match the request's tool name");
      }
    }
    if (!IsModernVersion(version.get<std::string>())) {
      json data{{"supported", json::array()}, {"requested", version}};
      for (const char* v : kModernVersions) data["supported"].push_back(v);
      return fail(kUnsupportedVersion, "Unsupported protocol version", &data);
    }
    x.version = version.get<std::string>();
  } else if (method == "initialize") {
    auto requested = params.find("protocolVersion");
    if (requested == params.end() || !requested->is_string()) {
      return fail(kInvalidParams, "Invalid params: 'protocolVersion' must be a string");
    }
    // The client's version when served, else the newest handshake-era one: the client decides
    // whether it can speak that.
    x.version = IsHandshakeVersion(requested->get<std::string>())
                    ? requested->get<std::string>()
                    : std::string(std::end(kHandshakeVersions)[-1]);
  } else {
    auto session = request.Header("Mcp-Session-Id");
    if (!session) {
      return finish(JsonAnswer(400, ErrorBody(id, kInvalidRequest,
                                              "Missing Mcp-Session-Id header: send initialize "
                                              "first, or use protocol version 2026-07-28")),
                    x.operation);
    }
    x.version = TouchSession(*session, principal.user);
    if (x.version.empty()) {
      return finish(JsonAnswer(404, ErrorBody(id, kSessionNotFound, "Session not found")),
                    x.operation);
    }
    if (version_header && !IsHandshakeVersion(*version_header)) {
      return finish(JsonAnswer(400, ErrorBody(id, kInvalidRequest,
                                              "Unsupported MCP-Protocol-Version: " +
                                                  EscapeControl(*version_header))),
                    x.operation);
    }
  }

  json result;
  const json server_info{
      {"name", "cairn"}, {"title", "Cairn"}, {"version", options_.server_version}};
  const json capabilities{{"tools", {{"listChanged", false}}}};
  if (method == "initialize") {
    result = {{"protocolVersion", x.version},
              {"capabilities", capabilities},
              {"serverInfo", server_info},
              {"instructions", kInstructions}};
    r = JsonAnswer(200, json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
    r.headers.emplace_back("Mcp-Session-Id", NewSession(principal.user, x.version));
    return finish(std::move(r), x.operation);
  }
  if (method == "ping" && !x.modern) {
    result = json::object();
  } else if (method == "server/discover") {
    result = {{"supportedVersions", AllVersions()},
              {"capabilities", capabilities},
              {"instructions", kInstructions},
              {"cacheScope", "public"},
              {"ttlMs", 60000},
              {"_meta", {{std::string(kServerInfoKey), server_info}}}};
  } else if (method == "tools/list") {
    if (auto cursor = params.find("cursor"); cursor != params.end() && !cursor->is_null()) {
      return fail(kInvalidParams, "Invalid params: unknown cursor");
    }
    json list = json::array();
    for (const Tool& t : tools_.all()) {
      if (t.writes && !options_.allow_writes) continue;
      json tool{{"name", t.name},
                {"title", t.title},
                {"description", t.description},
                {"inputSchema", t.input_schema},
                {"annotations",
                 {{"title", t.title},
                  {"readOnlyHint", !t.writes},
                  {"destructiveHint", false},
                  {"idempotentHint", true},
                  {"openWorldHint", false}}}};
      list.push_back(std::move(tool));
    }
    result = {{"tools", std::move(list)}};
    if (x.modern) {
      // The same list for every caller, until the server's settings change.
      result["cacheScope"] = "public";
      result["ttlMs"] = 60000;
    }
  } else if (method == "tools/call") {
    auto name = params.find("name");
    if (name == params.end() || !name->is_string()) {
      return fail(kInvalidParams, "Invalid params: 'name' must be a string");
    }
    const Tool* tool = tools_.Find(name->get<std::string>());
    if (tool == nullptr || (tool->writes && !options_.allow_writes)) {
      return fail(kInvalidParams, "Unknown tool: " + EscapeControl(name->get<std::string>()));
    }
    x.operation = "mcp tools/call " + tool->name;
    x.tool_writes = tool->writes;
    json arguments = params.value("arguments", json::object());
    if (arguments.is_null()) arguments = json::object();
    ToolResult out;
    if (!arguments.is_object()) {
      out.is_error = true;
      out.status = 400;
      out.structured = {{"error", {{"status", 400}, {"message", "'arguments' must be an object"}}}};
    } else if (std::string problem = ValidateArguments(tool->input_schema, arguments);
               !problem.empty()) {
      // Reported in the result, so that the model sees what to correct.
      out.is_error = true;
      out.status = 400;
      out.structured = {{"error", {{"status", 400}, {"message", "Invalid arguments: " + problem}}}};
    } else {
      ToolContext ctx = context_;
      if (ctx.default_metalake.empty()) ctx.default_metalake = options_.default_metalake;
      ToolCall call(ctx, principal, arguments, request.request_id);
      out = tool->run(call);
    }
    x.tool_status = out.status;
    x.object = out.object;
    std::string text = out.structured.dump(2, ' ', false, json::error_handler_t::replace);
    if (out.is_error) {
      const json& e = out.structured["error"];
      text = e.value("message", std::string("The call failed"));
      if (e.contains("type")) text = e["type"].get<std::string>() + ": " + text;
    }
    result = {{"content", json::array({json{{"type", "text"}, {"text", std::move(text)}}})},
              {"structuredContent", std::move(out.structured)},
              {"isError", out.is_error}};
  } else {
    return fail(kMethodNotFound, "Method not found: " + EscapeControl(method));
  }
  if (x.modern) result["resultType"] = "complete";
  r = JsonAnswer(200, json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
  r.audit_object = x.object;
  if (x.tool_status >= 400) {
    r.audit_status = x.tool_status;
    r.audit_lookup = !x.tool_writes;
  }
  return finish(std::move(r), x.operation);
}

}  // namespace cairn::api::mcp
