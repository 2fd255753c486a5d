// SPDX-License-Identifier: Apache-2.0
#include "storage/s3_client.h"

#include "storage/storage_metrics.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>
#include <thread>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "common/trace.h"
#include "common/util.h"
#include "storage/storage_metrics.h"

namespace cairn::storage {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

// One libcurl handle per thread: connections stay open between requests of the same thread.
struct ThreadHandle {
  CURL* curl = nullptr;
  ThreadHandle() : curl(curl_easy_init()) {}
  ~ThreadHandle() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
};

CURL* HandleForThread() {
  thread_local ThreadHandle handle;
  return handle.curl;
}

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t AppendHeader(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string_view line(data, size * count);
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    (*headers)[Lower(Trim(line.substr(0, colon)))] = std::string(Trim(line.substr(colon + 1)));
  }
  return size * count;
}

bool Retryable(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

}  // namespace

Result<S3Location> ParseS3Location(std::string_view location) {
  std::string_view rest;
  if (location.rfind("s3://", 0) == 0) {
    rest = location.substr(5);
  } else if (location.rfind("s3a://", 0) == 0) {
    rest = location.substr(6);
  } else {
    return InvalidArgument("location '{}' is not an s3:// location", location);
  }
  const size_t slash = rest.find('/');
  S3Location out;
  out.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) out.key = std::string(rest.substr(slash + 1));
  if (out.bucket.empty()) return InvalidArgument("location '{}' names no bucket", location);
  return out;
}

std::string HexDigest(std::string_view algorithm, std::string_view data) {
  const EVP_MD* md = algorithm == "md5" ? EVP_md5() : EVP_sha256();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, md, nullptr);
  return HexLower(std::string_view(reinterpret_cast<const char*>(digest), len));
}

std::string AwsUriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::vector<std::string> XmlElements(std::string_view xml, std::string_view tag) {
  std::vector<std::string> out;
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    const size_t start = pos + open.size();
    const size_t end = xml.find(close, start);
    if (end == std::string_view::npos) break;
    std::string_view raw = xml.substr(start, end - start);
    std::string text;
    text.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        text.push_back(raw[i]);
        continue;
      }
      static constexpr std::pair<std::string_view, char> kEntities[] = {
          {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
      bool done = false;
      for (const auto& [entity, ch] : kEntities) {
        if (raw.substr(i, entity.size()) == entity) {
          text.push_back(ch);
          i += entity.size() - 1;
          done = true;
          break;
        }
      }
      if (!done) text.push_back('&');
    }
    out.push_back(std::move(text));
    pos = end + close.size();
  }
  return out;
}

std::string XmlElement(std::string_view xml, std::string_view tag) {
  auto all = XmlElements(xml, tag);
  return all.empty() ? std::string() : std::move(all.front());
}

int64_t ParseIsoTimeMs(std::string_view text) {
  std::tm tm{};
  int millis = 0;
  if (text.size() < 19) return 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
    return 0;
  }
  if (s.size() > 20 && s[19] == '.') {
    int digits = 0;
    for (size_t i = 20; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
      if (digits < 3) millis = millis * 10 + (s[i] - '0');
      ++digits;
    }
    for (; digits < 3; ++digits) millis *= 10;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + millis;
}

std::string S3ErrorText(const S3Response& response) {
  const std::string code = XmlElement(response.body, "Code");
  const std::string message = XmlElement(response.body, "Message");
  if (code.empty()) return fmt::format("HTTP {}", response.status);
  if (message.empty()) return fmt::format("{} (HTTP {})", code, response.status);
  return fmt::format("{}: {} (HTTP {})", code, message, response.status);
}

S3Client::S3Client(S3Options options) : options_(std::move(options)) {
  endpoint_ = options_.endpoint;
  while (!endpoint_.empty() && endpoint_.back() == '/') endpoint_.pop_back();
  if (endpoint_.empty()) endpoint_ = fmt::format("https://s3.{}.amazonaws.com", options_.region);
  if (options_.max_attempts < 1) options_.max_attempts = 1;
}

std::string S3Client::Url(const S3Request& request) const {
  std::string url;
  if (request.bucket.empty()) {
    url = endpoint_ + "/";
  } else if (options_.path_style) {
    url = endpoint_ + "/" + AwsUriEncode(request.bucket, false) + "/" +
          AwsUriEncode(request.key, true);
  } else {
    const size_t scheme_end = endpoint_.find("://");
    const size_t host_start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
    url = endpoint_.substr(0, host_start) + request.bucket + "." + endpoint_.substr(host_start) +
          "/" + AwsUriEncode(request.key, true);
  }
  // SigV4 wants the canonical query sorted by name; sending it sorted keeps the two equal.
  auto query = request.query;
  std::sort(query.begin(), query.end());
  for (size_t i = 0; i < query.size(); ++i) {
    url += i == 0 ? '?' : '&';
    url += AwsUriEncode(query[i].first, false);
    url += '=';
    url += AwsUriEncode(query[i].second, false);
  }
  return url;
}

