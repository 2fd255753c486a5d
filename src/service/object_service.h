// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "connector/connector.h"
#include "model/entities.h"
#include "model/function.h"
#include "model/table.h"
#include "service/authorizer.h"
#include "service/caller.h"
#include "service/events.h"
#include "service/lineage_service.h"
#include "service/metadata_service.h"
#include "service/policy_service.h"
#include "service/statistics_service.h"
#include "service/tag_service.h"

namespace cairn::service {

/// The object a call addresses, by its names: a catalog (no schema), a schema (no name), or an
/// object of `kind` in a schema.
struct ObjectRef {
  std::string metalake;
  std::string catalog;
  std::vector<std::string> schema{};
  std::string name{};
  ObjectType kind = ObjectType::kTable;

  /// The schema `name` of this catalog.
  ObjectRef Schema(std::string name) const;
  /// The object `name` of `kind` in this schema.
  ObjectRef Child(std::string name, ObjectType kind) const;
};

/// A catalog opened for one call and authorized for it: its connector (kept alive for the call)
/// and the capability `C` the call uses.
template <typename C>
struct Opened {
  std::shared_ptr<connector::Connector> connector;
  C* capability = nullptr;

  C* operator->() const { return capability; }
};

/// The one path from every interface to the connectors, for the objects inside catalogs:
///   1. resolve: the metalake and catalog rows are read once, with the catalog's connector
///      (MetadataService::Open), and the authorize stage reuses them;
///   2. authorize: one decision (Authorizer) before anything reaches the source; a denial wins
///      over "does not exist", so a caller without rights learns nothing about the names;
///   3. call the connector's capability (SchemaCatalog, TableCatalog, FilesetCatalog, ...);
///      a provider without it is kUnsupported ("Catalog c does not support table operations");
///   4. ownership: the connector stamps the new row's creator from `ctx.principal`, and the
///      creator is the owner until one is set (governance::OwnerOf);
///   5. publish the change on the event stream, after it is durable, never for a failed call.
/// The interfaces (Gravitino API, Iceberg REST, and later ones) parse, call one method here,
/// and render; the audit record is written by the server around the whole request.
/// Safe to call from many threads.
class ObjectService {
 public:
  ObjectService(MetadataService& metadata, Authorizer& authorizer, LineageOptions lineage = {});

  MetadataService& metadata() { return metadata_; }
  /// Tags of metalakes and their associations.
  TagService& tags() { return tags_; }
  PolicyService& policies() { return policies_; }
  /// Statistics of tables and their partitions.
  StatisticsService& statistics() { return statistics_; }
  /// The statistics a table carries in its source: for a table of a managed Iceberg catalog,
  /// its current snapshot's figures (read from its metadata file); none for other catalogs.
  Result<std::vector<model::Statistic>> SourceStatistics(const MetadataObjectTarget& table);
  /// Loads a schema or table that has no row yet through its catalog, so that a source's object
  /// gets its governance row (Labels::Seer); for a column, loads its table and checks that the
  /// table has it. kNotFound when the catalog has no such object.
  Status SeeInSource(const Caller& caller, const MetadataObjectTarget& object);
  /// OpenLineage events and the lineage graph.
  LineageService& lineage() { return lineage_; }
  Authorizer& authorizer() { return authz_; }
  EventStream& events() { return metadata_.events(); }

  // ---- The stages, for interfaces whose calls are not use cases below (Iceberg REST) --------

