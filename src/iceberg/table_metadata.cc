// SPDX-License-Identifier: Apache-2.0
#include "iceberg/table_metadata.h"

#include <algorithm>
#include <set>

#include "common/util.h"
#include "iceberg/partitioning.h"
#include "json/json_util.h"

namespace cairn::iceberg {

bool IsReservedTableProperty(const std::string& key) {
  static const std::set<std::string> kReserved = {
      "format-version",           "uuid",
      "snapshot-count",           "current-snapshot-id",
      "current-snapshot-summary", "current-snapshot-timestamp-ms",
      "current-schema",           "default-partition-spec",
      "default-sort-order"};
  return kReserved.count(key) > 0;
}

namespace {

constexpr int kMaxFormatVersion = 3;
constexpr const char* kParquetCompression = "write.parquet.compression-codec";
constexpr const char* kFormatVersion = "format-version";

bool IsJavaReserved(const std::string& key) { return IsReservedTableProperty(key); }

// Gravitino's IcebergTableOpsHelper refuses to set or remove these.
bool IsGravitinoReserved(const std::string& key) {
  static const std::set<std::string> kReserved = {
      "location",   "comment",          "current-snapshot-id", "cherry-pick-snapshot-id",
      "sort-order", "identifier-fields"};
  return kReserved.count(key) > 0;
}

Result<int> ParseFormatVersion(const std::string& text) {
  auto v = ParseInt64(Trim(text));
  if (!v) return InvalidArgument("Invalid format-version: {}", text);
  if (*v < 1 || *v > kMaxFormatVersion) {
    return InvalidArgument("Unsupported format version: v{} (supported: v{})", *v,
                           kMaxFormatVersion);
  }
  return static_cast<int>(*v);
}

Status CheckTypesForVersion(const Json& schema, int format_version) {
  for (const auto& f : schema["fields"]) {
    const int min = MinFormatVersion(f["type"]);
    if (min > format_version) {
      return InvalidArgument(
          "Invalid type for {}: {} is not supported until v{}", f.value("name", ""),
          f["type"].is_string() ? f["type"].get<std::string>() : f["type"].value("type", ""), min);
    }
  }
  return Ok();
}

std::vector<int> IdentifierIds(const Json& schema) {
  std::vector<int> ids;
  if (auto it = schema.find("identifier-field-ids"); it != schema.end() && it->is_array()) {
    for (const auto& v : *it) {
      if (v.is_number_integer()) ids.push_back(v.get<int>());
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// A schema's fields, or an empty array for a stored schema without them.
Json FieldsOrEmpty(const Json& schema) {
  auto it = schema.find("fields");
  return it != schema.end() ? *it : Json::array();
}

bool SameSchema(const Json& a, const Json& b) {
  return SameJson(FieldsOrEmpty(a), FieldsOrEmpty(b)) && IdentifierIds(a) == IdentifierIds(b);
}

// --- Working on a mutable schema -------------------------------------------------------------

// The type JSON at `path` (struct field types; "element"/"key"/"value" through lists and maps).
Json* TypeAt(Json& type, const model::FieldName& path, size_t i = 0) {
  if (i == path.size()) return &type;
  if (!type.is_object()) return nullptr;
  const std::string kind = type.value("type", "");
  if (kind == "struct") {
    for (auto& f : type["fields"]) {
      if (f.value("name", "") == path[i]) return TypeAt(f["type"], path, i + 1);
    }
    return nullptr;
  }
  if (kind == "list" && path[i] == "element") return TypeAt(type["element"], path, i + 1);
  if (kind == "map" && (path[i] == "key" || path[i] == "value")) {
    return TypeAt(type[path[i]], path, i + 1);
  }
  return nullptr;
}

struct FieldRef {
  Json* parent_fields = nullptr;  // the "fields" array holding the field
  size_t index = 0;
  Json& field() const { return (*parent_fields)[index]; }
};

std::optional<size_t> IndexOf(const Json& fields, const std::string& name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].value("name", "") == name) return i;
  }
  return std::nullopt;
}

std::optional<FieldRef> FindMutableField(Json& schema, const model::FieldName& path) {
  if (path.empty()) return std::nullopt;
  model::FieldName parent(path.begin(), path.end() - 1);
  Json* parent_type = TypeAt(schema, parent);
  if (parent_type == nullptr || !parent_type->is_object() ||
      parent_type->value("type", "") != "struct") {
    return std::nullopt;
  }
  Json& fields = (*parent_type)["fields"];
  auto idx = IndexOf(fields, path.back());
  if (!idx) return std::nullopt;
  return FieldRef{&fields, *idx};
}

Status MoveField(Json& fields, size_t from, const model::ColumnPosition& position,
                 const std::string& name) {
  Json moved = fields[from];
  fields.erase(from);
  size_t to = fields.size();
  switch (position.kind) {
    case model::ColumnPosition::Kind::kFirst:
      to = 0;
      break;
    case model::ColumnPosition::Kind::kDefault:
      to = fields.size();
      break;
    case model::ColumnPosition::Kind::kAfter: {
      if (position.after == moved.value("name", "")) {
        return InvalidArgument("Cannot move {} after itself", name);
      }
      auto idx = IndexOf(fields, position.after);
      if (!idx)
        return InvalidArgument("Cannot move {} after missing column: {}", name, position.after);
      to = *idx + 1;
      break;
    }
  }
  fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(to), std::move(moved));
  return Ok();
}

struct Working {
  Json metadata;
  Json schema;  // the current schema being changed
  int last_column_id = 0;
  int format_version = 2;
};

std::string TypeText(const Json& type) {
  return type.is_string() ? type.get<std::string>() : type.value("type", "");
}

Status AddColumn(Working& w, const model::TableChange& c) {
  const std::string name = JoinFieldName(c.field_name);
  if (c.field_name.empty())
    return InvalidArgument("Invalid field name: at least one name is required");
  if (c.auto_increment) return InvalidArgument("Iceberg doesn't support auto increment column");
  if (c.default_value) {
    return InvalidArgument("Iceberg does not support column default value. Illegal column: {}",
                           name);
  }
  if (!c.nullable)
    return InvalidArgument("Incompatible change: cannot add required column: {}", name);
  model::FieldName parent(c.field_name.begin(), c.field_name.end() - 1);
  Json* parent_type = TypeAt(w.schema, parent);
  if (parent_type == nullptr) {
    return InvalidArgument("Couldn't find parent field: {} in Iceberg table",
                           JoinFieldName(parent));
  }
  if (!parent_type->is_object() || parent_type->value("type", "") != "struct") {
    return InvalidArgument("Couldn't add column to non-struct field, name:{}, type:{}",
                           JoinFieldName(parent), TypeText(*parent_type));
  }
  Json& fields = (*parent_type)["fields"];
  if (IndexOf(fields, c.field_name.back())) {
    return InvalidArgument("Cannot add column, name already exists: {}", name);
  }
  int last = w.last_column_id;
  const int id = ++last;  // SchemaUpdate: the column's id, then fresh ids inside its type
  CAIRN_ASSIGN_OR_RETURN(Json type, ToIcebergType(c.type, name, &last));
  if (const int min = MinFormatVersion(type); min > w.format_version) {
    return InvalidArgument("Invalid type for {}: {} is not supported until v{}", name,
                           TypeText(type), min);
  }
  Json f = Json::object();
  f["id"] = id;
  f["name"] = c.field_name.back();
  f["required"] = false;
  f["type"] = std::move(type);
  if (c.comment) f["doc"] = *c.comment;
  fields.push_back(std::move(f));
  // The new type is within the limit on its own, but not necessarily where it was put: check
  // the top-level column that now holds it, so that alters cannot deepen a schema step by step.
  if (auto top = IndexOf(w.schema["fields"], c.field_name.front())) {
    CAIRN_RETURN_IF_ERROR(CheckTypeDepth(w.schema["fields"][*top]["type"], name));
  }
  w.last_column_id = last;
  return MoveField(fields, fields.size() - 1, c.position, name);
}

Status DeleteColumn(Working& w, const model::TableChange& c) {
  const std::string name = JoinFieldName(c.field_name);
  auto ref = FindMutableField(w.schema, c.field_name);
  if (!ref) {
    if (c.if_exists) return Ok();
    return InvalidArgument("delete column not exists: {}", name);
  }
  std::vector<int> ids = {ref->field()["id"].get<int>()};
  CollectFieldIds(ref->field()["type"], &ids);
  auto uses = [&](int id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  for (int id : IdentifierIds(w.schema)) {
    if (uses(id)) {
      return InvalidArgument(
          "Cannot delete identifier field {}. To force deletion, also call setIdentifierFields to "
          "update identifier fields.",
          name);
    }
  }
  if (const Json* spec = DefaultSpec(w.metadata)) {
    for (const auto& pf : spec->value("fields", Json::array())) {
      if (pf.contains("source-id") && uses(pf["source-id"].get<int>())) {
        return InvalidArgument("Cannot delete column {}: it is the source of partition field {}",
                               name, pf.value("name", ""));
      }
    }
  }
  if (const Json* order = DefaultSortOrder(w.metadata)) {
    for (const auto& sf : order->value("fields", Json::array())) {
      if (sf.contains("source-id") && uses(sf["source-id"].get<int>())) {
        return InvalidArgument("Cannot delete column {}: it is used by the table's sort order",
                               name);
      }
    }
  }
  ref->parent_fields->erase(ref->index);
  return Ok();
}

Status RenameColumn(Working& w, const model::TableChange& c) {
  const std::string name = JoinFieldName(c.field_name);
  auto ref = FindMutableField(w.schema, c.field_name);
  if (!ref) return InvalidArgument("Cannot rename missing column: {}", name);
  if (c.new_name.empty()) return InvalidArgument("Cannot rename a column to an empty name");
  if (c.new_name == c.field_name.back()) return Ok();
  if (IndexOf(*ref->parent_fields, c.new_name)) {
    return InvalidArgument("Cannot rename column {} to {}: a column with that name already exists",
                           name, c.new_name);
  }
  ref->field()["name"] = c.new_name;
  return Ok();
}

Status UpdateColumnType(Working& w, const model::TableChange& c) {
  const std::string name = JoinFieldName(c.field_name);
  auto ref = FindMutableField(w.schema, c.field_name);
  if (!ref) return InvalidArgument("Cannot update missing field: {}", name);
  int scratch = 0;
  CAIRN_ASSIGN_OR_RETURN(Json type, ToIcebergType(c.type, name, &scratch));
  if (!IsPrimitive(type)) {
    return InvalidArgument("Cannot update {}, not a primitive type: {}", name, TypeText(type));
  }
  const Json& current = ref->field()["type"];
  if (!IsPromotionAllowed(current, type)) {
    return InvalidArgument("Cannot change column type: {}: {} -> {}", name, TypeText(current),
                           TypeText(type));
  }
  ref->field()["type"] = std::move(type);
  return Ok();
}

Status UpdateColumnComment(Working& w, const model::TableChange& c) {
  auto ref = FindMutableField(w.schema, c.field_name);
  if (!ref) return InvalidArgument("Cannot update missing column: {}", JoinFieldName(c.field_name));
  if (c.comment) {
    ref->field()["doc"] = *c.comment;
  } else {
    ref->field().erase("doc");
  }
  return Ok();
}

Status UpdateColumnPosition(Working& w, const model::TableChange& c) {
  const std::string name = JoinFieldName(c.field_name);
  auto ref = FindMutableField(w.schema, c.field_name);
  if (!ref) return InvalidArgument("Cannot move missing column: {}", name);
  return MoveField(*ref->parent_fields, ref->index, c.position, name);
}

Status UpdateColumnNullability(Working& w, const model::TableChange& c) {
  const std::string name = JoinFieldName(c.field_name);
  auto ref = FindMutableField(w.schema, c.field_name);
  if (!ref) return InvalidArgument("Cannot update missing column: {}", name);
  const bool required = ref->field().value("required", false);
  if (c.nullable) {
    const std::vector<int> identifiers = IdentifierIds(w.schema);
    if (required && std::find(identifiers.begin(), identifiers.end(),
                              ref->field()["id"].get<int>()) != identifiers.end()) {
      // Java validates identifier fields on apply: they must stay required.
      return InvalidArgument("Cannot make identifier field {} optional", name);
    }
    ref->field()["required"] = false;
  } else if (!required) {
    return InvalidArgument("Cannot change column nullability: {}: optional -> required", name);
  }
  return Ok();
}

Status UpgradeFormatVersion(Working& w, const std::string& value) {
  CAIRN_ASSIGN_OR_RETURN(int target, ParseFormatVersion(value));
  if (target < w.format_version) {
    return InvalidArgument("Cannot downgrade v{} table to v{}", w.format_version, target);
  }
  if (target == w.format_version) return Ok();
  Json& md = w.metadata;
  md["format-version"] = target;
  if (target >= 2) {
    if (!md.contains("table-uuid")) md["table-uuid"] = RandomUuid();
    if (!md.contains("last-sequence-number")) md["last-sequence-number"] = 0;
  }
  if (target >= 3 && !md.contains("next-row-id")) md["next-row-id"] = 0;
  w.format_version = target;
  return Ok();
}

Status SetProperty(Working& w, const std::string& key, const std::string& value) {
  if (IsGravitinoReserved(key)) return InvalidArgument("{} is not allowed to Set properties", key);
  if (key == kFormatVersion) return UpgradeFormatVersion(w, value);
  if (IsJavaReserved(key)) return Ok();  // Java drops reserved keys from stored properties
  w.metadata["properties"][key] = value;
  return Ok();
}

Status RemoveProperty(Working& w, const std::string& key) {
  if (IsGravitinoReserved(key)) {
    return InvalidArgument("{} is not allowed to remove properties", key);
  }
  if (auto it = w.metadata.find("properties"); it != w.metadata.end() && it->is_object()) {
    it->erase(key);
  }
  return Ok();
}

// Adds the working schema (or reuses an identical one) and makes it current.
void CommitSchema(Working& w, const Json& base_schema) {
  if (SameSchema(w.schema, base_schema)) return;
  Json& schemas = w.metadata["schemas"];
  if (!schemas.is_array()) schemas = Json::array();
  int max_id = -1;
  std::optional<int> reuse;
  for (const auto& s : schemas) {
    const int id = IntOr(s, "schema-id", 0);
    max_id = std::max(max_id, id);
    if (!reuse && SameSchema(s, w.schema)) reuse = id;
  }
  const int id = reuse ? *reuse : max_id + 1;
  Json schema = Json::object();
  schema["type"] = "struct";
  schema["schema-id"] = id;
  if (auto ids = w.schema.find("identifier-field-ids"); ids != w.schema.end() && !ids->empty()) {
    schema["identifier-field-ids"] = *ids;
  }
  schema["fields"] = w.schema["fields"];
  if (!reuse) schemas.push_back(schema);
  w.metadata["current-schema-id"] = id;
  w.metadata["last-column-id"] = std::max(IntOr(w.metadata, "last-column-id", 0), w.last_column_id);
  if (w.format_version == 1) w.metadata["schema"] = schema;
}

}  // namespace

Result<Json> NewTableMetadata(const NewTableRequest& request) {
  int version = request.format_version;
  if (auto it = request.properties.find(kFormatVersion); it != request.properties.end()) {
    CAIRN_ASSIGN_OR_RETURN(version, ParseFormatVersion(it->second));
  } else {
    CAIRN_ASSIGN_OR_RETURN(version, ParseFormatVersion(std::to_string(version)));
  }
  CAIRN_ASSIGN_OR_RETURN(IcebergSchema schema,
                         ToIcebergSchema(request.columns, 0, request.identifier_field_names));
  CAIRN_RETURN_IF_ERROR(CheckTypesForVersion(schema.schema, version));
  CAIRN_ASSIGN_OR_RETURN(IcebergPartitionSpec spec,
                         ToPartitionSpec(request.partitioning, schema.schema, 0));
  CAIRN_ASSIGN_OR_RETURN(Json order, ToSortOrder(request.sort_orders, schema.schema, 1));

  // Java iterates a HashMap here; we write keys sorted, which readers cannot tell apart.
  model::Properties props;
  props[kParquetCompression] = "zstd";  // TableMetadata.persistedProperties, since Iceberg 1.4
  for (const auto& [k, v] : request.properties) {
    if (!IsJavaReserved(k)) props[k] = v;
  }
  Json properties = Json::object();
  for (const auto& [k, v] : props) properties[k] = v;

  TableDocumentParts parts;
  parts.format_version = version;
  parts.table_uuid = request.table_uuid.empty() ? RandomUuid() : request.table_uuid;
  parts.location = request.location;
  parts.last_updated_ms = request.now_ms;
  parts.last_column_id = schema.last_column_id;
  parts.schema = std::move(schema.schema);
  parts.spec = std::move(spec.spec);
  parts.last_partition_id = spec.last_partition_id;
  parts.sort_order = std::move(order);
  parts.properties = std::move(properties);
  return NewTableDocument(std::move(parts));
}

Json NewTableDocument(TableDocumentParts parts) {
  const int version = parts.format_version;
  Json md = Json::object();
  md["format-version"] = version;
  md["table-uuid"] = std::move(parts.table_uuid);
  if (parts.location) md["location"] = std::move(*parts.location);
  if (version > 1) md["last-sequence-number"] = 0;
  md["last-updated-ms"] = parts.last_updated_ms;
  md["last-column-id"] = parts.last_column_id;
  if (version == 1 && parts.schema) md["schema"] = *parts.schema;
  md["current-schema-id"] = 0;
  md["schemas"] = Json::array();
  if (parts.schema) md["schemas"].push_back(std::move(*parts.schema));
  if (version == 1 && parts.spec) md["partition-spec"] = MemberOrNull(*parts.spec, "fields");
  md["default-spec-id"] = 0;
  md["partition-specs"] = Json::array();
  if (parts.spec) md["partition-specs"].push_back(std::move(*parts.spec));
  md["last-partition-id"] = parts.last_partition_id;
  md["default-sort-order-id"] =
      parts.sort_order ? MemberOrNull(*parts.sort_order, "order-id") : Json(0);
  md["sort-orders"] = Json::array();
  if (parts.sort_order) md["sort-orders"].push_back(std::move(*parts.sort_order));
  md["properties"] = std::move(parts.properties);
  md["current-snapshot-id"] = version >= 3 ? Json(nullptr) : Json(-1);
  if (version >= 3) md["next-row-id"] = 0;
  md["refs"] = Json::object();
  md["snapshots"] = Json::array();
  md["statistics"] = Json::array();
  md["partition-statistics"] = Json::array();
  md["snapshot-log"] = Json::array();
  md["metadata-log"] = Json::array();
  return md;
}

std::string MetadataFileName(int version, const std::string& uuid) {
  return fmt::format("{:05d}-{}.metadata.json", version, uuid);
}

std::optional<int> ParseMetadataFileVersion(std::string_view location) {
  const size_t slash = location.rfind('/');
  const std::string_view file =
      slash == std::string_view::npos ? location : location.substr(slash + 1);
  const size_t dash = file.find('-');
  if (dash == std::string_view::npos || dash == 0) return std::nullopt;
  auto v = ParseInt64(file.substr(0, dash));
  if (!v || *v < 0 || *v > 2'147'483'647) return std::nullopt;
  return static_cast<int>(*v);
}

std::string NextMetadataLocation(std::string_view table_location,
                                 std::string_view current_metadata_location) {
  while (!table_location.empty() && table_location.back() == '/') table_location.remove_suffix(1);
  const auto current = ParseMetadataFileVersion(current_metadata_location);
  const int next = current ? *current + 1 : 0;
  return fmt::format("{}/metadata/{}", table_location, MetadataFileName(next, RandomUuid()));
}

namespace {

Result<Json> ApplyTableChangesUnguarded(const Json& metadata,
                                        const std::vector<model::TableChange>& changes,
                                        int64_t now_ms) {
  using Kind = model::TableChange::Kind;
  const Json* current = CurrentSchema(metadata);
  if (current == nullptr) return InvalidArgument("Invalid table metadata: no current schema");
  Working w;
  w.metadata = metadata;
  w.schema = *current;
  w.last_column_id = metadata.value("last-column-id", MaxFieldId(*current));
  w.format_version = IntOr(metadata, "format-version", 2);
  if (!w.metadata.contains("properties") || !w.metadata["properties"].is_object()) {
    w.metadata["properties"] = Json::object();
  }
  for (const auto& c : changes) {
    switch (c.kind) {
      case Kind::kRename:
        return Internal("RenameTable shouldn't use the table update path; handle it before");
      case Kind::kUpdateComment:
        if (c.comment) {
          w.metadata["properties"]["comment"] = *c.comment;
        } else {
          w.metadata["properties"].erase("comment");
        }
        break;
      case Kind::kSetProperty:
        CAIRN_RETURN_IF_ERROR(SetProperty(w, c.property, c.value));
        break;
      case Kind::kRemoveProperty:
        CAIRN_RETURN_IF_ERROR(RemoveProperty(w, c.property));
        break;
      case Kind::kAddColumn:
        CAIRN_RETURN_IF_ERROR(AddColumn(w, c));
        break;
      case Kind::kRenameColumn:
        CAIRN_RETURN_IF_ERROR(RenameColumn(w, c));
        break;
      case Kind::kDeleteColumn:
        CAIRN_RETURN_IF_ERROR(DeleteColumn(w, c));
        break;
      case Kind::kUpdateColumnType:
        CAIRN_RETURN_IF_ERROR(UpdateColumnType(w, c));
        break;
      case Kind::kUpdateColumnComment:
        CAIRN_RETURN_IF_ERROR(UpdateColumnComment(w, c));
        break;
      case Kind::kUpdateColumnPosition:
        CAIRN_RETURN_IF_ERROR(UpdateColumnPosition(w, c));
        break;
      case Kind::kUpdateColumnNullability:
        CAIRN_RETURN_IF_ERROR(UpdateColumnNullability(w, c));
        break;
      case Kind::kUpdateColumnDefaultValue:
        return InvalidArgument("Iceberg does not support column default value.");
      case Kind::kUpdateColumnAutoIncrement:
        return InvalidArgument("Iceberg doesn't support auto increment column");
      case Kind::kAddIndex:
      case Kind::kDeleteIndex:
        return InvalidArgument("Iceberg doesn't support index");
    }
  }
  CommitSchema(w, *current);
  w.metadata["last-updated-ms"] = now_ms;
  return NormalizeMetadata(std::move(w.metadata));
}

}  // namespace

Result<Json> ApplyTableChanges(const Json& metadata, const std::vector<model::TableChange>& changes,
                               int64_t now_ms) {
  return CatchJsonErrors("Invalid table metadata",
                         [&] { return ApplyTableChangesUnguarded(metadata, changes, now_ms); });
}

Json FinishCommit(Json new_metadata, const std::string& previous_metadata_location,
                  int64_t previous_last_updated_ms, int64_t now_ms) {
  Json log = new_metadata.contains("metadata-log") && new_metadata["metadata-log"].is_array()
                 ? new_metadata["metadata-log"]
                 : Json::array();
  if (!previous_metadata_location.empty()) {
    int max = kPreviousVersionsMaxDefault;
    const model::Properties props = PropertiesOf(new_metadata);
    if (auto it = props.find(kPreviousVersionsMaxProperty); it != props.end()) {
      if (auto v = ParseInt64(Trim(it->second)); v && *v < 1'000'000) max = static_cast<int>(*v);
    }
    max = std::max(1, max);
    Json entry = Json::object();
    entry["timestamp-ms"] = previous_last_updated_ms;
    entry["metadata-file"] = previous_metadata_location;
    log.push_back(std::move(entry));
    while (log.size() > static_cast<size_t>(max)) log.erase(0);
  }
  new_metadata["metadata-log"] = std::move(log);
  new_metadata["last-updated-ms"] = now_ms;
  return NormalizeMetadata(std::move(new_metadata));
}

Json NormalizeMetadata(Json metadata) {
  static const char* const kOrder[] = {"format-version",
                                       "table-uuid",
                                       "location",
                                       "last-sequence-number",
                                       "last-updated-ms",
                                       "last-column-id",
                                       "schema",
                                       "current-schema-id",
                                       "schemas",
                                       "partition-spec",
                                       "default-spec-id",
                                       "partition-specs",
                                       "last-partition-id",
                                       "default-sort-order-id",
                                       "sort-orders",
                                       "properties",
                                       "current-snapshot-id",
                                       "next-row-id",
                                       "encryption-keys",
                                       "refs",
                                       "snapshots",
                                       "statistics",
                                       "partition-statistics",
                                       "snapshot-log",
                                       "metadata-log"};
  if (!metadata.is_object()) return metadata;
  const int version = IntOr(metadata, "format-version", 2);
  if (version > 1) {
    metadata.erase("schema");
    metadata.erase("partition-spec");
  }
  if (version >= 3) {
    auto it = metadata.find("current-snapshot-id");
    if (it == metadata.end() || (it->is_number_integer() && it->get<int64_t>() == -1)) {
      metadata["current-snapshot-id"] = nullptr;
    }
  }
  Json out = Json::object();
  // Room for every member first (and a few more, for the next commit to add): growing an
  // ordered_json object copies its members.
  out.get_ref<Json::object_t&>().reserve(metadata.size() + 16);
  for (const char* key : kOrder) {
    if (auto it = metadata.find(key); it != metadata.end()) out[key] = std::move(*it);
  }
  for (auto& [key, value] : metadata.items()) {
    if (!out.contains(key)) out[key] = std::move(value);
  }
  return out;
}

std::string ToJsonText(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string ToJsonText(const Json& metadata, std::string_view known_text,
                       const HistorySpans& known, HistorySpans* spans) {
  *spans = HistorySpans{};
  if (!metadata.is_object()) return ToJsonText(metadata);
  struct History {
    std::string_view key;
    const ElementsSpan* known;
    ElementsSpan* out;
  };
  const History histories[] = {{"snapshots", &known.snapshots, &spans->snapshots},
                               {"snapshot-log", &known.snapshot_log, &spans->snapshot_log}};
  std::string out;
  out.reserve(known_text.size() + 4096);
  out += '{';
  for (auto it = metadata.begin(); it != metadata.end(); ++it) {
    if (it != metadata.begin()) out += ',';
    out += ToJsonText(Json(it.key()));
    out += ':';
    const Json& value = it.value();
    const History* history = nullptr;
    for (const History& h : histories) {
      if (value.is_array() && it.key() == h.key) history = &h;
    }
    if (history == nullptr) {
      out += ToJsonText(value);
      continue;
    }
    const ElementsSpan& reused = *history->known;
    ElementsSpan& span = *history->out;
    out += '[';
    span.begin = out.size();
    size_t i = 0;
    if (reused.count > 0 && reused.count <= value.size() && reused.begin <= known_text.size() &&
        reused.size <= known_text.size() - reused.begin) {
      out += known_text.substr(reused.begin, reused.size);
      i = reused.count;
    }
    for (; i < value.size(); ++i) {
      if (i > 0) out += ',';
      out += ToJsonText(value[i]);
    }
    span.size = out.size() - span.begin;
    span.count = value.size();
    out += ']';
  }
  out += '}';
  return out;
}

Result<Json> ParseMetadata(std::string_view text) {
  auto parsed = json::ParseOrderedJson(text, "not a JSON object");
  if (!parsed) return InvalidArgument("Invalid table metadata: {}", parsed.error().message);
  Json md = std::move(*parsed);
  if (!md.is_object()) return InvalidArgument("Invalid table metadata: not a JSON object");
  auto v = md.find("format-version");
  if (v == md.end() || !v->is_number_integer()) {
    return InvalidArgument("Invalid table metadata: missing format-version");
  }
  return md;
}

const Json* CurrentSchema(const Json& metadata) {
  if (!metadata.is_object()) return nullptr;
  auto id = metadata.find("current-schema-id");
  auto schemas = metadata.find("schemas");
  if (id != metadata.end() && id->is_number_integer() && schemas != metadata.end() &&
      schemas->is_array()) {
    for (const auto& s : *schemas) {
      if (IntOr(s, "schema-id", -1) == id->get<int>()) return &s;
    }
  }
  auto legacy = metadata.find("schema");
  return legacy != metadata.end() && legacy->is_object() ? &*legacy : nullptr;
}

const Json* DefaultSpec(const Json& metadata) {
  if (!metadata.is_object()) return nullptr;
  auto id = metadata.find("default-spec-id");
  auto specs = metadata.find("partition-specs");
  if (id == metadata.end() || specs == metadata.end() || !specs->is_array()) return nullptr;
  for (const auto& s : *specs) {
    if (IntOr(s, "spec-id", -1) == id->get<int>()) return &s;
  }
  return nullptr;
}

const Json* DefaultSortOrder(const Json& metadata) {
  if (!metadata.is_object()) return nullptr;
  auto id = metadata.find("default-sort-order-id");
  auto orders = metadata.find("sort-orders");
  if (id == metadata.end() || orders == metadata.end() || !orders->is_array()) return nullptr;
  for (const auto& o : *orders) {
    if (IntOr(o, "order-id", -1) == id->get<int>()) return &o;
  }
  return nullptr;
}

model::Properties PropertiesOf(const Json& metadata) {
  model::Properties out;
  if (!metadata.is_object()) return out;
  auto it = metadata.find("properties");
  if (it == metadata.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

namespace {

Result<model::Table> TableFromMetadataUnguarded(const Json& metadata) {
  const Json* schema = CurrentSchema(metadata);
  if (schema == nullptr) return InvalidArgument("Invalid table metadata: no current schema");
  model::Table t;
  CAIRN_ASSIGN_OR_RETURN(t.columns, FromIcebergSchema(*schema));
  t.properties = PropertiesOf(metadata);
  if (auto it = t.properties.find("comment"); it != t.properties.end()) t.comment = it->second;
  if (const Json* spec = DefaultSpec(metadata)) {
    CAIRN_ASSIGN_OR_RETURN(t.partitioning, FromPartitionSpec(*spec, *schema));
  }
  if (const Json* order = DefaultSortOrder(metadata)) {
    CAIRN_ASSIGN_OR_RETURN(t.sort_orders, FromSortOrder(*order, *schema));
  }
  t.distribution = DistributionFromProperties(t.properties);
  return t;
}

}  // namespace

Result<model::Table> TableFromMetadata(const Json& metadata) {
  return CatchJsonErrors("Invalid table metadata",
                         [&] { return TableFromMetadataUnguarded(metadata); });
}

std::vector<std::string> StorageLocations(std::string_view metadata_text) {
  std::vector<std::string> out;
  const Json m = json::ParseOrderedJsonOrDiscarded(metadata_text);
  if (!m.is_object()) return out;
  auto add = [&](const Json& v) {
    if (!v.is_string()) return;
    std::string loc = v.get<std::string>();
    while (!loc.empty() && loc.back() == '/') loc.pop_back();
    if (loc.empty() || std::find(out.begin(), out.end(), loc) != out.end()) return;
    out.push_back(std::move(loc));
  };
  if (auto l = m.find("location"); l != m.end()) add(*l);
  if (auto p = m.find("properties"); p != m.end() && p->is_object()) {
    for (const char* key : {"write.data.path", "write.metadata.path"}) {
      if (auto v = p->find(key); v != p->end()) add(*v);
    }
  }
  return out;
}

Result<NewTableRequest> NewTableRequestFor(const model::Table& table,
                                           const std::string& default_location, int64_t now_ms) {
  NewTableRequest request;
  auto explicit_location = table.properties.find("location");
  request.location =
      explicit_location != table.properties.end() ? explicit_location->second : default_location;
  request.columns = table.columns;
  request.partitioning = table.partitioning;
  request.sort_orders = table.sort_orders;
  request.properties = table.properties;
  request.properties.erase("location");
  if (table.comment) request.properties["comment"] = *table.comment;
  CAIRN_ASSIGN_OR_RETURN(std::string mode,
                         DistributionMode(table.distribution, !table.partitioning.empty(),
                                          !table.sort_orders.empty()));
  if (table.distribution.strategy != "none") request.properties[kDistributionModeProperty] = mode;
  request.now_ms = now_ms;
  return request;
}

}  // namespace cairn::iceberg
