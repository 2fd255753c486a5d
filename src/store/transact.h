// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>

#include "store/metadata_store.h"
#include "store/retry.h"

namespace cairn::store {

/// Runs `body` in one transaction of `store`, again from the start while it fails with an error
/// `retry` accepts (by default a lost compare-and-set), as RetryOnConflict does for one row:
/// `body` must re-read what it changes. A request is then all or nothing.
template <typename Retry = bool (*)(const Error&)>
Status Transact(MetadataStore& store, const std::function<Status(MetadataStore&)>& body,
                Retry&& retry = IsConflict) {
  auto written = RetryOnConflict(
      [&]() -> Result<bool> {
        const Status done = store.RunInTransaction(body);
        CAIRN_RETURN_IF_ERROR(done);
        return true;
      },
      TooManyConcurrentUpdates, std::forward<Retry>(retry));
  CAIRN_RETURN_IF_ERROR(written);
  return Ok();
}

}  // namespace cairn::store
