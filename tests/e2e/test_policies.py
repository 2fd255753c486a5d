"""Policies over plain HTTP in the shapes of Gravitino 1.3's policies.yaml (its 1.3 Python client has
no policy API): create, list, get, alter, enable/disable, delete; attach them to catalogs, schemas,
tables and filesets; inheritance; the objects of a policy; what a drop or rename does to an
association; and bad input (docs/tags-and-policies.md)."""

from urllib.parse import quote

import pytest

from gravitino import Catalog, NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.types.types import Types

from helpers import assert_audit, assert_error, ok_json, unique


def custom(name, types=("TABLE",), rules=None, **extra):
    body = {"name": name, "policyType": "custom",
            "content": {"supportedObjectTypes": list(types)}}
    if rules is not None:
        body["content"]["customRules"] = rules
    body.update(extra)
    return body


@pytest.fixture
def base(metalake_name):
    return f"metalakes/{metalake_name}"


@pytest.fixture
def table(tables, schema_name):
    ident = NameIdentifier.of(schema_name, "events")
    tables.create_table(ident, [Column.of("id", Types.LongType.get())])
    return tables.load_table(ident)


def objects(base, type_, full_name):
    return f"{base}/objects/{type_}/{quote(full_name, safe='')}/policies"


def test_policy_lifecycle(api, base):
    body = custom("retention", ("CATALOG", "schema", "TABLE", "table"),
                  rules={"days": 30, "tiers": ["hot", "cold"], "legal": {"hold": False}},
                  comment="keep 30 days", enabled=False)
    body["content"]["properties"] = {"owner": "sec"}
    created = ok_json(api.post(f"{base}/policies", body))["policy"]
    assert created["name"] == "retention"
    assert created["comment"] == "keep 30 days"
    assert created["policyType"] == "custom"
    assert created["enabled"] is False
    assert created["inherited"] is None
    # Types are read in any case, kept once each, and written as Gravitino writes its enums.
    assert created["content"] == {"customRules": {"days": 30, "tiers": ["hot", "cold"],
                                                  "legal": {"hold": False}},
                                  "supportedObjectTypes": ["catalog", "schema", "table"],
                                  "properties": {"owner": "sec"}}
    assert_audit(created["audit"])
    assert_error(api.post(f"{base}/policies", custom("retention")), 409, 1004,
                 "PolicyAlreadyExistsException")

    # `enabled` defaults to true; customRules and properties may be absent.
    minimal = ok_json(api.post(f"{base}/policies", custom("minimal")))["policy"]
    assert minimal["enabled"] is True
    assert minimal["content"]["customRules"] == {} and minimal["content"]["properties"] == {}

    assert sorted(ok_json(api.get(f"{base}/policies"))["names"]) == ["minimal", "retention"]
    details = ok_json(api.get(f"{base}/policies", params={"details": "true"}))["policies"]
    assert {p["name"]: p["enabled"] for p in details} == {"minimal": True, "retention": False}
    assert ok_json(api.get(f"{base}/policies/retention"))["policy"]["content"] == created["content"]

    # Enable and disable: BaseResponse, the flag flips, and again is no change.
    assert ok_json(api.patch(f"{base}/policies/retention", {"enable": True})) == {"code": 0}
    got = ok_json(api.get(f"{base}/policies/retention"))["policy"]
    assert got["enabled"] is True and got["audit"].get("lastModifier") == "anonymous"
    assert ok_json(api.patch(f"{base}/policies/retention", {"enable": True})) == {"code": 0}
    ok_json(api.patch(f"{base}/policies/retention", {"enable": False}))
    assert ok_json(api.get(f"{base}/policies/retention"))["policy"]["enabled"] is False

    # Alter: rename, comment and content, in order and all at once.
    altered = ok_json(api.put(f"{base}/policies/retention", {"updates": [
        {"@type": "rename", "newName": "retention90"},
        {"@type": "updateComment", "newComment": "keep 90 days"},
        {"@type": "updateContent", "policyType": "custom",
         "newContent": {"customRules": {"days": 90}, "supportedObjectTypes": ["TABLE"]}},
    ]}))["policy"]
    assert altered["name"] == "retention90" and altered["comment"] == "keep 90 days"
    assert altered["content"]["customRules"] == {"days": 90}
    assert altered["content"]["supportedObjectTypes"] == ["table"]
    assert altered["enabled"] is False
    assert_error(api.get(f"{base}/policies/retention"), 404, 1003, "NoSuchPolicyException")
    # A content change of another type, a rename onto another policy: refused, nothing changed.
    assert_error(api.put(f"{base}/policies/retention90", {"updates": [
        {"@type": "updateContent", "policyType": "system_iceberg_compaction", "newContent": {}}]}),
        400, 1001)
    assert_error(api.put(f"{base}/policies/retention90", {"updates": [
        {"@type": "updateComment", "newComment": "lost"},
        {"@type": "rename", "newName": "minimal"}]}), 409, 1004, "PolicyAlreadyExistsException")
    assert ok_json(api.get(f"{base}/policies/retention90"))["policy"]["comment"] == "keep 90 days"

    assert ok_json(api.delete(f"{base}/policies/retention90"))["dropped"] is True
    assert ok_json(api.delete(f"{base}/policies/retention90"))["dropped"] is False
    assert ok_json(api.get(f"{base}/policies"))["names"] == ["minimal"]
    assert_error(api.get(f"{base}/policies/retention90"), 404, 1003, "NoSuchPolicyException")
    assert_error(api.get("metalakes/nope_ml/policies"), 404, 1003, "NoSuchMetalakeException")


