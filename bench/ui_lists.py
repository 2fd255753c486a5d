#!/usr/bin/env python3
"""The web UI on a schema of many tables: how long its pages take, in the browser and on the API.

    .venv/bin/python bench/ui_lists.py [--tables 100000] [--cairn build/cairn]

(the venv of `make test`: Playwright's Python client and Debian's /usr/bin/chromium.)

One Cairn on SQLite with one managed Iceberg catalog whose schema `bulk` gets --tables tables,
created over the Iceberg REST API by four clients. Then, for that schema:
- the Gravitino API's table list: whole (what Gravitino's clients ask), and a page of 50
  (`pageSize`), a later page (`pageToken`) and a search (`nameContains`), as the UI asks;
- in Chromium: from opening the schema's page to its first 50 names shown, to the next page
  shown, and from typing a search to its matches shown (the search waits 250 ms for typing to
  stop; that pause is part of the time).
Results: bench/results/ui-lists-<UTC time>.json and a table on stdout. Medians of --repeat.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "harness"))

import requests  # noqa: E402
from cairn_server import running_cairn  # noqa: E402

HEADERS = {"Content-Type": "application/json", "Accept": "application/vnd.gravitino.v1+json",
           "Authorization": "Basic YWRtaW46eA=="}  # admin (simple authentication)
SCHEMA = {"type": "struct", "schema-id": 0,
          "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}]}


def log(msg: str) -> None:
    print(f"[ui-lists {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def timed(f, repeat: int) -> dict:
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        samples.append((time.perf_counter() - t) * 1000)
    return {"median_ms": round(statistics.median(samples), 2), "max_ms": round(max(samples), 2)}


def create_tables(base: str, prefix: str, n: int) -> float:
    started = time.perf_counter()

    def worker(k: int):
        s = requests.Session()
        for i in range(k, n, 4):
            r = s.post(f"{base}/iceberg/v1/{prefix}/namespaces/bulk/tables", headers=HEADERS,
                       json={"name": f"t{i:06d}", "schema": SCHEMA}, timeout=60)
            if r.status_code != 200:
                raise RuntimeError(f"create t{i:06d}: {r.status_code} {r.text[:200]}")
            if k == 0 and i % 20000 == 0:
                log(f"  {i} of {n}")

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for f in [pool.submit(worker, k) for k in range(4)]:
            f.result()
    return time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--cairn", default=str(REPO / "build" / "cairn"))
    args = ap.parse_args()
    from playwright.sync_api import expect, sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="cairn-ui-bench-"))
    with running_cairn("ui-bench", {"CAIRN_STORE_TYPE": "sqlite"}, tmp / "data", tmp,
                       Path(args.cairn)) as server:
        base = server.url
        api = f"{base}/api/metalakes/lake/catalogs/ice/schemas/bulk/tables"
        requests.post(f"{base}/api/metalakes", headers=HEADERS, json={"name": "lake"}, timeout=30).raise_for_status()
        requests.post(f"{base}/api/metalakes/lake/catalogs", headers=HEADERS, timeout=30, json={
            "name": "ice", "type": "RELATIONAL", "provider": "lakehouse-iceberg",
            "properties": {"warehouse": str(tmp / "wh")}}).raise_for_status()
        requests.post(f"{base}/api/metalakes/lake/catalogs/ice/schemas", headers=HEADERS,
                      json={"name": "bulk"}, timeout=30).raise_for_status()
        log(f"creating {args.tables} tables")
        create_s = create_tables(base, "lake.ice", args.tables)
        log(f"created in {create_s:.0f} s")
        s = requests.Session()

        def get(params=None):
            r = s.get(api, headers=HEADERS, params=params, timeout=60)
            r.raise_for_status()
            return r

        whole = get()
        assert len(whole.json()["identifiers"]) == args.tables
        results = {
            "tables": args.tables,
            "create_seconds": round(create_s, 1),
            "api_whole_list": {**timed(get, args.repeat), "bytes": len(whole.content)},
            "api_first_page_50": timed(lambda: get({"pageSize": "50"}), args.repeat),
            "api_middle_page_50": timed(lambda: get({"pageSize": "50", "pageToken": f"t{args.tables // 2:06d}"}), args.repeat),
            "api_search_page_50": timed(lambda: get({"pageSize": "50", "nameContains": f"t{args.tables - 1:06d}"[:5]}), args.repeat),
        }
        page_bytes = len(get({"pageSize": "50"}).content)
        results["api_first_page_50"]["bytes"] = page_bytes

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"])
            ctx = browser.new_context(base_url=base)
            page = ctx.new_page()
            page.goto("/ui/")
            page.get_by_label("User name").fill("admin")
            page.get_by_role("button", name="Sign in").click()
            expect(page.get_by_test_id("principal")).to_have_text("admin", timeout=30_000)
            open_ms, next_ms, search_ms = [], [], []
            names = page.get_by_role("list", name="tables")
            for _ in range(args.repeat):
                t = time.perf_counter()
                page.goto("/ui/m/lake/c/ice/s/bulk")
                expect(names.get_by_role("listitem")).to_have_count(50, timeout=60_000)
                open_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                page.get_by_role("button", name="Next page").click()
                expect(names.get_by_role("link").first).to_have_text("t000050", timeout=60_000)
                next_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                page.get_by_label("Search tables").fill(f"t{args.tables - 1:06d}")
                expect(names.get_by_role("listitem")).to_have_count(1, timeout=60_000)
                search_ms.append((time.perf_counter() - t) * 1000)
            browser.close()
        for key, samples in (("browser_open_schema_page", open_ms), ("browser_next_page", next_ms),
                             ("browser_search_incl_250ms_pause", search_ms)):
            results[key] = {"median_ms": round(statistics.median(samples), 1),
                            "max_ms": round(max(samples), 1)}
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = REPO / "bench" / "results" / f"ui-lists-{stamp}.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\n{args.tables} tables in one schema (bench/results/{out.name})")
    print(f"{'measure':<36} {'median ms':>10} {'max ms':>9}")
    for k, v in results.items():
        if isinstance(v, dict):
            print(f"{k:<36} {v['median_ms']:>10} {v['max_ms']:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
