// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "common/error.h"

namespace cairn::model {

/// Every kind of object Cairn names: the tree of a metalake (catalogs, schemas, the leaf
/// objects of a schema and the columns of tables), the tags and policies of a metalake, its
/// users, groups and roles, the statistics of tables, and the server-wide local users of the
/// `basic` authenticator. One enumerator per row of `kKinds` below, in the same order; the
/// enumerator values are indexes and are never persisted (the store writes
/// `KindDescriptor::store_type`).
enum class ObjectKind : uint8_t {
  kMetalake,
  kCatalog,
  kSchema,
  kTable,
  kView,
  kFileset,
  kTopic,
  kModel,
  kFunction,
  kTag,
  kPolicy,
  kUser,
  kGroup,
  kRole,
  kColumn,               // a column of a table, with a row once a label is attached to it
  kModelVersion,         // a version of a model (its row's parent)
  kStatistic,            // a statistic of a table (its row's parent)
  kPartitionStatistics,  // the statistics of one partition of a table, in one row
  kJobTemplate,          // a job template of a metalake (docs/maintenance.md)
  kJob,                  // a run of a job template
  kIdpUser,              // a local user of the `basic` authenticator, outside every metalake
};

/// Who may act on a leaf object of a schema, besides its owner and the owners above it: the
/// privilege that creates one (granted on the schema or above), the privileges that read it
/// and those that write it (granted on the object or above). The authorize step's rules for
/// the leaf kinds are derived from these (service::Action kCreateObject, kLoadObject, ...).
struct LeafAccess {
  std::string_view create;
  std::span<const std::string_view> read;
  std::span<const std::string_view> write;
};

/// Everything Cairn knows about one object kind, in one row. All conversions between the
/// kind and the other vocabularies (store numbers, error subjects, securable types, URL
/// segments, privileges) are lookups in these rows.
struct KindDescriptor {
  ObjectKind kind;
  /// Lower-case name, as written on the wire in a securable object's "type" and in role
  /// payloads; parsed case-insensitively.
  std::string_view name;
  /// Capitalised name as it starts a message ("Table x does not exist").
  std::string_view display;
  /// Gravitino's metadata object type ("TABLE"); empty for a kind that cannot be secured.
  std::string_view securable;
  /// The number persisted in the `type` column of the store; 0 for a kind never stored.
  /// Persisted: never change or reuse one.
  int store_type;
  /// What an error about an object of this kind is about (picks e.g. NoSuchTableException).
  EntityKind error_kind;
  /// The kind of the object this one lives in; none for the roots (metalake, idp user).
  std::optional<ObjectKind> parent;
  /// The collection segment of its Gravitino URL ("tables" in
  /// /api/metalakes/{m}/catalogs/{c}/schemas/{s}/tables); empty when it has none.
  std::string_view path_segment;
  /// The privileges declared on this kind. A privilege binds to the kind it is declared on and
  /// to every ancestor of it (a grant on a schema covers the tables inside).
  std::span<const std::string_view> privileges;
  /// For a leaf kind of a schema; empty for the others (then only owners may act on it).
  LeafAccess access = {};
};

namespace kinds_internal {

inline constexpr std::string_view kMetalakePrivileges[] = {
    "CREATE_CATALOG", "MANAGE_USERS",  "MANAGE_GROUPS",         "CREATE_ROLE",
    "CREATE_TAG",     "CREATE_POLICY", "REGISTER_JOB_TEMPLATE", "RUN_JOB"};
inline constexpr std::string_view kCatalogPrivileges[] = {"USE_CATALOG"};
inline constexpr std::string_view kSchemaPrivileges[] = {
    "USE_SCHEMA",  "CREATE_SCHEMA",  "CREATE_TABLE", "CREATE_FILESET",   "CREATE_TOPIC",
    "CREATE_VIEW", "REGISTER_MODEL", "CREATE_MODEL", "REGISTER_FUNCTION"};
inline constexpr std::string_view kTablePrivileges[] = {"SELECT_TABLE", "MODIFY_TABLE",
                                                        "MANAGE_GRANTS"};
inline constexpr std::string_view kViewPrivileges[] = {"SELECT_VIEW", "MANAGE_GRANTS"};
inline constexpr std::string_view kFilesetPrivileges[] = {"READ_FILESET", "WRITE_FILESET",
                                                          "MANAGE_GRANTS"};
inline constexpr std::string_view kTopicPrivileges[] = {"PRODUCE_TOPIC", "CONSUME_TOPIC",
                                                        "MANAGE_GRANTS"};
inline constexpr std::string_view kModelPrivileges[] = {"USE_MODEL", "LINK_MODEL_VERSION",
                                                        "CREATE_MODEL_VERSION", "MANAGE_GRANTS"};
inline constexpr std::string_view kFunctionPrivileges[] = {"EXECUTE_FUNCTION", "MODIFY_FUNCTION",
                                                           "MANAGE_GRANTS"};
inline constexpr std::string_view kTableReaders[] = {"SELECT_TABLE", "MODIFY_TABLE"};
inline constexpr std::string_view kTableWriters[] = {"MODIFY_TABLE"};
// Gravitino's model privileges; CREATE_MODEL_VERSION is the older name of LINK_MODEL_VERSION.
inline constexpr std::string_view kModelReaders[] = {"USE_MODEL"};
inline constexpr std::string_view kModelWriters[] = {"LINK_MODEL_VERSION", "CREATE_MODEL_VERSION"};
// Whoever may create views may read them.
inline constexpr std::string_view kViewReaders[] = {"SELECT_VIEW", "CREATE_VIEW"};
// Gravitino's topic privileges: consuming or producing needs the topic's metadata.
inline constexpr std::string_view kTopicReaders[] = {"CONSUME_TOPIC", "PRODUCE_TOPIC"};
inline constexpr std::string_view kTopicWriters[] = {"PRODUCE_TOPIC"};
// Gravitino's function privileges: EXECUTE_FUNCTION to use one, MODIFY_FUNCTION to change it.
inline constexpr std::string_view kFunctionReaders[] = {"EXECUTE_FUNCTION", "MODIFY_FUNCTION"};
inline constexpr std::string_view kFunctionWriters[] = {"MODIFY_FUNCTION"};
inline constexpr std::string_view kFilesetReaders[] = {"READ_FILESET", "WRITE_FILESET"};
inline constexpr std::string_view kFilesetWriters[] = {"WRITE_FILESET"};
inline constexpr std::string_view kTagPrivileges[] = {"APPLY_TAG"};
inline constexpr std::string_view kPolicyPrivileges[] = {"APPLY_POLICY"};
inline constexpr std::string_view kJobTemplatePrivileges[] = {"USE_JOB_TEMPLATE"};

}  // namespace kinds_internal

/// The rows, indexed by ObjectKind. Adding a kind is adding an enumerator and a row here.
inline constexpr std::array<KindDescriptor, 21> kKinds = {{
    // kind, name, display, securable, store_type, error_kind, parent, path_segment, privileges,
    // access (for the leaf kinds of a schema)
    {ObjectKind::kMetalake, "metalake", "Metalake", "METALAKE", 1, EntityKind::kMetalake,
     std::nullopt, "metalakes", kinds_internal::kMetalakePrivileges},
    {ObjectKind::kCatalog, "catalog", "Catalog", "CATALOG", 2, EntityKind::kCatalog,
     ObjectKind::kMetalake, "catalogs", kinds_internal::kCatalogPrivileges},
    {ObjectKind::kSchema, "schema", "Schema", "SCHEMA", 3, EntityKind::kSchema,
     ObjectKind::kCatalog, "schemas", kinds_internal::kSchemaPrivileges},
    {ObjectKind::kTable,
     "table",
     "Table",
     "TABLE",
     4,
     EntityKind::kTable,
     ObjectKind::kSchema,
     "tables",
     kinds_internal::kTablePrivileges,
     {"CREATE_TABLE", kinds_internal::kTableReaders, kinds_internal::kTableWriters}},
    {ObjectKind::kView,
     "view",
     "View",
     "VIEW",
     5,
     EntityKind::kView,
     ObjectKind::kSchema,
     "views",
     kinds_internal::kViewPrivileges,
     {"CREATE_VIEW", kinds_internal::kViewReaders, {}}},
    {ObjectKind::kFileset,
     "fileset",
     "Fileset",
     "FILESET",
     6,
     EntityKind::kFileset,
     ObjectKind::kSchema,
     "filesets",
     kinds_internal::kFilesetPrivileges,
     {"CREATE_FILESET", kinds_internal::kFilesetReaders, kinds_internal::kFilesetWriters}},
    {ObjectKind::kTopic,
     "topic",
     "Topic",
     "TOPIC",
     7,
     EntityKind::kTopic,
     ObjectKind::kSchema,
     "topics",
     kinds_internal::kTopicPrivileges,
     {"CREATE_TOPIC", kinds_internal::kTopicReaders, kinds_internal::kTopicWriters}},
    {ObjectKind::kModel,
     "model",
     "Model",
     "MODEL",
     8,
     EntityKind::kModel,
     ObjectKind::kSchema,
     "models",
     kinds_internal::kModelPrivileges,
     {"REGISTER_MODEL", kinds_internal::kModelReaders, kinds_internal::kModelWriters}},
    {ObjectKind::kFunction,
     "function",
     "Function",
     "FUNCTION",
     9,
     EntityKind::kFunction,
     ObjectKind::kSchema,
     "functions",
     kinds_internal::kFunctionPrivileges,
     {"REGISTER_FUNCTION", kinds_internal::kFunctionReaders, kinds_internal::kFunctionWriters}},
    {ObjectKind::kTag, "tag", "Tag", "TAG", 14, EntityKind::kTag, ObjectKind::kMetalake, "tags",
     kinds_internal::kTagPrivileges},
    {ObjectKind::kPolicy, "policy", "Policy", "POLICY", 15, EntityKind::kPolicy,
     ObjectKind::kMetalake, "policies", kinds_internal::kPolicyPrivileges},
    {ObjectKind::kUser,
     "user",
     "User",
     "",
     10,
     EntityKind::kUser,
     ObjectKind::kMetalake,
     "users",
     {}},
    {ObjectKind::kGroup,
     "group",
     "Group",
     "",
     11,
     EntityKind::kGroup,
     ObjectKind::kMetalake,
     "groups",
     {}},
    {ObjectKind::kRole,
     "role",
     "Role",
     "",
     12,
     EntityKind::kRole,
     ObjectKind::kMetalake,
     "roles",
     {}},
    // A column's row exists only to carry its labels (tags); it goes with its table. It takes
    // no privilege of its own: access to it is access to its table.
    {ObjectKind::kColumn,
     "column",
     "Column",
     "COLUMN",
     18,
     EntityKind::kColumn,
     ObjectKind::kTable,
     "",
     {}},
    // A model's versions are rows under it, named by their number.
    {ObjectKind::kModelVersion,
     "model version",
     "Model version",
     "",
     19,
     EntityKind::kModelVersion,
     ObjectKind::kModel,
     "",
     {}},
    // Statistics are rows under their table, so they follow its renames and go with its drop.
    {ObjectKind::kStatistic,
     "statistic",
     "Statistic",
     "",
     16,
     EntityKind::kStatistic,
     ObjectKind::kTable,
     "",
     {}},
    {ObjectKind::kPartitionStatistics,
     "partition statistics",
     "Partition statistics",
     "",
     17,
     EntityKind::kStatistic,
     ObjectKind::kTable,
     "",
     {}},
    // Job templates and jobs are rows under their metalake; a job is named by its id.
    {ObjectKind::kJobTemplate, "job_template", "Job template", "JOB_TEMPLATE", 20,
     EntityKind::kJobTemplate, ObjectKind::kMetalake, "", kinds_internal::kJobTemplatePrivileges},
    {ObjectKind::kJob, "job", "Job", "", 21, EntityKind::kJob, ObjectKind::kMetalake, "", {}},
    {ObjectKind::kIdpUser, "idp user", "User", "", 13, EntityKind::kUser, std::nullopt, "", {}},
}};

/// The row of `kind`.
constexpr const KindDescriptor& Describe(ObjectKind kind) {
  return kKinds[static_cast<size_t>(kind)];
}

/// The kind persisted as `store_type`; none for 0 and for every number no row carries (a
/// stored row with such a type is corrupt).
std::optional<ObjectKind> FindKindByStoreType(int64_t store_type);

/// The securable kind named `text` (its `name` or `securable`, case-insensitive); none for an
/// unknown name and for kinds that cannot be secured (users, groups, roles).
std::optional<ObjectKind> FindKindBySecurable(std::string_view text);

/// The kind whose Gravitino collection segment is `segment` ("tables"), case-sensitive.
std::optional<ObjectKind> FindKindBySegment(std::string_view segment);

/// How many parents lie between `kind` and its root: 0 for a metalake, 3 for a table.
int Depth(ObjectKind kind);

/// True when `ancestor` is `kind` or one of the kinds on its parent chain.
bool IsSelfOrAncestor(ObjectKind ancestor, ObjectKind kind);

/// True when some kind declares `privilege` (upper-case, e.g. SELECT_TABLE).
bool IsKnownPrivilege(std::string_view privilege);

/// The one kind `privilege` (upper-case) is declared on; none when no kind or several kinds
/// declare it (MANAGE_GRANTS is declared on every leaf kind).
std::optional<ObjectKind> FindPrivilegeKind(std::string_view privilege);

/// True when `privilege` (upper-case) may be granted on an object of `kind`: it is declared on
/// `kind` or on a kind below it.
bool PrivilegeBindsTo(std::string_view privilege, ObjectKind kind);

}  // namespace cairn::model
