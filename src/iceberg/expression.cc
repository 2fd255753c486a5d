// SPDX-License-Identifier: Apache-2.0
#include "iceberg/expression.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace cairn::iceberg {
namespace {

using Kind = Value::Kind;

// ---- Calendar --------------------------------------------------------------------------------

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct Civil {
  int64_t y;
  unsigned m, d;
};
Civil CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {y + (m <= 2), m, d};
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
Int128 FloorMod128(Int128 a, Int128 b) {
  Int128 r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

constexpr int64_t kMicrosPerDay = 86'400'000'000LL;
constexpr int64_t kMicrosPerHour = 3'600'000'000LL;

bool IsTimestamp(TypeId id) {
  return id == TypeId::kTimestamp || id == TypeId::kTimestampTz || id == TypeId::kTimestampNs ||
         id == TypeId::kTimestampTzNs;
}
bool IsNanos(TypeId id) { return id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs; }
bool IsTz(TypeId id) { return id == TypeId::kTimestampTz || id == TypeId::kTimestampTzNs; }

bool IsIntegral(TypeId id) {
  return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kDate ||
         id == TypeId::kTime || id == TypeId::kDecimal || IsTimestamp(id);
}
bool IsBytes(TypeId id) {
  return id == TypeId::kString || id == TypeId::kUuid || id == TypeId::kFixed ||
         id == TypeId::kBinary;
}

// ---- Text of values --------------------------------------------------------------------------

std::string DateText(int64_t days) {
  const Civil c = CivilFromDays(days);
  if (c.y >= 0 && c.y <= 9999) return fmt::format("{:04}-{:02}-{:02}", c.y, c.m, c.d);
  return fmt::format("{:+05}-{:02}-{:02}", c.y, c.m, c.d);
}

// "HH:MM:SS" plus the fraction when there is one, `digits` wide (6 micros, 9 nanos).
std::string TimeText(int64_t units_of_day, int64_t per_second, int digits) {
  const int64_t seconds = units_of_day / per_second;
  const int64_t fraction = units_of_day % per_second;
  std::string out = fmt::format("{:02}:{:02}:{:02}", seconds / 3600, (seconds / 60) % 60,
                                seconds % 60);
  if (fraction != 0) out += fmt::format(".{:0{}}", fraction, digits);
  return out;
}

std::string HexUpper(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string Int128Text(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  UInt128 u = negative ? static_cast<UInt128>(-(v + 1)) + 1
                                 : static_cast<UInt128>(v);
  std::string out;
  while (u != 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) out.push_back('-');
  std::reverse(out.begin(), out.end());
  return out;
}

std::string DecimalText(Int128 unscaled, int scale) {
  std::string digits = Int128Text(unscaled < 0 ? -unscaled : unscaled);
  if (scale > 0) {
    if (static_cast<int>(digits.size()) <= scale) {
      digits.insert(0, static_cast<size_t>(scale) - digits.size() + 1, '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return (unscaled < 0 ? "-" : "") + digits;
}

// ---- Parsing literal text --------------------------------------------------------------------

bool ParseDigits(std::string_view s, size_t pos, size_t n, int64_t* out) {
  if (pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

std::optional<int64_t> ParseDate(std::string_view s) {
  int64_t y = 0, m = 0, d = 0;
  if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !ParseDigits(s, 0, 4, &y) ||
      !ParseDigits(s, 5, 2, &m) || !ParseDigits(s, 8, 2, &d) || m < 1 || m > 12 || d < 1 ||
      d > 31) {
    return std::nullopt;
  }
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  const Civil back = CivilFromDays(days);
  if (back.m != m || back.d != d) return std::nullopt;  // 2023-02-30
  return days;
}

// "HH:MM[:SS[.f...]]" in units of 10^-digits seconds.
std::optional<int64_t> ParseTime(std::string_view s, int digits) {
  int64_t h = 0, mi = 0, sec = 0;
  if (s.size() < 5 || s[2] != ':' || !ParseDigits(s, 0, 2, &h) || !ParseDigits(s, 3, 2, &mi) ||
      h > 23 || mi > 59) {
    return std::nullopt;
  }
  size_t pos = 5;
  int64_t fraction = 0;
  if (pos < s.size()) {
    if (s[pos] != ':' || !ParseDigits(s, pos + 1, 2, &sec) || sec > 59) return std::nullopt;
    pos += 3;
    if (pos < s.size()) {
      if (s[pos] != '.') return std::nullopt;
      ++pos;
      int n = 0;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        if (n < digits) fraction = fraction * 10 + (s[pos] - '0');
        ++n;
        ++pos;
      }
      if (n == 0 || pos != s.size()) return std::nullopt;
      for (int i = std::min(n, digits); i < digits; ++i) fraction *= 10;
    }
  }
  int64_t per_second = 1;
  for (int i = 0; i < digits; ++i) per_second *= 10;
  return ((h * 60 + mi) * 60 + sec) * per_second + fraction;
}

// "YYYY-MM-DD[T ]HH:MM[:SS[.f]][Z|+HH:MM|-HH:MM]" in units of 10^-digits seconds since the
// epoch, in UTC.
std::optional<int64_t> ParseTimestamp(std::string_view s, int digits) {
  if (s.size() < 16 || (s[10] != 'T' && s[10] != ' ')) return std::nullopt;
  auto days = ParseDate(s.substr(0, 10));
  if (!days) return std::nullopt;
  std::string_view rest = s.substr(11);
  int64_t offset_minutes = 0;
  if (!rest.empty() && (rest.back() == 'Z' || rest.back() == 'z')) {
    rest.remove_suffix(1);
  } else if (rest.size() > 6 && (rest[rest.size() - 6] == '+' || rest[rest.size() - 6] == '-') &&
             rest[rest.size() - 3] == ':') {
    int64_t oh = 0, om = 0;
    const size_t at = rest.size() - 6;
    if (!ParseDigits(rest, at + 1, 2, &oh) || !ParseDigits(rest, at + 4, 2, &om)) {
      return std::nullopt;
    }
    offset_minutes = (oh * 60 + om) * (rest[at] == '-' ? -1 : 1);
    rest = rest.substr(0, at);
  }
  auto time = ParseTime(rest, digits);
  if (!time) return std::nullopt;
  int64_t per_second = 1;
  for (int i = 0; i < digits; ++i) per_second *= 10;
  return *days * 86400 * per_second + *time - offset_minutes * 60 * per_second;
}

// A decimal text as the unscaled value at `scale`; nullopt when it has more fractional digits
// than the scale (other than zeros) or is not a number.
std::optional<Int128> ParseDecimal(std::string_view s, int scale) {
  bool negative = false;
  size_t pos = 0;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) negative = s[pos++] == '-';
  Int128 v = 0;
  int frac = -1;
  bool any = false;
  for (; pos < s.size(); ++pos) {
    const char c = s[pos];
    if (c == '.') {
      if (frac >= 0) return std::nullopt;
      frac = 0;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    any = true;
    if (frac >= 0) {
      if (frac >= scale) {
        if (c != '0') return std::nullopt;
        continue;
      }
      ++frac;
    }
    if (v > (std::numeric_limits<Int128>::max() / 10)) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (!any) return std::nullopt;
  for (int i = std::max(frac, 0); i < scale; ++i) v *= 10;
  return negative ? -v : v;
}

std::optional<std::string> ParseHex(std::string_view s) {
  if (s.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(s.size() / 2);
  for (size_t i = 0; i < s.size(); i += 2) {
    unsigned v = 0;
    auto [p, ec] = std::from_chars(s.data() + i, s.data() + i + 2, v, 16);
    if (ec != std::errc() || p != s.data() + i + 2) return std::nullopt;
    out.push_back(static_cast<char>(v));
  }
  return out;
}

std::optional<std::string> ParseUuid(std::string_view s) {
  if (s.size() != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') {
    return std::nullopt;
  }
  std::string hex;
  for (char c : s) {
    if (c != '-') hex.push_back(c);
  }
  return ParseHex(hex);
}

std::string UuidText(std::string_view bytes) {
  std::string hex = HexUpper(bytes);
  for (auto& c : hex) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (hex.size() != 32) return hex;
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

// ---- Murmur3 (x86, 32 bit, seed 0) -------------------------------------------------------------

uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

int32_t Murmur3(std::string_view data) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  const size_t n = data.size();
  uint32_t h = 0;
  constexpr uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t k = static_cast<uint32_t>(bytes[i]) | (static_cast<uint32_t>(bytes[i + 1]) << 8) |
                 (static_cast<uint32_t>(bytes[i + 2]) << 16) |
                 (static_cast<uint32_t>(bytes[i + 3]) << 24);
    k *= c1;
    k = Rotl(k, 15);
    k *= c2;
    h ^= k;
    h = Rotl(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  uint32_t k = 0;
  switch (n & 3) {
    case 3:
      k ^= static_cast<uint32_t>(bytes[i + 2]) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(bytes[i + 1]) << 8;
      [[fallthrough]];
    case 1:
      k ^= static_cast<uint32_t>(bytes[i]);
      k *= c1;
      k = Rotl(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(n);
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

std::string LittleEndian64(int64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  return out;
}

// The minimal big-endian two's complement bytes of an unscaled decimal (Java's
// BigInteger.toByteArray).
std::string DecimalBytes(Int128 v) {
  std::string out;
  for (int i = 15; i >= 0; --i) {
    out.push_back(static_cast<char>(static_cast<UInt128>(v) >> (8 * i) & 0xff));
  }
  size_t start = 0;
  while (start + 1 < out.size()) {
    const auto b = static_cast<unsigned char>(out[start]);
    const auto next = static_cast<unsigned char>(out[start + 1]);
    if ((b == 0x00 && (next & 0x80) == 0) || (b == 0xff && (next & 0x80) != 0)) {
      ++start;
    } else {
      break;
    }
  }
  return out.substr(start);
}

// The first `n` code points of UTF-8 text.
std::string TruncateUtf8(std::string_view s, int n) {
  size_t pos = 0;
  int count = 0;
  while (pos < s.size() && count < n) {
    const auto c = static_cast<unsigned char>(s[pos]);
    pos += c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
    ++count;
  }
  return std::string(s.substr(0, std::min(pos, s.size())));
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xc0) != 0x80) ++n;
  }
  return n;
}

// ---- Expressions -----------------------------------------------------------------------------

ExprPtr Make(Expr e) { return std::make_shared<const Expr>(std::move(e)); }

ExprPtr Node(Op op, ExprPtr left = nullptr) {
  Expr e;
  e.op = op;
  e.left = std::move(left);
  return Make(std::move(e));
}

struct OpName {
  const char* name;
  Op op;
};
constexpr OpName kOps[] = {
    {"is-null", Op::kIsNull},
    {"not-null", Op::kNotNull},
    {"is-nan", Op::kIsNan},
    {"not-nan", Op::kNotNan},
    {"lt", Op::kLt},
    {"lt-eq", Op::kLtEq},
    {"gt", Op::kGt},
    {"gt-eq", Op::kGtEq},
    {"eq", Op::kEq},
    {"not-eq", Op::kNotEq},
    {"starts-with", Op::kStartsWith},
    {"not-starts-with", Op::kNotStartsWith},
    {"in", Op::kIn},
    {"not-in", Op::kNotIn},
};

const char* OpText(Op op) {
  for (const auto& o : kOps) {
    if (o.op == op) return o.name;
  }
  return "?";
}

Op Negate(Op op) {
  switch (op) {
    case Op::kIsNull:
      return Op::kNotNull;
    case Op::kNotNull:
      return Op::kIsNull;
    case Op::kIsNan:
      return Op::kNotNan;
    case Op::kNotNan:
      return Op::kIsNan;
    case Op::kLt:
      return Op::kGtEq;
    case Op::kLtEq:
      return Op::kGt;
    case Op::kGt:
      return Op::kLtEq;
    case Op::kGtEq:
      return Op::kLt;
    case Op::kEq:
      return Op::kNotEq;
    case Op::kNotEq:
      return Op::kEq;
    case Op::kStartsWith:
      return Op::kNotStartsWith;
    case Op::kNotStartsWith:
      return Op::kStartsWith;
    case Op::kIn:
      return Op::kNotIn;
    case Op::kNotIn:
      return Op::kIn;
    default:
      return op;
  }
}

bool IsUnary(Op op) {
  return op == Op::kIsNull || op == Op::kNotNull || op == Op::kIsNan || op == Op::kNotNan;
}
bool IsSet(Op op) { return op == Op::kIn || op == Op::kNotIn; }

const char* TypeText(const PrimitiveType& t) {
  switch (t.id) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt:
      return "int";
    case TypeId::kLong:
      return "long";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDecimal:
      return "decimal";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampTz:
      return "timestamptz";
    case TypeId::kTimestampNs:
      return "timestamp_ns";
    case TypeId::kTimestampTzNs:
      return "timestamptz_ns";
    case TypeId::kString:
      return "string";
    case TypeId::kUuid:
      return "uuid";
    case TypeId::kFixed:
      return "fixed";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kOther:
      break;
  }
  return "nested or unsupported type";
}

// A literal of the request converted to the type of the field it is compared with.
std::optional<Value> LiteralValue(const PrimitiveType& t, const Json& j) {
  switch (t.id) {
    case TypeId::kBoolean:
      if (j.is_boolean()) return Value::Bool(j.get<bool>());
      if (j.is_string() && (j == "true" || j == "false")) return Value::Bool(j == "true");
      return std::nullopt;
    case TypeId::kInt:
    case TypeId::kLong:
      if (j.is_number_integer()) return Value::Int(j.get<int64_t>());
      return std::nullopt;
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (j.is_number()) return Value::Double(j.get<double>());
      return std::nullopt;
    case TypeId::kDecimal: {
      std::string text;
      if (j.is_string()) {
        text = j.get<std::string>();
      } else if (j.is_number_integer()) {
        text = std::to_string(j.get<int64_t>());
      } else if (j.is_number_float()) {
        text = fmt::format("{}", j.get<double>());
      } else {
        return std::nullopt;
      }
      auto v = ParseDecimal(text, t.scale);
      if (!v) return std::nullopt;
      return Value::Int(*v);
    }
    case TypeId::kDate:
      if (j.is_number_integer()) return Value::Int(j.get<int64_t>());
      if (j.is_string()) {
        if (auto d = ParseDate(j.get<std::string>())) return Value::Int(*d);
      }
      return std::nullopt;
    case TypeId::kTime:
      if (j.is_number_integer()) return Value::Int(j.get<int64_t>());
      if (j.is_string()) {
        if (auto v = ParseTime(j.get<std::string>(), 6)) return Value::Int(*v);
      }
      return std::nullopt;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (j.is_number_integer()) return Value::Int(j.get<int64_t>());
      if (j.is_string()) {
        if (auto v = ParseTimestamp(j.get<std::string>(), IsNanos(t.id) ? 9 : 6)) {
          return Value::Int(*v);
        }
      }
      return std::nullopt;
    case TypeId::kString:
      if (j.is_string()) return Value::Bytes(j.get<std::string>());
      return std::nullopt;
    case TypeId::kUuid:
      if (j.is_string()) {
        if (auto v = ParseUuid(j.get<std::string>())) return Value::Bytes(*v);
      }
      return std::nullopt;
    case TypeId::kFixed:
    case TypeId::kBinary:
      if (j.is_string()) {
        if (auto v = ParseHex(j.get<std::string>())) {
          if (t.id == TypeId::kFixed && static_cast<int>(v->size()) != t.length) return std::nullopt;
          return Value::Bytes(*v);
        }
      }
      return std::nullopt;
    case TypeId::kOther:
      break;
  }
  return std::nullopt;
}

struct Binder {
  const SchemaIndex& schema;
  bool case_sensitive;
  std::string_view where;

  Error Invalid(std::string message) const {
    return InvalidArgument("Invalid field '{}': {}", where, message);
  }

  Result<ExprPtr> Bind(const Json& j, int depth) const {  // NOLINT(misc-no-recursion)
    if (depth > 256) return Invalid("the expression is nested deeper than 256 levels");
    if (j.is_boolean()) return j.get<bool>() ? True() : False();
    if (!j.is_object()) return Invalid(fmt::format("expected an expression, got {}", Text(j)));
    const Json& type = MemberOrNull(j, "type");
    if (!type.is_string()) return Invalid("an expression has no string 'type'");
    const std::string op = type.get<std::string>();
    if (op == "true") return True();
    if (op == "false") return False();
    if (op == "and" || op == "or") {
      const Json& l = MemberOrNull(j, "left");
      const Json& r = MemberOrNull(j, "right");
      if (l.is_null() || r.is_null()) return Invalid(fmt::format("'{}' needs 'left' and 'right'", op));
      CAIRN_ASSIGN_OR_RETURN(auto left, Bind(l, depth + 1));
      CAIRN_ASSIGN_OR_RETURN(auto right, Bind(r, depth + 1));
      return op == "and" ? And(left, right) : Or(left, right);
    }
    if (op == "not") {
      const Json& child = MemberOrNull(j, "child");
      if (child.is_null()) return Invalid("'not' needs a 'child'");
      CAIRN_ASSIGN_OR_RETURN(auto c, Bind(child, depth + 1));
      if (c->op == Op::kTrue) return False();
      if (c->op == Op::kFalse) return True();
      Expr e;
      e.op = Op::kNot;
      e.left = c;
      return Make(std::move(e));
    }
    const OpName* found = nullptr;
    for (const auto& o : kOps) {
      if (op == o.name) found = &o;
    }
    if (found == nullptr) return Invalid(fmt::format("unknown expression type '{}'", op));
    return BindPredicate(j, found->op);
  }

  Result<ExprPtr> BindPredicate(const Json& j, Op op) const {
    Expr e;
    e.op = op;
    e.json = j;
    // The term: a name, a reference object, or a transform of one.
    const Json* term = &MemberOrNull(j, "term");
    if (term->is_object() && MemberOrNull(*term, "type") == "transform") {
      const Json& t = MemberOrNull(*term, "transform");
      if (!t.is_string()) return Invalid("a transform term has no 'transform'");
      e.term_transform = ParseTransform(t.get<std::string>());
      term = &MemberOrNull(*term, "term");
    }
    if (term->is_object() && MemberOrNull(*term, "type") == "reference") {
      term = &MemberOrNull(*term, "term");
    }
    if (!term->is_string()) {
      return Invalid(fmt::format("'{}' needs a 'term' naming a column", OpText(op)));
    }
    const std::string name = term->get<std::string>();
    const SchemaIndex::Field* field = schema.Find(name, case_sensitive);
    if (field == nullptr) {
      return Invalid(fmt::format("Cannot find field '{}' in the table schema", name));
    }
    e.field = field->id;
    e.type = field->type;
    if (e.term_transform) e.type = TransformResultType(*e.term_transform, field->type);
    if (IsUnary(op)) {
      if ((op == Op::kIsNan || op == Op::kNotNan) && e.type.id != TypeId::kFloat &&
          e.type.id != TypeId::kDouble) {
        return Invalid(fmt::format("{} cannot be used with the non-floating-point column '{}'",
                                   OpText(op), name));
      }
      return Make(std::move(e));
    }
    if (e.type.id == TypeId::kOther) {
      return Invalid(fmt::format("'{}' cannot compare the column '{}' of a {}", OpText(op), name,
                                 TypeText(e.type)));
    }
    if ((op == Op::kStartsWith || op == Op::kNotStartsWith) && e.type.id != TypeId::kString) {
      return Invalid(fmt::format("'{}' needs a string column, '{}' is {}", OpText(op), name,
                                 TypeText(e.type)));
    }
    std::vector<const Json*> literals;
    if (IsSet(op)) {
      const Json& values = MemberOrNull(j, "values");
      if (!values.is_array()) return Invalid(fmt::format("'{}' needs an array 'values'", OpText(op)));
      for (const auto& v : values) literals.push_back(&v);
    } else {
      const Json& value = MemberOrNull(j, "value");
      if (value.is_null()) return Invalid(fmt::format("'{}' needs a 'value'", OpText(op)));
      literals.push_back(&value);
    }
    for (const Json* lit : literals) {
      auto v = LiteralValue(e.type, *lit);
      if (!v) {
        return Invalid(fmt::format("Invalid value for conversion to type {} of column '{}': {}",
                                   TypeText(e.type), name, Text(*lit)));
      }
      if (v->is_nan()) {
        return Invalid(fmt::format("Invalid expression literal: NaN, use is-nan or not-nan"));
      }
      e.values.push_back(std::move(*v));
    }
    if (IsSet(op) && e.values.empty()) return op == Op::kIn ? False() : True();
    return Make(std::move(e));
  }
};

ExprPtr NegatedPredicate(const Expr& p) {
  Expr e = p;
  e.op = Negate(p.op);
  if (e.json.is_object()) e.json["type"] = OpText(e.op);
  return Make(std::move(e));
}

// Bounds of a file's column or a manifest's partition field, decoded.
struct Bounds {
  std::optional<Value> lower, upper;
};

// Whether the values in [lower, upper] may satisfy a comparison predicate; unknown bounds say
// yes.
bool RangeMayMatch(const Expr& p, const Bounds& b) {
  auto usable = [](const std::optional<Value>& v) { return v && !v->is_null() && !v->is_nan(); };
  const bool lo = usable(b.lower), hi = usable(b.upper);
  switch (p.op) {
    case Op::kLt:
      return !lo || Compare(*b.lower, p.values[0]) < 0;
    case Op::kLtEq:
      return !lo || Compare(*b.lower, p.values[0]) <= 0;
    case Op::kGt:
      return !hi || Compare(*b.upper, p.values[0]) > 0;
    case Op::kGtEq:
      return !hi || Compare(*b.upper, p.values[0]) >= 0;
    case Op::kEq:
      return (!lo || Compare(*b.lower, p.values[0]) <= 0) &&
             (!hi || Compare(*b.upper, p.values[0]) >= 0);
    case Op::kIn:
      if (p.values.size() > 200) return true;
      return std::any_of(p.values.begin(), p.values.end(), [&](const Value& v) {
        return (!lo || Compare(*b.lower, v) <= 0) && (!hi || Compare(*b.upper, v) >= 0);
      });
    case Op::kStartsWith: {
      const std::string& prefix = p.values[0].s;
      if (lo && b.lower->s.substr(0, prefix.size()) > prefix) return false;
      if (hi && b.upper->s.substr(0, prefix.size()) < prefix) return false;
      return true;
    }
    default:
      return true;
  }
}

// The exact value of a predicate on one value (a partition value); nullopt when a null value
// leaves it undecided under Iceberg's semantics (the caller then keeps the file or the predicate).
std::optional<bool> Test(const Expr& p, const Value& v) {
  if (v.is_null()) {
    if (p.op == Op::kIsNull) return true;
    if (p.op == Op::kNotNull) return false;
    if (p.op == Op::kNotEq || p.op == Op::kNotIn || p.op == Op::kNotStartsWith) return std::nullopt;
    return false;
  }
  switch (p.op) {
    case Op::kIsNull:
      return false;
    case Op::kNotNull:
      return true;
    case Op::kIsNan:
      return v.is_nan();
    case Op::kNotNan:
      return !v.is_nan();
    default:
      break;
  }
  if (v.is_nan()) {
    if (p.op == Op::kNotEq || p.op == Op::kNotIn) return true;
    return false;
  }
  switch (p.op) {
    case Op::kLt:
      return Compare(v, p.values[0]) < 0;
    case Op::kLtEq:
      return Compare(v, p.values[0]) <= 0;
    case Op::kGt:
      return Compare(v, p.values[0]) > 0;
    case Op::kGtEq:
      return Compare(v, p.values[0]) >= 0;
    case Op::kEq:
      return Compare(v, p.values[0]) == 0;
    case Op::kNotEq:
      return Compare(v, p.values[0]) != 0;
    case Op::kIn:
      return std::any_of(p.values.begin(), p.values.end(),
                         [&](const Value& x) { return Compare(v, x) == 0; });
    case Op::kNotIn:
      return std::none_of(p.values.begin(), p.values.end(),
                          [&](const Value& x) { return Compare(v, x) == 0; });
    case Op::kStartsWith:
      return v.s.compare(0, p.values[0].s.size(), p.values[0].s) == 0;
    case Op::kNotStartsWith:
      return v.s.compare(0, p.values[0].s.size(), p.values[0].s) != 0;
    default:
      return std::nullopt;
  }
}

// One predicate on a source column projected through one partition field (nullptr: no
// projection, anything may match).
ExprPtr ProjectPredicate(const Expr& p, const BoundPartitionField& f, int position) {
  const Transform& t = f.transform;
  Expr out;
  out.field = position;
  out.type = f.result_type;
  auto with = [&](Op op, std::vector<Value> values) {
    out.op = op;
    out.values = std::move(values);
    return Make(out);
  };
  auto apply = [&](const Value& v) { return ApplyTransform(t, f.source_type, v); };
  if (t.kind == Transform::Kind::kVoid || t.kind == Transform::Kind::kUnknown) return nullptr;
  if (p.op == Op::kIsNull || p.op == Op::kNotNull) return with(p.op, {});
  if (t.kind == Transform::Kind::kIdentity) return with(p.op, p.values);
  if (p.op == Op::kIsNan || p.op == Op::kNotNan || p.op == Op::kNotEq || p.op == Op::kNotIn ||
      p.op == Op::kNotStartsWith) {
    return nullptr;
  }
  std::vector<Value> mapped;
  if (p.op == Op::kEq || p.op == Op::kIn) {
    for (const auto& v : p.values) {
      auto m = apply(v);
      if (!m) return nullptr;
      mapped.push_back(std::move(*m));
    }
    return with(p.op, std::move(mapped));
  }
  if (t.kind == Transform::Kind::kBucket) return nullptr;
  const Value& v = p.values[0];
  const bool ordered_numbers = v.kind == Kind::kInt;  // ints, longs, decimals, dates, times
  if (p.op == Op::kStartsWith) {
    if (t.kind != Transform::Kind::kTruncate) return nullptr;
    if (static_cast<int>(CodePoints(v.s)) < t.param) return with(Op::kStartsWith, {v});
    auto m = apply(v);
    if (!m) return nullptr;
    return with(Op::kEq, {*m});
  }
  // lt / lt-eq / gt / gt-eq: strict bounds move by one unit of the source for ordered numbers.
  Value bound = v;
  Op op = p.op;
  if (ordered_numbers && (op == Op::kLt || op == Op::kGt)) {
    bound.i += op == Op::kLt ? -1 : 1;
    op = op == Op::kLt ? Op::kLtEq : Op::kGtEq;
  } else if (op == Op::kLt) {
    op = Op::kLtEq;
  } else if (op == Op::kGt) {
    op = Op::kGtEq;
  }
  auto m = apply(bound);
  if (!m) return nullptr;
  return with(op, {*m});
}

}  // namespace

// ---- Public ----------------------------------------------------------------------------------

PrimitiveType ParsePrimitiveType(const Json& type) {
  PrimitiveType t;
  if (!type.is_string()) return t;
  const std::string s = type.get<std::string>();
  static const std::pair<const char*, TypeId> kSimple[] = {
      {"boolean", TypeId::kBoolean},     {"int", TypeId::kInt},
      {"long", TypeId::kLong},           {"float", TypeId::kFloat},
      {"double", TypeId::kDouble},       {"date", TypeId::kDate},
      {"time", TypeId::kTime},           {"timestamp", TypeId::kTimestamp},
      {"timestamptz", TypeId::kTimestampTz}, {"timestamp_ns", TypeId::kTimestampNs},
      {"timestamptz_ns", TypeId::kTimestampTzNs}, {"string", TypeId::kString},
      {"uuid", TypeId::kUuid},           {"binary", TypeId::kBinary},
  };
  for (const auto& [name, id] : kSimple) {
    if (s == name) {
      t.id = id;
      return t;
    }
  }
  int a = 0, b = 0;
  if (std::sscanf(s.c_str(), "fixed[%d]", &a) == 1) {
    t.id = TypeId::kFixed;
    t.length = a;
  } else if (std::sscanf(s.c_str(), "decimal(%d, %d)", &a, &b) == 2 ||
             std::sscanf(s.c_str(), "decimal(%d,%d)", &a, &b) == 2) {
    t.id = TypeId::kDecimal;
    t.precision = a;
    t.scale = b;
  }
  return t;
}

bool Value::is_nan() const { return kind == Kind::kDouble && std::isnan(d); }

int Compare(const Value& a, const Value& b) {
  switch (a.kind) {
    case Kind::kNull:
      return b.is_null() ? 0 : -1;
    case Kind::kBool:
      return a.b == b.b ? 0 : (a.b ? 1 : -1);
    case Kind::kInt:
      return a.i == b.i ? 0 : (a.i < b.i ? -1 : 1);
    case Kind::kDouble:
      return a.d == b.d ? 0 : (a.d < b.d ? -1 : 1);
    case Kind::kBytes: {
      const int c = a.s.compare(b.s);
      return c == 0 ? 0 : (c < 0 ? -1 : 1);
    }
  }
  return 0;
}

std::optional<Value> FromBinary(const PrimitiveType& type, std::string_view bytes) {
  auto little = [&](size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
    return v;
  };
  switch (type.id) {
    case TypeId::kBoolean:
      if (bytes.size() != 1) return std::nullopt;
      return Value::Bool(bytes[0] != 0);
    case TypeId::kInt:
    case TypeId::kDate:
      if (bytes.size() != 4) return std::nullopt;
      return Value::Int(static_cast<int32_t>(little(4)));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (bytes.size() == 4) return Value::Int(static_cast<int32_t>(little(4)));  // promoted int
      if (bytes.size() != 8) return std::nullopt;
      return Value::Int(static_cast<int64_t>(little(8)));
    case TypeId::kFloat:
    case TypeId::kDouble: {
      if (bytes.size() == 4) {
        const auto bits = static_cast<uint32_t>(little(4));
        float f;
        std::memcpy(&f, &bits, 4);
        return Value::Double(f);
      }
      if (bytes.size() != 8) return std::nullopt;
      const uint64_t bits = little(8);
      double d;
      std::memcpy(&d, &bits, 8);
      return Value::Double(d);
    }
    case TypeId::kDecimal: {
      if (bytes.empty() || bytes.size() > 16) return std::nullopt;
      Int128 v = (static_cast<unsigned char>(bytes[0]) & 0x80) != 0 ? -1 : 0;
      for (unsigned char c : bytes) v = static_cast<Int128>((static_cast<UInt128>(v) << 8) | c);
      return Value::Int(v);
    }
    case TypeId::kString:
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary:
      return Value::Bytes(std::string(bytes));
    case TypeId::kOther:
      break;
  }
  return std::nullopt;
}

std::optional<Value> FromAvro(const PrimitiveType& type, const Json& value) {
  if (value.is_null()) return Value::Null();
  switch (type.id) {
    case TypeId::kBoolean:
      if (value.is_boolean()) return Value::Bool(value.get<bool>());
      return std::nullopt;
    case TypeId::kDecimal:
      if (value.is_binary()) {
        const auto& bin = value.get_binary();
        return FromBinary(type, std::string_view(reinterpret_cast<const char*>(bin.data()), bin.size()));
      }
      return std::nullopt;
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (value.is_number()) return Value::Double(value.get<double>());
      return std::nullopt;
    case TypeId::kString:
      if (value.is_string()) return Value::Bytes(value.get<std::string>());
      return std::nullopt;
    case TypeId::kUuid:
      if (value.is_string()) {
        if (auto v = ParseUuid(value.get<std::string>())) return Value::Bytes(*v);
        return std::nullopt;
      }
      [[fallthrough]];
    case TypeId::kFixed:
    case TypeId::kBinary:
      if (value.is_binary()) {
        const auto& bin = value.get_binary();
        return Value::Bytes(std::string(reinterpret_cast<const char*>(bin.data()), bin.size()));
      }
      return std::nullopt;
    case TypeId::kOther:
      return std::nullopt;
    default:
      if (value.is_number_integer()) return Value::Int(value.get<int64_t>());
      return std::nullopt;
  }
}

Json ToSingleValueJson(const PrimitiveType& type, const Value& v) {
  if (v.is_null()) return nullptr;
  switch (type.id) {
    case TypeId::kBoolean:
      return v.b;
    case TypeId::kInt:
    case TypeId::kLong:
      return static_cast<int64_t>(v.i);
    case TypeId::kFloat:
    case TypeId::kDouble:
      return v.d;
    case TypeId::kDecimal:
      return DecimalText(v.i, type.scale);
    case TypeId::kDate:
      return DateText(static_cast<int64_t>(v.i));
    case TypeId::kTime:
      return TimeText(static_cast<int64_t>(v.i), 1'000'000, 6);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      const int64_t per_day = IsNanos(type.id) ? kMicrosPerDay * 1000 : kMicrosPerDay;
      const auto units = static_cast<int64_t>(v.i);
      const int64_t day = FloorDiv(units, per_day);
      std::string text = DateText(day) + "T" +
                         TimeText(units - day * per_day, IsNanos(type.id) ? 1'000'000'000 : 1'000'000,
                                  IsNanos(type.id) ? 9 : 6);
      if (IsTz(type.id)) text += "+00:00";
      return text;
    }
    case TypeId::kString:
      return v.s;
    case TypeId::kUuid:
      return UuidText(v.s);
    case TypeId::kFixed:
    case TypeId::kBinary:
      return HexUpper(v.s);
    case TypeId::kOther:
      break;
  }
  return nullptr;
}

Transform ParseTransform(std::string_view text) {
  Transform t;
  t.text = std::string(text);
  auto param = [&](std::string_view prefix) -> std::optional<int> {
    if (!text.starts_with(prefix) || !text.ends_with("]")) return std::nullopt;
    int v = 0;
    const std::string_view digits = text.substr(prefix.size(), text.size() - prefix.size() - 1);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || p != digits.data() + digits.size() || v <= 0) return std::nullopt;
    return v;
  };
  if (text == "identity") {
    t.kind = Transform::Kind::kIdentity;
  } else if (text == "year") {
    t.kind = Transform::Kind::kYear;
  } else if (text == "month") {
    t.kind = Transform::Kind::kMonth;
  } else if (text == "day") {
    t.kind = Transform::Kind::kDay;
  } else if (text == "hour") {
    t.kind = Transform::Kind::kHour;
  } else if (text == "void") {
    t.kind = Transform::Kind::kVoid;
  } else if (auto n = param("bucket[")) {
    t.kind = Transform::Kind::kBucket;
    t.param = *n;
  } else if (auto w = param("truncate[")) {
    t.kind = Transform::Kind::kTruncate;
    t.param = *w;
  }
  return t;
}

PrimitiveType TransformResultType(const Transform& t, const PrimitiveType& source) {
  PrimitiveType out;
  switch (t.kind) {
    case Transform::Kind::kIdentity:
    case Transform::Kind::kTruncate:
    case Transform::Kind::kVoid:
      return source;
    case Transform::Kind::kBucket:
    case Transform::Kind::kYear:
    case Transform::Kind::kMonth:
    case Transform::Kind::kHour:
      out.id = TypeId::kInt;
      return out;
    case Transform::Kind::kDay:
      out.id = TypeId::kDate;
      return out;
    case Transform::Kind::kUnknown:
      break;
  }
  return out;
}

int32_t BucketHash(const PrimitiveType& type, const Value& v) {
  switch (type.id) {
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return Murmur3(LittleEndian64(static_cast<int64_t>(v.i)));
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return Murmur3(LittleEndian64(FloorDiv(static_cast<int64_t>(v.i), 1000)));
    case TypeId::kDecimal:
      return Murmur3(DecimalBytes(v.i));
    default:
      return Murmur3(v.s);
  }
}

std::optional<Value> ApplyTransform(const Transform& t, const PrimitiveType& source,
                                    const Value& v) {
  if (v.is_null()) return Value::Null();
  switch (t.kind) {
    case Transform::Kind::kIdentity:
      return v;
    case Transform::Kind::kVoid:
      return Value::Null();
    case Transform::Kind::kBucket:
      if (!IsIntegral(source.id) && !IsBytes(source.id)) return std::nullopt;
      return Value::Int((BucketHash(source, v) & std::numeric_limits<int32_t>::max()) % t.param);
    case Transform::Kind::kTruncate:
      if (source.id == TypeId::kInt || source.id == TypeId::kLong || source.id == TypeId::kDecimal) {
        return Value::Int(v.i - FloorMod128(v.i, t.param));
      }
      if (source.id == TypeId::kString) return Value::Bytes(TruncateUtf8(v.s, t.param));
      if (source.id == TypeId::kBinary) return Value::Bytes(v.s.substr(0, static_cast<size_t>(t.param)));
      return std::nullopt;
    case Transform::Kind::kYear:
    case Transform::Kind::kMonth:
    case Transform::Kind::kDay:
    case Transform::Kind::kHour: {
      int64_t days = 0;
      int64_t micros = 0;
      if (source.id == TypeId::kDate) {
        if (t.kind == Transform::Kind::kHour) return std::nullopt;
        days = static_cast<int64_t>(v.i);
      } else if (IsTimestamp(source.id)) {
        micros = IsNanos(source.id) ? FloorDiv(static_cast<int64_t>(v.i), 1000) : static_cast<int64_t>(v.i);
        days = FloorDiv(micros, kMicrosPerDay);
      } else {
        return std::nullopt;
      }
      if (t.kind == Transform::Kind::kHour) return Value::Int(FloorDiv(micros, kMicrosPerHour));
      if (t.kind == Transform::Kind::kDay) return Value::Int(days);
      const Civil c = CivilFromDays(days);
      if (t.kind == Transform::Kind::kYear) return Value::Int(c.y - 1970);
      return Value::Int((c.y - 1970) * 12 + static_cast<int64_t>(c.m) - 1);
    }
    case Transform::Kind::kUnknown:
      break;
  }
  return std::nullopt;
}

ExprPtr True() {
  static const ExprPtr t = Node(Op::kTrue);
  return t;
}
ExprPtr False() {
  static const ExprPtr f = Node(Op::kFalse);
  return f;
}
ExprPtr And(ExprPtr a, ExprPtr b) {
  if (a->op == Op::kFalse || b->op == Op::kFalse) return False();
  if (a->op == Op::kTrue) return b;
  if (b->op == Op::kTrue) return a;
  Expr e;
  e.op = Op::kAnd;
  e.left = std::move(a);
  e.right = std::move(b);
  return Make(std::move(e));
}
ExprPtr Or(ExprPtr a, ExprPtr b) {
  if (a->op == Op::kTrue || b->op == Op::kTrue) return True();
  if (a->op == Op::kFalse) return b;
  if (b->op == Op::kFalse) return a;
  Expr e;
  e.op = Op::kOr;
  e.left = std::move(a);
  e.right = std::move(b);
  return Make(std::move(e));
}

SchemaIndex::SchemaIndex(const Json& schema) {
  // Walks struct fields, list elements and map keys and values, without recursion.
  struct Pending {
    const Json* type;
    std::string prefix;
  };
  std::vector<Pending> stack{{&schema, ""}};
  auto add = [&](int id, const Json& type, const std::string& name) {
    by_name_[name] = Field{id, ParsePrimitiveType(type), name};
    std::string lower = name;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    lower_.emplace(lower, name);
    by_id_[id] = name;
    if (type.is_object()) stack.push_back({&type, name + "."});
  };
  while (!stack.empty()) {
    Pending p = std::move(stack.back());
    stack.pop_back();
    const Json& t = *p.type;
    const Json& kind = MemberOrNull(t, "type");
    if (kind == "struct") {
      const Json& fields = MemberOrNull(t, "fields");
      if (!fields.is_array()) continue;
      for (const auto& f : fields) {
        const Json& name = MemberOrNull(f, "name");
        if (!name.is_string()) continue;
        add(IntOr(f, "id", -1), MemberOrNull(f, "type"), p.prefix + name.get<std::string>());
      }
    } else if (kind == "list") {
      add(IntOr(t, "element-id", -1), MemberOrNull(t, "element"), p.prefix + "element");
    } else if (kind == "map") {
      add(IntOr(t, "key-id", -1), MemberOrNull(t, "key"), p.prefix + "key");
      add(IntOr(t, "value-id", -1), MemberOrNull(t, "value"), p.prefix + "value");
    }
  }
}

const SchemaIndex::Field* SchemaIndex::Find(std::string_view name, bool case_sensitive) const {
  if (case_sensitive) {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &it->second;
  }
  std::string lower(name);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto l = lower_.find(lower);
  if (l == lower_.end()) return nullptr;
  return &by_name_.find(l->second)->second;
}

const SchemaIndex::Field* SchemaIndex::ById(int id) const {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return nullptr;
  return &by_name_.find(it->second)->second;
}

Result<ExprPtr> BindFilter(const Json& filter, const SchemaIndex& schema, bool case_sensitive,
                           std::string_view where) {
  return Binder{schema, case_sensitive, where}.Bind(filter, 0);
}

ExprPtr RewriteNot(const ExprPtr& e) {  // NOLINT(misc-no-recursion)
  switch (e->op) {
    case Op::kAnd:
      return And(RewriteNot(e->left), RewriteNot(e->right));
    case Op::kOr:
      return Or(RewriteNot(e->left), RewriteNot(e->right));
    case Op::kNot: {
      const ExprPtr& c = e->left;
      switch (c->op) {
        case Op::kTrue:
          return False();
        case Op::kFalse:
          return True();
        case Op::kNot:
          return RewriteNot(c->left);
        case Op::kAnd:
          return Or(RewriteNot(Node(Op::kNot, c->left)), RewriteNot(Node(Op::kNot, c->right)));
        case Op::kOr:
          return And(RewriteNot(Node(Op::kNot, c->left)), RewriteNot(Node(Op::kNot, c->right)));
        default:
          return NegatedPredicate(*c);
      }
    }
    default:
      return e;
  }
}

std::vector<BoundPartitionField> BindPartitionSpec(const Json& spec, const SchemaIndex& schema) {
  std::vector<BoundPartitionField> out;
  const Json& fields = MemberOrNull(spec, "fields");
  if (!fields.is_array()) return out;
  for (const auto& f : fields) {
    BoundPartitionField s;
    s.source_id = IntOr(f, "source-id", -1);
    s.field_id = IntOr(f, "field-id", -1);
    const Json& name = MemberOrNull(f, "name");
    if (name.is_string()) s.name = name.get<std::string>();
    const Json& transform = MemberOrNull(f, "transform");
    s.transform = ParseTransform(transform.is_string() ? transform.get<std::string>() : "");
    if (const auto* source = schema.ById(s.source_id)) s.source_type = source->type;
    s.result_type = TransformResultType(s.transform, s.source_type);
    if (s.source_type.id == TypeId::kOther) s.transform.kind = Transform::Kind::kUnknown;
    out.push_back(std::move(s));
  }
  return out;
}

ExprPtr ProjectInclusive(const ExprPtr& e, const std::vector<BoundPartitionField>& spec) {  // NOLINT
  switch (e->op) {
    case Op::kTrue:
    case Op::kFalse:
      return e;
    case Op::kAnd:
      return And(ProjectInclusive(e->left, spec), ProjectInclusive(e->right, spec));
    case Op::kOr:
      return Or(ProjectInclusive(e->left, spec), ProjectInclusive(e->right, spec));
    case Op::kNot:
      return True();  // callers rewrite NOT first
    default:
      break;
  }
  if (e->term_transform) return True();
  ExprPtr out = True();
  for (size_t i = 0; i < spec.size(); ++i) {
    if (spec[i].source_id != e->field) continue;
    if (auto p = ProjectPredicate(*e, spec[i], static_cast<int>(i))) out = And(out, p);
  }
  return out;
}

namespace {

// A NOT-free expression with `leaf` deciding each predicate ("may match"); NOT, which callers
// rewrite away, decides nothing.
template <typename Leaf>
bool Evaluate(const ExprPtr& e, const Leaf& leaf) {  // NOLINT(misc-no-recursion)
  switch (e->op) {
    case Op::kTrue:
    case Op::kNot:
      return true;
    case Op::kFalse:
      return false;
    case Op::kAnd:
      return Evaluate(e->left, leaf) && Evaluate(e->right, leaf);
    case Op::kOr:
      return Evaluate(e->left, leaf) || Evaluate(e->right, leaf);
    default:
      return leaf(e.get());
  }
}

bool SummaryMayMatch(const Expr* e, const std::vector<BoundPartitionField>& spec,
                     const std::vector<FieldSummary>& summaries);
bool ValueMayMatch(const Expr* e, const std::vector<Value>& partition);
bool FileMetricsMayMatch(const Expr* e, const FileMetrics& m);

}  // namespace

bool ManifestMayMatch(const ExprPtr& expr, const std::vector<BoundPartitionField>& spec,
                      const std::vector<FieldSummary>& summaries) {
  return Evaluate(expr, [&](const Expr* e) { return SummaryMayMatch(e, spec, summaries); });
}

bool PartitionMatches(const ExprPtr& expr, const std::vector<Value>& partition) {
  return Evaluate(expr, [&](const Expr* e) { return ValueMayMatch(e, partition); });
}

bool MetricsMayMatch(const ExprPtr& expr, const FileMetrics& m) {
  if (m.record_count == 0) return false;
  return Evaluate(expr, [&](const Expr* e) { return FileMetricsMayMatch(e, m); });
}

namespace {

bool SummaryMayMatch(const Expr* e, const std::vector<BoundPartitionField>& spec,
                     const std::vector<FieldSummary>& summaries) {
  if (e->field < 0 || static_cast<size_t>(e->field) >= summaries.size() ||
      static_cast<size_t>(e->field) >= spec.size()) {
    return true;
  }
  const FieldSummary& s = summaries[static_cast<size_t>(e->field)];
  const PrimitiveType& type = spec[static_cast<size_t>(e->field)].result_type;
  const bool no_values = !s.lower.has_value();  // every value null or NaN
  switch (e->op) {
    case Op::kIsNull:
      return s.contains_null;
    case Op::kNotNull:
      return !(no_values && s.contains_null && s.contains_nan == false);
    case Op::kIsNan:
      return s.contains_nan != false;
    case Op::kNotNan:
    case Op::kNotEq:
    case Op::kNotIn:
    case Op::kNotStartsWith:
      return true;
    default:
      break;
  }
  if (no_values) return false;
  Bounds b;
  b.lower = FromBinary(type, *s.lower);
  if (s.upper) b.upper = FromBinary(type, *s.upper);
  return RangeMayMatch(*e, b);
}

bool ValueMayMatch(const Expr* e, const std::vector<Value>& partition) {
  if (e->field < 0 || static_cast<size_t>(e->field) >= partition.size()) return true;
  const Value& v = partition[static_cast<size_t>(e->field)];
  if (!v.is_null() && v.kind != (e->values.empty() ? v.kind : e->values[0].kind)) return true;
  return Test(*e, v).value_or(true);
}

bool FileMetricsMayMatch(const Expr* e, const FileMetrics& m) {
  if (e->term_transform || e->type.id == TypeId::kOther || e->type.id == TypeId::kUuid) return true;
  auto count = [](const std::map<int, int64_t>& counts, int id) -> std::optional<int64_t> {
    auto it = counts.find(id);
    if (it == counts.end()) return std::nullopt;
    return it->second;
  };
  const auto values = count(m.value_counts, e->field);
  const auto nulls = count(m.null_counts, e->field);
  const auto nans = count(m.nan_counts, e->field);
  const bool only_nulls = values && nulls && *values == *nulls;
  const bool only_nans = values && nans && *values == *nans;
  switch (e->op) {
    case Op::kIsNull:
      return !(nulls && *nulls == 0);
    case Op::kNotNull:
      return !only_nulls;
    case Op::kIsNan:
      if (nans && *nans == 0) return false;
      return !only_nulls;
    case Op::kNotNan:
      return !only_nans;
    case Op::kNotEq:
    case Op::kNotIn:
    case Op::kNotStartsWith:
      return true;
    default:
      break;
  }
  if (only_nulls || only_nans) return false;
  Bounds b;
  if (auto it = m.lower.find(e->field); it != m.lower.end()) b.lower = FromBinary(e->type, it->second);
  if (auto it = m.upper.find(e->field); it != m.upper.end()) b.upper = FromBinary(e->type, it->second);
  return RangeMayMatch(*e, b);
}

}  // namespace

ExprPtr Residual(const ExprPtr& e, const std::vector<BoundPartitionField>& spec,  // NOLINT
                 const std::vector<Value>& partition) {
  switch (e->op) {
    case Op::kAnd:
      return And(Residual(e->left, spec, partition), Residual(e->right, spec, partition));
    case Op::kOr:
      return Or(Residual(e->left, spec, partition), Residual(e->right, spec, partition));
    case Op::kTrue:
    case Op::kFalse:
    case Op::kNot:
      return e;
    default:
      break;
  }
  if (e->term_transform) return e;
  for (size_t i = 0; i < spec.size() && i < partition.size(); ++i) {
    if (spec[i].source_id != e->field || spec[i].transform.kind != Transform::Kind::kIdentity) {
      continue;
    }
    const Value& v = partition[i];
    if (!v.is_null() && !e->values.empty() && v.kind != e->values[0].kind) return e;
    if (v.is_null() && e->op != Op::kIsNull && e->op != Op::kNotNull) return e;
    if (auto decided = Test(*e, v)) return *decided ? True() : False();
    return e;
  }
  return e;
}

Json ToJson(const ExprPtr& e) {  // NOLINT(misc-no-recursion)
  switch (e->op) {
    case Op::kTrue:
      return true;
    case Op::kFalse:
      return false;
    case Op::kAnd:
    case Op::kOr: {
      Json out = Json::object();
      out["type"] = e->op == Op::kAnd ? "and" : "or";
      out["left"] = ToJson(e->left);
      out["right"] = ToJson(e->right);
      return out;
    }
    case Op::kNot: {
      Json out = Json::object();
      out["type"] = "not";
      out["child"] = ToJson(e->left);
      return out;
    }
    default:
      return e->json;
  }
}

}  // namespace cairn::iceberg
