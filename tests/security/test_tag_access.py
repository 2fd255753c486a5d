"""Tags in the access matrix: who may create, see, alter, delete and apply a tag, with
Gravitino's expressions (create: METALAKE::OWNER || CREATE_TAG; load: METALAKE::OWNER ||
TAG::OWNER || APPLY_TAG; alter and delete: METALAKE::OWNER || TAG::OWNER; associate: may load the
object && (TAG::OWNER || APPLY_TAG)). After every refusal nothing has changed."""

from __future__ import annotations

from urllib.parse import quote

from sec_helpers import Admin, Principal, create_catalog, create_metalake, sobj, unique


def snapshot(admin: Principal, ml: str, table_fn: str) -> dict:
    tags = admin.ok("GET", f"metalakes/{ml}/tags", params={"details": "true"})["tags"]
    on_table = admin.ok("GET", f"metalakes/{ml}/objects/table/{quote(table_fn, safe='')}/tags")
    return {"tags": sorted((t["name"], t.get("comment")) for t in tags),
            "table": sorted(on_table["names"])}


def test_tag_privileges(authz_server, admin, tmp_path):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path / "wh")
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": "s"})
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas/s/tables", {
        "name": "t", "columns": [{"name": "id", "type": "long", "nullable": True}]})
    admin.ok("POST", f"metalakes/{ml}/tags", {"name": "pii"})
    table_fn = f"{cat}.s.t"
    a = Admin(admin, ml)
    base_reader = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE")]
    a.user_with("creator", [sobj("METALAKE", ml, "CREATE_TAG")])
    a.user_with("applier", base_reader + [sobj("TAG", "pii", "APPLY_TAG")])
    a.user_with("reader", base_reader)  # may see the table, may not apply the tag
    a.user_with("tagonly", [sobj("TAG", "pii", "APPLY_TAG")])  # may apply, cannot see the table
    stranger = Principal(authz_server.url, unique("stranger"))
    p = {u: Principal(authz_server.url, u) for u in ("creator", "applier", "reader", "tagonly")}
    objects_path = f"metalakes/{ml}/objects/table/{quote(table_fn, safe='')}/tags"

    def refused(principal, method, path, body=None, status=403):
        before = snapshot(admin, ml, table_fn)
        r = principal.api(method, path, body)
        assert r.status_code == status, (principal.user, method, path, r.status_code, r.text)
        assert snapshot(admin, ml, table_fn) == before, (principal.user, method, path)

    # Create: CREATE_TAG on the metalake (the creator then owns the tag).
    refused(p["reader"], "POST", f"metalakes/{ml}/tags", {"name": "x"})
    refused(stranger, "POST", f"metalakes/{ml}/tags", {"name": "x"})
    refused(p["reader"], "POST", f"metalakes/{ml}/tags", {"name": 7})  # denied before parsing
    assert p["creator"].ok("POST", f"metalakes/{ml}/tags", {"name": "mine"})["tag"]["name"] == "mine"
    assert a.get_owner("tag", "mine")["owner"]["name"] == "creator"

    # Load and list: only the tags one owns or may apply.
    assert sorted(p["creator"].ok("GET", f"metalakes/{ml}/tags")["names"]) == ["mine"]
    assert p["applier"].ok("GET", f"metalakes/{ml}/tags")["names"] == ["pii"]
    assert p["reader"].ok("GET", f"metalakes/{ml}/tags")["names"] == []
    refused(p["reader"], "GET", f"metalakes/{ml}/tags/pii")
    refused(p["reader"], "GET", f"metalakes/{ml}/tags/nope")  # a denial, not a 404
    assert p["applier"].ok("GET", f"metalakes/{ml}/tags/pii")["tag"]["name"] == "pii"

    # Alter and delete: the tag's owner (or the metalake's).
    refused(p["applier"], "PUT", f"metalakes/{ml}/tags/pii",
            {"updates": [{"@type": "updateComment", "newComment": "x"}]})
    refused(p["applier"], "DELETE", f"metalakes/{ml}/tags/pii")
    assert p["creator"].ok("PUT", f"metalakes/{ml}/tags/mine",
                           {"updates": [{"@type": "updateComment", "newComment": "c"}]})["tag"]["comment"] == "c"

    # Associate: may load the object, and owns or may apply the tag.
    refused(p["reader"], "POST", objects_path, {"tagsToAdd": ["pii"]})
    refused(p["tagonly"], "POST", objects_path, {"tagsToAdd": ["pii"]})
    refused(p["creator"], "POST", objects_path, {"tagsToAdd": ["mine"]})  # cannot see the table
    assert p["applier"].ok("POST", objects_path, {"tagsToAdd": ["pii"]})["names"] == ["pii"]
    # Listing an object's tags needs access to the object, and lists the tags one may load.
    assert p["applier"].ok("GET", objects_path)["names"] == ["pii"]
    assert p["reader"].ok("GET", objects_path)["names"] == []
    refused(p["tagonly"], "GET", objects_path)
    # The objects of a tag are those the caller may see.
    objs = p["applier"].ok("GET", f"metalakes/{ml}/tags/pii/objects")["metadataObjects"]
    assert objs == [{"fullName": table_fn, "type": "table"}]
    assert p["tagonly"].ok("GET", f"metalakes/{ml}/tags/pii/objects")["metadataObjects"] == []

    # A deny of APPLY_TAG on the metalake takes it away again.
    a.create_role("nodeny", [sobj("METALAKE", ml, "APPLY_TAG", deny=True)])
    a.grant_roles("applier", ["nodeny"])
    refused(p["applier"], "POST", objects_path, {"tagsToRemove": ["pii"]})
    assert admin.ok("DELETE", f"metalakes/{ml}/tags/mine")["dropped"] is True


