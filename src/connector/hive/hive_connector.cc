// SPDX-License-Identifier: Apache-2.0
#include "connector/hive/hive_connector.h"

#include <algorithm>
#include <array>
#include <optional>
#include <span>

#include <hms/ThriftHiveMetastore.h>

#include "common/util.h"
#include "connector/external_rows.h"
#include "connector/hive/hive_types.h"
#include "connector/hive/hms_client.h"
#include "connector/partition_catalog.h"
#include "store/metadata_store.h"

namespace cairn::connector {

namespace hive {

namespace {

// Catalog properties.
constexpr const char* kUris = "metastore.uris";
constexpr const char* kImpersonation = "impersonation-enable";
constexpr const char* kListAllTables = "list-all-tables";

// Schema and table properties.
constexpr const char* kLocation = "location";
constexpr const char* kTableType = "table-type";
constexpr const char* kFormat = "format";
constexpr const char* kInputFormat = "input-format";
constexpr const char* kOutputFormat = "output-format";
constexpr const char* kSerdeLib = "serde-lib";
constexpr const char* kSerdeName = "serde-name";
constexpr std::string_view kSerdePrefix = "serde.parameter.";
constexpr const char* kComment = "comment";
constexpr std::array<std::string_view, 5> kReserved = {"comment", "numFiles", "totalSize",
                                                       "EXTERNAL", "transient_lastDdlTime"};
constexpr std::array<std::string_view, 7> kImmutable = {
    kLocation, kTableType, kFormat, kInputFormat, kOutputFormat, kSerdeLib, kSerdeName};

constexpr const char* kManaged = "MANAGED_TABLE";
constexpr const char* kExternal = "EXTERNAL_TABLE";
constexpr const char* kDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

struct Format {
  std::string_view name;
  std::string_view input;
  std::string_view output;
  std::string_view serde;
};

constexpr std::string_view kTextIn = "org.apache.hadoop.mapred.TextInputFormat";
constexpr std::string_view kTextOut = "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat";
constexpr std::string_view kLazySerde = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe";

constexpr std::array<Format, 9> kFormats = {{
    {"TEXTFILE", kTextIn, kTextOut, kLazySerde},
    {"SEQUENCEFILE", "org.apache.hadoop.mapred.SequenceFileInputFormat",
     "org.apache.hadoop.mapred.SequenceFileOutputFormat", kLazySerde},
    {"RCFILE", "org.apache.hadoop.hive.ql.io.RCFileInputFormat",
     "org.apache.hadoop.hive.ql.io.RCFileOutputFormat",
     "org.apache.hadoop.hive.serde2.columnar.LazyBinaryColumnarSerDe"},
    {"ORC", "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
     "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat", "org.apache.hadoop.hive.ql.io.orc.OrcSerde"},
    {"PARQUET", "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
     "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
     "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"},
    {"AVRO", "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat",
     "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat",
     "org.apache.hadoop.hive.serde2.avro.AvroSerDe"},
    {"JSON", kTextIn, kTextOut, "org.apache.hive.hcatalog.data.JsonSerDe"},
    {"CSV", kTextIn, kTextOut, "org.apache.hadoop.hive.serde2.OpenCSVSerde"},
    {"REGEX", kTextIn, kTextOut, "org.apache.hadoop.hive.serde2.RegexSerDe"},
}};

bool IsOneOf(std::string_view key, std::span<const std::string_view> set) {
  return std::find(set.begin(), set.end(), key) != set.end();
}

bool IsReserved(std::string_view key) {
  return IsOneOf(key, std::span<const std::string_view>(kReserved));
}

bool IsImmutable(std::string_view key) {
  return IsOneOf(key, std::span<const std::string_view>(kImmutable));
}

model::Expression FieldRef(const std::string& name) {
  model::Expression e;
  e.kind = model::Expression::Kind::kField;
  e.field_name = {name};
  return e;
}

// The single column name an expression or transform names, for bucketing and sort orders.
Result<std::string> SingleField(const model::Expression& e, std::string_view what) {
  if (e.kind != model::Expression::Kind::kField || e.field_name.size() != 1) {
    return InvalidArgument("Hive tables take only column names in {}", what);
  }
  return e.field_name[0];
}

std::vector<hms::FieldSchema>* FindColumnList(hms::Table& t, std::string_view name, size_t& at) {
  for (auto* list : {&t.sd.cols, &t.partitionKeys}) {
    for (size_t i = 0; i < list->size(); ++i) {
      if (EqualsIgnoreCase((*list)[i].name, name)) {
        at = i;
        return list;
      }
    }
  }
  return nullptr;
}

bool IsPartitionKey(const hms::Table& t, std::string_view name) {
  return std::any_of(t.partitionKeys.begin(), t.partitionKeys.end(),
                     [&](const hms::FieldSchema& f) { return EqualsIgnoreCase(f.name, name); });
}

hms::FieldSchema Field(const std::string& name, const std::string& type,
                       const std::optional<std::string>& comment) {
  hms::FieldSchema f;
  f.__set_name(name);
  f.__set_type(type);
  if (comment && !comment->empty()) f.__set_comment(*comment);
  return f;
}

Status CheckColumnExtras(const model::Column& c) {
  if (c.default_value) {
    return InvalidArgument("Column '{}': Hive columns have no default values", c.name);
  }
  if (c.auto_increment) {
    return InvalidArgument("Column '{}': Hive columns cannot auto-increment", c.name);
  }
  if (!c.nullable) {
    return InvalidArgument("Column '{}': Hive columns are always nullable", c.name);
  }
  return Ok();
}

std::string Lower(std::string_view s) { return ToLower(s); }

}  // namespace

std::string PartitionName(const std::vector<std::string>& keys,
                          const std::vector<std::string>& values) {
  auto escape = [](std::string_view s) {
    static constexpr std::string_view kSpecial = "\"#%'*/:=?\\{[]^";
    std::string out;
    for (unsigned char c : s) {
      if (c < 0x20 || c == 0x7F || kSpecial.find(static_cast<char>(c)) != std::string_view::npos) {
        out += fmt::format("%{:02X}", c);
      } else {
        out += static_cast<char>(c);
      }
    }
    return out;
  };
  std::string name;
  for (size_t i = 0; i < keys.size() && i < values.size(); ++i) {
    if (i > 0) name += '/';
    name += escape(Lower(keys[i])) + "=" + (values[i].empty() ? kDefaultPartition : escape(values[i]));
  }
  return name;
}

std::vector<std::string> HiveTableNames(const std::vector<std::string>& names,
                                        const std::vector<hms::Table>& tables) {
  std::vector<std::string> hidden;
  auto param = [](const hms::Table& t, std::string_view key) -> std::string {
    for (const auto& [k, v] : t.parameters) {
      if (EqualsIgnoreCase(k, key)) return ToLower(v);
    }
    return "";
  };
  for (const auto& t : tables) {
    const std::string type = param(t, "table_type");
    if (type == "iceberg" || type == "paimon") {
      hidden.push_back(ToLower(t.tableName));
    } else if (param(t, "provider") == "hudi") {
      hidden.push_back(ToLower(t.tableName));
      hidden.push_back(ToLower(t.tableName) + "_ro");
      hidden.push_back(ToLower(t.tableName) + "_rt");
    }
  }
  std::vector<std::string> out;
  for (const auto& n : names) {
    if (std::find(hidden.begin(), hidden.end(), ToLower(n)) == hidden.end()) out.push_back(n);
  }
  return out;
}

model::Table TableFromHive(const hms::Table& t) {
  model::Table out;
  out.name = t.tableName;
  for (const auto& f : t.sd.cols) {
    model::Column c;
    c.name = f.name;
    c.type = FromHiveType(f.type);
    if (f.__isset.comment && !f.comment.empty()) c.comment = f.comment;
    out.columns.push_back(std::move(c));
  }
  for (const auto& f : t.partitionKeys) {
    model::Column c;
    c.name = f.name;
    c.type = FromHiveType(f.type);
    if (f.__isset.comment && !f.comment.empty()) c.comment = f.comment;
    out.columns.push_back(std::move(c));
    model::Transform tr;
    tr.strategy = "identity";
    tr.field_name = {f.name};
    out.partitioning.push_back(std::move(tr));
  }
  if (t.sd.numBuckets > 0 && !t.sd.bucketCols.empty()) {
    out.distribution.strategy = "hash";
    out.distribution.number = t.sd.numBuckets;
    for (const auto& b : t.sd.bucketCols) out.distribution.args.push_back(FieldRef(b));
  }
  for (const auto& o : t.sd.sortCols) {
    model::SortOrder s;
    s.term = FieldRef(o.col);
    s.direction = o.order == 0 ? "desc" : "asc";
    s.null_ordering = o.order == 0 ? "nulls_last" : "nulls_first";
    out.sort_orders.push_back(std::move(s));
  }
  for (const auto& [k, v] : t.parameters) {
    if (k == kComment) {
      if (!v.empty()) out.comment = v;
      continue;
    }
    out.properties[k] = v;
  }
  if (!t.sd.location.empty()) out.properties[kLocation] = t.sd.location;
  if (!t.tableType.empty()) out.properties[kTableType] = t.tableType;
  if (!t.sd.inputFormat.empty()) out.properties[kInputFormat] = t.sd.inputFormat;
  if (!t.sd.outputFormat.empty()) out.properties[kOutputFormat] = t.sd.outputFormat;
  if (!t.sd.serdeInfo.serializationLib.empty()) {
    out.properties[kSerdeLib] = t.sd.serdeInfo.serializationLib;
  }
  if (!t.sd.serdeInfo.name.empty()) out.properties[kSerdeName] = t.sd.serdeInfo.name;
  for (const auto& [k, v] : t.sd.serdeInfo.parameters) {
    out.properties[std::string(kSerdePrefix) + k] = v;
  }
  out.audit.creator = t.owner;
  out.audit.create_time = static_cast<int64_t>(t.createTime) * 1000;
  return out;
}

Result<hms::Table> TableToHive(std::string_view db, const model::Table& table,
                               std::string_view owner, int64_t now_ms) {
  if (table.name.empty()) return InvalidArgument("Field 'name' is required");
  if (table.columns.empty()) return InvalidArgument("Field 'columns' must not be empty");
  if (!table.indexes.empty()) return InvalidArgument("Field 'indexes': Hive tables have no indexes");

  // Partition columns: identity transforms of columns, which must be the table's last columns
  // in the partitioning's order (Hive keeps them apart from the data columns).
  std::vector<std::string> partition_names;
  for (size_t i = 0; i < table.partitioning.size(); ++i) {
    const auto& tr = table.partitioning[i];
    if (tr.strategy != "identity" || tr.field_name.size() != 1) {
      return InvalidArgument(
          "Field 'partitioning[{}]': Hive tables are partitioned by columns only (identity)", i);
    }
    partition_names.push_back(tr.field_name[0]);
  }
  const size_t data_count = table.columns.size() - std::min(table.columns.size(), partition_names.size());
  if (partition_names.size() >= table.columns.size() && !partition_names.empty()) {
    return InvalidArgument("Field 'partitioning': a Hive table needs a column besides its "
                           "partition columns");
  }
  for (size_t i = 0; i < partition_names.size(); ++i) {
    const auto& col = table.columns[data_count + i];
    if (!EqualsIgnoreCase(col.name, partition_names[i])) {
      return InvalidArgument(
          "Field 'partitioning[{}]': partition column '{}' must be the table's column {} of {} "
          "(partition columns come last, in partitioning order)",
          i, partition_names[i], data_count + i + 1, table.columns.size());
    }
  }

  hms::Table t;
  t.__set_tableName(table.name);
  t.__set_dbName(std::string(db));
  t.__set_owner(std::string(owner));
  t.__set_ownerType(1);  // USER
  t.__set_createTime(static_cast<int32_t>(now_ms / 1000));
  t.__set_lastAccessTime(0);
  t.__set_retention(0);

  hms::StorageDescriptor sd;
  std::vector<hms::FieldSchema> cols;
  std::vector<hms::FieldSchema> keys;
  std::vector<std::string> seen;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const auto& c = table.columns[i];
    if (c.name.empty()) return InvalidArgument("Field 'columns[{}].name' is required", i);
    const std::string lower = Lower(c.name);
    if (std::find(seen.begin(), seen.end(), lower) != seen.end()) {
      return InvalidArgument("Field 'columns[{}]': column '{}' appears twice (Hive column names "
                             "ignore case)",
                             i, c.name);
    }
    seen.push_back(lower);
    CAIRN_RETURN_IF_ERROR(CheckColumnExtras(c));
    CAIRN_ASSIGN_OR_RETURN(std::string type, ToHiveType(c.type, c.name));
    (i < data_count ? cols : keys).push_back(Field(c.name, type, c.comment));
  }
  sd.__set_cols(std::move(cols));
  t.__set_partitionKeys(std::move(keys));