Result<S3Response> S3Client::Send(const S3Request& request) const {
  trace::Span span(trace::Enabled() ? "s3 " + request.method : std::string(),
                   trace::Kind::kClient);
  const auto started = std::chrono::steady_clock::now();
  int attempts = 0;
  auto answer = SendOnce(request, attempts);
  if (span.recording()) {
    span.Set("http.request.method", request.method);
    span.Set("server.address", endpoint_);
    if (attempts > 1) span.Set("http.request.resend_count", static_cast<int64_t>(attempts - 1));
    if (answer) {
      span.Set("http.response.status_code", static_cast<int64_t>(answer->status));
    } else {
      span.Fail(answer.error().message);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // Refused before anything was sent (clear text to another machine): not a storage call.
  if (answer || answer.error().code != ErrorCode::kInvalidArgument) {
    S3Metrics().Observe(request.method, seconds, !answer.has_value(), attempts);
  }
  return answer;
}

Result<S3Response> S3Client::SendOnce(const S3Request& request, int& attempts) const {
  const std::string url = Url(request);
  if (!options_.access_key_id.empty() && !options_.allow_insecure_credentials &&
      IsClearTextToAnotherMachine(url)) {
    return InvalidArgument(
        "Storage endpoint '{}' is plain HTTP to another machine: signed requests and session "
        "tokens would cross the network in clear text. Use https://, or set "
        "'s3-allow-insecure-credentials' to true",
        endpoint_);
  }
  const std::string sigv4 = fmt::format("aws:amz:{}:{}", options_.region, request.service);
  const std::string payload_hash = HexDigest("sha256", request.body);
  const bool has_body = request.method == "PUT" || request.method == "POST";
  thread_local std::mt19937 rng{std::random_device{}()};

  std::string last_failure;
  S3Response response;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    if (attempt > 1) {
      // 50 ms, 100 ms, 200 ms, ... with jitter, capped at 1 s.
      const int base = std::min(1000, 50 << (attempt - 2));
      std::uniform_int_distribution<int> jitter(base / 2, base);
      std::this_thread::sleep_for(std::chrono::milliseconds(jitter(rng)));
    }
    CURL* curl = HandleForThread();
    if (curl == nullptr) return Unavailable("cannot initialise an HTTP client for {}", endpoint_);
    curl_easy_reset(curl);
    response = S3Response{};
    response.attempts = attempt;
    attempts = attempt;

    curl_slist* headers = nullptr;
    auto add_header = [&](const std::string& line) {
      headers = curl_slist_append(headers, line.c_str());
    };
    add_header("x-amz-content-sha256: " + payload_hash);
    if (!options_.session_token.empty())
      add_header("x-amz-security-token: " + options_.session_token);
    bool has_content_type = false;
    for (const auto& [name, value] : request.headers) {
      add_header(name + ": " + value);
      if (Lower(name) == "content-type") has_content_type = true;
    }
    if (has_body && !has_content_type) add_header("Content-Type: application/octet-stream");

    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!options_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_ms));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::min<int64_t>(options_.timeout_ms, 3000)));
    if (!options_.access_key_id.empty()) {
      curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4.c_str());
      curl_easy_setopt(curl, CURLOPT_USERNAME, options_.access_key_id.c_str());
      curl_easy_setopt(curl, CURLOPT_PASSWORD, options_.secret_access_key.c_str());
    }
    if (request.method == "HEAD") {
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (has_body) {
      // POSTFIELDS (not an upload callback) so the signer hashes the same bytes that are sent.
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
      if (request.method != "POST") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
    } else if (request.method != "GET") {
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, AppendHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);

    const CURLcode rc = curl_easy_perform(curl);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) {
      last_failure = curl_easy_strerror(rc);
      // A request that may have reached the server is retried only when repeating it is safe.
      const bool never_sent = rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST;
      if (!never_sent && !request.idempotent) break;
      continue;
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
    if (Retryable(response.status) ||
        (response.status == 400 && response.body.find("SlowDown") != std::string::npos)) {
      last_failure = S3ErrorText(response);
      continue;
    }
    return response;
  }
  if (response.status != 0) {
    return Unavailable("object storage at {} is unavailable: {} after {} attempts", endpoint_,
                       last_failure, response.attempts);
  }
  return Unavailable("object storage at {} is unreachable: {}", endpoint_, last_failure);
}

}  // namespace cairn::storage
