"""Fixtures of Cairn's Iceberg REST suite.

One `cairn serve` per pytest session (like tests/e2e/conftest.py): a copy of CAIRN_BIN (default
build/cairn; copied so that a rebuild during the run does not replace the running binary) on a
free 127.0.0.1 port with a fresh data dir. The store is CAIRN_E2E_STORE (`sqlite`, default, or
`postgres` with CAIRN_E2E_PG_URL; a uniquely named database is created for the run).
CAIRN_URL=http://host:port uses an already running server instead.

One metalake and one `lakehouse-iceberg` catalog (warehouse = a temp dir) are created per
session through the Gravitino API; PyIceberg reaches it with
`load_catalog(type="rest", uri=<base>/iceberg, warehouse="<metalake>.<catalog>")`.
Every test works in namespaces of its own (fixture `ns`).
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

from ice_helpers import Ice, unique

REPO = Path(__file__).resolve().parents[2]
CAIRN_BIN = Path(os.environ.get("CAIRN_BIN", REPO / "build" / "cairn"))
STARTUP_TIMEOUT_S = float(os.environ.get("CAIRN_E2E_STARTUP_TIMEOUT", "30"))
SHUTDOWN_TIMEOUT_S = 20.0


@dataclass
class Server:
    url: str
    data_dir: Path | None
    log_path: Path | None
    proc: subprocess.Popen | None

    def log_tail(self, n: int = 60) -> str:
        if self.log_path is None:
            return "<external server>"
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


@pytest.fixture(scope="session")
def _store_env():
    store = os.environ.get("CAIRN_E2E_STORE", "sqlite").lower()
    if store == "sqlite":
        yield {"CAIRN_STORE_TYPE": "sqlite"}
        return
    if store != "postgres":
        pytest.fail(f"CAIRN_E2E_STORE must be sqlite or postgres, not {store!r}", pytrace=False)
    base = os.environ.get("CAIRN_E2E_PG_URL")
    if not base:
        pytest.fail("CAIRN_E2E_STORE=postgres needs CAIRN_E2E_PG_URL", pytrace=False)
    db = f"cairn_ice_{uuid.uuid4().hex[:12]}"
    admin_url = _pg_url_with_db(base, "postgres")
    _psql(admin_url, f"CREATE DATABASE {db}")
    try:
        yield {"CAIRN_STORE_TYPE": "postgres",
               "CAIRN_STORE_POSTGRES_URL": _pg_url_with_db(base, db)}
    finally:
        try:
            _psql(admin_url, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        except Exception:  # noqa: BLE001 - best effort
            pass


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


@pytest.fixture(scope="session")
def server(tmp_path_factory, _store_env) -> Server:
    external = os.environ.get("CAIRN_URL")
    if external:
        yield Server(external.rstrip("/"), None, None, None)
        return
    if not CAIRN_BIN.is_file() or not os.access(CAIRN_BIN, os.X_OK):
        pytest.fail(f"server binary {CAIRN_BIN} not found; run `make build` first", pytrace=False)
    bin_dir = tmp_path_factory.mktemp("bin")
    binary = bin_dir / "cairn"
    shutil.copy2(CAIRN_BIN, binary)
    data_dir = tmp_path_factory.mktemp("cairn-data")
    log_path = tmp_path_factory.getbasetemp() / "cairn-iceberg.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    env.update(_store_env)
    env["CAIRN_LOG_LEVEL"] = os.environ.get("CAIRN_LOG_LEVEL", "info")
    proc, port = _start(binary, data_dir, env, log_path)
    srv = Server(f"http://127.0.0.1:{port}", data_dir, log_path, proc)
    yield srv

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
    if os.environ.get("CAIRN_E2E_KEEP_DATA") != "1":
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def base_url(server) -> str:
    return server.url


def _make_catalog(base_url: str, warehouse_dir: Path) -> Ice:
    """A fresh metalake + lakehouse-iceberg catalog, and an `Ice` handle on it."""
    ice = Ice(base_url, unique("ml"), unique("cat"), warehouse_dir)
    r = ice.api_post("metalakes", {"name": ice.metalake, "comment": "iceberg suite",
                                   "properties": {}})
    assert r.status_code == 200, f"create metalake: {r.status_code} {r.text[:300]}"
    r = ice.api_post(f"metalakes/{ice.metalake}/catalogs", {
        "name": ice.catalog, "type": "relational", "provider": "lakehouse-iceberg",
        "comment": "iceberg suite",
        "properties": {"catalog-backend": "managed", "warehouse": str(warehouse_dir)}})
    assert r.status_code == 200, f"create catalog: {r.status_code} {r.text[:300]}"
    return ice


@pytest.fixture(scope="session")
def ice(base_url, tmp_path_factory) -> Ice:
    """The session's metalake/catalog (plain HTTP access to /iceberg and /api)."""
    wh = tmp_path_factory.mktemp("warehouse")
    ice = _make_catalog(base_url, wh)
    r = ice.config()
    if r.status_code != 200:
        pytest.fail(f"GET /iceberg/v1/config?warehouse={ice.warehouse} answered "
                    f"{r.status_code}: {r.text[:300]}", pytrace=False)
    yield ice
    try:
        ice.api_delete(f"metalakes/{ice.metalake}", params={"force": "true"})
    except requests.RequestException:
        pass


@pytest.fixture
def fresh_ice(base_url, tmp_path) -> Ice:
    """A catalog of the test's own (for listings that must see nothing else)."""
    wh = tmp_path / "warehouse"
    wh.mkdir()
    ice = _make_catalog(base_url, wh)
    yield ice
    try:
        ice.api_delete(f"metalakes/{ice.metalake}", params={"force": "true"})
    except requests.RequestException:
        pass


@pytest.fixture
def catalog(ice):
    """A PyIceberg RestCatalog on the session catalog."""
    return ice.pyiceberg()


@pytest.fixture
def ns(catalog) -> str:
    """A fresh top-level namespace."""
    name = unique("ns")
    catalog.create_namespace(name)
    return name
