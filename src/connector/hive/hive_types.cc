// SPDX-License-Identifier: Apache-2.0
#include "connector/hive/hive_types.h"

#include <cctype>
#include <optional>

#include "common/util.h"

namespace cairn::connector::hive {

namespace {

using model::TypeKind;
using model::TypePtr;

TypePtr External(std::string_view text) {
  auto t = std::make_shared<model::Type>();
  t->kind = TypeKind::kExternal;
  t->raw = std::string(text);
  return t;
}

// A recursive-descent reader of one Hive type string; nullopt on anything it does not know.
class Reader {
 public:
  explicit Reader(std::string_view text) : s_(text) {}

  std::optional<TypePtr> Whole() {
    auto t = Type(0);
    if (!t) return std::nullopt;
    Space();
    if (i_ != s_.size()) return std::nullopt;
    return t;
  }

 private:
  void Space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Eat(char c) {
    Space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  std::string Word() {
    Space();
    size_t start = i_;
    while (i_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) {
      ++i_;
    }
    return ToLower(s_.substr(start, i_ - start));
  }
  std::optional<int> Number() {
    Space();
    size_t start = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    auto n = ParseInt64(s_.substr(start, i_ - start));
    if (!n || *n > 100000) return std::nullopt;
    return static_cast<int>(*n);
  }
  // A struct field name: a word or `back quoted` (`` doubles a quote).
  std::optional<std::string> FieldName() {
    Space();
    if (i_ < s_.size() && s_[i_] == '`') {
      std::string out;
      for (++i_; i_ < s_.size(); ++i_) {
        if (s_[i_] == '`') {
          if (i_ + 1 < s_.size() && s_[i_ + 1] == '`') {
            out += '`';
            ++i_;
            continue;
          }
          ++i_;
          return out;
        }
        out += s_[i_];
      }
      return std::nullopt;
    }
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ':' && !std::isspace(static_cast<unsigned char>(s_[i_])) &&
           s_[i_] != ',' && s_[i_] != '<' && s_[i_] != '>') {
      ++i_;
    }
    if (start == i_) return std::nullopt;
    return std::string(s_.substr(start, i_ - start));
  }
  // COMMENT 'text' after a struct field's type ('' or \' inside).
  std::optional<std::optional<std::string>> Comment() {
    Space();
    size_t save = i_;
    if (Word() != "comment") {
      i_ = save;
      return std::optional<std::string>();
    }
    Space();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return std::nullopt;
    const char quote = s_[i_++];
    std::string out;
    for (; i_ < s_.size(); ++i_) {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
        out += s_[++i_];
        continue;
      }
      if (s_[i_] == quote) {
        ++i_;
        return std::optional<std::string>(out);
      }
      out += s_[i_];
    }
    return std::nullopt;
  }

  std::optional<TypePtr> Type(int depth) {
    if (depth > model::kMaxTypeDepth) return std::nullopt;
    const std::string w = Word();
    if (w == "boolean") return model::MakePrimitive(TypeKind::kBoolean);
    if (w == "tinyint") return model::MakePrimitive(TypeKind::kByte);
    if (w == "smallint") return model::MakePrimitive(TypeKind::kShort);
    if (w == "int" || w == "integer") return model::MakePrimitive(TypeKind::kInteger);
    if (w == "bigint") return model::MakePrimitive(TypeKind::kLong);
    if (w == "float") return model::MakePrimitive(TypeKind::kFloat);
    if (w == "double") {
      size_t save = i_;
      if (Word() != "precision") i_ = save;
      return model::MakePrimitive(TypeKind::kDouble);
    }
    if (w == "string") return model::MakePrimitive(TypeKind::kString);
    if (w == "binary") return model::MakePrimitive(TypeKind::kBinary);
    if (w == "date") return model::MakePrimitive(TypeKind::kDate);
    if (w == "timestamp") {
      size_t save = i_;
      if (Word() == "with") return std::nullopt;  // timestamp with local time zone: external
      i_ = save;
      return model::MakePrimitive(TypeKind::kTimestamp);
    }
    if (w == "interval_year_month") return model::MakePrimitive(TypeKind::kIntervalYear);
    if (w == "interval_day_time") return model::MakePrimitive(TypeKind::kIntervalDay);
    if (w == "decimal" || w == "numeric") {
      if (!Eat('(')) return model::MakeDecimal(10, 0);
      auto p = Number();
      if (!p) return std::nullopt;
      int scale = 0;
      if (Eat(',')) {
        auto s = Number();
        if (!s) return std::nullopt;
        scale = *s;
      }
      if (!Eat(')') || *p < 1 || *p > 38 || scale > *p) return std::nullopt;
      return model::MakeDecimal(*p, scale);
    }
    if (w == "char" || w == "varchar") {
      if (!Eat('(')) return std::nullopt;
      auto n = Number();
      if (!n || !Eat(')') || *n < 1) return std::nullopt;
      return model::MakeWithLength(w == "char" ? TypeKind::kChar : TypeKind::kVarchar, *n);
    }
    if (w == "array") {
      if (!Eat('<')) return std::nullopt;
      auto e = Type(depth + 1);
      if (!e || !Eat('>')) return std::nullopt;
      return model::MakeList(*e, true);
    }
    if (w == "map") {
      if (!Eat('<')) return std::nullopt;
      auto k = Type(depth + 1);
      if (!k || !Eat(',')) return std::nullopt;
      auto v = Type(depth + 1);
      if (!v || !Eat('>')) return std::nullopt;
      return model::MakeMap(*k, *v, true);
    }
    if (w == "struct") {
      if (!Eat('<')) return std::nullopt;
      std::vector<model::StructField> fields;
      if (Eat('>')) return model::MakeStruct(std::move(fields));
      do {
        auto name = FieldName();
        if (!name || !Eat(':')) return std::nullopt;
        auto t = Type(depth + 1);
        if (!t) return std::nullopt;
        auto comment = Comment();
        if (!comment) return std::nullopt;
        fields.push_back(model::StructField{*name, *t, true, *comment});
      } while (Eat(','));
      if (!Eat('>')) return std::nullopt;
      return model::MakeStruct(std::move(fields));
    }
    if (w == "uniontype") {
      if (!Eat('<')) return std::nullopt;
      auto u = std::make_shared<model::Type>();
      u->kind = TypeKind::kUnion;
      do {
        auto t = Type(depth + 1);
        if (!t) return std::nullopt;
        u->types.push_back(*t);
      } while (Eat(','));
      if (!Eat('>')) return std::nullopt;
      return TypePtr(u);
    }
    return std::nullopt;
  }

