// SPDX-License-Identifier: Apache-2.0
#include "json/member_scan.h"

#include <string_view>

namespace cairn::json {

namespace {

bool JsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t SkipSpace(std::string_view text, size_t i) {
  while (i < text.size() && JsonSpace(text[i])) ++i;
  return i;
}

// The index just past the string literal that opens at `i` (a quote); npos when unterminated.
// `escaped` tells whether it holds a backslash.
size_t SkipString(std::string_view text, size_t i, bool* escaped) {
  for (++i; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') return i + 1;
    if (c == '\\') {
      *escaped = true;
      ++i;
    }
  }
  return std::string_view::npos;
}

bool Digits(std::string_view text, size_t& i) {
  const size_t start = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  return i > start;
}

// true, false, null or a JSON number.
bool Scalar(std::string_view text) {
  if (text == "true" || text == "false" || text == "null") return true;
  size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  if (i < text.size() && text[i] == '0') {
    ++i;
  } else if (!Digits(text, i)) {
    return false;
  }
  if (i < text.size() && text[i] == '.' && !Digits(text, ++i)) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!Digits(text, i)) return false;
  }
  return i == text.size();
}

// The index just past the value that starts at `i`; npos when the text ends inside it. Objects
// and arrays are skipped by counting brackets outside string literals (no recursion); whether
// their inside is well-formed is not checked.
size_t SkipValue(std::string_view text, size_t i) {
  if (i >= text.size()) return std::string_view::npos;
  const char first = text[i];
  bool escaped = false;
  if (first == '"') return SkipString(text, i, &escaped);
  if (first == '{' || first == '[') {
    int depth = 0;
    while (i < text.size()) {
      const char c = text[i];
      if (c == '"') {
        i = SkipString(text, i, &escaped);
        if (i == std::string_view::npos) return i;
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
      ++i;
    }
    return std::string_view::npos;
  }
  // A number, true, false or null: up to the next delimiter, and one of those.
  const size_t start = i;
  while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' &&
         !JsonSpace(text[i])) {
    ++i;
  }
  return Scalar(text.substr(start, i - start)) ? i : std::string_view::npos;
}

}  // namespace

MemberLookup FindMember(std::string_view text, std::string_view key) {
  constexpr size_t npos = std::string_view::npos;
  const MemberLookup unknown;
  size_t i = SkipSpace(text, 0);
  if (i >= text.size() || text[i] != '{') return unknown;
  i = SkipSpace(text, i + 1);
  MemberLookup found{MemberScan::kAbsent, {}};
  // The object closes at `at`: the answer holds when nothing but space follows.
  auto closed_at = [&](size_t at) {
    return SkipSpace(text, at + 1) == text.size() ? found : unknown;
  };
  if (i < text.size() && text[i] == '}') return closed_at(i);
  while (i < text.size()) {
    if (text[i] != '"') return unknown;
    bool escaped = false;
    const size_t key_end = SkipString(text, i, &escaped);
    if (key_end == npos || escaped) return unknown;
    const std::string_view name = text.substr(i + 1, key_end - i - 2);
    i = SkipSpace(text, key_end);
    if (i >= text.size() || text[i] != ':') return unknown;
    i = SkipSpace(text, i + 1);
    const size_t value_end = SkipValue(text, i);
    if (value_end == npos) return unknown;
    // The last of equal keys wins, as in a parse; the rest of the object is read through so
    // that a document cut short or with trailing bytes is not answered.
    if (name == key) found = {MemberScan::kFound, text.substr(i, value_end - i)};
    i = SkipSpace(text, value_end);
    if (i >= text.size()) return unknown;
    if (text[i] == '}') return closed_at(i);
    if (text[i] != ',') return unknown;
    i = SkipSpace(text, i + 1);
  }
  return unknown;
}

std::optional<std::string_view> PlainStringValue(std::string_view quoted) {
  if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"') return std::nullopt;
  const std::string_view inside = quoted.substr(1, quoted.size() - 2);
  if (inside.find_first_of("\\\"") != std::string_view::npos) return std::nullopt;
  for (const char c : inside) {
    if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;
  }
  return inside;
}

}  // namespace cairn::json
