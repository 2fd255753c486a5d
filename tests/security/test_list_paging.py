"""Pages of name lists (pageSize, pageToken, nameContains on the Gravitino API's lists) hold only
what the caller may see: a page is filled from further along rather than coming back short, the
last page has no nextPageToken, and paging through gives exactly the unpaged list."""

from __future__ import annotations

from sec_helpers import Admin, Principal, create_catalog, create_metalake, sobj, unique


def pages(p: Principal, path: str, size: int, **params) -> list[list[str]]:
    out, token = [], None
    while True:
        q = {"pageSize": str(size), **params}
        if token:
            q["pageToken"] = token
        body = p.ok("GET", path, params=q)
        names = [i["name"] for i in body["identifiers"]]
        out.append(names)
        token = body.get("nextPageToken")
        if token is None:
            return out
        assert names and token == names[-1], body
        assert len(out) < 100, "paging does not end"


def test_table_pages_hold_only_visible_tables(authz_server, admin, warehouse):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, warehouse)
    schemas = f"metalakes/{ml}/catalogs/{cat}/schemas"
    admin.ok("POST", schemas, {"name": "s", "properties": {}})
    names = [f"t{i:02d}" for i in range(30)]
    for n in names:
        admin.ok("POST", f"{schemas}/s/tables",
                 {"name": n, "columns": [{"name": "id", "type": "long", "nullable": True}]})
    granted = ["t02", "t03", "t11", "t17", "t18", "t25", "t29"]
    reader = unique("reader")
    Admin(admin, ml).user_with(reader, [sobj("CATALOG", cat, "USE_CATALOG"),
                                        sobj("SCHEMA", f"{cat}.s", "USE_SCHEMA")] +
                               [sobj("TABLE", f"{cat}.s.{t}", "SELECT_TABLE") for t in granted])
    r = Principal(authz_server.url, reader)
    tables = f"{schemas}/s/tables"

    assert sorted(i["name"] for i in r.ok("GET", tables)["identifiers"]) == granted
    got = pages(r, tables, 3)
    assert got == [granted[0:3], granted[3:6], granted[6:7]]
    assert pages(r, tables, 7) == [granted]  # a full last page says no more follow
    assert sum(pages(admin, tables, 4), []) == names
    # A search pages too, over what the caller may see.
    assert pages(r, tables, 2, nameContains="T1") == [["t11", "t17"], ["t18"]]
    assert pages(admin, tables, 50, nameContains="t2") == [[n for n in names if "t2" in n]]
    # Past the end, or after a name that is not there, the page starts at the next name.
    assert r.ok("GET", tables, params={"pageSize": "5", "pageToken": "t29"})["identifiers"] == []
    assert [i["name"] for i in r.ok("GET", tables, params={"pageSize": "2", "pageToken": "t12"})
            ["identifiers"]] == ["t17", "t18"]
    for bad in ("0", "10001", "-1", "x", ""):
        resp = r.get(tables, params={"pageSize": bad})
        assert resp.status_code == 400 and "pageSize" in resp.json()["message"], (bad, resp.text)
    # A stranger gets no page at all.
    stranger = Principal(authz_server.url, unique("stranger"))
    assert stranger.get(tables, params={"pageSize": "3"}).status_code == 403


def test_schema_and_catalog_pages(authz_server, admin, warehouse):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, warehouse)
    schemas = f"metalakes/{ml}/catalogs/{cat}/schemas"
    for n in ("a", "b", "c", "d", "e"):
        admin.ok("POST", schemas, {"name": n, "properties": {}})
    assert pages(admin, schemas, 2) == [["a", "b"], ["c", "d"], ["e"]]
    assert pages(admin, schemas, 10, nameContains="C") == [["c"]]
    reader = unique("reader")
    Admin(admin, ml).user_with(reader, [sobj("CATALOG", cat, "USE_CATALOG"),
                                        sobj("SCHEMA", f"{cat}.b", "USE_SCHEMA"),
                                        sobj("SCHEMA", f"{cat}.d", "USE_SCHEMA")])
    assert pages(Principal(authz_server.url, reader), schemas, 1) == [["b"], ["d"]]
    assert pages(admin, f"metalakes/{ml}/catalogs", 1) == [[cat]]
