"""Shared fixtures of the Cairn end-to-end suite.

One `cairn serve` process per pytest session, on a free 127.0.0.1 port with a fresh data dir.
The metadata store is chosen by CAIRN_E2E_STORE (`sqlite`, the default, or `postgres`; for
postgres CAIRN_E2E_PG_URL points at a running cluster and a uniquely named database is created
for this run). Each test gets a fresh metalake (force-dropped afterwards).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

from gravitino import GravitinoAdminClient, GravitinoClient
from gravitino.api.catalog import Catalog

from helpers import Api, unique

REPO = Path(__file__).resolve().parents[2]
CAIRN_BIN = Path(os.environ.get("CAIRN_BIN", REPO / "build" / "cairn"))
STARTUP_TIMEOUT_S = float(os.environ.get("CAIRN_E2E_STARTUP_TIMEOUT", "30"))
SHUTDOWN_TIMEOUT_S = 20.0


@dataclass
class Server:
    url: str
    port: int
    data_dir: Path
    log_path: Path
    store: str
    proc: subprocess.Popen

    def log_tail(self, n: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "<no log>"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# PostgreSQL: one fresh database per run on the cluster the outer runner started.
# ---------------------------------------------------------------------------------------------


def _pg_url_with_db(url: str, db: str) -> str:
    if "://" in url:
        parts = urlsplit(url)
        return urlunsplit((parts.scheme, parts.netloc, "/" + db, parts.query, parts.fragment))
    # key=value conninfo
    kv = [p for p in url.split() if not p.startswith("dbname=")]
    return " ".join(kv + [f"dbname={db}"])


def _psql(url: str, sql: str) -> None:
    subprocess.run(
        ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture(scope="session")
def _store_env():
    store = os.environ.get("CAIRN_E2E_STORE", "sqlite").lower()
    if store == "sqlite":
        yield store, {"CAIRN_STORE_TYPE": "sqlite"}
        return
    if store != "postgres":
        pytest.fail(f"CAIRN_E2E_STORE must be sqlite or postgres, not {store!r}", pytrace=False)
    base = os.environ.get("CAIRN_E2E_PG_URL")
    if not base:
        pytest.fail("CAIRN_E2E_STORE=postgres needs CAIRN_E2E_PG_URL", pytrace=False)
    db = f"cairn_e2e_{uuid.uuid4().hex[:12]}"
    admin_url = _pg_url_with_db(base, "postgres")
    _psql(admin_url, f"CREATE DATABASE {db}")
    try:
        yield store, {
            "CAIRN_STORE_TYPE": "postgres",
            "CAIRN_STORE_POSTGRES_URL": _pg_url_with_db(base, db),
        }
    finally:
        try:
            _psql(admin_url, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        except Exception:  # noqa: BLE001 - best effort cleanup of a throwaway cluster
            pass


# ---------------------------------------------------------------------------------------------
# The server process
# ---------------------------------------------------------------------------------------------


def _start(data_dir: Path, env: dict, log_path: Path) -> tuple[subprocess.Popen, int]:
    last_err = ""
    for _attempt in range(3):
        port = _free_port()
        log = open(log_path, "ab")  # noqa: SIM115 - owned by the process lifetime
        proc = subprocess.Popen(
            [
                str(CAIRN_BIN),
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--data-dir",
                str(data_dir),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        log.close()
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


@pytest.fixture(scope="session")
def server(tmp_path_factory, _store_env) -> Server:
    if not CAIRN_BIN.is_file() or not os.access(CAIRN_BIN, os.X_OK):
        pytest.fail(f"server binary {CAIRN_BIN} not found; run `make build` first", pytrace=False)
    store, store_env = _store_env
    data_dir = tmp_path_factory.mktemp("cairn-data")
    log_path = tmp_path_factory.getbasetemp() / f"cairn-{store}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    env.update(store_env)
    env["CAIRN_LOG_LEVEL"] = os.environ.get("CAIRN_LOG_LEVEL", "info")
    proc, port = _start(data_dir, env, log_path)
    srv = Server(f"http://127.0.0.1:{port}", port, data_dir, log_path, store, proc)
    yield srv

    # Clean shutdown: SIGTERM must end the process with exit code 0.
    if proc.poll() is not None:
        pytest.fail(
            f"cairn died during the run (exit {proc.returncode})\n{srv.log_tail()}", pytrace=False
        )
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"cairn did not exit within {SHUTDOWN_TIMEOUT_S}s of SIGTERM", pytrace=False)
    if rc != 0:
        pytest.fail(f"cairn exited with {rc} after SIGTERM\n{srv.log_tail()}", pytrace=False)
    if os.environ.get("CAIRN_E2E_KEEP_DATA") != "1":
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def base_url(server) -> str:
    return server.url


@pytest.fixture(scope="session")
def data_dir(server) -> Path:
    """The server's --data-dir (the default warehouse lives in data_dir/warehouse)."""
    return server.data_dir


@pytest.fixture(scope="session")
def api(base_url) -> Api:
    """Plain HTTP access (requests) with the headers the Gravitino clients send."""
    return Api(base_url)


@pytest.fixture(scope="session")
def admin(base_url) -> GravitinoAdminClient:
    return GravitinoAdminClient(uri=base_url)


# ---------------------------------------------------------------------------------------------
# Per-test objects
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def metalake_name(admin, api) -> str:
    """A fresh metalake (created through the admin client), force-dropped after the test."""
    name = unique("ml")
    admin.create_metalake(name, "e2e metalake", {"owner": "e2e"})
    yield name
    api.delete(f"metalakes/{name}", params={"force": "true"})


@pytest.fixture
def client(base_url, metalake_name) -> GravitinoClient:
    return GravitinoClient(uri=base_url, metalake_name=metalake_name)


@pytest.fixture
def warehouse(tmp_path) -> Path:
    """An explicit warehouse directory for one test's catalog."""
    wh = tmp_path / "warehouse"
    wh.mkdir()
    return wh


@pytest.fixture
def catalog_name() -> str:
    return unique("cat")


@pytest.fixture
def catalog(client, catalog_name, warehouse):
    """A managed lakehouse-iceberg catalog whose warehouse is `warehouse`."""
    return client.create_catalog(
        catalog_name,
        Catalog.Type.RELATIONAL,
        "lakehouse-iceberg",
        "e2e iceberg catalog",
        {"catalog-backend": "managed", "warehouse": str(warehouse)},
    )


@pytest.fixture
def schema_name(catalog) -> str:
    name = unique("s")
    catalog.as_schemas().create_schema(name, "e2e schema", {"sk": "sv"})
    return name


@pytest.fixture
def tables(catalog):
    return catalog.as_table_catalog()
