// SPDX-License-Identifier: Apache-2.0
#include "service/lineage_service.h"

#include <chrono>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/util.h"
#include "governance/lineage_event.h"
#include "json/json_util.h"
#include "service/object_service.h"

namespace cairn::service {
namespace {

using store::EntityType;
using store::LineageRole;

// Writes of one event that find the database busy are retried this often before it is dropped
// (and logged).
constexpr int kWriteAttempts = 5;

std::vector<std::pair<std::string, std::string>> SymlinksAt(const nlohmann::json& event,
                                                            const char* key, size_t i) {
  auto it = event.find(key);
  if (it == event.end() || !it->is_array() || i >= it->size()) return {};
  return governance::SymlinkNames((*it)[i]);
}

// A node of the walk, by kind and id.
struct NodeKey {
  bool is_job = false;
  int64_t id = 0;
  auto operator<=>(const NodeKey&) const = default;
};

}  // namespace

LineageService::LineageService(store::MetadataStore& store, ObjectService& objects,
                               LineageOptions options)
    : store_(store),
      lineage_(store.Lineage()),
      objects_(objects),
      options_(options),
      forwarder_(options_.forward.url.empty()
                     ? nullptr
                     : std::make_unique<LineageForwarder>(options_.forward)),
      writer_([this] { Run(); }) {}

LineageService::~LineageService() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  writer_.join();
}

// ---- Ingest ---------------------------------------------------------------------------------

Result<std::string> LineageService::Ingest(const Caller& /*caller*/, const std::string& body) {
  if (lineage_ == nullptr) {
    return Unsupported("This metadata store keeps no lineage");
  }
  CAIRN_ASSIGN_OR_RETURN(nlohmann::json event,
                         json::ParseJson(body, "Malformed lineage event: the body is not JSON"));
  CAIRN_ASSIGN_OR_RETURN(store::LineageEventRecord record, governance::ParseRunEvent(event, body));
  record.received_time = NowMillis();
  Queued item;
  for (size_t i = 0; i < record.inputs.size(); ++i) {
    item.symlinks.push_back(SymlinksAt(event, "inputs", i));
  }
  for (size_t i = 0; i < record.outputs.size(); ++i) {
    item.symlinks.push_back(SymlinksAt(event, "outputs", i));
  }
  std::string job = record.job_ns + "." + record.job_name;
  item.record = std::move(record);
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= options_.queue_capacity) {
      return MakeError(ErrorCode::kUnavailable, EntityKind::kNone,
                       "The lineage event queue is full ({} events); retry later",
                       options_.queue_capacity);
    }
    queue_.push_back(std::move(item));
    ++queued_;
  }
  cv_.notify_one();
  // Sent on as received, in the order accepted; never a reason to refuse the event.
  if (forwarder_) forwarder_->Offer(body);
  return job;
}

bool LineageService::QueueFull() const {
  std::lock_guard lock(mu_);
  return queue_.size() >= options_.queue_capacity;
}

void LineageService::Flush() {
  std::unique_lock lock(mu_);
  const uint64_t target = queued_;
  idle_cv_.wait(lock, [&] { return written_ >= target; });
}

void LineageService::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything is written
    Queued item = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    Write(std::move(item));
    lock.lock();
    ++written_;
    idle_cv_.notify_all();
  }
}

void LineageService::Write(Queued item) {
  store::LineageEventRecord& r = item.record;
  const size_t n_inputs = r.inputs.size();
  for (size_t i = 0; i < n_inputs; ++i) MapDataset(r.inputs[i], item.symlinks[i]);
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    MapDataset(r.outputs[i], item.symlinks[n_inputs + i]);
  }
  // A column fact names its datasets again: give them the mapping already made, or make one.
  std::map<std::pair<std::string, std::string>, store::LineageDatasetName> known;
  for (const auto* list : {&r.inputs, &r.outputs}) {
    for (const auto& d : *list) known.emplace(std::make_pair(d.ns, d.name), d);
  }
  for (auto& c : r.columns) {
    for (auto* d : {&c.output, &c.input}) {
      auto it = known.find({d->ns, d->name});
      if (it == known.end()) {
        MapDataset(*d, {});
        known.emplace(std::make_pair(d->ns, d->name), *d);
      } else {
        *d = it->second;
      }
    }
  }
  for (int attempt = 1;; ++attempt) {
    Result<int64_t> id = lineage_->Append(r);
    if (id) return;
    if (id.error().code != ErrorCode::kUnavailable || attempt >= kWriteAttempts) {
      spdlog::error("event=lineage_write_failed run_id={} job=\"{}.{}\" error=\"{}\"", r.run_id,
                    r.job_ns, r.job_name, id.error().message);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50 * attempt));
  }
}

