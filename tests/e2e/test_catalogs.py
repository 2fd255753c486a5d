"""Catalogs (managed lakehouse-iceberg): create/load/list/alter/drop, in-use, test connection."""

import pytest

from gravitino.api.catalog_change import CatalogChange
from gravitino.api.catalog import Catalog
from gravitino.exceptions.base import (
    CatalogAlreadyExistsException,
    CatalogInUseException,
    CatalogNotInUseException,
    IllegalArgumentException,
    NoSuchCatalogException,
    NotEmptyException,
)

from helpers import (
    ILLEGAL_ARG_TYPES,
    any_metadata_under,
    assert_audit,
    assert_error,
    cat_path,
    iceberg_catalog_body,
    ok_json,
    schema_path,
    table_body,
    column,
    table_path,
    unique,
)

ICEBERG = "lakehouse-iceberg"


def _create(client, name, warehouse=None, comment="c", **props):
    p = {"catalog-backend": "managed"}
    if warehouse is not None:
        p["warehouse"] = str(warehouse)
    p.update(props)
    return client.create_catalog(name, Catalog.Type.RELATIONAL, ICEBERG, comment, p)


def test_create_and_load(client, api, metalake_name, warehouse):
    cat = _create(client, "c1", warehouse, "first", extra="x")
    assert cat.name() == "c1"
    assert cat.type() == Catalog.Type.RELATIONAL
    assert cat.provider() == ICEBERG
    assert cat.comment() == "first"
    props = cat.properties()
    assert props["warehouse"] == str(warehouse)
    assert props["extra"] == "x"
    assert props["in-use"] == "true"

    loaded = client.load_catalog("c1")
    assert loaded.name() == "c1"
    assert loaded.provider() == ICEBERG
    assert loaded.comment() == "first"
    assert loaded.properties()["extra"] == "x"
    assert loaded.properties()["in-use"] == "true"

    raw = ok_json(api.get(cat_path(metalake_name, "c1")))
    assert set(raw) == {"code", "catalog"}
    assert raw["catalog"]["type"] == "relational"
    assert raw["catalog"]["provider"] == ICEBERG
    assert_audit(raw["catalog"]["audit"])


def test_create_without_backend_and_warehouse_uses_default(client, api, metalake_name,
                                                           data_dir):
    cat = client.create_catalog("dflt", Catalog.Type.RELATIONAL, ICEBERG, None, None)
    assert cat.properties()["in-use"] == "true"
    cat.as_schemas().create_schema("s", None, None)
    r = api.post(table_path(metalake_name, "dflt", "s"),
                 table_body("t", [column("a", "integer")]))
    ok_json(r)
    default_wh = data_dir / "warehouse" / metalake_name / "dflt"
    files = any_metadata_under(default_wh / "s" / "t" / "metadata")
    assert files, f"expected metadata under the default warehouse {default_wh}"


def test_create_with_file_uri_warehouse(client, api, metalake_name, warehouse):
    _create(client, "uri", f"file://{warehouse}")
    s = client.load_catalog("uri").as_schemas()
    s.create_schema("s", None, None)
    ok_json(api.post(table_path(metalake_name, "uri", "s"),
                     table_body("t", [column("a", "integer")])))
    assert any_metadata_under(warehouse / "s" / "t" / "metadata")


def test_case_insensitive_type_on_input(api, metalake_name, warehouse):
    body = iceberg_catalog_body("upper", str(warehouse))
    body["type"] = "RELATIONAL"
    cat = ok_json(api.post(cat_path(metalake_name), body))["catalog"]
    assert cat["type"] == "relational"


def test_list_names_and_infos(client, api, metalake_name, warehouse):
    assert client.list_catalogs() == []
    assert client.list_catalogs_info() == []
    _create(client, "a1", warehouse / "a", "ca")
    _create(client, "b2", warehouse / "b", "cb", k="v")
    assert sorted(client.list_catalogs()) == ["a1", "b2"]
    infos = {c.name(): c for c in client.list_catalogs_info()}
    assert set(infos) == {"a1", "b2"}
    assert infos["b2"].comment() == "cb"
    assert infos["b2"].properties()["k"] == "v"
    assert infos["a1"].provider() == ICEBERG
    assert infos["a1"].type() == Catalog.Type.RELATIONAL

    raw = ok_json(api.get(cat_path(metalake_name)))
    assert sorted(raw["identifiers"], key=lambda i: i["name"]) == [
        {"namespace": [metalake_name], "name": "a1"},
        {"namespace": [metalake_name], "name": "b2"},
    ]
    raw = ok_json(api.get(cat_path(metalake_name), params={"details": "true"}))
    assert sorted(c["name"] for c in raw["catalogs"]) == ["a1", "b2"]
    for c in raw["catalogs"]:
        assert c["type"] == "relational"
        assert_audit(c["audit"])


