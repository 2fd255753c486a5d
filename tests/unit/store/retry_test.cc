// SPDX-License-Identifier: Apache-2.0
#include "store/retry.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "matchers.h"
#include "store/metadata_store.h"

namespace cairn::store {
namespace {

using cairn::testing::HasErrorMessage;
using cairn::testing::IsError;
using cairn::testing::IsOk;

Error Lost() { return Conflict(EntityKind::kNone, "version moved"); }

TEST(RetryOnConflict, RunsAgainWhileTheAttemptLosesTheRace) {
  int calls = 0;
  Result<int> r = RetryOnConflict([&]() -> Result<int> {
    if (++calls < 3) return Lost();
    return 42;
  });
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(*r, 42);
  EXPECT_EQ(calls, 3);
}

TEST(RetryOnConflict, StopsAtTheFirstSuccess) {
  int calls = 0;
  Status s = RetryOnConflict([&]() -> Status {
    ++calls;
    return Ok();
  });
  EXPECT_THAT(s, IsOk());
  EXPECT_EQ(calls, 1);
}

TEST(RetryOnConflict, ReturnsAnyOtherErrorAtOnceAndUnchanged) {
  for (ErrorCode code :
       {ErrorCode::kNotFound, ErrorCode::kAlreadyExists, ErrorCode::kInvalidArgument,
        ErrorCode::kUnavailable, ErrorCode::kCommitStateUnknown, ErrorCode::kInternal}) {
    int calls = 0;
    Result<int> r = RetryOnConflict([&]() -> Result<int> {
      ++calls;
      return MakeError(code, EntityKind::kTable, "the original");
    });
    EXPECT_THAT(r, IsError(code));
    EXPECT_THAT(r, HasErrorMessage("the original"));
    EXPECT_EQ(r.error().entity, EntityKind::kTable);
    EXPECT_EQ(calls, 1) << ErrorCodeName(code);
  }
}

TEST(RetryOnConflict, GivesUpAfterTheBoundWithTheDocumentedError) {
  int calls = 0;
  Result<int> r = RetryOnConflict([&]() -> Result<int> {
    ++calls;
    return Lost();
  });
  EXPECT_EQ(calls, kMaxConflictAttempts);
  EXPECT_THAT(r, IsError(ErrorCode::kUnavailable));
  EXPECT_EQ(r.error().message, "too many concurrent updates; try again");
}

TEST(RetryOnConflict, GivesUpWithTheCallersError) {
  int calls = 0;
  Status s = RetryOnConflict(
      [&]() -> Status {
        ++calls;
        return Lost();
      },
      [] { return Unavailable("too many concurrent commits to t; try again"); });
  EXPECT_EQ(calls, kMaxConflictAttempts);
  EXPECT_THAT(s, IsError(ErrorCode::kUnavailable));
  EXPECT_EQ(s.error().message, "too many concurrent commits to t; try again");
}

TEST(RetryOnConflict, TheExhaustedErrorIsMadeOnlyWhenAllAttemptsLost) {
  int made = 0;
  Result<int> r = RetryOnConflict([]() -> Result<int> { return 1; },
                                  [&] {
                                    ++made;
                                    return Unavailable("never");
                                  });
  EXPECT_THAT(r, IsOk());
  EXPECT_EQ(made, 0);
}

TEST(RetryOnConflict, RetriesWhatTheCallerSaysWasLost) {
  // A failed requirement is a kConflict too; only the flagged one is a lost race.
  bool lost = false;
  int calls = 0;
  Result<int> r = RetryOnConflict(
      [&]() -> Result<int> {
        ++calls;
        lost = calls == 1;
        return lost ? Conflict(EntityKind::kTable, "lost")
                    : Conflict(EntityKind::kTable, "Requirement failed");
      },
      [] { return Unavailable("too many"); }, [&](const Error&) { return lost; });
  EXPECT_EQ(calls, 2);
  EXPECT_THAT(r, HasErrorMessage("Requirement failed"));

  calls = 0;
  Result<int> taken = RetryOnConflict(
      [&]() -> Result<int> {
        if (++calls < 4) return AlreadyExists(EntityKind::kNone, "inserted first");
        return 7;
      },
      [] { return Unavailable("too many"); },
      [](const Error& e) { return e.code == ErrorCode::kAlreadyExists; });
  ASSERT_THAT(taken, IsOk());
  EXPECT_EQ(calls, 4);
}

TEST(RetryOnConflict, TakesAPerCallBound) {
  int calls = 0;
  Result<int> r = RetryOnConflict(
      [&]() -> Result<int> {
        ++calls;
        return Lost();
      },
      [] { return Unavailable("too many"); }, IsConflict, 3);
  EXPECT_EQ(calls, 3);
  EXPECT_THAT(r, IsError(ErrorCode::kUnavailable));
}

// Writers racing on one row of a real store: every read-modify-compare-and-set lands exactly
// once, none gives up.
TEST(RetryOnConflict, ConcurrentWritersOfOneRowAllLand) {
  const auto dir =
      std::filesystem::temp_directory_path() / fmt::format("cairn_retry_test_{}", ::getpid());
  std::filesystem::remove_all(dir);
  StoreOptions options;
  options.sqlite_path = (dir / "cairn.db").string();
  options.pool_size = 8;
  auto opened = OpenStore(options);
  ASSERT_THAT(opened, IsOk());
  MetadataStore& store = **opened;
  EntityRecord row;
  row.type = EntityType::kMetalake;
  row.name = "hot";
  row.payload = "{}";
  auto inserted = store.Insert(row);
  ASSERT_THAT(inserted, IsOk());

  constexpr int kWriters = 8;
  constexpr int kUpdatesEach = 25;
  std::vector<std::thread> writers;
  std::vector<int> failures(kWriters, 0);
  const auto started = std::chrono::steady_clock::now();
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kUpdatesEach; ++i) {
        auto updated = RetryOnConflict([&]() -> Result<EntityRecord> {
          CAIRN_ASSIGN_OR_RETURN(EntityRecord current, store.GetById(inserted->id));
          current.properties[fmt::format("w{}-{}", w, i)] = "x";
          return store.CompareAndSet(current);
        });
        if (!updated) ++failures[w];
      }
    });
  }
  for (auto& t : writers) t.join();
  const auto took = std::chrono::steady_clock::now() - started;
  std::printf(
      "%d x %d updates of one row: %lld ms\n", kWriters, kUpdatesEach,
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(failures[w], 0) << "writer " << w;
  auto final_row = store.GetById(inserted->id);
  ASSERT_THAT(final_row, IsOk());
  EXPECT_EQ(final_row->properties.size(), static_cast<size_t>(kWriters * kUpdatesEach));
  opened->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cairn::store
