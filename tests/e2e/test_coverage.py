"""The metadata coverage report (docs/governance-coverage.md): per schema, how many of the objects
a caller may see have an owner, a description, tags and lineage, checked against a metalake built
here with known comments, owners, tags and lineage; paged; and filtered by what the caller sees."""

from __future__ import annotations

import base64
import time
import uuid

import pytest
import requests

from cairn_server import running_cairn, store_env

PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"


def basic(user: str) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:x".encode()).decode()}


class Api:
    def __init__(self, url: str, user: str):
        self.url, self.s = url, requests.Session()
        self.s.headers.update(basic(user))

    def call(self, method, path, body=None, **params):
        return self.s.request(method, f"{self.url}/api/{path}", json=body, params=params,
                              timeout=30)

    def ok(self, method, path, body=None, **params):
        r = self.call(method, path, body, **params)
        assert r.status_code == 200, f"{method} {path}: {r.status_code} {r.text}"
        return r.json()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    env = {"CAIRN_AUTHORIZATION_ENABLE": "true", "CAIRN_AUTHORIZATION_SERVICE_ADMINS": "admin",
           "CAIRN_AUTHENTICATORS": "simple"}
    wh = tmp_path_factory.mktemp("coverage-wh")
    with store_env("cairn_coverage") as store:
        with running_cairn("coverage", {**store, **env}, tmp_path_factory.mktemp("coverage-data"),
                           tmp_path_factory.getbasetemp()) as srv:
            a = Api(srv.url, "admin")
            ml = f"cov_{uuid.uuid4().hex[:8]}"
            a.ok("POST", "metalakes", {"name": ml, "comment": "", "properties": {}})
            a.ok("POST", f"metalakes/{ml}/catalogs", {
                "name": "lake", "type": "relational", "provider": "lakehouse-iceberg",
                "comment": "", "properties": {"catalog-backend": "managed",
                                              "warehouse": str(wh / "lake")}})
            base = f"metalakes/{ml}/catalogs/lake/schemas"
            for schema in ("sales", "ops"):
                a.ok("POST", base, {"name": schema, "comment": None, "properties": {}})
            col = [{"name": "id", "type": "long", "nullable": True}]
            for schema, name, comment in (("sales", "orders", "one row per order"),
                                          ("sales", "daily", None), ("sales", "raw", "  "),
                                          ("ops", "jobs", "scheduler runs")):
                a.ok("POST", f"{base}/{schema}/tables", {"name": name, "comment": comment,
                                                         "columns": col, "properties": {}})
            a.ok("POST", f"{base}/sales/views", {
                "name": "big", "comment": "big orders", "columns": col,
                "representations": [{"type": "sql", "dialect": "trino",
                                     "sql": "SELECT id FROM orders"}],
                "defaultCatalog": None, "defaultSchema": "sales", "properties": {}})
            a.ok("POST", f"metalakes/{ml}/catalogs", {
                "name": "files", "type": "fileset", "provider": "fileset", "comment": "",
                "properties": {"location": str(wh / "files")}})
            a.ok("POST", f"metalakes/{ml}/catalogs/files/schemas",
                 {"name": "raw", "comment": None, "properties": {}})
            a.ok("POST", f"metalakes/{ml}/catalogs/files/schemas/raw/filesets",
                 {"name": "events", "comment": "click events", "type": "MANAGED",
                  "properties": {}})
            # Tags: pii on a table and the fileset; finance on a schema (inherited by its
            # tables, which does not make them tagged themselves).
            for tag in ("pii", "finance"):
                a.ok("POST", f"metalakes/{ml}/tags", {"name": tag, "comment": None,
                                                      "properties": {}})
            a.ok("POST", f"metalakes/{ml}/objects/table/lake.sales.orders/tags",
                 {"tagsToAdd": ["pii"]})
            a.ok("POST", f"metalakes/{ml}/objects/fileset/files.raw.events/tags",
                 {"tagsToAdd": ["pii"]})
            a.ok("POST", f"metalakes/{ml}/objects/schema/lake.ops/tags",
                 {"tagsToAdd": ["finance"]})
            # Lineage: a job read orders and wrote daily.
            event = {"eventType": "COMPLETE", "eventTime": "2026-12-06T01:00:00.000Z",
                     "producer": PRODUCER, "schemaURL":
                         "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
                     "run": {"runId": str(uuid.uuid4())},
                     "job": {"namespace": "etl", "name": "daily"},
                     "inputs": [{"namespace": ml, "name": "lake.sales.orders"}],
                     "outputs": [{"namespace": ml, "name": "lake.sales.daily"}]}
            r = a.s.post(f"{srv.url}/api/v1/lineage", json=event, timeout=30)
            assert r.status_code in (200, 201), r.text
            deadline = time.time() + 10
            while time.time() < deadline:
                g = a.call("GET", "lineage/graph", metalake=ml, fullName="lake.sales.daily",
                           direction="upstream", depth=1)
                if g.status_code == 200 and g.json()["total"] >= 3:
                    break
                time.sleep(0.05)
            # A reader of lake.sales's tables only.
            a.ok("POST", f"metalakes/{ml}/users", {"name": "viewer"})
            a.ok("POST", f"metalakes/{ml}/roles", {"name": "read_sales", "properties": {},
                 "securableObjects": [
                     {"fullName": "lake", "type": "CATALOG",
                      "privileges": [{"name": "USE_CATALOG", "condition": "ALLOW"}]},
                     {"fullName": "lake.sales", "type": "SCHEMA",
                      "privileges": [{"name": "USE_SCHEMA", "condition": "ALLOW"},
                                     {"name": "SELECT_TABLE", "condition": "ALLOW"}]}]})
            a.ok("PUT", f"metalakes/{ml}/permissions/users/viewer/grant",
                 {"roleNames": ["read_sales"]})
            yield srv, ml


