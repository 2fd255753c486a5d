// SPDX-License-Identifier: Apache-2.0
#include "service/authorizer.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <span>
#include <unordered_map>

#include "common/trace.h"
#include "common/util.h"
#include "store/retry.h"

namespace cairn::service {

using governance::Grants;
using governance::OwnerOf;
using store::EntityRecord;
using store::EntityType;

namespace {

using K = model::ObjectKind;

// One row per action, in the order of the enum: its name in denials and the kind of object it
// addresses.
struct ActionRow {
  Action action;
  std::string_view name;
  std::optional<K> kind;
};

constexpr ActionRow kActions[] = {
    {Action::kCreateMetalake, "CREATE_METALAKE", K::kMetalake},
    {Action::kUseMetalake, "USE_METALAKE", K::kMetalake},
    {Action::kManageMetalake, "MANAGE_METALAKE", K::kMetalake},
    {Action::kCreateCatalog, "CREATE_CATALOG", K::kCatalog},
    {Action::kLoadCatalog, "LOAD_CATALOG", K::kCatalog},
    {Action::kManageCatalog, "MANAGE_CATALOG", K::kCatalog},
    {Action::kCreateSchema, "CREATE_SCHEMA", K::kSchema},
    {Action::kLoadSchema, "LOAD_SCHEMA", K::kSchema},
    {Action::kManageSchema, "MANAGE_SCHEMA", K::kSchema},
    {Action::kCreateTable, "CREATE_TABLE", K::kTable},
    {Action::kLoadTable, "LOAD_TABLE", K::kTable},
    {Action::kModifyTable, "MODIFY_TABLE", K::kTable},
    {Action::kDropTable, "DROP_TABLE", K::kTable},
    {Action::kCreateView, "CREATE_VIEW", K::kView},
    {Action::kLoadView, "LOAD_VIEW", K::kView},
    {Action::kManageView, "MANAGE_VIEW", K::kView},
    {Action::kCreateFileset, "CREATE_FILESET", K::kFileset},
    {Action::kLoadFileset, "LOAD_FILESET", K::kFileset},
    {Action::kWriteFileset, "WRITE_FILESET", K::kFileset},
    {Action::kDropFileset, "DROP_FILESET", K::kFileset},
    {Action::kCreateObject, "CREATE", std::nullopt},
    {Action::kLoadObject, "LOAD", std::nullopt},
    {Action::kWriteObject, "WRITE", std::nullopt},
    {Action::kDropObject, "DROP", std::nullopt},
    {Action::kManageUsers, "MANAGE_USERS", K::kUser},
    {Action::kManageGroups, "MANAGE_GROUPS", K::kGroup},
    {Action::kCreateRole, "CREATE_ROLE", K::kRole},
    {Action::kManageGrants, "MANAGE_GRANTS", K::kRole},
    {Action::kCreateTag, "CREATE_TAG", K::kTag},
    {Action::kLoadTag, "LOAD_TAG", K::kTag},
    {Action::kManageTag, "MANAGE_TAG", K::kTag},
    {Action::kCreatePolicy, "CREATE_POLICY", K::kPolicy},
    {Action::kLoadPolicy, "LOAD_POLICY", K::kPolicy},
    {Action::kManagePolicy, "MANAGE_POLICY", K::kPolicy},
    {Action::kRegisterJobTemplate, "REGISTER_JOB_TEMPLATE", K::kJobTemplate},
    {Action::kLoadJobTemplate, "LOAD_JOB_TEMPLATE", K::kJobTemplate},
    {Action::kManageJobTemplate, "MANAGE_JOB_TEMPLATE", K::kJobTemplate},
    {Action::kRunJob, "RUN_JOB", K::kJobTemplate},
    {Action::kLoadJob, "LOAD_JOB", K::kJob},
    {Action::kGrantOnObject, "MANAGE_GRANTS", std::nullopt},
};

constexpr bool ActionRowsInEnumOrder() {
  for (size_t i = 0; i < std::size(kActions); ++i) {
    if (static_cast<size_t>(kActions[i].action) != i) return false;
  }
  return true;
}
static_assert(ActionRowsInEnumOrder(), "kActions rows must follow the order of Action");
static_assert(kActions[std::size(kActions) - 1].action == Action::kGrantOnObject,
              "every Action needs a row");

}  // namespace

std::string_view ActionName(Action action) { return kActions[static_cast<size_t>(action)].name; }

std::string ActionName(Action action, model::ObjectKind kind) {
  switch (action) {
    case Action::kCreateObject:
    case Action::kLoadObject:
    case Action::kWriteObject:
    case Action::kDropObject:
      return fmt::format("{}_{}", ActionName(action), model::Describe(kind).securable);
    default:
      return std::string(ActionName(action));
  }
}

std::optional<model::ObjectKind> ActionKind(Action action) {
  return kActions[static_cast<size_t>(action)].kind;
}

namespace {

// The store type of the leaf objects of a schema addressed with `type`: the kind itself when it
// lives in a schema, else a table (the default object of a request).
EntityType LeafEntityType(ObjectType type) {
  const auto parent = model::Describe(type).parent;
  return parent == model::ObjectKind::kSchema ? type : EntityType::kTable;
}

// A missing row is an answer (the object does not exist yet); any other store error is not, and
// ends the request (an outage must not read as "no such object" and so as a denial).
Result<std::optional<EntityRecord>> GetIfPresent(store::MetadataStore& store, EntityType type,
                                                 int64_t parent, const std::string& name) {
  auto row = store.Get(type, parent, name);
  if (row) return std::optional<EntityRecord>(std::move(*row));
  if (row.error().code == ErrorCode::kNotFound) return std::optional<EntityRecord>();
  return std::move(row).error();
}

}  // namespace

const EntityRecord* Target::RowOf(ObjectType type) const {
  switch (type) {
    case ObjectType::kMetalake:
      return &metalake;
    case ObjectType::kCatalog:
      return catalog_row ? &*catalog_row : nullptr;
    case ObjectType::kSchema:
      return schema_row ? &*schema_row : nullptr;
    case ObjectType::kColumn:
      return column_row ? &*column_row : nullptr;
    default:
      return object_row ? &*object_row : nullptr;
  }
}

Authorizer::Authorizer(store::MetadataStore& store, governance::AccessControl& access)
    : store_(store), access_(access) {}

namespace {

// The levels below a catalog a target names (its schemas, then its object), as a path for
// MetadataStore::GetPath; none without a schema (a catalog-level target).
void AppendBelowCatalog(std::vector<std::pair<EntityType, std::string>>& path,
                        const std::vector<std::string>& schema, std::string_view object,
                        ObjectType object_type) {
  if (schema.empty()) return;
  for (const auto& level : schema) path.emplace_back(EntityType::kSchema, level);
  if (!object.empty()) path.emplace_back(LeafEntityType(object_type), std::string(object));
}

// The path from a target's metalake down to its object, for MetadataStore::GetPath.
std::vector<std::pair<EntityType, std::string>> PathOf(std::string_view metalake,
                                                       std::string_view catalog,
                                                       const std::vector<std::string>& schema,
                                                       std::string_view object,
                                                       ObjectType object_type) {
  std::vector<std::pair<EntityType, std::string>> path;
  path.reserve(3 + schema.size());  // one allocation, not one per level
  path.emplace_back(EntityType::kMetalake, std::string(metalake));
  if (!catalog.empty()) {
    path.emplace_back(EntityType::kCatalog, std::string(catalog));
    AppendBelowCatalog(path, schema, object, object_type);
  }
  return path;
}

// A target naming these levels, with its metalake's and (when it exists) its catalog's rows.
Target NewTarget(EntityRecord metalake, std::optional<EntityRecord> catalog_row,
                 const std::string& catalog, const std::vector<std::string>& schema,
                 const std::string& object, ObjectType object_type) {
  Target t;
  t.metalake = std::move(metalake);
  t.catalog = catalog;
  t.catalog_row = std::move(catalog_row);
  t.schema = schema;
  t.object = object;
  t.object_type = object_type;
  return t;
}

// Fills the schema and object rows of `t` from GetPath's rows of the levels below its catalog
// (`below` is where they start): the first schema's row when it exists, the object's when every
// level down to it does.
void FillBelowCatalog(Target& t, const std::vector<EntityRecord>& rows, size_t below) {
  if (t.schema.empty() || rows.size() <= below) return;
  t.schema_row = rows[below];
  if (!t.object.empty() && rows.size() == below + t.schema.size() + 1) {
    t.object_row = rows.back();
  }
}

}  // namespace

// One path lookup from the metalake down to the object (answered from memory when the store
// caches paths), instead of a query per level.
Result<Target> Authorizer::Resolve(const std::string& metalake, const std::string& catalog,
                                   const std::vector<std::string>& schema,
                                   const std::string& object, ObjectType object_type) {
  CAIRN_ASSIGN_OR_RETURN(
      store::MetadataStore::PathRows shared,
      store_.GetSharedPath(0, PathOf(metalake, catalog, schema, object, object_type)));
  const std::vector<EntityRecord>& rows = *shared;
  if (rows.empty()) {
    return NotFound(EntityKind::kMetalake, "Metalake {} does not exist", metalake);
  }
  std::optional<EntityRecord> catalog_row;
  if (rows.size() > 1) catalog_row = rows[1];
  Target t = NewTarget(rows[0], std::move(catalog_row), catalog, schema, object, object_type);
  if (t.catalog_row) FillBelowCatalog(t, rows, 2);
  return t;
}

Result<Target> Authorizer::ResolveFrom(EntityRecord metalake, EntityRecord catalog,
                                       const std::vector<std::string>& schema,
                                       const std::string& object, ObjectType object_type) {
  std::string name = catalog.name;
  return ResolveFrom(std::move(metalake), std::move(catalog), name, schema, object, object_type);
}

Result<Target> Authorizer::ResolveFrom(EntityRecord metalake,
                                       std::optional<EntityRecord> catalog_row,
                                       const std::string& catalog,
                                       const std::vector<std::string>& schema,
                                       const std::string& object, ObjectType object_type) {
  Target t = NewTarget(std::move(metalake), std::move(catalog_row), catalog, schema, object,
                       object_type);
  CAIRN_RETURN_IF_ERROR(ResolveBelowCatalog(t));
  return t;
}

Result<MetadataObjectTarget> Authorizer::ResolveMetadataObject(const std::string& metalake,
                                                               const std::string& type_text,
                                                               const std::string& full_name,
                                                               bool must_exist) {
  auto type = governance::ParseObjectType(type_text);
  if (!type) {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject,
                     "Unknown metadata object type '{}'", type_text);
  }
  auto invalid = [&] {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject,
                     "Invalid full name '{}' for a metadata object of type {}", full_name,
                     type_text);
  };
  const std::vector<std::string> parts = Split(full_name, '.');
  MetadataObjectTarget out;
  out.type = *type;
  switch (*type) {
    case ObjectType::kMetalake: {
      if (full_name != metalake) {
        return NotFound(EntityKind::kMetadataObject, "Metadata object {} does not exist",
                        full_name);
      }
      CAIRN_ASSIGN_OR_RETURN(out.target, Resolve(metalake));
      return out;
    }
    case ObjectType::kCatalog: {
      if (parts.size() != 1) return invalid();
      CAIRN_ASSIGN_OR_RETURN(out.target, Resolve(metalake, parts[0]));
      if (!out.target.catalog_row) {
        return NotFound(EntityKind::kMetadataObject, "Catalog {} does not exist", full_name);
      }
      return out;
    }
    case ObjectType::kSchema: {
      if (parts.size() != 2) return invalid();
      CAIRN_ASSIGN_OR_RETURN(out.target, Resolve(metalake, parts[0], {parts[1]}));
      if (!out.target.schema_row && (must_exist || !out.target.catalog_row)) {
        return NotFound(EntityKind::kMetadataObject, "Schema {} does not exist", full_name);
      }
      return out;
    }
    case ObjectType::kTable:
    case ObjectType::kView:
    case ObjectType::kFileset:
    case ObjectType::kTopic:
    case ObjectType::kModel:
    case ObjectType::kFunction: {  // the leaf kinds of a schema
      if (parts.size() != 3) return invalid();
      CAIRN_ASSIGN_OR_RETURN(out.target, Resolve(metalake, parts[0], {parts[1]}, parts[2], *type));
      if (!out.target.object_row && (must_exist || !out.target.catalog_row)) {
        return NotFound(EntityKind::kMetadataObject, "{} {} does not exist",
                        model::Describe(*type).display, full_name);
      }
      return out;
    }
    case ObjectType::kColumn: {
      // Gravitino's `catalog.schema.table.column`; whether the table has the column is for its
      // catalog to say (the caller asks it), a column's row exists only once it carries a label.
      if (parts.size() != 4 || parts[3].empty()) return invalid();
      CAIRN_ASSIGN_OR_RETURN(out.target,
                             Resolve(metalake, parts[0], {parts[1]}, parts[2], ObjectType::kTable));
      if (!out.target.object_row && (must_exist || !out.target.catalog_row)) {
        return NotFound(EntityKind::kMetadataObject, "Column {} does not exist", full_name);
      }
      out.target.column = parts[3];
      if (out.target.object_row) {
        CAIRN_ASSIGN_OR_RETURN(
            out.target.column_row,
            GetIfPresent(store_, EntityType::kColumn, out.target.object_row->id, parts[3]));
      }
      return out;
    }
    case ObjectType::kTag:
    case ObjectType::kPolicy:
    case ObjectType::kJobTemplate: {
      // A tag, policy or job template is named by its bare name, which may hold dots.
      CAIRN_ASSIGN_OR_RETURN(out.target, Resolve(metalake));
      out.target.object = full_name;
      out.target.object_type = *type;
      CAIRN_ASSIGN_OR_RETURN(out.target.object_row,
                             GetIfPresent(store_, *type, out.target.metalake.id, full_name));
      if (!out.target.object_row) {
        return NotFound(EntityKind::kMetadataObject, "{} {} does not exist",
                        model::Describe(*type).display, full_name);
      }
      return out;
    }
    default:
      return NotFound(EntityKind::kMetadataObject, "Metadata object {} of type {} does not exist",
                      full_name, type_text);
  }
}

