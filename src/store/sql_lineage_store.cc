// SPDX-License-Identifier: Apache-2.0
#include "store/sql_lineage_store.h"

#include <map>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common/util.h"

namespace cairn::store {
namespace {

// Ids per `IN (...)` list: far below SQLite's and PostgreSQL's parameter limits.
constexpr size_t kIdsPerQuery = 400;

constexpr std::string_view kUpsertJobSql =
    "INSERT INTO lineage_jobs (namespace, name, last_run_id, last_state, last_event_time) "
    "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (namespace, name) DO UPDATE SET "
    "last_run_id = excluded.last_run_id, last_state = excluded.last_state, "
    "last_event_time = excluded.last_event_time RETURNING id";

constexpr std::string_view kUpsertDatasetSql =
    "INSERT INTO lineage_datasets (namespace, name, metalake, object_name) "
    "VALUES ($1, $2, $3, $4) ON CONFLICT (namespace, name) DO UPDATE SET "
    "metalake = excluded.metalake, object_name = excluded.object_name RETURNING id";

constexpr std::string_view kUpsertRunSql =
    "INSERT INTO lineage_runs (run_id, job_id, state, start_time, end_time, last_event_time) "
    "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (run_id) DO UPDATE SET "
    "job_id = excluded.job_id, state = excluded.state, "
    "start_time = CASE WHEN excluded.start_time <> '' THEN excluded.start_time "
    "ELSE lineage_runs.start_time END, "
    "end_time = CASE WHEN excluded.end_time <> '' THEN excluded.end_time "
    "ELSE lineage_runs.end_time END, "
    "last_event_time = excluded.last_event_time";

constexpr std::string_view kUpsertEdgeSql =
    "INSERT INTO lineage_edges (dataset_id, role, job_id, last_run_id, last_event_time) "
    "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (dataset_id, role, job_id) DO UPDATE SET "
    "last_run_id = excluded.last_run_id, last_event_time = excluded.last_event_time";

constexpr std::string_view kUpsertColumnEdgeSql =
    "INSERT INTO lineage_column_edges (output_dataset_id, output_field, input_dataset_id, "
    "input_field, job_id, transformation) VALUES ($1, $2, $3, $4, $5, $6) "
    "ON CONFLICT (output_dataset_id, output_field, input_dataset_id, input_field, job_id) "
    "DO UPDATE SET transformation = excluded.transformation";

// MySQL's upserts: ON DUPLICATE KEY UPDATE, VALUES(c) for the row that was to be inserted and a
// bare column for the stored one (each table's only unique key is the one the others name).
constexpr std::string_view kUpsertJobMysqlSql =
    "INSERT INTO lineage_jobs (namespace, name, last_run_id, last_state, last_event_time) "
    "VALUES ($1, $2, $3, $4, $5) ON DUPLICATE KEY UPDATE last_run_id = VALUES(last_run_id), "
    "last_state = VALUES(last_state), last_event_time = VALUES(last_event_time) RETURNING id";

constexpr std::string_view kUpsertDatasetMysqlSql =
    "INSERT INTO lineage_datasets (namespace, name, metalake, object_name) "
    "VALUES ($1, $2, $3, $4) ON DUPLICATE KEY UPDATE metalake = VALUES(metalake), "
    "object_name = VALUES(object_name) RETURNING id";

constexpr std::string_view kUpsertRunMysqlSql =
    "INSERT INTO lineage_runs (run_id, job_id, state, start_time, end_time, last_event_time) "
    "VALUES ($1, $2, $3, $4, $5, $6) ON DUPLICATE KEY UPDATE job_id = VALUES(job_id), "
    "state = VALUES(state), "
    "start_time = CASE WHEN VALUES(start_time) <> '' THEN VALUES(start_time) ELSE start_time END, "
    "end_time = CASE WHEN VALUES(end_time) <> '' THEN VALUES(end_time) ELSE end_time END, "
    "last_event_time = VALUES(last_event_time)";

constexpr std::string_view kUpsertEdgeMysqlSql =
    "INSERT INTO lineage_edges (dataset_id, role, job_id, last_run_id, last_event_time) "
    "VALUES ($1, $2, $3, $4, $5) ON DUPLICATE KEY UPDATE last_run_id = VALUES(last_run_id), "
    "last_event_time = VALUES(last_event_time)";

constexpr std::string_view kUpsertColumnEdgeMysqlSql =
    "INSERT INTO lineage_column_edges (output_dataset_id, output_field, input_dataset_id, "
    "input_field, job_id, transformation) VALUES ($1, $2, $3, $4, $5, $6) "
    "ON DUPLICATE KEY UPDATE transformation = VALUES(transformation)";

// The statement of `conn`'s dialect.
std::string_view For(const SqlConnection& conn, std::string_view sql, std::string_view mysql) {
  return conn.dialect() == Dialect::kMysql ? mysql : sql;
}

constexpr std::string_view kInsertEventSql =
    "INSERT INTO lineage_events (run_id, job_id, event_type, event_time, received_time, "
    "producer, body) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";

#define CAIRN_DATASET_COLUMNS "id, namespace, name, metalake, object_name"
#define CAIRN_EDGE_COLUMNS "dataset_id, role, job_id, last_run_id, last_event_time"

// Rolls back unless committed.
class Transaction {
 public:
  explicit Transaction(SqlConnection& conn) : conn_(conn) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction(Transaction&&) = delete;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction() {
    if (!done_) (void)conn_.Rollback();
  }
  Status Commit() {
    done_ = true;
    Status status = conn_.Commit();
    if (!status) (void)conn_.Rollback();
    return status;
  }

