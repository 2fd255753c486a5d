// SPDX-License-Identifier: Apache-2.0
#include "connector/jdbc/jdbc_types.h"

#include <cctype>
#include <regex>

#include "common/util.h"

namespace cairn::connector::jdbc {

using model::Type;
using model::TypeKind;
using model::TypePtr;

namespace {

TypePtr Unsigned(TypeKind kind) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  t->is_unsigned = true;
  return t;
}

TypePtr External(std::string raw) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kExternal;
  t->raw = std::move(raw);
  return t;
}

std::string WithPrecision(std::string_view base, int precision) {
  return precision >= 0 ? fmt::format("{}({})", base, precision) : std::string(base);
}

Error NoMapping(const Type& type, std::string_view db) {
  std::string text = model::PrimitiveTypeString(type);
  if (text.empty()) {
    switch (type.kind) {
      case TypeKind::kStruct:
        text = "struct";
        break;
      case TypeKind::kList:
        text = "list";
        break;
      case TypeKind::kMap:
        text = "map";
        break;
      case TypeKind::kUnion:
        text = "union";
        break;
      case TypeKind::kUnparsed:
        text = "unparsed(" + type.raw + ")";
        break;
      default:
        text = "this type";
    }
  }
  return InvalidArgument("Type '{}' is not supported by {} catalogs", text, db);
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
  }
  return true;
}

// External type names are written into DDL verbatim: keep them to one type expression.
Status CheckExternal(const Type& type) {
  if (type.raw.empty() || type.raw.find(';') != std::string::npos ||
      type.raw.find("--") != std::string::npos || type.raw.find("/*") != std::string::npos) {
    return InvalidArgument("External type '{}' is not a valid column type", type.raw);
  }
  return Ok();
}

}  // namespace

// ---- PostgreSQL ----

Result<std::string> PgTypeFromModel(const Type& type) {
  if (type.is_unsigned) return NoMapping(type, "PostgreSQL");
  switch (type.kind) {
    case TypeKind::kBoolean:
      return std::string("bool");
    case TypeKind::kShort:
      return std::string("int2");
    case TypeKind::kInteger:
      return std::string("int4");
    case TypeKind::kLong:
      return std::string("int8");
    case TypeKind::kFloat:
      return std::string("float4");
    case TypeKind::kDouble:
      return std::string("float8");
    case TypeKind::kString:
      return std::string("text");
    case TypeKind::kDate:
      return std::string("date");
    case TypeKind::kTime:
      return WithPrecision("time", type.precision);
    case TypeKind::kTimestamp:
      return WithPrecision("timestamp", type.precision);
    case TypeKind::kTimestampTz:
      return WithPrecision("timestamptz", type.precision);
    case TypeKind::kDecimal:
      return fmt::format("numeric({},{})", type.precision, type.scale);
    case TypeKind::kVarchar:
      return fmt::format("varchar({})", type.length);
    case TypeKind::kChar:
      return fmt::format("bpchar({})", type.length);
    case TypeKind::kBinary:
      return std::string("bytea");
    case TypeKind::kUuid:
      return std::string("uuid");
    case TypeKind::kExternal:
      CAIRN_RETURN_IF_ERROR(CheckExternal(type));
      return type.raw;
    case TypeKind::kList: {
      if (type.element_nullable) {
        return InvalidArgument(
            "PostgreSQL arrays cannot declare nullable elements: use a list with "
            "containsNull false");
      }
      if (type.element->kind == TypeKind::kList) {
        return InvalidArgument(
            "PostgreSQL does not support multidimensional lists; use a one-dimensional list");
      }
      CAIRN_ASSIGN_OR_RETURN(std::string element, PgTypeFromModel(*type.element));
      return element + "[]";
    }
    default:
      return NoMapping(type, "PostgreSQL");
  }
}

