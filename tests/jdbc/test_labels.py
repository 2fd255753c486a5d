"""Tags and policies on the schemas and tables of a jdbc-postgresql catalog: they are Cairn's own
links to the governance rows of the source's objects, so they go on objects made by hand in the
source too, even before anything listed them, and they go with a drop through Cairn."""

from __future__ import annotations

from urllib.parse import quote

from helpers import assert_error, ok_json, unique
from jdbc_helpers import col


def objects(ml: str, type_: str, full_name: str, kind: str) -> str:
    return f"metalakes/{ml}/objects/{type_}/{quote(full_name, safe='')}/{kind}"


def test_labels_on_objects_of_the_source(api, metalake, pg_catalog, pg):
    ml, cat = metalake, pg_catalog
    schema = unique("s")
    pg.exec(f'CREATE SCHEMA "{schema}"; CREATE TABLE "{schema}".hand (id int)')
    ok_json(api.post(f"metalakes/{ml}/tags", {"name": "pii"}))
    ok_json(api.post(f"metalakes/{ml}/policies", {
        "name": "keep", "policyType": "custom", "content": {"supportedObjectTypes": ["TABLE"]}}))

    # Made by hand and never listed through Cairn: the tag and the policy still go on.
    table_fn = f"{cat}.{schema}.hand"
    assert ok_json(api.post(objects(ml, "table", table_fn, "tags"),
                            {"tagsToAdd": ["pii"]}))["names"] == ["pii"]
    assert ok_json(api.post(objects(ml, "schema", f"{cat}.{schema}", "policies"),
                            {"policiesToAdd": ["keep"]}))["names"] == ["keep"]
    listed = ok_json(api.get(objects(ml, "table", table_fn, "policies"),
                             params={"details": "true"}))["policies"]
    assert [(p["name"], p["inherited"]) for p in listed] == [("keep", True)]
    assert ok_json(api.get(f"metalakes/{ml}/tags/pii/objects"))["metadataObjects"] == [
        {"fullName": table_fn, "type": "table"}]

    # What the source does not hold is still "no such object", and nothing is attached.
    assert_error(api.post(objects(ml, "table", f"{cat}.{schema}.nope", "tags"),
                          {"tagsToAdd": ["pii"]}), 404, 1003)
    assert_error(api.post(objects(ml, "schema", f"{cat}.nope_{schema}", "tags"),
                          {"tagsToAdd": ["pii"]}), 404, 1003)

    # A table created through Cairn carries its tags until it is dropped through Cairn.
    base = f"metalakes/{ml}/catalogs/{cat}/schemas/{schema}/tables"
    ok_json(api.post(base, {"name": "made", "columns": [col("id", "integer")]}))
    ok_json(api.post(objects(ml, "table", f"{cat}.{schema}.made", "tags"), {"tagsToAdd": ["pii"]}))
    names = sorted(o["fullName"] for o in ok_json(
        api.get(f"metalakes/{ml}/tags/pii/objects"))["metadataObjects"])
    assert names == sorted([table_fn, f"{cat}.{schema}.made"])
    ok_json(api.delete(f"{base}/made"))
    assert pg.query(f"SELECT count(*) FROM pg_tables WHERE schemaname = '{schema}' "
                    f"AND tablename = 'made'") == [["0"]]
    assert ok_json(api.get(f"metalakes/{ml}/tags/pii/objects"))["metadataObjects"] == [
        {"fullName": table_fn, "type": "table"}]


def test_tags_on_columns_of_the_source(api, metalake, pg_catalog, pg):
    ml, cat = metalake, pg_catalog
    schema = unique("s")
    pg.exec(f'CREATE SCHEMA "{schema}"; CREATE TABLE "{schema}".hand (id int, email text)')
    ok_json(api.post(f"metalakes/{ml}/tags", {"name": "pii"}))
    # A column of a table made by hand, never listed through Cairn, takes a tag.
    email = f"{cat}.{schema}.hand.email"
    assert ok_json(api.post(objects(ml, "column", email, "tags"),
                            {"tagsToAdd": ["pii"]}))["names"] == ["pii"]
    assert ok_json(api.get(objects(ml, "column", email, "tags")))["names"] == ["pii"]
    assert ok_json(api.get(objects(ml, "column", f"{cat}.{schema}.hand.id", "tags")))["names"] == []
    assert ok_json(api.get(f"metalakes/{ml}/tags/pii/objects"))["metadataObjects"] == [
        {"fullName": email, "type": "column"}]
    # A column the source's table does not have is no such object.
    assert_error(api.post(objects(ml, "column", f"{cat}.{schema}.hand.phone", "tags"),
                          {"tagsToAdd": ["pii"]}), 404, 1003)
    # Dropped in the source by hand: the column's tag is no longer shown on it.
    pg.exec(f'ALTER TABLE "{schema}".hand DROP COLUMN email')
    assert_error(api.get(objects(ml, "column", email, "tags")), 404, 1003)
