// SPDX-License-Identifier: Apache-2.0
// Users, groups, roles, permissions, owners and object roles of the Gravitino API.
#include <algorithm>
#include <set>

#include "api/gravitino/errors.h"
#include "api/gravitino/routes.h"
#include "api/gravitino/serde.h"
#include "common/util.h"
#include "json/json_util.h"

namespace cairn::api::gravitino {

namespace {

using governance::Member;
using governance::ObjectType;
using governance::Privilege;
using governance::Role;
using governance::SecurableObject;
using http::Request;
using http::Response;
using service::Action;

OrderedJson MemberToJson(const Member& m) {
  return OrderedJson{{"name", m.name}, {"roles", m.roles}, {"audit", AuditToJson(m.audit)}};
}

OrderedJson PrivilegesToJson(const std::vector<Privilege>& privileges) {
  OrderedJson arr = OrderedJson::array();
  for (const auto& p : privileges) {
    arr.push_back(
        OrderedJson{{"name", ToLower(p.name)}, {"condition", p.allow ? "allow" : "deny"}});
  }
  return arr;
}

OrderedJson RoleToJson(const Role& r) {
  OrderedJson objects = OrderedJson::array();
  for (const auto& o : r.objects) {
    objects.push_back(OrderedJson{{"fullName", o.full_name},
                                  {"type", governance::ObjectTypeName(o.type)},
                                  {"privileges", PrivilegesToJson(o.privileges)}});
  }
  OrderedJson props = OrderedJson::object();
  for (const auto& [k, v] : r.properties) props[k] = v;
  return OrderedJson{{"name", r.name},
                     {"properties", props},
                     {"securableObjects", objects},
                     {"audit", AuditToJson(r.audit)}};
}

Result<std::vector<Privilege>> PrivilegesFromJson(const Json& j, const std::string& field,
                                                  ObjectType type) {
  if (!j.is_array()) return InvalidArgument("Field '{}' must be an array of privileges", field);
  std::vector<Privilege> out;
  std::set<std::string> seen;
  for (const auto& p : j) {
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) {
      return MakeError(ErrorCode::kInvalidArgument, EntityKind::kPrivilege,
                       "Field '{}' has a privilege without a name", field);
    }
    Privilege priv;
    priv.name = ToUpper(p["name"].get<std::string>());
    const std::string condition = p.contains("condition") && p["condition"].is_string()
                                      ? p["condition"].get<std::string>()
                                      : "allow";
    if (!EqualsIgnoreCase(condition, "allow") && !EqualsIgnoreCase(condition, "deny")) {
      return MakeError(ErrorCode::kInvalidArgument, EntityKind::kPrivilege,
                       "Privilege condition must be allow or deny, got '{}'", condition);
    }
    priv.allow = EqualsIgnoreCase(condition, "allow");
    auto valid = governance::ValidatePrivilege(priv.name, type);
    if (!valid)
      return MakeError(ErrorCode::kInvalidArgument, EntityKind::kPrivilege, "{}",
                       valid.error().message);
    if (!seen.insert(priv.name).second) {
      return MakeError(ErrorCode::kInvalidArgument, EntityKind::kPrivilege,
                       "Duplicate privilege {} in one object", priv.name);
    }
    out.push_back(std::move(priv));
  }
  return out;
}

Result<std::vector<std::string>> StringList(const Json& body, const char* field) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_array())
    return InvalidArgument("Field '{}' is required and must be an array of strings", field);
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string()) return InvalidArgument("Field '{}' must be an array of strings", field);
    out.push_back(v.get<std::string>());
  }
  return out;
}

// Table and fileset privileges placed on a catalog or schema need a catalog of the matching
// type (relational / fileset), as Gravitino checks.
Status CheckCatalogTypeOfPrivileges(const std::vector<Privilege>& privileges, ObjectType type,
                                    const service::Target& target) {
  if ((type != ObjectType::kCatalog && type != ObjectType::kSchema) || !target.catalog_row) {
    return cairn::Ok();
  }
  const Json payload = json::ParseJsonOrDiscarded(target.catalog_row->payload);
  const std::string catalog_type =
      payload.is_object() ? payload.value("type", std::string()) : std::string();
  for (const auto& p : privileges) {
    const bool table =
        p.name == "CREATE_TABLE" || p.name == "SELECT_TABLE" || p.name == "MODIFY_TABLE";
    const bool fileset =
        p.name == "CREATE_FILESET" || p.name == "READ_FILESET" || p.name == "WRITE_FILESET";
    const char* needed = table ? "relational" : fileset ? "fileset" : nullptr;
    if (needed != nullptr && !catalog_type.empty() && catalog_type != needed) {
      return MakeError(ErrorCode::kInvalidArgument, EntityKind::kPrivilege,
                       "Privilege {} cannot be bound to {} {}: its catalog is of type {}, not {}",
                       p.name, governance::ObjectTypeName(type), target.catalog, catalog_type,
                       needed);
    }
  }
  return cairn::Ok();
}

