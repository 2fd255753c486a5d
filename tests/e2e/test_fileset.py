"""Fileset catalogs (type `fileset`, provider `fileset`) through the official Python client, with
the files checked on storage. The storage root is parametrized (fileset_storage.py): `local`
by default; other kinds are named in CAIRN_FILESET_STORAGES."""

from __future__ import annotations

import json
import time

import pytest

from gravitino import Catalog, Fileset, FilesetChange, NameIdentifier, SchemaChange
from gravitino.audit.caller_context import CallerContext, CallerContextHolder
from gravitino.exceptions.base import (
    AlreadyExistsException,
    IllegalArgumentException,
    NoSuchFilesetException,
    NoSuchLocationNameException,
    NoSuchSchemaException,
    NonEmptySchemaException,
)
from gravitino.namespace import Namespace

from fileset_storage import FilesetStorage, make_storage, storage_kinds
from helpers import assert_error, ok_json, schema_path, unique


@pytest.fixture(params=storage_kinds())
def storage(request, tmp_path) -> FilesetStorage:
    return make_storage(request.param, tmp_path)


def make_catalog(client, storage: FilesetStorage, props: dict | None = None,
                 provider: str = "fileset"):
    name = unique("fcat")
    properties = dict(storage.catalog_properties)
    properties.update(props or {})
    return client.create_catalog(name, Catalog.Type.FILESET, provider, "filesets", properties)


@pytest.fixture
def fcat(client, storage):
    """A fileset catalog rooted at the storage root (`location`)."""
    return make_catalog(client, storage, {"location": storage.input("lake")})


def fpath(ml: str, cat: str, schema: str, fileset: str = "", tail: str = "") -> str:
    p = schema_path(ml, cat, schema) + "/filesets"
    if fileset:
        p += f"/{fileset}"
    if tail:
        p += f"/{tail}"
    return p


def ident(schema: str, name: str) -> NameIdentifier:
    return NameIdentifier.of(schema, name)


# ---- catalogs and schemas ---------------------------------------------------------------------


def test_fileset_catalog_type_and_legacy_provider(client, storage, api, metalake_name):
    cat = make_catalog(client, storage)
    assert cat.type() == Catalog.Type.FILESET
    assert cat.provider() == "fileset"
    legacy = make_catalog(client, storage, provider="hadoop")
    assert legacy.provider() == "fileset"
    body = ok_json(api.get(f"metalakes/{metalake_name}/catalogs/{legacy.name()}"))
    assert body["catalog"]["type"] == "fileset"
    # The provider may be omitted for fileset catalogs.
    name = unique("fcat")
    body = ok_json(api.post(f"metalakes/{metalake_name}/catalogs",
                            {"name": name, "type": "FILESET", "comment": None,
                             "properties": None}))
    assert body["catalog"]["provider"] == "fileset"


def test_bad_catalog_location_is_rejected(client, api, metalake_name):
    for props, field in [({"location": "relative/dir"}, "location"),
                         ({"location": "  "}, "location"),
                         ({"location-unknown": "/x"}, "location-unknown"),
                         ({"location-hot": "/a/{{}}"}, "empty")]:
        r = api.post(f"metalakes/{metalake_name}/catalogs",
                     {"name": unique("fcat"), "type": "fileset", "provider": "fileset",
                      "properties": props})
        body = assert_error(r, 400, 1001, "IllegalArgumentException")
        assert field in body["message"], body


def test_schema_directories_follow_catalog_and_schema_location(fcat, storage):
    schemas = fcat.as_schemas()
    schemas.create_schema("s1", "c", {})
    if storage.has_directories:
        assert storage.is_dir("lake/s1")
    schemas.create_schema("s2", None, {"location": storage.input("own/s2")})
    if storage.has_directories:
        assert storage.is_dir("own/s2")
        assert not storage.exists("lake/s2")
    assert sorted(schemas.list_schemas()) == ["s1", "s2"]
    # A schema's location cannot change once filesets may have inherited it.
    with pytest.raises(IllegalArgumentException, match="location"):
        schemas.alter_schema("s2", SchemaChange.set_property("location", storage.input("x")))
    schemas.alter_schema("s2", SchemaChange.set_property("k", "v"))
    assert schemas.load_schema("s2").properties()["k"] == "v"


