// SPDX-License-Identifier: Apache-2.0
#include "security/base64.h"

#include <string>

#include <gtest/gtest.h>

namespace cairn::security {
namespace {

struct Vector {
  const char* plain;
  const char* encoded;
};

// RFC 4648 §10.
constexpr Vector kRfc4648[] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
};

TEST(Base64, Rfc4648Vectors) {
  for (const Vector& v : kRfc4648) {
    EXPECT_EQ(Base64Encode(v.plain), v.encoded) << v.plain;
    EXPECT_EQ(Base64Decode(v.encoded), std::string(v.plain)) << v.encoded;
  }
}

TEST(Base64, UrlVectorsWithoutPadding) {
  for (const Vector& v : kRfc4648) {
    std::string unpadded = v.encoded;
    while (!unpadded.empty() && unpadded.back() == '=') {
      unpadded.pop_back();
    }
    EXPECT_EQ(Base64UrlEncode(v.plain), unpadded);
    EXPECT_EQ(Base64UrlDecode(unpadded), std::string(v.plain)) << unpadded;
    EXPECT_EQ(Base64UrlDecode(v.encoded), std::string(v.plain)) << "padded " << v.encoded;
  }
}

TEST(Base64, AlphabetsDiffer) {
  const std::string bytes("\xfb\xff\xbf", 3);
  EXPECT_EQ(Base64Encode(bytes), "+/+/");
  EXPECT_EQ(Base64UrlEncode(bytes), "-_-_");
  EXPECT_EQ(Base64Decode("+/+/"), bytes);
  EXPECT_EQ(Base64UrlDecode("-_-_"), bytes);
  EXPECT_FALSE(Base64Decode("-_-_"));
  EXPECT_FALSE(Base64UrlDecode("+/+/"));
}

TEST(Base64, BinaryRoundTrip) {
  std::string all;
  for (int i = 0; i < 256; ++i) {
    all.push_back(static_cast<char>(i));
  }
  for (size_t len = 0; len <= all.size(); len += 7) {
    const std::string part = all.substr(0, len);
    EXPECT_EQ(Base64Decode(Base64Encode(part)), part);
    EXPECT_EQ(Base64UrlDecode(Base64UrlEncode(part)), part);
  }
}

TEST(Base64, RejectsMalformed) {
  EXPECT_FALSE(Base64Decode("Zg"));      // standard needs padding
  EXPECT_FALSE(Base64Decode("Zg="));     // incomplete padding
  EXPECT_FALSE(Base64Decode("Zg==="));   // too much padding
  EXPECT_FALSE(Base64Decode("Z==="));    // impossible length
  EXPECT_FALSE(Base64Decode("Zm9v\n"));  // whitespace
  EXPECT_FALSE(Base64Decode("Zm=v"));    // padding inside
  EXPECT_FALSE(Base64Decode("Zh=="));    // non-zero unused bits
  EXPECT_FALSE(Base64UrlDecode("Z"));    // one leftover character
  EXPECT_FALSE(Base64UrlDecode("Zg="));  // partial padding
  EXPECT_FALSE(Base64UrlDecode("Zh"));   // non-zero unused bits
  EXPECT_FALSE(Base64UrlDecode("a.b"));
}

}  // namespace
}  // namespace cairn::security
