// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "store/connection_pool.h"
#include "store/lineage_store.h"

namespace cairn::store {

/// The LineageStore over the metadata store's connection pool: the same SQL on SQLite and
/// PostgreSQL (migration 3's tables). The pool must outlive it.
class SqlLineageStore final : public LineageStore {
 public:
  explicit SqlLineageStore(ConnectionPool& pool) : pool_(pool) {}

  Result<int64_t> Append(const LineageEventRecord& event) override;
  Result<std::vector<LineageDataset>> FindDataset(const std::string& ns,
                                                  const std::string& name) override;
  Result<std::vector<LineageDataset>> DatasetsOfObject(const std::string& metalake,
                                                       const std::string& object_name) override;
  Result<std::vector<LineageDataset>> GetDatasets(const std::vector<int64_t>& ids) override;
  Result<std::vector<LineageJob>> GetJobs(const std::vector<int64_t>& ids) override;
  Result<std::vector<LineageEdge>> EdgesOfDatasets(const std::vector<int64_t>& ids,
                                                   LineageRole role) override;
  Result<std::vector<LineageEdge>> EdgesOfJobs(const std::vector<int64_t>& ids,
                                               LineageRole role) override;
  Result<std::vector<LineageColumnEdge>> ColumnEdgesInto(const std::vector<int64_t>& ids) override;
  Result<std::vector<LineageRunEvent>> EventsOfRun(const std::string& run_id, int limit) override;

 private:
  ConnectionPool& pool_;
};

}  // namespace cairn::store
