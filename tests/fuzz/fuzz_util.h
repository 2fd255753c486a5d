// SPDX-License-Identifier: Apache-2.0
// Shared by the libFuzzer targets in tests/fuzz (see docs/limits.md, "Fuzzing").
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace cairn::fuzz {

/// The fuzzer's input as text.
inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A property every input must keep: a violation is reported as a crash, with the input.
inline void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "property violated: %s\n", what);
    std::abort();
  }
}

}  // namespace cairn::fuzz
