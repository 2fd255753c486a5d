"""Iceberg's Java reference REST catalog server, shared by bench/run.py and tests/federation.

The runnable jar of org.apache.iceberg:iceberg-open-api:<REF_VERSION> (main class
org.apache.iceberg.rest.RESTCatalogServer) is fetched once with Maven into
~/.cache/cairn-bench and started on 127.0.0.1 over a JDBC catalog in a SQLite file, with its
warehouse under the given work directory. Needs `java` (17+) and, for the first fetch, `mvn`.
No pytest import: bench/run.py uses this module too.

* `ensure_reference_jar(log)` - the jar's path, fetched if missing (RuntimeError when it cannot).
* `reference_argv_env(workdir, port)` - the command line and environment of one server.
* `start_reference(workdir, log_path)` - a `Reference` (url, port, proc), ready once GET
  /v1/config answers 200; `Reference.stop()`.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REF_VERSION = "1.10.1"
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "cairn-bench")
REF_JAR = os.path.join(CACHE, f"iceberg-open-api-{REF_VERSION}.jar")


def ensure_reference_jar(log=print) -> str:
    if os.path.exists(REF_JAR):
        return REF_JAR
    os.makedirs(CACHE, exist_ok=True)
    log(f"fetching org.apache.iceberg:iceberg-open-api:{REF_VERSION} into {CACHE}")
    subprocess.run(["mvn", "-q", "dependency:copy",
                    f"-Dartifact=org.apache.iceberg:iceberg-open-api:{REF_VERSION}",
                    f"-DoutputDirectory={CACHE}"], check=True, cwd=CACHE)
    if not os.path.exists(REF_JAR):
        raise RuntimeError(f"{REF_JAR} missing after mvn dependency:copy")
    return REF_JAR


def reference_argv_env(workdir, port: int) -> tuple[list[str], dict]:
    env = dict(os.environ,
               CATALOG_CATALOG__IMPL="org.apache.iceberg.jdbc.JdbcCatalog",
               CATALOG_URI=f"jdbc:sqlite:{workdir}/peer.db?journal_mode=WAL&busy_timeout=30000",
               CATALOG_JDBC_USER="user", CATALOG_JDBC_PASSWORD="password",
               CATALOG_WAREHOUSE=f"file://{workdir}/warehouse",
               CATALOG_REST_PORT=str(port))
    return ["java", "-Dorg.slf4j.simpleLogger.defaultLogLevel=WARN", "-jar", REF_JAR], env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Reference:
    url: str
    port: int
    proc: subprocess.Popen

    def stop(self, timeout: float = 20) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_reference(workdir, log_path, timeout: float = 120, log=print) -> Reference:
    ensure_reference_jar(log)
    Path(workdir).mkdir(parents=True, exist_ok=True)
    port = _free_port()
    argv, env = reference_argv_env(workdir, port)
    with open(log_path, "ab") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the reference server exited with {proc.returncode}; see {log_path}")
        try:
            with urllib.request.urlopen(f"{url}/v1/config", timeout=2) as r:
                if r.status == 200:
                    return Reference(url, port, proc)
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    proc.wait()
    raise RuntimeError(f"the reference server was not ready within {timeout}s; see {log_path}")
