"""Tags through the official Python client: create, list, get, alter, delete; attach them to
catalogs, schemas and tables; inheritance; the objects of a tag; and what a drop or rename does to
an association (docs/tags-and-policies.md)."""

import pytest

from gravitino import NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.types.types import Types
from gravitino.api.tag.tag_change import TagChange
from gravitino.exceptions.base import (
    NoSuchTagException,
    TagAlreadyAssociatedException,
    TagAlreadyExistsException,
)

from helpers import unique


@pytest.fixture
def table(tables, schema_name):
    ident = NameIdentifier.of(schema_name, "events")
    tables.create_table(ident, [Column.of("id", Types.LongType.get())])
    return tables.load_table(ident)


def test_tag_lifecycle(client):
    created = client.create_tag("pii", "personal data", {"level": "high"})
    assert created.name() == "pii"
    assert created.comment() == "personal data"
    assert created.properties() == {"level": "high"}
    assert created.inherited() is None
    client.create_tag("gold", None, {})
    with pytest.raises(TagAlreadyExistsException):
        client.create_tag("pii", "again", {})

    assert sorted(client.list_tags()) == ["gold", "pii"]
    infos = {t.name(): t for t in client.list_tags_info()}
    assert infos["pii"].properties() == {"level": "high"}
    assert client.get_tag("pii").comment() == "personal data"

    altered = client.alter_tag("pii", TagChange.rename("sensitive"),
                               TagChange.update_comment("sensitive data"),
                               TagChange.set_property("owner", "sec"),
                               TagChange.remove_property("level"))
    assert altered.name() == "sensitive"
    assert altered.comment() == "sensitive data"
    assert altered.properties() == {"owner": "sec"}
    with pytest.raises(NoSuchTagException):
        client.get_tag("pii")

    assert client.delete_tag("sensitive") is True
    assert client.delete_tag("sensitive") is False
    assert client.list_tags() == ["gold"]


def test_tags_attach_to_objects_and_are_inherited(client, catalog, schema_name, table):
    for name in ("pii", "gold", "raw"):
        client.create_tag(name, None, {})
    schema = catalog.as_schemas().load_schema(schema_name)

    assert catalog.supports_tags().associate_tags(["raw"], []) == ["raw"]
    assert schema.supports_tags().associate_tags(["gold"], []) == ["gold"]
    assert sorted(table.supports_tags().associate_tags(["pii", "gold"], [])) == ["gold", "pii"]

    # The table's own tags, then those of its schema and catalog as inherited; a tag both on
    # the table and on its schema is the table's own.
    infos = {t.name(): t.inherited() for t in table.supports_tags().list_tags_info()}
    assert infos == {"pii": False, "gold": False, "raw": True}
    assert sorted(table.supports_tags().list_tags()) == ["gold", "pii", "raw"]
    assert table.supports_tags().get_tag("raw").inherited() is True
    assert schema.supports_tags().get_tag("gold").inherited() is False
    with pytest.raises(NoSuchTagException):
        schema.supports_tags().get_tag("pii")

    # Attaching twice is refused; an unknown tag is not found; nothing changed either time.
    with pytest.raises(TagAlreadyAssociatedException):
        table.supports_tags().associate_tags(["pii"], [])
    with pytest.raises(NoSuchTagException):
        table.supports_tags().associate_tags(["nope"], [])
    assert sorted(table.supports_tags().associate_tags([], ["gold"])) == ["pii"]

    objects = client.get_tag("pii").associated_objects().objects()
    assert [(o.full_name(), o.type().value) for o in objects] == \
        [(f"{catalog.name()}.{schema_name}.events", "table")]
    gold = {(o.full_name(), o.type().value) for o in client.get_tag("gold").associated_objects().objects()}
    assert gold == {(f"{catalog.name()}.{schema_name}", "schema")}


