"""The generated negative access matrix (issue 4).

For each interface (Gravitino REST over plain HTTP and through the official Python client;
Iceberg REST over plain HTTP and through PyIceberg), each object type (metalake, catalog,
schema/namespace, table, view) and each operation, every case runs these principals:

* `nonmember` - not a user of the metalake                            -> refused (403)
* `none`      - a user of the metalake holding the case's *base*
                privileges (usage of the parents) but not the needed one -> refused (403)
* `deny`      - holds the needed privilege (or owns the object) and a
                DENY on a parent (catalog or schema, the metalake for
                catalog-level privileges)                               -> refused (403)
* `granted`   - holds the needed privilege through a role (or owns the
                object: alter/drop need ownership)                      -> succeeds

After every refusal the catalog is compared with a snapshot taken just before (catalog list and
properties, namespaces and their properties, tables' and views' metadata locations, every file
under the warehouse): nothing may have changed. List operations are never refused: the
principals see only the objects they may load.

Every case/principal pair counts; the total is printed (`pytest -s`) and checked in
test_zz_matrix_summary.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

import pytest

from sec_helpers import (
    Admin,
    Principal,
    create_catalog,
    create_metalake,
    gravitino_table_body,
    iceberg_table_body,
    iceberg_view_body,
    ns_path,
    sobj,
    unique,
)

COUNTS = {"cases": 0, "checks": 0}


# ---------------------------------------------------------------------------------------------
# The world of one case: a fresh catalog with namespaces s (tables t, t2; views v, v2) and e
# (empty), created by the metalake owner (`admin`).
# ---------------------------------------------------------------------------------------------


@dataclass
class World:
    base: str
    ml: str
    cat: str
    wh_dir: Path
    admin: Principal
    s: str = "s"
    e: str = "e"
    t: str = "t"
    t2: str = "t2"
    v: str = "v"
    v2: str = "v2"
    scratch: dict = field(default_factory=dict)

    @property
    def warehouse(self) -> str:
        return f"{self.ml}.{self.cat}"

    def fn(self, *parts: str) -> str:
        """Full name of an object in the catalog: fn() = catalog, fn('s') = schema, ..."""
        return ".".join((self.cat, *parts))

    @property
    def api_cat(self) -> str:
        return f"metalakes/{self.ml}/catalogs/{self.cat}"


def make_world(admin: Principal, ml: str, root: Path) -> World:
    wh = root / unique("wh")
    wh.mkdir(parents=True)
    cat = create_catalog(admin, ml, wh)
    w = World(admin.base, ml, cat, wh, admin)
    for ns in (w.s, w.e):
        r = admin.rest("POST", w.warehouse, "namespaces", {"namespace": [ns], "properties": {"p": "1"}})
        assert r.status_code == 200, r.text
    for t in (w.t, w.t2):
        r = admin.rest("POST", w.warehouse, f"namespaces/{w.s}/tables", iceberg_table_body(t))
        assert r.status_code == 200, r.text
    for v in (w.v, w.v2):
        r = admin.rest("POST", w.warehouse, f"namespaces/{w.s}/views", iceberg_view_body(v, w.s))
        assert r.status_code == 200, r.text
    # The metadata of a table dropped without purge, for register (a live table's files may
    # not be registered a second time).
    r = admin.rest("POST", w.warehouse, f"namespaces/{w.s}/tables", iceberg_table_body("dropped"))
    assert r.status_code == 200, r.text
    w.scratch["dropped_meta"] = r.json()["metadata-location"]
    r = admin.rest("DELETE", w.warehouse, f"namespaces/{w.s}/tables/dropped")
    assert r.status_code == 204, r.text
    return w


def snapshot(w: World) -> dict:
    """Everything a refused request must leave alone, as the admin sees it."""
    a = w.admin
    st: dict[str, Any] = {}
    r = a.get(f"metalakes/{w.ml}/catalogs")
    st["catalogs"] = (r.status_code, sorted(i["name"] for i in r.json().get("identifiers", [])))
    r = a.get(w.api_cat)
    st["catalog"] = (r.status_code, r.json().get("catalog"))
    r = a.rest("GET", w.warehouse, "namespaces")
    nss = sorted(n[0] for n in r.json().get("namespaces", [])) if r.status_code == 200 else []
    st["namespaces"] = (r.status_code, nss)
    for ns in nss:
        r = a.rest("GET", w.warehouse, f"namespaces/{ns_path(ns)}")
        st[f"ns:{ns}"] = r.json().get("properties")
        for kind in ("tables", "views"):
            r = a.rest("GET", w.warehouse, f"namespaces/{ns_path(ns)}/{kind}")
            names = sorted(i["name"] for i in r.json().get("identifiers", []))
            st[f"{kind}:{ns}"] = names
            for name in names:
                r = a.rest("GET", w.warehouse, f"namespaces/{ns_path(ns)}/{kind}/{quote(name, safe='')}")
                body = r.json()
                st[f"{kind}:{ns}.{name}"] = (r.status_code, body.get("metadata-location"),
                                            (body.get("metadata") or {}).get("properties"))
    files = []
    for p in sorted(w.wh_dir.rglob("*")):
        if p.is_file():
            files.append((str(p.relative_to(w.wh_dir)), p.stat().st_size, p.stat().st_mtime_ns))
    st["files"] = files
    return st


def diff(before: dict, after: dict) -> str:
    keys = sorted(set(before) | set(after))
    lines = [f"  {k}: {before.get(k)!r} -> {after.get(k)!r}" for k in keys if before.get(k) != after.get(k)]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Outcomes
# ---------------------------------------------------------------------------------------------

OK, DENIED, OTHER = "ok", "denied", "other"


@dataclass
class Outcome:
    kind: str
    detail: str = ""
    value: Any = None


def http_outcome(r, protocol: str) -> Outcome:
    if r.status_code in (200, 204):
        return Outcome(OK, f"{r.status_code}", r)
    detail = f"HTTP {r.status_code}: {r.text[:300]}"
    if r.status_code == 403:
        if r.request.method == "HEAD":  # no body
            return Outcome(DENIED, detail, r)
        body = r.json()
        if protocol == "gravitino":
            assert body.get("code") == 1008 and body.get("type") == "ForbiddenException", body
        else:
            err = body.get("error", {})
            assert err.get("code") == 403 and err.get("type") == "ForbiddenException", body
        return Outcome(DENIED, detail, r)
    return Outcome(OTHER, detail, r)


def client_outcome(fn: Callable[[], Any]) -> Outcome:
    from gravitino.exceptions.base import ForbiddenException
    from pyiceberg.exceptions import ForbiddenError

    try:
        return Outcome(OK, "", fn())
    except (ForbiddenException, ForbiddenError) as e:
        return Outcome(DENIED, f"{type(e).__name__}: {e}")
    except Exception as e:  # noqa: BLE001 - reported as a failure of the case
        return Outcome(OTHER, f"{type(e).__name__}: {e}")


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------

Objs = Callable[[World], list]


@dataclass
class Case:
    iface: str          # gravitino-http, gravitino-client, iceberg-http, pyiceberg
    obj: str            # catalog, schema, table, view
    op: str
    run: Callable[[Principal, World], Outcome]
    base: Objs = lambda w: []            # given to every member principal
    grants: Objs = lambda w: []          # the needed privilege (granted + deny principals)
    deny: Objs | None = None             # DENY on a parent (deny principal); None: no such case
    owns: Callable[[World], list] = lambda w: []  # (type, full name) owned by granted/deny
    listing: Callable[[World], tuple] | None = None  # list ops: (visible-when-granted, all)
    verify: Callable[[World], None] | None = None    # the granted call's effect

    @property
    def id(self) -> str:
        return f"{self.iface}:{self.obj}:{self.op}"


def uses_c(w):
    return [sobj("catalog", w.fn(), "USE_CATALOG")]


def uses_cs(w):
    return [sobj("catalog", w.fn(), "USE_CATALOG"), sobj("schema", w.fn(w.s), "USE_SCHEMA")]


def deny_on(type_: str, name_of: Callable[[World], str], priv: str) -> Objs:
    return lambda w: [sobj(type_, name_of(w), priv, deny=True)]


DENY_USE_CATALOG_ML = deny_on("metalake", lambda w: w.ml, "USE_CATALOG")
DENY_USE_SCHEMA_C = deny_on("catalog", lambda w: w.fn(), "USE_SCHEMA")


# ---- Gravitino REST over plain HTTP -----------------------------------------------------------

def g(method, path_of, body_of=None, params=None):
    def run(p: Principal, w: World) -> Outcome:
        body = body_of(w) if body_of else None
        return http_outcome(p.api(method, path_of(w), body, params=params), "gravitino")
    return run


def g_list(path_of):
    def run(p: Principal, w: World) -> Outcome:
        r = p.get(path_of(w))
        o = http_outcome(r, "gravitino")
        if o.kind == OK:
            o.value = sorted(i["name"] for i in r.json().get("identifiers", []))
        return o
    return run


def set_prop(k="sec", v="x"):
    return lambda w: {"updates": [{"@type": "setProperty", "property": k, "value": v}]}


def new_name(w: World, key: str) -> str:
    """A name for the object a create attempt makes (fresh per attempt)."""
    w.scratch[key] = unique(key)
    return w.scratch[key]


def catalog_body(w):
    d = w.wh_dir.parent / unique("whnew")
    d.mkdir()
    return {"name": new_name(w, "newcat"), "type": "relational", "provider": "lakehouse-iceberg",
            "comment": "x", "properties": {"catalog-backend": "managed", "warehouse": str(d)}}


def admin_sees(path_of, expect: bool):
    def verify(w: World):
        r = w.admin.get(path_of(w))
        assert (r.status_code == 200) == expect, f"{path_of(w)}: {r.status_code} {r.text[:200]}"
    return verify


def admin_prop(path_of, key, field_name):
    def verify(w: World):
        body = w.admin.ok("GET", path_of(w))[field_name]
        assert body["properties"].get("sec") == "x", body
    return verify


GRAVITINO_HTTP = [
    Case("gravitino-http", "catalog", "list", g_list(lambda w: f"metalakes/{w.ml}/catalogs"),
         grants=uses_c, deny=DENY_USE_CATALOG_ML, listing=lambda w: ([w.cat], None)),
    Case("gravitino-http", "catalog", "create",
         g("POST", lambda w: f"metalakes/{w.ml}/catalogs", catalog_body),
         grants=lambda w: [sobj("metalake", w.ml, "CREATE_CATALOG")],
         deny=deny_on("metalake", lambda w: w.ml, "CREATE_CATALOG"),
         verify=admin_sees(lambda w: f"metalakes/{w.ml}/catalogs/{w.scratch['newcat']}", True)),
    Case("gravitino-http", "catalog", "load", g("GET", lambda w: w.api_cat),
         grants=uses_c, deny=DENY_USE_CATALOG_ML),
    Case("gravitino-http", "catalog", "alter", g("PUT", lambda w: w.api_cat, set_prop()),
         owns=lambda w: [("catalog", w.fn())],
         verify=admin_prop(lambda w: w.api_cat, "sec", "catalog")),
    Case("gravitino-http", "catalog", "drop", g("DELETE", lambda w: w.api_cat, params={"force": "true"}),
         owns=lambda w: [("catalog", w.fn())],
         verify=admin_sees(lambda w: w.api_cat, False)),
    Case("gravitino-http", "schema", "list", g_list(lambda w: f"{w.api_cat}/schemas"),
         base=uses_c, grants=lambda w: [sobj("schema", w.fn(w.s), "USE_SCHEMA")],
         deny=DENY_USE_SCHEMA_C, listing=lambda w: ([w.s], None)),
    Case("gravitino-http", "schema", "create",
         g("POST", lambda w: f"{w.api_cat}/schemas",
           lambda w: {"name": new_name(w, "news"), "comment": "", "properties": {}}),
         base=uses_c, grants=lambda w: [sobj("catalog", w.fn(), "CREATE_SCHEMA")],
         deny=deny_on("metalake", lambda w: w.ml, "CREATE_SCHEMA"),
         verify=admin_sees(lambda w: f"{w.api_cat}/schemas/{w.scratch['news']}", True)),
    Case("gravitino-http", "schema", "load", g("GET", lambda w: f"{w.api_cat}/schemas/{w.s}"),
         base=uses_c, grants=lambda w: [sobj("schema", w.fn(w.s), "USE_SCHEMA")],
         deny=DENY_USE_SCHEMA_C),
    Case("gravitino-http", "schema", "alter",
         g("PUT", lambda w: f"{w.api_cat}/schemas/{w.s}", set_prop()),
         base=uses_c, owns=lambda w: [("schema", w.fn(w.s))], deny=DENY_USE_CATALOG_ML,
         verify=admin_prop(lambda w: f"{w.api_cat}/schemas/{w.s}", "sec", "schema")),
    Case("gravitino-http", "schema", "drop",
         g("DELETE", lambda w: f"{w.api_cat}/schemas/{w.e}"),
         base=uses_c, owns=lambda w: [("schema", w.fn(w.e))], deny=DENY_USE_CATALOG_ML,
         verify=admin_sees(lambda w: f"{w.api_cat}/schemas/{w.e}", False)),
    Case("gravitino-http", "table", "list", g_list(lambda w: f"{w.api_cat}/schemas/{w.s}/tables"),
         base=uses_cs, grants=lambda w: [sobj("table", w.fn(w.s, w.t), "SELECT_TABLE")],
         deny=deny_on("schema", lambda w: w.fn(w.s), "SELECT_TABLE"),
         listing=lambda w: ([w.t], None)),
    Case("gravitino-http", "table", "create",
         g("POST", lambda w: f"{w.api_cat}/schemas/{w.s}/tables",
           lambda w: gravitino_table_body(new_name(w, "newt"))),
         base=uses_cs, grants=lambda w: [sobj("schema", w.fn(w.s), "CREATE_TABLE")],
         deny=deny_on("catalog", lambda w: w.fn(), "CREATE_TABLE"),
         verify=admin_sees(lambda w: f"{w.api_cat}/schemas/{w.s}/tables/{w.scratch['newt']}", True)),
    Case("gravitino-http", "table", "load", g("GET", lambda w: f"{w.api_cat}/schemas/{w.s}/tables/{w.t}"),
         base=uses_cs, grants=lambda w: [sobj("table", w.fn(w.s, w.t), "SELECT_TABLE")],
         deny=deny_on("schema", lambda w: w.fn(w.s), "SELECT_TABLE")),
    Case("gravitino-http", "table", "alter",
         g("PUT", lambda w: f"{w.api_cat}/schemas/{w.s}/tables/{w.t}", set_prop()),
         base=uses_cs, grants=lambda w: [sobj("table", w.fn(w.s, w.t), "MODIFY_TABLE")],
         deny=deny_on("schema", lambda w: w.fn(w.s), "MODIFY_TABLE"),
         verify=admin_prop(lambda w: f"{w.api_cat}/schemas/{w.s}/tables/{w.t}", "sec", "table")),
    Case("gravitino-http", "table", "drop",
         g("DELETE", lambda w: f"{w.api_cat}/schemas/{w.s}/tables/{w.t}"),
         base=uses_cs, owns=lambda w: [("table", w.fn(w.s, w.t))], deny=DENY_USE_SCHEMA_C,
         verify=admin_sees(lambda w: f"{w.api_cat}/schemas/{w.s}/tables/{w.t}", False)),
]


# ---- Gravitino Python client ------------------------------------------------------------------

def gc(call):
    """A call through the official client, as the principal, on the case's metalake."""
    def run(p: Principal, w: World) -> Outcome:
        return client_outcome(lambda: call(p.gravitino(w.ml), w))
    return run


