"""Bad catalog properties, credentials in responses, and sources that are down, unreachable or
refuse the login: quick, clear errors naming the catalog, never a 500, and the rest of Cairn
keeps working."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from cairn_server import free_port
from helpers import assert_error, cat_path, ok_json, schema_path, table_path, unique
from jdbc_helpers import MysqlSource, col

MARIADB_SH = Path(__file__).resolve().parents[1] / "harness" / "mariadb.sh"
FAST_S = 10.0  # loose bound: the connect timeout is 5 s, refused connections fail at once


def _timed(fn):
    start = time.monotonic()
    r = fn()
    return r, time.monotonic() - start


# ---- properties ----------------------------------------------------------------------------

@pytest.mark.parametrize("drop,message", [
    ("jdbc-url", "jdbc-url"), ("jdbc-user", "jdbc-user"), ("jdbc-password", "jdbc-password"),
    ("jdbc-database", "jdbc-database")])
def test_missing_property_is_400_naming_it(api, metalake, pg, drop, message):
    body = pg.catalog_body(unique("c"))
    del body["properties"][drop]
    r = api.post(cat_path(metalake), body)
    assert message in assert_error(r, 400, 1001, "IllegalArgumentException")["message"]
    assert_error(api.get(cat_path(metalake, body["name"])), 404, 1003)


@pytest.mark.parametrize("props,message", [
    ({"jdbc-url": "postgresql://127.0.0.1/db"}, "jdbc-url"),
    ({"jdbc-url": "jdbc:mysql://127.0.0.1:3306/db"}, "jdbc-url"),
    ({"jdbc-url": "jdbc:postgresql://127.0.0.1:99999/db"}, "port"),
    ({"jdbc-database": "other"}, "jdbc-database"),
    ({"jdbc.pool.max-size": "zero"}, "jdbc.pool.max-size"),
    ({"jdbc.pool.min-size": "20", "jdbc.pool.max-size": "5"}, "jdbc.pool.min-size"),
])
def test_bad_postgres_property_is_400_naming_it(api, metalake, pg, props, message):
    body = pg.catalog_body(unique("c"), **props)
    if "jdbc-url" in props and props["jdbc-url"].endswith("/db"):
        body["properties"]["jdbc-database"] = "db"
    r = api.post(cat_path(metalake), body)
    assert message in assert_error(r, 400, 1001, "IllegalArgumentException")["message"]


def test_bad_mysql_url_is_400(api, metalake, my):
    body = my.catalog_body(unique("c"), **{"jdbc-url": "jdbc:postgresql://127.0.0.1:1/x"})
    assert "jdbc-url" in assert_error(api.post(cat_path(metalake), body), 400, 1001)["message"]


def test_bad_column_type_is_400_naming_the_field(api, metalake, pg_catalog):
    s = unique("s")
    ok_json(api.post(schema_path(metalake, pg_catalog), {"name": s}))
    r = api.post(table_path(metalake, pg_catalog, s),
                 {"name": "t", "columns": [col("c", "decimal(x)")]})
    assert "columns[0].type" in assert_error(r, 400, 1001)["message"]


@pytest.mark.parametrize("column,field", [
    (col("c", "integer", defaultValue={"type": "unparsed", "unparsedExpression": "(SELECT 1)"}),
     "unparsed"),
    (col("c", "integer", defaultValue={"type": "function", "funcName": "now(); DROP TABLE x",
                                       "funcArgs": []}), "function name"),
    (col("c", {"type": "external", "catalogString": "int); DROP TABLE x; --"}), "External type"),
])
def test_sql_cannot_be_smuggled_in(api, metalake, pg_catalog, pg, my_catalog, my, my_db, column,
                                   field):
    s = unique("s")
    ok_json(api.post(schema_path(metalake, pg_catalog), {"name": s}))
    ok_json(api.post(schema_path(metalake, my_catalog), {"name": my_db}))
    for cat, schema in ((pg_catalog, s), (my_catalog, my_db)):
        r = api.post(table_path(metalake, cat, schema), {"name": "t", "columns": [column]})
        assert field in assert_error(r, 400, 1001)["message"]
    assert pg.query(f"SELECT count(*) FROM pg_tables WHERE schemaname = '{s}'") == [["0"]]
    assert my.query(f"SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                    f"'{my_db}'") == [["0"]]


def test_credentials_are_hidden(api, metalake, pg_catalog, my_catalog):
    for name in (pg_catalog, my_catalog):
        props = ok_json(api.get(cat_path(metalake, name)))["catalog"]["properties"]
        assert "jdbc-password" not in props and "jdbc-user" not in props
        assert props["jdbc-url"].startswith("jdbc:")
    listed = ok_json(api.get(cat_path(metalake), params={"details": "true"}))["catalogs"]
    for c in listed:
        assert "jdbc-password" not in c["properties"] and "jdbc-user" not in c["properties"]


# ---- test connection -----------------------------------------------------------------------

def test_test_connection_really_connects(api, metalake, pg, my):
    ok_json(api.post(cat_path(metalake) + "/testConnection", pg.catalog_body(unique("c"))))
    ok_json(api.post(cat_path(metalake) + "/testConnection", my.catalog_body(unique("c"))))
    bad = my.catalog_body(unique("c"), **{"jdbc-password": "wrong"})
    r, took = _timed(lambda: api.post(cat_path(metalake) + "/testConnection", bad))
    body = assert_error(r, 502, 1007, "ConnectionFailedException")
    assert bad["name"] in body["message"] and "Access denied" in body["message"]
    assert took < FAST_S
    down = pg.catalog_body(unique("c"), **{"jdbc-url": f"jdbc:postgresql://127.0.0.1:"
                                           f"{free_port()}/{pg.database}"})
    r, took = _timed(lambda: api.post(cat_path(metalake) + "/testConnection", down))
    assert_error(r, 502, 1007, "ConnectionFailedException")
    assert took < FAST_S


# ---- faults ----------------------------------------------------------------------------------

def _check_down(api, metalake, catalog, schema="s"):
    """Every kind of request on `catalog` fails quickly with an error naming it (not a 500)."""
    for path in (schema_path(metalake, catalog), schema_path(metalake, catalog, schema),
                 table_path(metalake, catalog, schema), table_path(metalake, catalog, schema, "t")):
        r, took = _timed(lambda: api.get(path))
        assert r.status_code in (502, 503), f"{path}: {r.status_code} {r.text[:300]}"
        body = r.json()
        assert catalog in body["message"], body
        assert took < FAST_S, f"{path} took {took:.1f}s"
    r, took = _timed(lambda: api.post(schema_path(metalake, catalog), {"name": "new_schema"}))
    assert r.status_code in (502, 503) and catalog in r.json()["message"]
    assert took < FAST_S


def _check_others_work(api, metalake, pg_catalog):
    ok_json(api.get(schema_path(metalake, pg_catalog)))
    ok_json(api.get(cat_path(metalake)))
    ok_json(api.get("version"))


def test_unreachable_port_and_wrong_password(api, metalake, pg, my, pg_catalog):
    down = unique("down")
    ok_json(api.post(cat_path(metalake), pg.catalog_body(
        down, **{"jdbc-url": f"jdbc:postgresql://127.0.0.1:{free_port()}/{pg.database}"})))
    refused = unique("refused")
    ok_json(api.post(cat_path(metalake), my.catalog_body(refused, **{"jdbc-password": "wrong"})))
    _check_down(api, metalake, down)
    _check_down(api, metalake, refused)
    body = api.get(schema_path(metalake, refused)).json()
    assert body["code"] == 1007 and "Access denied" in body["message"]
    _check_others_work(api, metalake, pg_catalog)
    # a forced drop works while the source is unreachable
    assert ok_json(api.delete(cat_path(metalake, down), params={"force": "true"}))["dropped"]


def test_source_stopped_while_in_use(api, metalake, pg_catalog, tmp_path):
    """A MariaDB of its own, stopped while the catalog has pooled connections to it."""
    out = subprocess.run([str(MARIADB_SH), "start", str(tmp_path / "mdb")], check=True,
                         capture_output=True, text=True, timeout=120).stdout.split()
    source = MysqlSource(out[0], int(out[1]), out[2], out[3])
    stopped = False
    try:
        name = unique("stopping")
        ok_json(api.post(cat_path(metalake), source.catalog_body(name)))
        ok_json(api.post(schema_path(metalake, name), {"name": "s"}))
        ok_json(api.post(table_path(metalake, name, "s"),
                         {"name": "t", "columns": [col("c", "integer")]}))
        ok_json(api.get(table_path(metalake, name, "s", "t")))
        subprocess.run([str(MARIADB_SH), "stop", str(tmp_path / "mdb")], check=True, timeout=60)
        stopped = True
        _check_down(api, metalake, name)
        _check_others_work(api, metalake, pg_catalog)
        r, took = _timed(lambda: api.post(cat_path(metalake, name) + "/testConnection"))
        assert r.status_code == 502 and took < FAST_S
    finally:
        if not stopped:
            subprocess.run([str(MARIADB_SH), "stop", str(tmp_path / "mdb")], timeout=60)


def test_pool_limits_connections(api, metalake, pg):
    """A catalog with max-size 1 still serves many requests one after another, and holds at
    most one connection to its source."""
    name = unique("small")
    ok_json(api.post(cat_path(metalake), pg.catalog_body(
        name, **{"jdbc.pool.min-size": "1", "jdbc.pool.max-size": "1"})))
    for _ in range(20):
        ok_json(api.get(schema_path(metalake, name)))
    n = pg.query(f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{pg.database}' AND "
                 "application_name = 'cairn'")
    assert int(n[0][0]) <= 1
