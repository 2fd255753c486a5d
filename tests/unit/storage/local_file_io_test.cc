// SPDX-License-Identifier: Apache-2.0
// Local files: a read returns the whole file or NotFound, a new file appears whole under its
// name or not at all, an existing name is never overwritten, and nothing is left beside it.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "storage/file_io.h"

namespace cairn::storage {
namespace {

namespace fs = std::filesystem;

class LocalFileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cairn-local-io-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto io = FileIOFor(dir_.string(), StorageOptions{});
    ASSERT_TRUE(io.has_value()) << io.error().message;
    io_ = std::move(*io);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> Names(const fs::path& dir) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
  std::unique_ptr<FileIO> io_;
};

TEST_F(LocalFileIoTest, WritesNewFilesWholeAndNeverOverwrites) {
  // Larger than any single read or write buffer, with every byte value.
  std::string big;
  for (int i = 0; i < 300'000; ++i) big.push_back(static_cast<char>(i * 7 % 256));
  const std::string location = "file://" + (dir_ / "sub" / "a.avro").string();
  ASSERT_TRUE(io_->WriteNewDeferred(location, big).has_value());
  auto read = io_->Read(location);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(*read, big);

  auto again = io_->WriteNewDeferred(location, "other");
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, ErrorCode::kAlreadyExists);
  EXPECT_EQ(*io_->Read(location), big);

  ASSERT_TRUE(io_->WriteNew((dir_ / "sub" / "empty").string(), "").has_value());
  EXPECT_EQ(*io_->Read((dir_ / "sub" / "empty").string()), "");
  // Only the two names: no temporary file beside them.
  EXPECT_EQ(Names(dir_ / "sub"), (std::vector<std::string>{"a.avro", "empty"}));
}

TEST_F(LocalFileIoTest, ReadsWhatOthersWroteAndTellsMissingFromUnreadable) {
  {
    std::ofstream out(dir_ / "plain.json", std::ios::binary);
    out << "{\"k\":1}";
  }
  auto read = io_->Read("file:" + (dir_ / "plain.json").string());
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(*read, "{\"k\":1}");

  auto missing = io_->Read((dir_ / "nope.json").string());
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  auto under_a_file = io_->Read((dir_ / "plain.json" / "x").string());
  ASSERT_FALSE(under_a_file.has_value());
  EXPECT_EQ(under_a_file.error().code, ErrorCode::kNotFound);
  auto a_directory = io_->Read(dir_.string());
  ASSERT_FALSE(a_directory.has_value());
  EXPECT_NE(a_directory.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace cairn::storage
