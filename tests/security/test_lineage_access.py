"""Lineage in the access matrix (docs/lineage.md): any authenticated caller may send events; the
graph from a table needs what loading the table needs; a dataset that is a table the caller may
not load is redacted (its id, depth and edges stay, its names and columns go), and looking it
up by its dataset name is a 404, as for a name no event used."""

from __future__ import annotations

import time
import uuid

from sec_helpers import Admin, Principal, create_catalog, create_metalake, sobj, unique

PRODUCER = "https://example.test/security"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent"


def run_event(ml: str, cat: str, job: str) -> dict:
    def ds(name, **facets):
        return {"namespace": ml, "name": f"{cat}.s.{name}", "facets": facets}

    column_lineage = {"_producer": PRODUCER, "_schemaURL": SCHEMA_URL, "fields": {
        "total": {"inputFields": [
            {"namespace": ml, "name": f"{cat}.s.src", "field": "id"},
            {"namespace": ml, "name": f"{cat}.s.secret", "field": "amount"}]}}}
    return {"eventType": "COMPLETE", "eventTime": "2026-12-03T10:00:00Z",
            "run": {"runId": str(uuid.uuid4())}, "job": {"namespace": "etl", "name": job},
            "inputs": [ds("src"), ds("secret")],
            "outputs": [ds("out", columnLineage=column_lineage)],
            "producer": PRODUCER, "schemaURL": SCHEMA_URL}


def wait_graph(principal: Principal, params: dict, nodes: int) -> dict:
    deadline = time.monotonic() + 20
    while True:
        body = principal.ok("GET", "lineage/graph", params=params)
        if len(body["nodes"]) >= nodes or time.monotonic() > deadline:
            return body
        time.sleep(0.1)


def test_lineage_access(authz_server, admin, tmp_path):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path / "wh")
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": "s"})
    for t in ("src", "secret", "out"):
        admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas/s/tables", {
            "name": t, "columns": [{"name": "id", "type": "long", "nullable": True}]})
    a = Admin(admin, ml)
    a.user_with("reader", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA"),
                           sobj("TABLE", f"{cat}.s.src", "SELECT_TABLE"),
                           sobj("TABLE", f"{cat}.s.out", "SELECT_TABLE")])
    reader = Principal(authz_server.url, "reader")
    stranger = Principal(authz_server.url, unique("stranger"))

    # Any authenticated caller may send an event (Gravitino's endpoint has no privilege).
    job = unique("job")
    r = stranger.api("POST", "lineage", run_event(ml, cat, job))
    assert r.status_code == 201, r.text
    bad = run_event(ml, cat, job)
    bad["run"]["runId"] = "not-a-uuid"
    r = stranger.api("POST", "lineage", bad)
    assert r.status_code == 400 and "run.runId" in r.json()["message"], r.text

    from_out = {"metalake": ml, "fullName": f"{cat}.s.out", "direction": "upstream"}
    full = wait_graph(admin, from_out, 4)
    by_name = {n.get("name"): n for n in full["nodes"] if n["type"] == "dataset"}
    assert set(by_name) == {f"{cat}.s.out", f"{cat}.s.src", f"{cat}.s.secret"}, full
    secret_id = by_name[f"{cat}.s.secret"]["id"]

    # The reader sees the shape: the secret table's node keeps its id, depth and edge only.
    seen = wait_graph(reader, from_out, 4)
    nodes = {n["id"]: n for n in seen["nodes"]}
    assert set(nodes) == {n["id"] for n in full["nodes"]}
    hidden = nodes[secret_id]
    assert hidden["source"] == "hidden"
    for field in ("namespace", "name", "object"):
        assert field not in hidden, hidden
    assert hidden["depth"] == by_name[f"{cat}.s.secret"]["depth"]
    assert {(e["from"], e["to"]) for e in seen["edges"]} == \
        {(e["from"], e["to"]) for e in full["edges"]}
    out = next(n for n in seen["nodes"] if n.get("name") == f"{cat}.s.out")
    assert out["source"] == "cairn"
    inputs = out["columnLineage"][0]["inputFields"]
    assert {"dataset": secret_id, "hidden": True} in inputs
    assert any(i.get("name") == f"{cat}.s.src" and i.get("field") == "id" for i in inputs)
    assert "secret" not in str(seen) and "amount" not in str(seen)

    # From a table one may not load: 403 (as loading it answers); by its dataset name, 404.
    r = stranger.api("GET", "lineage/graph", params=from_out)
    assert r.status_code == 403, r.text
    r = reader.api("GET", "lineage/graph",
                   params={"metalake": ml, "fullName": f"{cat}.s.secret"})
    assert r.status_code == 403, r.text
    r = reader.api("GET", "lineage/graph", params={"namespace": ml, "name": f"{cat}.s.secret"})
    assert r.status_code == 404, r.text
    r = reader.api("GET", "lineage/graph", params={"namespace": ml, "name": f"{cat}.s.src"})
    assert r.status_code == 200, r.text
