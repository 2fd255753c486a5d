// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "iceberg/json_readers.h"

namespace cairn::iceberg {

// Partition specs and sort orders in requests (REST create-table and add-spec/add-sort-order),
// as Java's PartitionSpecParser / SortOrderParser read them and the builders bind them. Pure
// functions, thread-safe. (partitioning.h converts Gravitino's model instead.)

/// A transform in Java's canonical text ("bucket[16]", "day"); unknown transforms as written.
std::string CanonicalTransform(const std::string& transform);

/// A partition field as read from a request; `field_id` is assigned by BindSpec when absent.
struct SpecField {
  std::string name;
  std::string transform;  // canonical
  int source_id = 0;
  std::optional<int> field_id;
};

/// The fields of a partition spec object. kInvalidArgument in Java's words for a non-object,
/// missing or malformed fields (named).
Result<std::vector<SpecField>> ParseSpecFields(const Json& spec);

/// UnboundPartitionSpec.bind + PartitionSpec.Builder.build against `schema`: field ids as given,
/// else the next after the highest so far (from 999); names non-empty, unique and not naming
/// another column than their source; sources must exist (void transforms excepted).
/// `*last_assigned` is the highest field id. kInvalidArgument with Java's message otherwise.
Result<std::vector<SpecField>> BindSpec(std::vector<SpecField> fields, const Json& schema,
                                        int* last_assigned);

/// {"spec-id", "fields":[{name, transform, source-id, field-id}]}; every field id is set.
Json SpecJson(int spec_id, const std::vector<SpecField>& fields);

/// PartitionSpec.compatibleWith: same fields by source, transform and name (ids ignored).
bool CompatibleSpec(const Json& spec, const std::vector<SpecField>& fields);

/// A sort field as read from a request (direction "asc"/"desc", null order
/// "nulls-first"/"nulls-last", lower case).
struct SortField {
  std::string transform;  // canonical
  int source_id = 0;
  std::string direction;
  std::string null_order;
};

/// The fields of a sort order object. kInvalidArgument in Java's words for a non-object,
/// missing or malformed fields, an unknown direction or null order.
Result<std::vector<SortField>> ParseSortFields(const Json& order);

/// {"order-id", "fields":[{transform, source-id, direction, null-order}]}.
Json SortOrderJson(int order_id, const std::vector<SortField>& fields);

/// Whether a stored sort order has the same fields (SortOrder.sameOrder; ids ignored).
bool SameOrder(const Json& order, const std::vector<SortField>& fields);

/// kInvalidArgument "Cannot find source column for sort field: ..." for a source `schema` lacks
/// (void transforms excepted).
Status CheckSortSources(const std::vector<SortField>& fields, const Json& schema);

}  // namespace cairn::iceberg
