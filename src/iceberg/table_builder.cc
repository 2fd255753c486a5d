// SPDX-License-Identifier: Apache-2.0
#include "iceberg/table_builder.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_set>
#include <utility>
#include <variant>

#include "common/deadline.h"
#include "common/util.h"
#include "iceberg/commit.h"
#include "iceberg/partitioning.h"
#include "iceberg/schema_parse.h"
#include "iceberg/table_metadata.h"

namespace cairn::iceberg {

namespace {

constexpr int64_t kOneMinuteMs = 60'000;

// --- Reading a base document --------------------------------------------------------------

// ordered_json keeps an object's members in a vector of pairs with a const key, which the vector
// cannot move: growing an object past its capacity copies every member, the history arrays
// included. A base document that PrepareBase may extend is copied with room to spare.
Json CopyWithRoom(const Json& object, size_t extra) {
  Json out = Json::object();
  auto& members = out.get_ref<Json::object_t&>();
  members.reserve(object.size() + extra);
  for (const auto& [key, value] : object.items()) members.emplace_back(key, value);
  return out;
}

}  // namespace

void PrepareBase(Json& md) {
  const int version = IntOr(md, "format-version", 1);
  if (!md.contains("schemas") || !md["schemas"].is_array()) {
    Json schema = md.contains("schema") ? md["schema"] : Json::object();
    if (!schema.contains("schema-id")) schema = WithSchemaId(schema, 0);
    md["schemas"] = Json::array({schema});
    md["current-schema-id"] = schema["schema-id"];
  }
  if (!md.contains("current-schema-id")) md["current-schema-id"] = 0;
  if (!md.contains("partition-specs") || !md["partition-specs"].is_array()) {
    Json spec = Json::object();
    spec["spec-id"] = 0;
    spec["fields"] = md.contains("partition-spec") ? md["partition-spec"] : Json::array();
    md["partition-specs"] = Json::array({spec});
    md["default-spec-id"] = 0;
  }
  if (!md.contains("default-spec-id")) md["default-spec-id"] = 0;
  if (!md.contains("last-partition-id")) {
    int last = kPartitionDataIdStart - 1;
    for (const auto& s : md["partition-specs"]) {
      for (const auto& f : s.value("fields", Json::array()))
        last = std::max(last, IntOr(f, "field-id", 0));
    }
    md["last-partition-id"] = last;
  }
  if (!md.contains("sort-orders") || !md["sort-orders"].is_array() || md["sort-orders"].empty()) {
    md["sort-orders"] = Json::array({SortOrderJson(0, {})});
    md["default-sort-order-id"] = 0;
  }
  if (!md.contains("default-sort-order-id")) md["default-sort-order-id"] = 0;
  if (!md.contains("last-column-id")) {
    int last = 0;
    for (const auto& s : md["schemas"]) last = std::max(last, MaxFieldId(s));
    md["last-column-id"] = last;
  }
  if (!md.contains("properties") || !md["properties"].is_object())
    md["properties"] = Json::object();
  for (const char* key : {"snapshots", "snapshot-log", "metadata-log", "statistics",
                          "partition-statistics", "encryption-keys"}) {
    if (!md.contains(key) || !md[key].is_array()) md[key] = Json::array();
  }
  auto cur = md.find("current-snapshot-id");
  int64_t current = cur != md.end() && cur->is_number_integer() ? cur->get<int64_t>() : -1;
  md["current-snapshot-id"] = current;
  if (!md.contains("refs") || !md["refs"].is_object()) {
    md["refs"] = Json::object();
    if (current != -1) {
      Json main = Json::object();
      main["snapshot-id"] = current;
      main["type"] = "branch";
      md["refs"][kMainBranch] = std::move(main);
    }
  }
  if (version >= 2 && !md.contains("last-sequence-number")) md["last-sequence-number"] = 0;
  if (!md.contains("next-row-id")) md["next-row-id"] = 0;
}

namespace {

// --- The builder --------------------------------------------------------------------------

// Java's TableMetadata.Builder over a prepared document: one Do() per update action, in the
// order of the commit; Build() runs the builder's final validations.
class TableBuilder {
 public:
  TableBuilder(Json md, int64_t now_ms) : md_(std::move(md)), now_ms_(now_ms) {
    format_version_ = IntOr(md_, "format-version", 1);
    last_sequence_number_ = LongOr(md_, "last-sequence-number", int64_t{0});
    next_row_id_ = LongOr(md_, "next-row-id", int64_t{0});
  }

