#!/usr/bin/env python3
"""Runs PyIceberg's own catalog integration tests (tests/integration/test_catalog.py, the
`rest_test_catalog` cases) against Cairn.

Nothing of PyIceberg's is committed here: at run time the sdist of the *installed* pyiceberg
version is downloaded with pip (cached under $CAIRN_PYICEBERG_CACHE, default
~/.cache/cairn/pyiceberg-sdist) and tests/conftest.py + tests/integration/test_catalog.py are
extracted into a temporary directory. A cairn server is started (a copy of CAIRN_BIN; store
from CAIRN_E2E_STORE/CAIRN_E2E_PG_URL, default sqlite) or CAIRN_URL is used; a metalake and a
lakehouse-iceberg catalog are created through /api, and the suite is pointed at it through
PYICEBERG_TEST_CATALOG=cairn and a .pyiceberg.yaml in a private PYICEBERG_HOME (which also holds
the capability flags the suite reads; see README.md).

    tests/iceberg/pyiceberg_upstream/run.py [PYTEST_ARGS...]

Exits with pytest's exit code (non-zero when a test failed or nothing could run).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import requests

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
CAIRN_BIN = Path(os.environ.get("CAIRN_BIN", REPO / "build" / "cairn"))
if not CAIRN_BIN.is_absolute():
    CAIRN_BIN = REPO / CAIRN_BIN
CACHE = Path(os.environ.get("CAIRN_PYICEBERG_CACHE",
                            Path.home() / ".cache" / "cairn" / "pyiceberg-sdist"))

# Capability flags of the suite (tests/conftest.py does_support_*). Environment variables can't
# carry them (PyIceberg turns `_` into `-`), hence the YAML file.
FLAGS = {
    "supports_purge_table": "true",
    "supports_atomic_concurrent_updates": "true",
    "supports_nested_namespaces": "true",
    "supports_schema_evolution": "true",
    "supports_slash_in_identifier": "false",
    "supports_dot_in_identifier": os.environ.get("CAIRN_PYICEBERG_DOT_IN_IDENTIFIER", "true"),
}

# Replaces the suite's session fixture that hides every .pyiceberg.yaml from the tests: the
# catalog config (URI, warehouse, flags) lives in ours.
KEEP_CONFIG_CONFTEST = '''\
"""Written by Cairn's runner: keep PYICEBERG_HOME/.pyiceberg.yaml visible to load_catalog."""
import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolate_pyiceberg_config():
    yield
