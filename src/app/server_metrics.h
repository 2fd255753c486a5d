// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/metrics.h"
#include "connector/connector.h"
#include "service/events.h"
#include "store/metadata_store.h"

namespace cairn::app {

/// What the server counts, served at `/metrics` in Prometheus' text format (docs/operations.md):
/// requests by interface, operation and status with their latency, vended storage keys, object
/// changes (from the event stream), and, read at each scrape, the metadata store's connection
/// pool and path cache, the managed Iceberg catalogs' metadata cache and commit outcomes, and
/// the process's own figures. Labels carry route patterns, never object names.
class ServerMetrics {
 public:
  struct Sources {
    store::MetadataStore* store = nullptr;  // not owned
    std::string store_type;                 // "sqlite" | "postgres"
    std::shared_ptr<connector::IcebergCaches> iceberg;
    service::EventStream* events = nullptr;  // not owned; subscribed for the metrics' life
    std::string version;
  };
  explicit ServerMetrics(Sources sources);
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;

  /// One answered request: `operation` is its route pattern ("GET /api/metalakes/{metalake}").
  void ObserveRequest(std::string_view interface, std::string_view operation, int status,
                      double seconds, std::string_view vended_access);

  /// A request refused by a limit (`limit`: principal_in_flight, principal_rate,
  /// interface_in_flight, interface_rate).
  void ObserveLimited(std::string_view interface, std::string_view limit) {
    limited_.With({interface, limit}).Inc();
  }

  /// Every metric in the text exposition format (version 0.0.4).
  std::string Render() const { return registry_.Render(); }

 private:
  void Collect(metrics::TextWriter& w) const;

  Sources sources_;
  metrics::Registry registry_;
  metrics::Family<metrics::Counter>& requests_;
  metrics::Family<metrics::Histogram>& latency_;
  metrics::Family<metrics::Counter>& vended_;
  metrics::Family<metrics::Counter>& changes_;
  metrics::Family<metrics::Counter>& limited_;
  service::EventStream::Subscription subscription_;
  const double start_time_s_;
};

}  // namespace cairn::app
