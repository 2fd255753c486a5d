// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "api/iceberg/iceberg_api.h"
#include "api/routes.h"

namespace cairn::api {
namespace {

TEST(PathPattern, MatchesLiteralsAndParameters) {
  PathPattern p("/v1/{prefix}/namespaces/{namespace}/tables/{table}");
  EXPECT_EQ(p.size(), 6u);
  auto m = p.Match({"v1", "ml.cat", "namespaces", "a\x1f" "b", "tables", "t"});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(*m, (std::vector<std::string>{"ml.cat", "a\x1f" "b", "t"}));
  EXPECT_EQ(p.Parameters(), (std::vector<std::string_view>{"prefix", "namespace", "table"}));
  EXPECT_FALSE(p.Match({"v1", "ml.cat", "namespaces", "a", "views", "t"}));
  EXPECT_FALSE(p.Match({"v1", "ml.cat", "namespaces", "a", "tables"}));
  EXPECT_FALSE(p.Match({"v1", "ml.cat", "namespaces", "a", "tables", "t", "x"}));
}

struct TestRoute {
  std::string_view method;
  PathPattern path;
  int id;
};

TEST(FindRoute, TellsAnUnknownPathFromAnotherMethod) {
  const std::vector<TestRoute> routes = {{"GET", PathPattern("/a/{x}"), 1},
                                         {"POST", PathPattern("/a/{x}"), 2},
                                         {"GET", PathPattern("/a/{x}/b"), 3}};
  auto get = FindRoute(std::span<const TestRoute>(routes), "POST", {"a", "1"});
  ASSERT_NE(get.route, nullptr);
  EXPECT_EQ(get.route->id, 2);
  EXPECT_EQ(get.params, std::vector<std::string>{"1"});
  auto del = FindRoute(std::span<const TestRoute>(routes), "DELETE", {"a", "1"});
  EXPECT_EQ(del.route, nullptr);
  EXPECT_TRUE(del.path_known);  // 405
  auto none = FindRoute(std::span<const TestRoute>(routes), "GET", {"a", "1", "c"});
  EXPECT_EQ(none.route, nullptr);
  EXPECT_FALSE(none.path_known);  // 404
}

// The endpoints of the Iceberg REST specification this server serves: what GET /v1/config
// advertises (clients use it to decide which calls to make).
const std::set<std::string> kServed = {
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/transactions/commit",
    "GET /v1/{prefix}/namespaces/{namespace}/views",
    "POST /v1/{prefix}/namespaces/{namespace}/views",
    "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/views/rename",
    "POST /v1/{prefix}/namespaces/{namespace}/register-view",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
};

TEST(IcebergRoutes, AdvertiseEveryServedEndpointOnce) {
  const auto advertised = iceberg::AdvertisedEndpoints();
  const std::set<std::string> unique(advertised.begin(), advertised.end());
  EXPECT_EQ(unique.size(), advertised.size());
  EXPECT_EQ(unique, kServed);
}

TEST(IcebergRoutes, TheAuditOperationIsTheRoutesPattern) {
  for (const auto& endpoint : kServed) {
    const std::string method = endpoint.substr(0, endpoint.find(' '));
    const std::string pattern = endpoint.substr(endpoint.find(' ') + 1);
    std::string path = "/iceberg" + pattern;
    auto put = [&](const std::string& param, const std::string& value) {
      if (auto at = path.find(param); at != std::string::npos) path.replace(at, param.size(), value);
    };
    put("{prefix}", "ml.cat");
    put("{namespace}", "a%1Fb");
    put("{table}", "t");
    put("{view}", "v");
    put("{plan-id}", "p1");
    auto d = iceberg::DescribeRoute(method, path);
    ASSERT_TRUE(d.has_value()) << endpoint;
    EXPECT_EQ(d->operation, method + " /iceberg" + pattern) << path;
    std::vector<std::string> names = {"ml.cat"};
    if (pattern.find("{namespace}") != std::string::npos) names.push_back("a.b");
    if (pattern.find("{table}") != std::string::npos) names.push_back("t");
    if (pattern.find("{view}") != std::string::npos) names.push_back("v");
    if (pattern.find("{plan-id}") != std::string::npos) names.push_back("p1");
    EXPECT_EQ(d->names, names) << path;
  }
  EXPECT_EQ(iceberg::DescribeRoute("GET", "/iceberg/v1/config")->operation,
            "GET /iceberg/v1/config");
  EXPECT_FALSE(iceberg::DescribeRoute("PUT", "/iceberg/v1/ml.cat/namespaces").has_value());
  EXPECT_FALSE(iceberg::DescribeRoute("GET", "/iceberg/v1/ml.cat/nothing/here").has_value());
  EXPECT_FALSE(iceberg::DescribeRoute("GET", "/iceberg/v1/ml.cat/namespaces/a%ZZ").has_value());
}

}  // namespace
}  // namespace cairn::api
