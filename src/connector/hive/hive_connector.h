// SPDX-License-Identifier: Apache-2.0
// The `hive` provider: catalogs that read and write through to a live Hive Metastore over Thrift
// (docs/hive.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "connector/connector.h"
#include "model/partition.h"

namespace cairn::hms {
class Table;
class Partition;
}  // namespace cairn::hms

namespace cairn::connector {

void RegisterHiveConnector(ConnectorRegistry& registry);

namespace hive {

/// The model table of a metastore table: columns then partition columns, identity partitioning,
/// bucketing as hash distribution, sort orders, and the storage descriptor as properties.
model::Table TableFromHive(const hms::Table& t);

/// The metastore table to create for `table` in database `db`, owned by `owner`.
/// kInvalidArgument naming the field or property Hive cannot hold.
Result<hms::Table> TableToHive(std::string_view db, const model::Table& table,
                               std::string_view owner, int64_t now_ms);

/// Applies `changes` to a metastore table, in order; kInvalidArgument for a change Hive cannot
/// make (the table is then left as it was given).
Status ApplyTableChanges(hms::Table& t, const std::vector<model::TableChange>& changes);

/// `names` (a database's tables) without the tables of other formats among `tables` (their
/// metastore objects): Iceberg and Paimon tables (parameter `table_type`) and Hudi tables
/// (`provider=hudi`) with their `_ro` and `_rt` siblings.
std::vector<std::string> HiveTableNames(const std::vector<std::string>& names,
                                        const std::vector<hms::Table>& tables);

/// Hive's partition name of `values` under `keys`: `k1=v1/k2=v2`, each part escaped as Hive does.
std::string PartitionName(const std::vector<std::string>& keys,
                          const std::vector<std::string>& values);

}  // namespace hive
}  // namespace cairn::connector
