"""The Iceberg REST wire protocol with plain HTTP: config, error model, commit requirements,
ETag / If-None-Match."""

from __future__ import annotations

import json

import requests

from ice_helpers import assert_iceberg_error, files_under, local_path, ns_path, unique

SCHEMA_JSON = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "data", "required": False, "type": "string"}]}


def create_table(ice, ns: str, name: str, **extra) -> dict:
    r = ice.rest("POST", f"namespaces/{ns_path(ns)}/tables",
                 {"name": name, "schema": SCHEMA_JSON, **extra})
    assert r.status_code == 200, f"create table: {r.status_code} {r.text[:500]}"
    return r.json()


def metadata_files(ice, ns: str, name: str) -> list[str]:
    loc = ice.load_table_json(ns, name)["metadata"]["location"]
    return sorted(str(p) for p in files_under(local_path(loc) / "metadata")
                  if p.name.endswith(".metadata.json"))


# ---------------------------------------------------------------------------------------------
# Config
# ---------------------------------------------------------------------------------------------


def test_config(ice):
    r = ice.config()
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["overrides"]["prefix"] == ice.warehouse
    assert isinstance(body.get("defaults", {}), dict)
    endpoints = set(body.get("endpoints", []))
    for ep in ("GET /v1/{prefix}/namespaces", "POST /v1/{prefix}/namespaces/{namespace}/tables",
               "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
               "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
               "POST /v1/{prefix}/transactions/commit",
               "GET /v1/{prefix}/namespaces/{namespace}/views",
               "POST /v1/{prefix}/namespaces/{namespace}/views/{view}"):
        assert ep in endpoints, f"{ep} not advertised"


def test_config_unknown_warehouse(ice):
    r = requests.get(f"{ice.uri}/v1/config", params={"warehouse": f"{ice.metalake}.nocat"},
                     timeout=30)
    assert_iceberg_error(r, 404)
    r = requests.get(f"{ice.uri}/v1/config", params={"warehouse": "nometalake.nocat"}, timeout=30)
    assert_iceberg_error(r, 404)


# ---------------------------------------------------------------------------------------------
# Error model
# ---------------------------------------------------------------------------------------------


def test_malformed_json_is_400(ice, ns):
    r = ice.rest("POST", "namespaces", data=b'{"namespace": ["x"')
    assert_iceberg_error(r, 400)
    r = ice.rest("POST", f"namespaces/{ns}/tables", data=b"not json at all")
    assert_iceberg_error(r, 400)
    create_table(ice, ns, "t")
    before = ice.load_table_json(ns, "t")["metadata-location"]
    r = ice.rest("POST", ice.table_path(ns, "t"), data=b'{"requirements": [], "updates": [')
    assert_iceberg_error(r, 400)
    # structurally wrong JSON: namespace must be a list
    r = ice.rest("POST", "namespaces", {"namespace": "x"})
    assert_iceberg_error(r, 400)
    assert ice.load_table_json(ns, "t")["metadata-location"] == before


def test_wrongly_typed_fields_are_400_naming_the_field(ice, ns):
    create_table(ice, ns, "t")
    cases = [
        (f"namespaces/{ns}/tables", {"name": {}, "schema": SCHEMA_JSON}, "'name'"),
        (f"namespaces/{ns}/tables", {"name": 5, "schema": SCHEMA_JSON}, "'name'"),
        (f"namespaces/{ns}/views", {"name": 5, "schema": SCHEMA_JSON, "view-version": {}},
         "'name'"),
        (ice.table_path(ns, "t"), {"requirements": [5], "updates": []}, "'requirements[0]'"),
        ("transactions/commit",
         {"table-changes": [{"identifier": {"namespace": [ns], "name": "t"},
                             "requirements": [{"type": {}}], "updates": []}]},
         "'table-changes[0].requirements[0].type'"),
    ]
    for path, body, field in cases:
        r = ice.rest("POST", path, body)
        assert_iceberg_error(r, 400, "BadRequestException")
        message = r.json()["error"]["message"]
        assert field in message and "json.exception" not in message, (path, body, message)


