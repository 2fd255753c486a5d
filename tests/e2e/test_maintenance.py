"""Table maintenance run by the catalog (docs/maintenance.md), through Gravitino's jobs API.

Tables are written by PyIceberg through Cairn's Iceberg REST service on local disk; the built-in
jobs are run with the Gravitino Python client (`run_job`, `get_job`) and checked on what users
see: which snapshots remain, the rows each retained snapshot reads, and the files in the
table's folder. The same on MinIO is in test_maintenance_s3.py.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest
import requests
from gravitino.api.job.job_handle import JobHandle
from pyiceberg.catalog import load_catalog

from helpers import unique, wait_job

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.string())])
DAY_MS = 24 * 3600 * 1000


def local(location: str) -> Path:
    return Path(location.removeprefix("file://").removeprefix("file:"))


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


def append(table, ids) -> None:
    table.append(pa.table({"id": list(ids), "v": [f"v{i}" for i in ids]}, schema=SCHEMA))


def overwrite(table, ids) -> None:
    table.overwrite(pa.table({"id": list(ids), "v": [f"v{i}" for i in ids]}, schema=SCHEMA))


def ids_at(table, snapshot_id: int) -> list[int]:
    return sorted(table.scan(snapshot_id=snapshot_id).to_arrow()["id"].to_pylist())


def job_json(base_url: str, metalake: str, job_id: str) -> dict:
    r = requests.get(f"{base_url}/api/metalakes/{metalake}/jobs/runs/{job_id}", timeout=30)
    assert r.status_code == 200, r.text
    return r.json()["job"]


@pytest.fixture
def ice(base_url, metalake_name, catalog_name, catalog):
    return load_catalog(unique("py"), type="rest", uri=f"{base_url}/iceberg",
                        warehouse=f"{metalake_name}.{catalog_name}")


@pytest.fixture
def history(ice):
    """A table with eight snapshots: appends, an overwrite, more appends; ids and rows kept."""
    ns = unique("ns")
    ice.create_namespace(ns)
    t = ice.create_table(f"{ns}.events", schema=SCHEMA)
    expected = {}
    for i in range(4):
        append(t, range(i * 10, i * 10 + 10))
        expected[t.current_snapshot().snapshot_id] = ids_at(t, t.current_snapshot().snapshot_id)
    overwrite(t, range(100, 105))  # removes every earlier data file from the live set
    for s in t.snapshots()[4:]:
        expected[s.snapshot_id] = ids_at(t, s.snapshot_id)
    for i in range(2):
        append(t, range(200 + i * 10, 210 + i * 10))
        expected[t.current_snapshot().snapshot_id] = ids_at(t, t.current_snapshot().snapshot_id)
    t = ice.load_table(f"{ns}.events")
    return ns, t, expected


def test_built_in_templates_are_listed_and_protected(client):
    names = [t.name for t in client.list_job_templates()]
    assert {"builtin-iceberg-expire-snapshots", "builtin-iceberg-remove-orphan-files",
            "builtin-iceberg-clean-metadata-files"} <= set(names)
    t = client.get_job_template("builtin-iceberg-expire-snapshots")
    assert t.executable == "builtin://iceberg/expire-snapshots"
    assert "{{table}}" in t.arguments
    from gravitino.exceptions.base import IllegalJobTemplateOperationException
    with pytest.raises(IllegalJobTemplateOperationException):
        client.delete_job_template("builtin-iceberg-expire-snapshots")


def test_expire_keeps_exactly_the_retained_snapshots_and_their_rows(
        client, ice, history, catalog_name):
    ns, table, expected = history
    snapshots = [s.snapshot_id for s in table.snapshots()]
    assert len(snapshots) >= 8
    table_dir = local(table.location())
    before = files_under(table_dir)

    job = client.run_job("builtin-iceberg-expire-snapshots", {
        "catalog": catalog_name, "schema": ns, "table": "events",
        "older_than": str(int(time.time() * 1000) + 1000), "retain_last": "3"})
    assert job.job_status() == JobHandle.Status.QUEUED
    done = wait_job(client, job.job_id())
    assert done.job_status() == JobHandle.Status.SUCCEEDED, done

    table = ice.load_table(f"{ns}.events")
    kept = [s.snapshot_id for s in table.snapshots()]
    assert kept == snapshots[-3:]
    for sid in kept:  # every retained snapshot still reads what it read before
        assert ids_at(table, sid) == expected[sid]
    after = files_under(table_dir)
    removed = before - after
    # The overwritten data files, the expired lists and their manifests are gone ...
    assert any(p.suffix == ".parquet" for p in removed)
    assert any(p.name.startswith("snap-") for p in removed)
    # ... and nothing a retained snapshot references is missing.
    for sid in kept:
        snap = table.snapshot_by_id(sid)
        assert local(snap.manifest_list).is_file()
        for task in table.scan(snapshot_id=sid).plan_files():
            assert local(task.file.file_path).is_file()


def test_the_report_says_what_was_removed(client, base_url, metalake_name, history, catalog_name):
    ns, table, _ = history
    table_dir = local(table.location())
    before = files_under(table_dir)
    dry = client.run_job("builtin-iceberg-expire-snapshots", {
        "catalog": catalog_name, "schema": ns, "table": "events", "retain_last": "1",
        "older_than": str(int(time.time() * 1000) + 1000), "dry_run": "true"})
    assert wait_job(client, dry.job_id()).job_status() == JobHandle.Status.SUCCEEDED
    report = job_json(base_url, metalake_name, dry.job_id())["cairn.result"]
    count = len(table.snapshots())
    assert report["dryRun"] is True and len(report["expiredSnapshots"]) == count - 1
    assert files_under(table_dir) == before  # a dry run deletes nothing ...
    real = client.run_job("builtin-iceberg-expire-snapshots", {
        "catalog": catalog_name, "schema": ns, "table": "events", "retain_last": "1",
        "older_than": str(int(time.time() * 1000) + 1000)})
    assert wait_job(client, real.job_id()).job_status() == JobHandle.Status.SUCCEEDED
    done = job_json(base_url, metalake_name, real.job_id())
    result = done["cairn.result"]
    # ... and the real run removes what the dry run listed, counted by kind.
    gone = {str(p) for p in before - files_under(table_dir)}
    assert {str(local(d)) for d in result["deleted"]} == gone
    assert set(result["deleted"]) == set(report["deleted"])
    assert result["files"] == len(gone) and result["bytes"] > 0
    assert result["dataFiles"] > 0 and result["manifestLists"] == count - 1
    assert done["cairn.startedAt"] <= done["cairn.finishedAt"]


def test_tags_and_branches_keep_their_snapshots(client, ice, history, catalog_name):
    ns, table, expected = history
    snapshots = [s.snapshot_id for s in table.snapshots()]
    with table.manage_snapshots() as ms:
        ms.create_tag(snapshot_id=snapshots[1], tag_name="audit-2026")
    job = client.run_job("builtin-iceberg-expire-snapshots", {
        "catalog": catalog_name, "schema": ns, "table": "events",
        "older_than": str(int(time.time() * 1000) + 1000)})
    assert wait_job(client, job.job_id()).job_status() == JobHandle.Status.SUCCEEDED
    table = ice.load_table(f"{ns}.events")
    kept = {s.snapshot_id for s in table.snapshots()}
    assert kept == {snapshots[1], snapshots[-1]}
    assert ids_at(table, snapshots[1]) == expected[snapshots[1]]


def test_table_properties_bound_history_when_the_job_sets_nothing(client, ice, history,
                                                                  catalog_name):
    ns, table, _ = history
    snapshots = [s.snapshot_id for s in table.snapshots()]
    with table.transaction() as tx:
        tx.set_properties({"history.expire.max-snapshot-age-ms": "1",
                           "history.expire.min-snapshots-to-keep": "4"})
    job = client.run_job("builtin-iceberg-expire-snapshots",
                         {"catalog": catalog_name, "schema": ns, "table": "events"})
    assert wait_job(client, job.job_id()).job_status() == JobHandle.Status.SUCCEEDED
    kept = [s.snapshot_id for s in ice.load_table(f"{ns}.events").snapshots()]
    assert kept == snapshots[-4:]


def test_a_commit_racing_the_job_survives_with_all_its_files(client, ice, catalog_name):
    ns = unique("ns")
    ice.create_namespace(ns)
    t = ice.create_table(f"{ns}.race", schema=SCHEMA)
    for i in range(30):
        append(t, [i])
    stop = threading.Event()
    written: list[int] = []
    errors: list[BaseException] = []

    def writer():
        w = ice.load_table(f"{ns}.race")
        n = 1000
        while not stop.is_set():
            try:
                append(w, [n])
                written.append(n)
                n += 1
            except Exception as e:  # a lost race is retried by loading again
                if "CommitFailed" not in type(e).__name__:
                    errors.append(e)
                w = ice.load_table(f"{ns}.race")

    th = threading.Thread(target=writer)
    th.start()
    try:
        jobs = [client.run_job("builtin-iceberg-expire-snapshots", {
            "catalog": catalog_name, "schema": ns, "table": "race", "retain_last": "1",
            "older_than": str(int(time.time() * 1000) + 60_000)}) for _ in range(3)]
        for j in jobs:
            assert wait_job(client, j.job_id()).job_status() == JobHandle.Status.SUCCEEDED
    finally:
        stop.set()
        th.join(60)
    assert not errors, errors
    table = ice.load_table(f"{ns}.race")
    ids = sorted(table.scan().to_arrow()["id"].to_pylist())
    assert set(written) <= set(ids) and set(range(30)) <= set(ids)
    for task in table.scan().plan_files():
        assert local(task.file.file_path).is_file()


def test_orphans_go_once_older_than_the_window_and_stay_before(client, ice, catalog_name):
    ns = unique("ns")
    ice.create_namespace(ns)
    t = ice.create_table(f"{ns}.o", schema=SCHEMA)
    append(t, range(5))
    table_dir = local(t.location())
    old = table_dir / "data" / "crashed-writer.parquet"
    young = table_dir / "data" / "in-flight.parquet"
    old.write_bytes(b"x" * 100)
    young.write_bytes(b"y" * 100)
    four_days_ago = time.time() - 4 * 24 * 3600
    os.utime(old, (four_days_ago, four_days_ago))
    referenced_before = files_under(table_dir) - {old, young}

    job = client.run_job("builtin-iceberg-remove-orphan-files",
                         {"catalog": catalog_name, "schema": ns, "table": "o"})
    assert wait_job(client, job.job_id()).job_status() == JobHandle.Status.SUCCEEDED
    assert not old.exists()
    assert young.exists()  # younger than the three-day window: an in-flight writer's
    assert files_under(table_dir) == referenced_before | {young}
    assert sorted(ice.load_table(f"{ns}.o").scan().to_arrow()["id"].to_pylist()) == list(range(5))


def test_orphan_window_is_guarded(client, catalog_name, ice):
    ns = unique("ns")
    ice.create_namespace(ns)
    ice.create_table(f"{ns}.g", schema=SCHEMA)
    from gravitino.exceptions.base import IllegalArgumentException
    with pytest.raises(IllegalArgumentException, match="at least an hour"):
        client.run_job("builtin-iceberg-remove-orphan-files", {
            "catalog": catalog_name, "schema": ns, "table": "g", "older_than": "PT1M"})


def test_metadata_files_are_cleaned_per_the_table_properties(client, ice, catalog_name):
    ns = unique("ns")
    ice.create_namespace(ns)
    t = ice.create_table(f"{ns}.m", schema=SCHEMA)
    for i in range(6):
        append(t, [i])
    t = ice.load_table(f"{ns}.m")
    meta_dir = local(t.metadata_location).parent
    # Off by default: nothing goes.
    job = client.run_job("builtin-iceberg-clean-metadata-files",
                         {"catalog": catalog_name, "schema": ns, "table": "m"})
    assert wait_job(client, job.job_id()).job_status() == JobHandle.Status.SUCCEEDED
    assert len(list(meta_dir.glob("*.metadata.json"))) == 7
    with t.transaction() as tx:
        tx.set_properties({"write.metadata.delete-after-commit.enabled": "true",
                           "write.metadata.previous-versions-max": "2"})
    append(ice.load_table(f"{ns}.m"), [99])
    job = client.run_job("builtin-iceberg-clean-metadata-files",
                         {"catalog": catalog_name, "schema": ns, "table": "m"})
    assert wait_job(client, job.job_id()).job_status() == JobHandle.Status.SUCCEEDED
    t = ice.load_table(f"{ns}.m")
    left = {p.name for p in meta_dir.glob("*.metadata.json")}
    expected = {local(t.metadata_location).name} | {
        local(e.metadata_file).name for e in t.metadata.metadata_log}
    assert left == expected and len(left) == 3
    assert sorted(t.scan().to_arrow()["id"].to_pylist()) == [0, 1, 2, 3, 4, 5, 99]


def test_gc_disabled_refuses_to_delete(client, ice, history, catalog_name):
    ns, table, _ = history
    with table.transaction() as tx:
        tx.set_properties({"gc.enabled": "false"})
    job = client.run_job("builtin-iceberg-expire-snapshots", {
        "catalog": catalog_name, "schema": ns, "table": "events", "retain_last": "1",
        "older_than": str(int(time.time() * 1000) + 1000)})
    done = wait_job(client, job.job_id())
    assert done.job_status() == JobHandle.Status.FAILED
    assert len(ice.load_table(f"{ns}.events").snapshots()) == len(table.snapshots())


def test_bad_configuration_is_refused_before_queueing(client, catalog_name, ice):
    from gravitino.exceptions.base import (IllegalArgumentException, NoSuchJobTemplateException,
                                           NotFoundException)
    with pytest.raises(IllegalArgumentException, match="'table' is required"):
        client.run_job("builtin-iceberg-expire-snapshots", {"catalog": catalog_name, "schema": "s"})
    with pytest.raises(IllegalArgumentException, match="retain_last"):
        client.run_job("builtin-iceberg-expire-snapshots", {
            "catalog": catalog_name, "schema": "s", "table": "t", "retain_last": "0"})
    with pytest.raises(NotFoundException):
        client.run_job("builtin-iceberg-expire-snapshots", {
            "catalog": catalog_name, "schema": "nope", "table": "t"})
    with pytest.raises(NoSuchJobTemplateException):
        client.run_job("builtin-nothing", {})
    assert client.list_jobs() == []


def test_jobs_are_listed_by_template(client, catalog_name, ice):
    ns = unique("ns")
    ice.create_namespace(ns)
    ice.create_table(f"{ns}.l", schema=SCHEMA)
    conf = {"catalog": catalog_name, "schema": ns, "table": "l"}
    a = client.run_job("builtin-iceberg-expire-snapshots", conf)
    b = client.run_job("builtin-iceberg-clean-metadata-files", conf)
    wait_job(client, a.job_id())
    wait_job(client, b.job_id())
    assert {j.job_id() for j in client.list_jobs()} == {a.job_id(), b.job_id()}
    assert [j.job_id() for j in client.list_jobs("builtin-iceberg-clean-metadata-files")] == [
        b.job_id()]
    from gravitino.exceptions.base import NoSuchJobException
    with pytest.raises(NoSuchJobException):
        client.get_job("job-1")


def test_programs_do_not_run_unless_the_local_executor_is_enabled(client, tmp_path):
    from gravitino.api.job.shell_job_template import ShellJobTemplate
    from gravitino.exceptions.base import IllegalArgumentException
    marker = tmp_path / "ran"
    exe = tmp_path / "job.sh"
    exe.write_text(f"#!/bin/sh\ntouch {marker}\n")
    exe.chmod(0o755)
    client.register_job_template(ShellJobTemplate.builder().with_name("sh")
                                 .with_executable(str(exe)).build())
    with pytest.raises(IllegalArgumentException, match="local job executor is off"):
        client.run_job("sh", {})
    time.sleep(0.3)
    assert not marker.exists() and client.list_jobs() == []
