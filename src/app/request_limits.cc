// SPDX-License-Identifier: Apache-2.0
#include "app/request_limits.h"

#include <algorithm>
#include <cmath>

#include "common/util.h"

namespace cairn::app {

namespace {

constexpr std::array<std::string_view, static_cast<size_t>(LimitedInterface::kCount)> kNames = {
    "gravitino", "iceberg", "lance", "mcp", "http"};

// Buckets of principals idle this long are full again: forgetting them changes nothing.
constexpr auto kIdleBucket = std::chrono::seconds(60);

double BurstOf(const LimitRule& rule) {
  return rule.burst > 0 ? rule.burst : std::max(1.0, rule.per_second);
}

}  // namespace

std::optional<LimitedInterface> LimitedInterfaceByName(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<LimitedInterface>(i);
  }
  if (name == "api") return LimitedInterface::kGravitino;
  return std::nullopt;
}

std::string_view LimitedInterfaceName(LimitedInterface i) {
  return kNames[static_cast<size_t>(i)];
}

bool RequestLimitOptions::any() const {
  return per_principal.any() ||
         std::any_of(per_interface.begin(), per_interface.end(),
                     [](const LimitRule& r) { return r.any(); });
}

Result<double> ParseLimitNumber(std::string_view what, std::string_view text, double max) {
  const std::string number(Trim(text));
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v) || v < 0 ||
      v > max) {
    return InvalidArgument("{} must be a number in [0, {}], got '{}'", what, max, number);
  }
  return v;
}

Result<std::map<LimitedInterface, double>> ParseInterfaceValues(const std::string& key,
                                                                std::string_view value,
                                                                double max) {
  std::map<LimitedInterface, double> out;
  for (const auto& part : Split(value, ',')) {
    const std::string_view item = Trim(part);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    auto interface =
        eq == std::string_view::npos ? std::nullopt : LimitedInterfaceByName(Trim(item.substr(0, eq)));
    if (!interface) {
      return InvalidArgument(
          "Config key '{}' takes interface=value pairs (interfaces: gravitino, iceberg, lance, "
          "mcp, http), got '{}'",
          key, item);
    }
    CAIRN_ASSIGN_OR_RETURN(
        out[*interface],
        ParseLimitNumber(fmt::format("Config key '{}': the value of '{}'", key,
                                     Trim(item.substr(0, eq))),
                         item.substr(eq + 1), max));
  }
  return out;
}

RequestLimiter::RequestLimiter(RequestLimitOptions options)
    : options_(std::move(options)), enabled_(options_.any()) {
  const auto now = Clock::now();
  for (size_t i = 0; i < interface_buckets_.size(); ++i) {
    interface_buckets_[i] = Bucket{BurstOf(options_.per_interface[i]), now};
  }
}

RequestLimiter::Ticket& RequestLimiter::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    Release();
    limiter_ = other.limiter_;
    principal_ = std::move(other.principal_);
    interface_ = other.interface_;
    principal_counted_ = other.principal_counted_;
    other.limiter_ = nullptr;
  }
  return *this;
}

void RequestLimiter::Ticket::Release() {
  if (limiter_ == nullptr) return;
  std::lock_guard lock(limiter_->mu_);
  if (interface_ >= 0) --limiter_->interface_in_flight_[static_cast<size_t>(interface_)];
  if (principal_counted_) {
    auto it = limiter_->principal_in_flight_.find(principal_);
    if (it != limiter_->principal_in_flight_.end() && --it->second <= 0) {
      limiter_->principal_in_flight_.erase(it);
    }
  }
  limiter_ = nullptr;
}

bool RequestLimiter::Take(Bucket& b, const LimitRule& rule, Clock::time_point now,
                          int* retry_after_s) {
  const double burst = BurstOf(rule);
  const double elapsed = std::chrono::duration<double>(now - b.last).count();
  b.tokens = std::min(burst, b.tokens + std::max(0.0, elapsed) * rule.per_second);
  b.last = now;
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return true;
  }
  *retry_after_s = std::max(1, static_cast<int>(std::ceil((1.0 - b.tokens) / rule.per_second)));
  return false;
}

void RequestLimiter::Sweep(Clock::time_point now) {
  if (now - last_sweep_ < kIdleBucket) return;
  last_sweep_ = now;
  for (auto it = principal_buckets_.begin(); it != principal_buckets_.end();) {
    it = now - it->second.last > kIdleBucket ? principal_buckets_.erase(it) : std::next(it);
  }
}

std::variant<RequestLimiter::Ticket, RequestLimiter::Refusal> RequestLimiter::Admit(
    LimitedInterface interface, const std::string& principal) {
  Ticket ticket;
  if (!enabled_) return ticket;
  const auto index = static_cast<size_t>(interface);
  const LimitRule& mine = options_.per_principal;
  const LimitRule& theirs = options_.per_interface[index];
  const auto now = Clock::now();
  int wait = 1;
  std::lock_guard lock(mu_);
  Sweep(now);
  // In-flight limits first: a refused request takes no token.
  if (mine.max_in_flight > 0) {
    auto it = principal_in_flight_.find(principal);
    if (it != principal_in_flight_.end() && it->second >= mine.max_in_flight) {
      return Refusal{"principal_in_flight",
                     fmt::format("Too many requests: principal '{}' already has {} in progress "
                                 "(the limit); retry when one has finished",
                                 principal, mine.max_in_flight),
                     1};
    }
  }
  if (theirs.max_in_flight > 0 && interface_in_flight_[index] >= theirs.max_in_flight) {
    return Refusal{"interface_in_flight",
                   fmt::format("Too many requests: the {} interface already has {} in progress "
                               "(the limit); retry shortly",
                               LimitedInterfaceName(interface), theirs.max_in_flight),
                   1};
  }
  // The principal's own rate before the interface's: a flooder spends only its own tokens.
  if (mine.per_second > 0) {
    auto [it, fresh] = principal_buckets_.try_emplace(principal);
    if (fresh) it->second = Bucket{BurstOf(mine), now};
    if (!Take(it->second, mine, now, &wait)) {
      return Refusal{"principal_rate",
                     fmt::format("Too many requests: principal '{}' may send at most {} requests "
                                 "per second; retry after {} s",
                                 principal, mine.per_second, wait),
                     wait};
    }
  }
  if (theirs.per_second > 0 && !Take(interface_buckets_[index], theirs, now, &wait)) {
    return Refusal{"interface_rate",
                   fmt::format("Too many requests: the {} interface takes at most {} requests "
                               "per second; retry after {} s",
                               LimitedInterfaceName(interface), theirs.per_second, wait),
                   wait};
  }
  ticket.limiter_ = this;
  ticket.principal_ = principal;
  if (theirs.max_in_flight > 0) {
    ++interface_in_flight_[index];
    ticket.interface_ = static_cast<int>(index);
  }
  if (mine.max_in_flight > 0) {
    ++principal_in_flight_[principal];
    ticket.principal_counted_ = true;
  }
  return ticket;
}

}  // namespace cairn::app