  Status Apply(TableUpdate&& update) {
    return std::visit([this](auto&& u) { return Do(std::move(u)); }, std::move(update));
  }
  Result<Json> Build();
  int changes() const { return changes_; }
  // The index of the document's snapshots, when the caller kept it (it must describe them).
  void StartIndex(SnapshotIndex index) { snapshot_index_ = std::move(index); }
  // The index as it stands (it follows every snapshot added or removed), when one was built.
  std::optional<SnapshotIndex> TakeIndex() { return std::move(snapshot_index_); }

 private:
  Status Do(update::AssignUuid&& u);
  Status Do(update::UpgradeFormatVersion&& u);
  Status Do(update::AddSchema&& u);
  Status Do(update::SetCurrentSchema&& u) { return SetCurrentSchema(u.schema_id); }
  Status Do(update::AddSpec&& u);
  Status Do(update::SetDefaultSpec&& u) { return SetDefaultSpec(u.spec_id); }
  Status Do(update::AddSortOrder&& u);
  Status Do(update::SetDefaultSortOrder&& u) { return SetDefaultSortOrder(u.sort_order_id); }
  Status Do(update::AddSnapshot&& u);
  Status Do(update::SetSnapshotRef&& u) { return SetRef(u.ref_name, u.ref); }
  Status Do(update::RemoveSnapshots&& u);
  Status Do(update::RemoveSnapshotRef&& u);
  Status Do(update::SetLocation&& u);
  Status Do(update::SetProperties&& u);
  Status Do(update::RemoveProperties&& u);
  Status Do(update::SetStatistics&& u);
  Status Do(update::RemoveStatistics&& u);
  Status Do(update::RemovePartitionSpecs&& u);
  Status Do(update::RemoveSchemas&& u);
  Status Do(update::AddEncryptionKey&& u);
  Status Do(update::RemoveEncryptionKey&& u);

  Status SetCurrentSchema(int schema_id);
  Status SetDefaultSpec(int spec_id);
  Status SetDefaultSortOrder(int order_id);
  Status SetRef(const std::string& name, const Ref& ref);
  void RemoveRef(const std::string& name);
  void RemoveSnapshots(const std::set<int64_t>& ids);
  void RemoveStatistics(const char* key, int64_t snapshot_id);
  void SetStatistics(const char* key, Json file);
  Status RemoveListed(const std::set<int>& ids, bool specs);

  const Json* SchemaById(int id) const {
    for (const auto& s : md_["schemas"]) {
      if (IntOr(s, "schema-id", -1) == id) return &s;
    }
    return nullptr;
  }
  const Json* CurrentSchemaJson() const { return SchemaById(IntOr(md_, "current-schema-id", 0)); }
  bool HasSpec(int id) const {
    return std::any_of(md_["partition-specs"].begin(), md_["partition-specs"].end(),
                       [&](const Json& s) { return IntOr(s, "spec-id", -1) == id; });
  }
  bool HasOrder(int id) const {
    return std::any_of(md_["sort-orders"].begin(), md_["sort-orders"].end(),
                       [&](const Json& s) { return IntOr(s, "order-id", -1) == id; });
  }
  // From the newest: the snapshots looked up (the one a ref is set to) are recent ones.
  const Json* SnapshotById(int64_t id) const {
    const Json& snapshots = md_["snapshots"];
    for (auto s = snapshots.rbegin(); s != snapshots.rend(); ++s) {
      if (LongOr(*s, "snapshot-id", int64_t{-1}) == id) return &*s;
    }
    return nullptr;
  }
  // The snapshots' ids and their highest sequence number, read in one pass when first needed
  // and kept up to date: a long history used to be walked several times per commit.
  const SnapshotIndex& Snapshots() {
    if (!snapshot_index_) {
      snapshot_index_.emplace();
      const Json& snapshots = md_["snapshots"];
      snapshot_index_->ids.reserve(snapshots.size() + 4);
      for (const auto& s : snapshots) Index(s);
    }
    return *snapshot_index_;
  }
  void Index(const Json& snapshot) {
    snapshot_index_->ids.insert(LongOr(snapshot, "snapshot-id", int64_t{-1}));
    snapshot_index_->max_sequence_number = std::max(
        snapshot_index_->max_sequence_number, LongOr(snapshot, "sequence-number", int64_t{0}));
  }
  bool HasSnapshot(int64_t id) { return Snapshots().ids.count(id) > 0; }
  static bool Contains(const std::vector<int>& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  }
  static bool Contains(const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  }

