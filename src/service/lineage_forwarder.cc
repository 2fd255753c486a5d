// SPDX-License-Identifier: Apache-2.0
#include "service/lineage_forwarder.h"

#include <chrono>
#include <utility>

#include "common/log.h"
#include "common/util.h"
#include "connector/iceberg/rest_client.h"

namespace cairn::service {

namespace {

std::string TargetOf(const LineageForwardOptions& o) {
  std::string url = o.url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  std::string endpoint = o.endpoint;
  while (!endpoint.empty() && endpoint.front() == '/') endpoint.erase(0, 1);
  return endpoint.empty() ? url : url + "/" + endpoint;
}

// A refusal worth another attempt: no answer, or the receiver busy or failing.
bool Transient(int status) {
  return status == 0 || status == 408 || status == 429 || status >= 500;
}

}  // namespace

Status ValidateForwardOptions(const LineageForwardOptions& o) {
  if (o.api_key.find_first_of("\r\n") != std::string::npos) {
    return InvalidArgument("cairn.lineage.forward.api-key must be one line");
  }
  if (o.url.empty()) return Ok();
  if (o.url.rfind("http://", 0) != 0 && o.url.rfind("https://", 0) != 0) {
    return InvalidArgument("cairn.lineage.forward.url must be an http:// or https:// URL, got '{}'",
                           o.url);
  }
  if (o.url.find_first_of(" \r\n\t") != std::string::npos) {
    return InvalidArgument("cairn.lineage.forward.url must not contain white space");
  }
  if (o.timeout_ms <= 0)
    return InvalidArgument("cairn.lineage.forward.timeout-ms must be positive");
  if (!o.api_key.empty() && IsClearTextToAnotherMachine(o.url)) {
    return InvalidArgument(
        "cairn.lineage.forward.url '{}' is plain HTTP to another machine and an api-key is set: "
        "the key would cross the network in clear text; use https://",
        o.url);
  }
  if (o.queue_capacity == 0) return InvalidArgument("the lineage forward queue needs a capacity");
  return Ok();
}

LineageForwarder::LineageForwarder(LineageForwardOptions options)
    : options_(std::move(options)), target_(TargetOf(options_)) {
  connector::HttpClientOptions http;
  http.connect_timeout_ms = options_.timeout_ms;
  http.request_timeout_ms = options_.timeout_ms;
  http.max_idle_handles = 1;              // one sender
  http.max_body_bytes = size_t{1} << 20;  // a receiver's answer is small
  http_ = std::make_unique<connector::HttpClient>(http);
  sender_ = std::thread([this] { Run(); });
}

LineageForwarder::~LineageForwarder() {
  size_t left = 0;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    left = queue_.size();
  }
  cv_.notify_all();
  sender_.join();
  if (left > 0) {
    spdlog::warn("event=lineage_forward_unsent events={} url=\"{}\"", left, target_);
  }
}

bool LineageForwarder::Offer(std::string body) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= options_.queue_capacity) {
      // Log the first skip of a run of them, then every 1000th.
      if (counters_.skipped++ % 1000 == 0) {
        spdlog::warn("event=lineage_forward_skipped reason=queue_full capacity={} skipped={}",
                     options_.queue_capacity, counters_.skipped);
      }
      return false;
    }
    queue_.push_back(std::move(body));
    ++offered_;
  }
  cv_.notify_one();
  return true;
}

LineageForwarder::Counters LineageForwarder::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

void LineageForwarder::Flush() {
  std::unique_lock lock(mu_);
  const uint64_t target = offered_;
  idle_cv_.wait(lock, [&] { return done_ >= target || stop_; });
}

void LineageForwarder::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;  // what is still queued is counted by the destructor
    std::string body = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    const bool sent = Send(body);
    lock.lock();
    ++(sent ? counters_.sent : counters_.failed);
    ++done_;
    idle_cv_.notify_all();
  }
}

bool LineageForwarder::Send(const std::string& body) {
  connector::HttpCall call;
  call.method = "POST";
  call.url = target_;
  call.headers = {{"Content-Type", "application/json"}};
  if (!options_.api_key.empty())
    call.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  call.body = body;
  std::string last;
  auto pause = std::chrono::milliseconds(250);
  for (int attempt = 1; attempt <= options_.attempts; ++attempt) {
    auto reply = http_->Send(call);
    const int status = reply ? reply->status : 0;
    if (status >= 200 && status < 300) return true;
    last = reply ? "HTTP " + std::to_string(status) : reply.error().message;
    if (!Transient(status) || attempt == options_.attempts) break;
    {
      // Wait, unless the server is stopping.
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, pause, [&] { return stop_; })) break;
    }
    pause *= 4;
  }
  spdlog::warn("event=lineage_forward_failed url=\"{}\" reason=\"{}\"", target_, last);
  return false;
}

}  // namespace cairn::service
