"""A real Trino server (coordinator and worker in one) on 127.0.0.1 for the engines suite.

Since Trino 477 the server tarball is not on Maven Central, so the server is assembled from it:
the runtime dependencies of `io.trino:trino-main` (tests/harness/trino/server-pom.xml) started by
TrinoMain.java, and the Iceberg connector from those of `io.trino:trino-iceberg`
(iceberg-pom.xml) with the `META-INF/services/io.trino.spi.Plugin` entry the published jar
lacks. The jars go to CAIRN_TOOLS_DIR/trino-<version> (default ~/.cache/cairn/trino-<version>)
once per machine. Trino 483 runs on Java 25: CAIRN_TRINO_JAVA_HOME, else the Temurin 25 JDK in
/usr/lib/jvm, else JAVA_HOME if it is 25 or newer.

Catalogs are made at run time (`catalog.management=dynamic`, kept in memory): each test suite
points a catalog of its own at its own Cairn with `CREATE CATALOG ... USING iceberg WITH (...)`.

  python3 tests/harness/trino_server.py start DIR   start a server with its files in DIR; prints its
                                            URL and writes it to DIR/url
  python3 tests/harness/trino_server.py stop DIR    stop it
  python3 tests/harness/trino_server.py install     only fetch the jars

As a module: `TrinoServer(dir).start()` / `.stop()`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

from jvm_service import TOOLS_DIR, JvmServer, copy_dependencies, free_port, service_main

HERE = Path(__file__).resolve().parent / "trino"
SERVER_POM = HERE / "server-pom.xml"
ICEBERG_POM = HERE / "iceberg-pom.xml"
MAIN = HERE / "TrinoMain.java"
VERSION = re.search(r"<trino.version>([^<]+)</trino.version>", SERVER_POM.read_text()).group(1)
HOME = TOOLS_DIR / f"trino-{VERSION}"
PLUGIN_CLASS = "io.trino.plugin.iceberg.IcebergPlugin"
MIN_JAVA = 25


def _log(msg: str) -> None:
    print(f"trino_server.py: {msg}", file=sys.stderr, flush=True)


def install() -> Path:
    """HOME with server/ (trino-main and its dependencies) and plugin/iceberg/."""
    stamp = HOME / ".complete"
    if stamp.exists():
        return HOME
    if shutil.which("mvn") is None:
        raise RuntimeError("Maven (mvn) is needed once to fetch Trino's jars")
    _log(f"fetching Trino {VERSION} from Maven Central into {HOME} (once per machine)")
    copy_dependencies(SERVER_POM, HOME / "server")
    plugin = HOME / "plugin" / "iceberg"
    copy_dependencies(ICEBERG_POM, plugin)
    # The plugin class loader finds the plugin through this service entry.
    with zipfile.ZipFile(plugin / "cairn-trino-iceberg-plugin-entry.jar", "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
        jar.writestr("META-INF/services/io.trino.spi.Plugin", PLUGIN_CLASS + "\n")
    stamp.write_text(VERSION + "\n")
    return HOME


def _java_version(java: Path) -> int:
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True,
                             timeout=30).stderr
    except OSError:
        return 0
    m = re.search(r'version "(\d+)', out)
    return int(m.group(1)) if m else 0


def java() -> str:
    """A `java` of version 25 or newer, with the jdk.incubator.vector module Trino needs."""
    candidates = []
    if os.environ.get("CAIRN_TRINO_JAVA_HOME"):
        candidates.append(Path(os.environ["CAIRN_TRINO_JAVA_HOME"]))
    candidates += sorted(Path("/usr/lib/jvm").glob("temurin-*-jdk*"), reverse=True)
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    for home in candidates:
        exe = home / "bin" / "java"
        if exe.is_file() and _java_version(exe) >= MIN_JAVA:
            return str(exe)
    raise RuntimeError(f"Trino {VERSION} needs a JDK {MIN_JAVA}+ (set CAIRN_TRINO_JAVA_HOME); "
                       f"looked at {', '.join(map(str, candidates)) or 'nothing'}")


class TrinoServer(JvmServer):
    label = "Trino"
    log_name = "trino.log"

    def __init__(self, data_dir: Path, port: int | None = None,
                 trust_store: Path | None = None, trust_store_password: str = "changeit"):
        """`trust_store`: a PKCS#12 trust store that replaces the JVM's, so Trino's HTTPS clients
        (the Iceberg REST catalog's) trust the test run's own CA."""
        super().__init__(data_dir)
        self.port = port or free_port()
        self.trust = ([f"-Djavax.net.ssl.trustStore={trust_store}",
                       f"-Djavax.net.ssl.trustStorePassword={trust_store_password}",
                       "-Djavax.net.ssl.trustStoreType=PKCS12"] if trust_store else [])

    @classmethod
    def attach(cls, data_dir: Path) -> "TrinoServer":
        d = Path(data_dir)
        srv = cls(d, int((d / "port").read_text()))
        srv._read_pid()
        return srv

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/v1/info", timeout=2) as r:
                return b'"starting":false' in r.read().replace(b" ", b"")
        except OSError:
            return False

    def start(self, timeout: float = 180.0) -> "TrinoServer":
        home = install()
        exe = java()
        self.dir.mkdir(parents=True, exist_ok=True)
        conf = self.dir / "config.properties"
        conf.write_text("\n".join([
            "coordinator=true",
            "node-scheduler.include-coordinator=true",
            f"http-server.http.port={self.port}",
            f"discovery.uri={self.url}",
            "catalog.management=dynamic",
            "catalog.store=memory",
            f"plugin.dir={home / 'plugin'}",
            "query.max-memory=1GB",
            "query.max-memory-per-node=1GB",
            # Two cores: fewer threads than Trino's defaults for a large machine.
            "task.concurrency=2",
            "task.max-worker-threads=8",
            "",
        ]))
        self._launch(
            [exe, "-Xms512m", "-Xmx2g", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError",
             "--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
             "--sun-misc-unsafe-memory-access=allow", "-XX:+EnableDynamicAgentLoading",
             "-Djdk.attach.allowAttachSelf=true", "-Dfile.encoding=UTF-8",
             f"-Dconfig={conf}", "-Dnode.environment=test", "-Dnode.id=cairn-test",
             f"-Dnode.data-dir={self.dir / 'data'}", "-Dlog.enable-color=false",
             f"-Dcairn.trino.version={VERSION}", *self.trust,
             "-cp", str(home / "server" / "*"), str(MAIN)],
            ready=self._ready, timeout=timeout, files={"url": self.url, "port": str(self.port)},
            cwd=self.dir, poll_s=0.5)
        return self


def _start(d: Path) -> str:
    srv = TrinoServer(d).start()
    srv.proc = None  # outlives this script; `stop` finds it by its pid file
    return srv.url


def _stop(d: Path) -> None:
    if (d / "port").exists():
        TrinoServer.attach(d).stop()


if __name__ == "__main__":
    sys.exit(service_main(sys.argv, "trino_server.py", install, _start, _stop))
