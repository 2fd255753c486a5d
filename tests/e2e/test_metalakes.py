"""Metalakes: create/load/list/alter, in-use switching, drop semantics."""

import pytest

from gravitino import GravitinoClient, MetalakeChange
from gravitino.api.catalog import Catalog
from gravitino.exceptions.base import (
    IllegalArgumentException,
    MetalakeAlreadyExistsException,
    MetalakeInUseException,
    MetalakeNotInUseException,
    NoSuchMetalakeException,
    NotEmptyException,
    NotInUseException,
)

from helpers import (
    ILLEGAL_ARG_TYPES,
    assert_audit,
    assert_error,
    iceberg_catalog_body,
    ok_json,
    unique,
)


@pytest.fixture
def fresh(admin, api):
    """Names of metalakes created by a test; all force-dropped afterwards."""
    names = []
    yield names
    for n in names:
        api.delete(f"metalakes/{n}", params={"force": "true"})


def test_create_load_list(admin, api, fresh):
    name = unique("ml")
    fresh.append(name)
    m = admin.create_metalake(name, "c1", {"a": "1", "b": "2"})
    assert m.name() == name
    assert m.comment() == "c1"
    assert m.properties() == {"a": "1", "b": "2", "in-use": "true"}

    loaded = admin.load_metalake(name)
    assert loaded.name() == name
    assert loaded.comment() == "c1"
    assert loaded.properties() == {"a": "1", "b": "2", "in-use": "true"}

    names = [x.name() for x in admin.list_metalakes()]
    assert name in names

    body = ok_json(api.get(f"metalakes/{name}"))
    assert set(body) == {"code", "metalake"}
    assert_audit(body["metalake"]["audit"])
    listed = ok_json(api.get("metalakes"))["metalakes"]
    mine = [x for x in listed if x["name"] == name]
    assert len(mine) == 1 and mine[0]["properties"]["in-use"] == "true"


def test_create_with_null_comment_and_properties(admin, api, fresh):
    name = unique("ml")
    fresh.append(name)
    r = api.post("metalakes", {"name": name, "comment": None, "properties": None})
    body = ok_json(r)["metalake"]
    assert body["name"] == name
    assert "comment" not in body or body["comment"] is None
    assert body["properties"] == {"in-use": "true"}


def test_duplicate_metalake(admin, api, fresh):
    name = unique("ml")
    fresh.append(name)
    admin.create_metalake(name, None, None)
    with pytest.raises(MetalakeAlreadyExistsException):
        admin.create_metalake(name, None, None)
    assert_error(api.post("metalakes", {"name": name}), 409, 1004,
                 "MetalakeAlreadyExistsException")


def test_load_missing(admin, api):
    with pytest.raises(NoSuchMetalakeException):
        admin.load_metalake(unique("missing"))
    assert_error(api.get(f"metalakes/{unique('missing')}"), 404, 1003, "NoSuchMetalakeException")


def test_alter_rename_comment_properties(admin, api, fresh):
    name = unique("ml")
    new_name = unique("mlr")
    fresh.extend([name, new_name])
    admin.create_metalake(name, "old", {"keep": "k", "gone": "g"})

    m = admin.alter_metalake(
        name,
        MetalakeChange.update_comment("new comment"),
        MetalakeChange.set_property("added", "x"),
        MetalakeChange.set_property("keep", "k2"),
        MetalakeChange.remove_property("gone"),
        MetalakeChange.remove_property("never-existed"),
    )
    assert m.comment() == "new comment"
    assert m.properties() == {"keep": "k2", "added": "x", "in-use": "true"}
    raw = ok_json(api.get(f"metalakes/{name}"))["metalake"]
    assert raw["audit"]["lastModifier"] == "anonymous"
    assert_audit(raw["audit"])

    m = admin.alter_metalake(name, MetalakeChange.rename(new_name))
    assert m.name() == new_name
    with pytest.raises(NoSuchMetalakeException):
        admin.load_metalake(name)
    loaded = admin.load_metalake(new_name)
    assert loaded.comment() == "new comment"
    assert loaded.properties()["added"] == "x"


