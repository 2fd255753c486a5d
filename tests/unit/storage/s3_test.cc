// SPDX-License-Identifier: Apache-2.0
// S3 FileIO and STS vending. The pure parts always run; the rest runs against the MinIO server
// the test runner starts (CAIRN_TEST_S3_ENDPOINT, root keys admin/password, bucket `warehouse`).
#include <chrono>
#include <cstdlib>

#include <gtest/gtest.h>

#include "common/util.h"
#include "storage/credentials.h"
#include "storage/file_io.h"
#include "storage/s3_client.h"

namespace cairn::storage {
namespace {

TEST(S3Location, SplitsBucketAndKey) {
  auto loc = ParseS3Location("s3://bucket/a/b.json");
  ASSERT_TRUE(loc);
  EXPECT_EQ(loc->bucket, "bucket");
  EXPECT_EQ(loc->key, "a/b.json");
  auto root = ParseS3Location("s3a://bucket");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->key, "");
  EXPECT_FALSE(ParseS3Location("s3:///key"));
  EXPECT_FALSE(ParseS3Location("/tmp/x"));
}

TEST(S3Xml, ExtractsAndDecodesElements) {
  const std::string xml =
      "<R><Contents><Key>a&amp;b</Key><Size>3</Size></Contents>"
      "<Contents><Key>c</Key></Contents><IsTruncated>false</IsTruncated></R>";
  auto contents = XmlElements(xml, "Contents");
  ASSERT_EQ(contents.size(), 2u);
  EXPECT_EQ(XmlElement(contents[0], "Key"), "a&b");
  EXPECT_EQ(XmlElement(contents[0], "Size"), "3");
  EXPECT_EQ(XmlElement(xml, "Missing"), "");
}

TEST(S3Time, ParsesIsoTimes) {
  EXPECT_EQ(ParseIsoTimeMs("1970-01-01T00:00:01.5Z"), 1500);
  EXPECT_EQ(ParseIsoTimeMs("2026-11-29T17:03:05Z"), 1795971785000);
  EXPECT_EQ(ParseIsoTimeMs("garbage"), 0);
}

TEST(S3Encode, KeepsUnreservedAndSlashes) {
  EXPECT_EQ(AwsUriEncode("a b/c+d~", true), "a%20b/c%2Bd~");
  EXPECT_EQ(AwsUriEncode("a/b", false), "a%2Fb");
}

TEST(ScopedPolicy, AllowsOnlyThePrefix) {
  auto policy = ScopedS3Policy({"s3://wh/ns/t1"}, false);
  ASSERT_TRUE(policy);
  EXPECT_NE(policy->find("arn:aws:s3:::wh/ns/t1/*"), std::string::npos);
  EXPECT_EQ(policy->find("s3:PutObject"), std::string::npos);
  auto rw = ScopedS3Policy({"s3://wh/ns/t1/"}, true);
  ASSERT_TRUE(rw);
  EXPECT_NE(rw->find("s3:PutObject"), std::string::npos);
  EXPECT_FALSE(ScopedS3Policy({"s3://wh"}, false)) << "whole-bucket grants are refused";
  EXPECT_FALSE(ScopedS3Policy({"/tmp/local"}, false));
}

TEST(CredentialVendorConfig, ValidatesProperties) {
  EXPECT_FALSE(CredentialVendor::FromProperties({{"credential-providers", "gcs-token"}}));
  EXPECT_FALSE(CredentialVendor::FromProperties({{"credential-providers", "s3-token"}}))
      << "keys are required";
  auto bad_secs = CredentialVendor::FromProperties({{"credential-providers", "s3-token"},
                                                    {"s3-access-key-id", "a"},
                                                    {"s3-secret-access-key", "b"},
                                                    {"s3-token-expire-in-secs", "10"}});
  ASSERT_FALSE(bad_secs);
  EXPECT_NE(bad_secs.error().message.find("s3-token-expire-in-secs"), std::string::npos);
  auto none = CredentialVendor::FromProperties({});
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->enabled());
}

