"""Several replicas on one PostgreSQL: coherent caches, one winner per name, and faults.

Each replica caches path lookups and grants; what one replica commits reaches the others'
caches through PostgreSQL's notifications (docs/operations.md#replicas). These tests run two
real servers on one database and check what their clients see: a write on one replica read on
the other, a revoked privilege enforced by the other at once, 50 racing creates of one name, a
replica killed with SIGKILL among concurrent commits, and PostgreSQL restarted under load.

They need a store replicas share: the races and the killed replica run in the postgres and the
mysql passes of tests/e2e/run.sh, the tests of the caches' coherence (PostgreSQL's change feed)
and of a database restart in the postgres pass.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import (CommitFailedException, CommitStateUnknownException,
                                  ServiceUnavailableError)

from cairn_server import (fresh_mysql_database, fresh_pg_database, running_cairn, start_cairn,
                          store_kind)
from helpers import basic_auth as basic, http_as as http, iceberg_catalog_body, ok, unique

ADMIN = "admin"
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False),
                    pa.field("writer", pa.string(), nullable=False)])
REPO = Path(__file__).resolve().parents[2]
PG_SH = REPO / "tests" / "harness" / "pg.sh"

# What a client of a catalog under faults may see and retry: a connection refused or cut, a
# conflict, a commit whose outcome it must check, the service unavailable for a moment.
RETRYABLE = (requests.exceptions.RequestException, CommitFailedException,
             CommitStateUnknownException, ServiceUnavailableError)

pytestmark = pytest.mark.skipif(store_kind() not in ("postgres", "mysql"),
                                reason="replicas share PostgreSQL or MariaDB, not SQLite")
postgres_only = pytest.mark.skipif(store_kind() != "postgres",
                                   reason="PostgreSQL's change feed keeps the caches coherent")


def scrape(server) -> dict[tuple[str, tuple], float]:
    r = requests.get(f"{server.url}/metrics", timeout=10)
    assert r.status_code == 200
    out = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


ENV = {"CAIRN_AUTHORIZATION_ENABLE": "true", "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN,
       "CAIRN_AUTHENTICATORS": "simple"}


@contextmanager
def shared_store(prefix: str, pg_url: str | None = None):
    """The settings of a fresh database replicas share: on `pg_url`'s cluster when given, else
    on the store of this pass (the run's PostgreSQL or MariaDB)."""
    if pg_url is None and store_kind() == "mysql":
        with fresh_mysql_database(prefix) as url:
            yield {**ENV, "CAIRN_STORE_TYPE": "mysql", "CAIRN_STORE_MYSQL_URL": url}
        return
    with fresh_pg_database(pg_url or os.environ["CAIRN_TEST_PG_URL"], prefix) as url:
        yield {**ENV, "CAIRN_STORE_TYPE": "postgres", "CAIRN_STORE_POSTGRES_URL": url}


@contextmanager
def two_replicas(tmp_path: Path, logs: Path, prefix: str, pg_url: str | None = None):
    with shared_store(prefix, pg_url) as env:
        with running_cairn(f"{prefix}-a", env, tmp_path / "a", logs) as a, \
                running_cairn(f"{prefix}-b", env, tmp_path / "b", logs) as b:
            yield a, b, env


def make_lake(server, warehouse: Path) -> tuple[str, str]:
    metalake, catalog = unique("ml"), unique("cat")
    ok(http(server, ADMIN, "POST", "metalakes", {"name": metalake, "properties": {}}))
    ok(http(server, ADMIN, "POST", f"metalakes/{metalake}/catalogs",
            iceberg_catalog_body(catalog, str(warehouse))))
    return metalake, catalog


def pyiceberg(server, metalake: str, catalog: str):
    return load_catalog(unique("py"), type="rest", uri=f"{server.url}/iceberg",
                        warehouse=f"{metalake}.{catalog}",
                        auth={"type": "basic", "basic": {"username": ADMIN, "password": "x"}})


def metadata_location(server, metalake: str, catalog: str, ns: str, table: str) -> str:
    r = requests.get(f"{server.url}/iceberg/v1/{metalake}.{catalog}/namespaces/{ns}/tables/{table}",
                     headers={"Authorization": basic(ADMIN)}, timeout=10)
    assert r.status_code == 200, r.text[:300]
    return r.json()["metadata-location"]


@pytest.fixture(autouse=True)
def _pg_url():
    if not os.environ.get("CAIRN_TEST_PG_URL"):
        pytest.fail("CAIRN_TEST_PG_URL is not set: run this suite through tests/e2e/run.sh",
                    pytrace=False)


@postgres_only
def test_a_commit_on_one_replica_is_read_on_the_other_at_once(tmp_path, tmp_path_factory):
    with two_replicas(tmp_path, tmp_path_factory.getbasetemp(), "cairn_coherent") as (a, b, _):
        metalake, catalog = make_lake(a, tmp_path / "wh")
        writer = pyiceberg(a, metalake, catalog)
        writer.create_namespace("s")
        table = writer.create_table("s.t", schema=SCHEMA)
        # B reads the table (and caches its path) before every one of A's commits.
        assert metadata_location(b, metalake, catalog, "s", "t") == table.metadata_location
        stale_for = []
        for i in range(30):
            table.append(pa.table({"id": [i], "writer": ["a"]}, schema=SCHEMA))
            committed = time.monotonic()
            while metadata_location(b, metalake, catalog, "s", "t") != table.metadata_location:
                assert time.monotonic() - committed < 2.0, \
                    f"replica B still serves an older table {i} commits in"
                time.sleep(0.002)
            stale_for.append(time.monotonic() - committed)
        # With nothing changing, B answers from its cache.
        hits = ("cairn_store_path_cache_lookups_total", (("result", "hit"),))
        before = scrape(b)[hits]
        for _ in range(5):
            assert metadata_location(b, metalake, catalog, "s", "t") == table.metadata_location
        metrics = scrape(b)
        assert metrics[hits] >= before + 5
        assert metrics[("cairn_store_change_feed_connected", ())] == 1
        assert metrics[("cairn_store_changes_announced_total", ())] >= 30
        # Every row through B, as A wrote them.
        reader = pyiceberg(b, metalake, catalog)
        ids = sorted(reader.load_table("s.t").scan().to_arrow()["id"].to_pylist())
        assert ids == list(range(30))
        print(f"staleness over 30 commits: max {max(stale_for) * 1000:.1f} ms")


@postgres_only
def test_a_revoked_privilege_is_enforced_by_the_other_replica_at_once(tmp_path, tmp_path_factory):
    with two_replicas(tmp_path, tmp_path_factory.getbasetemp(), "cairn_revoke") as (a, b, _):
        metalake, catalog = make_lake(a, tmp_path / "wh")
        ok(http(a, ADMIN, "POST", f"metalakes/{metalake}/users", {"name": "bob"}))
        ok(http(a, ADMIN, "POST", f"metalakes/{metalake}/roles", {
            "name": "readers", "properties": {}, "securableObjects": [
                {"fullName": catalog, "type": "CATALOG",
                 "privileges": [{"name": "USE_CATALOG", "condition": "ALLOW"}]}]}))
        ok(http(a, ADMIN, "PUT", f"metalakes/{metalake}/permissions/users/bob/grant",
                {"roleNames": ["readers"]}))
        deadline = time.monotonic() + 5
        while http(b, "bob", "GET", f"metalakes/{metalake}/catalogs/{catalog}").status_code != 200:
            assert time.monotonic() < deadline, "B never saw bob's grant"
            time.sleep(0.01)
        # Bob's grants are cached on B now; the revoke happens on A.
        ok(http(b, "bob", "GET", f"metalakes/{metalake}/catalogs/{catalog}"))
        ok(http(a, ADMIN, "PUT", f"metalakes/{metalake}/permissions/users/bob/revoke",
                {"roleNames": ["readers"]}))
        revoked = time.monotonic()
        while (status := http(b, "bob", "GET",
                              f"metalakes/{metalake}/catalogs/{catalog}").status_code) == 200:
            # Far below the 5 s after which a cached decision is rebuilt anyway.
            assert time.monotonic() - revoked < 2.0, "B kept honouring a revoked grant"
            time.sleep(0.005)
        assert status == 403


def test_fifty_creates_of_one_name_across_two_replicas_have_one_winner(tmp_path,
                                                                      tmp_path_factory):
    with two_replicas(tmp_path, tmp_path_factory.getbasetemp(), "cairn_race") as (a, b, _):
        metalake, catalog = make_lake(a, tmp_path / "wh")
        name = unique("s")
        barrier = threading.Barrier(50)

        def create(i: int) -> int:
            server = (a, b)[i % 2]
            barrier.wait()
            return http(server, ADMIN, "POST", f"metalakes/{metalake}/catalogs/{catalog}/schemas",
                        {"name": name, "comment": f"by {i}", "properties": {}}).status_code

        with ThreadPoolExecutor(50) as pool:
            statuses = list(pool.map(create, range(50)))
        assert sorted(statuses) == [200] + [409] * 49, statuses
        for server in (a, b):
            listed = ok(http(server, ADMIN, "GET",
                             f"metalakes/{metalake}/catalogs/{catalog}/schemas"))
            assert [i["name"] for i in listed["identifiers"]] == [name]


class Writers:
    """Threads appending rows with unique ids to tables through whichever replica is up,
    retrying what a catalog client may retry; remembers what was acknowledged."""

    def __init__(self, servers: list, metalake: str, catalog: str, tables: list[str]):
        self.servers = servers  # replaced in place when a replica comes back on a new port
        self.metalake, self.catalog, self.tables = metalake, catalog, tables
        self.acked: dict[str, set[int]] = {t: set() for t in tables}
        self.retried: list[str] = []
        self.failures: list[str] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.next_id = 0
        self.threads = [threading.Thread(target=self._run, args=(n,)) for n in range(4)]

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=120)

    def count(self) -> int:
        with self.lock:
            return sum(len(v) for v in self.acked.values())

    def _run(self, n: int) -> None:
        rng = random.Random(n)
        while not self.stop.is_set():
            table_name = rng.choice(self.tables)
            with self.lock:
                row_id = self.next_id
                self.next_id += 1
            server = rng.choice(self.servers)
            try:
                table = pyiceberg(server, self.metalake, self.catalog).load_table(
                    f"s.{table_name}")
                table.append(pa.table({"id": [row_id], "writer": [f"w{n}"]}, schema=SCHEMA))
            except RETRYABLE as e:
                with self.lock:
                    self.retried.append(type(e).__name__)
                time.sleep(0.05)
                continue
            except Exception as e:  # noqa: BLE001 - anything else is what the test reports
                with self.lock:
                    self.failures.append(f"{type(e).__name__}: {e}")
                time.sleep(0.05)
                continue
            with self.lock:
                self.acked[table_name].add(row_id)


