"""Helpers for the e2e suite: raw HTTP access, error-envelope assertions, Iceberg files."""

from __future__ import annotations

import base64
import json
import re
import uuid
from pathlib import Path
from typing import Any

import requests

CLIENT_HEADERS = {
    "Accept": "application/vnd.gravitino.v1+json",
    "Content-Type": "application/json",
    "X-Client-Version": "1.3.1",
}
TIMEOUT_S = 30


def unique(prefix: str) -> str:
    """A name that is unique per call and valid for every Gravitino name rule."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


class Api:
    """requests-based access to `<base>/api/...` with the headers the clients send."""

    def __init__(self, base_url: str):
        self.base = base_url.rstrip("/")
        self.session = requests.Session()

    def url(self, path: str) -> str:
        return f"{self.base}/api/{path.lstrip('/')}"

    def request(self, method: str, path: str, *, json_body: Any = None, data: Any = None,
                headers: dict | None = None, params: dict | None = None) -> requests.Response:
        hdrs = dict(CLIENT_HEADERS)
        if headers:
            hdrs.update(headers)
        if json_body is not None:
            data = json.dumps(json_body)
        return self.session.request(method, self.url(path), data=data, headers=hdrs,
                                    params=params, timeout=TIMEOUT_S)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, json_body=body, **kw)

    def put(self, path, body=None, **kw):
        return self.request("PUT", path, json_body=body, **kw)

    def patch(self, path, body=None, **kw):
        return self.request("PATCH", path, json_body=body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


def basic_auth(user: str) -> str:
    """The Authorization header of `user` with the simple authenticator (any password)."""
    return "Basic " + base64.b64encode(f"{user}:x".encode()).decode()


def http_as(server, user: str, method: str, path: str, body=None) -> requests.Response:
    """`method <server>/api/<path>` as `user`, with the Gravitino client's Accept header."""
    return requests.request(method, f"{server.url}/api/{path}", json=body, timeout=TIMEOUT_S,
                            headers={"Authorization": basic_auth(user),
                                     "Accept": "application/vnd.gravitino.v1+json"})


def ok(r: requests.Response) -> dict:
    """Assert a 200 and return the JSON body."""
    assert r.status_code == 200, f"{r.request.method} {r.url}: {r.status_code} {r.text[:400]}"
    return r.json()


def ok_json(resp: requests.Response) -> dict:
    """Assert a 200 JSON success envelope and return the body."""
    assert resp.status_code == 200, f"expected 200, got {resp.status_code}: {resp.text[:500]}"
    assert resp.headers.get("Content-Type", "").startswith("application/json"), resp.headers
    body = resp.json()
    assert body.get("code") == 0, body
    return body


def assert_error(resp: requests.Response, status: int, code: int,
                 types: str | tuple[str, ...] | None = None) -> dict:
    """Assert a Gravitino error envelope: HTTP status, `code`, `type` (one of) and a message."""
    assert resp.status_code == status, (
        f"expected HTTP {status}, got {resp.status_code}: {resp.text[:500]}")
    try:
        body = resp.json()
    except ValueError as e:  # pragma: no cover - diagnostic
        raise AssertionError(f"error body is not JSON: {resp.text[:300]!r}") from e
    assert body.get("code") == code, body
    assert isinstance(body.get("type"), str) and body["type"], body
    assert isinstance(body.get("message"), str) and body["message"], body
    if types is not None:
        if isinstance(types, str):
            types = (types,)
        assert body["type"] in types, f"type {body['type']!r} not in {types}"
    return body


# Name-validation failures may be reported with any of Gravitino's 1001 exception classes.
ILLEGAL_ARG_TYPES = ("IllegalArgumentException", "IllegalNameIdentifierException",
                     "IllegalNamespaceException")


# ---------------------------------------------------------------------------------------------
# Catalog/schema/table paths
# ---------------------------------------------------------------------------------------------