def gc_list(call):
    def run(p: Principal, w: World) -> Outcome:
        o = client_outcome(lambda: call(p.gravitino(w.ml), w))
        if o.kind == OK:
            o.value = sorted(o.value)
        return o
    return run


def _schemas(c, w):
    return c.load_catalog(w.cat).as_schemas()


def _tables(c, w):
    return c.load_catalog(w.cat).as_table_catalog()


def _client_cases():
    from gravitino import NameIdentifier
    from gravitino.api.catalog import Catalog
    from gravitino.api.catalog_change import CatalogChange
    from gravitino.api.rel.column import Column
    from gravitino.api.rel.table_change import TableChange
    from gravitino.api.rel.types.types import Types
    from gravitino.api.schema_change import SchemaChange
    from gravitino.namespace import Namespace

    def create_cat(c, w):
        body = catalog_body(w)
        return c.create_catalog(body["name"], Catalog.Type.RELATIONAL, "lakehouse-iceberg", "x",
                                body["properties"])

    return [
        Case("gravitino-client", "catalog", "list", gc_list(lambda c, w: c.list_catalogs()),
             grants=uses_c, deny=DENY_USE_CATALOG_ML, listing=lambda w: ([w.cat], None)),
        Case("gravitino-client", "catalog", "create", gc(create_cat),
             grants=lambda w: [sobj("metalake", w.ml, "CREATE_CATALOG")],
             deny=deny_on("metalake", lambda w: w.ml, "CREATE_CATALOG"),
             verify=admin_sees(lambda w: f"metalakes/{w.ml}/catalogs/{w.scratch['newcat']}", True)),
        Case("gravitino-client", "catalog", "load", gc(lambda c, w: c.load_catalog(w.cat)),
             grants=uses_c, deny=DENY_USE_CATALOG_ML),
        Case("gravitino-client", "catalog", "alter",
             gc(lambda c, w: c.alter_catalog(w.cat, CatalogChange.set_property("sec", "x"))),
             owns=lambda w: [("catalog", w.fn())],
             verify=admin_prop(lambda w: w.api_cat, "sec", "catalog")),
        Case("gravitino-client", "catalog", "drop", gc(lambda c, w: c.drop_catalog(w.cat, force=True)),
             owns=lambda w: [("catalog", w.fn())], verify=admin_sees(lambda w: w.api_cat, False)),
        Case("gravitino-client", "schema", "list",
             gc_list(lambda c, w: _schemas(c, w).list_schemas()),
             base=uses_c, grants=lambda w: [sobj("schema", w.fn(w.s), "USE_SCHEMA")],
             deny=DENY_USE_SCHEMA_C, listing=lambda w: ([w.s], None)),
        Case("gravitino-client", "schema", "create",
             gc(lambda c, w: _schemas(c, w).create_schema(new_name(w, "news"), "", {})),
             base=uses_c, grants=lambda w: [sobj("catalog", w.fn(), "CREATE_SCHEMA")],
             deny=deny_on("metalake", lambda w: w.ml, "CREATE_SCHEMA"),
             verify=admin_sees(lambda w: f"{w.api_cat}/schemas/{w.scratch['news']}", True)),
        Case("gravitino-client", "schema", "load", gc(lambda c, w: _schemas(c, w).load_schema(w.s)),
             base=uses_c, grants=lambda w: [sobj("schema", w.fn(w.s), "USE_SCHEMA")],
             deny=DENY_USE_SCHEMA_C),
        Case("gravitino-client", "schema", "alter",
             gc(lambda c, w: _schemas(c, w).alter_schema(w.s, SchemaChange.set_property("sec", "x"))),
             base=uses_c, owns=lambda w: [("schema", w.fn(w.s))], deny=DENY_USE_CATALOG_ML,
             verify=admin_prop(lambda w: f"{w.api_cat}/schemas/{w.s}", "sec", "schema")),
        Case("gravitino-client", "schema", "drop",
             gc(lambda c, w: _schemas(c, w).drop_schema(w.e, False)),
             base=uses_c, owns=lambda w: [("schema", w.fn(w.e))], deny=DENY_USE_CATALOG_ML,
             verify=admin_sees(lambda w: f"{w.api_cat}/schemas/{w.e}", False)),
        Case("gravitino-client", "table", "list",
             gc_list(lambda c, w: [i.name() for i in _tables(c, w).list_tables(Namespace.of(w.s))]),
             base=uses_cs, grants=lambda w: [sobj("table", w.fn(w.s, w.t), "SELECT_TABLE")],
             deny=deny_on("schema", lambda w: w.fn(w.s), "SELECT_TABLE"),
             listing=lambda w: ([w.t], None)),
        Case("gravitino-client", "table", "create",
             gc(lambda c, w: _tables(c, w).create_table(
                 NameIdentifier.of(w.s, new_name(w, "newt")), [Column.of("id", Types.LongType.get())])),
             base=uses_cs, grants=lambda w: [sobj("schema", w.fn(w.s), "CREATE_TABLE")],
             deny=deny_on("catalog", lambda w: w.fn(), "CREATE_TABLE"),
             verify=admin_sees(lambda w: f"{w.api_cat}/schemas/{w.s}/tables/{w.scratch['newt']}", True)),
        Case("gravitino-client", "table", "load",
             gc(lambda c, w: _tables(c, w).load_table(NameIdentifier.of(w.s, w.t))),
             base=uses_cs, grants=lambda w: [sobj("table", w.fn(w.s, w.t), "SELECT_TABLE")],
             deny=deny_on("schema", lambda w: w.fn(w.s), "SELECT_TABLE")),
        Case("gravitino-client", "table", "alter",
             gc(lambda c, w: _tables(c, w).alter_table(NameIdentifier.of(w.s, w.t),
                                                       TableChange.set_property("sec", "x"))),
             base=uses_cs, grants=lambda w: [sobj("table", w.fn(w.s, w.t), "MODIFY_TABLE")],
             deny=deny_on("schema", lambda w: w.fn(w.s), "MODIFY_TABLE"),
             verify=admin_prop(lambda w: f"{w.api_cat}/schemas/{w.s}/tables/{w.t}", "sec", "table")),
        Case("gravitino-client", "table", "drop",
             gc(lambda c, w: _tables(c, w).drop_table(NameIdentifier.of(w.s, w.t))),
             base=uses_cs, owns=lambda w: [("table", w.fn(w.s, w.t))], deny=DENY_USE_SCHEMA_C,
             verify=admin_sees(lambda w: f"{w.api_cat}/schemas/{w.s}/tables/{w.t}", False)),
    ]


