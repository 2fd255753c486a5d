"""Backup and restore drills (docs/operations.md#backup-and-restore).

SQLite: `cairn backup` while the server serves and a writer commits, more writes, the server
stopped, `cairn restore`, the server started again: every table of the backup loads with the rows
it had, its files exist, and what came after the backup is gone. PostgreSQL and MySQL: the
documented pg_dump / pg_restore and mariadb-dump procedures, into a new database a second server
starts on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest
import requests
from pyiceberg.catalog import load_catalog

from cairn_server import (CAIRN_BIN, fresh_mysql_database, fresh_pg_database, start_cairn,
                          store_kind)
from helpers import iceberg_catalog_body, ok_json, unique

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.string())])


def cairn(*args: str, **env: str) -> subprocess.CompletedProcess:
    """`cairn ARGS` with the CAIRN_* settings `env` only (none of this process's)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    return subprocess.run([str(CAIRN_BIN), *args], capture_output=True, text=True, timeout=120,
                          env={**clean, "CAIRN_STORE_TYPE": "sqlite", **env})


def make_lake(url: str, wh: Path) -> tuple[str, str]:
    """A metalake and a managed Iceberg catalog with warehouse `wh`."""
    ml, cat = unique("ml"), unique("cat")
    api = requests.Session()
    ok_json(api.post(f"{url}/api/metalakes", json={"name": ml, "comment": "", "properties": {}}))
    ok_json(api.post(f"{url}/api/metalakes/{ml}/catalogs", json=iceberg_catalog_body(cat, str(wh))))
    return ml, cat


def catalog(url: str, ml: str, cat: str):
    return load_catalog(unique("c"), type="rest", uri=f"{url}/iceberg", warehouse=f"{ml}.{cat}")


def rows(table) -> list[int]:
    return sorted(table.scan().to_arrow()["id"].to_pylist())


def append(table, ids) -> None:
    table.append(pa.table({"id": list(ids), "v": [f"v{i}" for i in ids]}, schema=SCHEMA))


def files_exist(table) -> None:
    """The metadata file, manifest list, manifests and data files of the current snapshot."""
    io_path = lambda loc: Path(loc.removeprefix("file:").removeprefix("//"))  # noqa: E731
    assert io_path(table.metadata_location).is_file()
    snap = table.current_snapshot()
    if snap is None:
        return
    assert io_path(snap.manifest_list).is_file()
    for task in table.scan().plan_files():
        assert io_path(task.file.file_path).is_file(), task.file.file_path


@pytest.mark.skipif(store_kind() != "sqlite", reason="cairn backup copies the embedded store")
def test_sqlite_backup_while_serving_then_restore(tmp_path):
    data = tmp_path / "data"
    wh = tmp_path / "wh"
    backup = tmp_path / "backups" / "cairn-1.db"
    srv = start_cairn("backup-a", {"CAIRN_STORE_TYPE": "sqlite"}, data, tmp_path)
    try:
        ml, cat = make_lake(srv.url, wh)
        ice = catalog(srv.url, ml, cat)
        ice.create_namespace("sales")
        orders = ice.create_table("sales.orders", schema=SCHEMA)
        append(orders, range(0, 10))
        hot = ice.create_table("sales.hot", schema=SCHEMA)

        # A writer keeps committing while the backup is taken.
        stop = threading.Event()
        errors: list[Exception] = []

        def writer():
            t = catalog(srv.url, ml, cat).load_table("sales.hot")
            i = 0
            while not stop.is_set():
                try:
                    append(t, [i])
                except Exception as e:  # noqa: BLE001 - reported below
                    errors.append(e)
                    return
                i += 1

        th = threading.Thread(target=writer)
        th.start()
        time.sleep(0.5)
        done = cairn("backup", "--data-dir", str(data), "--to", str(backup))
        stop.set()
        th.join()
        assert not errors, errors
        assert done.returncode == 0, done.stderr
        assert f"backed up to {backup}" in done.stdout
        assert backup.is_file()
        assert not list(backup.parent.glob("*.partial-*"))
        # A backup never overwrites.
        again = cairn("backup", "--data-dir", str(data), "--to", str(backup))
        assert again.returncode == 2
        assert "exists already" in again.stderr

        # After the backup: more rows, a new table, a dropped one.
        append(orders, range(10, 20))
        ice.create_table("sales.after", schema=SCHEMA)
        # Restoring under a running server is refused, and changes nothing.
        refused = cairn("restore", "--data-dir", str(data), "--from", str(backup))
        assert refused.returncode == 1
        assert "in use by another cairn process" in refused.stderr
        assert rows(ice.load_table("sales.orders")) == list(range(20))
    finally:
        srv.stop()

    started = time.monotonic()
    done = cairn("restore", "--data-dir", str(data), "--from", str(backup))
    assert done.returncode == 0, done.stderr
    assert "restored" in done.stdout
    srv = start_cairn("backup-b", {"CAIRN_STORE_TYPE": "sqlite"}, data, tmp_path)
    recovery_s = time.monotonic() - started
    try:
        print(f"recovery (restore + server ready): {recovery_s:.2f} s")
        ice = catalog(srv.url, ml, cat)
        assert sorted(t[1] for t in ice.list_tables("sales")) == ["hot", "orders"]
        orders = ice.load_table("sales.orders")
        assert rows(orders) == list(range(10))
        files_exist(orders)
        hot = ice.load_table("sales.hot")
        hot_rows = rows(hot)
        assert hot_rows == list(range(len(hot_rows)))  # a prefix of the writer's commits
        files_exist(hot)
        # The restored store takes writes again.
        append(orders, [99])
        assert rows(ice.load_table("sales.orders")) == list(range(10)) + [99]
    finally:
        srv.stop()