  /// Resolves `ref`'s catalog and authorizes `action` on `ref`. The denial comes first; then a
  /// missing or disabled metalake or catalog; then kUnsupported when the provider lacks `C`.
  template <typename C>
  Result<Opened<C>> Open(const Caller& caller, Action action, const ObjectRef& ref) {
    CAIRN_ASSIGN_OR_RETURN(auto connector, OpenCatalog(caller, action, ref));
    C* capability = connector->template Find<C>();
    if (capability == nullptr) return Missing(ref, C::kOperations);
    return Opened<C>{std::move(connector), capability};
  }
  /// Open, for a call that uses several capabilities of the catalog (or none).
  Result<std::shared_ptr<connector::Connector>> OpenCatalog(const Caller& caller, Action action,
                                                            const ObjectRef& ref);
  /// Resolves `ref`'s catalog without deciding anything (for a catalog whose remote decides).
  Result<std::shared_ptr<connector::Connector>> Resolve(const ObjectRef& ref);
  /// The authorize stage alone: Ok when `caller` may do `action` on `ref`.
  Status Authorize(const Caller& caller, Action action, const ObjectRef& ref);
  /// The same decision for the object named by parts the caller holds, so that a front end
  /// deciding on every request builds no ObjectRef for it.
  Status Authorize(const governance::Principal& principal, Action action,
                   std::string_view metalake, std::string_view catalog,
                   const std::vector<std::string>& schema, std::string_view name,
                   ObjectType kind);
  /// The `names` of children of `parent` (catalogs of a metalake, schemas of a catalog, objects
  /// of `kind` of a schema) the caller may see with `action`, in their order. `rows`, when given,
  /// are the children's rows already read.
  Result<std::vector<std::string>> Visible(const Caller& caller, Action action,
                                           const ObjectRef& parent, std::vector<std::string> names,
                                           ObjectType kind = ObjectType::kTable,
                                           const std::vector<store::EntityRecord>* rows = nullptr);
  /// Publishes a change the caller made to `ref`. A `new_name` other than the leaf's own name
  /// makes it a rename.
  void Publish(const Caller& caller, ChangeType type, const ObjectRef& ref,
               std::string_view new_name = "", std::string detail = "");
  /// Publishes the rename of `ref` to `name` in `schema` (a table may move between schemas).
  void PublishRename(const Caller& caller, const ObjectRef& ref, std::vector<std::string> schema,
                     std::string name);

  // ---- Schemas ------------------------------------------------------------------------------

  /// The schemas of `catalog` the caller may see.
  Result<std::vector<std::string>> ListSchemas(const Caller& caller, const ObjectRef& catalog);
  Result<model::Schema> CreateSchema(const Caller& caller, const ObjectRef& catalog,
                                     const model::Schema& schema);
  Result<model::Schema> LoadSchema(const Caller& caller, const ObjectRef& schema);
  Result<model::Schema> AlterSchema(const Caller& caller, const ObjectRef& schema,
                                    const std::vector<model::EntityChange>& changes);
  /// False when absent.
  Result<bool> DropSchema(const Caller& caller, const ObjectRef& schema, bool cascade);

  // ---- Tables -------------------------------------------------------------------------------

  /// The tables of `schema` the caller may see.
  Result<std::vector<std::string>> ListTables(const Caller& caller, const ObjectRef& schema);
  /// Up to `limit` (> 0) names of tables the caller may see, after `after` in name order, read
  /// a range at a time from sources that can (connector::TableCatalog::ListTablesAfter).
  Result<connector::NamePage> ListTablesPage(const Caller& caller, const ObjectRef& schema,
                                             std::string after, size_t limit);
  Result<model::Table> CreateTable(const Caller& caller, const ObjectRef& schema,
                                   const model::Table& table);
  /// `action`: kLoadTable, or kModifyTable when the caller asks to load it for writing.
  Result<model::Table> LoadTable(const Caller& caller, const ObjectRef& table,
                                 Action action = Action::kLoadTable);
  Result<model::Table> AlterTable(const Caller& caller, const ObjectRef& table,
                                  const std::vector<model::TableChange>& changes);
  Result<bool> DropTable(const Caller& caller, const ObjectRef& table, bool purge);

  // ---- Filesets -----------------------------------------------------------------------------

  Result<std::vector<std::string>> ListFilesets(const Caller& caller, const ObjectRef& schema);
  Result<model::Fileset> CreateFileset(const Caller& caller, const ObjectRef& schema,
                                       const model::Fileset& fileset);
  Result<model::Fileset> LoadFileset(const Caller& caller, const ObjectRef& fileset);
  Result<model::Fileset> AlterFileset(const Caller& caller, const ObjectRef& fileset,
                                      const std::vector<model::EntityChange>& changes);
  Result<bool> DropFileset(const Caller& caller, const ObjectRef& fileset);
  Result<std::vector<model::FileInfo>> ListFiles(const Caller& caller, const ObjectRef& fileset,
                                                 std::string_view sub_path,
                                                 const std::optional<std::string>& location_name);
  Result<std::string> GetFileLocation(const Caller& caller, const ObjectRef& fileset,
                                      std::string_view sub_path,
                                      const std::optional<std::string>& location_name);

  // ---- Views (docs/views.md): the Iceberg views of a catalog, in Gravitino's shape ----------

  Result<std::vector<std::string>> ListViews(const Caller& caller, const ObjectRef& schema);
  Result<model::View> CreateView(const Caller& caller, const ObjectRef& schema,
                                 const model::View& view);
  Result<model::View> LoadView(const Caller& caller, const ObjectRef& view);
  Result<model::View> AlterView(const Caller& caller, const ObjectRef& view,
                                const std::vector<model::ViewChange>& changes);
  Result<bool> DropView(const Caller& caller, const ObjectRef& view);

