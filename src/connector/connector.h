// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "common/result.h"
#include "model/entities.h"
#include "model/ml_model.h"
#include "model/table.h"
#include "model/topic.h"
#include "model/view.h"

namespace cairn::store {
class MetadataStore;
}
namespace cairn::storage {
class CredentialVendor;
}

namespace cairn::connector {

// Capabilities declared elsewhere (Connector::Find).
class IcebergCatalog;
class IcebergProxy;
class ExternalRows;
class IcebergCaches;

/// The Authorization header of the request the calling thread is serving, for connectors that
/// forward the caller's own credentials to a remote catalog (see docs/federation.md). Set by the
/// front end for the duration of one request; requests are served on one thread each.
class CallerAuthorizationScope {
 public:
  /// `authorization` is a view of the request's header: the request outlives the scope.
  explicit CallerAuthorizationScope(std::optional<std::string_view> authorization);
  ~CallerAuthorizationScope();
  CallerAuthorizationScope(const CallerAuthorizationScope&) = delete;
  CallerAuthorizationScope& operator=(const CallerAuthorizationScope&) = delete;

 private:
  std::optional<std::string_view> previous_;
};

/// The header set by the innermost CallerAuthorizationScope of this thread, if any.
std::optional<std::string> CallerAuthorization();

/// A catalog property that is "true" or "false" (any case); absent: `fallback`. kInvalidArgument
/// naming the property otherwise.
Result<bool> BoolProperty(const model::Properties& props, std::string_view name, bool fallback);

/// Who is calling and when; connectors stamp audit fields from it.
struct CallContext {
  std::string principal = "anonymous";
  int64_t now_ms = 0;
  std::string_view interface = {};  // the front end serving the call ("gravitino", "iceberg", ...)
};

/// What a connector is built from: the catalog row and the server-wide dependencies.
struct CatalogInfo {
  int64_t catalog_id = 0;
  std::string metalake;
  std::string name;
  model::CatalogType type = model::CatalogType::kRelational;
  std::string provider;
  model::Properties properties;
};

/// Bounds of what the managed Iceberg catalogs of one server keep in memory (IcebergCaches).
struct IcebergCacheOptions {
  /// Metadata files kept by location, in bytes of their text (cairn.iceberg.metadata-cache-bytes).
  size_t metadata_cache_bytes = size_t{256} * 1024 * 1024;
  /// Cached local metadata files also held open, at most (cairn.iceberg.metadata-open-files):
  /// answers send them with sendfile(2) and prove them present with fstat(2). 0: none.
  size_t metadata_open_files = 256;
  /// Tables whose commit queue, with the last head written, is kept while no commit waits
  /// (cairn.iceberg.commit-queue-idle-tables).
  size_t commit_queue_idle_tables = 8;
  /// Manifest lists written by append rebases remembered so they are not read back
  /// (cairn.iceberg.rebased-list-cache-entries).
  size_t rebased_list_cache_entries = 64;
  /// Manifests and manifest lists read by scan planning, kept by path (they never change), in
  /// approximate bytes of their parsed entries (cairn.iceberg.manifest-cache-bytes).
  size_t manifest_cache_bytes = size_t{64} * 1024 * 1024;
};

/// The caches the managed Iceberg catalogs of one server share (server-owned, never global).
std::shared_ptr<IcebergCaches> MakeIcebergCaches(const IcebergCacheOptions& options);

/// What the managed Iceberg catalogs sharing one IcebergCaches did so far (server metrics).
struct IcebergStats {
  uint64_t metadata_cache_hits = 0;  // metadata files answered from memory
  uint64_t metadata_cache_misses = 0;
  size_t metadata_cache_entries = 0;
  size_t metadata_cache_bytes = 0;
  size_t metadata_cache_capacity_bytes = 0;
  size_t metadata_open_files = 0;  // cached metadata files also held open
  uint64_t manifest_cache_hits = 0;  // manifests and lists scan planning found in memory
  uint64_t manifest_cache_misses = 0;
  size_t manifest_cache_bytes = 0;
  uint64_t commits = 0;               // table commits that landed (single-table commits)
  uint64_t commit_conflicts = 0;      // refused: a requirement failed (409)
  uint64_t commit_state_unknown = 0;  // the pointer swap's outcome is unknown
  uint64_t commit_failures = 0;       // refused for another reason (bad update, storage)
  uint64_t append_rebases = 0;        // stale appends re-applied on the new head (per attempt)
  // How rebases read the appended snapshot's manifest list: only its own records (the rest
  // recognised as a remembered list's), or whole.
  uint64_t rebase_list_reads_own_records = 0;
  uint64_t rebase_list_reads_whole = 0;
};
IcebergStats ReadIcebergStats(IcebergCaches& caches);

struct ConnectorDeps {
  store::MetadataStore* store = nullptr;  // not owned; outlives every connector
  std::string data_dir;                   // server data directory (default warehouse root)
  // Limits of the connections of JDBC catalogs to their sources.
  int jdbc_connect_timeout_s = 5;     // opening a connection
  int jdbc_statement_timeout_s = 30;  // one statement
  int jdbc_pool_wait_ms = 5000;       // waiting for a free pooled connection
  /// Shared by every managed Iceberg catalog of the registry; null: MakeDefaultRegistry makes
  /// one with the default IcebergCacheOptions.
  std::shared_ptr<IcebergCaches> iceberg_caches{};
};

/// Schemas of a catalog: the capability every provider has. Calls read and write through to the
/// source; a provider that lacks an operation answers kUnsupported. Implementations are safe to
/// call from many threads.
class SchemaCatalog {
 public:
  /// How errors name what a provider without this capability lacks ("... does not support
  /// schema operations").
  static constexpr std::string_view kOperations = "schema";

