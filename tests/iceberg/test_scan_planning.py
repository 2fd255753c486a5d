"""Server-side scan planning (the REST spec's planTableScan, fetchPlanningResult, cancelPlanning
and fetchScanTasks) as PyIceberg uses it with `scan-planning-mode=server`: for every filter the
server plans exactly the files PyIceberg's own planner picks and the rows read are the same;
plans too large for one answer come back as plan tasks; bad requests are 4xx naming the field.
"""

from __future__ import annotations

import base64
import json
import math
import uuid
from datetime import datetime, timezone

import pyarrow as pa
import pytest

from cairn_server import running_cairn
from conftest import _make_catalog
from ice_helpers import Ice, assert_iceberg_error, unique

PLAN_ENDPOINTS = {
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
}

ARROW_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("category", pa.string()),
    pa.field("ts", pa.timestamp("us", tz="UTC")),
    pa.field("amount", pa.float64()),
    pa.field("note", pa.string()),
])


def _iceberg_schema():
    from pyiceberg.schema import Schema
    from pyiceberg.types import (DoubleType, LongType, NestedField, StringType,
                                 TimestamptzType)
    return Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "category", StringType(), required=False),
        NestedField(3, "ts", TimestamptzType(), required=False),
        NestedField(4, "amount", DoubleType(), required=False),
        NestedField(5, "note", StringType(), required=False),
    )


def _spec():
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform
    return PartitionSpec(
        PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="category"),
        PartitionField(source_id=3, field_id=1001, transform=DayTransform(), name="ts_day"),
        PartitionField(source_id=1, field_id=1002, transform=BucketTransform(4), name="id_b"),
    )


