// SPDX-License-Identifier: Apache-2.0
#include "http/response_head.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/swar.h"
#include "common/util.h"

namespace cairn::http {

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 205: return "Reset Content";
    case 206: return "Partial Content";
    case 207: return "Multi-Status";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 417: return "Expectation Failed";
    case 419: return "Authentication Timeout";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Content";
    case 423: return "Locked";
    case 424: return "Failed Dependency";
    case 425: return "Too Early";
    case 426: return "Upgrade Required";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 451: return "Unavailable For Legal Reasons";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    case 507: return "Insufficient Storage";
    default: return "Unknown";
  }
}

namespace {

// Whether `value` holds no CR, LF or NUL (every header value of every answer passes here).
bool Clean(std::string_view value) {
  using namespace swar;
  return NoneFlagged(
      value, [](uint64_t x) { return ZeroByte(x) | ByteIs(x, '\r') | ByteIs(x, '\n'); }, 'a');
}

// Appends `value` without CR, LF or NUL.
void AppendValue(std::string& out, std::string_view value) {
  if (Clean(value)) {
    out.append(value.data(), value.size());
    return;
  }
  for (const char c : value) {
    if (c != '\r' && c != '\n' && c != '\0') out += c;
  }
}

void AppendDecimal(std::string& out, uint64_t n) {
  char digits[24];
  size_t len = 0;
  do {
    digits[len++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  while (len > 0) out += digits[--len];
}

}  // namespace

std::string ResponseHead(const Response& response, bool http11, bool keep_alive,
                         std::string_view request_id) {
  const int status = response.status;
  const uint64_t size = response.BodySize();
  const auto& extra = response.headers;
  // Ours first, written straight out; a response header of the same name takes the place of
  // ours, and a later one of the same name the place of an earlier one.
  const auto named_in_extra = [&extra](std::string_view name, size_t from) {
    for (size_t i = from; i < extra.size(); ++i) {
      if (EqualsIgnoreCase(extra[i].first, name)) return true;
    }
    return false;
  };
  std::string out;
  out.reserve(128 + request_id.size() + response.content_type.size() + extra.size() * 48);
  out += http11 ? "HTTP/1.1 " : "HTTP/1.0 ";
  AppendDecimal(out, static_cast<uint64_t>(status < 0 ? 0 : status));
  out += ' ';
  out += ReasonPhrase(status);
  out += "\r\n";
  if (!named_in_extra("Server", 0)) out += "Server: cairn\r\n";
  if ((size > 0 || status != 200) && !response.content_type.empty() &&
      !named_in_extra("Content-Type", 0)) {
    out += "Content-Type: ";
    AppendValue(out, response.content_type);
    out += "\r\n";
  }
  if (!named_in_extra("X-Request-Id", 0)) {
    out += "X-Request-Id: ";
    AppendValue(out, request_id);
    out += "\r\n";
  }
  for (size_t i = 0; i < extra.size(); ++i) {
    const auto& [name, value] = extra[i];
    // What the body length and the connection say is the server's to write.
    if (EqualsIgnoreCase(name, "Content-Length") || EqualsIgnoreCase(name, "Transfer-Encoding") ||
        EqualsIgnoreCase(name, "Connection") || named_in_extra(name, i + 1)) {
      continue;
    }
    AppendValue(out, name);
    out += ": ";
    AppendValue(out, value);
    out += "\r\n";
  }
  if (http11 && !keep_alive) out += "Connection: close\r\n";
  if (!http11 && keep_alive) out += "Connection: keep-alive\r\n";
  const bool no_length = (status >= 100 && status < 200) || status == 204 || status == 304;
  if (!no_length) {
    out += "Content-Length: ";
    AppendDecimal(out, size);
    out += "\r\n";
  }
  out += "\r\n";
  return out;
}

}  // namespace cairn::http
