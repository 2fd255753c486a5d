"""Topics in the access matrix, with Gravitino's privileges: creating needs use of the catalog
and schema and CREATE_TOPIC; reading a topic needs CONSUME_TOPIC or PRODUCE_TOPIC (or
ownership); altering and dropping, ownership. The creating user owns the topic. A refusal never
reaches the broker: after every one the cluster's topics and Cairn's answers are unchanged."""

from __future__ import annotations

import os

import pytest

from sec_helpers import Admin, Principal, create_metalake, sobj, unique

BOOTSTRAP = os.environ.get("CAIRN_TEST_KAFKA_BOOTSTRAP")
pytestmark = pytest.mark.skipif(not BOOTSTRAP, reason="no Kafka broker (tests/e2e/run.sh starts one)")


def test_topic_privileges(authz_server, admin):
    ml = create_metalake(admin)
    cat = unique("kafka")
    admin.ok("POST", f"metalakes/{ml}/catalogs", {
        "name": cat, "type": "messaging", "provider": "kafka", "comment": "topics",
        "properties": {"bootstrap.servers": BOOTSTRAP}})
    base = f"metalakes/{ml}/catalogs/{cat}/schemas/default/topics"
    t = unique("t")
    admin.ok("POST", base, {"name": t, "properties": {"partition-count": "2"}})

    a = Admin(admin, ml)
    use = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA")]
    a.user_with("creator", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "CREATE_TOPIC")])
    a.user_with("consumer", use + [sobj("TOPIC", f"{cat}.default.{t}", "CONSUME_TOPIC")])
    a.user_with("producer", use + [sobj("TOPIC", f"{cat}.default.{t}", "PRODUCE_TOPIC")])
    a.user_with("user", use)
    stranger = Principal(authz_server.url, unique("stranger"))
    p = {u: Principal(authz_server.url, u) for u in ("creator", "consumer", "producer", "user")}

    def state():
        names = sorted(i["name"] for i in admin.ok("GET", base)["identifiers"])
        topic = admin.ok("GET", f"{base}/{t}")["topic"]
        return names, topic.get("comment"), topic["properties"]["partition-count"]

    def refused(principal, method, path, payload=None):
        before = state()
        r = principal.api(method, path, payload)
        assert r.status_code == 403, (principal.user, method, path, r.status_code, r.text)
        assert state() == before, (principal.user, method, path)

    grow = {"updates": [{"@type": "setProperty", "property": "partition-count", "value": "4"}]}

    # Reading: CONSUME_TOPIC or PRODUCE_TOPIC; the catalog and schema alone are not enough.
    for who in ("user", "creator"):
        refused(p[who], "GET", f"{base}/{t}")
    refused(stranger, "GET", f"{base}/{t}")
    refused(stranger, "GET", f"{base}/nope")  # a denial, not a 404
    assert p["consumer"].ok("GET", f"{base}/{t}")["topic"]["name"] == t
    assert p["producer"].ok("GET", f"{base}/{t}")["topic"]["name"] == t
    # The list shows only the topics one may read.
    assert [i["name"] for i in p["consumer"].ok("GET", base)["identifiers"]] == [t]
    assert p["user"].ok("GET", base)["identifiers"] == []

    # Altering and dropping: the owner only (denied before the body is read).
    for who in ("consumer", "producer", "user"):
        refused(p[who], "PUT", f"{base}/{t}", grow)
        refused(p[who], "DELETE", f"{base}/{t}")
    refused(p["producer"], "PUT", f"{base}/{t}", {"updates": 7})

    # Creating: CREATE_TOPIC on the schema; the creator then owns the topic.
    mine = unique("mine")
    for who in ("consumer", "producer", "user"):
        refused(p[who], "POST", base, {"name": mine})
    refused(p["user"], "POST", base, {"name": 7})
    assert p["creator"].ok("POST", base, {"name": mine})["topic"]["name"] == mine
    assert a.get_owner("topic", f"{cat}.default.{mine}")["owner"]["name"] == "creator"
    assert p["creator"].ok("PUT", f"{base}/{mine}", grow)["topic"]["properties"][
        "partition-count"] == "4"
    assert p["creator"].ok("DELETE", f"{base}/{mine}")["dropped"] is True

    # A deny of CONSUME_TOPIC on the schema takes reading away again.
    a.create_role("notopics", [sobj("SCHEMA", f"{cat}.default", "CONSUME_TOPIC", deny=True)])
    a.grant_roles("consumer", ["notopics"])
    refused(p["consumer"], "GET", f"{base}/{t}")
    admin.ok("DELETE", f"{base}/{t}")