 private:
  SqlConnection& conn_;
  bool done_ = false;
};

std::string Text(const SqlRow& row, size_t i) { return i < row.size() && row[i] ? *row[i] : ""; }

Result<int64_t> Int(const SqlRow& row, size_t i, std::string_view what) {
  const std::optional<int64_t> v = i < row.size() && row[i] ? ParseInt64(*row[i]) : std::nullopt;
  if (!v) return Internal("lineage store: {} is not an integer", what);
  return *v;
}

Result<int64_t> ReturnedId(const Result<SqlRows>& rows, std::string_view what) {
  if (!rows) return rows.error();
  if (rows->size() != 1) return Internal("lineage store: expected one {} row", what);
  return Int(rows->front(), 0, what);
}

// "$<first>, $<first+1>, ..." for `n` parameters.
std::string Placeholders(size_t first, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    out += fmt::format("${}", first + i);
  }
  return out;
}

// Runs `sql_head` + "(ids...)" + `sql_tail` over `ids` in chunks, with `leading` bound first,
// and hands every row to `on_row`.
template <typename OnRow>
Status ForIdChunks(SqlConnection& conn, std::string_view sql_head, std::string_view sql_tail,
                   const std::vector<SqlParam>& leading, const std::vector<int64_t>& ids,
                   OnRow on_row) {
  for (size_t start = 0; start < ids.size(); start += kIdsPerQuery) {
    const size_t n = std::min(kIdsPerQuery, ids.size() - start);
    std::vector<SqlParam> params = leading;
    for (size_t i = 0; i < n; ++i) params.emplace_back(ids[start + i]);
    const std::string sql = fmt::format("{}({}){}", sql_head,
                                        Placeholders(leading.size() + 1, n), sql_tail);
    CAIRN_ASSIGN_OR_RETURN(SqlRows rows, conn.Execute(sql, params));
    for (const SqlRow& row : rows) CAIRN_RETURN_IF_ERROR(on_row(row));
  }
  return Ok();
}

Result<LineageDataset> ParseDataset(const SqlRow& row) {
  LineageDataset d;
  CAIRN_ASSIGN_OR_RETURN(d.id, Int(row, 0, "lineage_datasets.id"));
  d.ns = Text(row, 1);
  d.name = Text(row, 2);
  d.metalake = Text(row, 3);
  d.object_name = Text(row, 4);
  return d;
}

Result<LineageEdge> ParseEdge(const SqlRow& row) {
  LineageEdge e;
  CAIRN_ASSIGN_OR_RETURN(e.dataset_id, Int(row, 0, "lineage_edges.dataset_id"));
  CAIRN_ASSIGN_OR_RETURN(int64_t role, Int(row, 1, "lineage_edges.role"));
  if (role != 0 && role != 1) return Internal("lineage_edges.role {} is unknown", role);
  e.role = static_cast<LineageRole>(role);
  CAIRN_ASSIGN_OR_RETURN(e.job_id, Int(row, 2, "lineage_edges.job_id"));
  e.last_run_id = Text(row, 3);
  e.last_event_time = Text(row, 4);
  return e;
}

Result<std::vector<LineageDataset>> ParseDatasets(const SqlRows& rows) {
  std::vector<LineageDataset> out;
  out.reserve(rows.size());
  for (const SqlRow& row : rows) {
    CAIRN_ASSIGN_OR_RETURN(LineageDataset d, ParseDataset(row));
    out.push_back(std::move(d));
  }
  return out;
}

// The run's state after an event of `type`.
std::string RunState(const std::string& type) {
  if (type == "START" || type == "RUNNING") return "RUNNING";
  return type;  // COMPLETE ABORT FAIL OTHER
}

Result<int64_t> AppendOn(SqlConnection& conn, const LineageEventRecord& e) {
  CAIRN_ASSIGN_OR_RETURN(
      int64_t job_id,
      ReturnedId(conn.Execute(For(conn, kUpsertJobSql, kUpsertJobMysqlSql),
                              {e.job_ns, e.job_name, e.run_id, RunState(e.event_type),
                               e.event_time}),
                 "lineage_jobs"));
  const bool starts = e.event_type == "START";
  const bool ends = e.event_type == "COMPLETE" || e.event_type == "ABORT" ||
                    e.event_type == "FAIL";
  CAIRN_RETURN_IF_ERROR(conn.Execute(
      For(conn, kUpsertRunSql, kUpsertRunMysqlSql),
      {e.run_id, job_id, RunState(e.event_type), starts ? e.event_time : std::string(),
       ends ? e.event_time : std::string(), e.event_time}));
  // One upsert per distinct dataset of the event.
  std::map<std::pair<std::string, std::string>, int64_t> ids;
  auto dataset = [&](const LineageDatasetName& d) -> Result<int64_t> {
    auto key = std::make_pair(d.ns, d.name);
    if (auto it = ids.find(key); it != ids.end()) return it->second;
    CAIRN_ASSIGN_OR_RETURN(
        int64_t id, ReturnedId(conn.Execute(For(conn, kUpsertDatasetSql, kUpsertDatasetMysqlSql),
                                            {d.ns, d.name, d.metalake, d.object_name}),
                               "lineage_datasets"));
    ids.emplace(std::move(key), id);
    return id;
  };
  auto edge = [&](const LineageDatasetName& d, LineageRole role) -> Status {
    CAIRN_ASSIGN_OR_RETURN(int64_t id, dataset(d));
    CAIRN_RETURN_IF_ERROR(conn.Execute(
        For(conn, kUpsertEdgeSql, kUpsertEdgeMysqlSql),
        {id, int64_t{static_cast<int>(role)}, job_id, e.run_id, e.event_time}));
    return Ok();
  };
  for (const auto& d : e.inputs) CAIRN_RETURN_IF_ERROR(edge(d, LineageRole::kInput));
  for (const auto& d : e.outputs) CAIRN_RETURN_IF_ERROR(edge(d, LineageRole::kOutput));
  for (const auto& c : e.columns) {
    CAIRN_ASSIGN_OR_RETURN(int64_t out_id, dataset(c.output));
    CAIRN_ASSIGN_OR_RETURN(int64_t in_id, dataset(c.input));
    CAIRN_RETURN_IF_ERROR(
        conn.Execute(For(conn, kUpsertColumnEdgeSql, kUpsertColumnEdgeMysqlSql),
                     {out_id, c.output_field, in_id, c.input_field, job_id, c.transformation}));
  }
  return ReturnedId(conn.Execute(kInsertEventSql, {e.run_id, job_id, e.event_type, e.event_time,
                                                   e.received_time, e.producer, e.body}),
                    "lineage_events");
}

}  // namespace

