// SPDX-License-Identifier: Apache-2.0
#include "http/request_parser.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "common/swar.h"
#include "common/util.h"

namespace cairn::http {

namespace {

// RFC 9110 5.6.2: tchar.
constexpr bool IsTokenChar(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-':
    case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

// Every field name of every request passes here: one table lookup a byte.
constexpr std::array<bool, 256> kTokenChars = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = IsTokenChar(static_cast<unsigned char>(c));
  return table;
}();

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!kTokenChars[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

// A field value's characters (RFC 9110 5.5): visible ASCII, space, tab and obs-text; no other
// control character (CR, LF, NUL, DEL among them).
bool IsFieldValue(std::string_view s) {
  using namespace swar;
  // Eight bytes at a time; a value with a byte below 0x20 or a DEL anywhere is then looked at
  // byte by byte, since a tab is allowed.
  return NoneFlagged(
             s, [](uint64_t x) { return ByteBelow(x, 0x20) | ByteIs(x, 0x7f); }, ' ') ||
         std::none_of(s.begin(), s.end(), [](char ch) {
           const auto c = static_cast<unsigned char>(ch);
           return c < 0x20 ? c != '\t' : c == 0x7f;
         });
}

// A request target's characters: visible ASCII and obs-text, so no space or control character.
bool IsTargetChars(std::string_view s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7f) return false;
  }
  return true;
}

// Optional whitespace (RFC 9110 5.6.3): spaces and tabs only. A CR left in a value is kept, so
// that it is refused as a control character (common/util.h's Trim would take it away).
std::string_view TrimWhitespace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Digits only, no sign, no space; false when not such or larger than a size_t holds.
bool ParseDecimal(std::string_view s, size_t& out) {
  if (s.empty()) return false;
  size_t n = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<size_t>(c - '0');
    if (n > (SIZE_MAX - digit) / 10) return false;
    n = n * 10 + digit;
  }
  out = n;
  return true;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A chunk line is its size in hex and extensions; bounded, not by the header limit, since the
// extensions carry nothing the server reads.
constexpr size_t kMaxChunkLine = 4096;
// Header fields a request may carry (Apache httpd's LimitRequestFields default): requests carry
// a dozen or so, and the fields are kept in a vector looked up by name.
constexpr size_t kMaxHeaderFields = 100;

}  // namespace

RequestParser::State RequestParser::Fail(int status, std::string message) {
  error_status_ = status;
  error_message_ = std::move(message);
  return State::kError;
}

RequestParser::State RequestParser::TooLarge() {
  return Fail(413, fmt::format("Request body exceeds the limit of {} bytes", max_body_bytes_));
}

bool RequestParser::NextLine(std::string_view data, size_t max_end, int too_long_status,
                             std::string_view& line) {
  line = {};
  const size_t window_end = std::min(data.size(), max_end);
  if (pos_ < window_end) {
    const void* lf = std::memchr(data.data() + pos_, '\n', window_end - pos_);
    if (lf != nullptr) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(lf) - data.data());
      if (at == pos_ || data[at - 1] != '\r') {
        Fail(400, "Malformed HTTP request: a line ends without CR before its LF");
        return false;
      }
      line = data.substr(pos_, at - 1 - pos_);
      pos_ = at + 1;
      return true;
    }
  }
  if (data.size() >= max_end) {
    Fail(too_long_status, too_long_status == 431
                              ? fmt::format("Request headers exceed the limit of {} bytes",
                                            max_header_bytes_)
                              : std::string("Malformed HTTP request: a chunk line is too long"));
  }
  return false;
}