Status Authorizer::ResolveBelowCatalog(Target& t) {
  if (!t.catalog_row || t.schema.empty()) return Ok();
  std::vector<std::pair<EntityType, std::string>> path;
  AppendBelowCatalog(path, t.schema, t.object, t.object_type);
  CAIRN_ASSIGN_OR_RETURN(store::MetadataStore::PathRows rows,
                         store_.GetSharedPath(t.catalog_row->id, path));
  FillBelowCatalog(t, *rows, 0);
  return Ok();
}

namespace {

enum class Verb { kCreate, kLoad, kWrite, kDrop };

// What a decision reads of its target, borrowed: from a Target, or straight from the rows of a
// shared path lookup (Authorize), so that deciding copies no row.
struct TargetView {
  const EntityRecord* metalake = nullptr;
  const EntityRecord* catalog_row = nullptr;
  const EntityRecord* schema_row = nullptr;
  const EntityRecord* object_row = nullptr;
  std::string_view catalog;
  std::span<const std::string> schema;
  std::string_view object;
  ObjectType object_type = ObjectType::kTable;
};

template <typename T>
const T* Ptr(const std::optional<T>& value) {
  return value ? &*value : nullptr;
}

TargetView ViewOf(const Target& t) {
  return TargetView{&t.metalake,  Ptr(t.catalog_row), Ptr(t.schema_row), Ptr(t.object_row),
                    t.catalog,    t.schema,           t.object,          t.object_type};
}

// The view of a target named by `catalog`, `schema` and `object` from GetPath's rows of the
// path from its metalake down (as Resolve fills a Target): the catalog's row when it exists,
// the first schema's when it does, the object's when every level down to it does.
TargetView ViewOfPath(const std::vector<EntityRecord>& rows, std::string_view catalog,
                      const std::vector<std::string>& schema, std::string_view object,
                      ObjectType object_type) {
  TargetView v{&rows[0], nullptr, nullptr, nullptr, catalog, schema, object, object_type};
  if (rows.size() > 1) v.catalog_row = &rows[1];
  if (v.catalog_row && !schema.empty() && rows.size() > 2) {
    v.schema_row = &rows[2];
    if (!object.empty() && rows.size() == 2 + schema.size() + 1) v.object_row = &rows.back();
  }
  return v;
}

// The full name of the target in denials: its deepest name (the catalog's, with the schema
// levels and the object below), or the metalake's.
std::string DisplayName(const TargetView& t) {
  std::string name = t.metalake->name;
  if (!t.catalog.empty()) name = t.catalog;
  for (const auto& level : t.schema) name.append(".").append(level);
  if (!t.object.empty()) name.append(".").append(t.object);
  return name;
}

Error Denied(const Principal& principal, Action action, const TargetView& t) {
  return MakeError(ErrorCode::kPermissionDenied, EntityKind::kNone,
                   "User '{}' is not authorized to perform operation '{}' on metadata '{}'",
                   principal.user, ActionName(action, t.object_type), DisplayName(t));
}

// The depth of the kind `privilege` is declared on (model::FindPrivilegeKind), or -1 when it
// is declared on none or on several. A table built once: rules ask it several times a decision.
int PrivilegeDepth(std::string_view privilege) {
  static const std::unordered_map<std::string_view, int> kDepths = [] {
    std::unordered_map<std::string_view, int> out;
    for (const auto& row : model::kKinds) {
      for (const std::string_view p : row.privileges) {
        const auto kind = model::FindPrivilegeKind(p);
        out.emplace(p, kind ? model::Depth(*kind) : -1);
      }
    }
    return out;
  }();
  const auto it = kDepths.find(privilege);
  return it == kDepths.end() ? -1 : it->second;
}

// One decision. A rule reads the owners of the target's levels and privileges granted on its
// chain, often the same ones several times (a leaf's rule asks for the owners above it in two
// branches): each owner is read once and the chain built once.
class Evaluator {
 public:
  Evaluator(const Principal& principal, const Grants& grants, const TargetView& t)
      : principal_(principal), grants_(grants), t_(t) {}