# ---- managed and external filesets ------------------------------------------------------------


def test_managed_fileset_inherits_location_and_owns_its_directory(fcat, storage):
    fcat.as_schemas().create_schema("s", None, {})
    fc = fcat.as_fileset_catalog()
    f = fc.create_fileset(ident("s", "f"), "managed one", Fileset.Type.MANAGED, None, {"k": "v"})
    assert f.name() == "f"
    assert f.type() == Fileset.Type.MANAGED
    assert f.comment() == "managed one"
    assert f.storage_location() == storage.uri("lake/s/f")
    assert f.storage_locations() == {"unknown": storage.uri("lake/s/f")}
    assert f.properties() == {"k": "v", "default-location-name": "unknown"}
    assert f.audit_info().creator() == "anonymous"
    if storage.has_directories:
        assert storage.is_dir("lake/s/f")

    loaded = fc.load_fileset(ident("s", "f"))
    assert loaded.storage_location() == storage.uri("lake/s/f")
    assert loaded.comment() == "managed one"
    assert [i.name() for i in fc.list_filesets(Namespace.of("s"))] == ["f"]

    storage.write("lake/s/f/data/part-0.parquet", b"0123456789")
    assert fc.drop_fileset(ident("s", "f")) is True
    assert not storage.exists("lake/s/f")
    assert not storage.exists("lake/s/f/data/part-0.parquet")
    assert fc.drop_fileset(ident("s", "f")) is False
    assert fc.list_filesets(Namespace.of("s")) == []


def test_schema_location_overrides_catalog_location(fcat, storage):
    fcat.as_schemas().create_schema("s", None, {"location": storage.input("elsewhere")})
    f = fcat.as_fileset_catalog().create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED,
                                                 None, None)
    assert f.storage_location() == storage.uri("elsewhere/f")
    if storage.has_directories:
        assert storage.is_dir("elsewhere/f")


def test_explicit_location_wins_and_is_created(fcat, storage):
    fcat.as_schemas().create_schema("s", None, {})
    f = fcat.as_fileset_catalog().create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED,
                                                 storage.input("mine/f1"), None)
    assert f.storage_location() == storage.uri("mine/f1")
    if storage.has_directories:
        assert storage.is_dir("mine/f1")
        assert not storage.exists("lake/s/f")


def test_external_fileset_requires_a_location_and_keeps_files_on_drop(fcat, storage, api,
                                                                      metalake_name):
    fcat.as_schemas().create_schema("s", None, {})
    fc = fcat.as_fileset_catalog()
    with pytest.raises(IllegalArgumentException, match="storageLocation"):
        fc.create_fileset(ident("s", "e"), None, Fileset.Type.EXTERNAL, None, None)
    r = api.post(fpath(metalake_name, fcat.name(), "s"), {"name": "e", "type": "external"})
    assert "storageLocation" in assert_error(r, 400, 1001, "IllegalArgumentException")["message"]

    storage.write("ext/keep/a.csv", b"a,b\n")
    e = fc.create_fileset(ident("s", "e"), "external", Fileset.Type.EXTERNAL,
                          storage.input("ext/keep"), None)
    assert e.type() == Fileset.Type.EXTERNAL
    assert e.storage_location() == storage.uri("ext/keep")
    assert fc.drop_fileset(ident("s", "e")) is True
    assert storage.exists("ext/keep/a.csv")
    with pytest.raises(NoSuchFilesetException):
        fc.load_fileset(ident("s", "e"))


def test_fileset_without_any_location_is_rejected(client, storage):
    cat = make_catalog(client, storage)  # no catalog location
    cat.as_schemas().create_schema("s", None, {})
    with pytest.raises(IllegalArgumentException, match="storageLocation"):
        cat.as_fileset_catalog().create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED,
                                                None, None)


