// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn::storage {

/// How to reach S3-compatible storage. Built from catalog (or fileset) properties with the names
/// Gravitino and Iceberg use: `s3-endpoint`, `s3-region`, `s3-access-key-id`,
/// `s3-secret-access-key`, `s3-session-token`, `s3-path-style-access`; and Cairn's
/// `s3-tls-ca-file`, `s3-allow-insecure-credentials`.
struct S3Options {
  std::string
      endpoint;  // e.g. http://127.0.0.1:9000; empty means AWS (https://s3.<region>.amazonaws.com)
  std::string region = "us-east-1";
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  bool path_style = true;
  int64_t timeout_ms = 10000;  // per attempt (connect + transfer)
  int max_attempts = 4;        // 5xx, throttling and transport errors are retried with backoff
  // `s3-tls-ca-file`: PEM CA bundle an https endpoint's certificate must chain to (else the
  // system's); the peer and host name are always verified.
  std::string ca_file;
  // `s3-allow-insecure-credentials`: sign requests to a plain-HTTP endpoint on another machine,
  // where the keys' signatures and session token cross the network in clear text.
  bool allow_insecure_credentials = false;
};

struct StorageOptions {
  S3Options s3;
  /// Reads the storage keys out of a property map; unknown keys are ignored.
  static StorageOptions FromProperties(const std::map<std::string, std::string>& properties);
};

/// One entry of a listing: a file, or a directory (a common prefix on object storage).
struct FileEntry {
  std::string name;      // last path component
  std::string location;  // full location (same scheme as the listed one)
  bool is_dir = false;
  int64_t size = 0;
  int64_t last_modified_ms = 0;
};

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
  /// WriteNew without waiting for durability: readers see all of the object or nothing, but a
  /// crash before Sync() has returned for it may lose it or leave it torn. Writing several
  /// objects so and syncing them together costs less than as many WriteNew calls on local disk.
  /// Object stores are durable on write, so the default is WriteNew.
  virtual Status WriteNewDeferred(std::string_view location, std::string_view data) {
    return WriteNew(location, data);
  }
  /// Makes objects written by WriteNewDeferred durable, contents and names. The default does
  /// nothing (its WriteNewDeferred is WriteNew).
  virtual Status Sync(const std::vector<std::string>& /*locations*/) { return Ok(); }
  /// Whether an object exists, without reading it.
  virtual Result<bool> Exists(std::string_view location) = 0;
  /// Object names directly under a location prefix (a directory on local disk); empty when none.
  virtual Result<std::vector<std::string>> List(std::string_view location) = 0;
  /// Files and directories directly under a location, with sizes and times; empty when none.
  virtual Result<std::vector<FileEntry>> ListEntries(std::string_view location) = 0;
  /// Deletes one object; deleting a missing object succeeds.
  virtual Status Delete(std::string_view location) = 0;
  /// Deletes everything under a location prefix (a directory on local disk).
  virtual Status DeletePrefix(std::string_view location) = 0;
  /// Makes `location` usable as a directory: on local disk creates it and its parents and
  /// answers true when it did not exist before (kInvalidArgument when it is a file). Object
  /// storage has no directories (a prefix exists once an object is written under it), so the
  /// default does nothing and answers false.
  virtual Result<bool> CreateDirectories(std::string_view /*location*/) { return false; }
  /// The path of `location` on this machine's disk when this storage is the local disk; empty
  /// for object storage.
  virtual std::string LocalFilePath(std::string_view /*location*/) const { return {}; }
};

/// The FileIO that serves `location`'s scheme (`file:`/absolute paths, `s3://`, `s3a://`).
/// kUnsupported for other schemes.
Result<std::unique_ptr<FileIO>> FileIOFor(std::string_view location,
                                          const StorageOptions& options = {});

/// Normalizes a warehouse location: a plain path becomes absolute, `file:` URIs are kept,
/// trailing slashes are dropped. kInvalidArgument for empty or relative-unresolvable input.
Result<std::string> NormalizeLocation(std::string_view location);

/// A location split for comparison: `scheme` is "file" for local disk (plain absolute paths and
/// `file:` URIs alike) and "s3" for s3:// and s3a://; `authority` is the bucket (empty on local
/// disk); `segments` the path, without empty segments.
struct LocationParts {
  std::string scheme;
  std::string authority;
  std::vector<std::string> segments;
};

/// kInvalidArgument for a location that could name something other than what it reads as: a
/// `.` or `..` segment, a backslash, or a control character; or that is not absolute.
Result<LocationParts> ParseLocation(std::string_view location);

/// Whether `location` is `base` or lies under it, compared segment by segment (so `/wh/a` is not
/// under `/wh/ab`). False when either does not parse.
bool LocationWithin(std::string_view location, std::string_view base);

/// Whether one of the two lies within the other.
bool LocationsOverlap(std::string_view a, std::string_view b);

}  // namespace cairn::storage
