"""A real Apache Hive standalone metastore (Thrift service, embedded Derby database) on 127.0.0.1
for the hive catalog tests.

The jars come from Maven Central (tests/harness/hive/pom.xml, `mvn dependency:copy-dependencies`)
into CAIRN_TOOLS_DIR/hive-metastore-<version> (default ~/.cache/cairn/...) once per machine. The
metastore runs on the default JDK (17).

  python3 tests/harness/hive_metastore.py start DIR   start one with its database and warehouse
                                               in DIR; prints thrift://127.0.0.1:PORT and writes
                                               it to DIR/uri
  python3 tests/harness/hive_metastore.py stop DIR    stop it
  python3 tests/harness/hive_metastore.py install     only fetch the jars

As a module: `HiveMetastore(dir).start()` / `.stop()` / `.start()` again (same port, same
database), used by the test that stops the metastore; `HiveMetastore.attach(dir)` for one
started by `start`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from jvm_service import (TOOLS_DIR, JvmServer, free_port, install_jars, java, port_open,
                         service_main)

HERE = Path(__file__).resolve().parent
POM = HERE / "hive" / "pom.xml"
VERSION = re.search(r"<hive.version>([^<]+)</hive.version>", POM.read_text()).group(1)
LIB = TOOLS_DIR / f"hive-metastore-{VERSION}" / "lib"


def _log(msg: str) -> None:
    print(f"hive_metastore.py: {msg}", file=sys.stderr, flush=True)


def install() -> Path:
    return install_jars(POM, LIB, VERSION, _log, f"the Apache Hive {VERSION} metastore")


class HiveMetastore(JvmServer):
    label = "the metastore"
    log_name = "metastore.log"

    def __init__(self, data_dir: Path, port: int | None = None):
        super().__init__(Path(data_dir).resolve())
        self.port = port or free_port()

    @classmethod
    def attach(cls, data_dir: Path) -> "HiveMetastore":
        d = Path(data_dir)
        ms = cls(d, int((d / "port").read_text()))
        ms._read_pid()
        return ms

    @property
    def uri(self) -> str:
        return f"thrift://127.0.0.1:{self.port}"

    @property
    def warehouse(self) -> Path:
        return self.dir / "warehouse"

    def _conf_dir(self) -> Path:
        conf = self.dir / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        props = {
            "metastore.thrift.port": str(self.port),
            "metastore.thrift.bind.host": "127.0.0.1",
            "javax.jdo.option.ConnectionURL":
                f"jdbc:derby:;databaseName={self.dir / 'metastore_db'};create=true",
            "javax.jdo.option.ConnectionDriverName": "org.apache.derby.jdbc.EmbeddedDriver",
            "metastore.schema.verification": "false",
            "datanucleus.schema.autoCreateAll": "true",
            "metastore.warehouse.dir": f"file://{self.warehouse}",
            "metastore.warehouse.external.dir": f"file://{self.warehouse}/external",
            # No notification log, statistics tasks or compaction threads: a catalog's metastore.
            "metastore.event.db.notification.api.auth": "false",
            "metastore.compactor.initiator.on": "false",
            "metastore.housekeeping.threads.on": "false",
        }
        body = "".join(f"  <property><name>{k}</name><value>{v}</value></property>\n"
                       for k, v in props.items())
        (conf / "metastore-site.xml").write_text(f"<configuration>\n{body}</configuration>\n")
        return conf

    def start(self, timeout: float = 120.0) -> "HiveMetastore":
        self.dir.mkdir(parents=True, exist_ok=True)
        self.warehouse.mkdir(parents=True, exist_ok=True)
        cp = f"{self._conf_dir()}:{install() / '*'}"
        self._launch([java(), "-Xms128m", "-Xmx512m", "-XX:+UseSerialGC",
                      f"-Dderby.system.home={self.dir}", "-cp", cp,
                      "org.apache.hadoop.hive.metastore.HiveMetaStore"],
                     ready=lambda: port_open(self.port), timeout=timeout,
                     files={"uri": self.uri, "port": str(self.port)}, cwd=self.dir)
        return self


def _start(d: Path) -> str:
    ms = HiveMetastore(d).start()
    ms.proc = None  # outlives this script; `stop` finds it by its pid file
    return ms.uri


def _stop(d: Path) -> None:
    if (d / "port").exists():
        HiveMetastore.attach(d).stop()


if __name__ == "__main__":
    sys.exit(service_main(sys.argv, "hive_metastore.py", install, _start, _stop))
