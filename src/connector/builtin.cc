// SPDX-License-Identifier: Apache-2.0
#include "connector/connector.h"
#include "connector/fileset/fileset_connector.h"
#include "connector/generic/generic_connector.h"
#include "connector/hive/hive_connector.h"
#include "connector/iceberg/iceberg_connector.h"
#include "connector/jdbc/jdbc_connector.h"
#include "connector/kafka/kafka_connector.h"
#include "connector/model/model_connector.h"

namespace cairn::connector {

std::unique_ptr<ConnectorRegistry> MakeDefaultRegistry(ConnectorDeps deps) {
  if (!deps.iceberg_caches) deps.iceberg_caches = MakeIcebergCaches(IcebergCacheOptions{});
  auto registry = std::make_unique<ConnectorRegistry>(std::move(deps));
  RegisterIcebergConnector(*registry);
  RegisterFilesetConnector(*registry);
  RegisterJdbcConnectors(*registry);
  RegisterModelConnector(*registry);
  RegisterKafkaConnector(*registry);
  RegisterGenericConnector(*registry);
  RegisterHiveConnector(*registry);
  return registry;
}

}  // namespace cairn::connector
