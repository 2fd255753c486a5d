"""What the harnesses of the JVM servers the tests start (Kafka, the Hive metastore, Trino) share:
their jars fetched from Maven Central once per machine, a `java` to run them, free loopback
ports, the process (JvmServer: launched in a group of its own, waited for, stopped), and the
`start DIR` / `stop DIR` / `install` command line of a server that outlives the script that
started it (its pid and ports in DIR)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from process_group import stop_group

TOOLS_DIR = Path(os.environ.get("CAIRN_TOOLS_DIR", Path.home() / ".cache" / "cairn"))


def copy_dependencies(pom: Path, dest: Path) -> None:
    """`mvn dependency:copy-dependencies` of `pom` (runtime scope) into `dest`, replacing it."""
    if shutil.which("mvn") is None:
        raise RuntimeError(f"Maven (mvn) is needed once to fetch the jars of {pom}")
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    # Maven's output goes to stderr: `start` prints only the server's address on stdout.
    subprocess.run(["mvn", "-q", "-B", "--no-transfer-progress", "-Dstyle.color=never", "-f",
                    str(pom), "dependency:copy-dependencies", f"-DoutputDirectory={tmp}",
                    "-DincludeScope=runtime"], check=True, stdout=sys.stderr)
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp.rename(dest)


def install_jars(pom: Path, lib: Path, version: str, log: Callable[[str], None],
                 what: str) -> Path:
    """`lib` holding the jars of `pom`, fetched unless a previous fetch completed."""
    stamp = lib / ".complete"
    if stamp.exists():
        return lib
    log(f"fetching {what} from Maven Central into {lib} (once per machine)")
    copy_dependencies(pom, lib)
    stamp.write_text(version + "\n")
    return lib


def java() -> str:
    """$JAVA_HOME's java, else the one on PATH (the default JDK, 17)."""
    home = os.environ.get("JAVA_HOME")
    if home and os.access(Path(home) / "bin" / "java", os.X_OK):
        return str(Path(home) / "bin" / "java")
    exe = shutil.which("java")
    if exe is None:
        raise RuntimeError("a JDK (17+) is needed to run the test servers")
    return exe


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class JvmServer:
    """A server the tests run in a process group of its own, with its log, its pid and the files
    that name it in `dir`. `stop` ends the group, also one an earlier script started (`pid`, read
    back by a subclass's `attach`)."""

    label = "the server"     # in messages
    log_name = "server.log"  # under dir

    def __init__(self, data_dir: Path):
        self.dir = Path(data_dir)
        self.proc: subprocess.Popen | None = None
        self.pid: int | None = None

    def _read_pid(self) -> None:
        pid = self.dir / "pid"
        self.pid = int(pid.read_text()) if pid.exists() else None

    def _launch(self, argv: list[str], ready: Callable[[], bool], timeout: float,
                files: dict[str, str], cwd: Path | None = None, poll_s: float = 0.3) -> None:
        """Starts `argv` and waits until `ready()`: raises (with the log's name) when the process
        exits first or `timeout` passes. Then writes `files` (name -> text) and the pid."""
        log = open(self.dir / self.log_name, "ab")
        self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True, cwd=cwd)
        self.pid = self.proc.pid
        deadline = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.label} exited with {self.proc.returncode}; "
                                   f"see {self.dir}/{self.log_name}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.label} not ready after {timeout}s; "
                                   f"see {self.dir}/{self.log_name}")
            time.sleep(poll_s)
        for name, text in files.items():
            (self.dir / name).write_text(text + "\n")
        (self.dir / "pid").write_text(f"{self.pid}\n")

    def stop(self) -> None:
        pid = self.proc.pid if self.proc is not None else self.pid
        if pid is None:
            return
        stop_group(pid, self.proc)
        self.proc = None
        self.pid = None
        (self.dir / "pid").unlink(missing_ok=True)


def service_main(argv: list[str], script: str, install: Callable[[], Path],
                 start: Callable[[Path], str], stop: Callable[[Path], None]) -> int:
    """The command line `SCRIPT {start|stop} DIR | install`: `start` prints what `start(DIR)`
    returns (the server's address) on stdout."""
    if len(argv) == 2 and argv[1] == "install":
        print(install())
        return 0
    if len(argv) != 3 or argv[1] not in ("start", "stop"):
        print(f"usage: {script} {{start|stop}} DIR | install", file=sys.stderr)
        return 2
    d = Path(argv[2])
    if argv[1] == "start":
        print(start(d))
    else:
        stop(d)
    return 0
