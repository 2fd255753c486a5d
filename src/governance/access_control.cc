// SPDX-License-Identifier: Apache-2.0
#include "governance/access_control.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/util.h"
#include "json/json_util.h"
#include "json/member_scan.h"
#include "store/retry.h"

namespace cairn::governance {

using store::EntityRecord;
using store::EntityType;
using Json = nlohmann::json;

namespace {

std::atomic<uint64_t> next_access_serial{1};

Json ObjectsToJson(const std::vector<SecurableObject>& objects) {
  Json arr = Json::array();
  for (const auto& o : objects) {
    Json privs = Json::array();
    for (const auto& p : o.privileges) privs.push_back({{"name", p.name}, {"allow", p.allow}});
    arr.push_back(
        {{"fullName", o.full_name}, {"type", ObjectTypeName(o.type)}, {"privileges", privs}});
  }
  return arr;
}

std::vector<SecurableObject> ObjectsFromJson(const Json& j) {
  std::vector<SecurableObject> out;
  if (!j.is_array()) return out;
  for (const auto& o : j) {
    SecurableObject so;
    so.full_name = o.value("fullName", "");
    so.type = ParseObjectType(o.value("type", "metalake")).value_or(ObjectType::kMetalake);
    for (const auto& p : o.value("privileges", Json::array())) {
      so.privileges.push_back(Privilege{p.value("name", ""), p.value("allow", true)});
    }
    out.push_back(std::move(so));
  }
  return out;
}

Json Payload(const EntityRecord& row) {
  Json j = json::ParseJsonOrDiscarded(row.payload.empty() ? "{}" : row.payload);
  if (j.is_discarded() || !j.is_object()) j = Json::object();
  return j;
}

std::vector<std::string> RolesIn(const EntityRecord& row) {
  std::vector<std::string> roles;
  for (const auto& r : Payload(row).value("roles", Json::array())) {
    if (r.is_string()) roles.push_back(r.get<std::string>());
  }
  return roles;
}

Member ToMember(const EntityRecord& row) { return Member{row.name, RolesIn(row), row.audit}; }

std::vector<SecurableObject> RoleObjects(const EntityRecord& row) {
  return ObjectsFromJson(Payload(row).value("securableObjects", Json::array()));
}

// Stores a role's new securable objects in its row, stamped by `audit`'s modifier.
void SetRoleObjects(EntityRecord& row, const std::vector<SecurableObject>& objects,
                    const model::Audit& audit) {
  Json p = Payload(row);
  p["securableObjects"] = ObjectsToJson(objects);
  row.payload = p.dump(-1, ' ', false, Json::error_handler_t::replace);
  row.audit.last_modifier = audit.last_modifier;
  row.audit.last_modified_time = audit.last_modified_time;
}

Role ToRole(const EntityRecord& row) {
  Role r;
  r.name = row.name;
  r.properties = row.properties;
  r.objects = RoleObjects(row);
  r.audit = row.audit;
  return r;
}

EntityKind KindOf(EntityType type) { return store::ToEntityKind(type); }
std::string_view Capitalized(EntityType type) { return model::Describe(type).display; }

// Re-reads and re-applies until the compare-and-set lands.
template <typename Mutate>
Result<EntityRecord> Update(store::MetadataStore& store, EntityType type, int64_t parent,
                            const std::string& name, Mutate mutate) {
  return store::RetryOnConflict(
      [&]() -> Result<EntityRecord> {
        auto row = store.Get(type, parent, name);
        if (!row) {
          if (row.error().code == ErrorCode::kNotFound) {
            return NotFound(KindOf(type), "{} {} does not exist", Capitalized(type), name);
          }
          return std::move(row).error();
        }
        CAIRN_RETURN_IF_ERROR(mutate(*row));
        return store.CompareAndSet(*row);
      },
      [&] { return Unavailable("too many concurrent updates of {}; try again", name); });
}

}  // namespace

std::string_view ObjectTypeName(ObjectType type) { return model::Describe(type).name; }

std::optional<ObjectType> ParseObjectType(std::string_view text) {
  return model::FindKindBySecurable(text);
}

Status ValidatePrivilege(std::string_view privilege, ObjectType type) {
  const std::string upper = ToUpper(privilege);
  if (!model::IsKnownPrivilege(upper)) {
    return InvalidArgument("Unknown privilege '{}'", privilege);
  }
  if (!model::PrivilegeBindsTo(upper, type)) {
    return InvalidArgument("Privilege {} cannot be bound to a {}", upper, ObjectTypeName(type));
  }
  return Ok();
}

Owner OwnerOf(const EntityRecord& row) {
  // Asked on every authorized request for each level of the target: the owner is found in the
  // payload's text; the payload is parsed only when that scan cannot tell.
  const json::MemberLookup owner = json::FindMember(row.payload, "owner");
  if (row.payload.empty() || owner.scan == json::MemberScan::kAbsent) {
    return Owner{row.audit.creator, false};
  }
  if (owner.scan == json::MemberScan::kFound) {
    if (owner.value.front() != '{') return Owner{row.audit.creator, false};  // not an object
    const json::MemberLookup name = json::FindMember(owner.value, "name");
    const json::MemberLookup type = json::FindMember(owner.value, "type");
    std::optional<std::string_view> name_text;
    std::optional<std::string_view> type_text;
    if (name.scan == json::MemberScan::kFound) name_text = json::PlainStringValue(name.value);
    if (type.scan == json::MemberScan::kFound) type_text = json::PlainStringValue(type.value);
    const bool name_ok = name.scan == json::MemberScan::kAbsent || name_text;
    const bool type_ok = type.scan == json::MemberScan::kAbsent || type_text;
    if (name_ok && type_ok) {
      return Owner{std::string(name_text.value_or("")),
                   EqualsIgnoreCase(type_text.value_or("user"), "group")};
    }
  }
  const Json p = Payload(row);
  auto it = p.find("owner");
  if (it != p.end() && it->is_object()) {
    return Owner{it->value("name", ""), EqualsIgnoreCase(it->value("type", "user"), "group")};
  }
  return Owner{row.audit.creator, false};
}

std::string WithOwner(const std::string& payload, const Owner& owner) {
  Json p = json::ParseJsonOrDiscarded(payload.empty() ? "{}" : payload);
  if (p.is_discarded() || !p.is_object()) p = Json::object();
  p["owner"] = {{"name", owner.name}, {"type", owner.is_group ? "group" : "user"}};
  return p.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool Grants::Has(std::string_view privilege,
                 std::span<const std::pair<ObjectType, std::string>> chain) const {
  bool allowed = false;
  for (const auto& key : chain) {
    auto it = entries.find(key);
    if (it == entries.end()) continue;
    auto p = it->second.find(privilege);
    if (p == it->second.end()) continue;
    if (!p->second) return false;  // deny wins
    allowed = true;
  }
  return allowed;
}

AccessControl::AccessControl(store::MetadataStore& store, AccessConfig config)
    : store_(store), config_(std::move(config)), serial_(next_access_serial.fetch_add(1)) {
  // Grants are read from user, group and role rows; another replica's change of one (or a feed
  // that reconnected, nullopt) drops every cached decision.
  store_.SubscribeToChanges([generation = generation_](std::optional<EntityType> kind) {
    if (!kind || *kind == EntityType::kUser || *kind == EntityType::kGroup ||
        *kind == EntityType::kRole || *kind == EntityType::kMetalake) {
      generation->fetch_add(1);
    }
  });
}

// ---- users and groups ----

Result<Member> AccessControl::AddMember(EntityType type, const EntityRecord& metalake,
                                        const std::string& name, const model::Audit& audit) {
  if (Trim(name).empty()) return InvalidArgument("{} name must not be empty", Capitalized(type));
  EntityRecord row;
  row.type = type;
  row.parent_id = metalake.id;
  row.name = name;
  row.payload = R"({"roles":[]})";
  row.audit = audit;
  auto inserted = store_.Insert(row);
  if (!inserted) {
    if (inserted.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(KindOf(type), "{} {} already exists in the metalake {}",
                           Capitalized(type), name, metalake.name);
    }
    return std::move(inserted).error();
  }
  Invalidate();
  return ToMember(*inserted);
}

Result<Member> AccessControl::GetMember(EntityType type, const EntityRecord& metalake,
                                        const std::string& name) {
  auto row = store_.Get(type, metalake.id, name);
  if (!row) {
    if (row.error().code == ErrorCode::kNotFound) {
      return NotFound(KindOf(type), "{} {} does not exist in the metalake {}", Capitalized(type),
                      name, metalake.name);
    }
    return std::move(row).error();
  }
  return ToMember(*row);
}

Result<std::vector<Member>> AccessControl::ListMembers(EntityType type,
                                                       const EntityRecord& metalake) {
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(type, metalake.id, "", 0));
  std::vector<Member> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(ToMember(r));
  return out;
}

Result<bool> AccessControl::RemoveMember(EntityType type, const EntityRecord& metalake,
                                         const std::string& name) {
  auto row = store_.Get(type, metalake.id, name);
  if (!row) {
    if (row.error().code == ErrorCode::kNotFound) return false;
    return std::move(row).error();
  }
  CAIRN_ASSIGN_OR_RETURN(bool removed, store_.Delete(row->id));
  Invalidate();
  return removed;
}

Result<Member> AccessControl::AddUser(const EntityRecord& m, const std::string& n,
                                      const model::Audit& a) {
  return AddMember(EntityType::kUser, m, n, a);
}
Result<Member> AccessControl::GetUser(const EntityRecord& m, const std::string& n) {
  return GetMember(EntityType::kUser, m, n);
}
Result<std::vector<Member>> AccessControl::ListUsers(const EntityRecord& m) {
  return ListMembers(EntityType::kUser, m);
}
Result<bool> AccessControl::RemoveUser(const EntityRecord& m, const std::string& n) {
  return RemoveMember(EntityType::kUser, m, n);
}
Result<Member> AccessControl::AddGroup(const EntityRecord& m, const std::string& n,
                                       const model::Audit& a) {
  return AddMember(EntityType::kGroup, m, n, a);
}
Result<Member> AccessControl::GetGroup(const EntityRecord& m, const std::string& n) {
  return GetMember(EntityType::kGroup, m, n);
}
Result<std::vector<Member>> AccessControl::ListGroups(const EntityRecord& m) {
  return ListMembers(EntityType::kGroup, m);
}
Result<bool> AccessControl::RemoveGroup(const EntityRecord& m, const std::string& n) {
  return RemoveMember(EntityType::kGroup, m, n);
}

Result<Member> AccessControl::ChangeMemberRoles(const EntityRecord& metalake, bool group,
                                                const std::string& name,
                                                const std::vector<std::string>& roles, bool grant,
                                                const model::Audit& audit) {
  for (const auto& r : roles) {
    auto row = store_.Get(EntityType::kRole, metalake.id, r);
    if (!row) {
      if (row.error().code == ErrorCode::kNotFound) {
        return NotFound(EntityKind::kRole, "Role {} does not exist in the metalake {}", r,
                        metalake.name);
      }
      return std::move(row).error();
    }
  }
  const EntityType type = group ? EntityType::kGroup : EntityType::kUser;
  CAIRN_ASSIGN_OR_RETURN(EntityRecord updated,
                         Update(store_, type, metalake.id, name, [&](EntityRecord& row) -> Status {
                           std::vector<std::string> current = RolesIn(row);
                           for (const auto& r : roles) {
                             auto it = std::find(current.begin(), current.end(), r);
                             if (grant && it == current.end()) current.push_back(r);
                             if (!grant && it != current.end()) current.erase(it);
                           }
                           Json p = Payload(row);
                           p["roles"] = current;
                           row.payload = p.dump();
                           row.audit.last_modifier = audit.last_modifier;
                           row.audit.last_modified_time = audit.last_modified_time;
                           return Ok();
                         }));
  Invalidate();
  return ToMember(updated);
}

// ---- roles ----

Result<Role> AccessControl::CreateRole(const EntityRecord& metalake, const Role& role) {
  if (Trim(role.name).empty()) return InvalidArgument("Role name must not be empty");
  EntityRecord row;
  row.type = EntityType::kRole;
  row.parent_id = metalake.id;
  row.name = role.name;
  row.properties = role.properties;
  row.payload = Json{{"securableObjects", ObjectsToJson(role.objects)}}.dump(
      -1, ' ', false, Json::error_handler_t::replace);
  row.audit = role.audit;
  auto inserted = store_.Insert(row);
  if (!inserted) {
    if (inserted.error().code == ErrorCode::kAlreadyExists) {
      return AlreadyExists(EntityKind::kRole, "Role {} already exists in the metalake {}",
                           role.name, metalake.name);
    }
    return std::move(inserted).error();
  }
  Invalidate();
  return ToRole(*inserted);
}

Result<EntityRecord> AccessControl::RoleRow(const EntityRecord& metalake, const std::string& name) {
  auto row = store_.Get(EntityType::kRole, metalake.id, name);
  if (!row && row.error().code == ErrorCode::kNotFound) {
    return NotFound(EntityKind::kRole, "Role {} does not exist in the metalake {}", name,
                    metalake.name);
  }
  return row;
}

Result<Role> AccessControl::GetRole(const EntityRecord& metalake, const std::string& name) {
  CAIRN_ASSIGN_OR_RETURN(EntityRecord row, RoleRow(metalake, name));
  return ToRole(row);
}

Result<std::vector<std::string>> AccessControl::ListRoles(const EntityRecord& metalake) {
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kRole, metalake.id, "", 0));
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.name);
  return out;
}

