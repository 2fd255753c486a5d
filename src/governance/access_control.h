// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "model/kinds.h"
#include "model/table.h"
#include "store/metadata_store.h"

namespace cairn::governance {

/// Who is calling: the authenticated user and the groups the authenticator reported.
struct Principal {
  std::string user = "anonymous";
  std::vector<std::string> groups;
};

/// The kind of a securable object: one of the object kinds that has a securable type
/// (model/kinds.h); users, groups and roles are not securable.
using ObjectType = model::ObjectKind;

/// The kind's name as written on the wire and in role payloads (lower-case, "table").
std::string_view ObjectTypeName(ObjectType type);
/// The securable kind named `text`, case-insensitive; none for unknown and non-securable names.
std::optional<ObjectType> ParseObjectType(std::string_view text);

struct Privilege {
  std::string name;  // upper-case, e.g. SELECT_TABLE
  bool allow = true;
  bool operator==(const Privilege&) const = default;
};

struct SecurableObject {
  std::string full_name;  // "cat", "cat.sch", "cat.sch.tbl"; the metalake's own name for kMetalake
  ObjectType type = ObjectType::kMetalake;
  std::vector<Privilege> privileges;
};

struct Role {
  std::string name;
  model::Properties properties;
  std::vector<SecurableObject> objects;
  model::Audit audit;
};

/// A user or a group of a metalake with the roles granted to it.
struct Member {
  std::string name;
  std::vector<std::string> roles;
  model::Audit audit;
};

struct Owner {
  std::string name;
  bool is_group = false;
};

/// kInvalidArgument (IllegalPrivilege) when `privilege` is unknown or cannot be bound to `type`.
Status ValidatePrivilege(std::string_view privilege, ObjectType type);

/// The owner of a stored object: an explicit owner in its payload, else its creator.
Owner OwnerOf(const store::EntityRecord& row);
/// Returns `payload` (a JSON object text) with the owner replaced.
std::string WithOwner(const std::string& payload, const Owner& owner);

/// Everything a principal is granted in one metalake: membership and the union of the
/// privileges of its roles and of its groups' roles. Immutable once built.
class Grants {
 public:
  bool member = false;
  /// True when `privilege` is allowed on one of `chain` and denied on none (deny wins).
  /// `chain` lists (type, full name) from the metalake down to the object.
  bool Has(std::string_view privilege,
           std::span<const std::pair<ObjectType, std::string>> chain) const;
  std::map<std::pair<ObjectType, std::string>, std::map<std::string, bool, std::less<>>>
      entries;                   // privilege -> allow
  std::set<std::string> groups;  // the principal's groups registered in the metalake
};

inline constexpr int64_t kGrantsTtlMs = 5000;

struct AccessConfig {
  bool enabled = false;
  std::set<std::string> service_admins;
};

/// Users, groups, roles and grants of metalakes, stored as rows under the metalake, and the
/// per-principal decision cache. Any change of users, groups, roles or owners made through this
/// process invalidates the cache at once (a generation counter), and so does one made through
/// another replica sharing the store as soon as the store announces it (PostgreSQL's change
/// feed); should the feed be down, such a change is still seen within kGrantsTtlMs, when the
/// entry is rebuilt.
/// Safe to call from many threads.
class AccessControl {
 public:
  AccessControl(store::MetadataStore& store, AccessConfig config);

  bool enabled() const { return config_.enabled; }
  bool IsServiceAdmin(const std::string& user) const {
    return config_.service_admins.count(user) > 0;
  }
  const AccessConfig& config() const { return config_; }

  Result<Member> AddUser(const store::EntityRecord& metalake, const std::string& name,
                         const model::Audit& audit);
  Result<Member> GetUser(const store::EntityRecord& metalake, const std::string& name);
  Result<std::vector<Member>> ListUsers(const store::EntityRecord& metalake);
  Result<bool> RemoveUser(const store::EntityRecord& metalake, const std::string& name);

  Result<Member> AddGroup(const store::EntityRecord& metalake, const std::string& name,
                          const model::Audit& audit);
  Result<Member> GetGroup(const store::EntityRecord& metalake, const std::string& name);
  Result<std::vector<Member>> ListGroups(const store::EntityRecord& metalake);
  Result<bool> RemoveGroup(const store::EntityRecord& metalake, const std::string& name);

  /// Objects must already be validated (exist, privileges bindable).
  Result<Role> CreateRole(const store::EntityRecord& metalake, const Role& role);
  Result<Role> GetRole(const store::EntityRecord& metalake, const std::string& name);
  Result<std::vector<std::string>> ListRoles(const store::EntityRecord& metalake);
  Result<store::EntityRecord> RoleRow(const store::EntityRecord& metalake, const std::string& name);
  Result<bool> DeleteRole(const store::EntityRecord& metalake, const std::string& name);
  /// Adds (grant) or removes (revoke) privileges of one object of a role.
  Result<Role> ChangeRolePrivileges(const store::EntityRecord& metalake, const std::string& role,
                                    const SecurableObject& object, bool grant,
                                    const model::Audit& audit);
  /// Replaces the privileges of each listed object in the role (an object with no privileges is
  /// removed from the role).
  Result<Role> OverrideRoleObjects(const store::EntityRecord& metalake, const std::string& role,
                                   const std::vector<SecurableObject>& objects,
                                   const model::Audit& audit);
  /// Roles that hold privileges on an object.
  Result<std::vector<std::string>> RolesOfObject(const store::EntityRecord& metalake,
                                                 ObjectType type, const std::string& full_name);

  /// Grants roles to (or revokes from) a user or group. kNotFound for missing roles.
  Result<Member> ChangeMemberRoles(const store::EntityRecord& metalake, bool group,
                                   const std::string& name, const std::vector<std::string>& roles,
                                   bool grant, const model::Audit& audit);

  /// The principal's grants in the metalake (cached until the next access-control change).
  Result<std::shared_ptr<const Grants>> GrantsOf(const store::EntityRecord& metalake,
                                                 const Principal& principal);

  /// Drops every cached decision; called after any change that affects decisions.
  void Invalidate() { generation_->fetch_add(1); }

 private:
  Result<Member> AddMember(store::EntityType type, const store::EntityRecord& metalake,
                           const std::string& name, const model::Audit& audit);
  Result<Member> GetMember(store::EntityType type, const store::EntityRecord& metalake,
                           const std::string& name);
  Result<std::vector<Member>> ListMembers(store::EntityType type,
                                          const store::EntityRecord& metalake);
  Result<bool> RemoveMember(store::EntityType type, const store::EntityRecord& metalake,
                            const std::string& name);

  store::MetadataStore& store_;
  AccessConfig config_;
  // Shared with the store's change subscription, which may outlive this object.
  std::shared_ptr<std::atomic<uint64_t>> generation_ = std::make_shared<std::atomic<uint64_t>>(0);

  struct CacheEntry {
    uint64_t generation = 0;
    int64_t built_ms = 0;  // changes made by other replicas are picked up after kGrantsTtlMs
    std::shared_ptr<const Grants> grants;
  };
  std::mutex mu_;
  std::unordered_map<std::string, CacheEntry>
      cache_;  // guarded by mu_; key: metalake id + principal
  /// Tells this object's entries in a thread's memo of its last lookup (GrantsOf) from those of
  /// another object, even one at the same address later.
  const uint64_t serial_;
};

}  // namespace cairn::governance