// The metalake of an access-control call, which must be in use.
Result<service::Target> MetalakeOf(Call& c) {
  const std::string& ml = c.Param("metalake");
  CAIRN_ASSIGN_OR_RETURN(service::Target target, c.authz.Resolve(ml));
  if (!target.metalake.in_use) {
    return MakeError(ErrorCode::kNotInUse, EntityKind::kMetalake, "Metalake {} is not in use", ml);
  }
  return target;
}

// The audit fields of a row the caller writes now.
model::Audit AuditOf(const Call& c) {
  model::Audit audit;
  audit.creator = c.principal.user;
  audit.create_time = c.caller.ctx.now_ms;
  audit.last_modifier = c.principal.user;
  audit.last_modified_time = audit.create_time;
  return audit;
}

// Resolves a securable object by type and full name to its stored rows (an existence check).
Result<ObjectType> ResolveObject(Call& c, const std::string& type_text,
                                 const std::string& full_name, service::Target& out) {
  CAIRN_ASSIGN_OR_RETURN(auto object,
                         c.authz.ResolveMetadataObject(c.Param("metalake"), type_text, full_name));
  out = std::move(object.target);
  return object.type;
}

// One securable object of a role body (`fullName`, `type`, `privileges`), resolved and checked.
Result<SecurableObject> SecurableFromJson(Call& c, const Json& o, const std::string& field,
                                          bool missing_is_invalid) {
  auto full_name = RequiredString(o, "fullName");
  auto type_text = RequiredString(o, "type");
  if (!full_name || !type_text) {
    return MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject,
                     "Each securable object needs 'fullName' and 'type'");
  }
  service::Target t;
  auto type = ResolveObject(c, *type_text, *full_name, t);
  if (!type) {
    // On create a missing object is an illegal argument, not a 404.
    if (missing_is_invalid) {
      return MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject, "{}",
                       type.error().message);
    }
    return std::move(type).error();
  }
  CAIRN_ASSIGN_OR_RETURN(auto privileges,
                         PrivilegesFromJson(o.value("privileges", Json::array()), field, *type));
  CAIRN_RETURN_IF_ERROR(CheckCatalogTypeOfPrivileges(privileges, *type, t));
  return SecurableObject{*full_name, *type, std::move(privileges)};
}

// ---- Users and groups
// -----------------------------------------------------------------------------

bool IsGroup(const Call& c) { return c.route->kind == EntityKind::kGroup; }

Action ManageAction(const Call& c) {
  return IsGroup(c) ? Action::kManageGroups : Action::kManageUsers;
}

Result<Response> ListMembers(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kUseMetalake, target));
  auto& access = c.authz.access();
  const bool group = IsGroup(c);
  CAIRN_ASSIGN_OR_RETURN(
      auto list, group ? access.ListGroups(target.metalake) : access.ListUsers(target.metalake));
  if (c.Flag("details")) {
    OrderedJson arr = OrderedJson::array();
    for (const auto& m : list) arr.push_back(MemberToJson(m));
    return Reply(OrderedJson{{group ? "groups" : "users", std::move(arr)}});
  }
  std::vector<std::string> names;
  for (const auto& m : list) names.push_back(m.name);
  return Reply(OrderedJson{{"names", names}});
}

Result<Response> AddMember(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(std::string name, RequiredString(body, "name"));
  c.op.name = name;
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, ManageAction(c), target));
  auto& access = c.authz.access();
  const bool group = IsGroup(c);
  CAIRN_ASSIGN_OR_RETURN(Member added, group ? access.AddGroup(target.metalake, name, AuditOf(c))
                                             : access.AddUser(target.metalake, name, AuditOf(c)));
  return Reply(OrderedJson{{group ? "group" : "user", MemberToJson(added)}});
}

