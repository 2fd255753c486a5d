// SPDX-License-Identifier: Apache-2.0
#include "storage/file_io.h"

namespace cairn::storage {

Result<std::unique_ptr<FileIO>> MakeS3FileIO(const S3Options&) {
  return Unsupported("s3 storage is not available in this build");
}

}  // namespace cairn::storage
