// SPDX-License-Identifier: Apache-2.0
// Type and default-value mapping of the jdbc-postgresql and jdbc-mysql catalogs.
#include "connector/jdbc/jdbc_types.h"

#include <gtest/gtest.h>

namespace cairn::connector::jdbc {
namespace {

using model::MakeList;
using model::ParsePrimitiveType;
using model::PrimitiveTypeString;
using model::TypeKind;
using model::TypePtr;

TypePtr T(const std::string& text) {
  auto t = ParsePrimitiveType(text);
  EXPECT_NE(t, nullptr) << text;
  return t;
}

TypePtr External(const std::string& raw) {
  auto t = std::make_shared<model::Type>();
  t->kind = TypeKind::kExternal;
  t->raw = raw;
  return t;
}

std::string Describe(const TypePtr& t) {
  if (t->kind == TypeKind::kExternal) return "external(" + t->raw + ")";
  if (t->kind == TypeKind::kList) {
    return "list<" + Describe(t->element) + (t->element_nullable ? ",null>" : ">");
  }
  return PrimitiveTypeString(*t);
}

// ---- PostgreSQL ----

struct PgCase {
  std::string model;    // Gravitino type text
  std::string pg;       // what Cairn creates
  std::string typname;  // what pg_catalog reports back
  int typmod;
};

class PgMapping : public testing::TestWithParam<PgCase> {};

TEST_P(PgMapping, CreatesTheColumnTypeAndLoadsTheSameType) {
  const auto& c = GetParam();
  auto created = PgTypeFromModel(*T(c.model));
  ASSERT_TRUE(created.has_value()) << created.error().message;
  EXPECT_EQ(*created, c.pg);
  auto loaded = PgTypeToModel({c.typname, c.typmod, ""});
  EXPECT_TRUE(model::TypesEqual(loaded, T(c.model)))
      << c.model << " loaded as " << Describe(loaded);
}

INSTANTIATE_TEST_SUITE_P(
    Gravitino, PgMapping,
    testing::Values(PgCase{"boolean", "bool", "bool", -1}, PgCase{"short", "int2", "int2", -1},
                    PgCase{"integer", "int4", "int4", -1}, PgCase{"long", "int8", "int8", -1},
                    PgCase{"float", "float4", "float4", -1},
                    PgCase{"double", "float8", "float8", -1}, PgCase{"string", "text", "text", -1},
                    PgCase{"date", "date", "date", -1}, PgCase{"time", "time", "time", -1},
                    PgCase{"time(3)", "time(3)", "time", 3},
                    PgCase{"timestamp", "timestamp", "timestamp", -1},
                    PgCase{"timestamp(0)", "timestamp(0)", "timestamp", 0},
                    PgCase{"timestamp_tz", "timestamptz", "timestamptz", -1},
                    PgCase{"timestamp_tz(6)", "timestamptz(6)", "timestamptz", 6},
                    // numeric typmod: ((precision << 16) | scale) + 4
                    PgCase{"decimal(10,2)", "numeric(10,2)", "numeric", (10 << 16 | 2) + 4},
                    PgCase{"varchar(20)", "varchar(20)", "varchar", 24},
                    PgCase{"char(5)", "bpchar(5)", "bpchar", 9},
                    PgCase{"binary", "bytea", "bytea", -1}, PgCase{"uuid", "uuid", "uuid", -1}));

TEST(PgTypes, SourceOnlyShapes) {
  // unconstrained numeric: the widest decimal, as Gravitino reports it
  EXPECT_EQ(Describe(PgTypeToModel({"numeric", -1, "numeric"})), "decimal(38,18)");
  // varchar without a length is a string
  EXPECT_EQ(Describe(PgTypeToModel({"varchar", -1, "character varying"})), "string");
  // arrays: one-dimensional lists with non-null elements
  EXPECT_EQ(Describe(PgTypeToModel({"_int4", -1, "integer[]"})), "list<integer>");
  EXPECT_EQ(Describe(PgTypeToModel({"_varchar", 9, "character varying(5)[]"})), "list<varchar(5)>");
  // unmapped types stay external, with their modifier when they have one
  EXPECT_EQ(Describe(PgTypeToModel({"jsonb", -1, "jsonb"})), "external(jsonb)");
  EXPECT_EQ(Describe(PgTypeToModel({"bit", 3, "bit(3)"})), "external(bit(3))");
  EXPECT_EQ(Describe(PgTypeToModel({"_inet", -1, "inet[]"})), "external(_inet)");
}

TEST(PgTypes, ListsAndExternalsAreCreatedVerbatim) {
  EXPECT_EQ(*PgTypeFromModel(*MakeList(T("integer"), false)), "int4[]");
  EXPECT_EQ(*PgTypeFromModel(*External("jsonb")), "jsonb");
  auto nullable = PgTypeFromModel(*MakeList(T("integer"), true));
  ASSERT_FALSE(nullable.has_value());
  EXPECT_EQ(nullable.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(PgTypeFromModel(*MakeList(MakeList(T("integer"), false), false)).has_value());
}

TEST(PgTypes, TypesWithoutMappingAreInvalidArgument) {
  for (const char* text : {"byte", "integer unsigned", "fixed(3)", "interval_day", "null"}) {
    auto r = PgTypeFromModel(*T(text));
    ASSERT_FALSE(r.has_value()) << text;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message.find("PostgreSQL"), std::string::npos);
  }
}

// ---- MySQL ----

struct MysqlCase {
  std::string model;
  std::string mysql;
  MysqlColumnType reported;
};

class MysqlMapping : public testing::TestWithParam<MysqlCase> {};

TEST_P(MysqlMapping, CreatesTheColumnTypeAndLoadsTheSameType) {
  const auto& c = GetParam();
  auto created = MysqlTypeFromModel(*T(c.model));
  ASSERT_TRUE(created.has_value()) << created.error().message;
  EXPECT_EQ(*created, c.mysql);
  auto loaded = MysqlTypeToModel(c.reported);
  EXPECT_TRUE(model::TypesEqual(loaded, T(c.model)))
      << c.model << " loaded as " << Describe(loaded);
}

MysqlColumnType Col(std::string data, std::string full, std::optional<int64_t> len = {},
                    std::optional<int64_t> prec = {}, std::optional<int64_t> scale = {},
                    std::optional<int64_t> dt = {}) {
  return MysqlColumnType{std::move(data), std::move(full), len, prec, scale, dt};
}

INSTANTIATE_TEST_SUITE_P(
    Gravitino, MysqlMapping,
    testing::Values(
        MysqlCase{"boolean", "bit", Col("bit", "bit(1)")},
        MysqlCase{"byte", "tinyint", Col("tinyint", "tinyint(4)")},
        MysqlCase{"byte unsigned", "tinyint unsigned", Col("tinyint", "tinyint(3) unsigned")},
        MysqlCase{"short", "smallint", Col("smallint", "smallint(6)")},
        MysqlCase{"short unsigned", "smallint unsigned", Col("smallint", "smallint unsigned")},
        MysqlCase{"integer", "int", Col("int", "int(11)")},
        MysqlCase{"integer unsigned", "int unsigned", Col("int", "int(10) unsigned")},
        MysqlCase{"long", "bigint", Col("bigint", "bigint(20)")},
        MysqlCase{"long unsigned", "bigint unsigned", Col("bigint", "bigint(20) unsigned")},
        MysqlCase{"float", "float", Col("float", "float")},
        MysqlCase{"double", "double", Col("double", "double")},
        MysqlCase{"string", "text", Col("text", "text")},
        MysqlCase{"date", "date", Col("date", "date")},
        MysqlCase{"time", "time", Col("time", "time", {}, {}, {}, 0)},
        MysqlCase{"time(3)", "time(3)", Col("time", "time(3)", {}, {}, {}, 3)},
        MysqlCase{"timestamp", "datetime", Col("datetime", "datetime", {}, {}, {}, 0)},
        MysqlCase{"timestamp(6)", "datetime(6)", Col("datetime", "datetime(6)", {}, {}, {}, 6)},
        MysqlCase{"timestamp_tz", "timestamp", Col("timestamp", "timestamp", {}, {}, {}, 0)},
        MysqlCase{"timestamp_tz(2)", "timestamp(2)",
                  Col("timestamp", "timestamp(2)", {}, {}, {}, 2)},
        MysqlCase{"decimal(10,2)", "decimal(10,2)", Col("decimal", "decimal(10,2)", {}, 10, 2)},
        MysqlCase{"varchar(20)", "varchar(20)", Col("varchar", "varchar(20)", 20)},
        MysqlCase{"char(5)", "char(5)", Col("char", "char(5)", 5)},
        MysqlCase{"binary", "binary", Col("binary", "binary(1)", 1)}));

TEST(MysqlTypes, SourceOnlyShapes) {
  EXPECT_EQ(Describe(MysqlTypeToModel(Col("tinyint", "tinyint(1)"))), "boolean");
  EXPECT_EQ(Describe(MysqlTypeToModel(Col("bit", "bit(8)"))), "binary");
  EXPECT_EQ(Describe(MysqlTypeToModel(Col("decimal", "decimal(8,3) unsigned", {}, 8, 3))),
            "decimal(8,3)");
  EXPECT_EQ(Describe(MysqlTypeToModel(Col("mediumint", "mediumint(9)"))), "external(mediumint(9))");
  EXPECT_EQ(Describe(MysqlTypeToModel(Col("enum", "enum('a','b')"))), "external(enum('a','b'))");
  EXPECT_EQ(*MysqlTypeFromModel(*External("enum('a','b')")), "enum('a','b')");
}

TEST(MysqlTypes, TypesWithoutMappingAreInvalidArgument) {
  for (const char* text : {"uuid", "fixed(3)", "interval_year", "null"}) {
    auto r = MysqlTypeFromModel(*T(text));
    ASSERT_FALSE(r.has_value()) << text;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message.find("MySQL"), std::string::npos);
  }
  EXPECT_FALSE(MysqlTypeFromModel(*MakeList(T("integer"), false)).has_value());
}

// ---- default values ----

model::Expression Lit(const std::string& type, const std::string& value) {
  model::Expression e;
  e.kind = model::Expression::Kind::kLiteral;
  e.data_type = T(type);
  e.value = value;
  return e;
}

TEST(Defaults, RenderedAsSql) {
  EXPECT_EQ(*DefaultValueSql(Lit("integer", "42"), false), "42");
  EXPECT_EQ(*DefaultValueSql(Lit("string", "it's"), false), "'it''s'");
  EXPECT_EQ(*DefaultValueSql(Lit("string", "a\\b"), true), "'a\\\\b'");
  EXPECT_EQ(*DefaultValueSql(Lit("string", "a\\b"), false), "'a\\b'");
  EXPECT_EQ(*DefaultValueSql(Lit("timestamp", "2024-01-02T03:04:05"), false),
            "'2024-01-02 03:04:05'");
  EXPECT_EQ(*DefaultValueSql(Lit("boolean", "true"), false), "TRUE");
  // a number-typed literal that is not a number is quoted, never spliced in
  EXPECT_EQ(*DefaultValueSql(Lit("integer", "1; DROP TABLE x"), false), "'1; DROP TABLE x'");
  EXPECT_EQ(*DefaultValueSql(NullLiteral(), false), "NULL");
  model::Expression now;
  now.kind = model::Expression::Kind::kFunction;
  now.func_name = "current_timestamp";
  EXPECT_EQ(*DefaultValueSql(now, false), "CURRENT_TIMESTAMP");
  model::Expression field;
  field.kind = model::Expression::Kind::kField;
  field.field_name = {"a"};
  EXPECT_FALSE(DefaultValueSql(field, false).has_value());
  EXPECT_FALSE(SqlStringLiteral(std::string("a\0b", 3), false).has_value());
}

TEST(Defaults, RequestsTakeLiteralsAndFunctionsOnly) {
  EXPECT_TRUE(CheckRequestedDefault("c", Lit("integer", "1")).has_value());
  model::Expression f;
  f.kind = model::Expression::Kind::kFunction;
  f.func_name = "current_timestamp";
  EXPECT_TRUE(CheckRequestedDefault("c", f).has_value());
  EXPECT_EQ(*DefaultValueSql(f, true, 3), "CURRENT_TIMESTAMP(3)");
  f.func_name = "now(); DROP TABLE x; --";
  auto bad = CheckRequestedDefault("c", f);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("'c'"), std::string::npos);
  EXPECT_FALSE(DefaultValueSql(f, false).has_value());
  model::Expression raw;
  raw.kind = model::Expression::Kind::kUnparsed;
  raw.unparsed = "(SELECT 1)";
  EXPECT_FALSE(CheckRequestedDefault("c", raw).has_value());
  // ... while an unparsed default read from the source is restated as it is
  EXPECT_EQ(*DefaultValueSql(raw, true), "(SELECT 1)");
}