# ---- Iceberg REST over plain HTTP -------------------------------------------------------------

def ice(method, path_of, body_of=None, params=None):
    def run(p: Principal, w: World) -> Outcome:
        body = body_of(w) if body_of else None
        return http_outcome(p.rest(method, w.warehouse, path_of(w), body, params=params), "iceberg")
    return run


def ice_list(path_of, key="identifiers"):
    def run(p: Principal, w: World) -> Outcome:
        r = p.rest("GET", w.warehouse, path_of(w))
        o = http_outcome(r, "iceberg")
        if o.kind == OK:
            items = r.json().get(key, [])
            o.value = sorted(i[-1] if isinstance(i, list) else i["name"] for i in items)
        return o
    return run


def ice_config(p: Principal, w: World) -> Outcome:
    return http_outcome(p.iceberg_config(w.warehouse), "iceberg")


def ice_exists(path_of, expect: bool, kind="tables"):
    def verify(w: World):
        r = w.admin.rest("GET", w.warehouse, path_of(w))
        assert (r.status_code == 200) == expect, f"{path_of(w)}: {r.status_code} {r.text[:200]}"
    return verify


def tpath(w, name=None, ns=None):
    return f"namespaces/{ns or w.s}/tables/{name or w.t}"


def vpath(w, name=None, ns=None):
    return f"namespaces/{ns or w.s}/views/{name or w.v}"


