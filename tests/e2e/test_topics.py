"""Kafka catalogs against the run's real broker (docs/topics.md): topics created through Cairn
exist in Kafka at once (checked with Kafka's own kafka-topics and kafka-configs tools), topics
made with Kafka's tools are visible through Cairn at once, alterations change the cluster, and a
stopped broker is a quick error naming the catalog with nothing left behind. The Python client
1.3.1 has no topic API (`as_topic_catalog()` is unsupported there) and cannot load a messaging
catalog, so topics go over HTTP in the OpenAPI shapes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from helpers import assert_audit, assert_error, ok_json, unique
from kafka_broker import KafkaBroker, configs_cli, topics_cli

BOOTSTRAP = os.environ.get("CAIRN_TEST_KAFKA_BOOTSTRAP")
pytestmark = pytest.mark.skipif(not BOOTSTRAP, reason="no Kafka broker (tests/e2e/run.sh starts one)")


@pytest.fixture
def kafka_catalog(api, metalake_name):
    name = unique("kafka")
    ok_json(api.post(f"metalakes/{metalake_name}/catalogs", {
        "name": name, "type": "messaging", "provider": "kafka", "comment": "the run's broker",
        "properties": {"bootstrap.servers": BOOTSTRAP}}))
    return name


@pytest.fixture
def topics(metalake_name, kafka_catalog):
    return f"metalakes/{metalake_name}/catalogs/{kafka_catalog}/schemas/default/topics"


def describe(topic):
    return topics_cli(BOOTSTRAP, "--describe", "--topic", topic).stdout


def cluster_topics():
    return set(topics_cli(BOOTSTRAP, "--list").stdout.split())


def test_catalog_and_its_default_schema(client, api, metalake_name, kafka_catalog):
    # The 1.3.1 client lists messaging catalogs but cannot load one (its converter knows no
    # messaging type); the wire answer is checked instead.
    assert kafka_catalog in client.list_catalogs()
    c = ok_json(api.get(f"metalakes/{metalake_name}/catalogs/{kafka_catalog}"))["catalog"]
    assert c["type"] == "messaging" and c["provider"] == "kafka"
    schemas = f"metalakes/{metalake_name}/catalogs/{kafka_catalog}/schemas"
    assert [i["name"] for i in ok_json(api.get(schemas))["identifiers"]] == ["default"]
    s = ok_json(api.get(f"{schemas}/default"))["schema"]
    assert s["name"] == "default" and "all topics" in s["comment"]
    assert_error(api.post(schemas, {"name": "other"}), 405, 1006)
    assert_error(api.delete(f"{schemas}/default"), 400, 1001)
    assert_error(api.get(f"{schemas}/nope/topics"), 404, 1003, "NoSuchSchemaException")
    # Gravitino's test-connection call reaches the broker, and says so when it cannot.
    probe = {"name": unique("probe"), "type": "messaging", "provider": "kafka",
             "properties": {"bootstrap.servers": BOOTSTRAP}}
    ok_json(api.post(f"metalakes/{metalake_name}/catalogs/testConnection", probe))
    probe["properties"]["bootstrap.servers"] = "127.0.0.1:1"
    r = api.post(f"metalakes/{metalake_name}/catalogs/testConnection", probe)
    assert r.json()["code"] == 1007, r.text
    # A catalog without its cluster's address is refused.
    assert_error(api.post(f"metalakes/{metalake_name}/catalogs", {
        "name": unique("k"), "type": "messaging", "provider": "kafka", "properties": {}}),
        400, 1001)


def test_topic_lifecycle_against_the_broker(api, topics):
    name = unique("orders")
    t = ok_json(api.post(topics, {"name": name, "comment": "every order", "properties": {
        "partition-count": "3", "retention.ms": "3600000"}}))["topic"]
    assert t["name"] == name and t["comment"] == "every order"
    assert t["properties"]["partition-count"] == "3"
    assert t["properties"]["replication-factor"] == "1"
    assert t["properties"]["retention.ms"] == "3600000"
    assert_audit(t["audit"])
    # In Kafka at once, as Kafka's own tools see it.
    out = describe(name)
    assert "PartitionCount: 3" in out and "retention.ms=3600000" in out
    assert_error(api.post(topics, {"name": name}), 409, 1004, "TopicAlreadyExistsException")

    loaded = ok_json(api.get(f"{topics}/{name}"))["topic"]
    assert loaded["comment"] == "every order"
    assert loaded["properties"]["cleanup.policy"] == "delete"  # the broker's configs
    assert name in [i["name"] for i in ok_json(api.get(topics))["identifiers"]]

    altered = ok_json(api.put(f"{topics}/{name}", {"updates": [
        {"@type": "setProperty", "property": "partition-count", "value": "5"},
        {"@type": "setProperty", "property": "cleanup.policy", "value": "compact"},
        {"@type": "removeProperty", "property": "retention.ms"},
        {"@type": "updateComment", "newComment": "compacted"}]}))["topic"]
    assert altered["comment"] == "compacted"
    assert altered["properties"]["partition-count"] == "5"
    assert altered["properties"]["cleanup.policy"] == "compact"
    assert altered["properties"]["retention.ms"] != "3600000"  # back to the broker's default
    assert altered["audit"]["lastModifier"] == "anonymous"
    out = describe(name)
    assert "PartitionCount: 5" in out and "cleanup.policy=compact" in out
    assert "retention.ms" not in out

    assert ok_json(api.delete(f"{topics}/{name}"))["dropped"] is True
    assert name not in cluster_topics()
    assert ok_json(api.delete(f"{topics}/{name}"))["dropped"] is False
    assert_error(api.get(f"{topics}/{name}"), 404, 1003, "NoSuchTopicException")


def test_topics_made_with_kafkas_tools_are_visible_at_once(api, topics):
    name = unique("clicks")
    topics_cli(BOOTSTRAP, "--create", "--topic", name, "--partitions", "2",
               "--config", "max.message.bytes=2000000")
    assert name in [i["name"] for i in ok_json(api.get(topics))["identifiers"]]
    t = ok_json(api.get(f"{topics}/{name}"))["topic"]
    assert t["properties"]["partition-count"] == "2"
    assert t["properties"]["max.message.bytes"] == "2000000"
    assert "comment" not in t
    # A comment is Cairn's own; the topic's configs set by hand stay as they were.
    ok_json(api.put(f"{topics}/{name}", {"updates": [
        {"@type": "updateComment", "newComment": "from the tools"},
        {"@type": "setProperty", "property": "retention.ms", "value": "7200000"}]}))
    out = configs_cli(BOOTSTRAP, "--describe", "--entity-type", "topics", "--entity-name",
                      name).stdout
    assert "max.message.bytes=2000000" in out and "retention.ms=7200000" in out
    # Dropped with Kafka's tools: gone from Cairn at once, and a new topic of the name starts
    # without the old one's comment.
    topics_cli(BOOTSTRAP, "--delete", "--topic", name)
    deadline = time.monotonic() + 30
    while name in [i["name"] for i in ok_json(api.get(topics))["identifiers"]]:
        assert time.monotonic() < deadline, "a topic deleted in Kafka is still listed"
        time.sleep(0.2)
    assert_error(api.get(f"{topics}/{name}"), 404, 1003, "NoSuchTopicException")
    ok_json(api.post(topics, {"name": name}))
    assert "comment" not in ok_json(api.get(f"{topics}/{name}"))["topic"]
    ok_json(api.delete(f"{topics}/{name}"))


@pytest.mark.parametrize("body, field", [
    ({"name": "bad/name"}, "topic name"),
    ({"name": "a" * 250}, "topic name"),
    ({"name": ".."}, "topic name"),
    ({"comment": "no name"}, "name"),
    ({"name": "t", "properties": {"partition-count": "zero"}}, "partition-count"),
    ({"name": "t", "properties": {"replication-factor": "3"}}, "replication"),
    ({"name": "t", "properties": {"no.such.config": "1"}}, "no.such.config"),
    ({"name": "t", "properties": {"retention.ms": "soon"}}, "retention.ms"),
])
def test_bad_topics_are_refused_and_not_created(api, topics, body, field):
    before = cluster_topics()
    err = assert_error(api.post(topics, body), 400, 1001)
    assert field.lower() in err["message"].lower(), err["message"]
    assert cluster_topics() == before


def test_bad_alterations_change_nothing(api, topics):
    name = unique("t")
    ok_json(api.post(topics, {"name": name, "properties": {"partition-count": "3"}}))
    for update, field in [
        ({"@type": "setProperty", "property": "partition-count", "value": "2"}, "reduce"),
        ({"@type": "setProperty", "property": "replication-factor", "value": "2"},
         "replication-factor"),
        ({"@type": "removeProperty", "property": "partition-count"}, "partition-count"),
        ({"@type": "rename", "newName": "other"}, "renamed"),
    ]:
        err = assert_error(api.put(f"{topics}/{name}", {"updates": [
            {"@type": "updateComment", "newComment": "not this"}, update]}), 400, 1001)
        assert field in err["message"], err["message"]
    # A config the broker refuses leaves the partitions of the same request alone.
    assert_error(api.put(f"{topics}/{name}", {"updates": [
        {"@type": "setProperty", "property": "partition-count", "value": "6"},
        {"@type": "setProperty", "property": "cleanup.policy", "value": "sometimes"}]}), 400, 1001)
    t = ok_json(api.get(f"{topics}/{name}"))["topic"]
    assert t["properties"]["partition-count"] == "3" and "comment" not in t
    assert "PartitionCount: 3" in describe(name)
    ok_json(api.delete(f"{topics}/{name}"))


def test_a_stopped_broker_is_a_quick_error_and_leaves_nothing(api, topics):
    broker = KafkaBroker.attach(Path(os.environ["CAIRN_TEST_KAFKA_DIR"]))
    name = unique("while_down")
    broker.stop()
    try:
        for method, path, body in [("POST", topics, {"name": name}), ("GET", topics, None),
                                   ("GET", f"{topics}/{name}", None)]:
            started = time.monotonic()
            r = api.request(method, path, json_body=body)
            took = time.monotonic() - started
            err = assert_error(r, 502, 1007, "ConnectionFailedException")
            assert "cannot reach its Kafka cluster" in err["message"], err["message"]
            assert took < 15, f"{method} {path} took {took:.1f}s"
    finally:
        broker.start()
    assert name not in cluster_topics()
    assert name not in [i["name"] for i in ok_json(api.get(topics))["identifiers"]]
    ok_json(api.post(topics, {"name": name}))
    assert ok_json(api.delete(f"{topics}/{name}"))["dropped"] is True


def test_topics_take_tags(api, topics, metalake_name, kafka_catalog):
    from urllib.parse import quote
    name = unique("tagged")
    ok_json(api.post(topics, {"name": name}))
    ok_json(api.post(f"metalakes/{metalake_name}/tags", {"name": "stream"}))
    full = quote(f"{kafka_catalog}.default.{name}", safe="")
    assert ok_json(api.post(f"metalakes/{metalake_name}/objects/topic/{full}/tags",
                            {"tagsToAdd": ["stream"]}))["names"] == ["stream"]
    # A topic made in Kafka and never listed through Cairn takes a tag as well.
    hand = unique("hand")
    topics_cli(BOOTSTRAP, "--create", "--topic", hand)
    hand_full = quote(f"{kafka_catalog}.default.{hand}", safe="")
    assert ok_json(api.post(f"metalakes/{metalake_name}/objects/topic/{hand_full}/tags",
                            {"tagsToAdd": ["stream"]}))["names"] == ["stream"]
    objects = ok_json(api.get(f"metalakes/{metalake_name}/tags/stream/objects"))
    assert sorted(o["fullName"] for o in objects["metadataObjects"]) == sorted(
        [f"{kafka_catalog}.default.{name}", f"{kafka_catalog}.default.{hand}"])
    ok_json(api.delete(f"{topics}/{name}"))
    ok_json(api.delete(f"{topics}/{hand}"))