TEST(Types, ExternalTypesAreOneTypeExpression) {
  for (const char* raw : {"int); DROP TABLE x", "int -- c", "int /* c */", ""}) {
    EXPECT_FALSE(PgTypeFromModel(*External(raw)).has_value()) << raw;
    EXPECT_FALSE(MysqlTypeFromModel(*External(raw)).has_value()) << raw;
  }
}

TEST(Defaults, ReadFromPostgres) {
  auto v = PgDefaultToModel(std::string("'it''s'::character varying"), T("varchar(10)"), true);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, Lit("varchar(10)", "it's"));
  EXPECT_EQ(*PgDefaultToModel(std::string("42"), T("integer"), true), Lit("integer", "42"));
  EXPECT_EQ(*PgDefaultToModel(std::string("'-1'::integer"), T("integer"), true),
            Lit("integer", "-1"));
  EXPECT_EQ(*PgDefaultToModel(std::string("NULL::text"), T("string"), true), NullLiteral());
  EXPECT_EQ(PgDefaultToModel(std::string("CURRENT_TIMESTAMP"), T("timestamp"), true)->func_name,
            "current_timestamp");
  EXPECT_EQ(PgDefaultToModel(std::string("now()"), T("timestamp"), true)->kind,
            model::Expression::Kind::kUnparsed);
  // no default: NULL for nullable columns, nothing for NOT NULL ones
  EXPECT_EQ(*PgDefaultToModel(std::nullopt, T("integer"), true), NullLiteral());
  EXPECT_FALSE(PgDefaultToModel(std::nullopt, T("integer"), false).has_value());
}