Result<bool> AccessControl::DeleteRole(const EntityRecord& metalake, const std::string& name) {
  auto row = store_.Get(EntityType::kRole, metalake.id, name);
  if (!row) {
    if (row.error().code == ErrorCode::kNotFound) return false;
    return std::move(row).error();
  }
  CAIRN_ASSIGN_OR_RETURN(bool deleted, store_.Delete(row->id));
  // Take the role away from everyone who had it, so a later role of the same name starts clean.
  for (EntityType type : {EntityType::kUser, EntityType::kGroup}) {
    CAIRN_ASSIGN_OR_RETURN(auto members, store_.List(type, metalake.id, "", 0));
    for (const auto& m : members) {
      auto roles = RolesIn(m);
      if (std::find(roles.begin(), roles.end(), name) == roles.end()) continue;
      (void)Update(store_, type, metalake.id, m.name, [&](EntityRecord& r) -> Status {
        auto current = RolesIn(r);
        current.erase(std::remove(current.begin(), current.end(), name), current.end());
        Json p = Payload(r);
        p["roles"] = current;
        r.payload = p.dump();
        return Ok();
      });
    }
  }
  Invalidate();
  return deleted;
}

Result<Role> AccessControl::ChangeRolePrivileges(const EntityRecord& metalake,
                                                 const std::string& role,
                                                 const SecurableObject& object, bool grant,
                                                 const model::Audit& audit) {
  CAIRN_ASSIGN_OR_RETURN(
      EntityRecord updated,
      Update(store_, EntityType::kRole, metalake.id, role, [&](EntityRecord& row) -> Status {
        std::vector<SecurableObject> objects = RoleObjects(row);
        auto it = std::find_if(objects.begin(), objects.end(), [&](const SecurableObject& o) {
          return o.type == object.type && o.full_name == object.full_name;
        });
        if (grant) {
          if (it == objects.end()) {
            objects.push_back(SecurableObject{object.full_name, object.type, {}});
            it = objects.end() - 1;
          }
          for (const auto& p : object.privileges) {
            auto same = std::find_if(it->privileges.begin(), it->privileges.end(),
                                     [&](const Privilege& q) { return q.name == p.name; });
            if (same == it->privileges.end()) {
              it->privileges.push_back(p);
            } else {
              same->allow = p.allow;
            }
          }
        } else if (it != objects.end()) {
          for (const auto& p : object.privileges) {
            it->privileges.erase(std::remove_if(it->privileges.begin(), it->privileges.end(),
                                                [&](const Privilege& q) {
                                                  return q.name == p.name && q.allow == p.allow;
                                                }),
                                 it->privileges.end());
          }
          if (it->privileges.empty()) objects.erase(it);
        }
        SetRoleObjects(row, objects, audit);
        return Ok();
      }));
  Invalidate();
  return ToRole(updated);
}