bool RequestParser::ParseRequestLine(std::string_view line) {
  const size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) {
    Fail(400, "Malformed HTTP request: the request line has no target");
    return false;
  }
  const std::string_view method = line.substr(0, sp1);
  if (!IsToken(method)) {
    Fail(400, "Malformed HTTP request: the method is not a token");
    return false;
  }
  request_.method.assign(method);
  const std::string_view rest = line.substr(sp1 + 1);
  const size_t sp2 = rest.find(' ');
  const std::string_view target = rest.substr(0, sp2);
  if (target.empty() || sp2 == std::string_view::npos || !IsTargetChars(target)) {
    Fail(400, "Malformed HTTP request: the request target is missing or holds a space or a "
              "control character");
    return false;
  }
  request_.target.assign(target);
  const std::string_view version = rest.substr(sp2 + 1);
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9') {
    Fail(400, "Malformed HTTP request: the version is not HTTP/<digit>.<digit>");
    return false;
  }
  if (version[5] != '1') {
    Fail(505, "HTTP version not supported: only HTTP/1.0 and HTTP/1.1");
    return false;
  }
  minor_version_ = version[7] - '0';
  return true;
}

bool RequestParser::ParseHeaderLine(std::string_view line, bool trailer) {
  if (line.front() == ' ' || line.front() == '\t') {
    Fail(400, "Malformed HTTP request: a folded header line");
    return false;
  }
  const size_t colon = line.find(':');
  const std::string_view name = line.substr(0, colon);
  if (colon == std::string_view::npos || !IsToken(name)) {
    Fail(400, "Malformed HTTP request: a header line is not <name>: <value>");
    return false;
  }
  const std::string_view value = TrimWhitespace(line.substr(colon + 1));
  if (!IsFieldValue(value)) {
    Fail(400, fmt::format("Malformed HTTP request: header {} holds a control character",
                          name));
    return false;
  }
  if (trailer) return true;  // read and dropped: nothing in a trailer is used
  if (request_.headers.size() >= kMaxHeaderFields) {
    Fail(431, fmt::format("Request has more than {} header fields", kMaxHeaderFields));
    return false;
  }
  // The names the parser itself reads differ in length: one comparison at most a field.
  const auto is = [&name](std::string_view known) {
    return name.size() == known.size() && EqualsIgnoreCase(name, known);
  };
  if (is("content-length")) {
    size_t length = 0;
    if (!ParseDecimal(value, length) || (has_content_length_ && length != content_length_)) {
      Fail(400, "Malformed HTTP request: Content-Length is not one number");
      return false;
    }
    has_content_length_ = true;
    content_length_ = length;
  } else if (is("transfer-encoding")) {
    if (chunked_ || !EqualsIgnoreCase(value, "chunked")) {
      Fail(501, fmt::format("Transfer-Encoding '{}' is not supported: only chunked, once",
                            value));
      return false;
    }
    chunked_ = true;
  } else if (is("connection")) {
    ForEachListElement(value, [&](std::string_view option) {
      if (EqualsIgnoreCase(option, "close")) connection_close_ = true;
      if (EqualsIgnoreCase(option, "keep-alive")) connection_keep_alive_ = true;
    });
  } else if (is("expect")) {
    expect_continue_ = EqualsIgnoreCase(value, "100-continue");
  }
  request_.headers.emplace(std::string(name), std::string(value));
  return true;
}

bool RequestParser::EndOfHeader() {
  if (chunked_ && has_content_length_) {
    Fail(400, "Malformed HTTP request: both Content-Length and Transfer-Encoding");
    return false;
  }
  if (chunked_ && !http11()) {
    Fail(400, "Malformed HTTP request: Transfer-Encoding in an HTTP/1.0 request");
    return false;
  }
  keep_alive_ = http11() ? !connection_close_ : connection_keep_alive_ && !connection_close_;
  if (has_content_length_ && content_length_ > max_body_bytes_) {
    TooLarge();
    return false;
  }
  const bool body = chunked_ || content_length_ > 0;
  expect_continue_ = expect_continue_ && http11() && body;
  phase_ = chunked_ ? Phase::kChunkSize : body ? Phase::kBody : Phase::kDone;
  return true;
}

