// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace cairn {

/// A local file held open read-only whose bytes are known: what a metadata file cache keeps
/// beside a file's text, so that an answer carrying the text can be sent from the file by the
/// kernel (sendfile(2)) and the file's existence proved with fstat(2) instead of a path lookup.
/// Closed when the last holder lets go (an answer being sent holds it too). Safe to share
/// between threads: nothing in it changes after construction.
class OpenFile {
 public:
  /// The file at `path` when it is a regular file whose bytes are exactly `content`; null
  /// otherwise (missing, unreadable, another size or other bytes, such as a compressed file).
  static std::shared_ptr<const OpenFile> OpenIfContent(const std::string& path,
                                                       std::string_view content);
  /// An anonymous in-memory file (memfd, sealed against change) holding a copy of `content`,
  /// for bytes that live on no local disk (a metadata file on object storage); null when the
  /// system cannot make one.
  static std::shared_ptr<const OpenFile> InMemory(std::string_view content);

  ~OpenFile();
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  /// Whether the file still has a name: false once it has been deleted, or replaced by another
  /// file under its name. A file moved elsewhere still has one. Always false in memory.
  bool Linked() const;
  /// A file on disk (OpenIfContent), not in memory (InMemory).
  bool on_disk() const { return on_disk_; }

 private:
  OpenFile(int fd, uint64_t size, bool on_disk) : fd_(fd), size_(size), on_disk_(on_disk) {}
  int fd_;
  uint64_t size_;
  bool on_disk_;
};

}  // namespace cairn
