// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::api {

/// One path pattern of a route table: literal segments and `{name}` parameters, e.g.
/// `/v1/{prefix}/namespaces/{namespace}/tables/{table}`. Split once, matched against the decoded
/// segments of a request path (a parameter matches any one segment).
class PathPattern {
 public:
  explicit PathPattern(std::string_view pattern);

  std::string_view text() const { return text_; }
  size_t size() const { return segments_.size(); }
  /// The parameters' values in order when `segments` match, else nullopt.
  std::optional<std::vector<std::string>> Match(const std::vector<std::string>& segments) const;
  /// Whether `segments` match (no parameter value is copied).
  bool Matches(const std::vector<std::string>& segments) const;
  /// The parameters' values in order, of segments that match.
  std::vector<std::string> Values(const std::vector<std::string>& segments) const;
  /// The names of the parameters in order (`prefix`, `namespace`, ...).
  const std::vector<std::string_view>& Parameters() const { return names_; }

 private:
  struct Segment {
    std::string_view text;
    bool parameter = false;
  };
  std::string_view text_;
  std::vector<Segment> segments_;
  std::vector<std::string_view> names_;
};

/// What a protocol's route table says about one request, for the audit record: its operation as
/// `<METHOD> <prefix><pattern>` (e.g. `GET /api/metalakes/{metalake}`), the values of the
/// pattern's parameters that name the object, and whether the body names the object it creates.
struct RouteDescription {
  std::string operation;
  std::vector<std::string> names;
  bool creates = false;
};

/// The decoded segments of `path` after `prefix` (e.g. "/api"), empty ones skipped; nullopt when
/// a segment does not decode. `plus_is_space`: '+' reads as a space first (Iceberg REST).
std::optional<std::vector<std::string>> PathSegments(std::string_view path, std::string_view prefix,
                                                     bool plus_is_space = false);

/// What matching a request against a route table found: the route (nullptr when none matched
/// the method) and its parameters; `path_known` when some route matched the path with another
/// method (so the answer is 405, not 404).
template <typename Route>
struct RouteMatch {
  const Route* route = nullptr;
  std::vector<std::string> params;
  bool path_known = false;
};

/// The first route of `routes` (each with `method`, `"*"` for any, and a PathPattern `path`)
/// that matches.
template <typename Route>
RouteMatch<Route> FindRoute(std::span<const Route> routes, std::string_view method,
                            const std::vector<std::string>& segments) {
  RouteMatch<Route> found;
  for (const Route& route : routes) {
    if (route.path.size() != segments.size() || !route.path.Matches(segments)) continue;
    if (route.method != method && route.method != "*") {
      found.path_known = true;
      continue;
    }
    found.route = &route;
    found.params = route.path.Values(segments);
    return found;
  }
  return found;
}

}  // namespace cairn::api
