// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace cairn::connector {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpCall {
  std::string method = "GET";
  std::string url;
  HeaderList headers;
  std::string body;  // sent when non-empty (and always for POST/PUT)
};

struct HttpReply {
  int status = 0;
  HeaderList headers;  // as received, last response only (not 100-continue)
  std::string body;

  /// A header value by case-insensitive name.
  std::optional<std::string> Header(std::string_view name) const;
};

struct HttpClientOptions {
  long connect_timeout_ms = 5000;
  long request_timeout_ms = 30000;
  size_t max_idle_handles = 16;
  size_t max_body_bytes = size_t{256} << 20;
  // PEM CA bundle that HTTPS servers' certificates must chain to; empty: the system's. Peers
  // and host names are always verified.
  std::string ca_file;
};

/// A libcurl client for one remote server. Idle easy handles are pooled and one curl share holds
/// the connection cache, DNS cache and TLS sessions, so concurrent and successive calls reuse
/// keep-alive connections. Safe to call from many threads.
class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  const HttpClientOptions& options() const { return options_; }

  /// The server's answer, whatever its status. kUnavailable (with curl's reason) only when no
  /// answer came: refused, unreachable, reset, timed out.
  Result<HttpReply> Send(const HttpCall& call);

  /// Percent-encodes everything but RFC 3986 unreserved characters.
  static std::string Escape(std::string_view text);

 public:
  struct Shared;  // the curl share and the idle handles (defined in the .cc)

 private:
  HttpClientOptions options_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace cairn::connector