Result<int64_t> SqlLineageStore::Append(const LineageEventRecord& event) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_.Acquire());
  CAIRN_RETURN_IF_ERROR(conn->Begin());
  Transaction tx(*conn);
  CAIRN_ASSIGN_OR_RETURN(int64_t id, AppendOn(*conn, event));
  CAIRN_RETURN_IF_ERROR(tx.Commit());
  return id;
}

Result<std::vector<LineageDataset>> SqlLineageStore::FindDataset(const std::string& ns,
                                                                 const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_.Acquire());
  CAIRN_ASSIGN_OR_RETURN(
      SqlRows rows, conn->Execute("SELECT " CAIRN_DATASET_COLUMNS
                                  " FROM lineage_datasets WHERE namespace = $1 AND name = $2",
                                  {ns, name}));
  return ParseDatasets(rows);
}

Result<std::vector<LineageDataset>> SqlLineageStore::DatasetsOfObject(
    const std::string& metalake, const std::string& object_name) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_.Acquire());
  CAIRN_ASSIGN_OR_RETURN(
      SqlRows rows,
      conn->Execute("SELECT " CAIRN_DATASET_COLUMNS
                    " FROM lineage_datasets WHERE metalake = $1 AND object_name = $2 ORDER BY id",
                    {metalake, object_name}));
  return ParseDatasets(rows);
}

Result<std::vector<LineageDataset>> SqlLineageStore::GetDatasets(const std::vector<int64_t>& ids) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_.Acquire());
  std::vector<LineageDataset> out;
  CAIRN_RETURN_IF_ERROR(ForIdChunks(
      *conn, "SELECT " CAIRN_DATASET_COLUMNS " FROM lineage_datasets WHERE id IN ", "", {}, ids,
      [&](const SqlRow& row) -> Status {
        CAIRN_ASSIGN_OR_RETURN(LineageDataset d, ParseDataset(row));
        out.push_back(std::move(d));
        return Ok();
      }));
  return out;
}

