// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "connector/connector.h"

namespace cairn::connector {

/// Registers the `fileset` provider (catalogs of type `fileset`).
///
/// Schemas and filesets are rows in Cairn's store (a fileset row under its schema row, its type
/// and resolved locations in the payload). Files are reached through storage::FileIO, so any
/// scheme a FileIO serves works (local disk today, S3-compatible stores with the `s3-*`
/// properties). Catalog properties: `location` and `location-<name>` (optional roots); schema
/// properties: the same, overriding the catalog's. See docs/filesets.md.
void RegisterFilesetConnector(ConnectorRegistry& registry);

}  // namespace cairn::connector