def test_oversized_request_head_is_an_iceberg_431(ice):
    # A request line past cairn.http.max-header-bytes (64 KiB) is never parsed; the answer is
    # still in the format of the interface the path names.
    r = requests.get(f"{ice.uri}/v1/config", params={"warehouse": "w" * 70000}, timeout=30)
    assert_iceberg_error(r, 431)
    r = requests.get(f"{ice.uri}/v1/config", headers={"X-Big": "b" * 70000}, timeout=30)
    assert_iceberg_error(r, 431)
    r = requests.get(f"{ice.base}/api/metalakes", params={"x": "w" * 70000}, timeout=30)
    assert r.status_code == 431 and r.json()["code"] == 1001, r.text[:300]


def test_unknown_update_action_and_requirement_are_400(ice, ns):
    create_table(ice, ns, "t")
    before = ice.load_table_json(ns, "t")["metadata-location"]
    files_before = metadata_files(ice, ns, "t")
    r = ice.rest("POST", ice.table_path(ns, "t"), {
        "requirements": [],
        "updates": [{"action": "set-properties", "updates": {"p": "v"}},
                    {"action": "frobnicate-table", "x": 1}]})
    assert_iceberg_error(r, 400)
    r = ice.rest("POST", ice.table_path(ns, "t"), {
        "requirements": [{"type": "assert-something-new"}],
        "updates": [{"action": "set-properties", "updates": {"p": "v"}}]})
    assert_iceberg_error(r, 400)
    after = ice.load_table_json(ns, "t")
    assert after["metadata-location"] == before
    assert "p" not in after["metadata"].get("properties", {})
    assert metadata_files(ice, ns, "t") == files_before


