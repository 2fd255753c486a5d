"""A lakehouse-iceberg catalog whose tables live in the run's Hive metastore (catalog-backend
hive; docs/hive.md), through PyIceberg on Cairn's Iceberg REST service: namespaces are the
metastore's databases, each table is a metastore table of table_type ICEBERG whose
metadata_location follows every commit, concurrent appends from several processes all land, and
what another metastore client does (dropping a table, moving its pointer) is what Cairn answers
at once."""

from __future__ import annotations

import os
from urllib.parse import urlparse

import pyarrow as pa
import pytest
from pyiceberg.exceptions import NamespaceNotEmptyError, NoSuchTableError
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, LongType, NestedField

from ice_helpers import Ice, run_append_workers, unique

URI = os.environ.get("CAIRN_TEST_HIVE_URI")
pytestmark = pytest.mark.skipif(not URI, reason="no Hive metastore (tests/e2e/run.sh starts one)")

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                NestedField(2, "writer", IntegerType(), required=False))


def metastore():
    from hive_metastore_client import HiveMetastoreClient
    u = urlparse(URI)
    return HiveMetastoreClient(u.hostname, u.port)


def hms_table(hms, db: str, name: str):
    from thrift_files.libraries.thrift_hive_metastore_client.ttypes import GetTableRequest
    return hms.get_table_req(GetTableRequest(dbName=db, tblName=name)).table


@pytest.fixture
def hive_ice(base_url, tmp_path):
    wh = tmp_path / "warehouse"
    wh.mkdir()
    ice = Ice(base_url, unique("ml"), unique("hivecat"), wh)
    r = ice.api_post("metalakes", {"name": ice.metalake, "properties": {}})
    assert r.status_code == 200, r.text
    r = ice.api_post(f"metalakes/{ice.metalake}/catalogs", {
        "name": ice.catalog, "type": "relational", "provider": "lakehouse-iceberg",
        "comment": "iceberg in the metastore",
        "properties": {"catalog-backend": "hive", "uri": URI, "warehouse": f"file://{wh}"}})
    assert r.status_code == 200, r.text
    yield ice
    ice.api_delete(f"metalakes/{ice.metalake}", params={"force": "true"})


@pytest.fixture
def hms():
    with metastore() as c:
        yield c


@pytest.fixture
def db(hms):
    name = unique("icedb")
    yield name
    try:
        hms.drop_database(name, False, True)
    except Exception:  # dropped by the test
        pass