def test_associations_follow_renames_and_go_with_drops(client, catalog, tables, schema_name, table):
    from gravitino.api.rel.table_change import TableChange

    client.create_tag("pii", None, {})
    table.supports_tags().associate_tags(["pii"], [])
    tables.alter_table(NameIdentifier.of(schema_name, "events"), TableChange.rename("events2"))
    renamed = tables.load_table(NameIdentifier.of(schema_name, "events2"))
    assert renamed.supports_tags().list_tags() == ["pii"]
    assert [o.full_name() for o in client.get_tag("pii").associated_objects().objects()] == \
        [f"{catalog.name()}.{schema_name}.events2"]

    assert tables.drop_table(NameIdentifier.of(schema_name, "events2"))
    assert client.get_tag("pii").associated_objects().objects() == []
    # A new table of the old name starts with no tags.
    tables.create_table(NameIdentifier.of(schema_name, "events2"), [Column.of("id", Types.LongType.get())])
    fresh = tables.load_table(NameIdentifier.of(schema_name, "events2"))
    assert fresh.supports_tags().list_tags() == []

    # Deleting the tag removes its associations.
    fresh.supports_tags().associate_tags(["pii"], [])
    assert client.delete_tag("pii")
    assert fresh.supports_tags().list_tags() == []


def test_bad_tag_requests_are_clear_errors(api, client, metalake_name, catalog, schema_name, table):
    client.create_tag("pii", None, {})
    base = f"metalakes/{metalake_name}"
    # Names that are paths, and bodies of the wrong shape: 400 naming the problem.
    for bad in ("..", "a/b", "x\u0000y"):
        r = api.post(f"{base}/tags", {"name": bad})
        assert r.status_code == 400, (bad, r.text)
    r = api.post(f"{base}/tags", {"name": 7})
    assert r.status_code == 400 and "name" in r.json()["message"]
    path = f"{base}/objects/table/{catalog.name()}.{schema_name}.events/tags"
    r = api.post(path, {"tagsToAdd": "pii"})
    assert r.status_code == 400 and "tagsToAdd" in r.json()["message"]
    # A name both to add and to remove is neither (Gravitino's rule); both lists null is an error.
    r = api.post(path, {"tagsToAdd": ["pii"], "tagsToRemove": ["pii"]})
    assert r.status_code == 200 and r.json()["names"] == [], r.text
    r = api.post(path, {"tagsToAdd": None})
    assert r.status_code == 400 and "tagsToAdd" in r.json()["message"], r.text
    # A name of the wrong shape for its type, a missing object, a type tags do not go on.
    r = api.get(f"{base}/objects/table/{catalog.name()}.{schema_name}/tags")
    assert r.status_code == 400 and r.json()["type"] == "IllegalMetadataObjectException", r.text
    r = api.get(f"{base}/objects/table/{catalog.name()}.{schema_name}.nope/tags")
    assert r.status_code == 404, r.text
    r = api.post(f"{base}/objects/metalake/{metalake_name}/tags", {"tagsToAdd": ["pii"]})
    assert r.status_code == 400, r.text
    # Nothing was attached by any of these.
    assert table.supports_tags().list_tags() == []
    assert client.get_tag("pii").associated_objects().objects() == []


def test_tags_are_served_with_authorization_off(api, client, metalake_name):
    # The suite's server runs without authorization: the /objects/... tag paths answer (they
    # are not behind the access-control switch), the access-control ones do not.
    client.create_tag(unique("t"), None, {})
    r = api.get(f"metalakes/{metalake_name}/objects/metalake/{metalake_name}/roles")
    assert r.status_code == 405
    r = api.get(f"metalakes/{metalake_name}/tags")
    assert r.status_code == 200 and len(r.json()["names"]) == 1


def test_objects_of_a_tag_in_pages(api, client, tables, schema_name, metalake_name, catalog):
    # Without pageSize every object comes at once (Gravitino's shape); with it, Cairn pages by
    # attachment and names the next page, until the last page has no token.
    client.create_tag("hot", None, {})
    base = f"metalakes/{metalake_name}"
    names = [f"t{i}" for i in range(5)]
    for name in names:
        tables.create_table(NameIdentifier.of(schema_name, name), [Column.of("id", Types.LongType.get())])
        table = tables.load_table(NameIdentifier.of(schema_name, name))
        table.supports_tags().associate_tags(["hot"], [])
    everything = api.get(f"{base}/tags/hot/objects").json()
    assert "nextPageToken" not in everything
    assert [o["fullName"].split(".")[-1] for o in everything["metadataObjects"]] == names
    seen, token, pages = [], None, 0
    while True:
        params = {"pageSize": 2, **({"pageToken": token} if token else {})}
        body = api.get(f"{base}/tags/hot/objects", params=params).json()
        assert body["code"] == 0, body
        seen += [o["fullName"].split(".")[-1] for o in body["metadataObjects"]]
        pages += 1
        token = body.get("nextPageToken")
        if not token:
            break
    assert seen == names and pages == 3
    for bad in ({"pageSize": 0}, {"pageSize": "x"}, {"pageSize": 10001}, {"pageToken": "abc"}):
        r = api.get(f"{base}/tags/hot/objects", params=bad)
        assert r.status_code == 400 and ("pageSize" in r.text or "pageToken" in r.text), r.text


