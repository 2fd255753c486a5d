// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cairn {

/// Milliseconds since the Unix epoch, from the system clock.
int64_t NowMillis();

/// Whole seconds of an ISO-8601 duration of days and time ("P1D", "PT30M", "P1DT2H3M4S");
/// nullopt for anything else (years, months, weeks and fractions are not accepted).
std::optional<int64_t> ParseIsoDuration(std::string_view text);

/// `bytes` as lower-case hex, two digits a byte.
std::string HexLower(std::string_view bytes);

/// ISO-8601 UTC instant with millisecond precision: 2026-01-01T00:00:00.123Z.
std::string FormatIsoMillis(int64_t epoch_ms);

/// A random (version 4) UUID in canonical lower-case text form.
std::string RandomUuid();

/// Case-insensitive ASCII comparison.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string ToLower(std::string_view s);
std::string ToUpper(std::string_view s);
std::string_view Trim(std::string_view s);
/// Calls `f` with each element of a comma-separated list (RFC 9110 5.6.1: a header's list),
/// with the spaces and tabs around it trimmed; empty elements are skipped.
template <class F>
void ForEachListElement(std::string_view list, F&& f) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view element = list.substr(0, comma);
    while (!element.empty() && (element.front() == ' ' || element.front() == '\t')) {
      element.remove_prefix(1);
    }
    while (!element.empty() && (element.back() == ' ' || element.back() == '\t')) {
      element.remove_suffix(1);
    }
    if (!element.empty()) f(element);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}
std::vector<std::string> Split(std::string_view s, char sep);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);

/// Parses a whole string as a base-10 integer; nullopt on anything else (no exceptions).
std::optional<int64_t> ParseInt64(std::string_view s);

/// Decodes %XX escapes (and nothing else); nullopt when an escape is malformed.
std::optional<std::string> PercentDecode(std::string_view s);
/// `s` as one path segment or query value: every byte but RFC 3986's unreserved characters
/// (letters, digits, `-._~`) as %XX, so `/`, `..`, `%` and NUL survive a round trip through
/// PercentDecode.
std::string PercentEncode(std::string_view s);
/// True for a host only this machine reaches: `localhost`, `::1`, `127.x.x.x`.
bool IsLoopbackHost(std::string_view host);
/// True for an `http://` URL whose host is not a loopback host: what it carries can be read on
/// the network.
bool IsClearTextToAnotherMachine(std::string_view url);

/// `s` with every control character (below 0x20, and 0x7f) written as `\xNN`, for messages and
/// logs that must not carry them.
std::string EscapeControl(std::string_view s);

}  // namespace cairn