  bool OwnsMetalake() const { return Owns(0, t_.metalake); }
  bool OwnsCatalog() const { return Owns(1, t_.catalog_row); }
  bool OwnsSchema() const { return Owns(2, t_.schema_row); }
  bool OwnsObject() const { return Owns(3, t_.object_row); }

  // Granted on the chain from the metalake down to `depth` (0 the metalake, 1 the catalog or an
  // object of the metalake, 2 the schema levels, 3 the leaf object).
  bool Any(std::string_view privilege, int depth) const {
    BuildChain();
    return grants_.Has(privilege, std::span(chain_.data(), until_[std::clamp(depth, 0, 3)]));
  }
  // Granted on the chain down to the kind the privilege is declared on: SELECT_TABLE down to
  // the table, CREATE_TABLE down to the schema.
  bool Granted(std::string_view privilege) const {
    const int depth = PrivilegeDepth(privilege);
    return depth >= 0 && Any(privilege, depth);
  }

  bool UseCatalog() const { return Granted("USE_CATALOG"); }
  bool UseSchema() const { return Granted("USE_SCHEMA"); }
  bool OwnerAbove() const { return OwnsMetalake() || OwnsCatalog(); }
  bool SchemaOwnerWithUseCatalog() const { return OwnsSchema() && UseCatalog(); }
  bool InSchema(bool leaf) const {
    return OwnerAbove() || SchemaOwnerWithUseCatalog() || (UseCatalog() && UseSchema() && leaf);
  }
  bool AnyGranted(std::span<const std::string_view> privileges) const {
    return std::any_of(privileges.begin(), privileges.end(),
                       [&](std::string_view p) { return Granted(p); });
  }
  // The rule of `verb` on a leaf object of `kind`, from the kind's row: inside the schema (its
  // owners, or USE_CATALOG and USE_SCHEMA) and the kind's privilege for the verb.
  bool Leaf(Verb verb, K kind) const {
    const model::LeafAccess& access = model::Describe(kind).access;
    switch (verb) {
      case Verb::kCreate:
        return InSchema(!access.create.empty() && Granted(access.create));
      case Verb::kLoad:
        return InSchema(OwnsObject() || AnyGranted(access.read));
      case Verb::kWrite:
        return InSchema(OwnsObject() || AnyGranted(access.write));
      case Verb::kDrop:
        return InSchema(OwnsObject());
    }
    return false;
  }

