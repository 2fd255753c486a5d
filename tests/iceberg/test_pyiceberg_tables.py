"""PyIceberg end to end: namespaces, partitioned tables, writes, evolution, time travel,
listing with paging, rename, drop with and without purge."""

from __future__ import annotations

import time
from datetime import datetime

import pyarrow as pa
import pytest
from pyiceberg.exceptions import (
    NamespaceAlreadyExistsError,
    NamespaceNotEmptyError,
    NoSuchNamespaceError,
    NoSuchTableError,
    TableAlreadyExistsError,
)
from pyiceberg.expressions import EqualTo, LessThan
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import DayTransform, IdentityTransform, VoidTransform
from pyiceberg.types import IntegerType, LongType, NestedField, StringType, TimestampType

from ice_helpers import files_under, local_path, unique

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "category", StringType(), required=False),
    NestedField(3, "value", IntegerType(), required=False),
    NestedField(4, "ts", TimestampType(), required=False),
)
SPEC = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(),
                                    name="category"))
ARROW_SCHEMA = pa.schema([
    pa.field("id", pa.int64()),
    pa.field("category", pa.string()),
    pa.field("value", pa.int32()),
    pa.field("ts", pa.timestamp("us")),
])


def rows(ids, category="a", value=None):
    ids = list(ids)
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "category": pa.array([category] * len(ids), pa.string()),
        "value": pa.array([value if value is not None else i % 100 for i in ids], pa.int32()),
        "ts": pa.array([datetime(2024, 1, 1 + i % 28, 12, 0) for i in ids], pa.timestamp("us")),
    }, schema=ARROW_SCHEMA)


def ids_of(table) -> list[int]:
    return sorted(table.column("id").to_pylist())


def as_rows(table, *cols) -> list[tuple]:
    cols = cols or tuple(table.column_names)
    data = [table.column(c).to_pylist() for c in cols]
    return sorted(zip(*data), key=lambda r: tuple((x is None, x) for x in r))


# ---------------------------------------------------------------------------------------------
# Namespaces
# ---------------------------------------------------------------------------------------------


def test_namespaces_nested(catalog):
    top = unique("ns")
    catalog.create_namespace(top, {"owner": "suite", "comment": "top"})
    catalog.create_namespace((top, "child"))
    catalog.create_namespace((top, "child", "grandchild"))

    assert (top,) in catalog.list_namespaces()
    assert catalog.list_namespaces(top) == [(top, "child")]
    assert catalog.list_namespaces((top, "child")) == [(top, "child", "grandchild")]
    assert catalog.load_namespace_properties(top).get("owner") == "suite"
    assert catalog.namespace_exists((top, "child", "grandchild"))
    assert not catalog.namespace_exists((top, "nope"))

    with pytest.raises(NamespaceAlreadyExistsError):
        catalog.create_namespace((top, "child"))

    # A table in a nested namespace
    ident = (top, "child", "t")
    catalog.create_table(ident, SCHEMA)
    assert catalog.list_tables((top, "child")) == [ident]
    assert catalog.load_table(ident).name() == ident

    with pytest.raises(NamespaceNotEmptyError):
        catalog.drop_namespace((top, "child"))
    catalog.drop_table(ident)
    catalog.drop_namespace((top, "child", "grandchild"))
    catalog.drop_namespace((top, "child"))
    catalog.drop_namespace(top)
    assert not catalog.namespace_exists(top)
    with pytest.raises(NoSuchNamespaceError):
        catalog.drop_namespace(top)


def test_namespace_properties_update(catalog):
    name = unique("ns")
    catalog.create_namespace(name, {"a": "1", "b": "2", "c": "3"})
    summary = catalog.update_namespace_properties(name, removals={"a", "zz"},
                                                  updates={"b": "20", "d": "4"})
    assert sorted(summary.removed) == ["a"]
    assert sorted(summary.updated) == ["b", "d"]
    assert sorted(summary.missing) == ["zz"]
    props = catalog.load_namespace_properties(name)
    assert "a" not in props
    assert props["b"] == "20" and props["c"] == "3" and props["d"] == "4"

    with pytest.raises(NoSuchNamespaceError):
        catalog.update_namespace_properties(unique("missing"), updates={"x": "y"})


def test_create_table_in_missing_namespace(catalog):
    with pytest.raises(NoSuchNamespaceError):
        catalog.create_table((unique("missing"), "t"), SCHEMA)


# ---------------------------------------------------------------------------------------------
# Table lifecycle with data
# ---------------------------------------------------------------------------------------------