'''

PYTEST_INI = """\
[pytest]
markers =
    unmarked: marks a test as a unittest
    s3: s3 tests
    adls: adls tests
    integration: integration tests
    gcs: gcs tests
    benchmark: benchmarks
    notebook: notebooks
filterwarnings =
    ignore::DeprecationWarning
"""


def log(msg: str) -> None:
    print(f"pyiceberg-upstream: {msg}", file=sys.stderr, flush=True)


def sdist(version: str) -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"pyiceberg-{version}.tar.gz"
    if not path.exists():
        log(f"downloading the pyiceberg {version} sdist (once; cached in {CACHE})")
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([sys.executable, "-m", "pip", "download", "--disable-pip-version-check",
                            "-q", "--no-deps", "--no-binary", ":all:", f"pyiceberg=={version}",
                            "-d", d], check=True)
            got = list(Path(d).glob("pyiceberg-*.tar.gz"))
            if not got:
                raise SystemExit(f"pip download produced no sdist in {d}")
            shutil.move(str(got[0]), path)
    return path


def extract(archive: Path, version: str, dest: Path) -> None:
    wanted = {"tests/conftest.py", "tests/integration/test_catalog.py"}
    top = f"pyiceberg-{version}/"
    with tarfile.open(archive) as tar:
        for m in tar.getmembers():
            rel = m.name[len(top):] if m.name.startswith(top) else None
            if rel in wanted:
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tar.extractfile(m).read())
                wanted.discard(rel)
    if wanted:
        raise SystemExit(f"not in the sdist: {sorted(wanted)}")
    (dest / "tests" / "integration" / "conftest.py").write_text(KEEP_CONFIG_CONFTEST)
    (dest / "pytest.ini").write_text(PYTEST_INI)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def with_db(url: str, db: str) -> str:
    if "://" in url:
        p = urlsplit(url)
        return urlunsplit((p.scheme, p.netloc, "/" + db, p.query, p.fragment))
    return " ".join([x for x in url.split() if not x.startswith("dbname=")] + [f"dbname={db}"])


class Cairn:
    def __init__(self, work: Path):
        self.work = work
        self.proc = None
        self.pg_db = None
        self.pg_admin = None

    def start(self) -> str:
        if os.environ.get("CAIRN_URL"):
            return os.environ["CAIRN_URL"].rstrip("/")
        if not CAIRN_BIN.is_file():
            raise SystemExit(f"server binary {CAIRN_BIN} not found; run `make build` first")
        binary = self.work / "cairn"
        shutil.copy2(CAIRN_BIN, binary)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
        store = os.environ.get("CAIRN_E2E_STORE", "sqlite")
        env["CAIRN_STORE_TYPE"] = store
        env["CAIRN_LOG_LEVEL"] = os.environ.get("CAIRN_LOG_LEVEL", "warn")
        if store == "postgres":
            base = os.environ["CAIRN_E2E_PG_URL"]
            self.pg_db = f"cairn_pyi_{uuid.uuid4().hex[:12]}"
            self.pg_admin = with_db(base, "postgres")
            subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.pg_admin,
                            "-c", f"CREATE DATABASE {self.pg_db}"], check=True,
                           capture_output=True)
            env["CAIRN_STORE_POSTGRES_URL"] = with_db(base, self.pg_db)
        data = self.work / "data"
        data.mkdir(exist_ok=True)
        logf = open(self.work / "cairn.log", "ab")  # noqa: SIM115
        for _ in range(3):
            port = free_port()
            self.proc = subprocess.Popen(
                [str(binary), "serve", "--host", "127.0.0.1", "--port", str(port),
                 "--data-dir", str(data)],
                stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    if requests.get(f"http://127.0.0.1:{port}/api/version",
                                    timeout=2).status_code == 200:
                        return f"http://127.0.0.1:{port}"
                except requests.RequestException:
                    pass
                time.sleep(0.1)
            self.proc.kill()
            self.proc.wait()
        tail = (self.work / "cairn.log").read_text(errors="replace")[-3000:]
        raise SystemExit(f"could not start cairn:\n{tail}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.pg_db:
            subprocess.run(["psql", "-X", "-q", "-d", self.pg_admin, "-c",
                            f"DROP DATABASE IF EXISTS {self.pg_db} WITH (FORCE)"],
                           capture_output=True)


def create_catalog(url: str, warehouse_dir: Path) -> str:
    hdrs = {"Content-Type": "application/json", "Accept": "application/vnd.gravitino.v1+json"}
    ml, cat = f"pyi_{uuid.uuid4().hex[:8]}", "upstream"
    r = requests.post(f"{url}/api/metalakes", headers=hdrs, timeout=30,
                      data=json.dumps({"name": ml, "comment": "pyiceberg", "properties": {}}))
    r.raise_for_status()
    r = requests.post(f"{url}/api/metalakes/{ml}/catalogs", headers=hdrs, timeout=30,
                      data=json.dumps({"name": cat, "type": "relational",
                                       "provider": "lakehouse-iceberg", "comment": "pyiceberg",
                                       "properties": {"catalog-backend": "managed",
                                                      "warehouse": str(warehouse_dir)}}))
    r.raise_for_status()
    return f"{ml}.{cat}"


def main(argv: list[str]) -> int:
    version = importlib.metadata.version("pyiceberg")
    archive = sdist(version)
    keep = os.environ.get("CAIRN_PYICEBERG_KEEP") == "1"
    work = Path(tempfile.mkdtemp(prefix="cairn-pyiceberg-"))
    server = Cairn(work)
    try:
        suite = work / "suite"
        suite.mkdir()
        extract(archive, version, suite)
        url = server.start()
        wh = work / "warehouse"
        wh.mkdir()
        warehouse = create_catalog(url, wh)
        r = requests.get(f"{url}/iceberg/v1/config", params={"warehouse": warehouse}, timeout=30)
        if r.status_code != 200:
            log(f"GET /iceberg/v1/config answered {r.status_code}: {r.text[:300]}; not run")
            return 1
        home = work / "home"
        home.mkdir()
        lines = ["catalog:", "  cairn:", "    type: rest", f"    uri: {url}/iceberg",
                 f"    warehouse: {warehouse}"]
        lines += [f"    {k}: \"{v}\"" for k, v in FLAGS.items()]
        (home / ".pyiceberg.yaml").write_text("\n".join(lines) + "\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYICEBERG_")}
        env.update(PYICEBERG_HOME=str(home), PYICEBERG_TEST_CATALOG="cairn")
        log(f"pyiceberg {version} test_catalog.py (rest_test_catalog) against {url}/iceberg "
            f"warehouse={warehouse}")
        cmd = [sys.executable, "-m", "pytest", "tests/integration/test_catalog.py",
               "-m", "integration", "-k", "rest_test_catalog", "-p", "no:cacheprovider",
               "-rfEs", *argv]
        rc = subprocess.run(cmd, cwd=suite, env=env).returncode
        if rc == 5:
            log("no test selected")
            return 1
        return rc
    finally:
        server.stop()
        if keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
