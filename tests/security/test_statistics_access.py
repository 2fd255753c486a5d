"""Statistics in the access matrix, with Gravitino's expressions: listing a table's (or its
partitions') statistics needs what loading the table needs (use of its catalog and schema, and
SELECT_TABLE, MODIFY_TABLE or ownership); setting and dropping them, MODIFY_TABLE or ownership.
A caller with no rights cannot tell a missing table from a hidden one. After every refusal
nothing has changed."""

from __future__ import annotations

from urllib.parse import quote

from sec_helpers import Admin, Principal, create_catalog, create_metalake, sobj, unique


def test_statistics_privileges(authz_server, admin, tmp_path):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path / "wh")
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": "s"})
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas/s/tables", {
        "name": "t", "columns": [{"name": "id", "type": "long", "nullable": True}]})
    table_path = f"metalakes/{ml}/objects/table/{quote(f'{cat}.s.t', safe='')}/statistics"
    parts_path = table_path + "/partitions"
    missing_path = f"metalakes/{ml}/objects/table/{quote(f'{cat}.s.nope', safe='')}/statistics"
    admin.ok("PUT", table_path, {"updates": {"custom-rows": 1}})
    admin.ok("PUT", parts_path, {"updates": [{"partitionName": "p1",
                                              "statistics": {"custom-rows": 1}}]})

    a = Admin(admin, ml)
    use = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA")]
    a.user_with("reader", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE")])
    a.user_with("writer", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "MODIFY_TABLE")])
    a.user_with("user", use)  # may use the catalog, may not read the table
    a.user_with("nouse", [sobj("CATALOG", cat, "SELECT_TABLE", "MODIFY_TABLE")])  # no USE_*
    stranger = Principal(authz_server.url, unique("stranger"))
    p = {u: Principal(authz_server.url, u) for u in ("reader", "writer", "user", "nouse")}

    def state():
        table = admin.ok("GET", table_path)["statistics"]
        parts = admin.ok("GET", parts_path)["partitionStatistics"]
        return ({s["name"]: s["value"] for s in table},
                {x["partitionName"]: {s["name"]: s["value"] for s in x["statistics"]}
                 for x in parts})

    def refused(principal, method, path, body=None, status=403):
        before = state()
        r = principal.api(method, path, body)
        assert r.status_code == status, (principal.user, method, path, r.status_code, r.text)
        assert state() == before, (principal.user, method, path)

    update = {"updates": {"custom-rows": 99}}
    drop = {"names": ["custom-rows"]}
    part_update = {"updates": [{"partitionName": "p1", "statistics": {"custom-rows": 99}}]}
    part_drop = {"drops": [{"partitionName": "p1", "statisticNames": ["custom-rows"]}]}

    # Listing: what loading the table needs.
    for who in ("user", "nouse"):
        refused(p[who], "GET", table_path)
        refused(p[who], "GET", parts_path)
    refused(stranger, "GET", table_path)
    refused(stranger, "GET", missing_path)  # a denial, not a 404
    listed = {s["name"]: s["value"] for s in p["reader"].ok("GET", table_path)["statistics"]}
    assert listed["custom-rows"] == 1
    assert p["reader"].ok("GET", parts_path)["partitionStatistics"][0]["partitionName"] == "p1"
    assert "custom-rows" in {s["name"] for s in p["writer"].ok("GET", table_path)["statistics"]}

    # Writing: MODIFY_TABLE; reading is not enough, and a denial comes before the body is read.
    for who in ("reader", "user", "nouse"):
        refused(p[who], "PUT", table_path, update)
        refused(p[who], "POST", table_path, drop)
        refused(p[who], "PUT", parts_path, part_update)
        refused(p[who], "POST", parts_path, part_drop)
    refused(stranger, "PUT", table_path, update)
    refused(p["reader"], "PUT", table_path, {"updates": {"custom-new": 1}})
    p["writer"].ok("PUT", table_path, update)
    p["writer"].ok("PUT", parts_path, part_update)
    table_stats, part_stats = state()
    assert table_stats["custom-rows"] == 99 and part_stats == {"p1": {"custom-rows": 99}}
    assert p["writer"].ok("POST", parts_path, part_drop)["dropped"] is True
    assert p["writer"].ok("POST", table_path, drop)["dropped"] is True
    assert "custom-rows" not in state()[0] and state()[1] == {}

    # The owner of a table may do both without any grant.
    a.user_with("owner", use)
    a.set_owner("table", f"{cat}.s.t", "owner")
    owner = Principal(authz_server.url, "owner")
    owner.ok("PUT", table_path, {"updates": {"custom-owned": True}})
    assert {s["name"]: s["value"] for s in owner.ok("GET", table_path)["statistics"]}[
        "custom-owned"] is True

    # A deny of MODIFY_TABLE on the schema takes writing away again, not reading.
    a.create_role("nomodify", [sobj("SCHEMA", f"{cat}.s", "MODIFY_TABLE", deny=True)])
    a.grant_roles("writer", ["nomodify"])
    refused(p["writer"], "PUT", table_path, update)
    refused(p["writer"], "POST", table_path, {"names": ["custom-owned"]})