@pytest.mark.skipif(store_kind() != "sqlite", reason="cairn restore replaces the embedded store")
def test_restore_refuses_what_is_not_a_cairn_store(tmp_path):
    data = tmp_path / "data"
    srv = start_cairn("backup-c", {"CAIRN_STORE_TYPE": "sqlite"}, data, tmp_path)
    try:
        ml, _ = make_lake(srv.url, tmp_path / "wh")
    finally:
        srv.stop()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    empty_sqlite = tmp_path / "other.db"
    subprocess.run(["python3", "-c",
                    f"import sqlite3; c=sqlite3.connect({str(empty_sqlite)!r}); "
                    "c.execute('create table t(x)'); c.commit()"], check=True)
    for bad, message in ((junk, "not"), (empty_sqlite, "not a Cairn store"),
                         (tmp_path / "missing.db", "no file")):
        r = cairn("restore", "--data-dir", str(data), "--from", str(bad))
        assert r.returncode == 2, (bad, r.stderr)
        assert message in r.stderr, r.stderr
    # The store is as it was.
    srv = start_cairn("backup-d", {"CAIRN_STORE_TYPE": "sqlite"}, data, tmp_path)
    try:
        assert requests.get(f"{srv.url}/api/metalakes/{ml}", timeout=30).status_code == 200
    finally:
        srv.stop()


def test_backup_of_a_postgres_store_points_at_its_own_tools(tmp_path):
    r = cairn("backup", "--data-dir", str(tmp_path), "--to", str(tmp_path / "b.db"),
              CAIRN_STORE_TYPE="postgres",
              CAIRN_STORE_POSTGRES_URL="postgresql://nobody@127.0.0.1:1/x")
    assert r.returncode == 2
    assert "docs/operations.md" in r.stderr
    assert not (tmp_path / "b.db").exists()


def _pg_tool(name: str) -> str:
    for d in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (d / name).is_file():
            return str(d / name)
    found = shutil.which(name)
    if not found:
        pytest.fail(f"{name} not found (package postgresql-client)")
    return found


def _dump_drill(tmp_path: Path, fresh_database, env_of, dump, restore) -> None:
    """A database's own dump taken while a server serves (and writes go on after it), restored
    into a new database a second server starts on: the tables load with the rows of the dump and
    their files exist. `fresh_database(prefix)` yields a store URL, `env_of(url)` the server's
    settings, `dump(url)` and `restore(url)` run the tools."""
    with fresh_database("cairn_bk_src") as src_url:
        srv = start_cairn("backup-a", env_of(src_url), tmp_path / "a", tmp_path)
        try:
            ml, cat = make_lake(srv.url, tmp_path / "wh")
            ice = catalog(srv.url, ml, cat)
            ice.create_namespace("sales")
            orders = ice.create_table("sales.orders", schema=SCHEMA)
            append(orders, range(5))
            dump(src_url)
            append(orders, range(5, 8))
        finally:
            srv.stop()
    with fresh_database("cairn_bk_dst") as dst_url:
        restore(dst_url)
        srv = start_cairn("backup-b", env_of(dst_url), tmp_path / "b", tmp_path)
        try:
            orders = catalog(srv.url, ml, cat).load_table("sales.orders")
            assert rows(orders) == list(range(5))
            files_exist(orders)
        finally:
            srv.stop()


@pytest.mark.skipif(store_kind() != "postgres", reason="the PostgreSQL procedure")
def test_postgres_dump_and_restore_into_a_new_database(tmp_path):
    base = os.environ["CAIRN_E2E_PG_URL"]
    dump = tmp_path / "cairn.dump"
    _dump_drill(
        tmp_path, lambda prefix: fresh_pg_database(base, prefix),
        lambda url: {"CAIRN_STORE_TYPE": "postgres", "CAIRN_STORE_POSTGRES_URL": url},
        # Online and consistent: pg_dump reads one snapshot while the server serves.
        lambda url: subprocess.run([_pg_tool("pg_dump"), "--format=custom", "--file", str(dump),
                                    url], check=True, timeout=120),
        lambda url: subprocess.run([_pg_tool("pg_restore"), "--no-owner", "--dbname", url,
                                    str(dump)], check=True, timeout=120))


def _mysql_args(url: str) -> list[str]:
    """The mariadb client's connection options for a mysql://user:pw@host:port/db store URL."""
    rest = url.removeprefix("mysql://")
    userinfo, _, hostpart = rest.rpartition("@")
    user, _, password = userinfo.partition(":")
    hostport, _, db = hostpart.partition("/")
    host, _, port = hostport.partition(":")
    return ["-h", host, "-P", port or "3306", "-u", user, f"-p{password}", db]


@pytest.mark.skipif(store_kind() != "mysql", reason="the MySQL procedure")
def test_mysql_dump_and_restore_into_a_new_database(tmp_path):
    dump = tmp_path / "cairn.sql"

    def take(url: str) -> None:
        # Online and consistent: one InnoDB snapshot read while the server serves.
        with open(dump, "wb") as out:
            subprocess.run(["mariadb-dump", "--single-transaction", *_mysql_args(url)],
                           stdout=out, check=True, timeout=120)

    def put_back(url: str) -> None:
        with open(dump, "rb") as inp:
            subprocess.run(["mariadb", *_mysql_args(url)], stdin=inp, check=True, timeout=120)

    _dump_drill(tmp_path, fresh_mysql_database,
                lambda url: {"CAIRN_STORE_TYPE": "mysql", "CAIRN_STORE_MYSQL_URL": url},
                take, put_back)