def test_multiple_named_locations(client, storage):
    cat = make_catalog(client, storage, {"location": storage.input("main"),
                                         "location-hot": storage.input("hot")})
    cat.as_schemas().create_schema("s", None, {})
    fc = cat.as_fileset_catalog()
    # Two inherited locations: the default must be named.
    with pytest.raises(IllegalArgumentException, match="default-location-name"):
        fc.create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED, None, None)
    f = fc.create_multiple_location_fileset(
        ident("s", "f"), None, Fileset.Type.MANAGED,
        {"cold": storage.input("cold/{{fileset}}")}, {"default-location-name": "hot"})
    assert f.storage_locations() == {"unknown": storage.uri("main/s/f"),
                                     "hot": storage.uri("hot/s/f"),
                                     "cold": storage.uri("cold/f")}
    assert f.storage_location() == storage.uri("main/s/f")
    if storage.has_directories:
        for rel in ("main/s/f", "hot/s/f", "cold/f"):
            assert storage.is_dir(rel), rel
    # Without a location name the default one is used.
    assert fc.get_file_location(ident("s", "f"), "/a.txt") == storage.uri("hot/s/f/a.txt")
    assert fc.get_file_location(ident("s", "f"), "a.txt", "cold") == storage.uri("cold/f/a.txt")
    assert fc.get_file_location(ident("s", "f"), "a.txt", "unknown") == \
        storage.uri("main/s/f/a.txt")
    with pytest.raises(NoSuchLocationNameException):
        fc.get_file_location(ident("s", "f"), "a.txt", "nope")
    # Dropping a managed fileset deletes every one of its locations.
    storage.write("cold/f/x", b"x")
    assert fc.drop_fileset(ident("s", "f"))
    for rel in ("main/s/f", "hot/s/f", "cold/f"):
        assert not storage.exists(rel), rel


def test_placeholders_are_resolved_at_create_time(client, storage, api, metalake_name):
    cat = make_catalog(client, storage, {
        "location": storage.input("ph/{{catalog}}/{{schema}}/{{fileset}}-{{version}}")})
    cat.as_schemas().create_schema("s", None, {})
    if storage.has_directories:
        # A location with placeholders is only a template: nothing is made for the schema.
        assert not storage.exists("ph")
    fc = cat.as_fileset_catalog()
    with pytest.raises(IllegalArgumentException, match="placeholder-version"):
        fc.create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED, None, None)
    f = fc.create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED, None,
                          {"placeholder-version": "v1"})
    assert f.storage_location() == storage.uri(f"ph/{cat.name()}/s/f-v1")
    if storage.has_directories:
        assert storage.is_dir(f"ph/{cat.name()}/s/f-v1")
    # Explicit locations take placeholders too.
    g = fc.create_fileset(ident("s", "g"), None, Fileset.Type.EXTERNAL,
                          storage.input("x/{{schema}}_{{fileset}}_{{team}}"),
                          {"placeholder-team": "ml"})
    assert g.storage_location() == storage.uri("x/s_g_ml")
    # The built-in placeholders are reserved, and placeholder values cannot change afterwards.
    r = api.post(fpath(metalake_name, cat.name(), "s"),
                 {"name": "h", "type": "managed", "properties": {"placeholder-fileset": "x",
                                                                 "placeholder-version": "1"}})
    assert "reserved" in assert_error(r, 400, 1001, "IllegalArgumentException")["message"]
    with pytest.raises(IllegalArgumentException, match="placeholder-version"):
        fc.alter_fileset(ident("s", "f"), FilesetChange.set_property("placeholder-version", "v2"))


def test_failed_create_leaves_nothing_behind(fcat, storage, api, metalake_name):
    if not storage.has_directories:
        pytest.skip("object storage has no directories to leave behind")
    fcat.as_schemas().create_schema("s", None, {})
    storage.write("a-file", b"x")
    r = api.post(fpath(metalake_name, fcat.name(), "s"),
                 {"name": "f", "type": "managed",
                  "storageLocations": {"a": storage.input("new-a"), "b": storage.input("a-file")},
                  "properties": {"default-location-name": "a"}})
    assert_error(r, 400, 1001, "IllegalArgumentException")
    assert not storage.exists("new-a")
    with pytest.raises(NoSuchFilesetException):
        fcat.as_fileset_catalog().load_fileset(ident("s", "f"))


# ---- alter --------------------------------------------------------------------------------------


