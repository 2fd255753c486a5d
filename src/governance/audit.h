// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/result.h"

namespace cairn::governance {

/// One request as the audit trail records it. Never holds a secret: no headers, bodies or
/// query strings, only what the request was about.
/// The text fields are views: what they name must outlive AuditLog::Write (a record is made and
/// written on the request's path, not kept).
struct AuditRecord {
  int64_t time_ms = 0;
  std::string_view principal;
  std::string_view interface;  // gravitino | iceberg | http
  std::string_view operation;  // e.g. "POST /api/metalakes/{m}/catalogs" or "LOAD_TABLE"
  std::string_view object;     // full name of the object, when known
  std::string_view outcome;    // success | denied | failure
  int status = 0;
  std::string_view request_id;
  std::string_view client;
  std::string_view detail;  // e.g. which storage credentials were vended; omitted when empty
  /// What a client said it is doing, from Gravitino's fileset audit headers
  /// (`InternalClientType`, `FilesetDataOperation`); unknown values are recorded as UNKNOWN.
  std::map<std::string, std::string> caller_context;
};

struct AuditQuery {
  std::optional<std::string> principal;
  std::optional<std::string> object;  // prefix match on the full name
  std::optional<std::string> outcome;
  std::optional<std::string> interface;
  std::optional<std::string> operation;  // contained in the operation, any case
  std::optional<int64_t> from_ms;
  std::optional<int64_t> to_ms;
  size_t limit = 1000;
};

/// A durable JSON-lines audit trail: one line per record, appended with O_APPEND and synced to
/// disk at least once a second by a background thread (and on close), so no request waits for
/// the disk; rotated by size into `audit.log.1` ..
/// `audit.log.N`. Queries scan the files newest first. Safe to call from many threads.
class AuditLog {
 public:
  /// Opens (creating) `<dir>/audit.log`. kUnavailable when the directory is not writable.
  static Result<std::unique_ptr<AuditLog>> Open(std::string dir, uint64_t max_file_bytes,
                                                int max_files);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  void Write(const AuditRecord& record);
  /// Records matching the filter, newest first.
  Result<std::vector<std::string>> Query(const AuditQuery& query);
  /// Forces buffered records to disk.
  void Sync();

 private:
  AuditLog(std::string dir, uint64_t max_file_bytes, int max_files)
      : dir_(std::move(dir)), max_file_bytes_(max_file_bytes), max_files_(max_files) {}
  Status OpenFile();
  void RotateLocked();
  void SyncLoop();

  std::string dir_;
  uint64_t max_file_bytes_;
  int max_files_;
  std::mutex mu_;
  int fd_ = -1;           // guarded by mu_
  uint64_t size_ = 0;     // guarded by mu_
  bool dirty_ = false;    // guarded by mu_
  bool closing_ = false;  // guarded by mu_
  // Rotated-out files still to be made durable and closed, by the syncer: a rotation never
  // waits for the disk under mu_, which every request's record takes.
  std::vector<int> retired_fds_;            // guarded by mu_
  std::vector<std::string> retired_paths_;  // past the last file kept, to delete; mu_
  std::condition_variable cv_;
  std::thread syncer_;  // fdatasync once a second when records were written
};

}  // namespace cairn::governance
