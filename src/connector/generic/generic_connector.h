// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "connector/connector.h"

namespace cairn::connector {

/// Registers the `lakehouse-generic` provider (relational catalogs of tables in an open file
/// format: `format=lance` first), as Gravitino names it (docs/lance.md). Schemas and tables are
/// rows of Cairn's store; a table's files are the client's to write, at the table's location:
/// its `location` property, else `<schema location>/<table>`, else
/// `<catalog location>/<schema>/<table>`. A location lies within its schema's or catalog's
/// location when either has one, and overlaps no other table's. Dropping a table deletes its
/// files unless it is `external` (registered tables are); deregistering keeps them.
/// Capabilities: SchemaCatalog, TableCatalog, GenericTableCatalog, and
/// storage::CredentialVendor when `credential-providers` is set (keys scoped to one table).
void RegisterGenericConnector(ConnectorRegistry& registry);

}  // namespace cairn::connector
