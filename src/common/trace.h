// SPDX-License-Identifier: Apache-2.0
// Tracing: spans of the request path (authenticate, authorize, store, storage, connector calls)
// in OpenTelemetry's model, handed to a sink that exports them (OTLP/HTTP, app/otlp_exporter.*).
// Off unless a sink is set; a Span then costs one atomic load. docs/operations.md#traces.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cairn::trace {

/// W3C Trace Context: who a span is.
struct SpanContext {
  std::array<uint8_t, 16> trace_id{};
  std::array<uint8_t, 8> span_id{};
  bool sampled = true;
};

/// A `traceparent` header ("00-<32 hex>-<16 hex>-<2 hex>"); nullopt when malformed or all-zero.
std::optional<SpanContext> ParseTraceparent(std::string_view header);
std::string FormatTraceparent(const SpanContext& context);

enum class Kind { kInternal = 1, kServer = 2, kClient = 3 };

using Value = std::variant<std::string, int64_t, bool>;

/// A span as exported.
struct FinishedSpan {
  SpanContext context;
  std::optional<std::array<uint8_t, 8>> parent_span_id;
  std::string name;
  Kind kind = Kind::kInternal;
  int64_t start_ns = 0;  // since the epoch
  int64_t end_ns = 0;
  std::vector<std::pair<std::string, Value>> attributes;
  bool error = false;
  std::string status_message;
};

/// Where finished spans go. Export is called on the thread that ended the span: it must not block.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void Export(FinishedSpan&& span) = 0;
};

/// Installs the process's sink (nullptr: tracing off). Not meant to change while serving.
void SetSink(std::shared_ptr<Sink> sink);
bool Enabled();

/// A span from its construction to its destruction, the current one of its thread meanwhile
/// (spans nest as scopes do). Its parent is the thread's current span, or `remote` (a caller's
/// traceparent), or none (a new trace). Not recording when tracing is off or the remote parent
/// was not sampled; then every call on it does nothing.
class Span {
 public:
  explicit Span(std::string_view name, Kind kind = Kind::kInternal,
                const std::optional<SpanContext>& remote = std::nullopt);
  ~Span();
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

  bool recording() const { return recording_; }
  const SpanContext& context() const { return data_.context; }
  void Set(std::string_view key, std::string_view value);
  void Set(std::string_view key, int64_t value);
  void Set(std::string_view key, bool value);
  /// Marks the span failed, with what went wrong.
  void Fail(std::string_view message);
  void Rename(std::string_view name);

 private:
  bool recording_ = false;
  bool sampled_parent_ = true;
  FinishedSpan data_;
  Span* outer_ = nullptr;
};

/// A span that already ended (a store call timed by its pool): a child of the current span.
void Record(std::string_view name, Kind kind, int64_t start_ns, int64_t end_ns,
            std::vector<std::pair<std::string, Value>> attributes);

/// The traceparent to send on an outgoing request: the current span's, if one is recording.
std::optional<std::string> CurrentTraceparent();

/// Nanoseconds since the epoch, now.
int64_t NowNanos();

}  // namespace cairn::trace
