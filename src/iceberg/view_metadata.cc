// SPDX-License-Identifier: Apache-2.0
#include "iceberg/view_metadata.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/util.h"
#include "iceberg/commit.h"
#include "iceberg/requirements.h"
#include "iceberg/table_update.h"

namespace cairn::iceberg {

namespace {

constexpr int kSupportedViewFormatVersion = 1;
constexpr int kLastAdded = -1;

Error ViewConflict(const std::string& message) {
  return Error{ErrorCode::kConflict, EntityKind::kView, message};
}

// A string-to-string object kept in its own order.
Result<Json> OrderedStringMap(const Json& node, std::string_view key) {
  CAIRN_RETURN_IF_ERROR(JsonGetStringMap(node, key));  // validates, with Java's wording
  return node.at(std::string(key));
}


std::set<std::string> SqlDialects(const Json& version) {
  std::set<std::string> out;
  for (const auto& r : version.value("representations", Json::array())) {
    if (r.value("type", "") == "sql") out.insert(ToLower(r.value("dialect", "")));
  }
  return out;
}

Status CheckDialectsUnique(const Json& version) {
  std::set<std::string> seen;
  for (const auto& r : version["representations"]) {
    if (r.value("type", "") != "sql") continue;
    const std::string dialect = ToLower(r.value("dialect", ""));
    if (!seen.insert(dialect).second) {
      return InvalidArgument("Invalid view version: Cannot add multiple queries for dialect {}",
                             dialect);
    }
  }
  return Ok();
}

// ViewMetadata.Builder.sameViewVersion: ignores the id, the timestamp and the operation.
bool SameViewVersion(const Json& a, const Json& b) {
  auto member = [](const Json& v, const char* key) {
    auto it = v.find(key);
    return it == v.end() ? Json() : *it;
  };
  return SameJson(member(a, "summary"), member(b, "summary")) &&
         SameJson(member(a, "representations"), member(b, "representations")) &&
         member(a, "default-catalog") == member(b, "default-catalog") &&
         member(a, "default-namespace") == member(b, "default-namespace") &&
         IntOr(a, "schema-id", -2) == IntOr(b, "schema-id", -2);
}

std::string SetText(const std::set<std::string>& s) {
  return "[" + Join(std::vector<std::string>(s.begin(), s.end()), ", ") + "]";
}

class ViewBuilder {
 public:
  // `base` is nullptr for a new view.
  explicit ViewBuilder(const Json* base, int64_t now_ms) : now_ms_(now_ms) {
    if (base == nullptr) {
      versions_ = Json::array();
      schemas_ = Json::array();
      history_ = Json::array();
      properties_ = Json::object();
      return;
    }
    const Json& b = *base;
    if (b.contains("view-uuid") && b["view-uuid"].is_string())
      uuid_ = b["view-uuid"].get<std::string>();
    format_version_ = IntOr(b, "format-version", 1);
    if (b.contains("location") && b["location"].is_string()) {
      location_ = b["location"].get<std::string>();
    }
    properties_ =
        b.contains("properties") && b["properties"].is_object() ? b["properties"] : Json::object();
    schemas_ = b.contains("schemas") && b["schemas"].is_array() ? b["schemas"] : Json::array();
    current_version_id_ = IntOr(b, "current-version-id", 0);
    versions_ = b.contains("versions") && b["versions"].is_array() ? b["versions"] : Json::array();
    history_ =
        b.contains("version-log") && b["version-log"].is_array() ? b["version-log"] : Json::array();
    if (const Json* v = VersionById(current_version_id_)) previous_version_ = *v;
  }

  Status Apply(const ViewUpdate& update);
  Status AddSchema(const Json& schema_node, int* id) {
    CAIRN_ASSIGN_OR_RETURN(Json schema, ParseSchemaJson(schema_node));
    return AddParsedSchema(schema, id);
  }
  /// `schema` as ParseSchemaJson returns it.
  Status AddParsedSchema(const Json& schema, int* id);
  Status AddVersion(Json version, int* id);
  Status SetCurrentVersion(int version_id);
  Status SetLocation(const std::string& location) {
    if (location_ && *location_ == location) return Ok();
    location_ = location;
    ++changes_;
    return Ok();
  }
  void SetProperties(const Json& updates) {
    if (updates.empty()) return;
    for (const auto& [k, v] : updates.items()) properties_[k] = v;
    ++changes_;
  }
  void AssignRandomUuid() { uuid_ = RandomUuid(); }
  Result<Json> Build();
  int changes() const { return changes_; }