  virtual ~SchemaCatalog() = default;

  virtual Result<std::vector<std::string>> ListSchemas() = 0;
  /// kAlreadyExists when taken.
  virtual Result<model::Schema> CreateSchema(const CallContext& ctx,
                                             const model::Schema& schema) = 0;
  /// kNotFound (EntityKind::kSchema) when absent.
  virtual Result<model::Schema> LoadSchema(std::string_view name) = 0;
  virtual Result<model::Schema> AlterSchema(const CallContext& ctx, std::string_view name,
                                            const std::vector<model::EntityChange>& changes) = 0;
  /// False when absent; kNotEmpty when it has tables and `cascade` is false.
  virtual Result<bool> DropSchema(const CallContext& ctx, std::string_view name, bool cascade) = 0;
  /// True when the catalog holds at least one schema (for the non-empty catalog check).
  virtual Result<bool> HasSchemas() = 0;
};

/// Names in name order after a given name, and whether more follow.
struct NamePage {
  std::vector<std::string> names;
  bool more = false;
};

/// Up to `limit` (> 0) of `names` after `after` in name order: the page a whole list gives.
NamePage PageOfNames(std::vector<std::string> names, const std::string& after, size_t limit);

/// Tables of a catalog's schemas: the capability of relational providers. Calls read and write
/// through to the source. Implementations are safe to call from many threads.
class TableCatalog {
 public:
  /// How errors name what a provider without this capability lacks ("... does not support
  /// table operations").
  static constexpr std::string_view kOperations = "table";

  virtual ~TableCatalog() = default;