def test_partitioned_table_writes_and_time_travel(catalog, ns):
    ident = (ns, "events")
    tbl = catalog.create_table(ident, SCHEMA, partition_spec=SPEC,
                               properties={"write.format.default": "parquet", "k": "v"})
    assert tbl.metadata.properties.get("k") == "v"
    assert [f.name for f in tbl.spec().fields] == ["category"]
    assert tbl.current_snapshot() is None
    assert tbl.scan().to_arrow().num_rows == 0
    with pytest.raises(TableAlreadyExistsError):
        catalog.create_table(ident, SCHEMA)

    # Several appends, two partitions
    snaps = []
    tbl.append(rows(range(0, 10), "a"))
    snaps.append(tbl.current_snapshot().snapshot_id)
    tbl.append(rows(range(10, 20), "b"))
    snaps.append(tbl.current_snapshot().snapshot_id)
    tbl.append(rows(range(20, 25), "a"))
    snaps.append(tbl.current_snapshot().snapshot_id)
    assert len(set(snaps)) == 3

    fresh = catalog.load_table(ident)
    assert fresh.current_snapshot().snapshot_id == snaps[-1]
    assert ids_of(fresh.scan().to_arrow()) == list(range(25))
    assert as_rows(fresh.scan().to_arrow(), "id", "category", "value") == as_rows(
        pa.concat_tables([rows(range(0, 10), "a"), rows(range(10, 20), "b"),
                          rows(range(20, 25), "a")]), "id", "category", "value")
    assert ids_of(fresh.scan(row_filter=EqualTo("category", "b")).to_arrow()) == list(range(10, 20))
    # partition directories exist on disk under the table location
    data_files = [p for p in files_under(local_path(fresh.location())) if p.suffix == ".parquet"]
    assert len(data_files) >= 3
    assert any("category=a" in str(p) for p in data_files)

    # Delete rows with a filter: a whole partition, then part of one (rewrite)
    fresh.delete(EqualTo("category", "b"))
    assert ids_of(fresh.scan().to_arrow()) == list(range(10)) + list(range(20, 25))
    fresh.delete(LessThan("id", 5))
    after_delete = list(range(5, 10)) + list(range(20, 25))
    assert ids_of(catalog.load_table(ident).scan().to_arrow()) == after_delete
    snap_after_delete = catalog.load_table(ident).current_snapshot().snapshot_id

    # Overwrite everything
    fresh = catalog.load_table(ident)
    fresh.overwrite(rows(range(100, 103), "c", value=7))
    cur = catalog.load_table(ident)
    assert as_rows(cur.scan().to_arrow(), "id", "category", "value") == [
        (100, "c", 7), (101, "c", 7), (102, "c", 7)]
    assert cur.current_snapshot().summary.operation.value in ("overwrite", "delete", "append")

    # Time travel to every older snapshot
    assert ids_of(cur.scan(snapshot_id=snaps[0]).to_arrow()) == list(range(10))
    assert ids_of(cur.scan(snapshot_id=snaps[1]).to_arrow()) == list(range(20))
    assert ids_of(cur.scan(snapshot_id=snaps[2]).to_arrow()) == list(range(25))
    assert ids_of(cur.scan(snapshot_id=snap_after_delete).to_arrow()) == after_delete
    history = [e.snapshot_id for e in cur.history()]
    assert history[:3] == snaps
    assert history[-1] == cur.current_snapshot().snapshot_id
    # every snapshot but the first has its parent
    by_id = {s.snapshot_id: s for s in cur.snapshots()}
    assert by_id[snaps[1]].parent_snapshot_id == snaps[0]
    assert by_id[snaps[2]].parent_snapshot_id == snaps[1]
    # metadata log grows with each commit
    assert len(cur.metadata.metadata_log) >= 5


