"""Two processes append to one table at the same time: both succeed, every row is there."""

from __future__ import annotations

from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, LongType, NestedField

from ice_helpers import run_append_workers

WRITERS = 2
BATCHES = 6
ROWS = 50


def test_two_processes_append_concurrently(ice, catalog, ns):
    ident = f"{ns}.shared"
    schema = Schema(NestedField(1, "id", LongType(), required=False),
                    NestedField(2, "writer", IntegerType(), required=False))
    # Generous client retries: a client whose base moved may get a 409 (its own requirement
    # failed) and then retries on a refreshed base; the server retries non-conflicting ones.
    catalog.create_table(ident, schema, properties={
        "commit.retry.num-retries": "30", "commit.retry.min-wait-ms": "20",
        "commit.retry.max-wait-ms": "500"})

    outcomes = run_append_workers([(ice.uri, ice.warehouse)] * WRITERS, ident, BATCHES, ROWS)
    assert len(outcomes) == WRITERS, f"workers did not report: {outcomes}"
    for w, (status, detail) in outcomes.items():
        assert status == "ok", f"writer {w} failed: {detail}"

    tbl = catalog.load_table(ident)
    got = tbl.scan().to_arrow()
    expected = sorted(w * 1_000_000 + i for w in range(WRITERS) for i in range(BATCHES * ROWS))
    assert sorted(got.column("id").to_pylist()) == expected
    assert got.num_rows == WRITERS * BATCHES * ROWS
    appends = [s for s in tbl.snapshots() if s.summary.operation.value == "append"]
    assert len(appends) == WRITERS * BATCHES
    # a linear history: every snapshot's parent is the previous one
    log = [e.snapshot_id for e in tbl.history()]
    by_id = {s.snapshot_id: s for s in tbl.snapshots()}
    for prev, cur in zip(log, log[1:]):
        assert by_id[cur].parent_snapshot_id == prev


def test_parallel_commits_all_land(ice, ns):
    """Many clients commit non-conflicting changes (distinct properties, no requirements) to one
    table at once over plain HTTP: every commit answers 200 (the server applies queued commits
    together, or re-applies one whose base moved, instead of failing it), every change is in the
    final metadata, and no metadata file is left behind: commits applied together share one
    file, and every file written is the current one or in the metadata log."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    import requests

    from ice_helpers import files_under, local_path

    r = ice.rest("POST", f"namespaces/{ns}/tables", {
        "name": "hot", "schema": {"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": False, "type": "long"}]}})
    assert r.status_code == 200, r.text
    location = r.json()["metadata"]["location"]
    url = ice.rest_url(ice.table_path(ns, "hot"))
    threads, per_thread = 8, 5

    def worker(t: int) -> list[int]:
        codes = []
        with requests.Session() as s:
            for i in range(per_thread):
                body = {"requirements": [],
                        "updates": [{"action": "set-properties", "updates": {f"k{t}_{i}": "v"}}]}
                resp = s.post(url, data=json.dumps(body), timeout=60,
                              headers={"Content-Type": "application/json"})
                codes.append(resp.status_code)
        return codes

    with ThreadPoolExecutor(threads) as pool:
        codes = [c for cs in pool.map(worker, range(threads)) for c in cs]
    assert codes == [200] * (threads * per_thread), codes

    meta = ice.load_table_json(ns, "hot")["metadata"]
    keys = {k for k in meta["properties"] if k.startswith("k")}
    assert keys == {f"k{t}_{i}" for t in range(threads) for i in range(per_thread)}
    assert 1 <= len(meta["metadata-log"]) <= threads * per_thread
    written = [p for p in files_under(local_path(location) / "metadata")
               if p.name.endswith(".metadata.json")]
    assert len(written) == len(meta["metadata-log"]) + 1, sorted(p.name for p in written)


def rows(*ids):
    import pyarrow as pa
    return pa.Table.from_pylist([{"id": i} for i in ids],
                                schema=pa.schema([pa.field("id", pa.int64(), nullable=True)]))


def stale_writer(ice, catalog, ident):
    """A table (no client retries: a 409 fails the test) with row 0, loaded by a second client,
    and row 1 appended since by the first: the second client's next commit is built on a head
    that has moved. Returns the second client's catalog and its stale table."""
    from pyiceberg.catalog import load_catalog

    schema = Schema(NestedField(1, "id", LongType(), required=False))
    catalog.create_table(ident, schema, properties={"commit.retry.num-retries": "0"})
    catalog.load_table(ident).append(rows(0))
    other = load_catalog("other", type="rest", uri=ice.uri, warehouse=ice.warehouse)
    stale = other.load_table(ident)  # sees main = the first append
    catalog.load_table(ident).append(rows(1))  # main moves on
    return other, stale