  // Bucketing and sort orders name data columns.
  auto is_data_column = [&](const std::string& name) {
    for (size_t i = 0; i < data_count; ++i) {
      if (EqualsIgnoreCase(table.columns[i].name, name)) return true;
    }
    return false;
  };
  const auto& d = table.distribution;
  if (d.strategy == "hash") {
    if (d.number < 1) {
      return InvalidArgument("Field 'distribution.number': a bucketed Hive table needs a bucket "
                             "count of at least 1");
    }
    std::vector<std::string> bucket_cols;
    for (const auto& a : d.args) {
      CAIRN_ASSIGN_OR_RETURN(auto col, SingleField(a, "distribution.funcArgs"));
      if (!is_data_column(col)) {
        return InvalidArgument("Field 'distribution.funcArgs': '{}' is not a data column", col);
      }
      bucket_cols.push_back(col);
    }
    if (bucket_cols.empty()) {
      return InvalidArgument("Field 'distribution.funcArgs': name the bucketing columns");
    }
    sd.__set_numBuckets(d.number);
    sd.__set_bucketCols(std::move(bucket_cols));
  } else if (d.strategy == "none" || d.strategy.empty()) {
    sd.__set_numBuckets(-1);
  } else {
    return InvalidArgument("Field 'distribution.strategy': Hive tables are distributed by hash "
                           "(bucketed) or not at all, not '{}'",
                           d.strategy);
  }
  std::vector<hms::Order> sort_cols;
  for (size_t i = 0; i < table.sort_orders.size(); ++i) {
    const auto& s = table.sort_orders[i];
    CAIRN_ASSIGN_OR_RETURN(auto col, SingleField(s.term, "sortOrders"));
    if (!is_data_column(col)) {
      return InvalidArgument("Field 'sortOrders[{}]': '{}' is not a data column", i, col);
    }
    hms::Order o;
    o.__set_col(col);
    o.__set_order(s.direction == "desc" ? 0 : 1);
    sort_cols.push_back(std::move(o));
  }
  sd.__set_sortCols(std::move(sort_cols));

