// SPDX-License-Identifier: Apache-2.0
#include "api/gravitino/serde.h"

#include "common/util.h"
#include "json/json_util.h"

namespace cairn::api::gravitino {

using model::TypeKind;

namespace {

using namespace model::json_fields;  // NOLINT(google-build-using-namespace)

}  // namespace

Result<Json> ParseBody(const std::string& body) {
  CAIRN_ASSIGN_OR_RETURN(
      Json j, json::ParseJson(body, "Malformed json request: the body is not valid JSON"));
  if (!j.is_object())
    return InvalidArgument("Malformed json request: the body must be a JSON object");
  return j;
}

Result<std::optional<std::string>> OptionalString(const Json& j, const char* field) {
  const Json* v = Find(j, field);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) return WrongType(field, "a string", *v);
  return std::optional<std::string>(v->get<std::string>());
}

Result<std::string> RequiredString(const Json& j, const char* field) {
  const Json* v = Find(j, field);
  if (v == nullptr) return InvalidArgument("Field '{}' is required", field);
  if (!v->is_string()) return WrongType(field, "a string", *v);
  if (Trim(v->get<std::string>()).empty())
    return InvalidArgument("Field '{}' must not be blank", field);
  return v->get<std::string>();
}

Result<model::Properties> PropertiesFromJson(const Json& j, const char* field) {
  model::Properties out;
  const Json* v = Find(j, field);
  if (v == nullptr) return out;
  if (!v->is_object()) return WrongType(field, "an object of string values", *v);
  for (const auto& [k, val] : v->items()) {
    if (!val.is_string()) {
      return InvalidArgument("Field '{}.{}' must be a string, got {}", field, k, TypeName(val));
    }
    out[k] = val.get<std::string>();
  }
  return out;
}

Result<std::vector<std::string>> NameListFromJson(const Json& j, const char* field) {
  std::vector<std::string> out;
  const Json* v = Find(j, field);
  if (v == nullptr) return out;
  if (!v->is_array()) return WrongType(field, "an array of names", *v);
  for (const auto& name : *v) {
    if (!name.is_string() || Trim(name.get_ref<const std::string&>()).empty()) {
      return InvalidArgument("Field '{}' must not contain null or empty names", field);
    }
    out.push_back(name.get<std::string>());
  }
  return out;
}

bool IsNullOrAbsent(const Json& j, const char* field) { return Find(j, field) == nullptr; }

// ---- partitioning, distribution, sort orders, indexes ----

Result<model::Transform> TransformFromJson(const Json& j, const std::string& field) {
  if (!j.is_object()) return WrongType(field, "a partitioning object", j);
  model::Transform t;
  CAIRN_ASSIGN_OR_RETURN(t.strategy, StringIn(j, "strategy", field));
  t.strategy = ToLower(t.strategy);
  const std::string& s = t.strategy;
  if (s == "identity" || s == "year" || s == "month" || s == "day" || s == "hour") {
    CAIRN_ASSIGN_OR_RETURN(t.field_name, FieldNameFromJson(j, "fieldName", field));
  } else if (s == "bucket") {
    CAIRN_ASSIGN_OR_RETURN(t.num_buckets, OptionalInt(j, "numBuckets", 0, field));
    if (t.num_buckets <= 0)
      return InvalidArgument("Field '{}.numBuckets' must be a positive integer", field);
    CAIRN_ASSIGN_OR_RETURN(t.field_names, FieldNamesFromJson(j, "fieldNames", field));
  } else if (s == "truncate") {
    CAIRN_ASSIGN_OR_RETURN(t.width, OptionalInt(j, "width", 0, field));
    if (t.width <= 0) return InvalidArgument("Field '{}.width' must be a positive integer", field);
    CAIRN_ASSIGN_OR_RETURN(t.field_name, FieldNameFromJson(j, "fieldName", field));
  } else if (s == "list") {
    CAIRN_ASSIGN_OR_RETURN(t.field_names, FieldNamesFromJson(j, "fieldNames", field));
    if (const Json* a = Find(j, "assignments"); a != nullptr) t.assignments_json = a->dump();
  } else if (s == "range") {
    CAIRN_ASSIGN_OR_RETURN(t.field_name, FieldNameFromJson(j, "fieldName", field));
    if (const Json* a = Find(j, "assignments"); a != nullptr) t.assignments_json = a->dump();
  } else if (s == "function") {
    CAIRN_ASSIGN_OR_RETURN(t.func_name, StringIn(j, "funcName", field));
    CAIRN_ASSIGN_OR_RETURN(t.args, ExpressionsFromJson(j, "funcArgs", field));
  } else {
    return InvalidArgument("Field '{}.strategy' has an unknown partitioning strategy '{}'", field,
                           s);
  }
  return t;
}

