"""Owners of schemas and tables of a jdbc catalog, with authorization on: objects created through
Cairn belong to their creator, objects made by hand in the source get an ownership record when
Cairn first sees them (no owner until one is set), renames through Cairn keep the owner, and
authorization decisions use these owners as for Iceberg catalogs."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest
import requests

from cairn_server import start_cairn, store_env
from helpers import CLIENT_HEADERS, unique
from jdbc_helpers import col


class User:
    def __init__(self, base: str, name: str):
        self.base = base
        self.name = name
        self.session = requests.Session()

    def call(self, method: str, path: str, body=None) -> requests.Response:
        headers = dict(CLIENT_HEADERS)
        headers["Authorization"] = "Basic " + base64.b64encode(
            f"{self.name}:dummy".encode()).decode()
        return self.session.request(method, f"{self.base}/api/{path}", headers=headers,
                                    data=None if body is None else json.dumps(body), timeout=30)

    def ok(self, method: str, path: str, body=None) -> dict:
        r = self.call(method, path, body)
        assert r.status_code == 200, f"{self.name} {method} {path}: {r.status_code} {r.text[:400]}"
        return r.json()


@pytest.fixture(scope="module")
def authz_server(tmp_path_factory):
    with store_env("cairn_jdbc_authz") as env:
        env = {**env, "CAIRN_AUTHORIZATION_ENABLE": "true",
               "CAIRN_AUTHORIZATION_SERVICE_ADMINS": "admin", "CAIRN_AUTHENTICATORS": "simple"}
        srv = start_cairn("jdbc-authz", env, tmp_path_factory.mktemp("authz-data"),
                          tmp_path_factory.getbasetemp())
        try:
            yield srv
        finally:
            srv.stop()
            srv.remove_data()


def owner_of(user: User, ml: str, type_: str, full_name: str):
    body = user.ok("GET", f"metalakes/{ml}/owners/{type_}/{quote(full_name, safe='')}")
    return body.get("owner", {}).get("name")


def test_owners_follow_objects_of_the_source(authz_server, pg):
    admin, alice, bob = (User(authz_server.url, n) for n in ("admin", "alice", "bob"))
    ml = unique("ml")
    admin.ok("POST", "metalakes", {"name": ml, "properties": {}})
    cat = "pgcat"
    admin.ok("POST", f"metalakes/{ml}/catalogs", pg.catalog_body(cat))
    for u in ("alice", "bob"):
        admin.ok("POST", f"metalakes/{ml}/users", {"name": u})
    admin.ok("POST", f"metalakes/{ml}/roles", {
        "name": "creators", "properties": {},
        "securableObjects": [{"fullName": cat, "type": "CATALOG", "privileges": [
            {"name": "USE_CATALOG", "condition": "allow"},
            {"name": "CREATE_SCHEMA", "condition": "allow"}]}]})
    admin.ok("PUT", f"metalakes/{ml}/permissions/users/alice/grant", {"roleNames": ["creators"]})

    schema = unique("s")
    base = f"metalakes/{ml}/catalogs/{cat}/schemas"
    alice.ok("POST", base, {"name": schema, "comment": "alice's"})
    assert owner_of(admin, ml, "schema", f"{cat}.{schema}") == "alice"

    # the schema owner creates a table in it: the table is hers
    alice.ok("POST", f"{base}/{schema}/tables", {"name": "t", "columns": [col("id", "integer")]})
    assert owner_of(admin, ml, "table", f"{cat}.{schema}.t") == "alice"
    assert pg.query(f"SELECT count(*) FROM pg_tables WHERE schemaname = '{schema}'") == [["1"]]

    # bob has no privileges: denied before anything reaches the source
    r = bob.call("GET", f"{base}/{schema}/tables/t")
    assert r.status_code == 403, r.text
    r = bob.call("POST", f"{base}/{schema}/tables", {"name": "b", "columns": [col("x", "integer")]})
    assert r.status_code == 403, r.text
    assert pg.query(f"SELECT count(*) FROM pg_tables WHERE schemaname = '{schema}'") == [["1"]]

    # a rename through Cairn keeps the owner
    alice.ok("PUT", f"{base}/{schema}/tables/t", {"updates": [{"@type": "rename",
                                                               "newName": "t2"}]})
    assert owner_of(admin, ml, "table", f"{cat}.{schema}.t2") == "alice"

    # made by hand: no owner until one is set, after Cairn has seen it
    pg.exec(f'CREATE TABLE "{schema}".hand (id int)')
    listed = alice.ok("GET", f"{base}/{schema}/tables")["identifiers"]
    assert sorted(i["name"] for i in listed) == ["hand", "t2"]
    alice.ok("GET", f"{base}/{schema}/tables/hand")
    assert owner_of(admin, ml, "table", f"{cat}.{schema}.hand") is None
    admin.ok("PUT", f"metalakes/{ml}/owners/table/{cat}.{schema}.hand",
             {"name": "bob", "type": "USER"})
    assert owner_of(admin, ml, "table", f"{cat}.{schema}.hand") == "bob"
    # bob owns the table but still needs USE_CATALOG/USE_SCHEMA to reach it
    assert bob.call("GET", f"{base}/{schema}/tables/hand").status_code == 403

    # dropped by hand and made again by hand: the old owner does not stick to the new table
    pg.exec(f'DROP TABLE "{schema}".hand')
    alice.ok("GET", f"{base}/{schema}/tables")
    pg.exec(f'CREATE TABLE "{schema}".hand (id int)')
    alice.ok("GET", f"{base}/{schema}/tables/hand")
    assert owner_of(admin, ml, "table", f"{cat}.{schema}.hand") is None

    # a schema dropped by hand and created again through Cairn belongs to its new creator
    other = unique("s")
    alice.ok("POST", base, {"name": other})
    admin.ok("PUT", f"metalakes/{ml}/owners/schema/{cat}.{other}", {"name": "bob", "type": "USER"})
    assert owner_of(admin, ml, "schema", f"{cat}.{other}") == "bob"
    pg.exec(f'DROP SCHEMA "{other}"')
    alice.ok("POST", base, {"name": other})
    assert owner_of(admin, ml, "schema", f"{cat}.{other}") == "alice"

    alice.ok("DELETE", f"{base}/{schema}/tables/t2")
    r = admin.call("GET", f"metalakes/{ml}/owners/table/{cat}.{schema}.t2")
    assert r.status_code == 404, r.text
    admin.call("DELETE", f"metalakes/{ml}?force=true")
