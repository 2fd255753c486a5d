// SPDX-License-Identifier: Apache-2.0
#include "connector/hive/hive_iceberg.h"

#include <algorithm>

#include <hms/ThriftHiveMetastore.h>

#include "common/util.h"
#include "connector/hive/hms_client.h"

namespace cairn::connector::hive {

namespace {

constexpr const char* kUri = "uri";
constexpr const char* kLocation = "location";
constexpr const char* kComment = "comment";
constexpr const char* kTableType = "table_type";
constexpr const char* kIceberg = "ICEBERG";
constexpr const char* kMetadataLocation = "metadata_location";
constexpr const char* kPreviousMetadataLocation = "previous_metadata_location";
// Hive 4's compare-and-swap of an alter: the alter applies only while the parameter has the value.
constexpr const char* kExpectedKey = "expected_parameter_key";
constexpr const char* kExpectedValue = "expected_parameter_value";

std::optional<std::string> Param(const hms::Table& t, std::string_view key) {
  for (const auto& [k, v] : t.parameters) {
    if (EqualsIgnoreCase(k, key)) return v;
  }
  return std::nullopt;
}

bool IsIceberg(const hms::Table& t) {
  auto type = Param(t, kTableType);
  return type && EqualsIgnoreCase(*type, kIceberg);
}

class HiveIcebergMetastore final : public IcebergMetastore {
 public:
  HiveIcebergMetastore(std::string catalog, std::string uris, std::string warehouse,
                       HmsOptions options)
      : catalog_(std::move(catalog)),
        uris_(std::move(uris)),
        warehouse_(std::move(warehouse)),
        pool_(std::move(options)) {}

  Result<std::vector<std::string>> ListNamespaces() override {
    std::vector<std::string> names;
    CAIRN_RETURN_IF_ERROR(Call([&](auto& c) { c.get_all_databases(names); }));
    return names;
  }

  Result<std::optional<model::Properties>> LoadNamespace(const std::string& ns) override {
    CAIRN_ASSIGN_OR_RETURN(auto db, Database(ns));
    if (!db) return std::optional<model::Properties>();
    model::Properties props = db->parameters;
    if (!db->locationUri.empty()) props[kLocation] = db->locationUri;
    if (!db->description.empty()) props[kComment] = db->description;
    return std::optional<model::Properties>(std::move(props));
  }

  Status CreateNamespace(const std::string& ns, const model::Properties& properties) override {
    hms::Database db;
    db.__set_name(ns);
    std::map<std::string, std::string> params;
    db.__set_locationUri(fmt::format("{}/{}", warehouse_, ns));
    for (const auto& [k, v] : properties) {
      if (k == kLocation) {
        db.__set_locationUri(v);
      } else if (k == kComment) {
        db.__set_description(v);
      } else {
        params[k] = v;
      }
    }
    db.__set_parameters(std::move(params));
    return Call([&](auto& c) { c.create_database(db); });
  }

  Status UpdateNamespace(const std::string& ns, const model::Properties& updates,
                         const std::vector<std::string>& removals) override {
    CAIRN_ASSIGN_OR_RETURN(auto db, Database(ns));
    if (!db) return NotFound(EntityKind::kSchema, "Namespace does not exist: {}", ns);
    db->__isset.parameters = true;
    for (const auto& key : removals) {
      if (key == kComment) {
        db->__set_description("");
      } else if (key != kLocation) {
        db->parameters.erase(key);
      }
    }
    for (const auto& [k, v] : updates) {
      if (k == kLocation) {
        db->__set_locationUri(v);
      } else if (k == kComment) {
        db->__set_description(v);
      } else {
        db->parameters[k] = v;
      }
    }
    return Call([&](auto& c) { c.alter_database(ns, *db); });
  }

  Result<bool> DropNamespace(const std::string& ns) override {
    CAIRN_ASSIGN_OR_RETURN(auto db, Database(ns));
    if (!db) return false;
    std::vector<std::string> tables;
    CAIRN_RETURN_IF_ERROR(Call([&](auto& c) { c.get_all_tables(tables, ns); }));
    if (!tables.empty()) {
      return MakeError(ErrorCode::kNotEmpty, EntityKind::kSchema, "Namespace {} holds {} table(s)",
                       ns, tables.size());
    }
    auto done = Call([&](auto& c) { c.drop_database(ns, /*deleteData=*/false, /*cascade=*/false); });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) return false;
      return std::move(done).error();
    }
    return true;
  }