 private:
  const Json* VersionById(int id) const {
    for (const auto& v : versions_) {
      if (IntOr(v, "version-id", -2) == id) return &v;
    }
    return nullptr;
  }
  bool HasSchema(int id) const {
    return std::any_of(schemas_.begin(), schemas_.end(),
                       [&](const Json& s) { return IntOr(s, "schema-id", -2) == id; });
  }

  int64_t now_ms_;
  std::optional<std::string> uuid_;
  int format_version_ = 1;
  std::optional<std::string> location_;
  Json properties_;
  Json schemas_;
  int current_version_id_ = 0;
  Json versions_;
  Json history_;
  std::optional<Json> previous_version_;
  int changes_ = 0;
  std::optional<int> last_added_version_;
  std::optional<int> last_added_schema_;
  std::vector<int> added_version_ids_;
  std::optional<Json> history_entry_;
};

Status ViewBuilder::AddParsedSchema(const Json& schema, int* id) {
  int new_id = 0;
  for (const auto& s : schemas_) {
    const int existing = IntOr(s, "schema-id", 0);
    if (SameSchemaJson(s, schema)) {
      *id = existing;
      return Ok();  // existed or was already added in this builder
    }
    if (existing >= new_id) new_id = existing + 1;
  }
  Json out = Json::object();
  out["type"] = "struct";
  out["schema-id"] = new_id;
  if (schema.contains("identifier-field-ids"))
    out["identifier-field-ids"] = schema["identifier-field-ids"];
  out["fields"] = schema["fields"];
  schemas_.push_back(std::move(out));
  last_added_schema_ = new_id;
  ++changes_;
  *id = new_id;
  return Ok();
}

Status ViewBuilder::AddVersion(Json version, int* id) {
  int new_id = version["version-id"].get<int>();
  for (const auto& v : versions_) {
    const int existing = IntOr(v, "version-id", 0);
    if (SameViewVersion(v, version)) {
      new_id = existing;
      break;
    }
    if (existing >= new_id) new_id = existing + 1;
  }
  version["version-id"] = new_id;
  *id = new_id;
  if (VersionById(new_id) != nullptr) {
    const bool added_here = std::find(added_version_ids_.begin(), added_version_ids_.end(),
                                      new_id) != added_version_ids_.end();
    last_added_version_ = added_here ? std::optional<int>(new_id) : std::nullopt;
    return Ok();
  }
  if (version["schema-id"].get<int>() == kLastAdded) {
    if (!last_added_schema_) {
      return InvalidArgument("Cannot set last added schema: no schema has been added");
    }
    version["schema-id"] = *last_added_schema_;
  }
  if (!HasSchema(version["schema-id"].get<int>())) {
    return InvalidArgument("Cannot add version with unknown schema: {}",
                           Text(version["schema-id"]));
  }
  CAIRN_RETURN_IF_ERROR(CheckDialectsUnique(version));
  versions_.push_back(std::move(version));
  added_version_ids_.push_back(new_id);
  last_added_version_ = new_id;
  ++changes_;
  return Ok();
}

Status ViewBuilder::SetCurrentVersion(int version_id) {
  if (version_id == kLastAdded) {
    if (!last_added_version_) {
      return InvalidArgument("Cannot set last version id: no current version id has been set");
    }
    return SetCurrentVersion(*last_added_version_);
  }
  if (current_version_id_ == version_id) return Ok();
  const Json* version = VersionById(version_id);
  if (version == nullptr) {
    return InvalidArgument("Cannot set current version to unknown version: {}", version_id);
  }
  current_version_id_ = version_id;
  ++changes_;
  // A version added in this call is logged at its own time; re-activating an old one at now.
  const bool added_here = std::find(added_version_ids_.begin(), added_version_ids_.end(),
                                    version_id) != added_version_ids_.end();
  Json entry = Json::object();
  entry["timestamp-ms"] = added_here ? (*version)["timestamp-ms"].get<int64_t>() : now_ms_;
  entry["version-id"] = version_id;
  history_entry_ = std::move(entry);
  return Ok();
}

Status ViewBuilder::Apply(const ViewUpdate& update) {
  return std::visit(
      [&](const auto& u) -> Status {
        using U = std::decay_t<decltype(u)>;
        if constexpr (std::is_same_v<U, update::AssignUuid>) {
          if (uuid_ && *uuid_ != u.uuid) return InvalidArgument("Cannot reassign uuid");
          if (!uuid_) {
            uuid_ = u.uuid;
            ++changes_;
          }
          return Ok();
        } else if constexpr (std::is_same_v<U, update::UpgradeFormatVersion>) {
          if (u.format_version < format_version_) {
            return InvalidArgument("Cannot downgrade v{} view to v{}", format_version_,
                                   u.format_version);
          }
          if (u.format_version != format_version_) {
            format_version_ = u.format_version;
            ++changes_;
          }
          return Ok();
        } else if constexpr (std::is_same_v<U, update::AddSchema>) {
          int id = 0;
          return AddParsedSchema(u.schema, &id);
        } else if constexpr (std::is_same_v<U, update::SetLocation>) {
          return SetLocation(u.location);
        } else if constexpr (std::is_same_v<U, update::SetProperties>) {
          Json updates = Json::object();
          for (const auto& [k, v] : u.updates) updates[k] = v;
          SetProperties(updates);
          return Ok();
        } else if constexpr (std::is_same_v<U, update::RemoveProperties>) {
          if (u.removals.empty()) return Ok();
          for (const auto& k : u.removals) properties_.erase(k);
          ++changes_;
          return Ok();
        } else if constexpr (std::is_same_v<U, update::AddViewVersion>) {
          int id = 0;
          return AddVersion(u.version, &id);
        } else {
          static_assert(std::is_same_v<U, update::SetCurrentViewVersion>);
          return SetCurrentVersion(u.version_id);
        }
      },
      update);
}

Result<Json> ViewBuilder::Build() {
  if (!location_) return InvalidArgument("Invalid location: null");
  if (versions_.empty()) return InvalidArgument("Invalid view: no versions were added");
  if (format_version_ <= 0 || format_version_ > kSupportedViewFormatVersion) {
    return InvalidArgument("Unsupported format version: {}", format_version_);
  }
  if (history_entry_) history_.push_back(*history_entry_);
  const Json* current = VersionById(current_version_id_);
  if (current == nullptr) {
    return InvalidArgument("Cannot find current version {} in view versions", current_version_id_);
  }
  auto prop = [&](const char* key) -> std::optional<std::string> {
    auto it = properties_.find(key);
    if (it == properties_.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  const bool drop_allowed =
      EqualsIgnoreCase(prop(kViewReplaceDropDialectAllowed).value_or(""), "true");
  if (previous_version_ && !drop_allowed) {
    const std::set<std::string> before = SqlDialects(*previous_version_);
    const std::set<std::string> after = SqlDialects(*current);
    if (!std::includes(after.begin(), after.end(), before.begin(), before.end())) {
      return InvalidArgument(
          "Cannot replace view due to loss of view dialects ({}=false):\nPrevious dialects: "
          "{}\nNew dialects: {}",
          kViewReplaceDropDialectAllowed, SetText(before), SetText(after));
    }
  }
  int history_size = kViewVersionHistorySizeDefault;
  if (auto v = prop(kViewVersionHistorySizeProperty)) {
    auto parsed = ParseInt64(Trim(*v));
    if (!parsed || *parsed > 2'147'483'647 || *parsed < -2'147'483'647) {
      return InvalidArgument("Invalid value for {}: {}", kViewVersionHistorySizeProperty, *v);
    }
    history_size = static_cast<int>(*parsed);
  }
  if (history_size <= 0) {
    return InvalidArgument("{} must be positive but was {}", kViewVersionHistorySizeProperty,
                           history_size);
  }
  std::set<int> must_keep(added_version_ids_.begin(), added_version_ids_.end());
  must_keep.insert(current_version_id_);
  const size_t keep = std::max<size_t>(must_keep.size(), static_cast<size_t>(history_size));
  if (versions_.size() > keep) {
    // expireVersions: the current version first, then the highest ids.
    std::vector<int> ids;
    for (const auto& v : versions_) ids.push_back(v["version-id"].get<int>());
    std::sort(ids.rbegin(), ids.rend());
    Json retained = Json::array({*current});
    std::set<int> retained_ids = {current_version_id_};
    for (size_t i = 0; i < keep && i < ids.size(); ++i) {
      if (retained.size() == keep) break;
      if (ids[i] != current_version_id_) {
        retained.push_back(*VersionById(ids[i]));
        retained_ids.insert(ids[i]);
      }
    }
    Json history = Json::array();
    for (const auto& e : history_) {
      if (retained_ids.count(IntOr(e, "version-id", -2)) > 0) {
        history.push_back(e);
      } else {
        history = Json::array();  // clear history past any unknown version
      }
    }
    versions_ = std::move(retained);
    history_ = std::move(history);
  }

  Json md = Json::object();
  md["view-uuid"] = uuid_ ? *uuid_ : RandomUuid();
  md["format-version"] = format_version_;
  md["location"] = *location_;
  if (!properties_.empty()) md["properties"] = properties_;
  md["schemas"] = schemas_;
  md["current-version-id"] = current_version_id_;
  md["versions"] = versions_;
  md["version-log"] = history_;
  return md;
}

}  // namespace

namespace {

Result<Json> NewViewMetadataUnguarded(const Json& create_view_request, const std::string& location,
                                      int64_t now_ms) {
  const Json& req = create_view_request;
  if (!req.is_object()) {
    return InvalidArgument("Cannot parse create view request from non-object: {}", Text(req));
  }
  CAIRN_ASSIGN_OR_RETURN(std::string name, JsonGetString(req, "name"));
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> req_location,
                         JsonGetStringOrNull(req, "location"));
  CAIRN_ASSIGN_OR_RETURN(const Json* schema, JsonGetField(req, "schema"));
  CAIRN_ASSIGN_OR_RETURN(const Json* version_node, JsonGetField(req, "view-version"));
  CAIRN_ASSIGN_OR_RETURN(Json version, ParseViewVersion(*version_node));
  Json properties = Json::object();
  if (req.contains("properties") && !req["properties"].is_null()) {
    CAIRN_ASSIGN_OR_RETURN(properties, OrderedStringMap(req, "properties"));
  }
  std::set<std::string> unsupported;
  for (const auto& r : version["representations"]) {
    if (r.value("type", "") != "sql") unsupported.insert(r.value("type", ""));
  }
  if (!unsupported.empty()) {
    return InvalidArgument("Found unsupported view representations: {}", SetText(unsupported));
  }
  if (version["representations"].empty()) {
    return InvalidArgument("Cannot create view without specifying a query");
  }
  std::string view_location = location.empty() ? req_location.value_or("") : location;
  while (view_location.size() > 1 && view_location.back() == '/') view_location.pop_back();
  if (view_location.empty()) return InvalidArgument("Invalid view location: {} has none", name);

  ViewBuilder builder(nullptr, now_ms);
  builder.SetProperties(properties);
  CAIRN_RETURN_IF_ERROR(builder.SetLocation(view_location));
  int schema_id = 0;
  CAIRN_RETURN_IF_ERROR(builder.AddSchema(*schema, &schema_id));
  version["version-id"] = 1;
  version["schema-id"] = schema_id;
  version["timestamp-ms"] = now_ms;
  int version_id = 0;
  CAIRN_RETURN_IF_ERROR(builder.AddVersion(std::move(version), &version_id));
  CAIRN_RETURN_IF_ERROR(builder.SetCurrentVersion(version_id));
  builder.AssignRandomUuid();
  return builder.Build();
}

}  // namespace

Result<Json> NewViewMetadata(const Json& create_view_request, const std::string& location,
                             int64_t now_ms) {
  return CatchJsonErrors("Invalid create view request", [&] {
    return NewViewMetadataUnguarded(create_view_request, location, now_ms);
  });
}

namespace {

Status CheckViewRequirementsUnguarded(const Json* base, const Json& requirements) {
  CAIRN_ASSIGN_OR_RETURN(std::vector<Requirement> reqs,
                         ParseRequirements(requirements, EntityKind::kView));
  if (base == nullptr) return NotFound(EntityKind::kView, "View does not exist");
  for (const auto& r : reqs) {
    if (r.type() != RequirementType::kAssertViewUuid) {
      return InvalidArgument("Cannot validate {} against a view", r.kind->java_class);
    }
    const std::string actual = base->contains("view-uuid") && (*base)["view-uuid"].is_string()
                                   ? (*base)["view-uuid"].get<std::string>()
                                   : "null";
    if (!EqualsIgnoreCase(actual, r.uuid)) {
      return ViewConflict(fmt::format(
          "Requirement failed: view UUID does not match: expected {} != {}", actual, r.uuid));
    }
  }
  return Ok();
}

}  // namespace

Result<Json> ParseViewVersion(const Json& node) {
  if (!node.is_object()) {
    return InvalidArgument("Cannot parse view version from a non-object: {}", Text(node));
  }
  CAIRN_ASSIGN_OR_RETURN(int version_id, JsonGetInt(node, "version-id"));
  CAIRN_ASSIGN_OR_RETURN(int schema_id, JsonGetInt(node, "schema-id"));
  CAIRN_ASSIGN_OR_RETURN(int64_t timestamp, JsonGetLong(node, "timestamp-ms"));
  CAIRN_ASSIGN_OR_RETURN(Json summary, OrderedStringMap(node, "summary"));
  CAIRN_ASSIGN_OR_RETURN(const Json* reprs, JsonGetField(node, "representations"));
  if (!reprs->is_array()) {
    return InvalidArgument("Cannot parse representations from non-array: {}", Text(*reprs));
  }
  Json representations = Json::array();
  for (const auto& r : *reprs) {
    if (!r.is_object()) {
      return InvalidArgument("Cannot parse view representation from non-object: {}", Text(r));
    }
    CAIRN_ASSIGN_OR_RETURN(std::string type, JsonGetString(r, "type"));
    if (ToLower(type) == "sql") {
      Json sql = Json::object();
      sql["type"] = "sql";
      CAIRN_ASSIGN_OR_RETURN(sql["sql"], JsonGetString(r, "sql"));
      CAIRN_ASSIGN_OR_RETURN(sql["dialect"], JsonGetString(r, "dialect"));
      representations.push_back(std::move(sql));
    } else {
      representations.push_back(r);  // UnknownViewRepresentation: kept as written
    }
  }
  CAIRN_ASSIGN_OR_RETURN(std::optional<std::string> default_catalog,
                         JsonGetStringOrNull(node, "default-catalog"));
  CAIRN_ASSIGN_OR_RETURN(std::vector<std::string> default_namespace,
                         JsonGetStringList(node, "default-namespace"));
  Json out = Json::object();
  out["version-id"] = version_id;
  out["timestamp-ms"] = timestamp;
  out["schema-id"] = schema_id;
  out["summary"] = std::move(summary);
  if (default_catalog) out["default-catalog"] = *default_catalog;
  out["default-namespace"] = default_namespace;
  out["representations"] = std::move(representations);
  return out;
}

Status CheckViewRequirements(const Json* base, const Json& requirements) {
  return CatchJsonErrors("Invalid view metadata or commit requirements",
                         [&] { return CheckViewRequirementsUnguarded(base, requirements); });
}

namespace {

Result<Json> ApplyViewUpdatesUnguarded(const Json& base, const Json& updates, int64_t now_ms,
                                       bool* changed) {
  if (changed != nullptr) *changed = false;
  if (!base.is_object()) return InvalidArgument("Invalid view metadata: not a JSON object");
  // Parsed once, every update, before any is applied (as a table commit's are).
  CAIRN_ASSIGN_OR_RETURN(std::vector<ViewUpdate> parsed, ParseViewUpdates(updates));
  ViewBuilder builder(&base, now_ms);
  for (const auto& u : parsed) CAIRN_RETURN_IF_ERROR(builder.Apply(u));
  if (builder.changes() == 0) return base;
  CAIRN_ASSIGN_OR_RETURN(Json out, builder.Build());
  if (changed != nullptr) *changed = true;
  return out;
}

}  // namespace

Result<Json> ApplyViewUpdates(const Json& base, const Json& updates, int64_t now_ms,
                              bool* changed) {
  return CatchJsonErrors("Invalid view metadata or commit updates",
                         [&] { return ApplyViewUpdatesUnguarded(base, updates, now_ms, changed); });
}

}  // namespace cairn::iceberg
