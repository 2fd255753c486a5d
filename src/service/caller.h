// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "connector/connector.h"
#include "governance/access_control.h"

namespace cairn::service {

/// Who calls, through which interface, and when.
struct Caller {
  const governance::Principal& principal;
  connector::CallContext ctx;
};

}  // namespace cairn::service
