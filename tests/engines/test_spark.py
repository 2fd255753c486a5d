"""Spark 3.5 (pyspark, `local[1]`) with Iceberg's Spark runtime 1.10 against Cairn's Iceberg
REST catalog, as a Spark user would configure it (docs/engines.md): basic credentials of its own
principal, vended credentials for MinIO and no storage keys. One Spark session per run, a catalog
per test (Spark catalogs are set on the running session).
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

import pytest

from conftest import Lake, keys_under, unique
from test_trino import WRITER

ICEBERG = "1.10.0"
PACKAGES = ",".join([f"org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:{ICEBERG}",
                     f"org.apache.iceberg:iceberg-aws-bundle:{ICEBERG}"])


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", "python3")
    # Spark resolves the machine's own hostname at start unless told where it lives; a machine
    # whose hostname is in no resolver (a fresh container) would fail there.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("SPARK_LOCAL_HOSTNAME", "localhost")
    work = tmp_path_factory.mktemp("spark")
    session = (SparkSession.builder.master("local[1]").appName("cairn-engines")
               .config("spark.jars.packages", PACKAGES)
               .config("spark.sql.extensions",
                       "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.ui.enabled", "false")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.warehouse.dir", str(work / "spark-warehouse"))
               .getOrCreate())
    yield session
    session.stop()


def spark_catalog(spark, lake: Lake, user: str, delegation: str = "vended-credentials") -> str:
    """A Spark catalog over `lake` for `user` (docs/engines.md's settings)."""
    name = unique("cairn")
    conf = {
        "": "org.apache.iceberg.spark.SparkCatalog",
        "type": "rest",
        "uri": f"{lake.cairn.url}/iceberg",
        "warehouse": lake.warehouse,
        "header.X-Iceberg-Access-Delegation": delegation,
        "rest.auth.type": "basic",
        "rest.auth.basic.username": user,
        "rest.auth.basic.password": "x",
        "io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "s3.endpoint": lake.s3_endpoint,
        "s3.path-style-access": "true",
        "client.region": "us-east-1",
    }
    for key, value in conf.items():
        spark.conf.set(f"spark.sql.catalog.{name}" + (f".{key}" if key else ""), value)
    return name


def rows(spark, sql: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(sql).collect()]


def test_spark_writes_merges_and_maintains(spark, lake, s3):
    lake.grant("spark", WRITER)
    c = spark_catalog(spark, lake, "spark")
    spark.sql(f"CREATE NAMESPACE {c}.sales")
    spark.sql(f"CREATE TABLE {c}.sales.orders (id bigint, region string, amount double) "
              "USING iceberg PARTITIONED BY (region)")
    spark.sql(f"INSERT INTO {c}.sales.orders VALUES (1, 'eu', 10.0), (2, 'us', 20.0), "
              "(3, 'eu', 30.0)")
    spark.sql(f"INSERT INTO {c}.sales.orders VALUES (4, 'ap', 40.0)")
    spark.sql(f"MERGE INTO {c}.sales.orders t USING (SELECT 3 AS id, 'eu' AS region, "
              "33.0 AS amount UNION ALL SELECT 5, 'us', 50.0) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET amount = s.amount WHEN NOT MATCHED THEN INSERT *")
    spark.sql(f"UPDATE {c}.sales.orders SET amount = 11.0 WHERE id = 1")
    spark.sql(f"DELETE FROM {c}.sales.orders WHERE id = 2")
    expected = [(1, "eu", 11.0), (3, "eu", 33.0), (4, "ap", 40.0), (5, "us", 50.0)]
    assert rows(spark, f"SELECT * FROM {c}.sales.orders ORDER BY id") == expected

    # What Spark wrote, through Cairn to PyIceberg, and in MinIO.
    table = lake.pyiceberg().load_table("sales.orders")
    got = table.scan().to_arrow().sort_by("id").to_pylist()
    assert [(r["id"], r["region"], r["amount"]) for r in got] == expected
    files = [r[0] for r in rows(spark, f"SELECT file_path FROM {c}.sales.orders.files")]
    stored = set(keys_under(s3, lake.prefix))
    assert files and {f.removeprefix("s3://warehouse/") for f in files} <= stored

    # Views.
    spark.sql(f"CREATE VIEW {c}.sales.eu AS SELECT id, amount FROM {c}.sales.orders "
              "WHERE region = 'eu'")
    assert rows(spark, f"SELECT * FROM {c}.sales.eu ORDER BY id") == [(1, 11.0), (3, 33.0)]
    assert ("sales", "eu") in lake.pyiceberg().list_views("sales")

    # Maintenance procedures.
    snapshots = len(rows(spark, f"SELECT snapshot_id FROM {c}.sales.orders.snapshots"))
    rewritten = rows(spark, f"CALL {c}.system.rewrite_data_files(table => 'sales.orders', "
                            "options => map('rewrite-all', 'true'))")
    assert rewritten[0][0] > 0, rewritten  # rewritten data files
    # Procedure arguments are literals: "now" and "5 s from now" in the session's time zone.
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    stamp = lambda dt: dt.strftime("%Y-%m-%d %H:%M:%S")  # noqa: E731
    now = datetime.now(timezone.utc) + timedelta(seconds=1)
    expired = rows(spark, f"CALL {c}.system.expire_snapshots(table => 'sales.orders', "
                          f"older_than => TIMESTAMP '{stamp(now)}', retain_last => 1)")
    assert expired[0][3] > 0, expired  # deleted manifest lists
    assert len(rows(spark, f"SELECT snapshot_id FROM {c}.sales.orders.snapshots")) == 1
    assert snapshots > 1
    table_dir = lake.pyiceberg().load_table("sales.orders").location().removeprefix(
        "s3://warehouse/")
    orphan = f"{table_dir}/data/orphan-{unique('f')}.parquet"
    s3.put_object(Bucket="warehouse", Key=orphan, Body=b"referenced by nothing")
    assert orphan in set(keys_under(s3, lake.prefix))
    # The procedure takes no window under 24 hours, so the fresh orphan is inside it: listed
    # through the table's FileIO and its vended keys (prefix_listing: Spark has no Hadoop S3
    # file system here), kept, and nothing the table references goes.
    removed = rows(spark, f"CALL {c}.system.remove_orphan_files(table => 'sales.orders', "
                          f"older_than => TIMESTAMP '{stamp(now - timedelta(hours=25))}', "
                          "prefix_listing => true)")
    assert removed == [], removed
    assert orphan in set(keys_under(s3, lake.prefix))
    assert rows(spark, f"SELECT * FROM {c}.sales.orders ORDER BY id") == expected


def test_merge_on_read_deletes_planned_on_the_server(spark, lake):
    """Spark writes position delete files (merge-on-read); PyIceberg planning on the server gets
    each data file with the delete files that apply to it and reads what Spark reads."""
    lake.grant("spark", WRITER)
    c = spark_catalog(spark, lake, "spark")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {c}.mor")
    spark.sql(f"CREATE TABLE {c}.mor.items (id bigint, kind string) USING iceberg "
              "PARTITIONED BY (kind) TBLPROPERTIES ('format-version'='2', "
              "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read')")
    spark.sql(f"INSERT INTO {c}.mor.items SELECT id, IF(id % 2 = 0, 'even', 'odd') "
              "FROM range(0, 100)")
    spark.sql(f"DELETE FROM {c}.mor.items WHERE id % 10 = 3 OR id = 4")
    spark.sql(f"UPDATE {c}.mor.items SET id = id + 1000 WHERE id = 8")
    expected = rows(spark, f"SELECT id, kind FROM {c}.mor.items ORDER BY id")
    deletes = rows(spark, f"SELECT file_path FROM {c}.mor.items.delete_files")
    assert deletes, "Spark wrote no delete files"

    server = lake.pyiceberg(**{"scan-planning-mode": "server"}).load_table("mor.items")
    client = lake.pyiceberg().load_table("mor.items")
    tasks = list(server.scan().plan_files())
    assert any(t.delete_files for t in tasks)
    planned = {d.file_path for t in tasks for d in t.delete_files}
    assert planned == {d[0] for d in deletes}
    for scan_of in (lambda t: t.scan(), lambda t: t.scan(row_filter="kind = 'even'")):
        got = scan_of(server).to_arrow().sort_by("id").to_pylist()
        assert got == scan_of(client).to_arrow().sort_by("id").to_pylist()
    got = server.scan().to_arrow().sort_by("id").to_pylist()
    assert [(r["id"], r["kind"]) for r in got] == expected
    # The even partition's tasks carry only the even partition's delete files.
    for t in server.scan(row_filter="kind = 'even'").plan_files():
        assert all("kind=even" in d.file_path for d in t.delete_files), t.delete_files


def test_spark_writes_and_reads_through_remote_signing(spark, lake, s3):
    """Spark's S3FileIO with no keys at all: every storage request is signed by Cairn."""
    lake.grant("signer", WRITER)
    c = spark_catalog(spark, lake, "signer", delegation="remote-signing")
    spark.sql(f"CREATE NAMESPACE {c}.signed")
    spark.sql(f"CREATE TABLE {c}.signed.events (id bigint, kind string) USING iceberg")
    spark.sql(f"INSERT INTO {c}.signed.events VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {c}.signed.events VALUES (3, 'c')")
    spark.sql(f"DELETE FROM {c}.signed.events WHERE id = 2")
    assert rows(spark, f"SELECT * FROM {c}.signed.events ORDER BY id") == [(1, "a"), (3, "c")]
    files = [r[0] for r in rows(spark, f"SELECT file_path FROM {c}.signed.events.files")]
    stored = set(keys_under(s3, lake.prefix))
    assert files and {f.removeprefix("s3://warehouse/") for f in files} <= stored
    # The audit log names what was signed, for whom.
    audit = lake.cairn.audit_log.read_text()
    assert "signed PUT s3://warehouse/" in audit and "signer" in audit


def test_a_spark_compaction_job_through_the_jobs_api(spark, lake):
    """Compaction only an engine can do, as a Spark job template run by Cairn's local executor
    (spark-submit of the run's pyspark) through Gravitino's jobs API."""
    import sys
    import time
    from pathlib import Path

    lake.grant("compactor", WRITER)
    c = spark_catalog(spark, lake, "compactor")
    spark.sql(f"CREATE NAMESPACE {c}.logs")
    spark.sql(f"CREATE TABLE {c}.logs.events (id bigint, kind string) USING iceberg")
    for i in range(5):
        spark.sql(f"INSERT INTO {c}.logs.events VALUES ({i}, 'k{i % 2}')")
    before = lake.pyiceberg().load_table("logs.events")
    assert len(list(before.scan().plan_files())) == 5

    ml = lake.metalake
    script = Path(__file__).with_name("compact_job.py")
    lake.admin.ok("POST", f"metalakes/{ml}/jobs/templates", {"jobTemplate": {
        "jobType": "spark", "name": "compact", "comment": "rewrite_data_files",
        "executable": str(script),
        "arguments": ["--uri", "{{uri}}", "--warehouse", "{{warehouse}}", "--user", "{{user}}",
                      "--table", "{{table}}", "--s3-endpoint", "{{s3_endpoint}}"],
        "environments": {"PYSPARK_PYTHON": sys.executable,
                         "PYSPARK_DRIVER_PYTHON": sys.executable,
                         "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOCAL_HOSTNAME": "localhost"},
        "configs": {"spark.master": "local[1]", "spark.jars.packages": PACKAGES,
                    "spark.sql.extensions":
                        "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
                    "spark.ui.enabled": "false", "spark.driver.host": "127.0.0.1",
                    "spark.driver.bindAddress": "127.0.0.1"}}})
    job = lake.admin.ok("POST", f"metalakes/{ml}/jobs/runs", {
        "jobTemplateName": "compact",
        "jobConf": {"uri": f"{lake.cairn.url}/iceberg", "warehouse": lake.warehouse,
                    "user": "compactor", "table": "logs.events",
                    "s3_endpoint": lake.s3_endpoint}})["job"]
    deadline = time.time() + 600
    while True:
        got = lake.admin.ok("GET", f"metalakes/{ml}/jobs/runs/{job['jobId']}")["job"]
        if got["status"] in ("succeeded", "failed", "cancelled"):
            break
        assert time.time() < deadline, got
        time.sleep(1)
    staging = Path(got["cairn.stagingDir"])
    assert got["status"] == "succeeded", (got, (staging / "error.log").read_text()[-3000:])
    assert "rewritten data files: 5, added data files: 1" in (staging / "output.log").read_text()
    after = lake.pyiceberg().load_table("logs.events")
    assert len(list(after.scan().plan_files())) == 1
    assert sorted(after.scan().to_arrow()["id"].to_pylist()) == [0, 1, 2, 3, 4]
    assert after.current_snapshot().summary.operation.value == "replace"
