"""Shared fixtures of the Cairn end-to-end suite.

One `cairn serve` process per pytest session, on a free 127.0.0.1 port with a fresh data dir.
The metadata store is chosen by CAIRN_E2E_STORE (`sqlite`, the default, `postgres` or `mysql`;
for postgres CAIRN_E2E_PG_URL points at a running cluster, for mysql CAIRN_TEST_MYSQL_* at the
run's MariaDB, and a uniquely named database is created for this run). Each test gets a fresh metalake (force-dropped afterwards).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gravitino import GravitinoAdminClient, GravitinoClient
from gravitino.api.catalog import Catalog

from cairn_server import Server, running_cairn, store_env
from helpers import Api, unique


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    """The session's server (tests/harness/cairn_server.py): SIGTERM must end it with exit 0."""
    with store_env("cairn_e2e") as env:
        with running_cairn(env["CAIRN_STORE_TYPE"], env, tmp_path_factory.mktemp("cairn-data"),
                           tmp_path_factory.getbasetemp()) as srv:
            yield srv


@pytest.fixture(scope="session")
def base_url(server) -> str:
    return server.url


@pytest.fixture(scope="session")
def data_dir(server) -> Path:
    """The server's --data-dir (the default warehouse lives in data_dir/warehouse)."""
    return server.data_dir


@pytest.fixture(scope="session")
def api(base_url) -> Api:
    """Plain HTTP access (requests) with the headers the Gravitino clients send."""
    return Api(base_url)


@pytest.fixture(scope="session")
def admin(base_url) -> GravitinoAdminClient:
    return GravitinoAdminClient(uri=base_url)


# ---------------------------------------------------------------------------------------------
# Per-test objects
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def metalake_name(admin, api) -> str:
    """A fresh metalake (created through the admin client), force-dropped after the test."""
    name = unique("ml")
    admin.create_metalake(name, "e2e metalake", {"owner": "e2e"})
    yield name
    api.delete(f"metalakes/{name}", params={"force": "true"})


@pytest.fixture
def client(base_url, metalake_name) -> GravitinoClient:
    return GravitinoClient(uri=base_url, metalake_name=metalake_name)


@pytest.fixture
def warehouse(tmp_path) -> Path:
    """An explicit warehouse directory for one test's catalog."""
    wh = tmp_path / "warehouse"
    wh.mkdir()
    return wh


@pytest.fixture
def catalog_name() -> str:
    return unique("cat")


@pytest.fixture
def catalog(client, catalog_name, warehouse):
    """A managed lakehouse-iceberg catalog whose warehouse is `warehouse`."""
    return client.create_catalog(
        catalog_name,
        Catalog.Type.RELATIONAL,
        "lakehouse-iceberg",
        "e2e iceberg catalog",
        {"catalog-backend": "managed", "warehouse": str(warehouse)},
    )


@pytest.fixture
def schema_name(catalog) -> str:
    name = unique("s")
    catalog.as_schemas().create_schema(name, "e2e schema", {"sk": "sv"})
    return name


@pytest.fixture
def tables(catalog):
    return catalog.as_table_catalog()