def test_alter_rename_to_existing_fails(admin, fresh):
    a, b = unique("ml"), unique("ml")
    fresh.extend([a, b])
    admin.create_metalake(a, None, None)
    admin.create_metalake(b, None, None)
    with pytest.raises(MetalakeAlreadyExistsException):
        admin.alter_metalake(a, MetalakeChange.rename(b))


def test_alter_missing(admin):
    with pytest.raises(NoSuchMetalakeException):
        admin.alter_metalake(unique("missing"), MetalakeChange.update_comment("x"))


def test_alter_raw_wire_format(api, admin, fresh):
    name = unique("ml")
    fresh.append(name)
    admin.create_metalake(name, None, None)
    r = api.put(f"metalakes/{name}", {"updates": [
        {"@type": "setProperty", "property": "k", "value": "v"},
        {"@type": "updateComment", "newComment": "cc"}]})
    body = ok_json(r)["metalake"]
    assert body["properties"] == {"k": "v", "in-use": "true"}
    assert body["comment"] == "cc"


def test_enable_disable_via_client(admin, fresh):
    name = unique("ml")
    fresh.append(name)
    admin.create_metalake(name, None, None)
    admin.disable_metalake(name)
    assert admin.load_metalake(name).properties()["in-use"] == "false"
    admin.disable_metalake(name)  # idempotent
    assert admin.load_metalake(name).properties()["in-use"] == "false"
    listed = {m.name(): m for m in admin.list_metalakes()}
    assert listed[name].properties()["in-use"] == "false"
    admin.enable_metalake(name)
    assert admin.load_metalake(name).properties()["in-use"] == "true"
    admin.enable_metalake(name)  # idempotent
    assert admin.load_metalake(name).properties()["in-use"] == "true"


def test_enable_disable_via_patch(api, admin, fresh):
    name = unique("ml")
    fresh.append(name)
    admin.create_metalake(name, None, None)
    assert ok_json(api.patch(f"metalakes/{name}", {"inUse": False})) == {"code": 0}
    assert ok_json(api.get(f"metalakes/{name}"))["metalake"]["properties"]["in-use"] == "false"
    assert ok_json(api.patch(f"metalakes/{name}", {"inUse": True})) == {"code": 0}
    assert ok_json(api.get(f"metalakes/{name}"))["metalake"]["properties"]["in-use"] == "true"
    assert_error(api.patch(f"metalakes/{unique('missing')}", {"inUse": False}), 404, 1003,
                 "NoSuchMetalakeException")
    with pytest.raises(NoSuchMetalakeException):
        admin.disable_metalake(unique("missing"))


def test_drop_semantics(admin, api, base_url, fresh, tmp_path):
    name = unique("ml")
    fresh.append(name)
    admin.create_metalake(name, None, None)
    c = GravitinoClient(uri=base_url, metalake_name=name)
    c.create_catalog("c1", Catalog.Type.RELATIONAL, "lakehouse-iceberg", None,
                     {"warehouse": str(tmp_path)})

    # In use -> 409 MetalakeInUseException.
    with pytest.raises(MetalakeInUseException):
        admin.drop_metalake(name)
    assert_error(api.delete(f"metalakes/{name}", params={"force": "False"}), 409, 1010,
                 "MetalakeInUseException")
    assert_error(api.delete(f"metalakes/{name}"), 409, 1010, "MetalakeInUseException")

    # Disabled but not empty -> 409 NonEmptyMetalakeException.
    admin.disable_metalake(name)
    with pytest.raises(NotEmptyException):
        admin.drop_metalake(name)
    assert_error(api.delete(f"metalakes/{name}", params={"force": "False"}), 409, 1005,
                 "NonEmptyMetalakeException")

    # Still there, still disabled.
    assert admin.load_metalake(name).properties()["in-use"] == "false"

    # Force drop removes it and everything below it.
    assert admin.drop_metalake(name, force=True) is True
    with pytest.raises(NoSuchMetalakeException):
        admin.load_metalake(name)
    assert_error(api.get(f"metalakes/{name}/catalogs/c1"), 404, 1003, "NoSuchMetalakeException")

    # Missing -> dropped false.
    assert admin.drop_metalake(name) is False
    assert ok_json(api.delete(f"metalakes/{name}")) == {"code": 0, "dropped": False}
    assert admin.drop_metalake(name, force=True) is False