model::TypePtr PgTypeToModel(const PgColumnType& column) {
  const std::string name = ToLower(column.typname);
  const int mod = column.typmod;
  if (name.size() > 1 && name[0] == '_') {
    PgColumnType element{name.substr(1), mod, ""};
    TypePtr e = PgTypeToModel(element);
    if (e->kind == TypeKind::kExternal) {
      // An array of an unmapped type stays external as a whole.
      return External(mod >= 0 && !column.formatted.empty() ? column.formatted : column.typname);
    }
    return model::MakeList(e, false);
  }
  if (name == "bool") return model::MakePrimitive(TypeKind::kBoolean);
  if (name == "int2") return model::MakePrimitive(TypeKind::kShort);
  if (name == "int4") return model::MakePrimitive(TypeKind::kInteger);
  if (name == "int8") return model::MakePrimitive(TypeKind::kLong);
  if (name == "float4") return model::MakePrimitive(TypeKind::kFloat);
  if (name == "float8") return model::MakePrimitive(TypeKind::kDouble);
  if (name == "date") return model::MakePrimitive(TypeKind::kDate);
  if (name == "time") return model::MakeWithPrecision(TypeKind::kTime, mod >= 0 ? mod : -1);
  if (name == "timestamp") {
    return model::MakeWithPrecision(TypeKind::kTimestamp, mod >= 0 ? mod : -1);
  }
  if (name == "timestamptz") {
    return model::MakeWithPrecision(TypeKind::kTimestampTz, mod >= 0 ? mod : -1);
  }
  if (name == "numeric") {
    // An unconstrained numeric has no fixed precision; Gravitino reports the widest decimal.
    if (mod < 4) return model::MakeDecimal(38, 18);
    const int v = mod - 4;
    return model::MakeDecimal((v >> 16) & 0xffff, v & 0xffff);
  }
  if (name == "varchar") {
    if (mod < 4) return model::MakePrimitive(TypeKind::kString);
    return model::MakeWithLength(TypeKind::kVarchar, mod - 4);
  }
  if (name == "bpchar" && mod >= 4) return model::MakeWithLength(TypeKind::kChar, mod - 4);
  if (name == "text") return model::MakePrimitive(TypeKind::kString);
  if (name == "bytea") return model::MakePrimitive(TypeKind::kBinary);
  if (name == "uuid") return model::MakePrimitive(TypeKind::kUuid);
  // Keep the modifier (e.g. bit(3), interval(2)) so the type can be created again as it is.
  return External(mod >= 0 && !column.formatted.empty() ? column.formatted : column.typname);
}

// ---- MySQL ----

Result<std::string> MysqlTypeFromModel(const Type& type) {
  const char* suffix = type.is_unsigned ? " unsigned" : "";
  switch (type.kind) {
    case TypeKind::kBoolean:
      return std::string("bit");
    case TypeKind::kByte:
      return fmt::format("tinyint{}", suffix);
    case TypeKind::kShort:
      return fmt::format("smallint{}", suffix);
    case TypeKind::kInteger:
      return fmt::format("int{}", suffix);
    case TypeKind::kLong:
      return fmt::format("bigint{}", suffix);
    case TypeKind::kFloat:
      return std::string("float");
    case TypeKind::kDouble:
      return std::string("double");
    case TypeKind::kString:
      return std::string("text");
    case TypeKind::kDate:
      return std::string("date");
    case TypeKind::kTime:
      return WithPrecision("time", type.precision);
    case TypeKind::kTimestamp:
      return WithPrecision("datetime", type.precision);
    case TypeKind::kTimestampTz:
      return WithPrecision("timestamp", type.precision);
    case TypeKind::kDecimal:
      return fmt::format("decimal({},{})", type.precision, type.scale);
    case TypeKind::kVarchar:
      return fmt::format("varchar({})", type.length);
    case TypeKind::kChar:
      return fmt::format("char({})", type.length);
    case TypeKind::kBinary:
      return std::string("binary");
    case TypeKind::kExternal:
      CAIRN_RETURN_IF_ERROR(CheckExternal(type));
      return type.raw;
    default:
      return NoMapping(type, "MySQL");
  }
}

