"""Fixtures of the federation suite: a front Cairn whose `lakehouse-iceberg` catalogs with
`catalog-backend = rest` front two remote Iceberg REST catalogs, all on 127.0.0.1.

* `remote` - a second `cairn serve` (its own data dir and store) with `oauth2` authentication
  and authorization on; `admin` (a service admin) owns its metalake `rml` and managed catalog
  `rcat`, so only tokens the remote accepts and authorizes get anything from it.
* `reference` - Iceberg's Java reference REST server (tests/harness/iceberg_reference.py; JDBC
  catalog in SQLite), started once per session.
* `front` - the Cairn under test, `oauth2` with the same signing key (so a caller's token is
  valid at both ends) and authorization on. Metalake `fed` (owned by `admin`) holds catalogs
  `viacairn` (-> remote, token forwarded), `viaref` (-> reference), and `checked` (-> remote,
  `rest.check-privileges=true`, the remote reached with the admin's static token).

Tokens are RS256 JWTs made by `Keys` of tests/security (`token(user)` here). The store of both
Cairn servers is CAIRN_E2E_STORE (sqlite by default). Needs java 17+ (and mvn for the first
download of the reference jar).
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
import requests

from cairn_server import Server, cairn_binary, start_cairn, store_env
from iceberg_reference import Reference, start_reference
from sec_helpers import AUDIENCE, ISSUER, Keys

ADMIN = "admin"
TIMEOUT_S = 60
GRAVITINO_HEADERS = {"Accept": "application/vnd.gravitino.v1+json",
                     "Content-Type": "application/json"}


@dataclass
class Fed:
    front: Server
    remote: Server
    reference: Reference
    keys: Keys
    metalake: str = "fed"
    remote_warehouse: str = "rml.rcat"

    def token(self, user: str) -> str:
        return self.keys.token(user, exp_in=4 * 3600)

    def auth(self, user: str = ADMIN) -> dict:
        return {"Authorization": f"Bearer {self.token(user)}"}

    # --- the front's /api and /iceberg -------------------------------------------------------
    def api(self, method: str, path: str, body=None, *, user: str = ADMIN, base: str | None = None,
            params=None) -> requests.Response:
        url = f"{base or self.front.url}/api/{path.lstrip('/')}"
        return requests.request(method, url, data=None if body is None else json.dumps(body),
                                headers={**GRAVITINO_HEADERS, **self.auth(user)}, params=params,
                                timeout=TIMEOUT_S)

    def rest(self, method: str, catalog: str, path: str, body=None, *, user: str = ADMIN,
             headers: dict | None = None, params=None, base: str | None = None,
             prefix: str | None = None, timeout=TIMEOUT_S) -> requests.Response:
        prefix = prefix or f"{self.metalake}.{catalog}"
        url = f"{base or self.front.url}/iceberg/v1/{prefix}/{path.lstrip('/')}"
        h = {"Content-Type": "application/json", **self.auth(user), **(headers or {})}
        return requests.request(method, url, data=None if body is None else json.dumps(body),
                                headers=h, params=params, timeout=timeout)

    def create_catalog(self, name: str, properties: dict, *, user: str = ADMIN) -> requests.Response:
        return self.api("POST", f"metalakes/{self.metalake}/catalogs", {
            "name": name, "type": "relational", "provider": "lakehouse-iceberg",
            "comment": "federation", "properties": {"catalog-backend": "rest", **properties}},
            user=user)

    def pyiceberg(self, catalog: str, user: str = ADMIN):
        from pyiceberg.catalog import load_catalog

        return load_catalog(f"front-{catalog}-{user}", type="rest", uri=f"{self.front.url}/iceberg",
                            warehouse=f"{self.metalake}.{catalog}", token=self.token(user))

    # --- the remotes, directly ---------------------------------------------------------------
    def remote_pyiceberg(self, user: str = ADMIN):
        from pyiceberg.catalog import load_catalog

        return load_catalog(f"remote-{user}", type="rest", uri=f"{self.remote.url}/iceberg",
                            warehouse=self.remote_warehouse, token=self.token(user))

    def reference_pyiceberg(self):
        from pyiceberg.catalog import load_catalog

        return load_catalog("reference", type="rest", uri=self.reference.url)

    def remote_audit(self, **params) -> list[dict]:
        r = requests.get(f"{self.remote.url}/api/audit", params={"limit": "10000", **params},
                         headers={**GRAVITINO_HEADERS, **self.auth()}, timeout=TIMEOUT_S)
        assert r.status_code == 200, r.text
        body = r.json()
        return body.get("records", body) if isinstance(body, dict) else body


def _oauth_env(jwks_path) -> dict:
    return {
        "CAIRN_AUTHORIZATION_ENABLE": "true",
        "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN,
        "CAIRN_AUTHENTICATORS": "oauth2",
        "CAIRN_AUTHENTICATOR_OAUTH2_JWKS_FILE": str(jwks_path),
        "CAIRN_AUTHENTICATOR_OAUTH2_ISSUER": ISSUER,
        "CAIRN_AUTHENTICATOR_OAUTH2_AUDIENCE": AUDIENCE,
    }


@pytest.fixture(scope="session")
def binary(tmp_path_factory):
    return cairn_binary(copy_to=tmp_path_factory.mktemp("bin"))


@pytest.fixture(scope="session")
def keys() -> Keys:
    return Keys()


@pytest.fixture(scope="session")
def oauth_env(keys, tmp_path_factory) -> dict:
    jwks = tmp_path_factory.mktemp("jwks") / "jwks.json"
    jwks.write_text(json.dumps(keys.jwks()))
    return _oauth_env(jwks)


@pytest.fixture(scope="session")
def start_server(tmp_path_factory, binary):
    """start_server(name, env, ca_file=None) -> a `cairn serve` with a store of its own (HTTPS
    with ca_file, whose CA signed the certificate in env); all still running are
    stopped (SIGTERM, exit 0) at the end of the session."""
    started: list[Server] = []
    stores = ExitStack()

    def start(name: str, env: dict, ca_file=None) -> Server:
        full = {**stores.enter_context(store_env("cairn_fed")), **env}
        srv = start_cairn(name, full, tmp_path_factory.mktemp(f"data-{name}"),
                          tmp_path_factory.getbasetemp(), binary, ca_file)
        started.append(srv)
        return srv

    with stores:
        yield start
        for srv in started:
            if srv.proc.poll() is None:
                srv.stop()
            srv.remove_data()


@pytest.fixture(scope="session")
def reference(tmp_path_factory) -> Reference:
    base = tmp_path_factory.mktemp("reference")
    try:
        ref = start_reference(base, tmp_path_factory.getbasetemp() / "reference.log")
    except (RuntimeError, OSError) as e:
        pytest.fail(f"cannot start the Iceberg reference REST server: {e}", pytrace=False)
    yield ref
    ref.stop()


@pytest.fixture(scope="session")
def fed(start_server, oauth_env, reference, keys, tmp_path_factory) -> Fed:
    remote = start_server("remote", oauth_env)
    front = start_server("front", oauth_env)
    f = Fed(front, remote, reference, keys)

    # The remote: metalake rml / managed catalog rcat, owned by admin.
    wh = tmp_path_factory.mktemp("remote-warehouse")
    for path, body in (("metalakes", {"name": "rml", "properties": {}}),
                       ("metalakes/rml/catalogs",
                        {"name": "rcat", "type": "relational", "provider": "lakehouse-iceberg",
                         "properties": {"catalog-backend": "managed", "warehouse": str(wh)}})):
        r = f.api("POST", path, body, base=remote.url)
        assert r.status_code == 200, f"remote setup {path}: {r.status_code} {r.text[:300]}"

    # The front: metalake fed and the federated catalogs.
    r = f.api("POST", "metalakes", {"name": f.metalake, "properties": {}})
    assert r.status_code == 200, r.text
    remote_uri = f"{remote.url}/iceberg"
    for name, props in (
            ("viacairn", {"uri": remote_uri, "warehouse": f.remote_warehouse}),
            ("viaref", {"uri": reference.url}),
            ("checked", {"uri": remote_uri, "warehouse": f.remote_warehouse,
                         "rest.check-privileges": "true", "rest.forward-token": "false",
                         "token": f.token(ADMIN)})):
        r = f.create_catalog(name, props)
        assert r.status_code == 200, f"create catalog {name}: {r.status_code} {r.text[:300]}"
    return f
