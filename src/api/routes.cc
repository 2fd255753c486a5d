// SPDX-License-Identifier: Apache-2.0
#include "api/routes.h"

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

}  // namespace cairn::api