def cat_path(ml: str, cat: str = "") -> str:
    return f"metalakes/{ml}/catalogs" + (f"/{cat}" if cat else "")


def schema_path(ml: str, cat: str, schema: str = "") -> str:
    return cat_path(ml, cat) + "/schemas" + (f"/{schema}" if schema else "")


def table_path(ml: str, cat: str, schema: str, table: str = "") -> str:
    return schema_path(ml, cat, schema) + "/tables" + (f"/{table}" if table else "")


def iceberg_catalog_body(name: str, warehouse: str | None = None, **extra_props) -> dict:
    props = {"catalog-backend": "managed"}
    if warehouse is not None:
        props["warehouse"] = warehouse
    props.update(extra_props)
    return {"name": name, "type": "relational", "provider": "lakehouse-iceberg",
            "comment": "iceberg", "properties": props}


def column(name: str, typ: Any, nullable: bool = True, comment: str | None = None) -> dict:
    """A column exactly as the Python client serialises it."""
    return {"name": name, "type": typ, "comment": comment, "nullable": nullable,
            "autoIncrement": False}


def table_body(name: str, columns: list[dict], **kw) -> dict:
    """A TableCreateRequest exactly as the Python client sends it (defaults included)."""
    body = {
        "name": name,
        "columns": columns,
        "comment": kw.get("comment"),
        "partitioning": kw.get("partitioning", []),
        "distribution": kw.get("distribution", {"strategy": "none", "number": 0,
                                                "funcArgs": []}),
        "sortOrders": kw.get("sortOrders", []),
        "indexes": kw.get("indexes", []),
        "properties": kw.get("properties"),
    }
    return body


# ---------------------------------------------------------------------------------------------
# Type comparison
# ---------------------------------------------------------------------------------------------


def canon_type(t: Any) -> Any:
    """Canonical form of a Gravitino type JSON (lower-case, defaults filled, nulls dropped)."""
    if isinstance(t, str):
        return re.sub(r"\s+", "", t.lower())
    assert isinstance(t, dict), t
    kind = t["type"].lower()
    if kind == "struct":
        return {"type": "struct", "fields": [
            {"name": f["name"], "type": canon_type(f["type"]),
             "nullable": f.get("nullable", True), "comment": f.get("comment") or None}
            for f in t["fields"]]}
    if kind == "list":
        return {"type": "list", "elementType": canon_type(t["elementType"]),
                "containsNull": t.get("containsNull", True)}
    if kind == "map":
        return {"type": "map", "keyType": canon_type(t["keyType"]),
                "valueType": canon_type(t["valueType"]),
                "valueContainsNull": t.get("valueContainsNull", True)}
    return {k: (canon_type(v) if k.endswith("ype") and k != "type" else v)
            for k, v in t.items()}


def canon_column(c: dict) -> dict:
    return {"name": c["name"], "type": canon_type(c["type"]),
            "nullable": c.get("nullable", True), "comment": c.get("comment") or None,
            "autoIncrement": c.get("autoIncrement", False)}


# ---------------------------------------------------------------------------------------------
# Iceberg metadata files on disk
# ---------------------------------------------------------------------------------------------

METADATA_RE = re.compile(
    r"^(\d{5})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.metadata\.json$")


def table_dir(warehouse: Path, schema: str, table: str) -> Path:
    return Path(warehouse) / schema / table


def metadata_files(warehouse: Path, schema: str, table: str) -> list[Path]:
    """Metadata JSON files of a table, ordered by their sequence number."""
    mdir = table_dir(warehouse, schema, table) / "metadata"
    if not mdir.is_dir():
        return []
    files = [p for p in mdir.iterdir() if p.name.endswith(".metadata.json")]
    for p in files:
        assert METADATA_RE.match(p.name), f"unexpected metadata file name {p.name}"
    return sorted(files, key=lambda p: int(METADATA_RE.match(p.name).group(1)))


def seq_of(p: Path) -> int:
    return int(METADATA_RE.match(p.name).group(1))


