"""DataHub's own `datahub ingest` (acryl-datahub 1.7, in .venv-datahub) running the `cairn` source
of integrations/datahub against Cairn, into DataHub's file sink: every object the ingesting
principal may see is there with its schema, owners, tags and lineage as DataHub aspects
(docs/engines.md#datahub)."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import requests

from conftest import ADMIN, basic, unique

REPO = Path(__file__).resolve().parents[2]
DATAHUB_VENV = Path(os.environ.get("CAIRN_DATAHUB_VENV", REPO / ".venv-datahub"))
PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"


def ingest(tmp_path: Path, config: dict) -> list[dict]:
    exe = DATAHUB_VENV / "bin" / "datahub"
    if not exe.is_file():
        pytest.fail(f"{exe} not found: tests/e2e/run.sh makes {DATAHUB_VENV} from "
                    "tests/engines/datahub/requirements.txt and integrations/datahub")
    out = tmp_path / "mcps.json"
    recipe = tmp_path / "recipe.json"  # YAML is a superset of JSON: the CLI reads it as written
    recipe.write_text(json.dumps({"source": {"type": "cairn", "config": config},
                                  "sink": {"type": "file", "config": {"filename": str(out)}}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATAHUB_")}
    env.update({"DATAHUB_TELEMETRY_ENABLED": "false", "HOME": str(tmp_path)})
    r = subprocess.run([str(exe), "ingest", "-c", str(recipe), "--strict-warnings"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"datahub ingest failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return json.loads(out.read_text())


def aspects(mcps: list[dict]) -> dict[tuple[str, str], dict]:
    """(entityUrn, aspectName) -> the aspect's JSON, the last one written winning."""
    return {(m["entityUrn"], m["aspectName"]): m["aspect"]["json"] for m in mcps}


def ds(platform: str, name: str) -> str:
    return f"urn:li:dataset:(urn:li:dataPlatform:{platform},{name},PROD)"


def lineage_event(metalake: str, job: str, inputs: list[tuple[str, str]],
                  output: tuple[str, str], columns: dict) -> dict:
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    return {"eventType": "COMPLETE", "eventTime": now, "producer": PRODUCER,
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {"runId": str(uuid.uuid4())}, "job": {"namespace": "etl", "name": job},
            "inputs": [{"namespace": ns, "name": n} for ns, n in inputs],
            "outputs": [{"namespace": output[0], "name": output[1], "facets": {"columnLineage": {
                "_producer": PRODUCER,
                "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/"
                              "ColumnLineageDatasetFacet.json",
                "fields": columns}}}]}


