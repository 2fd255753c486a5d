// SPDX-License-Identifier: Apache-2.0
#include "json/json_util.h"

#include <nlohmann/json.hpp>

namespace cairn::json {

void AppendQuoted(std::string& out, std::string_view value) {
  bool plain = true;
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    out.reserve(out.size() + value.size() + 2);
    out += '"';
    out += value;
    out += '"';
    return;
  }
  out += DumpJson(Json(std::string(value)));
}

namespace {

template <typename J>
Result<J> ParseAs(std::string_view text) {
  J value = J::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    return InvalidArgument("Malformed JSON document");
  }
  return value;
}

Result<const Json*> Member(const Json& object, std::string_view key, bool required) {
  if (!object.is_object()) {
    return InvalidArgument("Cannot read '{}' from a non-object JSON value", key);
  }
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) {
      return InvalidArgument("Missing field: {}", key);
    }
    return static_cast<const Json*>(nullptr);
  }
  return &*it;
}

Error WrongType(std::string_view key, std::string_view expected) {
  return InvalidArgument("Field '{}' must be {}", key, expected);
}

}  // namespace

Result<Json> ParseJson(std::string_view text) { return ParseAs<Json>(text); }
Result<OrderedJson> ParseOrderedJson(std::string_view text) { return ParseAs<OrderedJson>(text); }

std::string DumpJson(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}
std::string DumpJson(const OrderedJson& value) {
  return value.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

Result<std::string> GetString(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, true));
  if (!v->is_string()) return WrongType(key, "a string");
  return v->get<std::string>();
}

Result<int64_t> GetInt(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, true));
  if (!v->is_number_integer()) return WrongType(key, "an integer");
  return v->get<int64_t>();
}

Result<bool> GetBool(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, true));
  if (!v->is_boolean()) return WrongType(key, "a boolean");
  return v->get<bool>();
}

Result<const Json*> GetObject(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, true));
  if (!v->is_object()) return WrongType(key, "an object");
  return v;
}

Result<const Json*> GetArray(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, true));
  if (!v->is_array()) return WrongType(key, "an array");
  return v;
}

Result<std::optional<std::string>> GetOptionalString(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, false));
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) return WrongType(key, "a string");
  return std::optional<std::string>(v->get<std::string>());
}

Result<std::optional<int64_t>> GetOptionalInt(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, false));
  if (v == nullptr) return std::optional<int64_t>();
  if (!v->is_number_integer()) return WrongType(key, "an integer");
  return std::optional<int64_t>(v->get<int64_t>());
}

Result<std::optional<bool>> GetOptionalBool(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, false));
  if (v == nullptr) return std::optional<bool>();
  if (!v->is_boolean()) return WrongType(key, "a boolean");
  return std::optional<bool>(v->get<bool>());
}

Result<const Json*> GetOptionalObject(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, false));
  if (v != nullptr && !v->is_object()) return WrongType(key, "an object");
  return v;
}

Result<const Json*> GetOptionalArray(const Json& object, std::string_view key) {
  CAIRN_ASSIGN_OR_RETURN(const Json* v, Member(object, key, false));
  if (v != nullptr && !v->is_array()) return WrongType(key, "an array");
  return v;
}

}  // namespace cairn::json
