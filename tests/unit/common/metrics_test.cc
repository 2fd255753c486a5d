// SPDX-License-Identifier: Apache-2.0
// The metrics registry and its text exposition: what a Prometheus scrape reads.
#include "common/metrics.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace cairn::metrics {
namespace {

TEST(Metrics, CountersRenderWithHelpTypeAndEscapedLabels) {
  Registry r;
  auto& requests = r.AddCounter("x_requests_total", "Requests.\nSecond line", {"op", "status"});
  requests.With({"GET /a/{b}", "200"}).Inc(2);
  requests.With({R"(say "hi" \ bye)", "500"}).Inc();
  requests.With({"GET /a/{b}", "200"}).Inc();
  const std::string text = r.Render();
  EXPECT_NE(text.find("# HELP x_requests_total Requests.\\nSecond line\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE x_requests_total counter\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x_requests_total{op=\"GET /a/{b}\",status=\"200\"} 3\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(x_requests_total{op="say \"hi\" \\ bye",status="500"} 1)"),
            std::string::npos)
      << text;
}

TEST(Metrics, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Registry r;
  const double bounds[] = {0.1, 1};
  auto& h = r.AddHistogram("x_seconds", "Latency.", {"op"}, bounds);
  for (double v : {0.05, 0.1, 0.5, 2.0}) h.With({"a"}).Observe(v);
  const auto s = h.With({"a"}).Read();
  ASSERT_EQ(s.cumulative.size(), 3u);
  EXPECT_EQ(s.cumulative[0], 2u);  // 0.05 and 0.1 (a bound is inclusive)
  EXPECT_EQ(s.cumulative[1], 3u);
  EXPECT_EQ(s.cumulative[2], 4u);
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.sum, 2.65);
  const std::string text = r.Render();
  EXPECT_NE(text.find("x_seconds_bucket{op=\"a\",le=\"0.1\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x_seconds_bucket{op=\"a\",le=\"1\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x_seconds_bucket{op=\"a\",le=\"+Inf\"} 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x_seconds_sum{op=\"a\"} 2.65\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x_seconds_count{op=\"a\"} 4\n"), std::string::npos) << text;
}

TEST(Metrics, SeriesBeyondTheBoundGoToOneOtherSeries) {
  Registry r;
  auto& c = r.AddCounter("x_total", "X.", {"path", "status"}, /*max_series=*/3);
  for (int i = 0; i < 10; ++i) c.With({"/p" + std::to_string(i), "404"}).Inc();
  c.With({"/p0", "404"}).Inc();  // an existing series still counts in its own
  int series = 0;
  uint64_t other = 0;
  uint64_t p0 = 0;
  c.ForEach([&](const std::vector<std::string>& labels, const Counter& v) {
    ++series;
    if (labels[0] == "other") {
      EXPECT_EQ(labels[1], "other");
      other = v.value();
    }
    if (labels[0] == "/p0") p0 = v.value();
  });
  EXPECT_EQ(series, 4);  // three of their own and "other"
  EXPECT_EQ(other, 7u);
  EXPECT_EQ(p0, 2u);
}

TEST(Metrics, ConcurrentIncrementsAreAllCounted) {
  Registry r;
  auto& c = r.AddCounter("x_total", "X.", {"k"});
  auto& h = r.AddHistogram("x_seconds", "X.", {"k"}, LatencyBuckets());
  constexpr int kThreads = 8;
  constexpr int kEach = 10000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        c.With({t % 2 == 0 ? "even" : "odd"}).Inc();
        h.With({"all"}).Observe(0.001);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(c.With({"even"}).value() + c.With({"odd"}).value(), uint64_t{kThreads * kEach});
  EXPECT_EQ(h.With({"all"}).Read().count, uint64_t{kThreads * kEach});
}

TEST(Metrics, CollectorsWriteAfterTheFamilies) {
  Registry r;
  r.AddGauge("x_gauge", "G.", {}).With({}).Set(-4);
  r.AddCollector([](TextWriter& w) {
    w.Family("x_collected", "gauge", "C.");
    w.Sample("x_collected", {{"state", "idle"}}, 1.5);
  });
  const std::string text = r.Render();
  EXPECT_NE(text.find("x_gauge -4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("x_collected{state=\"idle\"} 1.5\n"), std::string::npos) << text;
  EXPECT_LT(text.find("x_gauge"), text.find("x_collected"));
}

}  // namespace
}  // namespace cairn::metrics
