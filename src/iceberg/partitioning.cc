// SPDX-License-Identifier: Apache-2.0
#include "iceberg/partitioning.h"

#include <set>

#include "common/util.h"

namespace cairn::iceberg {

namespace {

bool IsTimestamp(const std::string& t) {
  return t == "timestamp" || t == "timestamptz" || t == "timestamp_ns" || t == "timestamptz_ns";
}
bool StartsWith(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// Which source types Java's transforms accept (Transform.canTransform).
bool CanTransform(const std::string& transform, const Json& type) {
  if (!type.is_string()) return false;
  const std::string t = type.get<std::string>();
  if (transform == "identity") return t != "variant" && !StartsWith(t, "geo");
  if (transform == "year" || transform == "month" || transform == "day") {
    return t == "date" || IsTimestamp(t);
  }
  if (transform == "hour") return IsTimestamp(t);
  if (StartsWith(transform, "bucket")) {
    return t == "int" || t == "long" || StartsWith(t, "decimal") || t == "date" || t == "time" ||
           IsTimestamp(t) || t == "string" || t == "uuid" || StartsWith(t, "fixed") ||
           t == "binary";
  }
  if (StartsWith(transform, "truncate")) {
    return t == "int" || t == "long" || StartsWith(t, "decimal") || t == "string" || t == "binary";
  }
  return false;
}

std::string TypeText(const Json& type) {
  return type.is_string() ? type.get<std::string>() : type.value("type", "");
}

// Java's transform dedup name: the time transforms conflict with each other.
std::string DedupName(const std::string& transform) {
  if (transform == "year" || transform == "month" || transform == "day" || transform == "hour") {
    return "time";
  }
  return transform;
}

struct Source {
  int id = 0;
  model::FieldName path;
  const Json* field = nullptr;
};

Result<Source> ResolveSource(const Json& schema, const model::FieldName& path,
                             const std::string& transform) {
  const Json* f = path.empty() ? nullptr : FindStructField(schema, path);
  if (f == nullptr) {
    return InvalidArgument("Cannot find source column: {}", JoinFieldName(path));
  }
  if (!CanTransform(transform, (*f)["type"])) {
    return InvalidArgument("Invalid source type {} for transform: {}", TypeText((*f)["type"]),
                           transform);
  }
  return Source{(*f)["id"].get<int>(), path, f};
}

// Parses "bucket[16]" / "truncate[10]"; nullopt when `text` is not `name[N]`.
std::optional<int> TransformArg(const std::string& text, std::string_view name) {
  if (!StartsWith(text, name) || text.size() < name.size() + 3 || text[name.size()] != '[' ||
      text.back() != ']') {
    return std::nullopt;
  }
  auto v = ParseInt64(text.substr(name.size() + 1, text.size() - name.size() - 2));
  if (!v || *v <= 0 || *v > 2'147'483'647) return std::nullopt;
  return static_cast<int>(*v);
}

Result<model::FieldName> SourcePath(const Json& schema, const Json& field) {
  auto id = field.find("source-id");
  if (id == field.end() || !id->is_number_integer()) {
    // v3 multi-argument terms write "source-ids"; none of our transforms take several.
    return InvalidArgument("Unsupported partition or sort field without a single source-id");
  }
  auto path = FindFieldPath(schema, id->get<int>());
  if (!path) return InvalidArgument("Cannot find source column for id {}", id->get<int>());
  return *path;
}

Result<int> IntLiteral(const model::Expression& e, const std::string& func) {
  if (e.kind != model::Expression::Kind::kLiteral || !e.data_type ||
      e.data_type->kind != model::TypeKind::kInteger || !e.value) {
    return InvalidArgument("{} sort's first argument must be a integer literal",
                           func == "bucket" ? "Bucket" : "Truncate");
  }
  auto v = ParseInt64(*e.value);
  if (!v || *v <= 0 || *v > 2'147'483'647) {
    return InvalidArgument("Invalid {} argument: {}", func, *e.value);
  }
  return static_cast<int>(*v);
}

model::Expression FieldRef(model::FieldName path) {
  model::Expression e;
  e.kind = model::Expression::Kind::kField;
  e.field_name = std::move(path);
  return e;
}

model::Expression IntegerLiteral(int v) {
  model::Expression e;
  e.kind = model::Expression::Kind::kLiteral;
  e.data_type = model::MakePrimitive(model::TypeKind::kInteger);
  e.value = std::to_string(v);
  return e;
}

}  // namespace

Result<IcebergPartitionSpec> ToPartitionSpec(const std::vector<model::Transform>& transforms,
                                             const Json& schema, int spec_id,
                                             int last_partition_id) {
  Json fields = Json::array();
  std::set<std::string> names;
  std::set<std::pair<int, std::string>> dedup;
  int next_id = last_partition_id;
  for (const auto& t : transforms) {
    const std::string strategy = ToLower(t.strategy);
    model::FieldName path = t.field_name;
    std::string transform;
    std::string suffix;
    if (strategy == "identity") {
      transform = "identity";
    } else if (strategy == "year" || strategy == "month" || strategy == "day" ||
               strategy == "hour") {
      transform = strategy;
      suffix = "_" + strategy;
    } else if (strategy == "bucket") {
      if (t.field_names.size() != 1) {
        return InvalidArgument("Iceberg partition does not support multi fields");
      }
      if (t.num_buckets <= 0)
        return InvalidArgument("Invalid number of buckets: {}", t.num_buckets);
      path = t.field_names[0];
      transform = fmt::format("bucket[{}]", t.num_buckets);
      suffix = "_bucket";
    } else if (strategy == "truncate") {
      if (t.width <= 0) return InvalidArgument("Invalid truncate width: {}", t.width);
      transform = fmt::format("truncate[{}]", t.width);
      suffix = "_trunc";
    } else {
      return InvalidArgument("Transform is not supported: {}", t.strategy);
    }
    CAIRN_ASSIGN_OR_RETURN(Source source, ResolveSource(schema, path, transform));
    const std::string column = JoinFieldName(path);
    const std::string name = column + suffix;
    if (!dedup.emplace(source.id, DedupName(transform)).second) {
      return InvalidArgument("Cannot add redundant partition for column '{}' ({})", column,
                             transform);
    }
    if (!names.insert(name).second) {
      return InvalidArgument("Cannot use partition name more than once: {}", name);
    }
    if (transform != "identity" && FindStructField(schema, {name}) != nullptr) {
      return InvalidArgument("Cannot create partition from name that exists in schema: {}", name);
    }
    Json f = Json::object();
    f["name"] = name;
    f["transform"] = transform;
    f["source-id"] = source.id;
    f["field-id"] = ++next_id;
    fields.push_back(std::move(f));
  }
  Json spec = Json::object();
  spec["spec-id"] = spec_id;
  spec["fields"] = std::move(fields);
  return IcebergPartitionSpec{std::move(spec), next_id};
}

Result<std::vector<model::Transform>> FromPartitionSpec(const Json& spec, const Json& schema) {
  std::vector<model::Transform> out;
  auto fields = spec.find("fields");
  if (fields == spec.end() || !fields->is_array()) {
    return InvalidArgument("Invalid partition spec: missing fields");
  }
  for (const auto& f : *fields) {
    const std::string transform = ToLower(f.value("transform", ""));
    if (transform == "void") continue;  // Gravitino skips alwaysNull fields
    CAIRN_ASSIGN_OR_RETURN(model::FieldName path, SourcePath(schema, f));
    model::Transform t;
    if (transform == "identity" || transform == "year" || transform == "month" ||
        transform == "day" || transform == "hour") {
      t.strategy = transform;
      t.field_name = std::move(path);
    } else if (auto n = TransformArg(transform, "bucket")) {
      t.strategy = "bucket";
      t.field_names = {std::move(path)};
      t.num_buckets = *n;
    } else if (auto w = TransformArg(transform, "truncate")) {
      t.strategy = "truncate";
      t.field_name = std::move(path);
      t.width = *w;
    } else {
      return InvalidArgument("Unsupported partition transform: {}", transform);
    }
    out.push_back(std::move(t));
  }
  return out;
}

Result<Json> ToSortOrder(const std::vector<model::SortOrder>& sort_orders, const Json& schema,
                         int order_id) {
  Json fields = Json::array();
  for (const auto& so : sort_orders) {
    const model::Expression& term = so.term;
    model::FieldName path;
    std::string transform;
    if (term.kind == model::Expression::Kind::kField) {
      path = term.field_name;
      transform = "identity";
    } else if (term.kind == model::Expression::Kind::kFunction) {
      const std::string func = ToLower(term.func_name);
      if (func == "bucket" || func == "truncate") {
        if (term.args.size() != 2) {
          return InvalidArgument("{} sort should have 2 arguments",
                                 func == "bucket" ? "Bucket" : "Truncate");
        }
        CAIRN_ASSIGN_OR_RETURN(int n, IntLiteral(term.args[0], func));
        if (term.args[1].kind != model::Expression::Kind::kField) {
          return InvalidArgument("{} sort's second argument must be a field reference",
                                 func == "bucket" ? "Bucket" : "Truncate");
        }
        path = term.args[1].field_name;
        transform = fmt::format("{}[{}]", func, n);
      } else if (func == "year" || func == "month" || func == "day" || func == "hour") {
        if (term.args.size() != 1) {
          return InvalidArgument("Sort function {} should have 1 argument, but got {}", func,
                                 term.args.size());
        }
        if (term.args[0].kind != model::Expression::Kind::kField) {
          return InvalidArgument("Sort function {}'s argument should be a field reference", func);
        }
        path = term.args[0].field_name;
        transform = func;
      } else {
        return InvalidArgument("Sort function is not supported: {}", term.func_name);
      }
    } else {
      return InvalidArgument(
          "Sort expression is not supported: only field references and "
          "transform functions are allowed");
    }
    const std::string direction = ToLower(so.direction);
    if (direction != "asc" && direction != "desc") {
      return InvalidArgument("Invalid sort direction: {}", so.direction);
    }
    const std::string nulls = ToLower(so.null_ordering);
    if (nulls != "nulls_first" && nulls != "nulls_last") {
      return InvalidArgument("Invalid null ordering: {}", so.null_ordering);
    }
    CAIRN_ASSIGN_OR_RETURN(Source source, ResolveSource(schema, path, transform));
    Json f = Json::object();
    f["transform"] = transform;
    f["source-id"] = source.id;
    f["direction"] = direction;
    f["null-order"] = nulls == "nulls_first" ? "nulls-first" : "nulls-last";
    fields.push_back(std::move(f));
  }
  Json order = Json::object();
  order["order-id"] = fields.empty() ? 0 : order_id;
  order["fields"] = std::move(fields);
  return order;
}

Result<std::vector<model::SortOrder>> FromSortOrder(const Json& sort_order, const Json& schema) {
  std::vector<model::SortOrder> out;
  auto fields = sort_order.find("fields");
  if (fields == sort_order.end() || !fields->is_array()) {
    return InvalidArgument("Invalid sort order: missing fields");
  }
  for (const auto& f : *fields) {
    const std::string transform = ToLower(f.value("transform", ""));
    if (transform == "void") continue;
    CAIRN_ASSIGN_OR_RETURN(model::FieldName path, SourcePath(schema, f));
    model::SortOrder so;
    if (transform == "identity") {
      so.term = FieldRef(std::move(path));
    } else if (transform == "year" || transform == "month" || transform == "day" ||
               transform == "hour") {
      so.term.kind = model::Expression::Kind::kFunction;
      so.term.func_name = transform;
      so.term.args = {FieldRef(std::move(path))};
    } else {
      auto n = TransformArg(transform, "bucket");
      const bool bucket = n.has_value();
      if (!bucket) n = TransformArg(transform, "truncate");
      if (!n) return InvalidArgument("Unsupported sort transform: {}", transform);
      so.term.kind = model::Expression::Kind::kFunction;
      so.term.func_name = bucket ? "bucket" : "truncate";
      so.term.args = {IntegerLiteral(*n), FieldRef(std::move(path))};
    }
    so.direction = f.value("direction", "asc") == "desc" ? "desc" : "asc";
    so.null_ordering =
        f.value("null-order", "nulls-first") == "nulls-last" ? "nulls_last" : "nulls_first";
    out.push_back(std::move(so));
  }
  return out;
}

Result<std::string> DistributionMode(const model::Distribution& distribution, bool partitioned,
                                     bool sorted) {
  const std::string strategy = ToLower(distribution.strategy);
  if (strategy == "none" || strategy.empty()) return std::string("none");
  if (strategy == "hash") {
    if (!distribution.args.empty()) {
      return InvalidArgument("Iceberg's Distribution Mode.HASH does not support set expressions.");
    }
    if (!partitioned) {
      return InvalidArgument(
          "Iceberg's Distribution Mode.HASH is distributed based on partition, but the partition "
          "is empty.");
    }
    return std::string("hash");
  }
  if (strategy == "range") {
    if (!distribution.args.empty()) {
      return InvalidArgument("Iceberg's Distribution Mode.RANGE not support set expressions.");
    }
    if (!partitioned && !sorted) {
      return InvalidArgument(
          "Iceberg's Distribution Mode.RANGE is distributed based on sortOrder or partition, but "
          "both are empty.");
    }
    return std::string("range");
  }
  return InvalidArgument("Iceberg unsupported distribution strategy: {}", distribution.strategy);
}

model::Distribution DistributionFromProperties(const model::Properties& properties) {
  model::Distribution d;
  auto it = properties.find(kDistributionModeProperty);
  if (it != properties.end()) {
    const std::string mode = ToLower(it->second);
    if (mode == "hash" || mode == "range") d.strategy = mode;
  }
  return d;
}

}  // namespace cairn::iceberg
