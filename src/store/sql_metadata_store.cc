// SPDX-License-Identifier: Apache-2.0
#include "store/sql_metadata_store.h"

#include <array>
#include <atomic>
#include <charconv>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/util.h"
#include "json/json_util.h"

namespace cairn::store {
namespace {

// Column order of every SELECT/RETURNING; ParseRow reads them by these positions.
#define CAIRN_ENTITY_COLUMNS                                                             \
  "id, type, parent_id, name, comment, properties, in_use, payload, location, creator, " \
  "create_time, last_modifier, last_modified_time, version"
constexpr size_t kEntityColumnCount = 14;

constexpr std::string_view kInsertSql =
    "INSERT INTO entities (type, parent_id, name, comment, properties, in_use, payload, "
    "location, creator, create_time, last_modifier, last_modified_time, version) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1) "
    "RETURNING " CAIRN_ENTITY_COLUMNS;

constexpr std::string_view kGetSql = "SELECT " CAIRN_ENTITY_COLUMNS
                                     " FROM entities WHERE type = $1 AND parent_id = $2 AND "
                                     "name = $3";

constexpr std::string_view kGetByIdSql =
    "SELECT " CAIRN_ENTITY_COLUMNS " FROM entities WHERE id = $1";

constexpr std::string_view kListSql = "SELECT " CAIRN_ENTITY_COLUMNS
                                      " FROM entities WHERE type = $1 AND parent_id = $2 AND "
                                      "name > $3 ORDER BY name";

constexpr std::string_view kListLimitSql = "SELECT " CAIRN_ENTITY_COLUMNS
                                           " FROM entities WHERE type = $1 AND parent_id = $2 "
                                           "AND name > $3 ORDER BY name LIMIT $4";

constexpr std::string_view kCountChildrenSql = "SELECT COUNT(*) FROM entities WHERE parent_id = $1";

constexpr std::string_view kCompareAndSetSql =
    "UPDATE entities SET parent_id = $1, name = $2, comment = $3, properties = $4, "
    "in_use = $5, payload = $6, location = $7, creator = $8, create_time = $9, "
    "last_modifier = $10, last_modified_time = $11, version = version + 1 "
    "WHERE id = $12 AND version = $13 RETURNING " CAIRN_ENTITY_COLUMNS;

// MySQL has no UPDATE ... RETURNING: the same update, and the affected row count tells.
constexpr std::string_view kCompareAndSetMysqlSql =
    "UPDATE entities SET parent_id = $1, name = $2, comment = $3, properties = $4, "
    "in_use = $5, payload = $6, location = $7, creator = $8, create_time = $9, "
    "last_modifier = $10, last_modified_time = $11, version = version + 1 "
    "WHERE id = $12 AND version = $13";

// One statement: the row and its whole subtree (UNION, not UNION ALL, so even a corrupt cycle
// terminates).
constexpr std::string_view kDeleteSql =
    "WITH RECURSIVE subtree(id) AS ("
    " SELECT id FROM entities WHERE id = $1"
    " UNION SELECT e.id FROM entities e JOIN subtree s ON e.parent_id = s.id)"
    " DELETE FROM entities WHERE id IN (SELECT id FROM subtree) RETURNING id";
// MySQL takes no WITH before DELETE, but one inside the subquery that names the rows.
constexpr std::string_view kDeleteMysqlSql =
    "DELETE FROM entities WHERE id IN (WITH RECURSIVE subtree(id) AS ("
    " SELECT id FROM entities WHERE id = $1"
    " UNION SELECT e.id FROM entities e JOIN subtree s ON e.parent_id = s.id)"
    " SELECT id FROM subtree) RETURNING id";

// The rows links of one type lead to from one row, in the links' order: one indexed read.
constexpr std::string_view kListLinkedRowsSql =
    "SELECT e.id, e.type, e.parent_id, e.name, e.comment, e.properties, e.in_use, e.payload, "
    "e.location, e.creator, e.create_time, e.last_modifier, e.last_modified_time, e.version "
    "FROM entity_links l JOIN entities e ON e.id = l.to_id "
    "WHERE l.from_id = $1 AND l.type = $2 AND l.to_id > $3 ORDER BY l.to_id";
constexpr std::string_view kListLinkedRowsLimitSql =
    "SELECT e.id, e.type, e.parent_id, e.name, e.comment, e.properties, e.in_use, e.payload, "
    "e.location, e.creator, e.create_time, e.last_modifier, e.last_modified_time, e.version "
    "FROM entity_links l JOIN entities e ON e.id = l.to_id "
    "WHERE l.from_id = $1 AND l.type = $2 AND l.to_id > $3 ORDER BY l.to_id LIMIT $4";

#undef CAIRN_ENTITY_COLUMNS

// Column order of every link SELECT/RETURNING; ParseLinkRow reads them by these positions.
#define CAIRN_LINK_COLUMNS "type, from_id, to_id, payload, creator, create_time"
constexpr size_t kLinkColumnCount = 6;

constexpr std::string_view kLinkSql =
    "INSERT INTO entity_links (type, from_id, to_id, payload, creator, create_time) "
    "VALUES ($1, $2, $3, $4, $5, $6) RETURNING " CAIRN_LINK_COLUMNS;

constexpr std::string_view kUnlinkSql =
    "DELETE FROM entity_links WHERE type = $1 AND from_id = $2 AND to_id = $3 RETURNING to_id";

constexpr std::string_view kListLinksFromSql =
    "SELECT " CAIRN_LINK_COLUMNS
    " FROM entity_links WHERE from_id = $1 AND type = $2 AND to_id > $3 ORDER BY to_id";

constexpr std::string_view kListLinksFromLimitSql =
    "SELECT " CAIRN_LINK_COLUMNS
    " FROM entity_links WHERE from_id = $1 AND type = $2 AND to_id > $3 ORDER BY to_id LIMIT $4";

constexpr std::string_view kListLinksToSql =
    "SELECT " CAIRN_LINK_COLUMNS
    " FROM entity_links WHERE to_id = $1 AND type = $2 AND from_id > $3 ORDER BY from_id";

constexpr std::string_view kListLinksToLimitSql =
    "SELECT " CAIRN_LINK_COLUMNS
    " FROM entity_links WHERE to_id = $1 AND type = $2 AND from_id > $3 ORDER BY from_id "
    "LIMIT $4";

#undef CAIRN_LINK_COLUMNS

std::string DumpProperties(const model::Properties& properties) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [key, value] : properties) {
    object[key] = value;
  }
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<model::Properties> ParseProperties(const std::string& text) {
  const nlohmann::json object = json::ParseJsonOrDiscarded(text);
  if (!object.is_object()) {
    return Internal("stored properties are not a JSON object");
  }
  model::Properties properties;
  for (const auto& [key, value] : object.items()) {
    properties.emplace(key,
                       value.is_string()
                           ? value.get<std::string>()
                           : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  return properties;
}

SqlParam OptionalText(const std::optional<std::string>& value) {
  if (value) return *value;
  return nullptr;
}

SqlParam OptionalInt(const std::optional<int64_t>& value) {
  if (value) return *value;
  return nullptr;
}

Result<int64_t> ParseIntColumn(const SqlRow& row, size_t index, std::string_view column) {
  const std::optional<int64_t> value = row[index] ? ParseInt64(*row[index]) : std::nullopt;
  if (!value) {
    return Internal("entities.{} is not an integer", column);
  }
  return *value;
}

// The number persisted for `type`; 0 (matching no row) for a kind that is never stored.
int64_t StoredType(EntityType type) { return model::Describe(type).store_type; }

Result<EntityRecord> ParseRow(const SqlRow& row) {
  if (row.size() != kEntityColumnCount) {
    return Internal("entities row has {} columns, expected {}", row.size(), kEntityColumnCount);
  }
  EntityRecord record;
  CAIRN_ASSIGN_OR_RETURN(record.id, ParseIntColumn(row, 0, "id"));
  {
    CAIRN_ASSIGN_OR_RETURN(int64_t type, ParseIntColumn(row, 1, "type"));
    const std::optional<EntityType> kind = model::FindKindByStoreType(type);
    if (!kind) {
      return Internal("entity {} has unknown type {}", record.id, type);
    }
    record.type = *kind;
  }
  CAIRN_ASSIGN_OR_RETURN(record.parent_id, ParseIntColumn(row, 2, "parent_id"));
  record.name = row[3].value_or("");
  record.comment = row[4];
  CAIRN_ASSIGN_OR_RETURN(record.properties, ParseProperties(row[5].value_or("{}")));
  {
    CAIRN_ASSIGN_OR_RETURN(int64_t in_use, ParseIntColumn(row, 6, "in_use"));
    record.in_use = in_use != 0;
  }
  record.payload = row[7].value_or("");
  record.location = row[8];
  record.audit.creator = row[9].value_or("");
  CAIRN_ASSIGN_OR_RETURN(record.audit.create_time, ParseIntColumn(row, 10, "create_time"));
  record.audit.last_modifier = row[11];
  if (row[12]) {
    CAIRN_ASSIGN_OR_RETURN(record.audit.last_modified_time,
                           ParseIntColumn(row, 12, "last_modified_time"));
  }
  CAIRN_ASSIGN_OR_RETURN(record.version, ParseIntColumn(row, 13, "version"));
  return record;
}

Result<EntityRecord> ParseSingle(const SqlRows& rows) {
  if (rows.size() != 1) {
    return Internal("expected one entities row, got {}", rows.size());
  }
  return ParseRow(rows.front());
}

bool IsKnownLinkType(int64_t type) {
  return type >= static_cast<int64_t>(LinkType::kTagObject) &&
         type <= static_cast<int64_t>(LinkType::kLastType);
}

Result<LinkRecord> ParseLinkRow(const SqlRow& row) {
  if (row.size() != kLinkColumnCount) {
    return Internal("entity_links row has {} columns, expected {}", row.size(), kLinkColumnCount);
  }
  LinkRecord record;
  CAIRN_ASSIGN_OR_RETURN(int64_t type, ParseIntColumn(row, 0, "type"));
  CAIRN_ASSIGN_OR_RETURN(record.from_id, ParseIntColumn(row, 1, "from_id"));
  CAIRN_ASSIGN_OR_RETURN(record.to_id, ParseIntColumn(row, 2, "to_id"));
  if (!IsKnownLinkType(type)) {
    return Internal("link from {} to {} has unknown type {}", record.from_id, record.to_id, type);
  }
  record.type = static_cast<LinkType>(type);
  record.payload = row[3].value_or("");
  record.creator = row[4].value_or("");
  CAIRN_ASSIGN_OR_RETURN(record.create_time, ParseIntColumn(row, 5, "create_time"));
  return record;
}

Result<std::vector<LinkRecord>> ParseLinkRows(const SqlRows& rows) {
  std::vector<LinkRecord> links;
  links.reserve(rows.size());
  for (const SqlRow& row : rows) {
    CAIRN_ASSIGN_OR_RETURN(LinkRecord link, ParseLinkRow(row));
    links.push_back(std::move(link));
  }
  return links;
}

// Rewrites a driver's kAlreadyExists into the domain message for the record's name.
Error NameTaken(Error error, EntityType type, std::string_view name) {
  if (error.code != ErrorCode::kAlreadyExists) {
    return error;
  }
  const EntityKind kind = ToEntityKind(type);
  return AlreadyExists(kind, "{} '{}' already exists", EntityKindName(kind), name);
}

// The store's operations against one connection, shared by the pooled store and the
// transaction view.
Result<EntityRecord> InsertOn(SqlConnection& conn, const EntityRecord& r) {
  if (StoredType(r.type) == 0) {
    return Internal("objects of kind {} are not stored", model::Describe(r.type).name);
  }
  Result<SqlRows> rows = conn.Execute(
      kInsertSql, {StoredType(r.type), r.parent_id, r.name, OptionalText(r.comment),
                   DumpProperties(r.properties), int64_t{r.in_use ? 1 : 0}, r.payload,
                   OptionalText(r.location), r.audit.creator, r.audit.create_time,
                   OptionalText(r.audit.last_modifier), OptionalInt(r.audit.last_modified_time)});
  if (!rows) {
    return NameTaken(std::move(rows).error(), r.type, r.name);
  }
  return ParseSingle(*rows);
}

Result<EntityRecord> GetOn(SqlConnection& conn, EntityType type, int64_t parent_id,
                           std::string_view name) {
  CAIRN_ASSIGN_OR_RETURN(SqlRows rows,
                         conn.Execute(kGetSql, {StoredType(type), parent_id, std::string(name)}));
  if (rows.empty()) {
    const EntityKind kind = ToEntityKind(type);
    return NotFound(kind, "{} '{}' does not exist", EntityKindName(kind), name);
  }
  return ParseSingle(rows);
}

// "SELECT e0.id, ..., e1.id, ... FROM entities e0 LEFT JOIN entities e1 ON ... WHERE e0...":
// one row whose column groups are the levels of the path; a missing level's group is NULL.
std::string BuildPathSql(size_t depth) {
  static const char* kColumns[] = {"id",
                                   "type",
                                   "parent_id",
                                   "name",
                                   "comment",
                                   "properties",
                                   "in_use",
                                   "payload",
                                   "location",
                                   "creator",
                                   "create_time",
                                   "last_modifier",
                                   "last_modified_time",
                                   "version"};
  static_assert(sizeof(kColumns) / sizeof(kColumns[0]) == kEntityColumnCount);
  std::string sql = "SELECT ";
  for (size_t level = 0; level < depth; ++level) {
    for (size_t c = 0; c < kEntityColumnCount; ++c) {
      if (level > 0 || c > 0) sql += ", ";
      sql += fmt::format("e{}.{}", level, kColumns[c]);
    }
  }
  sql += " FROM entities e0";
  for (size_t level = 1; level < depth; ++level) {
    sql += fmt::format(
        " LEFT JOIN entities e{0} ON e{0}.parent_id = e{1}.id AND e{0}.type = ${2} AND e{0}.name = "
        "${3}",
        level, level - 1, 2 * level + 2, 2 * level + 3);
  }
  sql += " WHERE e0.parent_id = $1 AND e0.type = $2 AND e0.name = $3";
  return sql;
}

// Built once per depth: this text is the statement-cache key of every path lookup.
constexpr size_t kMaxCachedPathDepth = 8;
const std::string& PathSql(size_t depth) {
  static const std::vector<std::string> cached = [] {
    std::vector<std::string> v(kMaxCachedPathDepth + 1);
    for (size_t d = 1; d <= kMaxCachedPathDepth; ++d) v[d] = BuildPathSql(d);
    return v;
  }();
  if (depth <= kMaxCachedPathDepth) return cached[depth];
  thread_local std::string deeper;
  deeper = BuildPathSql(depth);
  return deeper;
}

Result<std::vector<EntityRecord>> GetPathOn(
    SqlConnection& conn, int64_t root_parent_id,
    const std::vector<std::pair<EntityType, std::string>>& path) {
  std::vector<EntityRecord> out;
  if (path.empty()) return out;
  std::vector<SqlParam> params = {root_parent_id};
  for (const auto& [type, name] : path) {
    params.emplace_back(StoredType(type));
    params.emplace_back(name);
  }
  CAIRN_ASSIGN_OR_RETURN(SqlRows rows, conn.Execute(PathSql(path.size()), params));
  if (rows.empty()) return out;
  const SqlRow& row = rows.front();
  for (size_t level = 0; level < path.size(); ++level) {
    const auto first = row.begin() + static_cast<std::ptrdiff_t>(level * kEntityColumnCount);
    if (!first->has_value()) break;  // this level (and all below) does not exist
    CAIRN_ASSIGN_OR_RETURN(EntityRecord record,
                           ParseRow(SqlRow(first, first + kEntityColumnCount)));
    out.push_back(std::move(record));
  }
  return out;
}

Result<EntityRecord> GetByIdOn(SqlConnection& conn, int64_t id) {
  CAIRN_ASSIGN_OR_RETURN(SqlRows rows, conn.Execute(kGetByIdSql, {id}));
  if (rows.empty()) {
    return NotFound(EntityKind::kNone, "object with id {} does not exist", id);
  }
  return ParseSingle(rows);
}

Result<std::vector<EntityRecord>> ListOn(SqlConnection& conn, EntityType type, int64_t parent_id,
                                         std::string_view after_name, int limit) {
  std::vector<SqlParam> params = {StoredType(type), parent_id, std::string(after_name)};
  if (limit > 0) params.emplace_back(int64_t{limit});
  CAIRN_ASSIGN_OR_RETURN(SqlRows rows, conn.Execute(limit > 0 ? kListLimitSql : kListSql, params));
  std::vector<EntityRecord> records;
  records.reserve(rows.size());
  for (const SqlRow& row : rows) {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord record, ParseRow(row));
    records.push_back(std::move(record));
  }
  return records;
}

Result<int64_t> CountChildrenOn(SqlConnection& conn, int64_t parent_id) {
  CAIRN_ASSIGN_OR_RETURN(SqlRows rows, conn.Execute(kCountChildrenSql, {parent_id}));
  if (rows.size() != 1 || rows[0].size() != 1) {
    return Internal("COUNT(*) returned no single value");
  }
  return ParseIntColumn(rows[0], 0, "count");
}

Result<EntityRecord> CompareAndSetOn(SqlConnection& conn, const EntityRecord& r) {
  const bool mysql = conn.dialect() == Dialect::kMysql;
  Result<SqlRows> rows =
      conn.Execute(mysql ? kCompareAndSetMysqlSql : kCompareAndSetSql,
                   {r.parent_id, r.name, OptionalText(r.comment), DumpProperties(r.properties),
                    int64_t{r.in_use ? 1 : 0}, r.payload, OptionalText(r.location), r.audit.creator,
                    r.audit.create_time, OptionalText(r.audit.last_modifier),
                    OptionalInt(r.audit.last_modified_time), r.id, r.version});
  if (!rows) {
    return NameTaken(std::move(rows).error(), r.type, r.name);
  }
  if (mysql && conn.AffectedRows() == 1) {
    // The row now holds exactly what was written, one version on.
    EntityRecord written = r;
    written.version = r.version + 1;
    return written;
  }
  if (rows->empty()) {
    const EntityKind kind = ToEntityKind(r.type);
    return Conflict(kind, "{} '{}' was changed concurrently (expected version {}); retry",
                    EntityKindName(kind), r.name, r.version);
  }
  return ParseSingle(*rows);
}

Result<bool> DeleteOn(SqlConnection& conn, int64_t id) {
  CAIRN_ASSIGN_OR_RETURN(
      SqlRows rows,
      conn.Execute(conn.dialect() == Dialect::kMysql ? kDeleteMysqlSql : kDeleteSql, {id}));
  return !rows.empty();
}

Result<LinkRecord> LinkOn(SqlConnection& conn, const LinkRecord& r) {
  const auto type = static_cast<int64_t>(r.type);
  if (!IsKnownLinkType(type)) {
    return InvalidArgument("unknown link type {}", type);
  }
  Result<SqlRows> rows =
      conn.Execute(kLinkSql, {type, r.from_id, r.to_id, r.payload, r.creator, r.create_time});
  if (!rows) {
    // The constraint that failed says which rule was broken, not which row: name both ends.
    switch (rows.error().code) {
      case ErrorCode::kAlreadyExists:
        return AlreadyExists(EntityKind::kNone, "object {} is already linked to object {}",
                             r.from_id, r.to_id);
      case ErrorCode::kNotFound:
        return NotFound(EntityKind::kNone,
                        "cannot link object {} to object {}: one of them does not exist", r.from_id,
                        r.to_id);
      default:
        return std::move(rows).error();
    }
  }
  if (rows->size() != 1) {
    return Internal("expected one entity_links row, got {}", rows->size());
  }
  return ParseLinkRow(rows->front());
}

Result<bool> UnlinkOn(SqlConnection& conn, LinkType type, int64_t from_id, int64_t to_id) {
  CAIRN_ASSIGN_OR_RETURN(
      SqlRows rows, conn.Execute(kUnlinkSql, {int64_t{static_cast<int>(type)}, from_id, to_id}));
  return !rows.empty();
}

// `end` is the fixed end's id, `after` the other end's paging key.
Result<std::vector<LinkRecord>> ListLinksOn(SqlConnection& conn, std::string_view all_sql,
                                            std::string_view limit_sql, LinkType type, int64_t end,
                                            int64_t after, int limit) {
  std::vector<SqlParam> params = {end, int64_t{static_cast<int>(type)}, after};
  if (limit > 0) params.emplace_back(int64_t{limit});
  CAIRN_ASSIGN_OR_RETURN(SqlRows rows, conn.Execute(limit > 0 ? limit_sql : all_sql, params));
  return ParseLinkRows(rows);
}

Result<std::vector<LinkRecord>> ListLinksFromOn(SqlConnection& conn, LinkType type, int64_t from_id,
                                                int64_t after_to_id, int limit) {
  return ListLinksOn(conn, kListLinksFromSql, kListLinksFromLimitSql, type, from_id, after_to_id,
                     limit);
}

Result<std::vector<EntityRecord>> ListLinkedRowsOn(SqlConnection& conn, LinkType type,
                                                   int64_t from_id, int64_t after_to_id,
                                                   int limit) {
  std::vector<SqlParam> params = {from_id, int64_t{static_cast<int>(type)}, after_to_id};
  if (limit > 0) params.emplace_back(int64_t{limit});
  CAIRN_ASSIGN_OR_RETURN(
      SqlRows rows, conn.Execute(limit > 0 ? kListLinkedRowsLimitSql : kListLinkedRowsSql, params));
  std::vector<EntityRecord> records;
  records.reserve(rows.size());
  for (const SqlRow& row : rows) {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord record, ParseRow(row));
    records.push_back(std::move(record));
  }
  return records;
}

Result<std::vector<LinkRecord>> ListLinksToOn(SqlConnection& conn, LinkType type, int64_t to_id,
                                              int64_t after_from_id, int limit) {
  return ListLinksOn(conn, kListLinksToSql, kListLinksToLimitSql, type, to_id, after_from_id,
                     limit);
}

// Rolls back on scope exit unless Commit() succeeded (also when the body throws).
class TransactionGuard {
 public:
  explicit TransactionGuard(SqlConnection& conn) : conn_(conn) {}
  TransactionGuard(const TransactionGuard&) = delete;
  TransactionGuard& operator=(const TransactionGuard&) = delete;
  TransactionGuard(TransactionGuard&&) = delete;
  TransactionGuard& operator=(TransactionGuard&&) = delete;
  ~TransactionGuard() {
    if (!done_) (void)conn_.Rollback();
  }

