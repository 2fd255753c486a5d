// SPDX-License-Identifier: Apache-2.0
// Iceberg tables kept in a Hive Metastore (`lakehouse-iceberg` with `catalog-backend=hive`;
// docs/hive.md): namespaces are databases, a table is a metastore table of `table_type=ICEBERG`
// whose `metadata_location` parameter points at its current metadata file, moved with the
// metastore's compare-and-swap on that parameter, as Iceberg's own Hive catalog does.
#pragma once

#include <memory>

#include "common/result.h"
#include "connector/connector.h"
#include "connector/iceberg/iceberg_metastore.h"

namespace cairn::connector::hive {

/// The metastore of an Iceberg catalog from its properties: `uri` (thrift://host:port, several
/// separated by commas) and `client.pool-size`; kInvalidArgument naming the property otherwise.
/// The connection limits are the server's JDBC ones (`deps`).
Result<std::shared_ptr<IcebergMetastore>> MakeHiveIcebergMetastore(const CatalogInfo& info,
                                                                   const ConnectorDeps& deps,
                                                                   const std::string& warehouse);

}  // namespace cairn::connector::hive
