#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Cairn benchmark: Cairn (SQLite, PostgreSQL) beside the Java reference Iceberg REST server and nginx.

    bench/run.py            full run (make bench); about 15 minutes
    bench/run.py --smoke    ~30 s version (make bench-smoke): tiny sizes, fails only on harness errors
                            (and on a Cairn correctness failure: a lost or duplicated acknowledged commit,
                            a full listTables page without next-page-token, the authorized reader not
                            seeing every table)

Options: --targets cairn-sqlite,cairn-postgres,reference,nginx (default: all), --cairn PATH,
--workloads load,create,commit,list,tags,lineage (default: all; start-up is always measured), --out FILE
(default bench/results/<UTC time>[-smoke].json). Environment: CAIRN_BIN.

Each server runs alone, pinned to CPU 0 (with its PostgreSQL, for cairn-postgres); the load
generators (wrk for reads, bench/driver.cc for writes and paging) are pinned to CPU 1. All on
127.0.0.1. After its listTables run each Cairn server is restarted on the same data with
authorization on and lists again as a granted user (both times are reported).
See docs/performance.md for what each workload measures.
"""
import argparse
import base64
import datetime
import hashlib
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import random
import resource

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(REPO, "bench")
sys.path.insert(0, os.path.join(REPO, "tests", "harness"))
from iceberg_reference import REF_VERSION, ensure_reference_jar, reference_argv_env  # noqa: E402
DRIVER = os.path.join(BENCH, ".build", "driver")
NCPU = os.cpu_count() or 1
SERVER_CPU, LOAD_CPU = ("0", "1") if NCPU >= 2 else ("0", "0")
TARGETS = ["cairn-sqlite", "cairn-postgres", "reference", "nginx"]
WORKLOADS = ["load", "vended", "create", "commit", "list", "tags", "lineage", "isolation"]


class HarnessError(Exception):
    pass


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# sizes


def profile(smoke):
    if smoke:
        return dict(startups=1, ref_startups=1, warm_s=0, ref_warm_s=0, dur_s=1, conns=[1, 64],
                    snapshots=20, columns=50, create_n=100, create_cap_s=10, commit_tables=16,
                    commit_s=1, list_n=400, list_page=100, list_passes=1, fill_cap_s=10,
                    ref_create_cap_s=2, ref_fill_cap_s=0, list_warmup=1, lineage_width=20,
                    lineage_layers=5, lineage_queries=50)
    return dict(startups=5, ref_startups=3, warm_s=3, ref_warm_s=15, dur_s=10, conns=[1, 16, 64],
                snapshots=100, columns=50, create_n=10_000, create_cap_s=300, commit_tables=100,
                commit_s=10, list_n=100_000, list_page=1000, list_passes=3, fill_cap_s=230,
                ref_create_cap_s=60, ref_fill_cap_s=0, list_warmup=1, lineage_width=500,
                lineage_layers=11, lineage_queries=500)


# ---------------------------------------------------------------------------------------------
# small utilities


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def request(port, method, path, body=None, headers=None, timeout=60):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = json.dumps(body, separators=(",", ":")) if isinstance(body, (dict, list)) else body
        h = {"Content-Type": "application/json"} if data is not None else {}
        h.update(headers or {})
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        c.close()


def basic(user, password="x"):
    """Basic credentials; Cairn's `simple` authenticator takes the user part as the principal."""
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


ADMIN = basic("admin")    # service admin when authorization is on; creator (owner) of everything Cairn's setup makes
READER = basic("reader")  # granted USE_CATALOG + USE_SCHEMA + SELECT_TABLE for the authorized listTables


def ok(port, method, path, body=None, expect=(200,), headers=None):
    # Setup calls ride out transient 5xx for up to a minute: after the concurrent creates, the
    # reference's SQLite catalog can stay locked for as long as its 30 s busy timeout.
    for _ in range(300):
        st, _, data = request(port, method, path, body, headers)
        if st < 500 or st in expect:
            break
        time.sleep(0.2)
    if st not in expect:
        raise HarnessError(f"{method} {path} -> {st}: {data[:300]!r}")
    return json.loads(data) if data else None


def wait_ready(port, path, proc, timeout=120):
    """Seconds from now until the first 200 on path (polled every ~1 ms)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise HarnessError(f"server exited with {proc.returncode} before it was ready")
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=1)
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            head = s.recv(64)
            s.close()
            if head.startswith(b"HTTP/1.1 200") or head.startswith(b"HTTP/1.0 200"):
                return time.perf_counter() - t0
        except OSError:
            pass
        time.sleep(0.001)
    raise HarnessError(f"not ready on :{port}{path} after {timeout}s")


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return None


def stop(proc, timeout=20):
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def pinned(cpu, argv):
    return ["taskset", "-c", cpu] + argv


def schema(columns):
    types = ["long", "string", "double", "int", "timestamp", "date", "boolean", "decimal(18,4)"]
    fields = [{"id": i + 1, "name": f"col_{i:02d}", "required": i == 0, "type": types[i % len(types)],
               "doc": f"column {i} of the benchmark table"} for i in range(columns)]
    return {"type": "struct", "schema-id": 0, "identifier-field-ids": [1], "fields": fields}


# ---------------------------------------------------------------------------------------------
# tools


def ensure_tools(targets):
    apt = []
    if not shutil.which("wrk"):
        apt.append("wrk")
    if "nginx" in targets and not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
        apt.append("nginx")
    if not shutil.which("taskset"):
        apt.append("util-linux")
    if not shutil.which("g++"):
        apt.append("g++")
    if apt:
        log(f"installing Debian packages: {' '.join(apt)}")
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + apt,
                       check=True, env=env)
        if "nginx" in apt:  # the package starts a system nginx on :80; we run our own
            subprocess.run(["service", "nginx", "stop"], check=False, capture_output=True)
    if "reference" in targets:
        try:
            ensure_reference_jar(log)
        except (RuntimeError, subprocess.CalledProcessError) as e:
            raise HarnessError(str(e))
    src = os.path.join(BENCH, "driver.cc")
    if not os.path.exists(DRIVER) or os.path.getmtime(DRIVER) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(DRIVER), exist_ok=True)
        log("building bench/driver.cc")
        subprocess.run(["g++", "-O2", "-std=c++20", "-pthread", "-o", DRIVER, src], check=True)


def run_json(argv, timeout=1800):
    p = subprocess.run(pinned(LOAD_CPU, argv), capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise HarnessError(f"{argv[0]} failed ({p.returncode}): {p.stderr[-500:]}")
    for line in reversed(p.stdout.splitlines()):
        line = line.strip()
        if line.startswith("BENCHJSON "):
            return json.loads(line[len("BENCHJSON "):])
        if line.startswith("{"):
            return json.loads(line)
    raise HarnessError(f"no JSON from {argv[0]}: {p.stdout[-500:]} {p.stderr[-500:]}")


def cpu_seconds(pid):
    """CPU time (user + system) used so far by pid and its direct children (nginx's worker, say)."""
    if pid is None:
        return 0.0
    total = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rindex(")") + 2:].split()
        if int(d) == pid or int(rest[1]) == pid:
            total += int(rest[11]) + int(rest[12])
    return total / os.sysconf("SC_CLK_TCK")


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wrk(port, path, conns, seconds, inm=None, server_pid=None, auth=None, delegation=None):
    env_path = os.path.join(BENCH, "wrk", "get.lua")
    os.environ["BENCH_PATH"] = path
    os.environ["BENCH_INM"] = inm or ""
    os.environ["BENCH_AUTH"] = auth or ""
    os.environ["BENCH_DELEGATION"] = delegation or ""
    srv0, gen0, t0 = cpu_seconds(server_pid), children_cpu(), time.perf_counter()
    r = run_json(["wrk", "-t1", f"-c{conns}", f"-d{max(1, round(seconds))}s", "--timeout", "10s", "-s", env_path,
                  f"http://127.0.0.1:{port}"])
    wall = time.perf_counter() - t0
    srv_cpu, gen_cpu = (cpu_seconds(server_pid) - srv0) / wall, (children_cpu() - gen0) / wall
    secs = r["duration_us"] / 1e6
    errors = r["errors_connect"] + r["errors_read"] + r["errors_write"] + r["errors_timeout"] + r["errors_status"]
    # Requests per second of server CPU: what the server would answer with a whole core of its
    # own. With one core for the server and one for wrk, wrk is the limit before nginx is, so
    # nginx's raw rate understates its ceiling; per core, it does not.
    per_core = r["requests"] / secs / srv_cpu if server_pid and srv_cpu > 0.05 else None
    return {"throughput": r["requests"] / secs, "p50_ms": r["p50_us"] / 1000, "p99_ms": r["p99_us"] / 1000,
            "requests": r["requests"], "errors": errors, "bytes_per_response": r["bytes"] / max(r["requests"], 1),
            "connections": conns, "server_cpu_util": srv_cpu if server_pid else None, "loadgen_cpu_util": gen_cpu,
            "per_core": per_core}


# ---------------------------------------------------------------------------------------------
# servers


