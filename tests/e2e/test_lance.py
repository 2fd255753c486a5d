"""The Lance REST service at /lance/{metalake}, driven by pylance and the lance-namespace client:
namespaces are lakehouse-generic catalogs and their schemas; pylance writes and reads datasets
through the namespace at the locations the server answers; the Gravitino API sees the same
tables; errors come in Lance's ErrorResponse (docs/lance.md)."""

from __future__ import annotations

import os
import time
import uuid

import lance
import lance_namespace
import pyarrow as pa
import pytest
import requests
from lance_namespace import (CreateNamespaceRequest, DescribeTableRequest, DropTableRequest,
                             ListNamespacesRequest, ListTablesRequest)


@pytest.fixture
def ns(base_url, metalake_name):
    return lance_namespace.connect("rest", {"uri": f"{base_url}/lance/{metalake_name}"})


def test_dataset_round_trip_through_the_namespace(ns, base_url, metalake_name, tmp_path, api):
    root = tmp_path / "lance"
    ns.create_namespace(CreateNamespaceRequest(id=["lc"], properties={"location": str(root)}))
    ns.create_namespace(CreateNamespaceRequest(id=["lc", "docs"]))
    assert "lc" in ns.list_namespaces(ListNamespacesRequest(id=[])).namespaces
    assert ns.list_namespaces(ListNamespacesRequest(id=["lc"])).namespaces == ["docs"]

    rows = pa.table({"id": [1, 2, 3], "text": ["a", "b", "c"]})
    ds = lance.write_dataset(rows, namespace_client=ns, table_id=["lc", "docs", "t"], mode="create")
    assert ds.count_rows() == 3
    assert (root / "docs" / "t" / "_versions").is_dir()
    lance.write_dataset(rows, namespace_client=ns, table_id=["lc", "docs", "t"], mode="append")
    back = lance.dataset(namespace_client=ns, table_id=["lc", "docs", "t"])
    assert back.to_table().column("id").to_pylist() == [1, 2, 3, 1, 2, 3]

    assert ns.list_tables(ListTablesRequest(id=["lc", "docs"])).tables == ["t"]
    described = ns.describe_table(DescribeTableRequest(id=["lc", "docs", "t"]))
    assert described.location == f"file://{root}/docs/t"
    assert described.properties["format"] == "lance"

    # The same table through the Gravitino API.
    r = api.get(f"metalakes/{metalake_name}/catalogs/lc/schemas/docs/tables/t")
    assert r.status_code == 200, r.text
    assert r.json()["table"]["properties"]["format"] == "lance"

    dropped = ns.drop_table(DropTableRequest(id=["lc", "docs", "t"]))
    assert dropped.location == f"file://{root}/docs/t"
    assert not (root / "docs" / "t").exists()
    assert api.get(f"metalakes/{metalake_name}/catalogs/lc/schemas/docs/tables/t").status_code == 404


def test_errors_are_lance_error_responses(ns, base_url, metalake_name, tmp_path):
    base = f"{base_url}/lance/{metalake_name}/v1"
    ns.create_namespace(CreateNamespaceRequest(id=["le"], properties={"location": str(tmp_path)}))
    r = requests.post(f"{base}/namespace/le/create", json={"id": ["le"]})
    assert r.status_code == 409 and r.json()["code"] == 2, r.text
    r = requests.post(f"{base}/table/le%24nope%24t/describe", json={})
    assert r.status_code == 404 and r.json()["code"] == 1, r.text
    requests.post(f"{base}/namespace/le%24s/create", json={}).raise_for_status()
    r = requests.post(f"{base}/table/le%24s%24missing/describe", json={})
    assert r.status_code == 404 and r.json()["code"] == 4, r.text
    r = requests.post(f"{base}/table/le%24s%24t/declare", json={"id": ["le", "s", "other"]})
    assert r.status_code == 400 and r.json()["code"] == 13 and "id" in r.json()["error"], r.text
    r = requests.post(f"{base}/table/le%24s%24..%2Fx/declare", json={})
    assert r.status_code == 400 and r.json()["code"] == 13, r.text
    r = requests.post(f"{base}/table/le%24s%24t/create", data=b"\x00",
                      headers={"Content-Type": "application/vnd.apache.arrow.stream"})
    assert r.status_code == 406 and r.json()["code"] == 0, r.text
    r = requests.post(f"{base}/table/le%24s%24t/declare", json={})
    assert r.status_code == 200, r.text
    r = requests.post(f"{base}/namespace/le%24s/drop", json={})
    assert r.status_code == 409 and r.json()["code"] == 3, r.text
    r = requests.post(f"{base}/table/le%24s%24t/exists", json={})
    assert r.status_code == 200
    for name in ("b", "c", "d"):
        requests.post(f"{base}/table/le%24s%24{name}/declare", json={}).raise_for_status()
    page = requests.get(f"{base}/namespace/le%24s/table/list", params={"limit": 2}).json()
    assert page["tables"] == ["b", "c"]
    rest = requests.get(f"{base}/namespace/le%24s/table/list",
                        params={"limit": 2, "page_token": page["page_token"]}).json()
    assert rest["tables"] == ["d", "t"] and "page_token" not in rest


