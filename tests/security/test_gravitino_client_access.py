"""The official Gravitino Python client (apache-gravitino 1.3.1) manages users, groups, roles,
grants and owners against Cairn (reference sections 3.14, 3.15), with the client's exceptions
for missing, duplicate and illegal objects; the endpoints answer 405 when authorization is off."""

from __future__ import annotations

import pytest

from gravitino.api.authorization.owner import Owner
from gravitino.api.authorization.privileges import (
    CreateCatalog,
    ModifyTable,
    SelectTable,
    UseCatalog,
    UseSchema,
)
from gravitino.api.authorization.securable_objects import SecurableObjects
from gravitino.api.metadata_object import MetadataObject
from gravitino.api.metadata_objects import MetadataObjects
from gravitino.exceptions.base import (
    ForbiddenException,
    GroupAlreadyExistsException,
    IllegalMetadataObjectException,
    IllegalPrivilegeException,
    NoSuchGroupException,
    NoSuchMetadataObjectException,
    NoSuchRoleException,
    NoSuchUserException,
    NotFoundException,
    RoleAlreadyExistsException,
    UnsupportedOperationException,
    UserAlreadyExistsException,
)

from sec_helpers import (
    Principal,
    create_catalog,
    create_metalake,
    iceberg_table_body,
    unique,
)


@pytest.fixture
def setup(admin, authz_server, tmp_path):
    """A metalake with a catalog `cat`, namespace `s` and table `t`, all owned by `admin`."""
    ml = create_metalake(admin)
    wh = tmp_path / "wh"
    wh.mkdir()
    cat = create_catalog(admin, ml, wh)
    r = admin.rest("POST", f"{ml}.{cat}", "namespaces", {"namespace": ["s"], "properties": {}})
    assert r.status_code == 200, r.text
    r = admin.rest("POST", f"{ml}.{cat}", "namespaces/s/tables", iceberg_table_body("t"))
    assert r.status_code == 200, r.text
    yield {"ml": ml, "cat": cat, "client": admin.gravitino(ml), "base": authz_server.url}
    admin.delete(f"metalakes/{ml}", params={"force": "true"})


def table_object(cat, privileges):
    schema = SecurableObjects.of_schema(SecurableObjects.of_catalog(cat, []), "s", [])
    return SecurableObjects.of_table(schema, "t", privileges)


def test_users(setup):
    c = setup["client"]
    u = unique("u")
    user = c.add_user(u)
    assert user.name() == u and user.roles() == []
    assert c.get_user(u).name() == u
    names = c.list_user_names()
    assert u in names and "admin" in names  # the metalake creator is its first user
    assert u in [x.name() for x in c.list_users()]
    with pytest.raises(UserAlreadyExistsException):
        c.add_user(u)
    with pytest.raises(NoSuchUserException):
        c.get_user(unique("missing"))
    assert c.remove_user(u) is True
    assert c.remove_user(u) is False
    with pytest.raises(NoSuchUserException):
        c.get_user(u)


def test_groups(setup):
    c = setup["client"]
    g = unique("g")
    group = c.add_group(g)
    assert group.name() == g and group.roles() == []
    assert c.get_group(g).name() == g
    assert g in c.list_group_names()
    assert g in [x.name() for x in c.list_groups()]
    with pytest.raises(GroupAlreadyExistsException):
        c.add_group(g)
    with pytest.raises(NoSuchGroupException):
        c.get_group(unique("missing"))
    assert c.remove_group(g) is True
    assert c.remove_group(g) is False


def test_roles(setup):
    c, cat = setup["client"], setup["cat"]
    r = unique("r")
    objs = [SecurableObjects.of_catalog(cat, [UseCatalog.allow()]),
            table_object(cat, [SelectTable.allow(), ModifyTable.deny()])]
    role = c.create_role(r, {"k": "v"}, objs)
    assert role.name() == r and role.properties() == {"k": "v"}
    got = c.get_role(r)
    by_name = {o.full_name(): o for o in got.securable_objects()}
    assert set(by_name) == {cat, f"{cat}.s.t"}
    tbl = by_name[f"{cat}.s.t"]
    assert tbl.type() == MetadataObject.Type.TABLE
    privs = {(p.name(), p.condition()) for p in tbl.privileges()}
    assert {(p.name(), p.condition()) for p in (SelectTable.allow(), ModifyTable.deny())} == privs
    assert r in c.list_role_names()
    with pytest.raises(RoleAlreadyExistsException):
        c.create_role(r, {}, [])
    with pytest.raises(NoSuchRoleException):
        c.get_role(unique("missing"))
    # illegal bindings and missing objects on create
    with pytest.raises(IllegalPrivilegeException):
        c.create_role(unique("r"), {}, [table_object(cat, [CreateCatalog.allow()])])
    with pytest.raises(IllegalMetadataObjectException):
        c.create_role(unique("r"), {}, [SecurableObjects.of_catalog(unique("nocat"), [UseCatalog.allow()])])
    assert c.delete_role(r) is True
    assert c.delete_role(r) is False
    with pytest.raises(NoSuchRoleException):
        c.get_role(r)