model::TypePtr MysqlTypeToModel(const MysqlColumnType& column) {
  const std::string name = ToLower(column.data_type);
  const std::string full = ToLower(column.column_type);
  const bool is_unsigned = full.find("unsigned") != std::string::npos;
  // MySQL stores a datetime without fractional seconds as precision 0: that is the type
  // created without a precision.
  const int dt_precision = column.datetime_precision && *column.datetime_precision > 0
                               ? static_cast<int>(*column.datetime_precision)
                               : -1;
  if (name == "bit") {
    if (full == "bit" || full == "bit(1)") return model::MakePrimitive(TypeKind::kBoolean);
    return model::MakePrimitive(TypeKind::kBinary);
  }
  if (name == "tinyint") {
    if (is_unsigned) return Unsigned(TypeKind::kByte);
    // BOOLEAN is tinyint(1); JDBC drivers report it as a bit, so Gravitino shows a boolean.
    if (full == "tinyint(1)") return model::MakePrimitive(TypeKind::kBoolean);
    return model::MakePrimitive(TypeKind::kByte);
  }
  if (name == "smallint") {
    return is_unsigned ? Unsigned(TypeKind::kShort) : model::MakePrimitive(TypeKind::kShort);
  }
  if (name == "int" || name == "integer") {
    return is_unsigned ? Unsigned(TypeKind::kInteger) : model::MakePrimitive(TypeKind::kInteger);
  }
  if (name == "bigint") {
    return is_unsigned ? Unsigned(TypeKind::kLong) : model::MakePrimitive(TypeKind::kLong);
  }
  if (name == "float") return model::MakePrimitive(TypeKind::kFloat);
  if (name == "double") return model::MakePrimitive(TypeKind::kDouble);
  if (name == "date") return model::MakePrimitive(TypeKind::kDate);
  if (name == "time") return model::MakeWithPrecision(TypeKind::kTime, dt_precision);
  if (name == "timestamp") return model::MakeWithPrecision(TypeKind::kTimestampTz, dt_precision);
  if (name == "datetime") return model::MakeWithPrecision(TypeKind::kTimestamp, dt_precision);
  if (name == "decimal" && column.numeric_precision) {
    return model::MakeDecimal(static_cast<int>(*column.numeric_precision),
                              static_cast<int>(column.numeric_scale.value_or(0)));
  }
  if (name == "varchar" && column.char_length) {
    return model::MakeWithLength(TypeKind::kVarchar, static_cast<int>(*column.char_length));
  }
  if (name == "char" && column.char_length) {
    return model::MakeWithLength(TypeKind::kChar, static_cast<int>(*column.char_length));
  }
  if (name == "text") return model::MakePrimitive(TypeKind::kString);
  if (name == "binary") return model::MakePrimitive(TypeKind::kBinary);
  return External(column.column_type.empty() ? column.data_type : column.column_type);
}

// ---- default values ----

model::Expression NullLiteral() {
  model::Expression e;
  e.kind = model::Expression::Kind::kLiteral;
  e.data_type = model::MakePrimitive(TypeKind::kNull);
  e.value = "NULL";
  return e;
}

