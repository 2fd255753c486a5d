"""Fixtures of the jdbc suite: jdbc-postgresql and jdbc-mysql catalogs against real sources.

* One `cairn serve` per pytest session (store chosen by CAIRN_E2E_STORE, as in tests/e2e).
* PostgreSQL: the cluster the runner started (CAIRN_TEST_PG_URL); every test module gets a
  fresh database on it (`pg`), dropped afterwards.
* MariaDB: the server the runner started with tests/harness/mariadb.sh
  (CAIRN_TEST_MYSQL_HOST/PORT/USER/PASSWORD); tests use uniquely named databases.
* Each test gets a fresh metalake, force-dropped afterwards.
"""

from __future__ import annotations

import os

import pytest

from cairn_server import Server, fresh_pg_database, running_cairn, store_env
from helpers import Api, ok_json, unique
from jdbc_helpers import MysqlSource, PgSource


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    with store_env("cairn_jdbc") as env:
        with running_cairn("jdbc-" + env["CAIRN_STORE_TYPE"], env,
                           tmp_path_factory.mktemp("cairn-data"),
                           tmp_path_factory.getbasetemp()) as srv:
            yield srv


@pytest.fixture(scope="session")
def api(server) -> Api:
    return Api(server.url)


@pytest.fixture(scope="module")
def pg() -> PgSource:
    url = os.environ.get("CAIRN_TEST_PG_URL")
    if not url:
        pytest.fail("CAIRN_TEST_PG_URL is not set: run this suite through tests/e2e/run.sh",
                    pytrace=False)
    with fresh_pg_database(url, "jdbc_src") as db_url:
        yield PgSource.from_url(db_url)


@pytest.fixture(scope="session")
def my() -> MysqlSource:
    source = MysqlSource.from_env()
    if source is None:
        pytest.fail("CAIRN_TEST_MYSQL_PORT is not set: run this suite through tests/e2e/run.sh",
                    pytrace=False)
    return source


@pytest.fixture
def metalake(api) -> str:
    name = unique("ml")
    ok_json(api.post("metalakes", {"name": name, "comment": "jdbc", "properties": {}}))
    yield name
    api.delete(f"metalakes/{name}", params={"force": "true"})


@pytest.fixture
def pg_catalog(api, metalake, pg) -> str:
    name = unique("pg")
    ok_json(api.post(f"metalakes/{metalake}/catalogs", pg.catalog_body(name)))
    return name


@pytest.fixture
def my_catalog(api, metalake, my) -> str:
    name = unique("my")
    ok_json(api.post(f"metalakes/{metalake}/catalogs", my.catalog_body(name)))
    return name


@pytest.fixture
def my_db(my) -> str:
    """A database name for one test, dropped in MariaDB afterwards (whoever created it)."""
    name = unique("db")
    yield name
    my.exec(f"DROP DATABASE IF EXISTS `{name}`")