  Status Commit() {
    Status status = conn_.Commit();
    if (status) {
      done_ = true;
      return status;
    }
    // A lost connection during COMMIT leaves the outcome unknown to us.
    if (conn_.IsBroken()) {
      done_ = true;
      return MakeError(ErrorCode::kCommitStateUnknown, EntityKind::kNone,
                       "metadata store commit outcome unknown: {}", status.error().message);
    }
    return status;
  }

 private:
  SqlConnection& conn_;
  bool done_ = false;
};

// The MetadataStore handed to a RunInTransaction body: every call runs on the transaction's
// connection. Lives only for the duration of the body.
class TransactionView final : public MetadataStore {
 public:
  explicit TransactionView(SqlConnection& conn) : conn_(conn) {}

  Result<EntityRecord> Insert(const EntityRecord& record) override {
    return InsertOn(conn_, record);
  }
  Result<EntityRecord> Get(EntityType type, int64_t parent_id, std::string_view name) override {
    return GetOn(conn_, type, parent_id, name);
  }
  Result<EntityRecord> GetById(int64_t id) override { return GetByIdOn(conn_, id); }
  Result<std::vector<EntityRecord>> GetPath(
      int64_t root_parent_id,
      const std::vector<std::pair<EntityType, std::string>>& path) override {
    return GetPathOn(conn_, root_parent_id, path);
  }
  Result<std::vector<EntityRecord>> List(EntityType type, int64_t parent_id,
                                         std::string_view after_name, int limit) override {
    return ListOn(conn_, type, parent_id, after_name, limit);
  }
  Result<int64_t> CountChildren(int64_t parent_id) override {
    return CountChildrenOn(conn_, parent_id);
  }
  Result<EntityRecord> CompareAndSet(const EntityRecord& record) override {
    return CompareAndSetOn(conn_, record);
  }
  Result<bool> Delete(int64_t id) override { return DeleteOn(conn_, id); }
  Result<LinkRecord> Link(const LinkRecord& record) override { return LinkOn(conn_, record); }
  Result<bool> Unlink(LinkType type, int64_t from_id, int64_t to_id) override {
    return UnlinkOn(conn_, type, from_id, to_id);
  }
  Result<std::vector<LinkRecord>> ListLinksFrom(LinkType type, int64_t from_id, int64_t after_to_id,
                                                int limit) override {
    return ListLinksFromOn(conn_, type, from_id, after_to_id, limit);
  }
  Result<std::vector<LinkRecord>> ListLinksTo(LinkType type, int64_t to_id, int64_t after_from_id,
                                              int limit) override {
    return ListLinksToOn(conn_, type, to_id, after_from_id, limit);
  }
  Result<std::vector<EntityRecord>> ListLinkedRows(LinkType type, int64_t from_id,
                                                   int64_t after_to_id, int limit) override {
    return ListLinkedRowsOn(conn_, type, from_id, after_to_id, limit);
  }
  // Already inside a transaction: a nested one is just part of it.
  Status RunInTransaction(const std::function<Status(MetadataStore& tx)>& body) override {
    return body(*this);
  }
  bool Ping() override { return conn_.Execute("SELECT 1", {}).has_value(); }