  // Properties: the storage descriptor's, serde parameters, and the table's parameters.
  const auto& props = table.properties;
  auto get = [&](const char* key) -> std::optional<std::string> {
    auto it = props.find(key);
    if (it == props.end()) return std::nullopt;
    return it->second;
  };
  const Format* format = &kFormats[0];
  if (auto f = get(kFormat)) {
    format = nullptr;
    for (const auto& candidate : kFormats) {
      if (EqualsIgnoreCase(candidate.name, *f)) format = &candidate;
    }
    if (format == nullptr) {
      return InvalidArgument("Property '{}' must be one of TEXTFILE, SEQUENCEFILE, RCFILE, ORC, "
                             "PARQUET, AVRO, JSON, CSV, REGEX, not '{}'",
                             kFormat, *f);
    }
  }
  std::string table_type = kManaged;
  if (auto tt = get(kTableType)) {
    if (EqualsIgnoreCase(*tt, kManaged)) {
      table_type = kManaged;
    } else if (EqualsIgnoreCase(*tt, kExternal)) {
      table_type = kExternal;
    } else {
      return InvalidArgument("Property '{}' must be MANAGED_TABLE or EXTERNAL_TABLE, not '{}'",
                             kTableType, *tt);
    }
  }
  t.__set_tableType(table_type);
  if (auto loc = get(kLocation)) {
    if (Trim(*loc).empty()) return InvalidArgument("Property '{}' must not be empty", kLocation);
    sd.__set_location(std::string(Trim(*loc)));
  }
  sd.__set_inputFormat(get(kInputFormat).value_or(std::string(format->input)));
  sd.__set_outputFormat(get(kOutputFormat).value_or(std::string(format->output)));
  hms::SerDeInfo serde;
  serde.__set_name(get(kSerdeName).value_or(table.name));
  serde.__set_serializationLib(get(kSerdeLib).value_or(std::string(format->serde)));
  std::map<std::string, std::string> serde_params;
  std::map<std::string, std::string> params;
  for (const auto& [k, v] : props) {
    if (IsImmutable(k)) continue;
    if (IsReserved(k)) {
      return InvalidArgument("Property '{}' is reserved: Hive sets it itself", k);
    }
    if (k.rfind(kSerdePrefix, 0) == 0) {
      if (k.size() == kSerdePrefix.size()) {
        return InvalidArgument("Property '{}' names no serde parameter", k);
      }
      serde_params[k.substr(kSerdePrefix.size())] = v;
      continue;
    }
    params[k] = v;
  }
  serde.__set_parameters(std::move(serde_params));
  sd.__set_serdeInfo(std::move(serde));
  sd.__set_compressed(false);
  sd.__set_parameters({});
  if (table_type == kExternal) params["EXTERNAL"] = "TRUE";
  if (table.comment && !table.comment->empty()) params[kComment] = *table.comment;
  t.__set_parameters(std::move(params));
  t.__set_sd(std::move(sd));
  return t;
}

Status ApplyTableChanges(hms::Table& t, const std::vector<model::TableChange>& changes) {
  using K = model::TableChange::Kind;
  hms::Table work = t;
  work.__isset.sd = true;
  work.sd.__isset.cols = true;
  work.__isset.parameters = true;
  work.sd.__isset.serdeInfo = true;
  work.sd.serdeInfo.__isset.parameters = true;
  for (size_t i = 0; i < changes.size(); ++i) {
    const auto& ch = changes[i];
    const std::string at = fmt::format("updates[{}]", i);
    auto column_name = [&]() -> Result<std::string> {
      if (ch.field_name.size() != 1) {
        return InvalidArgument("{}: Hive alters top-level columns only", at);
      }
      return ch.field_name[0];
    };
    // A data column by name (partition columns cannot change, as in Hive).
    auto data_column = [&](const std::string& name) -> Result<size_t> {
      if (IsPartitionKey(work, name)) {
        return InvalidArgument("{}: '{}' is a partition column, which Hive cannot alter", at, name);
      }
      for (size_t c = 0; c < work.sd.cols.size(); ++c) {
        if (EqualsIgnoreCase(work.sd.cols[c].name, name)) return c;
      }
      return MakeError(ErrorCode::kInvalidArgument, EntityKind::kColumn,
                       "{}: column '{}' does not exist", at, name);
    };
    auto taken = [&](const std::string& name) {
      size_t unused = 0;
      return FindColumnList(work, name, unused) != nullptr;
    };
    switch (ch.kind) {
      case K::kRename:
        if (ch.new_name.empty()) return InvalidArgument("{}: the new name is empty", at);
        if (ch.new_schema && !ch.new_schema->empty() &&
            !EqualsIgnoreCase(*ch.new_schema, work.dbName)) {
          return InvalidArgument("{}: Hive tables cannot move to another schema", at);
        }
        work.__set_tableName(ch.new_name);
        break;
      case K::kUpdateComment:
        if (ch.comment && !ch.comment->empty()) {
          work.parameters[kComment] = *ch.comment;
        } else {
          work.parameters.erase(kComment);
        }
        break;
      case K::kSetProperty:
      case K::kRemoveProperty: {
        const std::string& key = ch.property;
        if (IsImmutable(key)) {
          return InvalidArgument("{}: property '{}' cannot change once the table exists", at, key);
        }
        if (IsReserved(key)) {
          return InvalidArgument("{}: property '{}' is reserved: Hive sets it itself", at, key);
        }
        if (key.rfind(kSerdePrefix, 0) == 0 && key.size() > kSerdePrefix.size()) {
          const std::string param = key.substr(kSerdePrefix.size());
          if (ch.kind == K::kSetProperty) {
            work.sd.serdeInfo.parameters[param] = ch.value;
          } else {
            work.sd.serdeInfo.parameters.erase(param);
          }
        } else if (ch.kind == K::kSetProperty) {
          work.parameters[key] = ch.value;
        } else {
          work.parameters.erase(key);
        }
        break;
      }
      case K::kAddColumn: {
        CAIRN_ASSIGN_OR_RETURN(std::string name, column_name());
        if (taken(name)) {
          return InvalidArgument("{}: column '{}' already exists", at, name);
        }
        model::Column c;
        c.name = name;
        c.nullable = ch.nullable;
        c.auto_increment = ch.auto_increment;
        c.default_value = ch.default_value;
        CAIRN_RETURN_IF_ERROR(CheckColumnExtras(c));
        CAIRN_ASSIGN_OR_RETURN(std::string type, ToHiveType(ch.type, name));
        auto field = Field(name, type, ch.comment);
        auto& cols = work.sd.cols;
        if (ch.position.kind == model::ColumnPosition::Kind::kFirst) {
          cols.insert(cols.begin(), std::move(field));
        } else if (ch.position.kind == model::ColumnPosition::Kind::kAfter) {
          CAIRN_ASSIGN_OR_RETURN(size_t after, data_column(ch.position.after));
          cols.insert(cols.begin() + static_cast<std::ptrdiff_t>(after) + 1, std::move(field));
        } else {
          cols.push_back(std::move(field));
        }
        break;
      }
      case K::kRenameColumn: {
        CAIRN_ASSIGN_OR_RETURN(std::string name, column_name());
        CAIRN_ASSIGN_OR_RETURN(size_t c, data_column(name));
        if (ch.new_name.empty()) return InvalidArgument("{}: the new column name is empty", at);
        if (!EqualsIgnoreCase(name, ch.new_name) && taken(ch.new_name)) {
          return InvalidArgument("{}: column '{}' already exists", at, ch.new_name);
        }
        work.sd.cols[c].__set_name(ch.new_name);
        break;
      }
      case K::kUpdateColumnType: {
        CAIRN_ASSIGN_OR_RETURN(std::string name, column_name());
        CAIRN_ASSIGN_OR_RETURN(size_t c, data_column(name));
        CAIRN_ASSIGN_OR_RETURN(std::string type, ToHiveType(ch.type, name));
        work.sd.cols[c].__set_type(type);
        break;
      }
      case K::kUpdateColumnComment: {
        CAIRN_ASSIGN_OR_RETURN(std::string name, column_name());
        CAIRN_ASSIGN_OR_RETURN(size_t c, data_column(name));
        work.sd.cols[c].__set_comment(ch.comment.value_or(""));
        break;
      }
      case K::kUpdateColumnPosition: {
        CAIRN_ASSIGN_OR_RETURN(std::string name, column_name());
        CAIRN_ASSIGN_OR_RETURN(size_t c, data_column(name));
        auto& cols = work.sd.cols;
        hms::FieldSchema moved = cols[c];
        cols.erase(cols.begin() + static_cast<std::ptrdiff_t>(c));
        if (ch.position.kind == model::ColumnPosition::Kind::kFirst) {
          cols.insert(cols.begin(), std::move(moved));
        } else if (ch.position.kind == model::ColumnPosition::Kind::kAfter) {
          auto it = std::find_if(cols.begin(), cols.end(), [&](const hms::FieldSchema& f) {
            return EqualsIgnoreCase(f.name, ch.position.after);
          });
          if (it == cols.end()) {
            return MakeError(ErrorCode::kInvalidArgument, EntityKind::kColumn,
                             "{}: column '{}' does not exist", at, ch.position.after);
          }
          cols.insert(it + 1, std::move(moved));
        } else {
          cols.push_back(std::move(moved));
        }
        break;
      }
      case K::kDeleteColumn: {
        CAIRN_ASSIGN_OR_RETURN(std::string name, column_name());
        auto c = data_column(name);
        if (!c) {
          if (ch.if_exists && c.error().entity == EntityKind::kColumn) break;
          return std::move(c).error();
        }
        if (work.sd.cols.size() == 1) {
          return InvalidArgument("{}: a Hive table keeps at least one data column", at);
        }
        work.sd.cols.erase(work.sd.cols.begin() + static_cast<std::ptrdiff_t>(*c));
        break;
      }
      case K::kUpdateColumnNullability:
        if (!ch.nullable) return InvalidArgument("{}: Hive columns are always nullable", at);
        break;
      case K::kUpdateColumnDefaultValue:
        return InvalidArgument("{}: Hive columns have no default values", at);
      case K::kUpdateColumnAutoIncrement:
        return InvalidArgument("{}: Hive columns cannot auto-increment", at);
      case K::kAddIndex:
      case K::kDeleteIndex:
        return InvalidArgument("{}: Hive tables have no indexes", at);
    }
  }
  t = std::move(work);
  return Ok();
}

namespace {

using store::EntityRecord;
using store::EntityType;

struct HiveSettings {
  HmsOptions hms;
  std::string uris;  // as configured (safe to show)
  bool list_all_tables = false;
};

Result<HiveSettings> ParseSettings(const model::Properties& props, const ConnectorDeps& deps) {
  HiveSettings s;
  CAIRN_ASSIGN_OR_RETURN(s.hms, ParseHmsOptions(props, kUris, deps));
  s.uris = std::string(Trim(props.at(kUris)));
  CAIRN_ASSIGN_OR_RETURN(s.list_all_tables, BoolProperty(props, kListAllTables, false));
  CAIRN_ASSIGN_OR_RETURN(bool impersonate, BoolProperty(props, kImpersonation, false));
  if (impersonate) {
    return InvalidArgument("Property '{}': this server does not impersonate users toward the "
                           "metastore",
                           kImpersonation);
  }
  for (const auto& [k, v] : props) {
    if (k.rfind("kerberos.", 0) == 0) {
      return InvalidArgument("Property '{}': Kerberos (SASL) metastores are not supported", k);
    }
  }
  return s;
}

class HiveConnector final : public Connector,
                            public SchemaCatalog,
                            public TableCatalog,
                            public PartitionCatalog {
 public:
  HiveConnector(CatalogInfo info, HiveSettings settings, store::MetadataStore* store)
      : info_(std::move(info)),
        settings_(std::move(settings)),
        rows_(store, info_.catalog_id, info_.name),
        pool_(settings_.hms) {
    Provide<SchemaCatalog>(this);
    Provide<TableCatalog>(this);
    Provide<PartitionCatalog>(this);
  }

  Status TestConnection() override { return Wrap(pool_.Ping()); }

  // The metastore keeps its objects when the catalog goes.
  Status DropAll() override { return Ok(); }

  // ---- schemas ----

  Result<std::vector<std::string>> ListSchemas() override {
    std::vector<std::string> names;
    CAIRN_RETURN_IF_ERROR(Call("get_all_databases", [&](auto& c) { c.get_all_databases(names); }));
    return names;
  }

  Result<model::Schema> CreateSchema(const CallContext& ctx, const model::Schema& schema) override {
    hms::Database db;
    db.__set_name(schema.name);
    if (schema.comment) db.__set_description(*schema.comment);
    std::map<std::string, std::string> params;
    for (const auto& [k, v] : schema.properties) {
      if (k == kLocation) {
        if (Trim(v).empty()) return InvalidArgument("Property '{}' must not be empty", kLocation);
        db.__set_locationUri(std::string(Trim(v)));
      } else {
        params[k] = v;
      }
    }
    db.__set_parameters(std::move(params));
    db.__set_ownerName(ctx.principal);
    db.__set_ownerType(1);
    auto done = Call("create_database", [&](auto& c) { c.create_database(db); });
    if (!done) {
      if (done.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kSchema, "Schema {}.{} already exists", info_.name,
                             schema.name);
      }
      return std::move(done).error();
    }
    auto row = rows_.ClaimSchema(schema.name, ctx);
    CAIRN_ASSIGN_OR_RETURN(auto out, LoadSchema(schema.name));
    if (row) out.audit = row->audit;
    return out;
  }

