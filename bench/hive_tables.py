#!/usr/bin/env python3
"""Iceberg tables whose pointer lives in a Hive Metastore, beside managed ones, in one run.

    .venv/bin/python bench/hive_tables.py [--loads 500] [--appends 20] [--warmup 2000]
                                          [--cairn build/cairn]

(the venv of `make test`: it needs PyIceberg, pyarrow and Java for the metastore.)

One Cairn and one Hive 4 standalone metastore (tests/harness/hive_metastore.py) on 127.0.0.1; a
`lakehouse-iceberg` catalog with the managed backend and one with `catalog-backend=hive`, each
with one table of 3 snapshots. Measured, for each: loadTable over the Iceberg REST API (one
client, one request at a time: the latency a reader sees; the hive-backed one adds a metastore
round trip per load) and sequential PyIceberg appends (the hive-backed commit adds the metastore's
compare-and-swap). Results: bench/results/hive-<UTC time>.json and a table on stdout.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "harness"))

import pyarrow as pa  # noqa: E402
import requests  # noqa: E402
from cairn_server import running_cairn  # noqa: E402
from hive_metastore import HiveMetastore  # noqa: E402
from pyiceberg.catalog import load_catalog  # noqa: E402
from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.types import LongType, NestedField  # noqa: E402

HEADERS = {"Content-Type": "application/json", "Accept": "application/vnd.gravitino.v1+json"}


def log(msg: str) -> None:
    print(f"[hive {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def batch(start: int) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + 10), pa.int64())})


def measure(base: str, ml: str, catalog: str, props: dict, loads: int, appends: int,
            warmup: int) -> dict:
    r = requests.post(f"{base}/api/metalakes/{ml}/catalogs", headers=HEADERS, timeout=30,
                      data=json.dumps({"name": catalog, "type": "relational",
                                       "provider": "lakehouse-iceberg", "properties": props}))
    r.raise_for_status()
    warehouse = f"{ml}.{catalog}"
    cat = load_catalog(catalog, type="rest", uri=f"{base}/iceberg", warehouse=warehouse)
    cat.create_namespace("bench")
    tbl = cat.create_table("bench.t", Schema(NestedField(1, "id", LongType(), required=False)))
    for i in range(3):
        tbl.append(batch(i * 10))
    url = f"{base}/iceberg/v1/{warehouse}/namespaces/bench/tables/t"
    session = requests.Session()
    # Warm-up: the metastore's JVM answers get_table_req several times slower until it has
    # served about a thousand of them (7.4 ms a load after 20, 3.4 ms after 900).
    for _ in range(warmup):
        session.get(url, timeout=30).raise_for_status()
    times = []
    for _ in range(loads):
        t0 = time.perf_counter()
        session.get(url, timeout=30).raise_for_status()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    commit = []
    for i in range(appends):
        t0 = time.perf_counter()
        tbl.append(batch(1000 + i * 10))
        commit.append((time.perf_counter() - t0) * 1000)
    commit.sort()
    rows = cat.load_table("bench.t").scan().to_arrow().num_rows
    assert rows == (3 + appends) * 10, rows
    return {"load_median_ms": statistics.median(times),
            "load_p99_ms": times[int(len(times) * 0.99) - 1],
            "loads_per_s": len(times) / (sum(times) / 1000),
            "append_median_ms": statistics.median(commit)}


def metastore_get_table(port: int, n: int) -> float:
    """The metastore's own get_table_req latency (median ms) from a Thrift client: what a
    hive-backed load adds at least."""
    from hive_metastore_client import HiveMetastoreClient
    from thrift_files.libraries.thrift_hive_metastore_client.ttypes import GetTableRequest
    times = []
    with HiveMetastoreClient("127.0.0.1", port) as c:
        for _ in range(n):
            t0 = time.perf_counter()
            c.get_table_req(GetTableRequest(dbName="bench", tblName="t"))
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loads", type=int, default=500)
    ap.add_argument("--appends", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2000, help="loads before the measured ones")
    ap.add_argument("--cairn", default=str(REPO / "build" / "cairn"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cairn-hive-bench-") as tmp:
        tmp = Path(tmp)
        ms = HiveMetastore(tmp / "hms").start()
        try:
            with running_cairn("hive-bench", {}, tmp / "data", tmp, binary=Path(args.cairn)) as srv:
                ml = "bench"
                requests.post(f"{srv.url}/api/metalakes", headers=HEADERS, timeout=30,
                              data=json.dumps({"name": ml})).raise_for_status()
                results = {}
                for label, props in [
                        ("managed", {"warehouse": f"file://{tmp}/wh-managed"}),
                        ("hive", {"catalog-backend": "hive", "uri": ms.uri,
                                  "warehouse": f"file://{tmp}/wh-hive"})]:
                    log(f"{label}: {args.loads} loads, {args.appends} appends")
                    results[label] = measure(srv.url, ml, label, props, args.loads, args.appends,
                                             args.warmup)
                direct = metastore_get_table(ms.port, args.loads)
        finally:
            ms.stop()
    out = {"time": datetime.datetime.now(datetime.timezone.utc).isoformat(), "args": vars(args),
           "results": results, "metastore_get_table_median_ms": direct,
           "hive_over_managed": {k: results["hive"][k] / results["managed"][k]
                                 for k in results["managed"]}}
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = REPO / "bench" / "results" / f"hive-{stamp}.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"{'':8} {'load median ms':>15} {'load p99 ms':>12} {'loads/s':>9} "
          f"{'append median ms':>17}")
    for label, r in results.items():
        print(f"{label:8} {r['load_median_ms']:15.2f} {r['load_p99_ms']:12.2f} "
              f"{r['loads_per_s']:9.0f} {r['append_median_ms']:17.1f}")
    print(f"the metastore's own get_table_req, median: {direct:.2f} ms")
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