  Result<std::vector<std::pair<std::string, std::string>>> ListTables(
      const std::string& ns) override {
    std::vector<std::string> names;
    auto listed = Call([&](auto& c) { c.get_all_tables(names, ns); });
    if (!listed) return std::move(listed).error();
    auto objects = GetTableObjects(pool_, ns, names);
    if (!objects) return Named(std::move(objects).error());
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& t : *objects) {
      auto location = Param(t, kMetadataLocation);
      if (IsIceberg(t) && location && !location->empty()) out.emplace_back(t.tableName, *location);
    }
    return out;
  }

  Result<std::optional<std::string>> Pointer(const std::string& ns,
                                             const std::string& name) override {
    CAIRN_ASSIGN_OR_RETURN(auto t, Table(ns, name));
    if (!t || !IsIceberg(*t)) return std::optional<std::string>();
    auto location = Param(*t, kMetadataLocation);
    if (!location || location->empty()) return std::optional<std::string>();
    return location;
  }

  Status CreateTable(const std::string& ns, const std::string& name, const std::string& location,
                     const std::string& metadata_location, const std::string& owner) override {
    hms::Table t;
    t.__set_tableName(name);
    t.__set_dbName(ns);
    t.__set_owner(owner);
    t.__set_ownerType(1);
    t.__set_createTime(static_cast<int32_t>(NowMillis() / 1000));
    t.__set_lastAccessTime(0);
    t.__set_retention(0);
    t.__set_tableType("EXTERNAL_TABLE");
    t.__set_parameters({{"EXTERNAL", "TRUE"},
                        {kTableType, kIceberg},
                        {kMetadataLocation, metadata_location}});
    hms::StorageDescriptor sd;
    sd.__set_cols({});
    sd.__set_location(location);
    // The formats Iceberg's own Hive catalog registers, so engines reading the metastore know it.
    sd.__set_inputFormat("org.apache.iceberg.mr.hive.HiveIcebergInputFormat");
    sd.__set_outputFormat("org.apache.iceberg.mr.hive.HiveIcebergOutputFormat");
    hms::SerDeInfo serde;
    serde.__set_serializationLib("org.apache.iceberg.mr.hive.HiveIcebergSerDe");
    serde.__set_parameters({});
    sd.__set_serdeInfo(std::move(serde));
    sd.__set_numBuckets(-1);
    sd.__set_parameters({});
    t.__set_sd(std::move(sd));
    t.__set_partitionKeys({});
    auto done = Call([&](auto& c) { c.create_table(t); });
    if (!done && done.error().code == ErrorCode::kNotFound) {
      return NotFound(EntityKind::kSchema, "Namespace does not exist: {}", ns);
    }
    return done;
  }

  Status Swap(const std::string& ns, const std::string& name, const std::string& expected,
              const std::string& next) override {
    CAIRN_ASSIGN_OR_RETURN(auto t, Table(ns, name));
    if (!t || !IsIceberg(*t)) {
      return NotFound(EntityKind::kTable, "Table does not exist: {}.{}", ns, name);
    }
    if (Param(*t, kMetadataLocation).value_or("") != expected) return Moved(ns, name);
    t->__isset.parameters = true;
    t->parameters[kMetadataLocation] = next;
    t->parameters[kPreviousMetadataLocation] = expected;
    hms::EnvironmentContext env;
    env.__set_properties({{kExpectedKey, kMetadataLocation}, {kExpectedValue, expected}});
    auto done = Call([&](auto& c) { c.alter_table_with_environment_context(ns, name, *t, env); });
    if (done) return done;
    // Refused: lost to another writer when the pointer is no longer the expected one.
    auto now = Pointer(ns, name);
    if (now && *now != expected) return Moved(ns, name);
    return done;
  }

  Status Rename(const std::string& ns, const std::string& name, const std::string& to_ns,
                const std::string& to) override {
    CAIRN_ASSIGN_OR_RETURN(auto t, Table(ns, name));
    if (!t) return NotFound(EntityKind::kTable, "Table does not exist: {}.{}", ns, name);
    t->__set_tableName(to);
    t->__set_dbName(to_ns);
    hms::EnvironmentContext env;
    env.__set_properties({});
    return Call([&](auto& c) { c.alter_table_with_environment_context(ns, name, *t, env); });
  }

  Result<bool> DropTable(const std::string& ns, const std::string& name) override {
    auto done = Call([&](auto& c) { c.drop_table(ns, name, /*deleteData=*/false); });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) return false;
      return std::move(done).error();
    }
    return true;
  }

 private:
  template <typename F>
  Status Call(F&& fn) {
    auto done = pool_.Run("metastore call", [&](HmsPool::Client& c) { fn(c); });
    if (done) return done;
    return Named(std::move(done).error());
  }

  // Connection problems name the catalog and its metastore.
  Error Named(Error e) const {
    if (e.code == ErrorCode::kConnectionFailed || e.code == ErrorCode::kUnavailable ||
        e.code == ErrorCode::kUnsupported) {
      e.entity = EntityKind::kCatalog;
      e.message = fmt::format("Catalog {} (Hive Metastore {}): {}", catalog_, uris_, e.message);
    }
    return e;
  }

  Result<std::optional<hms::Database>> Database(const std::string& ns) {
    hms::Database db;
    auto done = Call([&](auto& c) { c.get_database(db, ns); });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) return std::optional<hms::Database>();
      return std::move(done).error();
    }
    return std::optional<hms::Database>(std::move(db));
  }

  Result<std::optional<hms::Table>> Table(const std::string& ns, const std::string& name) {
    hms::GetTableRequest req;
    req.__set_dbName(ns);
    req.__set_tblName(name);
    hms::GetTableResult res;
    auto done = Call([&](auto& c) { c.get_table_req(res, req); });
    if (!done) {
      if (done.error().code == ErrorCode::kNotFound) return std::optional<hms::Table>();
      return std::move(done).error();
    }
    return std::optional<hms::Table>(std::move(res.table));
  }

  static Error Moved(const std::string& ns, const std::string& name) {
    return Conflict(EntityKind::kTable, "the metadata of {}.{} moved in the metastore", ns, name);
  }

  std::string catalog_;
  std::string uris_;
  std::string warehouse_;
  HmsPool pool_;
};

}  // namespace

Result<std::shared_ptr<IcebergMetastore>> MakeHiveIcebergMetastore(const CatalogInfo& info,
                                                                   const ConnectorDeps& deps,
                                                                   const std::string& warehouse) {
  CAIRN_ASSIGN_OR_RETURN(HmsOptions options, ParseHmsOptions(info.properties, kUri, deps));
  return std::shared_ptr<IcebergMetastore>(std::make_shared<HiveIcebergMetastore>(
      info.name, std::string(Trim(info.properties.at(kUri))), warehouse, std::move(options)));
}

}  // namespace cairn::connector::hive
