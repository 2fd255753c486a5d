// SPDX-License-Identifier: Apache-2.0
#include "governance/audit.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "common/util.h"
#include "json/json_util.h"

namespace cairn::governance {

namespace {

std::string FilePath(const std::string& dir, int index) {
  return index == 0 ? dir + "/audit.log" : fmt::format("{}/audit.log.{}", dir, index);
}

// Writes one record's line into a buffer made large enough beforehand, so that no piece
// checks the capacity or reallocates (this runs on every request).
class LineWriter {
 public:
  LineWriter(std::string& buffer, size_t bound) : buffer_(buffer) {
    if (buffer_.size() < bound) buffer_.resize(bound);
    p_ = buffer_.data();
  }

  // Room `QuotedBound(v)` takes at most: JSON escapes a byte as at most six.
  static size_t QuotedBound(std::string_view v) { return 6 * v.size() + 2; }
  static size_t FieldBound(std::string_view key, std::string_view v) {
    return key.size() + 4 + QuotedBound(v);
  }
  static constexpr size_t kNumberFieldExtra = 4 + 20;

  void Raw(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void Quoted(std::string_view value) {
    if (json::IsPlainAscii(value)) {
      *p_++ = '"';
      Raw(value);
      *p_++ = '"';
    } else {
      std::string quoted;
      json::AppendQuoted(quoted, value);
      Raw(quoted);
    }
  }
  void Key(std::string_view key) {
    Raw(first_ ? "\"" : ",\"");
    first_ = false;
    Raw(key);
    Raw("\":");
  }
  void Field(std::string_view key, std::string_view value) {
    Key(key);
    Quoted(value);
  }
  void Field(std::string_view key, int64_t value) {
    Key(key);
    p_ = std::to_chars(p_, p_ + 20, value).ptr;
  }
  std::string_view Text() const {
    return {buffer_.data(), static_cast<size_t>(p_ - buffer_.data())};
  }

 private:
  std::string& buffer_;
  char* p_ = nullptr;
  bool first_ = true;
};

// One JSON object per line, members always in this order, in `buffer` (which it may grow).
// Runs on every request, so it is written piece by piece rather than through a JSON document.
std::string_view ToLine(const AuditRecord& r, std::string& buffer) {
  const std::string time = FormatIsoMillis(r.time_ms);
  size_t bound = 4 + LineWriter::FieldBound("time", time) +
                 LineWriter::FieldBound("principal", r.principal) +
                 LineWriter::FieldBound("interface", r.interface) +
                 LineWriter::FieldBound("operation", r.operation) +
                 LineWriter::FieldBound("object", r.object) +
                 LineWriter::FieldBound("outcome", r.outcome) +
                 LineWriter::FieldBound("requestId", r.request_id) +
                 LineWriter::FieldBound("client", r.client) +
                 LineWriter::FieldBound("detail", r.detail) + 2 * LineWriter::kNumberFieldExtra +
                 std::string_view("status").size() + std::string_view("timeMs").size() +
                 std::string_view(",\"callerContext\":{}").size();
  for (const auto& [key, value] : r.caller_context) {
    bound += 2 + LineWriter::QuotedBound(key) + LineWriter::QuotedBound(value);
  }
  LineWriter out(buffer, bound);
  out.Raw("{");
  out.Field("time", time);
  out.Field("principal", r.principal);
  out.Field("interface", r.interface);
  out.Field("operation", r.operation);
  out.Field("object", r.object);
  out.Field("outcome", r.outcome);
  out.Field("status", int64_t{r.status});
  out.Field("requestId", r.request_id);
  out.Field("client", r.client);
  if (!r.detail.empty()) out.Field("detail", r.detail);
  out.Field("timeMs", r.time_ms);
  if (!r.caller_context.empty()) {
    out.Raw(",\"callerContext\":{");
    bool first = true;
    for (const auto& [key, value] : r.caller_context) {
      if (!first) out.Raw(",");
      first = false;
      out.Quoted(key);
      out.Raw(":");
      out.Quoted(value);
    }
    out.Raw("}");
  }
  out.Raw("}\n");
  return out.Text();
}

// What a rotation left to do off the request path: the old files made durable and closed, and
// the files rotated past the last one kept deleted.
void FinishRetired(const std::vector<int>& fds, const std::vector<std::string>& paths) {
  for (const int fd : fds) {
    ::fdatasync(fd);
    ::close(fd);
  }
  for (const std::string& path : paths) {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
}

}  // namespace

Result<std::unique_ptr<AuditLog>> AuditLog::Open(std::string dir, uint64_t max_file_bytes,
                                                 int max_files) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Unavailable("cannot create audit directory '{}': {}", dir, ec.message());
  std::unique_ptr<AuditLog> log(
      new AuditLog(std::move(dir), max_file_bytes, std::max(1, max_files)));
  CAIRN_RETURN_IF_ERROR(log->OpenFile());
  log->syncer_ = std::thread([raw = log.get()] { raw->SyncLoop(); });
  return log;
}

AuditLog::~AuditLog() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  if (syncer_.joinable()) syncer_.join();
  std::lock_guard lock(mu_);
  FinishRetired(retired_fds_, retired_paths_);
  if (fd_ >= 0) {
    ::fdatasync(fd_);
    ::close(fd_);
  }
}

Status AuditLog::OpenFile() {
  const std::string path = FilePath(dir_, 0);
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (fd_ < 0) return Unavailable("cannot open audit log '{}': {}", path, std::strerror(errno));
  struct stat st {};
  size_ = ::fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return Ok();
}

void AuditLog::RotateLocked() {
  // The syncer makes the old file durable and closes it (Sync), off this request's path.
  retired_fds_.push_back(fd_);
  fd_ = -1;
  cv_.notify_all();
  std::error_code ec;
  // The oldest file is only renamed out of the way here: freeing a large file's blocks can take
  // milliseconds, and the syncer deletes it instead.
  const std::string oldest = FilePath(dir_, max_files_);
  const std::string doomed = oldest + ".deleted";
  std::filesystem::rename(oldest, doomed, ec);
  if (!ec) retired_paths_.push_back(doomed);
  for (int i = max_files_ - 1; i >= 0; --i) {
    std::filesystem::rename(FilePath(dir_, i), FilePath(dir_, i + 1), ec);
  }
  (void)OpenFile();
}

void AuditLog::Write(const AuditRecord& record) {
  thread_local std::string buffer;
  const std::string_view line = ToLine(record, buffer);
  std::lock_guard lock(mu_);
  if (fd_ < 0) return;
  if (size_ + line.size() > max_file_bytes_ && size_ > 0) RotateLocked();
  if (fd_ < 0) return;
  // One write() per record with O_APPEND: records never interleave, even across processes.
  const ssize_t n = ::write(fd_, line.data(), line.size());
  if (n > 0) size_ += static_cast<uint64_t>(n);
  dirty_ = true;  // the syncer makes it durable within a second, off the request's path
}

void AuditLog::Sync() {
  int fd = -1;
  std::vector<int> retired;
  std::vector<std::string> doomed;
  {
    std::lock_guard lock(mu_);
    retired.swap(retired_fds_);
    doomed.swap(retired_paths_);
    if (fd_ >= 0 && dirty_) {
      fd = ::dup(fd_);  // stays valid if the file is rotated meanwhile
      dirty_ = false;
    }
  }
  FinishRetired(retired, doomed);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::close(fd);
}

void AuditLog::SyncLoop() {
  std::unique_lock lock(mu_);
  while (!closing_) {
    cv_.wait_for(lock, std::chrono::seconds(1), [this] {
      return closing_ || !retired_fds_.empty() || !retired_paths_.empty();
    });
    if (closing_) break;
    lock.unlock();
    Sync();  // never under mu_: writers go on while the disk catches up
    lock.lock();
  }
}

Result<std::vector<std::string>> AuditLog::Query(const AuditQuery& query) {
  std::vector<std::string> out;
  for (int i = 0; i <= max_files_ && out.size() < query.limit; ++i) {
    std::ifstream in(FilePath(dir_, i));
    if (!in) continue;
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(std::move(line));
    for (auto it = lines.rbegin(); it != lines.rend() && out.size() < query.limit; ++it) {
      auto j = json::ParseJsonOrDiscarded(*it);
      if (j.is_discarded() || !j.is_object()) continue;
      const int64_t t = j.value("timeMs", int64_t{0});
      if (query.from_ms && t < *query.from_ms) continue;
      if (query.to_ms && t > *query.to_ms) continue;
      if (query.principal && j.value("principal", "") != *query.principal) continue;
      if (query.outcome && j.value("outcome", "") != *query.outcome) continue;
      if (query.object && j.value("object", "").rfind(*query.object, 0) != 0) continue;
      if (query.interface && j.value("interface", "") != *query.interface) continue;
      if (query.operation &&
          ToLower(j.value("operation", "")).find(ToLower(*query.operation)) == std::string::npos) {
        continue;
      }
      out.push_back(*it);
    }
  }
  return out;
}

}  // namespace cairn::governance
