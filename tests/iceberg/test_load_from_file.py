"""loadTable answers whose metadata document is sent from the open metadata file (sendfile)
rather than from memory: the bytes are the same, whatever the reader's pace, and a file deleted
behind the catalog's back is never served."""

from __future__ import annotations

import json
import os
import socket
import struct
import time
from urllib.parse import urlsplit

import requests

from ice_helpers import assert_iceberg_error, local_path

SCHEMA_JSON = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"}]}


def wide_table(ice, ns: str, name: str, kilobytes: int) -> None:
    """A table whose metadata file is about `kilobytes` KB (large properties), so an answer
    outgrows what a small socket buffer takes at once."""
    props = {f"p{i:04}": "x" * 1000 for i in range(kilobytes)}
    r = ice.rest("POST", f"namespaces/{ns}/tables",
                 {"name": name, "schema": SCHEMA_JSON, "properties": props})
    assert r.status_code == 200, r.text[:300]


def open_files(base_url: str) -> float:
    text = requests.get(f"{base_url}/metrics", timeout=30).text
    for line in text.splitlines():
        if line.startswith("cairn_iceberg_metadata_open_files "):
            return float(line.split()[1])
    raise AssertionError("no cairn_iceberg_metadata_open_files in /metrics")


def raw_exchange(url: str, path: str, requests_sent: int, rcvbuf: int, pause_s: float,
                 body_bytes: int) -> bytes:
    """`requests_sent` pipelined keep-alive GETs of `path` on one connection with a small
    receive buffer, read only after a pause: everything the server sent, as bytes."""
    parts = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect((parts.hostname, parts.port))
    sock.settimeout(30)
    request = (f"GET {path} HTTP/1.1\r\nHost: {parts.hostname}\r\n\r\n" * requests_sent).encode()
    sock.sendall(request)
    time.sleep(pause_s)  # the server's sends fill the small buffers and must wait
    chunks, received = [], 0
    deadline = time.time() + 60
    while time.time() < deadline:
        chunk = sock.recv(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        received += len(chunk)
        if received >= requests_sent * body_bytes and complete(b"".join(chunks), requests_sent):
            break
    sock.close()
    return b"".join(chunks)


def complete(data: bytes, answers: int) -> bool:
    pos = 0
    for _ in range(answers):
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            return False
        head = data[pos:end].decode("latin-1").lower()
        length = int(head.split("content-length:")[1].split("\r\n")[0])
        pos = end + 4 + length
        if pos > len(data):
            return False
    return True


def bodies(data: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(data):
        end = data.index(b"\r\n\r\n", pos)
        head = data[pos:end].decode("latin-1").lower()
        assert head.startswith("http/1.1 200"), head[:200]
        length = int(head.split("content-length:")[1].split("\r\n")[0])
        out.append(data[end + 4:end + 4 + length])
        pos = end + 4 + length
    return out


def test_answers_sent_from_the_file_are_the_documents_bytes(ice, ns, base_url):
    # A metadata file of about 6 MB: more than a loopback socket's send buffer holds, so the
    # slow reader below makes the server's sendfile stop short and finish from memory.
    wide_table(ice, ns, "big", kilobytes=6000)
    path = ice.table_path(ns, "big")
    first = ice.rest("GET", path)
    assert first.status_code == 200
    location = first.json()["metadata-location"]
    on_disk = local_path(location).read_bytes()
    before = open_files(base_url)
    # The second load holds the file open; from then on answers are sent from it.
    for _ in range(3):
        r = ice.rest("GET", path)
        assert r.status_code == 200
        assert r.content == first.content
    assert open_files(base_url) >= before + 1
    # The document in the answer is the file, byte for byte.
    doc = first.content.split(b'"metadata":', 1)[1].rsplit(b',"config"', 1)[0]
    assert doc == on_disk
    assert json.loads(first.content)["metadata"]["properties"]["p5999"] == "x" * 1000

    # A slow reader with a small receive buffer, three answers pipelined on one connection:
    # the server sends what the socket takes from the file and the rest from memory.
    raw = raw_exchange(ice.rest_url(path), urlsplit(ice.rest_url(path)).path, 3,
                       rcvbuf=8192, pause_s=0.5, body_bytes=len(first.content))
    got = bodies(raw)
    assert len(got) == 3
    assert all(b == first.content for b in got)

    # HEAD still carries no body, and the connection goes on.
    s = requests.Session()
    h = s.head(ice.rest_url(path), timeout=30)
    assert h.status_code in (200, 204) and h.content == b""
    assert s.get(ice.rest_url(path), timeout=30).content == first.content


def test_a_deleted_metadata_file_is_not_served_from_the_open_file(ice, ns):
    wide_table(ice, ns, "gone", kilobytes=4)
    path = ice.table_path(ns, "gone")
    for _ in range(3):  # held open from the second load
        r = ice.rest("GET", path)
        assert r.status_code == 200
    etag = r.headers["ETag"]
    os.remove(local_path(r.json()["metadata-location"]))
    assert_iceberg_error(ice.rest("GET", path), 404)
    assert_iceberg_error(ice.rest("GET", path, headers={"If-None-Match": etag}), 404)


def test_a_reader_that_hangs_up_mid_answer_leaves_the_server_serving(ice, ns):
    # A peer that closes while its answer is still being sent from the file makes the kernel
    # raise SIGPIPE on that send; the server must only lose that connection.
    wide_table(ice, ns, "hangup", kilobytes=6000)
    path = ice.table_path(ns, "hangup")
    for _ in range(2):  # held open from the second load
        assert ice.rest("GET", path).status_code == 200
    url = urlsplit(ice.rest_url(path))
    for _ in range(20):
        sock = socket.create_connection((url.hostname, url.port), timeout=30)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(f"GET {url.path} HTTP/1.1\r\nHost: {url.hostname}\r\n\r\n".encode())
        sock.recv(1024)  # the answer has started
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()  # reset: the server's next send to it fails
    time.sleep(0.5)
    r = ice.rest("GET", path)
    assert r.status_code == 200
    assert len(r.content) > 6_000_000
