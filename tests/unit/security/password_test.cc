// SPDX-License-Identifier: Apache-2.0
#include "security/password.h"

#include <string>

#include <gtest/gtest.h>

#include "common/util.h"

namespace cairn::security {
namespace {

class PasswordTest : public ::testing::Test {
 protected:
  // One slow hash shared by the tests that only read it.
  static void SetUpTestSuite() { hash_ = HashPassword("correct horse"); }
  static const std::string* hash() { return &hash_; }

 private:
  static inline std::string hash_;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
};

TEST_F(PasswordTest, EncodingFormat) {
  const std::vector<std::string> parts = Split(*hash(), '$');
  ASSERT_EQ(parts.size(), 4U);
  EXPECT_EQ(parts[0], "pbkdf2-sha256");
  EXPECT_EQ(parts[1], "210000");
  EXPECT_EQ(parts[2].size(), 24U);  // 16 bytes
  EXPECT_EQ(parts[3].size(), 44U);  // 32 bytes
  EXPECT_EQ(hash()->find("correct horse"), std::string::npos);
}

TEST_F(PasswordTest, RoundTrip) { EXPECT_TRUE(VerifyPassword("correct horse", *hash())); }

TEST_F(PasswordTest, WrongPassword) {
  EXPECT_FALSE(VerifyPassword("correct horsE", *hash()));
  EXPECT_FALSE(VerifyPassword("", *hash()));
  EXPECT_FALSE(VerifyPassword("correct horse ", *hash()));
}

TEST_F(PasswordTest, SaltIsRandom) {
  const std::string other = HashPassword("correct horse");
  EXPECT_NE(other, *hash());
  EXPECT_TRUE(VerifyPassword("correct horse", other));
}

TEST_F(PasswordTest, EmptyPasswordRoundTrip) {
  const std::string h = HashPassword("");
  EXPECT_TRUE(VerifyPassword("", h));
  EXPECT_FALSE(VerifyPassword("x", h));
}

TEST_F(PasswordTest, TamperedEncodingFails) {
  const std::vector<std::string> parts = Split(*hash(), '$');
  auto join = [](std::vector<std::string> p) { return Join(p, "$"); };
  auto flip = [](std::string s) {
    s[5] = s[5] == 'A' ? 'B' : 'A';
    return s;
  };
  ASSERT_TRUE(VerifyPassword("correct horse", join(parts)));

  auto p = parts;
  p[3] = flip(p[3]);
  EXPECT_FALSE(VerifyPassword("correct horse", join(p))) << "hash changed";
  p = parts;
  p[2] = flip(p[2]);
  EXPECT_FALSE(VerifyPassword("correct horse", join(p))) << "salt changed";
  p = parts;
  p[1] = "210001";
  EXPECT_FALSE(VerifyPassword("correct horse", join(p))) << "iterations changed";
  p = parts;
  p[1] = "0210000";
  EXPECT_FALSE(VerifyPassword("correct horse", join(p))) << "non-canonical iterations";
  p = parts;
  p[1] = "1";
  EXPECT_FALSE(VerifyPassword("correct horse", join(p))) << "too few iterations";
  p = parts;
  p[1] = "99999999999";
  EXPECT_FALSE(VerifyPassword("correct horse", join(p))) << "too many iterations";
  p = parts;
  p[0] = "pbkdf2-sha1";
  EXPECT_FALSE(VerifyPassword("correct horse", join(p))) << "scheme changed";
  p = parts;
  p[3] = p[3].substr(0, 20);
  EXPECT_FALSE(VerifyPassword("correct horse", join(p))) << "truncated hash";
  p = parts;
  p[3] = "!!!!";
  EXPECT_FALSE(VerifyPassword("correct horse", join(p))) << "not base64";

  EXPECT_FALSE(VerifyPassword("correct horse", ""));
  EXPECT_FALSE(VerifyPassword("correct horse", "correct horse"));
  EXPECT_FALSE(VerifyPassword("correct horse", parts[0] + "$" + parts[1] + "$" + parts[2]));
  EXPECT_FALSE(VerifyPassword("correct horse", *hash() + "$"));
}

}  // namespace
}  // namespace cairn::security
