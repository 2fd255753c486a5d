"""Idempotency keys of the Iceberg REST protocol (1.11): a mutation retried with its
`Idempotency-Key` is answered with the first attempt's final answer and lands once; the key used
for another request is refused; keys belong to their principal; and a second server on the same
metadata store answers a retry the first one finished."""

from __future__ import annotations

import json
import os
import threading
import time
import uuid

import pyarrow as pa
import pytest
import requests

from cairn_server import fresh_pg_database, running_cairn
from conftest import _make_catalog
from ice_helpers import Ice, assert_iceberg_error, ns_path, unique


def _key() -> str:
    # UUIDv7 as the spec asks: 48 bits of milliseconds, then random bits.
    b = bytearray(int(time.time() * 1000).to_bytes(6, "big") + os.urandom(10))
    b[6] = (b[6] & 0x0F) | 0x70
    b[8] = (b[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(b)))


def test_config_advertises_the_lifetime(ice):
    r = ice.config()
    assert r.status_code == 200
    assert r.json()["idempotency-key-lifetime"] == "PT30M"


def test_create_namespace_retried_with_its_key_answers_the_same(ice):
    key = _key()
    body = {"namespace": [unique("ns")], "properties": {"owner": "etl"}}
    first = ice.rest("POST", "namespaces", body, headers={"Idempotency-Key": key})
    assert first.status_code == 200, first.text
    again = ice.rest("POST", "namespaces", body, headers={"Idempotency-Key": key})
    assert again.status_code == 200 and again.json() == first.json()
    # Without the key the same request is a new one, and the namespace is there once.
    fresh = ice.rest("POST", "namespaces", body, headers={"Idempotency-Key": _key()})
    assert_iceberg_error(fresh, 409, "AlreadyExistsException")
    # The key names that one operation: another body is refused, and changes nothing.
    other = {"namespace": [unique("ns")]}
    reused = ice.rest("POST", "namespaces", other, headers={"Idempotency-Key": key})
    assert_iceberg_error(reused, 422)
    assert ice.rest("GET", f"namespaces/{ns_path(other['namespace'])}").status_code == 404


def test_a_final_error_is_replayed_too(ice):
    key = _key()
    path = f"namespaces/{ns_path(unique('missing'))}"
    first = ice.rest("DELETE", path, headers={"Idempotency-Key": key})
    assert_iceberg_error(first, 404, "NoSuchNamespaceException")
    again = ice.rest("DELETE", path, headers={"Idempotency-Key": key})
    assert again.status_code == 404 and again.json() == first.json()


def test_an_append_retried_with_its_key_lands_once(ice, catalog, ns):
    table = catalog.create_table(f"{ns}.events", schema=pa.schema([("id", pa.int64())]))
    sent: list[requests.PreparedRequest] = []

    def record(response, *args, **kwargs):
        if response.request.method == "POST":
            sent.append(response.request)

    key = _key()
    catalog._session.headers["Idempotency-Key"] = key
    catalog._session.hooks["response"].append(record)
    try:
        table.append(pa.table({"id": [1, 2, 3]}))
    finally:
        catalog._session.hooks["response"].remove(record)
        del catalog._session.headers["Idempotency-Key"]
    assert len(sent) == 1, [r.url for r in sent]
    commit = sent[0]
    before = ice.load_table_json(ns, "events")

    # The client lost the answer and sends the commit again, with its key.
    retry = requests.post(commit.url, data=commit.body, timeout=60,
                          headers={"Content-Type": "application/json", "Idempotency-Key": key})
    assert retry.status_code == 200, retry.text
    assert retry.json()["metadata-location"] == before["metadata-location"]
    after = ice.load_table_json(ns, "events")
    assert after["metadata-location"] == before["metadata-location"]
    assert len(after["metadata"]["snapshots"]) == 1
    assert catalog.load_table(f"{ns}.events").scan().to_arrow().num_rows == 3


def test_concurrent_retries_of_one_create_give_one_table_and_one_answer(ice, ns):
    key = _key()
    body = {"name": "t", "schema": {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "type": "long", "required": False}]}}
    answers: list[requests.Response] = []
    lock = threading.Lock()

    def send():
        r = requests.post(ice.rest_url(f"namespaces/{ns_path(ns)}/tables"),
                          data=json.dumps(body), timeout=60,
                          headers={"Content-Type": "application/json", "Idempotency-Key": key})
        with lock:
            answers.append(r)

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(r.status_code for r in answers)
    # Each waits for the first one and gets its answer; none runs the create again.
    assert statuses == [200] * 8, [(r.status_code, r.text[:200]) for r in answers]
    locations = {r.json()["metadata-location"] for r in answers}
    assert len(locations) == 1
    listed = ice.rest("GET", f"namespaces/{ns_path(ns)}/tables").json()["identifiers"]
    assert [i["name"] for i in listed] == ["t"]


