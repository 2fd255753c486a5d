// SPDX-License-Identifier: Apache-2.0
#include "service/statistics_service.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/util.h"
#include "model/entities.h"
#include "store/retry.h"
#include "store/transact.h"

namespace cairn::service {

using model::Statistic;
using store::EntityRecord;
using store::EntityType;
using Json = nlohmann::json;

namespace {

// Bounds of what one table keeps, so that a caller cannot grow a row or a list without end.
constexpr size_t kMaxStatisticNameBytes = 255;
constexpr size_t kMaxPartitionNameBytes = 1024;
constexpr size_t kMaxValueBytes = 64 * 1024;
constexpr size_t kMaxStatisticsPerObject = 1000;  // on the table, and on each partition
// Partitions are read in pages of this many rows while a range is walked.
constexpr int kPartitionPage = 1000;

// The statistics an Iceberg table carries, by the snapshot summary field each is read from.
struct ReservedFigure {
  std::string_view name;
  std::string_view summary_field;
};
constexpr ReservedFigure kIcebergFigures[] = {
    {"row_count", "total-records"},
    {"file_count", "total-data-files"},
    {"delete_file_count", "total-delete-files"},
    {"total_size_bytes", "total-files-size"},
    {"position_delete_count", "total-position-deletes"},
    {"equality_delete_count", "total-equality-deletes"},
};
constexpr std::string_view kSnapshotIdName = "snapshot_id";

bool IsReservedName(std::string_view name) {
  if (name == kSnapshotIdName) return true;
  return std::any_of(std::begin(kIcebergFigures), std::end(kIcebergFigures),
                     [&](const ReservedFigure& f) { return f.name == name; });
}

std::string_view VerbText(bool partitions, int verb) {
  static constexpr std::string_view kTable[] = {"Listing statistics", "Updating statistics",
                                                "Dropping statistics"};
  static constexpr std::string_view kPartitions[] = {"Listing partition statistics",
                                                     "Updating partition statistics",
                                                     "Dropping partition statistics"};
  return partitions ? kPartitions[verb] : kTable[verb];
}

Status CheckPartitionName(std::string_view name, std::string_view field) {
  auto checked =
      model::ValidateLabelText(EntityKind::kNone, "partition name", name, kMaxPartitionNameBytes);
  if (!checked) return std::move(checked).error().WithContext(field);
  return Ok();
}

// A name a user may set: `custom-...`; a reserved one is unmodifiable, any other illegal.
Status CheckSettableName(std::string_view name, std::string_view field) {
  auto checked = model::ValidateLabelText(EntityKind::kStatistic, "statistic name", name,
                                          kMaxStatisticNameBytes);
  if (!checked) return std::move(checked).error().WithContext(field);
  if (IsReservedName(name)) {
    return MakeError(ErrorCode::kUnsupported, EntityKind::kStatistic,
                     "Statistic {} is unmodifiable: the table's source keeps it", name);
  }
  if (!name.starts_with(model::kCustomStatisticPrefix)) {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kStatistic,
                     "{}: Statistic name must start with {}, but got: {}", field,
                     model::kCustomStatisticPrefix, name);
  }
  return Ok();
}

Status CheckValues(const std::vector<std::pair<std::string, std::string>>& values,
                   std::string_view field) {
  if (values.empty()) {
    return InvalidArgument("\"{}\" must not be null or empty", field);
  }
  for (const auto& [name, value] : values) {
    CAIRN_RETURN_IF_ERROR(CheckSettableName(name, field));
    if (value.empty() || value == "null") {
      return InvalidArgument("{}: statistic \"value\" for '{}' must not be null", field, name);
    }
    if (value.size() > kMaxValueBytes) {
      return InvalidArgument(
          "{}: the value of statistic '{}' is {} bytes long, at most {} are allowed", field, name,
          value.size(), kMaxValueBytes);
    }
  }
  return Ok();
}

Status CheckDropNames(const std::vector<std::string>& names, std::string_view field) {
  if (names.empty()) return InvalidArgument("\"{}\" must not be null or empty", field);
  for (const auto& name : names) {
    auto checked =
        model::ValidateLabelText(EntityKind::kNone, "statistic name", name, kMaxStatisticNameBytes);
    if (!checked) return std::move(checked).error().WithContext(field);
    if (IsReservedName(name)) {
      return MakeError(ErrorCode::kUnsupported, EntityKind::kStatistic,
                       "Statistic {} is unmodifiable: the table's source keeps it", name);
    }
  }
  return Ok();
}

bool RetryWrite(const Error& e) {
  // A racing writer moved a row (kConflict) or inserted the same name first (kAlreadyExists).
  return e.code == ErrorCode::kConflict || e.code == ErrorCode::kAlreadyExists;
}

// Runs `body` in one transaction, again when a racing writer moved a row it read or inserted a
// name first: a request is all or nothing.
Status Transact(store::MetadataStore& store,
                const std::function<Status(store::MetadataStore&)>& body) {
  return store::Transact(store, body, RetryWrite);
}

// A new row of `type` under the table, made by the caller.
EntityRecord NewRow(EntityType type, int64_t table_id, const std::string& name, std::string payload,
                    const Caller& caller) {
  EntityRecord row;
  row.type = type;
  row.parent_id = table_id;
  row.name = name;
  row.payload = std::move(payload);
  row.audit.creator = caller.ctx.principal;
  row.audit.create_time = caller.ctx.now_ms;
  return row;
}

Error TooMany(std::string_view where) {
  return InvalidArgument("{} would hold more than {} statistics", where, kMaxStatisticsPerObject);
}

// One statistic inside a partition's row: {"value": v, "creator": ..., "createTime": ...,
// "lastModifier": ..., "lastModifiedTime": ...}.
Statistic FromPartitionEntry(const std::string& name, const Json& entry) {
  Statistic s;
  s.name = name;
  s.value = entry.value("value", Json()).dump();
  s.audit.creator = entry.value("creator", std::string());
  s.audit.create_time = entry.value("createTime", int64_t{0});
  if (entry.contains("lastModifier"))
    s.audit.last_modifier = entry["lastModifier"].get<std::string>();
  if (entry.contains("lastModifiedTime")) {
    s.audit.last_modified_time = entry["lastModifiedTime"].get<int64_t>();
  }
  return s;
}

Result<Json> PartitionPayload(const EntityRecord& row) {
  Json payload = Json::parse(row.payload, nullptr, /*allow_exceptions=*/false);
  if (!payload.is_object()) {
    return Internal("the statistics of partition {} are corrupt", row.name);
  }
  return payload;
}

model::PartitionStatistics FromPartitionRow(const EntityRecord& row, const Json& payload) {
  model::PartitionStatistics p;
  p.partition = row.name;
  for (const auto& [name, entry] : payload.items()) {
    if (entry.is_object()) p.statistics.push_back(FromPartitionEntry(name, entry));
  }
  return p;
}

}  // namespace

