"""Views on the Gravitino API in the access matrix: the same decisions as for the Iceberg REST
views (creating needs CREATE_VIEW on the schema, loading SELECT_VIEW or CREATE_VIEW or ownership,
altering and dropping ownership), made before the body is read; after every refusal the view is
as it was on both interfaces."""

from __future__ import annotations

from sec_helpers import Admin, Principal, create_catalog, create_metalake, sobj, unique


def view(name: str, sql: str = "SELECT 1 AS id") -> dict:
    return {"name": name, "columns": [{"name": "id", "type": "long", "nullable": True}],
            "representations": [{"type": "sql", "dialect": "trino", "sql": sql}]}


def test_view_privileges_on_the_gravitino_api(authz_server, admin, tmp_path):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path / "wh")
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": "s"})
    base = f"metalakes/{ml}/catalogs/{cat}/schemas/s/views"
    admin.ok("POST", base, view("v"))
    a = Admin(admin, ml)
    use = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA")]
    a.user_with("creator", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "CREATE_VIEW")])
    a.user_with("reader", use + [sobj("VIEW", f"{cat}.s.v", "SELECT_VIEW")])
    a.user_with("user", use)
    stranger = Principal(authz_server.url, unique("stranger"))
    p = {u: Principal(authz_server.url, u) for u in ("creator", "reader", "user")}

    def state():
        v = admin.ok("GET", f"{base}/v")["view"]
        names = sorted(i["name"] for i in admin.ok("GET", base)["identifiers"])
        return v["name"], v["representations"], v["properties"], names

    def refused(principal, method, path, body=None):
        before = state()
        r = principal.api(method, path, body)
        assert r.status_code == 403, (principal.user, method, path, r.status_code, r.text)
        assert state() == before, (principal.user, method, path)

    replace = {"updates": [{"@type": "replaceView", "representations": [
        {"type": "sql", "dialect": "trino", "sql": "SELECT 2 AS id"}]}]}
    refused(p["user"], "GET", f"{base}/v")
    refused(stranger, "GET", f"{base}/v")
    refused(stranger, "GET", f"{base}/nope")  # a denial, not a 404
    assert p["reader"].ok("GET", f"{base}/v")["view"]["name"] == "v"
    assert [i["name"] for i in p["reader"].ok("GET", base)["identifiers"]] == ["v"]
    assert p["user"].ok("GET", base)["identifiers"] == []

    for who in ("reader", "user"):
        refused(p[who], "POST", base, view("theirs"))
        refused(p[who], "PUT", f"{base}/v", replace)
        refused(p[who], "DELETE", f"{base}/v")
    refused(p["user"], "POST", base, {"name": 7})  # denied before the body is read
    refused(p["creator"], "PUT", f"{base}/v", replace)  # not its view
    created = p["creator"].ok("POST", base, view("mine"))["view"]
    assert created["name"] == "mine"
    assert a.get_owner("view", f"{cat}.s.mine")["owner"]["name"] == "creator"
    assert p["creator"].ok("PUT", f"{base}/mine", replace)["view"]["representations"][0][
        "sql"] == "SELECT 2 AS id"
    assert p["creator"].ok("DELETE", f"{base}/mine")["dropped"] is True
