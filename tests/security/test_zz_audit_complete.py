"""Runs last: every request the suite made through `Principal` (sec_helpers.REQUEST_LOG, all
servers) has exactly one audit record with the same status and the matching outcome."""

from __future__ import annotations

import requests

from sec_helpers import REQUEST_LOG, basic_header
from test_audit import audit_records, expected_outcome


def test_every_suite_request_is_audited_once(started_servers, keys):
    assert REQUEST_LOG, "no requests recorded"
    problems = []
    checked = 0
    for srv in started_servers:
        ours = [(rid, st) for base, rid, st in REQUEST_LOG if base == srv.url]
        if not ours:
            continue
        # flush: GET /api/audit syncs the log (any service-admin credential the server accepts)
        for auth in (basic_header("admin"), f"Bearer {keys.token('admin')}"):
            r = requests.get(f"{srv.url}/api/audit", params={"limit": "1"}, timeout=30,
                             headers={"Authorization": auth, "Accept": "application/vnd.gravitino.v1+json"})
            if r.status_code == 200:
                break
        counts: dict[str, list[dict]] = {}
        for rec in audit_records(srv):
            counts.setdefault(rec.get("requestId"), []).append(rec)
        for rid, status in ours:
            checked += 1
            recs = counts.get(rid, [])
            if not rid:
                problems.append(f"{srv.url}: a response without X-Request-Id (status {status})")
            elif len(recs) != 1:
                problems.append(f"{srv.url} {rid}: {len(recs)} audit records")
            elif recs[0]["status"] != status or recs[0]["outcome"] != expected_outcome(
                    status, recs[0].get("operation", "").split(" ")[0]):
                problems.append(f"{srv.url} {rid}: response {status}, record {recs[0]}")
    print(f"\naudit: {checked} requests checked against the audit logs")
    assert not problems, f"{len(problems)} of {checked} requests:\n" + "\n".join(problems[:30])