StatisticsService::StatisticsService(store::MetadataStore& store, Authorizer& authorizer)
    : store_(store), authz_(authorizer) {}

Result<MetadataObjectTarget> StatisticsService::Table(const Caller& caller,
                                                      const std::string& metalake,
                                                      const std::string& type,
                                                      const std::string& full_name, Verb verb,
                                                      bool partitions) {
  CAIRN_RETURN_IF_ERROR(InUseMetalake(authz_, metalake));
  if (auto kind = model::FindKindBySecurable(type); kind && *kind != ObjectType::kTable) {
    return MakeError(ErrorCode::kUnsupported, EntityKind::kMetadataObject,
                     "{} is only supported for tables now",
                     VerbText(partitions, static_cast<int>(verb)));
  }
  const Action action = verb == Verb::kList ? Action::kLoadTable : Action::kModifyTable;
  // A caller who may not act on a table of that name learns nothing of whether it exists.
  auto resolved = ResolveOrSee(authz_, see_, caller, metalake, type, full_name,
                               [&](const MetadataObjectTarget& named) {
                                 return authz_.Check(caller.principal, action, named.target);
                               });
  if (!resolved) return std::move(resolved).error();
  if (resolved->type != ObjectType::kTable) {  // a spelling FindKindBySecurable let through
    return MakeError(ErrorCode::kUnsupported, EntityKind::kMetadataObject,
                     "{} is only supported for tables now",
                     VerbText(partitions, static_cast<int>(verb)));
  }
  CAIRN_RETURN_IF_ERROR(authz_.Check(caller.principal, action, resolved->target));
  if (!resolved->target.object_row) {
    return NotFound(EntityKind::kMetadataObject, "Table {} does not exist", full_name);
  }
  return resolved;
}

