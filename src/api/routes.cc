// SPDX-License-Identifier: Apache-2.0
#include "api/routes.h"

#include <algorithm>

#include "common/util.h"

namespace cairn::api {

PathPattern::PathPattern(std::string_view pattern) : text_(pattern) {
  size_t start = 0;
  while (start <= pattern.size()) {
    size_t end = pattern.find('/', start);
    if (end == std::string_view::npos) end = pattern.size();
    std::string_view part = pattern.substr(start, end - start);
    if (!part.empty()) {
      const bool parameter = part.size() > 2 && part.front() == '{' && part.back() == '}';
      segments_.push_back(Segment{parameter ? part.substr(1, part.size() - 2) : part, parameter});
      if (parameter) names_.push_back(segments_.back().text);
    }
    start = end + 1;
  }
}

bool PathPattern::Matches(const std::vector<std::string>& segments) const {
  if (segments.size() != segments_.size()) return false;
  for (size_t i = 0; i < segments_.size(); ++i) {
    if (!segments_[i].parameter && segments_[i].text != segments[i]) return false;
  }
  return true;
}

std::vector<std::string> PathPattern::Values(const std::vector<std::string>& segments) const {
  std::vector<std::string> params;
  params.reserve(names_.size());
  for (size_t i = 0; i < segments_.size() && i < segments.size(); ++i) {
    if (segments_[i].parameter) params.push_back(segments[i]);
  }
  return params;
}

std::optional<std::vector<std::string>> PathPattern::Match(
    const std::vector<std::string>& segments) const {
  if (!Matches(segments)) return std::nullopt;
  return Values(segments);
}

// On the path of every request (twice: the dispatch and the audit record), so a segment is
// copied once and decoded only when it holds an escape.
std::optional<std::vector<std::string>> PathSegments(std::string_view path, std::string_view prefix,
                                                     bool plus_is_space) {
  if (path.starts_with(prefix)) path.remove_prefix(prefix.size());
  std::vector<std::string> segments;
  segments.reserve(8);
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view raw = path.substr(start, end - start);
    start = end + 1;
    if (raw.empty()) continue;
    const bool plus = plus_is_space && raw.find('+') != std::string_view::npos;
    if (!plus && raw.find('%') == std::string_view::npos) {
      segments.emplace_back(raw);
      continue;
    }
    std::string text(raw);
    if (plus) std::replace(text.begin(), text.end(), '+', ' ');
    auto decoded = PercentDecode(text);
    if (!decoded) return std::nullopt;
    segments.push_back(std::move(*decoded));
  }
  return segments;
}

}  // namespace cairn::api
