"""Request limits (docs/security.md#request-limits): a principal over its rate gets 429 with
Retry-After in each interface's own error format (PyIceberg raises its TooManyRequestsError),
other principals are not held up, an interface's own rate holds for everyone on it, the
refusals are counted in /metrics and audited, a refusal's answer is held back so a client that
ignores Retry-After cannot spin, and health and version probes are never limited."""

from __future__ import annotations

import base64
import json

import pytest
import requests
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import TooManyRequestsError

from cairn_server import running_cairn, store_env
from helpers import iceberg_catalog_body, unique


def basic(user: str) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:x".encode()).decode()}


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    env = {"CAIRN_AUTHENTICATORS": "simple",
           "CAIRN_LIMITS_PRINCIPAL_REQUESTS_PER_SECOND": "2",
           "CAIRN_LIMITS_PRINCIPAL_BURST": "10",
           "CAIRN_LIMITS_INTERFACE_REQUESTS_PER_SECOND": "mcp=1",
           "CAIRN_LIMITS_REFUSAL_DELAY_MS": "200"}
    with store_env("cairn_limits") as store:
        with running_cairn("limits", {**store, **env}, tmp_path_factory.mktemp("limits-data"),
                           tmp_path_factory.getbasetemp()) as srv:
            yield srv


def drain(url: str, user: str, path: str, n: int) -> list[requests.Response]:
    s = requests.Session()
    return [s.get(f"{url}{path}", headers=basic(user), timeout=10) for _ in range(n)]


def first_refusal(url: str, user: str, tries: int = 6) -> requests.Response:
    """The first 429 of up to `tries` requests; every other answer must be a success."""
    for _ in range(tries):
        r = requests.get(url, headers=basic(user), timeout=10)
        if r.status_code == 429:
            return r
        assert r.status_code in (200, 404), r.text
    pytest.fail(f"{url}: no 429 in {tries} requests of a principal over its rate")


def test_a_flooding_principal_gets_429_in_each_format_and_others_go_on(limited, tmp_path):
    url = limited.url
    # Iceberg REST: the burst of 10, then refusals in Iceberg's error model.
    answers = drain(url, "flood", "/iceberg/v1/config", 25)
    statuses = [r.status_code for r in answers]
    # (Tokens come back at 2/s while refusals are held 200 ms each: a few more get through.)
    assert 429 not in statuses[:10] and statuses[10] == 429, statuses
    assert statuses.count(429) >= 8 and set(statuses) <= {200, 400, 404, 429}, statuses
    refused = next(r for r in answers if r.status_code == 429)
    err = refused.json()["error"]
    assert err["code"] == 429 and err["type"] == "TooManyRequestsException"
    assert "flood" in err["message"] and "per second" in err["message"]
    assert int(refused.headers["Retry-After"]) >= 1
    # A refusal's answer is held back (200 ms here), so ignoring Retry-After does not spin.
    assert refused.elapsed.total_seconds() >= 0.19
    assert max(r.elapsed.total_seconds() for r in answers if r.status_code != 429) < 0.19
    # The Gravitino API, the Lance service and MCP refuse the same principal in their formats.
    # (Each held refusal lets 0.4 of a token come back, so one request in a few may pass.)
    r = first_refusal(f"{url}/api/metalakes", "flood")
    assert r.json()["code"] == 1002 and "Retry-After" in r.headers
    r = first_refusal(f"{url}/lance/v1/namespace/x/list", "flood")
    assert r.json()["code"] == 21, r.text
    # Others are not held up by the flooder, and probes are never limited.
    assert requests.get(f"{url}/api/metalakes", headers=basic("quiet"), timeout=10).status_code == 200
    assert all(requests.get(f"{url}/api/version", headers=basic("flood"),
                            timeout=10).status_code == 200 for _ in range(5))

    # PyIceberg (whose principal has a bucket of its own) raises its own error once over.
    ml, cat = unique("ml"), unique("cat")
    admin = requests.Session()
    admin.headers.update(basic("admin_" + unique("a")))
    assert admin.post(f"{url}/api/metalakes", json={"name": ml, "comment": "",
                                                    "properties": {}}).status_code == 200
    assert admin.post(f"{url}/api/metalakes/{ml}/catalogs",
                      json=iceberg_catalog_body(cat, str(tmp_path / "wh"))).status_code == 200
    catalog = load_catalog("limits", **{"type": "rest", "uri": f"{url}/iceberg",
                                        "warehouse": f"{ml}.{cat}",
                                        "auth": {"type": "basic", "basic": {
                                            "username": "pyiceberg", "password": "x"}}})
    with pytest.raises(TooManyRequestsError):
        for _ in range(30):
            catalog.list_namespaces()

    # The refusals are counted by interface and limit, and audited.
    metrics = requests.get(f"{url}/metrics", timeout=10).text
    line = next(l for l in metrics.splitlines() if l.startswith(
        'cairn_requests_limited_total{interface="iceberg",limit="principal_rate"}'))
    assert float(line.split()[-1]) >= statuses.count(429)
    assert 'cairn_requests_limited_total{interface="lance",limit="principal_rate"}' in metrics
    audit = requests.get(f"{url}/api/audit", params={"principal": "flood"},
                         headers=basic("quiet"), timeout=10)
    assert audit.status_code == 200, audit.text
    assert sum(1 for e in audit.json()["records"] if e.get("status") == 429) >= statuses.count(429)


def test_an_interface_rate_holds_for_every_principal(limited):
    url = limited.url
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
    statuses = []
    for i in range(6):  # six principals, each well under its own rate: MCP's rate of 1/s holds
        r = requests.post(f"{url}/mcp", data=json.dumps(body),
                          headers={**headers, **basic(f"agent{i}")}, timeout=10)
        statuses.append(r.status_code)
    assert statuses.count(429) >= 4, statuses
    metrics = requests.get(f"{url}/metrics", timeout=10).text
    assert 'cairn_requests_limited_total{interface="mcp",limit="interface_rate"}' in metrics
    # The Gravitino API is not behind MCP's limit.
    assert requests.get(f"{url}/api/metalakes", headers=basic("agent9"),
                        timeout=10).status_code == 200
