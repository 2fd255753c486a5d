// SPDX-License-Identifier: Apache-2.0
#include "common/metrics.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace cairn::metrics {

namespace {

constexpr double kLatencyBuckets[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                      0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                      1,      2.5,     5,      10,    30};

void AppendEscaped(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
}

void AppendValue(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else if (value == std::floor(value) && std::fabs(value) < 1e15) {
    fmt::format_to(std::back_inserter(out), "{}", static_cast<int64_t>(value));
  } else {
    fmt::format_to(std::back_inserter(out), "{}", value);
  }
}

template <class Labels>
void AppendSample(std::string& out, std::string_view name, const Labels& labels, double value) {
  out.append(name);
  bool first = true;
  for (const auto& [k, v] : labels) {
    out.push_back(first ? '{' : ',');
    first = false;
    out.append(k);
    out += "=\"";
    AppendEscaped(out, v);
    out.push_back('"');
  }
  if (!first) out.push_back('}');
  out.push_back(' ');
  AppendValue(out, value);
  out.push_back('\n');
}

std::vector<std::pair<std::string_view, std::string_view>> Zip(
    std::span<const std::string> names, std::span<const std::string> values) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i)
    out.emplace_back(names[i], values[i]);
  return out;
}

}  // namespace

std::span<const double> LatencyBuckets() { return kLatencyBuckets; }

uint64_t NextFamilySerial() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Histogram(std::span<const double> upper_bounds)
    : bounds_(upper_bounds.begin(), upper_bounds.end()),
      buckets_(std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1)) {
  std::sort(bounds_.begin(), bounds_.end());
}

void Histogram::Observe(double value) {
  const size_t i = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) -
                                       bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot s;
  s.upper_bounds = bounds_;
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

void TextWriter::Family(std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(out_), "# HELP {} ", name);
  for (char c : help) {
    if (c == '\\') {
      out_ += "\\\\";
    } else if (c == '\n') {
      out_ += "\\n";
    } else {
      out_.push_back(c);
    }
  }
  fmt::format_to(std::back_inserter(out_), "\n# TYPE {} {}\n", name, type);
}

void TextWriter::Sample(std::string_view name, LabelList labels, double value) {
  AppendSample(out_, name, labels, value);
}

void TextWriter::Sample(std::string_view name, std::span<const std::string> label_names,
                        std::span<const std::string> label_values, double value,
                        std::pair<std::string_view, std::string_view> extra) {
  auto labels = Zip(label_names, label_values);
  if (!extra.first.empty()) labels.push_back(extra);
  AppendSample(out_, name, labels, value);
}

void TextWriter::Histogram(std::string_view name, std::span<const std::string> label_names,
                           std::span<const std::string> label_values,
                           const Histogram::Snapshot& h) {
  const std::string bucket = fmt::format("{}_bucket", name);
  for (size_t i = 0; i < h.cumulative.size(); ++i) {
    std::string le;
    if (i < h.upper_bounds.size()) {
      AppendValue(le, h.upper_bounds[i]);
      // `le` is a float in the format's examples ("0.5", "1.0"); keep integers as written.
    } else {
      le = "+Inf";
    }
    Sample(bucket, label_names, label_values, static_cast<double>(h.cumulative[i]), {"le", le});
  }
  Sample(fmt::format("{}_sum", name), label_names, label_values, h.sum);
  Sample(fmt::format("{}_count", name), label_names, label_values, static_cast<double>(h.count));
}

Family<Counter>& Registry::AddCounter(std::string name, std::string help,
                                      std::vector<std::string> label_names, size_t max_series) {
  std::lock_guard lock(mu_);
  counters_.push_back(std::make_unique<Family<Counter>>(
      std::move(name), std::move(help), std::move(label_names),
      [] { return std::make_unique<Counter>(); }, max_series));
  return *counters_.back();
}

Family<Gauge>& Registry::AddGauge(std::string name, std::string help,
                                  std::vector<std::string> label_names, size_t max_series) {
  std::lock_guard lock(mu_);
  gauges_.push_back(std::make_unique<Family<Gauge>>(
      std::move(name), std::move(help), std::move(label_names),
      [] { return std::make_unique<Gauge>(); }, max_series));
  return *gauges_.back();
}

Family<Histogram>& Registry::AddHistogram(std::string name, std::string help,
                                          std::vector<std::string> label_names,
                                          std::span<const double> upper_bounds, size_t max_series) {
  std::vector<double> bounds(upper_bounds.begin(), upper_bounds.end());
  std::lock_guard lock(mu_);
  histograms_.push_back(std::make_unique<Family<Histogram>>(
      std::move(name), std::move(help), std::move(label_names),
      [bounds = std::move(bounds)] { return std::make_unique<Histogram>(bounds); }, max_series));
  return *histograms_.back();
}

void Registry::AddCollector(std::function<void(TextWriter&)> collector) {
  std::lock_guard lock(mu_);
  collectors_.push_back(std::move(collector));
}

std::string Registry::Render() const {
  std::lock_guard lock(mu_);
  TextWriter w;
  for (const auto& f : counters_) {
    w.Family(f->name(), "counter", f->help());
    f->ForEach([&](const std::vector<std::string>& labels, const Counter& c) {
      w.Sample(f->name(), f->label_names(), labels, static_cast<double>(c.value()));
    });
  }
  for (const auto& f : gauges_) {
    w.Family(f->name(), "gauge", f->help());
    f->ForEach([&](const std::vector<std::string>& labels, const Gauge& g) {
      w.Sample(f->name(), f->label_names(), labels, static_cast<double>(g.value()));
    });
  }
  for (const auto& f : histograms_) {
    w.Family(f->name(), "histogram", f->help());
    f->ForEach([&](const std::vector<std::string>& labels, const Histogram& h) {
      w.Histogram(f->name(), f->label_names(), labels, h.Read());
    });
  }
  for (const auto& collect : collectors_) collect(w);
  return w.Take();
}

}  // namespace cairn::metrics