def test_failed_requirement_is_409_and_changes_nothing(ice, ns):
    created = create_table(ice, ns, "t")
    meta = created["metadata"]
    before = ice.load_table_json(ns, "t")["metadata-location"]
    files_before = metadata_files(ice, ns, "t")
    cases = [
        [{"type": "assert-table-uuid", "uuid": "00000000-0000-0000-0000-000000000000"}],
        [{"type": "assert-current-schema-id", "current-schema-id": meta["current-schema-id"] + 5}],
        [{"type": "assert-last-assigned-field-id", "last-assigned-field-id": 99}],
        [{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 12345}],
        [{"type": "assert-default-spec-id", "default-spec-id": 7}],
        [{"type": "assert-create"}],
    ]
    for reqs in cases:
        r = ice.rest("POST", ice.table_path(ns, "t"), {
            "requirements": reqs,
            "updates": [{"action": "set-properties", "updates": {"p": "v"}}]})
        err = assert_iceberg_error(r, 409, "CommitFailedException")
        assert "Requirement failed" in err["message"] or "exists" in err["message"], err
    after = ice.load_table_json(ns, "t")
    assert after["metadata-location"] == before
    assert "p" not in after["metadata"].get("properties", {})
    assert metadata_files(ice, ns, "t") == files_before

    # the same commit with true requirements succeeds and moves the pointer
    r = ice.rest("POST", ice.table_path(ns, "t"), {
        "requirements": [{"type": "assert-table-uuid", "uuid": meta["table-uuid"]},
                         {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None}],
        "updates": [{"action": "set-properties", "updates": {"p": "v"}}]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["metadata-location"] != before
    assert body["metadata"]["properties"]["p"] == "v"
    assert len(metadata_files(ice, ns, "t")) == len(files_before) + 1


def test_missing_namespace_is_404(ice):
    missing = unique("nons")
    for method, path, body in [
        ("GET", f"namespaces/{missing}", None),
        ("GET", f"namespaces/{missing}/tables", None),
        ("POST", f"namespaces/{missing}/tables", {"name": "t", "schema": SCHEMA_JSON}),
        ("POST", f"namespaces/{missing}/properties", {"removals": [], "updates": {"a": "b"}}),
        ("DELETE", f"namespaces/{missing}", None),
    ]:
        r = ice.rest(method, path, body)
        err = assert_iceberg_error(r, 404, "NoSuchNamespaceException")
        assert err["message"] == f"Namespace does not exist: {missing}", (method, path, err)
    r = ice.rest("HEAD", f"namespaces/{missing}")
    assert r.status_code == 404


def test_nested_missing_namespace_message(ice, ns):
    r = ice.rest("GET", f"namespaces/{ns_path((ns, 'child'))}")
    err = assert_iceberg_error(r, 404, "NoSuchNamespaceException")
    assert err["message"] == f"Namespace does not exist: {ns}.child"


def test_load_missing_table_is_404(ice, ns):
    r = ice.rest("GET", ice.table_path(ns, "tbl"))
    err = assert_iceberg_error(r, 404, "NoSuchTableException")
    assert err["message"] == f"Table does not exist: {ns}.tbl"
    # also when the namespace itself is missing (what the RCK and Spark expect)
    missing = unique("nons")
    r = ice.rest("GET", ice.table_path(missing, "tbl"))
    err = assert_iceberg_error(r, 404, "NoSuchTableException")
    assert err["message"] == f"Table does not exist: {missing}.tbl"
    r = ice.rest("HEAD", ice.table_path(ns, "tbl"))
    assert r.status_code == 404
    r = ice.rest("POST", ice.table_path(ns, "tbl"), {"requirements": [], "updates": []})
    assert_iceberg_error(r, 404, "NoSuchTableException")
    r = ice.rest("DELETE", ice.table_path(ns, "tbl"))
    assert_iceberg_error(r, 404, "NoSuchTableException")


def test_conflicts_are_409(ice, ns):
    r = ice.rest("POST", "namespaces", {"namespace": [ns], "properties": {}})
    err = assert_iceberg_error(r, 409, "AlreadyExistsException")
    assert err["message"] == f"Namespace already exists: {ns}"
    create_table(ice, ns, "t")
    r = ice.rest("POST", f"namespaces/{ns}/tables", {"name": "t", "schema": SCHEMA_JSON})
    err = assert_iceberg_error(r, 409, "AlreadyExistsException")
    assert err["message"] == f"Table already exists: {ns}.t"
    r = ice.rest("DELETE", f"namespaces/{ns}")
    err = assert_iceberg_error(r, 409, "NamespaceNotEmptyException")
    assert "is not empty" in err["message"]


def test_properties_key_in_both_is_422(ice, ns):
    r = ice.rest("POST", f"namespaces/{ns}/properties",
                 {"removals": ["a"], "updates": {"a": "1"}})
    assert_iceberg_error(r, 422)


def test_head_routes(ice, ns):
    assert ice.rest("HEAD", f"namespaces/{ns}").status_code == 204
    create_table(ice, ns, "t")
    assert ice.rest("HEAD", ice.table_path(ns, "t")).status_code == 204


# ---------------------------------------------------------------------------------------------
# ETag
# ---------------------------------------------------------------------------------------------


def test_etag_if_none_match(ice, ns):
    create_table(ice, ns, "t")
    r = ice.rest("GET", ice.table_path(ns, "t"))
    assert r.status_code == 200
    etag = r.headers.get("ETag")
    assert etag, f"no ETag on load: {dict(r.headers)}"

    r2 = ice.rest("GET", ice.table_path(ns, "t"), headers={"If-None-Match": etag})
    assert r2.status_code == 304, r2.text
    assert r2.content == b""

    # snapshots=refs is a different rendering, so a different ETag
    r3 = ice.rest("GET", ice.table_path(ns, "t"), params={"snapshots": "refs"})
    assert r3.status_code == 200
    assert r3.headers.get("ETag") and r3.headers["ETag"] != etag

    # a commit changes the ETag, and the old one no longer matches
    meta = r.json()["metadata"]
    c = ice.rest("POST", ice.table_path(ns, "t"), {
        "requirements": [{"type": "assert-table-uuid", "uuid": meta["table-uuid"]}],
        "updates": [{"action": "set-properties", "updates": {"x": "1"}}]})
    assert c.status_code == 200, c.text
    r4 = ice.rest("GET", ice.table_path(ns, "t"), headers={"If-None-Match": etag})
    assert r4.status_code == 200
    assert r4.headers.get("ETag") and r4.headers["ETag"] != etag
    assert r4.json()["metadata"]["properties"]["x"] == "1"
    # a list of ETags / wildcard-free non-matching value
    r5 = ice.rest("GET", ice.table_path(ns, "t"), headers={"If-None-Match": '"nope"'})
    assert r5.status_code == 200


# ---------------------------------------------------------------------------------------------
# Transactions
# ---------------------------------------------------------------------------------------------


def test_multi_table_transaction_is_atomic(ice, ns):
    a = create_table(ice, ns, "a")["metadata"]
    create_table(ice, ns, "b")
    loc_a = ice.load_table_json(ns, "a")["metadata-location"]
    loc_b = ice.load_table_json(ns, "b")["metadata-location"]
    # second change fails its requirement: nothing is applied
    r = ice.rest("POST", "transactions/commit", {"table-changes": [
        {"identifier": {"namespace": [ns], "name": "a"},
         "requirements": [{"type": "assert-table-uuid", "uuid": a["table-uuid"]}],
         "updates": [{"action": "set-properties", "updates": {"tx": "1"}}]},
        {"identifier": {"namespace": [ns], "name": "b"},
         "requirements": [{"type": "assert-table-uuid",
                           "uuid": "00000000-0000-0000-0000-000000000000"}],
         "updates": [{"action": "set-properties", "updates": {"tx": "1"}}]}]})
    assert_iceberg_error(r, 409, "CommitFailedException")
    assert ice.load_table_json(ns, "a")["metadata-location"] == loc_a
    assert ice.load_table_json(ns, "b")["metadata-location"] == loc_b

    r = ice.rest("POST", "transactions/commit", {"table-changes": [
        {"identifier": {"namespace": [ns], "name": n}, "requirements": [],
         "updates": [{"action": "set-properties", "updates": {"tx": "2"}}]} for n in ("a", "b")]})
    assert r.status_code == 204, r.text
    for n in ("a", "b"):
        assert ice.load_table_json(ns, n)["metadata"]["properties"]["tx"] == "2"


def test_error_bodies_are_json(ice):
    r = ice.rest("GET", "namespaces/" + unique("x"))
    assert r.headers.get("Content-Type", "").startswith("application/json")
    json.loads(r.text)


def test_missing_metadata_file_is_404_not_found(ice, ns):
    """A table whose current metadata file is gone: 404 NotFoundException with Java's message
    (RCK testLoadTableWithMissingMetadataFile), also when the client sends If-None-Match (the
    Java 1.11 client's table cache always does)."""
    loc = create_table(ice, ns, "t")["metadata-location"]
    r = ice.rest("GET", ice.table_path(ns, "t"))
    etag = r.headers.get("ETag")
    path = local_path(loc)
    moved = path.with_name(path.name + ".moved")
    path.rename(moved)
    try:
        r = ice.rest("GET", ice.table_path(ns, "t"))
        err = assert_iceberg_error(r, 404, "NotFoundException")
        assert err["message"].startswith("Failed to open input stream for file: "), err
        assert err["message"].endswith(path.name), err
        if etag:
            r = ice.rest("GET", ice.table_path(ns, "t"), headers={"If-None-Match": etag})
            assert_iceberg_error(r, 404, "NotFoundException")
    finally:
        moved.rename(path)
    assert ice.rest("GET", ice.table_path(ns, "t")).status_code == 200


def test_snapshots_refs_mode(ice, ns):
    """snapshots=refs returns only the snapshots that a branch or tag points at."""
    import pyarrow as pa

    cat = ice.pyiceberg()
    tbl = cat.create_table((ns, "snaps"), pa.schema([pa.field("id", pa.int64())]))
    for i in range(3):
        tbl.append(pa.table({"id": pa.array([i], pa.int64())}))
    full = ice.rest("GET", ice.table_path(ns, "snaps"), params={"snapshots": "all"})
    refs = ice.rest("GET", ice.table_path(ns, "snaps"), params={"snapshots": "refs"})
    assert full.status_code == 200 and refs.status_code == 200
    all_ids = [s["snapshot-id"] for s in full.json()["metadata"]["snapshots"]]
    ref_ids = [s["snapshot-id"] for s in refs.json()["metadata"]["snapshots"]]
    assert len(all_ids) == 3
    current = full.json()["metadata"]["current-snapshot-id"]
    assert ref_ids == [current]
    assert refs.json()["metadata"]["refs"]["main"]["snapshot-id"] == current