void LineageService::MapDataset(store::LineageDatasetName& d,
                                const std::vector<std::pair<std::string, std::string>>& symlinks) {
  auto mapped = MapName(d.ns, d.name);
  for (size_t i = 0; !mapped && i < symlinks.size(); ++i) {
    mapped = MapName(symlinks[i].first, symlinks[i].second);
  }
  if (mapped) {
    d.metalake = std::move(mapped->first);
    d.object_name = std::move(mapped->second);
  }
}

std::optional<std::pair<std::string, std::string>> LineageService::MapName(
    const std::string& ns, const std::string& name) {
  auto naming = governance::MapDatasetName(ns, name);
  if (!naming) return std::nullopt;
  if (!naming->metalake.empty()) return std::make_pair(naming->metalake, naming->ObjectName());
  // An engine's namespace: the one metalake that has a catalog of that name.
  auto metalakes = store_.List(EntityType::kMetalake, 0, "", 0);
  if (!metalakes) return std::nullopt;
  std::optional<std::string> found;
  for (const auto& ml : *metalakes) {
    if (!store_.Get(EntityType::kCatalog, ml.id, naming->catalog)) continue;
    if (found) return std::nullopt;  // ambiguous: left external
    found = ml.name;
  }
  if (!found) return std::nullopt;
  return std::make_pair(*found, naming->ObjectName());
}

// ---- Graph ----------------------------------------------------------------------------------

DatasetVisibility LineageService::Visibility(const Caller& caller, const store::LineageDataset& d) {
  if (d.metalake.empty()) return DatasetVisibility::kExternal;
  const std::vector<std::string> parts = Split(d.object_name, '.');
  if (parts.size() != 3) return DatasetVisibility::kExternal;
  const ObjectRef ref{d.metalake, parts[0], {parts[1]}, parts[2], ObjectType::kTable};
  if (Status allowed = objects_.Authorize(caller, Action::kLoadTable, ref); !allowed) {
    return allowed.error().code == ErrorCode::kPermissionDenied ? DatasetVisibility::kHidden
                                                                : DatasetVisibility::kExternal;
  }
  auto rows = store_.GetPath(0, {{EntityType::kMetalake, d.metalake},
                                 {EntityType::kCatalog, parts[0]},
                                 {EntityType::kSchema, parts[1]},
                                 {EntityType::kTable, parts[2]}});
  if (!rows || rows->size() < 2) return DatasetVisibility::kExternal;
  if (rows->size() == 4) return DatasetVisibility::kCairn;
  // The catalog exists but does not keep the table as a row (a JDBC or federated catalog):
  // ask its source.
  return objects_.LoadTable(caller, ref) ? DatasetVisibility::kCairn : DatasetVisibility::kExternal;
}

