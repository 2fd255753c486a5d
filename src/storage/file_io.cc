// SPDX-License-Identifier: Apache-2.0
#include "storage/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <fstream>
#include <set>
#include <sstream>

#include "common/util.h"

namespace cairn::storage {

namespace fs = std::filesystem;

// Defined in s3_file_io.cc.
Result<std::unique_ptr<FileIO>> MakeS3FileIO(const S3Options& options);

namespace {

// Maps `file:///a/b`, `file:/a/b` and `/a/b` to the local path.
std::string LocalPath(std::string_view location) {
  if (location.rfind("file://", 0) == 0) return std::string(location.substr(7));
  if (location.rfind("file:", 0) == 0) return std::string(location.substr(5));
  return std::string(location);
}

Error IoError(std::string_view what, std::string_view path, int err) {
  return Unavailable("cannot {} '{}': {}", what, path, std::strerror(err));
}

// A large file's pages (not a directory's) leave the page cache once they are on disk. The
// files synced here (metadata files, manifest lists) are written once and read back from the
// server's own caches, not the page cache; left there, each commit's files take fresh pages,
// and on a virtual machine whose memory the host has not yet backed each fresh page costs a
// fault in the host: writing a hot table's files (hundreds of KB each) took four times as long
// as writing them into pages freed a moment before. The advice itself costs tens of
// microseconds, more than it saves on a file of a few pages.
constexpr off_t kDropCachedFrom = 64 * 1024;
Status SyncPath(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return IoError("open", path, errno);
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return IoError("sync", path, err);
  }
  struct stat st {};
  if ((flags & O_DIRECTORY) == 0 && ::fstat(fd, &st) == 0 && st.st_size >= kDropCachedFrom) {
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // advice only
  }
  ::close(fd);
  return Ok();
}

class LocalFileIO final : public FileIO {
 public:
  Result<std::string> Read(std::string_view location) override {
    // One buffer of the file's size and read(2) into it: going through a stream copied every
    // byte twice, which showed on manifest lists and metadata files of long histories.
    const std::string path = LocalPath(location);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      if (err == ENOENT || err == ENOTDIR) {
        return NotFound(EntityKind::kNone, "file '{}' does not exist", path);
      }
      return IoError("read", path, err);
    }
    struct stat st {};
    std::string out;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
    char chunk[16384];
    for (;;) {
      // Into the reserved room when the size is known, else (and past it) through `chunk`.
      const size_t room = out.capacity() - out.size();
      ssize_t n = 0;
      if (room > 0) {
        const size_t at = out.size();
        out.resize(out.capacity());
        n = ::read(fd, out.data() + at, room);
        out.resize(at + static_cast<size_t>(std::max<ssize_t>(n, 0)));
      } else {
        n = ::read(fd, chunk, sizeof(chunk));
        if (n > 0) out.append(chunk, static_cast<size_t>(n));
      }
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::close(fd);
        return IoError("read", path, err);
      }
    }
    ::close(fd);
    return out;
  }

  Status WriteNew(std::string_view location, std::string_view data) override {
    CAIRN_RETURN_IF_ERROR(WriteNewDeferred(location, data));
    Status synced = Sync({std::string(location)});
    // Not known to be durable: take it back, so the caller does not have to.
    if (!synced) ::unlink(LocalPath(location).c_str());
    return synced;
  }

  Status WriteNewDeferred(std::string_view location, std::string_view data) override {
    const std::string path = LocalPath(location);
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) return Unavailable("cannot create directory for '{}': {}", path, ec.message());
    // An unnamed file in the directory, named once written (where the file system has them):
    // no temporary name to add and take away again.
    const std::string dir = fs::path(path).parent_path().string();
    const int unnamed =
        ::open(dir.empty() ? "." : dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (unnamed >= 0) {
      if (auto named = WriteAndName(unnamed, path, data)) return *named;
    }
    const std::string tmp = path + "." + RandomUuid() + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return IoError("create", tmp, errno);
    if (const int err = WriteAll(fd, data); err != 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return IoError("write", tmp, err);
    }
    if (::close(fd) != 0) {
      const int err = errno;
      ::unlink(tmp.c_str());
      return IoError("write", tmp, err);
    }
    // The whole file is written before it gets its name, and link() fails when the name is
    // taken, so a file is never seen half-written nor overwritten.
    const int rc = ::link(tmp.c_str(), path.c_str());
    const int err = errno;
    ::unlink(tmp.c_str());
    if (rc != 0) {
      if (err == EEXIST) return AlreadyExists(EntityKind::kNone, "file '{}' already exists", path);
      return IoError("publish", path, err);
    }
    return Ok();
  }

  // Writes all of `data` to `fd`: 0, or the errno of the write that failed.
  static int WriteAll(int fd, std::string_view data) {
    size_t written = 0;
    while (written < data.size()) {
      const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      written += static_cast<size_t>(n);
    }
    return 0;
  }

  // Writes `data` to the unnamed file `fd` and links it in as `path` (failing when the name is
  // taken); closes `fd`. nullopt when the file cannot be named this way (no /proc): the caller
  // writes through a temporary name instead.
  static std::optional<Status> WriteAndName(int fd, const std::string& path,
                                            std::string_view data) {
    if (const int err = WriteAll(fd, data); err != 0) {
      ::close(fd);
      return IoError("write", path, err);
    }
    char self[64];
    std::snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
    const int rc = ::linkat(AT_FDCWD, self, AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW);
    const int err = errno;
    ::close(fd);
    if (rc != 0) {
      if (err == EEXIST) return AlreadyExists(EntityKind::kNone, "file '{}' already exists", path);
      if (err == ENOENT) return std::nullopt;
      return IoError("publish", path, err);
    }
    return Ok();
  }

  // fsync of each file (its data, and on a journaling file system the link that named it), then
  // of each directory once (the name itself, as POSIX asks).
  Status Sync(const std::vector<std::string>& locations) override {
    std::set<std::string> dirs;
    for (const auto& location : locations) {
      const std::string path = LocalPath(location);
      CAIRN_RETURN_IF_ERROR(SyncPath(path, O_RDONLY));
      dirs.insert(fs::path(path).parent_path().string());
    }
    for (const auto& dir : dirs) CAIRN_RETURN_IF_ERROR(SyncPath(dir, O_RDONLY | O_DIRECTORY));
    return Ok();
  }

  // A plain stat(2): every 304 of a loadTable proves its metadata file exists with one, and a
  // std::filesystem::path costs more to build than the call.
  std::string LocalFilePath(std::string_view location) const override {
    return LocalPath(location);
  }

  Result<bool> Exists(std::string_view location) override {
    const std::string path = LocalPath(location);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return true;
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return false;
    return Unavailable("cannot stat '{}': {}", path, std::strerror(err));
  }

  Result<std::vector<std::string>> List(std::string_view location) override {
    std::vector<std::string> out;
    std::error_code ec;
    const std::string path = LocalPath(location);
    if (!fs::is_directory(path, ec)) return out;
    for (const auto& entry : fs::directory_iterator(path, ec))
      out.push_back(entry.path().filename().string());
    if (ec) return Unavailable("cannot list '{}': {}", path, ec.message());
    return out;
  }

  Result<std::vector<FileEntry>> ListEntries(std::string_view location) override {
    std::vector<FileEntry> out;
    std::error_code ec;
    const std::string path = LocalPath(location);
    if (!fs::is_directory(path, ec)) return out;
    std::string base(location);
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      FileEntry e;
      e.name = entry.path().filename().string();
      e.location = base + "/" + e.name;
      std::error_code stat_ec;
      e.is_dir = entry.is_directory(stat_ec);
      if (!e.is_dir) e.size = static_cast<int64_t>(entry.file_size(stat_ec));
      const auto mtime = entry.last_write_time(stat_ec);
      if (!stat_ec) {
        const auto sys = std::chrono::file_clock::to_sys(mtime);
        e.last_modified_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(sys.time_since_epoch()).count();
      }
      out.push_back(std::move(e));
    }
    if (ec) return Unavailable("cannot list '{}': {}", path, ec.message());
    return out;
  }

  Status Delete(std::string_view location) override {
    const std::string path = LocalPath(location);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return IoError("delete", path, errno);
    return Ok();
  }

  Status DeletePrefix(std::string_view location) override {
    const std::string path = LocalPath(location);
    std::error_code ec;
    fs::remove_all(path, ec);
    if (ec) return Unavailable("cannot delete '{}': {}", path, ec.message());
    return Ok();
  }

  Result<bool> CreateDirectories(std::string_view location) override {
    const std::string path = LocalPath(location);
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (fs::exists(status)) {
      if (!fs::is_directory(status)) {
        return InvalidArgument("location '{}' is a file, not a directory", location);
      }
      return false;
    }
    const bool created = fs::create_directories(path, ec);
    if (ec) return Unavailable("cannot create directory '{}': {}", path, ec.message());
    return created;
  }
};

}  // namespace