  // ---- Models (docs/models.md) -------------------------------------------------------------
  // Reading needs what Gravitino's LOAD_MODEL needs (owner, or USE_MODEL); linking a version,
  // ownership or LINK_MODEL_VERSION; altering and deleting, ownership.

  Result<std::vector<std::string>> ListModels(const Caller& caller, const ObjectRef& schema);
  Result<model::Model> RegisterModel(const Caller& caller, const ObjectRef& schema,
                                     const model::Model& model);
  Result<model::Model> GetModel(const Caller& caller, const ObjectRef& model);
  Result<model::Model> AlterModel(const Caller& caller, const ObjectRef& model,
                                  const std::vector<model::ModelChange>& changes);
  Result<bool> DeleteModel(const Caller& caller, const ObjectRef& model);
  Result<std::vector<model::ModelVersion>> ListModelVersions(const Caller& caller,
                                                             const ObjectRef& model);
  Result<model::ModelVersion> LinkModelVersion(const Caller& caller, const ObjectRef& model,
                                               const model::ModelVersion& version);
  Result<model::ModelVersion> GetModelVersion(const Caller& caller, const ObjectRef& model,
                                              const model::VersionRef& version);
  Result<model::ModelVersion> AlterModelVersion(
      const Caller& caller, const ObjectRef& model, const model::VersionRef& version,
      const std::vector<model::ModelVersionChange>& changes);
  Result<bool> DeleteModelVersion(const Caller& caller, const ObjectRef& model,
                                  const model::VersionRef& version);
  /// The version's URI named `uri_name`; without a name, its only URI, else the one its
  /// `default-uri-name` property names, else the model's. kNotFound (kModelVersionUri) for a
  /// name it does not have; kInvalidArgument when nothing names a default.
  Result<std::string> GetModelVersionUri(const Caller& caller, const ObjectRef& model,
                                         const model::VersionRef& version,
                                         const std::optional<std::string>& uri_name);

  // ---- Topics (docs/topics.md) ---------------------------------------------------------------

  /// The topics of the cluster the caller may see (CONSUME_TOPIC, PRODUCE_TOPIC or ownership).
  Result<std::vector<std::string>> ListTopics(const Caller& caller, const ObjectRef& schema);
  Result<model::Topic> CreateTopic(const Caller& caller, const ObjectRef& schema,
                                   const model::Topic& topic);
  Result<model::Topic> LoadTopic(const Caller& caller, const ObjectRef& topic);
  Result<model::Topic> AlterTopic(const Caller& caller, const ObjectRef& topic,
                                  const std::vector<model::EntityChange>& changes);
  Result<bool> DropTopic(const Caller& caller, const ObjectRef& topic);

  // ---- Functions (docs/functions.md) --------------------------------------------------------
  // Rows of Cairn's own under the schema's row, in every catalog whose schemas have rows (those
  // of JDBC and federated catalogs get theirs when the catalog is asked for the schema).

  /// The functions of the schema the caller may see (EXECUTE_FUNCTION, MODIFY_FUNCTION or
  /// ownership), in name order.
  Result<std::vector<model::Function>> ListFunctions(const Caller& caller, const ObjectRef& schema);
  Result<model::Function> RegisterFunction(const Caller& caller, const ObjectRef& schema,
                                           const model::Function& function);
  Result<model::Function> GetFunction(const Caller& caller, const ObjectRef& function);
  /// All changes or none, in one compare-and-set of the function's row.
  Result<model::Function> AlterFunction(const Caller& caller, const ObjectRef& function,
                                        const std::vector<model::FunctionChange>& changes);
  Result<bool> DropFunction(const Caller& caller, const ObjectRef& function);

 private:
  static Error Missing(const ObjectRef& ref, std::string_view operations);

  /// The row of the schema `ref` names (or is in), after `action` on `ref` is authorized and
  /// the schema's catalog has answered that the schema exists.
  Result<store::EntityRecord> FunctionSchemaRow(const Caller& caller, Action action,
                                                const ObjectRef& ref);

  MetadataService& metadata_;
  Authorizer& authz_;
  TagService tags_;
  PolicyService policies_;
  StatisticsService statistics_;
  LineageService lineage_;  // last: its writer thread uses the members above

  /// After an alteration through this service: the labelled rows of renamed columns take the
  /// new names, those of dropped columns go (their labels with them).
  void FollowColumnChanges(const ObjectRef& table, const std::string& new_name,
                           const std::vector<model::TableChange>& changes);
};

}  // namespace cairn::service
