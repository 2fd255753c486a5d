"""Model version URIs on MinIO, and the keys Cairn vends for them: a model catalog with a
credential provider answers `/objects/model/c.s.m/credentials` with keys scoped to the URIs of
the model's versions (read-write for who may link versions, read-only for readers, none for
outsiders); another model's artifacts stay out of reach."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import BUCKET, ROOT_KEYS, s3_client, unique
from test_fileset_credentials import assert_denied


@pytest.fixture
def models(server, admin, s3_endpoint):
    ml = unique("ml")
    admin.ok("POST", "metalakes", {"name": ml, "properties": {}})
    admin.ok("POST", f"metalakes/{ml}/catalogs", {
        "name": "reg", "type": "model", "comment": "", "properties": {
            "s3-endpoint": s3_endpoint, "s3-region": "us-east-1",
            "credential-providers": "s3-token", **ROOT_KEYS}})
    admin.ok("POST", f"metalakes/{ml}/catalogs/reg/schemas", {"name": "ml"})
    root = unique("models")
    base = f"metalakes/{ml}/catalogs/reg/schemas/ml/models"
    for name in ("churn", "fraud"):
        admin.ok("POST", base, {"name": name})
    admin.ok("POST", f"{base}/churn/versions", {"uri": f"s3://{BUCKET}/{root}/churn/v0"})
    admin.ok("POST", f"{base}/churn/versions", {"uris": {
        "weights": f"s3://{BUCKET}/{root}/churn/v1", "local": "file:///tmp/churn/v1"}})
    admin.ok("POST", f"{base}/fraud/versions", {"uri": f"s3://{BUCKET}/{root}/fraud/v0"})
    return {"metalake": ml, "root": root, "base": base}


def keys(principal, ml, model):
    r = principal.api("GET", f"metalakes/{ml}/objects/model/reg.ml.{model}/credentials")
    assert r.status_code == 200, r.text
    return r.json()["credentials"]


def test_model_keys_reach_only_the_models_versions(admin, models, s3, s3_endpoint):
    ml, root = models["metalake"], models["root"]
    s3.put_object(Bucket=BUCKET, Key=f"{root}/churn/v0/model.bin", Body=b"v0")
    s3.put_object(Bucket=BUCKET, Key=f"{root}/fraud/v0/model.bin", Body=b"f0")
    [cred] = keys(admin, ml, "churn")
    assert cred["credentialType"] == "s3-token" and cred["expireTimeInMs"] > 0
    info = cred["credentialInfo"]
    mine = s3_client(s3_endpoint, info["s3-access-key-id"], info["s3-secret-access-key"],
                     info["s3-session-token"])
    assert mine.get_object(Bucket=BUCKET, Key=f"{root}/churn/v0/model.bin")["Body"].read() == b"v0"
    mine.put_object(Bucket=BUCKET, Key=f"{root}/churn/v1/model.bin", Body=b"v1")
    assert_denied(lambda: mine.get_object(Bucket=BUCKET, Key=f"{root}/fraud/v0/model.bin"))
    assert_denied(lambda: mine.put_object(Bucket=BUCKET, Key=f"{root}/churn/v2/x", Body=b"1"))
    # A model with no version on S3 gets no keys.
    admin.ok("POST", models["base"], {"name": "empty"})
    assert keys(admin, ml, "empty") == []


def test_model_readers_get_read_only_keys_and_outsiders_none(server, admin, models, s3, s3_endpoint):
    from conftest import Client

    ml, root = models["metalake"], models["root"]
    s3.put_object(Bucket=BUCKET, Key=f"{root}/churn/v0/model.bin", Body=b"v0")
    reader, outsider = unique("reader"), unique("outsider")
    for user in (reader, outsider):
        admin.ok("POST", f"metalakes/{ml}/users", {"name": user})
    role = unique("role")
    admin.ok("POST", f"metalakes/{ml}/roles", {"name": role, "properties": {}, "securableObjects": [
        {"fullName": "reg", "type": "CATALOG", "privileges": [
            {"name": "USE_CATALOG", "condition": "ALLOW"}, {"name": "USE_SCHEMA", "condition": "ALLOW"}]},
        {"fullName": "reg.ml.churn", "type": "MODEL",
         "privileges": [{"name": "USE_MODEL", "condition": "ALLOW"}]}]})
    admin.ok("PUT", f"metalakes/{ml}/permissions/users/{reader}/grant", {"roleNames": [role]})

    [cred] = keys(Client(server.url, reader), ml, "churn")
    info = cred["credentialInfo"]
    ro = s3_client(s3_endpoint, info["s3-access-key-id"], info["s3-secret-access-key"],
                   info["s3-session-token"])
    assert ro.get_object(Bucket=BUCKET, Key=f"{root}/churn/v0/model.bin")["Body"].read() == b"v0"
    assert_denied(lambda: ro.put_object(Bucket=BUCKET, Key=f"{root}/churn/v0/w", Body=b"1"))
    denied = Client(server.url, outsider).api(
        "GET", f"metalakes/{ml}/objects/model/reg.ml.churn/credentials")
    assert denied.status_code == 403
