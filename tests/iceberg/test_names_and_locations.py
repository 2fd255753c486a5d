"""Names that could become paths, locations that could escape, and purges that could delete what
no table owns: each refused or contained, through the Iceberg REST API and PyIceberg."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.exceptions import BadRequestError
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from ice_helpers import assert_iceberg_error, files_under, local_path, unique

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                NestedField(2, "v", StringType(), required=False))
REST_SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "type": "long", "required": False}]}

# What the Java REST catalogs answer for an illegal argument.
BAD_REQUEST = ("IllegalArgumentException", "BadRequestException")

BAD_NAMES = [
    "..", ".", "../../../../x", "../x", "a/b", "/abs", "a\\b", "x\x00y", "x\ny", "\t", " ",
    "   ", "a\x1fb", "a\x7fb", "n" * 256, "n" * (1 << 20),
]


def _ids(values):
    return [repr(v[:20]) + (f"..({len(v)})" if len(v) > 20 else "") for v in values]


def tree(root: Path) -> dict[str, bytes]:
    """Every file under root with its content."""
    return {str(p.relative_to(root)): p.read_bytes() for p in files_under(root)}


def rows(ids, v="a"):
    return pa.table({"id": pa.array(list(ids), pa.int64()), "v": pa.array([v] * len(ids))})


@pytest.mark.parametrize("name", BAD_NAMES, ids=_ids(BAD_NAMES))
def test_table_names_that_are_not_one_segment_are_refused(ice, ns, name):
    before = tree(ice.warehouse_dir)
    beside = sorted(p.name for p in ice.warehouse_dir.parent.iterdir())
    r = ice.rest("POST", f"namespaces/{ns}/tables", {"name": name, "schema": REST_SCHEMA})
    err = assert_iceberg_error(r, 400, BAD_REQUEST)
    assert "table name" in err["message"], err
    assert len(err["message"]) < 1000, "the message must not echo a huge name"
    assert "\x00" not in err["message"] and "\n" not in err["message"]
    # Nothing was written anywhere: not in the warehouse, not beside it.
    assert tree(ice.warehouse_dir) == before
    assert sorted(p.name for p in ice.warehouse_dir.parent.iterdir()) == beside
    assert ice.rest("GET", f"namespaces/{ns}/tables").json()["identifiers"] == []


@pytest.mark.parametrize("name", BAD_NAMES, ids=_ids(BAD_NAMES))
def test_namespace_names_that_are_not_one_segment_are_refused(ice, name):
    r = ice.rest("POST", "namespaces", {"namespace": [name]})
    err = assert_iceberg_error(r, 400, BAD_REQUEST)
    assert "schema name" in err["message"] or "namespace" in err["message"].lower(), err
    listed = ice.rest("GET", "namespaces").json()["namespaces"]
    assert [name] not in listed


def test_names_that_are_one_segment_still_work(ice, catalog, ns):
    for name in ["a.b", "täble", "with space", "x" * 200, "dash-and_under", "n" * 255]:
        tbl = catalog.create_table((ns, name), SCHEMA)
        tbl.append(rows([1]))
        assert catalog.load_table((ns, name)).scan().to_arrow().num_rows == 1
        # One directory, directly in the namespace's.
        assert local_path(tbl.location()) == ice.warehouse_dir / ns / name


def test_rename_to_a_path_is_refused(ice, catalog, ns):
    catalog.create_table((ns, "src"), SCHEMA)
    r = ice.rest("POST", "tables/rename", {
        "source": {"namespace": [ns], "name": "src"},
        "destination": {"namespace": [ns], "name": "../escaped"}})
    assert_iceberg_error(r, 400, BAD_REQUEST)
    assert catalog.table_exists((ns, "src"))


def test_dot_dot_attack_leaves_every_table_intact(ice, catalog, ns):
    """The reported attack: create `..`, then purge it. Neither may touch another table."""
    for i in range(5):
        catalog.create_table((ns, f"t{i}"), SCHEMA).append(rows([i]))
    before = tree(ice.warehouse_dir)
    r = ice.rest("POST", f"namespaces/{ns}/tables", {"name": "..", "schema": REST_SCHEMA})
    assert_iceberg_error(r, 400)
    r = ice.rest("DELETE", f"namespaces/{ns}/tables/%2E%2E", params={"purgeRequested": "true"})
    assert_iceberg_error(r, 404, "NoSuchTableException")
    assert tree(ice.warehouse_dir) == before
    for i in range(5):
        assert catalog.load_table((ns, f"t{i}")).scan().to_arrow()["id"].to_pylist() == [i]


def test_a_table_may_not_shadow_a_nested_namespace(ice, catalog, ns):
    catalog.create_namespace((ns, "sub"))
    r = ice.rest("POST", f"namespaces/{ns}/tables", {"name": "sub", "schema": REST_SCHEMA})
    assert_iceberg_error(r, 409, "AlreadyExistsException")
    catalog.create_table((ns, "tbl"), SCHEMA)
    r = ice.rest("POST", "namespaces", {"namespace": [ns, "tbl"]})
    assert_iceberg_error(r, 409, "AlreadyExistsException")


# ---- explicit locations --------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path) -> Path:
    """A directory beside the warehouse that the catalog does not allow."""
    d = tmp_path / "outside"
    d.mkdir()
    return d


def test_location_outside_the_allowed_ones_is_refused(ice, ns, outside):
    for loc in [str(outside / "t"), f"file://{outside}/t", "/etc/cairn-escape",
                f"{ice.warehouse_dir}/../escape", f"file://{ice.warehouse_dir}/ns/../../x"]:
        r = ice.rest("POST", f"namespaces/{ns}/tables",
                     {"name": unique("t"), "schema": REST_SCHEMA, "location": loc})
        err = assert_iceberg_error(r, 400, BAD_REQUEST)
        assert "location" in err["message"], err
    assert files_under(outside) == []
    assert not Path("/etc/cairn-escape").exists()


def test_location_holding_the_warehouse_or_a_namespace_is_refused(ice, ns):
    for loc in [str(ice.warehouse_dir), str(ice.warehouse_dir / ns)]:
        r = ice.rest("POST", f"namespaces/{ns}/tables",
                     {"name": unique("t"), "schema": REST_SCHEMA, "location": loc})
        err = assert_iceberg_error(r, 400, BAD_REQUEST)
        assert "location" in err["message"], err


def test_location_of_another_table_is_refused(ice, catalog, ns):
    other = catalog.create_table((ns, "owner"), SCHEMA)
    for loc in [other.location(), other.location() + "/data", other.location() + "/sub/deeper"]:
        r = ice.rest("POST", f"namespaces/{ns}/tables",
                     {"name": unique("t"), "schema": REST_SCHEMA, "location": loc})
        err = assert_iceberg_error(r, 400, BAD_REQUEST)
        assert "overlaps" in err["message"], err
    # ... and moving a table there with a commit, too.
    mover = catalog.create_table((ns, "mover"), SCHEMA)
    r = ice.rest("POST", ice.table_path(ns, "mover"), {
        "requirements": [], "updates": [{"action": "set-location",
                                         "location": other.location() + "/x"}]})
    assert_iceberg_error(r, 400, BAD_REQUEST)
    assert catalog.load_table((ns, "mover")).location() == mover.location()


def test_write_paths_must_stay_within_the_table(ice, catalog, ns, outside):
    r = ice.rest("POST", f"namespaces/{ns}/tables", {
        "name": unique("t"), "schema": REST_SCHEMA,
        "properties": {"write.data.path": str(outside)}})
    err = assert_iceberg_error(r, 400, BAD_REQUEST)
    assert "write.data.path" in err["message"], err
    tbl = catalog.create_table((ns, "paths"), SCHEMA)
    for key in ["write.data.path", "write.metadata.path"]:
        r = ice.rest("POST", ice.table_path(ns, "paths"), {
            "requirements": [],
            "updates": [{"action": "set-properties", "updates": {key: str(outside / "x")}}]})
        err = assert_iceberg_error(r, 400, BAD_REQUEST)
        assert key in err["message"], err
    # Within the table's own location they are fine.
    with tbl.transaction() as tx:
        tx.set_properties({"write.data.path": tbl.location() + "/elsewhere"})
    assert catalog.load_table((ns, "paths")).properties["write.data.path"].endswith("/elsewhere")


def test_register_reads_only_allowed_locations(ice, ns, outside):
    planted = outside / "00000-x.metadata.json"
    planted.write_text("{}")
    for loc in [str(planted), "/etc/passwd", f"{ice.warehouse_dir}/../outside/x.metadata.json"]:
        r = ice.rest("POST", f"namespaces/{ns}/register",
                     {"name": unique("r"), "metadata-location": loc})
        err = assert_iceberg_error(r, 400, BAD_REQUEST)
        assert "metadata-location" in err["message"], err
        assert "root:" not in err["message"]


# ---- purge ---------------------------------------------------------------------------------


def test_purge_deletes_only_what_the_table_references(catalog, ns):
    tbl = catalog.create_table((ns, "p"), SCHEMA)
    tbl.append(rows([1, 2]))
    tbl.append(rows([3]))
    tbl = catalog.load_table((ns, "p"))
    root = local_path(tbl.location())
    owned = files_under(root)
    assert any(p.suffix == ".parquet" for p in owned)
    assert any(p.suffix == ".avro" for p in owned)
    # Something a person put into the table's directory is not the table's.
    stray = root / "data" / "README.txt"
    stray.write_text("not iceberg's")
    catalog.purge_table((ns, "p"))
    left = files_under(root)
    assert left == [stray], left
    assert stray.read_text() == "not iceberg's"


def test_purge_removes_the_emptied_directories(catalog, ns):
    tbl = catalog.create_table((ns, "gone"), SCHEMA)
    tbl.append(rows([1]))
    root = local_path(catalog.load_table((ns, "gone")).location())
    catalog.purge_table((ns, "gone"))
    assert not root.exists(), sorted(os.walk(root))


@pytest.fixture
def roomy(base_url, tmp_path):
    """A catalog that also allows locations under a second directory."""
    from conftest import _make_catalog  # noqa: PLC0415

    wh = tmp_path / "wh"
    wh.mkdir()
    extra = tmp_path / "extra"
    extra.mkdir()
    ice = _make_catalog(base_url, wh, {"allowed-locations": f"{wh},{extra}"})
    ice.extra_dir = extra
    yield ice
    ice.api_delete(f"metalakes/{ice.metalake}", params={"force": "true"})


def test_purge_of_a_table_placed_on_a_directory_keeps_what_was_there(roomy):
    catalog = roomy.pyiceberg()
    catalog.create_namespace("ns")
    victim = roomy.extra_dir / "victimdir"
    victim.mkdir()
    (victim / "important.txt").write_text("keep me")
    (victim / "sub").mkdir()
    (victim / "sub" / "more.txt").write_text("me too")
    tbl = catalog.create_table(("ns", "victimtbl"), SCHEMA, location=str(victim))
    tbl.append(rows([1, 2, 3]))
    assert any(p.suffix == ".parquet" for p in files_under(victim))
    catalog.purge_table(("ns", "victimtbl"))
    assert sorted(str(p.relative_to(victim)) for p in files_under(victim)) == [
        "important.txt", "sub/more.txt"]
    assert (victim / "important.txt").read_text() == "keep me"


def test_explicit_locations_under_an_allowed_directory(roomy):
    catalog = roomy.pyiceberg()
    catalog.create_namespace("ns")
    a = catalog.create_table(("ns", "a"), SCHEMA, location=str(roomy.extra_dir / "a"))
    a.append(rows([7]))
    assert catalog.load_table(("ns", "a")).location().endswith("/extra/a")
    with pytest.raises(BadRequestError, match="overlaps"):
        catalog.create_table(("ns", "b"), SCHEMA, location=str(roomy.extra_dir / "a" / "b"))
    with pytest.raises(BadRequestError, match="overlaps"):
        catalog.create_table(("ns", "c"), SCHEMA, location=str(roomy.extra_dir))
    # A dropped table frees its location.
    catalog.drop_table(("ns", "a"))
    catalog.create_table(("ns", "b"), SCHEMA, location=str(roomy.extra_dir / "a" / "b"))
