// SPDX-License-Identifier: Apache-2.0
#include "common/error.h"

#include <gtest/gtest.h>

namespace cairn {
namespace {

TEST(Error, WithContextPrefixesTheMessageAndKeepsCodeAndEntity) {
  const Error error = Conflict(EntityKind::kTable, "Requirement failed: {}", "current schema");
  const Error with = error.WithContext("requirements[2]");
  EXPECT_EQ(with.code, ErrorCode::kConflict);
  EXPECT_EQ(with.entity, EntityKind::kTable);
  EXPECT_EQ(with.message, "requirements[2]: Requirement failed: current schema");
  EXPECT_EQ(error.message, "Requirement failed: current schema");  // the original is untouched
}

TEST(Error, WithContextNestsOutermostFirst) {
  Error error = InvalidArgument("Cannot parse missing int: {}", "spec-id");
  error = std::move(error).WithContext("updates[3]").WithContext("commit");
  EXPECT_EQ(error.code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(error.message, "commit: updates[3]: Cannot parse missing int: spec-id");
}

TEST(Error, EmptyContextChangesNothing) {
  EXPECT_EQ(NotFound(EntityKind::kView, "View does not exist").WithContext("").message,
            "View does not exist");
}

}  // namespace
}  // namespace cairn
