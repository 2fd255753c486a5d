"""The JDBC catalogs' connection pools in /metrics, read with Prometheus' own text parser. The
series carry the catalog's id, never its name (/metrics needs no credentials)."""

from __future__ import annotations

import requests

from helpers import cat_path, ok_json, schema_path, unique
from test_metrics import scrape, value


def _pool_ids(samples) -> set[str]:
    return {dict(labels)["catalog_id"] for name, labels in samples
            if name == "cairn_jdbc_pool_connections"}


def test_pool_connections_waits_and_failures_are_counted(server, api, metalake, pg):
    known = _pool_ids(scrape(server.url))
    name = unique("pg")
    ok_json(api.post(cat_path(metalake), pg.catalog_body(name)))
    for _ in range(3):
        ok_json(api.get(schema_path(metalake, name)))
    samples = scrape(server.url)
    new = _pool_ids(samples) - known
    assert len(new) == 1, new
    pool = new.pop()
    assert value(samples, "cairn_jdbc_pool_connections", catalog_id=pool, state="max") == 10
    idle = value(samples, "cairn_jdbc_pool_connections", catalog_id=pool, state="idle")
    assert idle >= 1, idle  # the connections the listings used, back in the pool
    assert value(samples, "cairn_jdbc_pool_connections", catalog_id=pool, state="in_use") == 0
    waits = value(samples, "cairn_jdbc_pool_wait_seconds_count", catalog_id=pool)
    assert waits >= 3, waits
    assert value(samples, "cairn_jdbc_pool_wait_seconds_bucket", catalog_id=pool,
                 le="+Inf") == waits
    assert value(samples, "cairn_jdbc_pool_connect_failures_total", catalog_id=pool) == 0
    text = requests.get(f"{server.url}/metrics", timeout=30).text
    assert name not in text and metalake not in text

    # A source that refuses connections: each failed connect is counted on its catalog.
    known = _pool_ids(samples)
    down = unique("down")
    body = pg.catalog_body(down, **{"jdbc-url": f"jdbc:postgresql://127.0.0.1:1/{pg.database}"})
    ok_json(api.post(cat_path(metalake), body))
    r = api.get(schema_path(metalake, down))
    assert r.status_code == 502, r.text
    samples = scrape(server.url)
    (down_pool,) = _pool_ids(samples) - known
    assert value(samples, "cairn_jdbc_pool_connect_failures_total", catalog_id=down_pool) >= 1
    # A dropped catalog's pool leaves the metrics with it.
    ok_json(api.delete(cat_path(metalake, down), params={"force": "true"}))
    assert down_pool not in _pool_ids(scrape(server.url))