 private:
  bool Owns(int level, const EntityRecord* row) const {
    if (row == nullptr) return false;
    std::optional<bool>& known = owns_[level];
    if (!known) {
      const auto owner = OwnerOf(*row);
      known = owner.is_group ? grants_.groups.count(owner.name) > 0
                             : owner.name == principal_.user;
    }
    return *known;
  }

  // The chain from the metalake down to the object, with the number of its links down to each
  // depth.
  void BuildChain() const {
    if (!chain_.empty()) return;
    chain_.reserve(3 + t_.schema.size());
    chain_.emplace_back(ObjectType::kMetalake, t_.metalake->name);
    until_ = {1, 1, 1, 1};
    // An object of the metalake itself (a tag): named by its bare name, right below it.
    if (t_.catalog.empty() && !t_.object.empty() &&
        model::Describe(t_.object_type).parent == model::ObjectKind::kMetalake) {
      chain_.emplace_back(t_.object_type, std::string(t_.object));
      until_[1] = until_[2] = until_[3] = 2;
      return;
    }
    if (!t_.catalog.empty()) chain_.emplace_back(ObjectType::kCatalog, std::string(t_.catalog));
    until_[1] = chain_.size();
    std::string name(t_.catalog);
    for (const auto& level : t_.schema) {
      name.append(".").append(level);
      chain_.emplace_back(ObjectType::kSchema, name);
    }
    until_[2] = chain_.size();
    if (!t_.object.empty()) {
      chain_.emplace_back(t_.object_type, name.append(".").append(t_.object));
    }
    until_[3] = chain_.size();
  }