def test_tags_on_columns(api, client, catalog, tables, schema_name, metalake_name):
    from gravitino.api.rel.table_change import TableChange

    for name in ("pii", "gold"):
        client.create_tag(name, None, {})
    tables.create_table(NameIdentifier.of(schema_name, "events"),
                        [Column.of("id", Types.LongType.get()), Column.of("day", Types.StringType.get())])
    table = tables.load_table(NameIdentifier.of(schema_name, "events"))
    table.supports_tags().associate_tags(["gold"], [])
    columns = {c.name(): c for c in tables.load_table(NameIdentifier.of(schema_name, "events")).columns()}
    day = columns["day"].supports_tags()
    assert day.list_tags() == ["gold"]  # inherited from the table before it has any of its own
    assert day.get_tag("gold").inherited() is True
    assert day.associate_tags(["pii"], []) == ["pii"]
    assert {t.name(): t.inherited() for t in day.list_tags_info()} == {"pii": False, "gold": True}
    assert columns["id"].supports_tags().list_tags() == ["gold"]
    full = f"{catalog.name()}.{schema_name}.events.day"
    assert [(o.full_name(), o.type().value) for o in client.get_tag("pii").associated_objects().objects()] \
        == [(full, "column")]
    with pytest.raises(TagAlreadyAssociatedException):
        day.associate_tags(["pii"], [])

    # A column the table does not have is not found; nor is one of a missing table.
    base = f"metalakes/{metalake_name}/objects/column"
    r = api.post(f"{base}/{catalog.name()}.{schema_name}.events.nope/tags", {"tagsToAdd": ["pii"]})
    assert r.status_code == 404 and r.json()["type"] == "NoSuchMetadataObjectException", r.text
    r = api.get(f"{base}/{catalog.name()}.{schema_name}.missing.day/tags")
    assert r.status_code == 404, r.text
    r = api.get(f"{base}/{catalog.name()}.{schema_name}.events/tags")  # three parts: not a column
    assert r.status_code == 400, r.text
    # Policies do not go on columns (Gravitino's list), and columns have no owners of their own.
    r = api.post(f"{base}/{full}/policies", {"policiesToAdd": []})
    assert r.status_code == 400, r.text
    r = api.get(f"metalakes/{metalake_name}/owners/column/{full}")
    assert r.status_code == 405, r.text

    # A rename through the API takes the column's tags along; a drop of the column drops them.
    tables.alter_table(NameIdentifier.of(schema_name, "events"), TableChange.rename_column(["day"], "dt"))
    renamed = {c.name(): c for c in tables.load_table(NameIdentifier.of(schema_name, "events")).columns()}
    assert sorted(renamed["dt"].supports_tags().list_tags()) == ["gold", "pii"]
    assert [o.full_name() for o in client.get_tag("pii").associated_objects().objects()] == \
        [f"{catalog.name()}.{schema_name}.events.dt"]
    tables.alter_table(NameIdentifier.of(schema_name, "events"), TableChange.delete_column(["dt"], False))
    assert client.get_tag("pii").associated_objects().objects() == []
    tables.alter_table(NameIdentifier.of(schema_name, "events"),
                       TableChange.add_column(["dt"], Types.StringType.get(), None,
                                              TableChange.ColumnPosition.default_pos()))
    again = {c.name(): c for c in tables.load_table(NameIdentifier.of(schema_name, "events")).columns()}
    assert again["dt"].supports_tags().list_tags() == ["gold"]