TEST(Defaults, ReadFromMysqlAndMariadb) {
  EXPECT_EQ(*MysqlDefaultToModel(std::string("'it''s'"), T("varchar(9)"), true),
            Lit("varchar(9)", "it's"));
  EXPECT_EQ(*MysqlDefaultToModel(std::string("abc"), T("varchar(9)"), true),
            Lit("varchar(9)", "abc"));
  EXPECT_EQ(*MysqlDefaultToModel(std::string("5"), T("integer"), true), Lit("integer", "5"));
  EXPECT_EQ(*MysqlDefaultToModel(std::string("NULL"), T("integer"), true), NullLiteral());
  EXPECT_EQ(*MysqlDefaultToModel(std::string("b'1'"), T("boolean"), true), Lit("boolean", "true"));
  for (const char* now : {"current_timestamp()", "CURRENT_TIMESTAMP", "current_timestamp(3)"}) {
    EXPECT_EQ(MysqlDefaultToModel(std::string(now), T("timestamp"), true)->func_name,
              "current_timestamp")
        << now;
  }
  EXPECT_EQ(MysqlDefaultToModel(std::string("uuid()"), T("varchar(36)"), true)->kind,
            model::Expression::Kind::kUnparsed);
}

}  // namespace
}  // namespace cairn::connector::jdbc
