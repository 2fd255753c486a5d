"""Traces over OTLP/HTTP: the spans of the request path reach a receiver started here, in the
wire format OpenTelemetry defines (each export is parsed into opentelemetry-proto's
ExportTraceServiceRequest), joined to the caller's trace by its W3C traceparent, and passed on to
a federated catalog's remote."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from cairn_server import running_cairn, store_env
from helpers import Api, ok_json, unique

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"


class Receiver:
    """An OTLP/HTTP trace receiver: every POST /v1/traces parsed as ExportTraceServiceRequest
    (OTLP/JSON writes trace and span ids as hex, which the protobuf JSON mapping reads as
    base64: they are converted first, as OTLP/JSON's own rule says)."""

    def __init__(self):
        self.spans: list[dict] = []
        self.resources: list[dict] = []
        self.errors: list[str] = []
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    assert self.path == "/v1/traces", self.path
                    assert self.headers["Content-Type"] == "application/json"
                    doc = json.loads(body)
                    for rs in doc.get("resourceSpans", []):
                        for ss in rs.get("scopeSpans", []):
                            for span in ss.get("spans", []):
                                for key in ("traceId", "spanId", "parentSpanId"):
                                    if key in span:
                                        span[key] = base64.b64encode(
                                            bytes.fromhex(span[key])).decode()
                    message = json_format.Parse(json.dumps(doc), ExportTraceServiceRequest())
                    with lock:
                        for rs in message.resource_spans:
                            self_resource = {a.key: a.value.string_value
                                             for a in rs.resource.attributes}
                            receiver.resources.append(self_resource)
                            for ss in rs.scope_spans:
                                for s in ss.spans:
                                    receiver.spans.append({
                                        "trace": s.trace_id.hex(), "id": s.span_id.hex(),
                                        "parent": s.parent_span_id.hex(), "name": s.name,
                                        "kind": s.kind, "status": s.status.code,
                                        "attrs": {a.key: json_format.MessageToDict(a.value)
                                                  for a in s.attributes},
                                        "start": s.start_time_unix_nano,
                                        "end": s.end_time_unix_nano})
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(b"{}")
                except Exception as e:  # a malformed export is the failure under test
                    receiver.errors.append(f"{type(e).__name__}: {e}")
                    self.send_response(400)
                    self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def of_trace(self, trace_id: str, until, timeout: float = 15.0) -> list[dict]:
        """The spans of `trace_id` once `until(spans)` holds (or the timeout passed): spans of
        one trace arrive as each server exports them, a caller's after its callee's."""
        deadline = time.monotonic() + timeout
        while True:
            got = [s for s in self.spans if s["trace"] == trace_id]
            if until(got) or time.monotonic() > deadline:
                return got
            time.sleep(0.1)


@pytest.fixture(scope="module")
def receiver():
    r = Receiver()
    yield r
    r.server.shutdown()


@pytest.fixture(scope="module")
def traced(receiver, tmp_path_factory):
    with store_env("cairn_traces") as env:
        env = {**env, "CAIRN_TRACING_OTLP_ENDPOINT": receiver.url,
               "CAIRN_TRACING_SERVICE_NAME": "cairn-test"}
        with running_cairn("traces", env, tmp_path_factory.mktemp("traced"),
                           tmp_path_factory.getbasetemp()) as srv:
            yield srv


def _lake(api: Api, wh) -> tuple[str, str]:
    ml, cat = unique("ml"), unique("ice")
    ok_json(api.post("metalakes", {"name": ml, "properties": {}}))
    ok_json(api.post(f"metalakes/{ml}/catalogs", {
        "name": cat, "type": "relational", "provider": "lakehouse-iceberg",
        "properties": {"catalog-backend": "managed", "warehouse": str(wh)}}))
    return ml, cat


def test_a_request_joins_the_callers_trace_with_its_steps(traced, receiver, tmp_path):
    ml, cat = _lake(Api(traced.url), tmp_path)
    base = f"{traced.url}/iceberg/v1/{ml}.{cat}"
    headers = {"traceparent": f"00-{TRACE}-{PARENT}-01", "Content-Type": "application/json"}
    r = requests.post(f"{base}/namespaces", json={"namespace": ["traced"]}, headers=headers,
                      timeout=30)
    assert r.status_code == 200, r.text
    spans = receiver.of_trace(TRACE, lambda got: any(
        s["kind"] == 2 and s["parent"] == PARENT for s in got))
    assert not receiver.errors, receiver.errors
    server = [s for s in spans if s["kind"] == 2]
    assert len(server) == 1, spans
    root = server[0]
    assert root["parent"] == PARENT
    assert root["name"].startswith("POST ") and root["name"].endswith("/namespaces"), root
    assert root["attrs"]["http.response.status_code"] == {"intValue": "200"}
    assert root["attrs"]["cairn.interface"] == {"stringValue": "iceberg"}
    assert root["start"] <= root["end"]
    children = {s["name"] for s in spans if s["parent"] == root["id"]}
    assert {"authenticate", "store.call"} <= children, children
    for s in spans:
        if s is not root:
            assert root["start"] <= s["start"] and s["end"] <= root["end"] + 1_000_000, s
    assert {"service.name": "cairn-test"}.items() <= receiver.resources[-1].items()


def test_a_trace_is_started_or_left_as_the_caller_asks(traced, receiver):
    unsampled = "0af7651916cd43dd8448eb211c80319c"
    r = requests.get(f"{traced.url}/api/metalakes",
                     headers={"traceparent": f"00-{unsampled}-b7ad6b7169203331-00"}, timeout=30)
    assert r.status_code == 200
    before = len(receiver.spans)
    r = requests.get(f"{traced.url}/api/version", timeout=30)
    assert r.status_code == 200
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not any(
            s["kind"] == 2 and s["parent"] == "" for s in receiver.spans[before:]):
        time.sleep(0.1)
    assert any(s["kind"] == 2 and s["parent"] == "" for s in receiver.spans[before:])
    time.sleep(1.0)  # the exporter's interval: the unsampled request's spans would be in by now
    assert not [s for s in receiver.spans if s["trace"] == unsampled]
    # A malformed traceparent starts a new trace instead of failing the request.
    r = requests.get(f"{traced.url}/api/version", headers={"traceparent": "00-zz-yy-01"},
                     timeout=30)
    assert r.status_code == 200


def test_the_trace_reaches_a_federated_catalogs_remote(receiver, tmp_path_factory, tmp_path):
    """A front Cairn federating a remote Cairn: the remote's request span is a child of the
    front's call to it, in the caller's trace."""
    trace_id = "5bf92f3577b34da6a3ce929d0e0e4737"
    env_extra = {"CAIRN_TRACING_OTLP_ENDPOINT": receiver.url}
    logs = tmp_path_factory.getbasetemp()
    with store_env("cairn_traces_remote") as env_r, store_env("cairn_traces_front") as env_f:
        with running_cairn("traces-remote", {**env_r, **env_extra},
                           tmp_path_factory.mktemp("remote"), logs) as remote, \
                running_cairn("traces-front", {**env_f, **env_extra},
                              tmp_path_factory.mktemp("front"), logs) as front:
            wh = tmp_path / "wh"
            wh.mkdir()
            rml, rcat = _lake(Api(remote.url), wh)
            requests.post(f"{remote.url}/iceberg/v1/{rml}.{rcat}/namespaces",
                          json={"namespace": ["far"]}, timeout=30).raise_for_status()
            fml, fcat = unique("ml"), unique("fed")
            api = Api(front.url)
            ok_json(api.post("metalakes", {"name": fml, "properties": {}}))
            ok_json(api.post(f"metalakes/{fml}/catalogs", {
                "name": fcat, "type": "relational", "provider": "lakehouse-iceberg",
                "properties": {"catalog-backend": "rest", "uri": f"{remote.url}/iceberg",
                               "warehouse": f"{rml}.{rcat}"}}))
            r = requests.get(f"{front.url}/iceberg/v1/{fml}.{fcat}/namespaces/far",
                             headers={"traceparent": f"00-{trace_id}-{PARENT}-01"}, timeout=30)
            assert r.status_code == 200, r.text
            # The front's own request span ends last, after the remote answered.
            spans = receiver.of_trace(trace_id, lambda got: any(
                s["kind"] == 2 and s["parent"] == PARENT for s in got))
    front_root = [s for s in spans if s["kind"] == 2 and s["parent"] == PARENT]
    assert len(front_root) == 1, spans
    calls = [s for s in spans if s["name"].startswith("iceberg.remote ")]
    assert calls and all(c["parent"] == front_root[0]["id"] for c in calls), spans
    remote_server = [s for s in spans if s["kind"] == 2 and s["parent"] in {c["id"] for c in calls}]
    assert remote_server, spans
    assert remote_server[0]["name"].startswith("GET ")
