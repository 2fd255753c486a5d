// SPDX-License-Identifier: Apache-2.0
#include "app/otlp_exporter.h"

#include <curl/curl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/util.h"

namespace cairn::app {
namespace {

template <size_t N>
std::string Hex(const std::array<uint8_t, N>& bytes) {
  return HexLower(std::string_view(reinterpret_cast<const char*>(bytes.data()), N));
}

nlohmann::json AnyValue(const trace::Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return {{"stringValue", *s}};
  if (const auto* i = std::get_if<int64_t>(&v)) return {{"intValue", std::to_string(*i)}};
  return {{"boolValue", std::get<bool>(v)}};
}

nlohmann::json KeyValue(const std::string& key, const trace::Value& value) {
  return {{"key", key}, {"value", AnyValue(value)}};
}

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

}  // namespace

OtlpHttpExporter::OtlpHttpExporter(Options options) : options_(std::move(options)) {
  while (!options_.endpoint.empty() && options_.endpoint.back() == '/') {
    options_.endpoint.pop_back();
  }
  worker_ = std::thread([this] { Run(); });
}

OtlpHttpExporter::~OtlpHttpExporter() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void OtlpHttpExporter::Export(trace::FinishedSpan&& span) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= options_.max_queue) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    queue_.push_back(std::move(span));
    if (queue_.size() < options_.batch) return;
  }
  cv_.notify_one();
}

std::string OtlpHttpExporter::Encode(const std::deque<trace::FinishedSpan>& spans,
                                     const Options& options) {
  nlohmann::json out_spans = nlohmann::json::array();
  for (const auto& s : spans) {
    nlohmann::json j = {{"traceId", Hex(s.context.trace_id)},
                        {"spanId", Hex(s.context.span_id)},
                        {"name", s.name},
                        {"kind", static_cast<int>(s.kind)},
                        {"startTimeUnixNano", std::to_string(s.start_ns)},
                        {"endTimeUnixNano", std::to_string(s.end_ns)}};
    if (s.parent_span_id) j["parentSpanId"] = Hex(*s.parent_span_id);
    nlohmann::json attributes = nlohmann::json::array();
    for (const auto& [key, value] : s.attributes) attributes.push_back(KeyValue(key, value));
    j["attributes"] = std::move(attributes);
    // Status: UNSET (0) or ERROR (2) with its message.
    if (s.error) {
      j["status"] = {{"code", 2}, {"message", s.status_message}};
    } else {
      j["status"] = nlohmann::json::object();
    }
    out_spans.push_back(std::move(j));
  }
  nlohmann::json resource_attributes = nlohmann::json::array();
  resource_attributes.push_back(KeyValue("service.name", options.service_name));
  if (!options.service_version.empty()) {
    resource_attributes.push_back(KeyValue("service.version", options.service_version));
  }
  nlohmann::json body = {
      {"resourceSpans",
       nlohmann::json::array({{{"resource", {{"attributes", std::move(resource_attributes)}}},
                               {"scopeSpans",
                                nlohmann::json::array({{{"scope", {{"name", "cairn"}}},
                                                        {"spans", std::move(out_spans)}}})}}})}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool OtlpHttpExporter::Post(const std::string& body) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return false;
  const std::string url = options_.endpoint + "/v1/traces";
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, options_.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Discard);
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  const bool ok = rc == CURLE_OK && status >= 200 && status < 300;
  if (!ok) {
    // At most one warning a minute: a down collector must not flood the log.
    const int64_t now = NowMillis();
    int64_t last = last_warning_ms_.load();
    if (now - last > 60'000 && last_warning_ms_.compare_exchange_strong(last, now)) {
      spdlog::warn("event=trace_export_failed endpoint=\"{}\" status={} error=\"{}\"", url,
                   status, rc == CURLE_OK ? "" : curl_easy_strerror(rc));
    }
  }
  return ok;
}

void OtlpHttpExporter::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait_for(lock, options_.interval,
                 [&] { return stopping_ || queue_.size() >= options_.batch; });
    if (queue_.empty()) {
      if (stopping_) return;
      continue;
    }
    std::deque<trace::FinishedSpan> batch;
    while (!queue_.empty() && batch.size() < options_.batch) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    const bool last = stopping_ && queue_.empty();
    lock.unlock();
    const bool sent = Post(Encode(batch, options_));
    (sent ? exported_ : dropped_).fetch_add(batch.size(), std::memory_order_relaxed);
    lock.lock();
    if (last) return;
    if (stopping_ && !sent) {
      // Shutting down and the collector does not take spans: no more waiting for it.
      dropped_.fetch_add(queue_.size(), std::memory_order_relaxed);
      queue_.clear();
      return;
    }
  }
}

}  // namespace cairn::app
