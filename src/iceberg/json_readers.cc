// SPDX-License-Identifier: Apache-2.0
#include "iceberg/json_readers.h"

#include <cstdint>

namespace cairn::iceberg {

std::string Text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool IsInt(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= 2'147'483'647ULL;
  if (v.is_number_integer()) {
    const int64_t x = v.get<int64_t>();
    return x >= -2'147'483'648LL && x <= 2'147'483'647LL;
  }
  return false;
}

bool IsLong(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= 9'223'372'036'854'775'807ULL;
  return v.is_number_integer();
}

// Sorted-key copies compare regardless of member order.
bool SameJson(const Json& a, const Json& b) { return nlohmann::json(a) == nlohmann::json(b); }

const Json& MemberOrNull(const Json& object, std::string_view key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it != object.end() ? *it : kNull;
}

int64_t LongOr(const Json& object, std::string_view key, int64_t fallback) {
  const Json& v = MemberOrNull(object, key);
  if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<int64_t>();
  if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t{INT64_MAX}) {
    return static_cast<int64_t>(v.get<uint64_t>());
  }
  return fallback;
}

int IntOr(const Json& object, std::string_view key, int fallback) {
  const int64_t v = LongOr(object, key, int64_t{INT32_MAX} + 1);
  return v >= INT32_MIN && v <= INT32_MAX ? static_cast<int>(v) : fallback;
}

Result<int> JsonGetInt(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing int: {}", key);
  if (!IsInt(*it))
    return InvalidArgument("Cannot parse to an integer value: {}: {}", key, Text(*it));
  return it->get<int>();
}

Result<int64_t> JsonGetLong(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing long: {}", key);
  if (!IsLong(*it)) return InvalidArgument("Cannot parse to a long value: {}: {}", key, Text(*it));
  return it->get<int64_t>();
}

Result<std::optional<int>> JsonGetIntOrNull(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null()) return std::optional<int>();
  CAIRN_ASSIGN_OR_RETURN(int v, JsonGetInt(node, key));
  return std::optional<int>(v);
}

Result<std::optional<int64_t>> JsonGetLongOrNull(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null()) return std::optional<int64_t>();
  CAIRN_ASSIGN_OR_RETURN(int64_t v, JsonGetLong(node, key));
  return std::optional<int64_t>(v);
}

Result<std::string> JsonGetString(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing string: {}", key);
  if (!it->is_string())
    return InvalidArgument("Cannot parse to a string value: {}: {}", key, Text(*it));
  return it->get<std::string>();
}

Result<std::optional<std::string>> JsonGetStringOrNull(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null()) return std::optional<std::string>();
  CAIRN_ASSIGN_OR_RETURN(std::string v, JsonGetString(node, key));
  return std::optional<std::string>(v);
}

Result<const Json*> JsonGetField(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end() || it->is_null())
    return InvalidArgument("Cannot parse missing field: {}", key);
  return &*it;
}

Result<std::map<std::string, std::string>> JsonGetStringMap(const Json& node,
                                                            std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing map: {}", key);
  if (!it->is_object()) {
    return InvalidArgument("Cannot parse string map from non-object value: {}: {}", key, Text(*it));
  }
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) {
      return InvalidArgument("Cannot parse to a string value: {}: {}", k, Text(v));
    }
    out[k] = v.get<std::string>();
  }
  return out;
}

Result<std::vector<std::string>> JsonGetStringList(const Json& node, std::string_view key) {
  auto it = node.find(key);
  if (it == node.end()) return InvalidArgument("Cannot parse missing list: {}", key);
  if (!it->is_array()) {
    return InvalidArgument("Cannot parse string array from non-array: {}", Text(*it));
  }
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string())
      return InvalidArgument("Cannot parse string from non-text value: {}", Text(v));
    out.push_back(v.get<std::string>());
  }
  return out;
}
}  // namespace cairn::iceberg
