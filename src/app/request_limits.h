// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>

#include "common/result.h"

namespace cairn::app {

/// One limit: requests handled at once, and a token bucket of requests per second with a
/// burst. Zero means no such limit.
struct LimitRule {
  int max_in_flight = 0;
  double per_second = 0;
  double burst = 0;  // 0 with a rate: one second's worth (at least 1)

  bool any() const { return max_in_flight > 0 || per_second > 0; }
};

/// The interfaces limits can name (the router's, by path).
enum class LimitedInterface { kGravitino, kIceberg, kLance, kMcp, kService, kCount };
std::optional<LimitedInterface> LimitedInterfaceByName(std::string_view name);
std::string_view LimitedInterfaceName(LimitedInterface i);

struct RequestLimitOptions {
  LimitRule per_principal;  // each principal on its own (every interface together)
  // A refusal's answer is held back this long (at most its Retry-After), on its connection only.
  int refusal_delay_ms = 1000;
  std::array<LimitRule, static_cast<size_t>(LimitedInterface::kCount)> per_interface{};

  bool any() const;
};

/// A limit's number (a rate, a burst): finite, in [0, max]; kInvalidArgument naming `what`.
Result<double> ParseLimitNumber(std::string_view what, std::string_view text, double max);

/// Parses `iceberg=64,mcp=4` (interface=value pairs, values in [0, max]); kInvalidArgument
/// naming `key` and the bad part.
Result<std::map<LimitedInterface, double>> ParseInterfaceValues(const std::string& key,
                                                                std::string_view value,
                                                                double max);

/// Admits or refuses requests by the limits. A refusal names the limit and how long to wait.
/// Thread-safe; a server without limits pays one branch per request.
class RequestLimiter {
 public:
  explicit RequestLimiter(RequestLimitOptions options);

  /// What a refusal says.
  struct Refusal {
    std::string limit;  // principal_in_flight | principal_rate | interface_in_flight | interface_rate
    std::string message;
    int retry_after_s = 1;
  };

  /// Holds a request's in-flight places until destroyed.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept { *this = std::move(other); }
    Ticket& operator=(Ticket&& other) noexcept;
    ~Ticket() { Release(); }

   private:
    friend class RequestLimiter;
    void Release();
    RequestLimiter* limiter_ = nullptr;
    std::string principal_;
    int interface_ = -1;
    bool principal_counted_ = false;
  };

  /// A ticket for a request of `principal` on `interface`, or the limit it is over.
  std::variant<Ticket, Refusal> Admit(LimitedInterface interface, const std::string& principal);

  bool enabled() const { return enabled_; }
  int refusal_delay_ms() const { return options_.refusal_delay_ms; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Bucket {
    double tokens = 0;
    Clock::time_point last{};
  };
  // Takes a token from `b` (refilled at `rule`'s rate); false and the wait when it has none.
  static bool Take(Bucket& b, const LimitRule& rule, Clock::time_point now, int* retry_after_s);
  void Sweep(Clock::time_point now);  // caller holds mu_

  const RequestLimitOptions options_;
  const bool enabled_;
  std::mutex mu_;
  std::unordered_map<std::string, int> principal_in_flight_;  // guarded by mu_
  std::unordered_map<std::string, Bucket> principal_buckets_;  // guarded by mu_
  std::array<int, static_cast<size_t>(LimitedInterface::kCount)> interface_in_flight_{};
  std::array<Bucket, static_cast<size_t>(LimitedInterface::kCount)> interface_buckets_{};
  Clock::time_point last_sweep_{};  // guarded by mu_
};

}  // namespace cairn::app
