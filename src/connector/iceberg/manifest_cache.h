// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "connector/connector.h"
#include "iceberg/scan_plan.h"

namespace cairn::connector {

/// Manifest lists and manifests as scan planning reads them, kept by path: Iceberg never
/// rewrites a file in place, so an entry is never stale. Bounded by the approximate bytes of the
/// parsed entries, least recently used out first. Thread-safe; a miss reads outside the lock (two
/// planners missing one path at once both read it, and the second insert wins).
class ManifestCache {
 public:
  using Files = std::vector<std::shared_ptr<const iceberg::ContentFile>>;
  using Reader = std::function<Result<std::vector<iceberg::Json>>()>;

  explicit ManifestCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  Result<std::shared_ptr<const std::vector<iceberg::ManifestInfo>>> List(const std::string& path,
                                                                         const Reader& read);
  Result<std::shared_ptr<const Files>> Entries(const iceberg::ManifestInfo& manifest,
                                               const Reader& read);
  void AddStats(IcebergStats& s);

 private:
  struct Entry {
    std::shared_ptr<const std::vector<iceberg::ManifestInfo>> list;
    std::shared_ptr<const Files> files;
    size_t bytes = 0;
    std::list<std::string>::iterator lru;
  };
  std::shared_ptr<const void> Find(const std::string& key, bool list);
  void Insert(const std::string& key, Entry entry);

  const size_t max_bytes_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // "L" or "M" + path
  std::list<std::string> order_;                   // most recent first
  size_t bytes_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace cairn::connector
