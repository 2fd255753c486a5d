"""Views on the Gravitino API (views.yaml; its 1.3 Python client has no view API, so plain HTTP)
over the same Iceberg views the Iceberg REST service keeps: a view created on one interface is
the same view on the other at once; list, load, alter (rename, properties, replace) and drop;
and bad input is a 400 naming the field (docs/views.md)."""

import time

import requests

from helpers import assert_error, ok_json

ICEBERG_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


def view_body(name, sql="SELECT 1 AS id", dialect="trino", **extra):
    body = {"name": name, "comment": "a view",
            "columns": [{"name": "id", "type": "long", "nullable": True, "comment": "the id"}],
            "representations": [{"type": "sql", "dialect": dialect, "sql": sql}],
            "defaultCatalog": None, "defaultSchema": None, "properties": {"owner": "bi"}}
    body.update(extra)
    return body


def iceberg(base_url, metalake, catalog, method, path, body=None):
    url = f"{base_url}/iceberg/v1/{metalake}.{catalog}/{path.lstrip('/')}"
    return requests.request(method, url, json=body, headers=ICEBERG_HEADERS, timeout=30)


def test_a_view_is_the_same_on_both_interfaces(api, base_url, metalake_name, catalog_name,
                                               schema_name):
    base = f"metalakes/{metalake_name}/catalogs/{catalog_name}/schemas/{schema_name}/views"
    created = ok_json(api.post(base, view_body("daily", defaultSchema=schema_name)))["view"]
    assert created["name"] == "daily" and created["comment"] == "a view"
    assert created["representations"] == [{"type": "sql", "dialect": "trino",
                                           "sql": "SELECT 1 AS id"}]
    assert [(c["name"], c["type"], c.get("comment")) for c in created["columns"]] == [
        ("id", "long", "the id")]
    assert created["properties"] == {"owner": "bi"}
    assert created["audit"]["creator"] == "anonymous"
    assert ok_json(api.get(base))["identifiers"] == [
        {"namespace": [metalake_name, catalog_name, schema_name], "name": "daily"}]

    # The Iceberg REST service serves it as an Iceberg view, with its schema and SQL.
    r = iceberg(base_url, metalake_name, catalog_name, "GET",
                f"namespaces/{schema_name}/views/daily")
    assert r.status_code == 200, r.text
    meta = r.json()["metadata"]
    version = next(v for v in meta["versions"] if v["version-id"] == meta["current-version-id"])
    assert version["representations"] == [{"type": "sql", "sql": "SELECT 1 AS id",
                                           "dialect": "trino"}]
    assert version["default-namespace"] == [schema_name]
    assert meta["properties"]["comment"] == "a view"
    assert [f["name"] for f in meta["schemas"][0]["fields"]] == ["id"]

    # A view made through Iceberg REST is loadable through /api at once.
    r = iceberg(base_url, metalake_name, catalog_name, "POST", f"namespaces/{schema_name}/views", {
        "name": "from_rest",
        "schema": {"type": "struct", "schema-id": 0,
                   "fields": [{"id": 1, "name": "n", "required": False, "type": "string"}]},
        "view-version": {"version-id": 1, "timestamp-ms": int(time.time() * 1000), "schema-id": 0,
                         "summary": {"engine-name": "spark"}, "default-namespace": [schema_name],
                         "representations": [{"type": "sql", "sql": "SELECT 'x' AS n",
                                              "dialect": "spark"}]},
        "properties": {"k": "v"}})
    assert r.status_code == 200, r.text
    loaded = ok_json(api.get(f"{base}/from_rest"))["view"]
    assert loaded["representations"] == [{"type": "sql", "dialect": "spark", "sql": "SELECT 'x' AS n"}]
    assert [(c["name"], c["type"]) for c in loaded["columns"]] == [("n", "string")]
    assert loaded["properties"] == {"k": "v"} and loaded["comment"] is None
    assert sorted(i["name"] for i in ok_json(api.get(base))["identifiers"]) == ["daily", "from_rest"]