Result<std::vector<Statistic>> StatisticsService::List(const Caller& caller,
                                                       const std::string& metalake,
                                                       const std::string& type,
                                                       const std::string& full_name) {
  CAIRN_ASSIGN_OR_RETURN(auto table, Table(caller, metalake, type, full_name, Verb::kList, false));
  std::vector<Statistic> out;
  if (source_) {
    CAIRN_ASSIGN_OR_RETURN(out, source_(caller, table));
  }
  CAIRN_ASSIGN_OR_RETURN(auto rows,
                         store_.List(EntityType::kStatistic, table.target.object_row->id, "", 0));
  for (auto& row : rows) {
    Statistic s;
    s.name = std::move(row.name);
    s.value = std::move(row.payload);
    s.audit = std::move(row.audit);
    out.push_back(std::move(s));
  }
  return out;
}

Status StatisticsService::Update(const Caller& caller, const std::string& metalake,
                                 const std::string& type, const std::string& full_name,
                                 const model::StatisticsUpdate& update) {
  CAIRN_RETURN_IF_ERROR(CheckValues(update.values, "updates"));
  CAIRN_ASSIGN_OR_RETURN(auto table,
                         Table(caller, metalake, type, full_name, Verb::kUpdate, false));
  const int64_t table_id = table.target.object_row->id;
  return Transact(store_, [&](store::MetadataStore& tx) -> Status {
    CAIRN_ASSIGN_OR_RETURN(auto existing, tx.List(EntityType::kStatistic, table_id, "", 0));
    std::map<std::string, EntityRecord, std::less<>> by_name;
    for (auto& row : existing) by_name.emplace(row.name, std::move(row));
    size_t count = by_name.size();
    for (const auto& [name, value] : update.values) {
      auto it = by_name.find(name);
      if (it != by_name.end()) {
        EntityRecord row = it->second;
        row.payload = value;
        row.audit.last_modifier = caller.ctx.principal;
        row.audit.last_modified_time = caller.ctx.now_ms;
        CAIRN_ASSIGN_OR_RETURN(it->second, tx.CompareAndSet(row));
        continue;
      }
      if (++count > kMaxStatisticsPerObject) return TooMany("The table");
      CAIRN_ASSIGN_OR_RETURN(
          EntityRecord inserted,
          tx.Insert(NewRow(EntityType::kStatistic, table_id, name, value, caller)));
      by_name.emplace(name, std::move(inserted));
    }
    return Ok();
  });
}

Result<bool> StatisticsService::Drop(const Caller& caller, const std::string& metalake,
                                     const std::string& type, const std::string& full_name,
                                     const std::vector<std::string>& names) {
  CAIRN_RETURN_IF_ERROR(CheckDropNames(names, "names"));
  CAIRN_ASSIGN_OR_RETURN(auto table, Table(caller, metalake, type, full_name, Verb::kDrop, false));
  const int64_t table_id = table.target.object_row->id;
  bool dropped = false;
  const Status done = store_.RunInTransaction([&](store::MetadataStore& tx) -> Status {
    dropped = false;
    for (const auto& name : names) {
      auto row = tx.Get(EntityType::kStatistic, table_id, name);
      if (!row && row.error().code == ErrorCode::kNotFound) continue;
      if (!row) return std::move(row).error();
      CAIRN_ASSIGN_OR_RETURN(bool gone, tx.Delete(row->id));
      dropped = dropped || gone;
    }
    return Ok();
  });
  CAIRN_RETURN_IF_ERROR(done);
  return dropped;
}

