// SPDX-License-Identifier: Apache-2.0
#include "message/message.h"

#include <strings.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "common/util.h"

namespace cairn::http {

bool HeaderLess::operator()(std::string_view a, std::string_view b) const {
  const size_t n = std::min(a.size(), b.size());
  const int c = strncasecmp(a.data(), b.data(), n);
  return c != 0 ? c < 0 : a.size() < b.size();
}

HeaderFields::iterator HeaderFields::find(std::string_view name) {
  return fields_.begin() + (std::as_const(*this).find(name) - fields_.cbegin());
}

HeaderFields::const_iterator HeaderFields::find(std::string_view name) const {
  return std::find_if(fields_.begin(), fields_.end(),
                      [name](const value_type& f) { return EqualsIgnoreCase(f.first, name); });
}

std::pair<HeaderFields::iterator, bool> HeaderFields::emplace(std::string name,
                                                              std::string value) {
  if (auto it = find(name); it != fields_.end()) return {it, false};
  if (fields_.empty()) fields_.reserve(8);
  fields_.emplace_back(std::move(name), std::move(value));
  return {std::prev(fields_.end()), true};
}

std::string& HeaderFields::operator[](std::string_view name) {
  return emplace(std::string(name), std::string()).first->second;
}

std::optional<std::string> Request::Query(std::string_view name) const {
  for (const auto& [k, v] : query) {
    if (k == name) return v;
  }
  return std::nullopt;
}

std::optional<std::string> Request::Header(std::string_view name) const {
  if (auto value = HeaderView(name)) return std::string(*value);
  return std::nullopt;
}

std::optional<std::string_view> Request::HeaderView(std::string_view name) const {
  auto it = headers.find(name);
  if (it == headers.end()) return std::nullopt;
  return std::string_view(it->second);
}

bool ParseTarget(std::string_view target, std::string& path,
                 std::vector<std::pair<std::string, std::string>>& query) {
  const size_t q = target.find('?');
  path = std::string(target.substr(0, q));
  if (q == std::string_view::npos) return true;
  std::string_view rest = target.substr(q + 1);
  for (const auto& part : Split(rest, '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    std::string key = part.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    for (char& c : key)
      if (c == '+') c = ' ';
    for (char& c : value)
      if (c == '+') c = ' ';
    auto k = PercentDecode(key);
    auto v = PercentDecode(value);
    if (!k || !v) return false;
    query.emplace_back(std::move(*k), std::move(*v));
  }
  return true;
}

}  // namespace cairn::http