def test_alter_and_drop_views(api, base_url, metalake_name, catalog_name, schema_name):
    base = f"metalakes/{metalake_name}/catalogs/{catalog_name}/schemas/{schema_name}/views"
    ok_json(api.post(base, view_body("v1")))
    altered = ok_json(api.put(f"{base}/v1", {"updates": [
        {"@type": "replaceView", "representations": [
            {"type": "sql", "dialect": "trino", "sql": "SELECT 2 AS id, 'a' AS n"}],
         "columns": [{"name": "id", "type": "long", "nullable": True},
                     {"name": "n", "type": "string", "nullable": True}],
         "defaultCatalog": catalog_name, "defaultSchema": schema_name, "comment": "replaced"},
        {"@type": "setProperty", "property": "tier", "value": "gold"},
        {"@type": "removeProperty", "property": "owner"},
        {"@type": "rename", "newName": "v2"}]}))["view"]
    assert altered["name"] == "v2" and altered["comment"] == "replaced"
    assert altered["representations"][0]["sql"] == "SELECT 2 AS id, 'a' AS n"
    assert [c["name"] for c in altered["columns"]] == ["id", "n"]
    assert altered["defaultCatalog"] == catalog_name and altered["defaultSchema"] == schema_name
    assert altered["properties"] == {"tier": "gold"}
    assert_error(api.get(f"{base}/v1"), 404, 1003, "NoSuchViewException")
    # Iceberg keeps the history: the replaced body is a second view version.
    r = iceberg(base_url, metalake_name, catalog_name, "GET", f"namespaces/{schema_name}/views/v2")
    assert r.status_code == 200, r.text
    meta = r.json()["metadata"]
    assert meta["current-version-id"] == 2 and len(meta["versions"]) == 2

    # Dropping the last representation of a dialect is refused (Iceberg's rule), nothing changes.
    assert_error(api.put(f"{base}/v2", {"updates": [{"@type": "replaceView", "representations": [
        {"type": "sql", "dialect": "spark", "sql": "SELECT 3 AS id"}]}]}), 400, 1001)
    assert ok_json(api.get(f"{base}/v2"))["view"]["representations"][0]["dialect"] == "trino"

    assert ok_json(api.delete(f"{base}/v2")) == {"code": 0, "dropped": True}
    assert ok_json(api.delete(f"{base}/v2")) == {"code": 0, "dropped": False}
    r = iceberg(base_url, metalake_name, catalog_name, "GET", f"namespaces/{schema_name}/views/v2")
    assert r.status_code == 404, r.text


def test_bad_view_requests_are_clear_errors(api, metalake_name, catalog_name, schema_name,
                                            tables):
    from gravitino import NameIdentifier
    from gravitino.api.rel.column import Column
    from gravitino.api.rel.types.types import Types

    base = f"metalakes/{metalake_name}/catalogs/{catalog_name}/schemas/{schema_name}/views"
    ok_json(api.post(base, view_body("kept")))
    tables.create_table(NameIdentifier.of(schema_name, "tbl"), [Column.of("id", Types.LongType.get())])
    bad = [
        ({"representations": [{"type": "sql", "dialect": "trino", "sql": "SELECT 1"}]}, "name"),
        (view_body("a/b"), "name"),
        (view_body(".."), "name"),
        (view_body("x", representations=[]), "representations"),
        (view_body("x", representations=[{"type": "python", "dialect": "x", "sql": "1"}]),
         "representations[0]"),
        (view_body("x", representations=[{"type": "sql", "sql": "SELECT 1"}]), "dialect"),
        (view_body("x", columns=[{"name": "id", "type": "nope"}]), "'id'"),
        (view_body("x", properties={"k": 1}), "properties"),
    ]
    for body, field in bad:
        err = assert_error(api.post(base, body), 400, 1001)
        assert field in err["message"], (body, err)
    assert_error(api.post(base, view_body("kept")), 409, 1004, "ViewAlreadyExistsException")
    assert_error(api.post(base, view_body("tbl")), 409, 1004, "ViewAlreadyExistsException")
    for body, field in (({"updates": []}, "updates"), ({"updates": [{"@type": "nope"}]}, "updates[0]"),
                        ({"updates": [{"@type": "rename"}]}, "newName")):
        err = assert_error(api.put(f"{base}/kept", body), 400, 1001)
        assert field in err["message"], (body, err)
    assert_error(api.get(f"{base}/nope"), 404, 1003, "NoSuchViewException")
    assert [i["name"] for i in ok_json(api.get(base))["identifiers"]] == ["kept"]
