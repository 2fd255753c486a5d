"""Fixtures of the engines suite: real query engines against a real Cairn, data on MinIO.

* One Trino (tests/harness/trino_server.py) per run, shared by every test; each test gives it
  catalogs of its own with `CREATE CATALOG ... USING iceberg`, pointed at this suite's Cairn.
* One `cairn serve` per session, with authorization on: `simple` basic credentials for the
  administrator `admin`, and `oauth2` bearer tokens (HS256) for the engines, so an engine is a
  principal of its own with only the privileges its role grants.
* The run's MinIO (CAIRN_TEST_S3_ENDPOINT, started by tests/e2e/run.sh) holds the warehouses.
  Engines get no storage keys: every key they use is one Cairn vended for one table.
"""

from __future__ import annotations

import base64
import os
import time
import uuid
from dataclasses import dataclass

import boto3
import jwt
import pytest
import requests
from botocore.config import Config

from cairn_server import Server, running_cairn, store_env
from pki import Ca
from trino_server import TrinoServer

ADMIN = "admin"
BUCKET = "warehouse"
ISSUER = "https://idp.engines.test"
AUDIENCE = "cairn"
SECRET = "engines-suite-hs256-secret-of-at-least-32-bytes"
TIMEOUT_S = 60

# No storage keys may reach an engine or PyIceberg from the environment.
for _var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
    os.environ.pop(_var, None)
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def token(user: str, exp_in: int = 7200) -> str:
    now = int(time.time())
    return jwt.encode({"sub": user, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "nbf": now - 5,
                       "exp": now + exp_in}, SECRET, algorithm="HS256")


