// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/result.h"
#include "service/caller.h"
#include "service/lineage_forwarder.h"
#include "store/lineage_store.h"
#include "store/metadata_store.h"

namespace cairn::service {

class ObjectService;

struct LineageOptions {
  /// Events accepted but not yet written; an event beyond it is refused (429) until the writer
  /// catches up. Gravitino's `gravitino.lineage.queueCapacity` defaults to the same.
  size_t queue_capacity = 10000;
  /// Where accepted events are sent on (none when its url is empty).
  LineageForwardOptions forward;
};

/// What a lineage graph query asks (docs/lineage.md).
struct LineageQuery {
  /// The start: a Cairn table (`metalake` and `object_name` = "catalog.schema.table"), or a
  /// dataset as events name it (`ns` and `name`).
  std::string metalake;
  std::string object_name;
  std::string ns;
  std::string name;
  bool upstream = true;
  bool downstream = true;
  int depth = 3;        // jobs between the start and the farthest dataset, 1..kMaxLineageDepth
  int page_size = 100;  // nodes per page, 1..kMaxLineagePageSize
  int64_t offset = 0;   // the page token: nodes before this page
};

inline constexpr int kMaxLineageDepth = 20;
inline constexpr int kMaxLineagePageSize = 1000;
/// Nodes one query walks at most; a larger graph is cut there and the page says `truncated`.
inline constexpr size_t kMaxLineageNodes = 10000;

/// How a dataset node shows to the caller.
enum class DatasetVisibility {
  kCairn,     // a Cairn table the caller may load
  kExternal,  // no Cairn object by that name
  kHidden,    // a Cairn object the caller may not load: shown without its names
};

struct LineageColumnInput {
  int64_t dataset_id = 0;
  DatasetVisibility visibility = DatasetVisibility::kExternal;
  std::string ns;    // empty when hidden
  std::string name;  // empty when hidden
  std::string field;
  std::string transformation;
};

struct LineageColumn {
  std::string field;
  std::vector<LineageColumnInput> inputs;
};

struct LineageNode {
  bool is_job = false;
  int64_t id = 0;
  int depth = 0;  // signed: negative upstream of the start, positive downstream, 0 the start
  store::LineageDataset dataset{};
  DatasetVisibility visibility = DatasetVisibility::kExternal;
  store::LineageJob job{};
  std::vector<LineageColumn> columns{};
};

/// Data flows `from` -> `to`: a dataset into a job (an input), a job into a dataset (an output).
struct LineageGraphEdge {
  bool from_job = false;
  int64_t from = 0;
  int64_t to = 0;
  std::string last_run_id;
  std::string last_event_time;
};

struct LineagePage {
  std::vector<LineageNode> nodes;
  std::vector<LineageGraphEdge> edges;  // each edge on the page of the later of its ends
  size_t total = 0;                     // nodes of the whole walk
  bool truncated = false;               // the walk stopped at kMaxLineageNodes
  std::optional<int64_t> next_offset;
};

/// Lineage: OpenLineage run events accepted, kept in the metadata store and folded into a graph
/// of jobs and datasets, and the graph walked from an object (docs/lineage.md).
///
/// Ingest checks and reads an event on the caller's thread (so a malformed one is refused at
/// once, naming the field) and queues it; one writer thread maps its datasets to Cairn objects
/// and appends it to the store, in order. Graph queries show a Cairn table only to a caller
/// who may load it. Safe to call from many threads; the destructor writes what is queued.
class LineageService {
 public:
  LineageService(store::MetadataStore& store, ObjectService& objects, LineageOptions options);
  LineageService(const LineageService&) = delete;
  LineageService& operator=(const LineageService&) = delete;
  LineageService(LineageService&&) = delete;
  LineageService& operator=(LineageService&&) = delete;
  ~LineageService();

  /// Accepts one RunEvent (its JSON text). Returns the job's "namespace.name", for the audit
  /// record. kInvalidArgument naming the field; kUnavailable when the queue is full or the store
  /// keeps no lineage.
  Result<std::string> Ingest(const Caller& caller, const std::string& body);
  /// True when the queue refuses events (the caller answers 429).
  bool QueueFull() const;

  /// One page of the walk. kInvalidArgument for a bad query; the start table's own errors
  /// (kPermissionDenied, kNotFound) as loading it gives; kNotFound for an unknown dataset.
  Result<LineagePage> Graph(const Caller& caller, const LineageQuery& query);

  /// The events kept for `run_id`, oldest first (at most 1000).
  Result<std::vector<store::LineageRunEvent>> RunEvents(const std::string& run_id);

  /// Waits until every event queued before the call is written (tests and shutdown).
  void Flush();

 private:
  struct Queued {
    store::LineageEventRecord record;
    // The `symlinks` names of each input, then each output.
    std::vector<std::vector<std::pair<std::string, std::string>>> symlinks;
  };
  void Run();
  void Write(Queued item);
  /// Fills the dataset's Cairn mapping from its name, or from the first symlink that maps.
  void MapDataset(store::LineageDatasetName& d,
                  const std::vector<std::pair<std::string, std::string>>& symlinks);
  std::optional<std::pair<std::string, std::string>> MapName(const std::string& ns,
                                                             const std::string& name);
  DatasetVisibility Visibility(const Caller& caller, const store::LineageDataset& d);

  store::MetadataStore& store_;
  store::LineageStore* lineage_;  // null when the store keeps none
  ObjectService& objects_;
  const LineageOptions options_;

  mutable std::mutex mu_;
  std::condition_variable cv_;                   // the writer waits for work
  std::condition_variable idle_cv_;              // Flush waits for the writer
  std::deque<Queued> queue_;                     // guarded by mu_
  uint64_t queued_ = 0;                          // events ever queued, guarded by mu_
  uint64_t written_ = 0;                         // events ever taken and finished, guarded by mu_
  bool stop_ = false;                            // guarded by mu_
  std::unique_ptr<LineageForwarder> forwarder_;  // when events are sent on
  std::thread writer_;

 public:
  /// The forwarder, when events are sent on (tests, metrics).
  LineageForwarder* forwarder() { return forwarder_.get(); }
};

}  // namespace cairn::service