 private:
  SqlConnection& conn_;
};

}  // namespace

namespace {

uint64_t NextStoreId() {
  static std::atomic<uint64_t> next{0};
  return ++next;
}

// The last path lookups this thread answered from the cache, tried before it: a request looks
// up the same few paths (its catalog, its object, the authorizer's target), and comparing a
// path costs less than building its key, locking the cache and hashing the key.
struct RecentPath {
  uint64_t store = 0;  // SqlMetadataStore::id_; 0: empty
  uint64_t generation = 0;
  int64_t root = 0;
  std::vector<std::pair<EntityType, std::string>> path;
  MetadataStore::PathRows rows;
};
thread_local std::array<RecentPath, 4> recent_paths;
thread_local size_t next_recent_path = 0;

}  // namespace

SqlMetadataStore::SqlMetadataStore(std::unique_ptr<ConnectionPool> pool, bool cache_paths)
    : pool_(std::move(pool)),
      lineage_(*pool_),
      idempotency_(*pool_),
      cache_paths_(cache_paths),
      id_(NextStoreId()) {}

Result<EntityRecord> SqlMetadataStore::Insert(const EntityRecord& record) {
  const WriteScope write(*this);
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return InsertOn(*conn, record);
}

Result<EntityRecord> SqlMetadataStore::Get(EntityType type, int64_t parent_id,
                                           std::string_view name) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return GetOn(*conn, type, parent_id, name);
}