TEST(CredentialVendorConfig, LongTermKeysKeepOneSerialPerConfiguration) {
  const std::map<std::string, std::string> props = {{"credential-providers", "s3-secret-key"},
                                                    {"s3-access-key-id", "a"},
                                                    {"s3-secret-access-key", "b"}};
  auto vendor = CredentialVendor::FromProperties(props);
  ASSERT_TRUE(vendor) << vendor.error().message;
  auto first = vendor->Vend({"s3://b/t1"}, AccessLevel::kRead, 1000);
  auto second = vendor->Vend({"s3://b/t2"}, AccessLevel::kReadWrite, 2000);
  ASSERT_TRUE(first && second);
  ASSERT_EQ(first->size(), 1u);
  EXPECT_NE((*first)[0].serial, 0u);
  EXPECT_EQ((*first)[0].serial, (*second)[0].serial) << "the same keys whatever is asked";
  CredentialVendor copy = *vendor;
  EXPECT_EQ((*copy.Vend({"s3://b/t1"}, AccessLevel::kRead, 1000))[0].serial, (*first)[0].serial)
      << "a copy has the same configuration";
  auto changed = CredentialVendor::FromProperties({{"credential-providers", "s3-secret-key"},
                                                   {"s3-access-key-id", "a"},
                                                   {"s3-secret-access-key", "other"}});
  ASSERT_TRUE(changed);
  EXPECT_NE((*changed->Vend({"s3://b/t1"}, AccessLevel::kRead, 1000))[0].serial,
            (*first)[0].serial)
      << "another configuration, another serial";
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class S3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* endpoint = std::getenv("CAIRN_TEST_S3_ENDPOINT");
    if (endpoint == nullptr || *endpoint == '\0') {
      GTEST_SKIP() << "CAIRN_TEST_S3_ENDPOINT is not set: S3 tests need the runner's MinIO";
    }
    props_ = {{"s3-endpoint", endpoint},
              {"s3-access-key-id", "admin"},
              {"s3-secret-access-key", "password"},
              {"s3-region", "us-east-1"}};
    auto io = FileIOFor("s3://warehouse/x", StorageOptions::FromProperties(props_));
    ASSERT_TRUE(io) << io.error().message;
    io_ = std::move(*io);
    root_ = "s3://warehouse/unit-" + RandomUuid();
  }
  void TearDown() override {
    if (io_) (void)io_->DeletePrefix(root_);
  }
  std::map<std::string, std::string> props_;
  std::unique_ptr<FileIO> io_;
  std::string root_;
};

TEST_F(S3Test, WritesReadsListsAndDeletes) {
  const std::string big(3 * 1024 * 1024 + 7, 'x');
  auto w1 = io_->WriteNew(root_ + "/a/one.json", "{\"a\":1}");
  ASSERT_TRUE(w1) << w1.error().message;
  ASSERT_TRUE(io_->WriteNew(root_ + "/a/sub dir/two+.bin", big));
  auto again = io_->WriteNew(root_ + "/a/one.json", "other");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kAlreadyExists);

  auto one = io_->Read(root_ + "/a/one.json");
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(*one, "{\"a\":1}");
  auto two = io_->Read(root_ + "/a/sub dir/two+.bin");
  ASSERT_TRUE(two) << two.error().message;
  EXPECT_EQ(two->size(), big.size());

  auto missing = io_->Read(root_ + "/a/missing");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(*io_->Exists(root_ + "/a/one.json"));
  EXPECT_FALSE(*io_->Exists(root_ + "/a/missing"));
  EXPECT_TRUE(*io_->Exists(root_ + "/a")) << "a prefix with objects below it exists";
  EXPECT_TRUE(*io_->Exists(root_ + "/a/sub dir/"));
  EXPECT_FALSE(*io_->Exists(root_ + "/a/sub"));

  auto entries = io_->ListEntries(root_ + "/a");
  ASSERT_TRUE(entries) << entries.error().message;
  ASSERT_EQ(entries->size(), 2u);
  bool saw_file = false, saw_dir = false;
  for (const auto& e : *entries) {
    if (e.name == "one.json") {
      saw_file = true;
      EXPECT_FALSE(e.is_dir);
      EXPECT_EQ(e.size, 7);
      EXPECT_EQ(e.location, root_ + "/a/one.json");
      EXPECT_GT(e.last_modified_ms, NowMs() - 600000);
    }
    if (e.name == "sub dir") {
      saw_dir = true;
      EXPECT_TRUE(e.is_dir);
    }
  }
  EXPECT_TRUE(saw_file && saw_dir);

  ASSERT_TRUE(io_->Delete(root_ + "/a/one.json"));
  EXPECT_FALSE(*io_->Exists(root_ + "/a/one.json"));
  ASSERT_TRUE(io_->Delete(root_ + "/a/one.json")) << "deleting a missing object succeeds";
  ASSERT_TRUE(io_->DeletePrefix(root_));
  EXPECT_TRUE(io_->ListEntries(root_ + "/a")->empty());
}