  /// kNotFound (kSchema) when the schema is absent.
  virtual Result<std::vector<std::string>> ListTables(std::string_view schema) = 0;
  /// Up to `limit` (> 0) table names after `after` (empty: from the start) in name order. This
  /// default reads the whole list; a source that can read a range of names overrides it, so a
  /// page of a schema of 100,000 tables costs a page.
  virtual Result<NamePage> ListTablesAfter(std::string_view schema, const std::string& after,
                                           size_t limit) {
    CAIRN_ASSIGN_OR_RETURN(auto names, ListTables(schema));
    return PageOfNames(std::move(names), after, limit);
  }
  /// kInvalidArgument for definitions the source cannot hold; nothing is left behind on failure.
  virtual Result<model::Table> CreateTable(const CallContext& ctx, std::string_view schema,
                                           const model::Table& table) = 0;
  virtual Result<model::Table> LoadTable(std::string_view schema, std::string_view name) = 0;
  /// Applies all changes atomically, in order; concurrent alters never lose an update.
  virtual Result<model::Table> AlterTable(const CallContext& ctx, std::string_view schema,
                                          std::string_view name,
                                          const std::vector<model::TableChange>& changes) = 0;
  /// False when absent. `purge` also deletes the table's data and metadata files.
  virtual Result<bool> DropTable(const CallContext& ctx, std::string_view schema,
                                 std::string_view name, bool purge) = 0;
};

/// A live connection to one catalog's source. One implementation per provider, holding the
/// catalog's lifecycle here and everything else as capabilities: interfaces of their own
/// (SchemaCatalog, TableCatalog, FilesetCatalog, ...) that the provider implements and registers
/// with Provide while it is built, and that callers look up with Find. A new capability is a new
/// interface; Connector does not change. Implementations are safe to call from many threads.
class Connector {
 public:
  virtual ~Connector() = default;

  /// Checks that the source is reachable with the catalog's properties.
  /// kConnectionFailed when it is not.
  virtual Status TestConnection() = 0;

  /// Removes everything the connector keeps for this catalog (called on catalog force drop).
  virtual Status DropAll() = 0;

  /// Properties the connector resolved from defaults at creation (e.g. the warehouse location)
  /// that must be stored with the catalog so later renames do not change them.
  virtual model::Properties ResolvedProperties() const { return {}; }

  /// Checks an alter of the catalog's properties (`before` -> `after`) beyond what building the
  /// connector from `after` checks: kInvalidArgument for a property that may not change.
  virtual Status CheckPropertyChange(const model::Properties& /*before*/,
                                     const model::Properties& /*after*/) const {
    return Ok();
  }

  /// The capability `C` of this catalog (SchemaCatalog, TableCatalog, FilesetCatalog,
  /// IcebergCatalog, IcebergProxy, ExternalRows, storage::CredentialVendor, or any later one), or
  /// nullptr when the provider lacks it. Owned by the connector; lives as long as it.
  template <typename C>
  C* Find() const {
    const std::type_index key(typeid(C));
    for (const auto& [type, capability] : capabilities_) {
      if (type == key) return static_cast<C*>(capability);
    }
    return nullptr;
  }

 protected:
  /// Registers `capability` as this connector's `C` (ignored when null). Called while the
  /// connector is built, before it is shared between threads.
  template <typename C>
  void Provide(C* capability) {
    if (capability == nullptr) return;
    const std::type_index key(typeid(C));
    void* erased = static_cast<void*>(capability);
    for (auto& [type, existing] : capabilities_) {
      if (type == key) {
        existing = erased;
        return;
      }
    }
    capabilities_.emplace_back(key, erased);
  }

 private:
  // A handful of entries: a scan beats a map. Each pointer is the `C*` of its type, erased.
  std::vector<std::pair<std::type_index, void*>> capabilities_;
};

/// Filesets of a catalog: named sets of files under storage locations. Errors name their object:
/// kNotFound (kSchema / kFileset / kLocationName), kAlreadyExists (kFileset), kInvalidArgument
/// naming the field or property at fault.
class FilesetCatalog {
 public:
  /// How errors name what a provider without this capability lacks ("... does not support
  /// fileset operations").
  static constexpr std::string_view kOperations = "fileset";

  virtual ~FilesetCatalog() = default;