  Json md_;
  int64_t now_ms_;
  int format_version_ = kDefaultFormatVersion;
  int64_t last_sequence_number_ = 0;
  int64_t next_row_id_ = 0;
  int changes_ = 0;
  std::optional<int> last_added_schema_;
  std::optional<int> last_added_spec_;
  std::optional<int> last_added_order_;
  std::vector<int> added_schema_ids_;
  std::vector<int> added_spec_ids_;
  std::vector<int> added_order_ids_;
  std::vector<int64_t> added_snapshot_ids_;
  std::vector<int64_t> main_set_to_added_;  // main set to a snapshot added earlier in the commit
  std::optional<SnapshotIndex> snapshot_index_;  // Snapshots()
  bool removed_snapshots_ = false;
};

Status TableBuilder::Do(update::AssignUuid&& u) {
  std::string& uuid = u.uuid;
  if (md_.value("table-uuid", "") != uuid) {
    md_["table-uuid"] = uuid;
    ++changes_;
  }
  return Ok();
}

Status TableBuilder::Do(update::UpgradeFormatVersion&& u) {
  const int version = u.format_version;
  if (version > kSupportedFormatVersion) {
    return InvalidArgument(
        "Cannot upgrade table to unsupported format version: v{} (supported: v{})", version,
        kSupportedFormatVersion);
  }
  if (version < format_version_) {
    return InvalidArgument("Cannot downgrade v{} table to v{}", format_version_, version);
  }
  if (version == format_version_) return Ok();
  format_version_ = version;
  md_["format-version"] = version;
  if (version >= 2 && !md_.contains("table-uuid")) md_["table-uuid"] = RandomUuid();
  ++changes_;
  return Ok();
}

Status TableBuilder::Do(update::AddSchema&& u) {
  const Json& schema = u.schema;
  const int last_column_id = IntOr(md_, "last-column-id", 0);
  const int new_last = std::max(last_column_id, MaxFieldId(schema));
  CAIRN_RETURN_IF_ERROR(CheckSchemaForVersion(schema, format_version_));

  // reuseOrCreateNewSchemaId: an identical schema's id, else one more than the highest.
  int new_id = IntOr(md_, "current-schema-id", 0);
  bool found = false;
  for (const auto& s : md_["schemas"]) {
    const int id = IntOr(s, "schema-id", 0);
    if (SameSchemaJson(s, schema)) {
      new_id = id;
      found = true;
      break;
    }
    if (id >= new_id) new_id = id + 1;
  }
  if (found && new_last == last_column_id) {
    const bool is_new = last_added_schema_ && Contains(added_schema_ids_, new_id);
    last_added_schema_ = is_new ? std::optional<int>(new_id) : std::nullopt;
    return Ok();
  }
  md_["last-column-id"] = new_last;
  if (!found) md_["schemas"].push_back(WithSchemaId(schema, new_id));
  added_schema_ids_.push_back(new_id);
  last_added_schema_ = new_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::SetCurrentSchema(int schema_id) {
  if (schema_id == -1) {
    if (!last_added_schema_) {
      return InvalidArgument("Cannot set last added schema: no schema has been added");
    }
    return SetCurrentSchema(*last_added_schema_);
  }
  if (IntOr(md_, "current-schema-id", 0) == schema_id) return Ok();
  if (SchemaById(schema_id) == nullptr) {
    return InvalidArgument("Cannot set current schema to unknown schema: {}", schema_id);
  }
  md_["current-schema-id"] = schema_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::Do(update::AddSpec&& u) {
  std::vector<SpecField> fields = std::move(u.fields);
  const Json* schema = CurrentSchemaJson();
  if (schema == nullptr) {
    return InvalidArgument("Cannot add a partition spec: the table has no current schema");
  }
  int spec_last = 0;
  CAIRN_ASSIGN_OR_RETURN(fields, BindSpec(std::move(fields), *schema, &spec_last));

  int new_id = 0;
  std::optional<int> existing;
  for (const auto& s : md_["partition-specs"]) {
    const int id = IntOr(s, "spec-id", 0);
    if (CompatibleSpec(s, fields)) {
      existing = id;
      break;
    }
    if (new_id <= id) new_id = id + 1;
  }
  if (existing) {
    const bool is_new = last_added_spec_ && Contains(added_spec_ids_, *last_added_spec_);
    last_added_spec_ = is_new ? existing : std::nullopt;
    return Ok();
  }
  if (format_version_ == 1) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (*fields[i].field_id != kPartitionDataIdStart + static_cast<int>(i)) {
        return InvalidArgument("Spec does not use sequential IDs that are required in v1: {}",
                               Text(SpecJson(new_id, fields)));
      }
    }
  }
  md_["partition-specs"].push_back(SpecJson(new_id, fields));
  md_["last-partition-id"] = std::max(IntOr(md_, "last-partition-id", 0), spec_last);
  added_spec_ids_.push_back(new_id);
  last_added_spec_ = new_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::SetDefaultSpec(int spec_id) {
  if (spec_id == -1) {
    if (!last_added_spec_)
      return InvalidArgument("Cannot set last added spec: no spec has been added");
    return SetDefaultSpec(*last_added_spec_);
  }
  if (IntOr(md_, "default-spec-id", 0) == spec_id) return Ok();
  if (!HasSpec(spec_id)) {
    return InvalidArgument("Cannot set default partition spec to unknown spec: {}", spec_id);
  }
  md_["default-spec-id"] = spec_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::Do(update::AddSortOrder&& u) {
  const std::vector<SortField>& fields = u.fields;
  const Json* schema = CurrentSchemaJson();
  if (schema == nullptr)
    return InvalidArgument("Cannot add a sort order: the table has no current schema");
  CAIRN_RETURN_IF_ERROR(CheckSortSources(fields, *schema));
  int new_id = 0;
  std::optional<int> existing;
  if (!fields.empty()) {
    new_id = 1;
    for (const auto& o : md_["sort-orders"]) {
      const int id = IntOr(o, "order-id", 0);
      if (SameOrder(o, fields)) {
        existing = id;
        break;
      }
      if (new_id <= id) new_id = id + 1;
    }
  } else if (HasOrder(0)) {
    existing = 0;
  }
  if (existing) {
    const bool is_new = last_added_order_ && Contains(added_order_ids_, *last_added_order_);
    last_added_order_ = is_new ? existing : std::nullopt;
    return Ok();
  }
  md_["sort-orders"].push_back(SortOrderJson(new_id, fields));
  added_order_ids_.push_back(new_id);
  last_added_order_ = new_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::SetDefaultSortOrder(int order_id) {
  if (order_id == -1) {
    if (!last_added_order_) {
      return InvalidArgument("Cannot set last added sort order: no sort order has been added");
    }
    return SetDefaultSortOrder(*last_added_order_);
  }
  if (IntOr(md_, "default-sort-order-id", 0) == order_id) return Ok();
  if (!HasOrder(order_id)) {
    return InvalidArgument("Cannot set default sort order to unknown sort order: {}", order_id);
  }
  md_["default-sort-order-id"] = order_id;
  ++changes_;
  return Ok();
}

Status TableBuilder::Do(update::AddSnapshot&& u) {
  Snapshot& s = u.snapshot;
  if (md_["schemas"].empty()) {
    return InvalidArgument("Attempting to add a snapshot before a schema is added");
  }
  if (md_["partition-specs"].empty()) {
    return InvalidArgument("Attempting to add a snapshot before a partition spec is added");
  }
  if (md_["sort-orders"].empty()) {
    return InvalidArgument("Attempting to add a snapshot before a sort order is added");
  }
  if (HasSnapshot(s.id)) {
    return InvalidArgument("Snapshot already exists for id: {}", s.id);
  }
  if (format_version_ != 1 && s.sequence_number <= last_sequence_number_ && s.parent_id) {
    return Conflict(EntityKind::kTable, "{}", fmt::format(
        "Validation failed, please retry: Cannot add snapshot with sequence number {} older "
        "than last sequence number {}",
        s.sequence_number, last_sequence_number_));
  }
  if (format_version_ >= kMinRowLineageVersion) {
    if (!s.first_row_id) return InvalidArgument("Cannot add a snapshot: first-row-id is null");
    if (*s.first_row_id < next_row_id_) {
      return Conflict(EntityKind::kTable, "{}", fmt::format(
          "Validation failed, please retry: Cannot add a snapshot, first-row-id is behind table "
          "next-row-id: {} < {}",
          *s.first_row_id, next_row_id_));
    }
  }
  last_sequence_number_ = s.sequence_number;
  if (format_version_ >= kMinRowLineageVersion) next_row_id_ += s.added_rows.value_or(0);
  md_["snapshots"].push_back(std::move(s.json));
  if (snapshot_index_) Index(md_["snapshots"].back());
  added_snapshot_ids_.push_back(s.id);
  ++changes_;
  return Ok();
}

Status TableBuilder::SetRef(const std::string& name, const Ref& ref) {
  Json& refs = md_["refs"];
  if (auto it = refs.find(name); it != refs.end() && SameJson(*it, ref.ToJson())) return Ok();
  const Json* snapshot = SnapshotById(ref.snapshot_id);
  if (snapshot == nullptr) {
    return InvalidArgument("Cannot set {} to unknown snapshot: {}", name, ref.snapshot_id);
  }
  if (name == kMainBranch && ref.type != "branch") {
    return InvalidArgument("Cannot set {} to a tag, it must be a branch", kMainBranch);
  }
  if (name == kMainBranch) {
    md_["current-snapshot-id"] = ref.snapshot_id;
    // A rollback to an existing snapshot is logged at the time of the change.
    const bool added = Contains(added_snapshot_ids_, ref.snapshot_id);
    Json entry = Json::object();
    entry["timestamp-ms"] = added ? LongOr(*snapshot, "timestamp-ms", now_ms_) : now_ms_;
    entry["snapshot-id"] = ref.snapshot_id;
    md_["snapshot-log"].push_back(std::move(entry));
    if (added) main_set_to_added_.push_back(ref.snapshot_id);
  }
  refs[name] = ref.ToJson();
  ++changes_;
  return Ok();
}

void TableBuilder::RemoveRef(const std::string& name) {
  if (name == kMainBranch) md_["current-snapshot-id"] = -1;
  Json& refs = md_["refs"];
  if (refs.contains(name)) {
    refs.erase(name);
    ++changes_;
  }
}

void TableBuilder::RemoveStatistics(const char* key, int64_t snapshot_id) {
  Json& files = md_[key];
  const size_t before = files.size();
  Json kept = Json::array();
  for (auto& f : files) {
    if (LongOr(f, "snapshot-id", int64_t{-1}) != snapshot_id) kept.push_back(std::move(f));
  }
  files = std::move(kept);
  if (files.size() != before) ++changes_;
}

void TableBuilder::SetStatistics(const char* key, Json file) {
  Json& files = md_[key];
  const int64_t id = file["snapshot-id"].get<int64_t>();
  for (auto& f : files) {
    if (LongOr(f, "snapshot-id", int64_t{-1}) == id) {
      f = std::move(file);
      ++changes_;
      return;
    }
  }
  files.push_back(std::move(file));
  ++changes_;
}

void TableBuilder::RemoveSnapshots(const std::set<int64_t>& ids) {
  Json kept = Json::array();
  for (auto& s : md_["snapshots"]) {
    const int64_t id = LongOr(s, "snapshot-id", int64_t{-1});
    if (ids.count(id) > 0) {
      ++changes_;
      removed_snapshots_ = true;
      RemoveStatistics("statistics", id);
      RemoveStatistics("partition-statistics", id);
    } else {
      kept.push_back(std::move(s));
    }
  }
  md_["snapshots"] = std::move(kept);
  snapshot_index_.reset();
  std::vector<std::string> dangling;
  for (const auto& [name, ref] : md_["refs"].items()) {
    if (!HasSnapshot(LongOr(ref, "snapshot-id", int64_t{-1}))) dangling.push_back(name);
  }
  for (const auto& name : dangling) RemoveRef(name);
}

Status TableBuilder::Do(update::RemoveSnapshots&& u) {
  RemoveSnapshots(u.snapshot_ids);
  return Ok();
}

Status TableBuilder::Do(update::RemoveSnapshotRef&& u) {
  RemoveRef(u.ref_name);
  return Ok();
}

Status TableBuilder::Do(update::SetLocation&& u) {
  std::string& location = u.location;
  if (md_.contains("location") && md_["location"] == location) return Ok();
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  md_["location"] = std::move(location);
  ++changes_;
  return Ok();
}

Status TableBuilder::Do(update::SetProperties&& u) {
  if (u.updates.empty()) return Ok();
  for (auto& [k, v] : u.updates) md_["properties"][k] = std::move(v);
  ++changes_;
  return Ok();
}

Status TableBuilder::Do(update::RemoveProperties&& u) {
  if (u.removals.empty()) return Ok();
  for (const auto& k : u.removals) md_["properties"].erase(k);
  ++changes_;
  return Ok();
}

Status TableBuilder::Do(update::SetStatistics&& u) {
  SetStatistics(u.partition ? "partition-statistics" : "statistics", std::move(u.file));
  return Ok();
}

Status TableBuilder::Do(update::RemoveStatistics&& u) {
  RemoveStatistics(u.partition ? "partition-statistics" : "statistics", u.snapshot_id);
  return Ok();
}

Status TableBuilder::Do(update::RemovePartitionSpecs&& u) {
  if (u.spec_ids.count(IntOr(md_, "default-spec-id", 0)) > 0) {
    return InvalidArgument("Cannot remove the default partition spec");
  }
  return RemoveListed(u.spec_ids, /*specs=*/true);
}

Status TableBuilder::Do(update::RemoveSchemas&& u) {
  if (u.schema_ids.count(IntOr(md_, "current-schema-id", 0)) > 0) {
    return InvalidArgument("Cannot remove the current schema");
  }
  return RemoveListed(u.schema_ids, /*specs=*/false);
}

Status TableBuilder::RemoveListed(const std::set<int>& ids, bool specs) {
  if (ids.empty()) return Ok();
  Json& list = md_[specs ? "partition-specs" : "schemas"];
  Json kept = Json::array();
  for (auto& item : list) {
    if (ids.count(item.value(specs ? "spec-id" : "schema-id", -1)) == 0)
      kept.push_back(std::move(item));
  }
  list = std::move(kept);
  ++changes_;
  return Ok();
}

Status TableBuilder::Do(update::AddEncryptionKey&& u) {
  Json& keys = md_["encryption-keys"];
  for (const auto& k : keys) {
    if (k.value("key-id", "") == u.key["key-id"]) return Ok();
  }
  keys.push_back(std::move(u.key));
  ++changes_;
  return Ok();
}

Status TableBuilder::Do(update::RemoveEncryptionKey&& u) {
  Json& keys = md_["encryption-keys"];
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].value("key-id", "") == u.key_id) {
      keys.erase(i);
      ++changes_;
      break;
    }
  }
  return Ok();
}

Result<Json> TableBuilder::Build() {
  if (md_["schemas"].empty() || CurrentSchemaJson() == nullptr) {
    return InvalidArgument("Invalid table metadata: no current schema");
  }
  if (md_["partition-specs"].empty())
    return InvalidArgument("Partition specs cannot be null or empty");
  if (md_["sort-orders"].empty()) return InvalidArgument("Sort orders cannot be null or empty");
  const Json& schema = *CurrentSchemaJson();
  const Json* spec = DefaultSpec(md_);
  if (spec == nullptr) {
    return InvalidArgument("Cannot find default partition spec: {}", Text(md_["default-spec-id"]));
  }
  for (const auto& f : MemberOrNull(*spec, "fields")) {
    if (CanonicalTransform(f.value("transform", "")) != "void" &&
        FindTypeById(schema, IntOr(f, "source-id", -1)) == nullptr) {
      return InvalidArgument("Cannot find source column for partition field: {}: {}: {}({})",
                             IntOr(f, "field-id", 0), f.value("name", ""), f.value("transform", ""),
                             IntOr(f, "source-id", -1));
    }
  }
  const Json* order = DefaultSortOrder(md_);
  if (order == nullptr) {
    return InvalidArgument("Cannot find default sort order: {}",
                           Text(md_["default-sort-order-id"]));
  }
  CAIRN_ASSIGN_OR_RETURN(std::vector<SortField> sort_fields, ParseSortFields(*order));
  CAIRN_RETURN_IF_ERROR(CheckSortSources(sort_fields, schema));
  if (format_version_ == 1 && last_sequence_number_ != 0) {
    return InvalidArgument("Sequence number must be 0 in v1: {}", last_sequence_number_);
  }
  if (const int64_t seq = Snapshots().max_sequence_number; seq > last_sequence_number_) {
    return InvalidArgument(
        "Invalid snapshot with sequence number {} greater than last sequence number {}", seq,
        last_sequence_number_);
  }

  // updateSnapshotLog: drop intermediate snapshots of this commit and, when snapshots were
  // removed, the history before any entry whose snapshot is gone.
  const int64_t current = md_["current-snapshot-id"].get<int64_t>();
  std::vector<int64_t> intermediate;
  for (int64_t id : main_set_to_added_) {
    if (id != current) intermediate.push_back(id);
  }
  if (!intermediate.empty() || removed_snapshots_) {
    Json log = Json::array();
    for (auto& e : md_["snapshot-log"]) {
      const int64_t id = LongOr(e, "snapshot-id", int64_t{-1});
      if (HasSnapshot(id)) {
        if (!Contains(intermediate, id)) log.push_back(std::move(e));
      } else if (removed_snapshots_) {
        log = Json::array();
      }
    }
    if (HasSnapshot(current) &&
        (log.empty() || LongOr(log.back(), "snapshot-id", int64_t{-1}) != current)) {
      return InvalidArgument(
          "Cannot set invalid snapshot log: latest entry is not the current snapshot");
    }
    md_["snapshot-log"] = std::move(log);
  }
  if (!md_["snapshot-log"].empty()) {
    const int64_t last = LongOr(md_["snapshot-log"].back(), "timestamp-ms", int64_t{0});
    if (now_ms_ - last < -kOneMinuteMs) {
      return InvalidArgument("Invalid update timestamp {}: before last snapshot log entry at {}",
                             now_ms_, last);
    }
  }

  md_["format-version"] = format_version_;
  if (!md_.contains("table-uuid") && format_version_ > 1) md_["table-uuid"] = RandomUuid();
  if (format_version_ > 1) {
    md_["last-sequence-number"] = last_sequence_number_;
  } else {
    md_.erase("last-sequence-number");
  }
  if (format_version_ >= kMinRowLineageVersion) {
    md_["next-row-id"] = next_row_id_;
  } else {
    md_.erase("next-row-id");
  }
  if (md_["encryption-keys"].empty()) md_.erase("encryption-keys");
  if (format_version_ == 1) {
    md_["schema"] = schema;
    md_["partition-spec"] = MemberOrNull(*spec, "fields");
  }
  md_["last-updated-ms"] = now_ms_;
  if (!md_.contains("metadata-log")) md_["metadata-log"] = Json::array();
  return NormalizeMetadata(std::move(md_));
}

// A create transaction starts from an empty table of the format version its first
// upgrade-format-version asks for (Java's TableMetadata.buildFromEmpty).
Json EmptyTable(const std::vector<TableUpdate>& updates) {
  int version = kDefaultFormatVersion;
  for (const auto& u : updates) {
    if (const auto* upgrade = std::get_if<update::UpgradeFormatVersion>(&u)) {
      version = upgrade->format_version;
      break;
    }
  }
  TableDocumentParts parts;
  parts.format_version = version;
  parts.table_uuid = RandomUuid();
  Json md = NewTableDocument(std::move(parts));
  md["current-snapshot-id"] = -1;  // the builder reads a long; Build writes v3's null
  return md;
}

Result<Json> ApplyUpdatesUnguarded(const Json* base, std::vector<TableUpdate> updates,
                                   int64_t now_ms, bool* changed) {
  if (changed != nullptr) *changed = false;
  Json start;
  if (base == nullptr) {
    start = EmptyTable(updates);
  } else {
    if (!base->is_object()) return InvalidArgument("Invalid table metadata: not a JSON object");
    start = CopyWithRoom(*base, 16);
    PrepareBase(start);
  }
  TableBuilder builder(std::move(start), now_ms);
  for (auto& u : updates) {
    CAIRN_RETURN_IF_ERROR(CheckDeadline());
    CAIRN_RETURN_IF_ERROR(builder.Apply(std::move(u)));
  }
  if (builder.changes() == 0 && base != nullptr) return *base;
  CAIRN_ASSIGN_OR_RETURN(Json out, builder.Build());
  if (changed != nullptr) *changed = true;
  return out;
}

}  // namespace

Result<Json> ApplyTableUpdates(const Json* base, std::vector<TableUpdate> updates, int64_t now_ms,
                               bool* changed) {
  return CatchJsonErrors("Invalid table metadata or commit updates", [&] {
    return ApplyUpdatesUnguarded(base, std::move(updates), now_ms, changed);
  });
}

Result<Json> ApplyTableUpdates(const Json* base, const Json& updates, int64_t now_ms,
                               bool* changed) {
  if (changed != nullptr) *changed = false;
  return CatchJsonErrors("Invalid table metadata or commit updates", [&]() -> Result<Json> {
    CAIRN_ASSIGN_OR_RETURN(std::vector<TableUpdate> parsed, ParseTableUpdates(updates));
    return ApplyUpdatesUnguarded(base, std::move(parsed), now_ms, changed);
  });
}

namespace {

Result<Json> ApplyUpdatesUnguarded(Json&& base, std::vector<TableUpdate> updates,
                                   int64_t now_ms, bool* changed,
                                   std::optional<SnapshotIndex>* index = nullptr) {
  if (changed != nullptr) *changed = false;
  std::optional<SnapshotIndex> kept;
  if (index != nullptr) {
    kept = std::move(*index);
    index->reset();  // unset unless this succeeds
  }
  if (!base.is_object()) return InvalidArgument("Invalid table metadata: not a JSON object");
  Json start = std::move(base);
  auto& members = start.get_ref<Json::object_t&>();
  if (members.capacity() < members.size() + 16) start = CopyWithRoom(start, 16);
  PrepareBase(start);
  TableBuilder builder(std::move(start), now_ms);
  if (kept) builder.StartIndex(std::move(*kept));
  for (auto& u : updates) {
    CAIRN_RETURN_IF_ERROR(CheckDeadline());
    CAIRN_RETURN_IF_ERROR(builder.Apply(std::move(u)));
  }
  const bool any = builder.changes() > 0;
  CAIRN_ASSIGN_OR_RETURN(Json out, builder.Build());
  if (changed != nullptr) *changed = any;
  if (index != nullptr) *index = builder.TakeIndex();
  return out;
}

}  // namespace

Result<Json> ApplyTableUpdates(Json&& base, std::vector<TableUpdate> updates, int64_t now_ms,
                               bool* changed) {
  return CatchJsonErrors("Invalid table metadata or commit updates", [&] {
    return ApplyUpdatesUnguarded(std::move(base), std::move(updates), now_ms, changed);
  });
}

Result<Json> ApplyTableUpdates(Json&& base, std::vector<TableUpdate> updates, int64_t now_ms,
                               bool* changed, std::optional<SnapshotIndex>* index) {
  return CatchJsonErrors("Invalid table metadata or commit updates", [&] {
    return ApplyUpdatesUnguarded(std::move(base), std::move(updates), now_ms, changed, index);
  });
}

Result<Json> ApplyTableUpdates(Json&& base, const Json& updates, int64_t now_ms, bool* changed) {
  if (changed != nullptr) *changed = false;
  return CatchJsonErrors("Invalid table metadata or commit updates", [&]() -> Result<Json> {
    CAIRN_ASSIGN_OR_RETURN(std::vector<TableUpdate> parsed, ParseTableUpdates(updates));
    return ApplyUpdatesUnguarded(std::move(base), std::move(parsed), now_ms, changed);
  });
}

}  // namespace cairn::iceberg