class Server:
    name = ""
    base = ""         # Iceberg REST path prefix, e.g. /iceberg/v1/bench.cat or /v1
    ready_path = ""
    etag = True

    def __init__(self, workdir):
        self.workdir = workdir
        self.proc = None
        self.port = None

    def argv_env(self):
        raise NotImplementedError

    def start(self):
        self.port = free_port()
        argv, env = self.argv_env()
        logf = open(os.path.join(self.workdir, f"{self.name}.log"), "ab")
        self.proc = subprocess.Popen(pinned(SERVER_CPU, argv), env=env, stdout=logf, stderr=logf)
        t0 = time.perf_counter()
        ready = wait_ready(self.port, self.ready_path, self.proc)
        return ready, t0

    def stop(self):
        stop(self.proc)
        self.proc = None

    def prepare(self):
        pass

    def close(self):
        pass


class Cairn(Server):
    ready_path = "/api/version"
    base = "/iceberg/v1/bench.cat"

    def __init__(self, workdir, binary, store, pg_dir=None):
        super().__init__(workdir)
        self.binary, self.store, self.pg_dir = binary, store, pg_dir
        self.name = f"cairn-{store}"
        self.data = os.path.join(workdir, "data")
        os.makedirs(self.data, exist_ok=True)
        self.pg_url = None
        self.authz = False  # start with CAIRN_AUTHORIZATION_ENABLE=true (simple authenticator, admin = service admin)
        self.extra_env = {}  # more CAIRN_* settings for the next start (request limits, say)
        if store == "postgres":
            out = subprocess.run(pinned(SERVER_CPU, [os.path.join(REPO, "tests/harness/pg.sh"), "start", pg_dir]),
                                 capture_output=True, text=True)
            if out.returncode != 0:
                raise HarnessError(f"pg.sh start failed: {out.stderr[-500:]}")
            self.pg_url = out.stdout.strip().splitlines()[-1]

    def argv_env(self):
        env = dict(os.environ, CAIRN_LOG_LEVEL="warn", CAIRN_STORE_TYPE=self.store)
        if self.pg_url:
            env["CAIRN_STORE_POSTGRES_URL"] = self.pg_url
        if self.authz:
            env.update(CAIRN_AUTHORIZATION_ENABLE="true", CAIRN_AUTHORIZATION_SERVICE_ADMINS="admin",
                       CAIRN_AUTHENTICATORS="simple")
        env.update(self.extra_env)
        return [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data], env

    def prepare(self):
        # As `admin` (Basic header), so admin owns the metalake and catalog when authorization is turned on later.
        st, _, _ = request(self.port, "GET", "/api/metalakes/bench", headers=ADMIN)
        if st != 200:
            ok(self.port, "POST", "/api/metalakes", {"name": "bench"}, headers=ADMIN)
            ok(self.port, "POST", "/api/metalakes/bench/catalogs",
               {"name": "cat", "type": "relational", "provider": "lakehouse-iceberg",
                "properties": {"warehouse": os.path.join(self.workdir, "warehouse")}}, headers=ADMIN)
        cfg = ok(self.port, "GET", "/iceberg/v1/config?warehouse=bench.cat", headers=ADMIN)
        if cfg["overrides"].get("prefix") != "bench.cat":
            raise HarnessError(f"unexpected config {cfg}")

    def close(self):
        if self.pg_dir:
            subprocess.run([os.path.join(REPO, "tests/harness/pg.sh"), "stop", self.pg_dir], capture_output=True)


class Reference(Server):
    name = "reference"
    ready_path = "/v1/config"
    base = "/v1"
    etag = False  # checked at run time too

    def argv_env(self):
        return reference_argv_env(self.workdir, self.port)


# ---------------------------------------------------------------------------------------------
# workloads


