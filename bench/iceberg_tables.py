#!/usr/bin/env python3
"""Iceberg table workloads measured beside the same engine doing the work itself.

    .venv/bin/python bench/iceberg_tables.py [--smoke] [--cairn build/cairn] [--out FILE]

(the venv of `make test`: it needs PyIceberg and pyarrow.)

1. Scan planning: a table of --files data files (10,000; 100 identity partitions) planned by
   PyIceberg on the client and by Cairn on the server (`scan-planning-mode=server`), for a full
   scan, one partition and an id range only column statistics can prune; the first server plan
   (manifests not yet cached) and the median of the next ones. Both must pick the same files.
2. Maintenance: a table with --snapshots commits (1,000), then Cairn's built-in expiry and
   metadata-file cleanup through the jobs API: files and bytes under the table's folder and the
   loadTable answer's size and latency, before and after.

Results: bench/results/tables-<UTC time>[-smoke].json and a table on stdout.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "harness"))

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import requests  # noqa: E402
from cairn_server import running_cairn  # noqa: E402


def log(msg: str) -> None:
    print(f"[tables {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def api(base: str, method: str, path: str, body=None) -> dict:
    r = requests.request(method, f"{base}/api/{path}", json=body, timeout=120,
                         headers={"Accept": "application/vnd.gravitino.v1+json"})
    if r.status_code != 200:
        raise SystemExit(f"{method} /api/{path}: {r.status_code} {r.text[:300]}")
    return r.json()


def catalog(base: str, warehouse: str, **props):
    from pyiceberg.catalog import load_catalog
    return load_catalog(f"bench-{time.monotonic_ns()}", **{
        "type": "rest", "uri": f"{base}/iceberg", "warehouse": warehouse, **props})


def tree(root: Path) -> tuple[int, int]:
    files = [p for p in root.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def timed(fn, repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), times


def planning(base: str, warehouse: str, data_dir: Path, n_files: int, repeat: int) -> dict:
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.types import IntegerType, LongType, NestedField, StringType

    client = catalog(base, warehouse)
    client.create_namespace("plan")
    schema = Schema(NestedField(1, "id", LongType(), required=False),
                    NestedField(2, "part", IntegerType(), required=False),
                    NestedField(3, "v", StringType(), required=False))
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(),
                                        name="part"))
    table = client.create_table("plan.files", schema=schema, partition_spec=spec)
    arrow = pa.schema([("id", pa.int64()), ("part", pa.int32()), ("v", pa.string())])
    t0 = time.perf_counter()
    paths = []
    for i in range(n_files):
        part = i % 100
        path = data_dir / f"part={part}" / f"f{i:06d}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        ids = list(range(i * 10, i * 10 + 10))
        pq.write_table(pa.table({"id": ids, "part": [part] * 10, "v": [f"v{x}" for x in ids]},
                                schema=arrow), path)
        paths.append(str(path))
    for k in range(0, len(paths), 1000):
        table.add_files(paths[k:k + 1000])
    log(f"  {n_files} data files written and added in {time.perf_counter() - t0:.1f}s")
    server = catalog(base, warehouse, **{"scan-planning-mode": "server"})
    ct, st = client.load_table("plan.files"), server.load_table("plan.files")
    mid = n_files * 5
    filters = {"full scan": None, "one partition": "part = 7",
               "id range (metrics)": f"id >= {mid} and id < {mid + 500}"}
    out = {}
    for name, flt in filters.items():
        def plan(t, flt=flt):
            scan = t.scan(row_filter=flt) if flt else t.scan()
            return {task.file.file_path for task in scan.plan_files()}
        files_client, files_server = plan(ct), None
        t0 = time.perf_counter()
        files_server = plan(st)
        first_server_ms = (time.perf_counter() - t0) * 1000
        if files_client != files_server:
            raise SystemExit(f"{name}: server planned {len(files_server)} files, "
                             f"client {len(files_client)}")
        client_ms, _ = timed(lambda: plan(ct), repeat)
        server_ms, _ = timed(lambda: plan(st), repeat)
        out[name] = {"files": len(files_client), "client_ms": client_ms,
                     "server_first_ms": first_server_ms, "server_ms": server_ms,
                     "client_over_server": client_ms / server_ms if server_ms else None}
        log(f"  {name}: {len(files_client)} files, client {client_ms:.0f} ms, server "
            f"{server_ms:.0f} ms (first {first_server_ms:.0f} ms)")
    return out


def load_stats(base: str, warehouse: str, ns: str, name: str, repeat: int) -> dict:
    url = f"{base}/iceberg/v1/{warehouse}/namespaces/{ns}/tables/{name}"
    session = requests.Session()
    body = session.get(url, timeout=60)
    body.raise_for_status()
    median, _ = timed(lambda: session.get(url, timeout=60).raise_for_status(), repeat)
    return {"load_table_bytes": len(body.content), "load_table_ms": median}


def run_job(base: str, metalake: str, template: str, conf: dict) -> dict:
    job = api(base, "POST", f"metalakes/{metalake}/jobs/runs",
              {"jobTemplateName": template, "jobConf": conf})["job"]
    deadline = time.time() + 600
    while True:
        job = api(base, "GET", f"metalakes/{metalake}/jobs/runs/{job['jobId']}")["job"]
        if job["status"] in ("succeeded", "failed", "cancelled"):
            break
        if time.time() > deadline:
            raise SystemExit(f"{template} still {job['status']}")
        time.sleep(0.2)
    if job["status"] != "succeeded":
        raise SystemExit(f"{template}: {job}")
    return job


def maintenance(base: str, metalake: str, cat: str, warehouse: str, n_snapshots: int,
                repeat: int) -> dict:
    client = catalog(base, warehouse)
    client.create_namespace("maint")
    arrow = pa.schema([("id", pa.int64()), ("v", pa.string())])
    table = client.create_table("maint.history", schema=arrow, properties={
        "write.metadata.delete-after-commit.enabled": "true",
        "write.metadata.previous-versions-max": "10"})
    t0 = time.perf_counter()
    for i in range(n_snapshots):
        table.append(pa.table({"id": [i], "v": [f"v{i}"]}, schema=arrow))
    log(f"  {n_snapshots} appends in {time.perf_counter() - t0:.1f}s")
    folder = Path(table.location().removeprefix("file://").removeprefix("file:"))
    before_files, before_bytes = tree(folder)
    before = {"files": before_files, "bytes": before_bytes,
              "snapshots": len(client.load_table("maint.history").snapshots()),
              **load_stats(base, warehouse, "maint", "history", repeat)}
    t0 = time.perf_counter()
    expiry = run_job(base, metalake, "builtin-iceberg-expire-snapshots", {
        "catalog": cat, "schema": "maint", "table": "history",
        "older_than": str(int(time.time() * 1000) + 1000), "retain_last": "10"})
    cleanup = run_job(base, metalake, "builtin-iceberg-clean-metadata-files", {
        "catalog": cat, "schema": "maint", "table": "history"})
    jobs_s = time.perf_counter() - t0
    after_files, after_bytes = tree(folder)
    after = {"files": after_files, "bytes": after_bytes,
             "snapshots": len(client.load_table("maint.history").snapshots()),
             **load_stats(base, warehouse, "maint", "history", repeat)}
    rows = client.load_table("maint.history").scan().to_arrow().num_rows
    if rows != n_snapshots:
        raise SystemExit(f"after maintenance the table reads {rows} rows, not {n_snapshots}")
    log(f"  files {before_files} -> {after_files}, bytes {before_bytes} -> {after_bytes}, "
        f"loadTable {before['load_table_bytes']} -> {after['load_table_bytes']} bytes")
    return {"before": before, "after": after, "jobs_s": jobs_s,
            "expiry_result": expiry.get("cairn.result"),
            "cleanup_result": cleanup.get("cairn.result")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--cairn", default=os.environ.get("CAIRN_BIN", str(REPO / "build" / "cairn")))
    ap.add_argument("--out")
    args = ap.parse_args()
    n_files, n_snapshots, repeat = (500, 50, 3) if args.smoke else (10_000, 1_000, 7)
    os.environ["CAIRN_BIN"] = args.cairn
    started = datetime.datetime.now(datetime.timezone.utc)
    result = {"started": started.strftime("%Y-%m-%dT%H:%M:%SZ"), "smoke": args.smoke,
              "files": n_files, "snapshots": n_snapshots, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="cairn-tables-") as tmp:
        work = Path(tmp)
        (work / "warehouse").mkdir()
        env = {"CAIRN_JOBS_LOCAL_EXECUTOR_ENABLED": "true"}
        with running_cairn("tables", env, work / "data", work) as srv:
            metalake, cat = "bench", "tables"
            api(srv.url, "POST", "metalakes", {"name": metalake, "properties": {}})
            api(srv.url, "POST", f"metalakes/{metalake}/catalogs", {
                "name": cat, "type": "relational", "provider": "lakehouse-iceberg",
                "properties": {"catalog-backend": "managed",
                               "warehouse": str(work / "warehouse")}})
            warehouse = f"{metalake}.{cat}"
            log("== scan planning")
            result["planning"] = planning(srv.url, warehouse, work / "files", n_files, repeat)
            log("== maintenance")
            result["maintenance"] = maintenance(srv.url, metalake, cat, warehouse, n_snapshots,
                                                repeat * 5)
    out = Path(args.out) if args.out else REPO / "bench" / "results" / (
        "tables-" + started.strftime("%Y%m%dT%H%M%SZ") + ("-smoke" if args.smoke else "") + ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"| plan ({n_files} data files) | files | PyIceberg client ms | Cairn server ms "
          "(first) | client / server |")
    print("|---|---:|---:|---:|---:|")
    for name, r in result["planning"].items():
        print(f"| {name} | {r['files']} | {r['client_ms']:.0f} | {r['server_ms']:.0f} "
              f"({r['server_first_ms']:.0f}) | {r['client_over_server']:.1f} |")
    m = result["maintenance"]
    print(f"\n| {n_snapshots} snapshots | before | after expiry + cleanup |")
    print("|---|---:|---:|")
    for key in ("snapshots", "files", "bytes", "load_table_bytes", "load_table_ms"):
        b, a = m["before"][key], m["after"][key]
        fmt = (lambda v: f"{v:.2f}") if key.endswith("_ms") else (lambda v: f"{v:,}")
        print(f"| {key} | {fmt(b)} | {fmt(a)} |")
    log(f"results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