def test_tables_live_in_the_metastore(hive_ice, hms, db):
    cat = hive_ice.pyiceberg()
    cat.create_namespace(db, {"owner_team": "data"})
    assert db in hms.get_all_databases()
    assert hms.get_database(db).parameters["owner_team"] == "data"
    assert (db,) in cat.list_namespaces()

    tbl = cat.create_table(f"{db}.events", SCHEMA)
    h = hms_table(hms, db, "events")
    assert h.parameters["table_type"] == "ICEBERG"
    assert h.parameters["metadata_location"] == tbl.metadata_location

    tbl.append(pa.table({"id": pa.array([1, 2, 3], pa.int64()),
                         "writer": pa.array([0, 0, 0], pa.int32())}))
    tbl = cat.load_table(f"{db}.events")
    h = hms_table(hms, db, "events")
    assert h.parameters["metadata_location"] == tbl.metadata_location
    assert h.parameters["previous_metadata_location"] != tbl.metadata_location
    assert sorted(tbl.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
    assert cat.list_tables(db) == [(db, "events")]

    # the Gravitino API sees the same database and table
    r = hive_ice.api_get(f"metalakes/{hive_ice.metalake}/catalogs/{hive_ice.catalog}/schemas")
    assert db in [i["name"] for i in r.json()["identifiers"]]
    r = hive_ice.api_get(f"metalakes/{hive_ice.metalake}/catalogs/{hive_ice.catalog}/schemas/"
                         f"{db}/tables/events")
    assert r.status_code == 200 and [c["name"] for c in r.json()["table"]["columns"]] == [
        "id", "writer"]

    with pytest.raises(NamespaceNotEmptyError):
        cat.drop_namespace(db)
    cat.rename_table(f"{db}.events", f"{db}.events2")
    assert "events2" in hms.get_all_tables(db) and "events" not in hms.get_all_tables(db)
    assert cat.load_table(f"{db}.events2").scan().to_arrow().num_rows == 3
    cat.drop_table(f"{db}.events2")
    assert hms.get_all_tables(db) == []
    cat.drop_namespace(db)
    assert db not in hms.get_all_databases()


def test_concurrent_appends_all_land(hive_ice, hms, db):
    writers, batches, rows = 3, 5, 20
    cat = hive_ice.pyiceberg()
    cat.create_namespace(db)
    ident = f"{db}.shared"
    cat.create_table(ident, SCHEMA, properties={
        "commit.retry.num-retries": "30", "commit.retry.min-wait-ms": "20",
        "commit.retry.max-wait-ms": "500"})
    outcomes = run_append_workers([(hive_ice.uri, hive_ice.warehouse)] * writers, ident,
                                  batches, rows)
    assert len(outcomes) == writers, outcomes
    for w, (status, detail) in outcomes.items():
        assert status == "ok", f"writer {w} failed: {detail}"
    tbl = cat.load_table(ident)
    got = sorted(tbl.scan().to_arrow().column("id").to_pylist())
    assert got == sorted(w * 1_000_000 + i for w in range(writers) for i in range(batches * rows))
    assert hms_table(hms, db, "shared").parameters["metadata_location"] == tbl.metadata_location


def test_what_another_metastore_client_does_is_seen_at_once(hive_ice, hms, db):
    cat = hive_ice.pyiceberg()
    cat.create_namespace(db)
    tbl = cat.create_table(f"{db}.t", SCHEMA)
    first = tbl.metadata_location
    tbl.append(pa.table({"id": pa.array([1], pa.int64()), "writer": pa.array([0], pa.int32())}))
    assert cat.load_table(f"{db}.t").scan().to_arrow().num_rows == 1

    # another engine moves the pointer back to the first metadata file (a rollback)
    h = hms_table(hms, db, "t")
    h.parameters["metadata_location"] = first
    hms.alter_table(db, "t", h)
    back = cat.load_table(f"{db}.t")
    assert back.metadata_location == first
    assert back.scan().to_arrow().num_rows == 0
    # a commit based on the moved pointer lands on top of it
    back.append(pa.table({"id": pa.array([7], pa.int64()), "writer": pa.array([1], pa.int32())}))
    assert cat.load_table(f"{db}.t").scan().to_arrow().column("id").to_pylist() == [7]
    assert hms_table(hms, db, "t").parameters["metadata_location"] == \
        cat.load_table(f"{db}.t").metadata_location

    # another engine registers a table in the metastore: listed and loaded through Cairn
    from hive_metastore_client.builders import (
        SerDeInfoBuilder, StorageDescriptorBuilder, TableBuilder)
    sd = StorageDescriptorBuilder(
        columns=[], location=h.sd.location,
        input_format="org.apache.iceberg.mr.hive.HiveIcebergInputFormat",
        output_format="org.apache.iceberg.mr.hive.HiveIcebergOutputFormat",
        serde_info=SerDeInfoBuilder(
            serialization_lib="org.apache.iceberg.mr.hive.HiveIcebergSerDe").build()).build()
    hms.create_table(TableBuilder(
        table_name="copy", db_name=db, owner="spark", storage_descriptor=sd,
        table_type="EXTERNAL_TABLE",
        parameters={"EXTERNAL": "TRUE", "table_type": "ICEBERG",
                    "metadata_location": first}).build())
    assert (db, "copy") in cat.list_tables(db)
    assert cat.load_table(f"{db}.copy").metadata_location == first

    # and drops one: gone through Cairn at once
    hms.drop_table(db, "copy", False)
    with pytest.raises(NoSuchTableError):
        cat.load_table(f"{db}.copy")
    assert (db, "copy") not in cat.list_tables(db)


def _hive_catalog_on(url: str, metalake: str, catalog: str, warehouse) -> Ice:
    ice = Ice(url, metalake, catalog, warehouse)
    r = ice.api_post("metalakes", {"name": metalake, "properties": {}})
    assert r.status_code == 200, r.text
    r = ice.api_post(f"metalakes/{metalake}/catalogs", {
        "name": catalog, "type": "relational", "provider": "lakehouse-iceberg",
        "properties": {"catalog-backend": "hive", "uri": URI, "warehouse": f"file://{warehouse}"}})
    assert r.status_code == 200, r.text
    return ice


def test_two_servers_on_one_metastore_lose_no_append(tmp_path_factory, tmp_path, hms, db):
    """Two Cairn servers with stores of their own share only the metastore: appends through both
    at once all land, because the metastore's compare-and-swap of metadata_location decides
    every race (a server whose swap loses re-reads the pointer and applies its append again)."""
    from cairn_server import running_cairn
    writers_per_server, batches, rows = 2, 6, 10
    logs = tmp_path_factory.getbasetemp()
    wh = tmp_path / "warehouse"
    wh.mkdir()
    ml, catalog = unique("ml"), unique("shared")
    with running_cairn("hms-a", {}, tmp_path / "a", logs) as a, \
            running_cairn("hms-b", {}, tmp_path / "b", logs) as b:
        ice_a = _hive_catalog_on(a.url, ml, catalog, wh)
        ice_b = _hive_catalog_on(b.url, ml, catalog, wh)
        cat_a = ice_a.pyiceberg()
        cat_a.create_namespace(db)
        ident = f"{db}.shared"
        cat_a.create_table(ident, SCHEMA, properties={
            "commit.retry.num-retries": "50", "commit.retry.min-wait-ms": "20",
            "commit.retry.max-wait-ms": "500"})
        # server B has never seen the table: it finds it in the metastore
        assert ice_b.pyiceberg().load_table(ident).metadata_location == \
            cat_a.load_table(ident).metadata_location

        targets = [(ice.uri, ice.warehouse) for ice in (ice_a, ice_b)] * writers_per_server
        outcomes = run_append_workers(targets, ident, batches, rows)
        assert len(outcomes) == len(targets), outcomes
        for w, (status, detail) in outcomes.items():
            assert status == "ok", f"writer {w} failed: {detail}"
        for ice in (ice_a, ice_b):
            tbl = ice.pyiceberg().load_table(ident)
            got = sorted(tbl.scan().to_arrow().column("id").to_pylist())
            assert got == sorted(w * 1_000_000 + i for w in range(len(targets))
                                 for i in range(batches * rows))
        assert hms_table(hms, db, "shared").parameters["metadata_location"] == \
            ice_b.pyiceberg().load_table(ident).metadata_location
