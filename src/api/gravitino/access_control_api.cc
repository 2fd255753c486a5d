// SPDX-License-Identifier: Apache-2.0
// Users, groups, roles, permissions, owners and object roles of the Gravitino API.
#include <set>

#include "api/gravitino/errors.h"
#include "api/gravitino/gravitino_api.h"
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

}  // namespace

Response GravitinoApi::HandleAccessControl(const Request& request,
                                           const governance::Principal& principal,
                                           const std::vector<std::string>& seg) const {
  const std::string& method = request.method;
  const std::string& ml = seg[1];
  const std::string& area = seg[2];
  const size_t n = seg.size();
  Operation op{EntityKind::kNone, "", "", EntityKind::kMetalake, ml};
  auto fail = [&](const Error& e) { return ErrorResponse(e, op); };
  auto not_allowed = [&] {
    return PlainErrorResponse(405, 1006, "UnsupportedOperationException",
                              fmt::format("Method {} is not allowed on {}", method, DisplayPath(request.path)));
  };
  if (!authz_.enabled()) {
    return PlainErrorResponse(
        405, 1006, "UnsupportedOperationException",
        "You should set 'cairn.authorization.enable' to true in the server configuration to enable "
        "the "
        "authorization of the system, otherwise these interfaces can't work.");
  }
  auto& access = authz_.access();
  auto target = authz_.Resolve(ml);
  if (!target) return fail(target.error());
  const store::EntityRecord& metalake = target->metalake;
  if (!metalake.in_use) {
    return fail(
        MakeError(ErrorCode::kNotInUse, EntityKind::kMetalake, "Metalake {} is not in use", ml));
  }
  auto check = [&](Action action, const service::Target& t) -> std::optional<Response> {
    auto s = authz_.Check(principal, action, t);
    if (!s) return fail(s.error());
    return std::nullopt;
  };
  model::Audit audit;
  audit.creator = principal.user;
  audit.create_time = NowMillis();
  audit.last_modifier = principal.user;
  audit.last_modified_time = audit.create_time;
  auto parse_body = [&]() { return ParseBody(request.body); };

  // Resolves a securable object by type and full name to its stored row (existence check).
  auto resolve_object = [&](const std::string& type_text, const std::string& full_name,
                            service::Target& out) -> Result<ObjectType> {
    auto type = governance::ParseObjectType(type_text);
    if (!type) {
      return MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject,
                       "Unknown metadata object type '{}'", type_text);
    }
    std::vector<std::string> parts = Split(full_name, '.');
    Result<service::Target> t = InvalidArgument("unset");
    switch (*type) {
      case ObjectType::kMetalake:
        if (full_name != ml)
          return NotFound(EntityKind::kMetadataObject, "Metadata object {} does not exist",
                          full_name);
        t = authz_.Resolve(ml);
        break;
      case ObjectType::kCatalog:
        if (parts.size() != 1) break;
        t = authz_.Resolve(ml, parts[0]);
        if (t && !t->catalog_row)
          return NotFound(EntityKind::kMetadataObject, "Catalog {} does not exist", full_name);
        break;
      case ObjectType::kSchema:
        if (parts.size() != 2) break;
        t = authz_.Resolve(ml, parts[0], {parts[1]});
        if (t && !t->schema_row)
          return NotFound(EntityKind::kMetadataObject, "Schema {} does not exist", full_name);
        break;
      case ObjectType::kTable:
      case ObjectType::kView:
      case ObjectType::kFileset:
        if (parts.size() != 3) break;
        t = authz_.Resolve(ml, parts[0], {parts[1]}, parts[2], *type);
        if (t && !t->object_row) {
          return NotFound(EntityKind::kMetadataObject, "{} {} does not exist",
                          model::Describe(*type).display, full_name);
        }
        break;
      default:
        return NotFound(EntityKind::kMetadataObject, "Metadata object {} of type {} does not exist",
                        full_name, type_text);
    }
    if (!t) {
      if (t.error().message == "unset") {
        return MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject,
                         "Invalid full name '{}' for a metadata object of type {}", full_name,
                         type_text);
      }
      return std::move(t).error();
    }
    out = std::move(*t);
    return *type;
  };
  // The row that owns ownership for a target of a given type.
  auto owned_row = [](const service::Target& t, ObjectType type) -> const store::EntityRecord* {
    switch (type) {
      case ObjectType::kMetalake:
        return &t.metalake;
      case ObjectType::kCatalog:
        return t.catalog_row ? &*t.catalog_row : nullptr;
      case ObjectType::kSchema:
        return t.schema_row ? &*t.schema_row : nullptr;
      default:
        return t.object_row ? &*t.object_row : nullptr;
    }
  };

  // ---- users and groups ----
  if (area == "users" || area == "groups") {
    const bool group = area == "groups";
    op.kind = group ? EntityKind::kGroup : EntityKind::kUser;
    const Action manage = group ? Action::kManageGroups : Action::kManageUsers;
    if (n == 3) {
      if (method == "GET") {
        op.name = "*";
        op.op = "LIST";
        if (auto d = check(Action::kUseMetalake, *target)) return *d;
        auto list = group ? access.ListGroups(metalake) : access.ListUsers(metalake);
        if (!list) return fail(list.error());
        if (EqualsIgnoreCase(request.Query("details").value_or(""), "true")) {
          OrderedJson arr = OrderedJson::array();
          for (const auto& m : *list) arr.push_back(MemberToJson(m));
          return Ok(OrderedJson{{group ? "groups" : "users", std::move(arr)}});
        }
        std::vector<std::string> names;
        for (const auto& m : *list) names.push_back(m.name);
        return Ok(OrderedJson{{"names", names}});
      }
      if (method == "POST") {
        op.op = "ADD";
        auto body = parse_body();
        if (!body) return fail(body.error());
        auto name = RequiredString(*body, "name");
        if (!name) return fail(name.error());
        op.name = *name;
        if (auto d = check(manage, *target)) return *d;
        auto added = group ? access.AddGroup(metalake, *name, audit)
                           : access.AddUser(metalake, *name, audit);
        if (!added) return fail(added.error());
        return Ok(OrderedJson{{group ? "group" : "user", MemberToJson(*added)}});
      }
      return not_allowed();
    }
    if (n != 4)
      return PlainErrorResponse(404, 1003, "NotFoundException",
                                "No endpoint matches " + DisplayPath(request.path));
    const std::string& name = seg[3];
    op.name = name;
    if (method == "GET") {
      op.op = "GET";
      const bool self = group ? std::find(principal.groups.begin(), principal.groups.end(), name) !=
                                    principal.groups.end()
                              : name == principal.user;
      if (!self) {
        if (auto d = check(manage, *target)) return *d;
      }
      auto m = group ? access.GetGroup(metalake, name) : access.GetUser(metalake, name);
      if (!m) return fail(m.error());
      return Ok(OrderedJson{{group ? "group" : "user", MemberToJson(*m)}});
    }
    if (method == "DELETE") {
      op.op = "REMOVE";
      if (auto d = check(manage, *target)) return *d;
      auto removed = group ? access.RemoveGroup(metalake, name) : access.RemoveUser(metalake, name);
      if (!removed) return fail(removed.error());
      return Ok(OrderedJson{{"removed", *removed}});
    }
    return not_allowed();
  }

  // ---- roles ----
  if (area == "roles") {
    op.kind = EntityKind::kRole;
    if (n == 3) {
      if (method == "GET") {
        op.name = "*";
        op.op = "LIST";
        if (auto d = check(Action::kUseMetalake, *target)) return *d;
        auto names = access.ListRoles(metalake);
        if (!names) return fail(names.error());
        return Ok(OrderedJson{{"names", *names}});
      }
      if (method == "POST") {
        op.op = "CREATE";
        auto body = parse_body();
        if (!body) return fail(body.error());
        auto name = RequiredString(*body, "name");
        if (!name) return fail(name.error());
        op.name = *name;
        if (auto d = check(Action::kCreateRole, *target)) return *d;
        Role role;
        role.name = *name;
        role.audit = audit;
        role.audit.last_modifier.reset();
        role.audit.last_modified_time.reset();
        auto props = PropertiesFromJson(*body, "properties");
        if (!props) return fail(props.error());
        role.properties = *props;
        std::set<std::pair<std::string, std::string>> seen;
        if (auto objs = body->find("securableObjects"); objs != body->end() && !objs->is_null()) {
          if (!objs->is_array())
            return fail(InvalidArgument("Field 'securableObjects' must be an array"));
          for (const auto& o : *objs) {
            auto full_name = RequiredString(o, "fullName");
            auto type_text = RequiredString(o, "type");
            if (!full_name || !type_text) {
              return fail(MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject,
                                    "Each securable object needs 'fullName' and 'type'"));
            }
            service::Target t;
            auto type = resolve_object(*type_text, *full_name, t);
            if (!type) {
              // On create a missing object is an illegal argument, not a 404.
              return fail(MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject, "{}",
                                    type.error().message));
            }
            if (!seen.insert({governance::ObjectTypeName(*type).data(), *full_name}).second) {
              return fail(MakeError(ErrorCode::kInvalidArgument, EntityKind::kRole,
                                    "Duplicate securable object {}", *full_name));
            }
            auto privs = PrivilegesFromJson(o.value("privileges", Json::array()),
                                            "securableObjects.privileges", *type);
            if (!privs) return fail(privs.error());
            if (auto s = CheckCatalogTypeOfPrivileges(*privs, *type, t); !s) return fail(s.error());
            role.objects.push_back(SecurableObject{*full_name, *type, std::move(*privs)});
          }
        }
        auto created = access.CreateRole(metalake, role);
        if (!created) return fail(created.error());
        return Ok(OrderedJson{{"role", RoleToJson(*created)}});
      }
      return not_allowed();
    }
    if (n != 4)
      return PlainErrorResponse(404, 1003, "NotFoundException",
                                "No endpoint matches " + DisplayPath(request.path));
    const std::string& name = seg[3];
    op.name = name;
    auto role_row = access.RoleRow(metalake, name);
    service::Target role_target = *target;
    if (role_row) role_target.role_row = *role_row;
    const bool owns_role = role_row && governance::OwnerOf(*role_row).name == principal.user;
    const bool has_role = [&] {
      auto user = access.GetUser(metalake, principal.user);
      return user && std::find(user->roles.begin(), user->roles.end(), name) != user->roles.end();
    }();
    if (method == "GET") {
      op.op = "GET";
      if (!owns_role && !has_role) {
        if (auto d = check(Action::kManageGrants, *target)) return *d;
      }
      if (!role_row) return fail(role_row.error());
      auto role = access.GetRole(metalake, name);
      if (!role) return fail(role.error());
      return Ok(OrderedJson{{"role", RoleToJson(*role)}});
    }
    if (method == "DELETE") {
      op.op = "DELETE";
      if (!owns_role) {
        if (auto d = check(Action::kManageMetalake, *target)) return *d;
      }
      auto deleted = access.DeleteRole(metalake, name);
      if (!deleted) return fail(deleted.error());
      return Ok(OrderedJson{{"dropped", *deleted}, {"deleted", *deleted}});
    }
    return not_allowed();
  }

  // ---- permissions ----
  if (area == "permissions") {
    if (method != "PUT") return not_allowed();
    // permissions/{users|groups}/{name}/{grant|revoke}
    if ((n == 6 || n == 7) && (seg[3] == "users" || seg[3] == "groups") &&
        (seg[5] == "grant" || seg[5] == "revoke")) {
      const bool group = seg[3] == "groups";
      const bool grant = seg[5] == "grant";
      op.kind = group ? EntityKind::kGroup : EntityKind::kUser;
      op.name = seg[4];
      op.op = grant ? "GRANT" : "REVOKE";
      if (auto d = check(Action::kManageGrants, *target)) return *d;
      auto body = parse_body();
      if (!body) return fail(body.error());
      auto roles = StringList(*body, "roleNames");
      if (!roles) return fail(roles.error());
      auto member = access.ChangeMemberRoles(metalake, group, seg[4], *roles, grant, audit);
      if (!member) return fail(member.error());
      return Ok(OrderedJson{{group ? "group" : "user", MemberToJson(*member)}});
    }
    // permissions/roles/{role}: replace the privileges of the listed objects.
    if (n == 5 && seg[3] == "roles") {
      op.kind = EntityKind::kRole;
      op.name = seg[4];
      op.op = "UPDATE";
      if (auto d = check(Action::kManageGrants, *target)) return *d;
      auto body = parse_body();
      if (!body) return fail(body.error());
      auto overrides = body->find("overrides");
      if (overrides == body->end() || !overrides->is_array()) {
        return fail(InvalidArgument(
            "Field 'overrides' is required and must be an array of securable objects"));
      }
      std::vector<SecurableObject> objects;
      for (const auto& o : *overrides) {
        auto full_name = RequiredString(o, "fullName");
        auto type_text = RequiredString(o, "type");
        if (!full_name || !type_text) {
          return fail(MakeError(ErrorCode::kInvalidArgument, EntityKind::kMetadataObject,
                                "Each securable object needs 'fullName' and 'type'"));
        }
        service::Target t;
        auto type = resolve_object(*type_text, *full_name, t);
        if (!type) return fail(type.error());
        auto privs =
            PrivilegesFromJson(o.value("privileges", Json::array()), "overrides.privileges", *type);
        if (!privs) return fail(privs.error());
        if (auto s = CheckCatalogTypeOfPrivileges(*privs, *type, t); !s) return fail(s.error());
        objects.push_back(SecurableObject{*full_name, *type, std::move(*privs)});
      }
      auto role = access.OverrideRoleObjects(metalake, seg[4], objects, audit);
      if (!role) return fail(role.error());
      return Ok(OrderedJson{{"role", RoleToJson(*role)}});
    }
    // permissions/roles/{role}/{type}/{fullName}/{grant|revoke}
    if (n == 8 && seg[3] == "roles" && (seg[7] == "grant" || seg[7] == "revoke")) {
      const bool grant = seg[7] == "grant";
      op.kind = EntityKind::kRole;
      op.name = seg[4];
      op.op = grant ? "GRANT" : "REVOKE";
      service::Target object_target;
      auto type = resolve_object(seg[5], seg[6], object_target);
      if (!type) return fail(type.error());
      if (auto d = check(Action::kGrantOnObject, object_target)) return *d;
      auto body = parse_body();
      if (!body) return fail(body.error());
      auto privs_json = body->find("privileges");
      if (privs_json == body->end()) return fail(InvalidArgument("Field 'privileges' is required"));
      auto privs = PrivilegesFromJson(*privs_json, "privileges", *type);
      if (!privs) return fail(privs.error());
      if (auto s = CheckCatalogTypeOfPrivileges(*privs, *type, object_target); !s) {
        return fail(s.error());
      }
      auto role = access.ChangeRolePrivileges(metalake, seg[4],
                                              SecurableObject{seg[6], *type, *privs}, grant, audit);
      if (!role) return fail(role.error());
      return Ok(OrderedJson{{"role", RoleToJson(*role)}});
    }
    return PlainErrorResponse(404, 1003, "NotFoundException",
                              "No endpoint matches " + DisplayPath(request.path));
  }

  // ---- owners ----
  if (area == "owners" && n == 5) {
    op.kind = EntityKind::kMetadataObject;
    op.name = seg[4];
    service::Target object_target;
    auto type = resolve_object(seg[3], seg[4], object_target);
    if (!type) return fail(type.error());
    const store::EntityRecord* row = owned_row(object_target, *type);
    if (row == nullptr)
      return fail(
          NotFound(EntityKind::kMetadataObject, "Metadata object {} does not exist", seg[4]));
    if (method == "GET") {
      op.op = "GET";
      if (auto d = check(Action::kUseMetalake, *target)) return *d;
      const auto owner = governance::OwnerOf(*row);
      if (owner.name.empty()) return Ok(OrderedJson::object());
      return Ok(OrderedJson{{"owner", OrderedJson{{"name", owner.name},
                                                  {"type", owner.is_group ? "group" : "user"}}}});
    }
    if (method == "PUT") {
      op.op = "SET";
      if (auto d = check(Action::kGrantOnObject, object_target)) return *d;
      auto body = parse_body();
      if (!body) return fail(body.error());
      auto name = RequiredString(*body, "name");
      if (!name) return fail(name.error());
      auto type_text = RequiredString(*body, "type");
      if (!type_text) return fail(type_text.error());
      const bool is_group = EqualsIgnoreCase(*type_text, "group");
      if (!is_group && !EqualsIgnoreCase(*type_text, "user")) {
        return fail(InvalidArgument("Field 'type' must be USER or GROUP, got '{}'", *type_text));
      }
      auto exists = is_group ? access.GetGroup(metalake, *name) : access.GetUser(metalake, *name);
      if (!exists) return fail(exists.error());
      auto updated = authz_.SetOwner(*row, governance::Owner{*name, is_group});
      if (!updated) return fail(updated.error());
      return Ok(OrderedJson{{"set", true}});
    }
    return not_allowed();
  }

  // ---- roles of an object ----
  if (area == "objects" && n == 6 && seg[5] == "roles") {
    if (method != "GET") return not_allowed();
    op.kind = EntityKind::kMetadataObject;
    op.name = seg[4];
    op.op = "LIST";
    service::Target object_target;
    auto type = resolve_object(seg[3], seg[4], object_target);
    if (!type) return fail(type.error());
    if (auto d = check(Action::kUseMetalake, *target)) return *d;
    auto roles = access.RolesOfObject(metalake, *type, seg[4]);
    if (!roles) return fail(roles.error());
    return Ok(OrderedJson{{"names", *roles}});
  }
  return PlainErrorResponse(404, 1003, "NotFoundException", "No endpoint matches " + DisplayPath(request.path));
}

}  // namespace cairn::api::gravitino