  const Principal& principal_;
  const Grants& grants_;
  const TargetView& t_;
  mutable std::optional<bool> owns_[4];
  mutable std::vector<std::pair<ObjectType, std::string>> chain_;
  mutable std::array<size_t, 4> until_{};
};

Result<bool> DecideOn(governance::AccessControl& access, const Principal& principal,
                      Action action, const TargetView& target,
                      std::shared_ptr<const Grants> grants = nullptr);

// Decisions on the rows of a shared path lookup, remembered by the thread that made them. The
// rows and the grants are immutable and shared: the store hands out the same rows for a path
// until a write, the access control the same grants for a principal until a change. So the same
// action on the same rows with the same grants decides the same; a write or a change of grants
// brings new ones, which no entry holds. The grants name the principal (they are built per
// metalake, user and groups), and the rows the path. An entry holds both, so neither address
// can be reused by other rows or grants while it is remembered.
class RememberedDecisions {
 public:
  std::optional<bool> Find(const std::shared_ptr<const Grants>& grants,
                           const store::MetadataStore::PathRows& rows, Action action,
                           ObjectType type) const {
    for (const auto& e : entries_) {
      if (e.grants == grants && e.rows == rows && e.action == action && e.type == type) {
        return e.allowed;
      }
    }
    return std::nullopt;
  }
  void Remember(std::shared_ptr<const Grants> grants, store::MetadataStore::PathRows rows,
                Action action, ObjectType type, bool allowed) {
    entries_[next_] = Entry{std::move(grants), std::move(rows), action, type, allowed};
    next_ = (next_ + 1) % entries_.size();
  }

