"""Fixtures of Cairn's storage suite: warehouses on S3 and vended credentials.

* The runner's MinIO (CAIRN_TEST_S3_ENDPOINT; root keys admin/password, bucket `warehouse`,
  started once per run by tests/e2e/run.sh with tests/harness/minio.py) holds the warehouses.
* One `cairn serve` per session, with authorization on (simple authentication, service admin
  `admin`), on the store of CAIRN_E2E_STORE.
* `s3` - a boto3 client with MinIO's root keys, to check what is really in storage.
"""

from __future__ import annotations

import base64
import json
import os
import uuid
from pathlib import Path

import boto3
import pytest
import requests
from botocore.config import Config

from cairn_server import Server, cairn_binary, running_cairn, store_env

ADMIN = "admin"
BUCKET = "warehouse"
ROOT_KEYS = {"s3-access-key-id": "admin", "s3-secret-access-key": "password"}
TIMEOUT_S = 30

# No storage keys may reach PyIceberg or boto3 from the environment: every key a test uses is
# one it was given.
for _var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
    os.environ.pop(_var, None)
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
os.environ["AWS_CONFIG_FILE"] = "/dev/null"
os.environ["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def basic(user: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:x".encode()).decode()


@pytest.fixture(scope="session")
def s3_endpoint() -> str:
    endpoint = os.environ.get("CAIRN_TEST_S3_ENDPOINT")
    if not endpoint:
        pytest.fail("CAIRN_TEST_S3_ENDPOINT is not set: run this suite through tests/e2e/run.sh, "
                    "which starts MinIO", pytrace=False)
    return endpoint


def s3_client(endpoint: str, key: str, secret: str, token: str | None = None):
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=key,
                        aws_secret_access_key=secret, aws_session_token=token,
                        region_name="us-east-1",
                        config=Config(s3={"addressing_style": "path"},
                                      retries={"max_attempts": 1}))


@pytest.fixture(scope="session")
def s3(s3_endpoint):
    return s3_client(s3_endpoint, "admin", "password")


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    binary = cairn_binary(copy_to=tmp_path_factory.mktemp("bin"))
    env_extra = {"CAIRN_AUTHORIZATION_ENABLE": "true",
                 "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN,
                 "CAIRN_AUTHENTICATORS": "simple"}
    with store_env("cairn_storage") as env:
        with running_cairn("storage", {**env, **env_extra}, tmp_path_factory.mktemp("data"),
                           tmp_path_factory.getbasetemp(), binary) as srv:
            yield srv


class Client:
    """HTTP as one principal against /api and /iceberg."""

    def __init__(self, base: str, user: str):
        self.base = base.rstrip("/")
        self.user = user
        self.session = requests.Session()
        self.session.headers["Authorization"] = basic(user)

    def api(self, method: str, path: str, body=None, **kw) -> requests.Response:
        headers = {"Accept": "application/vnd.gravitino.v1+json",
                   "Content-Type": "application/json"}
        return self.session.request(method, f"{self.base}/api/{path}",
                                    data=None if body is None else json.dumps(body),
                                    headers=headers, timeout=TIMEOUT_S, **kw)

    def ok(self, method: str, path: str, body=None) -> dict:
        r = self.api(method, path, body)
        assert r.status_code == 200, f"{self.user} {method} /api/{path}: {r.status_code} {r.text[:400]}"
        return r.json()

    def rest(self, method: str, warehouse: str, path: str, body=None, headers=None,
             **kw) -> requests.Response:
        return self.session.request(
            method, f"{self.base}/iceberg/v1/{warehouse}/{path}",
            data=None if body is None else json.dumps(body),
            headers={"Content-Type": "application/json", **(headers or {})}, timeout=TIMEOUT_S, **kw)


@pytest.fixture(scope="session")
def admin(server) -> Client:
    return Client(server.url, ADMIN)


class Lake:
    """A metalake with an Iceberg catalog whose warehouse is a fresh prefix on MinIO."""

    def __init__(self, admin: Client, endpoint: str, extra: dict | None = None):
        self.admin = admin
        self.metalake = unique("ml")
        self.catalog = unique("cat")
        self.prefix = unique("wh")
        self.warehouse_uri = f"s3://{BUCKET}/{self.prefix}"
        self.endpoint = endpoint
        admin.ok("POST", "metalakes", {"name": self.metalake, "properties": {}})
        self.props = {"catalog-backend": "managed", "warehouse": self.warehouse_uri,
                      "s3-endpoint": endpoint, "s3-region": "us-east-1",
                      "s3-path-style-access": "true", "credential-providers": "s3-token",
                      **ROOT_KEYS, **(extra or {})}
        admin.ok("POST", f"metalakes/{self.metalake}/catalogs",
                 {"name": self.catalog, "type": "relational", "provider": "lakehouse-iceberg",
                  "properties": self.props})

    @property
    def warehouse(self) -> str:
        return f"{self.metalake}.{self.catalog}"

    def pyiceberg(self, base_url: str, user: str, **props):
        """PyIceberg with no storage keys: only the catalog URI and who the user is (`props`:
        more catalog properties)."""
        from pyiceberg.catalog import load_catalog
        return load_catalog(unique("py"), **{
            "type": "rest", "uri": f"{base_url}/iceberg", "warehouse": self.warehouse,
            "auth": {"type": "basic", "basic": {"username": user, "password": "x"}},
            "header.X-Iceberg-Access-Delegation": "vended-credentials", **props})

    def grant(self, user: str, privileges: list[str], schema: str, table: str | None = None):
        """Adds `user` with a role holding USE_CATALOG, USE_SCHEMA and `privileges`."""
        ml = self.metalake
        r = self.admin.api("POST", f"metalakes/{ml}/users", {"name": user})
        assert r.status_code in (200, 409), r.text
        role = unique("role")
        objects = [
            {"fullName": self.catalog, "type": "CATALOG",
             "privileges": [{"name": "USE_CATALOG", "condition": "ALLOW"}]},
            {"fullName": f"{self.catalog}.{schema}", "type": "SCHEMA",
             "privileges": [{"name": "USE_SCHEMA", "condition": "ALLOW"}]},
        ]
        granted = [{"name": p, "condition": "ALLOW"} for p in privileges]
        if privileges and table:
            objects.append({"fullName": f"{self.catalog}.{schema}.{table}", "type": "TABLE",
                            "privileges": granted})
        else:  # schema-level privileges go on the schema's one securable object
            objects[1]["privileges"] += granted
        self.admin.ok("POST", f"metalakes/{ml}/roles",
                      {"name": role, "properties": {}, "securableObjects": objects})
        self.admin.ok("PUT", f"metalakes/{ml}/permissions/users/{user}/grant",
                      {"roleNames": [role]})


@pytest.fixture
def lake(admin, s3_endpoint) -> Lake:
    return Lake(admin, s3_endpoint)


def keys_under(s3, prefix: str) -> list[str]:
    out = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
        out += [o["Key"] for o in page.get("Contents", [])]
    return out
