// SPDX-License-Identifier: Apache-2.0
// NewTableMetadataFromRest (commit.h): a REST CreateTableRequest made into new table metadata.
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/util.h"
#include "iceberg/commit.h"
#include "iceberg/partitioning.h"
#include "iceberg/schema_parse.h"
#include "iceberg/specs.h"
#include "iceberg/table_builder.h"
#include "iceberg/table_metadata.h"

namespace cairn::iceberg {

namespace {

Result<Json> NewTableMetadataFromRestUnguarded(const Json& create_request,
                                               const std::string& location, int64_t now_ms) {
  const Json& req = create_request;
  if (!req.is_object()) {
    return InvalidArgument("Cannot parse create table request from non-object: {}", Text(req));
  }
  CAIRN_ASSIGN_OR_RETURN(std::string name, JsonGetString(req, "name"));
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> req_location,
                         JsonGetStringOrNull(req, "location"));
  CAIRN_ASSIGN_OR_RETURN(const Json* schema_node, JsonGetField(req, "schema"));
  CAIRN_ASSIGN_OR_RETURN(Json schema, ParseSchemaJson(*schema_node));
  std::map<std::string, std::string> properties;
  if (req.contains("properties") && !req["properties"].is_null()) {
    CAIRN_ASSIGN_OR_RETURN(properties, JsonGetStringMap(req, "properties"));
  }

  int version = kDefaultFormatVersion;
  if (auto it = properties.find("format-version"); it != properties.end()) {
    auto v = ParseInt64(Trim(it->second));
    if (!v) return InvalidArgument("Invalid format-version: {}", it->second);
    if (*v < 1 || *v > kSupportedFormatVersion) {
      return InvalidArgument("Unsupported format version: v{} (supported: v{})", *v,
                             kSupportedFormatVersion);
    }
    version = static_cast<int>(*v);
  }

  // Fresh ids; old -> new follows the structure, which is what Java's lookup by name yields.
  int last_column_id = 0;
  std::unordered_map<int, int> mapping;
  Json fresh = schema;
  AssignFreshIds(fresh, &last_column_id, &mapping);
  Json fresh_schema = Json::object();
  fresh_schema["type"] = "struct";
  fresh_schema["schema-id"] = 0;
  std::vector<int> identifiers = IdentifierIds(schema);
  if (!identifiers.empty()) {
    Json ids = Json::array();
    for (int id : identifiers) ids.push_back(mapping.at(id));
    fresh_schema["identifier-field-ids"] = std::move(ids);
  }
  fresh_schema["fields"] = std::move(fresh["fields"]);
  CAIRN_RETURN_IF_ERROR(CheckSchemaForVersion(fresh_schema, version));

  auto remap = [&](int old_id, const char* what) -> Result<int> {
    auto it = mapping.find(old_id);
    if (it == mapping.end())
      return InvalidArgument("Cannot find source column for {}: {}", what, old_id);
    return it->second;
  };

  std::vector<SpecField> spec_fields;
  if (auto it = req.find("partition-spec"); it != req.end() && !it->is_null()) {
    CAIRN_ASSIGN_OR_RETURN(spec_fields, ParseSpecFields(*it));
    for (auto& f : spec_fields) {
      // Validate against the request schema, then rebuild with fresh ids from 1000.
      if (f.transform != "void" && FindTypeById(schema, f.source_id) == nullptr) {
        return InvalidArgument("Cannot find source column: {}", f.source_id);
      }
      CAIRN_ASSIGN_OR_RETURN(f.source_id, remap(f.source_id, "partition field"));
      f.field_id.reset();
    }
  }
  int last_partition_id = kPartitionDataIdStart - 1;
  CAIRN_ASSIGN_OR_RETURN(spec_fields,
                         BindSpec(std::move(spec_fields), fresh_schema, &last_partition_id));

  std::vector<SortField> sort_fields;
  if (auto it = req.find("write-order"); it != req.end() && !it->is_null()) {
    CAIRN_ASSIGN_OR_RETURN(sort_fields, ParseSortFields(*it));
    CAIRN_RETURN_IF_ERROR(CheckSortSources(sort_fields, schema));
    for (auto& f : sort_fields) {
      CAIRN_ASSIGN_OR_RETURN(f.source_id, remap(f.source_id, "sort field"));
    }
  }
  const int order_id = sort_fields.empty() ? 0 : 1;

  std::string table_location = location.empty() ? req_location.value_or("") : location;
  while (table_location.size() > 1 && table_location.back() == '/') table_location.pop_back();
  if (table_location.empty()) return InvalidArgument("Invalid table location: {} has none", name);

  std::map<std::string, std::string> persisted;
  persisted["write.parquet.compression-codec"] = "zstd";
  for (const auto& [k, v] : properties) {
    if (!IsReservedTableProperty(k)) persisted[k] = v;
  }

  TableDocumentParts parts;
  parts.format_version = version;
  parts.table_uuid = RandomUuid();
  parts.location = std::move(table_location);
  parts.last_updated_ms = now_ms;
  parts.last_column_id = last_column_id;
  parts.schema = std::move(fresh_schema);
  parts.spec = SpecJson(0, spec_fields);
  parts.last_partition_id = last_partition_id;
  parts.sort_order = SortOrderJson(order_id, sort_fields);
  for (const auto& [k, v] : persisted) parts.properties[k] = v;
  return NewTableDocument(std::move(parts));
}

}  // namespace

Result<Json> NewTableMetadataFromRest(const Json& create_request, const std::string& location,
                                      int64_t now_ms) {
  return CatchJsonErrors("Invalid create table request", [&] {
    return NewTableMetadataFromRestUnguarded(create_request, location, now_ms);
  });
}


}  // namespace cairn::iceberg
