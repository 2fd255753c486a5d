// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "connector/connector.h"

namespace cairn::connector {

/// Registers the `lakehouse-iceberg` provider (relational catalogs).
///
/// Backend `managed` (the default when `catalog-backend` is absent): schemas are Iceberg
/// namespaces kept in Cairn's store; each table is a row holding the location of its current
/// metadata file, and the metadata files live under the catalog's `warehouse` (default
/// `<data-dir>/warehouse/<metalake>/<catalog>`), table location `<warehouse>/<schema>/<table>`.
/// Every change writes a new metadata file and moves the row's pointer with compare-and-set.
///
/// Backend `rest`: the catalog fronts a remote Iceberg REST catalog at property `uri` (see
/// IcebergProxy and docs/federation.md); nothing but the catalog row is kept by Cairn.
void RegisterIcebergConnector(ConnectorRegistry& registry);

}  // namespace cairn::connector
