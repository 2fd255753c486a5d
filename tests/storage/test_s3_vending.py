"""Iceberg warehouses on S3 and the credentials Cairn vends for them.

PyIceberg is configured with the catalog URI and a user name only: every storage key it uses
comes from Cairn. What vended keys can and cannot do is checked against MinIO itself.
"""

from __future__ import annotations

import sqlite3
import time
import uuid

import pyarrow as pa
import pytest
import requests
from botocore.exceptions import ClientError

from conftest import BUCKET, Client, Lake, keys_under, s3_client, unique

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])


def rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": list(range(start, start + n)),
                     "name": [f"n{i}" for i in range(start, start + n)]}, schema=SCHEMA)


def vended(admin_or_user: Client, lake: Lake, ns: str, table: str) -> dict:
    r = admin_or_user.rest("GET", lake.warehouse, f"namespaces/{ns}/tables/{table}",
                           headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
    assert r.status_code == 200, r.text[:300]
    return r.json()


def client_from(config: dict, endpoint: str):
    return s3_client(endpoint, config["s3.access-key-id"], config["s3.secret-access-key"],
                     config["s3.session-token"])


def assert_denied(call):
    with pytest.raises(ClientError) as err:
        call()
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403, err.value.response
    assert err.value.response["Error"]["Code"] == "AccessDenied"


def test_pyiceberg_without_keys_creates_appends_and_scans(server, lake, s3):
    cat = lake.pyiceberg(server.url, "admin")
    cat.create_namespace("sales")
    table = cat.create_table("sales.orders", schema=SCHEMA)
    assert table.location() == f"{lake.warehouse_uri}/sales/orders"
    table.append(rows(5))
    table.append(rows(3, start=5))

    again = lake.pyiceberg(server.url, "admin").load_table("sales.orders")
    got = again.scan().to_arrow().sort_by("id")
    assert got.column("id").to_pylist() == list(range(8))
    assert got.column("name").to_pylist()[7] == "n7"
    assert len(again.snapshots()) == 2

    keys = keys_under(s3, f"{lake.prefix}/sales/orders/")
    assert any(k.endswith(".metadata.json") for k in keys), keys
    assert sum(k.endswith(".parquet") for k in keys) == 2, keys
    assert any(k.endswith(".avro") for k in keys), keys


def test_config_hands_out_the_endpoint_but_no_secret(admin, lake, s3_endpoint):
    r = admin.session.get(f"{admin.base}/iceberg/v1/config", params={"warehouse": lake.warehouse})
    assert r.status_code == 200
    defaults = r.json()["defaults"]
    assert defaults["s3.endpoint"] == s3_endpoint
    assert defaults["s3.path-style-access"] == "true"
    assert "password" not in r.text and "s3.secret-access-key" not in defaults
    # The catalog's own keys never come back through the Gravitino API either.
    cat = admin.ok("GET", f"metalakes/{lake.metalake}/catalogs/{lake.catalog}")["catalog"]
    assert "s3-secret-access-key" not in cat["properties"]
    assert "password" not in str(cat)


def test_load_without_delegation_carries_no_keys(admin, lake):
    admin.rest("POST", lake.warehouse, "namespaces", {"namespace": ["n"]})
    r = admin.rest("POST", lake.warehouse, "namespaces/n/tables",
                   {"name": "t", "schema": {"type": "struct", "fields": [
                       {"id": 1, "name": "a", "required": False, "type": "int"}]}})
    assert r.status_code == 200, r.text
    assert r.json()["config"] == {}
    loaded = admin.rest("GET", lake.warehouse, "namespaces/n/tables/t")
    assert loaded.status_code == 200
    assert loaded.json()["config"] == {}
    assert "storage-credentials" not in loaded.json()


def test_vended_keys_reach_only_their_table(server, admin, lake, s3, s3_endpoint):
    cat = lake.pyiceberg(server.url, "admin")
    cat.create_namespace("ns")
    a = cat.create_table("ns.a", schema=SCHEMA)
    b = cat.create_table("ns.b", schema=SCHEMA)
    a.append(rows(2))
    b.append(rows(2))

    body = vended(admin, lake, "ns", "a")
    config = body["config"]
    assert config["s3.endpoint"] == s3_endpoint
    assert int(config["s3.session-token-expires-at-ms"]) > time.time() * 1000 + 3000 * 1000
    creds = body["storage-credentials"]
    assert [c["prefix"] for c in creds] == [f"{lake.warehouse_uri}/ns/a"]
    assert creds[0]["config"]["s3.session-token"] == config["s3.session-token"]

    mine = client_from(config, s3_endpoint)
    a_key = next(k for k in keys_under(s3, f"{lake.prefix}/ns/a/") if k.endswith(".parquet"))
    b_key = next(k for k in keys_under(s3, f"{lake.prefix}/ns/b/") if k.endswith(".parquet"))
    assert mine.get_object(Bucket=BUCKET, Key=a_key)["ContentLength"] > 0
    listed = mine.list_objects_v2(Bucket=BUCKET, Prefix=f"{lake.prefix}/ns/a/")
    assert listed["KeyCount"] > 0
    mine.put_object(Bucket=BUCKET, Key=f"{lake.prefix}/ns/a/data/extra.bin", Body=b"x")

    # Table B's prefix, the warehouse root and the bucket root are all out of reach.
    assert_denied(lambda: mine.get_object(Bucket=BUCKET, Key=b_key))
    assert_denied(lambda: mine.put_object(Bucket=BUCKET, Key=f"{lake.prefix}/ns/b/data/x", Body=b"x"))
    assert_denied(lambda: mine.delete_object(Bucket=BUCKET, Key=b_key) and
                  mine.head_object(Bucket=BUCKET, Key=b_key))
    assert_denied(lambda: mine.list_objects_v2(Bucket=BUCKET, Prefix=f"{lake.prefix}/ns/b/"))
    assert_denied(lambda: mine.list_objects_v2(Bucket=BUCKET))
    assert s3.head_object(Bucket=BUCKET, Key=b_key)["ContentLength"] > 0  # B untouched


def test_credentials_endpoint_serves_refreshes(admin, server, lake):
    cat = lake.pyiceberg(server.url, "admin")
    cat.create_namespace("ns")
    cat.create_table("ns.t", schema=SCHEMA)
    r = admin.rest("GET", lake.warehouse, "namespaces/ns/tables/t/credentials")
    assert r.status_code == 200, r.text
    creds = r.json()["storage-credentials"]
    assert len(creds) == 1 and creds[0]["prefix"] == f"{lake.warehouse_uri}/ns/t"
    assert {"s3.access-key-id", "s3.secret-access-key", "s3.session-token"} <= set(creds[0]["config"])
    assert admin.rest("GET", lake.warehouse, "namespaces/ns/tables/missing/credentials").status_code == 404
    cfg = admin.session.get(f"{admin.base}/iceberg/v1/config", params={"warehouse": lake.warehouse})
    assert "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials" in cfg.json()["endpoints"]


def test_readers_get_read_only_keys(server, admin, lake, s3_endpoint):
    cat = lake.pyiceberg(server.url, "admin")
    cat.create_namespace("ns")
    cat.create_table("ns.t", schema=SCHEMA).append(rows(3))
    reader = unique("reader")
    lake.grant(reader, ["SELECT_TABLE"], "ns", "t")

    # The reader scans through PyIceberg with nothing but vended read-only keys...
    scanned = lake.pyiceberg(server.url, reader).load_table("ns.t").scan().to_arrow()
    assert scanned.num_rows == 3
    # ...and those keys cannot write, even inside the table's own prefix.
    config = vended(Client(server.url, reader), lake, "ns", "t")["config"]
    ro = client_from(config, s3_endpoint)
    key = f"{lake.prefix}/ns/t/data/intruder.parquet"
    assert_denied(lambda: ro.put_object(Bucket=BUCKET, Key=key, Body=b"x"))
    assert ro.list_objects_v2(Bucket=BUCKET, Prefix=f"{lake.prefix}/ns/t/")["KeyCount"] > 0
    # A writer of the same table gets keys that can write.
    writer = unique("writer")
    lake.grant(writer, ["MODIFY_TABLE"], "ns", "t")
    rw = client_from(vended(Client(server.url, writer), lake, "ns", "t")["config"], s3_endpoint)
    rw.put_object(Bucket=BUCKET, Key=f"{lake.prefix}/ns/t/data/ok.bin", Body=b"x")


def test_a_server_planned_scan_on_s3_with_read_only_keys(server, admin, lake, s3_endpoint):
    """A reader plans on the server and scans with vended keys only; the plan's own
    storage-credentials are the table's, read-only for a reader."""
    cat = lake.pyiceberg(server.url, "admin")
    cat.create_namespace("planned")
    table = cat.create_table("planned.t", schema=SCHEMA)
    table.append(rows(4))
    table.append(rows(4, start=4))
    reader = unique("reader")
    lake.grant(reader, ["SELECT_TABLE"], "planned", "t")
    mine = lake.pyiceberg(server.url, reader, **{"scan-planning-mode": "server"})
    got = mine.load_table("planned.t").scan(row_filter="id >= 3").to_arrow().sort_by("id")
    assert got.column("id").to_pylist() == list(range(3, 8))

    r = Client(server.url, reader).rest(
        "POST", lake.warehouse, "namespaces/planned/tables/t/plan", {"filter": True},
        headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
    assert r.status_code == 200, r.text[:300]
    plan = r.json()
    assert len(plan["file-scan-tasks"]) == 2
    creds = plan["storage-credentials"]
    assert [c["prefix"] for c in creds] == [table.location()]
    ro = client_from(creds[0]["config"], s3_endpoint)
    key = plan["file-scan-tasks"][0]["data-file"]["file-path"].removeprefix(f"s3://{BUCKET}/")
    assert ro.get_object(Bucket=BUCKET, Key=key)["ContentLength"] > 0
    assert_denied(lambda: ro.put_object(Bucket=BUCKET, Key=key + ".x", Body=b"x"))
    # Without the delegation header, no keys.
    r = Client(server.url, reader).rest("POST", lake.warehouse,
                                        "namespaces/planned/tables/t/plan", {})
    assert r.status_code == 200 and "storage-credentials" not in r.json()
    # A user who may not read the table gets no plan.
    stranger = unique("stranger")
    lake.grant(stranger, [], "planned")
    r = Client(server.url, stranger).rest("POST", lake.warehouse,
                                          "namespaces/planned/tables/t/plan", {})
    assert r.status_code == 403, r.text[:300]


def test_no_select_no_credentials_and_the_audit_says_so(server, admin, lake):
    cat = lake.pyiceberg(server.url, "admin")
    cat.create_namespace("ns")
    cat.create_table("ns.t", schema=SCHEMA)
    outsider = unique("outsider")
    lake.grant(outsider, [], "ns")  # may use the catalog and schema, no table privilege
    who = Client(server.url, outsider)
    r = who.rest("GET", lake.warehouse, "namespaces/ns/tables/t",
                 headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
    assert r.status_code == 403, r.text
    assert r.json()["error"]["type"] == "ForbiddenException"
    assert "s3.session-token" not in r.text
    r = who.rest("GET", lake.warehouse, "namespaces/ns/tables/t/credentials")
    assert r.status_code == 403
    r = who.api("GET", f"metalakes/{lake.metalake}/objects/table/{lake.catalog}.ns.t/credentials")
    assert r.status_code == 403
    assert r.json()["code"] == 1008 and r.json()["type"] == "ForbiddenException"

    time.sleep(1.2)  # records reach the log within a second
    audit = admin.api("GET", "audit", params={"principal": outsider})
    assert audit.status_code == 200, audit.text
    records = audit.json()["records"] if "records" in audit.json() else audit.json()
    refused = [x for x in records if x.get("detail") == "storage credentials refused"]
    assert len(refused) == 3, records
    assert all(x["outcome"] == "denied" and x["status"] == 403 for x in refused)

    # A vend that happened is recorded with what was handed out.
    vended(admin, lake, "ns", "t")
    time.sleep(1.2)
    mine = admin.api("GET", "audit", params={"principal": "admin", "object": f"{lake.metalake}"})
    records = mine.json()["records"] if "records" in mine.json() else mine.json()
    details = [x.get("detail", "") for x in records]
    assert any(d.startswith("vended s3-token read-write credentials for "
                            f"{lake.warehouse_uri}/ns/t") for d in details), details


def test_gravitino_credentials_endpoint(server, admin, lake, s3_endpoint):
    cat = lake.pyiceberg(server.url, "admin")
    cat.create_namespace("ns")
    cat.create_table("ns.t", schema=SCHEMA).append(rows(1))
    out = admin.ok("GET", f"metalakes/{lake.metalake}/objects/table/{lake.catalog}.ns.t/credentials")
    assert out["code"] == 0
    [cred] = out["credentials"]
    assert cred["credentialType"] == "s3-token"
    assert cred["expireTimeInMs"] > time.time() * 1000
    info = cred["credentialInfo"]
    assert set(info) == {"s3-access-key-id", "s3-secret-access-key", "s3-session-token"}
    c = s3_client(s3_endpoint, info["s3-access-key-id"], info["s3-secret-access-key"],
                  info["s3-session-token"])
    assert c.list_objects_v2(Bucket=BUCKET, Prefix=f"{lake.prefix}/ns/t/")["KeyCount"] > 0
    assert_denied(lambda: c.list_objects_v2(Bucket=BUCKET, Prefix=f"{lake.prefix}/ns/"))

    # Catalog-level keys reach the whole warehouse, and only it.
    out = admin.ok("GET", f"metalakes/{lake.metalake}/objects/catalog/{lake.catalog}/credentials")
    info = out["credentials"][0]["credentialInfo"]
    c = s3_client(s3_endpoint, info["s3-access-key-id"], info["s3-secret-access-key"],
                  info["s3-session-token"])
    assert c.list_objects_v2(Bucket=BUCKET, Prefix=f"{lake.prefix}/")["KeyCount"] > 0
    assert_denied(lambda: c.list_objects_v2(Bucket=BUCKET, Prefix="other/"))

    bad = admin.api("GET", f"metalakes/{lake.metalake}/objects/schema/{lake.catalog}.ns/credentials")
    assert bad.status_code == 400 and "schema" in bad.json()["message"]
    missing = admin.api("GET", f"metalakes/{lake.metalake}/objects/table/{lake.catalog}.ns.nope/credentials")
    assert missing.status_code == 404


def test_static_keys_provider(admin, s3_endpoint, server):
    lake = Lake(admin, s3_endpoint, {"credential-providers": "s3-secret-key"})
    admin.rest("POST", lake.warehouse, "namespaces", {"namespace": ["n"]})
    r = admin.rest("POST", lake.warehouse, "namespaces/n/tables",
                   {"name": "t", "schema": {"type": "struct", "fields": [
                       {"id": 1, "name": "a", "required": False, "type": "int"}]}},
                   headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
    assert r.status_code == 200, r.text
    assert r.json()["config"]["s3.access-key-id"] == "admin"
    assert "s3.session-token" not in r.json()["config"]
    out = admin.ok("GET", f"metalakes/{lake.metalake}/objects/catalog/{lake.catalog}/credentials")
    assert out["credentials"][0] == {"credentialType": "s3-secret-key", "expireTimeInMs": 0,
                                     "credentialInfo": {"s3-access-key-id": "admin",
                                                        "s3-secret-access-key": "password"}}


@pytest.mark.parametrize("props, field", [
    ({"credential-providers": "s3-token,gcs-token"}, "credential-providers"),
    ({"s3-token-expire-in-secs": "10"}, "s3-token-expire-in-secs"),
    ({"s3-access-key-id": ""}, "s3-access-key-id"),
    ({"warehouse": "s3:///no-bucket"}, "warehouse"),
    ({"warehouse": "gs://bucket/wh"}, "warehouse"),
])
def test_bad_storage_properties_are_400_naming_the_field(admin, s3_endpoint, props, field):
    ml = unique("ml")
    admin.ok("POST", "metalakes", {"name": ml, "properties": {}})
    base = {"catalog-backend": "managed", "warehouse": f"s3://{BUCKET}/{unique('wh')}",
            "s3-endpoint": s3_endpoint, "credential-providers": "s3-token",
            "s3-access-key-id": "admin", "s3-secret-access-key": "password"}
    r = admin.api("POST", f"metalakes/{ml}/catalogs",
                  {"name": "c", "type": "relational", "provider": "lakehouse-iceberg",
                   "properties": {**base, **props}})
    assert r.status_code == 400, r.text
    assert field in r.json()["message"]
    assert admin.api("GET", f"metalakes/{ml}/catalogs/c").status_code == 404


def test_test_connection_reaches_storage(admin, s3_endpoint):
    ml = unique("ml")
    admin.ok("POST", "metalakes", {"name": ml, "properties": {}})
    body = {"name": "c", "type": "relational", "provider": "lakehouse-iceberg",
            "properties": {"warehouse": f"s3://{BUCKET}/{unique('wh')}", "s3-endpoint": s3_endpoint,
                           "s3-access-key-id": "admin", "s3-secret-access-key": "password"}}
    ok = admin.api("POST", f"metalakes/{ml}/catalogs/testConnection", body)
    assert ok.status_code == 200 and ok.json()["code"] == 0, ok.text
    body["properties"]["s3-secret-access-key"] = "wrong"
    bad = admin.api("POST", f"metalakes/{ml}/catalogs/testConnection", body)
    assert bad.json()["code"] != 0, bad.text
    assert "SignatureDoesNotMatch" in bad.json()["message"]


def test_purge_deletes_the_objects(server, admin, lake, s3):
    cat = lake.pyiceberg(server.url, "admin")
    cat.create_namespace("ns")
    t = cat.create_table("ns.gone", schema=SCHEMA)
    t.append(rows(2))
    keep = cat.create_table("ns.kept", schema=SCHEMA)
    keep.append(rows(1))
    assert keys_under(s3, f"{lake.prefix}/ns/gone/")
    r = admin.rest("DELETE", lake.warehouse, "namespaces/ns/tables/gone",
                   params={"purgeRequested": "true"})
    assert r.status_code == 204, r.text
    assert keys_under(s3, f"{lake.prefix}/ns/gone/") == []
    assert keys_under(s3, f"{lake.prefix}/ns/kept/")


def test_concurrent_appends_on_s3_all_land(server, lake):
    """Appends racing on one table: the server re-applies them on the new head, reading the
    manifest lists back from S3, so every acknowledged append is in the snapshot log."""
    import threading

    cat = lake.pyiceberg(server.url, "admin")
    cat.create_namespace("ns")
    cat.create_table("ns.hot", schema=SCHEMA)
    errors: list[BaseException] = []

    def writer(w: int):
        try:
            t = lake.pyiceberg(server.url, "admin").load_table("ns.hot")
            for i in range(4):
                t.append(rows(1, start=w * 100 + i))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    table = cat.load_table("ns.hot")
    assert len(table.snapshots()) == 12
    ids = sorted(table.scan().to_arrow().column("id").to_pylist())
    assert ids == sorted(w * 100 + i for w in range(3) for i in range(4))


def test_an_idempotent_retry_gets_fresh_keys_and_the_store_keeps_none(server, admin, lake,
                                                                      s3_endpoint):
    """A create with vended keys retried with its Idempotency-Key: the retry is the same table,
    loaded again with keys of its own, and no key was written to the metadata store."""
    ns = unique("ns")
    assert admin.rest("POST", lake.warehouse, "namespaces", {"namespace": [ns]}).status_code == 200
    body = {"name": "t", "schema": {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "type": "long", "required": False}]}}
    headers = {"X-Iceberg-Access-Delegation": "vended-credentials",
               "Idempotency-Key": "018f2e7a-1111-7000-8000-" + uuid.uuid4().hex[:12]}
    first = admin.rest("POST", lake.warehouse, f"namespaces/{ns}/tables", body, headers=headers)
    assert first.status_code == 200, first.text[:300]
    secret = first.json()["config"]["s3.secret-access-key"]
    again = admin.rest("POST", lake.warehouse, f"namespaces/{ns}/tables", body, headers=headers)
    assert again.status_code == 200, again.text[:300]
    assert again.json()["metadata-location"] == first.json()["metadata-location"]
    config = again.json()["config"]
    client_from(config, s3_endpoint).list_objects_v2(
        Bucket=BUCKET, Prefix=first.json()["metadata"]["location"].split(f"{BUCKET}/", 1)[1])
    if server.store == "sqlite":
        db = sqlite3.connect(server.data_dir / "cairn.db")
        try:
            stored = db.execute("SELECT headers || body FROM idempotency_keys").fetchall()
        finally:
            db.close()
        assert stored and not any(secret in row[0] for row in stored)


def test_storage_calls_are_in_the_metrics(server, admin, lake):
    """Object storage requests the server makes are counted and timed by method."""
    from prometheus_client.parser import text_string_to_metric_families

    def samples() -> dict:
        text = requests.get(f"{server.url}/metrics", timeout=30).text
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for f in text_string_to_metric_families(text) for s in f.samples}

    before = samples()
    ns = unique("ns")
    assert admin.rest("POST", lake.warehouse, "namespaces", {"namespace": [ns]}).status_code == 200
    body = {"name": "t", "schema": {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "type": "long", "required": False}]}}
    assert admin.rest("POST", lake.warehouse, f"namespaces/{ns}/tables", body).status_code == 200
    after = samples()
    put = (("method", "PUT"), ("outcome", "ok"))
    assert after[("cairn_storage_requests_total", put)] > before.get(
        ("cairn_storage_requests_total", put), 0)  # the table's first metadata file
    count = after[("cairn_storage_request_duration_seconds_count", (("method", "PUT"),))]
    ok = after[("cairn_storage_requests_total", put)]
    failed = after[("cairn_storage_requests_total", (("method", "PUT"), ("outcome", "failed")))]
    assert count == ok + failed


def test_a_staged_create_with_keys_retried_with_its_key_is_answered_again(admin, lake):
    """A staged table exists only once its transaction commits, so its answer (which carried
    keys) cannot be replayed as a load: the retry is staged again, with keys of its own."""
    ns = unique("ns")
    assert admin.rest("POST", lake.warehouse, "namespaces", {"namespace": [ns]}).status_code == 200
    body = {"name": "staged", "stage-create": True, "schema": {
        "type": "struct", "schema-id": 0,
        "fields": [{"id": 1, "name": "id", "type": "long", "required": False}]}}
    headers = {"X-Iceberg-Access-Delegation": "vended-credentials",
               "Idempotency-Key": "018f2e7a-2222-7000-8000-" + uuid.uuid4().hex[:12]}
    for _ in range(2):
        r = admin.rest("POST", lake.warehouse, f"namespaces/{ns}/tables", body, headers=headers)
        assert r.status_code == 200, r.text[:300]
        assert r.json()["config"]["s3.secret-access-key"]
    assert admin.rest("GET", lake.warehouse, f"namespaces/{ns}/tables/staged").status_code == 404
