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

/// Parses `text` without throwing. kInvalidArgument ("Malformed JSON ...") when the text is
/// not one complete JSON document.
Result<Json> ParseJson(std::string_view text);
/// As ParseJson, but keeps object members in document order (for documents written back out).
Result<OrderedJson> ParseOrderedJson(std::string_view text);

/// Compact text; invalid UTF-8 in strings is replaced (U+FFFD) instead of throwing.
std::string DumpJson(const Json& value);
std::string DumpJson(const OrderedJson& value);

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