def test_stale_append_is_rebased_by_the_server(ice, catalog, ns):
    """An append built on a snapshot that is no longer main's head (another writer appended in
    between) succeeds without any client retry: the server appends its manifests on top of the
    new head. Both writers' rows are in the table and history stays linear."""
    ident = f"{ns}.rebase"
    _, stale = stale_writer(ice, catalog, ident)
    stale.append(rows(2))  # built on the old head

    # The server never answered 409 to these commits: the audit trail has no such record.
    import requests
    base = ice.uri.rsplit("/iceberg", 1)[0]
    records = requests.get(f"{base}/api/audit", params={"object": f"{ice.warehouse}.{ident}"},
                           timeout=10).json()["records"]
    assert records, "the commits must be audited"
    assert not [r for r in records if r["status"] == 409], records

    tbl = catalog.load_table(ident)
    assert sorted(tbl.scan().to_arrow().column("id").to_pylist()) == [0, 1, 2]
    snapshots = {s.snapshot_id: s for s in tbl.snapshots()}
    head = tbl.current_snapshot()
    chain = []
    while head is not None:
        chain.append(head)
        head = snapshots.get(head.parent_snapshot_id) if head.parent_snapshot_id else None
    assert len(chain) == 3, "the rebased append must sit on top of the other writer's"
    seqs = [s.sequence_number for s in reversed(chain)]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3
    assert tbl.current_snapshot().summary["total-records"] == "3"


def test_stale_append_with_its_statistics_is_rebased(ice, catalog, ns):
    """What Trino sends with every INSERT: the append and a statistics file for the new snapshot
    in one commit ([add-snapshot, set-snapshot-ref, set-statistics]). Built on a head another
    writer has moved, it lands on top without a 409, and its statistics stay with its snapshot."""
    import requests
    from pyiceberg.table.statistics import StatisticsFile

    ident = f"{ns}.rebase_stats"
    other, stale = stale_writer(ice, catalog, ident)
    with stale.transaction() as tx:
        tx.append(rows(2))
        new_id = tx.table_metadata.current_snapshot_id
        stats = StatisticsFile(**{
            "snapshot-id": new_id,
            "statistics-path": f"{stale.location()}/metadata/{new_id}-stats.puffin",
            "file-size-in-bytes": 413, "file-footer-size-in-bytes": 313, "blob-metadata": []})
        tx.update_statistics().set_statistics(stats).commit()

    base = ice.uri.rsplit("/iceberg", 1)[0]
    records = requests.get(f"{base}/api/audit", params={"object": f"{ice.warehouse}.{ident}"},
                           timeout=10).json()["records"]
    assert not [r for r in records if r["status"] == 409], records
    tbl = catalog.load_table(ident)
    assert sorted(tbl.scan().to_arrow().column("id").to_pylist()) == [0, 1, 2]
    head = tbl.current_snapshot()
    assert head.snapshot_id == new_id and head.summary["total-records"] == "3"
    assert [(s.snapshot_id, s.statistics_path) for s in tbl.metadata.statistics] == [
        (new_id, stats.statistics_path)]

    # Statistics of another snapshot than the appended one are not carried over: a 409, and the
    # table keeps its state.
    from pyiceberg.exceptions import CommitFailedException
    stale = other.load_table(ident)
    catalog.load_table(ident).append(rows(3))
    before = catalog.load_table(ident).metadata
    try:
        with stale.transaction() as tx:
            tx.append(rows(4))
            old = StatisticsFile(**{
                "snapshot-id": new_id, "statistics-path": f"{stale.location()}/metadata/x.puffin",
                "file-size-in-bytes": 1, "file-footer-size-in-bytes": 1, "blob-metadata": []})
            tx.update_statistics().set_statistics(old).commit()
        raise AssertionError("the stale commit must be refused")
    except CommitFailedException:
        pass
    after = catalog.load_table(ident).metadata
    assert after.current_snapshot_id == before.current_snapshot_id
    assert [s.statistics_path for s in after.statistics] == [stats.statistics_path]


def test_stale_overwrite_still_conflicts(ice, catalog, ns):
    """Only appends are rebased: a stale overwrite gets the 409 (CommitFailedException)."""
    import pytest
    from pyiceberg.exceptions import CommitFailedException

    ident = f"{ns}.norebase"
    _, stale = stale_writer(ice, catalog, ident)
    with pytest.raises(CommitFailedException):
        stale.overwrite(rows(9))
    tbl = catalog.load_table(ident)
    assert sorted(tbl.scan().to_arrow().column("id").to_pylist()) == [0, 1]
