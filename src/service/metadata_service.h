// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "connector/connector.h"
#include "service/events.h"
#include "model/entities.h"
#include "store/metadata_store.h"

namespace cairn::service {

using connector::CallContext;

/// An in-use catalog of an in-use metalake, as one request resolved it: both rows and the
/// catalog's connector (kept alive while the handle is).
struct CatalogHandle {
  store::EntityRecord metalake;
  store::EntityRecord catalog;
  std::shared_ptr<connector::Connector> connector;
};

/// The use cases of metalakes and catalogs, and the resolve stage for everything inside a
/// catalog: `OpenCatalog` checks that the metalake and catalog exist and are in use, and hands
/// out the catalog's connector. Synchronous; safe to call from many threads.
///
/// Errors carry the EntityKind of the object they are about: kNotFound(kMetalake) when the
/// metalake is missing, kNotInUse(kCatalog) when the catalog is disabled, and so on.
class MetadataService {
 public:
  MetadataService(store::MetadataStore& store, const connector::ConnectorRegistry& registry);

  // Metalakes.
  Result<model::Metalake> CreateMetalake(const CallContext& ctx, const model::Metalake& metalake);
  Result<model::Metalake> LoadMetalake(std::string_view name);
  Result<std::vector<model::Metalake>> ListMetalakes();
  Result<model::Metalake> AlterMetalake(const CallContext& ctx, std::string_view name,
                                        const std::vector<model::EntityChange>& changes);
  Status SetMetalakeInUse(const CallContext& ctx, std::string_view name, bool in_use);
  /// False when absent. kInUse unless disabled or `force`; kNotEmpty when it has catalogs and
  /// not `force`.
  Result<bool> DropMetalake(const CallContext& ctx, std::string_view name, bool force);

  // Catalogs.
  Result<model::Catalog> CreateCatalog(const CallContext& ctx, const model::Catalog& catalog);
  /// Builds the connector for `catalog` without storing anything and checks its source.
  Status TestConnection(const model::Catalog& catalog);
  /// Checks the source of an existing catalog.
  Status TestExistingConnection(std::string_view metalake, std::string_view name);
  Result<model::Catalog> LoadCatalog(std::string_view metalake, std::string_view name);
  Result<std::vector<model::Catalog>> ListCatalogs(std::string_view metalake);
  Result<model::Catalog> AlterCatalog(const CallContext& ctx, std::string_view metalake,
                                      std::string_view name,
                                      const std::vector<model::EntityChange>& changes);
  Status SetCatalogInUse(const CallContext& ctx, std::string_view metalake, std::string_view name,
                         bool in_use);
  Result<bool> DropCatalog(const CallContext& ctx, std::string_view metalake, std::string_view name,
                           bool force);

  /// Resolves an in-use catalog of an in-use metalake to its rows and connector, in one store
  /// round trip.
  Result<CatalogHandle> Open(std::string_view metalake, std::string_view catalog);
  /// Open, for callers that need only the connector.
  Result<std::shared_ptr<connector::Connector>> OpenCatalog(std::string_view metalake,
                                                            std::string_view catalog);

  /// The stream of object changes of this server: every interface publishes the changes it
  /// makes here (metalakes and catalogs are published by this service itself).
  EventStream& events() { return events_; }
  /// The store this service reads and writes (for the services beside it).
  store::MetadataStore& store() { return store_; }

 private:
  // Open's rows as the store shares them (not copied) and the catalog's connector.
  struct OpenedRows {
    store::MetadataStore::PathRows rows;
    std::shared_ptr<connector::Connector> connector;
  };
  Result<OpenedRows> OpenRows(std::string_view metalake, std::string_view catalog);

  /// Publishes a change of a metalake (empty `catalog`) or catalog; a `new_name` that differs
  /// from the old one makes it a rename.
  void Changed(const CallContext& ctx, ChangeType type, std::string_view metalake,
               std::string_view catalog = "", std::string_view new_name = "");

  Result<store::EntityRecord> GetMetalakeRow(std::string_view name);
  Result<store::EntityRecord> GetInUseMetalakeRow(std::string_view name);
  Result<store::EntityRecord> GetCatalogRow(int64_t metalake_id, std::string_view name);
  Result<model::Catalog> ToCatalog(std::string_view metalake, const store::EntityRecord& row) const;
  /// The connector built for this version of the catalog row, if there is one.
  std::shared_ptr<connector::Connector> BuiltConnector(const store::EntityRecord& row);
  Result<std::shared_ptr<connector::Connector>> ConnectorFor(const model::Catalog& catalog,
                                                             const store::EntityRecord& row);
  void ForgetConnector(int64_t catalog_id);

  store::MetadataStore& store_;
  const connector::ConnectorRegistry& registry_;
  EventStream events_;

  struct CachedConnector {
    int64_t version = 0;
    std::shared_ptr<connector::Connector> connector;
  };
  std::mutex mu_;
  std::unordered_map<int64_t, CachedConnector> connectors_;  // guarded by mu_; by catalog id
};

}  // namespace cairn::service
