// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "message/message.h"

namespace cairn::app {

/// Where a client connects and as whom.
struct ClientOptions {
  std::string server;          // e.g. http://127.0.0.1:8090
  std::string user, password;  // HTTP Basic when user is set
  std::string token;           // Bearer when set (wins over Basic)
  int timeout_ms = 30000;
};

/// One answer of the server, or why none arrived.
struct ClientResponse {
  int status = 0;  // 0 when no HTTP answer arrived (then `error` says why)
  std::string body;
  std::map<std::string, std::string, http::HeaderLess> headers;
  std::string error;
};

/// A blocking HTTP client for the REST interfaces of one Cairn server (libcurl). It keeps one
/// easy handle, so consecutive requests reuse the connection. Requests to `/api/...` carry
/// `Accept: application/vnd.gravitino.v1+json`; a request with a body carries
/// `Content-Type: application/json` unless `headers` names another. Credentials: a Bearer
/// token when `options.token` is set, else HTTP Basic when `options.user` is. Not thread-safe:
/// one client per thread.
class RestClient {
 public:
  explicit RestClient(ClientOptions options);
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  /// One request; `path` includes the query string, e.g. "/api/metalakes?details=true". Never
  /// throws: a connection failure or timeout is a response with status 0 and `error` set.
  ClientResponse Send(std::string_view method, std::string_view path, std::string_view body = {},
                      const std::vector<std::pair<std::string, std::string>>& headers = {});

  const ClientOptions& options() const;

 private:
  struct Handle;
  ClientOptions options_;
  std::unique_ptr<Handle> handle_;
};

/// What the command line gave (an empty string: not given).
struct ClientFlags {
  std::string server, user, password, token, metalake;
  std::string config_file;  // empty: ~/.cairn/client.conf, when it exists
};

/// The resolved connection and the default metalake of client commands.
struct ClientSettings {
  ClientOptions options;
  std::string metalake;
};

/// The default server when neither flag, environment nor config file names one.
inline constexpr std::string_view kDefaultServer = "http://127.0.0.1:8090";

/// Resolves the client options from flags, environment and the config file (flags > env > file),
/// key by key. Environment: CAIRN_SERVER, CAIRN_USER, CAIRN_PASSWORD, CAIRN_TOKEN,
/// CAIRN_METALAKE. The file holds `key = value` lines (server, user, password, token, metalake;
/// `#` starts a comment line). kInvalidArgument when a named config file cannot be read, or a
/// line of it is not `key = value` with a known key; a missing default file is no error.
Result<ClientSettings> ResolveClientOptions(const ClientFlags& flags);

}  // namespace cairn::app
