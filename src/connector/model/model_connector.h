// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "connector/connector.h"

namespace cairn::connector {

/// Registers the `model` provider (catalogs of type `model`): a registry of models and their
/// versions kept in Cairn's own store (docs/models.md). Schemas and models are rows, a version
/// is a row under its model named by its number; the model's row holds the next number and its
/// aliases, so linking is one compare-and-set on it and concurrent links get distinct numbers.
/// No catalog or schema properties of its own; nothing outside the store to reach.
void RegisterModelConnector(ConnectorRegistry& registry);

}  // namespace cairn::connector