def test_builtin_compaction_policy(api, base):
    created = ok_json(api.post(f"{base}/policies", {
        "name": "compact", "policyType": "SYSTEM_ICEBERG_COMPACTION",
        "content": {"minDeleteFileNumber": 5, "rewriteOptions": {"target-file-size-bytes": "1024"}}}))
    policy = created["policy"]
    assert policy["policyType"] == "system_iceberg_compaction"
    # The fields not given take Gravitino's defaults.
    assert policy["content"] == {"minDataFileMse": 405323966463344, "minDeleteFileNumber": 5,
                                 "dataFileMseWeight": 1, "deleteFileNumberWeight": 100,
                                 "maxPartitionNum": 50,
                                 "rewriteOptions": {"target-file-size-bytes": "1024"}}
    updated = ok_json(api.put(f"{base}/policies/compact", {"updates": [
        {"@type": "updateContent", "policyType": "system_iceberg_compaction",
         "newContent": {"maxPartitionNum": 7}}]}))["policy"]
    assert updated["content"]["maxPartitionNum"] == 7
    assert updated["content"]["minDeleteFileNumber"] == 1  # the new content replaces the old
    for bad in ({"maxPartitionNum": 0}, {"minDataFileMse": -1}, {"minDataFileMse": "big"},
                {"rewriteOptions": {"job.options.x": "1"}}, {"rewriteOptions": {"a b": "1"}},
                {"rewriteOptions": {"k": " "}}):
        r = api.post(f"{base}/policies", {"name": unique("c"),
                                          "policyType": "system_iceberg_compaction",
                                          "content": bad})
        assert_error(r, 400, 1001)
    for unknown in ("system_vacuum", "retention", ""):
        r = api.post(f"{base}/policies", {"name": unique("c"), "policyType": unknown,
                                          "content": {"supportedObjectTypes": ["TABLE"]}})
        assert_error(r, 400, 1001)
        assert "policyType" in r.json()["message"] or "policy type" in r.json()["message"]
    assert sorted(ok_json(api.get(f"{base}/policies"))["names"]) == ["compact"]