def rows_by_schema(report):
    return {(r["catalog"], r["schema"]): r for r in report["schemas"]}


def test_the_report_counts_what_was_built(world):
    srv, ml = world
    report = Api(srv.url, "admin").ok("GET", f"metalakes/{ml}/coverage")
    assert report["metalake"] == ml and report["nextPageToken"] is None
    rows = rows_by_schema(report)
    assert set(rows) == {("lake", "sales"), ("lake", "ops"), ("files", "raw")}
    sales = rows[("lake", "sales")]
    tables = sales["kinds"]["table"]
    assert (tables["objects"], tables["withDescription"], tables["withTags"],
            tables["withOwner"]) == (3, 1, 1, 3)
    assert (tables["withLineage"], tables["lineageApplicable"]) == (2, 3)
    assert tables["shares"]["lineage"] == pytest.approx(2 / 3)
    views = sales["kinds"]["view"]
    assert (views["objects"], views["withDescription"], views["withTags"]) == (1, 1, 0)
    assert views["lineageApplicable"] == 0 and views["shares"]["lineage"] is None
    assert (sales["objects"], sales["withDescription"], sales["withTags"]) == (4, 2, 1)
    assert sales["shares"]["description"] == pytest.approx(0.5)
    ops = rows[("lake", "ops")]
    # The schema's tag is inherited by jobs: that does not count as the table's own.
    assert (ops["objects"], ops["withDescription"], ops["withTags"], ops["withLineage"]) == \
        (1, 1, 0, 0)
    files = rows[("files", "raw")]["kinds"]["fileset"]
    assert (files["objects"], files["withDescription"], files["withTags"]) == (1, 1, 1)
    total = report["pageTotal"]
    assert (total["objects"], total["withDescription"], total["withTags"], total["withLineage"],
            total["lineageApplicable"]) == (6, 4, 2, 2, 4)


def test_paging_filters_and_errors(world):
    srv, ml = world
    a = Api(srv.url, "admin")
    seen, token = [], None
    while True:
        params = {"pageSize": 1} | ({"pageToken": token} if token else {})
        page = a.ok("GET", f"metalakes/{ml}/coverage", **params)
        assert len(page["schemas"]) == 1
        seen += [(r["catalog"], r["schema"]) for r in page["schemas"]]
        token = page["nextPageToken"]
        if token is None:
            break
    assert sorted(seen) == sorted({("lake", "sales"), ("lake", "ops"), ("files", "raw")})
    one = a.ok("GET", f"metalakes/{ml}/coverage", catalog="lake", schema="ops")
    assert [(r["catalog"], r["schema"]) for r in one["schemas"]] == [("lake", "ops")]
    only_lake = a.ok("GET", f"metalakes/{ml}/coverage", catalog="lake")
    assert {r["catalog"] for r in only_lake["schemas"]} == {"lake"}
    for params, status, field in (({"pageSize": 0}, 400, "pageSize"),
                                  ({"pageToken": "x"}, 400, "pageToken"),
                                  ({"schema": "ops"}, 400, "catalog"),
                                  ({"catalog": "nope"}, 404, "nope"),
                                  ({"catalog": "lake", "schema": "nope"}, 404, "nope")):
        r = a.call("GET", f"metalakes/{ml}/coverage", **params)
        assert r.status_code == status and field in r.json()["message"], (params, r.text)
    assert a.call("GET", "metalakes/no_such_lake/coverage").status_code == 404


def test_a_caller_sees_the_coverage_of_what_it_may_see(world):
    srv, ml = world
    report = Api(srv.url, "viewer").ok("GET", f"metalakes/{ml}/coverage")
    rows = rows_by_schema(report)
    assert set(rows) == {("lake", "sales")}
    sales = rows[("lake", "sales")]
    assert sales["kinds"]["table"]["objects"] == 3
    assert "view" not in sales["kinds"] or sales["kinds"]["view"]["objects"] == 0
    # Someone who is not a user of the metalake gets nothing at all.
    r = Api(srv.url, "stranger").call("GET", f"metalakes/{ml}/coverage")
    assert r.status_code == 403, r.text


def test_the_cli_reports_per_schema_catalog_and_metalake(world, tmp_path):
    import json
    import os
    import subprocess

    from cairn_server import cairn_binary

    srv, ml = world
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    env.update({"HOME": str(tmp_path), "CAIRN_SERVER": srv.url, "CAIRN_METALAKE": ml,
                "CAIRN_USER": "admin"})

    def cli(*args):
        r = subprocess.run([str(cairn_binary()), "coverage", "report", *args], env=env,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout

    doc = json.loads(cli("--output", "json"))
    assert doc["total"]["objects"] == 6 and doc["total"]["withDescription"] == 4
    assert doc["catalogs"]["lake"]["objects"] == 5 and doc["catalogs"]["files"]["objects"] == 1
    assert doc["catalogs"]["lake"]["withLineage"] == 2
    table = cli()
    assert "DESCRIPTION" in table and "4/6 (67%)" in table and "2/4 (50%)" in table
    only = json.loads(cli("--name", "lake.sales", "--output", "json"))
    assert [(r["catalog"], r["schema"]) for r in only["schemas"]] == [("lake", "sales")]