def test_schema_evolution(catalog, ns):
    ident = (ns, "evolve")
    tbl = catalog.create_table(ident, SCHEMA, partition_spec=SPEC)
    tbl.append(rows(range(5), "a"))
    old_snapshot = tbl.current_snapshot().snapshot_id
    old_schema_id = tbl.schema().schema_id

    with tbl.update_schema() as upd:
        upd.add_column("note", StringType(), doc="added later")
        upd.update_column("value", LongType())  # int -> long widening
        upd.rename_column("value", "amount")

    cur = catalog.load_table(ident)
    fields = {f.name: f for f in cur.schema().fields}
    assert set(fields) == {"id", "category", "amount", "ts", "note"}
    assert fields["amount"].field_id == 3 and fields["amount"].field_type == LongType()
    assert fields["note"].field_id == 5 and fields["note"].doc == "added later"
    assert cur.schema().schema_id != old_schema_id
    assert cur.metadata.last_column_id == 5
    assert len(cur.schemas()) == 2

    # old rows read through the new schema: renamed/widened column keeps values, new is null
    got = cur.scan().to_arrow()
    assert got.schema.field("amount").type == pa.int64()
    assert as_rows(got, "id", "amount", "note") == [(i, i, None) for i in range(5)]

    new = pa.table({
        "id": pa.array([10, 11], pa.int64()),
        "category": pa.array(["b", "b"]),
        "amount": pa.array([2**40, 5], pa.int64()),
        "ts": pa.array([datetime(2024, 2, 1), None], pa.timestamp("us")),
        "note": pa.array(["x", None]),
    })
    cur.append(new)
    got = catalog.load_table(ident).scan().to_arrow()
    assert as_rows(got, "id", "amount", "note") == (
        [(i, i, None) for i in range(5)] + [(10, 2**40, "x"), (11, 5, None)])
    # time travel uses the snapshot's schema
    old = catalog.load_table(ident).scan(snapshot_id=old_snapshot).to_arrow()
    assert ids_of(old) == list(range(5))
    assert "value" in old.column_names and "note" not in old.column_names


def test_partition_evolution(catalog, ns):
    ident = (ns, "pevolve")
    tbl = catalog.create_table(ident, SCHEMA, partition_spec=SPEC)
    tbl.append(rows(range(4), "a"))
    with tbl.update_spec() as upd:
        upd.add_field("ts", DayTransform(), "ts_day")
    cur = catalog.load_table(ident)
    assert [f.name for f in cur.spec().fields] == ["category", "ts_day"]
    assert cur.spec().spec_id == 1
    assert len(cur.specs()) == 2
    assert cur.metadata.last_partition_id == 1001
    cur.append(rows(range(4, 8), "b"))

    with cur.update_spec() as upd:
        upd.remove_field("category")
    cur = catalog.load_table(ident)
    live = [f.name for f in cur.spec().fields if not isinstance(f.transform, VoidTransform)]
    assert live == ["ts_day"]
    assert cur.spec().spec_id == 2
    cur.append(rows(range(8, 10), "c"))

    final = catalog.load_table(ident)
    assert ids_of(final.scan().to_arrow()) == list(range(10))
    assert ids_of(final.scan(row_filter=EqualTo("category", "b")).to_arrow()) == list(range(4, 8))
    specs_used = {m.partition_spec_id for m in final.current_snapshot().manifests(final.io)}
    assert specs_used == {0, 1, 2}


def test_table_properties_and_exists(catalog, ns):
    ident = (ns, "props")
    tbl = catalog.create_table(ident, SCHEMA, properties={"a": "1", "b": "2"})
    assert catalog.table_exists(ident)
    assert not catalog.table_exists((ns, "nope"))
    with tbl.transaction() as tx:
        tx.set_properties(c="3", a="10")
        tx.remove_properties("b")
    props = catalog.load_table(ident).properties
    assert props["a"] == "10" and props["c"] == "3" and "b" not in props


def test_load_missing(catalog, ns):
    with pytest.raises(NoSuchTableError):
        catalog.load_table((ns, "missing"))
    with pytest.raises(NoSuchTableError):
        catalog.load_table((unique("nons"), "missing"))


# ---------------------------------------------------------------------------------------------
# Listing, rename, drop
# ---------------------------------------------------------------------------------------------


def test_list_tables_with_paging(ice, ns):
    plain = ice.pyiceberg()
    names = [f"t{i:02d}" for i in range(7)]
    for n in names:
        plain.create_table((ns, n), SCHEMA)
    expected = sorted((ns, n) for n in names)
    assert sorted(plain.list_tables(ns)) == expected

    paged = ice.pyiceberg(**{"rest-page-size": "3"})
    assert sorted(paged.list_tables(ns)) == expected

    # the pages themselves over HTTP: at most pageSize each, tokens chain, no duplicates
    seen, token, pages = [], "", 0
    while True:
        r = ice.rest("GET", f"namespaces/{ns}/tables", params={"pageSize": 3, "pageToken": token})
        assert r.status_code == 200, r.text
        body = r.json()
        assert len(body["identifiers"]) <= 3
        seen += [i["name"] for i in body["identifiers"]]
        pages += 1
        token = body.get("next-page-token")
        if not token:
            break
        assert pages < 10, "paging does not end"
    assert sorted(seen) == names and len(seen) == len(set(seen))
    assert pages >= 3

    # no pageToken: everything at once
    r = ice.rest("GET", f"namespaces/{ns}/tables")
    assert r.status_code == 200
    assert sorted(i["name"] for i in r.json()["identifiers"]) == names


