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
    }
    start = end + 1;
  }
}

std::optional<std::vector<std::string>> PathPattern::Match(
    const std::vector<std::string>& segments) const {
  if (segments.size() != segments_.size()) return std::nullopt;
  for (size_t i = 0; i < segments_.size(); ++i) {
    if (!segments_[i].parameter && segments_[i].text != segments[i]) return std::nullopt;
  }
  std::vector<std::string> params;
  for (size_t i = 0; i < segments_.size(); ++i) {
    if (segments_[i].parameter) params.push_back(segments[i]);
  }
  return params;
}

std::vector<std::string_view> PathPattern::Parameters() const {
  std::vector<std::string_view> names;
  for (const auto& s : segments_) {
    if (s.parameter) names.push_back(s.text);
  }
  return names;
}

std::optional<std::vector<std::string>> PathSegments(std::string_view path, std::string_view prefix,
                                                     bool plus_is_space) {
  if (path.rfind(prefix, 0) == 0) path.remove_prefix(prefix.size());
  std::vector<std::string> segments;
  for (const auto& raw : Split(path, '/')) {
    if (raw.empty()) continue;
    std::string text = raw;
    if (plus_is_space) std::replace(text.begin(), text.end(), '+', ' ');
    auto decoded = PercentDecode(text);
    if (!decoded) return std::nullopt;
    segments.push_back(std::move(*decoded));
  }
  return segments;
}

}  // namespace cairn::api