def test_alter_rename_comment_and_properties(fcat, storage, api, metalake_name):
    fcat.as_schemas().create_schema("s", None, {})
    fc = fcat.as_fileset_catalog()
    fc.create_fileset(ident("s", "f"), "c1", Fileset.Type.MANAGED, None, {"a": "1"})
    fc.create_fileset(ident("s", "other"), None, Fileset.Type.MANAGED, None, None)

    f = fc.alter_fileset(ident("s", "f"), FilesetChange.update_comment("c2"),
                         FilesetChange.set_property("b", "2"), FilesetChange.remove_property("a"))
    assert f.comment() == "c2"
    assert f.properties() == {"b": "2", "default-location-name": "unknown"}
    assert f.audit_info().last_modifier() == "anonymous"

    f = fc.alter_fileset(ident("s", "f"), FilesetChange.remove_comment())
    assert f.comment() is None

    # Renaming changes the name only: the files stay where they are.
    storage.write("lake/s/f/x.txt", b"x")
    f = fc.alter_fileset(ident("s", "f"), FilesetChange.rename("g"))
    assert f.name() == "g"
    assert f.storage_location() == storage.uri("lake/s/f")
    assert storage.exists("lake/s/f/x.txt")
    with pytest.raises(NoSuchFilesetException):
        fc.load_fileset(ident("s", "f"))
    assert sorted(i.name() for i in fc.list_filesets(Namespace.of("s"))) == ["g", "other"]

    with pytest.raises(AlreadyExistsException):
        fc.alter_fileset(ident("s", "g"), FilesetChange.rename("other"))
    r = api.put(fpath(metalake_name, fcat.name(), "s", "g"),
                {"updates": [{"@type": "rename", "newName": "other"}]})
    assert_error(r, 409, 1004, "FilesetAlreadyExistsException")
    with pytest.raises(IllegalArgumentException, match="default-location-name"):
        fc.alter_fileset(ident("s", "g"), FilesetChange.remove_property("default-location-name"))
    r = api.put(fpath(metalake_name, fcat.name(), "s", "g"),
                {"updates": [{"@type": "removeComment"}, {"@type": "bogus"}]})
    assert_error(r, 400, 1001, "IllegalArgumentException")
    with pytest.raises(NoSuchFilesetException):
        fc.alter_fileset(ident("s", "missing"), FilesetChange.update_comment("x"))


# ---- files and locations ------------------------------------------------------------------------


def test_list_files(fcat, storage, api, metalake_name):
    fcat.as_schemas().create_schema("s", None, {})
    fcat.as_fileset_catalog().create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED, None,
                                             None)
    storage.write("lake/s/f/a.txt", b"hello")
    storage.write("lake/s/f/dir/b.bin", b"0123456789")
    storage.write("lake/s/f/dir/sub/c", b"")
    base = fpath(metalake_name, fcat.name(), "s", "f", "files")

    files = ok_json(api.get(base))["files"]
    by_name = {f["name"]: f for f in files}
    assert sorted(by_name) == ["a.txt", "dir"]
    assert by_name["a.txt"]["isDir"] is False
    assert by_name["a.txt"]["size"] == 5
    assert by_name["a.txt"]["lastModified"] > 1_600_000_000_000
    assert by_name["a.txt"]["path"] == f"/fileset/{fcat.name()}/s/f/a.txt"
    assert by_name["dir"]["isDir"] is True
    assert by_name["dir"]["size"] == 0
    assert set(files[0]) == {"name", "isDir", "size", "lastModified", "path"}

    for sub in ("dir", "/dir", "/dir/"):
        files = ok_json(api.get(base, params={"sub_path": sub}))["files"]
        assert sorted((f["name"], f["isDir"], f["size"]) for f in files) == \
            [("b.bin", False, 10), ("sub", True, 0)], sub
        assert {f["path"] for f in files} == {f"/fileset/{fcat.name()}/s/f/dir/b.bin",
                                              f"/fileset/{fcat.name()}/s/f/dir/sub"}
    files = ok_json(api.get(base, params={"sub_path": "dir/sub", "location_name": "unknown"}))
    assert [(f["name"], f["size"]) for f in files["files"]] == [("c", 0)]
    # A sub path naming a file lists that file.
    files = ok_json(api.get(base, params={"sub_path": "dir/b.bin"}))["files"]
    assert [(f["name"], f["isDir"], f["size"], f["path"]) for f in files] == \
        [("b.bin", False, 10, f"/fileset/{fcat.name()}/s/f/dir/b.bin")]

    body = assert_error(api.get(base, params={"sub_path": "../../.."}), 400, 1001,
                        "IllegalArgumentException")
    assert "sub_path" in body["message"]
    body = assert_error(api.get(base, params={"sub_path": "/nope"}), 400, 1001,
                        "IllegalArgumentException")
    assert "sub_path" in body["message"]
    assert_error(api.get(base, params={"location_name": "nope"}), 404, 1003,
                 "NoSuchLocationNameException")
    assert_error(api.get(fpath(metalake_name, fcat.name(), "s", "missing", "files")), 404, 1003,
                 "NoSuchFilesetException")


