// SPDX-License-Identifier: Apache-2.0
// Looking at text eight bytes at a time ("SIMD within a register"), for the checks that run on
// every request: whether a value needs escaping, whether a header value holds a line break.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace cairn::swar {

inline constexpr uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr uint64_t kHigh = 0x8080808080808080ULL;

/// Nonzero when some byte of `v` is zero.
constexpr uint64_t ZeroByte(uint64_t v) { return (v - kOnes) & ~v & kHigh; }
/// Nonzero when some byte of `v` is `c`.
constexpr uint64_t ByteIs(uint64_t v, unsigned char c) { return ZeroByte(v ^ (kOnes * c)); }
/// Nonzero when some byte of `v` is below `n` (at most 0x80).
constexpr uint64_t ByteBelow(uint64_t v, unsigned char n) { return (v - kOnes * n) & ~v & kHigh; }
/// Nonzero when some byte of `v` is 0x80 or above.
constexpr uint64_t HighByte(uint64_t v) { return v & kHigh; }

/// True when nothing in `text` is flagged: `word(x)` is nonzero when one of the eight bytes of
/// `x` is. `fill` is a byte `word` never flags. The last few bytes (fewer than eight) are looked
/// at as one word too: the last eight bytes of the text again when it has eight, else the bytes
/// padded with `fill`. No byte is looked at alone, so a short value costs about one word.
template <class Word>
bool NoneFlagged(std::string_view text, Word word, unsigned char fill) {
  const char* p = text.data();
  const size_t n = text.size();
  uint64_t x;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::memcpy(&x, p + i, 8);
    if (word(x) != 0) return false;
  }
  if (i == n) return true;
  if (n >= 8) {
    std::memcpy(&x, p + n - 8, 8);
  } else {
    x = kOnes * fill;
    std::memcpy(&x, p, n);
  }
  return word(x) == 0;
}

}  // namespace cairn::swar
