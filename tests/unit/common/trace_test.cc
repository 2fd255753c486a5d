// SPDX-License-Identifier: Apache-2.0
// Spans: W3C traceparent in and out, nesting, and nothing recorded while tracing is off.
#include "common/trace.h"

#include <mutex>
#include <thread>

#include <gtest/gtest.h>

namespace cairn::trace {
namespace {

class Collect : public Sink {
 public:
  void Export(FinishedSpan&& span) override {
    std::lock_guard lock(mu);
    spans.push_back(std::move(span));
  }
  std::mutex mu;
  std::vector<FinishedSpan> spans;
};

struct Installed {
  explicit Installed(std::shared_ptr<Sink> sink) { SetSink(std::move(sink)); }
  ~Installed() { SetSink(nullptr); }
};

TEST(Trace, TraceparentRoundTripsAndRefusesWhatW3cRefuses) {
  auto c = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->sampled);
  EXPECT_EQ(c->trace_id[0], 0x4b);
  EXPECT_EQ(c->span_id[7], 0xb7);
  EXPECT_EQ(FormatTraceparent(*c), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  EXPECT_FALSE(ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")
                   ->sampled);
  // A later version may carry more fields after the flags.
  EXPECT_TRUE(ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra")
                  .has_value());
  for (const char* bad : {"", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
                          "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                          "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                          "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                          "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                          "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
                          "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}) {
    EXPECT_FALSE(ParseTraceparent(bad).has_value()) << bad;
  }
}

TEST(Trace, OffRecordsNothing) {
  SetSink(nullptr);
  Span span("x");
  EXPECT_FALSE(span.recording());
  EXPECT_EQ(CurrentTraceparent(), std::nullopt);
}

TEST(Trace, SpansNestAsScopesAndJoinTheRemoteParent) {
  auto sink = std::make_shared<Collect>();
  Installed on(sink);
  const auto remote = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  std::string outgoing;
  {
    Span root("request", Kind::kServer, remote);
    ASSERT_TRUE(root.recording());
    root.Set("http.response.status_code", int64_t{200});
    {
      Span child("store");
      outgoing = CurrentTraceparent().value_or("");
      child.Fail("boom");
    }
    Record("store.call", Kind::kClient, 1, 2, {{"db.system", std::string("sqlite")}});
  }
  EXPECT_EQ(CurrentTraceparent(), std::nullopt);  // nothing current after the scopes
  ASSERT_EQ(sink->spans.size(), 3u);
  const FinishedSpan& child = sink->spans[0];
  const FinishedSpan& recorded = sink->spans[1];
  const FinishedSpan& root = sink->spans[2];
  EXPECT_EQ(root.context.trace_id, remote->trace_id);
  EXPECT_EQ(root.parent_span_id, remote->span_id);
  EXPECT_EQ(root.kind, Kind::kServer);
  EXPECT_EQ(child.context.trace_id, remote->trace_id);
  EXPECT_EQ(child.parent_span_id, root.context.span_id);
  EXPECT_TRUE(child.error);
  EXPECT_EQ(child.status_message, "boom");
  EXPECT_EQ(recorded.parent_span_id, root.context.span_id);
  EXPECT_EQ(recorded.start_ns, 1);
  EXPECT_NE(recorded.context.span_id, child.context.span_id);
  EXPECT_LE(root.start_ns, child.start_ns);
  EXPECT_LE(child.end_ns, root.end_ns);
  EXPECT_EQ(outgoing, FormatTraceparent(child.context));
}

TEST(Trace, AnUnsampledCallerRecordsNothingBeneathIt) {
  auto sink = std::make_shared<Collect>();
  Installed on(sink);
  {
    Span root("request", Kind::kServer,
              ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"));
    EXPECT_FALSE(root.recording());
    Span child("store");
    EXPECT_FALSE(child.recording());
    EXPECT_EQ(CurrentTraceparent(), std::nullopt);
  }
  Span after("next");  // the unsampled scope is gone: a new trace starts
  EXPECT_TRUE(after.recording());
  EXPECT_TRUE(sink->spans.empty());
}

TEST(Trace, EachThreadHasItsOwnCurrentSpan) {
  auto sink = std::make_shared<Collect>();
  Installed on(sink);
  Span here("here");
  std::thread([&] {
    Span there("there");
    EXPECT_FALSE(there.recording() && there.context().trace_id == here.context().trace_id);
  }).join();
}

}  // namespace
}  // namespace cairn::trace