def test_duplicate(client, api, metalake_name, warehouse):
    _create(client, "dup", warehouse)
    with pytest.raises(CatalogAlreadyExistsException):
        _create(client, "dup", warehouse)
    assert_error(api.post(cat_path(metalake_name), iceberg_catalog_body("dup", str(warehouse))),
                 409, 1004, "CatalogAlreadyExistsException")


def test_load_missing(client, api, metalake_name):
    with pytest.raises(NoSuchCatalogException):
        client.load_catalog("missing")
    assert_error(api.get(cat_path(metalake_name, "missing")), 404, 1003,
                 "NoSuchCatalogException")
    assert_error(api.get(cat_path(unique("nometalake"))), 404, 1003, "NoSuchMetalakeException")


def test_alter(client, api, metalake_name, warehouse):
    _create(client, "alt", warehouse, "old", keep="k", gone="g")
    cat = client.alter_catalog(
        "alt",
        CatalogChange.update_comment("new"),
        CatalogChange.set_property("added", "a"),
        CatalogChange.set_property("keep", "k2"),
        CatalogChange.remove_property("gone"),
    )
    assert cat.comment() == "new"
    assert cat.properties()["added"] == "a"
    assert cat.properties()["keep"] == "k2"
    assert "gone" not in cat.properties()
    assert cat.properties()["warehouse"] == str(warehouse)

    cat = client.alter_catalog("alt", CatalogChange.rename("alt2"))
    assert cat.name() == "alt2"
    with pytest.raises(NoSuchCatalogException):
        client.load_catalog("alt")
    loaded = client.load_catalog("alt2")
    assert loaded.comment() == "new"
    assert loaded.properties()["added"] == "a"
    raw = ok_json(api.get(cat_path(metalake_name, "alt2")))["catalog"]
    assert raw["audit"]["lastModifier"] == "anonymous"

    with pytest.raises(NoSuchCatalogException):
        client.alter_catalog("alt", CatalogChange.update_comment("x"))


def test_rename_to_existing_fails(client, warehouse):
    _create(client, "r1", warehouse / "1")
    _create(client, "r2", warehouse / "2")
    with pytest.raises(CatalogAlreadyExistsException):
        client.alter_catalog("r1", CatalogChange.rename("r2"))


def test_rename_keeps_children(client, warehouse):
    cat = _create(client, "kids", warehouse)
    cat.as_schemas().create_schema("s", None, None)
    client.alter_catalog("kids", CatalogChange.rename("kids2"))
    assert client.load_catalog("kids2").as_schemas().list_schemas() == ["s"]


def test_enable_disable(client, api, metalake_name, warehouse):
    cat = _create(client, "onoff", warehouse)
    cat.as_schemas().create_schema("s", None, None)

    client.disable_catalog("onoff")
    loaded = client.load_catalog("onoff")  # loading a disabled catalog is allowed
    assert loaded.properties()["in-use"] == "false"
    client.disable_catalog("onoff")  # idempotent

    with pytest.raises(CatalogNotInUseException):
        loaded.as_schemas().list_schemas()
    with pytest.raises(CatalogNotInUseException):
        loaded.as_schemas().load_schema("s")
    assert_error(api.get(schema_path(metalake_name, "onoff")), 409, 1009,
                 "CatalogNotInUseException")
    assert_error(api.get(table_path(metalake_name, "onoff", "s")), 409, 1009,
                 "CatalogNotInUseException")
    with pytest.raises(CatalogNotInUseException):
        client.alter_catalog("onoff", CatalogChange.update_comment("x"))

    # PATCH works the same way.
    assert ok_json(api.patch(cat_path(metalake_name, "onoff"), {"inUse": True})) == {"code": 0}
    assert client.load_catalog("onoff").properties()["in-use"] == "true"
    assert client.load_catalog("onoff").as_schemas().list_schemas() == ["s"]
    assert ok_json(api.patch(cat_path(metalake_name, "onoff"), {"inUse": False})) == {"code": 0}
    assert client.load_catalog("onoff").properties()["in-use"] == "false"
    client.enable_catalog("onoff")
    assert client.load_catalog("onoff").properties()["in-use"] == "true"

    with pytest.raises(NoSuchCatalogException):
        client.disable_catalog("missing")


