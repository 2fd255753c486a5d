// SPDX-License-Identifier: Apache-2.0
#include "app/server_metrics.h"

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>

#include <sys/resource.h>

#include "connector/jdbc/jdbc_session.h"
#include "governance/access_control.h"
#include "storage/storage_metrics.h"

namespace cairn::app {

namespace {

using metrics::TextWriter;

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Resident set size from /proc/self/statm (pages), or 0 where there is none.
double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0;
  long resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double CpuSeconds() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void Gauge(TextWriter& w, std::string_view name, std::string_view help, double value) {
  w.Family(name, "gauge", help);
  w.Sample(name, {}, value);
}

void Counter(TextWriter& w, std::string_view name, std::string_view help, double value) {
  w.Family(name, "counter", help);
  w.Sample(name, {}, value);
}

}  // namespace

ServerMetrics::ServerMetrics(Sources sources)
    : sources_(std::move(sources)),
      requests_(registry_.AddCounter(
          "cairn_http_requests_total",
          "Requests answered, by interface, operation (the route's pattern) and status.",
          {"interface", "operation", "status"})),
      latency_(registry_.AddHistogram(
          "cairn_http_request_duration_seconds",
          "Time from a request's arrival at its interface to its answer, by interface and "
          "operation.",
          {"interface", "operation"}, metrics::LatencyBuckets())),
      vended_(registry_.AddCounter("cairn_credentials_vended_total",
                                   "Answers that carried vended storage keys, by interface and "
                                   "access (read-only, read-write).",
                                   {"interface", "access"})),
      changes_(registry_.AddCounter(
          "cairn_object_changes_total",
          "Object changes made durable, by interface, object kind and change (created, altered, "
          "dropped, renamed, committed).",
          {"interface", "kind", "change"})),
      limited_(registry_.AddCounter(
          "cairn_requests_limited_total",
          "Requests refused with 429 by a request limit, by interface and limit "
          "(principal_in_flight, principal_rate, interface_in_flight, interface_rate).",
          {"interface", "limit"})),
      start_time_s_(NowSeconds()) {
  if (sources_.events != nullptr) {
    subscription_ = sources_.events->Subscribe([this](const service::ObjectChange& change) {
      changes_
          .With({change.interface, governance::ObjectTypeName(change.kind),
                 service::ChangeTypeName(change.type)})
          .Inc();
    });
  }
  registry_.AddCollector([this](TextWriter& w) { Collect(w); });
}

void ServerMetrics::ObserveRequest(std::string_view interface, std::string_view operation,
                                   int status, double seconds, std::string_view vended_access) {
  char status_text[12];
  const auto end = std::to_chars(status_text, status_text + sizeof status_text, status).ptr;
  requests_.With({interface, operation, std::string_view(status_text, end - status_text)}).Inc();
  latency_.With({interface, operation}).Observe(seconds);
  if (!vended_access.empty()) vended_.With({interface, vended_access}).Inc();
}

void ServerMetrics::Collect(TextWriter& w) const {
  w.Family("cairn_build_info", "gauge", "The server's version (the value is always 1).");
  w.Sample("cairn_build_info", {{"version", sources_.version}}, 1);
  Gauge(w, "process_start_time_seconds", "When the server started, in seconds since the epoch.",
        start_time_s_);
  Gauge(w, "process_resident_memory_bytes", "Resident memory of the server process.",
        ResidentBytes());
  Counter(w, "process_cpu_seconds_total", "User and system CPU time the server used.",
          CpuSeconds());

  if (sources_.store != nullptr) {
    const store::StoreStats s = sources_.store->Stats();
    const std::string_view store = sources_.store_type;
    w.Family("cairn_store_pool_connections", "gauge",
             "Connections of the metadata store's pool, by state (in_use, idle) and the "
             "pool's size (max).");
    w.Sample("cairn_store_pool_connections", {{"store", store}, {"state", "in_use"}},
             s.pool_in_use);
    w.Sample("cairn_store_pool_connections", {{"store", store}, {"state", "idle"}},
             s.pool_open - s.pool_in_use);
    w.Sample("cairn_store_pool_connections", {{"store", store}, {"state", "max"}}, s.pool_size);
    w.Family("cairn_store_pool_acquire_timeouts_total", "counter",
             "Store calls refused because no connection came free in time.");
    w.Sample("cairn_store_pool_acquire_timeouts_total", {{"store", store}},
             static_cast<double>(s.acquire_timeouts));
    const std::string store_label[] = {"store"};
    const std::string store_value[] = {std::string(store)};
    w.Family("cairn_store_pool_wait_seconds", "histogram",
             "Time a store call waited for a pooled connection.");
    w.Histogram("cairn_store_pool_wait_seconds", store_label, store_value, s.acquire_wait);
    w.Family("cairn_store_call_duration_seconds", "histogram",
             "Time a store call (a query, a compare-and-set, a transaction) held its connection.");
    w.Histogram("cairn_store_call_duration_seconds", store_label, store_value, s.call);
    if (s.caches_paths) {
      w.Family("cairn_store_path_cache_lookups_total", "counter",
               "Path lookups of the metadata store, by result (hit: answered from memory).");
      w.Sample("cairn_store_path_cache_lookups_total", {{"result", "hit"}},
               static_cast<double>(s.path_cache_hits));
      w.Sample("cairn_store_path_cache_lookups_total", {{"result", "miss"}},
               static_cast<double>(s.path_cache_misses));
    }
    if (s.has_change_feed) {
      Gauge(w, "cairn_store_change_feed_connected",
            "1 while the store's change feed (PostgreSQL notifications of every replica's "
            "commits) is connected; 0 while it is not and the caches are bypassed.",
            s.change_feed_connected ? 1 : 0);
      Counter(w, "cairn_store_changes_announced_total",
              "Changes of metadata rows heard from the change feed (this replica's own included).",
              static_cast<double>(s.changes_announced));
      Counter(w, "cairn_store_change_feed_resyncs_total",
              "Times the change feed connected (at start and after a lost connection), each "
              "dropping every cached entry.",
              static_cast<double>(s.change_feed_resyncs));
    }
  }

  const auto storage_calls = storage::S3Metrics().Read();
  w.Family("cairn_storage_requests_total", "counter",
           "Object storage requests the server made (S3), by method and outcome (failed: no "
           "answer from storage after every attempt).");
  for (const auto& m : storage_calls) {
    w.Sample("cairn_storage_requests_total", {{"method", m.method}, {"outcome", "ok"}},
             static_cast<double>(m.ok));
    w.Sample("cairn_storage_requests_total", {{"method", m.method}, {"outcome", "failed"}},
             static_cast<double>(m.failed));
  }
  w.Family("cairn_storage_retries_total", "counter",
           "Object storage requests sent again after a 5xx, throttling or a transport error.");
  for (const auto& m : storage_calls) {
    w.Sample("cairn_storage_retries_total", {{"method", m.method}},
             static_cast<double>(m.retries));
  }
  w.Family("cairn_storage_request_duration_seconds", "histogram",
           "Time an object storage request took, its retries included.");
  const std::string method_label[] = {"method"};
  for (const auto& m : storage_calls) {
    const std::string value[] = {std::string(m.method)};
    w.Histogram("cairn_storage_request_duration_seconds", method_label, value, m.latency);
  }

  const auto pools = connector::jdbc::ReadPoolStats();
  if (!pools.empty()) {
    w.Family("cairn_jdbc_pool_connections", "gauge",
             "Connections of a JDBC catalog's pool to its source, by state (in_use, idle) and "
             "the pool's size (max).");
    for (const auto& p : pools) {
      w.Sample("cairn_jdbc_pool_connections", {{"catalog_id", p.name}, {"state", "in_use"}},
               p.leased);
      w.Sample("cairn_jdbc_pool_connections", {{"catalog_id", p.name}, {"state", "idle"}},
               p.open - p.leased);
      w.Sample("cairn_jdbc_pool_connections", {{"catalog_id", p.name}, {"state", "max"}}, p.max);
    }
    w.Family("cairn_jdbc_pool_acquire_timeouts_total", "counter",
             "Source calls refused because every connection of the pool stayed busy, or the "
             "source was held off as hanging.");
    w.Family("cairn_jdbc_pool_connect_failures_total", "counter",
             "Connections to a JDBC catalog's source that could not be opened.");
    for (const auto& p : pools) {
      w.Sample("cairn_jdbc_pool_acquire_timeouts_total", {{"catalog_id", p.name}},
               static_cast<double>(p.timeouts));
      w.Sample("cairn_jdbc_pool_connect_failures_total", {{"catalog_id", p.name}},
               static_cast<double>(p.connect_failures));
    }
    w.Family("cairn_jdbc_pool_wait_seconds", "histogram",
             "Time a source call waited for a pooled connection (opening one included).");
    const std::string catalog_label[] = {"catalog_id"};
    for (const auto& p : pools) {
      const std::string value[] = {p.name};
      w.Histogram("cairn_jdbc_pool_wait_seconds", catalog_label, value, p.wait);
    }
  }

  if (sources_.iceberg) {
    const connector::IcebergStats s = connector::ReadIcebergStats(*sources_.iceberg);
    w.Family("cairn_iceberg_metadata_cache_lookups_total", "counter",
             "Metadata file reads of managed Iceberg tables, by result (hit: from memory).");
    w.Sample("cairn_iceberg_metadata_cache_lookups_total", {{"result", "hit"}},
             static_cast<double>(s.metadata_cache_hits));
    w.Sample("cairn_iceberg_metadata_cache_lookups_total", {{"result", "miss"}},
             static_cast<double>(s.metadata_cache_misses));
    Gauge(w, "cairn_iceberg_metadata_cache_bytes", "Bytes of metadata files held in memory.",
          static_cast<double>(s.metadata_cache_bytes));
    Gauge(w, "cairn_iceberg_metadata_cache_capacity_bytes",
          "The metadata cache's bound (cairn.iceberg.metadata-cache-bytes).",
          static_cast<double>(s.metadata_cache_capacity_bytes));
    Gauge(w, "cairn_iceberg_metadata_cache_entries", "Metadata files held in memory.",
          static_cast<double>(s.metadata_cache_entries));
    Gauge(w, "cairn_iceberg_metadata_open_files",
          "Cached metadata files also held open, sent with sendfile "
          "(cairn.iceberg.metadata-open-files).",
          static_cast<double>(s.metadata_open_files));
    w.Family("cairn_iceberg_manifest_cache_lookups_total", "counter",
             "Manifests and manifest lists scan planning needed, by result (hit: from memory).");
    w.Sample("cairn_iceberg_manifest_cache_lookups_total", {{"result", "hit"}},
             static_cast<double>(s.manifest_cache_hits));
    w.Sample("cairn_iceberg_manifest_cache_lookups_total", {{"result", "miss"}},
             static_cast<double>(s.manifest_cache_misses));
    Gauge(w, "cairn_iceberg_manifest_cache_bytes",
          "Approximate bytes of parsed manifests held in memory for scan planning.",
          static_cast<double>(s.manifest_cache_bytes));
    w.Family("cairn_iceberg_commits_total", "counter",
             "Table commits of managed Iceberg catalogs, by result: committed, conflict (a "
             "requirement failed, 409), unknown (the pointer swap's outcome is not known), "
             "failed (refused for another reason).");
    w.Sample("cairn_iceberg_commits_total", {{"result", "committed"}},
             static_cast<double>(s.commits));
    w.Sample("cairn_iceberg_commits_total", {{"result", "conflict"}},
             static_cast<double>(s.commit_conflicts));
    w.Sample("cairn_iceberg_commits_total", {{"result", "unknown"}},
             static_cast<double>(s.commit_state_unknown));
    w.Sample("cairn_iceberg_commits_total", {{"result", "failed"}},
             static_cast<double>(s.commit_failures));
    Counter(w, "cairn_iceberg_append_rebases_total",
            "Stale appends the server re-applied on the table's new head instead of a 409 (per "
            "attempt: a rebase that then loses a race is tried again).",
            static_cast<double>(s.append_rebases));
    w.Family("cairn_iceberg_rebase_list_reads_total", "counter",
             "Manifest lists of stale appends a rebase read, by how much: own (only the "
             "snapshot's own records; the rest were a list the server wrote, byte for byte) or "
             "whole.");
    w.Sample("cairn_iceberg_rebase_list_reads_total", {{"read", "own"}},
             static_cast<double>(s.rebase_list_reads_own_records));
    w.Sample("cairn_iceberg_rebase_list_reads_total", {{"read", "whole"}},
             static_cast<double>(s.rebase_list_reads_whole));
  }
}

}  // namespace cairn::app