TEST_F(S3Test, UnreachableEndpointIsUnavailableQuickly) {
  auto props = props_;
  props["s3-endpoint"] = "http://127.0.0.1:1";
  auto io = FileIOFor("s3://warehouse/x", StorageOptions::FromProperties(props));
  ASSERT_TRUE(io);
  const auto start = std::chrono::steady_clock::now();
  auto r = (*io)->Read("s3://warehouse/x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("127.0.0.1:1"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(S3Test, WrongKeysAreRefusedWithTheStoreError) {
  auto props = props_;
  props["s3-secret-access-key"] = "wrong";
  auto io = FileIOFor("s3://warehouse/x", StorageOptions::FromProperties(props));
  auto r = (*io)->Read(root_ + "/nothing");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("SignatureDoesNotMatch"), std::string::npos)
      << r.error().message;
}

TEST_F(S3Test, VendedTokensReachOnlyTheirPrefix) {
  ASSERT_TRUE(io_->WriteNew(root_ + "/t1/data.txt", "t1"));
  ASSERT_TRUE(io_->WriteNew(root_ + "/t2/data.txt", "t2"));
  auto props = props_;
  props["credential-providers"] = "s3-token";
  auto vendor = CredentialVendor::FromProperties(props);
  ASSERT_TRUE(vendor) << vendor.error().message;

  auto io_with = [&](const Credential& c) {
    auto p = props_;
    p["s3-access-key-id"] = c.info.at("s3-access-key-id");
    p["s3-secret-access-key"] = c.info.at("s3-secret-access-key");
    p["s3-session-token"] = c.info.at("s3-session-token");
    return std::move(*FileIOFor("s3://warehouse/x", StorageOptions::FromProperties(p)));
  };

  auto rw = vendor->Vend({root_ + "/t1"}, AccessLevel::kReadWrite, NowMs());
  ASSERT_TRUE(rw) << rw.error().message;
  ASSERT_EQ(rw->size(), 1u);
  EXPECT_EQ((*rw)[0].type, "s3-token");
  EXPECT_GT((*rw)[0].expire_time_ms, NowMs() + 3000 * 1000);
  auto t1 = io_with((*rw)[0]);
  EXPECT_EQ(*t1->Read(root_ + "/t1/data.txt"), "t1");
  EXPECT_TRUE(t1->WriteNew(root_ + "/t1/new.txt", "n"));
  EXPECT_TRUE(t1->ListEntries(root_ + "/t1"));
  auto other = t1->Read(root_ + "/t2/data.txt");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("AccessDenied"), std::string::npos) << other.error().message;
  auto other_write = t1->WriteNew(root_ + "/t2/x.txt", "x");
  ASSERT_FALSE(other_write);
  EXPECT_NE(other_write.error().message.find("AccessDenied"), std::string::npos);
  EXPECT_FALSE(t1->ListEntries(root_ + "/t2"));

  // The same request within the cache window gets the same keys.
  auto again = vendor->Vend({root_ + "/t1"}, AccessLevel::kReadWrite, NowMs());
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)[0].info.at("s3-access-key-id"), (*rw)[0].info.at("s3-access-key-id"));
  EXPECT_NE((*rw)[0].serial, 0u);
  EXPECT_EQ((*again)[0].serial, (*rw)[0].serial) << "the same keys, the same serial";

  auto ro = vendor->Vend({root_ + "/t1"}, AccessLevel::kRead, NowMs());
  ASSERT_TRUE(ro) << ro.error().message;
  EXPECT_NE((*ro)[0].serial, (*rw)[0].serial) << "other keys, another serial";
  auto t1_read = io_with((*ro)[0]);
  EXPECT_EQ(*t1_read->Read(root_ + "/t1/data.txt"), "t1");
  auto denied = t1_read->WriteNew(root_ + "/t1/ro.txt", "x");
  ASSERT_FALSE(denied);
  EXPECT_NE(denied.error().message.find("AccessDenied"), std::string::npos);
}

}  // namespace
}  // namespace cairn::storage