def build_wide_table(srv, p):
    """Namespace `bench`, table `wide`: 50 columns, 100 snapshots committed through the REST commit endpoint."""
    base, port = srv.base, srv.port
    ok(port, "POST", f"{base}/namespaces/bench/tables", {"name": "wide", "schema": schema(p["columns"])},
       expect=(200, 409))
    path = f"{base}/namespaces/bench/tables/wide"
    meta = ok(port, "GET", path)["metadata"]
    cur = meta.get("current-snapshot-id")
    cur = None if cur in (None, -1) else cur
    seq = meta.get("last-sequence-number", 0)
    for i in range(len(meta.get("snapshots", [])), p["snapshots"]):
        sid = random.getrandbits(62) + 1
        snap = {"snapshot-id": sid, "sequence-number": seq + 1, "timestamp-ms": int(time.time() * 1000),
                "manifest-list": f"file:///tmp/cairn-bench-fake/wide/snap-{sid}.avro",
                "summary": {"operation": "append", "added-data-files": "1", "added-records": "1000",
                            "bench-token": f"setup-{i}"},
                "schema-id": 0}
        if cur is not None:
            snap["parent-snapshot-id"] = cur
        body = {"requirements": [{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": cur}],
                "updates": [{"action": "add-snapshot", "snapshot": snap},
                            {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": sid}]}
        ok(port, "POST", path, body)
        cur, seq = sid, seq + 1
    st, headers, data = request(port, "GET", path)
    meta = json.loads(data)["metadata"]
    if st != 200 or len(meta["snapshots"]) != p["snapshots"] or len(meta["schemas"][0]["fields"]) != p["columns"]:
        raise HarnessError(f"{srv.name}: wide table has the wrong shape")
    return path, data, {k.lower(): v for k, v in headers.items()}.get("etag")


def load_workloads(port, path, p, warm_s, etag, pid=None):
    out = {}
    if warm_s > 0:
        wrk(port, path, 16, warm_s)  # warm-up (JIT, caches, connections); not recorded
    for c in p["conns"]:
        out[f"load_c{c}"] = wrk(port, path, c, p["dur_s"], server_pid=pid)
    if etag:
        st, _, _ = request(port, "GET", path, headers={"If-None-Match": etag})
        if st != 304:
            raise HarnessError(f"If-None-Match with the current ETag gave {st}, not 304")
        out["load304_c64"] = wrk(port, path, 64, p["dur_s"], inm=etag, server_pid=pid)
    return out


def vended_workload(srv, p, tmp):
    """loadTable of the wide table in a catalog whose warehouse is on S3 (a MinIO on 127.0.0.1,
    pinned beside the load generator), plain and with `X-Iceberg-Access-Delegation:
    vended-credentials`: the server mints keys scoped to the table with MinIO's STS and serves
    them from its credential cache until they near expiry, so the cached row costs the
    credential lookup and the longer answer. Its target is ≥ 80% of the plain row."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("cairn_bench_minio",
                                                  os.path.join(REPO, "tests", "harness", "minio.py"))
    minio = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(minio)
    s3 = minio.MinioServer(os.path.join(tmp, "minio"))
    s3.start()
    out = {}
    try:
        warehouse = f"s3://{minio.BUCKET}/bench-{random.getrandbits(32):08x}"
        ok(srv.port, "POST", "/api/metalakes/bench/catalogs",
           {"name": "s3cat", "type": "relational", "provider": "lakehouse-iceberg",
            "properties": {"warehouse": warehouse, "s3-endpoint": s3.endpoint, "s3-region": minio.REGION,
                           "s3-path-style-access": "true", "credential-providers": "s3-token",
                           "s3-access-key-id": minio.ROOT_USER, "s3-secret-access-key": minio.ROOT_PASSWORD}},
           headers=ADMIN)
        on_s3 = type("OnS3", (), {"base": "/iceberg/v1/bench.s3cat", "port": srv.port, "name": srv.name})()
        ok(srv.port, "POST", f"{on_s3.base}/namespaces", {"namespace": ["bench"]}, expect=(200, 409))
        path, _, _ = build_wide_table(on_s3, p)
        st, _, data = request(srv.port, "GET", path, headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
        creds = json.loads(data).get("storage-credentials") if st == 200 else None
        if not creds or "s3.session-token" not in creds[0].get("config", {}):
            raise HarnessError(f"{srv.name}: no vended credentials in loadTable on S3 ({st}): {data[:300]!r}")
        if p["warm_s"] > 0:
            wrk(srv.port, path, 16, p["warm_s"], delegation="vended-credentials")
        out["load_s3_c64"] = wrk(srv.port, path, 64, p["dur_s"], server_pid=srv.proc.pid)
        out["load_vended_c64"] = wrk(srv.port, path, 64, p["dur_s"], server_pid=srv.proc.pid,
                                     delegation="vended-credentials")
        log(f"  loadTable on S3 c64: {out['load_s3_c64']['throughput']:.0f}/s, with vended credentials "
            f"{out['load_vended_c64']['throughput']:.0f}/s")
    finally:
        s3.stop()
    return out


def driver(*args):
    return run_json([DRIVER] + [str(a) for a in args])


def verify_commits(srv, acks_file):
    """Every acknowledged commit must be in its table's snapshot log, exactly once."""
    acked = {}
    with open(acks_file) as f:
        for line in f:
            table, token, sid = line.split()
            acked.setdefault(table, []).append((token, int(sid)))
    lost = dup = 0
    for table, items in acked.items():
        meta = ok(srv.port, "GET", f"{srv.base}/namespaces/commits/tables/{table}")["metadata"]
        log_ids = [e["snapshot-id"] for e in meta.get("snapshot-log", [])]
        by_id = {s["snapshot-id"]: s for s in meta.get("snapshots", [])}
        tokens = {}
        for sid in log_ids:
            t = by_id.get(sid, {}).get("summary", {}).get("bench-token")
            if t:
                tokens[t] = tokens.get(t, 0) + 1
        in_log = set(log_ids)
        for token, sid in items:
            if sid not in in_log:
                lost += 1
        dup += sum(n - 1 for n in tokens.values() if n > 1)
    return {"acknowledged": sum(len(v) for v in acked.values()), "lost": lost, "duplicated": dup}


def commit_workloads(srv, p, tmp):
    """Fast appends with real manifest lists (the driver writes them under a directory of this run),
    on 100 tables and on one hot table; format version 2, the tables the server's rebase handles."""
    out = {}
    names = [f"c_{i}" for i in range(p["commit_tables"])] + ["hot", "hot_stats"]
    sch = os.path.join(tmp, "schema.json")
    def create_tables():
        for n in names:  # few tables; sequential through Python keeps it simple
            ok(srv.port, "POST", f"{srv.base}/namespaces/commits/tables",
               {"name": n, "schema": json.load(open(sch)), "properties": {"format-version": "2"}},
               expect=(200, 409))
            # The reference's JDBC catalog has answered a create with 409 for a table it then
            # did not have; every table must load before its workload.
            for _ in range(3):
                st, _, _ = request(srv.port, "GET", f"{srv.base}/namespaces/commits/tables/{n}")
                if st == 200:
                    break
                ok(srv.port, "POST", f"{srv.base}/namespaces/commits/tables",
                   {"name": n, "schema": json.load(open(sch)), "properties": {"format-version": "2"}},
                   expect=(200, 409))
            else:
                raise HarnessError(f"{srv.name}: commit table {n} does not load after its create")
    try:
        create_tables()
    except HarnessError as e:
        if not isinstance(srv, Reference):
            raise
        # After its concurrent creates the reference's JDBC catalog can stay broken ("Unknown
        # failure" for over a minute): restarted on the same data, it commits normally.
        log(f"  {srv.name}: creating the commit tables failed ({str(e)[:120]}); restarting it")
        srv.stop()
        srv.start()
        create_tables()
    # hot_stats: a second hot table, each commit with its snapshot's statistics file, as Trino's
    # INSERTs send them (the server's rebase carries them over).
    for mode, tables in (("distinct", names[:-2]), ("hot", ["hot"]), ("hot_stats", ["hot_stats"])):
        tf = os.path.join(tmp, f"{srv.name}-{mode}.tables")
        with open(tf, "w") as f:
            f.write("\n".join(tables) + "\n")
        acks = os.path.join(tmp, f"{srv.name}-{mode}.acks")
        data_dir = os.path.join(tmp, f"{srv.name}-{mode}-files")
        r = driver("commit", "--port", srv.port, "--base", srv.base, "--ns", "commits", "--tables", tf,
                   "--threads", 16, "--seconds", p["commit_s"], "--mode",
                   "hot" if mode == "hot_stats" else mode, "--acks-out", acks,
                   "--data-dir", data_dir, "--statistics", 1 if mode == "hot_stats" else 0)
        try:
            r.update(verify_commits(srv, acks))
        except HarnessError as e:
            if not isinstance(srv, Reference):
                raise
            # The reference's JDBC catalog has lost a table under this load (404 on the table
            # its writers had just committed to): its rates stand, its check cannot be made.
            log(f"  {srv.name}: commits on {mode} not verified: {str(e)[:120]}")
            r.update(lost=None, duplicated=None, verify_error=str(e)[:300])
        # Acknowledged on the first attempt: no 409 and no client retry (a stale append the server rebased).
        r["first_try_share"] = r["first_try_ok"] / r["ok"] if r["ok"] else None
        out[f"commit_{mode}"] = r
        log(f"  commit {mode}: {r['throughput']:.0f}/s, 409s {r['conflicts_409']}, first try "
            f"{r['first_try_ok']}/{r['ok']}, server-rebased {r['server_rebased']}, lost {r['lost']}, "
            f"dup {r['duplicated']}")
    return out


ISOLATION_LIMITS = {"CAIRN_LIMITS_PRINCIPAL_REQUESTS_PER_SECOND": "2000",
                    "CAIRN_LIMITS_PRINCIPAL_BURST": "2000"}


def isolation_workload(srv, p, tmp):
    """Two principals: `writer` commits fast appends (4 threads, 16 tables), `flood` loads another
    table from 64 keep-alive connections as fast as they go. The writer's commit latency alone, under the
    flood with a per-principal rate limit (2000 requests/s each: far above the writer's own rate),
    and under the flood with no limit. The flooder's answers are counted by class: 429s, never 5xx."""
    out = {}
    sch = os.path.join(tmp, "schema.json")
    tables = [f"iso_{i}" for i in range(16)]
    tf = os.path.join(tmp, f"{srv.name}-iso.tables")
    with open(tf, "w") as f:
        f.write("\n".join(tables) + "\n")
    writer, flood = basic("writer"), basic("flood")
    flood_path = f"{srv.base}/namespaces/iso/tables/iso_read"  # a table the writer does not write

    def commits(tag):
        acks = os.path.join(tmp, f"{srv.name}-iso-{tag}.acks")
        return driver("commit", "--port", srv.port, "--base", srv.base, "--ns", "iso", "--tables", tf,
                      "--threads", 4, "--seconds", p["commit_s"], "--mode", "distinct", "--acks-out", acks,
                      "--data-dir", os.path.join(tmp, f"{srv.name}-iso-{tag}-files"),
                      "--auth", writer["Authorization"])

    def flooded(tag):
        box = {}
        os.environ["BENCH_PATH"], os.environ["BENCH_AUTH"] = flood_path, flood["Authorization"]
        lua = os.path.join(BENCH, "wrk", "flood.lua")
        t = threading.Thread(target=lambda: box.update(run_json(
            ["wrk", "-t1", "-c64", f"-d{int(p['commit_s']) + 2}s", "--timeout", "10s", "-s", lua,
             f"http://127.0.0.1:{srv.port}"])))
        t.start()
        time.sleep(1.0)  # the flood is at full rate before the writer starts
        r = commits(tag)
        t.join()
        os.environ.pop("BENCH_AUTH", None)
        r["flood"] = box
        return r

    for limited in (True, False):
        srv.stop()
        srv.extra_env = dict(ISOLATION_LIMITS) if limited else {}
        try:
            srv.start()
        finally:
            srv.extra_env = {}
        srv.prepare()
        ok(srv.port, "POST", f"{srv.base}/namespaces", {"namespace": ["iso"]}, expect=(200, 409))
        for n in tables + ["iso_read"]:
            ok(srv.port, "POST", f"{srv.base}/namespaces/iso/tables",
               {"name": n, "schema": json.load(open(sch)), "properties": {"format-version": "2"}},
               expect=(200, 409))
        if limited:
            out["alone"] = commits("alone")
            out["flood_limited"] = flooded("limited")
        else:
            out["flood_unlimited"] = flooded("unlimited")
    for k in ("flood_limited", "flood_unlimited"):
        out[k]["p99_vs_alone"] = ratio(out[k]["p99_ms"], out["alone"]["p99_ms"])
    fl = out["flood_limited"]["flood"]
    log(f"  isolation: writer commit p99 alone {out['alone']['p99_ms']:.1f} ms, under a limited flood "
        f"{out['flood_limited']['p99_ms']:.1f} ms ({out['flood_limited']['p99_vs_alone']:.2f}×), unlimited "
        f"{out['flood_unlimited']['p99_ms']:.1f} ms ({out['flood_unlimited']['p99_vs_alone']:.2f}×); flooder "
        f"{fl.get('status_429', 0)} × 429, {fl.get('status_5xx', 0)} × 5xx, {fl.get('ok', 0)} served")
    fu = out["flood_unlimited"]["flood"]
    out["summary"] = {
        "alone_p99_ms": out["alone"]["p99_ms"], "alone_per_s": out["alone"]["throughput"],
        "limited_p99_ms": out["flood_limited"]["p99_ms"], "limited_per_s": out["flood_limited"]["throughput"],
        "unlimited_p99_ms": out["flood_unlimited"]["p99_ms"],
        "unlimited_per_s": out["flood_unlimited"]["throughput"],
        "limited_vs_alone": out["flood_limited"]["p99_vs_alone"],
        "unlimited_vs_alone": out["flood_unlimited"]["p99_vs_alone"],
        "flood_429": fl.get("status_429", 0), "flood_5xx": fl.get("status_5xx", 0) + fu.get("status_5xx", 0),
        "flood_served_per_s": fl.get("ok", 0) / max(fl.get("duration_us", 1) / 1e6, 1e-9),
        "flood_unlimited_per_s": fu.get("ok", 0) / max(fu.get("duration_us", 1) / 1e6, 1e-9)}
    srv.stop()
    srv.start()
    return out


def bench_server(srv, p, tmp, is_ref, res):
    """Fills res as it goes, so a failure late in the run keeps the numbers measured before it."""
    res["loadavg_start"] = open("/proc/loadavg").read().split()[:3]
    n_start = p["ref_startups"] if is_ref else p["startups"]
    times = []
    for i in range(n_start):
        ready, _ = srv.start()
        times.append(ready * 1000)
        if i < n_start - 1:
            srv.stop()
    time.sleep(1.0)
    res["startup"] = {"ready_ms_median": statistics.median(times), "ready_ms_all": times,
                      "idle_rss_mb": rss_mb(srv.proc.pid)}
    log(f"  ready {statistics.median(times):.0f} ms, idle RSS {res['startup']['idle_rss_mb']:.1f} MB")
    srv.prepare()
    wl = p["workloads"]
    for ns in ("bench", "bulk", "commits"):
        ok(srv.port, "POST", f"{srv.base}/namespaces", {"namespace": [ns]}, expect=(200, 409))
    if "load" in wl:
        path, body, etag = build_wide_table(srv, p)
        res["wide_table"] = {"bytes": len(body), "etag": etag}
        nginx_file = os.path.join(tmp, "wide.json")  # nginx serves the first Cairn run's exact bytes
        if not is_ref and not os.path.exists(nginx_file):
            with open(nginx_file, "wb") as f:
                f.write(body)
        res.update(load_workloads(srv.port, path, p, p["ref_warm_s"] if is_ref else p["warm_s"],
                                  etag if srv.etag else None, srv.proc.pid))
        log(f"  loadTable c64: {res['load_c64']['throughput']:.0f}/s p99 {res['load_c64']['p99_ms']:.2f} ms")
    sch = os.path.join(tmp, "schema.json")
    auth = [] if is_ref else ["--auth", ADMIN["Authorization"]]
    have = 0
    unacknowledged = 0  # creates answered 5xx or lost in transport: may or may not have landed
    if "create" in wl:
        cap = p["ref_create_cap_s"] if is_ref else p["create_cap_s"]
        r = driver("create", "--port", srv.port, "--base", srv.base, "--ns", "bulk", "--threads", 16,
                   "--count", p["create_n"], "--prefix", "t_", "--schema", sch, "--max-seconds", cap, *auth)
        r["requested"] = p["create_n"]
        res["create"] = r
        have = r["ok"]
        unacknowledged += r.get("transport_errors", 0) + sum(
            n for code, n in r.get("status", {}).items() if code.startswith("5"))
        log(f"  createTable: {r['ok']} in {r['seconds']:.1f}s = {r['throughput']:.0f}/s")
    if "commit" in wl:
        res.update(commit_workloads(srv, p, tmp))
    if "vended" in wl and not is_ref and os.environ.get("CAIRN_TEST_S3", "1") != "0":
        res.update(vended_workload(srv, p, tmp))  # CAIRN_TEST_S3=0: no MinIO on this machine
    if "isolation" in wl and not is_ref:
        res["isolation"] = isolation_workload(srv, p, tmp)
        res["isolation_summary"] = res["isolation"]["summary"]
    if "list" not in wl:
        res["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
        srv.stop()
        return res
    # Fill `bulk` up to list_n tables (not timed as a workload) and page through it.
    fill_cap = p["ref_fill_cap_s"] if is_ref else p["fill_cap_s"]
    if have < p["list_n"] and fill_cap > 0:
        f = driver("create", "--port", srv.port, "--base", srv.base, "--ns", "bulk", "--threads", 16,
                   "--count", p["list_n"] - have, "--start", p["create_n"], "--prefix", "t_", "--schema", sch,
                   "--max-seconds", fill_cap, *auth)
        have += f["ok"]
        unacknowledged += f.get("transport_errors", 0) + sum(
            n for code, n in f.get("status", {}).items() if code.startswith("5"))
        res["fill"] = f
        log(f"  filled bulk to {have} tables ({f['throughput']:.0f}/s)")
    lr = list_tables(srv, p, have)
    # Every acknowledged create must be listed, and nothing else, except that a create the peer
    # answered with a 5xx (or that was lost in transport) may still have landed on the peer. Cairn
    # gets no such slack: an error never leaves a partial write behind.
    slack = unacknowledged if is_ref else 0
    seen = lr["tables_per_pass"]
    if any(n < have or n > have + slack for n in seen) or len(set(seen)) > 1:
        raise HarnessError(f"{srv.name}: listTables saw {seen} tables, expected {have}"
                           + (f" (up to {have + slack} counting unacknowledged creates)" if slack else ""))
    if seen and seen[0] != have:
        log(f"  {srv.name}: {seen[0] - have} of its {slack} failed creates left a table behind")
        res["tables_left_by_failed_creates"] = seen[0] - have
        have = seen[0]
        lr["tables"] = have
    res["list"] = lr
    log(f"  listTables over {have}: p99 {lr['p99_ms']:.2f} ms/page, {lr['pass_s_median']:.2f} s to list all")
    res["startup"]["rss_after_tables_mb"] = rss_mb(srv.proc.pid)
    res["startup"]["tables_loaded"] = have + p["commit_tables"] + 2
    if not is_ref and "tags" in wl:
        res["tags"] = tags_workload(srv, p, have, lr)
    if not is_ref and "lineage" in wl:
        res["lineage"] = lineage_workload(srv, p, have, lr)
    if not is_ref:
        res["list_authz"] = authz_list_workload(srv, p, have, lr)
        if "load_c64" in res["list_authz"]:
            res["load_authz_c64"] = res["list_authz"].pop("load_c64")
        if "load_off_c64" in res["list_authz"]:
            res["load_authz_off_c64"] = res["list_authz"].pop("load_off_c64")
    res["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    srv.stop()
    return res


def list_tables(srv, p, have, auth=None):
    """Page through `bulk` (pageSize list_page) on one connection: list_warmup unrecorded passes, then list_passes."""
    lr = driver("list", "--port", srv.port, "--base", srv.base, "--ns", "bulk", "--page-size", p["list_page"],
                "--passes", p["list_passes"], "--warmup", p["list_warmup"],
                "--token-fallback", 1 if isinstance(srv, Cairn) else 0,
                *(["--auth", auth] if auth else []))
    lr["tables"] = have
    lr["page_size"] = p["list_page"]
    lr["pass_s_median"] = statistics.median(lr["seconds_per_pass"]) if lr["seconds_per_pass"] else None
    return lr


def timed_gets(port, paths, headers=None):
    """GETs `paths` in order on one keep-alive connection; the bodies and ms per request."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    ms, bodies = [], []
    try:
        for path in paths:
            t0 = time.perf_counter()
            c.request("GET", path, headers=headers or {})
            r = c.getresponse()
            data = r.read()
            ms.append((time.perf_counter() - t0) * 1000)
            if r.status != 200:
                raise HarnessError(f"GET {path} -> {r.status}: {data[:200]!r}")
            bodies.append(json.loads(data))
    finally:
        c.close()
    return bodies, ms


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else None


def tags_workload(srv, p, have, plain):
    """Tags on every table of `bulk`: attach one tag to each (8 connections, not compared), then on
    one connection the tags of random tables (with inheritance, details=true) and the objects of the
    tag page by page (pageSize = the listTables page), p50/p99 per request beside listTables'."""
    import concurrent.futures
    import threading
    port = srv.port
    api = "/api/metalakes/bench"
    ok(port, "POST", f"{api}/tags", {"name": "hot", "comment": "bench"}, expect=(200, 409), headers=ADMIN)
    ok(port, "POST", f"{api}/tags", {"name": "bulk_schema"}, expect=(200, 409), headers=ADMIN)
    ok(port, "POST", f"{api}/objects/schema/cat.bulk/tags", {"tagsToAdd": ["bulk_schema"]},
       expect=(200, 409), headers=ADMIN)
    listed = ok(port, "GET", f"{api}/catalogs/cat/schemas/bulk/tables", headers=ADMIN)
    names = [i["name"] for i in listed["identifiers"]]
    if len(names) != have:
        raise HarnessError(f"{srv.name}: the Gravitino table list has {len(names)} of {have} tables")
    local = threading.local()
    failures = []

    def attach(name):
        c = getattr(local, "conn", None)
        if c is None:
            c = local.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        body = json.dumps({"tagsToAdd": ["hot"]})
        c.request("POST", f"{api}/objects/table/cat.bulk.{name}/tags", body=body,
                  headers={"Content-Type": "application/json", **ADMIN})
        r = c.getresponse()
        data = r.read()
        if r.status not in (200, 409):
            failures.append((name, r.status, data[:200]))

    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(attach, names, chunksize=256))
    attach_s = time.perf_counter() - t0
    if failures:
        raise HarnessError(f"{srv.name}: {len(failures)} tag attachments failed, first {failures[0]}")
    rng = random.Random(7)
    sample = [f"{api}/objects/table/cat.bulk.{rng.choice(names)}/tags?details=true" for _ in range(2000)]
    timed_gets(port, sample[:200], ADMIN)  # warm-up
    bodies, of_table = timed_gets(port, sample, ADMIN)
    if any([t["name"] for t in b["tags"]] != ["hot", "bulk_schema"] for b in bodies):
        raise HarnessError(f"{srv.name}: a table's tags are not [hot, bulk_schema (inherited)]")
    pages, passes = [], []
    for i in range(p["list_warmup"] + p["list_passes"]):
        token, seen, page_ms, t_pass = "", 0, [], time.perf_counter()
        while True:
            path = f"{api}/tags/hot/objects?pageSize={p['list_page']}" + (f"&pageToken={token}" if token else "")
            [body], [ms] = timed_gets(port, [path], ADMIN)
            page_ms.append(ms)
            seen += len(body["metadataObjects"])
            token = body.get("nextPageToken")
            if not token:
                break
        if seen != have:
            raise HarnessError(f"{srv.name}: the objects of tag hot are {seen}, expected {have}")
        if i >= p["list_warmup"]:
            pages += page_ms
            passes.append(time.perf_counter() - t_pass)
    out = {"tables": have, "attach_s": attach_s, "attach_per_s": have / attach_s if attach_s else None,
           "object_tags_p50_ms": percentile(of_table, 0.5), "object_tags_p99_ms": percentile(of_table, 0.99),
           "tag_objects_page_size": p["list_page"], "tag_objects_p50_ms": percentile(pages, 0.5),
           "tag_objects_p99_ms": percentile(pages, 0.99),
           "tag_objects_pass_s_median": statistics.median(passes) if passes else None,
           "list_tables_p99_ms": plain.get("p99_ms")}
    log(f"  tags: attached to {have} tables at {out['attach_per_s']:.0f}/s; tags of a table p99 "
        f"{out['object_tags_p99_ms']:.2f} ms; objects of a tag p99 {out['tag_objects_p99_ms']:.2f} ms/page "
        f"(listTables p99 {plain.get('p99_ms', 0):.2f} ms/page)")
    return out


def lineage_workload(srv, p, have, plain):
    """A lineage graph over the tables of `bulk`: lineage_layers layers of lineage_width tables; the
    table i of layer l+1 is written by one job that reads tables i and (7i+1) mod width of layer l,
    with column lineage, sent as a START and a COMPLETE event of one run (10,000 events at full
    size, in batches of 1000 to /api/v1/lineage/batch). Then, on one connection, the graph of
    random tables of the middle layers at depth 5 in both directions, every page of it
    (pageSize 100), p50/p99 per page beside listTables'."""
    port = srv.port
    width, layers = p["lineage_width"], p["lineage_layers"]
    if have < width * layers:
        raise HarnessError(f"{srv.name}: lineage needs {width * layers} tables, bulk has {have}")
    rng = random.Random(11)
    producer = "https://example.test/bench"
    schema_url = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent"

    def table(layer, i):
        return {"namespace": "bench", "name": f"cat.bulk.t_{layer * width + i}"}

    events = []
    for layer in range(layers - 1):
        for i in range(width):
            run = "%08x-0000-4000-8000-%012x" % (layer, i)
            ins = [table(layer, i), table(layer, (7 * i + 1) % width)]
            out = dict(table(layer + 1, i))
            out["facets"] = {"columnLineage": {"_producer": producer, "_schemaURL": schema_url,
                             "fields": {"id": {"inputFields": [
                                 {**ins[0], "field": "id"}, {**ins[1], "field": "id"}]}}}}
            for state, minute in (("START", 0), ("COMPLETE", 1)):
                events.append({"eventType": state, "eventTime": f"2026-12-01T{layer:02d}:{minute:02d}:00Z",
                               "run": {"runId": run}, "job": {"namespace": "bench_etl", "name": f"j_{layer}_{i}"},
                               "inputs": ins, "outputs": [out] if state == "COMPLETE" else [],
                               "producer": producer, "schemaURL": schema_url})
    t0 = time.perf_counter()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        for start in range(0, len(events), 1000):
            batch = events[start:start + 1000]
            while batch:  # what a full queue turned away (429, or retriable failures) goes again
                c.request("POST", "/api/v1/lineage/batch", body=json.dumps(batch),
                          headers={"Content-Type": "application/json", **ADMIN})
                r = c.getresponse()
                data = r.read()
                if r.status == 429:
                    time.sleep(0.2)
                    continue
                reply = json.loads(data) if r.status == 200 else {}
                failed = reply.get("failed_events", [])
                if reply.get("status") not in ("success", "partial_success") or \
                        any(not f.get("retriable") for f in failed):
                    raise HarnessError(f"{srv.name}: lineage batch -> {r.status}: {data[:300]!r}")
                batch = [batch[f["index"]] for f in failed]
                if batch:
                    time.sleep(0.2)
    finally:
        c.close()
    last = "%08x-0000-4000-8000-%012x" % (layers - 2, width - 1)
    deadline = time.time() + 600
    while True:  # the events are written by the server's writer thread, in order
        st, _, data = request(port, "GET", f"/api/lineage/runs/{last}", headers=ADMIN)
        if st == 200 and len(json.loads(data)["events"]) == 2:
            break
        if time.time() > deadline:
            raise HarnessError(f"{srv.name}: the last lineage run was not written in 600 s")
        time.sleep(0.1)
    ingest_s = time.perf_counter() - t0
    middle = list(range(layers // 2 - 1, layers // 2 + 2))
    starts = [f"cat.bulk.t_{rng.choice(middle) * width + rng.randrange(width)}"
              for _ in range(p["lineage_queries"])]

    def walk(full_name):
        token, pages, ms = "", 0, []
        nodes = 0
        while True:
            path = (f"/api/lineage/graph?metalake=bench&fullName={full_name}&depth=5&pageSize=100"
                    + (f"&pageToken={token}" if token else ""))
            [body], [t] = timed_gets(port, [path], ADMIN)
            ms.append(t)
            pages += 1
            nodes += len(body["nodes"])
            token = body.get("nextPageToken")
            if not token:
                return ms, nodes, body["total"]
    for name in starts[:max(1, len(starts) // 10)]:
        walk(name)  # warm-up
    page_ms, totals = [], []
    for name in starts:
        ms, nodes, total = walk(name)
        if nodes != total or total < 3:
            raise HarnessError(f"{srv.name}: the lineage of {name} paged {nodes} of {total} nodes")
        page_ms += ms
        totals.append(total)
    out = {"events": len(events), "ingest_s": ingest_s, "events_per_s": len(events) / ingest_s,
           "queries": len(starts), "pages": len(page_ms), "nodes_median": statistics.median(totals),
           "page_p50_ms": percentile(page_ms, 0.5), "page_p99_ms": percentile(page_ms, 0.99),
           "list_tables_p99_ms": plain.get("p99_ms")}
    log(f"  lineage: {len(events)} events stored in {ingest_s:.1f}s ({out['events_per_s']:.0f}/s); graph at "
        f"depth 5 ({out['nodes_median']:.0f} nodes median) p99 {out['page_p99_ms']:.2f} ms/page "
        f"(listTables p99 {plain.get('p99_ms', 0):.2f} ms/page)")
    return out


def authz_list_workload(srv, p, have, off):
    """listTables with authorization on: the same data directory, restarted with
    CAIRN_AUTHORIZATION_ENABLE=true; `reader` (a metalake user whose role grants USE_CATALOG on the
    catalog and USE_SCHEMA + SELECT_TABLE on the schema) pages through `bulk`. Every listed name goes
    through the authorizer's per-object filter. Compared with a listing with authorization off taken
    the same way (fresh restart on the same data, one warm-up pass): the server process that has just
    created the tables lists markedly slower than a restarted one, so `off` (that process's listing)
    is not the baseline."""
    srv.stop()
    srv.start()
    off = list_tables(srv, p, have)
    if any(n != have for n in off["tables_per_pass"]):
        raise HarnessError(f"{srv.name}: listTables after restart saw {off['tables_per_pass']} tables, expected {have}")
    off_load = None
    if "load" in p["workloads"]:
        # The same load with authorization off, on the same data and within the same minutes as
        # the authorized one below: on this kind of VM the rate drifts by up to ±20% over a few
        # minutes, so this pair, not the plain load measured before the tables were made, shows
        # what authorization itself costs.
        wide = f"{srv.base}/namespaces/bench/tables/wide"
        if p["warm_s"] > 0:
            wrk(srv.port, wide, 16, p["warm_s"])
        off_load = wrk(srv.port, wide, 64, p["dur_s"], server_pid=srv.proc.pid)
        log(f"  loadTable c64, restarted on the same data, authorization off: "
            f"{off_load['throughput']:.0f}/s p99 {off_load['p99_ms']:.2f} ms")
    srv.stop()
    srv.authz = True
    try:
        srv.start()
    finally:
        srv.authz = False  # later starts of this Server (none today) default to off again
    port, base = srv.port, srv.base
    srv.prepare()  # as admin: metalake and catalog exist (owned by admin); config answers
    ok(port, "POST", f"{base}/namespaces", {"namespace": ["bulk"]}, expect=(200, 409), headers=ADMIN)
    # Authorization must really be on: a user who is not in the metalake is refused.
    st, _, data = request(port, "GET", f"{base}/namespaces/bulk/tables?pageSize=10", headers=basic("stranger"))
    if st != 403:
        raise HarnessError(f"{srv.name}: authorization on, yet a non-member listing bulk got {st}: {data[:200]!r}")
    ok(port, "POST", "/api/metalakes/bench/users", {"name": "reader"}, expect=(200, 409), headers=ADMIN)
    reads = [{"name": "use_schema", "condition": "allow"}, {"name": "select_table", "condition": "allow"}]
    ok(port, "POST", "/api/metalakes/bench/roles",
       {"name": "r", "securableObjects": [
           {"fullName": "cat", "type": "catalog", "privileges": [{"name": "use_catalog", "condition": "allow"}]},
           {"fullName": "cat.bulk", "type": "schema", "privileges": reads},
           {"fullName": "cat.bench", "type": "schema", "privileges": reads}]},
       expect=(200, 409), headers=ADMIN)
    ok(port, "PUT", "/api/metalakes/bench/permissions/users/reader/grant", {"roleNames": ["r"]}, headers=ADMIN)
    on = list_tables(srv, p, have, READER["Authorization"])
    if "load" in p["workloads"]:
        # loadTable of the wide table as the reader: authentication, the grants, the decision.
        path = f"{base}/namespaces/bench/tables/wide"
        st, _, _ = request(port, "GET", path, headers=READER)
        if st != 200:
            raise HarnessError(f"{srv.name}: reader's loadTable answered {st}")
        if p["warm_s"] > 0:
            wrk(port, path, 16, p["warm_s"], auth=READER["Authorization"])
        on["load_c64"] = wrk(port, path, 64, p["dur_s"], server_pid=srv.proc.pid,
                             auth=READER["Authorization"])
        if on["load_c64"]["errors"]:
            raise HarnessError(f"{srv.name}: reader's loadTable under load had {on['load_c64']['errors']} errors")
        log(f"  loadTable c64, authorization on, as reader: {on['load_c64']['throughput']:.0f}/s "
            f"p99 {on['load_c64']['p99_ms']:.2f} ms")
    if off_load is not None and "load_c64" in on:
        on["load_off_c64"] = off_load
        on["load_on_off"] = ratio(on["load_c64"]["per_core"], off_load["per_core"])
        log(f"  loadTable c64, authorization on / off on the same data: "
            f"{on['load_on_off'] * 100:.0f}% (per core)")
    on["principal"] = "reader"
    on["reader_saw_all"] = all(n == have for n in on["tables_per_pass"])
    on["off_restarted"] = off
    on["off_p50_ms"], on["off_p99_ms"], on["off_pass_s"] = off["p50_ms"], off["p99_ms"], off["pass_s_median"]
    on["on_off_p50"] = ratio(on["p50_ms"], off["p50_ms"])
    on["on_off_p99"] = ratio(on["p99_ms"], off["p99_ms"])
    on["on_off_total"] = ratio(on["pass_s_median"], off["pass_s_median"])
    log(f"  listTables, authorization on, as reader: saw {on['tables_per_pass']} of {have}, p99 "
        f"{on['p99_ms']:.2f} ms/page, {on['pass_s_median']:.2f} s to list all "
        f"({on['on_off_total']:.2f}× the authorization-off time)")
    return on


def bench_nginx(body, p, tmp, etag_probe_path):
    root = os.path.join(tmp, "nginx")
    doc = os.path.join(root, "html" + etag_probe_path)
    os.makedirs(os.path.dirname(doc), exist_ok=True)
    with open(doc, "wb") as f:
        f.write(body)
    for d, _, _ in os.walk(tmp):
        os.chmod(d, 0o755)
    os.chmod(tmp, 0o755)
    port = free_port()
    conf = os.path.join(root, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  default_type application/json;
  client_body_temp_path {root}/tmp; proxy_temp_path {root}/tmp; fastcgi_temp_path {root}/tmp;
  uwsgi_temp_path {root}/tmp; scgi_temp_path {root}/tmp;
  server {{ listen 127.0.0.1:{port}; root {root}/html; location / {{ }} }}
}}
""")
    os.makedirs(os.path.join(root, "tmp"), exist_ok=True)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    proc = subprocess.Popen(pinned(SERVER_CPU, [nginx, "-c", conf, "-p", root]),
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(root, "stderr.log"), "wb"))
    try:
        wait_ready(port, etag_probe_path, proc)
        st, headers, data = request(port, "GET", etag_probe_path)
        if data != body:
            raise HarnessError("nginx does not serve the captured loadTable bytes")
        etag = {k.lower(): v for k, v in headers.items()}.get("etag")
        res = {"wide_table": {"bytes": len(body), "etag": etag}}
        res.update(load_workloads(port, etag_probe_path, p, p["warm_s"], etag, proc.pid))
        log(f"  loadTable c64: {res['load_c64']['throughput']:.0f}/s")
        return res
    finally:
        stop(proc)


# ---------------------------------------------------------------------------------------------
# report

ROWS = [  # (key, metric, label)
    ("load_c1", "throughput", "loadTable, 1 conn: req/s"),
    ("load_c1", "p50_ms", "loadTable, 1 conn: p50 ms"),
    ("load_c1", "p99_ms", "loadTable, 1 conn: p99 ms"),
    ("load_c16", "throughput", "loadTable, 16 conns: req/s"),
    ("load_c16", "p50_ms", "loadTable, 16 conns: p50 ms"),
    ("load_c16", "p99_ms", "loadTable, 16 conns: p99 ms"),
    ("load_c64", "throughput", "loadTable, 64 conns: req/s"),
    ("load_c64", "p50_ms", "loadTable, 64 conns: p50 ms"),
    ("load_c64", "p99_ms", "loadTable, 64 conns: p99 ms"),
    ("load_c64", "server_cpu_util", "loadTable, 64 conns: server CPU (cores)"),
    ("load_c64", "loadgen_cpu_util", "loadTable, 64 conns: wrk CPU (cores)"),
    ("load_c64", "per_core", "loadTable, 64 conns: req/s per core of server CPU"),
    ("load304_c64", "throughput", "loadTable 304 (If-None-Match), 64 conns: req/s"),
    ("load304_c64", "p50_ms", "loadTable 304, 64 conns: p50 ms"),
    ("load304_c64", "p99_ms", "loadTable 304, 64 conns: p99 ms"),
    ("load304_c64", "server_cpu_util", "loadTable 304, 64 conns: server CPU (cores)"),
    ("load304_c64", "per_core", "loadTable 304, 64 conns: req/s per core of server CPU"),
    ("load_s3_c64", "throughput", "loadTable, warehouse on S3 (MinIO), 64 conns: req/s"),
    ("load_vended_c64", "throughput", "loadTable on S3, vended credentials (cached), 64 conns: req/s"),
    ("load_vended_c64", "p99_ms", "loadTable on S3, vended credentials, 64 conns: p99 ms"),
    ("create", "throughput", "createTable, 16 conns: tables/s"),
    ("create", "p50_ms", "createTable: p50 ms"),
    ("create", "p99_ms", "createTable: p99 ms"),
    ("commit_distinct", "throughput", "commit, 16 writers / 100 tables: commits/s"),
    ("commit_distinct", "p50_ms", "commit, 100 tables: p50 ms"),
    ("commit_distinct", "p99_ms", "commit, 100 tables: p99 ms"),
    ("commit_hot", "throughput", "commit, 16 writers / 1 hot table: commits/s"),
    ("commit_hot", "p50_ms", "commit, hot table: p50 ms (incl. retries)"),
    ("commit_hot", "p99_ms", "commit, hot table: p99 ms (incl. retries)"),
    ("commit_hot", "conflicts_409", "commit, hot table: 409 answers"),
    ("commit_hot", "server_rebased", "commit, hot table: acked commits the server rebased"),
    ("commit_hot", "first_try_share", "commit, hot table: share acked on the first attempt (no client retry)"),
    ("commit_hot_stats", "throughput", "commit with statistics (Trino's INSERT), hot table: commits/s"),
    ("commit_hot_stats", "conflicts_409", "commit with statistics, hot table: 409 answers"),
    ("commit_hot_stats", "server_rebased", "commit with statistics, hot table: acked commits the server rebased"),
    ("commit_hot_stats", "first_try_share", "commit with statistics, hot table: share acked on the first attempt"),
    ("commit_hot_stats", "lost", "commits lost (acked, not in log), hot table with statistics"),
    ("commit_distinct", "lost", "commits lost (acked, not in log), 100 tables"),
    ("commit_hot", "lost", "commits lost (acked, not in log), hot table"),
    ("commit_hot", "duplicated", "commits duplicated in log, hot table"),
    ("list", "tables", "listTables: tables in namespace"),
    ("list", "throughput", "listTables: pages/s (1 conn)"),
    ("list", "p50_ms", "listTables: p50 ms per page"),
    ("list", "p99_ms", "listTables: p99 ms per page"),
    ("list", "pass_s_median", "listTables: s to list all (median pass)"),
    ("list_authz", "off_p50_ms", "listTables, restarted, authorization off: p50 ms per page"),
    ("list_authz", "off_p99_ms", "listTables, restarted, authorization off: p99 ms per page"),
    ("list_authz", "off_pass_s", "listTables, restarted, authorization off: s to list all"),
    ("list_authz", "p50_ms", "listTables, authorization on (reader): p50 ms per page"),
    ("list_authz", "p99_ms", "listTables, authorization on (reader): p99 ms per page"),
    ("list_authz", "pass_s_median", "listTables, authorization on (reader): s to list all"),
    ("list_authz", "on_off_total", "listTables: authorization on / off, time to list all"),
    ("load_authz_c64", "throughput", "loadTable c64, authorization on (reader): req/s"),
    ("load_authz_c64", "p99_ms", "loadTable c64, authorization on (reader): p99 ms"),
    ("load_authz_off_c64", "throughput", "loadTable c64, the same data, authorization off: req/s"),
    ("list_authz", "load_on_off", "loadTable c64: authorization on / off, the same data, per core"),
    ("tags", "attach_per_s", "tags: attachments/s (8 conns)"),
    ("tags", "object_tags_p50_ms", "tags of a table (inherited too): p50 ms"),
    ("tags", "object_tags_p99_ms", "tags of a table (inherited too): p99 ms"),
    ("tags", "tag_objects_p50_ms", "objects of a tag: p50 ms per page"),
    ("tags", "tag_objects_p99_ms", "objects of a tag: p99 ms per page"),
    ("tags", "tag_objects_pass_s_median", "objects of a tag: s to list all (median pass)"),
    ("lineage", "events_per_s", "lineage: events stored/s (batches of 1000)"),
    ("lineage", "nodes_median", "lineage graph at depth 5: nodes (median)"),
    ("lineage", "page_p50_ms", "lineage graph at depth 5: p50 ms per page of 100"),
    ("lineage", "page_p99_ms", "lineage graph at depth 5: p99 ms per page of 100"),
    ("isolation_summary", "alone_p99_ms", "isolation: writer's commits alone (4 threads): p99 ms"),
    ("isolation_summary", "alone_per_s", "isolation: writer's commits alone: commits/s"),
    ("isolation_summary", "limited_p99_ms", "isolation: writer's commits beside a flood limited to 2000/s: p99 ms"),
    ("isolation_summary", "limited_per_s", "isolation: writer's commits beside a limited flood: commits/s"),
    ("isolation_summary", "unlimited_p99_ms", "isolation: writer's commits beside an unlimited flood: p99 ms"),
    ("isolation_summary", "unlimited_per_s", "isolation: writer's commits beside an unlimited flood: commits/s"),
    ("isolation_summary", "flood_served_per_s", "isolation: flooder's loadTables served/s, limited"),
    ("isolation_summary", "flood_unlimited_per_s", "isolation: flooder's loadTables served/s, unlimited"),
    ("isolation_summary", "flood_429", "isolation: flooder's 429 answers (limited)"),
    ("isolation_summary", "flood_5xx", "isolation: flooder's 5xx answers"),
    ("startup", "ready_ms_median", "start-up to ready: ms (median)"),
    ("startup", "idle_rss_mb", "idle RSS: MB"),
    ("startup", "rss_after_tables_mb", "RSS after loading the tables: MB"),
]


def fmt(v):
    if v is None:
        return "N/A"
    if isinstance(v, float):
        if abs(v) >= 100:
            return f"{v:,.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def get(results, target, key, metric):
    return results.get(target, {}).get(key, {}).get(metric)


def ratio(a, b):
    if a is None or b in (None, 0) or isinstance(a, str) or isinstance(b, str):
        return None
    return a / b


def markdown(results, meta):
    lines = [f"Run {meta['started']} ({'smoke' if meta['smoke'] else 'full'}), cairn {meta['cairn_commit']}, "
             f"server on CPU {SERVER_CPU}, load on CPU {LOAD_CPU}; "
             f"load average before/after each server: "
             + ", ".join(f"{t} {'/'.join(results[t].get('loadavg_start', ['?'])[:1])}→"
                         f"{'/'.join(results[t].get('loadavg_end', ['?'])[:1])}" for t in results) + ".", "",
             "| workload | cairn-sqlite | cairn-postgres | reference 1.10.1 | nginx | sqlite / ref | postgres / ref | sqlite / nginx |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key, metric, label in ROWS:
        vals = [get(results, t, key, metric) for t in TARGETS]
        r1 = ratio(vals[0], vals[2])
        r2 = ratio(vals[1], vals[2])
        r3 = ratio(vals[0], vals[3]) if key.startswith("load") else None
        cells = [fmt(v) for v in vals] + [("—" if r is None else f"{r:.2f}×") for r in (r1, r2, r3)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    authz = authz_table(results)
    if authz:
        lines += ["", authz]
    errs = [f"{t}: {results[t]['error'][:300]}" for t in results if results[t].get("error")]
    if errs:
        lines += ["", "Harness errors (the numbers measured before each error are kept; N/A = not measured):", ""]
        lines += [f"- {e}" for e in errs]
    return "\n".join(lines)


def authz_table(results):
    rows = []
    page = None
    for t in ("cairn-sqlite", "cairn-postgres"):
        on = results.get(t, {}).get("list_authz")
        if not on:
            continue
        off = on["off_restarted"]
        x = lambda v: "—" if v is None else f"{v:.2f}×"
        sec = lambda v: "N/A" if v is None else f"{v:.3f}"
        page = on["page_size"]
        rows.append(f"| {t} | {fmt(on['tables'])} | {fmt(off['p50_ms'])} / {fmt(on['p50_ms'])} | "
                    f"{fmt(off['p99_ms'])} / {fmt(on['p99_ms'])} | {sec(off['pass_s_median'])} / "
                    f"{sec(on['pass_s_median'])} | {x(on['on_off_p99'])} | {x(on['on_off_total'])} | "
                    f"{'yes' if on['reader_saw_all'] else 'NO: ' + str(on['tables_per_pass'])} |")
    if not rows:
        return ""
    return "\n".join([f"listTables with authorization off / on (pages of {page:,} over the same namespace, median of "
                      "the passes for the time to list all; each side a fresh restart on the same data with one warm-up pass; "
                      "on = CAIRN_AUTHORIZATION_ENABLE=true, listing as `reader`, granted USE_CATALOG, USE_SCHEMA, "
                      "SELECT_TABLE):", "",
                      "| store | tables | p50 ms/page off / on | p99 ms/page off / on | s to list all off / on | "
                      "on/off p99 | on/off total | reader saw all |", "|---|---:|---:|---:|---:|---:|---:|---|"]
                     + rows)


def targets_table(results):
    s, r, n = results.get("cairn-sqlite", {}), results.get("reference", {}), results.get("nginx", {})
    pg = results.get("cairn-postgres", {})

    def g(d, k, m):
        return d.get(k, {}).get(m)

    rows = []

    def add(name, value, passed):
        rows.append(f"| {name} | {value} | {'yes' if passed else ('no' if passed is not None else 'N/A')} |")

    lt = ratio(g(s, "load_c64", "throughput"), g(r, "load_c64", "throughput"))
    add("loadTable c64 ≥ 20× reference", f"{lt:.1f}×" if lt else "N/A", lt >= 20 if lt else None)
    lpg = ratio(g(pg, "load_c64", "throughput"), g(s, "load_c64", "throughput"))
    add("loadTable c64 on PostgreSQL ≥ 50% of SQLite (replicas' coherent cache)",
        f"{lpg * 100:.0f}%" if lpg else "N/A", lpg >= 0.5 if lpg else None)
    # Shares of nginx per core of server CPU (see wrk()): nginx's raw rate is bound by wrk.
    ln = ratio(g(s, "load_c64", "per_core"), g(n, "load_c64", "per_core"))
    add("loadTable c64 ≥ 70% of nginx (requests per core of server CPU)",
        f"{ln * 100:.0f}%" if ln else "N/A", ln >= 0.7 if ln else None)
    l304 = ratio(g(s, "load304_c64", "per_core"), g(n, "load304_c64", "per_core"))
    add("loadTable 304 c64 ≥ 60% of nginx (requests per core of server CPU)",
        f"{l304 * 100:.0f}%" if l304 else "N/A", l304 >= 0.6 if l304 else None)
    la64 = ratio(g(s, "load_authz_c64", "per_core"), g(n, "load_c64", "per_core"))
    add("loadTable c64 with authorization on (reader) ≥ 70% of nginx (per core of server CPU)",
        f"{la64 * 100:.0f}%" if la64 else "N/A", la64 >= 0.7 if la64 else None)
    lon = g(s, "list_authz", "load_on_off")
    add("loadTable c64, authorization on / off on the same data, back to back (for reference)",
        f"{lon * 100:.0f}%" if lon else "N/A", None)
    lraw = ratio(g(s, "load_c64", "throughput"), g(n, "load_c64", "throughput"))
    add("loadTable c64, raw rate against nginx's (nginx bound by wrk; for reference)",
        f"{lraw * 100:.0f}%" if lraw else "N/A", None)
    lv = ratio(g(s, "load_vended_c64", "throughput"), g(s, "load_c64", "throughput"))
    add("loadTable c64 with vended credentials (cached) ≥ 80% of plain loadTable",
        f"{lv * 100:.0f}%" if lv else "N/A", lv >= 0.8 if lv else None)
    lp = ratio(g(s, "load_c64", "p99_ms"), g(r, "load_c64", "p99_ms"))
    add("loadTable c64 p99 ≤ 1/10 of reference", f"{lp:.2f}×" if lp else "N/A", lp <= 0.1 if lp else None)
    ct = ratio(g(s, "create", "throughput"), g(r, "create", "throughput"))
    add("createTable ≥ 10× reference", f"{ct:.1f}×" if ct else "N/A", ct >= 10 if ct else None)
    cd = ratio(g(s, "commit_distinct", "throughput"), g(r, "commit_distinct", "throughput"))
    add("commits on distinct tables ≥ 10× reference", f"{cd:.1f}×" if cd else "N/A", cd >= 10 if cd else None)
    for name, d in (("sqlite", s), ("postgres", pg)):
        if not d:
            continue
        lost = sum(g(d, k, "lost") or 0 for k in ("commit_hot", "commit_distinct", "commit_hot_stats"))
        dup = sum(g(d, k, "duplicated") or 0
                  for k in ("commit_hot", "commit_distinct", "commit_hot_stats"))
        add(f"zero lost / duplicated acked commits ({name})", f"{lost} lost, {dup} dup", lost == 0 and dup == 0)
    hr = ratio(g(s, "commit_hot", "throughput"), g(s, "commit_distinct", "throughput"))
    add("hot-table commits ≥ 50% of distinct-table rate", f"{hr * 100:.0f}%" if hr else "N/A",
        hr >= 0.5 if hr else None)
    hs = g(s, "commit_hot_stats", "first_try_share")
    add("hot-table commits with statistics land without a 409 (server rebase)",
        f"{hs * 100:.0f}% first try" if hs is not None else "N/A",
        g(s, "commit_hot_stats", "conflicts_409") == 0 if hs is not None else None)
    lp99 = g(s, "list", "p99_ms")
    add(f"listTables page p99 < 10 ms ({fmt(g(s, 'list', 'tables'))} tables, page {g(s, 'list', 'page_size')})",
        f"{lp99:.2f} ms" if lp99 else "N/A", lp99 < 10 if lp99 else None)
    la = g(s, "list_authz", "p99_ms")
    add(f"listTables page p99 < 10 ms with authorization on ({fmt(g(s, 'list_authz', 'tables'))} tables, as reader)",
        f"{la:.2f} ms" if la else "N/A", la < 10 if la else None)
    for key, what in (("object_tags_p99_ms", "tags of a table"), ("tag_objects_p99_ms", "objects of a tag, per page")):
        v = g(s, "tags", key)
        add(f"{what} p99 < 10 ms ({fmt(g(s, 'tags', 'tables'))} tagged tables)",
            f"{v:.2f} ms" if v else "N/A", v < 10 if v else None)
    lg = g(s, "lineage", "page_p99_ms")
    add(f"lineage graph at depth 5, per page p99 < 10 ms ({fmt(g(s, 'lineage', 'events'))} events)",
        f"{lg:.2f} ms" if lg else "N/A", lg < 10 if lg else None)
    iv = g(s, "isolation_summary", "limited_vs_alone")
    add("isolation: writer's commit p99 beside a limited flood ≤ 2× alone, flooder gets 429s and no 5xx",
        f"{iv:.2f}×, {g(s, 'isolation_summary', 'flood_429')} × 429, {g(s, 'isolation_summary', 'flood_5xx')} × 5xx"
        if iv else "N/A",
        (iv <= 2 and g(s, "isolation_summary", "flood_429") > 0 and g(s, "isolation_summary", "flood_5xx") == 0)
        if iv else None)
    rd = g(s, "startup", "ready_ms_median")
    add("ready < 100 ms from exec", f"{rd:.0f} ms" if rd else "N/A", rd < 100 if rd else None)
    rss = g(s, "startup", "idle_rss_mb")
    add("idle RSS < 30 MB", f"{rss:.1f} MB" if rss else "N/A", rss < 30 if rss else None)
    rt = g(s, "startup", "rss_after_tables_mb")
    add(f"RSS after loading {fmt(g(s, 'startup', 'tables_loaded'))} tables ≤ 150 MB",
        f"{rt:.1f} MB" if rt else "N/A", rt <= 150 if rt else None)
    return "\n".join(["| target | cairn-sqlite | met |", "|---|---|---|"] + rows)


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--cairn", default=os.environ.get("CAIRN_BIN", os.path.join(REPO, "build", "cairn")))
    ap.add_argument("--out")
    ap.add_argument("--load-only", action="store_true", help="only start-up and the loadTable workloads "
                    "(same as --workloads load)")
    ap.add_argument("--workloads", default=",".join(WORKLOADS),
                    help=f"comma-separated subset of {','.join(WORKLOADS)} (start-up is always measured; "
                    "list fills `bulk` itself and includes the authorization on/off listing; nginx needs load)")
    args = ap.parse_args()
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    for w in workloads:
        if w not in WORKLOADS:
            ap.error(f"unknown workload {w}")
    if args.load_only:
        workloads = ["load"]
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    for t in targets:
        if t not in TARGETS:
            ap.error(f"unknown target {t}")
    p = profile(args.smoke)
    p["workloads"] = workloads
    if "nginx" in targets and "load" not in workloads:
        targets.remove("nginx")
    started = datetime.datetime.now(datetime.timezone.utc)
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    meta = {"started": started.strftime("%Y-%m-%dT%H:%M:%SZ"), "smoke": args.smoke, "cairn_commit": commit,
            "cpus": NCPU, "server_cpu": SERVER_CPU, "load_cpu": LOAD_CPU, "profile": p,
            "reference": f"org.apache.iceberg:iceberg-open-api:{REF_VERSION} (JdbcCatalog on SQLite)",
            "load_generators": "wrk -t1 (reads), bench/driver.cc (writes, paging)"}
    if os.path.exists(args.cairn):
        st = os.stat(args.cairn)
        with open(args.cairn, "rb") as f:
            meta["cairn_binary"] = {"path": args.cairn, "sha256": hashlib.sha256(f.read()).hexdigest()[:16],
                                    "mtime": datetime.datetime.fromtimestamp(st.st_mtime, datetime.timezone.utc)
                                    .strftime("%Y-%m-%dT%H:%M:%SZ")}
    t_all = time.perf_counter()
    ensure_tools(targets)
    if any(t.startswith("cairn") for t in targets) and not os.access(args.cairn, os.X_OK):
        raise HarnessError(f"no cairn binary at {args.cairn} (make build)")
    results = {}
    failures = []
    harness_errors = []
    tmp_root = tempfile.mkdtemp(prefix="cairn-bench-")
    os.chmod(tmp_root, 0o755)
    with open(os.path.join(tmp_root, "schema.json"), "w") as f:
        json.dump(schema(p["columns"]), f, separators=(",", ":"))
    try:
        for t in targets:
            if t == "nginx":
                continue
            log(f"== {t}")
            wd = os.path.join(tmp_root, t)
            os.makedirs(wd)
            if t.startswith("cairn"):
                store = t.split("-", 1)[1]
                srv = Cairn(wd, args.cairn, store, os.path.join(tmp_root, "pg") if store == "postgres" else None)
            else:
                srv = Reference(wd)
            t0 = time.perf_counter()
            results[t] = {}
            try:
                bench_server(srv, p, tmp_root, (t == "reference"), results[t])
            except (HarnessError, subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
                results[t]["error"] = str(e)[:2000]
                if t == "reference" and args.smoke:
                    # The peer's own failures (its SQLite catalog answers 500 under concurrent
                    # writes) must not fail `make test`; the full run reports them.
                    log(f"reference peer failed (reported, not fatal in smoke mode): {e}")
                else:
                    log(f"harness error in {t}: {e}")
                    harness_errors.append(f"{t}: {e}")
            finally:
                srv.stop()
                srv.close()
            results[t]["wall_s"] = time.perf_counter() - t0
        if "nginx" in targets:
            log("== nginx")
            body_file = os.path.join(tmp_root, "wide.json")
            if not os.path.exists(body_file):
                raise HarnessError("nginx needs a Cairn run first (its loadTable bytes are the static file)")
            with open(body_file, "rb") as f:
                body = f.read()
            results["nginx"] = bench_nginx(body, p, tmp_root, "/iceberg/v1/bench.cat/namespaces/bench/tables/wide")
        for t in ("cairn-sqlite", "cairn-postgres"):
            for k in ("list", "list_authz"):
                d = results.get(t, {}).get(k)
                if d and d.get("missing_tokens"):
                    failures.append(f"{t} {k}: {d['missing_tokens']} full pages came without next-page-token "
                                    "(paging stops there; the driver went on with hex(last name) to measure)")
            la = results.get(t, {}).get("list_authz")
            if la and not la["reader_saw_all"]:
                failures.append(f"{t}: with authorization on, reader listed {la['tables_per_pass']} of {la['tables']}")
            for k in ("commit_distinct", "commit_hot"):
                d = results.get(t, {}).get(k)
                if d and (d["lost"] or d["duplicated"]):
                    failures.append(f"{t} {k}: {d['lost']} lost, {d['duplicated']} duplicated acknowledged commits")
    finally:
        subprocess.run([os.path.join(REPO, "tests/harness/pg.sh"), "stop", os.path.join(tmp_root, "pg")],
                       capture_output=True)
        # Deleting 100,000 table directories takes a while: leave it to a detached rm.
        subprocess.Popen(["rm", "-rf", tmp_root], start_new_session=True)
    meta["wall_s"] = time.perf_counter() - t_all
    md = markdown(results, meta)
    # Computed whenever cairn-sqlite ran; a target whose peer numbers are missing (a failed run) reads N/A.
    tt = targets_table(results) if "cairn-sqlite" in results else ""
    print(md)
    if tt:
        print()
        print(tt)
    out = args.out or os.path.join(BENCH, "results",
                                   started.strftime("%Y%m%dT%H%M%SZ") + ("-smoke" if args.smoke else "") + ".json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump({"meta": meta, "results": results, "markdown": md, "targets": tt}, f, indent=2)
    log(f"wrote {os.path.relpath(out, REPO)} ({meta['wall_s']:.0f} s)")
    for m in harness_errors:
        log("HARNESS ERROR " + m)
    for m in failures:
        log("FAIL " + m)
    return 2 if harness_errors else (1 if failures else 0)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (HarnessError, subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
        log(f"harness error: {e}")
        sys.exit(2)
