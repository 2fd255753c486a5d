"""Bad input through plain HTTP: malformed JSON, wrong types, unknown @type, bad names,
oversized bodies. The server must answer with the error envelope and stay healthy."""

import select
import socket
import time
from urllib.parse import urlsplit

import pytest

from helpers import (
    ILLEGAL_ARG_TYPES,
    assert_error,
    cat_path,
    column,
    iceberg_catalog_body,
    ok_json,
    schema_path,
    table_body,
    table_path,
    unique,
)


@pytest.mark.parametrize("raw", [
    b"{not json",
    b'{"name": "x",',
    b"[1, 2",
    b"\xff\xfe\x00garbage",
])
def test_malformed_json_metalake(api, raw):
    r = api.request("POST", "metalakes", data=raw)
    body = assert_error(r, 400, 1001, "IllegalArgumentException")
    assert body["message"]


def test_malformed_json_everywhere(api, metalake_name, catalog, catalog_name, schema_name):
    for method, path in [
        ("PUT", f"metalakes/{metalake_name}"),
        ("PATCH", f"metalakes/{metalake_name}"),
        ("POST", cat_path(metalake_name)),
        ("PUT", cat_path(metalake_name, catalog_name)),
        ("POST", schema_path(metalake_name, catalog_name)),
        ("PUT", schema_path(metalake_name, catalog_name, schema_name)),
        ("POST", table_path(metalake_name, catalog_name, schema_name)),
    ]:
        r = api.request(method, path, data=b'{"oops": ')
        assert_error(r, 400, 1001, "IllegalArgumentException")


@pytest.mark.parametrize("body", [
    {"name": ["not", "a", "string"]},
    {"name": {"nested": 1}},
    {"name": "ok_name", "properties": ["a", "b"]},
    {"name": "ok_name", "properties": {"k": {"nested": "object"}}},
    {"name": "ok_name", "comment": {"x": 1}},
    ["a", "list"],
    "just a string",
    42,
])
def test_wrong_field_types_metalake(api, body):
    assert_error(api.post("metalakes", body), 400, 1001)


def test_wrong_field_types_catalog_schema_table(api, metalake_name, catalog, catalog_name,
                                                schema_name):
    assert_error(api.post(cat_path(metalake_name), {"name": "c", "type": 5,
                                                    "provider": "lakehouse-iceberg"}), 400, 1001)
    assert_error(api.post(schema_path(metalake_name, catalog_name),
                          {"name": "s", "properties": "nope"}), 400, 1001)
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name),
                          {"name": "t", "columns": "nope"}), 400, 1001)
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name),
                          {"name": "t", "columns": [{"name": "a", "type": 7}]}), 400, 1001)
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name),
                          table_body("t", [column("a", {"type": "struct",
                                                         "fields": "nope"})])), 400, 1001)
    assert_error(api.patch(f"metalakes/{metalake_name}", {"inUse": "maybe"}), 400, 1001)
    assert_error(api.put(f"metalakes/{metalake_name}", {"updates": "nope"}), 400, 1001)
    assert ok_json(api.get(table_path(metalake_name, catalog_name, schema_name)))[
        "identifiers"] == []


def test_unknown_update_type(api, metalake_name, catalog, catalog_name, schema_name):
    bad = {"updates": [{"@type": "teleport", "where": "moon"}]}
    for path in [f"metalakes/{metalake_name}", cat_path(metalake_name, catalog_name),
                 schema_path(metalake_name, catalog_name, schema_name)]:
        assert_error(api.put(path, bad), 400, 1001)
    ok_json(api.post(table_path(metalake_name, catalog_name, schema_name),
                     table_body("t", [column("a", "integer")])))
    assert_error(api.put(table_path(metalake_name, catalog_name, schema_name, "t"), bad), 400,
                 1001)
    # A missing @type is just as bad.
    assert_error(api.put(f"metalakes/{metalake_name}",
                         {"updates": [{"newComment": "x"}]}), 400, 1001)
    # Nothing was changed.
    ml = ok_json(api.get(f"metalakes/{metalake_name}"))["metalake"]
    assert ml["comment"] == "e2e metalake"


