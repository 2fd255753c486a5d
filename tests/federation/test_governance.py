"""Governance data of federated objects: the front Cairn keeps a row per remote namespace and
table it has seen or made, so owners work on them as on managed objects. Created through Cairn
(Gravitino API or Iceberg REST): owned by the creator; made at the remote: no owner until one
is set; renamed through Cairn: the owner follows; dropped through Cairn: the row goes. With
`rest.check-privileges=true` ownership counts in the front's decisions."""

from __future__ import annotations

from urllib.parse import quote

from conftest import ADMIN
from test_federation import REST_TABLE, SCHEMA, unique

LONG_COLUMN = [{"name": "id", "type": "long", "nullable": True}]


def owner_path(type_: str, full_name: str) -> str:
    return f"metalakes/fed/owners/{type_}/{quote(full_name, safe='')}"


def owner_of(fed, type_: str, full_name: str):
    r = fed.api("GET", owner_path(type_, full_name))
    assert r.status_code == 200, f"owner of {type_} {full_name}: {r.status_code} {r.text[:300]}"
    return r.json().get("owner", {}).get("name")


def owner_status(fed, type_: str, full_name: str) -> int:
    return fed.api("GET", owner_path(type_, full_name)).status_code


def set_owner(fed, type_: str, full_name: str, user: str):
    r = fed.api("PUT", owner_path(type_, full_name), {"name": user, "type": "USER"})
    assert r.status_code == 200, r.text


def add_user_with(fed, catalog: str, privileges: list[str]) -> str:
    user = unique("u")
    assert fed.api("POST", "metalakes/fed/users", {"name": user}).status_code == 200
    role = unique("role")
    r = fed.api("POST", "metalakes/fed/roles", {"name": role, "properties": {}, "securableObjects": [
        {"fullName": catalog, "type": "CATALOG",
         "privileges": [{"name": p, "condition": "allow"} for p in privileges]}]})
    assert r.status_code == 200, r.text
    r = fed.api("PUT", f"metalakes/fed/permissions/users/{user}/grant", {"roleNames": [role]})
    assert r.status_code == 200, r.text
    return user


def test_objects_created_through_cairn_belong_to_their_creator(fed):
    alice = add_user_with(fed, "viaref", ["USE_CATALOG", "USE_SCHEMA", "CREATE_SCHEMA",
                                          "CREATE_TABLE"])
    # Through the Gravitino API.
    schema = unique("s")
    base = "metalakes/fed/catalogs/viaref/schemas"
    r = fed.api("POST", base, {"name": schema, "properties": {}}, user=alice)
    assert r.status_code == 200, r.text
    r = fed.api("POST", f"{base}/{schema}/tables", {"name": "g", "columns": LONG_COLUMN},
                user=alice)
    assert r.status_code == 200, r.text
    assert r.json()["table"]["audit"]["creator"] == alice
    assert owner_of(fed, "schema", f"viaref.{schema}") == alice
    assert owner_of(fed, "table", f"viaref.{schema}.g") == alice

    # Through the Iceberg REST service, with PyIceberg.
    front = fed.pyiceberg("viaref", user=alice)
    ns = unique("ns")
    front.create_namespace(ns)
    front.create_table((ns, "p"), SCHEMA)
    assert owner_of(fed, "schema", f"viaref.{ns}") == alice
    assert owner_of(fed, "table", f"viaref.{ns}.p") == alice
    # ... staged, then committed with assert-create, and registered.
    front.create_table_transaction((ns, "staged"), SCHEMA).commit_transaction()
    assert owner_of(fed, "table", f"viaref.{ns}.staged") == alice
    location = fed.reference_pyiceberg().load_table((ns, "p")).metadata_location
    front.register_table((ns, "registered"), location)
    assert owner_of(fed, "table", f"viaref.{ns}.registered") == alice

    # Dropped through Cairn (either API): the row goes with the table.
    front.drop_table((ns, "p"))
    assert owner_status(fed, "table", f"viaref.{ns}.p") == 404
    r = fed.api("DELETE", f"{base}/{schema}/tables/g", user=alice)
    assert r.status_code == 200 and r.json()["dropped"] is True, r.text
    assert owner_status(fed, "table", f"viaref.{schema}.g") == 404
    r = fed.api("DELETE", f"{base}/{schema}", user=alice)
    assert r.status_code == 200, r.text
    assert owner_status(fed, "schema", f"viaref.{schema}") == 404