Result<Response> GetMember(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  const bool group = IsGroup(c);
  const std::string& name = c.op.name;
  // Anyone may read their own user, and the groups they are in.
  const auto& groups = c.principal.groups;
  const bool self = group ? std::find(groups.begin(), groups.end(), name) != groups.end()
                          : name == c.principal.user;
  if (!self) CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, ManageAction(c), target));
  auto& access = c.authz.access();
  CAIRN_ASSIGN_OR_RETURN(Member m, group ? access.GetGroup(target.metalake, name)
                                         : access.GetUser(target.metalake, name));
  return Reply(OrderedJson{{group ? "group" : "user", MemberToJson(m)}});
}

Result<Response> RemoveMember(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, ManageAction(c), target));
  auto& access = c.authz.access();
  CAIRN_ASSIGN_OR_RETURN(bool removed, IsGroup(c) ? access.RemoveGroup(target.metalake, c.op.name)
                                                  : access.RemoveUser(target.metalake, c.op.name));
  return Reply(OrderedJson{{"removed", removed}});
}

// PUT permissions/{users|groups}/{name}/{grant|revoke} {"roleNames": [...]}
Result<Response> ChangeMemberRoles(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kManageGrants, target));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(auto roles, StringList(body, "roleNames"));
  const bool group = IsGroup(c);
  CAIRN_ASSIGN_OR_RETURN(
      Member member, c.authz.access().ChangeMemberRoles(target.metalake, group, c.op.name, roles,
                                                        c.op.op == "GRANT", AuditOf(c)));
  return Reply(OrderedJson{{group ? "group" : "user", MemberToJson(member)}});
}

// ---- Roles
// ----------------------------------------------------------------------------------------

Result<Response> ListRoles(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kUseMetalake, target));
  CAIRN_ASSIGN_OR_RETURN(auto names, c.authz.access().ListRoles(target.metalake));
  return Reply(OrderedJson{{"names", names}});
}

Result<Response> CreateRole(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  Role role;
  CAIRN_ASSIGN_OR_RETURN(role.name, RequiredString(body, "name"));
  c.op.name = role.name;
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kCreateRole, target));
  role.audit = AuditOf(c);
  role.audit.last_modifier.reset();
  role.audit.last_modified_time.reset();
  CAIRN_ASSIGN_OR_RETURN(role.properties, PropertiesFromJson(body, "properties"));
  std::set<std::pair<std::string, std::string>> seen;
  if (auto objs = body.find("securableObjects"); objs != body.end() && !objs->is_null()) {
    if (!objs->is_array()) return InvalidArgument("Field 'securableObjects' must be an array");
    for (const auto& o : *objs) {
      CAIRN_ASSIGN_OR_RETURN(SecurableObject object,
                             SecurableFromJson(c, o, "securableObjects.privileges", true));
      if (!seen.insert({governance::ObjectTypeName(object.type).data(), object.full_name}).second) {
        return MakeError(ErrorCode::kInvalidArgument, EntityKind::kRole,
                         "Duplicate securable object {}", object.full_name);
      }
      role.objects.push_back(std::move(object));
    }
  }
  CAIRN_ASSIGN_OR_RETURN(Role created, c.authz.access().CreateRole(target.metalake, role));
  return Reply(OrderedJson{{"role", RoleToJson(created)}});
}

Result<Response> GetRole(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  auto& access = c.authz.access();
  const std::string& name = c.op.name;
  auto role_row = access.RoleRow(target.metalake, name);
  // The role's owner and its holders may read it; anyone else needs MANAGE_GRANTS.
  const bool owns_role = role_row && governance::OwnerOf(*role_row).name == c.principal.user;
  const bool has_role = [&] {
    auto user = access.GetUser(target.metalake, c.principal.user);
    return user && std::find(user->roles.begin(), user->roles.end(), name) != user->roles.end();
  }();
  if (!owns_role && !has_role) {
    CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kManageGrants, target));
  }
  if (!role_row) return std::move(role_row).error();
  CAIRN_ASSIGN_OR_RETURN(Role role, access.GetRole(target.metalake, name));
  return Reply(OrderedJson{{"role", RoleToJson(role)}});
}

Result<Response> DeleteRole(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  auto& access = c.authz.access();
  auto role_row = access.RoleRow(target.metalake, c.op.name);
  const bool owns_role = role_row && governance::OwnerOf(*role_row).name == c.principal.user;
  if (!owns_role)
    CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kManageMetalake, target));
  CAIRN_ASSIGN_OR_RETURN(bool deleted, access.DeleteRole(target.metalake, c.op.name));
  return Reply(OrderedJson{{"dropped", deleted}, {"deleted", deleted}});
}