def test_policies_attach_to_objects_and_are_inherited(api, base, catalog, schema_name, table):
    for name in ("retention", "pii", "quality", "compact"):
        ok_json(api.post(f"{base}/policies", custom(name)))
    cat = catalog.name()
    table_fn = f"{cat}.{schema_name}.events"
    assert ok_json(api.post(objects(base, "catalog", cat),
                            {"policiesToAdd": ["retention"]}))["names"] == ["retention"]
    assert ok_json(api.post(objects(base, "schema", f"{cat}.{schema_name}"),
                            {"policiesToAdd": ["pii", "quality"]}))["names"] == ["pii", "quality"]
    assert ok_json(api.post(objects(base, "table", table_fn),
                            {"policiesToAdd": ["quality", "compact"], "policiesToRemove": None}))[
        "names"] == ["compact", "quality"]
    assert_error(api.post(objects(base, "table", table_fn), {"policiesToAdd": ["compact"]}),
                 409, 1004, "PolicyAlreadyAssociatedException")
    assert_error(api.post(objects(base, "table", table_fn), {"policiesToAdd": ["nope"]}),
                 404, 1003, "NoSuchPolicyException")

    # The table's own policies, then its schema's and catalog's as inherited; one both on the
    # table and on its schema is listed once, as its own.
    assert ok_json(api.get(objects(base, "table", table_fn)))["names"] == [
        "compact", "quality", "pii", "retention"]
    listed = ok_json(api.get(objects(base, "table", table_fn), params={"details": "true"}))
    assert [(p["name"], p["inherited"]) for p in listed["policies"]] == [
        ("compact", False), ("quality", False), ("pii", True), ("retention", True)]
    one = ok_json(api.get(objects(base, "table", table_fn) + "/retention"))["policy"]
    assert one["inherited"] is True and one["content"]["supportedObjectTypes"] == ["table"]
    assert ok_json(api.get(objects(base, "table", table_fn) + "/compact"))["policy"][
        "inherited"] is False
    assert_error(api.get(objects(base, "table", table_fn) + "/nope"), 404, 1003,
                 "NoSuchPolicyException")
    assert ok_json(api.get(objects(base, "schema", f"{cat}.{schema_name}")))["names"] == [
        "pii", "quality", "retention"]

    # The objects of a policy, as Gravitino's MetadataObjectDTO.
    objs = ok_json(api.get(f"{base}/policies/quality/objects"))["metadataObjects"]
    assert sorted((o["type"], o["fullName"]) for o in objs) == [
        ("schema", f"{cat}.{schema_name}"), ("table", table_fn)]

    # A name both to add and to remove is neither; removing leaves the others.
    assert ok_json(api.post(objects(base, "table", table_fn), {
        "policiesToAdd": ["retention"], "policiesToRemove": ["retention", "compact"]}))[
        "names"] == ["quality"]

    # Renaming the table keeps its policies; dropping it drops the associations.
    ok_json(api.put(f"{base}/catalogs/{cat}/schemas/{schema_name}/tables/events",
                    {"updates": [{"@type": "rename", "newName": "events2"}]}))
    renamed = f"{cat}.{schema_name}.events2"
    assert ok_json(api.get(objects(base, "table", renamed)))["names"][0] == "quality"
    ok_json(api.delete(f"{base}/catalogs/{cat}/schemas/{schema_name}/tables/events2"))
    objs = ok_json(api.get(f"{base}/policies/quality/objects"))["metadataObjects"]
    assert [o["type"] for o in objs] == ["schema"]
    # Deleting a policy takes it off every object.
    ok_json(api.delete(f"{base}/policies/pii"))
    assert ok_json(api.get(objects(base, "schema", f"{cat}.{schema_name}")))["names"] == [
        "quality", "retention"]


def test_policies_on_filesets(api, base, client, tmp_path):
    fs_cat = unique("fcat")
    client.create_catalog(fs_cat, Catalog.Type.FILESET, "fileset", "", {
        "location": str(tmp_path / "fs")})
    ok_json(api.post(f"{base}/catalogs/{fs_cat}/schemas", {"name": "s"}))
    ok_json(api.post(f"{base}/catalogs/{fs_cat}/schemas/s/filesets", {"name": "raw"}))
    ok_json(api.post(f"{base}/policies", custom("retention", ("FILESET",))))
    assert ok_json(api.post(objects(base, "fileset", f"{fs_cat}.s.raw"),
                            {"policiesToAdd": ["retention"]}))["names"] == ["retention"]
    objs = ok_json(api.get(f"{base}/policies/retention/objects"))["metadataObjects"]
    assert objs == [{"fullName": f"{fs_cat}.s.raw", "type": "fileset"}]