@pytest.fixture
def world(cairn, lake, tmp_path):
    """The lake's Iceberg catalog with a schema of two tables and a view, a fileset catalog, a
    model catalog, owners, tags and an OpenLineage run between the tables."""
    a, ml, cat = lake.admin, lake.metalake, lake.catalog
    base = f"metalakes/{ml}/catalogs/{cat}/schemas"
    a.ok("POST", base, {"name": "sales", "comment": "what we sold", "properties": {}})
    a.ok("POST", f"{base}/sales/tables", {
        "name": "orders", "comment": "one row per order",
        "columns": [
            {"name": "id", "type": "long", "nullable": False, "comment": "the order"},
            {"name": "email", "type": "string", "nullable": True},
            {"name": "amount", "type": "decimal(10,2)", "nullable": True},
            {"name": "region", "type": "string", "nullable": True},
            {"name": "shipping", "nullable": True, "type": {"type": "struct", "fields": [
                {"name": "city", "type": "string", "nullable": True},
                {"name": "days", "type": "integer", "nullable": True}]}},
            {"name": "items", "nullable": True,
             "type": {"type": "list", "elementType": "string", "containsNull": True}}],
        "properties": {"team": "shop"},
        "partitioning": [{"strategy": "identity", "fieldName": ["region"]}]})
    a.ok("POST", f"{base}/sales/tables", {
        "name": "daily", "comment": "revenue per day",
        "columns": [{"name": "day", "type": "date", "nullable": True},
                    {"name": "revenue", "type": "decimal(12,2)", "nullable": True}],
        "properties": {}})
    a.ok("POST", f"{base}/sales/views", {
        "name": "big_orders", "comment": "orders over 100",
        "columns": [{"name": "id", "type": "long", "nullable": True}],
        "representations": [{"type": "sql", "dialect": "trino",
                             "sql": "SELECT id FROM orders WHERE amount > 100"}],
        "defaultCatalog": None, "defaultSchema": "sales", "properties": {}})

    # Owners: a user owns a table, a group the schema.
    a.ok("POST", f"metalakes/{ml}/users", {"name": "alice"})
    a.ok("POST", f"metalakes/{ml}/groups", {"name": "analysts"})
    a.ok("PUT", f"metalakes/{ml}/owners/table/{cat}.sales.orders",
         {"name": "alice", "type": "USER"})
    a.ok("PUT", f"metalakes/{ml}/owners/schema/{cat}.sales",
         {"name": "analysts", "type": "GROUP"})
    # Tags: on a table, a column and the schema (which the tables inherit).
    for tag, comment in (("pii", "personal data"), ("gold", "curated"), ("finance", None)):
        a.ok("POST", f"metalakes/{ml}/tags", {"name": tag, "comment": comment, "properties": {}})
    a.ok("POST", f"metalakes/{ml}/objects/table/{cat}.sales.daily/tags", {"tagsToAdd": ["gold"]})
    a.ok("POST", f"metalakes/{ml}/objects/column/{cat}.sales.orders.email/tags",
         {"tagsToAdd": ["pii"]})
    a.ok("POST", f"metalakes/{ml}/objects/schema/{cat}.sales/tags", {"tagsToAdd": ["finance"]})

    # A fileset catalog on local disk and a model catalog.
    a.ok("POST", f"metalakes/{ml}/catalogs", {
        "name": "files", "type": "fileset", "provider": "fileset", "comment": "",
        "properties": {"location": str(tmp_path / "files")}})
    a.ok("POST", f"metalakes/{ml}/catalogs/files/schemas", {"name": "raw", "comment": None,
                                                            "properties": {}})
    a.ok("POST", f"metalakes/{ml}/catalogs/files/schemas/raw/filesets", {
        "name": "events", "comment": "click events", "type": "MANAGED", "properties": {}})
    a.ok("POST", f"metalakes/{ml}/objects/fileset/files.raw.events/tags",
         {"tagsToAdd": ["pii"]})
    a.ok("POST", f"metalakes/{ml}/catalogs", {
        "name": "ml", "type": "model", "provider": "model", "comment": "", "properties": {}})
    a.ok("POST", f"metalakes/{ml}/catalogs/ml/schemas", {"name": "churn", "comment": None,
                                                         "properties": {}})
    models = f"metalakes/{ml}/catalogs/ml/schemas/churn/models"
    a.ok("POST", models, {"name": "scorer", "comment": "churn scorer", "properties": {"f": "1"}})
    a.ok("POST", f"{models}/scorer/versions", {"uri": "s3://models/scorer/0",
                                               "aliases": ["prod"], "comment": "first"})

    # Lineage: a job read orders and an S3 prefix and wrote daily.
    r = requests.post(f"{cairn.url}/api/v1/lineage", headers={"Authorization": basic(ADMIN)},
                      json=lineage_event(ml, unique("daily_job"),
                                         [(ml, f"{cat}.sales.orders"), ("s3://raw", "fx/rates")],
                                         (ml, f"{cat}.sales.daily"),
                                         {"revenue": {"inputFields": [
                                             {"namespace": ml, "name": f"{cat}.sales.orders",
                                              "field": "amount"},
                                             {"namespace": "s3://raw", "name": "fx/rates",
                                              "field": "rate"}]}}),
                      timeout=30)
    assert r.status_code in (200, 201), r.text
    deadline = time.time() + 10  # events are written behind the answer
    while time.time() < deadline:
        g = a.ok("GET", f"lineage/graph?metalake={ml}&fullName={cat}.sales.daily"
                        "&direction=upstream&depth=1")
        if len(g["nodes"]) >= 4:
            break
        time.sleep(0.05)
    return lake


