// SPDX-License-Identifier: Apache-2.0
#include "connector/iceberg/rest_client.h"

#include <array>
#include <mutex>

#include <curl/curl.h>

#include "common/util.h"

namespace cairn::connector {

std::optional<std::string> HttpReply::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (EqualsIgnoreCase(k, name)) return v;
  }
  return std::nullopt;
}

struct HttpClient::Shared {
  CURLSH* share = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> locks;
  std::mutex pool_mu;
  std::vector<CURL*> idle;
};

namespace {

void ShareLock(CURL* /*handle*/, curl_lock_data data, curl_lock_access /*access*/, void* user) {
  static_cast<HttpClient::Shared*>(user)->locks[data].lock();
}

void ShareUnlock(CURL* /*handle*/, curl_lock_data data, void* user) {
  static_cast<HttpClient::Shared*>(user)->locks[data].unlock();
}

struct Transfer {
  HttpReply* reply;
  size_t max_body;
  bool too_large = false;
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->reply->body.size() + n > t->max_body) {
    t->too_large = true;
    return 0;  // aborts the transfer
  }
  t->reply->body.append(data, n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  std::string_view line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {
    t->reply->headers.clear();  // a new response (after 100 Continue or a redirect)
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  t->reply->headers.emplace_back(std::string(Trim(line.substr(0, colon))),
                                 std::string(Trim(line.substr(colon + 1))));
  return n;
}

}  // namespace

HttpClient::HttpClient(HttpClientOptions options)
    : options_(options), shared_(std::make_unique<Shared>()) {
  static const bool initialized = [] {
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  }();
  (void)initialized;
  shared_->share = curl_share_init();
  if (shared_->share != nullptr) {
    curl_share_setopt(shared_->share, CURLSHOPT_LOCKFUNC, ShareLock);
    curl_share_setopt(shared_->share, CURLSHOPT_UNLOCKFUNC, ShareUnlock);
    curl_share_setopt(shared_->share, CURLSHOPT_USERDATA, shared_.get());
    curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(shared_->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }
}

HttpClient::~HttpClient() {
  for (CURL* h : shared_->idle) curl_easy_cleanup(h);
  shared_->idle.clear();
  if (shared_->share != nullptr) curl_share_cleanup(shared_->share);
}

std::string HttpClient::Escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Result<HttpReply> HttpClient::Send(const HttpCall& call) {
  CURL* h = nullptr;
  {
    std::lock_guard lock(shared_->pool_mu);
    if (!shared_->idle.empty()) {
      h = shared_->idle.back();
      shared_->idle.pop_back();
    }
  }
  if (h == nullptr) {
    h = curl_easy_init();
    if (h == nullptr) return Unavailable("cannot initialise an HTTP client");
  } else {
    curl_easy_reset(h);  // keeps the handle's live connections
  }
  HttpReply reply;
  Transfer transfer{&reply, options_.max_body_bytes};
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : call.headers) {
    headers = curl_slist_append(headers, fmt::format("{}: {}", k, v).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  curl_easy_setopt(h, CURLOPT_URL, call.url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);  // the path is sent as the client wrote it
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, options_.request_timeout_ms);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options_.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_file.c_str());
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  if (shared_->share != nullptr) curl_easy_setopt(h, CURLOPT_SHARE, shared_->share);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &transfer);
  if (call.method == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else if (call.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, call.method.c_str());
    if (!call.body.empty() || call.method == "POST" || call.method == "PUT") {
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(call.body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, call.body.data());
    }
  }
  const CURLcode rc = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  {
    std::lock_guard lock(shared_->pool_mu);
    if (shared_->idle.size() < options_.max_idle_handles) {
      shared_->idle.push_back(h);
      h = nullptr;
    }
  }
  if (h != nullptr) curl_easy_cleanup(h);
  if (rc != CURLE_OK) {
    if (transfer.too_large) {
      return Unavailable("the answer is larger than {} bytes", options_.max_body_bytes);
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      return Unavailable("no answer within {} ms ({})", options_.request_timeout_ms,
                         curl_easy_strerror(rc));
    }
    return Unavailable("{}", curl_easy_strerror(rc));
  }
  reply.status = static_cast<int>(status);
  return reply;
}

}  // namespace cairn::connector
