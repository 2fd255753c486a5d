"""The coverage report in the access matrix: it counts only what the caller may see, names no
object, refuses a principal who is not a user of the metalake, and a DENY on a schema takes
that schema's row away even from a holder of the catalog's privileges. A request for a catalog
the caller may not see is a 404, as for one that does not exist."""

from __future__ import annotations

from sec_helpers import Admin, Principal, create_catalog, create_metalake, sobj, unique


def test_coverage_counts_only_what_the_caller_may_see(authz_server, admin, tmp_path):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path / "wh")
    hidden = create_catalog(admin, ml, tmp_path / "wh2")
    for schema, tables in (("open", ("a", "b")), ("secret", ("c",))):
        admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": schema})
        for t in tables:
            admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas/{schema}/tables", {
                "name": t, "comment": "x", "columns": [{"name": "id", "type": "long",
                                                        "nullable": True}]})
    admin.ok("POST", f"metalakes/{ml}/catalogs/{hidden}/schemas", {"name": "h"})

    a = Admin(admin, ml)
    reader = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE")]
    a.user_with("reader", reader)
    a.user_with("denied", reader, [sobj("SCHEMA", f"{cat}.secret", "USE_SCHEMA", deny=True)])
    a.user_with("member", [])  # a user of the metalake with no privilege
    path = f"metalakes/{ml}/coverage"

    full = admin.ok("GET", path)
    assert {(r["catalog"], r["schema"]) for r in full["schemas"]} == {
        (cat, "open"), (cat, "secret"), (hidden, "h")}
    assert full["pageTotal"]["objects"] == 3

    seen = Principal(authz_server.url, "reader").ok("GET", path)
    assert {(r["catalog"], r["schema"]) for r in seen["schemas"]} == {(cat, "open"), (cat, "secret")}
    assert seen["pageTotal"]["objects"] == 3
    body = str(seen)
    assert all(f"'{t}'" not in body for t in ("a", "b", "c"))  # counts, never names

    d = Principal(authz_server.url, "denied").ok("GET", path)
    assert {(r["catalog"], r["schema"]) for r in d["schemas"]} == {(cat, "open")}
    assert d["pageTotal"]["objects"] == 2
    r = Principal(authz_server.url, "denied").api("GET", path, params={"catalog": cat,
                                                                      "schema": "secret"})
    assert r.status_code == 404, r.text

    m = Principal(authz_server.url, "member").ok("GET", path)
    assert m["schemas"] == [] and m["pageTotal"]["objects"] == 0
    r = Principal(authz_server.url, "member").api("GET", path, params={"catalog": hidden})
    assert r.status_code == 404, r.text

    r = Principal(authz_server.url, unique("stranger")).api("GET", path)
    assert r.status_code == 403, r.text
