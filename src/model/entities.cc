// SPDX-License-Identifier: Apache-2.0
#include "model/entities.h"

#include "common/util.h"

namespace cairn::model {

std::string_view CatalogTypeName(CatalogType type) {
  switch (type) {
    case CatalogType::kRelational:
      return "relational";
    case CatalogType::kFileset:
      return "fileset";
    case CatalogType::kMessaging:
      return "messaging";
    case CatalogType::kModel:
      return "model";
  }
  return "relational";
}

std::optional<CatalogType> ParseCatalogType(std::string_view text) {
  for (auto t : {CatalogType::kRelational, CatalogType::kFileset, CatalogType::kMessaging,
                 CatalogType::kModel}) {
    if (EqualsIgnoreCase(text, CatalogTypeName(t))) return t;
  }
  return std::nullopt;
}

std::string_view FilesetTypeName(FilesetType type) {
  return type == FilesetType::kExternal ? "external" : "managed";
}

std::optional<FilesetType> ParseFilesetType(std::string_view text) {
  for (auto t : {FilesetType::kManaged, FilesetType::kExternal}) {
    if (EqualsIgnoreCase(text, FilesetTypeName(t))) return t;
  }
  return std::nullopt;
}

namespace {

bool IsWord(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// ^\w[\w<extra>]{0,63}$
bool MatchesRule(std::string_view name, std::string_view extra) {
  if (name.empty() || name.size() > 64 || !IsWord(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!IsWord(c) && extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

}  // namespace

Status ValidateMetalakeName(std::string_view name) {
  if (!MatchesRule(name, "")) {
    return InvalidArgument(
        "The metalake name '{}' is illegal: it must match ^\\w[\\w]{{0,63}}$ (letters, digits and "
        "underscores, at most 64 characters)",
        name);
  }
  if (EqualsIgnoreCase(name, "system")) {
    return InvalidArgument("The metalake name 'system' is reserved");
  }
  return Ok();
}

Status ValidateCatalogName(std::string_view name) {
  if (!MatchesRule(name, "-")) {
    return InvalidArgument(
        "The catalog name '{}' is illegal: it must match ^\\w[\\w-]{{0,63}}$ (letters, digits, "
        "underscores and dashes, at most 64 characters)",
        name);
  }
  if (EqualsIgnoreCase(name, "system")) {
    return InvalidArgument("The catalog name 'system' is reserved");
  }
  return Ok();
}

Status ValidateObjectName(EntityKind kind, std::string_view name) {
  if (name == "*" || !MatchesRule(name, "/=-")) {
    return InvalidArgument(
        "The {} name '{}' is illegal: it must match ^\\w[\\w/=-]{{0,63}}$ (letters, digits, "
        "underscores, '/', '=' and '-', at most 64 characters)",
        EntityKindName(kind), name);
  }
  return Ok();
}

}  // namespace cairn::model