def test_datahub_ingests_objects_with_schemas_owners_tags_and_lineage(world, cairn, tmp_path):
    ml, cat = world.metalake, world.catalog
    mcps = ingest(tmp_path, {"server": cairn.url, "username": ADMIN, "password": "x",
                             "metalake_pattern": {"allow": [f"^{ml}$"]}})
    got = aspects(mcps)
    orders, daily = ds("iceberg", f"{ml}.{cat}.sales.orders"), ds("iceberg", f"{ml}.{cat}.sales.daily")
    view = ds("iceberg", f"{ml}.{cat}.sales.big_orders")
    events = ds("cairn", f"{ml}.files.raw.events")
    datasets = {m["entityUrn"] for m in mcps if m["entityType"] == "dataset"
                and m["aspectName"] == "datasetProperties"}
    assert datasets == {orders, daily, view, events}

    # Properties, subtypes and the platform instance (the metalake).
    props = got[(orders, "datasetProperties")]
    assert props["name"] == "orders" and props["description"] == "one row per order"
    assert props["qualifiedName"] == f"{ml}.{cat}.sales.orders"
    assert props["customProperties"]["team"] == "shop"
    assert props["customProperties"]["partitioning"] == "region"
    assert props["created"]["time"] > 0
    assert got[(orders, "subTypes")]["typeNames"] == ["Table"]
    assert got[(view, "subTypes")]["typeNames"] == ["View"]
    assert got[(events, "subTypes")]["typeNames"] == ["Fileset"]
    assert got[(orders, "dataPlatformInstance")]["instance"] == \
        f"urn:li:dataPlatformInstance:(urn:li:dataPlatform:iceberg,{ml})"

    # The schema: types, nullability, comments, struct members, the partition column, and the
    # column's tag.
    fields = {f["fieldPath"]: f for f in got[(orders, "schemaMetadata")]["fields"]}
    assert list(fields) == ["id", "email", "amount", "region", "shipping", "shipping.city",
                            "shipping.days", "items"]
    assert fields["id"]["nativeDataType"] == "long" and fields["id"]["nullable"] is False
    assert fields["id"]["description"] == "the order"
    assert "NumberType" in json.dumps(fields["amount"]["type"])
    assert "RecordType" in json.dumps(fields["shipping"]["type"])
    assert fields["items"]["nativeDataType"] == "list<string>"
    assert "ArrayType" in json.dumps(fields["items"]["type"])
    assert fields["region"].get("isPartitioningKey") is True
    assert fields["email"]["globalTags"]["tags"] == [{"tag": "urn:li:tag:pii"}]

    # Owners: the user and the group, as DataHub ownership.
    assert [o["owner"] for o in got[(orders, "ownership")]["owners"]] == ["urn:li:corpuser:alice"]
    assert [o["owner"] for o in got[(daily, "ownership")]["owners"]] == \
        [f"urn:li:corpuser:{ADMIN}"]
    containers = {m["entityUrn"]: m["aspect"]["json"] for m in mcps
                  if m["aspectName"] == "containerProperties"}
    schema_urn = next(u for u, p in containers.items() if p["name"] == "sales")
    catalog_urn = next(u for u, p in containers.items() if p["name"] == cat)
    assert containers[schema_urn]["description"] == "what we sold"
    assert [o["owner"] for o in got[(schema_urn, "ownership")]["owners"]] == \
        ["urn:li:corpGroup:analysts"]
    assert got[(schema_urn, "container")]["container"] == catalog_urn
    assert got[(orders, "container")]["container"] == schema_urn
    assert got[(catalog_urn, "subTypes")]["typeNames"] == ["Catalog"]

    # Tags as globalTags, each tag an entity with its description; the schema's tag is on the
    # schema, not copied onto every table.
    assert got[(daily, "globalTags")]["tags"] == [{"tag": "urn:li:tag:gold"}]
    assert got[(events, "globalTags")]["tags"] == [{"tag": "urn:li:tag:pii"}]
    assert got[(schema_urn, "globalTags")]["tags"] == [{"tag": "urn:li:tag:finance"}]
    assert (orders, "globalTags") not in got
    assert got[("urn:li:tag:pii", "tagProperties")]["description"] == "personal data"

    # Lineage: daily's upstreams, the Cairn table and the S3 prefix, with column lineage.
    up = got[(daily, "upstreamLineage")]
    assert sorted(u["dataset"] for u in up["upstreams"]) == sorted(
        [orders, ds("s3", "raw/fx/rates")])
    assert {u["type"] for u in up["upstreams"]} == {"TRANSFORMED"}
    [column] = up["fineGrainedLineages"]
    assert column["downstreams"] == [f"urn:li:schemaField:({daily},revenue)"]
    assert sorted(column["upstreams"]) == sorted([
        f"urn:li:schemaField:({orders},amount)",
        f"urn:li:schemaField:({ds('s3', 'raw/fx/rates')},rate)"])
    assert (orders, "upstreamLineage") not in got

    # The view's SQL, the fileset's location, the model and its version.
    assert got[(view, "viewProperties")]["viewLogic"] == \
        "SELECT id FROM orders WHERE amount > 100"
    assert got[(events, "datasetProperties")]["uri"].endswith("/files/raw/events")
    group = f"urn:li:mlModelGroup:(urn:li:dataPlatform:cairn,{ml}.ml.churn.scorer,PROD)"
    assert got[(group, "mlModelGroupProperties")]["description"] == "churn scorer"
    version = f"urn:li:mlModel:(urn:li:dataPlatform:cairn,{ml}.ml.churn.scorer.v0,PROD)"
    vprops = got[(version, "mlModelProperties")]
    assert vprops["groups"] == [group] and vprops["version"]["versionTag"] == "0"
    assert vprops["customProperties"]["aliases"] == "prod"
    assert vprops["externalUrl"] == "s3://models/scorer/0"


def test_datahub_sees_what_its_principal_may_see(world, cairn, tmp_path):
    """Ingesting as a user who may read one catalog: the other catalogs' objects are absent."""
    ml, cat = world.metalake, world.catalog
    world.grant("datahub", ["USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE"])
    mcps = ingest(tmp_path, {"server": cairn.url, "username": "datahub", "password": "x",
                             "metalake_pattern": {"allow": [f"^{ml}$"]},
                             "include_owners": False})
    datasets = {m["entityUrn"] for m in mcps if m["aspectName"] == "datasetProperties"}
    assert ds("iceberg", f"{ml}.{cat}.sales.orders") in datasets
    assert not any(",files." in d for d in datasets)
    assert not any(m["entityType"] in ("mlModel", "mlModelGroup") for m in mcps)