Result<Role> AccessControl::OverrideRoleObjects(const EntityRecord& metalake,
                                                const std::string& role,
                                                const std::vector<SecurableObject>& overrides,
                                                const model::Audit& audit) {
  CAIRN_ASSIGN_OR_RETURN(
      EntityRecord updated,
      Update(store_, EntityType::kRole, metalake.id, role, [&](EntityRecord& row) -> Status {
        std::vector<SecurableObject> objects = RoleObjects(row);
        for (const auto& o : overrides) {
          objects.erase(std::remove_if(objects.begin(), objects.end(),
                                       [&](const SecurableObject& x) {
                                         return x.type == o.type && x.full_name == o.full_name;
                                       }),
                        objects.end());
          if (!o.privileges.empty()) objects.push_back(o);
        }
        SetRoleObjects(row, objects, audit);
        return Ok();
      }));
  Invalidate();
  return ToRole(updated);
}

Result<std::vector<std::string>> AccessControl::RolesOfObject(const EntityRecord& metalake,
                                                              ObjectType type,
                                                              const std::string& full_name) {
  CAIRN_ASSIGN_OR_RETURN(auto rows, store_.List(EntityType::kRole, metalake.id, "", 0));
  std::vector<std::string> out;
  for (const auto& r : rows) {
    for (const auto& o : ToRole(r).objects) {
      if (o.type == type && o.full_name == full_name) {
        out.push_back(r.name);
        break;
      }
    }
  }
  return out;
}

