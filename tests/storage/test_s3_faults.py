"""Object storage going away mid-test: clear 503s in each protocol's format, quickly, nothing in
the store pointing at a file that was never written, and service back when storage returns.
Uses a MinIO of its own (the shared one keeps serving the other tests)."""

from __future__ import annotations

import time

import pytest

from conftest import BUCKET, Lake, unique
from minio import MinioServer

SCHEMA_JSON = {"type": "struct", "fields": [
    {"id": 1, "name": "a", "required": False, "type": "int"}]}
BOUND_S = 10  # no request may take longer than this while storage is down


@pytest.fixture
def own_minio(tmp_path):
    server = MinioServer(tmp_path / "minio").start()
    yield server
    server.stop()


def timed(call):
    start = time.monotonic()
    r = call()
    elapsed = time.monotonic() - start
    assert elapsed < BOUND_S, f"took {elapsed:.1f}s"
    return r


def test_storage_down_gives_503s_and_recovers(server, admin, own_minio):
    lake = Lake(admin, own_minio.endpoint)
    wh = lake.warehouse
    assert admin.rest("POST", wh, "namespaces", {"namespace": ["ns"]}).status_code == 200
    r = admin.rest("POST", wh, "namespaces/ns/tables", {"name": "t1", "schema": SCHEMA_JSON})
    assert r.status_code == 200, r.text
    before = admin.rest("GET", wh, "namespaces/ns/tables/t1").json()["metadata-location"]

    own_minio.stop()

    r = timed(lambda: admin.rest("GET", wh, "namespaces/ns/tables/t1"))
    assert r.status_code == 503, r.text
    err = r.json()["error"]
    assert err["type"] == "ServiceUnavailableException" and err["code"] == 503
    assert own_minio.endpoint in err["message"]

    r = timed(lambda: admin.rest("POST", wh, "namespaces/ns/tables",
                                 {"name": "t2", "schema": SCHEMA_JSON}))
    assert r.status_code == 503, r.text

    r = timed(lambda: admin.rest("POST", wh, "namespaces/ns/tables/t1", {
        "requirements": [], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]}))
    assert r.status_code == 503, r.text

    r = timed(lambda: admin.api("GET", f"metalakes/{lake.metalake}/catalogs/{lake.catalog}"
                                       "/schemas/ns/tables/t1"))
    assert r.status_code == 503, r.text
    assert r.json()["code"] != 0 and own_minio.endpoint in r.json()["message"]

    # Listing needs only the store: it keeps working.
    listed = timed(lambda: admin.rest("GET", wh, "namespaces/ns/tables"))
    assert listed.status_code == 200
    assert [i["name"] for i in listed.json()["identifiers"]] == ["t1"]

    own_minio.start()

    # The failed create left nothing behind; the failed commit did not move the pointer.
    assert admin.rest("GET", wh, "namespaces/ns/tables/t2").status_code == 404
    loaded = admin.rest("GET", wh, "namespaces/ns/tables/t1")
    assert loaded.status_code == 200, loaded.text
    assert loaded.json()["metadata-location"] == before
    assert "k" not in loaded.json()["metadata"].get("properties", {})

    # Service resumes: the same writes now succeed.
    r = admin.rest("POST", wh, "namespaces/ns/tables", {"name": "t2", "schema": SCHEMA_JSON})
    assert r.status_code == 200, r.text
    r = admin.rest("POST", wh, "namespaces/ns/tables/t1", {
        "requirements": [], "updates": [{"action": "set-properties", "updates": {"k": "v"}}]})
    assert r.status_code == 200, r.text
    for name in ("t1", "t2"):
        assert admin.rest("GET", wh, f"namespaces/ns/tables/{name}").status_code == 200


def test_unreachable_endpoint_at_create_is_a_clear_error(admin):
    ml = unique("ml")
    admin.ok("POST", "metalakes", {"name": ml, "properties": {}})
    body = {"name": "c", "type": "relational", "provider": "lakehouse-iceberg",
            "properties": {"warehouse": f"s3://{BUCKET}/wh", "s3-endpoint": "http://127.0.0.1:1",
                           "s3-access-key-id": "admin", "s3-secret-access-key": "password"}}
    r = timed(lambda: admin.api("POST", f"metalakes/{ml}/catalogs/testConnection", body))
    assert r.status_code == 502 and r.json()["code"] == 1007, r.text
    assert r.json()["type"] == "ConnectionFailedException"
    assert "127.0.0.1:1" in r.json()["message"]
