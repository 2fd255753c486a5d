// SPDX-License-Identifier: Apache-2.0
#include "iceberg/table_update.h"

#include <type_traits>
#include <utility>

#include "common/deadline.h"
#include "common/util.h"
#include "iceberg/schema_parse.h"
#include "iceberg/view_metadata.h"

namespace cairn::iceberg {

namespace {

constexpr UpdateAction kActions[] = {
    {"assign-uuid", "AssignUUID", true, true},
    {"upgrade-format-version", "UpgradeFormatVersion", true, true},
    {"add-schema", "AddSchema", true, true},
    {"set-location", "SetLocation", true, true},
    {"set-properties", "SetProperties", true, true},
    {"remove-properties", "RemoveProperties", true, true},
    {"set-current-schema", "SetCurrentSchema", true, false},
    {"add-spec", "AddPartitionSpec", true, false},
    {"set-default-spec", "SetDefaultPartitionSpec", true, false},
    {"add-sort-order", "AddSortOrder", true, false},
    {"set-default-sort-order", "SetDefaultSortOrder", true, false},
    {"add-snapshot", "AddSnapshot", true, false},
    {"remove-snapshots", "RemoveSnapshots", true, false},
    {"remove-snapshot-ref", "RemoveSnapshotRef", true, false},
    {"set-snapshot-ref", "SetSnapshotRef", true, false},
    {"set-statistics", "SetStatistics", true, false},
    {"remove-statistics", "RemoveStatistics", true, false},
    {"set-partition-statistics", "SetPartitionStatistics", true, false},
    {"remove-partition-statistics", "RemovePartitionStatistics", true, false},
    {"remove-partition-specs", "RemovePartitionSpecs", true, false},
    {"remove-schemas", "RemoveSchemas", true, false},
    {"add-encryption-key", "AddEncryptionKey", true, false},
    {"remove-encryption-key", "RemoveEncryptionKey", true, false},
    {"add-view-version", "AddViewVersion", false, true},
    {"set-current-view-version", "SetCurrentViewVersion", false, true},
};

// "snapshot-ids": a non-null array of longs.
Result<update::RemoveSnapshots> ParseRemoveSnapshots(const Json& u) {
  auto it = u.find("snapshot-ids");
  if (it == u.end() || it->is_null()) {
    return InvalidArgument("Invalid set of snapshot ids to remove: must be non-null");
  }
  if (!it->is_array()) {
    return InvalidArgument("Cannot parse JSON array from non-array value: snapshot-ids: {}",
                           Text(*it));
  }
  update::RemoveSnapshots out;
  for (const auto& v : *it) {
    if (!IsLong(v)) {
      return InvalidArgument("Cannot parse long from non-long value in snapshot-ids: {}", Text(v));
    }
    out.snapshot_ids.insert(v.get<int64_t>());
  }
  return out;
}

// JsonUtil.getIntegerSet: "spec-ids" of remove-partition-specs, "schema-ids" of remove-schemas.
Result<std::set<int>> ParseIntSet(const Json& u, const char* key) {
  auto it = u.find(key);
  if (it == u.end()) return InvalidArgument("Cannot parse missing set: {}", key);
  if (!it->is_array()) {
    return InvalidArgument("Cannot parse JSON array from non-array value: {}: {}", key, Text(*it));
  }
  std::set<int> ids;
  for (const auto& v : *it) {
    if (!IsInt(v)) {
      return InvalidArgument("Cannot parse integer from non-int value in {}: {}", key, Text(v));
    }
    ids.insert(v.get<int>());
  }
  return ids;
}

Result<TableUpdate> ParseAction(const std::string& action, const Json& u) {
  if (action == "assign-uuid") {
    CAIRN_ASSIGN_OR_RETURN(std::string uuid, JsonGetString(u, "uuid"));
    return TableUpdate{update::AssignUuid{std::move(uuid)}};
  }
  if (action == "upgrade-format-version") {
    CAIRN_ASSIGN_OR_RETURN(int version, JsonGetInt(u, "format-version"));
    return TableUpdate{update::UpgradeFormatVersion{version}};
  }
  if (action == "add-schema") {
    CAIRN_ASSIGN_OR_RETURN(const Json* node, JsonGetField(u, "schema"));
    CAIRN_ASSIGN_OR_RETURN(Json schema, ParseSchemaJson(*node));
    return TableUpdate{update::AddSchema{std::move(schema)}};
  }
  if (action == "set-current-schema") {
    CAIRN_ASSIGN_OR_RETURN(int id, JsonGetInt(u, "schema-id"));
    return TableUpdate{update::SetCurrentSchema{id}};
  }
  if (action == "add-spec") {
    CAIRN_ASSIGN_OR_RETURN(const Json* node, JsonGetField(u, "spec"));
    CAIRN_ASSIGN_OR_RETURN(std::vector<SpecField> fields, ParseSpecFields(*node));
    return TableUpdate{update::AddSpec{std::move(fields)}};
  }
  if (action == "set-default-spec") {
    CAIRN_ASSIGN_OR_RETURN(int id, JsonGetInt(u, "spec-id"));
    return TableUpdate{update::SetDefaultSpec{id}};
  }
  if (action == "add-sort-order") {
    CAIRN_ASSIGN_OR_RETURN(const Json* node, JsonGetField(u, "sort-order"));
    CAIRN_ASSIGN_OR_RETURN(std::vector<SortField> fields, ParseSortFields(*node));
    return TableUpdate{update::AddSortOrder{std::move(fields)}};
  }
  if (action == "set-default-sort-order") {
    CAIRN_ASSIGN_OR_RETURN(int id, JsonGetInt(u, "sort-order-id"));
    return TableUpdate{update::SetDefaultSortOrder{id}};
  }
  if (action == "add-snapshot") {
    CAIRN_ASSIGN_OR_RETURN(const Json* node, JsonGetField(u, "snapshot"));
    CAIRN_ASSIGN_OR_RETURN(Snapshot snapshot, ParseSnapshot(*node));
    return TableUpdate{update::AddSnapshot{std::move(snapshot)}};
  }
  if (action == "set-snapshot-ref") {
    CAIRN_ASSIGN_OR_RETURN(std::string name, JsonGetString(u, "ref-name"));
    CAIRN_ASSIGN_OR_RETURN(Ref ref, ParseRef(u));
    return TableUpdate{update::SetSnapshotRef{std::move(name), std::move(ref)}};
  }
  if (action == "remove-snapshots") {
    CAIRN_ASSIGN_OR_RETURN(update::RemoveSnapshots remove, ParseRemoveSnapshots(u));
    return TableUpdate{std::move(remove)};
  }
  if (action == "remove-snapshot-ref") {
    CAIRN_ASSIGN_OR_RETURN(std::string name, JsonGetString(u, "ref-name"));
    return TableUpdate{update::RemoveSnapshotRef{std::move(name)}};
  }
  if (action == "set-location") {
    CAIRN_ASSIGN_OR_RETURN(std::string location, JsonGetString(u, "location"));
    return TableUpdate{update::SetLocation{std::move(location)}};
  }
  if (action == "set-properties") {
    // The REST spec says "updates"; Java first wrote "updated" and still reads both.
    const char* key = u.contains("updated") && !u.contains("updates") ? "updated" : "updates";
    CAIRN_ASSIGN_OR_RETURN(auto updates, JsonGetStringMap(u, key));
    return TableUpdate{update::SetProperties{std::move(updates)}};
  }
  if (action == "remove-properties") {
    const char* key = u.contains("removed") && !u.contains("removals") ? "removed" : "removals";
    CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> removals, JsonGetStringList(u, key));
    return TableUpdate{update::RemoveProperties{std::move(removals)}};
  }
  if (action == "set-statistics" || action == "set-partition-statistics") {
    const bool partition = action == "set-partition-statistics";
    CAIRN_ASSIGN_OR_RETURN(const Json* node,
                           JsonGetField(u, partition ? "partition-statistics" : "statistics"));
    CAIRN_ASSIGN_OR_RETURN(Json file, ParseStatistics(*node, partition));
    return TableUpdate{update::SetStatistics{partition, std::move(file)}};
  }
  if (action == "remove-statistics" || action == "remove-partition-statistics") {
    CAIRN_ASSIGN_OR_RETURN(int64_t id, JsonGetLong(u, "snapshot-id"));
    return TableUpdate{update::RemoveStatistics{action == "remove-partition-statistics", id}};
  }
  if (action == "remove-partition-specs") {
    CAIRN_ASSIGN_OR_RETURN(std::set<int> ids, ParseIntSet(u, "spec-ids"));
    return TableUpdate{update::RemovePartitionSpecs{std::move(ids)}};
  }
  if (action == "remove-schemas") {
    CAIRN_ASSIGN_OR_RETURN(std::set<int> ids, ParseIntSet(u, "schema-ids"));
    return TableUpdate{update::RemoveSchemas{std::move(ids)}};
  }
  if (action == "add-encryption-key") {
    auto it = u.find("encryption-key");
    if (it == u.end() || !it->is_object()) {
      return InvalidArgument("Invalid encryption key, must be non-null object: {}",
                             it == u.end() ? "null" : Text(*it));
    }
    CAIRN_ASSIGN_OR_RETURN(Json key, ParseEncryptionKey(*it));
    return TableUpdate{update::AddEncryptionKey{std::move(key)}};
  }
  if (action == "remove-encryption-key") {
    CAIRN_ASSIGN_OR_RETURN(std::string id, JsonGetString(u, "key-id"));
    return TableUpdate{update::RemoveEncryptionKey{std::move(id)}};
  }
  if (const UpdateAction* view_only = FindUpdateAction(action);
      view_only != nullptr && !view_only->table) {
    return InvalidArgument("Cannot apply update {} to a table", view_only->java_class);
  }
  return InvalidArgument("Cannot convert metadata update action to json: {}", action);
}

// The action of one update (lower case), or the error for an element that has none.
Result<std::string> ActionOf(const Json& update) {
  if (!update.is_object()) {
    return InvalidArgument("Cannot parse metadata update from non-object value: {}", Text(update));
  }
  auto action_it = update.find("action");
  if (action_it == update.end() || action_it->is_null()) {
    return InvalidArgument("Cannot parse metadata update. Missing field: action");
  }
  CAIRN_ASSIGN_OR_RETURN(std::string action, JsonGetString(update, "action"));
  return ToLower(action);
}

Result<TableUpdate> ParseOne(const Json& update) {
  CAIRN_ASSIGN_OR_RETURN(std::string action, ActionOf(update));
  return ParseAction(action, update);
}

Result<ViewUpdate> ParseOneForView(const Json& update) {
  CAIRN_ASSIGN_OR_RETURN(std::string action, ActionOf(update));
  if (action == "add-view-version") {
    CAIRN_ASSIGN_OR_RETURN(const Json* node, JsonGetField(update, "view-version"));
    CAIRN_ASSIGN_OR_RETURN(Json version, ParseViewVersion(*node));
    return ViewUpdate{update::AddViewVersion{std::move(version)}};
  }
  if (action == "set-current-view-version") {
    CAIRN_ASSIGN_OR_RETURN(int id, JsonGetInt(update, "view-version-id"));
    return ViewUpdate{update::SetCurrentViewVersion{id}};
  }
  const UpdateAction* known = FindUpdateAction(action);
  if (known == nullptr) {
    return InvalidArgument("Cannot convert metadata update action to json: {}", action);
  }
  if (!known->view) return InvalidArgument("Cannot apply update {} to a view", known->java_class);
  // One of the actions views share with tables: the same reader.
  CAIRN_ASSIGN_OR_RETURN(TableUpdate shared, ParseAction(action, update));
  return std::visit(
      [](auto&& u) -> Result<ViewUpdate> {
        using U = std::decay_t<decltype(u)>;
        if constexpr (std::is_constructible_v<ViewUpdate, U>) {
          return ViewUpdate{std::forward<decltype(u)>(u)};
        } else {
          return Error{ErrorCode::kInternal, EntityKind::kView,
                       "a view update action without a view reader"};
        }
      },
      std::move(shared));
}

// Every element of `updates`, in order, parsed by `one`; stops at the first error.
template <typename Update, typename One>
Result<std::vector<Update>> ParseEach(const Json& updates, One one) {
  if (!updates.is_array()) {
    return InvalidArgument("Cannot parse metadata updates from non-array: {}", Text(updates));
  }
  std::vector<Update> out;
  out.reserve(updates.size());
  for (const auto& u : updates) {
    CAIRN_RETURN_IF_ERROR(CheckDeadline());
    CAIRN_ASSIGN_OR_RETURN(Update parsed, one(u));
    out.push_back(std::move(parsed));
  }
  return out;
}

}  // namespace

const UpdateAction* FindUpdateAction(std::string_view name) {
  for (const auto& action : kActions) {
    if (action.name == name) return &action;
  }
  return nullptr;
}

Result<std::vector<TableUpdate>> ParseTableUpdates(const Json& updates) {
  return CatchJsonErrors("Invalid table metadata or commit updates",
                         [&] { return ParseEach<TableUpdate>(updates, ParseOne); });
}

Result<std::vector<ViewUpdate>> ParseViewUpdates(const Json& updates) {
  return CatchJsonErrors("Invalid view metadata or commit updates",
                         [&] { return ParseEach<ViewUpdate>(updates, ParseOneForView); });
}

}  // namespace cairn::iceberg
