// SPDX-License-Identifier: Apache-2.0
#include "common/open_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace cairn {

std::shared_ptr<const OpenFile> OpenFile::OpenIfContent(const std::string& path,
                                                        std::string_view content) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return nullptr;
  std::shared_ptr<const OpenFile> file(new OpenFile(fd, content.size()));
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

OpenFile::~OpenFile() { ::close(fd_); }

bool OpenFile::Linked() const {
  struct stat st {};
  return ::fstat(fd_, &st) == 0 && st.st_nlink > 0;
}

}  // namespace cairn