def test_column_tags_follow_the_table(authz_server, admin, tmp_path):
    """A column is seen with its table: its tags need what loading the table needs, and applying
    one also the tag's APPLY_TAG (or ownership); privileges cannot be granted on a column."""
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path / "wh")
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": "s"})
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas/s/tables", {
        "name": "t", "columns": [{"name": "email", "type": "string", "nullable": True}]})
    admin.ok("POST", f"metalakes/{ml}/tags", {"name": "pii"})
    a = Admin(admin, ml)
    reader = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE")]
    a.user_with("applier", reader + [sobj("TAG", "pii", "APPLY_TAG")])
    a.user_with("reader", reader)
    a.user_with("tagonly", [sobj("TAG", "pii", "APPLY_TAG")])
    p = {u: Principal(authz_server.url, u) for u in ("applier", "reader", "tagonly")}
    column = f"metalakes/{ml}/objects/column/{cat}.s.t.email/tags"
    missing = f"metalakes/{ml}/objects/column/{cat}.s.t.nope/tags"

    def tags_on_column():
        return admin.ok("GET", column)["names"]

    for who, method, path, body in (("tagonly", "GET", column, None),
                                    ("tagonly", "POST", column, {"tagsToAdd": ["pii"]}),
                                    ("tagonly", "GET", missing, None),  # a denial, not a 404
                                    ("reader", "POST", column, {"tagsToAdd": ["pii"]})):
        r = p[who].api(method, path, body)
        assert r.status_code == 403, (who, method, path, r.status_code, r.text)
        assert tags_on_column() == []
    assert p["reader"].ok("GET", column)["names"] == []
    assert p["applier"].ok("POST", column, {"tagsToAdd": ["pii"]})["names"] == ["pii"]
    assert p["applier"].ok("GET", column)["names"] == ["pii"]
    assert p["reader"].ok("GET", column)["names"] == []  # a tag it may not load is not listed
    objs = p["applier"].ok("GET", f"metalakes/{ml}/tags/pii/objects")["metadataObjects"]
    assert objs == [{"fullName": f"{cat}.s.t.email", "type": "column"}]
    # The column of a table one may not load is not among the tag's objects.
    assert p["tagonly"].ok("GET", f"metalakes/{ml}/tags/pii/objects")["metadataObjects"] == []

    # No privilege binds to a column.
    r = admin.api("POST", f"metalakes/{ml}/roles", {
        "name": "colrole", "properties": {},
        "securableObjects": [{"fullName": f"{cat}.s.t.email", "type": "COLUMN",
                              "privileges": [{"name": "SELECT_TABLE", "condition": "ALLOW"}]}]})
    assert r.status_code == 400, r.text