// PUT permissions/roles/{role} {"overrides": [...]}: replaces the privileges of the listed objects.
Result<Response> OverrideRoleObjects(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kManageGrants, target));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  auto overrides = body.find("overrides");
  if (overrides == body.end() || !overrides->is_array()) {
    return InvalidArgument(
        "Field 'overrides' is required and must be an array of securable objects");
  }
  std::vector<SecurableObject> objects;
  for (const auto& o : *overrides) {
    CAIRN_ASSIGN_OR_RETURN(SecurableObject object,
                           SecurableFromJson(c, o, "overrides.privileges", false));
    objects.push_back(std::move(object));
  }
  CAIRN_ASSIGN_OR_RETURN(Role role, c.authz.access().OverrideRoleObjects(target.metalake, c.op.name,
                                                                         objects, AuditOf(c)));
  return Reply(OrderedJson{{"role", RoleToJson(role)}});
}

// PUT permissions/roles/{role}/{type}/{fullName}/{grant|revoke} {"privileges": [...]}
Result<Response> ChangeRolePrivileges(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  service::Target object_target;
  CAIRN_ASSIGN_OR_RETURN(ObjectType type,
                         ResolveObject(c, c.Param("type"), c.Param("fullName"), object_target));
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kGrantOnObject, object_target));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  auto privileges_json = body.find("privileges");
  if (privileges_json == body.end()) return InvalidArgument("Field 'privileges' is required");
  CAIRN_ASSIGN_OR_RETURN(auto privileges, PrivilegesFromJson(*privileges_json, "privileges", type));
  CAIRN_RETURN_IF_ERROR(CheckCatalogTypeOfPrivileges(privileges, type, object_target));
  CAIRN_ASSIGN_OR_RETURN(Role role,
                         c.authz.access().ChangeRolePrivileges(
                             target.metalake, c.op.name,
                             SecurableObject{c.Param("fullName"), type, std::move(privileges)},
                             c.op.op == "GRANT", AuditOf(c)));
  return Reply(OrderedJson{{"role", RoleToJson(role)}});
}

// ---- Owners and the roles of an object
// ------------------------------------------------------------

// The row that holds the ownership of the path's object (404 when it does not exist).
Result<const store::EntityRecord*> OwnerRowOf(Call& c, service::Target& object_target,
                                              ObjectType& type) {
  CAIRN_ASSIGN_OR_RETURN(type,
                         ResolveObject(c, c.Param("type"), c.Param("fullName"), object_target));
  if (type == ObjectType::kColumn) {  // as in Gravitino: a column is owned with its table
    return MakeError(ErrorCode::kUnsupported, EntityKind::kMetadataObject,
                     "Ownership is not supported for columns");
  }
  const store::EntityRecord* row = object_target.RowOf(type);
  if (row == nullptr) {
    return NotFound(EntityKind::kMetadataObject, "Metadata object {} does not exist",
                    c.Param("fullName"));
  }
  return row;
}

Result<Response> GetOwner(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  service::Target object_target;
  ObjectType type;
  CAIRN_ASSIGN_OR_RETURN(const store::EntityRecord* row, OwnerRowOf(c, object_target, type));
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kUseMetalake, target));
  const auto owner = governance::OwnerOf(*row);
  if (owner.name.empty()) return Reply(OrderedJson::object());
  return Reply(OrderedJson{
      {"owner", OrderedJson{{"name", owner.name}, {"type", owner.is_group ? "group" : "user"}}}});
}

Result<Response> SetOwner(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  service::Target object_target;
  ObjectType type;
  CAIRN_ASSIGN_OR_RETURN(const store::EntityRecord* row, OwnerRowOf(c, object_target, type));
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kGrantOnObject, object_target));
  CAIRN_ASSIGN_OR_RETURN(Json body, c.Body());
  CAIRN_ASSIGN_OR_RETURN(std::string name, RequiredString(body, "name"));
  CAIRN_ASSIGN_OR_RETURN(std::string type_text, RequiredString(body, "type"));
  const bool is_group = EqualsIgnoreCase(type_text, "group");
  if (!is_group && !EqualsIgnoreCase(type_text, "user")) {
    return InvalidArgument("Field 'type' must be USER or GROUP, got '{}'", type_text);
  }
  auto& access = c.authz.access();
  CAIRN_RETURN_IF_ERROR(is_group ? access.GetGroup(target.metalake, name)
                                 : access.GetUser(target.metalake, name));
  CAIRN_RETURN_IF_ERROR(c.authz.SetOwner(*row, governance::Owner{name, is_group}));
  return Reply(OrderedJson{{"set", true}});
}