def test_get_file_location(fcat, storage, api, metalake_name, server):
    fcat.as_schemas().create_schema("s", None, {})
    fc = fcat.as_fileset_catalog()
    fc.create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED, None, None)
    root = storage.uri("lake/s/f")
    # A leading slash is optional; an empty sub path is the fileset's location.
    assert fc.get_file_location(ident("s", "f"), "/a/b.parquet") == root + "/a/b.parquet"
    assert fc.get_file_location(ident("s", "f"), "a/b.parquet") == root + "/a/b.parquet"
    assert fc.get_file_location(ident("s", "f"), "") == root
    assert fc.get_file_location(ident("s", "f"), "/") == root + "/"
    with pytest.raises(NoSuchFilesetException):
        fc.get_file_location(ident("s", "nope"), "/a")
    with pytest.raises(NoSuchSchemaException):
        fc.get_file_location(ident("nope", "f"), "/a")

    # The caller context of the virtual file system is accepted and recorded in the audit log.
    CallerContextHolder.set(CallerContext({"InternalClientType": "PYTHON_GVFS",
                                           "FilesetDataOperation": "OPEN"}))
    assert fc.get_file_location(ident("s", "f"), "ctx.txt") == root + "/ctx.txt"
    loc = fpath(metalake_name, fcat.name(), "s", "f", "location")
    body = assert_error(api.get(loc, params={"sub_path": "/"},
                                headers={"FilesetDataOperation": "RENAME"}),
                        400, 1001, "IllegalArgumentException")
    assert "sub_path" in body["message"]
    assert_error(api.get(loc), 400, 1001, "IllegalArgumentException")
    assert_error(api.get(loc, params={"sub_path": "a/../../x"}), 400, 1001,
                 "IllegalArgumentException")
    body = ok_json(api.get(loc, params={"sub_path": "x", "location_name": "unknown"},
                           headers={"InternalClientType": "something-else",
                                    "FilesetDataOperation": "MKDIRS"}))
    assert body["fileLocation"] == root + "/x"

    # Clients before 1.0 encoded the sub path once more; newer ones are taken literally.
    body = ok_json(api.get(loc, params={"sub_path": "%2Fa%20b"},
                           headers={"X-Client-Version": "0.9.1"}))
    assert body["fileLocation"] == root + "/a b"
    body = ok_json(api.get(loc, params={"sub_path": "/a%20b"}))
    assert body["fileLocation"] == root + "/a%20b"

    def contexts():
        out = []
        for line in server.audit_log.read_text().splitlines():
            rec = json.loads(line)
            if "callerContext" in rec and rec["object"].endswith(f"{fcat.name()}.s.f"):
                out.append(rec["callerContext"])
        return out

    for _ in range(50):  # the audit trail is synced at least once a second
        seen = contexts()
        if {"InternalClientType": "UNKNOWN", "FilesetDataOperation": "MKDIRS"} in seen:
            break
        time.sleep(0.1)
    assert {"InternalClientType": "PYTHON_GVFS", "FilesetDataOperation": "OPEN"} in seen
    assert {"InternalClientType": "UNKNOWN", "FilesetDataOperation": "MKDIRS"} in seen


# ---- errors -------------------------------------------------------------------------------------


