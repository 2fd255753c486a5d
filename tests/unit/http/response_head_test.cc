// SPDX-License-Identifier: Apache-2.0
#include "http/response_head.h"

#include <gtest/gtest.h>

namespace cairn::http {
namespace {

Response Json(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

TEST(ResponseHead, WritesStatusLineOurHeadersAndTheLength) {
  Response r = Json(200, "{}");
  r.spliced = std::make_shared<const std::string>("0123456789");
  r.body_tail = "!";
  EXPECT_EQ(ResponseHead(r, true, true, "ab-000001"),
            "HTTP/1.1 200 OK\r\nServer: cairn\r\nContent-Type: application/json\r\n"
            "X-Request-Id: ab-000001\r\nContent-Length: 13\r\n\r\n");
}

TEST(ResponseHead, SaysConnectionOnlyWhereTheVersionsDefaultIsNotMeant) {
  const Response r = Json(404, "{}");
  EXPECT_NE(ResponseHead(r, true, false, "x").find("\r\nConnection: close\r\n"),
            std::string::npos);
  EXPECT_EQ(ResponseHead(r, true, true, "x").find("Connection"), std::string::npos);
  EXPECT_NE(ResponseHead(r, false, true, "x").find("\r\nConnection: keep-alive\r\n"),
            std::string::npos);
  EXPECT_EQ(ResponseHead(r, false, false, "x").find("Connection"), std::string::npos);
  EXPECT_EQ(ResponseHead(r, false, false, "x").rfind("HTTP/1.0 404 Not Found\r\n", 0), 0u);
}

TEST(ResponseHead, NoLengthFor204And304AndNoTypeForAnEmpty200) {
  Response not_modified = Json(304, "");
  not_modified.headers.emplace_back("ETag", "\"abc\"");
  const std::string head = ResponseHead(not_modified, true, true, "x");
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nETag: \"abc\"\r\n"), std::string::npos) << head;
  EXPECT_EQ(ResponseHead(Json(204, ""), true, true, "x").find("Content-Length"),
            std::string::npos);
  const std::string empty_ok = ResponseHead(Json(200, ""), true, true, "x");
  EXPECT_EQ(empty_ok.find("Content-Type"), std::string::npos) << empty_ok;
  EXPECT_NE(empty_ok.find("\r\nContent-Length: 0\r\n"), std::string::npos) << empty_ok;
}

TEST(ResponseHead, AResponseHeaderReplacesOneOfTheSameName) {
  Response r = Json(200, "x");
  r.headers.emplace_back("content-type", "text/html");
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("cache-control", "max-age=0");
  r.headers.emplace_back("Content-Length", "999");  // the server's own to write
  const std::string head = ResponseHead(r, true, true, "x");
  EXPECT_EQ(head.find("application/json"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\ncontent-type: text/html\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("no-store"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\ncache-control: max-age=0\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("999"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nContent-Length: 1\r\n"), std::string::npos) << head;
}

TEST(ResponseHead, AValueCannotSplitTheAnswer) {
  Response r = Json(302, "");
  r.headers.emplace_back("Location", std::string("/a\r\nSet-Cookie: x=1\0", 21));
  const std::string head = ResponseHead(r, true, true, "x");
  EXPECT_EQ(head.find("\r\nSet-Cookie"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nLocation: /aSet-Cookie: x=1\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find('\0'), std::string::npos);
  // Past the first eight bytes too, and each of the three alone.
  for (const char bad : {'\r', '\n', '\0'}) {
    Response later = Json(200, "");
    later.headers.emplace_back("X-Long", std::string("0123456789abcdef") + bad + "Injected: 1");
    const std::string h = ResponseHead(later, true, true, "x");
    EXPECT_NE(h.find("\r\nX-Long: 0123456789abcdefInjected: 1\r\n"), std::string::npos) << h;
  }
}

TEST(ResponseHead, NamesTheReasonOfEveryStatusTheServerSends) {
  for (int status : {200, 201, 204, 304, 400, 401, 403, 404, 405, 406, 409, 412, 413, 415, 422,
                     429, 431, 500, 501, 502, 503, 504, 505}) {
    EXPECT_NE(ReasonPhrase(status), "Unknown") << status;
  }
  EXPECT_EQ(ReasonPhrase(599), "Unknown");
}

}  // namespace
}  // namespace cairn::http