def test_remote_objects_have_no_owner_until_set_and_keep_it_across_renames(fed):
    ns = unique("ns")
    remote = fed.reference_pyiceberg()
    remote.create_namespace(ns)
    remote.create_table((ns, "made_there"), SCHEMA)
    # Not seen yet: no row.
    assert owner_status(fed, "table", f"viaref.{ns}.made_there") == 404

    # First seen through Cairn (a listing): a row without owner.
    base = f"metalakes/fed/catalogs/viaref/schemas/{ns}/tables"
    r = fed.api("GET", base)
    assert [i["name"] for i in r.json()["identifiers"]] == ["made_there"], r.text
    assert owner_of(fed, "table", f"viaref.{ns}.made_there") is None
    assert owner_of(fed, "schema", f"viaref.{ns}") is None

    bob = add_user_with(fed, "viaref", ["USE_CATALOG", "USE_SCHEMA"])
    set_owner(fed, "table", f"viaref.{ns}.made_there", bob)
    assert owner_of(fed, "table", f"viaref.{ns}.made_there") == bob

    # Renamed through the Gravitino API: the owner is reported under the new name only.
    r = fed.api("PUT", f"{base}/made_there", {"updates": [{"@type": "rename",
                                                          "newName": "renamed"}]})
    assert r.status_code == 200, r.text
    assert owner_of(fed, "table", f"viaref.{ns}.renamed") == bob
    assert owner_status(fed, "table", f"viaref.{ns}.made_there") == 404
    # ... and through the Iceberg REST service, into another namespace.
    other = unique("ns")
    assert fed.rest("POST", "viaref", "namespaces", {"namespace": [other]}).status_code == 200
    r = fed.rest("POST", "viaref", "tables/rename", {
        "source": {"namespace": [ns], "name": "renamed"},
        "destination": {"namespace": [other], "name": "moved"}})
    assert r.status_code in (200, 204), r.text
    assert owner_of(fed, "table", f"viaref.{other}.moved") == bob
    assert owner_status(fed, "table", f"viaref.{ns}.renamed") == 404
    assert (other, "moved") in remote.list_tables(other)

    # A load of a table made at the remote is a first touch too.
    remote.create_table((ns, "loaded"), SCHEMA)
    r = fed.api("GET", f"{base}/loaded")
    assert r.status_code == 200, r.text
    assert owner_of(fed, "table", f"viaref.{ns}.loaded") is None
    assert fed.rest("GET", "viaref", f"namespaces/{other}/tables/moved").status_code == 200


def test_owners_count_when_the_front_checks_privileges(fed):
    ns = unique("ns")
    assert fed.rest("POST", "checked", "namespaces", {"namespace": [ns]}).status_code == 200
    privileges = ["USE_CATALOG", "USE_SCHEMA", "CREATE_TABLE"]
    alice, bob = add_user_with(fed, "checked", privileges), add_user_with(fed, "checked",
                                                                             privileges)
    for name in ("t1", "t2"):
        r = fed.rest("POST", "checked", f"namespaces/{ns}/tables", {**REST_TABLE, "name": name},
                     user=alice)
        assert r.status_code == 200, r.text
        assert owner_of(fed, "table", f"checked.{ns}.{name}") == alice

    # Another user with the same grants may not drop or change alice's table: 403 here, and the
    # remote still has it.
    r = fed.rest("DELETE", "checked", f"namespaces/{ns}/tables/t1", user=bob)
    assert r.status_code == 403, r.text
    r = fed.rest("POST", "checked", f"namespaces/{ns}/tables/t1",
                 {"requirements": [], "updates": [
                     {"action": "set-properties", "updates": {"by": bob}}]}, user=bob)
    assert r.status_code == 403, r.text
    assert (ns, "t1") in fed.remote_pyiceberg().list_tables(ns)

    # The owner may, without any grant on the table.
    r = fed.rest("POST", "checked", f"namespaces/{ns}/tables/t1",
                 {"requirements": [], "updates": [
                     {"action": "set-properties", "updates": {"by": alice}}]}, user=alice)
    assert r.status_code == 200, r.text
    r = fed.rest("DELETE", "checked", f"namespaces/{ns}/tables/t1", user=alice)
    assert r.status_code == 204, r.text
    assert (ns, "t1") not in fed.remote_pyiceberg().list_tables(ns)
    assert owner_status(fed, "table", f"checked.{ns}.t1") == 404

    # Ownership moves with PUT owners: now bob may drop t2, alice may not.
    set_owner(fed, "table", f"checked.{ns}.t2", bob)
    assert fed.rest("DELETE", "checked", f"namespaces/{ns}/tables/t2",
                    user=alice).status_code == 403
    assert fed.rest("DELETE", "checked", f"namespaces/{ns}/tables/t2",
                    user=bob).status_code == 204


def test_rows_of_objects_dropped_at_the_remote_go_at_the_next_listing(fed):
    # `checked` reaches the remote with its own token, so its listings are complete.
    ns = unique("ns")
    assert fed.rest("POST", "checked", "namespaces", {"namespace": [ns]}).status_code == 200
    remote = fed.remote_pyiceberg()
    remote.create_table((ns, "gone"), SCHEMA)
    base = f"metalakes/fed/catalogs/checked/schemas/{ns}/tables"
    assert fed.api("GET", f"{base}/gone").status_code == 200
    assert owner_of(fed, "table", f"checked.{ns}.gone") is None
    set_owner(fed, "table", f"checked.{ns}.gone", ADMIN)

    remote.drop_table((ns, "gone"))
    assert fed.api("GET", base).json()["identifiers"] == []
    assert owner_status(fed, "table", f"checked.{ns}.gone") == 404
    # A new table of the old name does not inherit the old owner.
    remote.create_table((ns, "gone"), SCHEMA)
    assert fed.api("GET", f"{base}/gone").status_code == 200
    assert owner_of(fed, "table", f"checked.{ns}.gone") is None