// ---- decisions ----

namespace {

// The last grants a thread looked up, valid under the same rules as a cache entry: a request
// after request from one caller (an engine loading tables) takes no key, lock or hash.
struct GrantsMemo {
  uint64_t access = 0;  // AccessControl::serial_; 0: empty
  int64_t metalake = 0;
  std::string user;
  std::vector<std::string> groups;
  uint64_t generation = 0;
  int64_t built_ms = 0;
  std::shared_ptr<const Grants> grants;
};
thread_local GrantsMemo grants_memo;

}  // namespace

Result<std::shared_ptr<const Grants>> AccessControl::GrantsOf(const EntityRecord& metalake,
                                                              const Principal& principal) {
  const uint64_t generation = generation_->load();
  const int64_t now = NowMillis();
  GrantsMemo& memo = grants_memo;
  if (memo.access == serial_ && memo.metalake == metalake.id && memo.generation == generation &&
      now - memo.built_ms < kGrantsTtlMs && memo.user == principal.user &&
      memo.groups == principal.groups) {
    return memo.grants;
  }
  const auto remember = [&](const CacheEntry& entry) {
    memo = GrantsMemo{serial_,    metalake.id,    principal.user, principal.groups,
                      generation, entry.built_ms, entry.grants};
  };
  std::string key = std::to_string(metalake.id) + "\x1f" + principal.user;
  for (const auto& g : principal.groups) key += "\x1f" + g;
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end() && it->second.generation == generation &&
        now - it->second.built_ms < kGrantsTtlMs) {
      remember(it->second);
      return it->second.grants;
    }
  }
  auto grants = std::make_shared<Grants>();
  std::vector<std::string> roles;
  auto user = store_.Get(EntityType::kUser, metalake.id, principal.user);
  if (user) {
    grants->member = true;
    for (auto& r : RolesIn(*user)) roles.push_back(std::move(r));
  } else if (user.error().code != ErrorCode::kNotFound) {
    return std::move(user).error();
  }
  for (const auto& g : principal.groups) {
    auto group = store_.Get(EntityType::kGroup, metalake.id, g);
    if (!group && group.error().code == ErrorCode::kNotFound) continue;
    if (!group) return std::move(group).error();
    grants->member = true;
    grants->groups.insert(g);
    for (auto& r : RolesIn(*group)) roles.push_back(std::move(r));
  }
  std::sort(roles.begin(), roles.end());
  roles.erase(std::unique(roles.begin(), roles.end()), roles.end());
  for (const auto& name : roles) {
    // A role that cannot be read is an error, not an empty role: skipping it could drop a deny.
    auto row = store_.Get(EntityType::kRole, metalake.id, name);
    if (!row && row.error().code == ErrorCode::kNotFound) continue;
    if (!row) return std::move(row).error();
    for (const auto& o : ToRole(*row).objects) {
      auto& privs = grants->entries[{o.type, o.full_name}];
      for (const auto& p : o.privileges) {
        auto it = privs.find(p.name);
        // Deny wins over allow for the same object and privilege across roles.
        if (it == privs.end()) {
          privs[p.name] = p.allow;
        } else {
          it->second = it->second && p.allow;
        }
      }
    }
  }
  std::shared_ptr<const Grants> result = grants;
  const CacheEntry entry{generation, now, result};
  remember(entry);
  std::lock_guard lock(mu_);
  if (cache_.size() > 10000) cache_.clear();
  cache_[key] = entry;
  return result;
}

}  // namespace cairn::governance
