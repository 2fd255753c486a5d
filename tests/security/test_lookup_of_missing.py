"""Lookups of names that do not exist, on the Iceberg REST interface.

A caller who may use the schema gets 404 for a table or view that is not there (engines look
every table name up as a view first, and a reader of tables must hear "no such view" to go on),
and 403 for one that exists but that it may not read. A caller who may not use the schema gets
403 either way, so a denial tells it nothing about which names exist.
"""

from __future__ import annotations

from sec_helpers import (Admin, Principal, create_catalog, create_metalake, iceberg_table_body,
                         iceberg_view_body, sobj, unique)


def test_missing_names_to_readers_and_to_strangers(authz_server, admin, tmp_path):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path / "wh")
    wh = f"{ml}.{cat}"
    assert admin.rest("POST", wh, "namespaces", {"namespace": ["s"]}).status_code == 200
    assert admin.rest("POST", wh, "namespaces/s/tables", iceberg_table_body("t")).status_code == 200
    assert admin.rest("POST", wh, "namespaces/s/views",
                      iceberg_view_body("v", "s")).status_code == 200
    a = Admin(admin, ml)
    a.user_with("tables_reader", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA",
                                       "SELECT_TABLE")])
    a.user_with("catalog_only", [sobj("CATALOG", cat, "USE_CATALOG")])
    reader = Principal(authz_server.url, "tables_reader")
    no_schema = Principal(authz_server.url, "catalog_only")
    stranger = Principal(authz_server.url, unique("stranger"))

    # The reader: the table loads; "t" is no view (404, as Trino needs); a missing name is 404
    # as a table and as a view; the view that exists is denied.
    assert reader.rest("GET", wh, "namespaces/s/tables/t").status_code == 200
    r = reader.rest("GET", wh, "namespaces/s/views/t")
    assert r.status_code == 404, r.text
    assert r.json()["error"]["type"] == "NoSuchViewException"
    r = reader.rest("GET", wh, "namespaces/s/tables/nope")
    assert r.status_code == 404 and r.json()["error"]["type"] == "NoSuchTableException", r.text
    assert reader.rest("HEAD", wh, "namespaces/s/views/nope").status_code == 404
    assert reader.rest("HEAD", wh, "namespaces/s/views/v").status_code == 403
    r = reader.rest("GET", wh, "namespaces/s/views/v")
    assert r.status_code == 403 and r.json()["error"]["type"] == "ForbiddenException", r.text

    # Writes stay denied whether the name exists or not.
    assert reader.rest("DELETE", wh, "namespaces/s/views/nope").status_code == 403
    assert reader.rest("DELETE", wh, "namespaces/s/tables/nope").status_code == 403

    # Who may not use the schema learns nothing: 403 for names that exist and names that don't.
    for who in (no_schema, stranger):
        for path in ("tables/t", "tables/nope", "views/v", "views/nope", "views/t"):
            r = who.rest("GET", wh, f"namespaces/s/{path}")
            assert r.status_code == 403, (who.user, path, r.status_code, r.text)
            assert who.rest("HEAD", wh, f"namespaces/s/{path}").status_code == 403
