// SPDX-License-Identifier: Apache-2.0
#include "governance/audit.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cairn::governance {
namespace {

class AuditLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cairn-audit-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Lines() {
    std::ifstream in(dir_ / "audit.log");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::filesystem::path dir_;
};

AuditRecord Sample() {
  AuditRecord r;
  r.time_ms = 1'700'000'000'123;
  r.principal = "alice";
  r.interface = "iceberg";
  r.operation = "GET /iceberg/v1/{prefix}/namespaces/{namespace}/tables/{table}";
  r.object = "m.c.db.t";
  r.outcome = "success";
  r.status = 200;
  r.request_id = "abc-000001";
  r.client = "127.0.0.1";
  return r;
}

TEST_F(AuditLogTest, WritesOneCompactJsonObjectPerLineInAFixedOrder) {
  auto log = AuditLog::Open(dir_.string(), 1 << 20, 3);
  ASSERT_TRUE(log.has_value());
  (*log)->Write(Sample());
  EXPECT_EQ(Lines(),
            "{\"time\":\"2023-11-14T22:13:20.123Z\",\"principal\":\"alice\",\"interface\":"
            "\"iceberg\",\"operation\":\"GET "
            "/iceberg/v1/{prefix}/namespaces/{namespace}/tables/{table}\",\"object\":\"m.c.db.t\","
            "\"outcome\":\"success\",\"status\":200,\"requestId\":\"abc-000001\",\"client\":"
            "\"127.0.0.1\",\"timeMs\":1700000000123}\n");
}

TEST_F(AuditLogTest, EscapesQuotesControlCharactersAndInvalidUtf8) {
  auto log = AuditLog::Open(dir_.string(), 1 << 20, 3);
  ASSERT_TRUE(log.has_value());
  AuditRecord r = Sample();
  r.principal = "bob \"the\" \\ admin\n";
  r.object = "caf\xc3\xa9.\xff\xfe";  // valid UTF-8, then two invalid bytes
  r.detail = "vended s3-token for s3://b/p";
  r.caller_context = {{"InternalClientType", "HADOOP_GVFS"}, {"FilesetDataOperation", "CREATE"}};
  (*log)->Write(r);
  const std::string text = Lines();
  ASSERT_FALSE(text.empty());
  ASSERT_EQ(text.back(), '\n');
  auto j = nlohmann::json::parse(text);  // one valid JSON document
  EXPECT_EQ(j["principal"], "bob \"the\" \\ admin\n");
  EXPECT_EQ(j["object"], "caf\xc3\xa9.\xef\xbf\xbd\xef\xbf\xbd");  // each bad byte -> U+FFFD
  EXPECT_EQ(j["detail"], "vended s3-token for s3://b/p");
  EXPECT_EQ(j["callerContext"]["InternalClientType"], "HADOOP_GVFS");
  EXPECT_EQ(j["callerContext"]["FilesetDataOperation"], "CREATE");
  EXPECT_EQ(j["status"], 200);
  EXPECT_EQ(j["timeMs"], 1'700'000'000'123);
  // detail comes before timeMs, callerContext last
  EXPECT_LT(text.find("\"detail\""), text.find("\"timeMs\""));
  EXPECT_LT(text.find("\"timeMs\""), text.find("\"callerContext\""));
}

TEST_F(AuditLogTest, QueryReadsBackWhatWasWritten) {
  auto log = AuditLog::Open(dir_.string(), 1 << 20, 3);
  ASSERT_TRUE(log.has_value());
  AuditRecord a = Sample();
  AuditRecord b = Sample();
  b.principal = "eve";
  b.outcome = "denied";
  b.status = 403;
  (*log)->Write(a);
  (*log)->Write(b);
  AuditQuery q;
  q.principal = "eve";
  auto lines = (*log)->Query(q);
  ASSERT_TRUE(lines.has_value());
  ASSERT_EQ(lines->size(), 1u);
  EXPECT_EQ(nlohmann::json::parse((*lines)[0])["status"], 403);
}

TEST_F(AuditLogTest, RotatesPastTheSizeKeepingTheNewestRecordsInOrderAcrossTheFiles) {
  constexpr int kRecords = 13;  // about 330 bytes each: more than four files of 1,000 bytes hold
  {
    auto log = AuditLog::Open(dir_.string(), 1000, 3);
    ASSERT_TRUE(log.has_value());
    for (int i = 0; i < kRecords; ++i) {
      const std::string id = "req-" + std::to_string(i);  // outlives the write
      AuditRecord r = Sample();
      r.request_id = id;
      (*log)->Write(r);
    }
    // A query sees the rotated files at once (an old file is synced and closed later).
    auto lines = (*log)->Query(AuditQuery{});
    ASSERT_TRUE(lines.has_value());
    ASSERT_FALSE(lines->empty());
    EXPECT_EQ(nlohmann::json::parse(lines->front())["requestId"], "req-12") << "newest first";
  }  // closed: every retired file synced, closed or deleted
  std::vector<std::string> ids;
  for (int index = 3; index >= 0; --index) {
    const auto path = dir_ / (index == 0 ? std::string("audit.log")
                                         : "audit.log." + std::to_string(index));
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      ids.push_back(nlohmann::json::parse(line)["requestId"].get<std::string>());
    }
  }
  // The newest records, in order, ending with the last; the oldest file went past max_files.
  ASSERT_GE(ids.size(), 7u);
  ASSERT_LT(ids.size(), static_cast<size_t>(kRecords));
  const size_t first = kRecords - ids.size();
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], "req-" + std::to_string(first + i));
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "audit.log" || name == "audit.log.1" || name == "audit.log.2" ||
                name == "audit.log.3")
        << name << " left behind";
  }
}

}  // namespace
}  // namespace cairn::governance