StoreStats SqlMetadataStore::Stats() const {
  const ConnectionPool::Stats pool = pool_->GetStats();
  StoreStats s;
  s.pool_size = pool.size;
  s.pool_open = pool.open;
  s.pool_in_use = pool.in_use;
  s.acquired = pool.acquired;
  s.acquire_timeouts = pool.timeouts;
  s.acquire_wait = pool.wait;
  s.call = pool.hold;
  s.caches_paths = cache_paths_;
  s.path_cache_hits = path_hits_.load(std::memory_order_relaxed);
  s.path_cache_misses = path_misses_.load(std::memory_order_relaxed);
  s.has_change_feed = has_feed_.load(std::memory_order_acquire);
  s.change_feed_connected = s.has_change_feed && coherent_.load(std::memory_order_acquire);
  s.changes_announced = announced_.load(std::memory_order_relaxed);
  s.change_feed_resyncs = resyncs_.load(std::memory_order_relaxed);
  return s;
}

void SqlMetadataStore::SubscribeToChanges(
    std::function<void(std::optional<EntityType>)> listener) {
  std::lock_guard lock(subscribers_mu_);
  subscribers_.push_back(std::move(listener));
}

void SqlMetadataStore::AttachChangeFeed(const std::function<std::shared_ptr<void>()>& start) {
  // Incoherent until the feed says it listens: nothing another replica did is known yet.
  coherent_.store(false, std::memory_order_release);
  has_feed_.store(true, std::memory_order_release);
  feed_ = start();
}

