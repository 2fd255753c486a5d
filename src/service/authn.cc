// SPDX-License-Identifier: Apache-2.0
#include "service/authn.h"

#include <string_view>

#include "common/util.h"

namespace cairn::service {

namespace {

std::optional<std::string> Base64Decode(std::string_view in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  int buffer = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const int v = value(c);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

}  // namespace

std::string SimplePrincipal(const std::optional<std::string>& authorization) {
  if (!authorization) return "anonymous";
  std::string_view h = Trim(*authorization);
  if (h.size() < 6 || !EqualsIgnoreCase(h.substr(0, 6), "basic ")) return "anonymous";
  auto decoded = Base64Decode(Trim(h.substr(6)));
  if (!decoded) return "anonymous";
  const std::string user = decoded->substr(0, decoded->find(':'));
  return user.empty() ? "anonymous" : user;
}

}  // namespace cairn::service