RequestParser::State RequestParser::Parse(std::string_view data) {
  if (error_status_ != 0) return State::kError;
  std::string_view line;
  for (;;) {
    switch (phase_) {
      case Phase::kRequestLine:
        // Empty lines before a request line are ignored (RFC 9112 2.2); they count against the
        // header's limit, so that an endless stream of them is refused too.
        while (data.size() - pos_ >= 2 && data[pos_] == '\r' && data[pos_ + 1] == '\n') {
          pos_ += 2;
        }
        if (!NextLine(data, max_header_bytes_, 431, line)) {
          if (error_status_ == 0) return State::kNeedMore;
          // Too long to read whole: the method and target from its first bytes, so that the
          // refusal still comes in the format of the interface the target addresses.
          std::string_view start = data.substr(pos_, max_header_bytes_);
          if (const size_t sp = start.find(' '); sp != std::string_view::npos) {
            request_.method.assign(start.substr(0, sp));
            start.remove_prefix(sp + 1);
            request_.target.assign(start.substr(0, start.find_first_of(" \r\n")));
          }
          return State::kError;
        }
        if (!ParseRequestLine(line)) return State::kError;
        phase_ = Phase::kHeader;
        break;
      case Phase::kHeader:
        if (!NextLine(data, max_header_bytes_, 431, line)) {
          return error_status_ != 0 ? State::kError : State::kNeedMore;
        }
        if (line.empty() ? !EndOfHeader() : !ParseHeaderLine(line, false)) return State::kError;
        break;
      case Phase::kBody:
        if (data.size() - pos_ < content_length_) return State::kNeedMore;
        request_.body.assign(data.substr(pos_, content_length_));
        pos_ += content_length_;
        phase_ = Phase::kDone;
        break;
      case Phase::kChunkSize: {
        if (!NextLine(data, pos_ + kMaxChunkLine, 400, line)) {
          return error_status_ != 0 ? State::kError : State::kNeedMore;
        }
        // chunk-size [BWS ";" chunk-ext]: hex digits, then nothing or extensions.
        size_t size = 0;
        size_t i = 0;
        for (; i < line.size() && HexValue(line[i]) >= 0; ++i) {
          if (size > (max_body_bytes_ >> 4)) return TooLarge();
          size = size * 16 + static_cast<size_t>(HexValue(line[i]));
        }
        const std::string_view rest = TrimWhitespace(line.substr(i));
        if (i == 0 || (!rest.empty() && rest.front() != ';') || !IsFieldValue(rest)) {
          return Fail(400, "Malformed HTTP request: a chunk does not start with its size in hex");
        }
        if (size > max_body_bytes_ - request_.body.size()) return TooLarge();
        chunk_left_ = size;
        trailer_start_ = pos_;
        phase_ = size == 0 ? Phase::kTrailer : Phase::kChunkData;
        break;
      }
      case Phase::kChunkData: {
        const size_t take = std::min(chunk_left_, data.size() - pos_);
        request_.body.append(data.substr(pos_, take));
        pos_ += take;
        chunk_left_ -= take;
        if (chunk_left_ > 0) return State::kNeedMore;
        phase_ = Phase::kChunkEnd;
        break;
      }
      case Phase::kChunkEnd:
        if (data.size() - pos_ < 2) return State::kNeedMore;
        if (data[pos_] != '\r' || data[pos_ + 1] != '\n') {
          return Fail(400, "Malformed HTTP request: a chunk's data is not followed by CRLF");
        }
        pos_ += 2;
        phase_ = Phase::kChunkSize;
        break;
      case Phase::kTrailer:
        if (!NextLine(data, trailer_start_ + max_header_bytes_, 431, line)) {
          return error_status_ != 0 ? State::kError : State::kNeedMore;
        }
        if (line.empty()) {
          phase_ = Phase::kDone;
        } else if (!ParseHeaderLine(line, true)) {
          return State::kError;
        }
        break;
      case Phase::kDone:
        return State::kDone;
    }
  }
}

}  // namespace cairn::http