 private:
  struct Entry {
    std::shared_ptr<const Grants> grants;
    store::MetadataStore::PathRows rows;
    Action action = Action::kUseMetalake;
    ObjectType type = ObjectType::kTable;
    bool allowed = false;
  };
  // Room for the decisions of a few principals, objects and actions a thread serves in turn.
  std::array<Entry, 8> entries_;
  size_t next_ = 0;
};

thread_local RememberedDecisions remembered_decisions;

}  // namespace

namespace {

// `grants`, when given, are the principal's in the target's metalake (read once for a list).
Result<bool> DecideOn(governance::AccessControl& access, const Principal& principal,
                      Action action, const TargetView& target,
                      std::shared_ptr<const Grants> grants) {
  if (action == Action::kCreateMetalake) return access.IsServiceAdmin(principal.user);
  if (!grants) {
    CAIRN_ASSIGN_OR_RETURN(grants, access.GrantsOf(*target.metalake, principal));
  }
  const Evaluator e(principal, *grants, target);
  // Everything inside a metalake needs membership (its owner is always a member).
  if (!grants->member && !e.OwnsMetalake()) return false;
  switch (action) {
    case Action::kCreateMetalake:
      return false;
    case Action::kUseMetalake:
      return true;
    case Action::kManageMetalake:
      return e.OwnsMetalake();
    case Action::kCreateCatalog:
      return e.OwnsMetalake() || e.Granted("CREATE_CATALOG");
    case Action::kLoadCatalog:
      return e.OwnerAbove() || e.UseCatalog();
    case Action::kManageCatalog:
      return e.OwnerAbove();
    case Action::kCreateSchema:
      return e.OwnerAbove() || (e.UseCatalog() && e.Granted("CREATE_SCHEMA"));
    case Action::kLoadSchema:
      return e.OwnerAbove() || (e.UseCatalog() && (e.OwnsSchema() || e.UseSchema()));
    case Action::kManageSchema:
      return e.OwnerAbove() || e.SchemaOwnerWithUseCatalog();
    case Action::kCreateTable:
      return e.Leaf(Verb::kCreate, K::kTable);
    case Action::kLoadTable:
      return e.Leaf(Verb::kLoad, K::kTable);
    case Action::kModifyTable:
      return e.Leaf(Verb::kWrite, K::kTable);
    case Action::kDropTable:
      return e.Leaf(Verb::kDrop, K::kTable);
    case Action::kCreateView:
      return e.Leaf(Verb::kCreate, K::kView);
    case Action::kLoadView:
      return e.Leaf(Verb::kLoad, K::kView);
    case Action::kManageView:
      return e.Leaf(Verb::kDrop, K::kView);
    case Action::kCreateFileset:
      return e.Leaf(Verb::kCreate, K::kFileset);
    case Action::kLoadFileset:
      return e.Leaf(Verb::kLoad, K::kFileset);
    case Action::kWriteFileset:
      return e.Leaf(Verb::kWrite, K::kFileset);
    case Action::kDropFileset:
      return e.Leaf(Verb::kDrop, K::kFileset);
    case Action::kCreateObject:
      return e.Leaf(Verb::kCreate, target.object_type);
    case Action::kLoadObject:
      return e.Leaf(Verb::kLoad, target.object_type);
    case Action::kWriteObject:
      return e.Leaf(Verb::kWrite, target.object_type);
    case Action::kDropObject:
      return e.Leaf(Verb::kDrop, target.object_type);
    case Action::kManageUsers:
      return e.OwnsMetalake() || e.Granted("MANAGE_USERS");
    case Action::kManageGroups:
      return e.OwnsMetalake() || e.Granted("MANAGE_GROUPS");
    case Action::kCreateRole:
      return e.OwnsMetalake() || e.Granted("CREATE_ROLE");
    case Action::kManageGrants:
      return e.OwnsMetalake() || e.Any("MANAGE_GRANTS", 0);
    case Action::kCreateTag:
      return e.OwnsMetalake() || e.Granted("CREATE_TAG");
    case Action::kLoadTag:
      return e.OwnsMetalake() || e.OwnsObject() || e.Granted("APPLY_TAG");
    case Action::kManageTag:
    case Action::kManagePolicy:
      return e.OwnsMetalake() || e.OwnsObject();
    case Action::kCreatePolicy:
      return e.OwnsMetalake() || e.Granted("CREATE_POLICY");
    case Action::kLoadPolicy:
      return e.OwnsMetalake() || e.OwnsObject() || e.Granted("APPLY_POLICY");
    case Action::kRegisterJobTemplate:
      return e.OwnsMetalake() || e.Granted("REGISTER_JOB_TEMPLATE");
    case Action::kLoadJobTemplate:
      return e.OwnsMetalake() || e.OwnsObject() || e.Granted("USE_JOB_TEMPLATE");
    case Action::kManageJobTemplate:
    case Action::kLoadJob:
      return e.OwnsMetalake() || e.OwnsObject();
    case Action::kRunJob:
      return e.OwnsMetalake() ||
             (e.Granted("RUN_JOB") && (e.OwnsObject() || e.Granted("USE_JOB_TEMPLATE")));
    case Action::kGrantOnObject: {
      if (e.OwnerAbove() || e.OwnsSchema() || e.OwnsObject()) return true;
      const int depth = !target.object.empty()    ? 3
                        : !target.schema.empty()  ? 2
                        : !target.catalog.empty() ? 1
                                                  : 0;
      return e.Any("MANAGE_GRANTS", depth);
    }
  }
  return false;
}

}  // namespace

