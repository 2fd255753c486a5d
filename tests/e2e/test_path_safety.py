"""Names and locations through the Gravitino API that could reach outside their object: names
that are paths, tables inside tables, managed filesets over files they do not own. On local
disk and on every storage kind in CAIRN_FILESET_STORAGES."""

from __future__ import annotations

import pytest

from gravitino import Catalog, Fileset, NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.types.types import Types
from gravitino.exceptions.base import IllegalArgumentException
from gravitino.namespace import Namespace

from fileset_storage import FilesetStorage, make_storage, storage_kinds
from helpers import ILLEGAL_ARG_TYPES, assert_error, schema_path, table_body, column, unique

PATH_NAMES = ["x/metadata", "..", ".", "a\\b", "a\x00b", "a\nb", " ", "n" * 65]


@pytest.mark.parametrize("name", PATH_NAMES)
def test_table_names_that_are_paths_are_refused(api, metalake_name, catalog_name, catalog,
                                                schema_name, warehouse, name):
    before = sorted(str(p) for p in warehouse.rglob("*"))
    path = schema_path(metalake_name, catalog_name, schema_name) + "/tables"
    r = api.post(path, table_body(name, [column("id", "long")]))
    body = assert_error(r, 400, 1001, ILLEGAL_ARG_TYPES)
    assert "name" in body["message"]
    assert sorted(str(p) for p in warehouse.rglob("*")) == before


def test_a_table_inside_a_table_cannot_be_made(tables, schema_name, warehouse):
    """The reported case: `x/metadata` inside table x's folder, left behind by x's purge."""
    x = tables.create_table(NameIdentifier.of(schema_name, "x"),
                            [Column.of("id", Types.LongType.get())])
    with pytest.raises(IllegalArgumentException):
        tables.create_table(NameIdentifier.of(schema_name, "x/metadata"),
                            [Column.of("id", Types.LongType.get())])
    assert x.name() == "x"
    assert tables.purge_table(NameIdentifier.of(schema_name, "x"))
    assert tables.list_tables(Namespace.of(schema_name)) == []
    assert not (warehouse / schema_name / "x").exists()


def test_schema_names_that_are_paths_are_refused(api, metalake_name, catalog_name, catalog):
    for name in ["a/b", "..", "a\x00"]:
        r = api.post(schema_path(metalake_name, catalog_name), {"name": name, "properties": {}})
        assert_error(r, 400, 1001, ILLEGAL_ARG_TYPES)


# ---- managed filesets own their locations -----------------------------------------------------


@pytest.fixture(params=storage_kinds())
def storage(request, tmp_path) -> FilesetStorage:
    return make_storage(request.param, tmp_path)


@pytest.fixture
def fc(client, storage):
    cat = client.create_catalog(unique("fcat"), Catalog.Type.FILESET, "fileset", "filesets",
                                {**storage.catalog_properties, "location": storage.input("lake")})
    cat.as_schemas().create_schema("s", None, None)
    return cat.as_fileset_catalog()


def test_managed_fileset_over_existing_files_is_refused_and_they_survive(fc, storage):
    storage.write("keep/important.txt", b"precious")
    with pytest.raises(IllegalArgumentException, match="already holds files"):
        fc.create_fileset(NameIdentifier.of("s", "victim"), None, Fileset.Type.MANAGED,
                          storage.input("keep"), None)
    assert storage.read("keep/important.txt") == b"precious"
    # An external fileset may point at them; dropping it leaves them.
    fc.create_fileset(NameIdentifier.of("s", "ext"), None, Fileset.Type.EXTERNAL,
                      storage.input("keep"), None)
    assert fc.drop_fileset(NameIdentifier.of("s", "ext"))
    assert storage.read("keep/important.txt") == b"precious"


def test_managed_filesets_do_not_overlap(fc, storage):
    fc.create_fileset(NameIdentifier.of("s", "outer"), None, Fileset.Type.MANAGED,
                      storage.input("zone/outer"), None)
    for name, rel, kind in [("inner", "zone/outer/inner", Fileset.Type.MANAGED),
                            ("ext", "zone/outer/ext", Fileset.Type.EXTERNAL),
                            ("around", "zone", Fileset.Type.MANAGED)]:
        with pytest.raises(IllegalArgumentException, match="overlaps"):
            fc.create_fileset(NameIdentifier.of("s", name), None, kind, storage.input(rel), None)
    # Its own files go with it; a sibling directory stays.
    storage.write("zone/outer/part-0", b"x")
    storage.write("zone/sibling/keep", b"y")
    assert fc.drop_fileset(NameIdentifier.of("s", "outer"))
    assert not storage.exists("zone/outer/part-0")
    assert storage.read("zone/sibling/keep") == b"y"
