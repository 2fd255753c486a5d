"""Table maintenance on S3 (docs/maintenance.md): the built-in jobs on a warehouse in the run's
MinIO, checked against what is really in the bucket. The local-disk cases are in
tests/e2e/test_maintenance.py.
"""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from conftest import BUCKET, keys_under, unique

SCHEMA = pa.schema([pa.field("id", pa.int64())])


def key_of(location: str) -> str:
    assert location.startswith(f"s3://{BUCKET}/"), location
    return location.removeprefix(f"s3://{BUCKET}/")


def run(admin, lake, template: str, conf: dict) -> dict:
    job = admin.ok("POST", f"metalakes/{lake.metalake}/jobs/runs",
                   {"jobTemplateName": template,
                    "jobConf": {"catalog": lake.catalog, **conf}})["job"]
    deadline = time.time() + 60
    while True:
        got = admin.ok("GET", f"metalakes/{lake.metalake}/jobs/runs/{job['jobId']}")["job"]
        if got["status"] in ("succeeded", "failed", "cancelled"):
            assert got["status"] == "succeeded", got
            return got["cairn.result"]
        assert time.time() < deadline, got
        time.sleep(0.1)


@pytest.fixture
def table(server, admin, lake):
    ice = lake.pyiceberg(server.url, "admin")
    ns = unique("ns")
    ice.create_namespace(ns)
    t = ice.create_table(f"{ns}.t", schema=SCHEMA)
    for i in range(3):
        t.append(pa.table({"id": [i]}, schema=SCHEMA))
    t.overwrite(pa.table({"id": [10, 11]}, schema=SCHEMA))
    t.append(pa.table({"id": [12]}, schema=SCHEMA))
    return ice, ns, ice.load_table(f"{ns}.t")


def test_expiry_deletes_the_expired_files_from_the_bucket(s3, admin, lake, table):
    ice, ns, t = table
    prefix = key_of(t.location()) + "/"
    before = set(keys_under(s3, prefix))
    snapshots = [s.snapshot_id for s in t.snapshots()]
    result = run(admin, lake, "builtin-iceberg-expire-snapshots",
                 {"schema": ns, "table": "t", "retain_last": "1",
                  "older_than": str(int(time.time() * 1000) + 1000)})
    assert result["expiredSnapshots"] == sorted(snapshots[:-1])
    after = set(keys_under(s3, prefix))
    assert {key_of(d) for d in result["deleted"]} == before - after
    assert result["dataFiles"] >= 3 and result["manifestLists"] == len(snapshots) - 1
    t = ice.load_table(f"{ns}.t")
    assert [s.snapshot_id for s in t.snapshots()] == [snapshots[-1]]
    assert sorted(t.scan().to_arrow()["id"].to_pylist()) == [10, 11, 12]
    assert key_of(t.current_snapshot().manifest_list) in after
    for task in t.scan().plan_files():
        assert key_of(task.file.file_path) in after


def test_orphans_in_the_bucket_go_only_past_the_window(s3, admin, lake, table):
    ice, ns, t = table
    prefix = key_of(t.location())
    orphan = f"{prefix}/data/abandoned-{unique('f')}.parquet"
    s3.put_object(Bucket=BUCKET, Key=orphan, Body=b"x" * 64)
    outside = f"{key_of(lake.warehouse_uri)}/not-a-table/{unique('f')}.parquet"
    s3.put_object(Bucket=BUCKET, Key=outside, Body=b"y")
    referenced = set(keys_under(s3, prefix + "/")) - {orphan}

    # A window reaching back before the file was written keeps it.
    kept = run(admin, lake, "builtin-iceberg-remove-orphan-files",
               {"schema": ns, "table": "t", "allow_short_window": "true",
                "older_than": str(int(time.time() * 1000) - 3_600_000)})
    assert kept["files"] == 0 and orphan in keys_under(s3, prefix + "/")
    # Once the file is older than the window, it goes, and nothing referenced does.
    removed = run(admin, lake, "builtin-iceberg-remove-orphan-files",
                  {"schema": ns, "table": "t", "allow_short_window": "true",
                   "older_than": str(int(time.time() * 1000) + 60_000)})
    assert [key_of(d) for d in removed["deleted"]] == [orphan]
    assert removed["bytes"] == 64 and removed["scannedFiles"] == len(referenced) + 1
    assert set(keys_under(s3, prefix + "/")) == referenced
    assert keys_under(s3, outside) == [outside]  # outside the table: never looked at
    assert sorted(ice.load_table(f"{ns}.t").scan().to_arrow()["id"].to_pylist()) == [10, 11, 12]