Result<std::vector<LineageJob>> SqlLineageStore::GetJobs(const std::vector<int64_t>& ids) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_.Acquire());
  std::vector<LineageJob> out;
  CAIRN_RETURN_IF_ERROR(ForIdChunks(
      *conn,
      "SELECT id, namespace, name, last_run_id, last_state, last_event_time FROM lineage_jobs "
      "WHERE id IN ",
      "", {}, ids, [&](const SqlRow& row) -> Status {
        LineageJob j;
        CAIRN_ASSIGN_OR_RETURN(j.id, Int(row, 0, "lineage_jobs.id"));
        j.ns = Text(row, 1);
        j.name = Text(row, 2);
        j.last_run_id = Text(row, 3);
        j.last_state = Text(row, 4);
        j.last_event_time = Text(row, 5);
        out.push_back(std::move(j));
        return Ok();
      }));
  return out;
}

Result<std::vector<LineageEdge>> SqlLineageStore::EdgesOfDatasets(const std::vector<int64_t>& ids,
                                                                  LineageRole role) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_.Acquire());
  std::vector<LineageEdge> out;
  CAIRN_RETURN_IF_ERROR(ForIdChunks(
      *conn, "SELECT " CAIRN_EDGE_COLUMNS " FROM lineage_edges WHERE role = $1 AND dataset_id IN ",
      "", {int64_t{static_cast<int>(role)}}, ids, [&](const SqlRow& row) -> Status {
        CAIRN_ASSIGN_OR_RETURN(LineageEdge e, ParseEdge(row));
        out.push_back(std::move(e));
        return Ok();
      }));
  return out;
}

Result<std::vector<LineageEdge>> SqlLineageStore::EdgesOfJobs(const std::vector<int64_t>& ids,
                                                              LineageRole role) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_.Acquire());
  std::vector<LineageEdge> out;
  CAIRN_RETURN_IF_ERROR(ForIdChunks(
      *conn, "SELECT " CAIRN_EDGE_COLUMNS " FROM lineage_edges WHERE role = $1 AND job_id IN ", "",
      {int64_t{static_cast<int>(role)}}, ids, [&](const SqlRow& row) -> Status {
        CAIRN_ASSIGN_OR_RETURN(LineageEdge e, ParseEdge(row));
        out.push_back(std::move(e));
        return Ok();
      }));
  return out;
}

Result<std::vector<LineageColumnEdge>> SqlLineageStore::ColumnEdgesInto(
    const std::vector<int64_t>& ids) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_.Acquire());
  std::vector<LineageColumnEdge> out;
  CAIRN_RETURN_IF_ERROR(ForIdChunks(
      *conn,
      "SELECT output_dataset_id, output_field, input_dataset_id, input_field, job_id, "
      "transformation FROM lineage_column_edges WHERE output_dataset_id IN ",
      " ORDER BY output_dataset_id, output_field, input_dataset_id, input_field", {}, ids,
      [&](const SqlRow& row) -> Status {
        LineageColumnEdge c;
        CAIRN_ASSIGN_OR_RETURN(c.output_dataset_id, Int(row, 0, "output_dataset_id"));
        c.output_field = Text(row, 1);
        CAIRN_ASSIGN_OR_RETURN(c.input_dataset_id, Int(row, 2, "input_dataset_id"));
        c.input_field = Text(row, 3);
        CAIRN_ASSIGN_OR_RETURN(c.job_id, Int(row, 4, "job_id"));
        c.transformation = Text(row, 5);
        out.push_back(std::move(c));
        return Ok();
      }));
  return out;
}

Result<std::vector<LineageRunEvent>> SqlLineageStore::EventsOfRun(const std::string& run_id,
                                                                  int limit) {
  CAIRN_ASSIGN_OR_RETURN(ConnectionPool::Lease conn, pool_.Acquire());
  CAIRN_ASSIGN_OR_RETURN(
      SqlRows rows,
      conn->Execute("SELECT id, event_type, event_time, body FROM lineage_events WHERE run_id = "
                    "$1 ORDER BY id LIMIT $2",
                    {run_id, int64_t{limit}}));
  std::vector<LineageRunEvent> out;
  for (const SqlRow& row : rows) {
    LineageRunEvent e;
    CAIRN_ASSIGN_OR_RETURN(e.id, Int(row, 0, "lineage_events.id"));
    e.event_type = Text(row, 1);
    e.event_time = Text(row, 2);
    e.body = Text(row, 3);
    out.push_back(std::move(e));
  }
  return out;
}

#undef CAIRN_DATASET_COLUMNS
#undef CAIRN_EDGE_COLUMNS

}  // namespace cairn::store
