"""Audit: one JSON-lines record per request (allowed, denied, failed) with time, principal,
interface, operation, object, outcome, status, request id and client address, written to
<data-dir>/audit/audit.log and queryable by service admins at GET /api/audit; secrets (passwords,
tokens) never appear in audit records or in the server log."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
import requests

from sec_helpers import Principal, basic_header, create_metalake, unique


def audit_records(server) -> list[dict]:
    out = []
    for f in sorted(Path(server.audit_log).parent.glob("audit.log*")):
        for line in f.read_text(errors="replace").splitlines():
            if line.strip():
                out.append(json.loads(line))
    return out


def sync(server, admin_auth: str):
    """GET /api/audit flushes the log (it syncs before answering)."""
    r = requests.get(f"{server.url}/api/audit", params={"limit": "1"},
                     headers={"Authorization": admin_auth, "Accept": "application/vnd.gravitino.v1+json"},
                     timeout=30)
    assert r.status_code == 200, r.text


def expected_outcome(status: int, method: str) -> str:
    """A GET or HEAD that finds nothing is `not_found`, not a failure (engines look names up)."""
    if status in (401, 403):
        return "denied"
    if status == 404 and method in ("GET", "HEAD"):
        return "not_found"
    return "success" if status < 400 else "failure"


def test_every_request_has_exactly_one_record(authz_server, admin):
    stranger = Principal(authz_server.url, unique("stranger"))
    ml = create_metalake(admin)
    t0 = int(time.time() * 1000)
    calls = []  # (label, response, principal, interface)

    def call(label, p, fn, interface):
        r = fn(p)
        assert r.headers.get("X-Request-Id"), f"{label}: no X-Request-Id"
        calls.append((label, r, p.user, interface))
        return r

    call("allowed load", admin, lambda p: p.get(f"metalakes/{ml}"), "gravitino")
    call("denied load", stranger, lambda p: p.get(f"metalakes/{ml}"), "gravitino")
    call("failed load", admin, lambda p: p.get(f"metalakes/{unique('missing')}"), "gravitino")
    call("denied create", stranger, lambda p: p.post("metalakes", {"name": unique("m")}), "gravitino")
    call("bad request", admin, lambda p: p.post(f"metalakes/{ml}/catalogs", {"name": 1}), "gravitino")
    call("iceberg denied", stranger, lambda p: p.rest("GET", f"{ml}.nocat", "namespaces"), "iceberg")
    call("iceberg failed", admin, lambda p: p.rest("GET", f"{ml}.nocat", "namespaces"), "iceberg")
    call("iceberg config", admin, lambda p: p.iceberg_config(f"{ml}.nocat"), "iceberg")
    call("head", admin, lambda p: p.rest("HEAD", f"{ml}.nocat", "namespaces/x"), "iceberg")
    call("audit denied", stranger, lambda p: p.get("audit"), "gravitino")
    call("anonymous", Principal(authz_server.url, None, auth=None),
         lambda p: p.get(f"metalakes/{ml}"), "gravitino")
    statuses = {label: r.status_code for label, r, _, _ in calls}
    assert statuses["allowed load"] == 200 and statuses["denied load"] == 403
    assert statuses["failed load"] in (403, 404) and statuses["bad request"] == 400
    assert statuses["audit denied"] == 403

    sync(authz_server, basic_header("admin"))
    records = audit_records(authz_server)
    by_id: dict[str, list[dict]] = {}
    for rec in records:
        by_id.setdefault(rec.get("requestId"), []).append(rec)
    problems = []
    for label, r, user, interface in calls:
        rid = r.headers["X-Request-Id"]
        recs = by_id.get(rid, [])
        if len(recs) != 1:
            problems.append(f"{label} ({rid}): {len(recs)} records")
            continue
        rec = recs[0]
        want = {"status": r.status_code,
                "outcome": expected_outcome(r.status_code, r.request.method),
                "principal": user or "anonymous", "interface": interface}
        got = {k: rec.get(k) for k in want}
        if got != want:
            problems.append(f"{label} ({rid}): expected {want}, got {got}")
        # The audit API itself addresses no object; every other call here names one.
        keys = ("time", "timeMs", "operation", "client") if label.startswith("audit") else \
            ("time", "timeMs", "operation", "object", "client")
        for key in keys:
            if not rec.get(key):
                problems.append(f"{label} ({rid}): field {key!r} missing/empty in {rec}")
        if rec.get("timeMs", 0) < t0 - 1000:
            problems.append(f"{label}: timeMs {rec.get('timeMs')} before the test began")
        if rec.get("client", "").split(":")[0] not in ("127.0.0.1", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]"):
            problems.append(f"{label}: client {rec.get('client')!r}")
    assert not problems, "\n".join(problems)
    # the object names the addressed metalake
    rec = by_id[calls[0][1].headers["X-Request-Id"]][0]
    assert ml in rec["object"], rec


def raw_request(server, raw: bytes) -> tuple[int, str]:
    """Sends raw bytes; returns the status and X-Request-Id of the answer."""
    host, port = server.url.rsplit("/", 1)[-1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(raw)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode(errors="replace").split("\r\n")
    status = int(head[0].split()[1])
    rid = next((h.split(":", 1)[1].strip() for h in head[1:] if h.lower().startswith("x-request-id:")), "")
    return status, rid


TRANSPORT_ERRORS = {
    "bad-content-length": (b"GET /api/version HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400),
    "bad-percent-encoding": (b"GET /api/metalakes/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 400),
    "body-too-large": (b"POST /api/metalakes HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n", 413),
}


@pytest.mark.parametrize("kind", sorted(TRANSPORT_ERRORS))
def test_transport_level_errors_are_audited(authz_server, admin, kind):
    """Requests answered before routing (malformed request, malformed target, body too large)
    are requests too: each needs its audit record."""
    raw, want = TRANSPORT_ERRORS[kind]
    status, rid = raw_request(authz_server, raw)
    assert status == want and rid, (status, rid)
    sync(authz_server, basic_header("admin"))
    recs = [x for x in audit_records(authz_server) if x.get("requestId") == rid]
    assert len(recs) == 1, (
        f"{kind}: answered {status} with X-Request-Id {rid}, but {len(recs)} audit records (expected 1)")
    assert recs[0]["outcome"] == "failure" and recs[0]["status"] == status


def test_records_name_the_object_alike_on_both_interfaces(authz_server, admin, tmp_path):
    """The record holds the object's full name, so that one `object` filter finds the accesses
    to a table through every interface."""
    from sec_helpers import create_catalog, iceberg_table_body

    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path)
    assert admin.rest("POST", f"{ml}.{cat}", "namespaces", {"namespace": ["s"], "properties": {}}).status_code == 200
    assert admin.rest("POST", f"{ml}.{cat}", "namespaces/s/tables", iceberg_table_body("t")).status_code == 200
    r1 = admin.get(f"metalakes/{ml}/catalogs/{cat}/schemas/s/tables/t")
    r2 = admin.rest("GET", f"{ml}.{cat}", "namespaces/s/tables/t")
    assert r1.status_code == 200 and r2.status_code == 200
    sync(authz_server, basic_header("admin"))
    recs = {x["requestId"]: x for x in audit_records(authz_server)}
    o1 = recs[r1.headers["X-Request-Id"]]["object"]
    o2 = recs[r2.headers["X-Request-Id"]]["object"]
    assert o1 == o2 and o1.endswith(f"{cat}.s.t"), (
        f"the same table is recorded as {o1!r} (Gravitino API) and {o2!r} (Iceberg REST)")


def test_audit_api_filters(authz_server, admin):
    stranger = Principal(authz_server.url, unique("auditee"))
    ml = create_metalake(admin)
    t0 = int(time.time() * 1000)
    ids = [stranger.get(f"metalakes/{ml}").headers["X-Request-Id"] for _ in range(3)]
    t1 = int(time.time() * 1000) + 1
    r = admin.get("audit", params={"principal": stranger.user})
    assert r.status_code == 200, r.text
    recs = r.json()["records"]
    assert sorted(x["requestId"] for x in recs) == sorted(ids)
    assert all(x["outcome"] == "denied" and x["status"] == 403 for x in recs)
    r = admin.get("audit", params={"principal": stranger.user, "outcome": "success"})
    assert r.json()["records"] == []
    r = admin.get("audit", params={"principal": stranger.user, "limit": "2"})
    assert len(r.json()["records"]) == 2
    r = admin.get("audit", params={"principal": stranger.user, "from": str(t0), "to": str(t1)})
    assert len(r.json()["records"]) == 3
    r = admin.get("audit", params={"principal": stranger.user, "to": str(t0 - 60_000)})
    assert r.json()["records"] == []
    prefix = recs[0]["object"]
    assert ml in prefix, recs[0]
    r = admin.get("audit", params={"object": prefix, "outcome": "denied"})
    assert {x["requestId"] for x in r.json()["records"]} >= set(ids)
    r = admin.get("audit", params={"object": prefix + "-no-such-object"})
    assert r.json()["records"] == []
    assert admin.get("audit", params={"limit": "-1"}).status_code == 400
    assert admin.get("audit", params={"from": "yesterday"}).status_code == 400
    # service admins only
    assert stranger.get("audit").status_code == 403
    assert Principal(authz_server.url, None, auth=None).get("audit").status_code == 403


def test_no_secrets_in_audit_or_log(oauth_server, basic_oauth_server, keys):
    password = "pa55word-" + unique("s")
    good = keys.token("admin")
    forged = keys.token("admin", key=keys.other)
    admin_jwt = Principal(basic_oauth_server.url, "admin", auth=f"Bearer {good}")
    r = admin_jwt.post("idp/users", {"user": "dave", "password": password})
    assert r.status_code in (200, 409), r.text
    secrets = [password, good, forged, good.split(".")[2], forged.split(".")[2]]
    for srv in (oauth_server, basic_oauth_server):
        for auth in (f"Bearer {good}", f"Bearer {forged}", basic_header("dave", password),
                     basic_header("dave", password + "wrong")):
            p = Principal(srv.url, "x", auth=auth)
            p.get("metalakes")
            p.get("metalakes", params={"token": good, "password": password})
            p.rest("GET", "ml.cat", "namespaces")
        sync(srv, f"Bearer {good}")
        texts = {f.name: f.read_text(errors="replace") for f in srv.audit_log.parent.glob("audit.log*")}
        texts["server log"] = srv.log_path.read_text(errors="replace")
        assert texts, "no audit file"
        for name, text in texts.items():
            for s in secrets:
                assert s not in text, f"{srv.url} {name} contains a secret"
            if name != "server log":
                assert "Bearer" not in text, f"{name} contains 'Bearer'"
                assert "Basic " not in text, f"{name} contains 'Basic '"


def test_records_name_the_tag_policy_and_object(authz_server, admin, tmp_path):
    """Tag and policy calls are audited with the tag, the policy or the object they address."""
    from sec_helpers import create_catalog

    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path)
    r_tag = admin.post(f"metalakes/{ml}/tags", {"name": "pii"})
    r_policy = admin.post(f"metalakes/{ml}/policies", {
        "name": "keep", "policyType": "custom", "content": {"supportedObjectTypes": ["CATALOG"]}})
    r_set = admin.api("PATCH", f"metalakes/{ml}/policies/keep", {"enable": False})
    r_assoc = admin.post(f"metalakes/{ml}/objects/catalog/{cat}/policies", {"policiesToAdd": ["keep"]})
    r_tags = admin.post(f"metalakes/{ml}/objects/catalog/{cat}/tags", {"tagsToAdd": ["pii"]})
    for r in (r_tag, r_policy, r_set, r_assoc, r_tags):
        assert r.status_code == 200, r.text
    sync(authz_server, basic_header("admin"))
    recs = {x["requestId"]: x for x in audit_records(authz_server)}
    obj = {name: recs[r.headers["X-Request-Id"]] for name, r in (
        ("tag", r_tag), ("policy", r_policy), ("set", r_set), ("assoc", r_assoc), ("tags", r_tags))}
    assert "pii" in obj["tag"]["object"], obj["tag"]
    assert "keep" in obj["policy"]["object"], obj["policy"]
    assert "keep" in obj["set"]["object"] and obj["set"]["outcome"] == "success", obj["set"]
    assert cat in obj["assoc"]["object"] and cat in obj["tags"]["object"], (obj["assoc"], obj["tags"])
