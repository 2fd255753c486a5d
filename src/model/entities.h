// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "model/table.h"

namespace cairn::model {

struct Metalake {
  std::string name;
  std::optional<std::string> comment;
  Properties properties;
  bool in_use = true;
  Audit audit;
};

enum class CatalogType { kRelational, kFileset, kMessaging, kModel };

std::string_view CatalogTypeName(CatalogType type);  // lower-case, as written on the wire
std::optional<CatalogType> ParseCatalogType(std::string_view text);  // case-insensitive

struct Catalog {
  std::string metalake;
  std::string name;
  CatalogType type = CatalogType::kRelational;
  std::string provider;
  std::optional<std::string> comment;
  Properties properties;
  bool in_use = true;
  Audit audit;
};

struct Schema {
  std::string name;
  std::optional<std::string> comment;
  Properties properties;
  Audit audit;
};

/// Name rules of the API (a violation is kInvalidArgument naming the rule).
Status ValidateMetalakeName(std::string_view name);
Status ValidateCatalogName(std::string_view name);
/// Default rule for schemas, tables and other leaf objects: ^\w[\w/=-]{0,63}$, not "*".
Status ValidateObjectName(EntityKind kind, std::string_view name);

}  // namespace cairn::model
