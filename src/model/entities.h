// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
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

/// A fileset: a named set of files under one or more storage locations (location name -> URI).
/// A managed fileset owns its directories (dropping it deletes them); an external one only
/// points at them.
enum class FilesetType { kManaged, kExternal };

std::string_view FilesetTypeName(FilesetType type);                  // lower-case, as on the wire
std::optional<FilesetType> ParseFilesetType(std::string_view text);  // case-insensitive

struct Fileset {
  std::string name;
  std::optional<std::string> comment;
  FilesetType type = FilesetType::kManaged;
  std::map<std::string, std::string> storage_locations;  // location name -> location
  Properties properties;
  Audit audit;
};

/// One entry of a fileset directory listing.
struct FileInfo {
  std::string name;
  bool is_dir = false;
  int64_t size = 0;
  int64_t last_modified_ms = 0;
  std::string path;  // virtual path: /fileset/<catalog>/<schema>/<fileset>/<sub path>/<name>
};

/// Name rules of the API (a violation is kInvalidArgument naming the rule).
Status ValidateMetalakeName(std::string_view name);
Status ValidateCatalogName(std::string_view name);
/// Default rule for schemas, tables and other leaf objects: ^\w[\w/=-]{0,63}$, not "*".
/// Gravitino's rule for schema, table, fileset, ... names: `^\w[\w=-]{0,63}$`, not `*`, and the
/// path-segment rule below. (Gravitino's default rule also allows `/`; Cairn does not, since
/// these names become segments of storage locations.)
Status ValidateObjectName(EntityKind kind, std::string_view name);

/// The longest name, in bytes, a name that becomes a path segment may have.
inline constexpr size_t kMaxSegmentNameBytes = 255;

/// The rule for every name that becomes one segment of a storage path or URL (namespace levels,
/// tables, views, filesets), on every interface: 1 to 255 bytes of valid UTF-8, not `.` or
/// `..`, no `/` or `\`, no control character, not only white space. A violation is
/// kInvalidArgument naming the kind and the rule.
Status ValidateSegmentName(EntityKind kind, std::string_view name);

/// The rule for a name that never becomes a path segment (a statistic, a partition of the
/// statistics API, where `/` is common): 1 to `max_bytes` bytes of valid UTF-8, no control
/// character, not only white space. A violation is kInvalidArgument of `kind` naming `what`
/// ("statistic name") and the rule.
Status ValidateLabelText(EntityKind kind, std::string_view what, std::string_view name,
                         size_t max_bytes);

}  // namespace cairn::model
