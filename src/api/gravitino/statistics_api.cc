// SPDX-License-Identifier: Apache-2.0
// Statistics of the Gravitino API: those of a table,
// `/metalakes/{m}/objects/{type}/{fullName}/statistics`, and of its partitions,
// `.../statistics/partitions` (docs/statistics.md).
#include <optional>

#include "api/gravitino/routes.h"
#include "common/util.h"
#include "model/statistic.h"

namespace cairn::api::gravitino {

namespace {

using http::Response;

// StatisticDTO: the value as it was set (any JSON but null), the audit of its last change.
OrderedJson StatisticToJson(const model::Statistic& s) {
  OrderedJson j{{"name", s.name}};
  OrderedJson value = OrderedJson::parse(s.value, nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded()) j["value"] = std::move(value);
  j["reserved"] = s.reserved;
  j["modifiable"] = s.modifiable;
  j["audit"] = AuditToJson(s.audit);
  return j;
}

OrderedJson StatisticsToJson(const std::vector<model::Statistic>& statistics) {
  OrderedJson arr = OrderedJson::array();
  for (const auto& s : statistics) arr.push_back(StatisticToJson(s));
  return arr;
}

// A map of statistic names to values (`updates`, or one partition's `statistics`).
Result<std::vector<std::pair<std::string, std::string>>> ValuesFromJson(const Json& j,
                                                                        const char* field) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) {
    return InvalidArgument("Field '{}' is required and cannot be null", field);
  }
  if (!it->is_object()) {
    return InvalidArgument("Field '{}' must be an object of statistic names to values", field);
  }
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(it->size());
  for (const auto& [name, value] : it->items()) {
    if (value.is_null()) {
      return InvalidArgument("Field '{}': the value of statistic '{}' cannot be null", field, name);
    }
    out.emplace_back(name, value.dump());
  }
  return out;
}

Result<Response> ListStatistics(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(auto statistics,
                         c.objects.statistics().List(c.caller, c.Param("metalake"), c.Param("type"),
                                                     c.Param("fullName")));
  return Reply(OrderedJson{{"statistics", StatisticsToJson(statistics)}});
}

// StatisticsUpdateRequest: `{"updates": {name: value, ...}}`.
Result<Response> UpdateStatistics(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  model::StatisticsUpdate update;
  CAIRN_ASSIGN_OR_RETURN(update.values, ValuesFromJson(body, "updates"));
  CAIRN_RETURN_IF_ERROR(c.objects.statistics().Update(
      c.caller, c.Param("metalake"), c.Param("type"), c.Param("fullName"), update));
  return Reply(OrderedJson::object());  // BaseResponse
}

// StatisticsDropRequest: `{"names": [...]}`.
Result<Response> DropStatistics(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  if (IsNullOrAbsent(body, "names")) {
    return InvalidArgument("Field 'names' is required and cannot be null");
  }
  CAIRN_ASSIGN_OR_RETURN(auto names, NameListFromJson(body, "names"));
  CAIRN_ASSIGN_OR_RETURN(bool dropped,
                         c.objects.statistics().Drop(c.caller, c.Param("metalake"), c.Param("type"),
                                                     c.Param("fullName"), names));
  return Reply(OrderedJson{{"dropped", dropped}});
}

// A boolean query parameter, `true` or `false` in any case.
Result<bool> BoolQuery(const Call& c, const char* name, bool fallback) {
  auto v = c.request.Query(name);
  if (!v || v->empty()) return fallback;
  const std::string lower = ToLower(*v);
  if (lower == "true") return true;
  if (lower == "false") return false;
  return InvalidArgument("Query parameter '{}' must be true or false, but got: {}", name, *v);
}

Result<Response> ListPartitionStatistics(Call& c) {
  model::PartitionRange range;
  if (auto from = c.request.Query("from")) range.from = std::string(*from);
  if (auto to = c.request.Query("to")) range.to = std::string(*to);
  CAIRN_ASSIGN_OR_RETURN(range.from_inclusive, BoolQuery(c, "fromInclusive", true));
  CAIRN_ASSIGN_OR_RETURN(range.to_inclusive, BoolQuery(c, "toInclusive", false));
  CAIRN_ASSIGN_OR_RETURN(auto partitions, c.objects.statistics().ListPartitions(
                                              c.caller, c.Param("metalake"), c.Param("type"),
                                              c.Param("fullName"), range));
  OrderedJson arr = OrderedJson::array();
  for (const auto& p : partitions) {
    arr.push_back(OrderedJson{{"partitionName", p.partition},
                              {"statistics", StatisticsToJson(p.statistics)}});
  }
  return Reply(OrderedJson{{"partitionStatistics", std::move(arr)}});
}

