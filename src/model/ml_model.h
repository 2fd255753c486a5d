// SPDX-License-Identifier: Apache-2.0
// Models of a model catalog and their versions (Gravitino's models.yaml; docs/models.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/entities.h"
#include "model/table.h"

namespace cairn::model {

/// The URI name a single, unnamed URI is kept under (Gravitino's `unknown`).
inline constexpr std::string_view kUnknownUriName = "unknown";
/// The property naming the URI a lookup without a name gets (on the version, else the model).
inline constexpr std::string_view kDefaultUriNameProperty = "default-uri-name";

struct Model {
  std::string name;
  std::optional<std::string> comment;
  Properties properties;
  /// The number the next linked version gets: 0 after registration, never lowered.
  int64_t latest_version = 0;
  Audit audit;
};

struct ModelVersion {
  int64_t version = 0;
  std::optional<std::string> comment;
  std::vector<std::string> aliases;         // in the order they were given
  std::map<std::string, std::string> uris;  // name -> URI, never empty
  Properties properties;
  Audit audit;
};

/// A version by its number or by one of its aliases.
struct VersionRef {
  std::optional<int64_t> number;
  std::string alias;  // when no number
};

struct ModelChange {
  enum class Kind { kRename, kUpdateComment, kSetProperty, kRemoveProperty };
  Kind kind = Kind::kRename;
  std::string new_name;
  std::optional<std::string> comment;
  std::string property;
  std::string value;
};

struct ModelVersionChange {
  enum class Kind {
    kUpdateComment,
    kSetProperty,
    kRemoveProperty,
    kUpdateUri,
    kAddUri,
    kRemoveUri,
    kUpdateAliases
  };
  Kind kind = Kind::kUpdateComment;
  std::optional<std::string> comment;
  std::string property;  // set/remove property
  std::string value;
  std::string uri_name;  // update/add/remove URI
  std::string uri;
  std::vector<std::string> aliases_to_add;
  std::vector<std::string> aliases_to_remove;
};

}  // namespace cairn::model
