"""Model catalogs through the official Python client (its model catalog API end to end): register,
get, list, alter and delete models; link versions with one URI or several, aliases, get them by
number and by alias, their URIs with the default-URI rules, alter and delete them; 16 concurrent
links get 16 distinct numbers; and bad input is a clear 400 naming the field (docs/models.md)."""

import concurrent.futures

import pytest

from gravitino import Catalog, GravitinoClient, NameIdentifier
from gravitino.api.model_change import ModelChange
from gravitino.api.model_version_change import ModelVersionChange
from gravitino.exceptions.base import (
    ModelAlreadyExistsException,
    ModelVersionAliasesAlreadyExistException,
    NoSuchModelException,
    NoSuchModelVersionException,
    NoSuchModelVersionURINameException,
    NoSuchSchemaException,
)
from gravitino.namespace import Namespace

from helpers import assert_audit, assert_error, ok_json, unique


@pytest.fixture
def models(client, metalake_name):
    name = unique("mcat")
    catalog = client.create_catalog(name=name, catalog_type=Catalog.Type.MODEL, provider=None,
                                    comment="models", properties={})
    catalog.as_schemas().create_schema("ml", "model schema", {})
    yield catalog.as_model_catalog()
    client.drop_catalog(name, force=True)


@pytest.fixture
def base(models, metalake_name):
    return f"metalakes/{metalake_name}/catalogs/{models.name()}/schemas/ml/models"


def test_model_lifecycle(models):
    ident = NameIdentifier.of("ml", "churn")
    registered = models.register_model(ident, "churn classifier", {"team": "ds"})
    assert registered.name() == "churn"
    assert registered.comment() == "churn classifier"
    assert registered.properties() == {"team": "ds"}
    assert registered.latest_version() == 0
    assert registered.audit_info().creator() == "anonymous"
    with pytest.raises(ModelAlreadyExistsException):
        models.register_model(ident, None, {})
    with pytest.raises(NoSuchSchemaException):
        models.register_model(NameIdentifier.of("nope", "churn"), None, {})

    models.register_model(NameIdentifier.of("ml", "fraud"), None, {})
    assert sorted(i.name() for i in models.list_models(Namespace.of("ml"))) == ["churn", "fraud"]
    got = models.get_model(ident)
    assert got.comment() == "churn classifier" and got.latest_version() == 0

    altered = models.alter_model(ident, ModelChange.rename("churn2"),
                                 ModelChange.update_comment("renamed"),
                                 ModelChange.set_property("stage", "beta"),
                                 ModelChange.remove_property("team"))
    assert altered.name() == "churn2" and altered.comment() == "renamed"
    assert altered.properties() == {"stage": "beta"}
    assert altered.audit_info().last_modifier() == "anonymous"
    with pytest.raises(NoSuchModelException):
        models.get_model(ident)
    with pytest.raises(ModelAlreadyExistsException):
        models.alter_model(NameIdentifier.of("ml", "fraud"), ModelChange.rename("churn2"))

    assert models.delete_model(NameIdentifier.of("ml", "churn2")) is True
    assert models.delete_model(NameIdentifier.of("ml", "churn2")) is False
    assert [i.name() for i in models.list_models(Namespace.of("ml"))] == ["fraud"]


