// SPDX-License-Identifier: Apache-2.0
// OpenLineage run events (https://openlineage.io/spec, 2-0-2) as Cairn keeps them, and the
// naming conventions that map a dataset to a Cairn object (docs/lineage.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"
#include "store/lineage_store.h"

namespace cairn::governance {

/// Bounds on one event, so that a hostile body costs a bounded amount of work and storage.
inline constexpr size_t kMaxLineageDatasets = 1000;       // inputs, and outputs, each
inline constexpr size_t kMaxLineageColumnFacts = 20000;   // column edges of one event
inline constexpr size_t kMaxLineageNameBytes = 4096;      // a namespace, a name, a field

/// Reads one RunEvent. `body` is the event's text, kept verbatim. Required: `eventTime`,
/// `producer`, `run.runId` (a UUID), `job.namespace`, `job.name`; `eventType`, when present,
/// is one of START RUNNING COMPLETE ABORT FAIL OTHER (absent: OTHER); each input and output
/// has a `namespace` and a `name`. Facets are kept as sent and may be anything, except the
/// `columnLineage` facet of an output, which is read (`fields.<f>.inputFields[]` with
/// `namespace`, `name`, `field`, and optional `transformations[]`). The mapping of each dataset
/// to a Cairn object is left empty (see MapDatasetName).
/// Errors: kInvalidArgument whose message names the field, e.g. `inputs[2].name`.
Result<store::LineageEventRecord> ParseRunEvent(const nlohmann::json& event, std::string body);

/// What a dataset's name says about the Cairn object it is.
struct DatasetNaming {
  /// The metalake, when the namespace names one (Gravitino's Spark plugin: the namespace is
  /// the metalake). Empty for an engine's namespace (`trino://host:port`, `spark://...`,
  /// `hive://...`): the metalake is the one whose catalog is `catalog`.
  std::string metalake;
  std::string catalog;
  std::string schema;
  std::string table;

  std::string ObjectName() const { return catalog + "." + schema + "." + table; }
};

/// The object (namespace, name) may name: `name` must be `catalog.schema.table` (three
/// non-empty parts); a namespace with a scheme (`x://...`) is an engine's, any other one a
/// metalake's name. nullopt when the name has another shape (a path, `schema.table`).
std::optional<DatasetNaming> MapDatasetName(std::string_view ns, std::string_view name);

/// The `(namespace, name)` pairs a dataset's `symlinks` facet lists (Spark names an Iceberg
/// table by its location and lists its catalog name there), in order; empty when it has none.
std::vector<std::pair<std::string, std::string>> SymlinkNames(const nlohmann::json& dataset);

}  // namespace cairn::governance
