// SPDX-License-Identifier: Apache-2.0
// The Gravitino API's route table: what it matches, and the audit names derived from it.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/gravitino/gravitino_api.h"
#include "api/gravitino/routes.h"

namespace cairn::api::gravitino {
namespace {

// A concrete path for a pattern: each parameter replaced by a sample value.
std::string Sample(const api::PathPattern& pattern) {
  std::string out = "/api";
  std::string_view text = pattern.text();
  size_t start = 1;
  while (start <= text.size()) {
    size_t end = text.find('/', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view part = text.substr(start, end - start);
    out += "/";
    out += part.front() == '{' ? std::string("x") + std::string(part.substr(1, part.size() - 2))
                               : std::string(part);
    start = end + 1;
  }
  return out;
}

TEST(GravitinoRoutes, EveryRouteIsReachedAndNamedByItsOwnPattern) {
  std::set<std::string> seen;
  for (const Route& r : Routes()) {
    const std::string key = std::string(r.method) + " " + std::string(r.path.text());
    EXPECT_TRUE(seen.insert(key).second) << "two rows for " << key;
    auto d = DescribeRoute(r.method, Sample(r.path));
    ASSERT_TRUE(d.has_value()) << key;
    // A literal segment (testConnection) listed before a parameter wins over it.
    EXPECT_EQ(d->operation, std::string(r.method) + " /api" + std::string(r.path.text())) << key;
    EXPECT_NE(r.handler, nullptr) << key;
  }
  EXPECT_GE(seen.size(), 60u);
}

TEST(GravitinoRoutes, AuditNamesKeepTheirTemplates) {
  struct Case {
    const char* method;
    const char* path;
    const char* operation;
    std::vector<std::string> names;
  };
  const std::vector<Case> cases = {
      {"GET", "/api/metalakes", "GET /api/metalakes", {}},
      {"GET",
       "/api/metalakes/m/catalogs/c/schemas/s/tables/t",
       "GET /api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/tables/{table}",
       {"m", "c", "s", "t"}},
      {"POST",
       "/api/metalakes/m/catalogs/testConnection",
       "POST /api/metalakes/{metalake}/catalogs/testConnection",
       {"m"}},
      {"PUT",
       "/api/metalakes/m/catalogs/testConnection",
       "PUT /api/metalakes/{metalake}/catalogs/{catalog}",
       {"m", "testConnection"}},
      {"GET",
       "/api/metalakes/m/catalogs/c/schemas/s/tables/t/partitions/dt%3D1",
       "GET /api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/tables/{table}/"
       "partitions/{partition}",
       {"m", "c", "s", "t", "dt=1"}},
      {"PUT",
       "/api/metalakes/m/permissions/roles/r/TABLE/c.s.t/grant",
       "PUT /api/metalakes/{metalake}/permissions/roles/{role}/{type}/{fullName}/grant",
       {"m", "r", "c.s.t"}},
      {"GET",
       "/api/metalakes/m/owners/table/c.s.t",
       "GET /api/metalakes/{metalake}/owners/{type}/{fullName}",
       {"m", "c.s.t"}},
      {"PUT",
       "/api/metalakes/m/objects/table/c.s.t/statistics/partitions",
       "PUT /api/metalakes/{metalake}/objects/{type}/{fullName}/statistics/partitions",
       {"m", "c.s.t"}},
      {"GET", "/api/health/ready", "GET /api/health/ready", {}},
  };
  for (const auto& c : cases) {
    auto d = DescribeRoute(c.method, c.path);
    ASSERT_TRUE(d.has_value()) << c.path;
    EXPECT_EQ(d->operation, c.operation);
    EXPECT_EQ(d->names, c.names) << c.path;
  }
}

TEST(GravitinoRoutes, UnknownPathsAndMethodsTakeNoRoute) {
  EXPECT_FALSE(DescribeRoute("GET", "/api/metalakes/m/nope"));
  EXPECT_FALSE(DescribeRoute("PATCH", "/api/metalakes/m/catalogs/c/schemas/s"));
  EXPECT_FALSE(DescribeRoute("GET", "/api/metalakes/m/catalogs/c/schemas/s/tables/t/x"));
  EXPECT_FALSE(DescribeRoute("GET", "/api/metalakes/%zz"));
}

TEST(GravitinoRoutes, OnlyAccessControlNeedsAuthorizationOn) {
  // Gravitino puts users, groups, roles, permissions, owners and an object's roles behind the
  // switch; credentials (and tags, policies, statistics) under /objects/... are not.
  for (const Route& r : Routes()) {
    const std::string path(r.path.text());
    const bool access = path.find("/users") != std::string::npos ||
                        path.find("/groups") != std::string::npos ||
                        path.find("/roles") != std::string::npos ||
                        path.find("/permissions/") != std::string::npos ||
                        path.find("/owners/") != std::string::npos;
    EXPECT_EQ(r.needs_authorization, access) << r.method << " " << path;
  }
}

TEST(GravitinoRoutes, ChecksBeforeTheBodyAreTheCreateAndAlterOnes) {
  // A route that reads a body to create or alter an object is decided before the body is parsed
  // (a caller without rights learns nothing from a 400), unless its handler decides.
  for (const Route& r : Routes()) {
    if ((r.op == "CREATE" || r.op == "REGISTER" || r.op == "ALTER") && r.kind != EntityKind::kMetalake &&
        r.kind != EntityKind::kRole && r.kind != EntityKind::kPartition &&
        !((r.kind == EntityKind::kTag || r.kind == EntityKind::kPolicy ||
           r.kind == EntityKind::kJobTemplate) &&
          r.op == "ALTER")) {  // needs the tag's, policy's or template's row: the service
      EXPECT_TRUE(r.action.has_value()) << r.method << " " << r.path.text();
    }
  }
}

}  // namespace
}  // namespace cairn::api::gravitino