def test_drop_disabled_empty_metalake(admin, fresh):
    name = unique("ml")
    fresh.append(name)
    admin.create_metalake(name, None, None)
    admin.disable_metalake(name)
    assert admin.drop_metalake(name) is True
    assert name not in [m.name() for m in admin.list_metalakes()]


def test_force_drop_in_use_metalake(admin, fresh):
    name = unique("ml")
    fresh.append(name)
    admin.create_metalake(name, None, None)
    assert admin.drop_metalake(name, force=True) is True
    with pytest.raises(NoSuchMetalakeException):
        admin.load_metalake(name)


def test_operations_inside_disabled_metalake(admin, api, base_url, fresh, tmp_path):
    name = unique("ml")
    fresh.append(name)
    admin.create_metalake(name, None, None)
    c = GravitinoClient(uri=base_url, metalake_name=name)
    cat = c.create_catalog("c1", Catalog.Type.RELATIONAL, "lakehouse-iceberg", None,
                           {"warehouse": str(tmp_path)})
    cat.as_schemas().create_schema("s1", None, None)
    admin.disable_metalake(name)

    # Loading the disabled metalake itself still works (clients must be able to connect).
    c2 = GravitinoClient(uri=base_url, metalake_name=name)
    assert c2.get_metalake().properties()["in-use"] == "false"

    not_in_use = (409, 1009, "MetalakeNotInUseException")
    assert_error(api.get(f"metalakes/{name}/catalogs"), *not_in_use)
    assert_error(api.get(f"metalakes/{name}/catalogs/c1"), *not_in_use)
    assert_error(api.post(f"metalakes/{name}/catalogs",
                          iceberg_catalog_body("c2", str(tmp_path))), *not_in_use)
    assert_error(api.get(f"metalakes/{name}/catalogs/c1/schemas"), *not_in_use)
    assert_error(api.get(f"metalakes/{name}/catalogs/c1/schemas/s1"), *not_in_use)
    assert_error(api.get(f"metalakes/{name}/catalogs/c1/schemas/s1/tables"), *not_in_use)
    assert_error(api.put(f"metalakes/{name}", {"updates": [
        {"@type": "updateComment", "newComment": "x"}]}), *not_in_use)

    with pytest.raises(NotInUseException):
        c2.list_catalogs()
    with pytest.raises(NotInUseException):
        c2.load_catalog("c1")
    with pytest.raises(MetalakeNotInUseException):
        admin.alter_metalake(name, MetalakeChange.update_comment("x"))

    # Re-enable: everything is back.
    admin.enable_metalake(name)
    assert c2.list_catalogs() == ["c1"]
    assert c2.load_catalog("c1").as_schemas().list_schemas() == ["s1"]


@pytest.mark.parametrize("bad", [
    "bad name!",
    "has-dash",
    "a" * 65,
    "system",
    "",
    "dot.ted",
])
def test_illegal_metalake_names(api, bad):
    r = api.post("metalakes", {"name": bad, "comment": None, "properties": None})
    assert_error(r, 400, 1001, ILLEGAL_ARG_TYPES)


def test_longest_legal_name(admin, fresh):
    name = ("m" + unique("")[1:] + "x" * 64)[:64]
    fresh.append(name)
    assert admin.create_metalake(name, None, None).name() == name


def test_illegal_name_via_client(admin):
    with pytest.raises((IllegalArgumentException, ValueError)):
        admin.create_metalake("bad name!", None, None)


def test_post_without_body_is_400(api):
    r = api.request("POST", "metalakes", data=b"")
    assert_error(r, 400, 1001)
