// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "model/statistic.h"
#include "service/authorizer.h"
#include "service/caller.h"
#include "service/object_lookup.h"
#include "store/metadata_store.h"

namespace cairn::service {

/// Statistics of tables and of their partitions (docs/statistics.md), addressed as Gravitino's
/// `/objects/table/{c.s.t}/statistics` addresses them. A table's own statistics are rows under
/// the table's row, one per name; a partition's are one row under the table's row, named by the
/// partition. Both follow the table's renames and go with its drop. Besides those users set
/// (named `custom-...`), a table of a managed Iceberg catalog lists the figures of its current
/// snapshot as reserved statistics, read from its metadata file, never from a scan.
///
/// Reading needs what loading the table needs; writing, what modifying it needs (Gravitino's
/// statistics expressions); the decision comes before anything is read or written. Errors:
/// kNotFound (kMetalake, kMetadataObject), kNotInUse (kMetalake), kInvalidArgument naming the
/// field, kInvalidArgument (kStatistic) for a name outside `custom-`, kUnsupported for an object
/// other than a table and (kStatistic) for a reserved statistic. A request is all or nothing.
/// Safe to call from many threads.
class StatisticsService {
 public:
  /// The statistics a table carries in its source (none when its catalog keeps none).
  using SourceStatistics = std::function<Result<std::vector<model::Statistic>>(
      const Caller&, const MetadataObjectTarget&)>;
  /// Asks the object's catalog for a table that has no row yet.
  using Seer = ObjectSeer;

  StatisticsService(store::MetadataStore& store, Authorizer& authorizer);

  void SetSourceStatistics(SourceStatistics source) { source_ = std::move(source); }
  void SetSeer(Seer seer) { see_ = std::move(seer); }

  /// The table's statistics: the reserved ones its source carries, then those users set, each
  /// group in name order.
  Result<std::vector<model::Statistic>> List(const Caller& caller, const std::string& metalake,
                                             const std::string& type, const std::string& full_name);
  /// Sets the statistics of `update.values` on the table (`update.partition` is ignored);
  /// a statistic already set keeps its creator and takes the caller as its last modifier.
  Status Update(const Caller& caller, const std::string& metalake, const std::string& type,
                const std::string& full_name, const model::StatisticsUpdate& update);
  /// True when at least one of `names` was set.
  Result<bool> Drop(const Caller& caller, const std::string& metalake, const std::string& type,
                    const std::string& full_name, const std::vector<std::string>& names);

  /// The partitions in `range` that have statistics, in name order.
  Result<std::vector<model::PartitionStatistics>> ListPartitions(
      const Caller& caller, const std::string& metalake, const std::string& type,
      const std::string& full_name, const model::PartitionRange& range);
  Status UpdatePartitions(const Caller& caller, const std::string& metalake,
                          const std::string& type, const std::string& full_name,
                          const std::vector<model::StatisticsUpdate>& updates);
  /// True when at least one statistic was dropped.
  Result<bool> DropPartitions(const Caller& caller, const std::string& metalake,
                              const std::string& type, const std::string& full_name,
                              const std::vector<model::StatisticsDrop>& drops);

 private:
  enum class Verb { kList, kUpdate, kDrop };
  /// The table's resolved target once the caller may read it (kList) or modify it.
  Result<MetadataObjectTarget> Table(const Caller& caller, const std::string& metalake,
                                     const std::string& type, const std::string& full_name,
                                     Verb verb, bool partitions);

  store::MetadataStore& store_;
  Authorizer& authz_;
  SourceStatistics source_;
  Seer see_;
};

/// The reserved statistics of an Iceberg table, from the current snapshot's summary in its
/// metadata document (`row_count`, `file_count`, `total_size_bytes`, ...); zeros for a table
/// with no snapshot. Their creator is the table's; their time, the snapshot's.
Result<std::vector<model::Statistic>> IcebergSnapshotStatistics(std::string_view metadata_text,
                                                                const model::Audit& table_audit);

}  // namespace cairn::service
