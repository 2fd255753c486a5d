"""/metrics as Prometheus scrapes it, parsed with prometheus-client's own text parser.

The session's server is shared, so each test reads the figures before and after what it does and
checks the difference: requests by interface, route pattern and status; the latency histogram
agreeing with the request counter; managed Iceberg commits, conflicts and cache hits; object
changes from the event stream; the store's pool.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families
from pyiceberg.catalog import load_catalog

from helpers import iceberg_catalog_body, ok_json, unique


def scrape(base_url: str) -> dict[tuple[str, tuple], float]:
    """Every sample of /metrics by (name, sorted labels)."""
    r = requests.get(f"{base_url}/metrics", timeout=30)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples: dict[tuple[str, tuple], float] = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            assert key not in samples, f"sample {key} twice"
            samples[key] = s.value
    return samples


def value(samples, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def families(base_url: str) -> dict[str, str]:
    text = requests.get(f"{base_url}/metrics", timeout=30).text
    return {f.name: f.type for f in text_string_to_metric_families(text)}


def test_metrics_parse_and_name_their_families(base_url):
    types = families(base_url)
    assert types["cairn_http_requests"] == "counter"
    assert types["cairn_http_request_duration_seconds"] == "histogram"
    assert types["cairn_object_changes"] == "counter"
    assert types["cairn_iceberg_commits"] == "counter"
    assert types["cairn_iceberg_metadata_cache_lookups"] == "counter"
    assert types["cairn_store_pool_connections"] == "gauge"
    assert types["cairn_store_call_duration_seconds"] == "histogram"
    assert types["process_resident_memory_bytes"] == "gauge"
    assert types["cairn_build_info"] == "gauge"
    samples = scrape(base_url)
    assert value(samples, "process_resident_memory_bytes") > 1_000_000
    assert value(samples, "cairn_store_pool_connections", store=_store(samples), state="max") >= 1


def _store(samples) -> str:
    for (name, labels) in samples:
        if name == "cairn_store_pool_connections":
            return dict(labels)["store"]
    raise AssertionError("no store pool figures")


def test_requests_are_counted_by_route_pattern_and_status(base_url, api):
    ml = unique("mx")
    op_create = "POST /api/metalakes"
    op_get = "GET /api/metalakes/{metalake}"
    before = scrape(base_url)
    ok_json(api.post("metalakes", {"name": ml, "comment": "", "properties": {}}))
    for _ in range(3):
        ok_json(api.get(f"metalakes/{ml}"))
    for _ in range(2):
        assert api.get(f"metalakes/{ml}-missing").status_code == 404
    after = scrape(base_url)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    g = {"interface": "gravitino"}
    assert delta("cairn_http_requests_total", operation=op_create, status="200", **g) == 1
    assert delta("cairn_http_requests_total", operation=op_get, status="200", **g) == 3
    assert delta("cairn_http_requests_total", operation=op_get, status="404", **g) == 2
    # The histogram counts the same requests, whatever their status.
    assert delta("cairn_http_request_duration_seconds_count", operation=op_get, **g) == 5
    assert delta("cairn_http_request_duration_seconds_bucket", operation=op_get, le="+Inf",
                 **g) == 5
    assert delta("cairn_http_request_duration_seconds_sum", operation=op_get, **g) > 0
    # The created metalake is an object change made through the Gravitino API.
    assert delta("cairn_object_changes_total", interface="gravitino", kind="metalake",
                 change="created") == 1
    # Names never become labels: only route patterns do.
    text = requests.get(f"{base_url}/metrics", timeout=30).text
    assert ml not in text
    api.delete(f"metalakes/{ml}", params={"force": "true"})


def test_iceberg_commits_conflicts_and_cache_hits(base_url, api, metalake_name, tmp_path):
    cat = unique("cat")
    ok_json(api.post(f"metalakes/{metalake_name}/catalogs",
                     iceberg_catalog_body(cat, str(tmp_path / "wh"))))
    ice = load_catalog("m", type="rest", uri=f"{base_url}/iceberg",
                       warehouse=f"{metalake_name}.{cat}")
    ice.create_namespace("ns")
    schema = pa.schema([pa.field("id", pa.int64())])
    table = ice.create_table("ns.t", schema=schema)

    before = scrape(base_url)
    for i in range(3):
        table.append(pa.table({"id": [i]}, schema=schema))
    # A writer whose view is stale and whose change cannot be rebased: a 409, nothing written.
    stale_id = table.metadata.current_snapshot_id
    table.append(pa.table({"id": [9]}, schema=schema))
    r = requests.post(
        f"{base_url}/iceberg/v1/{metalake_name}.{cat}/namespaces/ns/tables/t",
        json={"requirements": [{"type": "assert-ref-snapshot-id", "ref": "main",
                                "snapshot-id": stale_id}],
              "updates": [{"action": "set-properties", "updates": {"k": "v"}}]},
        timeout=30)
    assert r.status_code == 409, r.text
    assert "k" not in ice.load_table("ns.t").properties
    for _ in range(5):
        ice.load_table("ns.t")
    after = scrape(base_url)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("cairn_iceberg_commits_total", result="committed") == 4
    assert delta("cairn_iceberg_commits_total", result="conflict") == 1
    assert delta("cairn_iceberg_metadata_cache_lookups_total", result="hit") >= 5
    route = "POST /iceberg/v1/{prefix}/namespaces/{namespace}/tables/{table}"
    assert delta("cairn_http_requests_total", interface="iceberg", operation=route,
                 status="200") == 4
    assert delta("cairn_http_requests_total", interface="iceberg", operation=route,
                 status="409") == 1
    assert delta("cairn_object_changes_total", interface="iceberg", kind="table",
                 change="committed") == 4
    assert value(after, "cairn_iceberg_metadata_cache_bytes") > 0
    assert value(after, "cairn_iceberg_metadata_cache_bytes") <= value(
        after, "cairn_iceberg_metadata_cache_capacity_bytes")


def test_only_get_is_served(base_url):
    r = requests.post(f"{base_url}/metrics", data="", timeout=30)
    assert r.status_code == 405
    assert r.json()["code"] == 1006


def test_unknown_paths_share_one_series(base_url):
    before = scrape(base_url)
    probes = [unique("probe") for _ in range(3)]
    paths = [f"/{probes[0]}/x", f"/api/{probes[1]}/y", f"/iceberg/v1/{probes[2]}/z/w"]
    # No endpoint (404); Iceberg's answer for a prefix naming no catalog (400).
    for p, status in zip(paths, (404, 404, 400)):
        assert requests.get(f"{base_url}{p}", timeout=30).status_code == status, p
    after = scrape(base_url)
    total = sum(value(after, "cairn_http_requests_total", interface=i, operation="unmatched",
                      status=st) -
                value(before, "cairn_http_requests_total", interface=i, operation="unmatched",
                      status=st)
                for i in ("http", "gravitino", "iceberg") for st in ("400", "404"))
    assert total == 3
    text = requests.get(f"{base_url}/metrics", timeout=30).text
    for probe in probes:
        assert probe not in text
