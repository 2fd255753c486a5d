// SPDX-License-Identifier: Apache-2.0
#include "api/iceberg/idempotency.h"

#include <cctype>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <spdlog/spdlog.h>

#include "api/iceberg/errors.h"
#include "common/util.h"

namespace cairn::api::iceberg {
namespace {

// Response headers a replay carries (the body's own metadata; nothing about the moment).
constexpr std::string_view kReplayedHeaders[] = {"ETag", "Location"};

bool IsUuidText(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

// What the request asks: method, target (path and query) and body. A retry of the same
// operation sends the same three.
std::string Fingerprint(const http::Request& request) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  for (std::string_view part : {std::string_view(request.method), std::string_view(request.target),
                                std::string_view(request.body)}) {
    const uint64_t size = part.size();  // length-prefixed: no two requests share a digest input
    EVP_DigestUpdate(ctx, &size, sizeof size);
    EVP_DigestUpdate(ctx, part.data(), part.size());
  }
  EVP_DigestFinal_ex(ctx, digest, &len);
  EVP_MD_CTX_free(ctx);
  return HexLower(std::string_view(reinterpret_cast<const char*>(digest), len));
}

// Final answers, replayed: successes and the 4xx a retry would get again. Not: 5xx, and 4xx that
// depend on the moment or on who is asking right now (credentials, grants, limits, timeouts).
bool IsFinal(int status) {
  if (status >= 200 && status < 300) return true;
  if (status < 400 || status >= 500) return false;
  return status != 401 && status != 403 && status != 408 && status != 419 && status != 429;
}

std::string HeadersJson(const http::Response& r) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : r.headers) {
    for (auto keep : kReplayedHeaders) {
      if (EqualsIgnoreCase(name, keep)) out[name] = value;
    }
  }
  return out.dump();
}

// The stored headers' member that stands for an answer kept without its vended keys: the path
// of the table to load instead (never sent as a header).
constexpr std::string_view kReloadMember = "@load";

// The table path a create, register or commit answer with vended keys describes: the commit's
// own path, or the collection's path and the body's `name`. Empty when there is none, or when
// loading it would not answer the same (a staged create: the table exists only once its
// transaction commits).
std::string TablePathOf(const http::Request& request) {
  std::string_view path = request.path;
  if (path.ends_with("/")) path.remove_suffix(1);
  if (!path.ends_with("/tables") && !path.ends_with("/register")) return std::string(path);
  auto body = nlohmann::json::parse(request.body, nullptr, false);
  if (!body.is_object() || !body.contains("name") || !body["name"].is_string()) return "";
  if (auto staged = body.find("stage-create"); staged != body.end() && staged->is_boolean() &&
                                               staged->get<bool>()) {
    return "";
  }
  const std::string_view parent = path.substr(0, path.rfind('/'));
  return fmt::format("{}/tables/{}", parent, PercentEncode(body["name"].get<std::string>()));
}

http::Response Replay(const store::StoredAnswer& answer) {
  http::Response r;
  r.status = answer.status;
  r.content_type = answer.content_type;
  r.body = answer.body;
  auto headers = nlohmann::json::parse(answer.headers, nullptr, false);
  if (headers.is_object()) {
    for (const auto& [name, value] : headers.items()) {
      if (value.is_string() && name != kReloadMember) {
        r.headers.emplace_back(name, value.get<std::string>());
      }
    }
  }
  r.audit_note = "idempotent replay";
  return r;
}

int64_t Millis(std::chrono::milliseconds d) { return d.count(); }

}  // namespace

bool TakesIdempotencyKey(const http::Request& request) {
  if (request.method != "POST" && request.method != "DELETE") return false;
  std::string_view path = request.path;
  if (path.ends_with("/")) path.remove_suffix(1);
  return !path.ends_with("/metrics") && !path.ends_with("/oauth/tokens");
}

IdempotentRequests::IdempotentRequests(store::IdempotencyStore* store, IdempotencyOptions options)
    : store_(store), options_(options) {}

std::string IdempotentRequests::AdvertisedLifetime() const {
  auto s = options_.lifetime.count();
  if (s % 86400 == 0) return fmt::format("P{}D", s / 86400);
  std::string out = "PT";
  if (s >= 3600) out += fmt::format("{}H", s / 3600);
  if (s % 3600 >= 60) out += fmt::format("{}M", (s % 3600) / 60);
  if (s % 60 != 0) out += fmt::format("{}S", s % 60);
  return out;
}