Result<bool> Authorizer::Decide(const Principal& principal, Action action, const Target& target) {
  return DecideOn(access_, principal, action, ViewOf(target));
}

Status Authorizer::Check(const Principal& principal, Action action, const Target& target) {
  if (!access_.enabled()) return Ok();
  const TargetView view = ViewOf(target);
  CAIRN_ASSIGN_OR_RETURN(bool allowed, DecideOn(access_, principal, action, view));
  if (allowed) return Ok();
  return Denied(principal, action, view);
}

Result<bool> Authorizer::Allowed(const Principal& principal, Action action, const Target& target) {
  if (!access_.enabled()) return true;
  return Decide(principal, action, target);
}

Result<std::vector<std::string>> Authorizer::Filter(const Principal& principal, Action action,
                                                    const Target& parent,
                                                    std::vector<std::string> names,
                                                    const std::vector<EntityRecord>* given_rows) {
  if (!access_.enabled()) return names;
  // Which level is being listed, and the row whose children are the listed objects.
  enum class Level { kCatalogs, kSchemas, kObjects } level;
  const EntityRecord* parent_row = nullptr;
  EntityType child_type = EntityType::kCatalog;
  if (parent.catalog.empty()) {
    level = Level::kCatalogs;
    parent_row = &parent.metalake;
  } else if (parent.schema.empty()) {
    level = Level::kSchemas;
    parent_row = Ptr(parent.catalog_row);
    child_type = EntityType::kSchema;
  } else {
    level = Level::kObjects;
    child_type = LeafEntityType(parent.object_type);
    // The rows of nested namespaces are not resolved; leaf rows come from the top level only.
    if (parent.schema.size() == 1) parent_row = Ptr(parent.schema_row);
  }
  std::vector<EntityRecord> listed;  // the children's rows, when read here
  if (given_rows == nullptr && parent_row) {
    CAIRN_ASSIGN_OR_RETURN(listed, store_.List(child_type, parent_row->id, "", 0));
  }
  std::unordered_map<std::string_view, const EntityRecord*> rows;
  for (const auto& r : given_rows != nullptr ? *given_rows : listed) rows.emplace(r.name, &r);
  std::vector<std::string> kept;
  kept.reserve(names.size());
  const TargetView parent_view = ViewOf(parent);
  CAIRN_ASSIGN_OR_RETURN(std::shared_ptr<const Grants> grants,
                         access_.GrantsOf(parent.metalake, principal));
  for (auto& name : names) {
    TargetView t = parent_view;
    auto row = rows.find(name);
    const EntityRecord* found = row != rows.end() ? row->second : nullptr;
    switch (level) {
      case Level::kCatalogs:
        t.catalog = name;
        t.catalog_row = found;
        break;
      case Level::kSchemas:
        t.schema = std::span(&name, 1);
        t.schema_row = found;
        break;
      case Level::kObjects:
        t.object = name;
        t.object_row = found;
        break;
    }
    CAIRN_ASSIGN_OR_RETURN(bool allowed, DecideOn(access_, principal, action, t, grants));
    if (allowed) kept.push_back(std::move(name));
  }
  return kept;
}

