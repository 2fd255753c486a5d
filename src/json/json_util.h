// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"

namespace cairn::json {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// The deepest nesting of arrays and objects any JSON text may have (the outermost value is
/// level 1). Every document Cairn reads (request bodies, payloads, metadata files, a remote
/// catalog's replies) goes through the parsers below, which refuse deeper text before nlohmann
/// sees it, so that nothing recursive downstream (nlohmann's dump, copy and comparison, the
/// schema walkers) can exhaust the stack. A schema at the type nesting limit
/// (model::kMaxTypeDepth) needs about 3 levels per type level, well below this. See docs/limits.md.
inline constexpr int kMaxJsonDepth = 512;

/// Checks the nesting of `text` in one linear, non-recursive pass over its bytes (brackets
/// outside string literals). kInvalidArgument ("JSON nesting deeper than 512 levels at byte N")
/// when an array or object opens deeper than `max_depth`. Says nothing about well-formedness.
Status CheckJsonDepth(std::string_view text, int max_depth = kMaxJsonDepth);

/// Parses `text` without throwing. kInvalidArgument: "Malformed JSON document" when the text is
/// not one complete JSON document, CheckJsonDepth's error when it nests deeper than
/// kMaxJsonDepth.
Result<Json> ParseJson(std::string_view text);
/// As ParseJson, with `malformed` (a protocol's own wording) as the message for text that is
/// not JSON; text nested too deeply still gets CheckJsonDepth's message naming the limit.
Result<Json> ParseJson(std::string_view text, std::string_view malformed);
/// As ParseJson, but keeps object members in document order (for documents written back out).
Result<OrderedJson> ParseOrderedJson(std::string_view text);
Result<OrderedJson> ParseOrderedJson(std::string_view text, std::string_view malformed);

/// For callers in nlohmann's non-throwing style (`parse(text, nullptr, false)`): the value, or a
/// discarded one (is_discarded()) when the text is malformed or nested deeper than kMaxJsonDepth.
Json ParseJsonOrDiscarded(std::string_view text);
OrderedJson ParseOrderedJsonOrDiscarded(std::string_view text);

/// `value` as an ordered_json, members in `value`'s (sorted) order, in time linear in its size
/// (what `OrderedJson::parse(value.dump())` does, without the text). Recurses once per level of
/// `value`, which the parsers above bound by kMaxJsonDepth.
OrderedJson ToOrderedJson(const Json& value);

/// Compact text; invalid UTF-8 in strings is replaced (U+FFFD) instead of throwing.
std::string DumpJson(const Json& value);
std::string DumpJson(const OrderedJson& value);

/// Whether `value` needs no escape in a JSON string and holds only ASCII: no control character,
/// DEL, byte of 0x80 or above, quote or backslash. Eight bytes at a time, as every audit record's
/// fields pass through here.
bool IsPlainAscii(std::string_view value);

/// Appends `value` to `out` as a JSON string literal, exactly as DumpJson would write it: plain
/// printable ASCII is copied as is (the common case, without building a JSON value); anything
/// else is escaped, and invalid UTF-8 is replaced (U+FFFD).
void AppendQuoted(std::string& out, std::string_view value);

/// Required members of a JSON object. kInvalidArgument naming `key` when `object` is not an
/// object, the member is missing, or it has another JSON type. The returned pointers borrow
/// from `object`.
Result<std::string> GetString(const Json& object, std::string_view key);
Result<int64_t> GetInt(const Json& object, std::string_view key);
Result<bool> GetBool(const Json& object, std::string_view key);
Result<const Json*> GetObject(const Json& object, std::string_view key);
Result<const Json*> GetArray(const Json& object, std::string_view key);

/// Optional members: nullopt/nullptr when absent or JSON null; kInvalidArgument when present
/// with another JSON type.
Result<std::optional<std::string>> GetOptionalString(const Json& object, std::string_view key);
Result<std::optional<int64_t>> GetOptionalInt(const Json& object, std::string_view key);
Result<std::optional<bool>> GetOptionalBool(const Json& object, std::string_view key);
Result<const Json*> GetOptionalObject(const Json& object, std::string_view key);
Result<const Json*> GetOptionalArray(const Json& object, std::string_view key);

}  // namespace cairn::json
