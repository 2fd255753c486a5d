"""Schemas (Iceberg namespaces) in a managed lakehouse-iceberg catalog."""

import pytest

from gravitino import NameIdentifier, SchemaChange
from gravitino.namespace import Namespace
from gravitino.exceptions.base import (
    IllegalArgumentException,
    NoSuchCatalogException,
    NoSuchSchemaException,
    NonEmptySchemaException,
    SchemaAlreadyExistsException,
)

from helpers import (
    assert_audit,
    assert_error,
    column,
    ok_json,
    schema_path,
    table_body,
    table_path,
)


def test_create_load_list(catalog, api, metalake_name, catalog_name):
    schemas = catalog.as_schemas()
    assert schemas.list_schemas() == []
    s = schemas.create_schema("s1", "first schema", {"a": "1"})
    assert s.name() == "s1"
    assert s.comment() == "first schema"
    assert s.properties().get("a") == "1"
    assert s.audit_info().creator() == "anonymous"
    schemas.create_schema("s2", None, None)

    loaded = schemas.load_schema("s1")
    assert loaded.name() == "s1"
    assert loaded.comment() == "first schema"
    assert loaded.properties().get("a") == "1"
    assert sorted(schemas.list_schemas()) == ["s1", "s2"]

    raw = ok_json(api.get(schema_path(metalake_name, catalog_name)))
    assert sorted(raw["identifiers"], key=lambda i: i["name"]) == [
        {"namespace": [metalake_name, catalog_name], "name": "s1"},
        {"namespace": [metalake_name, catalog_name], "name": "s2"},
    ]
    raw = ok_json(api.get(schema_path(metalake_name, catalog_name, "s1")))
    assert set(raw) == {"code", "schema"}
    assert raw["schema"]["name"] == "s1"
    assert_audit(raw["schema"]["audit"])
    raw2 = ok_json(api.get(schema_path(metalake_name, catalog_name, "s2")))["schema"]
    assert raw2.get("comment") is None


def test_schema_without_comment_roundtrip(catalog):
    s = catalog.as_schemas().create_schema("nc", None, {})
    assert s.comment() is None
    assert catalog.as_schemas().load_schema("nc").comment() is None


def test_duplicate(catalog, api, metalake_name, catalog_name):
    catalog.as_schemas().create_schema("dup", None, None)
    with pytest.raises(SchemaAlreadyExistsException):
        catalog.as_schemas().create_schema("dup", None, None)
    assert_error(api.post(schema_path(metalake_name, catalog_name), {"name": "dup"}), 409, 1004,
                 "SchemaAlreadyExistsException")


def test_load_missing(catalog, api, metalake_name, catalog_name, client):
    with pytest.raises(NoSuchSchemaException):
        catalog.as_schemas().load_schema("missing")
    assert_error(api.get(schema_path(metalake_name, catalog_name, "missing")), 404, 1003,
                 "NoSuchSchemaException")
    assert_error(api.get(schema_path(metalake_name, "nocat")), 404, 1003,
                 "NoSuchCatalogException")
    assert_error(api.get(schema_path(metalake_name, "nocat", "s")), 404, 1003,
                 "NoSuchCatalogException")


def test_missing_catalog_via_client(catalog, client):
    cat = client.load_catalog(catalog.name())
    client.disable_catalog(catalog.name())
    client.drop_catalog(catalog.name())
    with pytest.raises(NoSuchCatalogException):
        cat.as_schemas().list_schemas()


def test_alter_properties(catalog, api, metalake_name, catalog_name):
    schemas = catalog.as_schemas()
    schemas.create_schema("alt", "c", {"keep": "k", "gone": "g"})
    s = schemas.alter_schema(
        "alt",
        SchemaChange.set_property("added", "a"),
        SchemaChange.set_property("keep", "k2"),
        SchemaChange.remove_property("gone"),
        SchemaChange.remove_property("never-existed"),
    )
    assert s.properties().get("added") == "a"
    assert s.properties().get("keep") == "k2"
    assert "gone" not in s.properties()
    loaded = schemas.load_schema("alt")
    assert loaded.properties().get("added") == "a"
    assert loaded.properties().get("keep") == "k2"
    assert "gone" not in loaded.properties()
    assert loaded.comment() == "c"

    with pytest.raises(NoSuchSchemaException):
        schemas.alter_schema("missing", SchemaChange.set_property("a", "b"))

    # Schemas have no rename/comment updates.
    r = api.put(schema_path(metalake_name, catalog_name, "alt"),
                {"updates": [{"@type": "rename", "newName": "x"}]})
    assert_error(r, 400, 1001)


def test_drop(catalog):
    schemas = catalog.as_schemas()
    schemas.create_schema("d", None, None)
    assert schemas.drop_schema("d", False) is True
    assert schemas.list_schemas() == []
    with pytest.raises(NoSuchSchemaException):
        schemas.load_schema("d")
    assert schemas.drop_schema("d", False) is False
    assert schemas.drop_schema("d", True) is False


def test_drop_non_empty_schema(catalog, api, metalake_name, catalog_name):
    schemas = catalog.as_schemas()
    schemas.create_schema("ne", None, None)
    ok_json(api.post(table_path(metalake_name, catalog_name, "ne"),
                     table_body("t", [column("a", "integer")])))

    with pytest.raises(NonEmptySchemaException):
        schemas.drop_schema("ne", False)
    r = api.delete(schema_path(metalake_name, catalog_name, "ne"), params={"cascade": "False"})
    assert_error(r, 409, 1005, "NonEmptySchemaException")
    assert schemas.load_schema("ne").name() == "ne"
    tables = catalog.as_table_catalog()
    assert tables.load_table(NameIdentifier.of("ne", "t")).name() == "t"


def test_drop_cascade(catalog, api, metalake_name, catalog_name, warehouse):
    """cascade=True: Cairn drops the tables with the schema. Real Gravitino's Iceberg catalog
    rejects cascading drops with 400 instead; both are accepted, but the result must be
    consistent with the answer."""
    schemas = catalog.as_schemas()
    schemas.create_schema("cas", None, None)
    for t in ("t1", "t2"):
        ok_json(api.post(table_path(metalake_name, catalog_name, "cas"),
                         table_body(t, [column("a", "integer")])))
    try:
        dropped = schemas.drop_schema("cas", True)
    except IllegalArgumentException:
        assert schemas.load_schema("cas").name() == "cas"
        assert len(catalog.as_table_catalog().list_tables(
            Namespace.of("cas"))) == 2
        return
    assert dropped is True
    assert schemas.list_schemas() == []
    with pytest.raises(NoSuchSchemaException):
        schemas.load_schema("cas")
    assert_error(api.get(table_path(metalake_name, catalog_name, "cas", "t1")), 404, 1003)
    # Recreating the schema gives an empty one.
    schemas.create_schema("cas", None, None)
    assert ok_json(api.get(table_path(metalake_name, catalog_name, "cas")))["identifiers"] == []


def test_schema_names_with_dash_and_underscore(catalog):
    schemas = catalog.as_schemas()
    for n in ("with-dash", "under_score"):
        schemas.create_schema(n, None, None)
        assert schemas.load_schema(n).name() == n
    assert sorted(schemas.list_schemas()) == sorted(["with-dash", "under_score"])


def test_create_schema_missing_name(api, metalake_name, catalog_name, catalog):
    assert_error(api.post(schema_path(metalake_name, catalog_name), {"comment": "x"}), 400, 1001)
