"""Fixtures of Cairn's Iceberg REST suite.

One `cairn serve` per pytest session (like tests/e2e/conftest.py): a copy of CAIRN_BIN (default
build/cairn; copied so that a rebuild during the run does not replace the running binary) on a
free 127.0.0.1 port with a fresh data dir. The store is CAIRN_E2E_STORE (`sqlite`, default, or
`postgres` with CAIRN_E2E_PG_URL; a uniquely named database is created for the run).
CAIRN_URL=http://host:port uses an already running server instead.

One metalake and one `lakehouse-iceberg` catalog (warehouse = a temp dir) are created per
session through the Gravitino API; PyIceberg reaches it with
`load_catalog(type="rest", uri=<base>/iceberg, warehouse="<metalake>.<catalog>")`.
Every test works in namespaces of its own (fixture `ns`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import requests

from cairn_server import Server, cairn_binary, running_cairn, store_env
from ice_helpers import Ice, unique


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    """CAIRN_URL, or the session's server (tests/harness/cairn_server.py) on a copy of
    CAIRN_BIN: SIGTERM must end it with exit 0."""
    external = os.environ.get("CAIRN_URL")
    if external:
        yield Server(external.rstrip("/"))
        return
    binary = cairn_binary(copy_to=tmp_path_factory.mktemp("bin"))
    with store_env("cairn_ice") as env:
        with running_cairn("iceberg", env, tmp_path_factory.mktemp("cairn-data"),
                           tmp_path_factory.getbasetemp(), binary) as srv:
            yield srv


@pytest.fixture(scope="session")
def base_url(server) -> str:
    return server.url


def _make_catalog(base_url: str, warehouse_dir: Path, extra: dict | None = None) -> Ice:
    """A fresh metalake + lakehouse-iceberg catalog (with `extra` catalog properties), and an
    `Ice` handle on it."""
    ice = Ice(base_url, unique("ml"), unique("cat"), warehouse_dir)
    r = ice.api_post("metalakes", {"name": ice.metalake, "comment": "iceberg suite",
                                   "properties": {}})
    assert r.status_code == 200, f"create metalake: {r.status_code} {r.text[:300]}"
    r = ice.api_post(f"metalakes/{ice.metalake}/catalogs", {
        "name": ice.catalog, "type": "relational", "provider": "lakehouse-iceberg",
        "comment": "iceberg suite",
        "properties": {"catalog-backend": "managed", "warehouse": str(warehouse_dir),
                       **(extra or {})}})
    assert r.status_code == 200, f"create catalog: {r.status_code} {r.text[:300]}"
    return ice


@pytest.fixture(scope="session")
def ice(base_url, tmp_path_factory) -> Ice:
    """The session's metalake/catalog (plain HTTP access to /iceberg and /api)."""
    wh = tmp_path_factory.mktemp("warehouse")
    ice = _make_catalog(base_url, wh)
    r = ice.config()
    if r.status_code != 200:
        pytest.fail(f"GET /iceberg/v1/config?warehouse={ice.warehouse} answered "
                    f"{r.status_code}: {r.text[:300]}", pytrace=False)
    yield ice
    try:
        ice.api_delete(f"metalakes/{ice.metalake}", params={"force": "true"})
    except requests.RequestException:
        pass


@pytest.fixture
def fresh_ice(base_url, tmp_path) -> Ice:
    """A catalog of the test's own (for listings that must see nothing else)."""
    wh = tmp_path / "warehouse"
    wh.mkdir()
    ice = _make_catalog(base_url, wh)
    yield ice
    try:
        ice.api_delete(f"metalakes/{ice.metalake}", params={"force": "true"})
    except requests.RequestException:
        pass


@pytest.fixture
def catalog(ice):
    """A PyIceberg RestCatalog on the session catalog."""
    return ice.pyiceberg()


@pytest.fixture
def ns(catalog) -> str:
    """A fresh top-level namespace."""
    name = unique("ns")
    catalog.create_namespace(name)
    return name
