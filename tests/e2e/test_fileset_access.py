"""Fileset privileges with authorization on: CREATE_FILESET, READ_FILESET, WRITE_FILESET and
ownership, over plain HTTP and through the official Python client, with the files checked on
disk after every refusal. One server of its own (simple authentication, authorization on,
service admin `admin`) on the store chosen by CAIRN_E2E_STORE."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

import pytest
import requests

from gravitino import Fileset, FilesetChange, GravitinoClient, NameIdentifier
from gravitino.auth.auth_data_provider import AuthDataProvider
from gravitino.exceptions.base import ForbiddenException
from gravitino.namespace import Namespace

from cairn_server import running_cairn, store_env
from helpers import CLIENT_HEADERS, unique

ADMIN = "admin"


@pytest.fixture(scope="module")
def authz_server(tmp_path_factory):
    with store_env("cairn_fileset_authz") as env:
        env = {**env, "CAIRN_AUTHORIZATION_ENABLE": "true",
               "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN, "CAIRN_AUTHENTICATORS": "simple"}
        with running_cairn("fileset-authz", env, tmp_path_factory.mktemp("data-fileset-authz"),
                           tmp_path_factory.getbasetemp()) as srv:
            yield srv


class User:
    def __init__(self, base: str, name: str):
        self.base = base
        self.name = name
        self.auth = "Basic " + base64.b64encode(f"{name}:dummy".encode()).decode()

    def call(self, method: str, path: str, body=None, params=None) -> requests.Response:
        headers = dict(CLIENT_HEADERS)
        headers["Authorization"] = self.auth
        return requests.request(method, f"{self.base}/api/{path}", headers=headers, params=params,
                                data=json.dumps(body) if body is not None else None, timeout=30)

    def ok(self, method: str, path: str, body=None, params=None) -> dict:
        r = self.call(method, path, body, params)
        assert r.status_code == 200, f"{self.name}: {method} {path}: {r.status_code} {r.text[:300]}"
        return r.json()

    def client(self, metalake: str) -> GravitinoClient:
        auth = self.auth

        class Provider(AuthDataProvider):
            def has_token_data(self):
                return True

            def get_token_data(self):
                return auth.encode()

            def close(self):
                pass

        return GravitinoClient(uri=self.base, metalake_name=metalake, auth_data_provider=Provider())


def obj(type_: str, full_name: str, *privileges: str, deny: bool = False) -> dict:
    return {"fullName": full_name, "type": type_,
            "privileges": [{"name": p, "condition": "deny" if deny else "allow"}
                           for p in privileges]}


class World:
    """A metalake owned by `admin` with fileset catalog `cat` (root `root`), schema `s` and
    managed filesets f1, f2, and users holding one role each."""

    def __init__(self, server, root: Path):
        self.admin = User(server.url, ADMIN)
        self.base = server.url
        self.ml = unique("ml")
        self.cat = unique("fcat")
        self.root = root
        self.admin.ok("POST", "metalakes", {"name": self.ml, "comment": None, "properties": {}})
        self.admin.ok("POST", f"metalakes/{self.ml}/catalogs",
                      {"name": self.cat, "type": "fileset", "provider": "fileset", "comment": "files",
                       "properties": {"location": str(root)}})
        self.admin.ok("POST", self.schemas(), {"name": "s", "properties": {}})
        for f in ("f1", "f2"):
            self.admin.ok("POST", self.filesets(), {"name": f, "type": "managed"})

    def schemas(self) -> str:
        return f"metalakes/{self.ml}/catalogs/{self.cat}/schemas"

    def filesets(self, name: str = "", tail: str = "") -> str:
        p = f"{self.schemas()}/s/filesets"
        return p + (f"/{name}" if name else "") + (f"/{tail}" if tail else "")

    def fn(self, *parts: str) -> str:
        return ".".join((self.cat, *parts))

    def user(self, name: str, objects: list[dict]) -> User:
        self.admin.ok("POST", f"metalakes/{self.ml}/users", {"name": name})
        if objects:
            role = unique("r")
            self.admin.ok("POST", f"metalakes/{self.ml}/roles",
                          {"name": role, "properties": {}, "securableObjects": objects})
            self.admin.ok("PUT", f"metalakes/{self.ml}/permissions/users/{name}/grant",
                          {"roleNames": [role]})
        return User(self.base, name)

    def usage(self, *schema_privileges: str) -> list[dict]:
        """USE_CATALOG and USE_SCHEMA, plus `schema_privileges` on schema `s`."""
        return [obj("catalog", self.fn(), "USE_CATALOG"),
                obj("schema", self.fn("s"), "USE_SCHEMA", *schema_privileges)]

    def visible(self, u: User) -> list[str]:
        body = u.ok("GET", self.filesets())
        return sorted(i["name"] for i in body["identifiers"])

    def disk(self) -> list[str]:
        return sorted(str(p.relative_to(self.root)) for p in self.root.rglob("*"))


@pytest.fixture
def world(authz_server, tmp_path) -> World:
    return World(authz_server, tmp_path / "root")


def refused(r: requests.Response):
    assert r.status_code == 403, f"{r.status_code} {r.text[:300]}"
    body = r.json()
    assert body["code"] == 1008 and body["type"] == "ForbiddenException", body


def test_reader_reads_but_cannot_change(world):
    reader = world.user("reader", world.usage("READ_FILESET"))
    before = world.disk()
    assert world.visible(reader) == ["f1", "f2"]
    assert reader.ok("GET", world.filesets("f1"))["fileset"]["name"] == "f1"
    assert reader.ok("GET", world.filesets("f1", "location"),
                     params={"sub_path": "/x"})["fileLocation"].endswith("/s/f1/x")
    assert reader.ok("GET", world.filesets("f1", "files"))["files"] == []
    refused(reader.call("PUT", world.filesets("f1"),
                        {"updates": [{"@type": "setProperty", "property": "k", "value": "v"}]}))
    refused(reader.call("DELETE", world.filesets("f1")))
    refused(reader.call("POST", world.filesets(), {"name": "f3"}))
    assert world.disk() == before
    assert "k" not in world.admin.ok("GET", world.filesets("f1"))["fileset"]["properties"]

    # The same through the official client.
    fc = reader.client(world.ml).load_catalog(world.cat).as_fileset_catalog()
    assert sorted(i.name() for i in fc.list_filesets(Namespace.of("s"))) == ["f1", "f2"]
    assert fc.get_file_location(NameIdentifier.of("s", "f2"), "a").endswith("/s/f2/a")
    with pytest.raises(ForbiddenException):
        fc.drop_fileset(NameIdentifier.of("s", "f2"))
    with pytest.raises(ForbiddenException):
        fc.alter_fileset(NameIdentifier.of("s", "f2"), FilesetChange.rename("g"))
    with pytest.raises(ForbiddenException):
        fc.create_fileset(NameIdentifier.of("s", "f3"), None, Fileset.Type.MANAGED, None, None)
    assert world.disk() == before


def test_writer_on_one_fileset(world):
    writer = world.user("writer", world.usage() + [obj("fileset", world.fn("s", "f1"),
                                                       "WRITE_FILESET")])
    assert world.visible(writer) == ["f1"]
    body = writer.ok("PUT", world.filesets("f1"),
                     {"updates": [{"@type": "updateComment", "newComment": "by writer"}]})
    assert body["fileset"]["comment"] == "by writer"
    refused(writer.call("GET", world.filesets("f2")))
    refused(writer.call("GET", world.filesets("f2", "location"), params={"sub_path": "a"}))
    refused(writer.call("GET", world.filesets("f2", "files")))
    # Writing is not owning: dropping needs ownership.
    refused(writer.call("DELETE", world.filesets("f1")))
    assert (world.root / "s" / "f1").is_dir()


def test_creator_owns_what_it_creates(world):
    creator = world.user("creator", world.usage("CREATE_FILESET"))
    assert world.visible(creator) == []
    fc = creator.client(world.ml).load_catalog(world.cat).as_fileset_catalog()
    f = fc.create_fileset(NameIdentifier.of("s", "mine"), None, Fileset.Type.MANAGED, None, None)
    assert f.audit_info().creator() == "creator"
    assert (world.root / "s" / "mine").is_dir()
    assert world.visible(creator) == ["mine"]
    owner = world.admin.ok("GET", f"metalakes/{world.ml}/owners/fileset/"
                                  f"{quote(world.fn('s', 'mine'), safe='')}")
    assert owner["owner"] == {"name": "creator", "type": "user"}
    fc.alter_fileset(NameIdentifier.of("s", "mine"), FilesetChange.set_property("k", "v"))
    refused(creator.call("GET", world.filesets("f1")))
    assert fc.drop_fileset(NameIdentifier.of("s", "mine")) is True
    assert not (world.root / "s" / "mine").exists()


def test_usage_alone_sees_nothing_and_deny_wins(world):
    none = world.user("none", world.usage())
    assert world.visible(none) == []
    refused(none.call("GET", world.filesets("f1")))
    denied = world.user("denied", [obj("catalog", world.fn(), "USE_CATALOG"),
                                   obj("schema", world.fn("s"), "USE_SCHEMA", "READ_FILESET")])
    role = unique("rd")
    world.admin.ok("POST", f"metalakes/{world.ml}/roles",
                   {"name": role, "properties": {},
                    "securableObjects": [obj("catalog", world.fn(), "READ_FILESET", deny=True)]})
    world.admin.ok("PUT", f"metalakes/{world.ml}/permissions/users/denied/grant",
                   {"roleNames": [role]})
    assert world.visible(denied) == []
    refused(denied.call("GET", world.filesets("f1")))
    # Without USE_SCHEMA even a fileset privilege is not enough.
    no_schema = world.user("noschema", [obj("catalog", world.fn(), "USE_CATALOG"),
                                         obj("fileset", world.fn("s", "f1"), "READ_FILESET")])
    refused(no_schema.call("GET", world.filesets("f1")))
    outsider = User(world.base, "outsider")
    refused(outsider.call("GET", world.filesets("f1")))
    refused(outsider.call("POST", world.filesets(), {"name": "x"}))


def test_owner_grants_and_object_roles_address_filesets(world):
    user = world.user("later", world.usage())
    full = quote(world.fn("s", "f2"), safe="")
    # Ownership moves to the user: now it may drop the fileset.
    world.admin.ok("PUT", f"metalakes/{world.ml}/owners/fileset/{full}",
                   {"name": "later", "type": "USER"})
    assert world.visible(user) == ["f2"]
    # A role granted READ_FILESET on f1 through the objects addressing.
    role = unique("r")
    world.admin.ok("POST", f"metalakes/{world.ml}/roles",
                   {"name": role, "properties": {}, "securableObjects": []})
    body = world.admin.ok(
        "PUT", f"metalakes/{world.ml}/permissions/roles/{role}/fileset/"
               f"{quote(world.fn('s', 'f1'), safe='')}/grant",
        {"privileges": [{"name": "read_fileset", "condition": "allow"}]})
    assert body["role"]["securableObjects"][0]["type"] == "fileset"
    world.admin.ok("PUT", f"metalakes/{world.ml}/permissions/users/later/grant",
                   {"roleNames": [role]})
    assert world.visible(user) == ["f1", "f2"]
    names = world.admin.ok("GET", f"metalakes/{world.ml}/objects/fileset/"
                                  f"{quote(world.fn('s', 'f1'), safe='')}/roles")["names"]
    assert role in names
    assert user.ok("DELETE", world.filesets("f2"))["dropped"] is True
    assert not (world.root / "s" / "f2").exists()

    # Table privileges cannot be bound to a fileset; a missing fileset is a 404.
    r = world.admin.call("PUT", f"metalakes/{world.ml}/permissions/roles/{role}/fileset/"
                                f"{quote(world.fn('s', 'f1'), safe='')}/grant",
                         {"privileges": [{"name": "select_table", "condition": "allow"}]})
    assert r.status_code == 400 and r.json()["type"] == "IllegalPrivilegeException", r.text
    r = world.admin.call("GET", f"metalakes/{world.ml}/owners/fileset/"
                                f"{quote(world.fn('s', 'nope'), safe='')}")
    assert r.status_code == 404 and r.json()["type"] == "NoSuchMetadataObjectException", r.text


def test_fileset_privileges_need_a_fileset_catalog(world, tmp_path):
    ice = unique("ice")
    world.admin.ok("POST", f"metalakes/{world.ml}/catalogs",
                   {"name": ice, "type": "relational", "provider": "lakehouse-iceberg",
                    "properties": {"warehouse": str(tmp_path / "wh")}})
    for type_, full, priv in [("catalog", ice, "READ_FILESET"),
                              ("catalog", world.cat, "SELECT_TABLE"),
                              ("schema", world.fn("s"), "CREATE_TABLE")]:
        r = world.admin.call("POST", f"metalakes/{world.ml}/roles",
                             {"name": unique("r"), "properties": {},
                              "securableObjects": [obj(type_, full, priv)]})
        assert r.status_code == 400, r.text
        assert r.json()["type"] == "IllegalPrivilegeException", r.text
    # On the metalake every privilege can be bound, whatever the catalogs.
    world.admin.ok("POST", f"metalakes/{world.ml}/roles",
                   {"name": unique("r"), "properties": {},
                    "securableObjects": [obj("metalake", world.ml, "READ_FILESET", "SELECT_TABLE")]})
