// SPDX-License-Identifier: Apache-2.0
#include "json/json_util.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/swar.h"

namespace cairn::json {

namespace {

#if defined(__SSE2__)
// Whether one of sixteen bytes needs a JSON escape or is not ASCII. Compared as signed bytes,
// every byte from 0x80 up is below 0x20 too.
bool NeedsEscape16(const char* p) {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i control_or_high = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
  const __m128i del = _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f));
  const __m128i quote = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
  const __m128i any =
      _mm_or_si128(_mm_or_si128(control_or_high, del), _mm_or_si128(quote, backslash));
  return _mm_movemask_epi8(any) != 0;
}
#endif

}  // namespace

bool IsPlainAscii(std::string_view value) {
#if defined(__SSE2__)
  // Sixteen bytes at a time (every x86-64 has SSE2): the audit line's fields and the metadata
  // location of every load answer pass here. The last sixteen bytes are read again for a tail.
  if (value.size() >= 16) {
    const char* p = value.data();
    const size_t n = value.size();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      if (NeedsEscape16(p + i)) return false;
    }
    return i == n || !NeedsEscape16(p + n - 16);
  }
#endif
  using namespace swar;
  return NoneFlagged(
      value,
      [](uint64_t x) {
        return ByteBelow(x, 0x20) | HighByte(x) | ByteIs(x, 0x7f) | ByteIs(x, '"') |
               ByteIs(x, '\\');
      },
      ' ');
}

