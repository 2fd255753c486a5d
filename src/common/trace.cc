// SPDX-License-Identifier: Apache-2.0
#include "common/trace.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "common/util.h"

namespace cairn::trace {
namespace {

std::atomic<bool> g_enabled{false};
std::mutex g_sink_mu;
std::shared_ptr<Sink> g_sink;  // guarded by g_sink_mu
thread_local Span* t_current = nullptr;

std::shared_ptr<Sink> CurrentSink() {
  std::lock_guard lock(g_sink_mu);
  return g_sink;
}

template <size_t N>
void RandomBytes(std::array<uint8_t, N>& out) {
  thread_local std::mt19937_64 rng{std::random_device{}() ^
                                   static_cast<uint64_t>(NowNanos())};
  do {
    for (size_t i = 0; i < N; i += 8) {
      uint64_t v = rng();
      for (size_t j = 0; j < 8 && i + j < N; ++j) out[i + j] = static_cast<uint8_t>(v >> (8 * j));
    }
  } while (std::all_of(out.begin(), out.end(), [](uint8_t b) { return b == 0; }));
}

template <size_t N>
bool ParseHex(std::string_view text, std::array<uint8_t, N>& out) {
  if (text.size() != 2 * N) return false;
  bool nonzero = false;
  for (size_t i = 0; i < N; ++i) {
    int v = 0;
    for (size_t j = 0; j < 2; ++j) {
      const char c = text[2 * i + j];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return false;  // W3C: lower-case hex only
      v = v * 16 + d;
    }
    out[i] = static_cast<uint8_t>(v);
    nonzero = nonzero || v != 0;
  }
  return nonzero;
}

template <size_t N>
std::string Hex(const std::array<uint8_t, N>& bytes) {
  return HexLower(std::string_view(reinterpret_cast<const char*>(bytes.data()), N));
}

}  // namespace

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<SpanContext> ParseTraceparent(std::string_view h) {
  // version "-" trace-id "-" parent-id "-" flags; a later version may append fields.
  if (h.size() < 55 || h[2] != '-' || h[35] != '-' || h[52] != '-') return std::nullopt;
  if (h.substr(0, 2) == "ff" || (h.substr(0, 2) == "00" && h.size() != 55)) return std::nullopt;
  SpanContext c;
  std::array<uint8_t, 1> flags{};
  if (!ParseHex(h.substr(3, 32), c.trace_id) || !ParseHex(h.substr(36, 16), c.span_id)) {
    return std::nullopt;
  }
  if (!ParseHex(h.substr(53, 2), flags) && h.substr(53, 2) != "00") return std::nullopt;
  c.sampled = (flags[0] & 1) != 0;
  return c;
}

std::string FormatTraceparent(const SpanContext& c) {
  return fmt::format("00-{}-{}-{}", Hex(c.trace_id), Hex(c.span_id), c.sampled ? "01" : "00");
}

void SetSink(std::shared_ptr<Sink> sink) {
  std::lock_guard lock(g_sink_mu);
  g_sink = std::move(sink);
  g_enabled.store(g_sink != nullptr, std::memory_order_release);
}

bool Enabled() { return g_enabled.load(std::memory_order_acquire); }

Span::Span(std::string_view name, Kind kind, const std::optional<SpanContext>& remote) {
  if (!Enabled()) return;
  if (t_current != nullptr && t_current->recording_) {
    data_.context.trace_id = t_current->data_.context.trace_id;
    data_.parent_span_id = t_current->data_.context.span_id;
  } else if (t_current != nullptr) {
    return;  // inside a span that is not recorded: nor are its children
  } else if (remote) {
    if (!remote->sampled) {
      // Not recorded, but current: its children are not recorded either.
      sampled_parent_ = false;
      outer_ = t_current;
      t_current = this;
      return;
    }
    data_.context.trace_id = remote->trace_id;
    data_.parent_span_id = remote->span_id;
  } else {
    RandomBytes(data_.context.trace_id);
  }
  RandomBytes(data_.context.span_id);
  data_.name = std::string(name);
  data_.kind = kind;
  data_.start_ns = NowNanos();
  recording_ = true;
  outer_ = t_current;
  t_current = this;
}

Span::~Span() {
  if (!recording_ && sampled_parent_) return;
  t_current = outer_;
  if (!recording_) return;
  data_.end_ns = NowNanos();
  if (auto sink = CurrentSink()) sink->Export(std::move(data_));
}

void Span::Set(std::string_view key, std::string_view value) {
  if (recording_) data_.attributes.emplace_back(std::string(key), std::string(value));
}
void Span::Set(std::string_view key, int64_t value) {
  if (recording_) data_.attributes.emplace_back(std::string(key), value);
}
void Span::Set(std::string_view key, bool value) {
  if (recording_) data_.attributes.emplace_back(std::string(key), value);
}
void Span::Fail(std::string_view message) {
  if (!recording_) return;
  data_.error = true;
  data_.status_message = std::string(message.substr(0, 512));
}
void Span::Rename(std::string_view name) {
  if (recording_) data_.name = std::string(name);
}

void Record(std::string_view name, Kind kind, int64_t start_ns, int64_t end_ns,
            std::vector<std::pair<std::string, Value>> attributes) {
  if (!Enabled() || t_current == nullptr || !t_current->recording()) return;
  FinishedSpan span;
  span.context.trace_id = t_current->context().trace_id;
  span.parent_span_id = t_current->context().span_id;
  RandomBytes(span.context.span_id);
  span.name = std::string(name);
  span.kind = kind;
  span.start_ns = start_ns;
  span.end_ns = end_ns;
  span.attributes = std::move(attributes);
  if (auto sink = CurrentSink()) sink->Export(std::move(span));
}

std::optional<std::string> CurrentTraceparent() {
  if (!Enabled() || t_current == nullptr || !t_current->recording()) return std::nullopt;
  return FormatTraceparent(t_current->context());
}

}  // namespace cairn::trace
