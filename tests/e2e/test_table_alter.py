"""Every TableChange the Python client offers, against a managed Iceberg table, plus the
Iceberg metadata files each alter writes."""

import pytest

from gravitino import NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.expressions.literals.literals import Literals
from gravitino.api.rel.indexes.index import Index
from gravitino.api.rel.table_change import TableChange
from gravitino.api.rel.types.types import Types
from gravitino.exceptions.base import (
    IllegalArgumentException,
    NoSuchTableException,
    TableAlreadyExistsException,
    UnsupportedOperationException,
)
from gravitino.namespace import Namespace

from helpers import (
    assert_error,
    current_schema,
    field_by_name,
    latest_metadata,
    metadata_files,
    ok_json,
    seq_of,
    table_path,
)

Pos = TableChange.ColumnPosition
F = Types.StructType.Field


def add_col(field_name, data_type, comment=None, position=None, **kw):
    """TableChange.add_column with an explicit position: the 1.3.1 client cannot serialise an
    AddColumn whose position is None, so callers must always pass one."""
    return TableChange.add_column(field_name, data_type, comment,
                                  position if position is not None else Pos.default_pos(), **kw)


@pytest.fixture
def tbl(tables, schema_name):
    """A table `t` with columns id (required int), name (string), amount (int), s (struct)."""
    ident = NameIdentifier.of(schema_name, "t")
    tables.create_table(ident, [
        Column.of("id", Types.IntegerType.get(), "identifier", nullable=False),
        Column.of("name", Types.StringType.get(), "the name"),
        Column.of("amount", Types.IntegerType.get()),
        Column.of("s", Types.StructType.of(F.nullable_field("a", Types.IntegerType.get()))),
    ], "table comment", {"k1": "v1", "k2": "v2"})
    return ident


def names(table):
    return [c.name() for c in table.columns()]


def col(table, name):
    return [c for c in table.columns() if c.name() == name][0]


def test_rename_table(tables, tbl, schema_name, api, metalake_name, catalog_name):
    t = tables.alter_table(tbl, TableChange.rename("t_renamed"))
    assert t.name() == "t_renamed"
    with pytest.raises(NoSuchTableException):
        tables.load_table(tbl)
    loaded = tables.load_table(NameIdentifier.of(schema_name, "t_renamed"))
    assert names(loaded) == ["id", "name", "amount", "s"]
    assert loaded.comment() == "table comment"
    assert [i.name() for i in tables.list_tables(Namespace.of(schema_name))] == ["t_renamed"]
    # The renamed table keeps working: alter it again.
    t = tables.alter_table(NameIdentifier.of(schema_name, "t_renamed"),
                           TableChange.set_property("after", "rename"))
    assert t.properties()["after"] == "rename"


def test_rename_to_existing_table_fails(tables, tbl, schema_name):
    tables.create_table(NameIdentifier.of(schema_name, "other"),
                        [Column.of("x", Types.IntegerType.get())])
    with pytest.raises(TableAlreadyExistsException):
        tables.alter_table(tbl, TableChange.rename("other"))
    assert names(tables.load_table(tbl)) == ["id", "name", "amount", "s"]


def test_rename_to_other_schema(tables, tbl, schema_name, catalog):
    catalog.as_schemas().create_schema("target", None, None)
    t = tables.alter_table(tbl, TableChange.rename("moved", "target"))
    assert t.name() == "moved"
    assert tables.list_tables(Namespace.of(schema_name)) == []
    assert [i.name() for i in tables.list_tables(Namespace.of("target"))] == ["moved"]
    assert names(tables.load_table(NameIdentifier.of("target", "moved"))) == [
        "id", "name", "amount", "s"]


def test_update_comment(tables, tbl):
    t = tables.alter_table(tbl, TableChange.update_comment("new comment"))
    assert t.comment() == "new comment"
    assert tables.load_table(tbl).comment() == "new comment"


