// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "connector/connector.h"
#include "model/partition.h"

namespace cairn::connector {

/// Partitions of a catalog's tables as objects of their own (Hive's): the capability behind the
/// Gravitino API's partition routes. Errors name their object: kNotFound (kTable, kPartition),
/// kAlreadyExists (kPartition), kInvalidArgument naming the field at fault. Implementations are
/// safe to call from many threads.
class PartitionCatalog {
 public:
  static constexpr std::string_view kOperations = "partition";

  virtual ~PartitionCatalog() = default;

  virtual Result<std::vector<std::string>> ListPartitionNames(std::string_view schema,
                                                              std::string_view table) = 0;
  virtual Result<std::vector<model::Partition>> ListPartitions(std::string_view schema,
                                                               std::string_view table) = 0;
  virtual Result<model::Partition> GetPartition(std::string_view schema, std::string_view table,
                                                std::string_view name) = 0;
  /// The partition as the source made it (its name and properties filled in).
  virtual Result<model::Partition> AddPartition(const CallContext& ctx, std::string_view schema,
                                                std::string_view table,
                                                const model::Partition& partition) = 0;
  /// False when absent. `purge` also deletes the partition's files where the source can.
  virtual Result<bool> DropPartition(const CallContext& ctx, std::string_view schema,
                                     std::string_view table, std::string_view name,
                                     bool purge) = 0;
};

}  // namespace cairn::connector
