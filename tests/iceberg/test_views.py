"""Views: create, load, replace, list, drop (PyIceberg where it has the call, else HTTP)."""

from __future__ import annotations

import pytest
from pyiceberg.exceptions import NoSuchViewError, ViewAlreadyExistsError
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType
from pyiceberg.view.metadata import SQLViewRepresentation, ViewVersion

from ice_helpers import assert_iceberg_error

VIEW_SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                     NestedField(2, "name", StringType(), required=False))


def version(ns: str, sql: str) -> ViewVersion:
    return ViewVersion(
        version_id=1, schema_id=0, summary={"engine-name": "pytest"},
        representations=[SQLViewRepresentation(type="sql", sql=sql, dialect="spark")],
        default_namespace=[ns])


def test_view_lifecycle(ice, catalog, ns):
    ident = (ns, "v1")
    assert catalog.list_views(ns) == []
    assert not catalog.view_exists(ident)

    view = catalog.create_view(ident, VIEW_SCHEMA, version(ns, "SELECT id, name FROM t"),
                               properties={"comment": "first"})
    assert view.name() == ident
    assert catalog.view_exists(ident)
    assert catalog.list_views(ns) == [ident]
    loaded = catalog.load_view(ident)
    assert [f.name for f in loaded.schema().fields] == ["id", "name"]
    rep = loaded.current_version().representations[0].root
    assert rep.sql == "SELECT id, name FROM t" and rep.dialect == "spark"
    assert loaded.properties.get("comment") == "first"
    view_uuid = str(loaded.uuid())

    with pytest.raises(ViewAlreadyExistsError):
        catalog.create_view(ident, VIEW_SCHEMA, version(ns, "SELECT 1"))

    # replace (PyIceberg has no replace call): add a version and make it current
    r = ice.rest("GET", ice.view_path(ns, "v1"))
    assert r.status_code == 200, r.text
    meta = r.json()["metadata"]
    assert meta["view-uuid"] == view_uuid
    first_location = r.json()["metadata-location"]
    new_version = {
        "version-id": meta["current-version-id"] + 1,
        "schema-id": meta["versions"][0]["schema-id"],
        "timestamp-ms": 1_700_000_000_000,
        "summary": {"engine-name": "pytest"},
        "representations": [{"type": "sql", "sql": "SELECT id FROM t WHERE id > 1",
                             "dialect": "spark"}],
        "default-namespace": [ns],
    }
    r = ice.rest("POST", ice.view_path(ns, "v1"), {
        "requirements": [{"type": "assert-view-uuid", "uuid": view_uuid}],
        "updates": [{"action": "add-view-version", "view-version": new_version},
                    {"action": "set-current-view-version", "view-version-id": -1},
                    {"action": "set-properties", "updates": {"comment": "second"}}]})
    assert r.status_code == 200, r.text
    assert r.json()["metadata-location"] != first_location

    replaced = catalog.load_view(ident)
    assert replaced.current_version().representations[0].root.sql == \
        "SELECT id FROM t WHERE id > 1"
    assert len(replaced.versions) == 2
    assert replaced.properties.get("comment") == "second"
    assert [h.version_id for h in replaced.history()][-1] == replaced.current_version().version_id

    # a failed view requirement changes nothing
    r = ice.rest("POST", ice.view_path(ns, "v1"), {
        "requirements": [{"type": "assert-view-uuid",
                          "uuid": "00000000-0000-0000-0000-000000000000"}],
        "updates": [{"action": "set-properties", "updates": {"comment": "third"}}]})
    assert_iceberg_error(r, 409, "CommitFailedException")
    assert catalog.load_view(ident).properties.get("comment") == "second"

    # a second view, and rename over HTTP
    catalog.create_view((ns, "v2"), VIEW_SCHEMA, version(ns, "SELECT 2"))
    assert sorted(catalog.list_views(ns)) == [(ns, "v1"), (ns, "v2")]
    r = ice.rest("POST", "views/rename", {
        "source": {"namespace": [ns], "name": "v2"},
        "destination": {"namespace": [ns], "name": "v3"}})
    assert r.status_code in (200, 204), r.text
    assert sorted(catalog.list_views(ns)) == [(ns, "v1"), (ns, "v3")]

    # Dropping a view deletes its metadata files, the replaced version's too, and only its own.
    def local(location):
        from pathlib import Path
        return Path(location.removeprefix("file://").removeprefix("file:"))
    second_location = ice.rest("GET", ice.view_path(ns, "v1")).json()["metadata-location"]
    other_location = ice.rest("GET", ice.view_path(ns, "v3")).json()["metadata-location"]
    assert local(first_location).exists() and local(second_location).exists()
    stranger = local(second_location).parent / "00009-notes.metadata.json"
    stranger.write_text('{"view-uuid": "someone-else"}')
    catalog.drop_view(ident)
    assert not local(first_location).exists() and not local(second_location).exists()
    assert stranger.exists()
    assert local(other_location).exists()
    assert not catalog.view_exists(ident)
    with pytest.raises(NoSuchViewError):
        catalog.load_view(ident)
    with pytest.raises(NoSuchViewError):
        catalog.drop_view(ident)
    assert catalog.list_views(ns) == [(ns, "v3")]


