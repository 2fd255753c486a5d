// SPDX-License-Identifier: Apache-2.0
#include "common/util.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace cairn {
namespace {

TEST(Util, FormatsIsoMillis) {
  EXPECT_EQ(FormatIsoMillis(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatIsoMillis(1767225600123), "2026-01-01T00:00:00.123Z");
  // The text up to the second is reused within a second and rebuilt for the next one.
  EXPECT_EQ(FormatIsoMillis(1767225600999), "2026-01-01T00:00:00.999Z");
  EXPECT_EQ(FormatIsoMillis(1767225601000), "2026-01-01T00:00:01.000Z");
  EXPECT_EQ(FormatIsoMillis(1767225600005), "2026-01-01T00:00:00.005Z");
  EXPECT_EQ(FormatIsoMillis(-1), "1969-12-31T23:59:59.999Z");
}

TEST(Util, RandomUuidIsVersion4AndUnique) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string u = RandomUuid();
    ASSERT_EQ(u.size(), 36U);
    EXPECT_EQ(u[14], '4');
    EXPECT_NE(std::string("89ab").find(u[19]), std::string::npos);
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 1000U);
}

TEST(Util, ClearTextToAnotherMachineIsPlainHttpOffLoopback) {
  EXPECT_TRUE(IsClearTextToAnotherMachine("http://minio.internal:9000"));
  EXPECT_TRUE(IsClearTextToAnotherMachine("http://10.0.0.5/x"));
  EXPECT_TRUE(IsClearTextToAnotherMachine("http://[2001:db8::1]:80/"));
  EXPECT_TRUE(IsClearTextToAnotherMachine("http://127.0.0.1@evil.example.com/"));  // userinfo
  EXPECT_TRUE(IsClearTextToAnotherMachine("http://127.0.0.1.evil.example.com/"));
  for (const char* url : {"https://minio.internal", "http://127.0.0.1:9000", "http://localhost/",
                          "http://[::1]:8181/v1", "http://evil.example.com@127.0.0.1:1/"}) {
    EXPECT_FALSE(IsClearTextToAnotherMachine(url)) << url;
  }
}

TEST(Util, PercentEncodeRoundTripsEveryByte) {
  EXPECT_EQ(PercentEncode("a-b._~Z9"), "a-b._~Z9");
  EXPECT_EQ(PercentEncode("a/b c?d%"), "a%2Fb%20c%3Fd%25");
  EXPECT_EQ(PercentEncode(std::string("\0\xff", 2)), "%00%FF");
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  EXPECT_EQ(PercentDecode(PercentEncode(all)), all);
}

TEST(Util, PercentDecode) {
  EXPECT_EQ(PercentDecode("a%3Ab%2F"), "a:b/");
  EXPECT_EQ(PercentDecode("plain"), "plain");
  EXPECT_FALSE(PercentDecode("bad%2").has_value());
  EXPECT_FALSE(PercentDecode("bad%zz").has_value());
  EXPECT_FALSE(PercentDecode("%").has_value());
}

TEST(Util, ParseInt64RejectsGarbage) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64("-7"), -7);
  EXPECT_FALSE(ParseInt64("4x").has_value());
  EXPECT_FALSE(ParseInt64("").has_value());
  EXPECT_FALSE(ParseInt64("99999999999999999999").has_value());
}

TEST(Util, CaseHelpers) {
  EXPECT_TRUE(EqualsIgnoreCase("TrUe", "true"));
  EXPECT_FALSE(EqualsIgnoreCase("true", "truex"));
  EXPECT_EQ(Split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(Trim("  x \n"), "x");
}

// Against the byte-by-byte definition: every pair of bytes, at every position of lengths that
// fill whole words, leave a short tail or read the last word again.
TEST(Util, EqualsIgnoreCaseFoldsOnlyAsciiCapitals) {
  const auto lower = [](int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; };
  for (int c = 0; c < 256; ++c) {
    for (int d = 0; d < 256; ++d) {
      const bool same = lower(c) == lower(d);
      for (const size_t length : {1, 7, 8, 13}) {
        const size_t at = (c * 7 + d) % length;
        std::string a(length, 'k');
        std::string b(length, 'K');
        a[at] = static_cast<char>(c);
        b[at] = static_cast<char>(d);
        ASSERT_EQ(EqualsIgnoreCase(a, b), same) << c << " " << d << " at " << at << " of "
                                                << length;
      }
    }
  }
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_TRUE(EqualsIgnoreCase("X-Iceberg-Access-Delegation", "x-iceberg-access-delegation"));
  EXPECT_FALSE(EqualsIgnoreCase("X-Iceberg-Access-Delegation", "x-iceberg-access-delegatiom"));
  EXPECT_FALSE(EqualsIgnoreCase("authorization", "authorizatioo"));
  EXPECT_FALSE(EqualsIgnoreCase("@[`{", "`{@["));  // neighbours of the letters do not fold
}

TEST(Util, IsoDurationsOfDaysAndTime) {
  EXPECT_EQ(ParseIsoDuration("PT30M"), 1800);
  EXPECT_EQ(ParseIsoDuration("PT24H"), 86400);
  EXPECT_EQ(ParseIsoDuration("P1D"), 86400);
  EXPECT_EQ(ParseIsoDuration("P1DT2H3M4S"), 86400 + 7200 + 180 + 4);
  EXPECT_EQ(ParseIsoDuration("PT0S"), 0);
  for (const char* bad : {"", "P", "PT", "30M", "P1M", "PT1D", "P1DT", "PT1M2H", "PT1.5S", "PT-1S",
                          "pt30m", "PT30M ", "P1W", "PT1H1H"}) {
    EXPECT_EQ(ParseIsoDuration(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace cairn