namespace {

model::Expression Literal(const TypePtr& type, std::string value) {
  model::Expression e;
  e.kind = model::Expression::Kind::kLiteral;
  e.data_type = type;
  e.value = std::move(value);
  return e;
}

model::Expression Unparsed(std::string text) {
  model::Expression e;
  e.kind = model::Expression::Kind::kUnparsed;
  e.unparsed = std::move(text);
  return e;
}

model::Expression CurrentTimestamp() {
  model::Expression e;
  e.kind = model::Expression::Kind::kFunction;
  e.func_name = "current_timestamp";
  return e;
}

bool IsNumber(std::string_view s) {
  static const std::regex re(R"(^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$)");
  return std::regex_match(s.begin(), s.end(), re);
}

bool IsNumeric(const Type& t) {
  switch (t.kind) {
    case TypeKind::kByte:
    case TypeKind::kShort:
    case TypeKind::kInteger:
    case TypeKind::kLong:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kDecimal:
      return true;
    default:
      return false;
  }
}

// 'it''s' -> it's; nullopt when `s` is not one quoted literal.
std::optional<std::string> Unquote(std::string_view s, bool backslash_escapes) {
  if (s.size() < 2 || s.front() != '\'' || s.back() != '\'') return std::nullopt;
  std::string out;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == '\'') {
      if (i + 2 < s.size() && s[i + 1] == '\'') {
        out.push_back('\'');
        ++i;
        continue;
      }
      return std::nullopt;  // a quote in the middle: more than one literal
    }
    if (backslash_escapes && c == '\\' && i + 2 < s.size()) {
      char n = s[++i];
      switch (n) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case '0':
          out.push_back('\0');
          break;
        default:
          out.push_back(n);
      }
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

Result<std::string> SqlStringLiteral(std::string_view text, bool escape_backslashes) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\0') return InvalidArgument("SQL text cannot hold a NUL character");
    if (c == '\'') out.push_back('\'');
    if (c == '\\' && escape_backslashes) out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

Status CheckRequestedDefault(const std::string& column, const model::Expression& value) {
  switch (value.kind) {
    case model::Expression::Kind::kLiteral:
      return Ok();
    case model::Expression::Kind::kFunction:
      if (!IsIdentifier(value.func_name)) {
        return InvalidArgument("Column '{}': '{}' is not a function name", column, value.func_name);
      }
      for (const auto& a : value.args) CAIRN_RETURN_IF_ERROR(CheckRequestedDefault(column, a));
      return Ok();
    case model::Expression::Kind::kUnparsed:
      return InvalidArgument(
          "Column '{}': unparsed default values are not supported; use a literal or a function",
          column);
    case model::Expression::Kind::kField:
      return InvalidArgument("Column '{}': a default value cannot be a field reference", column);
  }
  return Ok();
}

Result<std::string> DefaultValueSql(const model::Expression& value, bool escape_backslashes,
                                    int current_timestamp_precision) {
  switch (value.kind) {
    case model::Expression::Kind::kLiteral: {
      if (!value.data_type || value.data_type->kind == TypeKind::kNull || !value.value) {
        return std::string("NULL");
      }
      if (IsNumeric(*value.data_type) && IsNumber(*value.value)) return *value.value;
      if (value.data_type->kind == TypeKind::kBoolean) {
        if (EqualsIgnoreCase(*value.value, "true")) return std::string("TRUE");
        if (EqualsIgnoreCase(*value.value, "false")) return std::string("FALSE");
      }
      std::string text = *value.value;
      if (value.data_type->kind == TypeKind::kTimestamp ||
          value.data_type->kind == TypeKind::kTimestampTz) {
        if (text.size() > 10 && text[10] == 'T') text[10] = ' ';
      }
      return SqlStringLiteral(text, escape_backslashes);
    }
    case model::Expression::Kind::kFunction: {
      if (EqualsIgnoreCase(value.func_name, "current_timestamp") && value.args.empty()) {
        if (current_timestamp_precision > 0) {
          return fmt::format("CURRENT_TIMESTAMP({})", current_timestamp_precision);
        }
        return std::string("CURRENT_TIMESTAMP");
      }
      if (!IsIdentifier(value.func_name)) {
        return InvalidArgument("'{}' is not a function name", value.func_name);
      }
      std::vector<std::string> args;
      for (const auto& a : value.args) {
        CAIRN_ASSIGN_OR_RETURN(std::string s, DefaultValueSql(a, escape_backslashes));
        args.push_back(std::move(s));
      }
      return fmt::format("({}({}))", value.func_name, Join(args, ", "));
    }
    case model::Expression::Kind::kUnparsed:
      return value.unparsed;
    case model::Expression::Kind::kField:
      return InvalidArgument("A column default value cannot be a field reference");
  }
  return InvalidArgument("Unsupported column default value");
}

std::optional<model::Expression> PgDefaultToModel(const std::optional<std::string>& text,
                                                  const TypePtr& type, bool nullable) {
  if (!text) {
    if (nullable) return NullLiteral();
    return std::nullopt;
  }
  const std::string s(Trim(*text));
  if (s == "NULL" || s.rfind("NULL::", 0) == 0) return NullLiteral();
  if (EqualsIgnoreCase(s, "CURRENT_TIMESTAMP")) return CurrentTimestamp();
  const bool external = type->kind == TypeKind::kExternal || type->kind == TypeKind::kList;
  // 'value'::type, e.g. 'abc'::character varying or '2021-10-01'::date
  auto cast = s.rfind("'::");
  if (cast != std::string::npos && !external) {
    if (auto v = Unquote(std::string_view(s).substr(0, cast + 1), false)) return Literal(type, *v);
  }
  if (!external && (IsNumeric(*type) ? IsNumber(s) : false)) return Literal(type, s);
  if (type->kind == TypeKind::kBoolean && (s == "true" || s == "false")) return Literal(type, s);
  if (!external) {
    if (auto v = Unquote(s, false)) return Literal(type, *v);
  }
  return Unparsed(s);
}

std::optional<model::Expression> MysqlDefaultToModel(const std::optional<std::string>& text,
                                                     const TypePtr& type, bool nullable) {
  if (!text) {
    if (nullable) return NullLiteral();
    return std::nullopt;
  }
  const std::string s(Trim(*text));
  if (EqualsIgnoreCase(s, "NULL")) return NullLiteral();
  const std::string lower = ToLower(s);
  // current_timestamp, current_timestamp() and current_timestamp(3) alike, as Gravitino does.
  if (lower.rfind("current_timestamp", 0) == 0) return CurrentTimestamp();
  if (type->kind == TypeKind::kExternal) return Unparsed(s);
  // MariaDB quotes string literals; MySQL writes them bare.
  if (auto v = Unquote(s, true)) return Literal(type, *v);
  if (type->kind == TypeKind::kBoolean) {
    if (s == "b'1'" || s == "1") return Literal(type, "true");
    if (s == "b'0'" || s == "0") return Literal(type, "false");
  }
  if (IsNumeric(*type)) {
    if (IsNumber(s)) return Literal(type, s);
    return Unparsed(s);
  }
  if (lower.find('(') != std::string::npos) return Unparsed(s);
  return Literal(type, s);
}

}  // namespace cairn::connector::jdbc
