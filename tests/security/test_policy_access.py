"""Policies in the access matrix, with Gravitino's expressions (create: METALAKE::OWNER ||
CREATE_POLICY; load: METALAKE::OWNER || POLICY::OWNER || APPLY_POLICY; alter, enable/disable and
delete: METALAKE::OWNER || POLICY::OWNER; associate: may load the object && (POLICY::OWNER ||
APPLY_POLICY)). After every refusal nothing has changed."""

from __future__ import annotations

from urllib.parse import quote

from sec_helpers import Admin, Principal, create_catalog, create_metalake, sobj, unique


def policy(name: str) -> dict:
    return {"name": name, "policyType": "custom",
            "content": {"supportedObjectTypes": ["TABLE"], "customRules": {"days": 7}}}


def snapshot(admin: Principal, ml: str, table_fn: str) -> dict:
    policies = admin.ok("GET", f"metalakes/{ml}/policies",
                        params={"details": "true"})["policies"]
    on_table = admin.ok("GET",
                        f"metalakes/{ml}/objects/table/{quote(table_fn, safe='')}/policies")
    return {"policies": sorted((p["name"], p.get("comment"), p["enabled"], str(p["content"]))
                               for p in policies),
            "table": sorted(on_table["names"])}


def test_policy_privileges(authz_server, admin, tmp_path):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path / "wh")
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": "s"})
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas/s/tables", {
        "name": "t", "columns": [{"name": "id", "type": "long", "nullable": True}]})
    admin.ok("POST", f"metalakes/{ml}/policies", policy("retention"))
    table_fn = f"{cat}.s.t"
    a = Admin(admin, ml)
    base_reader = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE")]
    a.user_with("creator", [sobj("METALAKE", ml, "CREATE_POLICY")])
    a.user_with("applier", base_reader + [sobj("POLICY", "retention", "APPLY_POLICY")])
    a.user_with("reader", base_reader)  # may see the table, may not apply the policy
    a.user_with("policyonly", [sobj("POLICY", "retention", "APPLY_POLICY")])  # no table access
    stranger = Principal(authz_server.url, unique("stranger"))
    p = {u: Principal(authz_server.url, u) for u in ("creator", "applier", "reader", "policyonly")}
    objects_path = f"metalakes/{ml}/objects/table/{quote(table_fn, safe='')}/policies"

    def refused(principal, method, path, body=None, status=403):
        before = snapshot(admin, ml, table_fn)
        r = principal.api(method, path, body)
        assert r.status_code == status, (principal.user, method, path, r.status_code, r.text)
        assert snapshot(admin, ml, table_fn) == before, (principal.user, method, path)

    # Create: CREATE_POLICY on the metalake; the creator then owns the policy.
    refused(p["reader"], "POST", f"metalakes/{ml}/policies", policy("x"))
    refused(stranger, "POST", f"metalakes/{ml}/policies", policy("x"))
    refused(p["reader"], "POST", f"metalakes/{ml}/policies", {"name": 7})  # denied before parsing
    refused(p["applier"], "POST", f"metalakes/{ml}/policies", policy("x"))  # APPLY is not CREATE
    created = p["creator"].ok("POST", f"metalakes/{ml}/policies", policy("mine"))
    assert created["policy"]["name"] == "mine"
    assert a.get_owner("policy", "mine")["owner"]["name"] == "creator"

    # Load and list: only the policies one owns or may apply.
    assert p["creator"].ok("GET", f"metalakes/{ml}/policies")["names"] == ["mine"]
    assert p["applier"].ok("GET", f"metalakes/{ml}/policies")["names"] == ["retention"]
    assert p["reader"].ok("GET", f"metalakes/{ml}/policies")["names"] == []
    refused(p["reader"], "GET", f"metalakes/{ml}/policies/retention")
    refused(p["reader"], "GET", f"metalakes/{ml}/policies/nope")  # a denial, not a 404
    assert p["applier"].ok("GET", f"metalakes/{ml}/policies/retention")["policy"]["enabled"]

    # Alter, enable/disable and delete: the policy's owner (or the metalake's).
    refused(p["applier"], "PUT", f"metalakes/{ml}/policies/retention",
            {"updates": [{"@type": "updateComment", "newComment": "x"}]})
    refused(p["applier"], "PATCH", f"metalakes/{ml}/policies/retention", {"enable": False})
    refused(p["applier"], "DELETE", f"metalakes/{ml}/policies/retention")
    refused(p["creator"], "PATCH", f"metalakes/{ml}/policies/retention", {"enable": False})
    assert p["creator"].ok("PUT", f"metalakes/{ml}/policies/mine", {"updates": [
        {"@type": "updateComment", "newComment": "c"}]})["policy"]["comment"] == "c"
    p["creator"].ok("PATCH", f"metalakes/{ml}/policies/mine", {"enable": False})
    assert admin.ok("GET", f"metalakes/{ml}/policies/mine")["policy"]["enabled"] is False

    # Associate: may load the object, and owns or may apply the policy.
    refused(p["reader"], "POST", objects_path, {"policiesToAdd": ["retention"]})
    refused(p["policyonly"], "POST", objects_path, {"policiesToAdd": ["retention"]})
    refused(p["creator"], "POST", objects_path, {"policiesToAdd": ["mine"]})  # cannot see it
    refused(p["applier"], "POST", objects_path, {"policiesToAdd": ["mine"]})  # not its policy
    assert p["applier"].ok("POST", objects_path,
                           {"policiesToAdd": ["retention"]})["names"] == ["retention"]
    # An object's policies: access to the object, and only the policies one may load.
    assert p["applier"].ok("GET", objects_path)["names"] == ["retention"]
    assert p["reader"].ok("GET", objects_path)["names"] == []
    refused(p["policyonly"], "GET", objects_path)
    refused(p["policyonly"], "GET", objects_path + "/retention")
    assert p["applier"].ok("GET", objects_path + "/retention")["policy"]["inherited"] is False
    # The objects of a policy are those the caller may see.
    objs = p["applier"].ok("GET", f"metalakes/{ml}/policies/retention/objects")["metadataObjects"]
    assert objs == [{"fullName": table_fn, "type": "table"}]
    assert p["policyonly"].ok("GET", f"metalakes/{ml}/policies/retention/objects")[
        "metadataObjects"] == []
    refused(p["reader"], "GET", f"metalakes/{ml}/policies/retention/objects")

    # A deny of APPLY_POLICY on the metalake takes it away again.
    a.create_role("nopolicy", [sobj("METALAKE", ml, "APPLY_POLICY", deny=True)])
    a.grant_roles("applier", ["nopolicy"])
    refused(p["applier"], "POST", objects_path, {"policiesToRemove": ["retention"]})
    refused(p["applier"], "GET", f"metalakes/{ml}/policies/retention")
    assert admin.ok("DELETE", f"metalakes/{ml}/policies/mine")["dropped"] is True
    assert admin.ok("GET", objects_path)["names"] == ["retention"]
