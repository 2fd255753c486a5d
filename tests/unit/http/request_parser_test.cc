// SPDX-License-Identifier: Apache-2.0
#include "http/request_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace cairn::http {
namespace {

using State = RequestParser::State;

constexpr size_t kHeaderLimit = 1024;
constexpr size_t kBodyLimit = 100;

using namespace std::string_literals;

State ParseWhole(RequestParser& parser, std::string_view bytes) { return parser.Parse(bytes); }

// Gives the parser `bytes` one more byte at a time, as a slow client would send them; the
// answer must be the same as for the bytes given whole.
State ParseByteByByte(RequestParser& parser, std::string_view bytes) {
  State state = State::kNeedMore;
  for (size_t n = 1; n <= bytes.size(); ++n) {
    state = parser.Parse(bytes.substr(0, n));
    if (state != State::kNeedMore) break;
  }
  return state;
}

TEST(RequestParser, ReadsARequestLineAndHeaders) {
  const std::string bytes =
      "GET /iceberg/v1/config?warehouse=w HTTP/1.1\r\nHost: x\r\nX-Iceberg-Access-Delegation:"
      "  vended-credentials \t\r\n\r\n";
  for (auto parse : {ParseWhole, ParseByteByByte}) {
    RequestParser p(kHeaderLimit, kBodyLimit);
    ASSERT_EQ(parse(p, bytes), State::kDone);
    EXPECT_EQ(p.request().method, "GET");
    EXPECT_EQ(p.request().target, "/iceberg/v1/config?warehouse=w");
    EXPECT_EQ(p.request().Header("host"), "x");
    EXPECT_EQ(p.request().Header("x-iceberg-access-delegation"), "vended-credentials");
    EXPECT_EQ(p.request().body, "");
    EXPECT_EQ(p.consumed(), bytes.size());
    EXPECT_TRUE(p.keep_alive());
    EXPECT_TRUE(p.http11());
  }
}

// Names match without regard to case; of a field sent twice the first value counts; a request
// of 100 fields (the most taken) reads.
TEST(RequestParser, KeepsTheFirstOfARepeatedFieldAndReadsAHundred) {
  std::string bytes = "GET / HTTP/1.1\r\nX-Trace: one\r\nx-trace: two\r\n";
  for (int i = 0; i < 98; ++i) bytes += "A" + std::to_string(100 + i) + ": v\r\n";
  bytes += "\r\n";
  for (auto parse : {ParseWhole, ParseByteByByte}) {
    RequestParser p(kHeaderLimit, kBodyLimit);
    ASSERT_EQ(parse(p, bytes), State::kDone);
    EXPECT_EQ(p.request().Header("X-TRACE"), "one");
    EXPECT_EQ(p.request().headers.size(), 99u);
    EXPECT_EQ(p.request().Header("a197"), "v");
    EXPECT_EQ(p.request().Header("a198"), std::nullopt);
  }
}

TEST(RequestParser, KeepAliveFollowsTheVersionAndConnectionHeader) {
  struct Case {
    const char* bytes;
    bool keep_alive;
  };
  for (const Case& c : {Case{"GET / HTTP/1.1\r\n\r\n", true},
                        Case{"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", false},
                        Case{"GET / HTTP/1.1\r\nConnection: TE, Close\r\n\r\n", false},
                        Case{"GET / HTTP/1.0\r\n\r\n", false},
                        Case{"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true},
                        Case{"GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false}}) {
    RequestParser p(kHeaderLimit, kBodyLimit);
    ASSERT_EQ(p.Parse(c.bytes), State::kDone) << c.bytes;
    EXPECT_EQ(p.keep_alive(), c.keep_alive) << c.bytes;
  }
}

TEST(RequestParser, ReadsAContentLengthBodyAndLeavesThePipelinedNextRequest) {
  const std::string first =
      "POST /api/metalakes HTTP/1.1\r\nContent-Length: 11\r\n\r\n{\"name\":1}\n";
  const std::string second = "GET /next HTTP/1.1\r\n\r\n";
  for (auto parse : {ParseWhole, ParseByteByByte}) {
    RequestParser p(kHeaderLimit, kBodyLimit);
    ASSERT_EQ(parse(p, first + second), State::kDone);
    EXPECT_EQ(p.request().body, "{\"name\":1}\n");
    ASSERT_EQ(p.consumed(), first.size());
    RequestParser next(kHeaderLimit, kBodyLimit);
    ASSERT_EQ(next.Parse(std::string_view(first + second).substr(p.consumed())), State::kDone);
    EXPECT_EQ(next.request().target, "/next");
  }
}

TEST(RequestParser, ReadsAChunkedBodyWithExtensionsAndTrailer) {
  const std::string bytes =
      "PUT /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n"
      "1;name=value\r\n \r\n"
      "A  ;x\r\n0123456789\r\n"
      "0\r\nX-Checksum: abc\r\n\r\n"
      "GET /next HTTP/1.1\r\n\r\n";
  for (auto parse : {ParseWhole, ParseByteByByte}) {
    RequestParser p(kHeaderLimit, kBodyLimit);
    ASSERT_EQ(parse(p, bytes), State::kDone);
    EXPECT_EQ(p.request().body, "hello 0123456789");
    EXPECT_EQ(std::string_view(bytes).substr(p.consumed()), "GET /next HTTP/1.1\r\n\r\n");
    EXPECT_FALSE(p.request().Header("x-checksum").has_value()) << "trailers are dropped";
  }
}

TEST(RequestParser, IgnoresEmptyLinesBeforeTheRequestLine) {
  RequestParser p(kHeaderLimit, kBodyLimit);
  ASSERT_EQ(p.Parse("\r\n\r\nGET / HTTP/1.1\r\n\r\n"), State::kDone);
  EXPECT_EQ(p.request().method, "GET");
}

TEST(RequestParser, AsksForMoreUntilTheRequestIsWhole) {
  RequestParser p(kHeaderLimit, kBodyLimit);
  EXPECT_EQ(p.Parse("POST / HTTP/1.1\r\nContent-Length: 4\r\n"), State::kNeedMore);
  EXPECT_FALSE(p.header_done());
  EXPECT_EQ(p.Parse("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nab"), State::kNeedMore);
  EXPECT_TRUE(p.header_done());
  EXPECT_EQ(p.Parse("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd"), State::kDone);
  EXPECT_EQ(p.request().body, "abcd");
}

TEST(RequestParser, NotesAnExpectedContinueOnlyWhenABodyIsToCome) {
  RequestParser with_body(kHeaderLimit, kBodyLimit);
  EXPECT_EQ(with_body.Parse("PUT / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"),
            State::kNeedMore);
  EXPECT_TRUE(with_body.expects_continue());
  RequestParser without(kHeaderLimit, kBodyLimit);
  EXPECT_EQ(without.Parse("GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n"), State::kDone);
  EXPECT_FALSE(without.expects_continue());
}

struct Refusal {
  const char* name;
  std::string bytes;
  int status;
};

class RequestParserRefuses : public testing::TestWithParam<Refusal> {};

TEST_P(RequestParserRefuses, WithTheRightStatus) {
  for (auto parse : {ParseWhole, ParseByteByByte}) {
    RequestParser p(kHeaderLimit, kBodyLimit);
    ASSERT_EQ(parse(p, GetParam().bytes), State::kError);
    EXPECT_EQ(p.error_status(), GetParam().status) << p.error_message();
    EXPECT_FALSE(p.error_message().empty());
    // Once refused, always refused.
    EXPECT_EQ(p.Parse(GetParam().bytes), State::kError);
  }
}

const Refusal kRefusals[] = {
    {"BareLineFeed", "GET / HTTP/1.1\nHost: x\n\n", 400},
    {"BareLineFeedInAHeader", "GET / HTTP/1.1\r\nHost: x\n\r\n", 400},
    {"CarriageReturnInAValue", "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", 400},
    {"NulInAValue", "GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n"s, 400},
    {"SpaceBeforeTheColon", "GET / HTTP/1.1\r\nContent-Length : 3\r\n\r\nabc", 400},
    {"FoldedHeader", "GET / HTTP/1.1\r\nX-A: 1\r\n  2\r\n\r\n", 400},
    {"NoColon", "GET / HTTP/1.1\r\nHost\r\n\r\n", 400},
    {"EmptyMethod", " / HTTP/1.1\r\n\r\n", 400},
    {"MethodWithSlash", "G/T / HTTP/1.1\r\n\r\n", 400},
    {"NoTarget", "GET\r\n\r\n", 400},
    {"TwoSpaces", "GET  / HTTP/1.1\r\n\r\n", 400},
    {"TargetWithControl", "GET /a\x01 HTTP/1.1\r\n\r\n", 400},
    {"NoVersion", "GET /\r\n\r\n", 400},
    {"BadVersion", "GET / HTTP/1.x\r\n\r\n", 400},
    {"TrailingAfterVersion", "GET / HTTP/1.1 \r\n\r\n", 400},
    {"Http2", "GET / HTTP/2.0\r\n\r\n", 505},
    {"SignedLength", "POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc", 400},
    {"ListLength", "POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc", 400},
    {"TwoLengths", "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400},
    {"HugeLength", "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400},
    {"LengthAndChunked",
     "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
    {"ChunkedInHttp10", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
    {"OtherCoding", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
    {"ChunkedTwice",
     "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 501},
    {"ChunkSizeNotHex", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
    {"ChunkSizeSigned", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", 400},
    {"ChunkWithoutCrlf",
     "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", 400},
    {"ChunkLineTooLong",
     "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1;" + std::string(5000, 'x'), 400},
    {"BodyOverTheLimit", "POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", 413},
    {"ChunksOverTheLimit",
     "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n" + std::string(64, 'a') +
         "\r\n40\r\n",
     413},
    {"ChunkSizeOverflow",
     "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n", 413},
    {"HeaderOverTheLimit", "GET / HTTP/1.1\r\nX-A: " + std::string(2000, 'a') + "\r\n\r\n", 431},
    {"RequestLineOverTheLimit", "GET /" + std::string(2000, 'a') + " HTTP/1.1\r\n\r\n", 431},
    {"ManyEmptyLines",
     [] {
       std::string s;
       for (int i = 0; i < 1000; ++i) s += "\r\n";
       return s;
     }(),
     431},
    {"TrailerOverTheLimit",
     "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-A: " + std::string(2000, 'a'),
     431},
    {"MalformedTrailer", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad\r\n\r\n",
     400},
    {"TooManyFields",  // 101 fields of five bytes, well within the byte limit
     [] {
       std::string s = "GET / HTTP/1.1\r\n";
       for (int i = 0; i < 101; ++i) s += "A" + std::to_string(100 + i) + ":\r\n";
       return s + "\r\n";
     }(),
     431},
};

INSTANTIATE_TEST_SUITE_P(Cases, RequestParserRefuses, testing::ValuesIn(kRefusals),
                         [](const testing::TestParamInfo<Refusal>& case_info) {
                           return std::string(case_info.param.name);
                         });

}  // namespace
}  // namespace cairn::http
