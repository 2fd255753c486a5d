// SPDX-License-Identifier: Apache-2.0
// Views as the Gravitino API describes them (views.yaml; docs/views.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/entities.h"
#include "model/table.h"

namespace cairn::model {

/// One SQL text of a view and the dialect it is written in.
struct ViewRepresentation {
  std::string dialect;
  std::string sql;
};

struct View {
  std::string name;
  std::optional<std::string> comment;
  std::vector<Column> columns;
  std::vector<ViewRepresentation> representations;  // at least one
  std::optional<std::string> default_catalog;
  std::optional<std::string> default_schema;
  Properties properties;
  Audit audit;
};

struct ViewChange {
  enum class Kind { kRename, kSetProperty, kRemoveProperty, kReplace };
  Kind kind = Kind::kRename;
  std::string new_name;
  std::string property;
  std::string value;
  View body;  // replace: columns, representations, default catalog and schema, comment
};

}  // namespace cairn::model
