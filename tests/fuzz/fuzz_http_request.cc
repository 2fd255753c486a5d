// SPDX-License-Identifier: Apache-2.0
// The server's HTTP/1.1 request reader on what a connection may send: never a crash or a read
// past the bytes given; the same answer whether the bytes come at once or in two pieces (as a
// socket may split them anywhere); never a body over the limit; and what it reads back out of
// a finished request, written again in the plainest form, reads back the same.
#include <string>

#include "common/util.h"
#include "fuzz_util.h"
#include "http/request_parser.h"

using cairn::fuzz::Check;
using cairn::http::RequestParser;

namespace {

constexpr size_t kHeaderLimit = 4096;
constexpr size_t kBodyLimit = 1024;

bool SameRequest(RequestParser& a, RequestParser& b) {
  return a.request().method == b.request().method && a.request().target == b.request().target &&
         a.request().headers == b.request().headers && a.request().body == b.request().body &&
         a.keep_alive() == b.keep_alive() && a.consumed() == b.consumed();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // The first byte says where the socket splits the rest.
  const std::string input(cairn::fuzz::Text(data + 1, size - 1));
  const size_t split = input.empty() ? 0 : data[0] % (input.size() + 1);

  RequestParser whole(kHeaderLimit, kBodyLimit);
  const auto state = whole.Parse(input);
  RequestParser pieces(kHeaderLimit, kBodyLimit);
  auto state2 = pieces.Parse(std::string_view(input).substr(0, split));
  if (state2 == RequestParser::State::kNeedMore) state2 = pieces.Parse(input);
  Check(state == state2, "the same state whether the bytes come whole or in two pieces");
  Check(whole.error_status() == pieces.error_status(), "the same refusal either way");
  if (state == RequestParser::State::kError) {
    const int s = whole.error_status();
    Check(s == 400 || s == 413 || s == 431 || s == 501 || s == 505, "a known refusal status");
    return 0;
  }
  if (state != RequestParser::State::kDone) return 0;
  Check(SameRequest(whole, pieces), "the same request either way");
  Check(whole.consumed() <= input.size(), "consumed no more than given");
  Check(whole.request().body.size() <= kBodyLimit, "a body within the limit");
  Check(!whole.request().method.empty() && !whole.request().target.empty(),
        "a method and a target");
  for (const auto& [name, value] : whole.request().headers) {
    // Against the byte-wise definitions the parser's word-wise checks stand for.
    for (const char ch : value) {
      const auto c = static_cast<unsigned char>(ch);
      Check(c < 0x20 ? c == '\t' : c != 0x7f, "no control character but a tab in a field value");
    }
    Check(whole.request().headers.find(cairn::ToUpper(name)) ==
              whole.request().headers.find(cairn::ToLower(name)),
          "a field is found by its name in any case");
    Check(whole.request().headers.find(name) != whole.request().headers.end(),
          "every field is found by its name");
  }

  // Written again with a Content-Length, the request reads back the same.
  std::string again = whole.request().method + " " + whole.request().target +
                      (whole.http11() ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n");
  for (const auto& [name, value] : whole.request().headers) {
    if (name.size() == 17 && (name[0] == 't' || name[0] == 'T')) continue;  // Transfer-Encoding
    if (name.size() == 14 && (name[0] == 'c' || name[0] == 'C')) continue;  // Content-Length
    again += name + ": " + value + "\r\n";
  }
  again += "Content-Length: " + std::to_string(whole.request().body.size()) + "\r\n\r\n";
  again += whole.request().body;
  RequestParser reread(kHeaderLimit + kBodyLimit + 64, kBodyLimit);
  if (reread.Parse(again) == RequestParser::State::kDone) {
    Check(reread.request().body == whole.request().body, "the body reads back");
    Check(reread.request().method == whole.request().method &&
              reread.request().target == whole.request().target,
          "the request line reads back");
  } else {
    Check(false, "a finished request written again reads back");
  }
  return 0;
}
