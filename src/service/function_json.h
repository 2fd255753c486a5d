// SPDX-License-Identifier: Apache-2.0
// A function's definitions as JSON in Gravitino's FunctionDefinitionDTO shape: what the store
// keeps in a function row's payload and what the Gravitino API sends (docs/functions.md).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "model/function.h"

namespace cairn::service {

/// `[{"parameters": [...], "returnType" | "returnColumns": ..., "impls": [...]}, ...]`; types
/// and default values are the canonical JSON texts the model holds, embedded as JSON.
nlohmann::ordered_json FunctionDefinitionsJson(const std::vector<model::FunctionDefinition>& defs);

}  // namespace cairn::service
