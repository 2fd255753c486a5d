// SPDX-License-Identifier: Apache-2.0
#include "json/json_util.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "matchers.h"

namespace cairn::json {
namespace {

using ::cairn::testing::HasErrorMessage;
using ::cairn::testing::IsError;
using ::cairn::testing::IsOk;

// `depth` nested arrays around a number: "[[[1]]]" is depth 3.
std::string NestedArrays(int depth) {
  return std::string(static_cast<size_t>(depth), '[') + "1" +
         std::string(static_cast<size_t>(depth), ']');
}

// `depth` nested objects, each {"a": <inner>, "b": 1, "c": 2}: the big member comes first, the
// shape whose copies made nlohmann's ordered parse quadratic.
std::string NestedObjects(int depth) {
  std::string out;
  for (int i = 0; i < depth; ++i) out += R"({"a":)";
  out += "0";
  for (int i = 0; i < depth; ++i) out += R"(,"b":1,"c":2})";
  return out;
}

TEST(AppendQuoted, QuotesPlainTextAsIsAndEscapesEverythingElseAtAnyPosition) {
  auto quoted = [](std::string_view v) {
    std::string out = "x";
    AppendQuoted(out, v);
    return out.substr(1);
  };
  EXPECT_EQ(quoted(""), "\"\"");
  EXPECT_EQ(quoted("GET /iceberg/v1/{prefix}/namespaces/{namespace}/tables/{table}"),
            "\"GET /iceberg/v1/{prefix}/namespaces/{namespace}/tables/{table}\"");
  // Every character that needs an escape (or is not ASCII), at each position of a word and
  // in the tail after the last whole word: the result is what the JSON library writes.
  for (const std::string bad : {std::string("\""), std::string("\\"), std::string("\n"),
                                std::string(1, '\0'), std::string("\x1f"), std::string("\x7f"),
                                std::string("\xc3\xa9")}) {
    for (const size_t length : {0, 1, 6, 7, 8, 15, 16, 19, 31, 32, 40}) {  // every kind of tail
      for (size_t pos = 0; pos <= length; ++pos) {
        std::string v(length, 'a');
        v.insert(pos, bad);
        EXPECT_EQ(quoted(v), nlohmann::json(v).dump(-1, ' ', false,
                                                    nlohmann::json::error_handler_t::replace))
            << "at " << pos << " of " << length;
      }
    }
  }
  // The bytes just inside the plain range pass unchanged.
  EXPECT_EQ(quoted(" !#[]~ !#[]~ !#[]~"), "\" !#[]~ !#[]~ !#[]~\"");
}

TEST(CheckJsonDepth, AcceptsTheLimitAndRefusesOneMore) {
  EXPECT_THAT(CheckJsonDepth(NestedArrays(kMaxJsonDepth)), IsOk());
  auto deeper = CheckJsonDepth(NestedArrays(kMaxJsonDepth + 1));
  EXPECT_THAT(deeper, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(deeper, HasErrorMessage("deeper than 512 levels at byte 512"));
}

TEST(CheckJsonDepth, IgnoresBracketsInStrings) {
  const std::string text = R"({"a":"[[[[{{{{\"[[[[","b":["]]]]"]})";
  EXPECT_THAT(CheckJsonDepth(text, 2), IsOk());
  EXPECT_THAT(CheckJsonDepth(text, 1), IsError(ErrorCode::kInvalidArgument));
}

TEST(CheckJsonDepth, UnbalancedClosingBracketsDoNotHideDepth) {
  EXPECT_THAT(CheckJsonDepth("]]]]" + NestedArrays(4), 3), IsError(ErrorCode::kInvalidArgument));
}

TEST(ParseJson, RefusesAFiftyThousandDeepBodyWithTheLimit) {
  const std::string text = NestedArrays(50'000);
  auto plain = ParseJson(text);
  EXPECT_THAT(plain, IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(plain, HasErrorMessage("JSON nesting deeper than 512 levels"));
  EXPECT_THAT(ParseOrderedJson(text), HasErrorMessage("JSON nesting deeper than 512 levels"));
  EXPECT_THAT(ParseJson(text, "Malformed request"), HasErrorMessage("deeper than 512 levels"));
  EXPECT_TRUE(ParseJsonOrDiscarded(text).is_discarded());
  EXPECT_TRUE(ParseOrderedJsonOrDiscarded(text).is_discarded());
}

TEST(ParseJson, ParsesJustUnderTheLimit) {
  auto plain = ParseJson(NestedArrays(kMaxJsonDepth));
  ASSERT_THAT(plain, IsOk());
  const Json* inner = &*plain;
  int depth = 0;
  while (inner->is_array()) {
    inner = &inner->front();
    ++depth;
  }
  EXPECT_EQ(depth, kMaxJsonDepth);
  EXPECT_EQ(*inner, 1);
  auto ordered = ParseOrderedJson(NestedObjects(kMaxJsonDepth));
  ASSERT_THAT(ordered, IsOk());
  EXPECT_EQ(DumpJson(*ordered), NestedObjects(kMaxJsonDepth));
}

TEST(ParseJson, MalformedTextGetsTheCallersMessage) {
  EXPECT_THAT(ParseJson("{"), HasErrorMessage("Malformed JSON document"));
  EXPECT_THAT(ParseJson("{", "Malformed request: the body is not valid JSON"),
              HasErrorMessage("Malformed request: the body is not valid JSON"));
  EXPECT_THAT(ParseOrderedJson("[1,]", "bad metadata"), HasErrorMessage("bad metadata"));
  EXPECT_THAT(ParseOrderedJson("{} {}"), IsError(ErrorCode::kInvalidArgument));
  EXPECT_TRUE(ParseJsonOrDiscarded("nope").is_discarded());
  EXPECT_TRUE(ParseOrderedJsonOrDiscarded("[1,2").is_discarded());
}

TEST(ParseOrderedJson, KeepsDocumentOrderAndValuesAsNlohmannDoes) {
  const std::string text =
      R"({"z":1,"a":[true,false,null,"s",-3,18446744073709551615,1.5e3,{}],"m":{"y":{},"b":[]}})";
  auto ordered = ParseOrderedJson(text);
  ASSERT_THAT(ordered, IsOk());
  EXPECT_EQ(DumpJson(*ordered), DumpJson(OrderedJson::parse(text)));
  EXPECT_EQ(ordered->begin().key(), "z");
  EXPECT_TRUE((*ordered)["a"][5].is_number_unsigned());
}

TEST(ParseOrderedJson, DuplicateKeysKeepTheFirstPlaceAndTheLastValue) {
  // Small objects are searched linearly, large ones through an index: both behave the same.
  for (const int members : {3, 40}) {
    std::string text = "{";
    for (int i = 0; i < members; ++i)
      text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
    text += R"("k1":"last"})";
    auto ordered = ParseOrderedJson(text);
    ASSERT_THAT(ordered, IsOk());
    EXPECT_EQ(ordered->size(), static_cast<size_t>(members)) << members;
    EXPECT_EQ(std::next(ordered->begin()).key(), "k1");
    EXPECT_EQ((*ordered)["k1"], "last");
    EXPECT_EQ(DumpJson(*ordered), DumpJson(OrderedJson::parse(text))) << members;
  }
}

TEST(ToOrderedJson, IsParsingTheDumpWithoutTheText) {
  const Json value = Json::parse(
      R"({"b":[1,{"y":2,"x":[null,true]}],"a":"t","c":-1,"d":2.5,"e":18446744073709551615})");
  EXPECT_EQ(DumpJson(ToOrderedJson(value)), DumpJson(OrderedJson::parse(value.dump())));
  EXPECT_EQ(ToOrderedJson(value).begin().key(), "a");
}

TEST(ToOrderedJson, ConvertsADocumentAtTheDepthLimit) {
  auto plain = ParseJson(NestedObjects(kMaxJsonDepth));
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(DumpJson(ToOrderedJson(*plain)), DumpJson(*plain));
}

}  // namespace
}  // namespace cairn::json
