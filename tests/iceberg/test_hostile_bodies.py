"""Bodies built to crash or stall the server: types nested tens of thousands deep, JSON nested a
million deep, wrongly typed fields. Each must be a prompt 400 in the protocol's format, and the
server must go on answering."""

from __future__ import annotations

import json

import pytest
import requests

from ice_helpers import assert_iceberg_error, unique

BAD_REQUEST = ("IllegalArgumentException", "BadRequestException")


def nested_list_type(depth: int) -> str:
    """An Iceberg list type nested `depth` deep, as text (json.dumps would recurse)."""
    head = '{"type":"list","element-id":%d,"element-required":false,"element":'
    parts = [head % (i + 2) for i in range(depth)]
    return "".join(parts) + '"long"' + "}" * depth


def create_body(type_text: str) -> str:
    return ('{"name":"%s","schema":{"type":"struct","schema-id":0,"fields":'
            '[{"id":1,"name":"c","required":false,"type":%s}]}}' % (unique("deep"), type_text))


def assert_alive(ice):
    r = requests.get(f"{ice.base}/api/version", timeout=10)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("depth", [50_000, 2_000])
def test_deeply_nested_type_is_refused(ice, ns, depth):
    body = create_body(nested_list_type(depth))
    r = ice.rest("POST", f"namespaces/{ns}/tables", data=body)
    err = assert_iceberg_error(r, 400, BAD_REQUEST)
    assert "nest" in err["message"].lower() or "depth" in err["message"].lower(), err
    assert_alive(ice)
    assert ice.rest("GET", f"namespaces/{ns}/tables").json()["identifiers"] == []


def test_json_nested_a_million_deep_is_refused(ice, ns):
    for body in ["[" * 1_000_000 + "]" * 1_000_000, '{"a":' * 300_000 + "1" + "}" * 300_000]:
        r = ice.rest("POST", f"namespaces/{ns}/tables", data=body)
        assert_iceberg_error(r, 400, BAD_REQUEST)
        r = ice.rest("POST", "namespaces", data=body)
        assert_iceberg_error(r, 400, BAD_REQUEST)
    assert_alive(ice)


def test_moderately_nested_type_still_works(ice, ns):
    name = unique("nested")
    body = ('{"name":"%s","schema":{"type":"struct","schema-id":0,"fields":'
            '[{"id":1,"name":"c","required":false,"type":%s}]}}' % (name, nested_list_type(20)))
    r = ice.rest("POST", f"namespaces/{ns}/tables", data=body)
    assert r.status_code == 200, r.text[:300]
    loaded = ice.load_table_json(ns, name)["metadata"]
    t = loaded["schemas"][0]["fields"][0]["type"]
    depth = 0
    while isinstance(t, dict):
        t, depth = t["element"], depth + 1
    assert depth == 20 and t == "long"


def test_deep_gravitino_type_is_refused(ice):
    depth = 50_000
    t = '{"type":"list","containsNull":true,"elementType":' * depth + '"long"' + "}" * depth
    schema = unique("s")
    r = ice.api_post(ice.api_schema_path(), {"name": schema, "properties": {}})
    assert r.status_code == 200, r.text
    body = ('{"name":"deep","columns":[{"name":"c","type":%s,"nullable":true}],'
            '"properties":{}}' % t)
    r = ice.session.post(f"{ice.base}/api/{ice.api_table_path(schema)}", data=body,
                         headers={"Content-Type": "application/json",
                                  "Accept": "application/vnd.gravitino.v1+json"}, timeout=60)
    assert r.status_code == 400, r.text[:300]
    assert r.json()["code"] == 1001
    assert_alive(ice)


@pytest.mark.parametrize("body", [
    {"name": {}, "schema": {"type": "struct", "fields": []}},
    {"name": 5, "schema": {"type": "struct", "fields": []}},
    {"name": "x", "schema": 5},
])
def test_wrongly_typed_create_fields_are_400(ice, ns, body):
    r = ice.rest("POST", f"namespaces/{ns}/tables", json.loads(json.dumps(body)))
    err = assert_iceberg_error(r, 400)
    assert "json.exception" not in err["message"]


@pytest.mark.parametrize("updates,requirements", [([], [5]), ([5], []), ([{"action": {}}], [])])
def test_wrongly_typed_commit_fields_are_400(ice, catalog, ns, updates, requirements):
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField
    name = unique("c")
    catalog.create_table((ns, name), Schema(NestedField(1, "id", LongType(), required=False)))
    r = ice.rest("POST", ice.table_path(ns, name),
                 {"requirements": requirements, "updates": updates})
    err = assert_iceberg_error(r, 400)
    assert "json.exception" not in err["message"]


@pytest.mark.parametrize("type_text,field", [
    ('"blob"', "type"), ('"decimal(99999999999999999999,1)"', "decimal"),
    ('"fixed[-1]"', "fixed"), ('"decimal(39,2)"', "decimal"), ('"decimal(5,6)"', "decimal"),
    ('"fixed[0]"', "fixed"),
])
def test_invalid_types_are_refused(ice, ns, type_text, field):
    r = ice.rest("POST", f"namespaces/{ns}/tables", data=create_body(type_text))
    err = assert_iceberg_error(r, 400, BAD_REQUEST)
    assert field in err["message"].lower(), err
    assert ice.rest("GET", f"namespaces/{ns}/tables").json()["identifiers"] == []
