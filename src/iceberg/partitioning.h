// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "iceberg/schema.h"
#include "model/table.h"

namespace cairn::iceberg {

/// Partition field ids start here; an unpartitioned table's last-partition-id is one less.
inline constexpr int kPartitionDataIdStart = 1000;
/// The table property that holds the write distribution mode.
inline constexpr const char* kDistributionModeProperty = "write.distribution-mode";

/// A partition spec JSON ({"spec-id":N,"fields":[{name, transform, source-id, field-id}]}) and
/// the highest partition field id it uses (or the `last_partition_id` passed in when none).
struct IcebergPartitionSpec {
  Json spec;
  int last_partition_id = kPartitionDataIdStart - 1;
};

/// Builds an Iceberg partition spec from model transforms, as Gravitino's ToIcebergPartitionSpec
/// with Java's PartitionSpec.Builder: identity/year/month/day/hour/bucket[N]/truncate[W] over one
/// column found by path in `schema` (structs only); field ids are last_partition_id+1, +2, ...;
/// names default as Java does ("a.b" for identity, then "_year", "_month", "_day", "_hour",
/// "_bucket", "_trunc" suffixes on the dotted column name).
/// kInvalidArgument: list/range/function/unknown strategies, bucket over several columns, an
/// unknown column (named), a source type the transform cannot apply to, a redundant partition
/// (same source and transform; year/month/day/hour count as one), a name used twice, or a
/// non-identity name that collides with a column.
Result<IcebergPartitionSpec> ToPartitionSpec(const std::vector<model::Transform>& transforms,
                                             const Json& schema, int spec_id,
                                             int last_partition_id = kPartitionDataIdStart - 1);

/// Model transforms of a partition spec (as Gravitino's FromIcebergPartitionSpec). Field names
/// are the source column's path in `schema`; bucket gives field_names {path} and num_buckets;
/// truncate gives width; void transforms are skipped. kInvalidArgument for unknown transforms
/// or source ids missing from the schema.
Result<std::vector<model::Transform>> FromPartitionSpec(const Json& spec, const Json& schema);

/// Builds an Iceberg sort order JSON ({"order-id":N,"fields":[{transform, source-id, direction,
/// null-order}]}) as Gravitino's ToIcebergSortOrder: each term is a field reference (identity)
/// or a function bucket(N, field) / truncate(W, field) / year|month|day|hour(field), N and W
/// integer literals. An empty list yields the unsorted order {"order-id":0,"fields":[]} whatever
/// `order_id` is. kInvalidArgument for other terms, unknown columns, bad directions or null
/// orderings.
Result<Json> ToSortOrder(const std::vector<model::SortOrder>& sort_orders, const Json& schema,
                         int order_id);

/// Model sort orders of an Iceberg sort order (as Gravitino's FromIcebergSortOrder): identity ->
/// field reference; bucket/truncate -> function(literal integer, field); year/month/day/hour ->
/// function(field). Void terms are skipped. kInvalidArgument for unknown transforms or source
/// ids.
Result<std::vector<model::SortOrder>> FromSortOrder(const Json& sort_order, const Json& schema);

/// The value of "write.distribution-mode" for a model distribution, as Gravitino's
/// IcebergTable.transformDistribution: none -> "none"; hash -> "hash" (requires a partitioned
/// table); range -> "range" (requires partitioning or a sort order). hash/range with
/// expressions are rejected as in Gravitino; `number` is ignored (Iceberg keeps only the
/// mode). kInvalidArgument for `even` and other strategies.
Result<std::string> DistributionMode(const model::Distribution& distribution, bool partitioned,
                                     bool sorted);

/// The model distribution a table's properties describe (none when the property is absent or
/// unrecognised; hash/range without expressions otherwise).
model::Distribution DistributionFromProperties(const model::Properties& properties);

}  // namespace cairn::iceberg
