// SPDX-License-Identifier: Apache-2.0
#include "connector/iceberg/iceberg_proxy.h"

#include <array>
#include <filesystem>

#include "common/trace.h"
#include "common/util.h"
#include "json/json_util.h"

namespace cairn::connector {

namespace {

using OrderedJson = nlohmann::ordered_json;

// Request headers passed on to the remote (the caller's Authorization is handled separately).
constexpr std::array<std::string_view, 9> kForwardedHeaders = {"Content-Type",
                                                               "Accept",
                                                               "If-None-Match",
                                                               "If-Match",
                                                               "X-Iceberg-Access-Delegation",
                                                               "Idempotency-Key",
                                                               "X-Client-Version",
                                                               "X-Client-Git-Commit-Short",
                                                               "Accept-Language"};

// Response headers returned to the caller.
constexpr std::array<std::string_view, 4> kReturnedHeaders = {"ETag", "Cache-Control",
                                                              "Idempotency-Key", "Retry-After"};

Result<long> MillisProperty(const model::Properties& props, const char* name, long fallback) {
  auto it = props.find(name);
  if (it == props.end()) return fallback;
  auto v = ParseInt64(it->second);
  if (!v || *v <= 0 || *v > 3'600'000) {
    return InvalidArgument("Property '{}' must be a number of milliseconds (1..3600000), not '{}'",
                           name, it->second);
  }
  return static_cast<long>(*v);
}

bool ValidHttpUri(const std::string& uri) {
  std::string_view rest;
  if (uri.rfind("http://", 0) == 0) {
    rest = std::string_view(uri).substr(7);
  } else if (uri.rfind("https://", 0) == 0) {
    rest = std::string_view(uri).substr(8);
  } else {
    return false;
  }
  const std::string_view host = rest.substr(0, rest.find_first_of("/?#"));
  if (host.empty() || host.front() == ':' || host.find_first_of(" \t@") != std::string_view::npos) {
    return false;
  }
  return rest.find_first_of("?# \t") == std::string_view::npos;
}

std::string QueryString(const std::vector<std::pair<std::string, std::string>>& query) {
  std::string out;
  for (const auto& [k, v] : query) {
    out += out.empty() ? '?' : '&';
    out += HttpClient::Escape(k);
    out += '=';
    out += HttpClient::Escape(v);
  }
  return out;
}

}  // namespace

Result<IcebergProxyOptions> ParseIcebergProxyOptions(const CatalogInfo& info) {
  const auto& p = info.properties;
  IcebergProxyOptions o;
  o.catalog = info.metalake.empty() ? info.name : info.metalake + "." + info.name;
  auto uri = p.find("uri");
  if (uri == p.end() || Trim(uri->second).empty()) {
    return InvalidArgument(
        "Property 'uri' is required for catalog-backend 'rest': the base URL of the remote "
        "Iceberg REST catalog, e.g. http://host:8181");
  }
  o.uri = std::string(Trim(uri->second));
  while (!o.uri.empty() && o.uri.back() == '/') o.uri.pop_back();
  if (!ValidHttpUri(o.uri)) {
    return InvalidArgument(
        "Property 'uri' = '{}' is not a valid http:// or https:// URL of an Iceberg REST catalog",
        uri->second);
  }
  if (auto w = p.find("warehouse"); w != p.end()) o.warehouse = w->second;
  if (auto x = p.find("prefix"); x != p.end()) {
    std::string prefix(Trim(x->second));
    while (!prefix.empty() && prefix.front() == '/') prefix.erase(prefix.begin());
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    o.prefix = prefix;
  }
  if (auto t = p.find("token"); t != p.end()) o.token = t->second;
  if (auto c = p.find("credential"); c != p.end()) o.credential = c->second;
  if (auto s = p.find("scope"); s != p.end()) o.scope = s->second;
  if (auto u = p.find("oauth2-server-uri"); u != p.end()) {
    if (!ValidHttpUri(u->second)) {
      return InvalidArgument("Property 'oauth2-server-uri' = '{}' is not a valid http(s) URL",
                             u->second);
    }
    o.oauth2_server_uri = u->second;
  }
  CAIRN_ASSIGN_OR_RETURN(o.forward_token, BoolProperty(p, "rest.forward-token", true));
  CAIRN_ASSIGN_OR_RETURN(o.check_privileges, BoolProperty(p, "rest.check-privileges", false));
  CAIRN_ASSIGN_OR_RETURN(o.connect_timeout_ms,
                         MillisProperty(p, "rest.connect-timeout-ms", o.connect_timeout_ms));
  CAIRN_ASSIGN_OR_RETURN(o.request_timeout_ms,
                         MillisProperty(p, "rest.request-timeout-ms", o.request_timeout_ms));
  if (auto ca = p.find("rest.tls.ca-file"); ca != p.end() && !Trim(ca->second).empty()) {
    o.ca_file = std::string(Trim(ca->second));
    std::error_code ec;
    if (!std::filesystem::is_regular_file(o.ca_file, ec)) {
      return InvalidArgument(
          "Property 'rest.tls.ca-file' = '{}' is not a readable file (a PEM CA bundle)",
          o.ca_file);
    }
  }
  CAIRN_ASSIGN_OR_RETURN(o.allow_insecure_credentials,
                         BoolProperty(p, "rest.allow-insecure-credentials", false));
  // Credentials (the catalog's token or secret, or each caller's forwarded token) never cross a
  // network in clear text unless the catalog says so.
  const bool sends_credentials = !o.token.empty() || !o.credential.empty() || o.forward_token;
  if (sends_credentials && !o.allow_insecure_credentials) {
    const bool token_endpoint_clear =
        !o.credential.empty() &&
        IsClearTextToAnotherMachine(o.oauth2_server_uri.empty() ? o.uri : o.oauth2_server_uri);
    if (IsClearTextToAnotherMachine(o.uri) || token_endpoint_clear) {
      return InvalidArgument(
          "Property 'uri' = '{}' is plain HTTP to another machine, and the catalog sends "
          "credentials to it (token, credential, or the callers' tokens with "
          "rest.forward-token): use https://, or set 'rest.allow-insecure-credentials' to true",
          o.uri);
    }
  }
  return o;
}

IcebergProxy::IcebergProxy(IcebergProxyOptions options)
    : options_(std::move(options)),
      http_([this] {
        HttpClientOptions http;
        http.connect_timeout_ms = options_.connect_timeout_ms;
        http.request_timeout_ms = options_.request_timeout_ms;
        http.ca_file = options_.ca_file;
        return http;
      }()) {}

std::string IcebergProxy::NamespacePath(const std::vector<std::string>& ns) {
  return HttpClient::Escape(Join(ns, "\x1f"));
}

Error IcebergProxy::Unreachable(const Error& cause) const {
  return MakeError(ErrorCode::kUnavailable, EntityKind::kCatalog,
                   "Catalog {}: the remote Iceberg REST catalog at {} is unavailable: {}",
                   options_.catalog, options_.uri, cause.message);
}

Result<HttpReply> IcebergProxy::Send(HttpCall call) {
  // The remote catalog's work joins the caller's trace (W3C traceparent), as this call's child.
  trace::Span span(trace::Enabled() ? "iceberg.remote " + call.method : std::string(),
                   trace::Kind::kClient);
  if (auto parent = trace::CurrentTraceparent()) call.headers.emplace_back("traceparent", *parent);
  auto reply = http_.Send(call);
  if (!reply) {
    span.Fail(reply.error().message);
    return Unreachable(reply.error());
  }
  span.Set("http.request.method", call.method);
  span.Set("http.response.status_code", static_cast<int64_t>(reply->status));
  return reply;
}

Result<std::optional<std::string>> IcebergProxy::ClientCredentialsToken() {
  {
    std::lock_guard lock(mu_);
    if (!oauth_token_.empty() && std::chrono::steady_clock::now() < oauth_expiry_) {
      return std::optional<std::string>("Bearer " + oauth_token_);
    }
  }
  std::string id;
  std::string secret = options_.credential;
  if (const size_t colon = secret.find(':'); colon != std::string::npos) {
    id = secret.substr(0, colon);
    secret = secret.substr(colon + 1);
  }
  HttpCall call;
  call.method = "POST";
  call.url = options_.oauth2_server_uri.empty() ? options_.uri + "/v1/oauth/tokens"
                                                : options_.oauth2_server_uri;
  call.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  call.body = "grant_type=client_credentials&client_secret=" + HttpClient::Escape(secret) +
              "&scope=" + HttpClient::Escape(options_.scope);
  if (!id.empty()) call.body += "&client_id=" + HttpClient::Escape(id);
  CAIRN_ASSIGN_OR_RETURN(HttpReply reply, Send(std::move(call)));
  auto body = json::ParseOrderedJsonOrDiscarded(reply.body);
  if (reply.status != 200 || !body.is_object() || !body.contains("access_token") ||
      !body["access_token"].is_string()) {
    return MakeError(ErrorCode::kUnauthenticated, EntityKind::kCatalog,
                     "Catalog {}: the remote token endpoint refused the catalog's credential "
                     "(HTTP {})",
                     options_.catalog, reply.status);
  }
  int64_t expires_in = 3600;
  if (auto e = body.find("expires_in"); e != body.end() && e->is_number_integer()) {
    expires_in = e->get<int64_t>();
  }
  std::lock_guard lock(mu_);
  oauth_token_ = body["access_token"].get<std::string>();
  oauth_expiry_ = std::chrono::steady_clock::now() +
                  std::chrono::seconds(std::max<int64_t>(expires_in - 60, expires_in / 2));
  return std::optional<std::string>("Bearer " + oauth_token_);
}

Result<std::optional<std::string>> IcebergProxy::AuthorizationFor(
    const std::optional<std::string>& caller) {
  if (ActsAsCaller(caller)) return caller;
  if (!options_.token.empty()) return std::optional<std::string>("Bearer " + options_.token);
  if (!options_.credential.empty()) return ClientCredentialsToken();
  return std::optional<std::string>();
}

Result<RemoteConfig> IcebergProxy::Config(const std::optional<std::string>& caller_authorization,
                                          ProxyResponse* failure) {
  {
    std::lock_guard lock(mu_);
    if (config_) return *config_;
  }
  CAIRN_ASSIGN_OR_RETURN(auto auth, AuthorizationFor(caller_authorization));
  HttpCall call;
  call.url = options_.uri + "/v1/config";
  if (!options_.warehouse.empty()) call.url += QueryString({{"warehouse", options_.warehouse}});
  call.headers.emplace_back("Accept", "application/json");
  if (auth) call.headers.emplace_back("Authorization", *auth);
  CAIRN_ASSIGN_OR_RETURN(HttpReply reply, Send(std::move(call)));
  if (reply.status != 200) {
    ProxyResponse r;
    r.status = reply.status;
    r.content_type = reply.Header("Content-Type").value_or("application/json");
    r.body = std::move(reply.body);
    Error e = RemoteError(r, EntityKind::kCatalog);
    if (failure != nullptr) *failure = std::move(r);
    return e;
  }
  auto body = json::ParseOrderedJsonOrDiscarded(reply.body);
  if (!body.is_object()) {
    return Unreachable(Error{ErrorCode::kUnavailable, EntityKind::kCatalog,
                             "its /v1/config answer is not a JSON object"});
  }
  RemoteConfig config;
  if (auto d = body.find("defaults"); d != body.end() && d->is_object()) config.defaults = *d;
  if (auto o = body.find("overrides"); o != body.end() && o->is_object()) config.overrides = *o;
  if (auto e = body.find("endpoints"); e != body.end() && e->is_array()) config.endpoints = *e;
  if (options_.prefix) {
    config.prefix = *options_.prefix;
  } else if (config.overrides.contains("prefix") && config.overrides["prefix"].is_string()) {
    config.prefix = config.overrides["prefix"].get<std::string>();
  } else if (config.defaults.contains("prefix") && config.defaults["prefix"].is_string()) {
    config.prefix = config.defaults["prefix"].get<std::string>();
  }
  std::lock_guard lock(mu_);
  if (!config_) config_ = config;
  return *config_;
}

Status IcebergProxy::TestConnection(const std::optional<std::string>& caller_authorization) {
  {
    std::lock_guard lock(mu_);
    config_.reset();  // read it now
  }
  auto config = Config(caller_authorization);
  if (!config) {
    return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog,
                     "Failed to reach the remote Iceberg REST catalog at {} (property 'uri'): {}",
                     options_.uri, config.error().message);
  }
  return Ok();
}

