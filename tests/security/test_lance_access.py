"""/lance in the access matrix: the Lance namespace service asks the same authorizer as the
Gravitino API, so a principal sees and changes through it only what its grants allow there; a
refused call answers Lance's ErrorResponse with code 15 (PermissionDenied), creates, drops and
writes nothing, and is audited as denied under interface `lance` (docs/lance.md)."""

from __future__ import annotations

import lance_namespace
import pytest
from lance_namespace import DeclareTableRequest, DescribeTableRequest, ListTablesRequest

from sec_helpers import Admin, Principal, basic_header, create_metalake, sobj, unique
from test_audit import audit_records, sync


def assert_denied(r):
    assert r.status_code == 403, r.text
    body = r.json()
    assert body["code"] == 15 and body["error"], body


@pytest.fixture
def lake(authz_server, admin, tmp_path):
    ml = create_metalake(admin)
    admin.ok("POST", f"metalakes/{ml}/catalogs", {
        "name": "lk", "type": "relational", "provider": "lakehouse-generic", "comment": "",
        "properties": {"location": str(tmp_path / "lake")}})
    admin.ok("POST", f"metalakes/{ml}/catalogs/lk/schemas", {"name": "s", "properties": {}})
    for t in ("open", "secret"):
        r = admin.lance(ml, f"table/lk$s${t}/declare")
        assert r.status_code == 200, r.text
    a = Admin(admin, ml)
    a.user_with("reader", [sobj("CATALOG", "lk", "USE_CATALOG", "USE_SCHEMA"),
                           sobj("TABLE", "lk.s.open", "SELECT_TABLE")])
    a.user_with("writer", [sobj("CATALOG", "lk", "USE_CATALOG", "USE_SCHEMA"),
                           sobj("SCHEMA", "lk.s", "CREATE_TABLE")])
    a.user_with("nobody", [])
    return ml, tmp_path / "lake"


def tables(admin, ml):
    return sorted(i["name"] for i in
                  admin.ok("GET", f"metalakes/{ml}/catalogs/lk/schemas/s/tables")["identifiers"])


def test_reads_show_only_what_the_principal_may_see(authz_server, lake):
    ml, _ = lake
    reader = Principal(authz_server.url, "reader")
    nobody = Principal(authz_server.url, "nobody")
    stranger = Principal(authz_server.url, unique("stranger"))

    r = reader.lance(ml, "table/lk$s$open/describe")
    assert r.status_code == 200 and r.json()["location"].endswith("/s/open"), r.text
    assert_denied(reader.lance(ml, "table/lk$s$secret/describe"))
    listed = reader.lance(ml, "namespace/lk$s/table/list", method="GET")
    assert listed.status_code == 200 and listed.json()["tables"] == ["open"], listed.text

    assert nobody.lance(ml, "namespace/list", method="GET").json()["namespaces"] == []
    assert_denied(nobody.lance(ml, "namespace/lk/describe"))
    assert_denied(nobody.lance(ml, "table/lk$s$open/describe"))
    assert_denied(nobody.lance(ml, "namespace/lk$s/table/list", method="GET"))
    # Not a member of the metalake at all.
    assert_denied(stranger.lance(ml, "namespace/list", method="GET"))
    # The client library raises on the refusal too.
    ns = lance_namespace.connect("rest", {"uri": f"{authz_server.url}/lance/{ml}",
                                          "headers.Authorization": basic_header("nobody")})
    with pytest.raises(Exception):
        ns.describe_table(DescribeTableRequest(id=["lk", "s", "open"]))
    with pytest.raises(Exception):
        ns.list_tables(ListTablesRequest(id=["lk", "s"]))


def test_refused_changes_change_nothing(authz_server, admin, lake):
    ml, root = lake
    reader = Principal(authz_server.url, "reader")
    nobody = Principal(authz_server.url, "nobody")
    before = tables(admin, ml)

    assert_denied(reader.lance(ml, "table/lk$s$new/declare"))
    assert_denied(nobody.lance(ml, "table/lk$s$new/declare"))
    assert_denied(reader.lance(ml, "table/lk$s$open/drop"))
    assert_denied(reader.lance(ml, "table/lk$s$open/deregister"))
    assert_denied(reader.lance(ml, "table/lk$s$reg/register",
                               {"location": str(root / "s" / "reg")}))
    assert_denied(reader.lance(ml, "namespace/lk$s2/create"))
    assert_denied(reader.lance(ml, "namespace/lk$s/drop"))
    assert_denied(nobody.lance(ml, "namespace/lk2/create", {"properties": {"location": str(root)}}))
    assert tables(admin, ml) == before
    schemas = admin.ok("GET", f"metalakes/{ml}/catalogs/lk/schemas")["identifiers"]
    assert [s["name"] for s in schemas] == ["s"]
    assert admin.get(f"metalakes/{ml}/catalogs/lk2").status_code == 404
    assert not (root / "s" / "new").exists()

    # The client library sees the same refusal and nothing is declared.
    ns = lance_namespace.connect("rest", {"uri": f"{authz_server.url}/lance/{ml}",
                                          "headers.Authorization": basic_header("reader")})
    with pytest.raises(Exception):
        ns.declare_table(DeclareTableRequest(id=["lk", "s", "viaclient"]))
    assert tables(admin, ml) == before


def test_grants_open_exactly_what_they_name(authz_server, admin, lake):
    ml, _ = lake
    writer = Principal(authz_server.url, "writer")
    r = writer.lance(ml, "table/lk$s$mine/declare")
    assert r.status_code == 200, r.text
    # The creator owns what it declared: it may describe and drop it, not the others' tables.
    assert writer.lance(ml, "table/lk$s$mine/describe").status_code == 200
    assert_denied(writer.lance(ml, "table/lk$s$open/drop"))
    assert writer.lance(ml, "table/lk$s$mine/drop").status_code == 200
    assert "mine" not in tables(admin, ml) and "open" in tables(admin, ml)


def test_refusals_are_audited_under_lance(authz_server, admin, lake):
    ml, _ = lake
    nobody = Principal(authz_server.url, "nobody")
    r = nobody.lance(ml, "table/lk$s$x/declare")
    assert_denied(r)
    rid = r.headers["X-Request-Id"]
    sync(authz_server, basic_header("admin"))
    recs = [rec for rec in audit_records(authz_server) if rec.get("requestId") == rid]
    assert len(recs) == 1, recs
    assert recs[0]["interface"] == "lance" and recs[0]["outcome"] == "denied", recs[0]
    assert recs[0]["principal"] == "nobody" and recs[0]["status"] == 403, recs[0]