  Result<model::Schema> LoadSchema(std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(auto db, GetDatabase(name));
    model::Schema out = SchemaFromHive(db);
    if (auto row = rows_.TouchSchema(name); row && !row->audit.creator.empty()) {
      out.audit = row->audit;
    }
    return out;
  }

  Result<model::Schema> AlterSchema(const CallContext& /*ctx*/, std::string_view name,
                                    const std::vector<model::EntityChange>& changes) override {
    CAIRN_ASSIGN_OR_RETURN(auto db, GetDatabase(name));
    db.__isset.parameters = true;
    for (size_t i = 0; i < changes.size(); ++i) {
      const auto& ch = changes[i];
      switch (ch.kind) {
        case model::EntityChange::Kind::kRename:
          return InvalidArgument("updates[{}]: Hive databases cannot be renamed", i);
        case model::EntityChange::Kind::kUpdateComment:
          db.__set_description(ch.comment.value_or(""));
          break;
        case model::EntityChange::Kind::kSetProperty:
          if (ch.property == kLocation) {
            if (Trim(ch.value).empty()) {
              return InvalidArgument("updates[{}]: property '{}' must not be empty", i, kLocation);
            }
            db.__set_locationUri(std::string(Trim(ch.value)));
          } else {
            db.parameters[ch.property] = ch.value;
          }
          break;
        case model::EntityChange::Kind::kRemoveProperty:
          if (ch.property == kLocation) {
            return InvalidArgument("updates[{}]: a Hive database keeps its '{}'", i, kLocation);
          }
          db.parameters.erase(ch.property);
          break;
      }
    }
    const std::string db_name = db.name;
    CAIRN_RETURN_IF_ERROR(
        Call("alter_database", [&](auto& c) { c.alter_database(db_name, db); }));
    return LoadSchema(name);
  }

