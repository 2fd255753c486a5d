"""Helpers of the Iceberg REST suite: plain HTTP on /iceberg and /api, PyIceberg loading,
metadata files on disk, and the worker of the multi-process test (importable by spawn)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse, unquote

import requests

TIMEOUT_S = 60
GRAVITINO_HEADERS = {
    "Accept": "application/vnd.gravitino.v1+json",
    "Content-Type": "application/json",
    "X-Client-Version": "1.3.1",
}


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def ns_path(namespace: str | tuple[str, ...] | list[str]) -> str:
    """A namespace as a URL path segment: levels joined by 0x1F, percent-encoded."""
    if isinstance(namespace, str):
        namespace = (namespace,)
    return quote("\x1f".join(namespace), safe="")


def load_catalog_for(uri: str, warehouse: str, **props):
    from pyiceberg.catalog import load_catalog

    return load_catalog("cairn", **{"type": "rest", "uri": uri, "warehouse": warehouse, **props})


class Ice:
    """One Cairn metalake + lakehouse-iceberg catalog, reached over both protocols."""

    def __init__(self, base_url: str, metalake: str, catalog: str, warehouse_dir: Path):
        self.base = base_url.rstrip("/")
        self.metalake = metalake
        self.catalog = catalog
        self.warehouse_dir = Path(warehouse_dir)
        self.session = requests.Session()
        self._prefix: str | None = None

    # --- naming -------------------------------------------------------------------------------
    @property
    def warehouse(self) -> str:
        return f"{self.metalake}.{self.catalog}"

    @property
    def uri(self) -> str:
        return f"{self.base}/iceberg"

    def pyiceberg(self, **props):
        return load_catalog_for(self.uri, self.warehouse, **props)

    # --- Gravitino API --------------------------------------------------------------------------
    def api(self, method: str, path: str, body: Any = None, **kw) -> requests.Response:
        data = json.dumps(body) if body is not None else None
        return self.session.request(method, f"{self.base}/api/{path.lstrip('/')}", data=data,
                                    headers=GRAVITINO_HEADERS, timeout=TIMEOUT_S, **kw)

    def api_get(self, path, **kw):
        return self.api("GET", path, **kw)

    def api_post(self, path, body=None, **kw):
        return self.api("POST", path, body, **kw)

    def api_delete(self, path, **kw):
        return self.api("DELETE", path, **kw)

    def api_schema_path(self, schema: str = "") -> str:
        p = f"metalakes/{self.metalake}/catalogs/{self.catalog}/schemas"
        return p + (f"/{schema}" if schema else "")

    def api_table_path(self, schema: str, table: str = "") -> str:
        return self.api_schema_path(schema) + "/tables" + (f"/{table}" if table else "")

    # --- Iceberg REST ---------------------------------------------------------------------------
    def config(self) -> requests.Response:
        return self.session.get(f"{self.uri}/v1/config", params={"warehouse": self.warehouse},
                                timeout=TIMEOUT_S)

    @property
    def prefix(self) -> str:
        if self._prefix is None:
            r = self.config()
            assert r.status_code == 200, f"config: {r.status_code} {r.text[:300]}"
            self._prefix = r.json()["overrides"]["prefix"]
        return self._prefix

    def rest_url(self, path: str) -> str:
        return f"{self.uri}/v1/{quote(self.prefix, safe='')}/{path.lstrip('/')}"

    def rest(self, method: str, path: str, body: Any = None, *, data: Any = None,
             headers: dict | None = None, **kw) -> requests.Response:
        hdrs = {"Content-Type": "application/json"}
        if headers:
            hdrs.update(headers)
        if body is not None:
            data = json.dumps(body)
        return self.session.request(method, self.rest_url(path), data=data, headers=hdrs,
                                    timeout=TIMEOUT_S, **kw)

    def table_path(self, namespace, table: str) -> str:
        return f"namespaces/{ns_path(namespace)}/tables/{quote(table, safe='')}"

    def view_path(self, namespace, view: str) -> str:
        return f"namespaces/{ns_path(namespace)}/views/{quote(view, safe='')}"

    def load_table_json(self, namespace, table: str) -> dict:
        r = self.rest("GET", self.table_path(namespace, table))
        assert r.status_code == 200, f"load table: {r.status_code} {r.text[:300]}"
        return r.json()


def assert_iceberg_error(resp: requests.Response, status: int,
                         types: str | tuple[str, ...] | None = None) -> dict:
    """An Iceberg REST error: HTTP status and `{"error": {"message", "type", "code"}}`."""
    assert resp.status_code == status, (
        f"expected HTTP {status}, got {resp.status_code}: {resp.text[:500]}")
    try:
        body = resp.json()
    except ValueError as e:
        raise AssertionError(f"error body is not JSON: {resp.text[:300]!r}") from e
    err = body.get("error")
    assert isinstance(err, dict), body
    assert err.get("code") == status, body
    assert isinstance(err.get("message"), str) and err["message"], body
    assert isinstance(err.get("type"), str) and err["type"], body
    if types is not None:
        if isinstance(types, str):
            types = (types,)
        assert err["type"] in types, f"type {err['type']!r} not in {types}: {body}"
    return err


def local_path(location: str) -> Path:
    """A file:// (or bare) location as a local path."""
    u = urlparse(location)
    if u.scheme in ("", "file"):
        return Path(unquote(u.path))
    raise AssertionError(f"not a local location: {location}")


def files_under(root: Path) -> list[Path]:
    root = Path(root)
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


# ---------------------------------------------------------------------------------------------
# Multi-process appends (module-level so that `spawn` can import it)
# ---------------------------------------------------------------------------------------------


def append_worker(uri: str, warehouse: str, identifier: str, writer: int, batches: int,
                  rows_per_batch: int, start_evt, result_q) -> None:
    import pyarrow as pa

    try:
        cat = load_catalog_for(uri, warehouse)
        start_evt.wait(60)
        for b in range(batches):
            tbl = cat.load_table(identifier)
            base = writer * 1_000_000 + b * rows_per_batch
            data = pa.table({
                "id": pa.array(range(base, base + rows_per_batch), pa.int64()),
                "writer": pa.array([writer] * rows_per_batch, pa.int32()),
            })
            tbl.append(data)
        result_q.put((writer, "ok", ""))
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        import traceback

        result_q.put((writer, "error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))


def run_append_workers(targets: list[tuple[str, str]], identifier: str, batches: int,
                       rows_per_batch: int, timeout: float = 300) -> dict:
    """One `append_worker` process per (uri, warehouse) of `targets` (writer = its index), all
    let go at once: {writer: (status, detail)}; a writer that did not report within `timeout` is
    missing from it, and every process is gone when this returns."""
    import multiprocessing as mp
    import queue

    ctx = mp.get_context("spawn")
    start = ctx.Event()
    results = ctx.Queue()
    procs = [ctx.Process(target=append_worker,
                         args=(uri, warehouse, identifier, w, batches, rows_per_batch, start,
                               results))
             for w, (uri, warehouse) in enumerate(targets)]
    for p in procs:
        p.start()
    start.set()
    outcomes = {}
    try:
        for _ in procs:
            w, status, detail = results.get(timeout=timeout)
            outcomes[w] = (status, detail)
    except queue.Empty:
        pass
    for p in procs:
        p.join(timeout=30)
        if p.is_alive():
            p.kill()
            p.join()
    return outcomes
