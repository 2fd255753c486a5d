// SPDX-License-Identifier: Apache-2.0
#include "model/types.h"

#include <gtest/gtest.h>

namespace cairn::model {
namespace {

TypePtr Lists(int depth, TypePtr inner) {
  for (int i = 0; i < depth; ++i) inner = MakeList(std::move(inner), true);
  return inner;
}

TEST(TypeDepth, CountsComplexLevels) {
  const TypePtr i = MakePrimitive(TypeKind::kInteger);
  EXPECT_EQ(TypeDepth(nullptr), 0);
  EXPECT_EQ(TypeDepth(i), 0);
  EXPECT_EQ(TypeDepth(MakeList(i, true)), 1);
  const TypePtr s = MakeStruct({StructField{"a", MakeMap(i, MakeList(i, true), true), true, {}},
                                StructField{"b", i, true, {}}});
  EXPECT_EQ(TypeDepth(MakeList(s, true)), 4);
  auto u = std::make_shared<Type>();
  u->kind = TypeKind::kUnion;
  u->types = {i, s};
  EXPECT_EQ(TypeDepth(u), 4);
}

TEST(TypeDepth, StopsCountingPastTheLimit) {
  const TypePtr deep = Lists(50'000, MakePrimitive(TypeKind::kLong));
  EXPECT_EQ(TypeDepth(deep), kMaxTypeDepth + 1);
  EXPECT_EQ(TypeDepth(deep, 60'000), 50'000);
  EXPECT_EQ(TypeDepth(Lists(kMaxTypeDepth, MakePrimitive(TypeKind::kLong))), kMaxTypeDepth);
}

TEST(TypeTree, ADeepTreeIsDroppedWithoutRecursing) {
  // Each of these would overflow the stack with a recursive destructor.
  { TypePtr lists = Lists(1'000'000, MakePrimitive(TypeKind::kString)); }
  {
    TypePtr s = MakePrimitive(TypeKind::kString);
    for (int i = 0; i < 300'000; ++i) {
      s = MakeStruct({StructField{"f", s, true, {}}});
      s = MakeMap(MakePrimitive(TypeKind::kString), s, true);
    }
  }
  SUCCEED();
}

TEST(TypeTree, SharedChildrenSurviveTheirParent) {
  const TypePtr shared = Lists(10, MakePrimitive(TypeKind::kInteger));
  { TypePtr parent = MakeStruct({StructField{"a", shared, true, {}}}); }
  EXPECT_EQ(TypeDepth(shared), 10);
  const Type* t = shared.get();
  for (int i = 0; i < 10; ++i) {
    ASSERT_NE(t->element, nullptr);
    t = t->element.get();
  }
  EXPECT_EQ(t->kind, TypeKind::kInteger);
}

TEST(TypeTree, CopiesCompareEqual) {
  const TypePtr a = MakeStruct({StructField{"a", Lists(5, MakeDecimal(10, 2)), false, "c"}});
  const Type copy = *a;
  EXPECT_EQ(copy, *a);
  EXPECT_FALSE(
      TypesEqual(a, MakeStruct({StructField{"a", Lists(5, MakeDecimal(10, 3)), false, "c"}})));
}

class PrimitiveTypeString : public ::testing::TestWithParam<const char*> {};

TEST_P(PrimitiveTypeString, RoundTrips) {
  const TypePtr t = ParsePrimitiveType(GetParam());
  ASSERT_NE(t, nullptr) << GetParam();
  EXPECT_NE(t->kind, TypeKind::kUnparsed) << GetParam();
  EXPECT_EQ(model::PrimitiveTypeString(*t), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Gravitino, PrimitiveTypeString,
                         ::testing::Values("boolean", "integer unsigned", "decimal(1,0)",
                                           "decimal(38,38)", "decimal(10,2)", "char(1)",
                                           "varchar(65535)", "fixed(16)", "time(0)",
                                           "timestamp_tz(12)", "uuid", "null"));

class InvalidPrimitiveTypeString : public ::testing::TestWithParam<const char*> {};

TEST_P(InvalidPrimitiveTypeString, IsRefused) {
  EXPECT_EQ(ParsePrimitiveType(GetParam()), nullptr) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Gravitino, InvalidPrimitiveTypeString,
                         ::testing::Values("decimal(99999999999999999999,1)", "decimal(39,1)",
                                           "decimal(0,0)", "decimal(10,11)", "decimal(-1,0)",
                                           "decimal(10,-1)", "decimal(10)", "decimal(x,1)",
                                           "fixed(-1)", "fixed(0)", "fixed(99999999999999999999)",
                                           "char(0)", "varchar(0)", "varchar(-5)", "char()",
                                           "time(13)", "timestamp(-1)"));

TEST(ParsePrimitiveType, UnknownTextIsUnparsedAsGravitinoDoes) {
  const TypePtr t = ParsePrimitiveType("blob");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kind, TypeKind::kUnparsed);
  EXPECT_EQ(t->raw, "blob");
}

}  // namespace
}  // namespace cairn::model