def table_meta(w: World, name: str) -> dict:
    r = w.admin.rest("GET", w.warehouse, tpath(w, name))
    assert r.status_code == 200, r.text
    return r.json()


def commit_body(w: World) -> dict:
    meta = table_meta(w, w.t)["metadata"]
    return {"requirements": [{"type": "assert-table-uuid", "uuid": meta["table-uuid"]}],
            "updates": [{"action": "set-properties", "updates": {"sec": "x"}}]}


def tx_body(w: World) -> dict:
    return {"table-changes": [{"identifier": {"namespace": [w.s], "name": w.t}, **commit_body(w)}]}


def register_body(w: World) -> dict:
    return {"name": new_name(w, "reg"), "metadata-location": w.scratch["dropped_meta"]}


def view_replace_body(w: World) -> dict:
    r = w.admin.rest("GET", w.warehouse, vpath(w))
    meta = r.json()["metadata"]
    return {"requirements": [{"type": "assert-view-uuid", "uuid": meta["view-uuid"]}],
            "updates": [{"action": "set-properties", "updates": {"sec": "x"}}]}


def iceberg_prop(path_of):
    def verify(w: World):
        r = w.admin.rest("GET", w.warehouse, path_of(w))
        assert r.status_code == 200, r.text
        assert r.json()["metadata"]["properties"].get("sec") == "x", r.json()["metadata"]["properties"]
    return verify


