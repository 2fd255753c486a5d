// SPDX-License-Identifier: Apache-2.0
#include "storage/sigv4.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <optional>

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "common/util.h"
#include "storage/s3_client.h"

namespace cairn::storage {
namespace {

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

// The canonical form of an encoded path or query part: decoded, then encoded the AWS way (a part
// that does not decode is taken as it is).
std::string Canonical(std::string_view encoded, bool keep_slash) {
  auto decoded = PercentDecode(encoded);
  return AwsUriEncode(decoded ? *decoded : std::string(encoded), keep_slash);
}

std::string CanonicalQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> params;
  for (const auto& part : Split(query, '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    params.emplace_back(Canonical(part.substr(0, eq), false),
                        eq == std::string::npos ? "" : Canonical(part.substr(eq + 1), false));
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [k, v] : params) out += (out.empty() ? "" : "&") + k + "=" + v;
  return out;
}

bool Signed(std::string_view lower_name) {
  return lower_name == "host" || lower_name == "content-md5" || lower_name == "content-type" ||
         lower_name.starts_with("x-amz-");
}

std::string CollapseSpaces(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : Trim(v)) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

Status SafeKey(std::string_view key) {
  for (const auto& segment : Split(key, '/')) {
    if (segment == "." || segment == "..") {
      return InvalidArgument("the key '{}' has a '{}' segment", key, segment);
    }
  }
  if (key.find('\0') != std::string_view::npos) return InvalidArgument("the key has a NUL byte");
  return Ok();
}

// A bucket name as S3 allows it (letters, digits, '.', '-', and '_' as some S3-compatible stores
// accept), starting and ending with a letter or digit and without "..", so a bucket can never
// read as a path segment of its location.
Status SafeBucket(std::string_view bucket) {
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  const bool chars_ok = std::all_of(bucket.begin(), bucket.end(), [&](char c) {
    return alnum(c) || c == '.' || c == '-' || c == '_';
  });
  if (bucket.empty() || bucket.size() > 255 || !chars_ok || !alnum(bucket.front()) ||
      !alnum(bucket.back()) || bucket.find("..") != std::string_view::npos) {
    return InvalidArgument("'{}' is not a bucket name", bucket);
  }
  return Ok();
}

std::optional<std::string> QueryValue(std::string_view query, std::string_view name) {
  for (const auto& part : Split(query, '&')) {
    const size_t eq = part.find('=');
    auto key = PercentDecode(part.substr(0, eq));
    if (!key || *key != name) continue;
    if (eq == std::string::npos) return std::string();
    return PercentDecode(part.substr(eq + 1));
  }
  return std::nullopt;
}

}  // namespace

bool PrefixWithin(std::string_view prefix, std::string_view location) {
  // Listing `location` itself without the trailing slash would show its siblings that share
  // its name as a prefix (`t` lists `t2/...` too).
  return LocationWithin(prefix, location) &&
         (prefix.ends_with('/') || !LocationWithin(location, prefix));
}

Result<S3Target> S3RequestTarget(const HttpUrl& url, const S3Options& s3, std::string_view method,
                                 std::string_view body) {
  CAIRN_ASSIGN_OR_RETURN(HttpUrl endpoint, ParseHttpUrl(s3.endpoint));
  auto port_of = [](const HttpUrl& u) {
    return u.port != 0 ? u.port : u.scheme == "https" ? 443 : 80;
  };
  if (url.scheme != endpoint.scheme || port_of(url) != port_of(endpoint)) {
    return InvalidArgument("{}://{} is not the catalog's storage endpoint", url.scheme,
                            url.Authority());
  }
  auto path = PercentDecode(url.path);
  if (!path) return InvalidArgument("the URL's path does not decode");
  std::string bucket;
  std::string key;
  if (url.host == endpoint.host) {
    const std::string_view rest = std::string_view(*path).substr(1);
    const size_t slash = rest.find('/');
    bucket = std::string(rest.substr(0, slash));
    if (slash != std::string_view::npos) key = std::string(rest.substr(slash + 1));
  } else if (url.host.size() > endpoint.host.size() + 1 &&
             url.host.ends_with("." + endpoint.host)) {
    bucket = url.host.substr(0, url.host.size() - endpoint.host.size() - 1);
    key = path->substr(1);
  } else {
    return InvalidArgument("{} is not the catalog's storage endpoint", url.Authority());
  }
  if (bucket.empty()) {
    return InvalidArgument("the URL names no bucket");
  }
  CAIRN_RETURN_IF_ERROR(SafeBucket(bucket));
  S3Target target;
  if (!key.empty()) {
    CAIRN_RETURN_IF_ERROR(SafeKey(key));
    target.objects.push_back(fmt::format("s3://{}/{}", bucket, key));
    return target;
  }
  if ((method == "GET" || method == "HEAD") && !QueryValue(url.query, "uploads")) {
    auto prefix = QueryValue(url.query, "prefix");
    if (!prefix || prefix->empty()) {
      return InvalidArgument("listing bucket {} without a prefix", bucket);
    }
    CAIRN_RETURN_IF_ERROR(SafeKey(*prefix));
    target.prefixes.push_back(fmt::format("s3://{}/{}", bucket, *prefix));
    return target;
  }
  if (method == "POST" && QueryValue(url.query, "delete")) {
    const auto keys = XmlElements(body, "Key");
    if (keys.empty()) return InvalidArgument("a multi-object delete without its body's keys");
    for (const auto& k : keys) {
      CAIRN_RETURN_IF_ERROR(SafeKey(k));
      target.objects.push_back(fmt::format("s3://{}/{}", bucket, k));
    }
    return target;
  }
  return InvalidArgument("{} on bucket {} itself", method, bucket);
}

