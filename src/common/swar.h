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
/// `x` is, `byte(c)` true when the byte `c` of the last few (fewer than eight) is.
template <class Word, class Byte>
bool NoneFlagged(std::string_view text, Word word, Byte byte) {
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, text.data() + i, 8);
    if (word(x) != 0) return false;
  }
  for (; i < text.size(); ++i) {
    if (byte(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

}  // namespace cairn::swar
