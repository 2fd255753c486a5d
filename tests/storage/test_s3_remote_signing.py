"""Remote signing: the catalog signs a client's S3 requests instead of handing out keys.

What a signature opens is checked against MinIO itself; requests outside the table, to another
host, or beyond the caller's privileges are refused by Cairn and never signed. Spark writing and
reading through signed requests is in tests/engines/test_spark.py.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
import requests

from conftest import BUCKET, Client, Lake, keys_under, unique

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
SIGNING = {"X-Iceberg-Access-Delegation": "remote-signing"}


def make_table(admin: Client, lake: Lake, ns: str, table: str) -> dict:
    r = admin.rest("POST", lake.warehouse, "namespaces", {"namespace": [ns]})
    assert r.status_code in (200, 409), r.text
    body = {"name": table, "schema": {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "type": "long", "required": False}]}}
    r = admin.rest("POST", lake.warehouse, f"namespaces/{ns}/tables", body, headers=SIGNING)
    assert r.status_code == 200, r.text[:300]
    return r.json()


def sign(client: Client, lake: Lake, ns: str, table: str, method: str, uri: str,
         body: str | None = None) -> requests.Response:
    payload = {"region": "us-east-1", "method": method, "uri": uri,
               "headers": {"User-Agent": ["test"]}}
    if body is not None:
        payload["body"] = body
    return client.rest("POST", lake.warehouse, f"namespaces/{ns}/tables/{table}/sign", payload)


def object_url(endpoint: str, location: str) -> str:
    return f"{endpoint}/{location.removeprefix('s3://')}"


def test_load_tells_the_client_where_to_sign_and_hands_out_no_key(admin, lake):
    ns = unique("ns")
    created = make_table(admin, lake, ns, "t")
    config = created["config"]
    assert config["s3.remote-signing-enabled"] == "true"
    assert config["s3.signer"] == "S3V4RestSigner"
    assert config["s3.signer.endpoint"] == (
        f"v1/{lake.metalake}.{lake.catalog}/namespaces/{ns}/tables/t/sign")
    assert not any("secret" in k or "access-key" in k or "token" in k for k in config), config
    assert "storage-credentials" not in created
    # Asking for keys as well: keys win, and no signer is named.
    r = admin.rest("GET", lake.warehouse, f"namespaces/{ns}/tables/t",
                   headers={"X-Iceberg-Access-Delegation": "vended-credentials,remote-signing"})
    assert r.status_code == 200 and "s3.remote-signing-enabled" not in r.json()["config"]


def test_a_signed_request_works_and_only_for_what_was_signed(admin, lake, s3_endpoint):
    ns = unique("ns")
    created = make_table(admin, lake, ns, "t")
    metadata = created["metadata-location"]
    r = sign(admin, lake, ns, "t", "GET", object_url(s3_endpoint, metadata))
    assert r.status_code == 200, r.text
    assert r.headers.get("Cache-Control") == "no-cache"
    signed = r.json()
    headers = {k: ",".join(v) for k, v in signed["headers"].items()}
    got = requests.get(signed["uri"], headers=headers, timeout=30)
    assert got.status_code == 200 and got.json()["location"] == created["metadata"]["location"]
    # The same signature does not open another object.
    other = object_url(s3_endpoint, metadata).rsplit("/", 1)[0] + "/other.json"
    assert requests.get(other, headers=headers, timeout=30).status_code == 403


@pytest.mark.parametrize("case", ["sibling", "bucket-root", "no-prefix-list", "dot-dot",
                                  "short-prefix", "other-host"])
def test_requests_outside_the_table_are_not_signed(admin, lake, s3_endpoint, case):
    ns = unique("ns")
    created = make_table(admin, lake, ns, "t")
    loc = created["metadata"]["location"]  # s3://warehouse/<prefix>/<ns>/t
    base = object_url(s3_endpoint, loc)
    bucket_url = f"{s3_endpoint}/{BUCKET}"
    uri = {
        "sibling": base + "2/data/x.parquet",
        "bucket-root": f"{bucket_url}/x.parquet",
        "no-prefix-list": f"{bucket_url}?list-type=2",
        "dot-dot": base + "/data/../../other/x.parquet",
        "short-prefix": f"{bucket_url}?list-type=2&prefix=" + loc.removeprefix(f"s3://{BUCKET}/"),
        "other-host": "http://198.51.100.7:9000/" + loc.removeprefix("s3://") + "/data/x",
    }[case]
    r = sign(admin, lake, ns, "t", "GET", uri)
    assert r.status_code == 403, r.text
    assert r.json()["error"]["type"] == "ForbiddenException"
    assert "Authorization" not in r.text


def test_listing_and_deleting_inside_the_table_are_signed(admin, lake, s3_endpoint):
    ns = unique("ns")
    created = make_table(admin, lake, ns, "t")
    key = created["metadata"]["location"].removeprefix(f"s3://{BUCKET}/")
    r = sign(admin, lake, ns, "t", "GET", f"{s3_endpoint}/{BUCKET}?list-type=2&prefix={key}/")
    assert r.status_code == 200, r.text
    inside = f"<Delete><Object><Key>{key}/data/a.parquet</Key></Object></Delete>"
    outside = f"<Delete><Object><Key>{key}2/data/a.parquet</Key></Object></Delete>"
    assert sign(admin, lake, ns, "t", "POST", f"{s3_endpoint}/{BUCKET}?delete",
                inside).status_code == 200
    assert sign(admin, lake, ns, "t", "POST", f"{s3_endpoint}/{BUCKET}?delete",
                outside).status_code == 403


def test_readers_get_reads_signed_and_writes_refused(server, admin, lake, s3_endpoint):
    ns = unique("ns")
    created = make_table(admin, lake, ns, "t")
    reader, stranger = unique("reader"), unique("stranger")
    lake.grant(reader, ["SELECT_TABLE"], ns, "t")
    lake.grant(stranger, [], ns)
    obj = object_url(s3_endpoint, created["metadata"]["location"]) + "/data/x.parquet"
    as_reader, as_stranger = Client(server.url, reader), Client(server.url, stranger)
    assert sign(as_reader, lake, ns, "t", "GET", obj).status_code == 200
    for method in ("PUT", "DELETE", "POST"):
        r = sign(as_reader, lake, ns, "t", method, obj)
        assert r.status_code == 403, (method, r.text)
    assert sign(as_stranger, lake, ns, "t", "GET", obj).status_code == 403


@pytest.mark.parametrize("payload,field", [
    ({"region": "us-east-1", "uri": "http://x/y", "headers": {}}, "method"),
    ({"region": "us-east-1", "method": "GET", "headers": {}}, "uri"),
    ({"region": "us-east-1", "method": "GET", "uri": "http://x/y", "headers": []}, "headers"),
    ({"region": "us-east-1", "method": "GET", "uri": "http://x/y", "headers": {"a": "b"}},
     "headers.a"),
    ({"region": "us-east-1", "method": "OPTIONS", "uri": "http://x/y", "headers": {}}, "method"),
    ({"region": "us-east-1", "method": "GET", "uri": "ftp://x/y", "headers": {}}, "uri"),
])
def test_bad_sign_requests_are_400_naming_the_field(admin, lake, payload, field):
    ns = unique("ns")
    make_table(admin, lake, ns, "t")
    r = admin.rest("POST", lake.warehouse, f"namespaces/{ns}/tables/t/sign", payload)
    assert r.status_code == 400, r.text
    assert field in r.json()["error"]["message"]
