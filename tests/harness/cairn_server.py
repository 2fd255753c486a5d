"""Starting and stopping `cairn serve` for the pytest suites (tests/e2e, tests/iceberg,
tests/security); their conftests put tests/harness on sys.path and import this module.

* `store_env(prefix)` - context manager giving the metadata-store settings chosen by
  CAIRN_E2E_STORE (`sqlite`, the default, or `postgres`; for postgres CAIRN_E2E_PG_URL points at
  a running cluster and a fresh database `<prefix>_<random>` is created and dropped around it,
  see `fresh_pg_database`).
* `cairn_binary(copy_to=None)` - CAIRN_BIN (default build/cairn), checked; optionally copied, so
  that a rebuild during the run does not replace the running binary.
* `start_cairn(name, env, data_dir, log_dir)` - one `cairn serve` on a free 127.0.0.1 port,
  ready once GET /api/version answers 200; its output goes to log_dir/cairn-<name>.log.
* `Server.stop()` - SIGTERM, and the process must exit with code 0 (pytest.fail otherwise);
  `Server.log_tail()`, `Server.remove_data()` (unless CAIRN_E2E_KEEP_DATA=1).
* `running_cairn(...)` - start_cairn + stop + remove_data around a `with` block.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

REPO = Path(__file__).resolve().parents[2]
CAIRN_BIN = Path(os.environ.get("CAIRN_BIN", REPO / "build" / "cairn"))
STARTUP_TIMEOUT_S = float(os.environ.get("CAIRN_E2E_STARTUP_TIMEOUT", "30"))
SHUTDOWN_TIMEOUT_S = 20.0


def _fail(msg: str):
    pytest.fail(msg, pytrace=False)


@dataclass
class Server:
    """A `cairn serve` process (or, with proc None, an external server known by its URL)."""

    url: str
    port: int | None = None
    data_dir: Path | None = None
    log_path: Path | None = None
    proc: subprocess.Popen | None = None
    env: dict = field(default_factory=dict)

    @property
    def store(self) -> str:
        return self.env.get("CAIRN_STORE_TYPE", "")

    @property
    def audit_log(self) -> Path:
        return self.data_dir / "audit" / "audit.log"

    def log_tail(self, n: int = 60) -> str:
        if self.log_path is None:
            return "<external server>"
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "<no log>"

    def stop(self) -> None:
        """SIGTERM; the process must still be running and must exit with code 0."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is not None:
            _fail(f"cairn died during the run (exit {proc.returncode})\n{self.log_tail()}")
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            _fail(f"cairn did not exit within {SHUTDOWN_TIMEOUT_S}s of SIGTERM")
        if rc != 0:
            _fail(f"cairn exited with {rc} after SIGTERM\n{self.log_tail()}")

    def remove_data(self) -> None:
        if self.data_dir is not None and os.environ.get("CAIRN_E2E_KEEP_DATA") != "1":
            shutil.rmtree(self.data_dir, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# Metadata store: sqlite, or a fresh database on the PostgreSQL cluster the outer runner started
# ---------------------------------------------------------------------------------------------


def pg_url_with_db(url: str, db: str) -> str:
    """`url` (postgresql://... or key=value conninfo) pointed at database `db`."""
    if "://" in url:
        parts = urlsplit(url)
        return urlunsplit((parts.scheme, parts.netloc, "/" + db, parts.query, parts.fragment))
    kv = [p for p in url.split() if not p.startswith("dbname=")]
    return " ".join(kv + [f"dbname={db}"])


def psql(url: str, sql: str) -> None:
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                   check=True, capture_output=True, timeout=60)