def basic(user: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:x".encode()).decode()


@pytest.fixture(scope="session")
def s3_endpoint() -> str:
    endpoint = os.environ.get("CAIRN_TEST_S3_ENDPOINT")
    if not endpoint:
        pytest.fail("CAIRN_TEST_S3_ENDPOINT is not set: run this suite through tests/e2e/run.sh, "
                    "which starts MinIO (tests/harness/minio.py)")
    return endpoint


@pytest.fixture(scope="session")
def s3(s3_endpoint):
    """MinIO with its root keys, to check what is really in storage."""
    return boto3.client("s3", endpoint_url=s3_endpoint, aws_access_key_id="admin",
                        aws_secret_access_key="password", region_name="us-east-1",
                        config=Config(s3={"addressing_style": "path"}))


def engine_auth() -> dict:
    """The suite's authentication and authorization settings, for every Cairn it starts."""
    return {
        "CAIRN_AUTHORIZATION_ENABLE": "true",
        "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN,
        "CAIRN_AUTHENTICATORS": "simple,oauth2",
        "CAIRN_AUTHENTICATOR_OAUTH2_HS256_SECRET": SECRET,
        "CAIRN_AUTHENTICATOR_OAUTH2_ISSUER": ISSUER,
        "CAIRN_AUTHENTICATOR_OAUTH2_AUDIENCE": AUDIENCE,
    }


@pytest.fixture(scope="session")
def cairn(tmp_path_factory) -> Server:
    # The local job executor runs Spark job templates with the run's pyspark (test_spark.py).
    import pyspark
    jobs = {"CAIRN_JOBS_LOCAL_EXECUTOR_ENABLED": "true",
            "CAIRN_JOBS_SPARK_HOME": os.path.dirname(pyspark.__file__)}
    with store_env("cairn_engines") as env:
        with running_cairn("engines", {**env, **engine_auth(), **jobs},
                           tmp_path_factory.mktemp("cairn-data"),
                           tmp_path_factory.getbasetemp()) as srv:
            yield srv


@pytest.fixture(scope="session")
def test_ca(tmp_path_factory) -> Ca:
    """The run's own CA: it signs the HTTPS Cairn's certificate, and Trino trusts it."""
    return Ca(tmp_path_factory.mktemp("ca"), "engines-test-ca")


@pytest.fixture(scope="session")
def https_cairn(tmp_path_factory, test_ca) -> Server:
    """A second Cairn, like `cairn` but serving HTTPS only, its certificate signed by test_ca."""
    cert, key, _ = test_ca.issue("127.0.0.1", server=True)
    tls = {"CAIRN_SERVER_TLS_CERT_FILE": str(cert), "CAIRN_SERVER_TLS_KEY_FILE": str(key)}
    with store_env("cairn_engines_tls") as env:
        with running_cairn("engines-tls", {**env, **engine_auth(), **tls},
                           tmp_path_factory.mktemp("cairn-tls-data"),
                           tmp_path_factory.getbasetemp(), ca_file=test_ca.pem) as srv:
            yield srv


@pytest.fixture(scope="session")
def trino_server(tmp_path_factory, test_ca) -> TrinoServer:
    trust = test_ca.java_trust_store(tmp_path_factory.mktemp("trust") / "trust.p12")
    srv = TrinoServer(tmp_path_factory.mktemp("trino"), trust_store=trust).start()
    try:
        yield srv
    finally:
        srv.stop()


class Admin:
    """The administrator's calls to Cairn's Gravitino API (`/api`)."""

    def __init__(self, base: str, ca: str | None = None):
        self.base = base
        self.session = requests.Session()
        self.session.headers["Authorization"] = basic(ADMIN)
        if ca:  # an HTTPS Cairn: trust its CA (REQUESTS_CA_BUNDLE would otherwise win)
            self.session.trust_env = False
            self.session.verify = ca

    def call(self, method: str, path: str, body=None) -> requests.Response:
        return self.session.request(method, f"{self.base}/api/{path}", json=body,
                                    timeout=TIMEOUT_S)

    def ok(self, method: str, path: str, body=None) -> dict:
        r = self.call(method, path, body)
        assert r.status_code == 200, f"{method} {path}: {r.status_code} {r.text}"
        return r.json()


@dataclass
class Lake:
    """A metalake with one managed Iceberg catalog on a fresh MinIO prefix."""

    cairn: Server
    admin: Admin
    s3_endpoint: str
    metalake: str
    catalog: str
    prefix: str
    ca: str | None = None  # the CA of an HTTPS Cairn

    @property
    def warehouse(self) -> str:
        return f"{self.metalake}.{self.catalog}"

    def grant(self, user: str, privileges: list[str]) -> None:
        """`user` becomes a user of the metalake with a role holding `privileges` on the
        catalog."""
        ml = self.metalake
        self.admin.ok("POST", f"metalakes/{ml}/users", {"name": user})
        role = unique("role")
        self.admin.ok("POST", f"metalakes/{ml}/roles", {
            "name": role, "properties": {},
            "securableObjects": [{"fullName": self.catalog, "type": "CATALOG",
                                  "privileges": [{"name": p, "condition": "ALLOW"}
                                                 for p in privileges]}]})
        self.admin.ok("PUT", f"metalakes/{ml}/permissions/users/{user}/grant",
                      {"roleNames": [role]})

    def trino_catalog_properties(self, user: str) -> dict[str, str]:
        """The properties of a Trino catalog over this lake for `user` (docs/engines.md):
        the REST catalog with a bearer token, vended credentials, no storage keys."""
        return {
            "iceberg.catalog.type": "rest",
            "iceberg.rest-catalog.uri": f"{self.cairn.url}/iceberg",
            "iceberg.rest-catalog.warehouse": self.warehouse,
            "iceberg.rest-catalog.security": "OAUTH2",
            "iceberg.rest-catalog.oauth2.token": token(user),
            "iceberg.rest-catalog.vended-credentials-enabled": "true",
            "iceberg.rest-catalog.nested-namespace-enabled": "true",
            "fs.native-s3.enabled": "true",
            "s3.region": "us-east-1",
            "s3.endpoint": self.s3_endpoint,
            "s3.path-style-access": "true",
        }

    def pyiceberg(self, **props):
        """PyIceberg as the administrator, with vended credentials, to check what engines
        wrote (`props`: more catalog properties)."""
        from pyiceberg.catalog import load_catalog
        return load_catalog(unique("py"), **{
            "type": "rest", "uri": f"{self.cairn.url}/iceberg", "warehouse": self.warehouse,
            "auth": {"type": "basic", "basic": {"username": ADMIN, "password": "x"}},
            "header.X-Iceberg-Access-Delegation": "vended-credentials",
            **({"ssl": {"cabundle": self.ca}} if self.ca else {}), **props})


def make_lake(cairn: Server, s3_endpoint: str, ca: str | None = None):
    admin = Admin(cairn.url, ca)
    ml, cat, prefix = unique("ml"), unique("ice"), unique("wh")
    admin.ok("POST", "metalakes", {"name": ml, "comment": "", "properties": {}})
    admin.ok("POST", f"metalakes/{ml}/catalogs", {
        "name": cat, "type": "relational", "provider": "lakehouse-iceberg", "comment": "",
        "properties": {"catalog-backend": "managed", "warehouse": f"s3://{BUCKET}/{prefix}",
                       "s3-endpoint": s3_endpoint, "s3-region": "us-east-1",
                       "s3-path-style-access": "true", "credential-providers": "s3-token",
                       "s3-access-key-id": "admin", "s3-secret-access-key": "password"}})
    yield Lake(cairn, admin, s3_endpoint, ml, cat, prefix, ca)
    admin.call("DELETE", f"metalakes/{ml}?force=true")


@pytest.fixture
def lake(cairn, s3_endpoint) -> Lake:
    yield from make_lake(cairn, s3_endpoint)


@pytest.fixture
def https_lake(https_cairn, s3_endpoint, test_ca) -> Lake:
    """A lake on the HTTPS Cairn."""
    yield from make_lake(https_cairn, s3_endpoint, str(test_ca.pem))


def keys_under(s3, prefix: str) -> list[str]:
    keys = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
        keys += [o["Key"] for o in page.get("Contents", [])]
    return keys