OrderedJson TransformToJson(const model::Transform& t) {
  OrderedJson o{{"strategy", t.strategy}};
  const std::string& s = t.strategy;
  if (s == "bucket") {
    o["numBuckets"] = t.num_buckets;
    OrderedJson names = OrderedJson::array();
    for (const auto& f : t.field_names) names.push_back(FieldNameToJson(f));
    o["fieldNames"] = std::move(names);
  } else if (s == "truncate") {
    o["width"] = t.width;
    o["fieldName"] = FieldNameToJson(t.field_name);
  } else if (s == "list") {
    OrderedJson names = OrderedJson::array();
    for (const auto& f : t.field_names) names.push_back(FieldNameToJson(f));
    o["fieldNames"] = std::move(names);
    o["assignments"] = t.assignments_json.empty()
                           ? OrderedJson::array()
                           : json::ParseOrderedJsonOrDiscarded(t.assignments_json);
  } else if (s == "range") {
    o["fieldName"] = FieldNameToJson(t.field_name);
    o["assignments"] = t.assignments_json.empty()
                           ? OrderedJson::array()
                           : json::ParseOrderedJsonOrDiscarded(t.assignments_json);
  } else if (s == "function") {
    o["funcName"] = t.func_name;
    OrderedJson args = OrderedJson::array();
    for (const auto& a : t.args) args.push_back(ExpressionToJson(a));
    o["funcArgs"] = std::move(args);
  } else {
    o["fieldName"] = FieldNameToJson(t.field_name);
  }
  return o;
}

Result<model::Distribution> DistributionFromJson(const Json& j, const std::string& field) {
  model::Distribution d;
  if (j.is_null()) return d;
  if (!j.is_object()) return WrongType(field, "a distribution object", j);
  const Json* s = Find(j, "strategy");
  if (s != nullptr) {
    if (!s->is_string()) return WrongType(field + ".strategy", "a string", *s);
    d.strategy = ToLower(s->get<std::string>());
  }
  if (d.strategy == "random") d.strategy = "even";
  if (d.strategy != "none" && d.strategy != "hash" && d.strategy != "range" &&
      d.strategy != "even") {
    return InvalidArgument("Field '{}.strategy' has an unknown distribution strategy '{}'", field,
                           d.strategy);
  }
  CAIRN_ASSIGN_OR_RETURN(d.number, OptionalInt(j, "number", 0, field));
  if (d.number < 0) return InvalidArgument("Field '{}.number' must not be negative", field);
  CAIRN_ASSIGN_OR_RETURN(d.args, ExpressionsFromJson(j, "funcArgs", field));
  return d;
}

OrderedJson DistributionToJson(const model::Distribution& d) {
  OrderedJson args = OrderedJson::array();
  for (const auto& a : d.args) args.push_back(ExpressionToJson(a));
  return OrderedJson{{"strategy", d.strategy}, {"number", d.number}, {"funcArgs", std::move(args)}};
}

Result<model::SortOrder> SortOrderFromJson(const Json& j, const std::string& field) {
  if (!j.is_object()) return WrongType(field, "a sort order object", j);
  model::SortOrder s;
  const Json* term = Find(j, "sortTerm");
  if (term == nullptr) return InvalidArgument("Field '{}.sortTerm' is required", field);
  CAIRN_ASSIGN_OR_RETURN(s.term, ExpressionFromJson(*term, field + ".sortTerm"));
  const Json* dir = Find(j, "direction");
  if (dir != nullptr) {
    if (!dir->is_string()) return WrongType(field + ".direction", "a string", *dir);
    s.direction = ToLower(dir->get<std::string>());
    if (s.direction == "ascending") s.direction = "asc";
    if (s.direction == "descending") s.direction = "desc";
    if (s.direction != "asc" && s.direction != "desc") {
      return InvalidArgument("Field '{}.direction' must be 'asc' or 'desc', got '{}'", field,
                             s.direction);
    }
  }
  s.null_ordering = s.direction == "asc" ? "nulls_first" : "nulls_last";
  const Json* nulls = Find(j, "nullOrdering");
  if (nulls != nullptr) {
    if (!nulls->is_string()) return WrongType(field + ".nullOrdering", "a string", *nulls);
    s.null_ordering = ToLower(nulls->get<std::string>());
    if (s.null_ordering != "nulls_first" && s.null_ordering != "nulls_last") {
      return InvalidArgument(
          "Field '{}.nullOrdering' must be 'nulls_first' or 'nulls_last', got '{}'", field,
          s.null_ordering);
    }
  }
  return s;
}