def test_grants_and_revokes_take_effect(setup):
    c, ml, cat, base = setup["client"], setup["ml"], setup["cat"], setup["base"]
    u, g = unique("u"), unique("g")
    c.add_user(u)
    c.add_group(g)
    r = unique("r")
    c.create_role(r, {}, [SecurableObjects.of_catalog(cat, [UseCatalog.allow()])])
    schema = SecurableObjects.of_schema(SecurableObjects.of_catalog(cat, []), "s", [])
    role = c.grant_privileges_to_role(r, schema, [UseSchema.allow()])
    assert any(o.full_name() == f"{cat}.s" for o in role.securable_objects())
    role = c.grant_privileges_to_role(r, table_object(cat, []), [SelectTable.allow()])
    assert any(o.full_name() == f"{cat}.s.t" for o in role.securable_objects())

    p = Principal(base, u)
    load = lambda: p.rest("GET", f"{ml}.{cat}", "namespaces/s/tables/t")  # noqa: E731
    assert load().status_code == 403  # no role yet
    user = c.grant_roles_to_user([r], u)
    assert user.roles() == [r]
    assert load().status_code == 200
    group = c.grant_roles_to_group([r], g)
    assert group.roles() == [r]
    assert c.revoke_roles_from_group([r], g).roles() == []

    # revoking the table privilege takes effect at once
    role = c.revoke_privileges_from_role(r, table_object(cat, []), [SelectTable.allow()])
    assert load().status_code == 403
    c.grant_privileges_to_role(r, table_object(cat, []), [SelectTable.allow()])
    assert load().status_code == 200
    user = c.revoke_roles_from_user([r], u)
    assert user.roles() == []
    assert load().status_code == 403

    # errors
    with pytest.raises(NoSuchUserException):
        c.grant_roles_to_user([r], unique("nouser"))
    with pytest.raises(NoSuchRoleException):
        c.grant_roles_to_user([unique("norole")], u)
    with pytest.raises(NoSuchGroupException):
        c.grant_roles_to_group([r], unique("nogroup"))
    with pytest.raises(NoSuchRoleException):
        c.grant_privileges_to_role(unique("norole"), table_object(cat, []), [SelectTable.allow()])
    with pytest.raises(IllegalPrivilegeException):
        c.grant_privileges_to_role(r, table_object(cat, []), [CreateCatalog.allow()])
    with pytest.raises(NoSuchMetadataObjectException):
        missing = SecurableObjects.of_schema(SecurableObjects.of_catalog(cat, []), "nosuch", [])
        c.grant_privileges_to_role(r, missing, [UseSchema.allow()])


def test_owners(setup):
    c, ml, cat, base = setup["client"], setup["ml"], setup["cat"], setup["base"]
    catalog_obj = MetadataObjects.of([cat], MetadataObject.Type.CATALOG)
    table_obj = MetadataObjects.of([cat, "s", "t"], MetadataObject.Type.TABLE)
    owner = c.get_owner(catalog_obj)
    assert owner.name() == "admin" and owner.type() == Owner.Type.USER
    assert c.get_owner(table_obj).name() == "admin"

    u = unique("u")
    c.add_user(u)
    c.set_owner(table_obj, u, Owner.Type.USER)
    owner = c.get_owner(table_obj)
    assert owner.name() == u and owner.type() == Owner.Type.USER
    # the new owner (with usage of the parents) may drop the table; the old one still owns the catalog
    r = unique("r")
    c.create_role(r, {}, [SecurableObjects.of_catalog(cat, [UseCatalog.allow()]),
                          SecurableObjects.of_schema(SecurableObjects.of_catalog(cat, []), "s", [UseSchema.allow()])])
    c.grant_roles_to_user([r], u)
    p = Principal(base, u)
    # the owner may hand ownership on, but only to a registered user or group
    g = unique("g")
    c.add_group(g)
    pc = p.gravitino(ml)
    # (the 1.3 client's owner handler raises the generic NotFoundException; the server's type is
    # NoSuchUserException, checked over HTTP)
    missing = unique("nouser")
    with pytest.raises(NotFoundException, match=missing):
        pc.set_owner(table_obj, missing, Owner.Type.USER)
    r = Principal(base, u).put(f"metalakes/{ml}/owners/table/{cat}.s.t", {"name": missing, "type": "USER"})
    assert r.status_code == 404 and r.json()["type"] == "NoSuchUserException", r.text
    pc.set_owner(table_obj, g, Owner.Type.GROUP)
    owner = c.get_owner(table_obj)
    assert owner.name() == g and owner.type() == Owner.Type.GROUP
    # u gave the table away: it may no longer change its owner
    with pytest.raises(ForbiddenException):
        pc.set_owner(table_obj, u, Owner.Type.USER)
    with pytest.raises(NoSuchMetadataObjectException):
        c.get_owner(MetadataObjects.of([cat, "s", "nosuch"], MetadataObject.Type.TABLE))