S3_ENDPOINT = os.environ.get("CAIRN_TEST_S3_ENDPOINT")


@pytest.mark.skipif(not S3_ENDPOINT, reason="needs the run's MinIO (CAIRN_TEST_S3_ENDPOINT)")
def test_datasets_on_minio_with_vended_keys_scoped_to_each_table(ns, base_url, metalake_name):
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ClientError

    prefix = f"lance-{uuid.uuid4().hex[:10]}"
    ns.create_namespace(CreateNamespaceRequest(id=["ls3"], properties={
        "location": f"s3://warehouse/{prefix}",
        "s3-endpoint": S3_ENDPOINT, "s3-region": "us-east-1", "s3-path-style-access": "true",
        "s3-access-key-id": "admin", "s3-secret-access-key": "password",
        "credential-providers": "s3-token"}))
    ns.create_namespace(CreateNamespaceRequest(id=["ls3", "docs"]))

    rows = pa.table({"id": [1, 2], "text": ["x", "y"]})
    for name in ("a", "b"):
        lance.write_dataset(rows, namespace_client=ns, table_id=["ls3", "docs", name], mode="create")
    lance.write_dataset(rows, namespace_client=ns, table_id=["ls3", "docs", "a"], mode="append")
    assert lance.dataset(namespace_client=ns, table_id=["ls3", "docs", "a"]).count_rows() == 4

    root = boto3.client("s3", endpoint_url=S3_ENDPOINT, region_name="us-east-1",
                        aws_access_key_id="admin", aws_secret_access_key="password",
                        config=Config(s3={"addressing_style": "path"}))
    listed = root.list_objects_v2(Bucket="warehouse", Prefix=f"{prefix}/docs/a/_versions/")
    assert listed.get("KeyCount", 0) >= 2, listed

    # The keys the server hands out for `a` are MinIO session keys good for `a` alone.
    described = ns.describe_table(DescribeTableRequest(id=["ls3", "docs", "a"]))
    opts = described.storage_options
    assert opts["aws_session_token"] and opts["aws_access_key_id"] != "admin", opts
    assert int(opts["expires_at_millis"]) > time.time() * 1000
    scoped = boto3.client("s3", endpoint_url=S3_ENDPOINT, region_name="us-east-1",
                          aws_access_key_id=opts["aws_access_key_id"],
                          aws_secret_access_key=opts["aws_secret_access_key"],
                          aws_session_token=opts["aws_session_token"],
                          config=Config(s3={"addressing_style": "path"}))
    mine = scoped.list_objects_v2(Bucket="warehouse", Prefix=f"{prefix}/docs/a/")
    assert mine.get("KeyCount", 0) > 0
    key_b = root.list_objects_v2(Bucket="warehouse",
                                 Prefix=f"{prefix}/docs/b/_versions/")["Contents"][0]["Key"]
    for attempt in (lambda: scoped.get_object(Bucket="warehouse", Key=key_b),
                    lambda: scoped.list_objects_v2(Bucket="warehouse", Prefix=f"{prefix}/docs/b/"),
                    lambda: scoped.put_object(Bucket="warehouse", Key=f"{prefix}/docs/b/x",
                                              Body=b"x")):
        with pytest.raises(ClientError) as denied:
            attempt()
        assert denied.value.response["Error"]["Code"] == "AccessDenied"

    # Dropping the managed table deletes its objects; the other table's stay.
    ns.drop_table(DropTableRequest(id=["ls3", "docs", "a"]))
    assert root.list_objects_v2(Bucket="warehouse", Prefix=f"{prefix}/docs/a/").get("KeyCount") == 0
    assert root.list_objects_v2(Bucket="warehouse", Prefix=f"{prefix}/docs/b/").get("KeyCount") > 0
