"""A real S3-compatible server (MinIO, with STS) on 127.0.0.1 for the storage tests.

The binary is built once from the Go module proxy into CAIRN_TOOLS_DIR (default
~/.cache/cairn/bin) and reused by later runs. Root keys are admin/password; the bucket
`warehouse` exists after start.

  python3 tests/harness/minio.py start DIR   start a server with its data in DIR; prints the
                                             endpoint URL and writes it to DIR/url
  python3 tests/harness/minio.py stop DIR    stop it
  python3 tests/harness/minio.py install     only build/locate the binary

As a module: `MinioServer(dir).start()` / `.stop()` / `.restart()` (same port), used by the
fault tests that stop storage mid-test.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

MINIO_MODULE = "github.com/minio/minio"
MINIO_VERSION = "v0.0.0-20260212201848-7aac2a2c5b7c"
ROOT_USER = "admin"
ROOT_PASSWORD = "password"
REGION = "us-east-1"
BUCKET = "warehouse"
TOOLS_DIR = Path(os.environ.get("CAIRN_TOOLS_DIR", Path.home() / ".cache" / "cairn" / "bin"))


def _log(msg: str) -> None:
    print(f"minio.py: {msg}", file=sys.stderr, flush=True)


def install() -> Path:
    binary = TOOLS_DIR / "minio"
    stamp = TOOLS_DIR / "minio.version"
    if binary.exists() and stamp.exists() and stamp.read_text().strip() == MINIO_VERSION:
        return binary
    go = shutil.which("go") or next(
        (p for p in ("/usr/local/go/bin/go", "/usr/lib/go/bin/go") if os.access(p, os.X_OK)), None)
    if go is None:
        raise RuntimeError("the Go toolchain is needed to build MinIO (go install)")
    TOOLS_DIR.mkdir(parents=True, exist_ok=True)
    _log(f"building MinIO {MINIO_VERSION} into {TOOLS_DIR} (once per machine)")
    env = dict(os.environ, GOBIN=str(TOOLS_DIR), GOFLAGS="-mod=mod")
    subprocess.run([go, "install", f"{MINIO_MODULE}@{MINIO_VERSION}"], env=env, check=True)
    stamp.write_text(MINIO_VERSION + "\n")
    return binary


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(port: int, ca_file: Path | None = None) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as raw:
            s = (ssl.create_default_context(cafile=str(ca_file)).wrap_socket(
                raw, server_hostname="127.0.0.1") if ca_file else raw)
            s.sendall(b"GET /minio/health/live HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            status_line = s.recv(64).split(b"\r\n", 1)[0]
            return b" 200" in status_line
    except OSError:
        return False


def _curl_s3(endpoint: str, method: str, path: str, ca_file: Path | None = None) -> int:
    """A signed request with curl's own SigV4 (no Python S3 client needed here)."""
    out = subprocess.run(
        ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method,
         *(["--cacert", str(ca_file)] if ca_file else []),
         "--aws-sigv4", f"aws:amz:{REGION}:s3", "--user", f"{ROOT_USER}:{ROOT_PASSWORD}",
         "-H", "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         f"{endpoint}{path}"],
        capture_output=True, text=True, check=False)
    return int(out.stdout or 0)


class MinioServer:
    def __init__(self, data_dir: Path, port: int | None = None,
                 tls: tuple[Path, Path, Path] | None = None):
        """`tls`: (certificate, key, CA file): the server speaks HTTPS only, with that
        certificate (for 127.0.0.1), which the CA signed."""
        self.dir = Path(data_dir)
        self.port = port or _free_port()
        self.proc: subprocess.Popen | None = None
        self.tls = tls
        self.ca_file = tls[2] if tls else None

    @property
    def endpoint(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> "MinioServer":
        binary = install()
        (self.dir / "data").mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, MINIO_ROOT_USER=ROOT_USER, MINIO_ROOT_PASSWORD=ROOT_PASSWORD,
                   MINIO_BROWSER="off", MINIO_UPDATE="off", MINIO_REGION=REGION)
        log = open(self.dir / "minio.log", "ab")
        certs = []
        if self.tls:
            certs_dir = self.dir / "certs"
            certs_dir.mkdir(parents=True, exist_ok=True)
            shutil.copy(self.tls[0], certs_dir / "public.crt")
            shutil.copy(self.tls[1], certs_dir / "private.key")
            certs = ["--certs-dir", str(certs_dir)]
        self.proc = subprocess.Popen(
            [str(binary), "server", str(self.dir / "data"), "--address", f"127.0.0.1:{self.port}",
             "--console-address", f"127.0.0.1:{_free_port()}", "--quiet", *certs],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not _healthy(self.port, self.ca_file):
            if self.proc.poll() is not None:
                raise RuntimeError(f"MinIO exited with {self.proc.returncode}; see {self.dir}/minio.log")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"MinIO not healthy after {timeout}s; see {self.dir}/minio.log")
            time.sleep(0.1)
        # Healthy is not yet ready to write: under load MinIO answers 503 for a while longer.
        code = _curl_s3(self.endpoint, "PUT", f"/{BUCKET}", self.ca_file)
        while code == 503 and time.monotonic() < deadline:
            time.sleep(0.5)
            code = _curl_s3(self.endpoint, "PUT", f"/{BUCKET}", self.ca_file)
        if code not in (200, 409):
            self.stop()
            raise RuntimeError(f"creating bucket {BUCKET} answered HTTP {code}")
        (self.dir / "url").write_text(self.endpoint + "\n")
        (self.dir / "pid").write_text(f"{self.proc.pid}\n")
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[1] == "install":
        print(install())
        return 0
    if len(argv) != 3 or argv[1] not in ("start", "stop"):
        _log("usage: minio.py {start|stop} DIR | install")
        return 2
    d = Path(argv[2])
    if argv[1] == "start":
        server = MinioServer(d).start()
        # The process outlives this script; `stop` finds it by its pid file.
        server.proc = None
        print(server.endpoint)
        return 0
    pid_file = d / "pid"
    if pid_file.exists():
        pid = int(pid_file.read_text())
        try:
            os.killpg(pid, signal.SIGTERM)
            for _ in range(150):
                os.kill(pid, 0)
                time.sleep(0.1)
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        pid_file.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