def test_versions_aliases_and_uris(models):
    ident = NameIdentifier.of("ml", "ranker")
    models.register_model(ident, None, {"default-uri-name": "s3"})
    models.link_model_version(ident, "s3://models/ranker/0", ["first"], "v0", {"k": "v"})
    models.link_model_version_with_multiple_uris(
        ident, {"s3": "s3://models/ranker/1", "hdfs": "hdfs://nn/ranker/1"}, ["prod", "latest"],
        "v1", {})
    with pytest.raises(ModelVersionAliasesAlreadyExistException):
        models.link_model_version(ident, "s3://models/ranker/x", ["prod"], None, {})
    assert models.get_model(ident).latest_version() == 2  # the refused link took no number

    assert models.list_model_versions(ident) == [0, 1]
    infos = {v.version(): v for v in models.list_model_version_infos(ident)}
    assert infos[0].uris() == {"unknown": "s3://models/ranker/0"}
    assert infos[0].aliases() == ["first"] and infos[0].comment() == "v0"
    assert infos[0].properties() == {"k": "v"}
    by_alias = models.get_model_version_by_alias(ident, "prod")
    assert by_alias.version() == 1 and sorted(by_alias.aliases()) == ["latest", "prod"]
    assert models.get_model_version(ident, 1).uris() == by_alias.uris()
    with pytest.raises(NoSuchModelVersionException):
        models.get_model_version(ident, 7)
    with pytest.raises(NoSuchModelVersionException):
        models.get_model_version_by_alias(ident, "nope")

    # URIs: by name; the only one; the version's default-uri-name, else the model's.
    assert models.get_model_version_uri(ident, 1, "hdfs") == "hdfs://nn/ranker/1"
    assert models.get_model_version_uri(ident, 0) == "s3://models/ranker/0"
    assert models.get_model_version_uri_by_alias(ident, "prod") == "s3://models/ranker/1"
    with pytest.raises(NoSuchModelVersionURINameException):
        models.get_model_version_uri(ident, 1, "gcs")

    # Alter: comment, properties, URIs, aliases (moving an alias means freeing it first).
    v1 = models.alter_model_version(ident, 1, ModelVersionChange.update_comment("one"),
                                    ModelVersionChange.set_property("default-uri-name", "hdfs"),
                                    ModelVersionChange.add_uri("gcs", "gs://b/ranker/1"),
                                    ModelVersionChange.update_uri("s3://models/ranker/1b", "s3"),
                                    ModelVersionChange.remove_uri("hdfs"),
                                    ModelVersionChange.update_aliases(["champion"], ["latest"]))
    assert v1.comment() == "one"
    assert v1.uris() == {"s3": "s3://models/ranker/1b", "gcs": "gs://b/ranker/1"}
    assert sorted(v1.aliases()) == ["champion", "prod"]
    assert v1.audit_info().last_modifier() == "anonymous"
    with pytest.raises(NoSuchModelVersionURINameException):
        models.get_model_version_uri(ident, 1)  # the default names a URI it no longer has
    with pytest.raises(ModelVersionAliasesAlreadyExistException):
        models.alter_model_version_by_alias(ident, "first",
                                            ModelVersionChange.update_aliases(["prod"], []))
    models.alter_model_version_by_alias(ident, "prod",
                                        ModelVersionChange.update_aliases([], ["prod"]))
    moved = models.alter_model_version_by_alias(ident, "first",
                                                ModelVersionChange.update_aliases(["prod"], []))
    assert moved.version() == 0 and sorted(moved.aliases()) == ["first", "prod"]

    # Delete by alias frees the alias; numbers are never given again.
    assert models.delete_model_version_by_alias(ident, "prod") is True
    assert models.delete_model_version_by_alias(ident, "prod") is False
    assert models.list_model_versions(ident) == [1]
    models.link_model_version(ident, "s3://models/ranker/2", ["prod"], None, {})
    assert models.list_model_versions(ident) == [1, 2]
    assert models.get_model_version_by_alias(ident, "prod").version() == 2
    assert models.delete_model_version(ident, 1) is True
    assert models.delete_model_version(ident, 1) is False

    # Deleting the model takes its versions with it; a new model of the name starts at 0.
    assert models.delete_model(ident)
    models.register_model(ident, None, {})
    assert models.list_model_versions(ident) == []
    assert models.get_model(ident).latest_version() == 0


def test_concurrent_links_get_distinct_numbers(base_url, metalake_name, models):
    ident = NameIdentifier.of("ml", "busy")
    models.register_model(ident, None, {})

    def link(i):
        c = GravitinoClient(uri=base_url, metalake_name=metalake_name)
        catalog = c.load_catalog(models.name()).as_model_catalog()
        catalog.link_model_version(ident, f"s3://models/busy/{i}", [f"a{i}"], None, {})

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(link, range(16)))
    assert models.list_model_versions(ident) == list(range(16))
    infos = models.list_model_version_infos(ident)
    assert sorted(v.uris()["unknown"] for v in infos) == sorted(f"s3://models/busy/{i}"
                                                                for i in range(16))
    by_alias = {v.aliases()[0]: v.uris()["unknown"] for v in infos}
    assert by_alias == {f"a{i}": f"s3://models/busy/{i}" for i in range(16)}
    assert models.get_model(ident).latest_version() == 16


