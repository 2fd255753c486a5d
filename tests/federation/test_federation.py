"""Iceberg REST federation: `lakehouse-iceberg` catalogs with `catalog-backend = rest` front a
remote Iceberg REST catalog (a second Cairn, and Iceberg's Java reference server). What users
see through Cairn must be what the remote holds, under the remote's access control."""

from __future__ import annotations

import socket
import threading
import time
import uuid

import pyarrow as pa
import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from cairn_server import free_port
from conftest import ADMIN

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                NestedField(2, "name", StringType(), required=False))
ROWS = pa.table({"id": pa.array([1, 2, 3], pa.int64()),
                 "name": pa.array(["a", "b", "c"], pa.string())})
REST_TABLE = {"name": "t", "schema": {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"}]}}


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def rows_of(table) -> list[tuple]:
    arrow = table.scan().to_arrow().sort_by("id")
    return list(zip(arrow["id"].to_pylist(), arrow["name"].to_pylist()))


def error_of(r) -> dict:
    body = r.json()
    assert "error" in body, f"not an Iceberg error body: {r.text[:300]}"
    return body["error"]


# --- data through Cairn, visible at the remote --------------------------------------------------

@pytest.mark.parametrize("catalog", ["viacairn", "viaref"])
def test_pyiceberg_writes_and_reads_through_cairn(fed, catalog):
    front = fed.pyiceberg(catalog)
    ns = unique("ns")
    front.create_namespace(ns, {"owner": "federation"})
    table = front.create_table((ns, "events"), SCHEMA)
    table.append(ROWS)
    assert rows_of(front.load_table((ns, "events"))) == [(1, "a"), (2, "b"), (3, "c")]
    assert (ns,) in front.list_namespaces()
    assert (ns, "events") in front.list_tables(ns)

    # The remote holds it, asked directly with its own REST API.
    remote = fed.remote_pyiceberg() if catalog == "viacairn" else fed.reference_pyiceberg()
    assert (ns, "events") in remote.list_tables(ns)
    assert remote.load_namespace_properties(ns)["owner"] == "federation"
    direct = remote.load_table((ns, "events"))
    assert rows_of(direct) == [(1, "a"), (2, "b"), (3, "c")]
    assert direct.metadata_location == front.load_table((ns, "events")).metadata_location

    # A second append made at the remote is what Cairn serves next.
    direct.append(pa.table({"id": pa.array([4], pa.int64()), "name": pa.array(["d"])}))
    assert [r[0] for r in rows_of(front.load_table((ns, "events")))] == [1, 2, 3, 4]

    front.drop_table((ns, "events"))
    assert (ns, "events") not in remote.list_tables(ns)
    front.drop_namespace(ns)
    assert (ns,) not in remote.list_namespaces()


def test_config_names_cairns_prefix(fed):
    import requests

    r = requests.get(f"{fed.front.url}/iceberg/v1/config", params={"warehouse": "fed.viacairn"},
                     headers=fed.auth(), timeout=30)
    assert r.status_code == 200, r.text
    assert r.json()["overrides"]["prefix"] == "fed.viacairn"


def test_protocol_details_are_passed_through(fed):
    ns = unique("ns")
    assert fed.rest("POST", "viacairn", "namespaces", {"namespace": [ns]}).status_code == 200
    for i in range(3):
        body = {**REST_TABLE, "name": f"t{i}"}
        assert fed.rest("POST", "viacairn", f"namespaces/{ns}/tables", body).status_code == 200
    # Paging is the remote's.
    r = fed.rest("GET", "viacairn", f"namespaces/{ns}/tables", params={"pageSize": "2"})
    assert r.status_code == 200, r.text
    assert len(r.json()["identifiers"]) == 2 and r.json().get("next-page-token")
    r2 = fed.rest("GET", "viacairn", f"namespaces/{ns}/tables",
                  params={"pageSize": "2", "pageToken": r.json()["next-page-token"]})
    assert [i["name"] for i in r2.json()["identifiers"]] == ["t2"]
    # ETag and If-None-Match reach the remote and its 304 comes back.
    r = fed.rest("GET", "viacairn", f"namespaces/{ns}/tables/t0")
    assert r.status_code == 200 and r.headers.get("ETag"), r.headers
    again = fed.rest("GET", "viacairn", f"namespaces/{ns}/tables/t0",
                     headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304
    # HEAD, rename, drop.
    assert fed.rest("HEAD", "viacairn", f"namespaces/{ns}/tables/t1").status_code == 204
    rename = {"source": {"namespace": [ns], "name": "t1"},
              "destination": {"namespace": [ns], "name": "t1b"}}
    assert fed.rest("POST", "viacairn", "tables/rename", rename).status_code == 204
    assert fed.rest("HEAD", "viacairn", f"namespaces/{ns}/tables/t1").status_code == 404
    assert fed.rest("HEAD", "viacairn", f"namespaces/{ns}/tables/t1b").status_code == 204
    for t in ("t0", "t1b", "t2"):
        r = fed.rest("DELETE", "viacairn", f"namespaces/{ns}/tables/{t}",
                     params={"purgeRequested": "true"})
        assert r.status_code == 204, r.text
    assert fed.rest("DELETE", "viacairn", f"namespaces/{ns}").status_code == 204


# --- tokens and access control ------------------------------------------------------------------

def test_the_remote_sees_the_callers_token(fed):
    ns = unique("ns")
    assert fed.rest("POST", "viacairn", "namespaces", {"namespace": [ns]}).status_code == 200
    # The remote recorded the namespace creation as the admin's, not as some service account.
    created = [rec for rec in fed.remote_audit(object=f"rml.rcat.{ns}")
               if rec["operation"].startswith("POST")]
    assert created and {rec["principal"] for rec in created} == {ADMIN}, created

    # A caller the remote does not authorize is refused by the remote, under its own name.
    stranger = unique("stranger")
    r = fed.rest("GET", "viacairn", f"namespaces/{ns}", user=stranger)
    assert r.status_code == 403, r.text
    assert error_of(r)["type"] == "ForbiddenException"
    assert stranger in error_of(r)["message"]
    denied = fed.remote_audit(principal=stranger)
    assert denied and all(rec["outcome"] == "denied" for rec in denied), denied
    assert fed.rest("DELETE", "viacairn", f"namespaces/{ns}").status_code == 204


def test_check_privileges_denies_before_the_remote(fed):
    ns = unique("ns")
    assert fed.rest("POST", "checked", "namespaces", {"namespace": [ns]}).status_code == 200
    assert fed.rest("POST", "checked", f"namespaces/{ns}/tables", REST_TABLE).status_code == 200

    reader, nobody = unique("reader"), unique("nobody")
    for user in (reader, nobody):
        assert fed.api("POST", "metalakes/fed/users", {"name": user}).status_code == 200
    role = unique("role")
    r = fed.api("POST", "metalakes/fed/roles", {"name": role, "properties": {}, "securableObjects": [
        {"fullName": "checked", "type": "CATALOG", "privileges": [
            {"name": p, "condition": "allow"} for p in ("USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE")]}]})
    assert r.status_code == 200, r.text
    r = fed.api("PUT", f"metalakes/fed/permissions/users/{reader}/grant", {"roleNames": [role]})
    assert r.status_code == 200, r.text

    before = len(fed.remote_audit(object=f"rml.rcat.{ns}.t"))
    # Denied here: the remote never hears of it.
    for method, path, body in (("GET", f"namespaces/{ns}/tables/t", None),
                               ("DELETE", f"namespaces/{ns}/tables/t", None),
                               ("POST", f"namespaces/{ns}/tables/t",
                                {"requirements": [], "updates": []})):
        r = fed.rest(method, "checked", path, body, user=nobody)
        assert r.status_code == 403, f"{method} {path}: {r.status_code} {r.text[:200]}"
        assert error_of(r)["type"] == "ForbiddenException"
    r = fed.rest("DELETE", "checked", f"namespaces/{ns}/tables/t", user=reader)
    assert r.status_code == 403, "SELECT_TABLE does not allow a drop"
    assert len(fed.remote_audit(object=f"rml.rcat.{ns}.t")) == before

    # Allowed here: forwarded (with the catalog's own token) and answered by the remote.
    r = fed.rest("GET", "checked", f"namespaces/{ns}/tables/t", user=reader)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["schemas"][0]["fields"][0]["name"] == "id"
    assert len(fed.remote_audit(object=f"rml.rcat.{ns}.t")) == before + 1
    listed = fed.rest("GET", "checked", f"namespaces/{ns}/tables", user=reader)
    assert [i["name"] for i in listed.json()["identifiers"]] == ["t"]
    assert fed.rest("GET", "checked", f"namespaces/{ns}/tables", user=nobody).status_code == 403


# --- the Gravitino API over a federated catalog -------------------------------------------------

def test_gravitino_client_lists_loads_creates_alters_drops(fed):
    from gravitino import GravitinoClient, NameIdentifier
    from gravitino.api.rel.column import Column
    from gravitino.api.rel.table_change import TableChange
    from gravitino.api.rel.types.types import Types
    from gravitino.exceptions.base import NoSuchTableException
    from gravitino.namespace import Namespace
    from sec_helpers import HeaderAuthProvider

    front = fed.pyiceberg("viacairn")
    ns = unique("ns")
    front.create_namespace(ns, {"comment": "made by pyiceberg"})
    front.create_table((ns, "events"), SCHEMA).append(ROWS)

    client = GravitinoClient(uri=fed.front.url, metalake_name="fed",
                             auth_data_provider=HeaderAuthProvider(f"Bearer {fed.token(ADMIN)}"))
    catalog = client.load_catalog("viacairn")
    assert ns in catalog.as_schemas().list_schemas()
    assert catalog.as_schemas().load_schema(ns).comment() == "made by pyiceberg"
    tables = catalog.as_table_catalog()
    assert [t.name() for t in tables.list_tables(Namespace.of(ns))] == ["events"]
    loaded = tables.load_table(NameIdentifier.of(ns, "events"))
    assert [c.name() for c in loaded.columns()] == ["id", "name"]

    # Created through Gravitino: at the remote at once, with its columns.
    ident = NameIdentifier.of(ns, "from_gravitino")
    tables.create_table(ident, [Column.of("k", Types.LongType.get(), "key"),
                                Column.of("v", Types.StringType.get())], "made by gravitino",
                        {"team": "fed"})
    remote_table = fed.remote_pyiceberg().load_table((ns, "from_gravitino"))
    assert [f.name for f in remote_table.schema().fields] == ["k", "v"]
    assert remote_table.properties["team"] == "fed"
    assert remote_table.properties["comment"] == "made by gravitino"

    # Altered through Gravitino: a commit at the remote.
    tables.alter_table(ident, TableChange.set_property("team", "platform"),
                       TableChange.add_column(["w"], Types.IntegerType.get(), None,
                                              TableChange.ColumnPosition.default_pos()))
    remote_table = fed.remote_pyiceberg().load_table((ns, "from_gravitino"))
    assert remote_table.properties["team"] == "platform"
    assert [f.name for f in remote_table.schema().fields] == ["k", "v", "w"]

    assert tables.drop_table(ident) is True
    with pytest.raises(NoSuchTableException):
        tables.load_table(ident)
    assert (ns, "from_gravitino") not in fed.remote_pyiceberg().list_tables(ns)


def test_gravitino_schema_create_reaches_the_remote(fed):
    name = unique("s")
    r = fed.api("POST", "metalakes/fed/catalogs/viacairn/schemas",
                {"name": name, "comment": "via api", "properties": {"k": "v"}})
    assert r.status_code == 200, r.text
    assert fed.remote_pyiceberg().load_namespace_properties(name)["k"] == "v"
    r = fed.api("DELETE", f"metalakes/fed/catalogs/viacairn/schemas/{name}")
    assert r.status_code == 200 and r.json()["dropped"] is True


# --- errors ---------------------------------------------------------------------------------------

def test_remote_errors_in_each_protocols_format(fed):
    ns = unique("ns")
    assert fed.rest("POST", "viacairn", "namespaces", {"namespace": [ns]}).status_code == 200
    r = fed.rest("GET", "viacairn", f"namespaces/{ns}/tables/missing")
    assert r.status_code == 404
    assert error_of(r)["type"] == "NoSuchTableException" and error_of(r)["code"] == 404
    r = fed.rest("GET", "viaref", f"namespaces/{ns}/tables/missing")
    assert r.status_code == 404 and error_of(r)["type"] in ("NoSuchNamespaceException",
                                                             "NoSuchTableException")

    r = fed.api("GET", f"metalakes/fed/catalogs/viacairn/schemas/{ns}/tables/missing")
    assert r.status_code == 404, r.text
    assert r.json()["code"] == 1003 and r.json()["type"] == "NoSuchTableException"
    r = fed.api("GET", f"metalakes/fed/catalogs/viacairn/schemas/{unique('nope')}")
    assert r.status_code == 404 and r.json()["type"] == "NoSuchSchemaException"
    r = fed.api("POST", "metalakes/fed/catalogs/viacairn/schemas", {"name": ns})
    assert r.status_code == 409 and r.json()["code"] == 1004
    assert fed.rest("DELETE", "viacairn", f"namespaces/{ns}").status_code == 204


def test_stopped_remote_is_a_fast_503_naming_the_catalog(fed, start_server, oauth_env):
    gone = start_server("gone", oauth_env)
    name = unique("gone")
    r = fed.create_catalog(name, {"uri": f"{gone.url}/iceberg", "rest.connect-timeout-ms": "2000"})
    assert r.status_code == 200, r.text
    gone.stop()

    t0 = time.monotonic()
    r = fed.rest("GET", name, "namespaces")
    assert time.monotonic() - t0 < 5
    assert r.status_code == 503, r.text
    assert error_of(r)["type"] == "ServiceUnavailableException"
    assert f"fed.{name}" in error_of(r)["message"]

    t0 = time.monotonic()
    r = fed.api("GET", f"metalakes/fed/catalogs/{name}/schemas")
    assert time.monotonic() - t0 < 5
    assert r.status_code == 503, r.text
    assert r.json()["code"] == 1007 and r.json()["type"] == "ConnectionFailedException"
    assert f"fed.{name}" in r.json()["message"]


def test_silent_remote_times_out_with_503(fed):
    # Accepts connections and never answers.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    accepted = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        name = unique("silent")
        r = fed.create_catalog(name, {"uri": f"http://127.0.0.1:{port}",
                                      "rest.request-timeout-ms": "1000"})
        assert r.status_code == 200, r.text
        t0 = time.monotonic()
        r = fed.rest("GET", name, "namespaces")
        assert time.monotonic() - t0 < 5
        assert r.status_code == 503, r.text
        assert f"fed.{name}" in error_of(r)["message"]
    finally:
        stop.set()
        thread.join()
        for c in accepted:
            c.close()
        listener.close()


def test_bad_uri_is_a_400_naming_uri(fed):
    for props in ({}, {"uri": "not a url"}, {"uri": "ftp://127.0.0.1/x"}, {"uri": "http://"}):
        r = fed.create_catalog(unique("bad"), props)
        assert r.status_code == 400, f"{props}: {r.status_code} {r.text[:200]}"
        assert r.json()["code"] == 1001 and "'uri'" in r.json()["message"]
    r = fed.create_catalog(unique("bad"), {"uri": "http://127.0.0.1:1",
                                           "rest.check-privileges": "maybe"})
    assert r.status_code == 400 and "rest.check-privileges" in r.json()["message"]


def test_test_connection_calls_the_remote(fed):
    def test_connection(props):
        return fed.api("POST", "metalakes/fed/catalogs/testConnection", {
            "name": unique("probe"), "type": "relational", "provider": "lakehouse-iceberg",
            "properties": {"catalog-backend": "rest", **props}})

    r = test_connection({"uri": f"{fed.remote.url}/iceberg", "warehouse": fed.remote_warehouse})
    assert r.status_code == 200 and r.json()["code"] == 0, r.text
    r = test_connection({"uri": fed.reference.url})
    assert r.status_code == 200 and r.json()["code"] == 0, r.text
    r = test_connection({"uri": f"http://127.0.0.1:{free_port()}"})
    assert r.json()["code"] == 1007 and r.json()["type"] == "ConnectionFailedException", r.text
    # The remote answers, but not for this warehouse.
    r = test_connection({"uri": f"{fed.remote.url}/iceberg", "warehouse": "rml.nope"})
    assert r.json()["code"] == 1007, r.text


def test_dot_segments_cannot_leave_the_catalogs_prefix(fed):
    r = fed.rest("GET", "checked", "namespaces/%2E%2E/%2E%2E/namespaces")
    assert r.status_code == 400, r.text
    assert error_of(r)["type"] == "BadRequestException"


@pytest.mark.parametrize("catalog", ["viacairn", "viaref"])
def test_staged_create_register_and_metrics_go_to_the_remote(fed, catalog):
    front = fed.pyiceberg(catalog)
    remote = fed.remote_pyiceberg() if catalog == "viacairn" else fed.reference_pyiceberg()
    ns = unique("ns")
    front.create_namespace(ns)
    # stage-create, then the create transaction's commit (assert-create)
    txn = front.create_table_transaction((ns, "staged"), SCHEMA)
    txn.set_properties(stage="yes")
    txn.commit_transaction()
    staged = remote.load_table((ns, "staged"))
    assert staged.properties["stage"] == "yes"
    staged.append(ROWS)
    loaded = front.load_table((ns, "staged"))
    # scan metrics reports reach the remote (Cairn accepts them with 204, the reference with 200)
    report = {"report-type": "scan-report", "table-name": f"{ns}.staged",
              "snapshot-id": loaded.metadata.current_snapshot_id, "filter": True,
              "schema-id": 0, "projected-field-ids": [1], "projected-field-names": ["id"],
              "metrics": {}}
    r = fed.rest("POST", catalog, f"namespaces/{ns}/tables/staged/metrics", report)
    assert r.status_code == (204 if catalog == "viacairn" else 200), r.text
    if catalog == "viacairn":  # the reference server takes reports for any name
        r = fed.rest("POST", catalog, f"namespaces/{ns}/tables/missing/metrics", report)
        assert r.status_code == 404 and error_of(r)["type"] == "NoSuchTableException", r.text
        # A Cairn remote refuses a second live name over the same files (its vended
        # credentials and a purge would reach the first table's files); the refusal is
        # the remote's, passed through.
        r = fed.rest("POST", catalog, f"namespaces/{ns}/register",
                     {"name": "twin", "metadata-location": loaded.metadata_location})
        assert r.status_code == 400 and "overlaps" in error_of(r)["message"], r.text
    # register: drop the table and keep its files, then attach its metadata under a new name
    r = fed.rest("DELETE", catalog, f"namespaces/{ns}/tables/staged")
    assert r.status_code == (204 if catalog == "viacairn" else 200), r.text  # as answered
    r = fed.rest("POST", catalog, f"namespaces/{ns}/register",
                 {"name": "again", "metadata-location": loaded.metadata_location})
    assert r.status_code == 200, r.text
    assert rows_of(remote.load_table((ns, "again"))) == [(1, "a"), (2, "b"), (3, "c")]

def test_views_of_the_remote(fed):
    ns = unique("ns")
    assert fed.rest("POST", "viacairn", "namespaces", {"namespace": [ns]}).status_code == 200
    view = {"name": "v", "schema": {"type": "struct", "schema-id": 0, "fields": [
                {"id": 1, "name": "id", "required": False, "type": "long"}]},
            "view-version": {"version-id": 1, "schema-id": 0, "timestamp-ms": 1_700_000_000_000,
                             "summary": {"engine-name": "pytest"},
                             "representations": [{"type": "sql", "sql": "SELECT 1 AS id",
                                                  "dialect": "spark"}],
                             "default-namespace": [ns]},
            "properties": {}}
    r = fed.rest("POST", "viacairn", f"namespaces/{ns}/views", view)
    assert r.status_code == 200, r.text
    direct = fed.rest("GET", "", f"namespaces/{ns}/views/v", base=f"{fed.remote.url}",
                      prefix=fed.remote_warehouse)
    assert direct.status_code == 200, direct.text
    r = fed.rest("GET", "viacairn", f"namespaces/{ns}/views")
    assert [i["name"] for i in r.json()["identifiers"]] == ["v"]
    assert fed.rest("DELETE", "viacairn", f"namespaces/{ns}/views/v").status_code == 204
    assert fed.rest("GET", "viacairn", f"namespaces/{ns}/views/v").status_code == 404


def test_client_credentials_are_exchanged_at_the_remote(fed):
    name = unique("cred")
    r = fed.create_catalog(name, {"uri": fed.reference.url, "credential": "fed-client:secret",
                                  "rest.forward-token": "false"})
    assert r.status_code == 200, r.text
    ns = unique("ns")
    assert fed.rest("POST", name, "namespaces", {"namespace": [ns]}).status_code == 200
    assert (ns,) in fed.reference_pyiceberg().list_namespaces()


def test_a_remote_over_https_is_verified_and_clear_text_credentials_are_refused(
        fed, start_server, oauth_env, tmp_path_factory):
    """The front verifies an HTTPS remote's certificate: refused against the system's CAs, served
    with the catalog's `rest.tls.ca-file`. Credentials never go to another machine over plain
    HTTP unless `rest.allow-insecure-credentials` says so (docs/federation.md)."""
    import requests

    from pki import Ca

    ca = Ca(tmp_path_factory.mktemp("fed-ca"), "fed-remote-ca")
    cert, key, _ = ca.issue("127.0.0.1", server=True)
    remote = start_server("tls-remote", {**oauth_env, "CAIRN_SERVER_TLS_CERT_FILE": str(cert),
                                         "CAIRN_SERVER_TLS_KEY_FILE": str(key)}, ca_file=ca.pem)
    assert remote.url.startswith("https://")
    wh = tmp_path_factory.mktemp("tls-remote-wh")
    for path, body in (("metalakes", {"name": "tml", "properties": {}}),
                       ("metalakes/tml/catalogs",
                        {"name": "tcat", "type": "relational", "provider": "lakehouse-iceberg",
                         "properties": {"catalog-backend": "managed", "warehouse": str(wh)}})):
        r = requests.post(f"{remote.url}/api/{path}", json=body, headers=fed.auth(),
                          verify=str(ca.pem), timeout=30)
        assert r.status_code == 200, r.text
    props = {"uri": f"{remote.url}/iceberg", "warehouse": "tml.tcat"}

    # Without the remote's CA: the certificate is not trusted, the call fails, nothing is made.
    untrusted = unique("untrusted")
    r = fed.create_catalog(untrusted, props)
    if r.status_code == 200:
        r = fed.rest("GET", untrusted, "namespaces")
        assert r.status_code == 503, r.text
        assert "certificate" in error_of(r)["message"].lower(), r.text
    else:
        assert r.status_code in (400, 503) and "certificate" in r.text.lower(), r.text

    # With it: the catalog works over HTTPS, and what it makes is on the remote.
    trusted = unique("trusted")
    r = fed.create_catalog(trusted, {**props, "rest.tls.ca-file": str(ca.pem)})
    assert r.status_code == 200, r.text
    ns = unique("ns")
    r = fed.rest("POST", trusted, "namespaces", {"namespace": [ns], "properties": {}})
    assert r.status_code == 200, r.text
    r = requests.get(f"{remote.url}/iceberg/v1/tml.tcat/namespaces/{ns}", headers=fed.auth(),
                     verify=str(ca.pem), timeout=30)
    assert r.status_code == 200, r.text

    r = fed.create_catalog(unique("noca"), {**props, "rest.tls.ca-file": "/nonexistent/ca.pem"})
    assert r.status_code == 400 and "rest.tls.ca-file" in r.json()["message"], r.text

    # Plain HTTP to another machine (never contacted: refused when the catalog is made).
    far = {"uri": "http://192.0.2.10:8181", "rest.connect-timeout-ms": "1000"}
    for extra in ({}, {"token": "t0k3n", "rest.forward-token": "false"},
                  {"credential": "id:secret", "rest.forward-token": "false"}):
        r = fed.create_catalog(unique("clear"), {**far, **extra})
        assert r.status_code == 400, r.text
        assert "rest.allow-insecure-credentials" in r.json()["message"], r.text
    for extra in ({"rest.forward-token": "false"},  # nothing secret is sent
                  {"rest.allow-insecure-credentials": "true"}):
        r = fed.create_catalog(unique("clear"), {**far, **extra})
        assert r.status_code == 200, r.text
