// SPDX-License-Identifier: Apache-2.0
// Remote signing: what a request to be signed addresses, and the signature's shape. That MinIO
// accepts the signatures is checked in tests/storage/test_s3_remote_signing.py.
#include "storage/sigv4.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace cairn::storage {
namespace {

S3Options Minio() {
  S3Options o;
  o.endpoint = "http://127.0.0.1:9000";
  o.access_key_id = "AKID";
  o.secret_access_key = "secret";
  return o;
}

Result<S3Target> Target(std::string_view url, std::string_view method = "GET",
                        std::string_view body = "") {
  auto parsed = ParseHttpUrl(url);
  if (!parsed) return parsed.error();
  return S3RequestTarget(*parsed, Minio(), method, body);
}

TEST(SigV4, UrlsAreTakenApartAsSent) {
  auto u = ParseHttpUrl("HTTP://Example.COM:9000/b/k%20x?list-type=2&prefix=a%2Fb#frag");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->scheme, "http");
  EXPECT_EQ(u->host, "example.com");
  EXPECT_EQ(u->port, 9000);
  EXPECT_EQ(u->path, "/b/k%20x");
  EXPECT_EQ(u->query, "list-type=2&prefix=a%2Fb");
  EXPECT_EQ(u->Authority(), "example.com:9000");
  EXPECT_EQ(ParseHttpUrl("https://[::1]:443/b")->Authority(), "[::1]");
  for (const char* bad : {"ftp://h/b", "h/b", "http://user@h/b", "http://h:0/b", "http:///b"}) {
    EXPECT_FALSE(ParseHttpUrl(bad).has_value()) << bad;
  }
}

TEST(SigV4, ObjectsPrefixesAndDeletesAreNamedAsLocations) {
  auto t = Target("http://127.0.0.1:9000/wh/db/t/data/a%20b.parquet", "PUT");
  ASSERT_TRUE(t.has_value()) << t.error().message;
  EXPECT_EQ(t->objects, std::vector<std::string>{"s3://wh/db/t/data/a b.parquet"});
  // Virtual-hosted style names the bucket in the host.
  t = Target("http://wh.127.0.0.1:9000/db/t/x");
  ASSERT_TRUE(t.has_value()) << t.error().message;
  EXPECT_EQ(t->objects, std::vector<std::string>{"s3://wh/db/t/x"});
  t = Target("http://127.0.0.1:9000/wh?list-type=2&prefix=db%2Ft%2F");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->prefixes, std::vector<std::string>{"s3://wh/db/t/"});
  t = Target("http://127.0.0.1:9000/wh?delete", "POST",
             "<Delete><Object><Key>db/t/a</Key></Object><Object><Key>db/t/b</Key></Object>"
             "</Delete>");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->objects, (std::vector<std::string>{"s3://wh/db/t/a", "s3://wh/db/t/b"}));
}

TEST(SigV4, WhatCannotBeBoundToATableIsRefused) {
  for (const char* url : {"http://127.0.0.1:9001/wh/db/t/x",      // another port
                          "https://127.0.0.1:9000/wh/db/t/x",     // another scheme
                          "http://10.0.0.1:9000/wh/db/t/x",       // another host
                          "http://127.0.0.1:9000/wh/db/t/../u/x",  // a dot-dot segment
                          "http://127.0.0.1:9000/wh/db/t/%2E%2E/u",
                          "http://127.0.0.1:9000/wh",             // the bucket, unbounded
                          "http://127.0.0.1:9000/wh?list-type=2",
                          "http://127.0.0.1:9000/wh?list-type=2&prefix=",
                          // A bucket that would read as a path segment of its location.
                          "http://127.0.0.1:9000/../db/t/x",
                          "http://127.0.0.1:9000/%2E%2E/db/t/x",
                          "http://127.0.0.1:9000/./db/t/x",
                          "http://...127.0.0.1:9000/db/t/x",
                          "http://a..b.127.0.0.1:9000/db/t/x",
                          "http://127.0.0.1:9000/w%00h/db/t/x"}) {
    EXPECT_FALSE(Target(url).has_value()) << url;
  }
  EXPECT_FALSE(Target("http://127.0.0.1:9000/wh?delete", "POST", "").has_value());
  EXPECT_FALSE(Target("http://127.0.0.1:9000/wh", "PUT").has_value());  // create a bucket
}

TEST(SigV4, APrefixListsOnlyInsideItsTable) {
  EXPECT_TRUE(PrefixWithin("s3://wh/db/t/", "s3://wh/db/t"));
  EXPECT_TRUE(PrefixWithin("s3://wh/db/t/data/0", "s3://wh/db/t"));
  EXPECT_FALSE(PrefixWithin("s3://wh/db/t", "s3://wh/db/t"));  // would list t2/ too
  EXPECT_FALSE(PrefixWithin("s3://wh/db/t2/", "s3://wh/db/t"));
  EXPECT_FALSE(PrefixWithin("s3://wh/db/", "s3://wh/db/t"));
}

TEST(SigV4, TheSignatureCoversTheRequestAndAddsWhatS3Needs) {
  auto url = ParseHttpUrl("http://127.0.0.1:9000/wh/db/t/x?partNumber=1&uploadId=u%2B1");
  ASSERT_TRUE(url.has_value());
  S3Options keys = Minio();
  keys.session_token = "tok";
  const HeaderList in = {{"User-Agent", "test"},
                         {"Authorization", "stale"},
                         {"Content-Type", "application/octet-stream"}};
  const int64_t at = 1'369'353'600'000;  // 2013-05-24T00:00:00Z
  const HeaderList out = SignS3Request("PUT", *url, in, keys, "us-east-1", at);
  auto value = [&](std::string_view name) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& h) { return h.first == name; });
    return it == out.end() ? std::string("<none>") : it->second;
  };
  EXPECT_EQ(value("Host"), "127.0.0.1:9000");
  EXPECT_EQ(value("X-Amz-Date"), "20130524T000000Z");
  EXPECT_EQ(value("X-Amz-Content-Sha256"), "UNSIGNED-PAYLOAD");
  EXPECT_EQ(value("X-Amz-Security-Token"), "tok");
  EXPECT_EQ(value("User-Agent"), "test");
  EXPECT_EQ(std::count_if(out.begin(), out.end(),
                          [](const auto& h) { return h.first == "Authorization"; }),
            1);
  const std::string auth = value("Authorization");
  EXPECT_EQ(auth.rfind("AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws4_request, "
                       "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;"
                       "x-amz-security-token, Signature=",
                       0),
            0u)
      << auth;
  // Deterministic, and bound to what it signs.
  EXPECT_EQ(SignS3Request("PUT", *url, in, keys, "us-east-1", at), out);
  auto other = ParseHttpUrl("http://127.0.0.1:9000/wh/db/t/y?partNumber=1&uploadId=u%2B1");
  const HeaderList moved = SignS3Request("PUT", *other, in, keys, "us-east-1", at);
  EXPECT_NE(moved.back().second, auth);
  EXPECT_NE(SignS3Request("GET", *url, in, keys, "us-east-1", at).back().second, auth);
}

}  // namespace
}  // namespace cairn::storage