def test_errors(fcat, storage, api, metalake_name, client):
    fcat.as_schemas().create_schema("s", None, {})
    fc = fcat.as_fileset_catalog()
    base = fpath(metalake_name, fcat.name(), "s")
    fc.create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED, None, None)

    with pytest.raises(AlreadyExistsException):
        fc.create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED, None, None)
    assert_error(api.post(base, {"name": "f"}), 409, 1004, "FilesetAlreadyExistsException")
    with pytest.raises(NoSuchFilesetException):
        fc.load_fileset(ident("s", "missing"))
    assert_error(api.get(base + "/missing"), 404, 1003, "NoSuchFilesetException")
    with pytest.raises(NoSuchSchemaException):
        fc.load_fileset(ident("nope", "f"))
    with pytest.raises(NoSuchSchemaException):
        fc.list_filesets(Namespace.of("nope"))
    with pytest.raises(NoSuchSchemaException):
        fc.create_fileset(ident("nope", "f"), None, Fileset.Type.MANAGED, None, None)
    assert_error(api.delete(fpath(metalake_name, fcat.name(), "nope", "f")), 404, 1003,
                 "NoSuchSchemaException")

    body = assert_error(api.post(base, {"comment": "no name"}), 400, 1001)
    assert "name" in body["message"]
    body = assert_error(api.post(base, {"name": "g", "type": "temporary"}), 400, 1001)
    assert "type" in body["message"]
    body = assert_error(api.post(base, {"name": "g", "storageLocations": {"": "/x"}}), 400, 1001)
    assert "location name" in body["message"]
    assert_error(api.post(base, {"name": "bad name!"}), 400, 1001)
    assert_error(api.post(base, {"name": "g", "storageLocation": "relative"}), 400, 1001)
    assert_error(api.post(base, {"name": "g", "storageLocation": "ftp://h/x"}), 400, 1001)
    assert_error(api.post(base, data="{not json"), 400, 1001, "IllegalArgumentException")
    assert_error(api.post(base, {"name": "g", "storageLocation": storage.input("lake")}), 400,
                 1001)  # a fileset may not contain its schema's directory

    # Tables are not served by fileset catalogs, filesets not by relational ones.
    assert_error(api.get(schema_path(metalake_name, fcat.name(), "s") + "/tables"), 405, 1006)
    rel = client.create_catalog(unique("ice"), Catalog.Type.RELATIONAL, "lakehouse-iceberg", "",
                                {"warehouse": storage.input("wh")}) \
        if storage.kind == "local" else None
    if rel is not None:
        rel.as_schemas().create_schema("s", None, {})
        assert_error(api.get(fpath(metalake_name, rel.name(), "s")), 405, 1006,
                     "UnsupportedOperationException")


def test_drop_schema_cascade_and_force_drop_catalog(client, storage):
    cat = make_catalog(client, storage, {"location": storage.input("lake")})
    schemas = cat.as_schemas()
    schemas.create_schema("s", None, {})
    fc = cat.as_fileset_catalog()
    fc.create_fileset(ident("s", "m"), None, Fileset.Type.MANAGED, None, None)
    storage.write("lake/s/m/data", b"1")
    storage.write("outside/e/keep", b"1")
    fc.create_fileset(ident("s", "e"), None, Fileset.Type.EXTERNAL, storage.input("outside/e"),
                      None)
    with pytest.raises(NonEmptySchemaException):
        schemas.drop_schema("s", False)
    assert storage.exists("lake/s/m/data")
    assert schemas.drop_schema("s", True) is True
    assert not storage.exists("lake/s/m")
    assert not storage.exists("lake/s")
    assert storage.exists("outside/e/keep")

    schemas.create_schema("t", None, {})
    fc.create_fileset(ident("t", "m"), None, Fileset.Type.MANAGED, None, None)
    storage.write("lake/t/m/data", b"1")
    assert client.drop_catalog(cat.name(), True) is True
    assert not storage.exists("lake/t/m/data")


def test_fileset_owner_and_roles_addressing_needs_authorization(fcat, api, metalake_name):
    # With authorization off the access-control endpoints answer 405, for filesets too.
    fcat.as_schemas().create_schema("s", None, {})
    fcat.as_fileset_catalog().create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED, None,
                                             None)
    assert_error(api.get(f"metalakes/{metalake_name}/owners/fileset/{fcat.name()}.s.f"), 405,
                 1006, "UnsupportedOperationException")