OrderedJson SortOrderToJson(const model::SortOrder& s) {
  return OrderedJson{{"sortTerm", ExpressionToJson(s.term)},
                     {"direction", s.direction},
                     {"nullOrdering", s.null_ordering}};
}

Result<model::Index> IndexFromJson(const Json& j, const std::string& field) {
  if (!j.is_object()) return WrongType(field, "an index object", j);
  model::Index i;
  CAIRN_ASSIGN_OR_RETURN(i.index_type, StringIn(j, "indexType", field));
  i.index_type = ToUpper(i.index_type);
  static const char* kTypes[] = {"PRIMARY_KEY",
                                 "UNIQUE_KEY",
                                 "SCALAR",
                                 "BTREE",
                                 "BITMAP",
                                 "LABEL_LIST",
                                 "INVERTED",
                                 "VECTOR",
                                 "IVF_FLAT",
                                 "IVF_SQ",
                                 "IVF_PQ",
                                 "IVF_HNSW_SQ",
                                 "IVF_HNSW_PQ",
                                 "DATA_SKIPPING_MINMAX",
                                 "DATA_SKIPPING_BLOOM_FILTER",
                                 "DATA_SKIPPING_SET"};
  bool known = false;
  for (const char* t : kTypes) known = known || i.index_type == t;
  if (!known)
    return InvalidArgument("Field '{}.indexType' has an unknown index type '{}'", field,
                           i.index_type);
  const Json* name = Find(j, "name");
  if (name != nullptr) {
    if (!name->is_string()) return WrongType(field + ".name", "a string", *name);
    i.name = name->get<std::string>();
  }
  CAIRN_ASSIGN_OR_RETURN(i.field_names, FieldNamesFromJson(j, "fieldNames", field));
  if (i.field_names.empty())
    return InvalidArgument("Field '{}.fieldNames' must not be empty", field);
  const Json* props = Find(j, "properties");
  if (props != nullptr) {
    Json wrapper{{"p", *props}};
    CAIRN_ASSIGN_OR_RETURN(i.properties, PropertiesFromJson(wrapper, "p"));
  }
  return i;
}

OrderedJson IndexToJson(const model::Index& i) {
  OrderedJson o{{"indexType", i.index_type}};
  if (i.name) o["name"] = *i.name;
  OrderedJson names = OrderedJson::array();
  for (const auto& f : i.field_names) names.push_back(FieldNameToJson(f));
  o["fieldNames"] = std::move(names);
  OrderedJson props = OrderedJson::object();
  for (const auto& [k, v] : i.properties) props[k] = v;
  o["properties"] = std::move(props);
  return o;
}

OrderedJson AuditToJson(const model::Audit& a) {
  OrderedJson o;
  o["creator"] = a.creator;
  o["createTime"] = FormatIsoMillis(a.create_time);
  if (a.last_modifier) o["lastModifier"] = *a.last_modifier;
  if (a.last_modified_time) o["lastModifiedTime"] = FormatIsoMillis(*a.last_modified_time);
  return o;
}

