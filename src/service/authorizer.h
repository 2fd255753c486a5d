// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "governance/access_control.h"
#include "store/metadata_store.h"

namespace cairn::service {

using governance::ObjectType;
using governance::Principal;

/// What a request wants to do, in the terms of the access-control model (Gravitino's
/// authorization expressions, section 9 of the API reference).
enum class Action {
  kCreateMetalake,  // SERVICE_ADMIN
  kUseMetalake,     // METALAKE_USER (load, list inside)
  kManageMetalake,  // METALAKE::OWNER (alter, drop, enable/disable)
  kCreateCatalog,   // METALAKE::OWNER || CREATE_CATALOG
  kLoadCatalog,     // owner(metalake, catalog) || ANY_USE_CATALOG
  kManageCatalog,   // owner(metalake, catalog)
  kCreateSchema,    // owner(metalake, catalog) || ANY_USE_CATALOG && ANY_CREATE_SCHEMA
  kLoadSchema,      // ... || ANY_USE_CATALOG && (SCHEMA::OWNER || ANY_USE_SCHEMA)
  kManageSchema,    // ... || ANY_USE_CATALOG && SCHEMA::OWNER
  kCreateTable,     // ... || USE_CATALOG && USE_SCHEMA && CREATE_TABLE
  kLoadTable,       // ... && (TABLE::OWNER || SELECT_TABLE || MODIFY_TABLE)
  kModifyTable,     // ... && (TABLE::OWNER || MODIFY_TABLE)
  kDropTable,       // ... && TABLE::OWNER
  kCreateView,      // ... && CREATE_VIEW
  kLoadView,        // ... && (VIEW::OWNER || SELECT_VIEW || CREATE_VIEW)
  kManageView,      // ... && VIEW::OWNER
  kCreateFileset,   // ... && CREATE_FILESET
  kLoadFileset,     // ... && (FILESET::OWNER || READ_FILESET || WRITE_FILESET)
  kWriteFileset,    // ... && (FILESET::OWNER || WRITE_FILESET)
  kDropFileset,     // ... && FILESET::OWNER
  // The same four rules for a leaf object of any kind (Target::object_type), derived from its
  // kind's row (model::LeafAccess): a kind served later needs no actions of its own.
  kCreateObject,  // ... && <access.create>
  kLoadObject,    // ... && (OWNER || any of access.read)
  kWriteObject,   // ... && (OWNER || any of access.write)
  kDropObject,    // ... && OWNER
  kManageUsers,   // METALAKE::OWNER || MANAGE_USERS
  kManageGroups,  // METALAKE::OWNER || MANAGE_GROUPS
  kCreateRole,    // METALAKE::OWNER || CREATE_ROLE
  kManageGrants,  // METALAKE::OWNER || MANAGE_GRANTS (on the metalake)
  // A tag of the metalake (Target::object, object_type kTag, object_row its row).
  kCreateTag,  // METALAKE::OWNER || CREATE_TAG
  kLoadTag,    // METALAKE::OWNER || TAG::OWNER || APPLY_TAG (on the metalake or the tag)
  kManageTag,  // METALAKE::OWNER || TAG::OWNER (alter, delete)
  // A policy of the metalake, as a tag.
  kCreatePolicy,   // METALAKE::OWNER || CREATE_POLICY
  kLoadPolicy,     // METALAKE::OWNER || POLICY::OWNER || APPLY_POLICY
  kManagePolicy,   // METALAKE::OWNER || POLICY::OWNER (alter, enable, delete)
  // A job template of the metalake (Target::object, object_type kJobTemplate), and a job.
  kRegisterJobTemplate,  // METALAKE::OWNER || REGISTER_JOB_TEMPLATE
  kLoadJobTemplate,      // METALAKE::OWNER || JOB_TEMPLATE::OWNER || USE_JOB_TEMPLATE
  kManageJobTemplate,    // METALAKE::OWNER || JOB_TEMPLATE::OWNER (alter, delete)
  kRunJob,  // METALAKE::OWNER || RUN_JOB && (USE_JOB_TEMPLATE || JOB_TEMPLATE::OWNER)
  kLoadJob,  // METALAKE::OWNER || JOB::OWNER (get, cancel; object_type kJob)
  kGrantOnObject,  // owner of the object or an ancestor, or MANAGE_GRANTS on its chain
};

/// Whether every caller allowed `action` on a target is allowed kLoadCatalog on it: true for the
/// actions on a catalog and on anything inside one (kLoadCatalog through kDropObject), whose rules
/// all require an owner above or USE_CATALOG. A front end that checks the catalog before the
/// request's own action may then check the action alone, and the catalog only to word a denial.
constexpr bool ImpliesLoadCatalog(Action action) {
  return action >= Action::kLoadCatalog && action <= Action::kDropObject;
}

std::string_view ActionName(Action action);
/// The name of `action` on an object of `kind` in denials: ActionName, or for the leaf actions
/// of any kind the verb and the kind ("LOAD_TOPIC").
std::string ActionName(Action action, model::ObjectKind kind);
/// The kind of object `action` addresses; none for kGrantOnObject and the leaf actions of any
/// kind, which take the target's.
std::optional<model::ObjectKind> ActionKind(Action action);

/// The object a request addresses: the metalake row (required) and, when they exist, the rows
/// of the catalog, schema and leaf object. Names are always set; rows are missing for objects
/// that do not exist (yet).
struct Target {
  store::EntityRecord metalake;
  std::string catalog;
  std::optional<store::EntityRecord> catalog_row;
  std::vector<std::string> schema;  // namespace levels
  std::optional<store::EntityRecord> schema_row;
  std::string object;
  ObjectType object_type = ObjectType::kTable;
  std::optional<store::EntityRecord> object_row;
  std::optional<store::EntityRecord> role_row;  // for role-level checks
  /// A column of the table `object` (a metadata object of type column): its name, and its row
  /// when it has one (a column has a row only once a label is attached to it).
  std::string column;
  std::optional<store::EntityRecord> column_row;