namespace cairn::storage {
namespace {

// Mints the shortest token STS allows (900 s) through the vendor and writes it to
// CAIRN_TEST_EXPIRY_FILE; the runner checks at the end of the run, once it has expired, that
// MinIO refuses it (tests/storage/check_expired.py). Runs only when the runner asks for it.
TEST_F(S3Test, MintsATokenForTheExpiryCheck) {
  const char* file = std::getenv("CAIRN_TEST_EXPIRY_FILE");
  if (file == nullptr || *file == '\0') GTEST_SKIP() << "CAIRN_TEST_EXPIRY_FILE is not set";
  const std::string prefix = "s3://warehouse/expiry-" + RandomUuid();
  ASSERT_TRUE(io_->WriteNew(prefix + "/probe.txt", "probe"));
  auto props = props_;
  props["credential-providers"] = "s3-token";
  props["s3-token-expire-in-secs"] = "900";
  props["credential-cache-expire-ratio"] = "0";
  auto vendor = CredentialVendor::FromProperties(props);
  ASSERT_TRUE(vendor) << vendor.error().message;
  auto creds = vendor->Vend({prefix}, AccessLevel::kRead, NowMs());
  ASSERT_TRUE(creds) << creds.error().message;
  const Credential& c = (*creds)[0];
  auto p = props_;
  p["s3-access-key-id"] = c.info.at("s3-access-key-id");
  p["s3-secret-access-key"] = c.info.at("s3-secret-access-key");
  p["s3-session-token"] = c.info.at("s3-session-token");
  auto io = FileIOFor(prefix, StorageOptions::FromProperties(p));
  ASSERT_EQ(*(*io)->Read(prefix + "/probe.txt"), "probe") << "a fresh token must work";
  EXPECT_GT(c.expire_time_ms, NowMs() + 850 * 1000);
  EXPECT_LT(c.expire_time_ms, NowMs() + 950 * 1000);
  FILE* out = std::fopen(file, "w");
  ASSERT_NE(out, nullptr);
  std::fprintf(out,
               "{\"access_key_id\":\"%s\",\"secret_access_key\":\"%s\",\"session_token\":\"%s\","
               "\"expire_time_ms\":%lld,\"object\":\"%s\"}\n",
               c.info.at("s3-access-key-id").c_str(), c.info.at("s3-secret-access-key").c_str(),
               c.info.at("s3-session-token").c_str(), static_cast<long long>(c.expire_time_ms),
               (prefix.substr(std::string("s3://warehouse/").size()) + "/probe.txt").c_str());
  std::fclose(out);
  // The probe object stays for the check; TearDown removes only root_.
}

}  // namespace
}  // namespace cairn::storage