  /// kNotFound (kSchema) when the schema is absent.
  virtual Result<std::vector<std::string>> ListFilesets(std::string_view schema) = 0;
  /// `fileset.storage_locations` are the explicit locations (may be empty for managed filesets,
  /// which then inherit the schema's or catalog's). Creates missing directories; nothing is left
  /// behind on failure.
  virtual Result<model::Fileset> CreateFileset(const CallContext& ctx, std::string_view schema,
                                               const model::Fileset& fileset) = 0;
  virtual Result<model::Fileset> LoadFileset(std::string_view schema, std::string_view name) = 0;
  /// Rename, comment and property changes, applied atomically in order. Files never move.
  virtual Result<model::Fileset> AlterFileset(const CallContext& ctx, std::string_view schema,
                                              std::string_view name,
                                              const std::vector<model::EntityChange>& changes) = 0;
  /// False when absent. A managed fileset's files are deleted; an external one's are kept.
  virtual Result<bool> DropFileset(const CallContext& ctx, std::string_view schema,
                                   std::string_view name) = 0;
  /// Files and directories directly under `sub_path` of one of the fileset's locations.
  virtual Result<std::vector<model::FileInfo>> ListFiles(
      std::string_view schema, std::string_view name, std::string_view sub_path,
      const std::optional<std::string>& location_name) = 0;
  /// The storage location of `sub_path` in the fileset.
  virtual Result<std::string> GetFileLocation(std::string_view schema, std::string_view name,
                                              std::string_view sub_path,
                                              const std::optional<std::string>& location_name) = 0;
};

/// Views of a catalog's schemas as the Gravitino API describes them: the capability of catalogs
/// whose views the Iceberg REST service keeps too, so a view made on one interface is the same
/// view on the other (docs/views.md). Implementations are safe to call from many threads.
class ViewCatalog {
 public:
  static constexpr std::string_view kOperations = "view";

  virtual ~ViewCatalog() = default;

  virtual Result<std::vector<std::string>> ListViews(std::string_view schema) = 0;
  /// kAlreadyExists (kView) when the name is taken by a view or a table.
  virtual Result<model::View> CreateView(const CallContext& ctx, std::string_view schema,
                                         const model::View& view) = 0;
  /// kNotFound (kView) when absent.
  virtual Result<model::View> LoadView(std::string_view schema, std::string_view name) = 0;
  /// Applies the changes in order, all or nothing.
  virtual Result<model::View> AlterView(const CallContext& ctx, std::string_view schema,
                                        std::string_view name,
                                        const std::vector<model::ViewChange>& changes) = 0;
  /// False when absent.
  virtual Result<bool> DropView(const CallContext& ctx, std::string_view schema,
                                std::string_view name) = 0;
};

/// Models of a catalog's schemas and their versions: the capability of model catalogs
/// (docs/models.md). Implementations are safe to call from many threads.
class ModelCatalog {
 public:
  static constexpr std::string_view kOperations = "model";

  virtual ~ModelCatalog() = default;

  /// kNotFound (kSchema) when the schema is absent.
  virtual Result<std::vector<std::string>> ListModels(std::string_view schema) = 0;
  /// kAlreadyExists (kModel) when taken.
  virtual Result<model::Model> RegisterModel(const CallContext& ctx, std::string_view schema,
                                             const model::Model& model) = 0;
  /// kNotFound (kModel) when absent.
  virtual Result<model::Model> GetModel(std::string_view schema, std::string_view name) = 0;
  /// Applies the changes in order, all or nothing.
  virtual Result<model::Model> AlterModel(const CallContext& ctx, std::string_view schema,
                                          std::string_view name,
                                          const std::vector<model::ModelChange>& changes) = 0;
  /// False when absent; its versions go with it.
  virtual Result<bool> DeleteModel(const CallContext& ctx, std::string_view schema,
                                   std::string_view name) = 0;

