// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>

#include "model/entities.h"
#include "model/kinds.h"

namespace cairn::model {

/// A tag of a metalake: a name with a comment and properties, attached to any number of
/// metadata objects (docs/tags-and-policies.md).
struct Tag {
  std::string name;
  std::optional<std::string> comment;
  Properties properties;
  Audit audit;
};

/// A tag as an object carries it: directly, or `inherited` from one of its ancestors.
struct ObjectTag {
  Tag tag;
  bool inherited = false;
};

/// A metadata object by its Gravitino name: type and full name relative to the metalake
/// (`cat.sch.tbl`).
struct MetadataObjectName {
  std::string full_name;
  ObjectKind type = ObjectKind::kTable;
};

}  // namespace cairn::model