def test_a_view_with_gc_disabled_keeps_its_file_and_registers_again(ice, catalog, ns):
    ident = (ns, "kept")
    catalog.create_view(ident, VIEW_SCHEMA, version(ns, "SELECT 1"),
                        properties={"gc.enabled": "false"})
    location = ice.rest("GET", ice.view_path(ns, "kept")).json()["metadata-location"]
    catalog.drop_view(ident)
    r = ice.rest("POST", f"namespaces/{ns}/register-view",
                 {"name": "kept", "metadata-location": location})
    assert r.status_code == 200, r.text
    assert catalog.load_view(ident).properties.get("gc.enabled") == "false"


def test_view_errors_over_http(ice, catalog, ns):
    r = ice.rest("GET", ice.view_path(ns, "nope"))
    err = assert_iceberg_error(r, 404, "NoSuchViewException")
    assert err["message"] == f"View does not exist: {ns}.nope"

    # a view and a table cannot share a name
    catalog.create_table((ns, "tv"), VIEW_SCHEMA)
    with pytest.raises(ViewAlreadyExistsError):
        catalog.create_view((ns, "tv"), VIEW_SCHEMA, version(ns, "SELECT 1"))
    catalog.create_view((ns, "vt"), VIEW_SCHEMA, version(ns, "SELECT 1"))
    r = ice.rest("POST", f"namespaces/{ns}/tables", {
        "name": "vt", "schema": {"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": False, "type": "long"}]}})
    err = assert_iceberg_error(r, 409, "AlreadyExistsException")
    assert "vt" in err["message"]


def test_staged_create_over_view_is_409(ice, catalog, ns):
    """The commit of a create transaction (assert-create) for a name a view took meanwhile:
    409 AlreadyExistsException (RCK createTableViaTransactionThatAlreadyExistsAsView)."""
    r = ice.rest("POST", f"namespaces/{ns}/tables", {
        "name": "late", "stage-create": True, "schema": {"type": "struct", "schema-id": 0,
                                                         "fields": [{"id": 1, "name": "id",
                                                                     "required": False,
                                                                     "type": "long"}]}})
    assert r.status_code == 200, r.text
    staged = r.json()["metadata"]
    assert not catalog.table_exists((ns, "late"))
    catalog.create_view((ns, "late"), VIEW_SCHEMA, version(ns, "SELECT 1"))
    r = ice.rest("POST", ice.table_path(ns, "late"), {
        "identifier": {"namespace": [ns], "name": "late"},
        "requirements": [{"type": "assert-create"}],
        "updates": [
            {"action": "assign-uuid", "uuid": staged["table-uuid"]},
            {"action": "upgrade-format-version", "format-version": 2},
            {"action": "add-schema", "schema": staged["schemas"][0]},
            {"action": "set-current-schema", "schema-id": -1},
            {"action": "add-spec", "spec": {"spec-id": 0, "fields": []}},
            {"action": "set-default-spec", "spec-id": -1},
            {"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}},
            {"action": "set-default-sort-order", "sort-order-id": -1},
            {"action": "set-location", "location": staged["location"]},
        ]})
    err = assert_iceberg_error(r, 409, "AlreadyExistsException")
    assert err["message"].startswith(f"View with same name already exists: {ns}.late"), err
    assert catalog.view_exists((ns, "late"))
    assert not catalog.table_exists((ns, "late"))
