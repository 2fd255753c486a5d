// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cairn::metrics {

/// A monotonically increasing count. Lock-free.
class Counter {
 public:
  void Inc(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

/// A value that goes up and down. Lock-free.
class Gauge {
 public:
  void Add(int64_t n) { value_.fetch_add(n, std::memory_order_relaxed); }
  void Set(int64_t n) { value_.store(n, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

/// Observations counted into fixed buckets (upper bounds, ascending), with their sum. Lock-free.
class Histogram {
 public:
  explicit Histogram(std::span<const double> upper_bounds);
  void Observe(double value);

  struct Snapshot {
    std::vector<double> upper_bounds;  // the finite bounds; +Inf is implied
    std::vector<uint64_t> cumulative;  // one per bound, then the +Inf bucket (== count)
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1, not cumulative
  std::atomic<double> sum_{0};
};

/// Upper bounds for request and call latencies, in seconds (100 µs to 30 s).
std::span<const double> LatencyBuckets();

/// A number no other Family of this process has (Family::With's per-thread memo).
uint64_t NextFamilySerial();

/// Builds the Prometheus text exposition format (version 0.0.4): one `# HELP` and `# TYPE` line
/// per family, then its samples. Label values are escaped as the format requires.
class TextWriter {
 public:
  using LabelList = std::initializer_list<std::pair<std::string_view, std::string_view>>;

  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, LabelList labels, double value);
  void Sample(std::string_view name, std::span<const std::string> label_names,
              std::span<const std::string> label_values, double value,
              std::pair<std::string_view, std::string_view> extra = {});
  void Histogram(std::string_view name, std::span<const std::string> label_names,
                 std::span<const std::string> label_values, const Histogram::Snapshot& h);

  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

/// The series of one metric by label values. A family holds at most `max_series` series; label
/// values beyond that are counted in one series whose every label is "other", so a caller that
/// sends endless distinct paths cannot grow the server's memory. Safe from many threads: a
/// series, once made, lives as long as the family.
template <class T>
class Family {
 public:
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::function<std::unique_ptr<T>()> make, size_t max_series)
      : name_(std::move(name)),
        help_(std::move(help)),
        label_names_(std::move(label_names)),
        make_(std::move(make)),
        max_series_(max_series),
        serial_(NextFamilySerial()) {}

  /// The series of these label values (as many as the family has label names).
  T& With(std::initializer_list<std::string_view> values) {
    // Every request looks up a few series: the key is built in a buffer the thread keeps, so a
    // lookup of a known series allocates nothing.
    thread_local std::string key;
    key.clear();
    for (auto v : values) {
      key.append(v);
      key.push_back('\x1f');
    }
    // A request looks up the same few series as the thread's last ones: those it found are
    // kept per thread (a series lives as long as its family), by the family's serial, not its
    // address, which a later family may reuse.
    struct Remembered {
      uint64_t family = 0;
      std::string key;
      T* value = nullptr;
    };
    thread_local std::array<Remembered, 4> remembered;
    thread_local size_t next_slot = 0;
    for (const Remembered& r : remembered) {
      if (r.family == serial_ && r.key == key) return *r.value;
    }
    Shard& shard = shards_[std::hash<std::string>{}(key) % kShards];
    {
      std::lock_guard lock(shard.mu);
      if (auto it = shard.series.find(key); it != shard.series.end()) {
        Remembered& slot = remembered[next_slot++ % remembered.size()];
        slot.family = serial_;
        slot.key = key;
        slot.value = it->second.value.get();
        return *slot.value;
      }
    }
    std::vector<std::string> labels(values.begin(), values.end());
    if (count_.fetch_add(1, std::memory_order_relaxed) >= max_series_) {
      count_.fetch_sub(1, std::memory_order_relaxed);
      return Overflow();
    }
    std::lock_guard lock(shard.mu);
    auto [it, inserted] = shard.series.try_emplace(key);
    if (inserted) {
      it->second.labels = std::move(labels);
      it->second.value = make_();
    } else {
      count_.fetch_sub(1, std::memory_order_relaxed);
    }
    return *it->second.value;
  }

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  /// Calls `f(label_values, series)` for every series, in no particular order.
  template <class F>
  void ForEach(F&& f) const {
    for (const Shard& shard : shards_) {
      std::lock_guard lock(shard.mu);
      for (const auto& [key, s] : shard.series) f(s.labels, *s.value);
    }
    std::lock_guard lock(overflow_mu_);
    if (overflow_) f(std::vector<std::string>(label_names_.size(), "other"), *overflow_);
  }

 private:
  static constexpr size_t kShards = 16;
  struct Series {
    std::vector<std::string> labels;
    std::unique_ptr<T> value;
  };
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<std::string, Series> series;
  };

  T& Overflow() {
    std::lock_guard lock(overflow_mu_);
    if (!overflow_) overflow_ = make_();
    return *overflow_;
  }

  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const std::function<std::unique_ptr<T>()> make_;
  const size_t max_series_;
  const uint64_t serial_;
  std::atomic<size_t> count_{0};
  Shard shards_[kShards];
  mutable std::mutex overflow_mu_;
  std::unique_ptr<T> overflow_;
};

/// The server's metrics: families made once at start (names and labels fixed), and collectors,
/// which write the figures a component keeps itself (cache hits, pool sizes) when scraped.
/// Owned by the server and handed to what records into it; safe from many threads.
class Registry {
 public:
  static constexpr size_t kDefaultMaxSeries = 2000;

  Family<Counter>& AddCounter(std::string name, std::string help,
                              std::vector<std::string> label_names,
                              size_t max_series = kDefaultMaxSeries);
  Family<Gauge>& AddGauge(std::string name, std::string help, std::vector<std::string> label_names,
                          size_t max_series = kDefaultMaxSeries);
  Family<Histogram>& AddHistogram(std::string name, std::string help,
                                  std::vector<std::string> label_names,
                                  std::span<const double> upper_bounds,
                                  size_t max_series = kDefaultMaxSeries);
  /// Called on every scrape, after the families, with the writer to add whole families to. A
  /// collector must not block for long (it runs on the request thread of the scrape).
  void AddCollector(std::function<void(TextWriter&)> collector);

  /// Every family and collector in the text exposition format.
  std::string Render() const;

 private:
  mutable std::mutex mu_;  // guards the lists (families are added at start, read per scrape)
  std::vector<std::unique_ptr<Family<Counter>>> counters_;
  std::vector<std::unique_ptr<Family<Gauge>>> gauges_;
  std::vector<std::unique_ptr<Family<Histogram>>> histograms_;
  std::vector<std::function<void(TextWriter&)>> collectors_;
};

}  // namespace cairn::metrics