def test_bad_policy_input_changes_nothing(api, base, catalog, schema_name, table):
    ok_json(api.post(f"{base}/policies", custom("retention")))
    table_path = objects(base, "table", f"{catalog.name()}.{schema_name}.events")
    bad_creates = [
        {"policyType": "custom", "content": {"supportedObjectTypes": ["TABLE"]}},  # no name
        {"name": "..", "policyType": "custom", "content": {"supportedObjectTypes": ["TABLE"]}},
        {"name": "a/b", "policyType": "custom", "content": {"supportedObjectTypes": ["TABLE"]}},
        {"name": "x\u0000y", "policyType": "custom",
         "content": {"supportedObjectTypes": ["TABLE"]}},
        {"name": "p1", "content": {"supportedObjectTypes": ["TABLE"]}},  # no policyType
        {"name": "p1", "policyType": "custom"},  # no content
        {"name": "p1", "policyType": "custom", "content": []},
        {"name": "p1", "policyType": "custom", "content": {}},
        {"name": "p1", "policyType": "custom", "content": {"supportedObjectTypes": []}},
        {"name": "p1", "policyType": "custom", "content": {"supportedObjectTypes": ["SHELF"]}},
        {"name": "p1", "policyType": "custom", "content": {"supportedObjectTypes": "TABLE"}},
        {"name": "p1", "policyType": "custom",
         "content": {"supportedObjectTypes": ["TABLE"], "customRules": [1]}},
        {"name": "p1", "policyType": "custom",
         "content": {"supportedObjectTypes": ["TABLE"], "properties": {"k": 1}}},
        {"name": "p1", "policyType": "custom", "enabled": "yes",
         "content": {"supportedObjectTypes": ["TABLE"]}},
    ]
    for body in bad_creates:
        assert_error(api.post(f"{base}/policies", body), 400, 1001)
    r = api.post(f"{base}/policies", {"name": "p1", "policyType": "custom",
                                      "content": {"supportedObjectTypes": ["SHELF"]}})
    assert "supportedObjectTypes[0]" in r.json()["message"]
    deep = ('{"name": "deep", "policyType": "custom", "content": {"supportedObjectTypes": '
            '["TABLE"], "customRules": ' + '{"n": ' * 1000000 + '{}' + '}' * 1000000 + '}}')
    assert_error(api.request("POST", f"{base}/policies", data=deep), 400, 1001)

    for updates in ({"updates": {}}, {"updates": [{"@type": "explode"}]},
                    {"updates": [{"@type": "rename"}]}, {"updates": [{"@type": "rename",
                                                                       "newName": "../x"}]},
                    {"updates": [{"@type": "updateContent", "policyType": "custom",
                                  "newContent": {"supportedObjectTypes": []}}]}):
        assert_error(api.put(f"{base}/policies/retention", updates), 400, 1001)
    for body in ({}, {"enable": "true"}, {"enable": None}):
        assert_error(api.patch(f"{base}/policies/retention", body), 400, 1001)
    for body in ({}, {"policiesToAdd": None, "policiesToRemove": None},
                 {"policiesToAdd": "retention"}, {"policiesToAdd": [""]},
                 {"policiesToAdd": [None]}):
        r = api.post(table_path, body)
        assert_error(r, 400, 1001)
    # A type policies do not go on, a name of the wrong shape for its type, a missing object.
    assert_error(api.post(objects(base, "metalake", base.split("/")[1]),
                          {"policiesToAdd": ["retention"]}), 400, 1001)
    assert_error(api.get(objects(base, "table", f"{catalog.name()}.{schema_name}")), 400, 1001,
                 "IllegalMetadataObjectException")
    assert_error(api.get(objects(base, "table", f"{catalog.name()}.{schema_name}.nope")), 404,
                 1003)

    # Nothing was created, changed or attached by any of these.
    assert ok_json(api.get(f"{base}/policies"))["names"] == ["retention"]
    got = ok_json(api.get(f"{base}/policies/retention"))["policy"]
    assert got["enabled"] is True and got["content"]["supportedObjectTypes"] == ["table"]
    assert ok_json(api.get(table_path))["names"] == []
    assert ok_json(api.get(f"{base}/policies/retention/objects"))["metadataObjects"] == []


def test_policies_are_served_with_authorization_off(api, base):
    # The suite's server runs without authorization: policies answer, the access-control
    # paths do not.
    ok_json(api.post(f"{base}/policies", custom(unique("p"))))
    assert len(ok_json(api.get(f"{base}/policies"))["names"]) == 1
