// SPDX-License-Identifier: Apache-2.0
// The server's HTTP/1.1 request reader (RFC 9112): what a connection's bytes say, one request at
// a time, with no sockets in sight, so that it can be tested and fuzzed on its own.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "message/message.h"

namespace cairn::http {

/// Reads one request from the start of a connection's unread bytes. The caller keeps the bytes
/// (appending what the socket gives) and calls Parse with all of them each time; the parser
/// remembers how far it got. Once a request is done, `consumed()` bytes belong to it and the
/// rest are the next request's (pipelining); a new parser reads that one.
///
/// Strict where laxness lets two readers of the same bytes disagree (request smuggling): lines
/// end in CRLF; no space before a header's colon; no folded lines; no control characters in a
/// value; Content-Length is digits only, and the same in every copy; Transfer-Encoding is
/// `chunked` alone and never beside a Content-Length.
class RequestParser {
 public:
  enum class State { kNeedMore, kDone, kError };

  RequestParser(size_t max_header_bytes, size_t max_body_bytes)
      : max_header_bytes_(max_header_bytes), max_body_bytes_(max_body_bytes) {}

  /// Goes on from where the last call stopped; `data` starts with the bytes given before.
  State Parse(std::string_view data);
  /// Refuses the request as a body over the limit (413): also what the caller says when the
  /// request's bytes outgrow what it keeps for one request.
  State TooLarge();

  /// The request so far: method and target once the request line is read (or, refused as too
  /// long, what its first bytes say they are), headers once the header is, the body when
  /// done. `path`, `query` and the rest are not the parser's to fill.
  Request& request() { return request_; }
  /// Bytes of `data` this request took (when done).
  size_t consumed() const { return pos_; }
  /// The whole header has been read (the body may still be coming).
  bool header_done() const { return phase_ > Phase::kHeader; }
  /// With kError: 400 (malformed), 413 (body over the limit), 431 (header over the limit), 501
  /// (a transfer coding other than chunked), 505 (not HTTP/1.x); and what was wrong.
  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

  /// HTTP/1.1 or later; 1.0 otherwise.
  bool http11() const { return minor_version_ >= 1; }
  /// The connection may carry another request after this one's answer.
  bool keep_alive() const { return keep_alive_; }
  /// The client waits for a 100 Continue before it sends the body (and has not sent it yet).
  bool expects_continue() const { return expect_continue_; }

 private:
  enum class Phase { kRequestLine, kHeader, kBody, kChunkSize, kChunkData, kChunkEnd, kTrailer,
                     kDone };

  State Fail(int status, std::string message);
  // The next CRLF-ended line at `pos_` (without the CRLF), within `limit` bytes from `pos_`:
  // false with `line` empty when it has not all arrived yet; false with an error set when it
  // is malformed or too long.
  bool NextLine(std::string_view data, size_t limit, int too_long_status, std::string_view& line);
  bool ParseRequestLine(std::string_view line);
  bool ParseHeaderLine(std::string_view line, bool trailer);
  bool EndOfHeader();

  const size_t max_header_bytes_;
  const size_t max_body_bytes_;
  Request request_;
  Phase phase_ = Phase::kRequestLine;
  size_t pos_ = 0;           // bytes of `data` read so far
  size_t trailer_start_ = 0;  // where the trailer starts (it has a header's limit of its own)
  size_t content_length_ = 0;
  size_t chunk_left_ = 0;
  bool has_content_length_ = false;
  bool chunked_ = false;
  bool connection_close_ = false;       // Connection: close
  bool connection_keep_alive_ = false;  // Connection: keep-alive
  bool keep_alive_ = true;
  bool expect_continue_ = false;
  int minor_version_ = 1;
  int error_status_ = 0;
  std::string error_message_;
};

}  // namespace cairn::http
