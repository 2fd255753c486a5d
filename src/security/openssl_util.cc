// SPDX-License-Identifier: Apache-2.0
#include "security/openssl_util.h"

#include <openssl/err.h>

namespace cairn::security {

std::string TakeOpensslError() {
  const unsigned long code = ERR_peek_error();  // NOLINT(google-runtime-int): OpenSSL's type
  std::string message = "unknown error";
  if (code != 0) {
    const char* reason = ERR_reason_error_string(code);
    if (reason != nullptr) {
      message = reason;
    }
  }
  ERR_clear_error();
  return message;
}

}  // namespace cairn::security