namespace {

OrderedJson PropertiesToJson(const model::Properties& p) {
  OrderedJson o = OrderedJson::object();
  for (const auto& [k, v] : p) o[k] = v;
  return o;
}

template <typename T, typename F>
Result<std::vector<T>> ArrayOf(const Json& j, const char* field, F parse) {
  std::vector<T> out;
  const Json* v = Find(j, field);
  if (v == nullptr) return out;
  if (!v->is_array()) return WrongType(field, "an array", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    CAIRN_ASSIGN_OR_RETURN(T item, parse((*v)[i], fmt::format("{}[{}]", field, i)));
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace

Result<model::Table> TableFromJson(const Json& j) {
  model::Table t;
  CAIRN_ASSIGN_OR_RETURN(t.name, RequiredString(j, "name"));
  CAIRN_ASSIGN_OR_RETURN(t.comment, OptionalString(j, "comment"));
  const Json* cols = Find(j, "columns");
  if (cols == nullptr) return InvalidArgument("Field 'columns' is required");
  if (!cols->is_array()) return WrongType("columns", "an array", *cols);
  if (cols->empty()) return InvalidArgument("Field 'columns' must not be empty");
  CAIRN_ASSIGN_OR_RETURN(t.columns, ArrayOf<model::Column>(j, "columns", ColumnFromJson));
  CAIRN_ASSIGN_OR_RETURN(t.properties, PropertiesFromJson(j, "properties"));
  CAIRN_ASSIGN_OR_RETURN(t.partitioning,
                         ArrayOf<model::Transform>(j, "partitioning", TransformFromJson));
  if (const Json* d = Find(j, "distribution"); d != nullptr) {
    CAIRN_ASSIGN_OR_RETURN(t.distribution, DistributionFromJson(*d, "distribution"));
  }
  CAIRN_ASSIGN_OR_RETURN(t.sort_orders,
                         ArrayOf<model::SortOrder>(j, "sortOrders", SortOrderFromJson));
  CAIRN_ASSIGN_OR_RETURN(t.indexes, ArrayOf<model::Index>(j, "indexes", IndexFromJson));
  return t;
}

OrderedJson TableToJson(const model::Table& t) {
  OrderedJson o;
  o["name"] = t.name;
  if (t.comment) o["comment"] = *t.comment;
  OrderedJson cols = OrderedJson::array();
  for (const auto& c : t.columns) cols.push_back(ColumnToJson(c));
  o["columns"] = std::move(cols);
  o["properties"] = PropertiesToJson(t.properties);
  o["audit"] = AuditToJson(t.audit);
  o["distribution"] = DistributionToJson(t.distribution);
  OrderedJson sorts = OrderedJson::array();
  for (const auto& s : t.sort_orders) sorts.push_back(SortOrderToJson(s));
  o["sortOrders"] = std::move(sorts);
  OrderedJson parts = OrderedJson::array();
  for (const auto& p : t.partitioning) parts.push_back(TransformToJson(p));
  o["partitioning"] = std::move(parts);
  OrderedJson idx = OrderedJson::array();
  for (const auto& i : t.indexes) idx.push_back(IndexToJson(i));
  o["indexes"] = std::move(idx);
  return o;
}

OrderedJson MetalakeToJson(const model::Metalake& m) {
  OrderedJson o;
  o["name"] = m.name;
  if (m.comment) o["comment"] = *m.comment;
  OrderedJson props = PropertiesToJson(m.properties);
  props["in-use"] = m.in_use ? "true" : "false";
  o["properties"] = std::move(props);
  o["audit"] = AuditToJson(m.audit);
  return o;
}

OrderedJson CatalogToJson(const model::Catalog& c) {
  OrderedJson o;
  o["name"] = c.name;
  o["type"] = model::CatalogTypeName(c.type);
  o["provider"] = c.provider;
  if (c.comment) o["comment"] = *c.comment;
  OrderedJson props = OrderedJson::object();
  for (const auto& [k, v] : c.properties) {
    // Secrets are stored but never returned, nor what Gravitino 1.3 marks hidden for JDBC
    // catalogs (jdbc-user, jdbc-password, jdbc.pool.test-on-borrow).
    if (k.find("password") != std::string::npos || k.find("secret") != std::string::npos ||
        k == "jdbc-user" || k == "jdbc.pool.test-on-borrow") {
      continue;
    }
    props[k] = v;
  }
  props["in-use"] = c.in_use ? "true" : "false";
  o["properties"] = std::move(props);
  o["audit"] = AuditToJson(c.audit);
  return o;
}

OrderedJson SchemaToJson(const model::Schema& s) {
  OrderedJson o;
  o["name"] = s.name;
  if (s.comment) o["comment"] = *s.comment;
  o["properties"] = PropertiesToJson(s.properties);
  o["audit"] = AuditToJson(s.audit);
  return o;
}

Result<model::Fileset> FilesetFromJson(const Json& j) {
  model::Fileset f;
  CAIRN_ASSIGN_OR_RETURN(f.name, RequiredString(j, "name"));
  CAIRN_ASSIGN_OR_RETURN(f.comment, OptionalString(j, "comment"));
  CAIRN_ASSIGN_OR_RETURN(auto type, OptionalString(j, "type"));
  if (type) {
    auto parsed = model::ParseFilesetType(*type);
    if (!parsed) {
      return InvalidArgument(
          "Field 'type' has an unknown fileset type '{}'; expected managed or external", *type);
    }
    f.type = *parsed;
  }
  CAIRN_ASSIGN_OR_RETURN(f.storage_locations, PropertiesFromJson(j, "storageLocations"));
  CAIRN_ASSIGN_OR_RETURN(auto location, OptionalString(j, "storageLocation"));
  if (location) {
    auto existing = f.storage_locations.find("unknown");
    if (existing != f.storage_locations.end() && existing->second != *location) {
      return InvalidArgument(
          "Fields 'storageLocation' and 'storageLocations.unknown' name different locations");
    }
    f.storage_locations["unknown"] = *location;
  }
  CAIRN_ASSIGN_OR_RETURN(f.properties, PropertiesFromJson(j, "properties"));
  return f;
}

OrderedJson FilesetToJson(const model::Fileset& f) {
  OrderedJson o;
  o["name"] = f.name;
  if (f.comment) o["comment"] = *f.comment;
  o["type"] = model::FilesetTypeName(f.type);
  if (auto it = f.storage_locations.find("unknown"); it != f.storage_locations.end()) {
    o["storageLocation"] = it->second;
  }
  o["storageLocations"] = PropertiesToJson(f.storage_locations);
  o["properties"] = PropertiesToJson(f.properties);
  o["audit"] = AuditToJson(f.audit);
  return o;
}

OrderedJson FileInfoToJson(const model::FileInfo& f) {
  return OrderedJson{{"name", f.name},
                     {"isDir", f.is_dir},
                     {"size", f.size},
                     {"lastModified", f.last_modified_ms},
                     {"path", f.path}};
}

// ---- update requests ----

namespace {

Result<const Json*> UpdatesArray(const Json& body) {
  const Json* updates = Find(body, "updates");
  if (updates == nullptr) return InvalidArgument("Field 'updates' is required");
  if (!updates->is_array()) return WrongType("updates", "an array", *updates);
  return updates;
}

Result<std::string> UpdateType(const Json& u, const std::string& field) {
  if (!u.is_object()) return WrongType(field, "an object", u);
  const Json* t = Find(u, "@type");
  if (t == nullptr) return InvalidArgument("Field '{}.@type' is required", field);
  if (!t->is_string()) return WrongType(field + ".@type", "a string", *t);
  return t->get<std::string>();
}

Result<model::ColumnPosition> PositionFromJson(const Json* p, const std::string& field) {
  model::ColumnPosition pos;
  if (p == nullptr) return pos;
  if (p->is_string()) {
    const std::string s = ToLower(p->get<std::string>());
    if (s == "first") {
      pos.kind = model::ColumnPosition::Kind::kFirst;
      return pos;
    }
    if (s == "default") return pos;
  } else if (p->is_object()) {
    const Json* after = Find(*p, "after");
    if (after != nullptr && after->is_string() && !after->get<std::string>().empty()) {
      pos.kind = model::ColumnPosition::Kind::kAfter;
      pos.after = after->get<std::string>();
      return pos;
    }
  }
  return InvalidArgument("Field '{}' must be \"first\", \"default\" or {{\"after\": \"<column>\"}}",
                         field);
}

}  // namespace

Result<std::vector<model::EntityChange>> EntityUpdatesFromJson(const Json& body, EntityKind kind) {
  CAIRN_ASSIGN_OR_RETURN(const Json* updates, UpdatesArray(body));
  std::vector<model::EntityChange> out;
  for (size_t i = 0; i < updates->size(); ++i) {
    const Json& u = (*updates)[i];
    const std::string field = fmt::format("updates[{}]", i);
    CAIRN_ASSIGN_OR_RETURN(std::string type, UpdateType(u, field));
    model::EntityChange c;
    const bool full = kind != EntityKind::kSchema;
    if (full && type == "rename") {
      c.kind = model::EntityChange::Kind::kRename;
      CAIRN_ASSIGN_OR_RETURN(c.new_name, StringIn(u, "newName", field));
    } else if (full && type == "updateComment") {
      c.kind = model::EntityChange::Kind::kUpdateComment;
      const Json* v = Find(u, "newComment");
      if (v != nullptr) {
        if (!v->is_string()) return WrongType(field + ".newComment", "a string", *v);
        c.comment = v->get<std::string>();
      }
    } else if (kind == EntityKind::kFileset && type == "removeComment") {
      c.kind = model::EntityChange::Kind::kUpdateComment;
    } else if (type == "setProperty") {
      c.kind = model::EntityChange::Kind::kSetProperty;
      CAIRN_ASSIGN_OR_RETURN(c.property, StringIn(u, "property", field));
      CAIRN_ASSIGN_OR_RETURN(c.value, StringIn(u, "value", field));
      if (c.property.empty())
        return InvalidArgument("Field '{}.property' must not be empty", field);
    } else if (type == "removeProperty") {
      c.kind = model::EntityChange::Kind::kRemoveProperty;
      CAIRN_ASSIGN_OR_RETURN(c.property, StringIn(u, "property", field));
    } else {
      return InvalidArgument("Field '{}.@type' has an unknown {} update type '{}'", field,
                             EntityKindName(kind), type);
    }
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::vector<model::TableChange>> TableUpdatesFromJson(const Json& body) {
  using K = model::TableChange::Kind;
  CAIRN_ASSIGN_OR_RETURN(const Json* updates, UpdatesArray(body));
  std::vector<model::TableChange> out;
  for (size_t i = 0; i < updates->size(); ++i) {
    const Json& u = (*updates)[i];
    const std::string field = fmt::format("updates[{}]", i);
    CAIRN_ASSIGN_OR_RETURN(std::string type, UpdateType(u, field));
    model::TableChange c;
    if (type == "rename") {
      c.kind = K::kRename;
      CAIRN_ASSIGN_OR_RETURN(c.new_name, StringIn(u, "newName", field));
      if (const Json* s = Find(u, "newSchemaName"); s != nullptr) {
        if (!s->is_string()) return WrongType(field + ".newSchemaName", "a string", *s);
        c.new_schema = s->get<std::string>();
      }
    } else if (type == "updateComment") {
      c.kind = K::kUpdateComment;
      if (const Json* v = Find(u, "newComment"); v != nullptr) {
        if (!v->is_string()) return WrongType(field + ".newComment", "a string", *v);
        c.comment = v->get<std::string>();
      }
    } else if (type == "setProperty") {
      c.kind = K::kSetProperty;
      CAIRN_ASSIGN_OR_RETURN(c.property, StringIn(u, "property", field));
      CAIRN_ASSIGN_OR_RETURN(c.value, StringIn(u, "value", field));
      if (c.property.empty())
        return InvalidArgument("Field '{}.property' must not be empty", field);
    } else if (type == "removeProperty") {
      c.kind = K::kRemoveProperty;
      CAIRN_ASSIGN_OR_RETURN(c.property, StringIn(u, "property", field));
    } else if (type == "addColumn") {
      c.kind = K::kAddColumn;
      CAIRN_ASSIGN_OR_RETURN(c.field_name, FieldNameFromJson(u, "fieldName", field));
      const Json* t = Find(u, "type");
      if (t == nullptr) return InvalidArgument("Field '{}.type' is required", field);
      CAIRN_ASSIGN_OR_RETURN(c.type, TypeFromJson(*t, field + ".type"));
      if (const Json* v = Find(u, "comment"); v != nullptr) {
        if (!v->is_string()) return WrongType(field + ".comment", "a string", *v);
        c.comment = v->get<std::string>();
      }
      CAIRN_ASSIGN_OR_RETURN(c.position,
                             PositionFromJson(Find(u, "position"), field + ".position"));
      CAIRN_ASSIGN_OR_RETURN(c.nullable, OptionalBool(u, "nullable", true, field));
      CAIRN_ASSIGN_OR_RETURN(c.auto_increment, OptionalBool(u, "autoIncrement", false, field));
      if (const Json* dv = Find(u, "defaultValue"); dv != nullptr) {
        CAIRN_ASSIGN_OR_RETURN(auto e, ExpressionFromJson(*dv, field + ".defaultValue"));
        c.default_value = std::move(e);
      }
    } else if (type == "renameColumn") {
      c.kind = K::kRenameColumn;
      CAIRN_ASSIGN_OR_RETURN(c.field_name, FieldNameFromJson(u, "oldFieldName", field));
      CAIRN_ASSIGN_OR_RETURN(c.new_name, StringIn(u, "newFieldName", field));
      if (c.new_name.empty())
        return InvalidArgument("Field '{}.newFieldName' must not be empty", field);
    } else if (type == "updateColumnDefaultValue") {
      c.kind = K::kUpdateColumnDefaultValue;
      CAIRN_ASSIGN_OR_RETURN(c.field_name, FieldNameFromJson(u, "fieldName", field));
      const Json* dv = Find(u, "newDefaultValue");
      if (dv == nullptr) return InvalidArgument("Field '{}.newDefaultValue' is required", field);
      CAIRN_ASSIGN_OR_RETURN(auto e, ExpressionFromJson(*dv, field + ".newDefaultValue"));
      c.default_value = std::move(e);
    } else if (type == "updateColumnType") {
      c.kind = K::kUpdateColumnType;
      CAIRN_ASSIGN_OR_RETURN(c.field_name, FieldNameFromJson(u, "fieldName", field));
      const Json* t = Find(u, "newType");
      if (t == nullptr) return InvalidArgument("Field '{}.newType' is required", field);
      CAIRN_ASSIGN_OR_RETURN(c.type, TypeFromJson(*t, field + ".newType"));
    } else if (type == "updateColumnComment") {
      c.kind = K::kUpdateColumnComment;
      CAIRN_ASSIGN_OR_RETURN(c.field_name, FieldNameFromJson(u, "fieldName", field));
      if (const Json* v = Find(u, "newComment"); v != nullptr) {
        if (!v->is_string()) return WrongType(field + ".newComment", "a string", *v);
        c.comment = v->get<std::string>();
      }
    } else if (type == "updateColumnPosition") {
      c.kind = K::kUpdateColumnPosition;
      CAIRN_ASSIGN_OR_RETURN(c.field_name, FieldNameFromJson(u, "fieldName", field));
      const Json* p = Find(u, "newPosition");
      if (p == nullptr) return InvalidArgument("Field '{}.newPosition' is required", field);
      CAIRN_ASSIGN_OR_RETURN(c.position, PositionFromJson(p, field + ".newPosition"));
    } else if (type == "updateColumnNullability") {
      c.kind = K::kUpdateColumnNullability;
      CAIRN_ASSIGN_OR_RETURN(c.field_name, FieldNameFromJson(u, "fieldName", field));
      const Json* v = Find(u, "nullable");
      if (v == nullptr) return InvalidArgument("Field '{}.nullable' is required", field);
      if (!v->is_boolean()) return WrongType(field + ".nullable", "a boolean", *v);
      c.nullable = v->get<bool>();
    } else if (type == "deleteColumn") {
      c.kind = K::kDeleteColumn;
      CAIRN_ASSIGN_OR_RETURN(c.field_name, FieldNameFromJson(u, "fieldName", field));
      CAIRN_ASSIGN_OR_RETURN(c.if_exists, OptionalBool(u, "ifExists", false, field));
    } else if (type == "updateColumnAutoIncrement") {
      c.kind = K::kUpdateColumnAutoIncrement;
      CAIRN_ASSIGN_OR_RETURN(c.field_name, FieldNameFromJson(u, "fieldName", field));
      const Json* v = Find(u, "autoIncrement");
      if (v == nullptr) return InvalidArgument("Field '{}.autoIncrement' is required", field);
      if (!v->is_boolean()) return WrongType(field + ".autoIncrement", "a boolean", *v);
      c.auto_increment = v->get<bool>();
    } else if (type == "addTableIndex") {
      c.kind = K::kAddIndex;
      const Json* idx = Find(u, "index");
      if (idx == nullptr) return InvalidArgument("Field '{}.index' is required", field);
      CAIRN_ASSIGN_OR_RETURN(c.index, IndexFromJson(*idx, field + ".index"));
    } else if (type == "deleteTableIndex") {
      c.kind = K::kDeleteIndex;
      CAIRN_ASSIGN_OR_RETURN(c.index_name, StringIn(u, "name", field));
      CAIRN_ASSIGN_OR_RETURN(c.if_exists, OptionalBool(u, "ifExists", false, field));
    } else {
      return InvalidArgument("Field '{}.@type' has an unknown table update type '{}'", field, type);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace cairn::api::gravitino
