// SPDX-License-Identifier: Apache-2.0
#include "model/function.h"

#include <gtest/gtest.h>

#include "matchers.h"

namespace cairn::model {
namespace {

using cairn::testing::IsError;
using cairn::testing::IsOk;

constexpr const char* kInt = "\"integer\"";
constexpr const char* kString = "\"string\"";

FunctionParam Param(std::string name, std::string type = kInt,
                    std::optional<std::string> default_value = std::nullopt) {
  return FunctionParam{std::move(name), std::move(type), std::nullopt, std::move(default_value)};
}

FunctionImpl Sql(std::string text, FunctionRuntime runtime = FunctionRuntime::kSpark) {
  FunctionImpl impl;
  impl.runtime = runtime;
  impl.sql = std::move(text);
  return impl;
}

FunctionDefinition Scalar(std::vector<FunctionParam> params,
                          std::vector<FunctionImpl> impls = {Sql("1")}) {
  FunctionDefinition d;
  d.parameters = std::move(params);
  d.return_type = kInt;
  d.impls = std::move(impls);
  return d;
}

Function Make(std::vector<FunctionDefinition> defs, FunctionType type = FunctionType::kScalar) {
  Function f;
  f.name = "f";
  f.type = type;
  f.definitions = std::move(defs);
  return f;
}

std::string Message(const Status& s) { return s ? "" : s.error().message; }

TEST(FunctionNames, ParseCaseInsensitivelyAndAgg) {
  EXPECT_EQ(ParseFunctionType("scalar"), FunctionType::kScalar);
  EXPECT_EQ(ParseFunctionType("Agg"), FunctionType::kAggregate);
  EXPECT_EQ(ParseFunctionType("TABLE"), FunctionType::kTable);
  EXPECT_EQ(ParseFunctionType("vector"), std::nullopt);
  EXPECT_EQ(ParseFunctionRuntime("trino"), FunctionRuntime::kTrino);
  EXPECT_EQ(ParseFunctionRuntime("flink"), std::nullopt);
  EXPECT_EQ(ParseFunctionLanguage("python"), FunctionLanguage::kPython);
  EXPECT_EQ(FunctionTypeName(FunctionType::kAggregate), "AGGREGATE");
}

TEST(FunctionRules, OverloadsWithDistinctTypesOrAritiesAreFine) {
  EXPECT_THAT(ValidateFunction(Make({Scalar({Param("x")}), Scalar({Param("x", kString)}),
                                     Scalar({Param("x"), Param("y")}), Scalar({})})),
              IsOk());
}

TEST(FunctionRules, OverlapThroughDefaultsIsRefused) {
  // f(x int) and f(x int, y int = 0): a call f(1) matches both.
  Status s = ValidateFunction(Make(
      {Scalar({Param("x")}), Scalar({Param("a"), Param("b", kInt, "{\"type\":\"literal\"}")})}));
  EXPECT_THAT(s, IsError(ErrorCode::kInvalidArgument));
  EXPECT_NE(Message(s).find("overlapping arity"), std::string::npos) << Message(s);
  // Parameter names do not tell definitions apart for a caller.
  EXPECT_THAT(ValidateFunction(Make({Scalar({Param("x")}), Scalar({Param("y")})})),
              IsError(ErrorCode::kInvalidArgument));
}

TEST(FunctionRules, RequiredAfterDefaultIsRefused) {
  Status s = ValidateFunction(Make({Scalar({Param("a", kInt, "1"), Param("b")})}));
  EXPECT_NE(Message(s).find("parameter order"), std::string::npos) << Message(s);
}

TEST(FunctionRules, ReturnShapeFollowsTheType) {
  FunctionDefinition table;
  table.return_columns = {FunctionColumn{"v", kInt, std::nullopt}};
  table.impls = {Sql("select 1")};
  EXPECT_THAT(ValidateFunction(Make({table}, FunctionType::kTable)), IsOk());
  EXPECT_THAT(ValidateFunction(Make({table}, FunctionType::kScalar)),
              IsError(ErrorCode::kInvalidArgument));
  table.return_type = kInt;  // both
  EXPECT_THAT(ValidateFunction(Make({table}, FunctionType::kTable)),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateFunction(Make({Scalar({})}, FunctionType::kTable)),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateFunction(Make({Scalar({})}, FunctionType::kAggregate)), IsOk());
}

TEST(FunctionRules, ImplementationsPerRuntimeAndLanguageFields) {
  EXPECT_THAT(ValidateFunction(Make({Scalar({}, {})})), IsError(ErrorCode::kInvalidArgument));
  EXPECT_NE(
      Message(ValidateFunction(Make({Scalar({}, {Sql("1"), Sql("2")})}))).find("duplicate runtime"),
      std::string::npos);
  FunctionImpl java;
  java.language = FunctionLanguage::kJava;
  EXPECT_THAT(ValidateFunction(Make({Scalar({}, {java})})), IsError(ErrorCode::kInvalidArgument));
  java.class_name = "a.B";
  EXPECT_THAT(ValidateFunction(Make({Scalar({}, {java})})), IsOk());
  FunctionImpl py;
  py.language = FunctionLanguage::kPython;
  py.code_block = "def f(): pass";
  EXPECT_THAT(ValidateFunction(Make({Scalar({}, {py})})), IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateFunction(Make({Scalar({}, {Sql("   ")})})),
              IsError(ErrorCode::kInvalidArgument));
  EXPECT_THAT(ValidateFunction(Make({})), IsError(ErrorCode::kInvalidArgument));
}

TEST(FunctionChanges, ApplyInOrderAndCheckTheResult) {
  const Function f = Make({Scalar({Param("x")})});
  FunctionChange add;
  add.kind = FunctionChange::Kind::kAddDefinition;
  add.definition = Scalar({Param("x"), Param("y")});
  FunctionChange impl;
  impl.kind = FunctionChange::Kind::kAddImpl;
  impl.parameters = {Param("x")};
  impl.impl = Sql("x", FunctionRuntime::kTrino);
  FunctionChange remove;
  remove.kind = FunctionChange::Kind::kRemoveDefinition;
  remove.parameters = {Param("x"), Param("y")};
  auto out = ApplyFunctionChanges(f, {add, impl, remove});
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_EQ(out->definitions.size(), 1u);
  EXPECT_EQ(out->definitions[0].impls.size(), 2u);

  // A definition is named by the names and the types of its parameters.
  remove.parameters = {Param("z")};
  auto missing = ApplyFunctionChanges(f, {remove});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("updates[0]"), std::string::npos);
  EXPECT_NE(missing.error().message.find("(x: \"integer\")"), std::string::npos)
      << missing.error().message;
}

TEST(FunctionChanges, TheLastDefinitionAndImplementationStay) {
  const Function f = Make({Scalar({Param("x")})});
  FunctionChange remove;
  remove.kind = FunctionChange::Kind::kRemoveDefinition;
  remove.parameters = {Param("x")};
  EXPECT_FALSE(ApplyFunctionChanges(f, {remove}));
  FunctionChange impl;
  impl.kind = FunctionChange::Kind::kRemoveImpl;
  impl.parameters = {Param("x")};
  impl.runtime = FunctionRuntime::kSpark;
  EXPECT_FALSE(ApplyFunctionChanges(f, {impl}));
  impl.runtime = FunctionRuntime::kTrino;  // not there
  auto r = ApplyFunctionChanges(f, {impl});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not found"), std::string::npos);
}

TEST(FunctionChanges, UpdateImplKeepsItsRuntimeAndAddedDefinitionsAreChecked) {
  const Function f = Make({Scalar({Param("x")})});
  FunctionChange update;
  update.kind = FunctionChange::Kind::kUpdateImpl;
  update.parameters = {Param("x")};
  update.runtime = FunctionRuntime::kSpark;
  update.impl = Sql("x + 2");
  auto ok = ApplyFunctionChanges(f, {update});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->definitions[0].impls[0].sql, "x + 2");
  update.impl = Sql("x", FunctionRuntime::kTrino);
  EXPECT_FALSE(ApplyFunctionChanges(f, {update}));

  FunctionChange add;
  add.kind = FunctionChange::Kind::kAddDefinition;
  add.definition = Scalar({Param("other")});  // same types as (x)
  EXPECT_FALSE(ApplyFunctionChanges(f, {add}));
}

}  // namespace
}  // namespace cairn::model