def test_set_and_remove_properties(tables, tbl):
    t = tables.alter_table(tbl, TableChange.set_property("k3", "v3"),
                           TableChange.set_property("k1", "v1b"),
                           TableChange.remove_property("k2"),
                           TableChange.remove_property("never-existed"))
    assert t.properties()["k1"] == "v1b"
    assert t.properties()["k3"] == "v3"
    assert "k2" not in t.properties()
    loaded = tables.load_table(tbl)
    assert loaded.properties()["k1"] == "v1b"
    assert loaded.properties()["k3"] == "v3"
    assert "k2" not in loaded.properties()


def test_add_columns_with_positions(tables, tbl, schema_name, warehouse):
    t = tables.alter_table(
        tbl,
        add_col(["first_col"], Types.LongType.get(), "at the front", Pos.first()),
        add_col(["after_name"], Types.DateType.get(), None, Pos.after("name")),
        add_col(["last_col"], Types.StringType.get()),
        add_col(["default_pos"], Types.DoubleType.get(), None,
                               Pos.default_pos()),
    )
    expected = ["first_col", "id", "name", "after_name", "amount", "s", "last_col",
                "default_pos"]
    assert names(t) == expected
    loaded = tables.load_table(tbl)
    assert names(loaded) == expected
    assert col(loaded, "first_col").comment() == "at the front"
    assert col(loaded, "first_col").nullable() is True
    assert col(loaded, "after_name").data_type() == Types.DateType.get()

    md = latest_metadata(warehouse, schema_name, "t")
    assert [f["name"] for f in current_schema(md)["fields"]] == expected


def test_add_nested_field_and_rename_nested(tables, tbl):
    t = tables.alter_table(tbl, add_col(["s", "b"], Types.StringType.get()))
    st = col(t, "s").data_type()
    assert [f.name() for f in st.fields()] == ["a", "b"]
    t = tables.alter_table(tbl, TableChange.rename_column(["s", "a"], "a2"))
    assert [f.name() for f in col(t, "s").data_type().fields()] == ["a2", "b"]


def test_add_existing_column_fails(tables, tbl):
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, add_col(["name"], Types.StringType.get()))


def test_add_required_column_fails(tables, tbl):
    # Iceberg refuses to add a required column to an existing table (incompatible change).
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, add_col(["req"], Types.IntegerType.get(),
                                                       nullable=False))
    assert "req" not in names(tables.load_table(tbl))


def test_add_column_with_unsupported_features(tables, tbl):
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, add_col(["ai"], Types.IntegerType.get(),
                                                       auto_increment=True))
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, add_col(["uu"], Types.IntegerType.unsigned()))
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, add_col(
            ["dv"], Types.IntegerType.get(), default_value=Literals.integer_literal(1)))
    assert names(tables.load_table(tbl)) == ["id", "name", "amount", "s"]


def test_rename_column(tables, tbl, schema_name, warehouse):
    before = current_schema(latest_metadata(warehouse, schema_name, "t"))
    t = tables.alter_table(tbl, TableChange.rename_column(["name"], "full_name"))
    assert names(t) == ["id", "full_name", "amount", "s"]
    assert col(t, "full_name").comment() == "the name"
    after = current_schema(latest_metadata(warehouse, schema_name, "t"))
    # Renaming keeps the field id.
    assert field_by_name(after, "full_name")["id"] == field_by_name(before, "name")["id"]
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, TableChange.rename_column(["nope"], "x"))


def test_delete_column(tables, tbl):
    t = tables.alter_table(tbl, TableChange.delete_column(["amount"], False))
    assert names(t) == ["id", "name", "s"]
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, TableChange.delete_column(["amount"], False))
    t = tables.alter_table(tbl, TableChange.delete_column(["amount"], True))
    assert names(t) == ["id", "name", "s"]
    assert names(tables.load_table(tbl)) == ["id", "name", "s"]


def test_update_column_type(tables, tbl, schema_name, warehouse):
    t = tables.alter_table(tbl, TableChange.update_column_type(["amount"], Types.LongType.get()))
    assert col(t, "amount").data_type() == Types.LongType.get()
    assert col(tables.load_table(tbl), "amount").data_type() == Types.LongType.get()
    md = latest_metadata(warehouse, schema_name, "t")
    assert field_by_name(current_schema(md), "amount")["type"] == "long"

    # string -> int is not a legal Iceberg promotion.
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, TableChange.update_column_type(["name"],
                                                               Types.IntegerType.get()))
    # long -> int is a narrowing.
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, TableChange.update_column_type(["amount"],
                                                               Types.IntegerType.get()))
    # Missing column.
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, TableChange.update_column_type(["nope"], Types.LongType.get()))
    assert col(tables.load_table(tbl), "name").data_type() == Types.StringType.get()