  /// The stored row of the object of `type` this target names (the metalake, catalog, schema or
  /// leaf row), or nullptr when it does not exist.
  const store::EntityRecord* RowOf(ObjectType type) const;
};

/// A metadata object named as the "objects" paths of the Gravitino API name it: its type and
/// its rows.
struct MetadataObjectTarget {
  ObjectType type = ObjectType::kTable;
  Target target;
};

/// The authorize stage: one decision function shared by every interface. A denial is
/// kPermissionDenied and ends the request before any connector or store write.
class Authorizer {
 public:
  Authorizer(store::MetadataStore& store, governance::AccessControl& access);

  bool enabled() const { return access_.enabled(); }
  governance::AccessControl& access() { return access_; }

  /// Loads the rows of a target by names. Missing rows stay empty; any other store error (an
  /// outage: kUnavailable) is returned, never taken for a missing row.
  Result<Target> Resolve(const std::string& metalake, const std::string& catalog = "",
                         const std::vector<std::string>& schema = {},
                         const std::string& object = "",
                         ObjectType object_type = ObjectType::kTable);

  /// Resolve below a metalake and catalog whose rows the request has already read.
  Result<Target> ResolveFrom(store::EntityRecord metalake, store::EntityRecord catalog,
                             const std::vector<std::string>& schema = {},
                             const std::string& object = "",
                             ObjectType object_type = ObjectType::kTable);

  /// Resolves the metadata object `full_name` of type `type_text` in `metalake` (Gravitino's
  /// "objects" addressing: a catalog by its name, a schema as `c.s`, a leaf as `c.s.o`, a tag
  /// by its name, a column as `c.s.t.col`) to its rows; a column's target is its table's, with
  /// the column's name and row (if any) beside it, so decisions on it are decisions on its table.
  /// kInvalidArgument (kMetadataObject) for an unknown type or a name of the wrong shape; kNotFound
  /// (kMetadataObject) when the object does not exist. With `must_exist` false, a schema or leaf
  /// object without a row in an existing catalog is no error: the target then has its names and the
  /// rows above it.
  Result<MetadataObjectTarget> ResolveMetadataObject(const std::string& metalake,
                                                     const std::string& type_text,
                                                     const std::string& full_name,
                                                     bool must_exist = true);

  /// Ok when allowed (always, when authorization is off).
  Status Check(const Principal& principal, Action action, const Target& target);
  /// The same decision as a value: false when denied, an error when it could not be made.
  Result<bool> Allowed(const Principal& principal, Action action, const Target& target);
  /// Keeps the names of children of `parent` the principal may see with `action`: catalogs of a
  /// metalake (target with no catalog), schemas of a catalog (no schema) or tables, views or
  /// filesets of a schema (by the parent's `object_type`). One store read for the children's rows,
  /// then in-memory decisions. `rows`, when given, are the listed children's rows (a page already
  /// read): then nothing more is read and the cost is proportional to the page. A store error is
  /// returned, never answered with a shorter (or empty) list.
  Result<std::vector<std::string>> Filter(const Principal& principal, Action action,
                                          const Target& parent, std::vector<std::string> names,
                                          const std::vector<store::EntityRecord>* rows = nullptr);
  /// Resolve and Check in one step, for the object named by its path: Ok when `principal` may do
  /// `action` on it (always, when authorization is off, without reading anything).
  Status Authorize(const Principal& principal, Action action, std::string_view metalake,
                   std::string_view catalog = "", const std::vector<std::string>& schema = {},
                   std::string_view object = "", ObjectType object_type = ObjectType::kTable);
  /// Resolve and Filter in one step: the `names` of children of the named parent (catalogs of a
  /// metalake, schemas of a catalog, or `object_type` objects of a schema) that `principal` may
  /// see with `action`; all of them when authorization is off.
  Result<std::vector<std::string>> Visible(const Principal& principal, Action action,
                                           const std::string& metalake, const std::string& catalog,
                                           const std::vector<std::string>& schema,
                                           std::vector<std::string> names,
                                           ObjectType object_type = ObjectType::kTable,
                                           const std::vector<store::EntityRecord>* rows = nullptr);
  /// Makes `owner` the owner of the object stored as `row`.
  Status SetOwner(const store::EntityRecord& row, const governance::Owner& owner);
  /// For the metalake list: may the principal see this metalake?
  Result<bool> CanSeeMetalake(const Principal& principal, const store::EntityRecord& metalake);

 private:
  Result<bool> Decide(const Principal& principal, Action action, const Target& target);
  /// The target of the names, with the catalog row (when it exists) already read.
  Result<Target> ResolveFrom(store::EntityRecord metalake,
                             std::optional<store::EntityRecord> catalog_row,
                             const std::string& catalog, const std::vector<std::string>& schema,
                             const std::string& object, ObjectType object_type);
  /// Fills the schema and object rows of `t` below its catalog row, when that is set.
  Status ResolveBelowCatalog(Target& t);

  store::MetadataStore& store_;
  governance::AccessControl& access_;
};

}  // namespace cairn::service