def test_non_admin_cannot_manage(setup):
    c, ml, base = setup["client"], setup["ml"], setup["base"]
    u = unique("u")
    c.add_user(u)
    pc = Principal(base, u).gravitino(ml)
    with pytest.raises(ForbiddenException):
        pc.add_user(unique("x"))
    with pytest.raises(ForbiddenException):
        pc.add_group(unique("x"))
    with pytest.raises(ForbiddenException):
        pc.create_role(unique("x"), {}, [])
    r = unique("r")
    c.create_role(r, {}, [])
    with pytest.raises(ForbiddenException):
        pc.grant_roles_to_user([r], u)
    with pytest.raises(ForbiddenException):
        pc.remove_user("admin")
    with pytest.raises(ForbiddenException):
        pc.delete_role(r)
    # a user may read itself
    assert pc.get_user(u).name() == u
    assert r not in c.get_user(u).roles()
    assert "admin" in c.list_user_names()


ACCESS_ENDPOINTS = [
    ("GET", "users"), ("POST", "users"), ("GET", "users/u1"), ("DELETE", "users/u1"),
    ("GET", "groups"), ("POST", "groups"), ("GET", "groups/g1"), ("DELETE", "groups/g1"),
    ("GET", "roles"), ("POST", "roles"), ("GET", "roles/r1"), ("DELETE", "roles/r1"),
    ("PUT", "permissions/users/u1/grant"), ("PUT", "permissions/users/u1/revoke"),
    ("PUT", "permissions/groups/g1/grant"), ("PUT", "permissions/groups/g1/revoke"),
    ("PUT", "permissions/roles/r1/catalog/c1/grant"), ("PUT", "permissions/roles/r1/catalog/c1/revoke"),
    ("GET", "owners/catalog/c1"), ("PUT", "owners/catalog/c1"),
    ("GET", "objects/catalog/c1/roles"),
]


def test_405_when_authorization_is_off(plain_server):
    p = Principal(plain_server.url, "anyone")
    ml = create_metalake(p)
    for method, path in ACCESS_ENDPOINTS:
        body = {"name": "x", "roleNames": ["r1"], "privileges": [], "type": "USER"} if method in ("POST", "PUT") else None
        r = p.api(method, f"metalakes/{ml}/{path}", body)
        assert r.status_code == 405, f"{method} {path}: {r.status_code} {r.text[:200]}"
        assert r.json()["code"] == 1006 and r.json()["type"] == "UnsupportedOperationException", r.text
    c = p.gravitino(ml)
    for call in (lambda: c.add_user("u1"), lambda: c.get_user("u1"), lambda: c.list_user_names(),
                 lambda: c.add_group("g1"), lambda: c.create_role("r1", {}, []),
                 lambda: c.list_role_names(), lambda: c.grant_roles_to_user(["r1"], "u1"),
                 lambda: c.get_owner(MetadataObjects.of([ml], MetadataObject.Type.METALAKE))):
        with pytest.raises(UnsupportedOperationException):
            call()


def test_role_overrides_replace_listed_objects(setup, admin):
    """PUT /permissions/roles/{r} {"overrides": [...]} replaces the privileges of the listed
    objects, removes an object listed with none, and leaves the other objects alone."""
    c, ml, cat = setup["client"], setup["ml"], setup["cat"]
    r = unique("r")
    c.create_role(r, {}, [SecurableObjects.of_catalog(cat, [UseCatalog.allow()]),
                          table_object(cat, [SelectTable.allow()])])
    body = {"overrides": [
        {"fullName": f"{cat}.s.t", "type": "table",
         "privileges": [{"name": "MODIFY_TABLE", "condition": "DENY"}]},
        {"fullName": cat, "type": "catalog", "privileges": []},
    ]}
    out = admin.ok("PUT", f"metalakes/{ml}/permissions/roles/{r}", body)
    objects = {o["fullName"]: o for o in out["role"]["securableObjects"]}
    assert set(objects) == {f"{cat}.s.t"}
    assert objects[f"{cat}.s.t"]["privileges"] == [{"name": "modify_table", "condition": "deny"}]
    # a privilege that cannot be bound to the object type is refused and changes nothing
    bad = {"overrides": [{"fullName": f"{cat}.s.t", "type": "table",
                          "privileges": [{"name": "CREATE_CATALOG", "condition": "ALLOW"}]}]}
    resp = admin.put(f"metalakes/{ml}/permissions/roles/{r}", bad)
    assert resp.status_code == 400 and resp.json()["type"] == "IllegalPrivilegeException", resp.text
    got = c.get_role(r)
    assert [o.full_name() for o in got.securable_objects()] == [f"{cat}.s.t"]