def test_update_column_comment(tables, tbl):
    t = tables.alter_table(tbl, TableChange.update_column_comment(["amount"], "how much"))
    assert col(t, "amount").comment() == "how much"
    assert col(tables.load_table(tbl), "amount").comment() == "how much"


def test_update_column_position(tables, tbl):
    t = tables.alter_table(tbl, TableChange.update_column_position(["amount"], Pos.first()))
    assert names(t) == ["amount", "id", "name", "s"]
    t = tables.alter_table(tbl, TableChange.update_column_position(["amount"],
                                                                    Pos.after("name")))
    assert names(t) == ["id", "name", "amount", "s"]
    assert names(tables.load_table(tbl)) == ["id", "name", "amount", "s"]


def test_update_column_nullability(tables, tbl):
    t = tables.alter_table(tbl, TableChange.update_column_nullability(["id"], True))
    assert col(t, "id").nullable() is True
    assert col(tables.load_table(tbl), "id").nullable() is True
    # optional -> required on an existing column is an incompatible change.
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, TableChange.update_column_nullability(["name"], False))
    assert col(tables.load_table(tbl), "name").nullable() is True


def test_unsupported_column_changes(tables, tbl):
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, TableChange.update_column_auto_increment(["id"], True))
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, TableChange.add_index(Index.IndexType.PRIMARY_KEY, "pk",
                                                      [["id"]]))
    with pytest.raises((IllegalArgumentException, UnsupportedOperationException)):
        tables.alter_table(tbl, TableChange.update_column_default_value(
            ["amount"], Literals.integer_literal(3)))
    with pytest.raises((IllegalArgumentException, UnsupportedOperationException)):
        tables.alter_table(tbl, TableChange.delete_index("pk", False))


def test_alter_missing_table(tables, schema_name):
    with pytest.raises(NoSuchTableException):
        tables.alter_table(NameIdentifier.of(schema_name, "missing"),
                           TableChange.set_property("a", "b"))


def test_several_changes_apply_in_order(tables, tbl):
    t = tables.alter_table(
        tbl,
        add_col(["tmp"], Types.IntegerType.get()),
        TableChange.rename_column(["tmp"], "tmp2"),
        TableChange.update_column_type(["tmp2"], Types.LongType.get()),
        TableChange.set_property("x", "1"),
        TableChange.update_comment("multi"),
    )
    assert "tmp2" in names(t) and "tmp" not in names(t)
    assert col(t, "tmp2").data_type() == Types.LongType.get()
    assert t.properties()["x"] == "1"
    assert t.comment() == "multi"


def test_failed_alter_is_atomic(tables, tbl, schema_name, warehouse, api, metalake_name,
                                catalog_name):
    files_before = metadata_files(warehouse, schema_name, "t")
    with pytest.raises(IllegalArgumentException):
        tables.alter_table(tbl, TableChange.set_property("partial", "yes"),
                           add_col(["newc"], Types.LongType.get()),
                           TableChange.update_column_type(["name"], Types.IntegerType.get()))
    loaded = tables.load_table(tbl)
    assert "partial" not in loaded.properties()
    assert "newc" not in names(loaded)
    assert metadata_files(warehouse, schema_name, "t") == files_before

    r = api.put(table_path(metalake_name, catalog_name, schema_name, "t"),
                {"updates": [{"@type": "setProperty", "property": "p", "value": "v"},
                             {"@type": "noSuchUpdate", "x": 1}]})
    assert_error(r, 400, 1001)
    assert "p" not in tables.load_table(tbl).properties()