StorageOptions StorageOptions::FromProperties(
    const std::map<std::string, std::string>& properties) {
  StorageOptions out;
  auto get = [&](const char* key) -> const std::string* {
    auto it = properties.find(key);
    return it == properties.end() ? nullptr : &it->second;
  };
  if (auto* v = get("s3-endpoint")) out.s3.endpoint = *v;
  if (auto* v = get("s3-region")) out.s3.region = *v;
  if (auto* v = get("s3-access-key-id")) out.s3.access_key_id = *v;
  if (auto* v = get("s3-secret-access-key")) out.s3.secret_access_key = *v;
  if (auto* v = get("s3-session-token")) out.s3.session_token = *v;
  if (auto* v = get("s3-path-style-access")) out.s3.path_style = (*v != "false");
  if (auto* v = get("s3-tls-ca-file")) out.s3.ca_file = *v;
  if (auto* v = get("s3-allow-insecure-credentials")) {
    out.s3.allow_insecure_credentials = *v == "true";
  }
  return out;
}

Result<std::unique_ptr<FileIO>> FileIOFor(std::string_view location,
                                          const StorageOptions& options) {
  if (location.rfind("file:", 0) == 0 || location.rfind('/', 0) == 0) {
    return std::unique_ptr<FileIO>(std::make_unique<LocalFileIO>());
  }
  if (location.rfind("s3://", 0) == 0 || location.rfind("s3a://", 0) == 0) {
    return MakeS3FileIO(options.s3);
  }
  const size_t colon = location.find("://");
  return Unsupported("storage scheme '{}' is not supported (location '{}')",
                     colon == std::string_view::npos ? std::string(location)
                                                     : std::string(location.substr(0, colon)),
                     location);
}

