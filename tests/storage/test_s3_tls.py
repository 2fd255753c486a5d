"""Storage over TLS (docs/storage.md#tls-and-clear-text): a MinIO serving HTTPS with a
certificate from a CA made here. Cairn verifies it: refused against the system's CAs, served
with the catalog's `s3-tls-ca-file`, for its own writes and for the keys it vends over STS.
Storage keys never sign requests to a plain-HTTP endpoint on another machine unless
`s3-allow-insecure-credentials` says so."""

from __future__ import annotations

import pytest
from botocore.config import Config

from conftest import BUCKET, ROOT_KEYS, unique
from minio import MinioServer
from pki import Ca

SCHEMA = {"type": "struct", "schema-id": 0,
          "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}]}


@pytest.fixture(scope="module")
def tls_minio(tmp_path_factory):
    ca = Ca(tmp_path_factory.mktemp("s3-ca"), "s3-test-ca")
    cert, key, _ = ca.issue("127.0.0.1", server=True)
    srv = MinioServer(tmp_path_factory.mktemp("minio-tls"), tls=(cert, key, ca.pem)).start()
    yield srv
    srv.stop()


def catalog(admin, endpoint: str, **extra) -> tuple[str, str]:
    ml, cat, prefix = unique("ml"), unique("cat"), unique("wh")
    admin.ok("POST", "metalakes", {"name": ml, "properties": {}})
    admin.ok("POST", f"metalakes/{ml}/catalogs", {
        "name": cat, "type": "relational", "provider": "lakehouse-iceberg",
        "properties": {"catalog-backend": "managed", "warehouse": f"s3://{BUCKET}/{prefix}",
                       "s3-endpoint": endpoint, "s3-region": "us-east-1",
                       "s3-path-style-access": "true", **ROOT_KEYS, **extra}})
    return f"{ml}.{cat}", prefix


def error_of(r) -> dict:
    return r.json()["error"]


def test_an_https_store_is_verified_against_the_catalogs_ca(admin, tls_minio):
    import boto3

    assert tls_minio.endpoint.startswith("https://")
    # Without the CA: the certificate is not trusted; the table is not made.
    wh, _ = catalog(admin, tls_minio.endpoint)
    assert admin.rest("POST", wh, "namespaces", {"namespace": ["s"]}).status_code == 200
    r = admin.rest("POST", wh, "namespaces/s/tables", {"name": "t", "schema": SCHEMA})
    assert r.status_code == 503, r.text
    assert "certificate" in error_of(r)["message"].lower(), r.text
    assert admin.rest("GET", wh, "namespaces/s/tables/t").status_code == 404

    # With it: the table's metadata is written to the HTTPS store, and keys are vended over STS.
    wh, prefix = catalog(admin, tls_minio.endpoint, **{"s3-tls-ca-file": str(tls_minio.ca_file),
                                                       "credential-providers": "s3-token"})
    assert admin.rest("POST", wh, "namespaces", {"namespace": ["s"]}).status_code == 200
    r = admin.rest("POST", wh, "namespaces/s/tables", {"name": "t", "schema": SCHEMA},
                   headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
    assert r.status_code == 200, r.text
    config = r.json()["config"]
    assert config.get("s3.session-token"), config
    s3 = boto3.client("s3", endpoint_url=tls_minio.endpoint, verify=str(tls_minio.ca_file),
                      aws_access_key_id=config["s3.access-key-id"],
                      aws_secret_access_key=config["s3.secret-access-key"],
                      aws_session_token=config["s3.session-token"], region_name="us-east-1",
                      config=Config(s3={"addressing_style": "path"}))
    table_prefix = r.json()["metadata"]["location"].removeprefix(f"s3://{BUCKET}/") + "/"
    assert table_prefix.startswith(prefix)
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix=table_prefix)
            .get("Contents", [])]
    assert any(k.endswith(".metadata.json") for k in keys), keys


def test_storage_keys_never_sign_clear_text_to_another_machine(admin):
    # 192.0.2.10 is a documentation address: nothing is sent, the refusal comes first.
    wh, _ = catalog(admin, "http://192.0.2.10:9000")
    assert admin.rest("POST", wh, "namespaces", {"namespace": ["s"]}).status_code == 200
    r = admin.rest("POST", wh, "namespaces/s/tables", {"name": "t", "schema": SCHEMA})
    assert r.status_code == 400, r.text
    assert "s3-allow-insecure-credentials" in error_of(r)["message"], r.text
    assert admin.rest("GET", wh, "namespaces/s/tables/t").status_code == 404