@contextmanager
def fresh_pg_database(base_url: str, prefix: str = "cairn_test") -> Iterator[str]:
    """Creates `<prefix>_<random>` on the cluster of base_url, yields its URL, drops it after
    (best effort: the cluster is a throwaway one)."""
    db = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin_url = pg_url_with_db(base_url, "postgres")
    psql(admin_url, f"CREATE DATABASE {db}")
    try:
        yield pg_url_with_db(base_url, db)
    finally:
        try:
            psql(admin_url, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        except Exception:  # noqa: BLE001 - best effort cleanup of a throwaway cluster
            pass


def store_kind() -> str:
    """CAIRN_E2E_STORE (sqlite, postgres or mysql), checked together with CAIRN_E2E_PG_URL or
    the CAIRN_TEST_MYSQL_* settings of the run's MariaDB."""
    kind = os.environ.get("CAIRN_E2E_STORE", "sqlite").lower()
    if kind not in ("sqlite", "postgres", "mysql"):
        _fail(f"CAIRN_E2E_STORE must be sqlite, postgres or mysql, not {kind!r}")
    if kind == "postgres" and not os.environ.get("CAIRN_E2E_PG_URL"):
        _fail("CAIRN_E2E_STORE=postgres needs CAIRN_E2E_PG_URL")
    if kind == "mysql" and not os.environ.get("CAIRN_TEST_MYSQL_HOST"):
        _fail("CAIRN_E2E_STORE=mysql needs CAIRN_TEST_MYSQL_HOST (tests/e2e/run.sh starts MariaDB)")
    return kind


def mysql_cli(sql: str) -> None:
    """Runs `sql` on the run's MariaDB as its test user (the mariadb client, over TCP)."""
    e = os.environ
    subprocess.run(["mariadb", "-h", e["CAIRN_TEST_MYSQL_HOST"], "-P", e["CAIRN_TEST_MYSQL_PORT"],
                    "-u", e["CAIRN_TEST_MYSQL_USER"], f"-p{e['CAIRN_TEST_MYSQL_PASSWORD']}",
                    "-e", sql], check=True, capture_output=True, timeout=60)


@contextmanager
def fresh_mysql_database(prefix: str = "cairn_test") -> Iterator[str]:
    """Creates `<prefix>_<random>` on the run's MariaDB, yields its store URL, drops it after."""
    e = os.environ
    db = f"{prefix}_{uuid.uuid4().hex[:12]}"
    mysql_cli(f"CREATE DATABASE {db}")
    try:
        yield (f"mysql://{e['CAIRN_TEST_MYSQL_USER']}:{e['CAIRN_TEST_MYSQL_PASSWORD']}@"
               f"{e['CAIRN_TEST_MYSQL_HOST']}:{e['CAIRN_TEST_MYSQL_PORT']}/{db}")
    finally:
        try:
            mysql_cli(f"DROP DATABASE IF EXISTS {db}")
        except Exception:  # noqa: BLE001 - best effort cleanup of a throwaway server
            pass


@contextmanager
def store_env(prefix: str = "cairn_test") -> Iterator[dict]:
    """The CAIRN_STORE_* settings for one server (a fresh PostgreSQL database per call)."""
    if store_kind() == "sqlite":
        yield {"CAIRN_STORE_TYPE": "sqlite"}
        return
    if store_kind() == "mysql":
        with fresh_mysql_database(prefix) as url:
            yield {"CAIRN_STORE_TYPE": "mysql", "CAIRN_STORE_MYSQL_URL": url}
        return
    with fresh_pg_database(os.environ["CAIRN_E2E_PG_URL"], prefix) as url:
        yield {"CAIRN_STORE_TYPE": "postgres", "CAIRN_STORE_POSTGRES_URL": url}


# ---------------------------------------------------------------------------------------------
# The server process
# ---------------------------------------------------------------------------------------------


def cairn_binary(copy_to: Path | None = None) -> Path:
    """CAIRN_BIN, which must be an executable file; copied into the directory copy_to if given."""
    if not CAIRN_BIN.is_file() or not os.access(CAIRN_BIN, os.X_OK):
        _fail(f"server binary {CAIRN_BIN} not found; run `make build` first")
    if copy_to is None:
        return CAIRN_BIN
    binary = Path(copy_to) / "cairn"
    shutil.copy2(CAIRN_BIN, binary)
    return binary


def start_cairn(name: str, env: dict, data_dir: Path, log_dir: Path,
                binary: Path | None = None, ca_file: Path | None = None) -> Server:
    """Starts `binary serve` (default: CAIRN_BIN) on a free port (3 tries) with the CAIRN_*
    settings `env` on top of this process's environment without its CAIRN_* variables
    (CAIRN_LOG_LEVEL defaults to this process's, else info). Output: log_dir/cairn-<name>.log.
    With `ca_file` the server speaks HTTPS (its certificate signed by that CA)."""
    scheme = "https" if ca_file else "http"
    verify = str(ca_file) if ca_file else True
    binary = cairn_binary() if binary is None else binary
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    full_env["CAIRN_LOG_LEVEL"] = os.environ.get("CAIRN_LOG_LEVEL", "info")
    full_env.update(env)
    log_path = Path(log_dir) / f"cairn-{name}.log"
    last_err = ""
    for _attempt in range(3):
        port = free_port()
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(
                [str(binary), "serve", "--host", "127.0.0.1", "--port", str(port),
                 "--data-dir", str(data_dir)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=full_env)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                last_err = f"cairn exited early with code {proc.returncode}"
                break
            try:
                r = requests.get(f"{scheme}://127.0.0.1:{port}/api/version", timeout=2,
                                 verify=verify)
                if r.status_code == 200:
                    return Server(f"{scheme}://127.0.0.1:{port}", port, Path(data_dir),
                                  log_path, proc, full_env)
            except requests.RequestException:
                pass
            time.sleep(0.1)
        else:
            proc.kill()
            proc.wait()
            last_err = f"/api/version did not answer 200 within {STARTUP_TIMEOUT_S}s"
            break
    tail = Server("", log_path=log_path).log_tail()
    _fail(f"could not start cairn: {last_err}\n--- log ---\n{tail}")


@contextmanager
def running_cairn(name: str, env: dict, data_dir: Path, log_dir: Path,
                  binary: Path | None = None, ca_file: Path | None = None) -> Iterator[Server]:
    """start_cairn for the duration of a `with` block; stopped (exit 0 required) after it, its
    data dir removed unless CAIRN_E2E_KEEP_DATA=1 or the stop failed."""
    srv = start_cairn(name, env, data_dir, log_dir, binary, ca_file)
    try:
        yield srv
    except BaseException:
        if srv.proc.poll() is None:
            srv.proc.kill()
            srv.proc.wait()
        raise
    srv.stop()
    srv.remove_data()
