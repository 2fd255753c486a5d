// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <gmock/gmock.h>

#include "common/result.h"

namespace cairn::testing {

MATCHER(IsOk, "succeeds") {
  if (arg.has_value()) return true;
  *result_listener << "failed with " << ErrorCodeName(arg.error().code) << ": "
                   << arg.error().message;
  return false;
}

MATCHER_P(IsError, code, "fails with " + std::string(ErrorCodeName(code))) {
  if (arg.has_value()) {
    *result_listener << "succeeded";
    return false;
  }
  *result_listener << "failed with " << ErrorCodeName(arg.error().code) << ": "
                   << arg.error().message;
  return arg.error().code == code;
}

MATCHER_P(HasErrorMessage, substring, "fails with a message containing " + std::string(substring)) {
  if (arg.has_value()) return false;
  *result_listener << "message: " << arg.error().message;
  return arg.error().message.find(substring) != std::string::npos;
}

}  // namespace cairn::testing
