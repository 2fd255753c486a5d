// SPDX-License-Identifier: Apache-2.0
// The jdbc-postgresql and jdbc-mysql providers: catalogs that read and write through to a live
// PostgreSQL database or MySQL/MariaDB server (docs/jdbc-catalogs.md).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "connector/connector.h"
#include "connector/jdbc/jdbc_session.h"

namespace cairn::connector {

void RegisterJdbcConnectors(ConnectorRegistry& registry);

namespace jdbc {

enum class Flavor { kPostgres, kMysql };

/// A catalog's connection settings, validated from its properties.
struct JdbcSettings {
  Flavor flavor = Flavor::kPostgres;
  ConnectOptions connect;
  std::string url;  // jdbc-url without its query string (safe to show)
  int pool_min = 2;
  int pool_max = 10;
  int pool_wait_ms = 5000;
};

/// Validates the jdbc-* properties of a catalog of `provider` (jdbc-postgresql | jdbc-mysql).
/// kInvalidArgument naming the missing or bad property.
Result<JdbcSettings> ParseJdbcProperties(Flavor flavor, const model::Properties& properties);

}  // namespace jdbc
}  // namespace cairn::connector
