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

// A name as messages show it: control characters escaped, at most 64 bytes and then "...".
std::string ShownName(std::string_view name) {
  std::string shown = EscapeControl(name.substr(0, 64));
  if (name.size() > 64) shown += "...";
  return shown;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace

Status ValidateMetalakeName(std::string_view name) {
  if (!MatchesRule(name, "")) {
    return InvalidArgument(
        "The metalake name '{}' is illegal: it must match ^\\w[\\w]{{0,63}}$ (letters, digits and "
        "underscores, at most 64 characters)",
        ShownName(name));
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
        ShownName(name));
  }
  if (EqualsIgnoreCase(name, "system")) {
    return InvalidArgument("The catalog name 'system' is reserved");
  }
  return Ok();
}

Status ValidateObjectName(EntityKind kind, std::string_view name) {
  if (name == "*" || !MatchesRule(name, "=-")) {
    return InvalidArgument(
        "The {} name '{}' is illegal: it must match ^\\w[\\w=-]{{0,63}}$ (letters, digits, "
        "underscores, '=' and '-', at most 64 characters)",
        EntityKindName(kind), ShownName(name));
  }
  return ValidateSegmentName(kind, name);
}

Status ValidateSegmentName(EntityKind kind, std::string_view name) {
  const std::string_view what = EntityKindName(kind);
  if (name.empty()) return InvalidArgument("The {} name must not be empty", what);
  if (name.size() > kMaxSegmentNameBytes) {
    return InvalidArgument(
        "The {} name '{}' is illegal: it is {} bytes long, at most {} are allowed", what,
        ShownName(name), name.size(), kMaxSegmentNameBytes);
  }
  if (name == "." || name == "..") {
    return InvalidArgument("The {} name '{}' is illegal: '.' and '..' are not names", what, name);
  }
  bool blank = true;
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      return InvalidArgument(
          "The {} name '{}' is illegal: it must not contain control characters (found \\x{:02x})",
          what, ShownName(name), c);
    }
    if (c == '/' || c == '\\') {
      return InvalidArgument("The {} name '{}' is illegal: it must not contain '{}'", what,
                             ShownName(name), static_cast<char>(c));
    }
    if (c != ' ') blank = false;
  }
  if (blank) return InvalidArgument("The {} name must not be only white space", what);
  if (!IsValidUtf8(name)) {
    return InvalidArgument("The {} name '{}' is illegal: it is not valid UTF-8", what,
                           ShownName(name));
  }
  return Ok();
}

Status ValidateLabelText(EntityKind kind, std::string_view what, std::string_view name,
                         size_t max_bytes) {
  if (name.empty())
    return MakeError(ErrorCode::kInvalidArgument, kind, "The {} must not be empty", what);
  if (name.size() > max_bytes) {
    return MakeError(ErrorCode::kInvalidArgument, kind,
                     "The {} '{}' is illegal: it is {} bytes long, at most {} are allowed", what,
                     ShownName(name), name.size(), max_bytes);
  }
  bool blank = true;
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      return MakeError(ErrorCode::kInvalidArgument, kind,
                       "The {} '{}' is illegal: it must not contain control characters (found "
                       "\\x{:02x})",
                       what, ShownName(name), c);
    }
    if (c != ' ') blank = false;
  }
  if (blank) {
    return MakeError(ErrorCode::kInvalidArgument, kind, "The {} must not be only white space",
                     what);
  }
  if (!IsValidUtf8(name)) {
    return MakeError(ErrorCode::kInvalidArgument, kind,
                     "The {} '{}' is illegal: it is not valid UTF-8", what, ShownName(name));
  }
  return Ok();
}

}  // namespace cairn::model
