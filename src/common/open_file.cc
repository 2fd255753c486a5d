// SPDX-License-Identifier: Apache-2.0
#include "common/open_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace cairn {

std::shared_ptr<const OpenFile> OpenFile::OpenIfContent(const std::string& path,
                                                        std::string_view content) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return nullptr;
  std::shared_ptr<const OpenFile> file(new OpenFile(fd, content.size(), true));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) != content.size()) {
    return nullptr;
  }
  // Compared once, when the file is opened: what is sent from it later is the text.
  char buffer[64 * 1024];
  uint64_t offset = 0;
  while (offset < content.size()) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(offset));
    if (n <= 0) return nullptr;
    const auto got = static_cast<uint64_t>(n);
    if (got > content.size() - offset ||
        std::memcmp(buffer, content.data() + offset, static_cast<size_t>(got)) != 0) {
      return nullptr;
    }
    offset += got;
  }
  return file;
}

std::shared_ptr<const OpenFile> OpenFile::InMemory(std::string_view content) {
  const int fd = ::memfd_create("cairn-metadata", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return nullptr;
  std::shared_ptr<const OpenFile> file(new OpenFile(fd, content.size(), false));
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::pwrite(fd, content.data() + written, content.size() - written,
                               static_cast<off_t>(written));
    if (n <= 0) return nullptr;
    written += static_cast<size_t>(n);
  }
  // Sealed: nothing can change the bytes an answer sends from it.
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return nullptr;
  }
  return file;
}

OpenFile::~OpenFile() { ::close(fd_); }

bool OpenFile::Linked() const {
  if (!on_disk_) return false;
  struct stat st {};
  return ::fstat(fd_, &st) == 0 && st.st_nlink > 0;
}

}  // namespace cairn
