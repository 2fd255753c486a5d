// SPDX-License-Identifier: Apache-2.0
#include "common/swar.h"

#include <string>

#include <gtest/gtest.h>

namespace cairn {
namespace {

bool HasQuoteOrControl(std::string_view s) {
  using namespace swar;
  return !NoneFlagged(
      s, [](uint64_t x) { return ByteBelow(x, 0x20) | ByteIs(x, '"'); }, ' ');
}

// Every length up to three words, with the flagged byte at every position: the whole words,
// the last eight bytes read again and the padded short tail all see it.
TEST(Swar, FindsAFlaggedByteAtEveryPositionOfEveryLength) {
  for (size_t n = 0; n <= 24; ++n) {
    const std::string clean(n, 'x');
    EXPECT_FALSE(HasQuoteOrControl(clean)) << n;
    for (size_t at = 0; at < n; ++at) {
      for (const char bad : {'"', '\0', '\n', '\x1f'}) {
        std::string text = clean;
        text[at] = bad;
        EXPECT_TRUE(HasQuoteOrControl(text)) << "length " << n << " at " << at;
      }
    }
  }
}

// The padding is never read as the text: a short value whose bytes after its end (in the same
// buffer) are flagged is clean.
TEST(Swar, LooksOnlyAtTheTextsOwnBytes) {
  const std::string buffer = "abc\"\"\"\"\"\"\"\"\"";
  for (size_t n = 0; n <= 3; ++n) {
    EXPECT_FALSE(HasQuoteOrControl(std::string_view(buffer).substr(0, n))) << n;
  }
  EXPECT_TRUE(HasQuoteOrControl(std::string_view(buffer).substr(0, 4)));
  const std::string longer = "abcdefghijk\"";
  EXPECT_FALSE(HasQuoteOrControl(std::string_view(longer).substr(0, 11)));
  EXPECT_TRUE(HasQuoteOrControl(longer));
}

}  // namespace
}  // namespace cairn