std::string HttpUrl::Authority() const {
  const bool default_port =
      port == 0 || (scheme == "http" && port == 80) || (scheme == "https" && port == 443);
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return default_port ? h : fmt::format("{}:{}", h, port);
}

Result<HttpUrl> ParseHttpUrl(std::string_view url) {
  HttpUrl out;
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return InvalidArgument("'{}' is not a URL", url);
  out.scheme = ToLower(url.substr(0, scheme_end));
  if (out.scheme != "http" && out.scheme != "https") {
    return InvalidArgument("'{}' is not an http(s) URL", url);
  }
  std::string_view rest = url.substr(scheme_end + 3);
  if (auto hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  const size_t path_at = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_at);
  std::string_view tail = path_at == std::string_view::npos ? "" : rest.substr(path_at);
  if (authority.empty() || authority.find('@') != std::string_view::npos) {
    return InvalidArgument("'{}' has no host, or carries user information", url);
  }
  std::string_view port;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return InvalidArgument("'{}' has a bad host", url);
    out.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return InvalidArgument("'{}' has a bad host", url);
      port = authority.substr(close + 2);
    }
  } else {
    const size_t colon = authority.rfind(':');
    out.host = ToLower(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (!port.empty()) {
    auto n = ParseInt64(port);
    if (!n || *n < 1 || *n > 65535) return InvalidArgument("'{}' has a bad port", url);
    out.port = static_cast<int>(*n);
  }
  const size_t q = tail.find('?');
  out.path = std::string(tail.substr(0, q));
  if (out.path.empty()) out.path = "/";
  if (q != std::string_view::npos) out.query = std::string(tail.substr(q + 1));
  return out;
}

HeaderList SignS3Request(std::string_view method, const HttpUrl& url, const HeaderList& headers,
                         const S3Options& keys, std::string_view region, int64_t now_ms) {
  const std::time_t seconds = static_cast<std::time_t>(now_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char amz_date[17];
  std::strftime(amz_date, sizeof amz_date, "%Y%m%dT%H%M%SZ", &utc);
  const std::string date(amz_date, 8);

  HeaderList out;
  std::string payload_hash;
  bool has_host = false;
  for (const auto& [name, value] : headers) {
    const std::string lower = ToLower(name);
    if (lower == "authorization" || lower == "x-amz-date" || lower == "x-amz-security-token") {
      continue;
    }
    if (lower == "x-amz-content-sha256") payload_hash = value;
    if (lower == "host") has_host = true;
    out.emplace_back(name, value);
  }
  if (!has_host) out.emplace_back("Host", url.Authority());
  out.emplace_back("X-Amz-Date", amz_date);
  if (payload_hash.empty()) {
    payload_hash = "UNSIGNED-PAYLOAD";
    out.emplace_back("X-Amz-Content-Sha256", payload_hash);
  }
  if (!keys.session_token.empty()) out.emplace_back("X-Amz-Security-Token", keys.session_token);

  // Canonical headers: lower-case names, values trimmed and joined, sorted by name.
  std::vector<std::pair<std::string, std::string>> canonical;
  for (const auto& [name, value] : out) {
    const std::string lower = ToLower(name);
    if (!Signed(lower)) continue;
    auto same = std::find_if(canonical.begin(), canonical.end(),
                             [&](const auto& c) { return c.first == lower; });
    if (same != canonical.end()) {
      same->second += "," + CollapseSpaces(value);
    } else {
      canonical.emplace_back(lower, CollapseSpaces(value));
    }
  }
  std::sort(canonical.begin(), canonical.end());
  std::string header_block;
  std::string signed_names;
  for (const auto& [name, value] : canonical) {
    header_block += name + ":" + value + "\n";
    signed_names += (signed_names.empty() ? "" : ";") + name;
  }
  const std::string request = fmt::format("{}\n{}\n{}\n{}\n{}\n{}", method,
                                          Canonical(url.path, true), CanonicalQuery(url.query),
                                          header_block, signed_names, payload_hash);
  const std::string scope = fmt::format("{}/{}/s3/aws4_request", date, region);
  const std::string to_sign = fmt::format("AWS4-HMAC-SHA256\n{}\n{}\n{}", amz_date, scope,
                                          HexDigest("sha256", request));
  std::string key = Hmac("AWS4" + keys.secret_access_key, date);
  key = Hmac(key, region);
  key = Hmac(key, "s3");
  key = Hmac(key, "aws4_request");
  out.emplace_back("Authorization",
                   fmt::format("AWS4-HMAC-SHA256 Credential={}/{}, SignedHeaders={}, Signature={}",
                               keys.access_key_id, scope, signed_names, HexLower(Hmac(key, to_sign))));
  return out;
}

}  // namespace cairn::storage
