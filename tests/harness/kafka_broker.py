"""A real Apache Kafka broker (KRaft mode, one node as broker and controller) on 127.0.0.1 for the
topic tests, and Kafka's own command-line tools beside it.

The jars come from Maven Central (tests/harness/kafka/pom.xml, `mvn dependency:copy-dependencies`)
into CAIRN_TOOLS_DIR/kafka-<version> (default ~/.cache/cairn/kafka-<version>) once per machine.
The broker runs on the default JDK (17+).

  python3 tests/harness/kafka_broker.py start DIR   start a broker with its data in DIR; prints the
                                             bootstrap address and writes it to DIR/bootstrap
  python3 tests/harness/kafka_broker.py stop DIR    stop it
  python3 tests/harness/kafka_broker.py install     only fetch the jars

As a module: `KafkaBroker(dir).start()` / `.stop()` / `.start()` again (same ports, same data),
used by the test that stops the broker; `KafkaBroker.attach(dir)` for one started by `start`;
`topics_cli(bootstrap, *args)` runs Kafka's `kafka-topics` tool.
"""

from __future__ import annotations

import base64
import re
import subprocess
import sys
import uuid
from pathlib import Path

from jvm_service import (TOOLS_DIR, JvmServer, free_port, install_jars, java, port_open,
                         service_main)

HERE = Path(__file__).resolve().parent
POM = HERE / "kafka" / "pom.xml"
VERSION = re.search(r"<kafka.version>([^<]+)</kafka.version>", POM.read_text()).group(1)
LIB = TOOLS_DIR / f"kafka-{VERSION}" / "lib"


def _log(msg: str) -> None:
    print(f"kafka_broker.py: {msg}", file=sys.stderr, flush=True)


def install() -> Path:
    return install_jars(POM, LIB, VERSION, _log, f"Apache Kafka {VERSION}")


def _classpath() -> str:
    return str(install() / "*")


def topics_cli(bootstrap: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Kafka's own `kafka-topics` tool against `bootstrap`."""
    return subprocess.run(
        [java(), "-cp", _classpath(), "org.apache.kafka.tools.TopicCommand",
         "--bootstrap-server", bootstrap, *args],
        capture_output=True, text=True, check=check, timeout=120)


def configs_cli(bootstrap: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Kafka's own `kafka-configs` tool against `bootstrap`."""
    return subprocess.run(
        [java(), "-cp", _classpath(), "kafka.admin.ConfigCommand",
         "--bootstrap-server", bootstrap, *args],
        capture_output=True, text=True, check=check, timeout=120)


class KafkaBroker(JvmServer):
    label = "Kafka"
    log_name = "kafka.log"

    def __init__(self, data_dir: Path, port: int | None = None,
                 controller_port: int | None = None,
                 tls_keystore: tuple[Path, str] | None = None):
        """`tls_keystore`, a PKCS#12 key store and its password: the broker also has an SSL
        listener (`tls_bootstrap`) serving that certificate."""
        super().__init__(data_dir)
        self.port = port or free_port()
        self.controller_port = controller_port or free_port()
        self.tls_keystore = tls_keystore
        self.tls_port = free_port() if tls_keystore else None

    @classmethod
    def attach(cls, data_dir: Path) -> "KafkaBroker":
        """The broker `start DIR` left running: its ports from DIR's files."""
        d = Path(data_dir)
        broker = cls(d, *(int(x) for x in (d / "ports").read_text().split()))
        broker._read_pid()
        return broker

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def tls_bootstrap(self) -> str:
        return f"127.0.0.1:{self.tls_port}"

    def _config(self) -> Path:
        conf = self.dir / "server.properties"
        listeners = [f"PLAINTEXT://127.0.0.1:{self.port}"]
        tls = []
        if self.tls_keystore:
            listeners.append(f"SSL://127.0.0.1:{self.tls_port}")
            store, password = self.tls_keystore
            tls = ["inter.broker.listener.name=PLAINTEXT", "ssl.keystore.type=PKCS12",
                   f"ssl.keystore.location={store}", f"ssl.keystore.password={password}",
                   f"ssl.key.password={password}"]
        conf.write_text("\n".join([
            "process.roles=broker,controller",
            "node.id=1",
            f"controller.quorum.voters=1@127.0.0.1:{self.controller_port}",
            f"listeners={','.join(listeners)},CONTROLLER://127.0.0.1:{self.controller_port}",
            f"advertised.listeners={','.join(listeners)}",
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL",
            *tls,
            f"log.dirs={self.dir / 'data'}",
            "num.partitions=1",
            "offsets.topic.replication.factor=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "auto.create.topics.enable=false",
            "",
        ]))
        return conf

    def start(self, timeout: float = 60.0) -> "KafkaBroker":
        self.dir.mkdir(parents=True, exist_ok=True)
        conf = self._config()
        cp = _classpath()
        if not (self.dir / "data" / "meta.properties").exists():
            # A cluster id is a UUID in base64url; one that starts with '-' reads as an option
            # to StorageTool's argument parser (1 run in 64 failed so), so draw until it does not.
            cluster = "-"
            while cluster.startswith("-"):
                cluster = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
            subprocess.run([java(), "-cp", cp, "kafka.tools.StorageTool", "format", "-t",
                            cluster, "-c", str(conf)], check=True, capture_output=True,
                           timeout=120)
        # The listener is up first; the broker answers once it has joined its own quorum.
        self._launch([java(), "-Xms256m", "-Xmx512m", "-XX:+UseSerialGC", "-cp", cp,
                      "kafka.Kafka", str(conf)],
                     ready=lambda: port_open(self.port) and topics_cli(
                         self.bootstrap, "--list", check=False).returncode == 0,
                     timeout=timeout,
                     files={"bootstrap": self.bootstrap,
                            "ports": f"{self.port} {self.controller_port}"})
        return self


def _start(d: Path) -> str:
    broker = KafkaBroker(d).start()
    broker.proc = None  # outlives this script; `stop` finds it by its pid file
    return broker.bootstrap


def _stop(d: Path) -> None:
    if (d / "ports").exists():
        KafkaBroker.attach(d).stop()


if __name__ == "__main__":
    sys.exit(service_main(sys.argv, "kafka_broker.py", install, _start, _stop))