def ns_prop(ns_of):
    def verify(w: World):
        r = w.admin.rest("GET", w.warehouse, f"namespaces/{ns_of(w)}")
        assert r.status_code == 200 and r.json()["properties"].get("sec") == "x", r.text
    return verify


SELECT_T = lambda w: [sobj("table", w.fn(w.s, w.t), "SELECT_TABLE")]  # noqa: E731
MODIFY_T = lambda w: [sobj("table", w.fn(w.s, w.t), "MODIFY_TABLE")]  # noqa: E731
CREATE_T = lambda w: [sobj("schema", w.fn(w.s), "CREATE_TABLE")]  # noqa: E731
SELECT_V = lambda w: [sobj("view", w.fn(w.s, w.v), "SELECT_VIEW")]  # noqa: E731
CREATE_V = lambda w: [sobj("schema", w.fn(w.s), "CREATE_VIEW")]  # noqa: E731
DENY_SELECT_T_S = deny_on("schema", lambda w: w.fn(w.s), "SELECT_TABLE")
DENY_MODIFY_T_S = deny_on("schema", lambda w: w.fn(w.s), "MODIFY_TABLE")
DENY_CREATE_T_C = deny_on("catalog", lambda w: w.fn(), "CREATE_TABLE")
DENY_SELECT_V_S = deny_on("schema", lambda w: w.fn(w.s), "SELECT_VIEW")
DENY_CREATE_V_C = deny_on("catalog", lambda w: w.fn(), "CREATE_VIEW")

