"""The warehouse-escape attacks on an S3 warehouse (MinIO), by a user who holds only
USE_CATALOG, USE_SCHEMA and CREATE_TABLE: names that are paths, locations outside the warehouse
or over another table, write paths that would widen vended credentials, and purges of what a
table does not own."""

from __future__ import annotations

import pyarrow as pa
import pytest

from conftest import BUCKET, Client, Lake, keys_under, unique

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "type": "long", "required": False}]}


@pytest.fixture
def setup(server, admin, s3_endpoint):
    lake = Lake(admin, s3_endpoint)
    r = admin.rest("POST", lake.warehouse, "namespaces", {"namespace": ["ns"]})
    assert r.status_code == 200, r.text
    # The admin's tables, with data.
    cat = lake.pyiceberg(server.url, "admin")
    for i in range(3):
        t = cat.create_table(("ns", f"admin_t{i}"), pa.schema([("id", pa.int64())]))
        t.append(pa.table({"id": pa.array([i], pa.int64())}))
    attacker = unique("mallory")
    lake.grant(attacker, ["CREATE_TABLE"], "ns")
    return lake, Client(server.url, attacker), cat


def _error(r, status):
    assert r.status_code == status, f"{r.status_code}: {r.text[:400]}"
    body = r.json()["error"]
    assert body["code"] == status
    return body["message"]


def test_path_names_are_refused_and_the_warehouse_is_untouched(setup, s3):
    lake, mallory, cat = setup
    before = sorted(keys_under(s3, lake.prefix + "/"))
    for name in ["..", "../../../../x", "a/b", ".", "x\x00", " ", "n" * 300]:
        r = mallory.rest("POST", lake.warehouse, "namespaces/ns/tables",
                         {"name": name, "schema": SCHEMA})
        assert "table name" in _error(r, 400)
    r = mallory.rest("DELETE", lake.warehouse, "namespaces/ns/tables/%2E%2E",
                     params={"purgeRequested": "true"})
    assert r.status_code in (403, 404), r.text
    assert sorted(keys_under(s3, lake.prefix + "/")) == before
    for i in range(3):
        assert cat.load_table(("ns", f"admin_t{i}")).scan().to_arrow()["id"].to_pylist() == [i]


def test_locations_that_escape_are_refused(setup, s3):
    lake, mallory, cat = setup
    victim = cat.load_table(("ns", "admin_t0")).location()
    cases = [
        f"s3://{BUCKET}/elsewhere/t",                  # outside the warehouse
        f"s3://{BUCKET}/{lake.prefix}/../elsewhere",   # a dot segment
        f"s3://{BUCKET}/{lake.prefix}",                # the warehouse itself
        f"s3://{BUCKET}/{lake.prefix}/ns",             # a namespace's directory
        victim,                                         # another table's location
        victim + "/data",
    ]
    for loc in cases:
        r = mallory.rest("POST", lake.warehouse, "namespaces/ns/tables",
                         {"name": unique("t"), "schema": SCHEMA, "location": loc})
        assert "location" in _error(r, 400), loc


def test_write_paths_cannot_widen_vended_credentials(setup, s3):
    lake, mallory, cat = setup
    victim = cat.load_table(("ns", "admin_t1")).location()
    for key in ["write.data.path", "write.metadata.path"]:
        r = mallory.rest("POST", lake.warehouse, "namespaces/ns/tables",
                         {"name": unique("t"), "schema": SCHEMA, "properties": {key: victim}},
                         headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
        assert key in _error(r, 400)


def test_purge_deletes_only_the_tables_own_objects(setup, s3):
    lake, mallory, cat = setup
    mine = cat.create_table(("ns", "purged"), pa.schema([("id", pa.int64())]))
    mine.append(pa.table({"id": pa.array([1, 2], pa.int64())}))
    mine.append(pa.table({"id": pa.array([3], pa.int64())}))
    prefix = mine.location().split(f"s3://{BUCKET}/", 1)[1] + "/"
    owned = keys_under(s3, prefix)
    assert any(k.endswith(".parquet") for k in owned)
    foreign = prefix + "data/not-iceberg.txt"
    s3.put_object(Bucket=BUCKET, Key=foreign, Body=b"keep")
    sibling = prefix.rstrip("/") + "-sibling/keep.txt"  # shares the prefix as text only
    s3.put_object(Bucket=BUCKET, Key=sibling, Body=b"keep")
    cat.purge_table(("ns", "purged"))
    assert keys_under(s3, prefix) == [foreign]
    assert s3.get_object(Bucket=BUCKET, Key=sibling)["Body"].read() == b"keep"
    for i in range(3):
        assert cat.load_table(("ns", f"admin_t{i}")).scan().to_arrow().num_rows == 1
