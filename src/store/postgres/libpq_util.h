// SPDX-License-Identifier: Apache-2.0
// Small libpq helpers shared by the store's connection and its change listener.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string_view>

namespace cairn::store::postgres {

struct ClearResult {
  void operator()(PGresult* result) const { PQclear(result); }
};
/// A query result, cleared when it goes out of scope.
using ResultPtr = std::unique_ptr<PGresult, ClearResult>;

/// libpq's message without its trailing newline and spaces.
inline std::string_view TrimMessage(const char* message) {
  std::string_view text = message != nullptr ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace cairn::store::postgres
