// SPDX-License-Identifier: Apache-2.0
#include "app/request_limits.h"

#include <atomic>
#include <thread>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn::app {
namespace {

using ::cairn::testing::HasErrorMessage;
using Ticket = RequestLimiter::Ticket;
using Refusal = RequestLimiter::Refusal;

bool Admitted(const std::variant<Ticket, Refusal>& v) { return std::holds_alternative<Ticket>(v); }

std::string LimitOf(const std::variant<Ticket, Refusal>& v) {
  return std::holds_alternative<Refusal>(v) ? std::get<Refusal>(v).limit : "";
}

TEST(RequestLimits, NoLimitsAdmitEverything) {
  RequestLimiter limiter(RequestLimitOptions{});
  EXPECT_FALSE(limiter.enabled());
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(Admitted(limiter.Admit(LimitedInterface::kMcp, "a")));
}

TEST(RequestLimits, InFlightPerPrincipalIsReleasedWithTheTicket) {
  RequestLimitOptions o;
  o.per_principal.max_in_flight = 2;
  RequestLimiter limiter(o);
  auto first = limiter.Admit(LimitedInterface::kIceberg, "alice");
  auto second = limiter.Admit(LimitedInterface::kGravitino, "alice");
  ASSERT_TRUE(Admitted(first) && Admitted(second));
  auto third = limiter.Admit(LimitedInterface::kIceberg, "alice");
  EXPECT_EQ(LimitOf(third), "principal_in_flight");
  EXPECT_NE(std::get<Refusal>(third).message.find("alice"), std::string::npos);
  // Another principal is not held up by alice.
  EXPECT_TRUE(Admitted(limiter.Admit(LimitedInterface::kIceberg, "bob")));
  first = Refusal{};  // alice's first request finishes
  EXPECT_TRUE(Admitted(limiter.Admit(LimitedInterface::kIceberg, "alice")));
}

TEST(RequestLimits, RatePerPrincipalHasABurstThenRefusesWithAWait) {
  RequestLimitOptions o;
  o.per_principal.per_second = 0.5;  // one every two seconds
  o.per_principal.burst = 3;
  RequestLimiter limiter(o);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Admitted(limiter.Admit(LimitedInterface::kMcp, "a")));
  auto refused = limiter.Admit(LimitedInterface::kMcp, "a");
  ASSERT_EQ(LimitOf(refused), "principal_rate");
  EXPECT_EQ(std::get<Refusal>(refused).retry_after_s, 2);
  EXPECT_TRUE(Admitted(limiter.Admit(LimitedInterface::kMcp, "b")));  // b has its own bucket
}

TEST(RequestLimits, InterfaceLimitsHoldForEveryoneAndAFlooderSpendsOnlyItsOwnTokens) {
  RequestLimitOptions o;
  o.per_principal.per_second = 1;
  o.per_principal.burst = 1;
  o.per_interface[static_cast<size_t>(LimitedInterface::kMcp)].per_second = 1;
  o.per_interface[static_cast<size_t>(LimitedInterface::kMcp)].burst = 2;
  o.per_interface[static_cast<size_t>(LimitedInterface::kLance)].max_in_flight = 1;
  RequestLimiter limiter(o);
  EXPECT_TRUE(Admitted(limiter.Admit(LimitedInterface::kMcp, "flood")));
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(LimitOf(limiter.Admit(LimitedInterface::kMcp, "flood")), "principal_rate");
  }
  // The flooder's refusals took none of the interface's tokens: the next caller gets one.
  EXPECT_TRUE(Admitted(limiter.Admit(LimitedInterface::kMcp, "quiet")));
  EXPECT_EQ(LimitOf(limiter.Admit(LimitedInterface::kMcp, "third")), "interface_rate");
  // Iceberg is not limited by MCP's limit.
  EXPECT_TRUE(Admitted(limiter.Admit(LimitedInterface::kIceberg, "fourth")));
  auto held = limiter.Admit(LimitedInterface::kLance, "fifth");
  ASSERT_TRUE(Admitted(held));
  EXPECT_EQ(LimitOf(limiter.Admit(LimitedInterface::kLance, "sixth")), "interface_in_flight");
}

TEST(RequestLimits, CountsStayRightUnderConcurrency) {
  RequestLimitOptions o;
  o.per_principal.max_in_flight = 4;
  RequestLimiter limiter(o);
  std::vector<std::thread> threads;
  std::atomic<int> refused{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        auto v = limiter.Admit(LimitedInterface::kIceberg, "p");
        if (!Admitted(v)) refused.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  // Every ticket was released: four can be held again at once.
  std::vector<std::variant<Ticket, Refusal>> held;
  for (int i = 0; i < 4; ++i) held.push_back(limiter.Admit(LimitedInterface::kIceberg, "p"));
  for (const auto& h : held) EXPECT_TRUE(Admitted(h));
  EXPECT_EQ(LimitOf(limiter.Admit(LimitedInterface::kIceberg, "p")), "principal_in_flight");
}

TEST(RequestLimits, InterfaceValuesParseAndNameTheKeyWhenWrong) {
  auto ok = ParseInterfaceValues("k", "iceberg=64, mcp=4,api=8", 100);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->at(LimitedInterface::kIceberg), 64);
  EXPECT_EQ(ok->at(LimitedInterface::kMcp), 4);
  EXPECT_EQ(ok->at(LimitedInterface::kGravitino), 8);
  EXPECT_THAT(ParseInterfaceValues("k", "hive=3", 100), HasErrorMessage("'k'"));
  EXPECT_THAT(ParseInterfaceValues("k", "mcp", 100), HasErrorMessage("interface=value"));
  EXPECT_THAT(ParseInterfaceValues("k", "mcp=-1", 100), HasErrorMessage("mcp"));
  EXPECT_THAT(ParseInterfaceValues("k", "mcp=1e300", 100), HasErrorMessage("mcp"));
  EXPECT_THAT(ParseInterfaceValues("k", "mcp=nan", 100), HasErrorMessage("mcp"));
}

}  // namespace
}  // namespace cairn::app
