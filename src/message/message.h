// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/open_file.h"

namespace cairn::http {

/// Case-insensitive ordering for header names.
struct HeaderLess {
  using is_transparent = void;  // looked up by std::string_view without building a string
  bool operator()(std::string_view a, std::string_view b) const;
};

/// A request's header fields, in the order they came: names compare without regard to case, and
/// of a name sent twice the first value counts (as std::map::emplace would keep it). A request
/// carries a handful of fields, so one vector scanned by name costs less than a tree's nodes
/// and its case-insensitive comparisons.
class HeaderFields {
 public:
  using value_type = std::pair<std::string, std::string>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  iterator begin() { return fields_.begin(); }
  iterator end() { return fields_.end(); }
  const_iterator begin() const { return fields_.begin(); }
  const_iterator end() const { return fields_.end(); }
  size_t size() const { return fields_.size(); }
  bool empty() const { return fields_.empty(); }

  iterator find(std::string_view name);
  const_iterator find(std::string_view name) const;
  size_t count(std::string_view name) const { return find(name) != end() ? 1 : 0; }
  /// Adds the field unless one of that name is there; the field of that name and whether it
  /// was added.
  std::pair<iterator, bool> emplace(std::string name, std::string value);
  /// The value of field `name`, added empty when missing.
  std::string& operator[](std::string_view name);

  /// The same fields in the same order.
  bool operator==(const HeaderFields&) const = default;

 private:
  std::vector<value_type> fields_;
};

/// A request as the protocol front ends see it: no sockets, no Beast types.
struct Request {
  std::string method;  // as sent, upper-case for standard verbs
  std::string target;  // raw request target
  std::string path;    // target without the query (still encoded)
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  HeaderFields headers;
  std::string body;
  std::string request_id;
  std::string remote_address;
  /// The common name of the client certificate a TLS handshake verified (empty: none).
  std::string client_certificate_cn;
  /// Not from the wire: the interface a request made in memory on behalf of another one comes
  /// through (an MCP tool's call of the Gravitino API is "mcp"), for the changes it publishes.
  /// Empty: the path's own interface. Always a string literal.
  std::string_view via;
  /// Not from the wire: when the server had read the request (unset for calls made in memory).
  std::chrono::steady_clock::time_point received{};

  /// The first value of a query parameter, if present.
  std::optional<std::string> Query(std::string_view name) const;
  /// A header value, if present.
  std::optional<std::string> Header(std::string_view name) const;
  /// A header value without a copy, if present: valid while the request lives unchanged.
  std::optional<std::string_view> HeaderView(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  /// The body as sent: `body`, then `*spliced` (when set), then `body_tail`. A large immutable
  /// document (a cached metadata file) is spliced in by reference, so it is never copied on its
  /// way to the socket.
  std::string body;
  std::shared_ptr<const std::string> spliced;
  /// A local file whose bytes are exactly `*spliced`, held open: a plain-TCP connection sends
  /// them from the file with sendfile(2), so they are not copied from memory into the socket.
  std::shared_ptr<const OpenFile> spliced_file;
  std::string body_tail;
  std::string audit_note;    // not sent: extra detail for the request's audit record
  std::string audit_object;  // not sent: the object the audit record names, when the path has none
  std::string audit_operation;  // not sent: the audit record's operation, when the path is not it
  /// Not sent: the status of the call that decided the request, when the answer's own status is
  /// not it (an MCP tool call refused inside a 200 answer); the audit outcome follows it.
  int audit_status = 0;
  bool audit_lookup = false;  // with audit_status: the call only read, so a 404 is `not_found`
  /// Not sent: the route of its own table a front end matched the request to, so that the
  /// audit record (and the request's span) need not match the path again: the route's
  /// operation, as DescribeRequest names it (text that lives as long as the process), the names
  /// its path gives joined with '.', and whether the request creates the object its body names.
  struct AuditRoute {
    std::string_view operation;
    std::string object;
    bool creates = false;
  };
  std::optional<AuditRoute> audit_route;
  /// Not sent: "read-only" or "read-write" when the answer carries vended storage keys (metrics).
  std::string_view vended_access;
  /// Not sent: the server holds the answer back this long on its connection (holding no thread)
  /// before sending it: a refused request's 429, so a client that ignores Retry-After cannot
  /// spin on refusals at the server's expense.
  int hold_ms = 0;

  size_t BodySize() const {
    return body.size() + (spliced ? spliced->size() : 0) + body_tail.size();
  }
};

/// Splits `target` into path and decoded query parameters. False on malformed %-escapes.
bool ParseTarget(std::string_view target, std::string& path,
                 std::vector<std::pair<std::string, std::string>>& query);

}  // namespace cairn::http
