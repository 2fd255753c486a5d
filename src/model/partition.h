// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "model/table.h"

namespace cairn::model {

/// One partition of a table partitioned by columns (Gravitino's identity partition): its name in
/// the source's spelling (`dt=2024-01-01/country=us`), the partition columns and one literal value
/// for each, and the partition's own properties.
struct Partition {
  std::string name;
  std::vector<FieldName> field_names;
  std::vector<Expression> values;  // literals, typed like their columns
  Properties properties;
};

}  // namespace cairn::model
