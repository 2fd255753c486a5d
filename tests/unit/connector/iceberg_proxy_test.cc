// SPDX-License-Identifier: Apache-2.0
#include <chrono>

#include <gtest/gtest.h>

#include "connector/iceberg/iceberg_proxy.h"
#include "matchers.h"

namespace cairn::connector {
namespace {

using cairn::testing::HasErrorMessage;
using cairn::testing::IsError;
using cairn::testing::IsOk;

CatalogInfo Info(model::Properties props) {
  CatalogInfo info;
  info.metalake = "ml";
  info.name = "cat";
  info.properties = std::move(props);
  return info;
}

TEST(IcebergProxyOptions, ReadsEveryProperty) {
  auto o = ParseIcebergProxyOptions(Info({{"uri", "http://127.0.0.1:9181/iceberg/"},
                                          {"warehouse", "a.b"},
                                          {"prefix", "/p/"},
                                          {"token", "t"},
                                          {"rest.forward-token", "FALSE"},
                                          {"rest.check-privileges", "true"},
                                          {"rest.connect-timeout-ms", "250"},
                                          {"rest.request-timeout-ms", "1500"}}));
  ASSERT_THAT(o, IsOk());
  EXPECT_EQ(o->catalog, "ml.cat");
  EXPECT_EQ(o->uri, "http://127.0.0.1:9181/iceberg");
  EXPECT_EQ(o->warehouse, "a.b");
  EXPECT_EQ(o->prefix, "p");
  EXPECT_EQ(o->token, "t");
  EXPECT_FALSE(o->forward_token);
  EXPECT_TRUE(o->check_privileges);
  EXPECT_EQ(o->connect_timeout_ms, 250);
  EXPECT_EQ(o->request_timeout_ms, 1500);
}

TEST(IcebergProxyOptions, DefaultsForwardTheTokenAndLeavePrivilegesToTheRemote) {
  auto o = ParseIcebergProxyOptions(Info({{"uri", "https://catalog.example.com"}}));
  ASSERT_THAT(o, IsOk());
  EXPECT_TRUE(o->forward_token);
  EXPECT_FALSE(o->check_privileges);
  EXPECT_FALSE(o->prefix.has_value());
}

TEST(IcebergProxyOptions, RefusesBadUrisNamingTheProperty) {
  for (const char* uri : {"", "   ", "not a url", "ftp://host/x", "http://", "http://:80",
                          "http://host/x?y=1", "file:///tmp"}) {
    auto o = ParseIcebergProxyOptions(Info({{"uri", uri}}));
    EXPECT_THAT(o, IsError(ErrorCode::kInvalidArgument)) << uri;
    EXPECT_THAT(o, HasErrorMessage("'uri'")) << uri;
  }
  EXPECT_THAT(ParseIcebergProxyOptions(Info({})), HasErrorMessage("'uri'"));
}

TEST(IcebergProxyOptions, RefusesBadFlagsAndTimeouts) {
  EXPECT_THAT(ParseIcebergProxyOptions(Info({{"uri", "http://h"}, {"rest.forward-token", "yes"}})),
              HasErrorMessage("rest.forward-token"));
  EXPECT_THAT(
      ParseIcebergProxyOptions(Info({{"uri", "http://h"}, {"rest.request-timeout-ms", "0"}})),
      HasErrorMessage("rest.request-timeout-ms"));
}

TEST(IcebergProxyOptions, CredentialsNeverGoToAnotherMachineInClearText) {
  const char* kAllow = "rest.allow-insecure-credentials";
  // The callers' tokens are forwarded by default: plain HTTP off this machine is refused.
  EXPECT_THAT(ParseIcebergProxyOptions(Info({{"uri", "http://catalog.example.com"}})),
              HasErrorMessage(kAllow));
  EXPECT_THAT(ParseIcebergProxyOptions(Info({{"uri", "http://10.0.0.5:8181"},
                                             {"rest.forward-token", "false"},
                                             {"token", "t"}})),
              HasErrorMessage(kAllow));
  // A secret for a token endpoint on plain HTTP, the catalog itself on HTTPS.
  EXPECT_THAT(ParseIcebergProxyOptions(Info({{"uri", "https://catalog.example.com"},
                                             {"rest.forward-token", "false"},
                                             {"credential", "id:secret"},
                                             {"oauth2-server-uri", "http://idp.example.com/t"}})),
              HasErrorMessage(kAllow));
  // Allowed: HTTPS, loopback, nothing secret to send, or said so.
  EXPECT_THAT(ParseIcebergProxyOptions(Info({{"uri", "https://catalog.example.com"}})), IsOk());
  for (const char* local : {"http://127.0.0.1:8181", "http://localhost:8181", "http://[::1]:81"}) {
    EXPECT_THAT(ParseIcebergProxyOptions(Info({{"uri", local}, {"token", "t"}})), IsOk()) << local;
  }
  EXPECT_THAT(ParseIcebergProxyOptions(Info({{"uri", "http://catalog.example.com"},
                                             {"rest.forward-token", "false"}})),
              IsOk());
  EXPECT_THAT(ParseIcebergProxyOptions(Info({{"uri", "http://catalog.example.com"}, {kAllow, "true"}})),
              IsOk());
  EXPECT_THAT(ParseIcebergProxyOptions(Info({{"uri", "https://h"}, {"rest.tls.ca-file", "/no/ca"}})),
              HasErrorMessage("rest.tls.ca-file"));
}

TEST(IcebergProxy, NamespacesAreUnitSeparatedAndEncoded) {
  EXPECT_EQ(IcebergProxy::NamespacePath({"a", "b c"}), "a%1Fb%20c");
  EXPECT_EQ(HttpClient::Escape("x/y.z_~-"), "x%2Fy.z_~-");
}

TEST(IcebergProxy, UnreachableRemoteIsUnavailableNamingTheCatalog) {
  // Port 1 on loopback: nothing listens, the connection is refused at once.
  auto o = ParseIcebergProxyOptions(Info({{"uri", "http://127.0.0.1:1"}}));
  ASSERT_THAT(o, IsOk());
  IcebergProxy proxy(*o);
  ProxyRequest r;
  r.method = "GET";
  r.path = "namespaces";
  const auto t0 = std::chrono::steady_clock::now();
  auto answer = proxy.Forward(r);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_THAT(answer, IsError(ErrorCode::kUnavailable));
  EXPECT_THAT(answer, HasErrorMessage("ml.cat"));
  EXPECT_EQ(answer.error().entity, EntityKind::kCatalog);
  EXPECT_THAT(proxy.TestConnection(std::nullopt), IsError(ErrorCode::kConnectionFailed));
}

TEST(IcebergProxy, RemoteErrorsMapByTypeThenStatus) {
  auto o = ParseIcebergProxyOptions(Info({{"uri", "http://127.0.0.1:1"}}));
  ASSERT_THAT(o, IsOk());
  IcebergProxy proxy(*o);
  auto map = [&](int status, const char* type, EntityKind entity = EntityKind::kTable) {
    ProxyResponse r;
    r.status = status;
    r.body = fmt::format(R"({{"error":{{"message":"m","type":"{}","code":{}}}}})", type, status);
    return proxy.RemoteError(r, entity);
  };
  EXPECT_EQ(map(404, "NoSuchTableException", EntityKind::kSchema).entity, EntityKind::kTable);
  EXPECT_EQ(map(404, "NoSuchNamespaceException").entity, EntityKind::kSchema);
  EXPECT_EQ(map(409, "AlreadyExistsException").code, ErrorCode::kAlreadyExists);
  EXPECT_EQ(map(409, "NamespaceNotEmptyException").code, ErrorCode::kNotEmpty);
  EXPECT_EQ(map(409, "CommitFailedException").code, ErrorCode::kConflict);
  EXPECT_EQ(map(403, "ForbiddenException").code, ErrorCode::kPermissionDenied);
  EXPECT_EQ(map(401, "NotAuthorizedException").code, ErrorCode::kUnauthenticated);
  EXPECT_EQ(map(400, "BadRequestException").code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(map(503, "ServiceUnavailableException").code, ErrorCode::kUnavailable);
  EXPECT_EQ(map(500, "ServiceFailureException").code, ErrorCode::kInternal);
  EXPECT_EQ(map(404, "NoSuchTableException").message, "m");
}

}  // namespace
}  // namespace cairn::connector