def test_raw_update_wire_format(api, tbl, metalake_name, catalog_name, schema_name):
    """The update JSON exactly as the Python client sends it (positions as strings/objects)."""
    r = api.put(table_path(metalake_name, catalog_name, schema_name, "t"), {"updates": [
        {"@type": "addColumn", "fieldName": ["n1"], "type": "long", "comment": "cm",
         "position": "first", "nullable": True, "autoIncrement": False},
        {"@type": "addColumn", "fieldName": ["n2"], "type": "long", "comment": None,
         "position": {"after": "id"}, "nullable": True, "autoIncrement": False},
        {"@type": "updateColumnPosition", "fieldName": ["amount"], "newPosition": "first"},
        {"@type": "updateColumnNullability", "fieldName": ["id"], "nullable": True},
        {"@type": "updateColumnComment", "fieldName": ["id"], "newComment": "x"},
        {"@type": "deleteColumn", "fieldName": ["nope"], "ifExists": True},
    ]})
    tbl_json = ok_json(r)["table"]
    assert [c["name"] for c in tbl_json["columns"]] == ["amount", "n1", "id", "n2", "name", "s"]


# ---------------------------------------------------------------------------------------------
# Metadata files written by create and alter
# ---------------------------------------------------------------------------------------------


def test_metadata_file_after_create(tables, tbl, schema_name, warehouse):
    files = metadata_files(warehouse, schema_name, "t")
    assert len(files) == 1
    assert seq_of(files[0]) == 0
    md = latest_metadata(warehouse, schema_name, "t")
    assert md["format-version"] == 2
    assert isinstance(md["table-uuid"], str) and len(md["table-uuid"]) == 36
    assert md["location"].rstrip("/").endswith(f"{schema_name}/t")
    assert md["current-schema-id"] == 0
    schema = current_schema(md)
    assert [f["name"] for f in schema["fields"]] == ["id", "name", "amount", "s"]
    ids = [f["id"] for f in schema["fields"]]
    assert all(isinstance(i, int) and i > 0 for i in ids)
    assert md["last-column-id"] >= max(ids) + 1  # the struct's nested field has an id too
    assert field_by_name(schema, "id")["required"] is True
    assert field_by_name(schema, "name").get("doc") == "the name"
    assert md["properties"]["k1"] == "v1"
    assert md["properties"].get("comment") in (None, "table comment")
    assert md.get("last-sequence-number", 0) == 0
    assert isinstance(md["partition-specs"], list) and md["partition-specs"]
    assert isinstance(md["sort-orders"], list) and md["sort-orders"]
    assert md.get("metadata-log", []) == []
    assert md.get("current-snapshot-id") in (None, -1)
    assert md.get("snapshots", []) == []


def test_alter_writes_new_metadata_file(tables, tbl, schema_name, warehouse):
    first = metadata_files(warehouse, schema_name, "t")[0]
    md0 = latest_metadata(warehouse, schema_name, "t")

    tables.alter_table(tbl, TableChange.set_property("k9", "v9"))
    files = metadata_files(warehouse, schema_name, "t")
    assert len(files) == 2
    assert [seq_of(f) for f in files] == [0, 1]
    assert first.exists(), "earlier metadata files are kept"
    md1 = latest_metadata(warehouse, schema_name, "t")
    assert md1["table-uuid"] == md0["table-uuid"]
    assert md1["properties"]["k9"] == "v9"
    assert md1["current-schema-id"] == md0["current-schema-id"]
    assert md1["last-updated-ms"] >= md0["last-updated-ms"]
    log = md1["metadata-log"]
    assert len(log) == 1
    assert log[0]["metadata-file"].endswith(first.name)
    assert isinstance(log[0]["timestamp-ms"], int)

    # A schema change adds a schema and bumps the current schema id and last-column-id.
    tables.alter_table(tbl, add_col(["added"], Types.LongType.get()))
    files = metadata_files(warehouse, schema_name, "t")
    assert [seq_of(f) for f in files] == [0, 1, 2]
    md2 = latest_metadata(warehouse, schema_name, "t")
    assert md2["current-schema-id"] != md0["current-schema-id"]
    assert len(md2["schemas"]) == 2
    assert md2["last-column-id"] == md1["last-column-id"] + 1
    assert field_by_name(current_schema(md2), "added")["id"] == md2["last-column-id"]
    assert [e["metadata-file"].rsplit("/", 1)[-1] for e in md2["metadata-log"]] == [
        files[0].name, files[1].name]
    assert md2["properties"]["k9"] == "v9"
