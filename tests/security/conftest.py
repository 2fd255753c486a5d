"""Fixtures of Cairn's security suite (authentication, authorization, audit).

Several `cairn serve` processes per pytest session, each on a copy of CAIRN_BIN (default
build/cairn; copied so that a rebuild during the run does not replace the running binary), on a
free 127.0.0.1 port with a fresh data dir, all on the store of CAIRN_E2E_STORE (`sqlite`,
default, or `postgres` with CAIRN_E2E_PG_URL; one uniquely named database per server):

* `authz_server`  - CAIRN_AUTHENTICATORS=simple, authorization on, service admin `admin`
* `oauth_server`  - CAIRN_AUTHENTICATORS=oauth2 (RS256 JWKS file made by the test), authz on
* `basic_server`  - CAIRN_AUTHENTICATORS=basic (local users with passwords), authz on
* `plain_server`  - the default configuration (simple, authorization off)
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import pytest

from cairn_server import Server, cairn_binary as _cairn_binary, start_cairn, store_env
from sec_helpers import AUDIENCE, ISSUER, Keys, Principal, unique

ADMIN = "admin"


@pytest.fixture(scope="session")
def cairn_binary(tmp_path_factory) -> Path:
    """A copy of CAIRN_BIN that all servers of the session run."""
    return _cairn_binary(copy_to=tmp_path_factory.mktemp("bin"))


_STARTED: list[Server] = []


@pytest.fixture(scope="session")
def started_servers() -> list[Server]:
    """Every server started so far in this session."""
    return _STARTED


@pytest.fixture(scope="session")
def start_server(tmp_path_factory, cairn_binary):
    """start_server(name, extra_env) -> Server (tests/harness/cairn_server.py), each with a store
    of its own; every server is stopped (SIGTERM, exit 0) at the end of the session."""
    started = _STARTED
    stores = ExitStack()

    def start(name: str, extra_env: dict) -> Server:
        env = {**stores.enter_context(store_env("cairn_sec")), **extra_env}
        srv = start_cairn(name, env, tmp_path_factory.mktemp(f"data-{name}"),
                          tmp_path_factory.getbasetemp(), cairn_binary)
        started.append(srv)
        return srv

    with stores:
        yield start
        errors = []
        for srv in started:
            try:
                srv.stop()
            except BaseException as e:  # noqa: BLE001 - stop the others too
                errors.append(e)
            srv.remove_data()
        if errors:
            raise errors[0]


AUTHZ_ENV = {
    "CAIRN_AUTHORIZATION_ENABLE": "true",
    "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN,
}


@pytest.fixture(scope="session")
def authz_server(start_server) -> Server:
    return start_server("simple-authz", {**AUTHZ_ENV, "CAIRN_AUTHENTICATORS": "simple"})


@pytest.fixture(scope="session")
def plain_server(start_server) -> Server:
    """The default configuration: simple authentication, authorization off."""
    return start_server("plain", {})


@pytest.fixture(scope="session")
def admin(authz_server) -> Principal:
    return Principal(authz_server.url, ADMIN)


@pytest.fixture
def warehouse(tmp_path) -> Path:
    wh = tmp_path / "warehouse"
    wh.mkdir()
    return wh


# ---- OAuth2 ------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def keys() -> Keys:
    return Keys()


@pytest.fixture(scope="session")
def oauth_server(start_server, keys, tmp_path_factory):
    jwks = tmp_path_factory.mktemp("jwks") / "jwks.json"
    jwks.write_text(json.dumps(keys.jwks()))
    return start_server("oauth2", {
        "CAIRN_AUTHORIZATION_ENABLE": "true",
        "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN,
        "CAIRN_AUTHENTICATORS": "oauth2",
        "CAIRN_AUTHENTICATOR_OAUTH2_JWKS_FILE": str(jwks),
        "CAIRN_AUTHENTICATOR_OAUTH2_ISSUER": ISSUER,
        "CAIRN_AUTHENTICATOR_OAUTH2_AUDIENCE": AUDIENCE,
    })


@pytest.fixture(scope="session")
def basic_oauth_server(start_server, keys, tmp_path_factory):
    """`basic` (local users with passwords) next to `oauth2`: the JWT-authenticated service
    admin creates the local users (see test_basic_auth.py for the basic-only bootstrap)."""
    jwks = tmp_path_factory.mktemp("jwks-basic") / "jwks.json"
    jwks.write_text(json.dumps(keys.jwks()))
    return start_server("basic-oauth2", {
        "CAIRN_AUTHORIZATION_ENABLE": "true",
        "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN,
        "CAIRN_AUTHENTICATORS": "basic,oauth2",
        "CAIRN_AUTHENTICATOR_OAUTH2_JWKS_FILE": str(jwks),
        "CAIRN_AUTHENTICATOR_OAUTH2_ISSUER": ISSUER,
        "CAIRN_AUTHENTICATOR_OAUTH2_AUDIENCE": AUDIENCE,
    })


@pytest.fixture(scope="session")
def basic_server(start_server):
    """CAIRN_AUTHENTICATORS=basic only."""
    return start_server("basic", {**AUTHZ_ENV, "CAIRN_AUTHENTICATORS": "basic",
                                  "CAIRN_AUTHENTICATOR_BASIC_BOOTSTRAP_USER": "admin",
                                  "CAIRN_AUTHENTICATOR_BASIC_BOOTSTRAP_PASSWORD": "admin-password"})