Result<std::vector<model::PartitionStatistics>> StatisticsService::ListPartitions(
    const Caller& caller, const std::string& metalake, const std::string& type,
    const std::string& full_name, const model::PartitionRange& range) {
  if (range.from) CAIRN_RETURN_IF_ERROR(CheckPartitionName(*range.from, "from"));
  if (range.to) CAIRN_RETURN_IF_ERROR(CheckPartitionName(*range.to, "to"));
  CAIRN_ASSIGN_OR_RETURN(auto table, Table(caller, metalake, type, full_name, Verb::kList, true));
  const int64_t table_id = table.target.object_row->id;
  std::vector<model::PartitionStatistics> out;
  auto below_upper = [&](const std::string& name) {
    if (!range.to) return true;
    return range.to_inclusive ? name <= *range.to : name < *range.to;
  };
  auto add = [&](const EntityRecord& row) -> Status {
    CAIRN_ASSIGN_OR_RETURN(Json payload, PartitionPayload(row));
    out.push_back(FromPartitionRow(row, payload));
    return Ok();
  };
  std::string after;
  if (range.from) {
    if (range.from_inclusive && below_upper(*range.from)) {
      auto first = store_.Get(EntityType::kPartitionStatistics, table_id, *range.from);
      if (first) {
        CAIRN_RETURN_IF_ERROR(add(*first));
      } else if (first.error().code != ErrorCode::kNotFound) {
        return std::move(first).error();
      }
    }
    after = *range.from;
  }
  while (true) {
    CAIRN_ASSIGN_OR_RETURN(
        auto rows, store_.List(EntityType::kPartitionStatistics, table_id, after, kPartitionPage));
    for (const auto& row : rows) {
      if (!below_upper(row.name)) return out;
      CAIRN_RETURN_IF_ERROR(add(row));
    }
    if (rows.size() < static_cast<size_t>(kPartitionPage)) return out;
    after = rows.back().name;
  }
}

Status StatisticsService::UpdatePartitions(const Caller& caller, const std::string& metalake,
                                           const std::string& type, const std::string& full_name,
                                           const std::vector<model::StatisticsUpdate>& updates) {
  if (updates.empty()) return InvalidArgument("\"updates\" must not be null or empty");
  for (size_t i = 0; i < updates.size(); ++i) {
    const std::string field = fmt::format("updates[{}]", i);
    CAIRN_RETURN_IF_ERROR(CheckPartitionName(updates[i].partition, field + ".partitionName"));
    CAIRN_RETURN_IF_ERROR(CheckValues(updates[i].values, field + ".statistics"));
  }
  CAIRN_ASSIGN_OR_RETURN(auto table, Table(caller, metalake, type, full_name, Verb::kUpdate, true));
  const int64_t table_id = table.target.object_row->id;
  return Transact(store_, [&](store::MetadataStore& tx) -> Status {
    // One write per partition, whatever the number of its entries in the request.
    std::map<std::string, std::pair<std::optional<EntityRecord>, Json>> partitions;
    for (const auto& update : updates) {
      auto it = partitions.find(update.partition);
      if (it == partitions.end()) {
        auto row = tx.Get(EntityType::kPartitionStatistics, table_id, update.partition);
        if (!row && row.error().code != ErrorCode::kNotFound) return std::move(row).error();
        Json payload = Json::object();
        if (row) {
          CAIRN_ASSIGN_OR_RETURN(payload, PartitionPayload(*row));
        }
        std::optional<EntityRecord> found;
        if (row) found = std::move(*row);
        it = partitions
                 .emplace(update.partition, std::make_pair(std::move(found), std::move(payload)))
                 .first;
      }
      Json& payload = it->second.second;
      for (const auto& [name, value] : update.values) {
        Json parsed = Json::parse(value, nullptr, /*allow_exceptions=*/false);
        if (parsed.is_discarded()) return InvalidArgument("the value of {} is not JSON", name);
        auto entry = payload.find(name);
        if (entry != payload.end() && entry->is_object()) {
          (*entry)["value"] = std::move(parsed);
          (*entry)["lastModifier"] = caller.ctx.principal;
          (*entry)["lastModifiedTime"] = caller.ctx.now_ms;
          continue;
        }
        if (payload.size() + 1 > kMaxStatisticsPerObject) {
          return TooMany(fmt::format("Partition {}", update.partition));
        }
        payload[name] = Json{{"value", std::move(parsed)},
                             {"creator", caller.ctx.principal},
                             {"createTime", caller.ctx.now_ms}};
      }
    }
    for (auto& [partition, state] : partitions) {
      auto& [row, payload] = state;
      if (row) {
        row->payload = payload.dump();
        row->audit.last_modifier = caller.ctx.principal;
        row->audit.last_modified_time = caller.ctx.now_ms;
        CAIRN_RETURN_IF_ERROR(tx.CompareAndSet(*row));
      } else {
        CAIRN_RETURN_IF_ERROR(tx.Insert(
            NewRow(EntityType::kPartitionStatistics, table_id, partition, payload.dump(), caller)));
      }
    }
    return Ok();
  });
}