  Result<bool> DropSchema(const CallContext& /*ctx*/, std::string_view name,
                          bool cascade) override {
    auto db = GetDatabase(name);
    if (!db) {
      if (db.error().code == ErrorCode::kNotFound) {
        rows_.ForgetSchema(name);
        return false;
      }
      return std::move(db).error();
    }
    if (!cascade) {
      std::vector<std::string> tables;
      CAIRN_RETURN_IF_ERROR(
          Call("get_all_tables", [&](auto& c) { c.get_all_tables(tables, std::string(name)); }));
      if (!tables.empty()) {
        return MakeError(
            ErrorCode::kNotEmpty, EntityKind::kSchema,
            "Schema {}.{} is not empty, it has {} table(s); drop them first or use cascade",
            info_.name, name, tables.size());
      }
    }
    auto done = Call("drop_database", [&](auto& c) {
      c.drop_database(std::string(name), /*deleteData=*/true, cascade);
    });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) return false;
      if (done.error().code == ErrorCode::kInvalidArgument && !cascade) {
        return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema,
                         "Schema {}.{} is not empty: {}", info_.name, name, done.error().message);
      }
      return std::move(done).error();
    }
    rows_.ForgetSchema(name);
    return true;
  }

  Result<bool> HasSchemas() override {
    CAIRN_ASSIGN_OR_RETURN(auto names, ListSchemas());
    return std::any_of(names.begin(), names.end(),
                       [](const std::string& n) { return n != "default"; });
  }

  // ---- tables ----

  Result<std::vector<std::string>> ListTables(std::string_view schema) override {
    CAIRN_RETURN_IF_ERROR(GetDatabase(schema));
    std::vector<std::string> names;
    CAIRN_RETURN_IF_ERROR(
        Call("get_all_tables", [&](auto& c) { c.get_all_tables(names, std::string(schema)); }));
    rows_.SeeObjects(EntityType::kTable, schema, names, /*complete=*/true);
    if (settings_.list_all_tables || names.empty()) return names;
    // Tables of other formats the metastore holds (Iceberg, Paimon, Hudi) are left out, as
    // Gravitino's hive catalogs leave them out unless list-all-tables is set.
    auto objects = GetTableObjects(pool_, std::string(schema), names);
    if (!objects) return Wrap(std::move(objects).error());
    return HiveTableNames(names, *objects);
  }

  Result<model::Table> CreateTable(const CallContext& ctx, std::string_view schema,
                                   const model::Table& table) override {
    CAIRN_ASSIGN_OR_RETURN(hms::Table t, TableToHive(schema, table, ctx.principal, ctx.now_ms));
    CAIRN_RETURN_IF_ERROR(GetDatabase(schema));
    auto done = Call("create_table", [&](auto& c) { c.create_table(t); });
    if (!done) {
      if (done.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kTable, "Table {}.{}.{} already exists", info_.name,
                             schema, table.name);
      }
      if (done.error().code == ErrorCode::kNotFound) return SchemaMissing(schema);
      return std::move(done).error();
    }
    auto row = rows_.ClaimObject(EntityType::kTable, schema, table.name, ctx);
    CAIRN_ASSIGN_OR_RETURN(auto created, GetTable(schema, table.name));
    model::Table out = TableFromHive(created);
    if (row) out.audit = row->audit;
    return out;
  }

  Result<model::Table> LoadTable(std::string_view schema, std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(auto t, GetTable(schema, name));
    model::Table out = TableFromHive(t);
    if (auto row = rows_.TouchObject(EntityType::kTable, schema, name);
        row && !row->audit.creator.empty()) {
      out.audit = row->audit;
    }
    return out;
  }

  Result<model::Table> AlterTable(const CallContext& ctx, std::string_view schema,
                                  std::string_view name,
                                  const std::vector<model::TableChange>& changes) override {
    CAIRN_ASSIGN_OR_RETURN(auto t, GetTable(schema, name));
    CAIRN_RETURN_IF_ERROR(ApplyTableChanges(t, changes));
    const std::string new_name = t.tableName;
    if (!EqualsIgnoreCase(new_name, name)) {
      auto clash = GetTable(schema, new_name);
      if (clash) {
        return AlreadyExists(EntityKind::kTable, "Table {}.{}.{} already exists", info_.name,
                             schema, new_name);
      }
    }
    hms::EnvironmentContext env;
    env.__set_properties({});
    auto done = Call("alter_table_with_environment_context", [&](auto& c) {
      c.alter_table_with_environment_context(std::string(schema), std::string(name), t, env);
    });
    if (!done) return std::move(done).error();
    std::optional<EntityRecord> row =
        rows_.MoveObject(EntityType::kTable, schema, name, schema, new_name, ctx);
    CAIRN_ASSIGN_OR_RETURN(auto after, GetTable(schema, new_name));
    model::Table out = TableFromHive(after);
    if (row && !row->audit.creator.empty()) out.audit = row->audit;
    return out;
  }

  Result<bool> DropTable(const CallContext& /*ctx*/, std::string_view schema,
                         std::string_view name, bool /*purge*/) override {
    auto done = Call("drop_table", [&](auto& c) {
      c.drop_table(std::string(schema), std::string(name), /*deleteData=*/true);
    });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) return false;
      return std::move(done).error();
    }
    rows_.ForgetObject(EntityType::kTable, schema, name);
    return true;
  }

  // ---- partitions ----

  Result<std::vector<std::string>> ListPartitionNames(std::string_view schema,
                                                      std::string_view table) override {
    CAIRN_RETURN_IF_ERROR(GetTable(schema, table));
    std::vector<std::string> names;
    CAIRN_RETURN_IF_ERROR(Call("get_partition_names", [&](auto& c) {
      c.get_partition_names(names, std::string(schema), std::string(table), -1);
    }));
    return names;
  }

  Result<std::vector<model::Partition>> ListPartitions(std::string_view schema,
                                                       std::string_view table) override {
    CAIRN_ASSIGN_OR_RETURN(auto t, GetTable(schema, table));
    std::vector<hms::Partition> parts;
    CAIRN_RETURN_IF_ERROR(Call("get_partitions", [&](auto& c) {
      c.get_partitions(parts, std::string(schema), std::string(table), -1);
    }));
    std::vector<model::Partition> out;
    out.reserve(parts.size());
    for (const auto& p : parts) out.push_back(PartitionFromHive(t, p));
    return out;
  }

  Result<model::Partition> GetPartition(std::string_view schema, std::string_view table,
                                        std::string_view name) override {
    CAIRN_ASSIGN_OR_RETURN(auto t, GetTable(schema, table));
    hms::Partition p;
    auto done = Call("get_partition_by_name", [&](auto& c) {
      c.get_partition_by_name(p, std::string(schema), std::string(table), std::string(name));
    });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound || done.error().code == ErrorCode::kInvalidArgument) {
        return PartitionMissing(schema, table, name);
      }
      return std::move(done).error();
    }
    return PartitionFromHive(t, p);
  }

  Result<model::Partition> AddPartition(const CallContext& ctx, std::string_view schema,
                                        std::string_view table,
                                        const model::Partition& partition) override {
    CAIRN_ASSIGN_OR_RETURN(auto t, GetTable(schema, table));
    if (t.partitionKeys.empty()) {
      return InvalidArgument("Table {}.{}.{} is not partitioned", info_.name, schema, table);
    }
    if (partition.field_names.size() != t.partitionKeys.size() ||
        partition.values.size() != t.partitionKeys.size()) {
      return InvalidArgument(
          "Field 'partitions[0]': table {}.{}.{} is partitioned by {} column(s); give a field "
          "name and a value for each, in order",
          info_.name, schema, table, t.partitionKeys.size());
    }
    std::vector<std::string> keys;
    std::vector<std::string> values;
    for (size_t i = 0; i < t.partitionKeys.size(); ++i) {
      const auto& f = partition.field_names[i];
      const std::string& key = t.partitionKeys[i].name;
      if (f.size() != 1 || !EqualsIgnoreCase(f[0], key)) {
        return InvalidArgument("Field 'partitions[0].fieldNames[{}]' must be [\"{}\"]", i, key);
      }
      const auto& v = partition.values[i];
      if (v.kind != model::Expression::Kind::kLiteral) {
        return InvalidArgument("Field 'partitions[0].values[{}]' must be a literal", i);
      }
      const bool is_null = !v.value || (v.data_type && v.data_type->kind == model::TypeKind::kNull);
      if (!is_null && v.value->empty()) {
        return InvalidArgument("Field 'partitions[0].values[{}]' must not be empty", i);
      }
      keys.push_back(key);
      values.push_back(is_null ? kDefaultPartition : *v.value);
    }
    const std::string name = PartitionName(keys, values);
    if (!partition.name.empty() && partition.name != name) {
      return InvalidArgument("Field 'partitions[0].name' is '{}' but its values make '{}'",
                             partition.name, name);
    }
    hms::Partition p;
    p.__set_values(values);
    p.__set_dbName(t.dbName);
    p.__set_tableName(t.tableName);
    const int32_t now = static_cast<int32_t>(ctx.now_ms / 1000);
    p.__set_createTime(now);
    p.__set_lastAccessTime(0);
    hms::StorageDescriptor sd = t.sd;
    sd.location.clear();
    sd.__isset.location = false;  // the metastore puts it under the table's location
    p.__set_sd(std::move(sd));
    p.__set_parameters(partition.properties);
    hms::Partition made;
    auto done = Call("add_partition", [&](auto& c) { c.add_partition(made, p); });
    if (!done) {
      if (done.error().code == ErrorCode::kAlreadyExists) {
        return AlreadyExists(EntityKind::kPartition, "Partition {} of table {}.{}.{} already exists",
                             name, info_.name, schema, table);
      }
      return std::move(done).error();
    }
    return PartitionFromHive(t, made);
  }

  Result<bool> DropPartition(const CallContext& /*ctx*/, std::string_view schema,
                             std::string_view table, std::string_view name,
                             bool /*purge*/) override {
    CAIRN_RETURN_IF_ERROR(GetTable(schema, table));
    bool dropped = false;
    auto done = Call("drop_partition_by_name", [&](auto& c) {
      dropped = c.drop_partition_by_name(std::string(schema), std::string(table),
                                         std::string(name), /*deleteData=*/true);
    });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) return false;
      if (done.error().code == ErrorCode::kInvalidArgument) return false;  // a malformed name
      return std::move(done).error();
    }
    return dropped;
  }

 private:
  template <typename F>
  Status Call(std::string_view what, F&& fn) {
    return Wrap(pool_.Run(what, [&](HmsPool::Client& c) { fn(c); }));
  }

  // Connection problems name the catalog and its metastore.
  Error Wrap(Error e) const {
    if (e.code == ErrorCode::kConnectionFailed) {
      return MakeError(ErrorCode::kConnectionFailed, EntityKind::kCatalog,
                       "Catalog {} cannot reach its Hive Metastore {}: {}", info_.name,
                       settings_.uris, e.message);
    }
    if (e.code == ErrorCode::kUnavailable || e.code == ErrorCode::kUnsupported) {
      e.entity = EntityKind::kCatalog;
      e.message = fmt::format("Catalog {} (Hive Metastore {}): {}", info_.name, settings_.uris,
                              e.message);
      return e;
    }
    if (e.code == ErrorCode::kInvalidArgument && e.entity == EntityKind::kNone) {
      e.message = fmt::format("Hive Metastore of catalog {} refused: {}", info_.name, e.message);
    }
    return e;
  }
  Status Wrap(Status s) const {
    if (s) return s;
    return Wrap(std::move(s).error());
  }

  Result<hms::Database> GetDatabase(std::string_view name) {
    hms::Database db;
    auto done = Call("get_database", [&](auto& c) { c.get_database(db, std::string(name)); });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) return SchemaMissing(name);
      return std::move(done).error();
    }
    return db;
  }

  Result<hms::Table> GetTable(std::string_view schema, std::string_view name) {
    hms::GetTableRequest req;
    req.__set_dbName(std::string(schema));
    req.__set_tblName(std::string(name));
    hms::GetTableResult res;
    auto done = Call("get_table_req", [&](auto& c) { c.get_table_req(res, req); });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) {
        CAIRN_RETURN_IF_ERROR(GetDatabase(schema));
        return TableMissing(schema, name);
      }
      return std::move(done).error();
    }
    return res.table;
  }

  model::Schema SchemaFromHive(const hms::Database& db) const {
    model::Schema s;
    s.name = db.name;
    if (!db.description.empty()) s.comment = db.description;
    s.properties = db.parameters;
    if (!db.locationUri.empty()) s.properties[kLocation] = db.locationUri;
    if (db.__isset.ownerName) s.audit.creator = db.ownerName;
    return s;
  }

  static model::Partition PartitionFromHive(const hms::Table& t, const hms::Partition& p) {
    model::Partition out;
    std::vector<std::string> keys;
    for (size_t i = 0; i < t.partitionKeys.size(); ++i) {
      const auto& key = t.partitionKeys[i];
      keys.push_back(key.name);
      out.field_names.push_back({key.name});
      model::Expression v;
      v.kind = model::Expression::Kind::kLiteral;
      const std::string value = i < p.values.size() ? p.values[i] : "";
      if (value == kDefaultPartition) {
        v.data_type = model::MakePrimitive(model::TypeKind::kNull);
        v.value = "NULL";
      } else {
        v.data_type = FromHiveType(key.type);
        v.value = value;
      }
      out.values.push_back(std::move(v));
    }
    out.name = PartitionName(keys, p.values);
    out.properties = p.parameters;
    return out;
  }

  Error SchemaMissing(std::string_view schema) const {
    return NotFound(EntityKind::kSchema, "Schema {}.{} does not exist", info_.name, schema);
  }
  Error TableMissing(std::string_view schema, std::string_view name) const {
    return NotFound(EntityKind::kTable, "Table {}.{}.{} does not exist", info_.name, schema, name);
  }
  Error PartitionMissing(std::string_view schema, std::string_view table,
                         std::string_view name) const {
    return NotFound(EntityKind::kPartition, "Partition {} of table {}.{}.{} does not exist", name,
                    info_.name, schema, table);
  }

  CatalogInfo info_;
  HiveSettings settings_;
  ExternalRows rows_;
  HmsPool pool_;
};

}  // namespace
}  // namespace hive

void RegisterHiveConnector(ConnectorRegistry& registry) {
  registry.Register("hive", model::CatalogType::kRelational,
                    [](const CatalogInfo& info, const ConnectorDeps& deps)
                        -> Result<std::unique_ptr<Connector>> {
                      CAIRN_ASSIGN_OR_RETURN(auto settings,
                                             hive::ParseSettings(info.properties, deps));
                      return std::unique_ptr<Connector>(std::make_unique<hive::HiveConnector>(
                          info, std::move(settings), deps.store));
                    });
}

}  // namespace cairn::connector
