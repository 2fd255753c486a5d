// SPDX-License-Identifier: Apache-2.0
#include "json/member_scan.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cairn::json {
namespace {

// Whenever the scan answers, it answers what nlohmann's parse of the same text says.
void ExpectAsParsed(const std::string& text, const std::string& key) {
  const MemberLookup got = FindMember(text, key);
  const auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (got.scan == MemberScan::kUnknown) return;
  ASSERT_FALSE(parsed.is_discarded()) << text;
  ASSERT_TRUE(parsed.is_object()) << text;
  if (got.scan == MemberScan::kAbsent) {
    EXPECT_FALSE(parsed.contains(key)) << text;
  } else {
    ASSERT_TRUE(parsed.contains(key)) << text;
    EXPECT_EQ(nlohmann::json::parse(got.value), parsed[key]) << text;
  }
}

TEST(FindMember, FindsTopLevelMembersOnly) {
  const std::string text =
      R"({"a":{"owner":1,"b":[{"owner":2}]},"s":"x\"owner\":3","owner":{"name":"n"},"z":null})";
  const MemberLookup owner = FindMember(text, "owner");
  ASSERT_EQ(owner.scan, MemberScan::kFound);
  EXPECT_EQ(owner.value, R"({"name":"n"})");
  EXPECT_EQ(FindMember(text, "z").value, "null");
  EXPECT_EQ(FindMember(text, "name").scan, MemberScan::kAbsent);
  EXPECT_EQ(FindMember("{}", "a").scan, MemberScan::kAbsent);
  EXPECT_EQ(FindMember(" { } ", "a").scan, MemberScan::kAbsent);
}

TEST(FindMember, AnswersAsAParseOrNotAtAll) {
  const std::string texts[] = {
      R"({"a":1,"b":-2.5e3,"c":true,"d":false,"e":null})",
      R"({ "a" : [ 1 , [ 2 , { "b" : "]}" } ] ] , "b" : "\\" })",
      R"({"a":"\u0041","b":{}})",
      R"({"\u0061":1})",             // an escaped key: unknown
      R"({"a":1,})",                 // malformed
      R"({"a":1} trailing)",         // malformed
      R"({"a":)",                    // cut short
      R"({"a":"unterminated})",      // cut short
      R"([{"a":1}])",                // not an object
      R"({"a" 1})",                  // no colon
      "",
  };
  for (const auto& text : texts) {
    for (const char* key : {"a", "b", "e", "x"}) ExpectAsParsed(text, key);
  }
  EXPECT_EQ(FindMember(R"({"\u0061":1})", "a").scan, MemberScan::kUnknown);
  EXPECT_EQ(FindMember(R"({"a":1,})", "x").scan, MemberScan::kUnknown);
  EXPECT_EQ(FindMember(R"({"a":)", "a").scan, MemberScan::kUnknown);
}

TEST(FindMember, SkipsDeepNestingWithoutRecursing) {
  const std::string deep = R"({"a":)" + std::string(1'000'000, '[') +
                           std::string(1'000'000, ']') + R"(,"b":2})";
  const MemberLookup b = FindMember(deep, "b");
  ASSERT_EQ(b.scan, MemberScan::kFound);
  EXPECT_EQ(b.value, "2");
}

TEST(PlainStringValue, OnlyLiteralsWithoutEscapes) {
  EXPECT_EQ(PlainStringValue(R"("bob")"), "bob");
  EXPECT_EQ(PlainStringValue(R"("")"), "");
  EXPECT_EQ(PlainStringValue(R"("a\"b")"), std::nullopt);
  EXPECT_EQ(PlainStringValue("5"), std::nullopt);
  EXPECT_EQ(PlainStringValue("\"a\tb\""), std::nullopt);
}

}  // namespace
}  // namespace cairn::json