Status Authorizer::Authorize(const Principal& principal, Action action, std::string_view metalake,
                             std::string_view catalog, const std::vector<std::string>& schema,
                             std::string_view object, ObjectType object_type) {
  if (!access_.enabled()) return Ok();
  trace::Span span("authorize");
  span.Set("cairn.action", ActionName(action));
  // Decided on the rows of one shared path lookup, as Resolve would fill a Target, without
  // copying them into one.
  Status decided = [&]() -> Status {
    CAIRN_ASSIGN_OR_RETURN(
        store::MetadataStore::PathRows shared,
        store_.GetSharedPath(0, PathOf(metalake, catalog, schema, object, object_type)));
    if (shared->empty()) {
      return NotFound(EntityKind::kMetalake, "Metalake {} does not exist", metalake);
    }
    const TargetView view = ViewOfPath(*shared, catalog, schema, object, object_type);
    std::optional<bool> allowed;
    std::shared_ptr<const Grants> grants;
    if (action != Action::kCreateMetalake) {
      CAIRN_ASSIGN_OR_RETURN(grants, access_.GrantsOf(*view.metalake, principal));
      allowed = remembered_decisions.Find(grants, shared, action, object_type);
    }
    if (!allowed) {
      CAIRN_ASSIGN_OR_RETURN(allowed, DecideOn(access_, principal, action, view, grants));
      if (grants) remembered_decisions.Remember(grants, shared, action, object_type, *allowed);
    }
    if (*allowed) return Ok();
    return Denied(principal, action, view);
  }();
  if (!decided) span.Fail(decided.error().message);
  return decided;
}

Result<std::vector<std::string>> Authorizer::Visible(
    const Principal& principal, Action action, const std::string& metalake,
    const std::string& catalog, const std::vector<std::string>& schema,
    std::vector<std::string> names, ObjectType object_type, const std::vector<EntityRecord>* rows) {
  if (!access_.enabled()) return names;
  CAIRN_ASSIGN_OR_RETURN(Target parent, Resolve(metalake, catalog, schema, "", object_type));
  parent.object_type = object_type;
  return Filter(principal, action, parent, std::move(names), rows);
}

Status Authorizer::SetOwner(const EntityRecord& row, const governance::Owner& owner) {
  auto updated = store::RetryOnConflict([&]() -> Result<EntityRecord> {
    CAIRN_ASSIGN_OR_RETURN(EntityRecord current, store_.GetById(row.id));
    current.payload = governance::WithOwner(current.payload, owner);
    return store_.CompareAndSet(current);
  });
  if (!updated) return std::move(updated).error();
  access_.Invalidate();
  return Ok();
}

Result<bool> Authorizer::CanSeeMetalake(const Principal& principal, const EntityRecord& metalake) {
  if (!access_.enabled()) return true;
  Target t;
  t.metalake = metalake;
  return Allowed(principal, Action::kUseMetalake, t);
}

}  // namespace cairn::service
