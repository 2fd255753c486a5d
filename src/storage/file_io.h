// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn::storage {

/// File access for one kind of storage. Locations are URIs (`file:///x`, or a plain absolute
/// path for local disk). Safe to call from many threads.
class FileIO {
 public:
  virtual ~FileIO() = default;

  /// The whole object. kNotFound when absent; kUnavailable when storage cannot be reached.
  virtual Result<std::string> Read(std::string_view location) = 0;
  /// Writes a new object durably and atomically: readers see all of it or nothing.
  /// kAlreadyExists when the location is taken (never overwrites).
  virtual Status WriteNew(std::string_view location, std::string_view data) = 0;
  /// Whether an object exists, without reading it.
  virtual Result<bool> Exists(std::string_view location) = 0;
  /// Object names directly under a location prefix (a directory on local disk); empty when none.
  virtual Result<std::vector<std::string>> List(std::string_view location) = 0;
  /// Deletes one object; deleting a missing object succeeds.
  virtual Status Delete(std::string_view location) = 0;
  /// Deletes everything under a location prefix (a directory on local disk).
  virtual Status DeletePrefix(std::string_view location) = 0;
};

/// The FileIO that serves `location`'s scheme. kUnsupported for schemes not served yet.
Result<std::unique_ptr<FileIO>> FileIOFor(std::string_view location);

/// Normalizes a warehouse location: a plain path becomes absolute, `file:` URIs are kept,
/// trailing slashes are dropped. kInvalidArgument for empty or relative-unresolvable input.
Result<std::string> NormalizeLocation(std::string_view location);

}  // namespace cairn::storage