@pytest.mark.parametrize("key", ["not-a-uuid", "0" * 36, "018f2e7a00007000800000000000000100"])
def test_a_key_that_is_not_a_uuid_is_400(ice, key):
    r = ice.rest("POST", "namespaces", {"namespace": [unique("ns")]},
                 headers={"Idempotency-Key": key})
    assert "Idempotency-Key" in assert_iceberg_error(r, 400, "BadRequestException")["message"]


def test_reads_and_metrics_ignore_the_key(ice, catalog, ns):
    catalog.create_table(f"{ns}.m", schema=pa.schema([("id", pa.int64())]))
    key = _key()
    for _ in range(2):
        r = ice.rest("GET", ice.table_path(ns, "m"), headers={"Idempotency-Key": key})
        assert r.status_code == 200
    # The key still names nothing: a mutation may use it.
    r = ice.rest("POST", "namespaces", {"namespace": [unique("ns")]},
                 headers={"Idempotency-Key": key})
    assert r.status_code == 200, r.text


def test_keys_belong_to_their_principal(ice):
    key = _key()
    body = {"namespace": [unique("ns")]}
    alice = {"Idempotency-Key": key, "Authorization": "Basic YWxpY2U6eA=="}  # alice:x
    bob = {"Idempotency-Key": key, "Authorization": "Basic Ym9iOng="}  # bob:x
    first = ice.rest("POST", "namespaces", body, headers=alice)
    assert first.status_code == 200, first.text
    # Bob's request with the same key text is his own: it runs, and meets alice's namespace.
    assert_iceberg_error(ice.rest("POST", "namespaces", body, headers=bob), 409)
    again = ice.rest("POST", "namespaces", body, headers=alice)
    assert again.status_code == 200 and again.json() == first.json()


def test_two_replicas_on_one_postgresql_answer_each_others_retries(tmp_path_factory, tmp_path):
    """Two servers on one PostgreSQL store: a retry that reaches the other replica gets the
    first one's answer, and the key used for another request is refused there too."""
    pg = os.environ.get("CAIRN_TEST_PG_URL")
    if not pg:
        pytest.fail("CAIRN_TEST_PG_URL is not set: run this suite through tests/e2e/run.sh",
                    pytrace=False)
    logs = tmp_path_factory.getbasetemp()
    with fresh_pg_database(pg, "cairn_idem") as url:
        env = {"CAIRN_STORE_TYPE": "postgres", "CAIRN_STORE_POSTGRES_URL": url}
        with running_cairn("idem-a", env, tmp_path / "a", logs) as a, \
                running_cairn("idem-b", env, tmp_path / "b", logs) as b:
            wh = tmp_path / "warehouse"
            wh.mkdir()
            ice_a = _make_catalog(a.url, wh)
            ice_b = Ice(b.url, ice_a.metalake, ice_a.catalog, wh)
            key = _key()
            body = {"namespace": [unique("ns")]}
            first = ice_a.rest("POST", "namespaces", body, headers={"Idempotency-Key": key})
            assert first.status_code == 200, first.text
            again = ice_b.rest("POST", "namespaces", body, headers={"Idempotency-Key": key})
            assert again.status_code == 200 and again.json() == first.json(), again.text
            other = ice_b.rest("POST", "namespaces", {"namespace": [unique("ns")]},
                               headers={"Idempotency-Key": key})
            assert_iceberg_error(other, 422)
            # A create whose first attempt went to A, retried on B: one table, one answer.
            create = {"name": "t", "schema": {"type": "struct", "schema-id": 0, "fields": [
                {"id": 1, "name": "id", "type": "long", "required": False}]}}
            key = _key()
            path = f"namespaces/{ns_path(body['namespace'])}/tables"
            made = ice_a.rest("POST", path, create, headers={"Idempotency-Key": key})
            assert made.status_code == 200, made.text
            retried = ice_b.rest("POST", path, create, headers={"Idempotency-Key": key})
            assert retried.status_code == 200, retried.text
            assert retried.json()["metadata-location"] == made.json()["metadata-location"]
