// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/entities.h"
#include "model/kinds.h"

namespace cairn::model {

/// The policy types Gravitino 1.3 knows: user-defined rules, and the built-in Iceberg
/// compaction policy (its content has fixed fields and fixed object types).
inline constexpr std::string_view kCustomPolicy = "custom";
inline constexpr std::string_view kIcebergCompactionPolicy = "system_iceberg_compaction";

/// What a policy says: the object types it applies to, string properties, and its rules as a
/// JSON object (a custom policy's `customRules`; a built-in policy's settings by field name).
struct PolicyContent {
  std::vector<ObjectKind> supported_object_types;  // unique, in kind order
  Properties properties;
  std::string rules = "{}";  // a JSON object's text

  bool operator==(const PolicyContent&) const = default;
};

/// A policy of a metalake (docs/tags-and-policies.md): attached to metadata objects as a tag
/// is, and inherited down their parent chains; `enabled` only marks it for its readers (a
/// scheduler skips a disabled one).
struct Policy {
  std::string name;
  std::optional<std::string> comment;
  std::string policy_type{kCustomPolicy};
  bool enabled = true;
  PolicyContent content;
  Audit audit;
};

/// A policy as an object carries it: directly, or `inherited` from one of its ancestors.
struct ObjectPolicy {
  Policy policy;
  bool inherited = false;
};

/// One change of PUT /policies/{name}.
struct PolicyChange {
  enum class Kind { kRename, kUpdateComment, kUpdateContent };
  Kind kind = Kind::kRename;
  std::string new_name;
  std::optional<std::string> comment;
  std::string policy_type;  // of kUpdateContent: must be the policy's own
  PolicyContent content;
};

}  // namespace cairn::model
