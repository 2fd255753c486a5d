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
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

from sec_helpers import AUDIENCE, ISSUER, Keys, Principal, unique

REPO = Path(__file__).resolve().parents[2]
CAIRN_BIN = Path(os.environ.get("CAIRN_BIN", REPO / "build" / "cairn"))
STARTUP_TIMEOUT_S = float(os.environ.get("CAIRN_E2E_STARTUP_TIMEOUT", "30"))
SHUTDOWN_TIMEOUT_S = 20.0
ADMIN = "admin"


@dataclass
class Server:
    url: str
    data_dir: Path
    log_path: Path
    proc: subprocess.Popen
    env: dict = field(default_factory=dict)

    @property
    def audit_log(self) -> Path:
        return self.data_dir / "audit" / "audit.log"

    def log_tail(self, n: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "<no log>"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_url_with_db(url: str, db: str) -> str:
    if "://" in url:
        parts = urlsplit(url)
        return urlunsplit((parts.scheme, parts.netloc, "/" + db, parts.query, parts.fragment))
    kv = [p for p in url.split() if not p.startswith("dbname=")]
    return " ".join(kv + [f"dbname={db}"])


def _psql(url: str, sql: str) -> None:
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                   check=True, capture_output=True, timeout=60)


class _Stores:
    """Hands out store settings: sqlite (in the data dir) or a fresh PostgreSQL database."""

    def __init__(self):
        self.kind = os.environ.get("CAIRN_E2E_STORE", "sqlite").lower()
        self.dbs: list[str] = []
        if self.kind not in ("sqlite", "postgres"):
            pytest.fail(f"CAIRN_E2E_STORE must be sqlite or postgres, not {self.kind!r}",
                        pytrace=False)
        self.base = os.environ.get("CAIRN_E2E_PG_URL", "")
        if self.kind == "postgres" and not self.base:
            pytest.fail("CAIRN_E2E_STORE=postgres needs CAIRN_E2E_PG_URL", pytrace=False)

    def env(self) -> dict:
        if self.kind == "sqlite":
            return {"CAIRN_STORE_TYPE": "sqlite"}
        db = f"cairn_sec_{uuid.uuid4().hex[:12]}"
        _psql(_pg_url_with_db(self.base, "postgres"), f"CREATE DATABASE {db}")
        self.dbs.append(db)
        return {"CAIRN_STORE_TYPE": "postgres",
                "CAIRN_STORE_POSTGRES_URL": _pg_url_with_db(self.base, db)}

    def cleanup(self):
        for db in self.dbs:
            try:
                _psql(_pg_url_with_db(self.base, "postgres"), f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
            except Exception:  # noqa: BLE001 - best effort
                pass


@pytest.fixture(scope="session")
def _stores():
    s = _Stores()
    yield s
    s.cleanup()


@pytest.fixture(scope="session")
def cairn_binary(tmp_path_factory) -> Path:
    if not CAIRN_BIN.is_file() or not os.access(CAIRN_BIN, os.X_OK):
        pytest.fail(f"server binary {CAIRN_BIN} not found; run `make build` first", pytrace=False)
    binary = tmp_path_factory.mktemp("bin") / "cairn"
    shutil.copy2(CAIRN_BIN, binary)
    return binary


def _start(binary: Path, data_dir: Path, env: dict, log_path: Path):
    last_err = ""
    for _attempt in range(3):
        port = _free_port()
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(
                [str(binary), "serve", "--host", "127.0.0.1", "--port", str(port),
                 "--data-dir", str(data_dir)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                last_err = f"cairn exited early with code {proc.returncode}"
                break
            try:
                r = requests.get(f"http://127.0.0.1:{port}/api/version", timeout=2)
                if r.status_code == 200:
                    return proc, port
            except requests.RequestException:
                pass
            time.sleep(0.1)
        else:
            proc.kill()
            proc.wait()
            last_err = f"/api/version did not answer 200 within {STARTUP_TIMEOUT_S}s"
            break
    tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-60:])
    pytest.fail(f"could not start cairn: {last_err}\n--- log ---\n{tail}", pytrace=False)


def _stop(srv: Server):
    proc = srv.proc
    if proc.poll() is not None:
        pytest.fail(f"cairn died during the run (exit {proc.returncode})\n{srv.log_tail()}",
                    pytrace=False)
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"cairn did not exit within {SHUTDOWN_TIMEOUT_S}s of SIGTERM", pytrace=False)
    if rc != 0:
        pytest.fail(f"cairn exited with {rc} after SIGTERM\n{srv.log_tail()}", pytrace=False)


_STARTED: list[Server] = []


@pytest.fixture(scope="session")
def started_servers() -> list[Server]:
    """Every server started so far in this session."""
    return _STARTED


@pytest.fixture(scope="session")
def start_server(tmp_path_factory, cairn_binary, _stores):
    """start_server(name, extra_env) -> Server; every server is stopped (SIGTERM, exit 0) at
    the end of the session."""
    started = _STARTED

    def start(name: str, extra_env: dict) -> Server:
        data_dir = tmp_path_factory.mktemp(f"data-{name}")
        log_path = tmp_path_factory.getbasetemp() / f"cairn-{name}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
        env.update(_stores.env())
        env["CAIRN_LOG_LEVEL"] = os.environ.get("CAIRN_LOG_LEVEL", "info")
        env.update(extra_env)
        proc, port = _start(cairn_binary, data_dir, env, log_path)
        srv = Server(f"http://127.0.0.1:{port}", data_dir, log_path, proc, env)
        started.append(srv)
        return srv

    yield start
    errors = []
    for srv in started:
        try:
            _stop(srv)
        except BaseException as e:  # noqa: BLE001 - stop the others too
            errors.append(e)
        if os.environ.get("CAIRN_E2E_KEEP_DATA") != "1":
            shutil.rmtree(srv.data_dir, ignore_errors=True)
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
