// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "connector/connector.h"
#include "connector/iceberg/rest_client.h"

namespace cairn::connector {

/// Catalog properties of a `lakehouse-iceberg` catalog with `catalog-backend` = `rest`.
struct IcebergProxyOptions {
  std::string catalog;                // "<metalake>.<catalog>", for messages
  std::string uri;                    // remote base (the Iceberg client's `uri`), no trailing '/'
  std::string warehouse;              // sent as /v1/config?warehouse= when set
  std::optional<std::string> prefix;  // overrides the prefix the remote's config names
  std::string token;                  // static bearer token
  std::string credential;             // "client_id:client_secret" (or a secret alone)
  std::string oauth2_server_uri;      // default <uri>/v1/oauth/tokens
  std::string scope = "catalog";
  bool forward_token = true;
  bool check_privileges = false;
  long connect_timeout_ms = 3000;
  long request_timeout_ms = 30000;
  std::string ca_file;                      // rest.tls.ca-file: the remote's CA (PEM)
  bool allow_insecure_credentials = false;  // credentials over plain HTTP off loopback
};

/// Validates and reads the properties (kInvalidArgument naming the property at fault).
Result<IcebergProxyOptions> ParseIcebergProxyOptions(const CatalogInfo& info);

/// One request to forward, relative to the catalog's prefix.
struct ProxyRequest {
  std::string method;
  std::string path;  // after "/v1/{prefix}/", still percent-encoded as the client sent it
  std::vector<std::pair<std::string, std::string>> query;  // decoded
  HeaderList headers;  // headers to pass on (the caller's Authorization is separate)
  std::string body;
  std::optional<std::string> authorization;  // the caller's Authorization header
};

struct ProxyResponse {
  int status = 200;
  std::string content_type;
  HeaderList headers;  // ETag and the like, to return to the caller
  std::string body;
};

/// What the remote's GET /v1/config said.
struct RemoteConfig {
  nlohmann::ordered_json defaults = nlohmann::ordered_json::object();
  nlohmann::ordered_json overrides = nlohmann::ordered_json::object();
  std::optional<nlohmann::ordered_json> endpoints;
  std::string prefix;  // the remote prefix requests go to ("" for none)
};

/// A pass-through to a remote Iceberg REST catalog. The remote's /v1/config is read once (on
/// first use) to learn its prefix; then each request is sent to `<uri>/v1/<prefix>/<path>` with
/// the caller's query, chosen headers and body, and the remote's status, ETag and body come back
/// unchanged. Credentials: the caller's Bearer token when `rest.forward-token` (default), else the
/// static `token`, else a token obtained with `credential` (OAuth2 client credentials).
/// A remote that cannot be reached is kUnavailable (EntityKind::kCatalog) naming the catalog.
/// Safe to call from many threads.
class IcebergProxy {
 public:
  explicit IcebergProxy(IcebergProxyOptions options);

  const IcebergProxyOptions& options() const { return options_; }

  /// Forwards one request. An error only when no answer came from the remote (or from its
  /// token endpoint); every answer of the remote, errors included, is a ProxyResponse.
  Result<ProxyResponse> Forward(const ProxyRequest& request);

  /// The remote's configuration (cached after the first success). When the remote answers the
  /// config request with an error, that answer is stored in `*failure` and kUnavailable returned
  /// with the remote's message.
  Result<RemoteConfig> Config(const std::optional<std::string>& caller_authorization,
                              ProxyResponse* failure = nullptr);

  /// Reads the remote's /v1/config now (not cached): kConnectionFailed when unreachable or when
  /// it answers with an error.
  Status TestConnection(const std::optional<std::string>& caller_authorization);

  /// A JSON call for the Gravitino connector: the parsed body on 2xx (null for 204), else the
  /// remote's error mapped to Cairn's errors, kNotFound defaulting to `entity`.
  Result<nlohmann::ordered_json> Call(const std::string& method, const std::string& path,
                                      const std::vector<std::pair<std::string, std::string>>& query,
                                      const std::optional<nlohmann::ordered_json>& body,
                                      EntityKind entity);

  /// The remote's error answer as a Cairn error (kNotFound/kAlreadyExists refer to `entity`
  /// unless the remote's error type names another kind).
  Error RemoteError(const ProxyResponse& response, EntityKind entity) const;

  /// True when a call made for a caller with this Authorization header carries the caller's own
  /// token: the remote may then answer listings filtered by what that caller may see.
  bool ActsAsCaller(const std::optional<std::string>& caller_authorization) const {
    return options_.forward_token && caller_authorization &&
           caller_authorization->rfind("Bearer ", 0) == 0;
  }

  /// "%1F"-joined, percent-encoded namespace for a remote path.
  static std::string NamespacePath(const std::vector<std::string>& ns);

 private:
  Result<std::optional<std::string>> AuthorizationFor(const std::optional<std::string>& caller);
  Result<std::optional<std::string>> ClientCredentialsToken();
  Result<HttpReply> Send(HttpCall call);
  Error Unreachable(const Error& cause) const;

  IcebergProxyOptions options_;
  HttpClient http_;
  std::mutex mu_;
  std::optional<RemoteConfig> config_;  // guarded by mu_
  std::string oauth_token_;             // guarded by mu_
  std::chrono::steady_clock::time_point oauth_expiry_{};
};

/// The Connector of a `lakehouse-iceberg` catalog with `catalog-backend` = `rest`: schemas and
/// tables are read from and written to the remote through its REST API. Cairn keeps the catalog
/// row and, for governance, one row per top-level namespace and per table or view directly
/// under one that it has seen (connector/external_rows.h).
Result<std::unique_ptr<Connector>> MakeRestIcebergConnector(const CatalogInfo& info,
                                                            const ConnectorDeps& deps);

}  // namespace cairn::connector
