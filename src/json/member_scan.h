// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string_view>

namespace cairn::json {

/// What FindMember says of a member of an object's text.
enum class MemberScan {
  kFound,    // `value` is the member's value, as written (a string keeps its quotes)
  kAbsent,   // the object has no such member
  kUnknown,  // the text is not a plain object this scan can read (malformed, or a key with an
             // escape): parse it to know
};
struct MemberLookup {
  MemberScan scan = MemberScan::kUnknown;
  std::string_view value;
};
/// Finds the member `key` of the JSON object `text` in one pass over its bytes, without
/// building a value: nested values are skipped (brackets counted outside string literals,
/// without recursion), so it reads only the object's own structure and its scalars; what is
/// malformed inside a nested value is not noticed. For reading one member of a stored document
/// (an owner in a row's payload) at the cost of a scan, not a parse.
MemberLookup FindMember(std::string_view text, std::string_view key);
/// The text of a JSON string literal `quoted` (with its quotes) when it has no escape; nullopt
/// for anything else (then parse it).
std::optional<std::string_view> PlainStringValue(std::string_view quoted);

}  // namespace cairn::json
