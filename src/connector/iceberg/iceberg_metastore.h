// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "model/table.h"

namespace cairn::connector {

/// Where a managed Iceberg catalog's namespaces and table pointers live when the catalog does not
/// own them: a metastore shared with other engines (`catalog-backend=hive`; docs/hive.md). The
/// catalog keeps its rows (they anchor owners, grants and tags) and brings them in line with the
/// metastore, which decides what exists and where each table's current metadata file is.
/// Namespaces are one level. Errors: kNotFound, kAlreadyExists, kNotEmpty (a namespace with
/// tables), kConflict (a swap whose expected pointer is no longer current), kConnectionFailed /
/// kUnavailable (the metastore). Safe to call from many threads.
class IcebergMetastore {
 public:
  virtual ~IcebergMetastore() = default;

  virtual Result<std::vector<std::string>> ListNamespaces() = 0;
  /// The namespace's properties (its `location` among them); nullopt when absent.
  virtual Result<std::optional<model::Properties>> LoadNamespace(const std::string& ns) = 0;
  virtual Status CreateNamespace(const std::string& ns, const model::Properties& properties) = 0;
  /// Sets and removes properties in one change.
  virtual Status UpdateNamespace(const std::string& ns, const model::Properties& updates,
                                 const std::vector<std::string>& removals) = 0;
  /// False when absent; kNotEmpty when it holds tables.
  virtual Result<bool> DropNamespace(const std::string& ns) = 0;

  /// The namespace's Iceberg tables with their current metadata files, by name.
  virtual Result<std::vector<std::pair<std::string, std::string>>> ListTables(
      const std::string& ns) = 0;
  /// The table's current metadata file; nullopt when there is no such Iceberg table.
  virtual Result<std::optional<std::string>> Pointer(const std::string& ns,
                                                     const std::string& name) = 0;
  /// Registers a new table at `location` whose current metadata file is `metadata_location`
  /// (kAlreadyExists when the name is taken).
  virtual Status CreateTable(const std::string& ns, const std::string& name,
                             const std::string& location, const std::string& metadata_location,
                             const std::string& owner) = 0;
  /// Moves the pointer from `expected` to `next`, atomically: kConflict when it is no longer
  /// `expected`.
  virtual Status Swap(const std::string& ns, const std::string& name, const std::string& expected,
                      const std::string& next) = 0;
  virtual Status Rename(const std::string& ns, const std::string& name, const std::string& to_ns,
                        const std::string& to) = 0;
  /// False when absent. The table's files are the caller's to delete.
  virtual Result<bool> DropTable(const std::string& ns, const std::string& name) = 0;
};

}  // namespace cairn::connector
