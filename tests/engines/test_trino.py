"""Trino 483 against Cairn's Iceberg REST catalog, as a Trino user would use it.

Each test makes a lake (metalake + managed Iceberg catalog on MinIO), a principal with a role
on it, and a Trino catalog for that principal (bearer token, vended credentials, no storage keys
in Trino). What Trino did is checked where users would see it: the rows Trino reads back,
PyIceberg and the Gravitino API reading the same tables through Cairn, and the files in MinIO.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
import trino
from trino.exceptions import TrinoQueryError

from conftest import Lake, keys_under, unique

WRITER = ["USE_CATALOG", "CREATE_SCHEMA", "USE_SCHEMA", "CREATE_TABLE", "SELECT_TABLE",
          "MODIFY_TABLE", "CREATE_VIEW", "SELECT_VIEW"]


class TrinoCatalog:
    """A Trino catalog over one lake, for one principal, dropped after the test."""

    def __init__(self, server, lake: Lake, user: str, name: str | None = None):
        self.server = server
        self.name = name or unique("cairn")
        self.user = user
        props = ", ".join(f'"{k}" = \'{v}\''
                          for k, v in lake.trino_catalog_properties(user).items())
        self.sql(f"CREATE CATALOG {self.name} USING iceberg WITH ({props})")

    def connect(self):
        return trino.dbapi.connect(host="127.0.0.1", port=self.server.port, user=self.user,
                                   catalog=self.name, request_timeout=120)

    def sql(self, statement: str, conn=None) -> list[list]:
        own = conn is None
        conn = conn or self.connect()
        try:
            cur = conn.cursor()
            cur.execute(statement)
            return cur.fetchall()
        finally:
            if own:
                conn.close()

    def drop(self) -> None:
        self.sql(f"DROP CATALOG {self.name}")


@pytest.fixture
def etl(trino_server, lake) -> TrinoCatalog:
    """Trino as principal `etl`, who may create and change schemas, tables and views."""
    lake.grant("etl", WRITER)
    cat = TrinoCatalog(trino_server, lake, "etl")
    yield cat
    cat.drop()


def snapshot_ids(cat: TrinoCatalog, table: str) -> list[int]:
    schema, name = table.rsplit(".", 1)
    return [r[0] for r in cat.sql(
        f'SELECT snapshot_id FROM {schema}."{name}$snapshots" ORDER BY committed_at')]


def test_tables_through_their_life(etl, lake, s3):
    c = etl
    c.sql("CREATE SCHEMA sales")
    c.sql("CREATE TABLE sales.orders (id bigint, region varchar, amount double) "
          "WITH (partitioning = ARRAY['region'])")
    assert c.sql("INSERT INTO sales.orders VALUES (1, 'eu', 10.0), (2, 'us', 20.0), "
                 "(3, 'eu', 30.0)") == [[3]]
    assert c.sql("UPDATE sales.orders SET amount = 11.0 WHERE id = 1") == [[1]]
    assert c.sql("DELETE FROM sales.orders WHERE id = 2") == [[1]]
    c.sql("MERGE INTO sales.orders t USING (VALUES (3, 'eu', 33.0), (4, 'ap', 40.0)) "
          "AS s(id, region, amount) ON t.id = s.id "
          "WHEN MATCHED THEN UPDATE SET amount = s.amount "
          "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.region, s.amount)")
    expected = [[1, "eu", 11.0], [3, "eu", 33.0], [4, "ap", 40.0]]
    assert c.sql("SELECT id, region, amount FROM sales.orders ORDER BY id") == expected

    # CTAS, partitioned by a transform.
    assert c.sql("CREATE TABLE sales.big WITH (partitioning = ARRAY['bucket(id, 4)']) AS "
                 "SELECT * FROM sales.orders WHERE amount > 20") == [[2]]

    # The same tables through Cairn's other interfaces. (PyIceberg reads the table without
    # delete files: it cannot decode the DELTA_LENGTH_BYTE_ARRAY strings in Trino's.)
    ice = lake.pyiceberg()
    big = ice.load_table("sales.big")
    rows = big.scan().to_arrow().sort_by("id").to_pylist()
    assert [[r["id"], r["region"], r["amount"]] for r in rows] == expected[1:]
    orders = ice.load_table("sales.orders")
    assert [f.name for f in orders.spec().fields] == ["region"]
    assert orders.current_snapshot().summary["total-position-deletes"] != "0"
    api = lake.admin.ok("GET", f"metalakes/{lake.metalake}/catalogs/{lake.catalog}/schemas/"
                               "sales/tables/big")["table"]
    assert [col["name"] for col in api["columns"]] == ["id", "region", "amount"]
    assert api["partitioning"][0]["strategy"] == "bucket"
    assert api["partitioning"][0]["numBuckets"] == 4

    # Schema and partition evolution.
    c.sql("ALTER TABLE sales.orders ADD COLUMN note varchar")
    c.sql("ALTER TABLE sales.orders RENAME COLUMN amount TO total")
    c.sql("ALTER TABLE sales.orders SET PROPERTIES partitioning = ARRAY['region', 'bucket(id, 2)']")
    c.sql("INSERT INTO sales.orders VALUES (5, 'us', 50.0, 'new')")
    assert c.sql("SELECT id, total, note FROM sales.orders WHERE id >= 4 ORDER BY id") == [
        [4, 40.0, None], [5, 50.0, "new"]]
    orders = ice.load_table("sales.orders")
    assert [f.name for f in orders.schema().fields] == ["id", "region", "total", "note"]
    assert [f.name for f in orders.spec().fields] == ["region", "id_bucket"]
    assert len(orders.specs()) == 2

    # Metadata tables.
    ops = [r[0] for r in c.sql('SELECT operation FROM "sales"."orders$snapshots" '
                               "ORDER BY committed_at")]
    assert ops[0] == "append" and len(ops) == 6, ops
    assert c.sql('SELECT count(*) FROM sales."orders$history"') == [[6]]
    parts = {r[0] for r in c.sql('SELECT partition.region FROM sales."orders$partitions"')}
    assert parts == {"eu", "ap", "us"}
    files = c.sql('SELECT file_path FROM sales."orders$files"')
    prefix = f"s3://warehouse/{lake.prefix}/"
    assert files and all(f[0].startswith(prefix) for f in files)
    stored = set(keys_under(s3, lake.prefix))
    assert {f[0].removeprefix("s3://warehouse/") for f in files} <= stored

    # Time travel and rollback.
    snaps = snapshot_ids(c, "sales.orders")
    # snaps[0] is the empty table Trino's CREATE TABLE commits, snaps[1] the first INSERT.
    assert c.sql(f"SELECT count(*) FROM sales.orders FOR VERSION AS OF {snaps[0]}") == [[0]]
    assert c.sql(f"SELECT count(*) FROM sales.orders FOR VERSION AS OF {snaps[1]}") == [[3]]
    c.sql(f"ALTER TABLE sales.orders EXECUTE rollback_to_snapshot({snaps[1]})")
    assert c.sql("SELECT id, total FROM sales.orders ORDER BY id") == [
        [1, 10.0], [2, 20.0], [3, 30.0]]
    assert ice.load_table("sales.orders").current_snapshot().snapshot_id == snaps[1]

    # Views: stored in Cairn as Iceberg views, read through them by Trino.
    c.sql("CREATE VIEW sales.eu_orders AS SELECT id, total FROM sales.orders "
          "WHERE region = 'eu'")
    assert c.sql("SELECT * FROM sales.eu_orders ORDER BY id") == [[1, 10.0], [3, 30.0]]
    assert ("sales", "eu_orders") in ice.list_views("sales")
    c.sql("DROP VIEW sales.eu_orders")
    assert ("sales", "eu_orders") not in ice.list_views("sales")


def test_maintenance_procedures(etl, lake, s3):
    c = etl
    c.sql("CREATE SCHEMA ops")
    c.sql("CREATE TABLE ops.events (id bigint, kind varchar)")
    for i in range(4):
        c.sql(f"INSERT INTO ops.events VALUES ({i}, 'k{i}')")
    assert c.sql('SELECT count(*) FROM ops."events$files"') == [[4]]

    c.sql("ALTER TABLE ops.events EXECUTE optimize")
    assert c.sql('SELECT count(*) FROM ops."events$files"') == [[1]]
    assert c.sql("SELECT count(*) FROM ops.events") == [[4]]
    # Iceberg deletes the files a snapshot replaced when that snapshot expires: one more commit,
    # so that optimize's snapshot is not the one kept.
    c.sql("INSERT INTO ops.events VALUES (4, 'k4')")

    # Zero retention needs the catalog's session settings lowered (docs/engines.md).
    conn = c.connect()
    c.sql(f"SET SESSION {c.name}.expire_snapshots_min_retention = '0s'", conn)
    c.sql(f"SET SESSION {c.name}.remove_orphan_files_min_retention = '0s'", conn)
    before = set(keys_under(s3, lake.prefix))
    expired = len(snapshot_ids(c, "ops.events")) - 1
    c.sql("ALTER TABLE ops.events EXECUTE expire_snapshots(retention_threshold => '0s')", conn)
    assert len(snapshot_ids(c, "ops.events")) == 1
    after = set(keys_under(s3, lake.prefix))
    removed = before - after
    # The manifest lists of the expired snapshots and the four data files optimize replaced.
    assert sum(k.endswith(".avro") and "/snap-" in k for k in removed) == expired, removed
    assert sum(k.endswith(".parquet") for k in removed) == 4, sorted(removed)

    table_dir = lake.pyiceberg().load_table("ops.events").location().removeprefix(
        "s3://warehouse/")
    orphan = f"{table_dir}/data/orphan-{unique('f')}.parquet"
    s3.put_object(Bucket="warehouse", Key=orphan, Body=b"not referenced by any snapshot")
    time.sleep(1.5)  # older than the zero retention window by whole seconds
    c.sql("ALTER TABLE ops.events EXECUTE remove_orphan_files(retention_threshold => '0s')",
          conn)
    conn.close()
    left = set(keys_under(s3, lake.prefix))
    assert orphan not in left
    assert c.sql("SELECT id FROM ops.events ORDER BY id") == [[0], [1], [2], [3], [4]]


def test_format_v3_and_nested_namespaces(etl, lake):
    c = etl
    c.sql("CREATE SCHEMA team")
    c.sql('CREATE SCHEMA "team.analytics"')
    schemas = {r[0] for r in c.sql("SHOW SCHEMAS")}
    assert {"team", "team.analytics"} <= schemas
    ice = lake.pyiceberg()
    assert ("team", "analytics") in ice.list_namespaces(("team",))

    c.sql('CREATE TABLE "team.analytics".v3 (id bigint, tag varchar) WITH (format_version = 3)')
    c.sql('INSERT INTO "team.analytics".v3 VALUES (1, \'a\'), (2, \'b\'), (3, \'c\')')
    c.sql('DELETE FROM "team.analytics".v3 WHERE id = 2')
    assert c.sql('SELECT id FROM "team.analytics".v3 ORDER BY id') == [[1], [3]]
    meta = lake.admin.session.get(
        f"{lake.cairn.url}/iceberg/v1/{lake.warehouse}/namespaces/team%1Fanalytics/tables/v3",
        timeout=60)
    assert meta.status_code == 200, meta.text
    assert meta.json()["metadata"]["format-version"] == 3
    # A v3 delete is a deletion vector in a Puffin file.
    deletes = c.sql('SELECT file_format FROM "team.analytics"."v3$files" WHERE content = 1')
    assert deletes == [["PUFFIN"]]


def test_principal_without_rights_is_refused_and_changes_nothing(etl, trino_server, lake, s3):
    etl.sql("CREATE SCHEMA s")
    etl.sql("CREATE TABLE s.t (id bigint)")
    etl.sql("INSERT INTO s.t VALUES (1)")
    before = snapshot_ids(etl, "s.t")

    # Not a user of the metalake at all: Trino cannot even open the catalog (Cairn refuses its
    # /v1/config call for the warehouse), and Cairn's audit log says who was denied what.
    outsider = unique("outsider")
    with pytest.raises(TrinoQueryError) as err:
        TrinoCatalog(trino_server, lake, outsider)
    assert "ICEBERG_CATALOG_ERROR" in str(err.value), err.value
    recs = lake.admin.ok("GET", f"audit?principal={outsider}")["records"]
    assert recs and all(r["outcome"] == "denied" and r["status"] == 403 for r in recs), recs
    assert {r["interface"] for r in recs} == {"iceberg"}

    # A reader: may read, may not write, create or drop. Cairn refuses the catalog calls, and
    # the read-only keys it vends the reader make MinIO refuse the data files of an INSERT.
    lake.grant("reader", ["USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE"])
    reader = TrinoCatalog(trino_server, lake, "reader")
    data_files = {k for k in keys_under(s3, lake.prefix) if k.endswith(".parquet")}
    try:
        assert reader.sql("SELECT id FROM s.t") == [[1]]
        for statement in ("INSERT INTO s.t VALUES (2)", "DELETE FROM s.t", "DROP TABLE s.t",
                          "CREATE TABLE s.u (id bigint)", "CREATE SCHEMA other",
                          "CREATE VIEW s.v AS SELECT 1 AS one"):
            with pytest.raises(TrinoQueryError):
                reader.sql(statement)
    finally:
        reader.drop()
    assert {k for k in keys_under(s3, lake.prefix) if k.endswith(".parquet")} == data_files
    denied = lake.admin.ok("GET", "audit?principal=reader&outcome=denied")["records"]
    assert {r["status"] for r in denied} == {403}
    assert len(denied) >= 4, denied  # drop, create table, create schema, create view
    assert snapshot_ids(etl, "s.t") == before
    assert etl.sql("SELECT id FROM s.t") == [[1]]
    assert {r[0] for r in etl.sql("SHOW TABLES FROM s")} == {"t"}
    assert "other" not in {r[0] for r in etl.sql("SHOW SCHEMAS")}


def test_concurrent_inserts_all_land(etl, lake):
    """Eight Trino sessions inserting five times each into one table: each INSERT commits a
    snapshot with its statistics file; races are rebased by Cairn, none fails."""
    etl.sql("CREATE SCHEMA hot")
    etl.sql("CREATE TABLE hot.t (writer integer, n integer)")
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        conn = etl.connect()
        try:
            for n in range(5):
                etl.sql(f"INSERT INTO hot.t VALUES ({w}, {n})", conn)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            conn.close()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    rows = etl.sql("SELECT writer, n FROM hot.t ORDER BY writer, n")
    assert rows == [[w, n] for w in range(8) for n in range(5)]
    assert etl.sql('SELECT count(*) FROM hot."t$snapshots" '
                   "WHERE element_at(summary, 'added-records') = '1'") == [[40]]
    # Every snapshot kept the statistics file Trino wrote for it.
    table = lake.pyiceberg().load_table("hot.t")
    stats = {s.snapshot_id for s in table.metadata.statistics}
    assert table.current_snapshot().snapshot_id in stats
    print(json.dumps({"trino_concurrent_inserts": 40, "statistics_files": len(stats)}))


def test_trino_over_https(trino_server, https_lake, s3, monkeypatch):
    """Trino's Iceberg REST catalog against a Cairn that serves HTTPS only, trusting the run's
    CA through its JVM trust store (docs/security.md#encryption-in-transit); vended keys as
    over plain HTTP."""
    lake = https_lake
    assert lake.cairn.url.startswith("https://")
    lake.grant("etl", WRITER)
    c = TrinoCatalog(trino_server, lake, "etl")
    try:
        c.sql("CREATE SCHEMA sales")
        c.sql("CREATE TABLE sales.orders (id bigint, region varchar)")
        c.sql("INSERT INTO sales.orders VALUES (1, 'eu'), (2, 'us')")
        assert c.sql("SELECT id FROM sales.orders ORDER BY id") == [[1], [2]]
        # Cairn saw the table over HTTPS, created by Trino's principal; its files are in MinIO.
        table = lake.admin.ok("GET", f"metalakes/{lake.metalake}/catalogs/{lake.catalog}/"
                                     "schemas/sales/tables/orders")["table"]
        assert table["audit"]["creator"] == "etl"
        # requests under PyIceberg would take REQUESTS_CA_BUNDLE over the CA it is given.
        monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
        monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
        rows = lake.pyiceberg().load_table(("sales", "orders")).scan().to_arrow()
        assert sorted(rows.column("id").to_pylist()) == [1, 2]
        assert any(k.endswith(".parquet") for k in keys_under(s3, lake.prefix))
    finally:
        c.drop()