def latest_metadata(warehouse: Path, schema: str, table: str) -> dict:
    files = metadata_files(warehouse, schema, table)
    assert files, f"no metadata file for {schema}.{table} under {warehouse}"
    return json.loads(files[-1].read_text())


def any_metadata_under(root: Path) -> list[Path]:
    root = Path(root)
    if not root.exists():
        return []
    return sorted(root.rglob("*.metadata.json"))


def current_schema(md: dict) -> dict:
    sid = md["current-schema-id"]
    for s in md["schemas"]:
        if s["schema-id"] == sid:
            return s
    raise AssertionError(f"current-schema-id {sid} not in schemas")


def field_by_name(schema: dict, name: str) -> dict:
    for f in schema["fields"]:
        if f["name"] == name:
            return f
    raise AssertionError(f"no field {name!r} in {[f['name'] for f in schema['fields']]}")


def all_field_ids(t: Any) -> list[int]:
    """Every field id in an Iceberg schema/type (struct fields, list elements, map keys/values)."""
    ids: list[int] = []
    if isinstance(t, dict):
        if t.get("type") == "struct" or "fields" in t:
            for f in t["fields"]:
                ids.append(f["id"])
                ids.extend(all_field_ids(f["type"]))
        elif t.get("type") == "list":
            ids.append(t["element-id"])
            ids.extend(all_field_ids(t["element"]))
        elif t.get("type") == "map":
            ids.extend([t["key-id"], t["value-id"]])
            ids.extend(all_field_ids(t["key"]))
            ids.extend(all_field_ids(t["value"]))
    return ids


def norm_iceberg_type(t: Any) -> Any:
    return re.sub(r"\s+", "", t) if isinstance(t, str) else t


ISO_INSTANT_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)$")


def assert_audit(audit: dict, creator: str = "anonymous") -> None:
    """A raw audit object: creator and an ISO-8601 createTime always present."""
    assert audit["creator"] == creator, audit
    assert ISO_INSTANT_RE.match(audit["createTime"]), audit
    if "lastModifiedTime" in audit:
        assert ISO_INSTANT_RE.match(audit["lastModifiedTime"]), audit


_MICROS = {"time": "time(6)", "timestamp": "timestamp(6)", "timestamp_tz": "timestamp_tz(6)"}


def iceberg_roundtrip_type(t: Any) -> Any:
    """The type a managed Iceberg table reports back for a type that was sent: Iceberg time
    types are microsecond precision, so Gravitino 1.3 answers `time(6)`, `timestamp(6)` and
    `timestamp_tz(6)` for `time`, `timestamp` and `timestamp_tz`."""
    if isinstance(t, str):
        return _MICROS.get(t.lower(), t)
    t = dict(t)
    if t["type"] == "struct":
        t["fields"] = [dict(f, type=iceberg_roundtrip_type(f["type"])) for f in t["fields"]]
    elif t["type"] == "list":
        t["elementType"] = iceberg_roundtrip_type(t["elementType"])
    elif t["type"] == "map":
        t["keyType"] = iceberg_roundtrip_type(t["keyType"])
        t["valueType"] = iceberg_roundtrip_type(t["valueType"])
    return t


def iceberg_roundtrip_column(c: dict) -> dict:
    return dict(c, type=iceberg_roundtrip_type(c["type"]))


def wait_job(client, job_id: str, timeout_s: float = 60):
    """A job of the Gravitino Python client once it ended (succeeded, failed or cancelled)."""
    import time

    from gravitino.api.job.job_handle import JobHandle

    deadline = time.time() + timeout_s
    while True:
        job = client.get_job(job_id)
        if job.job_status() in (JobHandle.Status.SUCCEEDED, JobHandle.Status.FAILED,
                                JobHandle.Status.CANCELLED):
            return job
        assert time.time() < deadline, f"job {job_id} still {job.job_status()}"
        time.sleep(0.1)
