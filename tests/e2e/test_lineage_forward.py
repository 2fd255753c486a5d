"""Forwarding lineage (docs/lineage.md, "Forwarding"): a Cairn set to send accepted events on, as
Gravitino's http sink does, posts each one, as received and in order, to another OpenLineage
receiver (here a second Cairn) with the configured API key; a receiver that is down never costs
the sender an event."""

import socket
import time
import uuid

import jwt
import pytest

from openlineage.client.event_v2 import Job, OutputDataset, Run, RunEvent, RunState

from cairn_server import running_cairn
from helpers import Api
from test_lineage import PRODUCER, client_for


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_events(api: Api, run_id: str, want: int, timeout: float = 15) -> list:
    deadline = time.time() + timeout
    while True:
        r = api.get(f"lineage/runs/{run_id}")
        events = r.json().get("events", []) if r.status_code == 200 else []
        if len(events) >= want or time.time() > deadline:
            return events
        time.sleep(0.05)


def send(base_url: str, run_id: str, job: str) -> None:
    client = client_for(base_url, "api/v1/lineage")
    for state in (RunState.START, RunState.COMPLETE):
        client.emit(RunEvent(eventType=state,
                             eventTime=time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                             run=Run(runId=run_id), job=Job(namespace="etl", name=job),
                             producer=PRODUCER, inputs=[],
                             outputs=[OutputDataset(namespace="s3://bucket", name="out/x")]))


def test_events_are_forwarded_to_another_receiver(tmp_path_factory):
    logs = tmp_path_factory.getbasetemp()
    # The receiver takes only bearer tokens (HS256 JWTs); the sender's API key is one, so the
    # receiver's audit names the key's principal only if the key was sent.
    secret = "forward-test-secret-0123456789abcdef"
    receiver_env = {"CAIRN_STORE_TYPE": "sqlite", "CAIRN_AUTHENTICATORS": "oauth2",
                    "CAIRN_AUTHENTICATOR_OAUTH2_HS256_SECRET": secret,
                    "CAIRN_AUTHENTICATOR_OAUTH2_ISSUER": "https://issuer.test",
                    "CAIRN_AUTHENTICATOR_OAUTH2_AUDIENCE": "cairn"}
    key = jwt.encode({"sub": "lineage-forwarder", "iss": "https://issuer.test", "aud": "cairn",
                      "exp": int(time.time()) + 3600}, secret, algorithm="HS256")
    with running_cairn("lineage-receiver", receiver_env, tmp_path_factory.mktemp("receiver"),
                       logs) as receiver:
        sender_env = {"CAIRN_STORE_TYPE": "sqlite", "CAIRN_LINEAGE_FORWARD_URL": receiver.url + "/",
                      "CAIRN_LINEAGE_FORWARD_API_KEY": key,
                      "CAIRN_LINEAGE_FORWARD_TIMEOUT_MS": "2000"}
        with running_cairn("lineage-sender", sender_env, tmp_path_factory.mktemp("sender"),
                           logs) as sender:
            run_id = str(uuid.uuid4())
            send(sender.url, run_id, "forwarded")
            kept = run_events(Api(sender.url), run_id, 2)
            bearer = Api(receiver.url)
            bearer.session.headers["Authorization"] = f"Bearer {key}"
            got = run_events(bearer, run_id, 2)
            assert [e["eventType"] for e in kept] == ["START", "COMPLETE"]
            # The receiver holds the same events, in the order sent, as the sender kept them.
            assert [e["eventType"] for e in got] == ["START", "COMPLETE"]
            assert [e["event"] for e in got] == [e["event"] for e in kept]
            # Sent on the client's default path, as the key's principal.
            records = bearer.get("audit", params={"limit": "100"}).json()["records"]
            posts = [a for a in records if a.get("operation") == "POST /api/v1/lineage"]
            assert [(a["principal"], a["status"]) for a in posts] == \
                [("lineage-forwarder", 201), ("lineage-forwarder", 201)], posts


def test_a_receiver_that_is_down_costs_the_sender_nothing(tmp_path_factory):
    down = f"http://127.0.0.1:{free_port()}"
    env = {"CAIRN_STORE_TYPE": "sqlite", "CAIRN_LINEAGE_FORWARD_URL": down,
           "CAIRN_LINEAGE_FORWARD_TIMEOUT_MS": "500"}
    with running_cairn("lineage-sender-down", env, tmp_path_factory.mktemp("sender-down"),
                       tmp_path_factory.getbasetemp()) as sender:
        run_id = str(uuid.uuid4())
        t0 = time.monotonic()
        send(sender.url, run_id, "unforwarded")
        assert time.monotonic() - t0 < 5  # each event answered at once, not after the attempts
        assert [e["eventType"] for e in run_events(Api(sender.url), run_id, 2)] == ["START",
                                                                                   "COMPLETE"]
        deadline = time.time() + 20
        while "event=lineage_forward_failed" not in sender.log_path.read_text() and \
                time.time() < deadline:
            time.sleep(0.1)
        assert "event=lineage_forward_failed" in sender.log_path.read_text()


def test_a_bad_forward_url_stops_the_start(tmp_path_factory):
    env = {"CAIRN_STORE_TYPE": "sqlite", "CAIRN_LINEAGE_FORWARD_URL": "ftp://example.test"}
    with pytest.raises(pytest.fail.Exception) as failed:
        with running_cairn("lineage-bad-url", env, tmp_path_factory.mktemp("bad-url"),
                           tmp_path_factory.getbasetemp()):
            pass
    assert "cairn.lineage.forward.url must be an http:// or https:// URL" in str(failed.value)