Result<Response> RolesOfObject(Call& c) {
  CAIRN_ASSIGN_OR_RETURN(service::Target target, MetalakeOf(c));
  service::Target object_target;
  CAIRN_ASSIGN_OR_RETURN(ObjectType type,
                         ResolveObject(c, c.Param("type"), c.Param("fullName"), object_target));
  CAIRN_RETURN_IF_ERROR(c.authz.Check(c.principal, Action::kUseMetalake, target));
  CAIRN_ASSIGN_OR_RETURN(
      auto roles, c.authz.access().RolesOfObject(target.metalake, type, c.Param("fullName")));
  return Reply(OrderedJson{{"names", roles}});
}

}  // namespace

// Every route here needs authorization on (Dispatch answers 405 otherwise); each handler resolves
// the metalake and makes its own decision, since who may read a user, group or role depends on
// who asks (themselves, the role's owner or holder).
std::vector<Route> AccessControlRoutes() {
  using K = EntityKind;
  constexpr std::nullopt_t kHandler = std::nullopt;
  constexpr std::string_view kRoleObject =
      "/metalakes/{metalake}/permissions/roles/{role}/{type}/{fullName}";
  std::vector<Route> routes;
  for (const bool group : {false, true}) {
    const K kind = group ? K::kGroup : K::kUser;
    const std::string_view list =
        group ? "/metalakes/{metalake}/groups" : "/metalakes/{metalake}/users";
    const std::string_view one =
        group ? "/metalakes/{metalake}/groups/{group}" : "/metalakes/{metalake}/users/{user}";
    const std::string_view grant = group ? "/metalakes/{metalake}/permissions/groups/{group}/grant"
                                         : "/metalakes/{metalake}/permissions/users/{user}/grant";
    const std::string_view revoke = group
                                        ? "/metalakes/{metalake}/permissions/groups/{group}/revoke"
                                        : "/metalakes/{metalake}/permissions/users/{user}/revoke";
    routes.push_back({"GET", api::PathPattern(list), kind, "LIST", kHandler, ListMembers});
    routes.push_back({"POST", api::PathPattern(list), kind, "ADD", kHandler, AddMember});
    routes.push_back({"GET", api::PathPattern(one), kind, "GET", kHandler, GetMember});
    routes.push_back({"DELETE", api::PathPattern(one), kind, "REMOVE", kHandler, RemoveMember});
    routes.push_back({"PUT", api::PathPattern(grant), kind, "GRANT", kHandler, ChangeMemberRoles});
    routes.push_back(
        {"PUT", api::PathPattern(revoke), kind, "REVOKE", kHandler, ChangeMemberRoles});
  }
  static const std::string kGrant = std::string(kRoleObject) + "/grant";
  static const std::string kRevoke = std::string(kRoleObject) + "/revoke";
  const std::vector<Route> rest = {
      {"GET", api::PathPattern("/metalakes/{metalake}/roles"), K::kRole, "LIST", kHandler,
       ListRoles},
      {"POST", api::PathPattern("/metalakes/{metalake}/roles"), K::kRole, "CREATE", kHandler,
       CreateRole},
      {"GET", api::PathPattern("/metalakes/{metalake}/roles/{role}"), K::kRole, "GET", kHandler,
       GetRole},
      {"DELETE", api::PathPattern("/metalakes/{metalake}/roles/{role}"), K::kRole, "DELETE",
       kHandler, DeleteRole},
      {"PUT", api::PathPattern("/metalakes/{metalake}/permissions/roles/{role}"), K::kRole,
       "UPDATE", kHandler, OverrideRoleObjects},
      {"PUT", api::PathPattern(kGrant), K::kRole, "GRANT", kHandler, ChangeRolePrivileges},
      {"PUT", api::PathPattern(kRevoke), K::kRole, "REVOKE", kHandler, ChangeRolePrivileges},
      {"GET", api::PathPattern("/metalakes/{metalake}/owners/{type}/{fullName}"),
       K::kMetadataObject, "GET", kHandler, GetOwner},
      {"PUT", api::PathPattern("/metalakes/{metalake}/owners/{type}/{fullName}"),
       K::kMetadataObject, "SET", kHandler, SetOwner},
      {"GET", api::PathPattern("/metalakes/{metalake}/objects/{type}/{fullName}/roles"),
       K::kMetadataObject, "LIST", kHandler, RolesOfObject},
  };
  routes.insert(routes.end(), rest.begin(), rest.end());
  for (auto& r : routes) r.needs_authorization = true;
  return routes;
}

}  // namespace cairn::api::gravitino
