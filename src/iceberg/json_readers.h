// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace cairn::iceberg {

// The one family of readers for Iceberg documents from outside (requests, metadata files, a
// remote catalog's replies). Two kinds:
//  - JsonGet*: a member that must be there, with Java's JsonUtil error messages, for parsing
//    requests ("Cannot parse missing int: x", "Cannot parse to an integer value: x: <value>").
//  - MemberOrNull / IntOr / LongOr: lenient reads of documents already accepted, which fall back
//    instead of failing (and never throw).
// Pure functions, thread-safe.

/// Iceberg metadata documents (schemas, specs, sort orders, table metadata) are kept as JSON.
/// Objects keep insertion order so documents are written with Java's field order.
using Json = nlohmann::ordered_json;

/// Runs `body` (returning a Result or Status) and turns an exception of the JSON library into
/// kInvalidArgument "<what>: a member has the wrong JSON type". nlohmann's value() and get()
/// throw when a member of a document from outside (a request, a metadata file, a remote
/// catalog's reply) has an unexpected type; the entry points of this layer that read such
/// documents run under this guard, so that nothing throws across the layer (a group commit
/// applies other callers' commits on its thread). The library's text, which names no field, is
/// not passed on.
template <typename F>
auto CatchJsonErrors(std::string_view what, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const nlohmann::json::exception&) {
    return InvalidArgument("{}: a member has the wrong JSON type", what);
  }
}

/// A value as error messages show it: a string's own text, anything else as compact JSON
/// (invalid UTF-8 replaced, never thrown).
std::string Text(const Json& value);

/// Whether a JSON number is an integer that fits Java's int / long.
bool IsInt(const Json& value);
bool IsLong(const Json& value);

/// Whether two values are equal regardless of the order of object members.
bool SameJson(const Json& a, const Json& b);

/// `object[key]` without the undefined behaviour of nlohmann's const operator[] on a missing
/// key: a null value when `object` is not an object or has no such member. For documents from
/// outside, which may lack any member.
const Json& MemberOrNull(const Json& object, std::string_view key);

/// An integer member of a document from outside, or `fallback` when `object` is not an object,
/// the member is missing, is not an integer, or does not fit. (nlohmann's value() converts a
/// float member, with undefined behaviour when it is out of range, and throws on other types.)
int IntOr(const Json& object, std::string_view key, int fallback);
int64_t LongOr(const Json& object, std::string_view key, int64_t fallback);

/// JsonUtil-style readers: the error messages are Java's ("Cannot parse missing int: x",
/// "Cannot parse to an integer value: x: <value>", ...). `node` must be an object.
Result<int> JsonGetInt(const Json& node, std::string_view key);
Result<int64_t> JsonGetLong(const Json& node, std::string_view key);
Result<std::optional<int>> JsonGetIntOrNull(const Json& node, std::string_view key);
Result<std::optional<int64_t>> JsonGetLongOrNull(const Json& node, std::string_view key);
Result<std::string> JsonGetString(const Json& node, std::string_view key);
Result<std::optional<std::string>> JsonGetStringOrNull(const Json& node, std::string_view key);
/// A present, non-null member ("Cannot parse missing field: x").
Result<const Json*> JsonGetField(const Json& node, std::string_view key);
/// A string-to-string object ("Cannot parse missing map: x").
Result<std::map<std::string, std::string>> JsonGetStringMap(const Json& node, std::string_view key);
/// An array of strings ("Cannot parse missing list: x").
Result<std::vector<std::string>> JsonGetStringList(const Json& node, std::string_view key);

}  // namespace cairn::iceberg