def wait_for(done, limit: float, what: str) -> None:
    deadline = time.monotonic() + limit
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def check_tables(server, writers: Writers) -> None:
    """Every acknowledged row is there, and every file the tables name exists."""
    catalog = pyiceberg(server, writers.metalake, writers.catalog)
    for name, acked in writers.acked.items():
        table = catalog.load_table(f"s.{name}")
        assert Path(table.metadata_location.removeprefix("file:")).is_file()
        for snapshot in table.snapshots():
            assert Path(snapshot.manifest_list.removeprefix("file:")).is_file()
        ids = set(table.scan().to_arrow()["id"].to_pylist())  # reads every data file
        lost = acked - ids
        assert not lost, f"{name}: {len(lost)} acknowledged commits lost: {sorted(lost)[:10]}"


def test_a_replica_killed_among_concurrent_commits_loses_none(tmp_path, tmp_path_factory):
    logs = tmp_path_factory.getbasetemp()
    with shared_store("cairn_kill") as env:
        a = start_cairn("kill-a", env, tmp_path / "a", logs)
        b = start_cairn("kill-b", env, tmp_path / "b", logs)
        revived = None
        try:
            metalake, catalog = make_lake(a, tmp_path / "wh")
            setup = pyiceberg(b, metalake, catalog)
            setup.create_namespace("s")
            tables = ["t0", "t1", "t2"]
            for t in tables:
                setup.create_table(f"s.{t}", schema=SCHEMA)
            servers = [a, b]
            with Writers(servers, metalake, catalog, tables) as writers:
                wait_for(lambda: writers.count() >= 40, 60, "no commits before the kill")
                a.proc.kill()  # SIGKILL: no shutdown, commits in flight cut off
                a.proc.wait()
                before = writers.count()
                wait_for(lambda: writers.count() >= before + 30, 60, "B stopped committing")
                # A comes back on the same database (on a new port, as a rescheduled pod).
                revived = start_cairn("kill-a2", env, tmp_path / "a2", logs)
                servers[0] = revived
                before = writers.count()
                wait_for(lambda: writers.count() >= before + 30, 60, "no commits after restart")
            assert not writers.failures, writers.failures[:5]
            assert writers.retried, "killing a replica gave its clients nothing to retry"
            check_tables(b, writers)
            check_tables(revived, writers)
        finally:
            for server in (b, revived):
                if server is not None:
                    server.stop()