Result<ProxyResponse> IcebergProxy::Forward(const ProxyRequest& request) {
  ProxyResponse failure;
  failure.status = 0;
  auto config = Config(request.authorization, &failure);
  if (!config) {
    if (failure.status != 0) return failure;  // the remote's own answer to /v1/config
    return std::move(config).error();
  }
  CAIRN_ASSIGN_OR_RETURN(auto auth, AuthorizationFor(request.authorization));
  HttpCall call;
  call.method = request.method;
  call.url = options_.uri + "/v1/";
  if (!config->prefix.empty()) call.url += config->prefix + "/";
  call.url += request.path;
  call.url += QueryString(request.query);
  for (const auto& [k, v] : request.headers) {
    for (auto allowed : kForwardedHeaders) {
      if (EqualsIgnoreCase(k, allowed)) {
        call.headers.emplace_back(k, v);
        break;
      }
    }
  }
  if (auth) call.headers.emplace_back("Authorization", *auth);
  call.body = request.body;
  CAIRN_ASSIGN_OR_RETURN(HttpReply reply, Send(std::move(call)));
  ProxyResponse out;
  out.status = reply.status;
  out.content_type = reply.Header("Content-Type").value_or("");
  for (auto name : kReturnedHeaders) {
    if (auto v = reply.Header(name)) out.headers.emplace_back(std::string(name), *v);
  }
  out.body = std::move(reply.body);
  return out;
}