// A required array field of objects, each checked by `each` with its index.
template <typename T, typename F>
Result<std::vector<T>> ArrayOf(const Json& body, const char* field, F each) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) {
    return InvalidArgument("Field '{}' is required and cannot be null", field);
  }
  if (!it->is_array()) return InvalidArgument("Field '{}' must be an array", field);
  std::vector<T> out;
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& item = (*it)[i];
    const std::string at = fmt::format("{}[{}]", field, i);
    if (!item.is_object()) return InvalidArgument("Field '{}' must be an object", at);
    auto parsed = each(item);
    if (!parsed) return std::move(parsed).error().WithContext(at);
    out.push_back(std::move(*parsed));
  }
  return out;
}

// PartitionStatisticsUpdateRequest: `{"updates": [{"partitionName", "statistics": {...}}]}`.
Result<Response> UpdatePartitionStatistics(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(
      auto updates, ArrayOf<model::StatisticsUpdate>(
                        body, "updates", [](const Json& u) -> Result<model::StatisticsUpdate> {
                          model::StatisticsUpdate out;
                          CAIRN_ASSIGN_OR_RETURN(out.partition, RequiredString(u, "partitionName"));
                          CAIRN_ASSIGN_OR_RETURN(out.values, ValuesFromJson(u, "statistics"));
                          return out;
                        }));
  CAIRN_RETURN_IF_ERROR(c.objects.statistics().UpdatePartitions(
      c.caller, c.Param("metalake"), c.Param("type"), c.Param("fullName"), updates));
  return Reply(OrderedJson::object());
}

// PartitionStatisticsDropRequest: `{"drops": [{"partitionName", "statisticNames": [...]}]}`.
Result<Response> DropPartitionStatistics(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(
      auto drops, ArrayOf<model::StatisticsDrop>(
                      body, "drops", [](const Json& d) -> Result<model::StatisticsDrop> {
                        model::StatisticsDrop out;
                        CAIRN_ASSIGN_OR_RETURN(out.partition, RequiredString(d, "partitionName"));
                        if (IsNullOrAbsent(d, "statisticNames")) {
                          return InvalidArgument(
                              "Field 'statisticNames' is required and cannot be "
                              "null");
                        }
                        CAIRN_ASSIGN_OR_RETURN(out.names, NameListFromJson(d, "statisticNames"));
                        return out;
                      }));
  CAIRN_ASSIGN_OR_RETURN(bool dropped, c.objects.statistics().DropPartitions(
                                           c.caller, c.Param("metalake"), c.Param("type"),
                                           c.Param("fullName"), drops));
  return Reply(OrderedJson{{"dropped", dropped}});
}

}  // namespace

std::vector<Route> StatisticsRoutes() {
  using K = EntityKind;
  constexpr std::nullopt_t kService = std::nullopt;  // the statistics service decides
  constexpr std::string_view kTable = "/metalakes/{metalake}/objects/{type}/{fullName}/statistics";
  constexpr std::string_view kPartitions =
      "/metalakes/{metalake}/objects/{type}/{fullName}/statistics/partitions";
  return {
      {"GET", api::PathPattern(kTable), K::kStatistic, "LIST", kService, ListStatistics},
      {"PUT", api::PathPattern(kTable), K::kStatistic, "UPDATE", kService, UpdateStatistics},
      {"POST", api::PathPattern(kTable), K::kStatistic, "DROP", kService, DropStatistics},
      {"GET", api::PathPattern(kPartitions), K::kStatistic, "LIST", kService,
       ListPartitionStatistics},
      {"PUT", api::PathPattern(kPartitions), K::kStatistic, "UPDATE", kService,
       UpdatePartitionStatistics},
      {"POST", api::PathPattern(kPartitions), K::kStatistic, "DROP", kService,
       DropPartitionStatistics},
  };
}

}  // namespace cairn::api::gravitino