void SqlMetadataStore::AnnounceChange(std::optional<EntityType> type) {
  generation_.fetch_add(1, std::memory_order_acq_rel);
  announced_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(subscribers_mu_);
  for (const auto& listener : subscribers_) listener(type);
}

void SqlMetadataStore::SetFeedConnected(bool connected) {
  if (!connected) {
    coherent_.store(false, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  // Whatever was cached may predate changes nobody announced to us: drop it all, then use the
  // cache again. An entry read before this point carries an older generation and is refused.
  generation_.fetch_add(1, std::memory_order_acq_rel);
  resyncs_.fetch_add(1, std::memory_order_relaxed);
  coherent_.store(true, std::memory_order_release);
  std::lock_guard lock(subscribers_mu_);
  for (const auto& listener : subscribers_) listener(std::nullopt);
}

Result<EntityRecord> SqlMetadataStore::GetById(int64_t id) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return GetByIdOn(*conn, id);
}

Result<std::vector<EntityRecord>> SqlMetadataStore::GetPath(
    int64_t root_parent_id, const std::vector<std::pair<EntityType, std::string>>& path) {
  CAIRN_ASSIGN_OR_RETURN(PathRows rows, GetSharedPath(root_parent_id, path));
  return *rows;
}

Result<MetadataStore::PathRows> SqlMetadataStore::GetSharedPath(
    int64_t root_parent_id, const std::vector<std::pair<EntityType, std::string>>& path) {
  if (!cache_paths_ || !coherent_.load(std::memory_order_acquire)) {
    CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
    CAIRN_ASSIGN_OR_RETURN(auto rows, GetPathOn(*conn, root_parent_id, path));
    return std::make_shared<const std::vector<EntityRecord>>(std::move(rows));
  }
  // Read the generation before the query: a write that commits after it invalidates the entry.
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  for (const RecentPath& r : recent_paths) {
    if (r.store == id_ && r.generation == generation && r.root == root_parent_id &&
        r.path == path) {
      path_hits_.fetch_add(1, std::memory_order_relaxed);
      return r.rows;
    }
  }
  auto remember = [&](const PathRows& rows) {
    RecentPath& r = recent_paths[next_recent_path];
    next_recent_path = (next_recent_path + 1) % recent_paths.size();
    r.store = id_;
    r.generation = generation;
    r.root = root_parent_id;
    r.path = path;
    r.rows = rows;
  };
  // Built without a number formatted into a string of its own: every lookup builds one.
  std::string key;
  size_t size = 20;
  for (const auto& level : path) size += 8 + level.second.size();
  key.reserve(size);
  auto append_number = [&key](int64_t n) {
    char digits[24];
    key.append(digits, static_cast<size_t>(std::to_chars(digits, digits + 24, n).ptr - digits));
  };
  append_number(root_parent_id);
  for (const auto& [type, name] : path) {
    key += '\0';
    append_number(StoredType(type));
    key += ':';
    key += name;
  }
  {
    std::lock_guard lock(cache_mu_);
    auto it = paths_.find(key);
    if (it != paths_.end() && it->second.generation == generation) {
      path_hits_.fetch_add(1, std::memory_order_relaxed);
      remember(it->second.rows);
      return it->second.rows;
    }
  }
  path_misses_.fetch_add(1, std::memory_order_relaxed);
  PathRows rows;
  {
    CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
    CAIRN_ASSIGN_OR_RETURN(auto read, GetPathOn(*conn, root_parent_id, path));
    rows = std::make_shared<const std::vector<EntityRecord>>(std::move(read));
  }
  std::lock_guard lock(cache_mu_);
  if (generation_.load(std::memory_order_acquire) == generation &&
      coherent_.load(std::memory_order_acquire)) {
    if (paths_.size() >= kMaxCachedPaths) paths_.clear();
    paths_[std::move(key)] = CachedPath{generation, rows};
    remember(rows);
  }
  return rows;
}

Result<std::vector<EntityRecord>> SqlMetadataStore::List(EntityType type, int64_t parent_id,
                                                         std::string_view after_name, int limit) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return ListOn(*conn, type, parent_id, after_name, limit);
}