def test_model_http_shapes_and_bad_input(api, base, models):
    created = ok_json(api.post(base, {"name": "m1", "comment": None, "properties": None}))
    assert created["model"]["latestVersion"] == 0 and "comment" not in created["model"]
    assert_audit(created["model"]["audit"])
    assert ok_json(api.post(f"{base}/m1/versions", {"uri": "s3://b/m1/0"})) == {"code": 0}
    v = ok_json(api.get(f"{base}/m1/versions/0"))["modelVersion"]
    assert v["uri"] == "s3://b/m1/0" and v["uris"] == {"unknown": "s3://b/m1/0"}
    assert v["aliases"] == [] and v["version"] == 0
    # A numeric alias addresses the version of that number.
    assert ok_json(api.get(f"{base}/m1/aliases/0"))["modelVersion"]["version"] == 0
    # Several URIs and no default: a lookup without a name says what to set.
    ok_json(api.post(f"{base}/m1/versions", {"uris": {"a": "s3://a", "b": "s3://b"}}))
    err = assert_error(api.get(f"{base}/m1/versions/1/uri"), 400, 1001)
    assert "default uri name" in err["message"]

    bad = [
        ("POST", base, {}, "name"),
        ("POST", base, {"name": "a/b"}, "name"),
        ("POST", base, {"name": ".."}, "name"),
        ("POST", base, {"name": "x", "properties": {"k": 1}}, "properties"),
        ("POST", f"{base}/m1/versions", {}, "uri"),
        ("POST", f"{base}/m1/versions", {"uris": {"a": ""}}, "URI"),
        ("POST", f"{base}/m1/versions", {"uri": "s3://x", "aliases": ["12"]}, "number"),
        ("POST", f"{base}/m1/versions", {"uri": "s3://x", "aliases": [" "]}, "alias"),
        ("POST", f"{base}/m1/versions", {"uri": "s3://x", "aliases": "a"}, "aliases"),
        ("PUT", f"{base}/m1", {"updates": [{"@type": "nope"}]}, "updates[0]"),
        ("PUT", f"{base}/m1", {"updates": [{"@type": "setProperty", "property": "k"}]}, "value"),
        ("PUT", f"{base}/m1/versions/0", {"updates": [{"@type": "removeUri", "uriName": "unknown"}]},
         "URI cannot be empty"),
        ("PUT", f"{base}/m1/versions/0", {"updates": [{"@type": "updateAliases"}]}, "aliasesToAdd"),
        ("GET", f"{base}/m1/versions/-1", None, "version"),
        ("GET", f"{base}/m1/versions/abc", None, "version"),
    ]
    for method, path, body, field in bad:
        err = assert_error(api.request(method, path, json_body=body), 400, 1001)
        assert field in err["message"], (method, path, body, err)
    assert_error(api.get(f"{base}/nope"), 404, 1003, "NoSuchModelException")
    assert_error(api.get(f"{base}/nope/versions/0"), 404, 1003, "NoSuchModelVersionException")
    assert ok_json(api.delete(f"{base}/nope/versions/0")) == {"code": 0, "dropped": False}
    # Nothing any refusal touched changed.
    assert ok_json(api.get(f"{base}/m1/versions"))["versions"] == [0, 1]
    assert ok_json(api.get(f"{base}/m1/versions/0"))["modelVersion"]["uris"] == {
        "unknown": "s3://b/m1/0"}
    assert [i["name"] for i in ok_json(api.get(base))["identifiers"]] == ["m1"]


def test_a_model_catalog_has_no_tables(api, metalake_name, models):
    r = api.get(f"metalakes/{metalake_name}/catalogs/{models.name()}/schemas/ml/tables")
    assert r.status_code in (400, 405), r.text
    # Dropping a schema with models needs cascade.
    models.register_model(NameIdentifier.of("ml", "kept"), None, {})
    r = api.delete(f"metalakes/{metalake_name}/catalogs/{models.name()}/schemas/ml")
    assert r.status_code == 409, r.text
    assert [i.name() for i in models.list_models(Namespace.of("ml"))] == ["kept"]