void IdempotentRequests::MaybePurge(int64_t now_ms) {
  int64_t due = next_purge_ms_.load(std::memory_order_relaxed);
  if (now_ms < due || !next_purge_ms_.compare_exchange_strong(due, now_ms + 60'000)) return;
  auto gone = store_->Purge(now_ms);
  if (!gone) {
    spdlog::warn("event=idempotency_purge_failed error=\"{}\"", gone.error().message);
  } else if (*gone > 0) {
    spdlog::debug("event=idempotency_keys_purged count={}", *gone);
  }
}

http::Response IdempotentRequests::Run(
    const http::Request& request, const std::string& principal, const std::string& key,
    const std::function<http::Response()>& run,
    const std::function<http::Response(const std::string&)>& load) {
  if (!IsUuidText(key)) {
    return PlainErrorResponse(
        400, "BadRequestException",
        fmt::format("Idempotency-Key must be a UUID in its 36-character form (UUIDv7), got '{}'",
                    key.substr(0, 64)));
  }
  const std::string id = ToLower(key);
  const std::string fingerprint = Fingerprint(request);
  const auto keep = options_.lifetime + options_.grace;
  const auto deadline = std::chrono::steady_clock::now() + options_.wait;
  while (true) {
    const int64_t now = NowMillis();
    MaybePurge(now);
    auto claim = store_->Claim(principal, id, fingerprint, now, now + Millis(options_.lease),
                               now + Millis(keep));
    if (!claim) return ErrorResponse(claim.error());
    switch (claim->outcome) {
      case store::KeyClaim::Outcome::kFinished: {
        auto stored = nlohmann::json::parse(claim->answer.headers, nullptr, false);
        if (stored.is_object() && stored.contains(kReloadMember) &&
            stored[kReloadMember].is_string()) {
          http::Response fresh = load(stored[kReloadMember].get<std::string>());
          fresh.audit_note = "idempotent replay (loaded again for fresh storage keys)";
          return fresh;
        }
        return Replay(claim->answer);
      }
      case store::KeyClaim::Outcome::kMismatch:
        return PlainErrorResponse(
            422, "UnprocessableEntityException",
            fmt::format("Idempotency-Key {} was already used for a different request; use a new "
                        "key for a new operation",
                        key));
      case store::KeyClaim::Outcome::kRunning:
        if (std::chrono::steady_clock::now() >= deadline) {
          auto busy = PlainErrorResponse(
              503, "ServiceUnavailableException",
              fmt::format("The request with Idempotency-Key {} is still running; retry", key));
          busy.headers.emplace_back("Retry-After", "1");
          return busy;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      case store::KeyClaim::Outcome::kClaimed:
        break;
    }
    http::Response answer = run();
    if (!IsFinal(answer.status)) {
      if (auto released = store_->Release(principal, id); !released) {
        spdlog::warn("event=idempotency_release_failed key={} error=\"{}\"", id,
                     released.error().message);
      }
      return answer;
    }
    store::StoredAnswer stored;
    stored.status = answer.status;
    stored.content_type = answer.content_type;
    const std::string table_path = answer.vended_access.empty() ? "" : TablePathOf(request);
    if (!answer.vended_access.empty() && table_path.empty()) {
      (void)store_->Release(principal, id);  // keys but no table to load again: not kept
      return answer;
    }
    if (!table_path.empty()) {
      // Storage keys are never written to the store: the replay loads the table again.
      stored.headers = nlohmann::json{{std::string(kReloadMember), table_path}}.dump();
    } else {
      stored.headers = HeadersJson(answer);
      stored.body = answer.body;
      if (answer.spliced) stored.body += *answer.spliced;
      stored.body += answer.body_tail;
    }
    // The answer stands whether or not it is kept: a failure here only means a retry runs again
    // (and then meets the state this request left).
    if (auto kept = store_->Finish(principal, id, stored, NowMillis() + Millis(keep)); !kept) {
      spdlog::warn("event=idempotency_finish_failed key={} error=\"{}\"", id,
                   kept.error().message);
    }
    return answer;
  }
}

}  // namespace cairn::api::iceberg