def test_drop_semantics(client, api, metalake_name, warehouse):
    cat = _create(client, "d", warehouse)
    cat.as_schemas().create_schema("s", None, None)

    # In use -> 409 CatalogInUseException.
    with pytest.raises(CatalogInUseException):
        client.drop_catalog("d")
    assert_error(api.delete(cat_path(metalake_name, "d"), params={"force": "False"}), 409,
                 1010, "CatalogInUseException")

    # Disabled but has schemas -> 409 NonEmptyCatalogException.
    client.disable_catalog("d")
    with pytest.raises(NotEmptyException):
        client.drop_catalog("d")
    assert_error(api.delete(cat_path(metalake_name, "d")), 409, 1005,
                 "NonEmptyCatalogException")
    assert client.load_catalog("d").name() == "d"

    # Force drop.
    assert client.drop_catalog("d", force=True) is True
    with pytest.raises(NoSuchCatalogException):
        client.load_catalog("d")
    assert client.drop_catalog("d") is False
    assert ok_json(api.delete(cat_path(metalake_name, "d"))) == {"code": 0, "dropped": False}


def test_drop_disabled_empty_catalog(client, warehouse):
    _create(client, "e", warehouse)
    client.disable_catalog("e")
    assert client.drop_catalog("e") is True
    assert client.list_catalogs() == []


def test_force_drop_in_use_catalog_with_tables(client, api, metalake_name, warehouse):
    cat = _create(client, "f", warehouse)
    cat.as_schemas().create_schema("s", None, None)
    ok_json(api.post(table_path(metalake_name, "f", "s"),
                     table_body("t", [column("a", "integer")])))
    assert client.drop_catalog("f", force=True) is True
    assert client.list_catalogs() == []
    # Recreating the same name starts empty.
    cat = _create(client, "f", warehouse / "other")
    assert cat.as_schemas().list_schemas() == []


def test_unknown_provider(api, metalake_name, client):
    body = {"name": "np", "type": "relational", "provider": "nope", "comment": None,
            "properties": None}
    assert_error(api.post(cat_path(metalake_name), body), 400, 1001)
    with pytest.raises(IllegalArgumentException):
        client.create_catalog("np", Catalog.Type.RELATIONAL, "nope", None, None)
    assert client.list_catalogs() == []


def test_unknown_catalog_type(api, metalake_name):
    body = {"name": "nt", "type": "bogus", "provider": ICEBERG, "properties": None}
    assert_error(api.post(cat_path(metalake_name), body), 400, 1001)


def test_missing_provider_for_relational(api, metalake_name):
    body = {"name": "mp", "type": "relational", "comment": None, "properties": None}
    assert_error(api.post(cat_path(metalake_name), body), 400, 1001)


@pytest.mark.parametrize("bad", ["bad name!", "a" * 65, "system", "*", "sl/ash"])
def test_illegal_catalog_names(api, metalake_name, warehouse, bad):
    r = api.post(cat_path(metalake_name), iceberg_catalog_body(bad, str(warehouse)))
    assert_error(r, 400, 1001, ILLEGAL_ARG_TYPES)


def test_dash_is_legal_in_catalog_names(client, warehouse):
    assert _create(client, "with-dash", warehouse).name() == "with-dash"
    assert client.load_catalog("with-dash").name() == "with-dash"


def test_test_connection_proposed_config(api, metalake_name, warehouse, client):
    # POST /catalogs/testConnection with a CatalogCreateRequest (1.3.0 endpoint).
    r = api.post(cat_path(metalake_name, "testConnection"),
                 iceberg_catalog_body("probe", str(warehouse)))
    assert ok_json(r) == {"code": 0}
    assert client.list_catalogs() == [], "testConnection must not create the catalog"

    # Unknown provider: an error envelope with code 1001. Real Gravitino reports expected
    # test failures inside an HTTP 200 body; a 400 status is accepted too.
    r = api.post(cat_path(metalake_name, "testConnection"),
                 {"name": "probe", "type": "relational", "provider": "nope",
                  "properties": None})
    assert r.status_code in (200, 400), r.text
    body = r.json()
    assert body["code"] == 1001, body
    assert body.get("type") and body.get("message"), body


def test_test_connection_existing_catalog_via_client(client, warehouse):
    # GravitinoClient.test_connection(name) of the 1.3.1 client:
    # POST /catalogs/{name}/testConnection.
    _create(client, "tc", warehouse)
    client.test_connection("tc")  # raises on any non-zero code


def test_test_connection_duplicate_name(api, metalake_name, client, warehouse):
    _create(client, "exists", warehouse)
    r = api.post(cat_path(metalake_name, "testConnection"),
                 iceberg_catalog_body("exists", str(warehouse)))
    assert r.status_code in (200, 409), r.text
    assert r.json()["code"] == 1004