Result<LineagePage> LineageService::Graph(const Caller& caller, const LineageQuery& q) {
  if (lineage_ == nullptr) return Unsupported("This metadata store keeps no lineage");
  if (q.depth < 1 || q.depth > kMaxLineageDepth) {
    return InvalidArgument("Parameter 'depth' must be between 1 and {}", kMaxLineageDepth);
  }
  if (q.page_size < 1 || q.page_size > kMaxLineagePageSize) {
    return InvalidArgument("Parameter 'pageSize' must be between 1 and {}", kMaxLineagePageSize);
  }
  if (q.offset < 0) return InvalidArgument("Parameter 'pageToken' is not a page token");
  if (!q.upstream && !q.downstream) {
    return InvalidArgument("Parameter 'direction' must be upstream, downstream or both");
  }
  std::vector<store::LineageDataset> starts;
  if (!q.metalake.empty()) {
    const std::vector<std::string> parts = Split(q.object_name, '.');
    if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2].empty()) {
      return InvalidArgument("Parameter 'fullName' must be catalog.schema.table");
    }
    const ObjectRef ref{q.metalake, parts[0], {parts[1]}, parts[2], ObjectType::kTable};
    CAIRN_RETURN_IF_ERROR(objects_.LoadTable(caller, ref));
    CAIRN_ASSIGN_OR_RETURN(starts, lineage_->DatasetsOfObject(q.metalake, q.object_name));
  } else {
    if (q.ns.empty() || q.name.empty()) {
      return InvalidArgument(
          "Give either 'metalake' and 'fullName' (a table) or 'namespace' and 'name' (a dataset)");
    }
    CAIRN_ASSIGN_OR_RETURN(starts, lineage_->FindDataset(q.ns, q.name));
    // A dataset that is a table the caller may not load is not there for the caller.
    if (starts.empty() || Visibility(caller, starts.front()) == DatasetVisibility::kHidden) {
      return NotFound(EntityKind::kNone, "No lineage is known for dataset {} {}", q.ns, q.name);
    }
  }

  // The walk: nodes in the order found (start, then downstream level by level, then upstream),
  // each level one indexed query for all of its nodes.
  std::vector<std::pair<NodeKey, int>> order;  // node, signed depth
  std::map<NodeKey, size_t> index;
  std::set<std::tuple<bool, int64_t, int64_t>> edge_keys;
  std::vector<LineageGraphEdge> edges;
  bool truncated = false;
  auto add = [&](NodeKey key, int depth) -> bool {
    if (index.contains(key)) return false;
    if (order.size() >= kMaxLineageNodes) {
      truncated = true;
      return false;
    }
    index.emplace(key, order.size());
    order.emplace_back(key, depth);
    return true;
  };
  auto add_edge = [&](bool from_job, int64_t from, int64_t to, const store::LineageEdge& e) {
    if (edge_keys.emplace(from_job, from, to).second) {
      edges.push_back({from_job, from, to, e.last_run_id, e.last_event_time});
    }
  };
  std::vector<int64_t> start_ids;
  for (const auto& d : starts) {
    add({false, d.id}, 0);
    start_ids.push_back(d.id);
  }
  for (const bool down : {true, false}) {
    if (down ? !q.downstream : !q.upstream) continue;
    std::vector<int64_t> frontier = start_ids;
    for (int level = 1; level <= q.depth && !frontier.empty() && !truncated; ++level) {
      const int depth = down ? level : -level;
      CAIRN_ASSIGN_OR_RETURN(
          auto to_jobs,
          lineage_->EdgesOfDatasets(frontier, down ? LineageRole::kInput : LineageRole::kOutput));
      std::vector<int64_t> jobs;
      for (const auto& e : to_jobs) {
        if (add({true, e.job_id}, depth)) jobs.push_back(e.job_id);
        // Data flows dataset -> job for an input, job -> dataset for an output.
        if (down) {
          add_edge(false, e.dataset_id, e.job_id, e);
        } else {
          add_edge(true, e.job_id, e.dataset_id, e);
        }
      }
      frontier.clear();
      if (jobs.empty()) break;
      CAIRN_ASSIGN_OR_RETURN(
          auto to_datasets,
          lineage_->EdgesOfJobs(jobs, down ? LineageRole::kOutput : LineageRole::kInput));
      for (const auto& e : to_datasets) {
        if (add({false, e.dataset_id}, depth)) frontier.push_back(e.dataset_id);
        if (down) {
          add_edge(true, e.job_id, e.dataset_id, e);
        } else {
          add_edge(false, e.dataset_id, e.job_id, e);
        }
      }
    }
  }

  // The page, and only the page's nodes are read and decided.
  LineagePage page;
  page.total = order.size();
  page.truncated = truncated;
  const size_t begin = std::min(order.size(), static_cast<size_t>(q.offset));
  const size_t end = std::min(order.size(), begin + static_cast<size_t>(q.page_size));
  if (end < order.size()) page.next_offset = static_cast<int64_t>(end);
  std::vector<int64_t> dataset_ids;
  std::vector<int64_t> job_ids;
  for (size_t i = begin; i < end; ++i) {
    (order[i].first.is_job ? job_ids : dataset_ids).push_back(order[i].first.id);
  }
  CAIRN_ASSIGN_OR_RETURN(auto datasets, lineage_->GetDatasets(dataset_ids));
  CAIRN_ASSIGN_OR_RETURN(auto jobs, lineage_->GetJobs(job_ids));
  std::unordered_map<int64_t, store::LineageDataset> dataset_rows;
  for (auto& d : datasets) dataset_rows.emplace(d.id, std::move(d));
  std::unordered_map<int64_t, store::LineageJob> job_rows;
  for (auto& j : jobs) job_rows.emplace(j.id, std::move(j));
  std::unordered_map<int64_t, DatasetVisibility> decided;
  auto visibility = [&](const store::LineageDataset& d) {
    auto it = decided.find(d.id);
    if (it != decided.end()) return it->second;
    const DatasetVisibility v = Visibility(caller, d);
    decided.emplace(d.id, v);
    return v;
  };
  std::vector<int64_t> shown;  // datasets on the page whose columns may be shown
  for (size_t i = begin; i < end; ++i) {
    LineageNode node;
    node.is_job = order[i].first.is_job;
    node.id = order[i].first.id;
    node.depth = order[i].second;
    if (node.is_job) {
      if (auto it = job_rows.find(node.id); it != job_rows.end()) node.job = it->second;
    } else if (auto it = dataset_rows.find(node.id); it != dataset_rows.end()) {
      node.visibility = visibility(it->second);
      if (node.visibility != DatasetVisibility::kHidden) {
        node.dataset = it->second;
        shown.push_back(node.id);
      } else {
        node.dataset.id = node.id;
      }
    }
    page.nodes.push_back(std::move(node));
  }
  for (const auto& e : edges) {
    const size_t a = index.at({e.from_job, e.from});
    const size_t b = index.at({!e.from_job, e.to});
    const size_t later = std::max(a, b);
    if (later >= begin && later < end) page.edges.push_back(e);
  }
  // Column lineage of the shown datasets; an input field of a hidden table keeps only its field
  // name's place, without the table's names.
  CAIRN_ASSIGN_OR_RETURN(auto columns, lineage_->ColumnEdgesInto(shown));
  std::vector<int64_t> missing;
  for (const auto& c : columns) {
    if (!dataset_rows.contains(c.input_dataset_id)) missing.push_back(c.input_dataset_id);
  }
  if (!missing.empty()) {
    CAIRN_ASSIGN_OR_RETURN(auto more, lineage_->GetDatasets(missing));
    for (auto& d : more) dataset_rows.emplace(d.id, std::move(d));
  }
  std::unordered_map<int64_t, std::map<std::string, LineageColumn>> by_dataset;
  for (const auto& c : columns) {
    LineageColumnInput in;
    in.dataset_id = c.input_dataset_id;
    if (auto it = dataset_rows.find(c.input_dataset_id); it != dataset_rows.end()) {
      in.visibility = visibility(it->second);
      if (in.visibility != DatasetVisibility::kHidden) {
        in.ns = it->second.ns;
        in.name = it->second.name;
        in.field = c.input_field;
        in.transformation = c.transformation;
      }
    }
    LineageColumn& col = by_dataset[c.output_dataset_id][c.output_field];
    col.field = c.output_field;
    col.inputs.push_back(std::move(in));
  }
  for (auto& node : page.nodes) {
    if (node.is_job) continue;
    auto it = by_dataset.find(node.id);
    if (it == by_dataset.end()) continue;
    for (auto& [field, col] : it->second) node.columns.push_back(std::move(col));
  }
  return page;
}

Result<std::vector<store::LineageRunEvent>> LineageService::RunEvents(const std::string& run_id) {
  if (lineage_ == nullptr) return Unsupported("This metadata store keeps no lineage");
  return lineage_->EventsOfRun(ToLower(run_id), 1000);
}

}  // namespace cairn::service