@postgres_only
def test_postgresql_restarted_under_load_loses_no_acknowledged_commit(tmp_path,
                                                                     tmp_path_factory):
    """A PostgreSQL of its own (the run's shared one keeps serving other tests), restarted with
    `immediate` (every connection cut, as in a crash) while both replicas take commits."""
    logs = tmp_path_factory.getbasetemp()
    # Outside pytest's private temporary directory: the cluster runs as the postgres user.
    cluster = Path(tempfile.mkdtemp(prefix="cairn-pg-restart."))
    # Durable, as a production cluster is: a commit it acknowledged survives the crash.
    url = subprocess.run([str(PG_SH), "start", str(cluster)], check=True, capture_output=True,
                         text=True, timeout=120,
                         env={**os.environ, "PG_DURABLE": "1"}).stdout.strip().splitlines()[-1]
    try:
        with two_replicas(tmp_path, logs, "cairn_pgrestart", pg_url=url) as (a, b, _):
            metalake, catalog = make_lake(a, tmp_path / "wh")
            setup = pyiceberg(a, metalake, catalog)
            setup.create_namespace("s")
            tables = ["t0", "t1"]
            for t in tables:
                setup.create_table(f"s.{t}", schema=SCHEMA)
            resyncs = {s.url: scrape(s)[("cairn_store_change_feed_resyncs_total", ())]
                       for s in (a, b)}
            with Writers([a, b], metalake, catalog, tables) as writers:
                wait_for(lambda: writers.count() >= 30, 60, "no commits before the restart")
                subprocess.run([str(PG_SH), "restart", str(cluster), "immediate"], check=True,
                               capture_output=True, timeout=120)
                before = writers.count()
                wait_for(lambda: writers.count() >= before + 30, 90,
                         "no commits after PostgreSQL came back")
            assert not writers.failures, writers.failures[:5]
            for server in (a, b):
                # Both feeds came back, each dropping whatever it had cached.
                wait_for(lambda s=server: scrape(s)[("cairn_store_change_feed_connected", ())]
                         == 1, 10, "a change feed stayed down")
                assert scrape(server)[("cairn_store_change_feed_resyncs_total", ())] \
                    > resyncs[server.url]
                check_tables(server, writers)
    finally:
        subprocess.run([str(PG_SH), "stop", str(cluster)], check=False, capture_output=True,
                       timeout=120)
        shutil.rmtree(cluster, ignore_errors=True)
