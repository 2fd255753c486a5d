// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "connector/connector.h"

namespace cairn::connector {

/// Registers the `kafka` provider (catalogs of type `messaging`): a live connection to a Kafka
/// cluster through librdkafka's admin API (docs/topics.md). The catalog has one schema,
/// `default`, holding every topic of the cluster; topics are read from and written to the
/// cluster on every call (partitions, replication factor and configs), while their comments,
/// owners and labels are Cairn's own rows. Catalog property `bootstrap.servers` is required;
/// the other properties librdkafka knows (security.protocol, sasl.*, ssl.*, client.id, ...) go
/// to the client as they are.
void RegisterKafkaConnector(ConnectorRegistry& registry);

}  // namespace cairn::connector