def test_unknown_type_string_in_column(api, metalake_name, catalog, catalog_name, schema_name,
                                       warehouse):
    body = table_body("t", [column("a", "no_such_type")])
    r = api.post(table_path(metalake_name, catalog_name, schema_name), body)
    assert r.status_code == 400, r.text
    assert r.json()["code"] == 1001


@pytest.mark.parametrize("name", ["bad name!", "x" * 65, "system", "semi;colon", "ünï"])
def test_illegal_metalake_names(api, name):
    assert_error(api.post("metalakes", {"name": name}), 400, 1001, ILLEGAL_ARG_TYPES)


@pytest.mark.parametrize("name", ["bad name!", "x" * 65, "system"])
def test_illegal_catalog_names(api, metalake_name, warehouse, name):
    assert_error(api.post(cat_path(metalake_name), iceberg_catalog_body(name, str(warehouse))),
                 400, 1001, ILLEGAL_ARG_TYPES)


def test_unknown_catalog_type_and_provider(api, metalake_name, warehouse):
    body = iceberg_catalog_body("c", str(warehouse))
    body["type"] = "spaceship"
    assert_error(api.post(cat_path(metalake_name), body), 400, 1001)
    body = iceberg_catalog_body("c", str(warehouse))
    body["provider"] = "nope"
    assert_error(api.post(cat_path(metalake_name), body), 400, 1001)
    assert ok_json(api.get(cat_path(metalake_name)))["identifiers"] == []


def test_missing_required_fields(api, metalake_name, catalog, catalog_name, schema_name):
    assert_error(api.post("metalakes", {"comment": "no name"}), 400, 1001)
    assert_error(api.post(cat_path(metalake_name), {"name": "c"}), 400, 1001)
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name),
                          {"columns": [{"name": "a", "type": "integer"}]}), 400, 1001)
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name),
                          {"name": "t", "columns": [{"name": "a"}]}), 400, 1001)


def test_percent_encoded_path_segments(api, admin):
    # Python quotes path segments with safe=""; the server must decode them.
    name = unique("enc")
    admin.create_metalake(name, None, None)
    try:
        encoded = "".join(f"%{ord(ch):02X}" for ch in name)
        assert ok_json(api.get(f"metalakes/{encoded}"))["metalake"]["name"] == name
    finally:
        api.delete(f"metalakes/{name}", params={"force": "true"})


def _raw_oversized_post(base_url: str, path: str, size: int, timeout: float = 60.0):
    """POST `size` bytes while watching for an early answer. Returns (status, elapsed)."""
    u = urlsplit(base_url)
    start = time.monotonic()
    sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
    try:
        head = (f"POST {path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\n"
                f"Content-Type: application/json\r\n"
                f"Accept: application/vnd.gravitino.v1+json\r\n"
                f"Content-Length: {size}\r\nConnection: close\r\n\r\n").encode()
        sock.sendall(head)
        chunk = b'{"name":"' + b"a" * (64 * 1024 - 9)
        sent = 0
        response = b""
        while sent < size and time.monotonic() - start < timeout:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            piece = chunk[: min(len(chunk), size - sent)]
            try:
                sock.sendall(piece)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(piece)
            chunk = b"a" * len(chunk)
        sock.settimeout(max(1.0, timeout - (time.monotonic() - start)))
        try:
            while b"\r\n" not in response:
                data = sock.recv(65536)
                if not data:
                    break
                response += data
        except (ConnectionResetError, socket.timeout):
            pass
        elapsed = time.monotonic() - start
        if not response:
            return None, elapsed
        status_line = response.split(b"\r\n", 1)[0].decode("latin-1")
        return int(status_line.split()[1]), elapsed
    finally:
        sock.close()


def test_oversized_body_is_rejected_quickly(base_url, api):
    status, elapsed = _raw_oversized_post(base_url, "/api/metalakes", 20 * 1024 * 1024)
    assert status in (413, 400), f"expected 413 or 400, got {status}"
    assert elapsed < 30, f"took {elapsed:.1f}s"
    # The server is still fine.
    ok_json(api.get("version"))


def test_server_survives_garbage_connection(base_url, api):
    u = urlsplit(base_url)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(b"\x16\x03\x01\x02\x00garbage that is not http\r\n\r\n")
        try:
            s.recv(1024)
        except OSError:
            pass
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(b"GET /api/version HTTP/1.1\r\n")  # incomplete request, then hang up
    ok_json(api.get("version"))