void AppendQuoted(std::string& out, std::string_view value) {
  const bool plain = IsPlainAscii(value);
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

constexpr std::string_view kMalformed = "Malformed JSON document";

// Builds an ordered_json document from SAX events in linear time. nlohmann's own DOM parser
// inserts members one by one into ordered_json's vector of pairs with a const key, which cannot
// be moved: every time an object outgrows its capacity, the members so far are deep-copied,
// subtrees included (a 4,000-deep list type took 6 s to parse), and each key is found by a
// linear search (an object with n members costs n^2/2 comparisons). Here an object's members
// are collected in a movable vector and the object is made once, at its end, with its exact
// size. Duplicate keys behave as nlohmann's: the first position, the last value.
class OrderedBuilder {
 public:
  using J = OrderedJson;

  bool null() { return Put(J(nullptr)); }
  bool boolean(bool v) { return Put(J(v)); }
  bool number_integer(J::number_integer_t v) { return Put(J(v)); }
  bool number_unsigned(J::number_unsigned_t v) { return Put(J(v)); }
  bool number_float(J::number_float_t v, const J::string_t& /*text*/) { return Put(J(v)); }
  bool string(J::string_t& v) { return Put(J(std::move(v))); }
  bool binary(J::binary_t& v) { return Put(J::binary(std::move(v))); }
  bool start_object(std::size_t /*size*/) {
    open_.emplace_back();
    open_.back().object = true;
    return true;
  }
  bool key(J::string_t& k) {
    open_.back().key = std::move(k);
    return true;
  }
  bool end_object() {
    Frame f = std::move(open_.back());
    open_.pop_back();
    J object = J::object();
    auto& members = object.get_ref<J::object_t&>();
    members.reserve(f.members.size());
    std::unordered_map<std::string_view, size_t> index;  // only for large objects
    const bool indexed = f.members.size() > kLinearSearchMax;
    if (indexed) index.reserve(f.members.size());
    // ordered_map hides the vector's operator[]: members are reached through iterators. The
    // index views the keys already in `members`, which never reallocates (reserved above).
    for (auto& member : f.members) {
      std::string& k = member.first;
      J& v = member.second;
      auto at = members.end();
      if (indexed) {
        if (auto it = index.find(k); it != index.end()) {
          at = members.begin() + static_cast<std::ptrdiff_t>(it->second);
        }
      } else {
        at = std::find_if(members.begin(), members.end(),
                          [&](const auto& m) { return m.first == k; });
      }
      if (at != members.end()) {
        at->second = std::move(v);
        continue;
      }
      members.emplace_back(std::move(k), std::move(v));
      if (indexed) index.emplace(members.back().first, members.size() - 1);
    }
    return Put(std::move(object));
  }
  bool start_array(std::size_t /*size*/) {
    open_.emplace_back();
    return true;
  }
  bool end_array() {
    Frame f = std::move(open_.back());
    open_.pop_back();
    J array = J::array();
    array.get_ref<J::array_t&>() = std::move(f.items);
    return Put(std::move(array));
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*e*/) {
    return false;
  }

  J Take() { return std::move(root_); }

 private:
  static constexpr size_t kLinearSearchMax = 16;
  struct Frame {
    bool object = false;
    J::array_t items;                                // an array's values
    std::vector<std::pair<std::string, J>> members;  // an object's members, as read
    std::string key;                                 // the key of the value being read
  };

  bool Put(J value) {
    if (open_.empty()) {
      root_ = std::move(value);
    } else if (Frame& f = open_.back(); f.object) {
      f.members.emplace_back(std::move(f.key), std::move(value));
    } else {
      f.items.push_back(std::move(value));
    }
    return true;
  }

  std::vector<Frame> open_;
  J root_;
};

Json ParseUnchecked(std::string_view text, Json* /*tag*/) {
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

OrderedJson ParseUnchecked(std::string_view text, OrderedJson* /*tag*/) {
  OrderedBuilder builder;
  if (!OrderedJson::sax_parse(text.begin(), text.end(), &builder)) {
    return OrderedJson(OrderedJson::value_t::discarded);
  }
  return builder.Take();
}

template <typename J>
J ParseOrDiscarded(std::string_view text) {
  if (!CheckJsonDepth(text)) return J(J::value_t::discarded);
  return ParseUnchecked(text, static_cast<J*>(nullptr));
}

template <typename J>
Result<J> ParseAs(std::string_view text, std::string_view malformed) {
  CAIRN_RETURN_IF_ERROR(CheckJsonDepth(text));
  J value = ParseUnchecked(text, static_cast<J*>(nullptr));
  if (value.is_discarded()) {
    return Error{ErrorCode::kInvalidArgument, EntityKind::kNone, std::string(malformed)};
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

Status CheckJsonDepth(std::string_view text, int max_depth) {
  // Brackets inside string literals do not nest; a backslash escapes the next byte (enough to
  // skip \" and \\; the other escapes cannot hide a quote). Closing brackets that do not match
  // are nlohmann's to reject: this pass only bounds how deep an opening bracket can be.
  int depth = 0;
  bool in_string = false;
  const char* const data = text.data();
  const size_t size = text.size();
  for (size_t i = 0; i < size; ++i) {
    const char c = data[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > max_depth) {
          return InvalidArgument("JSON nesting deeper than {} levels at byte {}", max_depth, i);
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return Ok();
}

Result<Json> ParseJson(std::string_view text) { return ParseAs<Json>(text, kMalformed); }
Result<Json> ParseJson(std::string_view text, std::string_view malformed) {
  return ParseAs<Json>(text, malformed);
}
Result<OrderedJson> ParseOrderedJson(std::string_view text) {
  return ParseAs<OrderedJson>(text, kMalformed);
}
Result<OrderedJson> ParseOrderedJson(std::string_view text, std::string_view malformed) {
  return ParseAs<OrderedJson>(text, malformed);
}
OrderedJson ToOrderedJson(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object: {
      OrderedJson out = OrderedJson::object();
      auto& members = out.get_ref<OrderedJson::object_t&>();
      members.reserve(value.size());
      for (const auto& [k, v] : value.items()) members.emplace_back(k, ToOrderedJson(v));
      return out;
    }
    case Json::value_t::array: {
      OrderedJson out = OrderedJson::array();
      auto& items = out.get_ref<OrderedJson::array_t&>();
      items.reserve(value.size());
      for (const auto& v : value) items.push_back(ToOrderedJson(v));
      return out;
    }
    case Json::value_t::null:
      return OrderedJson(nullptr);
    case Json::value_t::boolean:
      return OrderedJson(value.get<bool>());
    case Json::value_t::number_integer:
      return OrderedJson(value.get<Json::number_integer_t>());
    case Json::value_t::number_unsigned:
      return OrderedJson(value.get<Json::number_unsigned_t>());
    case Json::value_t::number_float:
      return OrderedJson(value.get<Json::number_float_t>());
    case Json::value_t::string:
      return OrderedJson(value.get_ref<const std::string&>());
    case Json::value_t::binary:
      return OrderedJson::binary(value.get_binary());
    case Json::value_t::discarded:
      return OrderedJson(OrderedJson::value_t::discarded);
  }
  return OrderedJson();
}

Json ParseJsonOrDiscarded(std::string_view text) { return ParseOrDiscarded<Json>(text); }
OrderedJson ParseOrderedJsonOrDiscarded(std::string_view text) {
  return ParseOrDiscarded<OrderedJson>(text);
}

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