def test_python_virtual_file_system_reads_and_writes_through_file_locations(
        fcat, storage, base_url, metalake_name):
    """The client's fsspec file system (gvfs://fileset/...) resolves paths with the location
    endpoint and then works on the storage directly."""
    from gravitino.filesystem import gvfs

    fcat.as_schemas().create_schema("s", None, {})
    fcat.as_fileset_catalog().create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED, None,
                                             None)
    # On object storage the file system works with keys Cairn vends for the fileset only.
    options = {"enable_credential_vending": True} if storage.kind == "s3" else None
    fs = gvfs.GravitinoVirtualFileSystem(server_uri=base_url, metalake_name=metalake_name,
                                         options=options)
    path = f"gvfs://fileset/{fcat.name()}/s/f/hello.txt"
    with fs.open(path, "wb") as out:
        out.write(b"hi there")
    assert storage.read("lake/s/f/hello.txt") == b"hi there"
    with fs.open(path, "rb") as inp:
        assert inp.read() == b"hi there"
    assert fs.exists(path)


def test_catalog_alter_and_disable(client, storage, api, metalake_name):
    from gravitino.api.catalog_change import CatalogChange
    from gravitino.exceptions.base import CatalogNotInUseException

    cat = make_catalog(client, storage, {"location": storage.input("one"),
                                         "location-hot": storage.input("hot")})
    # Named roots cannot change; the root location can (later schemas follow it).
    with pytest.raises(IllegalArgumentException, match="location-hot"):
        client.alter_catalog(cat.name(), CatalogChange.set_property("location-hot",
                                                                    storage.input("x")))
    with pytest.raises(IllegalArgumentException, match="location-cold"):
        client.alter_catalog(cat.name(), CatalogChange.set_property("location-cold",
                                                                    storage.input("x")))
    client.alter_catalog(cat.name(), CatalogChange.set_property("location", storage.input("two")))
    cat = client.load_catalog(cat.name())
    cat.as_schemas().create_schema("s", None, {})
    f = cat.as_fileset_catalog().create_fileset(ident("s", "f"), None, Fileset.Type.MANAGED,
                                                None, {"default-location-name": "unknown"})
    assert f.storage_location() == storage.uri("two/s/f")

    client.disable_catalog(cat.name())
    with pytest.raises(CatalogNotInUseException):
        cat.as_fileset_catalog().load_fileset(ident("s", "f"))
    client.enable_catalog(cat.name())
    assert cat.as_fileset_catalog().load_fileset(ident("s", "f")).name() == "f"


def test_concurrent_creates_and_alters(fcat, storage, base_url, metalake_name):
    """Racing creates of one fileset: one wins, the others get 409 and its directory stays;
    racing property changes: none is lost."""
    import threading

    from helpers import Api

    fcat.as_schemas().create_schema("s", None, {})
    base = fpath(metalake_name, fcat.name(), "s")
    threads_n = 8
    barrier = threading.Barrier(threads_n)
    statuses: list[int] = []
    lock = threading.Lock()

    def create() -> None:
        local = Api(base_url)
        barrier.wait()
        r = local.post(base, {"name": "race", "type": "managed"})
        with lock:
            statuses.append(r.status_code)

    def alter(i: int) -> None:
        local = Api(base_url)
        barrier.wait()
        for j in range(3):
            r = local.put(f"{base}/race", {"updates": [
                {"@type": "setProperty", "property": f"k{i}_{j}", "value": "v"}]})
            with lock:
                statuses.append(r.status_code)

    for target, args in ((create, lambda i: ()), (alter, lambda i: (i,))):
        statuses.clear()
        threads = [threading.Thread(target=target, args=args(i)) for i in range(threads_n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads)
        if target is create:
            assert sorted(statuses) == [200] + [409] * (threads_n - 1), statuses
            if storage.has_directories:
                assert storage.is_dir("lake/s/race")
        else:
            assert statuses == [200] * (threads_n * 3), statuses
    props = fcat.as_fileset_catalog().load_fileset(ident("s", "race")).properties()
    assert {f"k{i}_{j}" for i in range(threads_n) for j in range(3)} <= set(props)