def test_list_namespaces_with_paging(fresh_ice):
    cat = fresh_ice.pyiceberg(**{"rest-page-size": "2"})
    names = [f"n{i}" for i in range(5)]
    for n in names:
        cat.create_namespace(n)
    assert sorted(cat.list_namespaces()) == [(n,) for n in names]


def test_rename_table(catalog, ns):
    other = unique("ns")
    catalog.create_namespace(other)
    tbl = catalog.create_table((ns, "before"), SCHEMA)
    tbl.append(rows(range(3)))
    uuid_before = tbl.metadata.table_uuid

    renamed = catalog.rename_table((ns, "before"), (ns, "after"))
    assert renamed.name() == (ns, "after")
    assert not catalog.table_exists((ns, "before"))
    loaded = catalog.load_table((ns, "after"))
    assert loaded.metadata.table_uuid == uuid_before
    assert ids_of(loaded.scan().to_arrow()) == [0, 1, 2]
    assert catalog.list_tables(ns) == [(ns, "after")]

    # into another namespace
    catalog.rename_table((ns, "after"), (other, "moved"))
    assert catalog.list_tables(ns) == []
    assert ids_of(catalog.load_table((other, "moved")).scan().to_arrow()) == [0, 1, 2]

    with pytest.raises(NoSuchTableError):
        catalog.rename_table((ns, "missing"), (ns, "x"))
    catalog.create_table((ns, "taken"), SCHEMA)
    with pytest.raises(TableAlreadyExistsError):
        catalog.rename_table((other, "moved"), (ns, "taken"))
    with pytest.raises(NoSuchNamespaceError):
        catalog.rename_table((other, "moved"), (unique("nons"), "x"))


def _wait_gone(paths, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(p.exists() for p in paths):
            return True
        time.sleep(0.2)
    return False


def test_drop_without_purge_keeps_files(catalog, ns):
    ident = (ns, "keep")
    tbl = catalog.create_table(ident, SCHEMA, partition_spec=SPEC)
    tbl.append(rows(range(3)))
    tbl = catalog.load_table(ident)
    files = files_under(local_path(tbl.location()))
    assert any(p.suffix == ".parquet" for p in files)
    assert any(p.name.endswith(".metadata.json") for p in files)
    catalog.drop_table(ident)
    assert not catalog.table_exists(ident)
    with pytest.raises(NoSuchTableError):
        catalog.load_table(ident)
    assert all(p.exists() for p in files), "drop without purge removed files"
    # the metadata file can be registered again
    again = catalog.register_table(ident, tbl.metadata_location)
    assert ids_of(again.scan().to_arrow()) == [0, 1, 2]


def test_drop_with_purge_removes_files(catalog, ns):
    ident = (ns, "purge")
    tbl = catalog.create_table(ident, SCHEMA, partition_spec=SPEC)
    tbl.append(rows(range(3)))
    tbl.append(rows(range(3, 6), "b"))
    tbl = catalog.load_table(ident)
    files = files_under(local_path(tbl.location()))
    data = [p for p in files if p.suffix == ".parquet"]
    assert len(data) >= 2
    catalog.purge_table(ident)
    assert not catalog.table_exists(ident)
    assert _wait_gone(files), "purge left files: " + ", ".join(
        str(p) for p in files if p.exists())


def test_purge_after_rename_keeps_new_table_at_old_name(catalog, ns):
    """Rename t -> t2, create a new t (same default location as the old t), purge t2: the new t
    must survive with its metadata and data (RCK dropAfterRenameDoesntCorruptTable)."""
    tbl = catalog.create_table((ns, "t"), SCHEMA)
    tbl.append(rows(range(3)))
    catalog.rename_table((ns, "t"), (ns, "t2"))
    new = catalog.create_table((ns, "t"), SCHEMA)
    new.append(rows(range(10, 12)))
    catalog.purge_table((ns, "t2"))
    assert not catalog.table_exists((ns, "t2"))
    time.sleep(1.0)  # in case the purge deletes files in the background
    again = catalog.load_table((ns, "t"))
    assert local_path(again.metadata_location).exists()
    assert ids_of(again.scan().to_arrow()) == [10, 11]
