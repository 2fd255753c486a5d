// SPDX-License-Identifier: Apache-2.0
// Topics of a messaging catalog (Gravitino's topics.yaml; docs/topics.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/entities.h"
#include "model/table.h"

namespace cairn::model {

/// The properties a topic's partition count and replication factor are given and read as;
/// every other property is one of the topic's configs in the cluster.
inline constexpr std::string_view kPartitionCountProperty = "partition-count";
inline constexpr std::string_view kReplicationFactorProperty = "replication-factor";

struct Topic {
  std::string name;
  std::optional<std::string> comment;
  Properties properties;
  Audit audit;
};

}  // namespace cairn::model
