"""Sources that stop answering (a frozen server keeps its TCP connections open): requests give
up after the statement timeout with an error naming the catalog, later ones fail at once for a
short while instead of waiting again, other catalogs keep working, and the catalog recovers."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cairn_server import start_cairn, store_env
from helpers import Api, cat_path, ok_json, schema_path, table_path, unique
from jdbc_helpers import MysqlSource, col

MARIADB_SH = Path(__file__).resolve().parents[1] / "harness" / "mariadb.sh"
STATEMENT_TIMEOUT_S = 2
HOLD_OFF_S = 5


@pytest.fixture(scope="module")
def quick_api(tmp_path_factory):
    """A server of its own whose JDBC statements time out after 2 s."""
    with store_env("cairn_jdbc_hang") as env:
        env = {**env, "CAIRN_JDBC_STATEMENT_TIMEOUT_SECS": str(STATEMENT_TIMEOUT_S)}
        srv = start_cairn("jdbc-hang", env, tmp_path_factory.mktemp("hang-data"),
                          tmp_path_factory.getbasetemp())
        try:
            yield Api(srv.url)
        finally:
            srv.stop()
            srv.remove_data()


@pytest.fixture
def ml(quick_api):
    name = unique("ml")
    ok_json(quick_api.post("metalakes", {"name": name}))
    yield name
    quick_api.delete(f"metalakes/{name}", params={"force": "true"})


def _timed_get(api, path):
    start = time.monotonic()
    r = api.get(path)
    return r, time.monotonic() - start


def _expect_hang_then_fast_failures(api, ml, cat, other_cat):
    r, took = _timed_get(api, table_path(ml, cat, "s", "t"))
    assert r.status_code == 503, r.text
    assert cat in r.json()["message"] and "did not answer" in r.json()["message"]
    assert STATEMENT_TIMEOUT_S - 0.5 <= took < STATEMENT_TIMEOUT_S + 5, took
    # the next requests do not wait for the timeout again
    r, took = _timed_get(api, schema_path(ml, cat))
    assert r.status_code == 503 and cat in r.json()["message"], r.text
    assert took < 1.0, took
    # other catalogs and the server itself keep working
    ok_json(api.get(schema_path(ml, other_cat)))
    ok_json(api.get("version"))


def test_frozen_mariadb(quick_api, ml, pg, tmp_path):
    out = subprocess.run([str(MARIADB_SH), "start", str(tmp_path / "mdb")], check=True,
                         capture_output=True, text=True, timeout=120).stdout.split()
    source = MysqlSource(out[0], int(out[1]), out[2], out[3])
    pid = int((tmp_path / "mdb" / "mysqld.pid").read_text())
    try:
        cat, other = unique("frozen"), unique("pg")
        ok_json(quick_api.post(cat_path(ml), source.catalog_body(cat)))
        ok_json(quick_api.post(cat_path(ml), pg.catalog_body(other)))
        ok_json(quick_api.post(schema_path(ml, cat), {"name": "s"}))
        ok_json(quick_api.post(table_path(ml, cat, "s"), {"name": "t",
                                                          "columns": [col("c", "integer")]}))
        os.kill(pid, signal.SIGSTOP)
        try:
            _expect_hang_then_fast_failures(quick_api, ml, cat, other)
        finally:
            os.kill(pid, signal.SIGCONT)
        time.sleep(HOLD_OFF_S + 0.5)
        ok_json(quick_api.get(table_path(ml, cat, "s", "t")))
    finally:
        subprocess.run([str(MARIADB_SH), "stop", str(tmp_path / "mdb")], timeout=60)


def test_frozen_postgres_backend(quick_api, ml, pg):
    """The catalog's only connection (max-size 1) is served by a PostgreSQL backend process
    that is frozen; the rest of the cluster keeps running."""
    cat, other = unique("frozen"), unique("pg")
    ok_json(quick_api.post(cat_path(ml), pg.catalog_body(
        cat, **{"jdbc.pool.min-size": "1", "jdbc.pool.max-size": "1"})))
    ok_json(quick_api.post(cat_path(ml), pg.catalog_body(other)))
    ok_json(quick_api.post(schema_path(ml, cat), {"name": "s"}))
    ok_json(quick_api.post(table_path(ml, cat, "s"),
                           {"name": "t", "columns": [col("c", "integer")]}))
    pids = [int(r[0]) for r in pg.query(
        f"SELECT pid FROM pg_stat_activity WHERE datname = '{pg.database}' AND "
        "application_name = 'cairn' AND pid <> pg_backend_pid()")]
    assert pids, "the catalog holds no connection"
    for p in pids:
        os.kill(p, signal.SIGSTOP)
    try:
        # `other` has its own pool: open it now, before its own connection could hit the
        # frozen backend (it never does: backends are per connection)
        _expect_hang_then_fast_failures(quick_api, ml, cat, other)
    finally:
        for p in pids:
            os.kill(p, signal.SIGCONT)
    time.sleep(HOLD_OFF_S + 0.5)
    ok_json(quick_api.get(table_path(ml, cat, "s", "t")))
