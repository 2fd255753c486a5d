// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/table.h"

namespace cairn::model {

/// The prefix of every statistic a user sets (Gravitino's `custom-`); the other names are
/// reserved for the statistics Cairn reads from the table itself.
inline constexpr std::string_view kCustomStatisticPrefix = "custom-";

/// One statistic of a table or of one of its partitions (docs/statistics.md).
struct Statistic {
  std::string name;
  std::string value;       // a JSON value other than null, as text
  bool reserved = false;   // read from the table's source (an Iceberg snapshot), not set by users
  bool modifiable = true;  // false for the reserved ones
  Audit audit;
};

/// The statistics of one partition of a table, by the partition's name.
struct PartitionStatistics {
  std::string partition;
  std::vector<Statistic> statistics;
};

/// Partitions by name (byte order): from `from` up to `to`, each bound open or closed, each
/// absent for no bound. Gravitino's default: the lower bound closed, the upper open.
struct PartitionRange {
  std::optional<std::string> from;
  std::optional<std::string> to;
  bool from_inclusive = true;
  bool to_inclusive = false;
};

/// New values for statistics of one partition (or, with no partition, of the table).
struct StatisticsUpdate {
  std::string partition;
  std::vector<std::pair<std::string, std::string>> values;  // name, JSON value text
};

/// Statistics to drop from one partition.
struct StatisticsDrop {
  std::string partition;
  std::vector<std::string> names;
};

}  // namespace cairn::model