def _batch(start: int, n: int, category: str | None, day: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({
        "id": ids,
        "category": [category] * n,
        "ts": [datetime(2024, 1, day, i % 24, tzinfo=timezone.utc) for i in range(n)],
        "amount": [float("nan") if i % 7 == 0 else i * 1.5 for i in ids],
        "note": [None if i % 5 == 0 else f"n{i}" for i in ids],
    }, schema=ARROW_SCHEMA)


def _fill(table) -> list[int]:
    """Appends and an overwrite; returns the snapshot ids in order."""
    snapshots = []
    for k, (category, day) in enumerate([("a", 1), ("b", 1), ("a", 2), ("c", 3), ("d", 3),
                                         ("b", 4)]):
        table.append(_batch(k * 40, 40, category, day))
        snapshots.append(table.current_snapshot().snapshot_id)
    table.delete("id < 20")  # rewrites the first files: an overwrite snapshot
    table.refresh()
    snapshots.append(table.current_snapshot().snapshot_id)
    return snapshots


def _rows(scan) -> list[tuple]:
    t = scan.to_arrow().sort_by("id")
    out = []
    for r in t.to_pylist():
        amount = r["amount"]
        out.append((r["id"], r["category"], r["ts"], "nan" if amount is not None and
                    math.isnan(amount) else amount, r["note"]))
    return out


def _files(scan) -> set[str]:
    return {task.file.file_path for task in scan.plan_files()}


@pytest.fixture(scope="module")
def planned(ice):
    """(client-planning catalog, server-planning catalog, identifier, snapshot ids)."""
    client = ice.pyiceberg()
    server = ice.pyiceberg(**{"scan-planning-mode": "server"})
    ns = unique("plan")
    client.create_namespace(ns)
    ident = f"{ns}.events"
    table = client.create_table(ident, schema=_iceberg_schema(), partition_spec=_spec())
    snapshots = _fill(table)
    return client, server, ident, snapshots


def test_config_advertises_scan_planning(ice):
    r = ice.config()
    assert r.status_code == 200
    assert PLAN_ENDPOINTS <= set(r.json()["endpoints"])


def test_the_server_plans_the_files_pyiceberg_would(planned):
    from pyiceberg.expressions import (And, EqualTo, GreaterThan, GreaterThanOrEqual, In,
                                       IsNaN, IsNull, LessThan, Not, NotEqualTo, NotIn,
                                       NotNull, Or, StartsWith)
    client, server, ident, _ = planned
    ct, st = client.load_table(ident), server.load_table(ident)
    assert server.supports_server_side_planning()
    filters = [
        EqualTo("category", "a"),
        NotEqualTo("category", "a"),
        In("category", {"a", "c"}),
        NotIn("category", {"a"}),
        IsNull("category"),  # no file: the table has no null category
        NotNull("category"),
        GreaterThan("id", 150),
        LessThan("id", 45),
        And(EqualTo("category", "b"), GreaterThanOrEqual("id", 200)),
        Or(EqualTo("id", 7), EqualTo("id", 130)),
        GreaterThanOrEqual("ts", "2024-01-03T00:00:00+00:00"),
        LessThan("ts", "2024-01-02T00:00:00+00:00"),
        Not(EqualTo("category", "b")),
        IsNull("note"),
        IsNaN("amount"),
        StartsWith("category", "b"),
        EqualTo("id", 10_000),
    ]
    everything = _files(ct.scan())
    assert len(everything) >= 6
    for f in filters:
        mine, theirs = _files(st.scan(row_filter=f)), _files(ct.scan(row_filter=f))
        assert mine == theirs, f"{f}: server planned {len(mine)} files, PyIceberg {len(theirs)}"
        assert _rows(st.scan(row_filter=f)) == _rows(ct.scan(row_filter=f)), f
    # Partition and metrics pruning happened.
    assert len(_files(st.scan(row_filter=EqualTo("category", "a")))) < len(everything)
    assert _files(st.scan(row_filter=EqualTo("id", 10_000))) == set()
    assert _rows(st.scan()) == _rows(ct.scan())
    assert len(_rows(st.scan())) == 240 - 20


def test_time_travel_and_projection(planned):
    client, server, ident, snapshots = planned
    ct, st = client.load_table(ident), server.load_table(ident)
    for snap in (snapshots[0], snapshots[3], snapshots[-1]):
        assert _rows(st.scan(snapshot_id=snap)) == _rows(ct.scan(snapshot_id=snap))
    assert len(_rows(st.scan(snapshot_id=snapshots[0]))) == 40
    got = st.scan(selected_fields=("id", "note"), row_filter="id < 3").to_arrow()
    assert got.column_names == ["id", "note"]
    assert sorted(got["id"].to_pylist()) == []  # ids below 20 were deleted
    got = st.scan(selected_fields=("id",), row_filter="id >= 20 and id < 23").to_arrow()
    assert sorted(got["id"].to_pylist()) == [20, 21, 22]


def _table_path(ice: Ice, ident: str) -> str:
    ns, name = ident.split(".")
    return ice.table_path(ns, name)


def test_residuals_drop_what_the_partition_decides(ice, planned):
    _, _, ident, _ = planned
    body = {"filter": {"type": "and",
                       "left": {"type": "eq", "term": "category", "value": "b"},
                       "right": {"type": "gt", "term": "id", "value": 50}}}
    r = ice.rest("POST", _table_path(ice, ident) + "/plan", body)
    assert r.status_code == 200, r.text
    plan = r.json()
    assert plan["status"] == "completed" and plan["plan-id"]
    tasks = plan["file-scan-tasks"]
    assert tasks and plan["plan-tasks"] == []
    for t in tasks:
        f = t["data-file"]
        assert f["content"] == "data" and f["file-format"] == "parquet"
        assert f["partition"][0] == "b"
        assert f["partition"][1].startswith("2024-01-0")  # day(ts) as an ISO date
        assert isinstance(f["partition"][2], int)
        assert t["residual-filter"] == {"type": "gt", "term": "id", "value": 50}
        assert "lower-bounds" not in f  # no stats-fields asked for
    # Column statistics only for the stats fields named.
    r = ice.rest("POST", _table_path(ice, ident) + "/plan",
                 {**body, "stats-fields": ["id"]})
    f = r.json()["file-scan-tasks"][0]["data-file"]
    assert f["value-counts"]["keys"] == [1]
    assert f["lower-bounds"]["keys"] == [1]
    lower = int.from_bytes(bytes.fromhex(f["lower-bounds"]["values"][0]), "little", signed=True)
    assert lower >= 40


def test_a_null_partition_value_is_json_null(ice, planned):
    """The spec's content file writes a null partition value as null (PyIceberg 0.12 cannot
    read such a plan, so this is checked on the wire)."""
    client, _, ident, _ = planned
    ns = ident.split(".")[0]
    table = client.create_table(f"{ns}.nulls", schema=_iceberg_schema(), partition_spec=_spec())
    table.append(_batch(0, 10, None, 5))
    table.append(_batch(10, 10, "a", 5))
    r = ice.rest("POST", ice.table_path(ns, "nulls") + "/plan",
                 {"filter": {"type": "is-null", "term": "category"}})
    assert r.status_code == 200, r.text
    tasks = r.json()["file-scan-tasks"]
    assert tasks and all(t["data-file"]["partition"][0] is None for t in tasks)
    assert sum(t["data-file"]["record-count"] for t in tasks) == 10
    assert all(t["residual-filter"] is True for t in tasks)


def test_plan_ids_are_fetched_again_and_cancelled(ice, planned):
    _, _, ident, _ = planned
    path = _table_path(ice, ident)
    r = ice.rest("POST", path + "/plan", {"filter": {"type": "eq", "term": "category",
                                                     "value": "c"}})
    assert r.status_code == 200, r.text
    plan = r.json()
    again = ice.rest("GET", f"{path}/plan/{plan['plan-id']}")
    assert again.status_code == 200, again.text
    assert again.json()["file-scan-tasks"] == plan["file-scan-tasks"]
    assert ice.rest("DELETE", f"{path}/plan/{plan['plan-id']}").status_code == 204
    assert_iceberg_error(ice.rest("GET", f"{path}/plan/{plan['plan-id']}"), 404,
                         "NoSuchPlanIdException")
    assert_iceberg_error(ice.rest("DELETE", f"{path}/plan/{plan['plan-id']}"), 404,
                         "NoSuchPlanIdException")
    # A plan is a read: an Idempotency-Key does not make the server replay an old answer.
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = ice.rest("POST", path + "/plan", {}, headers=key)
    second = ice.rest("POST", path + "/plan", {}, headers=key)
    assert first.status_code == second.status_code == 200, (first.text, second.text)
    assert first.json()["plan-id"] != second.json()["plan-id"]


def test_bad_plan_requests_are_clear_errors(ice, planned):
    _, _, ident, snapshots = planned
    path = _table_path(ice, ident)
    cases = [
        ({"filter": {"type": "eq", "term": "nope", "value": 1}}, "nope"),
        ({"filter": {"type": "eq", "term": "id", "value": "x"}}, "id"),
        ({"filter": {"type": "frobnicate", "term": "id"}}, "frobnicate"),
        ({"snapshot-id": 12345}, "snapshot-id"),
        ({"snapshot-id": snapshots[0], "start-snapshot-id": snapshots[0],
          "end-snapshot-id": snapshots[1]}, "snapshot-id"),
        ({"start-snapshot-id": snapshots[0]}, "end-snapshot-id"),
        ({"start-snapshot-id": snapshots[3], "end-snapshot-id": snapshots[1]}, "ancestor"),
        ({"select": ["id", "nope"]}, "nope"),
        ({"stats-fields": "id"}, "stats-fields"),
        ({"case-sensitive": "yes"}, "case-sensitive"),
    ]
    for body, word in cases:
        r = ice.rest("POST", path + "/plan", body)
        err = assert_iceberg_error(r, 400)
        assert word in err["message"], (body, err)
    deep = '{"filter":' + '{"type":"not","child":' * 5000 + "true" + "}" * 5001
    r = ice.rest("POST", path + "/plan", data=deep)
    assert r.status_code == 400, r.text[:200]
    for token in ["", "not-a-token", base64.urlsafe_b64encode(b'{"v":1}').decode(),
                  base64.urlsafe_b64encode(json.dumps(
                      {"v": 1, "s": snapshots[-1], "m": ["/etc/passwd"], "h": 0}).encode()
                  ).decode().rstrip("=")]:
        assert_iceberg_error(ice.rest("POST", path + "/tasks", {"plan-task": token}), 404,
                             "NoSuchPlanTaskException")
    assert_iceberg_error(ice.rest("POST", path + "/tasks", {}), 400)
    assert_iceberg_error(ice.rest("POST", _table_path(ice, ident) + "x/plan", {}), 404,
                         "NoSuchTableException")


def test_incremental_plans_read_the_appends_between(ice, planned):
    client, _, ident, snapshots = planned
    path = _table_path(ice, ident)
    r = ice.rest("POST", path + "/plan", {"start-snapshot-id": snapshots[1],
                                          "end-snapshot-id": snapshots[3]})
    assert r.status_code == 200, r.text
    files = {t["data-file"]["file-path"] for t in r.json()["file-scan-tasks"]}
    table = client.load_table(ident)
    added = set()
    for snap in snapshots[2:4]:
        s = table.metadata.snapshot_by_id(snap)
        for m in s.manifests(table.io):
            if m.added_snapshot_id == snap:
                added |= {e.data_file.file_path for e in m.fetch_manifest_entry(table.io)}
    assert files == added and files


def test_large_plans_are_split_into_plan_tasks(tmp_path, tmp_path_factory):
    logs = tmp_path_factory.getbasetemp()
    env = {"CAIRN_ICEBERG_SCAN_PLAN_FILES_PER_TASK": "3"}
    with running_cairn("plan-tasks", env, tmp_path / "data", logs) as srv:
        wh = tmp_path / "warehouse"
        wh.mkdir()
        ice = _make_catalog(srv.url, wh)
        client = ice.pyiceberg()
        server = ice.pyiceberg(**{"scan-planning-mode": "server"})
        client.create_namespace("ns")
        table = client.create_table("ns.t", schema=_iceberg_schema(), partition_spec=_spec())
        _fill(table)
        r = ice.rest("POST", ice.table_path("ns", "t") + "/plan", {})
        assert r.status_code == 200, r.text
        plan = r.json()
        assert plan["file-scan-tasks"] == [] and len(plan["plan-tasks"]) >= 2
        fetched = []
        for token in plan["plan-tasks"]:
            t = ice.rest("POST", ice.table_path("ns", "t") + "/tasks", {"plan-task": token})
            assert t.status_code == 200, t.text
            fetched += [x["data-file"]["file-path"] for x in t.json()["file-scan-tasks"]]
        assert len(fetched) == len(set(fetched))
        assert set(fetched) == _files(client.load_table("ns.t").scan())
        st, ct = server.load_table("ns.t"), client.load_table("ns.t")
        assert _rows(st.scan()) == _rows(ct.scan())
        assert _rows(st.scan(row_filter="category = 'b'")) == \
            _rows(ct.scan(row_filter="category = 'b'"))
        # A token of another table is refused.
        other = client.create_table("ns.u", schema=_iceberg_schema())
        other.append(_batch(0, 5, "a", 1))
        t = ice.rest("POST", ice.table_path("ns", "u") + "/tasks",
                     {"plan-task": plan["plan-tasks"][0]})
        assert_iceberg_error(t, 404, "NoSuchPlanTaskException")
