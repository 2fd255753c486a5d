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

/// The word the last few bytes (fewer than eight) of the `n` bytes at `p` are looked at as: the
/// last eight bytes again when there are eight, else the bytes padded with `fill`.
inline uint64_t TailWord(const char* p, size_t n, unsigned char fill) {
  uint64_t x = kOnes * fill;
  std::memcpy(&x, n >= 8 ? p + n - 8 : p, n >= 8 ? 8 : n);
  return x;
}

/// True when nothing in `text` is flagged: `word(x)` is nonzero when one of the eight bytes of
/// `x` is. `fill` is a byte `word` never flags: the last few bytes are one more word (TailWord),
/// so no byte is looked at alone and a short value costs about one word.
template <class Word>
bool NoneFlagged(std::string_view text, Word word, unsigned char fill) {
  const char* p = text.data();
  const size_t n = text.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    std::memcpy(&x, p + i, 8);
    if (word(x) != 0) return false;
  }
  return i == n || word(TailWord(p, n, fill)) == 0;
}

}  // namespace cairn::swar