  std::string_view s_;
  size_t i_ = 0;
};

std::string QuoteFieldName(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') plain = false;
  }
  if (plain) return name;
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

Result<std::string> Write(const model::Type& t, std::string_view column, int depth) {
  if (depth > model::kMaxTypeDepth) {
    return InvalidArgument("Column '{}': type nests deeper than {} levels", column,
                           model::kMaxTypeDepth);
  }
  auto refuse = [&](std::string_view what) -> Error {
    return InvalidArgument("Column '{}': Hive has no {} type", column, what);
  };
  if (t.is_unsigned) return refuse("unsigned integer");
  switch (t.kind) {
    case TypeKind::kBoolean: return std::string("boolean");
    case TypeKind::kByte: return std::string("tinyint");
    case TypeKind::kShort: return std::string("smallint");
    case TypeKind::kInteger: return std::string("int");
    case TypeKind::kLong: return std::string("bigint");
    case TypeKind::kFloat: return std::string("float");
    case TypeKind::kDouble: return std::string("double");
    case TypeKind::kDecimal:
      if (t.precision < 1 || t.precision > 38) {
        return InvalidArgument("Column '{}': Hive decimals have a precision of 1 to 38, not {}",
                               column, t.precision);
      }
      return fmt::format("decimal({},{})", t.precision, t.scale);
    case TypeKind::kDate: return std::string("date");
    case TypeKind::kTimestamp: return std::string("timestamp");
    case TypeKind::kString: return std::string("string");
    case TypeKind::kChar:
      if (t.length < 1 || t.length > 255) {
        return InvalidArgument("Column '{}': Hive chars have a length of 1 to 255", column);
      }
      return fmt::format("char({})", t.length);
    case TypeKind::kVarchar:
      if (t.length < 1 || t.length > 65535) {
        return InvalidArgument("Column '{}': Hive varchars have a length of 1 to 65535", column);
      }
      return fmt::format("varchar({})", t.length);
    case TypeKind::kBinary: return std::string("binary");
    case TypeKind::kIntervalDay: return std::string("interval_day_time");
    case TypeKind::kIntervalYear: return std::string("interval_year_month");
    case TypeKind::kList: {
      CAIRN_ASSIGN_OR_RETURN(auto e, Write(*t.element, column, depth + 1));
      return "array<" + e + ">";
    }
    case TypeKind::kMap: {
      CAIRN_ASSIGN_OR_RETURN(auto k, Write(*t.key, column, depth + 1));
      CAIRN_ASSIGN_OR_RETURN(auto v, Write(*t.value, column, depth + 1));
      return "map<" + k + "," + v + ">";
    }
    case TypeKind::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < t.fields.size(); ++i) {
        const auto& f = t.fields[i];
        if (f.comment && !f.comment->empty()) {
          // HIVE-26593: field comments inside a struct type break Hive's readers.
          return InvalidArgument("Column '{}': Hive does not keep comments of struct fields ({})",
                                 column, f.name);
        }
        CAIRN_ASSIGN_OR_RETURN(auto ft, Write(*f.type, column, depth + 1));
        out += (i ? "," : "") + QuoteFieldName(f.name) + ":" + ft;
      }
      return out + ">";
    }
    case TypeKind::kUnion: {
      std::string out = "uniontype<";
      for (size_t i = 0; i < t.types.size(); ++i) {
        CAIRN_ASSIGN_OR_RETURN(auto ut, Write(*t.types[i], column, depth + 1));
        out += (i ? "," : "") + ut;
      }
      return out + ">";
    }
    case TypeKind::kExternal:
      if (t.raw.empty()) return refuse("empty external");
      return t.raw;
    case TypeKind::kTime: return refuse("time");
    case TypeKind::kTimestampTz: return refuse("timestamp with time zone");
    case TypeKind::kFixed: return refuse("fixed");
    case TypeKind::kUuid: return refuse("uuid");
    case TypeKind::kNull: return refuse("null");
    case TypeKind::kUnparsed: return refuse(fmt::format("'{}'", t.raw));
  }
  return refuse("such");
}

}  // namespace

model::TypePtr FromHiveType(std::string_view text) {
  Reader r(text);
  auto t = r.Whole();
  if (!t) return External(Trim(text));
  return *t;
}

Result<std::string> ToHiveType(const model::TypePtr& type, std::string_view column) {
  if (!type) return InvalidArgument("Column '{}' has no type", column);
  return Write(*type, column, 0);
}

}  // namespace cairn::connector::hive