ICEBERG_HTTP = [
    Case("iceberg-http", "catalog", "config", ice_config, grants=uses_c, deny=DENY_USE_CATALOG_ML),
    Case("iceberg-http", "namespace", "list", ice_list(lambda w: "namespaces", "namespaces"),
         base=uses_c, grants=lambda w: [sobj("schema", w.fn(w.s), "USE_SCHEMA")],
         deny=DENY_USE_SCHEMA_C, listing=lambda w: ([w.s], None)),
    Case("iceberg-http", "namespace", "create",
         ice("POST", lambda w: "namespaces", lambda w: {"namespace": [new_name(w, "newns")], "properties": {}}),
         base=uses_c, grants=lambda w: [sobj("catalog", w.fn(), "CREATE_SCHEMA")],
         deny=deny_on("metalake", lambda w: w.ml, "CREATE_SCHEMA"),
         verify=lambda w: ice_exists(lambda w: f"namespaces/{w.scratch['newns']}", True)(w)),
    Case("iceberg-http", "namespace", "load", ice("GET", lambda w: f"namespaces/{w.s}"),
         base=uses_c, grants=lambda w: [sobj("schema", w.fn(w.s), "USE_SCHEMA")], deny=DENY_USE_SCHEMA_C),
    Case("iceberg-http", "namespace", "exists", ice("HEAD", lambda w: f"namespaces/{w.s}"),
         base=uses_c, grants=lambda w: [sobj("schema", w.fn(w.s), "USE_SCHEMA")], deny=DENY_USE_SCHEMA_C),
    Case("iceberg-http", "namespace", "properties",
         ice("POST", lambda w: f"namespaces/{w.s}/properties",
             lambda w: {"removals": ["p"], "updates": {"sec": "x"}}),
         base=uses_c, owns=lambda w: [("schema", w.fn(w.s))], deny=DENY_USE_CATALOG_ML,
         verify=ns_prop(lambda w: w.s)),
    Case("iceberg-http", "namespace", "drop", ice("DELETE", lambda w: f"namespaces/{w.e}"),
         base=uses_c, owns=lambda w: [("schema", w.fn(w.e))], deny=DENY_USE_CATALOG_ML,
         verify=ice_exists(lambda w: f"namespaces/{w.e}", False)),
    Case("iceberg-http", "table", "list", ice_list(lambda w: f"namespaces/{w.s}/tables"),
         base=uses_cs, grants=SELECT_T, deny=DENY_SELECT_T_S, listing=lambda w: ([w.t], None)),
    Case("iceberg-http", "table", "create",
         ice("POST", lambda w: f"namespaces/{w.s}/tables", lambda w: iceberg_table_body(new_name(w, "newt"))),
         base=uses_cs, grants=CREATE_T, deny=DENY_CREATE_T_C,
         verify=lambda w: ice_exists(lambda w: tpath(w, w.scratch["newt"]), True)(w)),
    Case("iceberg-http", "table", "load", ice("GET", tpath),
         base=uses_cs, grants=SELECT_T, deny=DENY_SELECT_T_S),
    Case("iceberg-http", "table", "exists", ice("HEAD", tpath),
         base=uses_cs, grants=SELECT_T, deny=DENY_SELECT_T_S),
    Case("iceberg-http", "table", "plan-scan",
         ice("POST", lambda w: tpath(w) + "/plan", lambda w: {"filter": True}),
         base=uses_cs, grants=SELECT_T, deny=DENY_SELECT_T_S),
    Case("iceberg-http", "table", "commit", ice("POST", tpath, commit_body),
         base=uses_cs, grants=MODIFY_T, deny=DENY_MODIFY_T_S, verify=iceberg_prop(tpath)),
    Case("iceberg-http", "table", "transaction",
         ice("POST", lambda w: "transactions/commit", tx_body),
         base=uses_cs, grants=MODIFY_T, deny=DENY_MODIFY_T_S, verify=iceberg_prop(tpath)),
    Case("iceberg-http", "table", "drop", ice("DELETE", tpath),
         base=uses_cs, owns=lambda w: [("table", w.fn(w.s, w.t))], deny=DENY_USE_SCHEMA_C,
         verify=ice_exists(tpath, False)),
    Case("iceberg-http", "table", "rename",
         ice("POST", lambda w: "tables/rename",
             lambda w: {"source": {"namespace": [w.s], "name": w.t},
                        "destination": {"namespace": [w.s], "name": new_name(w, "ren")}}),
         base=uses_cs, grants=CREATE_T, owns=lambda w: [("table", w.fn(w.s, w.t))],
         deny=DENY_CREATE_T_C,
         verify=lambda w: (ice_exists(tpath, False)(w),
                           ice_exists(lambda w: tpath(w, w.scratch["ren"]), True)(w))),
    Case("iceberg-http", "table", "register",
         ice("POST", lambda w: f"namespaces/{w.s}/register", register_body),
         base=uses_cs, grants=CREATE_T, deny=DENY_CREATE_T_C,
         verify=lambda w: ice_exists(lambda w: tpath(w, w.scratch["reg"]), True)(w)),
    Case("iceberg-http", "view", "list", ice_list(lambda w: f"namespaces/{w.s}/views"),
         base=uses_cs, grants=SELECT_V, deny=DENY_SELECT_V_S, listing=lambda w: ([w.v], None)),
    Case("iceberg-http", "view", "create",
         ice("POST", lambda w: f"namespaces/{w.s}/views",
             lambda w: iceberg_view_body(new_name(w, "newv"), w.s)),
         base=uses_cs, grants=CREATE_V, deny=DENY_CREATE_V_C,
         verify=lambda w: ice_exists(lambda w: vpath(w, w.scratch["newv"]), True)(w)),
    Case("iceberg-http", "view", "load", ice("GET", vpath),
         base=uses_cs, grants=SELECT_V, deny=DENY_SELECT_V_S),
    Case("iceberg-http", "view", "replace", ice("POST", vpath, view_replace_body),
         base=uses_cs, owns=lambda w: [("view", w.fn(w.s, w.v))], deny=DENY_USE_SCHEMA_C,
         verify=iceberg_prop(vpath)),
    Case("iceberg-http", "view", "drop", ice("DELETE", vpath),
         base=uses_cs, owns=lambda w: [("view", w.fn(w.s, w.v))], deny=DENY_USE_SCHEMA_C,
         verify=ice_exists(vpath, False)),
    Case("iceberg-http", "view", "rename",
         ice("POST", lambda w: "views/rename",
             lambda w: {"source": {"namespace": [w.s], "name": w.v},
                        "destination": {"namespace": [w.s], "name": new_name(w, "renv")}}),
         base=uses_cs, grants=CREATE_V, owns=lambda w: [("view", w.fn(w.s, w.v))],
         deny=DENY_CREATE_V_C,
         verify=lambda w: (ice_exists(vpath, False)(w),
                           ice_exists(lambda w: vpath(w, w.scratch["renv"]), True)(w))),
]


# ---- PyIceberg --------------------------------------------------------------------------------

def py(call):
    def run(p: Principal, w: World) -> Outcome:
        def go():
            return call(p.pyiceberg(w.warehouse), w)
        return client_outcome(go)
    return run


def py_list(call):
    def run(p: Principal, w: World) -> Outcome:
        o = client_outcome(lambda: call(p.pyiceberg(w.warehouse), w))
        if o.kind == OK:
            o.value = sorted(i[-1] for i in o.value)
        return o
    return run


def _py_commit(c, w):
    t = c.load_table((w.s, w.t))
    with t.transaction() as tx:
        tx.set_properties(sec="x")


def _py_view_create(c, w):
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField
    from pyiceberg.view.metadata import SQLViewRepresentation, ViewVersion

    schema = Schema(NestedField(1, "id", LongType(), required=False))
    version = ViewVersion(version_id=1, schema_id=0, timestamp_ms=1_700_000_000_000,
                          summary={"engine-name": "pytest"},
                          representations=[SQLViewRepresentation(type="sql", sql="SELECT 1", dialect="spark")],
                          default_namespace=[w.s])
    return c.create_view((w.s, new_name(w, "newv")), schema, version)


def _py_create_table(c, w):
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField

    return c.create_table((w.s, new_name(w, "newt")), Schema(NestedField(1, "id", LongType(), required=False)))