Result<int64_t> SqlMetadataStore::CountChildren(int64_t parent_id) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return CountChildrenOn(*conn, parent_id);
}

Result<EntityRecord> SqlMetadataStore::CompareAndSet(const EntityRecord& record) {
  const WriteScope write(*this);
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return CompareAndSetOn(*conn, record);
}

Result<bool> SqlMetadataStore::Delete(int64_t id) {
  const WriteScope write(*this);
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return DeleteOn(*conn, id);
}

// Links never change what a path lookup returns, so they leave the path cache's generation alone.
Result<LinkRecord> SqlMetadataStore::Link(const LinkRecord& record) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return LinkOn(*conn, record);
}

Result<bool> SqlMetadataStore::Unlink(LinkType type, int64_t from_id, int64_t to_id) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return UnlinkOn(*conn, type, from_id, to_id);
}

Result<std::vector<LinkRecord>> SqlMetadataStore::ListLinksFrom(LinkType type, int64_t from_id,
                                                                int64_t after_to_id, int limit) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return ListLinksFromOn(*conn, type, from_id, after_to_id, limit);
}

Result<std::vector<LinkRecord>> SqlMetadataStore::ListLinksTo(LinkType type, int64_t to_id,
                                                              int64_t after_from_id, int limit) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return ListLinksToOn(*conn, type, to_id, after_from_id, limit);
}

Result<std::vector<EntityRecord>> SqlMetadataStore::ListLinkedRows(LinkType type, int64_t from_id,
                                                                   int64_t after_to_id, int limit) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  return ListLinkedRowsOn(*conn, type, from_id, after_to_id, limit);
}

Status SqlMetadataStore::RunInTransaction(const std::function<Status(MetadataStore& tx)>& body) {
  const WriteScope write(*this);  // declared first: moves the generation after commit or rollback
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_->Acquire());
  CAIRN_RETURN_IF_ERROR(conn->Begin());
  TransactionGuard guard(*conn);
  TransactionView view(*conn);
  CAIRN_RETURN_IF_ERROR(body(view));
  return guard.Commit();
}

bool SqlMetadataStore::Ping() {
  Result<ConnectionPool::Lease> conn = pool_->Acquire();
  return conn && (**conn).Execute("SELECT 1", {}).has_value();
}

}  // namespace cairn::store