Result<bool> StatisticsService::DropPartitions(const Caller& caller, const std::string& metalake,
                                               const std::string& type,
                                               const std::string& full_name,
                                               const std::vector<model::StatisticsDrop>& drops) {
  if (drops.empty()) return InvalidArgument("\"drops\" must not be null or empty");
  for (size_t i = 0; i < drops.size(); ++i) {
    const std::string field = fmt::format("drops[{}]", i);
    CAIRN_RETURN_IF_ERROR(CheckPartitionName(drops[i].partition, field + ".partitionName"));
    CAIRN_RETURN_IF_ERROR(CheckDropNames(drops[i].names, field + ".statisticNames"));
  }
  CAIRN_ASSIGN_OR_RETURN(auto table, Table(caller, metalake, type, full_name, Verb::kDrop, true));
  const int64_t table_id = table.target.object_row->id;
  bool dropped = false;
  const Status written = Transact(store_, [&](store::MetadataStore& tx) -> Status {
    dropped = false;
    std::map<std::string, std::vector<std::string>> names;
    for (const auto& drop : drops) {
      auto& list = names[drop.partition];
      list.insert(list.end(), drop.names.begin(), drop.names.end());
    }
    for (const auto& [partition, list] : names) {
      auto row = tx.Get(EntityType::kPartitionStatistics, table_id, partition);
      if (!row && row.error().code == ErrorCode::kNotFound) continue;
      if (!row) return std::move(row).error();
      CAIRN_ASSIGN_OR_RETURN(Json payload, PartitionPayload(*row));
      bool changed = false;
      for (const auto& name : list) changed = payload.erase(name) > 0 || changed;
      if (!changed) continue;
      dropped = true;
      if (payload.empty()) {
        CAIRN_RETURN_IF_ERROR(tx.Delete(row->id));
        continue;
      }
      row->payload = payload.dump();
      row->audit.last_modifier = caller.ctx.principal;
      row->audit.last_modified_time = caller.ctx.now_ms;
      CAIRN_RETURN_IF_ERROR(tx.CompareAndSet(*row));
    }
    return Ok();
  });
  CAIRN_RETURN_IF_ERROR(written);
  return dropped;
}

Result<std::vector<Statistic>> IcebergSnapshotStatistics(std::string_view metadata_text,
                                                         const model::Audit& table_audit) {
  Json metadata = Json::parse(metadata_text, nullptr, /*allow_exceptions=*/false);
  if (!metadata.is_object()) return Internal("the table's metadata file is not a JSON object");
  const Json* snapshot = nullptr;
  const auto current = metadata.find("current-snapshot-id");
  if (current != metadata.end() && current->is_number_integer() && current->get<int64_t>() != -1) {
    const auto snapshots = metadata.find("snapshots");
    if (snapshots != metadata.end() && snapshots->is_array()) {
      for (const auto& s : *snapshots) {
        if (s.is_object() && s.value("snapshot-id", Json()) == *current) {
          snapshot = &s;
          break;
        }
      }
    }
  }
  model::Audit audit;
  audit.creator = table_audit.creator;
  audit.create_time = table_audit.create_time;
  const Json* summary = nullptr;
  if (snapshot != nullptr) {
    if (auto ts = snapshot->find("timestamp-ms");
        ts != snapshot->end() && ts->is_number_integer()) {
      audit.create_time = ts->get<int64_t>();
    }
    if (auto sum = snapshot->find("summary"); sum != snapshot->end() && sum->is_object()) {
      summary = &*sum;
    }
  }
  std::vector<Statistic> out;
  auto reserved = [&](std::string_view name, std::string value) {
    Statistic s;
    s.name = std::string(name);
    s.value = std::move(value);
    s.reserved = true;
    s.modifiable = false;
    s.audit = audit;
    out.push_back(std::move(s));
  };
  for (const auto& figure : kIcebergFigures) {
    if (snapshot == nullptr) {  // no data yet: every figure is zero
      reserved(figure.name, "0");
      continue;
    }
    if (summary == nullptr) continue;
    auto field = summary->find(std::string(figure.summary_field));
    if (field == summary->end() || !field->is_string()) continue;  // a writer that keeps no total
    const std::string& text = field->get_ref<const std::string&>();
    auto number = ParseInt64(text);
    if (number) reserved(figure.name, std::to_string(*number));
  }
  if (snapshot != nullptr) reserved(kSnapshotIdName, std::to_string(current->get<int64_t>()));
  std::sort(out.begin(), out.end(),
            [](const Statistic& a, const Statistic& b) { return a.name < b.name; });
  return out;
}

}  // namespace cairn::service