PYICEBERG = [
    Case("pyiceberg", "namespace", "list", py_list(lambda c, w: c.list_namespaces()),
         base=uses_c, grants=lambda w: [sobj("schema", w.fn(w.s), "USE_SCHEMA")],
         deny=DENY_USE_SCHEMA_C, listing=lambda w: ([w.s], None)),
    Case("pyiceberg", "namespace", "create", py(lambda c, w: c.create_namespace(new_name(w, "newns"))),
         base=uses_c, grants=lambda w: [sobj("catalog", w.fn(), "CREATE_SCHEMA")],
         deny=deny_on("metalake", lambda w: w.ml, "CREATE_SCHEMA"),
         verify=lambda w: ice_exists(lambda w: f"namespaces/{w.scratch['newns']}", True)(w)),
    Case("pyiceberg", "namespace", "load", py(lambda c, w: c.load_namespace_properties(w.s)),
         base=uses_c, grants=lambda w: [sobj("schema", w.fn(w.s), "USE_SCHEMA")], deny=DENY_USE_SCHEMA_C),
    Case("pyiceberg", "namespace", "properties",
         py(lambda c, w: c.update_namespace_properties(w.s, removals={"p"}, updates={"sec": "x"})),
         base=uses_c, owns=lambda w: [("schema", w.fn(w.s))], deny=DENY_USE_CATALOG_ML,
         verify=ns_prop(lambda w: w.s)),
    Case("pyiceberg", "namespace", "drop", py(lambda c, w: c.drop_namespace(w.e)),
         base=uses_c, owns=lambda w: [("schema", w.fn(w.e))], deny=DENY_USE_CATALOG_ML,
         verify=ice_exists(lambda w: f"namespaces/{w.e}", False)),
    Case("pyiceberg", "table", "list", py_list(lambda c, w: c.list_tables(w.s)),
         base=uses_cs, grants=SELECT_T, deny=DENY_SELECT_T_S, listing=lambda w: ([w.t], None)),
    Case("pyiceberg", "table", "create", py(_py_create_table),
         base=uses_cs, grants=CREATE_T, deny=DENY_CREATE_T_C,
         verify=lambda w: ice_exists(lambda w: tpath(w, w.scratch["newt"]), True)(w)),
    Case("pyiceberg", "table", "load", py(lambda c, w: c.load_table((w.s, w.t))),
         base=uses_cs, grants=SELECT_T, deny=DENY_SELECT_T_S),
    Case("pyiceberg", "table", "commit", py(_py_commit),
         base=uses_cs, grants=MODIFY_T, deny=DENY_MODIFY_T_S, verify=iceberg_prop(tpath)),
    Case("pyiceberg", "table", "drop", py(lambda c, w: c.drop_table((w.s, w.t))),
         base=uses_cs, owns=lambda w: [("table", w.fn(w.s, w.t))], deny=DENY_USE_SCHEMA_C,
         verify=ice_exists(tpath, False)),
    Case("pyiceberg", "table", "rename",
         py(lambda c, w: c.rename_table((w.s, w.t), (w.s, new_name(w, "ren")))),
         base=uses_cs, grants=CREATE_T, owns=lambda w: [("table", w.fn(w.s, w.t))],
         deny=DENY_CREATE_T_C,
         verify=lambda w: ice_exists(lambda w: tpath(w, w.scratch["ren"]), True)(w)),
    Case("pyiceberg", "table", "register",
         py(lambda c, w: c.register_table((w.s, new_name(w, "reg")),
                                          w.scratch["dropped_meta"])),
         base=uses_cs, grants=CREATE_T, deny=DENY_CREATE_T_C,
         verify=lambda w: ice_exists(lambda w: tpath(w, w.scratch["reg"]), True)(w)),
    Case("pyiceberg", "view", "list", py_list(lambda c, w: c.list_views(w.s)),
         base=uses_cs, grants=SELECT_V, deny=DENY_SELECT_V_S, listing=lambda w: ([w.v], None)),
    Case("pyiceberg", "view", "create", py(_py_view_create),
         base=uses_cs, grants=CREATE_V, deny=DENY_CREATE_V_C,
         verify=lambda w: ice_exists(lambda w: vpath(w, w.scratch["newv"]), True)(w)),
    Case("pyiceberg", "view", "load", py(lambda c, w: c.load_view((w.s, w.v))),
         base=uses_cs, grants=SELECT_V, deny=DENY_SELECT_V_S),
    Case("pyiceberg", "view", "drop", py(lambda c, w: c.drop_view((w.s, w.v))),
         base=uses_cs, owns=lambda w: [("view", w.fn(w.s, w.v))], deny=DENY_USE_SCHEMA_C,
         verify=ice_exists(vpath, False)),
]

CASES = GRAVITINO_HTTP + _client_cases() + ICEBERG_HTTP + PYICEBERG


# ---------------------------------------------------------------------------------------------
# The runner
# ---------------------------------------------------------------------------------------------


def merge(objs: list[dict]) -> list[dict]:
    """One securable object per (type, full name), privileges united (roles reject duplicates)."""
    out: dict[tuple, dict] = {}
    for o in objs:
        key = (o["type"], o["fullName"])
        if key not in out:
            out[key] = {"type": o["type"], "fullName": o["fullName"], "privileges": []}
        names = {p["name"] for p in out[key]["privileges"]}
        out[key]["privileges"] += [p for p in o["privileges"] if p["name"] not in names]
    return list(out.values())


@pytest.fixture(scope="module")
def matrix_metalake(admin) -> str:
    ml = create_metalake(admin)
    yield ml
    admin.delete(f"metalakes/{ml}", params={"force": "true"})


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_access(case: Case, admin, authz_server, matrix_metalake, tmp_path):
    ml = matrix_metalake
    w = make_world(admin, ml, tmp_path)
    boss = Admin(admin, ml)
    users = {"none": unique("none"), "deny": unique("deny"), "granted": unique("ok")}
    boss.user_with(users["none"], merge(case.base(w)))
    boss.user_with(users["granted"], merge(case.base(w) + case.grants(w)))
    if case.deny is not None:
        boss.user_with(users["deny"], merge(case.base(w) + case.grants(w)), merge(case.deny(w)))

    order = ["nonmember", "none"] + (["deny"] if case.deny is not None else []) + ["granted"]
    failures = []
    for who in order:
        user = users.get(who, unique("stranger"))
        if who in ("deny", "granted"):
            for type_, full_name in case.owns(w):
                boss.set_owner(type_, full_name, user)
        p = Principal(authz_server.url, user)
        before = snapshot(w)
        out = case.run(p, w)
        COUNTS["checks"] += 1
        if case.listing is not None:
            visible, _ = case.listing(w)
            if who == "nonmember":
                if out.kind != DENIED:
                    failures.append(f"{who}: expected 403, got {out.kind} {out.detail} {out.value}")
            elif out.kind != OK:
                failures.append(f"{who}: list failed: {out.detail}")
            else:
                expect = sorted(visible) if who == "granted" else []
                if out.value != expect:
                    failures.append(f"{who}: list shows {out.value}, expected {expect}")
        elif who == "granted":
            if out.kind != OK:
                failures.append(f"{who}: expected success, got {out.detail}")
            elif case.verify is not None:
                try:
                    case.verify(w)
                except AssertionError as e:
                    failures.append(f"{who}: succeeded but the effect is missing: {e}")
        else:
            if out.kind != DENIED:
                failures.append(f"{who}: expected 403/ForbiddenError, got {out.kind}: {out.detail}")
        if who != "granted" or case.listing is not None:
            after = snapshot(w)
            if after != before:
                failures.append(f"{who}: the catalog changed:\n{diff(before, after)}")
    COUNTS["cases"] += 1
    assert not failures, f"{case.id}:\n" + "\n".join(failures)


