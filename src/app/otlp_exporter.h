// SPDX-License-Identifier: Apache-2.0
// Exports finished spans to an OpenTelemetry collector over OTLP/HTTP (JSON encoding), in
// batches from a thread of its own. docs/operations.md#traces.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "common/trace.h"

namespace cairn::app {

class OtlpHttpExporter final : public trace::Sink {
 public:
  struct Options {
    std::string endpoint;  // the collector's base URL; spans go to <endpoint>/v1/traces
    std::string service_name = "cairn";
    std::string service_version;
    size_t max_queue = 8192;  // spans held for export at most; more are dropped (and counted)
    size_t batch = 512;
    std::chrono::milliseconds interval{500};
    long timeout_ms = 5000;
  };
  explicit OtlpHttpExporter(Options options);
  /// Sends what is still queued (bounded by the timeout), then stops.
  ~OtlpHttpExporter() override;
  OtlpHttpExporter(const OtlpHttpExporter&) = delete;
  OtlpHttpExporter& operator=(const OtlpHttpExporter&) = delete;

  void Export(trace::FinishedSpan&& span) override;

  uint64_t exported() const { return exported_.load(); }
  uint64_t dropped() const { return dropped_.load(); }

  /// The OTLP/JSON body of `spans` (ExportTraceServiceRequest).
  static std::string Encode(const std::deque<trace::FinishedSpan>& spans, const Options& options);

 private:
  void Run();
  bool Post(const std::string& body);

  Options options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<trace::FinishedSpan> queue_;  // guarded by mu_
  bool stopping_ = false;                  // guarded by mu_
  std::atomic<uint64_t> exported_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<int64_t> last_warning_ms_{0};
  std::thread worker_;
};

}  // namespace cairn::app
