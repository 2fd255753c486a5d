// SPDX-License-Identifier: Apache-2.0
#include "common/util.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <cstring>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "common/swar.h"

namespace cairn {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string FormatIsoMillis(int64_t epoch_ms) {
  // Every audit record carries one: the text up to the second is kept per thread and reused
  // for the rest of that second.
  thread_local int64_t cached_secs = std::numeric_limits<int64_t>::min();
  thread_local std::string cached;  // "YYYY-MM-DDTHH:MM:SS."
  int64_t secs = epoch_ms / 1000;
  int64_t millis = epoch_ms % 1000;
  if (millis < 0) {  // before 1970: the second below, as gmtime_r counts it
    secs -= 1;
    millis += 1000;
  }
  if (secs != cached_secs) {
    const std::time_t t = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&t, &tm);
    cached = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.", tm.tm_year + 1900, tm.tm_mon + 1,
                         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    cached_secs = secs;
  }
  std::string out;
  out.reserve(cached.size() + 4);
  out += cached;
  out += static_cast<char>('0' + millis / 100);
  out += static_cast<char>('0' + millis / 10 % 10);
  out += static_cast<char>('0' + millis % 10);
  out += 'Z';
  return out;
}

std::string RandomUuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng();
  uint64_t lo = rng();
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFULL);
}

namespace {
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
char Upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

// The eight bytes of `w` with the ASCII capitals made small; every other byte as it is.
uint64_t LowerWord(uint64_t w) {
  using namespace swar;
  const uint64_t low7 = w & ~kHigh;  // no byte carries into the next below
  const uint64_t above_z = low7 + kOnes * (0x7f - 'Z');  // high bit: low seven bits past 'Z'
  const uint64_t from_a = low7 + kOnes * (0x80 - 'A');   // high bit: from 'A' on
  const uint64_t capital = from_a & ~above_z & ~w & kHigh;
  return w | (capital >> 2);  // 0x80 -> 0x20 in the same byte
}

}  // namespace

// Eight bytes at a time: header names are compared on every request.
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  uint64_t x;
  uint64_t y;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (LowerWord(x) != LowerWord(y)) return false;
  }
  return i == n || LowerWord(swar::TailWord(a.data(), n, 0)) ==
                        LowerWord(swar::TailWord(b.data(), n, 0));
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Upper(c);
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  int64_t value = 0;
  if (s.empty()) return std::nullopt;
  const char* begin = s.data();
  if (*begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int h = hex(s[i + 1]);
    const int l = hex(s[i + 2]);
    if (h < 0 || l < 0) return std::nullopt;
    out += static_cast<char>(h * 16 + l);
    i += 2;
  }
  return out;
}

std::string HexLower(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::optional<int64_t> ParseIsoDuration(std::string_view text) {
  if (text.size() < 3 || text[0] != 'P') return std::nullopt;
  int64_t total = 0;
  bool in_time = false;
  bool any = false;
  std::string_view units = "DHMS";  // the order they must come in
  size_t i = 1;
  while (i < text.size()) {
    if (text[i] == 'T') {
      if (in_time) return std::nullopt;
      in_time = true;
      ++i;
      continue;
    }
    int64_t n = 0;
    size_t digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 9) {
      n = n * 10 + (text[i] - '0');
      ++i;
      ++digits;
    }
    if (digits == 0 || i >= text.size()) return std::nullopt;
    const char unit = text[i++];
    const size_t at = units.find(unit);
    if (at == std::string_view::npos || (unit == 'D') == in_time) return std::nullopt;
    units = units.substr(at + 1);
    total += n * (unit == 'D' ? 86400 : unit == 'H' ? 3600 : unit == 'M' ? 60 : 1);
    any = true;
  }
  if (!any || text.back() == 'T') return std::nullopt;
  return total;
}

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost" || host == "::1") return true;
  // 127.0.0.0/8 as an address literal only: a name such as 127.0.0.1.example.com is not one.
  return host.rfind("127.", 0) == 0 &&
         std::all_of(host.begin(), host.end(),
                     [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) &&
         std::count(host.begin(), host.end(), '.') == 3;
}

bool IsClearTextToAnotherMachine(std::string_view url) {
  if (url.rfind("http://", 0) != 0) return false;
  std::string_view host = url.substr(7);
  host = host.substr(0, host.find_first_of("/?#"));
  if (const size_t at = host.rfind('@'); at != std::string_view::npos) host = host.substr(at + 1);
  if (!host.empty() && host.front() == '[') {
    host = host.substr(1, host.find(']') - 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  return !IsLoopbackHost(host);
}

std::string PercentEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::string EscapeControl(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace cairn