  /// The model's versions in number order (kNotFound (kModel) when the model is absent).
  virtual Result<std::vector<model::ModelVersion>> ListVersions(std::string_view schema,
                                                                std::string_view model) = 0;
  /// Links a new version (its number: the model's latest version, which then grows by one).
  /// kAlreadyExists (kModelVersionAlias) when one of the aliases is taken; nothing is linked.
  virtual Result<model::ModelVersion> LinkVersion(const CallContext& ctx, std::string_view schema,
                                                  std::string_view model,
                                                  const model::ModelVersion& version) = 0;
  /// kNotFound (kModelVersion) when the model or the version is absent.
  virtual Result<model::ModelVersion> GetVersion(std::string_view schema, std::string_view model,
                                                 const model::VersionRef& version) = 0;
  virtual Result<model::ModelVersion> AlterVersion(
      const CallContext& ctx, std::string_view schema, std::string_view model,
      const model::VersionRef& version, const std::vector<model::ModelVersionChange>& changes) = 0;
  /// False when the model or the version is absent; the version's aliases are freed.
  virtual Result<bool> DeleteVersion(const CallContext& ctx, std::string_view schema,
                                     std::string_view model, const model::VersionRef& version) = 0;
};

/// Topics of a messaging catalog's schema, read from and written to the cluster: the capability
/// of Kafka catalogs (docs/topics.md). Implementations are safe to call from many threads.
class TopicCatalog {
 public:
  static constexpr std::string_view kOperations = "topic";

  virtual ~TopicCatalog() = default;

  /// The cluster's topics, by name (kNotFound (kSchema) when the schema is absent).
  virtual Result<std::vector<std::string>> ListTopics(std::string_view schema) = 0;
  /// kAlreadyExists (kTopic) when the cluster has one of the name; kInvalidArgument for
  /// properties the cluster refuses (nothing is created then).
  virtual Result<model::Topic> CreateTopic(const CallContext& ctx, std::string_view schema,
                                           const model::Topic& topic) = 0;
  /// kNotFound (kTopic) when the cluster has none of the name.
  virtual Result<model::Topic> LoadTopic(std::string_view schema, std::string_view name) = 0;
  /// updateComment, setProperty (a larger partition count, or a config) and removeProperty (a
  /// config back to its default); every change is checked before the cluster is changed.
  virtual Result<model::Topic> AlterTopic(const CallContext& ctx, std::string_view schema,
                                          std::string_view name,
                                          const std::vector<model::EntityChange>& changes) = 0;
  /// False when the cluster has none of the name.
  virtual Result<bool> DropTopic(const CallContext& ctx, std::string_view schema,
                                 std::string_view name) = 0;
};

/// Tables of a `lakehouse-generic` catalog (Lance datasets) beyond TableCatalog: what the Lance
/// REST service needs (docs/lance.md). Implementations are safe to call from many threads.
class GenericTableCatalog {
 public:
  static constexpr std::string_view kOperations = "generic table";

  virtual ~GenericTableCatalog() = default;

  /// Removes the table from the catalog and keeps its files (kNotFound (kTable) when absent).
  /// Answers the table as it was.
  virtual Result<model::Table> DeregisterTable(const CallContext& ctx, std::string_view schema,
                                               std::string_view name) = 0;
  /// Whether the table is declared only: its location holds no dataset version yet.
  virtual Result<bool> IsOnlyDeclared(const model::Table& table) = 0;
};

/// Builds connectors by provider name. Validates catalog properties at catalog creation.
class ConnectorRegistry {
 public:
  using Factory =
      std::function<Result<std::unique_ptr<Connector>>(const CatalogInfo&, const ConnectorDeps&)>;

  explicit ConnectorRegistry(ConnectorDeps deps) : deps_(std::move(deps)) {}
  void Register(std::string provider, model::CatalogType type, Factory factory);

  /// kInvalidArgument for an unknown provider or a type the provider does not serve.
  Status CheckProvider(model::CatalogType type, std::string_view provider) const;
  /// Builds the connector (which validates the properties).
  Result<std::unique_ptr<Connector>> Create(const CatalogInfo& info) const;

 private:
  struct Entry {
    model::CatalogType type;
    Factory factory;
  };
  ConnectorDeps deps_;
  std::map<std::string, Entry, std::less<>> factories_;
};

/// A registry with every built-in provider.
std::unique_ptr<ConnectorRegistry> MakeDefaultRegistry(ConnectorDeps deps);

}  // namespace cairn::connector