Error IcebergProxy::RemoteError(const ProxyResponse& response, EntityKind entity) const {
  std::string type;
  std::string message;
  auto body = json::ParseOrderedJsonOrDiscarded(response.body);
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    const auto& e = body["error"];
    if (e.contains("type") && e["type"].is_string()) type = e["type"].get<std::string>();
    if (e.contains("message") && e["message"].is_string())
      message = e["message"].get<std::string>();
  }
  if (message.empty()) {
    message = fmt::format("the remote Iceberg REST catalog of {} answered HTTP {}",
                          options_.catalog, response.status);
  }
  auto is = [&](std::string_view t) { return type == t; };
  const int s = response.status;
  if (is("NoSuchTableException")) return NotFound(EntityKind::kTable, "{}", message);
  if (is("NoSuchNamespaceException")) return NotFound(EntityKind::kSchema, "{}", message);
  if (is("NoSuchViewException")) return NotFound(EntityKind::kView, "{}", message);
  if (is("NamespaceNotEmptyException")) {
    return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema, "{}", message);
  }
  if (is("CommitFailedException")) return Conflict(entity, "{}", message);
  if (is("CommitStateUnknownException")) {
    return MakeError(ErrorCode::kCommitStateUnknown, entity, "{}", message);
  }
  if (s == 404) return NotFound(entity, "{}", message);
  if (s == 409) return AlreadyExists(entity, "{}", message);
  if (s == 401) return MakeError(ErrorCode::kUnauthenticated, EntityKind::kNone, "{}", message);
  if (s == 403) return MakeError(ErrorCode::kPermissionDenied, EntityKind::kNone, "{}", message);
  if (s == 406 || s == 501) return Unsupported("{}", message);
  if (s == 400 || s == 422) return InvalidArgument("{}", message);
  if (s == 503 || s == 502 || s == 504) {
    return MakeError(ErrorCode::kUnavailable, EntityKind::kCatalog,
                     "Catalog {}: the remote Iceberg REST catalog at {} is unavailable: {}",
                     options_.catalog, options_.uri, message);
  }
  return Internal("Catalog {}: the remote Iceberg REST catalog answered HTTP {}: {}",
                  options_.catalog, s, message);
}

Result<OrderedJson> IcebergProxy::Call(
    const std::string& method, const std::string& path,
    const std::vector<std::pair<std::string, std::string>>& query,
    const std::optional<OrderedJson>& body, EntityKind entity) {
  ProxyRequest r;
  r.method = method;
  r.path = path;
  r.query = query;
  r.headers.emplace_back("Accept", "application/json");
  if (body) {
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = body->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  r.authorization = CallerAuthorization();
  CAIRN_ASSIGN_OR_RETURN(ProxyResponse reply, Forward(r));
  if (reply.status < 200 || reply.status >= 300) return RemoteError(reply, entity);
  if (reply.status == 204 || reply.body.empty()) return OrderedJson();
  auto parsed = json::ParseOrderedJsonOrDiscarded(reply.body);
  if (parsed.is_discarded()) {
    return Internal("Catalog {}: the remote Iceberg REST catalog answered with invalid JSON",
                    options_.catalog);
  }
  return parsed;
}

}  // namespace cairn::connector