Result<std::string> NormalizeLocation(std::string_view location) {
  std::string loc(Trim(location));
  if (loc.empty()) return InvalidArgument("location must not be empty");
  while (loc.size() > 1 && loc.back() == '/') loc.pop_back();
  if (loc.find("://") != std::string::npos || loc.rfind("file:", 0) == 0) {
    // A URI is kept as written, so it must not be able to name anything else.
    CAIRN_RETURN_IF_ERROR(ParseLocation(loc));
    return loc;
  }
  for (unsigned char c : loc) {
    if (c < 0x20 || c == 0x7f) {
      return InvalidArgument("location '{}' has a control character", EscapeControl(loc));
    }
  }
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(loc), ec);
  if (ec) return InvalidArgument("location '{}' cannot be resolved: {}", loc, ec.message());
  return p.lexically_normal().string();
}

Result<LocationParts> ParseLocation(std::string_view location) {
  LocationParts out;
  std::string_view rest = location;
  for (unsigned char c : location) {
    if (c < 0x20 || c == 0x7f) {
      return InvalidArgument("location '{}' has a control character", EscapeControl(location));
    }
    if (c == '\\') return InvalidArgument("location '{}' has a backslash", location);
  }
  if (rest.rfind("s3://", 0) == 0 || rest.rfind("s3a://", 0) == 0) {
    rest.remove_prefix(rest.find("://") + 3);
    const size_t slash = rest.find('/');
    out.scheme = "s3";
    out.authority = std::string(rest.substr(0, slash));
    if (out.authority.empty()) return InvalidArgument("location '{}' has no bucket", location);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  } else if (rest.rfind("file:", 0) == 0) {
    rest.remove_prefix(5);
    if (rest.rfind("//", 0) == 0) {
      rest.remove_prefix(2);
      const size_t slash = rest.find('/');
      if (slash != 0 && rest.substr(0, slash) != "localhost") {
        return InvalidArgument("location '{}' names another host", location);
      }
      rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    }
    out.scheme = "file";
    if (rest.empty() || rest.front() != '/')
      return InvalidArgument("location '{}' is not absolute", location);
  } else if (!rest.empty() && rest.front() == '/') {
    out.scheme = "file";
  } else {
    const size_t colon = rest.find("://");
    if (colon == std::string_view::npos)
      return InvalidArgument("location '{}' is not absolute", location);
    out.scheme = std::string(rest.substr(0, colon));
    rest.remove_prefix(colon + 3);
    const size_t slash = rest.find('/');
    out.authority = std::string(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  size_t start = 0;
  while (start < rest.size()) {
    size_t end = rest.find('/', start);
    if (end == std::string_view::npos) end = rest.size();
    const std::string_view seg = rest.substr(start, end - start);
    if (seg == "." || seg == "..") {
      return InvalidArgument("location '{}' has a '{}' segment", location, seg);
    }
    if (!seg.empty()) out.segments.emplace_back(seg);
    start = end + 1;
  }
  return out;
}

bool LocationWithin(std::string_view location, std::string_view base) {
  auto l = ParseLocation(location);
  auto b = ParseLocation(base);
  if (!l || !b) return false;
  if (l->scheme != b->scheme || l->authority != b->authority) return false;
  if (l->segments.size() < b->segments.size()) return false;
  return std::equal(b->segments.begin(), b->segments.end(), l->segments.begin());
}

bool LocationsOverlap(std::string_view a, std::string_view b) {
  return LocationWithin(a, b) || LocationWithin(b, a);
}

}  // namespace cairn::storage