# ---- metalake-level cases (own metalake per case) ---------------------------------------------


def test_metalake_operations(admin, authz_server):
    """create (service admins only), load (members), alter/drop (owner), list (filtered)."""
    base = authz_server.url
    failures = []

    def check(label, out: Outcome, want: str):
        COUNTS["checks"] += 1
        if out.kind != want:
            failures.append(f"{label}: expected {want}, got {out.kind} {out.detail}")

    # create: only service admins
    for who in ("nobody", unique("u")):
        name = unique("mlx")
        p = Principal(base, who)
        check(f"http create metalake as {who}",
              http_outcome(p.post("metalakes", {"name": name, "comment": "", "properties": {}}), "gravitino"),
              DENIED)
        if admin.get(f"metalakes/{name}").status_code != 404:
            failures.append(f"refused create of {name} left a metalake behind")
        check(f"client create metalake as {who}",
              client_outcome(lambda: p.gravitino_admin().create_metalake(name, "", {})), DENIED)
        if admin.get(f"metalakes/{name}").status_code != 404:
            failures.append(f"refused client create of {name} left a metalake behind")
    ml = create_metalake(admin)
    boss = Admin(admin, ml)
    member, owner, stranger = unique("m"), unique("o"), unique("x")
    boss.add_user(member)
    boss.add_user(owner)
    pm, po, px = (Principal(base, u) for u in (member, owner, stranger))
    # load: members only
    check("http load metalake as non-member", http_outcome(px.get(f"metalakes/{ml}"), "gravitino"), DENIED)
    check("client load metalake as non-member",
          client_outcome(lambda: px.gravitino_admin().load_metalake(ml)), DENIED)
    check("http load metalake as member", http_outcome(pm.get(f"metalakes/{ml}"), "gravitino"), OK)
    check("client load metalake as member", client_outcome(lambda: pm.gravitino_admin().load_metalake(ml)), OK)
    # list: filtered by membership
    for who, p, visible in (("stranger", px, False), ("member", pm, True)):
        r = p.get("metalakes")
        COUNTS["checks"] += 1
        names = [m["name"] for m in r.json().get("metalakes", [])] if r.status_code == 200 else None
        if names is None or (ml in names) != visible:
            failures.append(f"list metalakes as {who}: {r.status_code} {names}")
        COUNTS["checks"] += 1
        names = [m.name() for m in p.gravitino_admin().list_metalakes()]
        if (ml in names) != visible:
            failures.append(f"client list metalakes as {who}: {names}")
    # alter / drop: the owner (after a transfer), not a plain member
    upd = {"updates": [{"@type": "setProperty", "property": "sec", "value": "x"}]}
    before = admin.ok("GET", f"metalakes/{ml}")["metalake"]
    check("http alter metalake as member", http_outcome(pm.put(f"metalakes/{ml}", upd), "gravitino"), DENIED)
    from gravitino.api.metalake_change import MetalakeChange
    check("client alter metalake as member",
          client_outcome(lambda: pm.gravitino_admin().alter_metalake(ml, MetalakeChange.set_property("sec", "y"))),
          DENIED)
    check("http drop metalake as member",
          http_outcome(pm.delete(f"metalakes/{ml}", params={"force": "true"}), "gravitino"), DENIED)
    check("client drop metalake as member",
          client_outcome(lambda: pm.gravitino_admin().drop_metalake(ml, force=True)), DENIED)
    if admin.ok("GET", f"metalakes/{ml}")["metalake"] != before:
        failures.append("refused alter/drop changed the metalake")
    boss.set_owner("metalake", ml, owner)
    check("http alter metalake as owner", http_outcome(po.put(f"metalakes/{ml}", upd), "gravitino"), OK)
    props = admin.ok("GET", f"metalakes/{ml}")["metalake"]["properties"]
    if props.get("sec") != "x":
        failures.append(f"owner alter not applied: {props}")
    # the previous owner (admin) is no longer the owner, but stays a service admin
    check("client drop metalake as owner",
          client_outcome(lambda: po.gravitino_admin().drop_metalake(ml, force=True)), OK)
    if admin.get(f"metalakes/{ml}").status_code != 404:
        failures.append("owner drop did not remove the metalake")
    COUNTS["cases"] += 1
    assert not failures, "\n".join(failures)


def test_zz_matrix_summary(capsys):
    """Runs last in this module: prints the number of cases and checks run."""
    expected_cases = len(CASES) + 1
    with capsys.disabled():
        print(f"\naccess matrix: {COUNTS['cases']} cases, {COUNTS['checks']} principal checks "
              f"({len(CASES)} generated cases + metalake operations)")
    if os.environ.get("PYTEST_XDIST_WORKER") is None and COUNTS["cases"] != expected_cases:
        pytest.skip(f"only {COUNTS['cases']} of {expected_cases} cases ran (selection or failures)")
