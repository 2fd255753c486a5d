#!/usr/bin/env python3
"""Cairn on PostgreSQL beside Cairn on SQLite, and how stale one replica is after another's write.

    python3 bench/replicas.py [--smoke] [--cairn build/cairn] [--out FILE]

1. loadTable of the benchmark's wide table (50 columns, 100 snapshots) at 64 connections with
   wrk, as bench/run.py measures it (server pinned to CPU 0 with its PostgreSQL, wrk to CPU 1),
   on: SQLite; PostgreSQL with its path cache kept coherent by the change feed (the default);
   PostgreSQL with that cache off (`cairn.store.postgres.cache=false`, every lookup a query).
2. Staleness: two replicas on one PostgreSQL. A commits a snapshot to a table (the Iceberg REST
   commit route); the moment A answers, B is asked for the table until its answer names A's new
   metadata file. Reported: p50, p99 and max of that delay over --commits commits.

Results: bench/results/replicas-<UTC time>[-smoke].json and a table on stdout.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
import run as bench  # noqa: E402  (bench/run.py: servers, wrk, the wide table)


def load_rate(srv, p, label):
    srv.start()
    try:
        srv.prepare()
        bench.ok(srv.port, "POST", f"{srv.base}/namespaces", {"namespace": ["bench"]},
                 expect=(200, 409))
        path, _, _ = bench.build_wide_table(srv, p)
        if p["warm_s"]:
            bench.wrk(srv.port, path, 16, p["warm_s"])
        r = bench.wrk(srv.port, path, 64, p["dur_s"], server_pid=srv.proc.pid)
        bench.log(f"  {label}: loadTable c64 {r['throughput']:.0f}/s p99 {r['p99_ms']:.2f} ms, "
                  f"server CPU {r['server_cpu_util']:.2f}")
        return r
    finally:
        srv.stop()


def commit(port, path, current):
    sid = random.getrandbits(62) + 1
    meta = json.loads(bench.request(port, "GET", path)[2])["metadata"]
    snap = {"snapshot-id": sid, "sequence-number": meta.get("last-sequence-number", 0) + 1,
            "timestamp-ms": int(time.time() * 1000),
            "manifest-list": f"file:///tmp/cairn-bench-fake/stale/snap-{sid}.avro",
            "summary": {"operation": "append"}, "schema-id": 0}
    if current is not None:
        snap["parent-snapshot-id"] = current
    body = {"requirements": [{"type": "assert-ref-snapshot-id", "ref": "main",
                              "snapshot-id": current}],
            "updates": [{"action": "add-snapshot", "snapshot": snap},
                        {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch",
                         "snapshot-id": sid}]}
    answer = bench.ok(port, "POST", path, body)
    return sid, answer["metadata-location"]


def staleness(a, b, commits):
    path = f"{a.base}/namespaces/bench/tables/stale"
    bench.ok(a.port, "POST", f"{a.base}/namespaces/bench/tables",
             {"name": "stale", "schema": bench.schema(5)}, expect=(200, 409))
    bench.ok(b.port, "GET", path)  # B has the table's path cached from here on
    current, delays, polls = None, [], 0
    for _ in range(commits):
        current, location = commit(a.port, path, current)
        t0 = time.perf_counter()
        while True:
            polls += 1
            st, _, data = bench.request(b.port, "GET", path)
            if st == 200 and json.loads(data)["metadata-location"] == location:
                break
            if time.perf_counter() - t0 > 10:
                raise bench.HarnessError("replica B did not see A's commit within 10 s")
        delays.append((time.perf_counter() - t0) * 1000)
    delays.sort()
    return {"commits": commits, "p50_ms": statistics.median(delays),
            "p99_ms": delays[min(len(delays) - 1, int(len(delays) * 0.99))],
            "max_ms": delays[-1], "reads_of_b": polls}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--cairn", default=os.environ.get("CAIRN_BIN", "build/cairn"))
    ap.add_argument("--commits", type=int, default=None)
    ap.add_argument("--out")
    args = ap.parse_args()
    binary = os.path.abspath(args.cairn)
    p = bench.profile(args.smoke)
    commits = args.commits or (20 if args.smoke else 500)
    bench.ensure_tools(["cairn-sqlite", "cairn-postgres"])
    started = datetime.datetime.now(datetime.timezone.utc)
    commit_id = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=bench.REPO,
                               capture_output=True, text=True).stdout.strip()
    res = {"started": started.strftime("%Y-%m-%dT%H:%M:%SZ"), "smoke": args.smoke,
           "cairn_commit": commit_id, "cpus": bench.NCPU}
    with tempfile.TemporaryDirectory(prefix="cairn-bench-replicas.") as tmp:
        os.chmod(tmp, 0o755)  # the cluster runs as the postgres user
        bench.log("cairn on SQLite")
        res["sqlite"] = load_rate(bench.Cairn(os.path.join(tmp, "sqlite"), binary, "sqlite"), p,
                                  "sqlite")
        pg = bench.Cairn(os.path.join(tmp, "pg-cached"), binary, "postgres",
                         os.path.join(tmp, "pg"))
        try:
            bench.log("cairn on PostgreSQL, path cache with the change feed")
            res["postgres"] = load_rate(pg, p, "postgres")
            uncached = bench.Cairn(os.path.join(tmp, "pg-uncached"), binary, "sqlite")
            uncached.store, uncached.name, uncached.pg_url = "postgres", "cairn-postgres", pg.pg_url
            uncached.extra_env = {"CAIRN_STORE_POSTGRES_CACHE": "false"}
            bench.log("cairn on PostgreSQL, no cache")
            res["postgres_uncached"] = load_rate(uncached, p, "postgres, no cache")

            bench.log(f"staleness: {commits} commits on replica A, read on replica B")
            a = bench.Cairn(os.path.join(tmp, "replica-a"), binary, "sqlite")
            b = bench.Cairn(os.path.join(tmp, "replica-b"), binary, "sqlite")
            for r, name in ((a, "replica-a"), (b, "replica-b")):
                r.store, r.name, r.pg_url = "postgres", name, pg.pg_url
            a.start()
            b.start()
            try:
                a.prepare()
                b.prepare()
                bench.ok(a.port, "POST", f"{a.base}/namespaces", {"namespace": ["bench"]},
                         expect=(200, 409))
                res["staleness"] = staleness(a, b, commits)
            finally:
                a.stop()
                b.stop()
            s = res["staleness"]
            bench.log(f"  staleness p50 {s['p50_ms']:.2f} ms, p99 {s['p99_ms']:.2f} ms, "
                      f"max {s['max_ms']:.2f} ms")
        finally:
            pg.close()
    res["postgres_vs_sqlite"] = res["postgres"]["throughput"] / res["sqlite"]["throughput"]
    res["cache_gain"] = res["postgres"]["throughput"] / res["postgres_uncached"]["throughput"]
    out = args.out or os.path.join(bench.BENCH, "results", "replicas-" + started.strftime(
        "%Y%m%dT%H%M%SZ") + ("-smoke" if args.smoke else "") + ".json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print("| loadTable c64 | req/s | p99 ms | server CPU |\n|---|---:|---:|---:|")
    for key, label in (("sqlite", "SQLite"), ("postgres", "PostgreSQL, cached"),
                       ("postgres_uncached", "PostgreSQL, no cache")):
        r = res[key]
        print(f"| {label} | {r['throughput']:,.0f} | {r['p99_ms']:.2f} | "
              f"{r['server_cpu_util']:.2f} |")
    s = res["staleness"]
    print(f"\nPostgreSQL / SQLite: {res['postgres_vs_sqlite'] * 100:.0f}%; cache gain "
          f"{res['cache_gain']:.1f}x; staleness over {s['commits']} commits: p50 "
          f"{s['p50_ms']:.2f} ms, p99 {s['p99_ms']:.2f} ms, max {s['max_ms']:.2f} ms")
    print(f"results: {out}")


if __name__ == "__main__":
    try:
        main()
    except bench.HarnessError as e:
        print(f"bench/replicas.py: {e}", file=sys.stderr)
        sys.exit(1)
