// SPDX-License-Identifier: Apache-2.0
#include "security/jwks_fetch.h"

#include <memory>

#include <curl/curl.h>

#include "common/util.h"

namespace cairn::security {

namespace {

constexpr size_t kMaxBytes = 1 << 20;

size_t Append(char* data, size_t size, size_t count, void* user) {
  auto* out = static_cast<std::string*>(user);
  const size_t n = size * count;
  if (out->size() + n > kMaxBytes) return 0;  // aborts the transfer
  out->append(data, n);
  return n;
}

}  // namespace

Result<std::string> FetchJwks(const std::string& url, long timeout_ms) {
  if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) {
    return InvalidArgument("JWKS URL '{}' must be http:// or https://", url);
  }
  // The keys decide who every caller is: they come over TLS, or from this machine.
  if (IsClearTextToAnotherMachine(url)) {
    return InvalidArgument(
        "JWKS URL '{}' is plain HTTP to another machine, where anyone on the way could swap the "
        "keys: use https://",
        url);
  }
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Unavailable("cannot initialise an HTTP client for the JWKS URL");
  std::string body;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  const CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK)
    return Unavailable("cannot fetch JWKS from '{}': {}", url, curl_easy_strerror(rc));
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) return Unavailable("fetching JWKS from '{}' answered HTTP {}", url, status);
  return body;
}

}  // namespace cairn::security
