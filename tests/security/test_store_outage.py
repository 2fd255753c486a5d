"""A metadata store outage while a request is being authorized.

The server's PostgreSQL database stops taking connections (ALLOW_CONNECTIONS false, its sessions
ended), as when the database fails over or is restarted. Every request that needs the store must
then answer 503 in its protocol's own error envelope: never a 403 (the outage taken for a missing
grant) and never a 200 with an empty or shortened list (the outage taken for missing rows). When
the database is back, the same requests answer as before, with no restart.

Runs with CAIRN_E2E_STORE=postgres (the SQLite store is a file the server itself holds open).
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest

from cairn_server import pg_url_with_db, psql, store_kind
ADMIN = "admin"
AUTHZ_ENV = {"CAIRN_AUTHORIZATION_ENABLE": "true", "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN}
from sec_helpers import (Admin, Principal, create_catalog, create_metalake, iceberg_table_body,
                         sobj, unique)

pytestmark = pytest.mark.skipif(store_kind() != "postgres",
                                reason="needs the PostgreSQL store (CAIRN_E2E_STORE=postgres)")


def _database_of(url: str) -> str:
    if "://" in url:
        return urlsplit(url).path.lstrip("/")
    return next(p.split("=", 1)[1] for p in url.split() if p.startswith("dbname="))


class Outage:
    """Takes one server's database away and gives it back."""

    def __init__(self, store_url: str):
        self.db = _database_of(store_url)
        self.admin_url = pg_url_with_db(store_url, "postgres")

    def begin(self):
        psql(self.admin_url, f"ALTER DATABASE {self.db} ALLOW_CONNECTIONS false")
        psql(self.admin_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                             f"WHERE datname = '{self.db}' AND pid <> pg_backend_pid()")

    def end(self):
        psql(self.admin_url, f"ALTER DATABASE {self.db} ALLOW_CONNECTIONS true")


@pytest.fixture(scope="module")
def outage_setup(start_server, tmp_path_factory):
    srv = start_server("outage", {**AUTHZ_ENV, "CAIRN_AUTHENTICATORS": "simple"})
    admin = Principal(srv.url, ADMIN)
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, tmp_path_factory.mktemp("outage-wh"))
    wh = f"{ml}.{cat}"
    ns = unique("ns")
    assert admin.rest("POST", wh, "namespaces", {"namespace": [ns]}).status_code == 200
    assert admin.rest("POST", wh, f"namespaces/{ns}/tables",
                      iceberg_table_body("t")).status_code == 200
    reader = unique("reader")
    Admin(admin, ml).user_with(reader, [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA",
                                             "SELECT_TABLE")])
    outage = Outage(srv.env["CAIRN_STORE_POSTGRES_URL"])
    yield srv, admin, Principal(srv.url, reader), ml, cat, wh, ns, outage
    outage.end()


def _requests(ml: str, cat: str, wh: str, ns: str):
    """(protocol, description, call(principal) -> Response, check of the healthy answer)."""
    tables = f"metalakes/{ml}/catalogs/{cat}/schemas/{ns}/tables"
    return [
        ("gravitino", "list metalakes", lambda p: p.get("metalakes"),
         lambda b: ml in [m["name"] for m in b["metalakes"]]),
        ("gravitino", "list catalogs", lambda p: p.get(f"metalakes/{ml}/catalogs"),
         lambda b: [i["name"] for i in b["identifiers"]] == [cat]),
        ("gravitino", "list schemas", lambda p: p.get(f"metalakes/{ml}/catalogs/{cat}/schemas"),
         lambda b: ns in [i["name"] for i in b["identifiers"]]),
        ("gravitino", "list tables", lambda p: p.get(tables),
         lambda b: [i["name"] for i in b["identifiers"]] == ["t"]),
        ("gravitino", "load table", lambda p: p.get(f"{tables}/t"),
         lambda b: b["table"]["name"] == "t"),
        ("iceberg", "list namespaces", lambda p: p.rest("GET", wh, "namespaces"),
         lambda b: [ns] in b["namespaces"]),
        ("iceberg", "list tables", lambda p: p.rest("GET", wh, f"namespaces/{ns}/tables"),
         lambda b: [i["name"] for i in b["identifiers"]] == ["t"]),
        ("iceberg", "load table", lambda p: p.rest("GET", wh, f"namespaces/{ns}/tables/t"),
         lambda b: b["metadata"]["format-version"] in (1, 2, 3)),
        ("iceberg", "table exists", lambda p: p.rest("HEAD", wh, f"namespaces/{ns}/tables/t"),
         None),
    ]


def _assert_unavailable(protocol: str, what: str, r):
    assert r.status_code == 503, f"{protocol} {what}: {r.status_code} {r.text[:300]}"
    if r.request.method == "HEAD":
        return
    body = r.json()
    if protocol == "gravitino":
        assert body["code"] != 0 and body["type"] == "RuntimeException", body
        assert body["message"], body
    else:
        err = body["error"]
        assert err["code"] == 503 and err["type"] == "ServiceUnavailableException", body
        assert err["message"], body


def test_an_outage_during_authorization_is_503_in_each_protocol(outage_setup):
    srv, admin, reader, ml, cat, wh, ns, outage = outage_setup
    calls = _requests(ml, cat, wh, ns)
    # Healthy first: the reader sees what the checks below expect.
    for who in (reader, admin):
        for protocol, what, call, check in calls:
            r = call(who)
            assert r.status_code in (200, 204), f"{who.user}: {protocol} {what}: {r.text[:300]}"
            if check is not None:
                assert check(r.json()), f"{who.user}: {protocol} {what}: {r.text[:300]}"
    outage.begin()
    try:
        for who in (reader, admin):
            for protocol, what, call, _check in calls:
                _assert_unavailable(protocol, f"{who.user}: {what}", call(who))
        # The server itself is still up and says the store is not ready.
        assert reader.session.get(f"{srv.url}/api/version", timeout=10).status_code == 200
    finally:
        outage.end()
    # Back without a restart (the pool reconnects).
    deadline = time.monotonic() + 30
    for who in (reader, admin):
        for protocol, what, call, check in calls:
            while True:
                r = call(who)
                if r.status_code != 503 or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            assert r.status_code in (200, 204), f"{who.user}: {protocol} {what}: {r.text[:300]}"
            if check is not None:
                assert check(r.json()), f"{who.user}: {protocol} {what}: {r.text[:300]}"
