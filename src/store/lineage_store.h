// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace cairn::store {

/// Which side of a job a dataset is on. Persisted in `lineage_edges.role`: never reuse a value.
enum class LineageRole : int { kInput = 0, kOutput = 1 };

/// A dataset as an event names it, with the Cairn object the name maps to (empty `metalake`
/// when it maps to none). Whether that object exists is decided when the graph is read.
struct LineageDatasetName {
  std::string ns;
  std::string name;
  std::string metalake;
  std::string object_name;  // "catalog.schema.table"
};

/// One column of an output dataset and one field of a dataset it was computed from.
struct LineageColumnFact {
  LineageDatasetName output;
  std::string output_field;
  LineageDatasetName input;
  std::string input_field;
  std::string transformation;  // "IDENTITY", "TRANSFORMATION/AGGREGATION", ... or empty
};

/// One OpenLineage run event as it is kept: the fields the graph is built from and the event's
/// JSON text, stored verbatim.
struct LineageEventRecord {
  std::string run_id;
  std::string event_type;  // START RUNNING COMPLETE ABORT FAIL OTHER
  std::string event_time;  // as sent (ISO-8601)
  std::string producer;
  std::string job_ns;
  std::string job_name;
  int64_t received_time = 0;  // epoch milliseconds
  std::vector<LineageDatasetName> inputs;
  std::vector<LineageDatasetName> outputs;
  std::vector<LineageColumnFact> columns;
  std::string body;
};

struct LineageDataset {
  int64_t id = 0;
  std::string ns;
  std::string name;
  std::string metalake;
  std::string object_name;
};

/// A job with the run that last reported on it.
struct LineageJob {
  int64_t id = 0;
  std::string ns;
  std::string name;
  std::string last_run_id;
  std::string last_state;
  std::string last_event_time;
};

/// A dataset that is an input or an output of a job, with the run that last said so.
struct LineageEdge {
  int64_t dataset_id = 0;
  LineageRole role = LineageRole::kInput;
  int64_t job_id = 0;
  std::string last_run_id;
  std::string last_event_time;
};

struct LineageColumnEdge {
  int64_t output_dataset_id = 0;
  std::string output_field;
  int64_t input_dataset_id = 0;
  std::string input_field;
  int64_t job_id = 0;
  std::string transformation;
};

/// One kept event of a run, in the order received.
struct LineageRunEvent {
  int64_t id = 0;
  std::string event_type;
  std::string event_time;
  std::string body;
};

/// The lineage part of the metadata store (docs/lineage.md): events appended, and the graph of
/// jobs and datasets they describe, read a step at a time for many nodes at once.
///
/// Lookups by a list of ids return rows in no particular order and skip ids that do not exist.
/// Errors as for MetadataStore (kUnavailable, kInternal); no SQL type leaks out. Safe to call
/// from many threads.
class LineageStore {
 public:
  virtual ~LineageStore() = default;

  /// Keeps `event` and folds it into the graph, in one transaction: the job, the datasets (new
  /// ones inserted, a known one given the mapping of the newest event that names it), the run
  /// (a second event of a run updates its state), one edge per input and output, one column
  /// edge per fact. Returns the event's id.
  virtual Result<int64_t> Append(const LineageEventRecord& event) = 0;

  /// The dataset (namespace, name), or none.
  virtual Result<std::vector<LineageDataset>> FindDataset(const std::string& ns,
                                                          const std::string& name) = 0;
  /// Every dataset whose name maps to the Cairn object `object_name` of `metalake` (one per
  /// naming convention an engine used for it).
  virtual Result<std::vector<LineageDataset>> DatasetsOfObject(const std::string& metalake,
                                                               const std::string& object_name) = 0;
  virtual Result<std::vector<LineageDataset>> GetDatasets(const std::vector<int64_t>& ids) = 0;
  virtual Result<std::vector<LineageJob>> GetJobs(const std::vector<int64_t>& ids) = 0;
  /// The edges of `role` at the datasets `ids`.
  virtual Result<std::vector<LineageEdge>> EdgesOfDatasets(const std::vector<int64_t>& ids,
                                                           LineageRole role) = 0;
  /// The edges of `role` at the jobs `ids`.
  virtual Result<std::vector<LineageEdge>> EdgesOfJobs(const std::vector<int64_t>& ids,
                                                       LineageRole role) = 0;
  /// The column edges into the output datasets `ids`.
  virtual Result<std::vector<LineageColumnEdge>> ColumnEdgesInto(
      const std::vector<int64_t>& ids) = 0;
  /// The events of run `run_id`, oldest first, at most `limit`.
  virtual Result<std::vector<LineageRunEvent>> EventsOfRun(const std::string& run_id,
                                                           int limit) = 0;
};

}  // namespace cairn::store
