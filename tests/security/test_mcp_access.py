"""MCP in the access matrix: every tool call runs as the principal of its HTTP request and is
decided by the same authorizer as the Gravitino API, so a principal sees through the tools only
what it may see there; a refused call changes nothing and is audited (interface `mcp`, the tool's
name, outcome `denied`); a session belongs to the principal that opened it; the tools that change
metadata exist only when `cairn.mcp.allow-writes` is on, and are then decided as their API calls
are. Driven by the official `mcp` Python SDK (docs/mcp.md)."""

from __future__ import annotations

import json
import time

import anyio
import httpx2
import pytest
import requests

from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from sec_helpers import (TABLE_SCHEMA, Admin, Principal, basic_header, create_catalog,
                         create_metalake, sobj, unique)
from test_audit import audit_records, sync

WRITE_ENV = {"CAIRN_AUTHORIZATION_ENABLE": "true", "CAIRN_AUTHORIZATION_SERVICE_ADMINS": "admin",
             "CAIRN_AUTHENTICATORS": "simple", "CAIRN_MCP_ALLOW_WRITES": "true"}


def tools(url: str, user: str | None, body, mode: str = "auto", password: str = "dummy"):
    """Runs `await body(client)` on an SDK client of `url`/mcp authenticated as `user`."""
    headers = {"Authorization": basic_header(user, password)} if user else {}

    async def main():
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http),
                              mode=mode) as c:
                return await body(c)

    return anyio.run(main)


async def ok(c, tool, **args):
    r = await c.call_tool(tool, args)
    assert not r.is_error, (tool, args, r.structured_content)
    return r.structured_content


async def denied(c, tool, **args):
    r = await c.call_tool(tool, args)
    assert r.is_error, (tool, args, r.structured_content)
    assert r.structured_content["error"]["status"] == 403, (tool, args, r.structured_content)
    return r.structured_content["error"]


@pytest.fixture
def lake(authz_server, admin, warehouse):
    ml = create_metalake(admin)
    cat = create_catalog(admin, ml, warehouse, "lake")
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": "s", "properties": {}})
    for t in ("open", "secret"):
        r = admin.rest("POST", f"{ml}.{cat}", "namespaces/s/tables",
                       {"name": t, "schema": TABLE_SCHEMA})
        assert r.status_code == 200, r.text
    admin.ok("POST", f"metalakes/{ml}/tags", {"name": "pii", "properties": {}})
    a = Admin(admin, ml)
    a.user_with("reader", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA"),
                           sobj("TABLE", f"{cat}.s.open", "SELECT_TABLE")])
    a.user_with("nobody", [])
    return ml


def tags_of(admin, ml, table):
    return admin.ok("GET", f"metalakes/{ml}/objects/table/lake.s.{table}/tags")["names"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_tools_show_only_what_the_principal_may_see(authz_server, admin, lake, mode):
    ml = lake
    w = {"metalake": ml, "catalog": "lake", "schema": "s"}

    async def reader(c):
        assert [x["name"] for x in (await ok(c, "list_catalogs", metalake=ml))["catalogs"]] == [
            "lake"]
        assert (await ok(c, "list_tables", **w))["tables"] == ["open"]
        assert (await ok(c, "get_table", **w, table="open"))["table"]["name"] == "open"
        await denied(c, "get_table", **w, table="secret")
        await denied(c, "get_table", **w, table="no_such_table")  # a denial, not a 404
        await denied(c, "get_table_snapshots", **w, table="secret")
        await denied(c, "list_statistics", metalake=ml, full_name="lake.s.secret")
        await denied(c, "list_tags_for_object", metalake=ml, type="table",
                     full_name="lake.s.secret")
        found = await ok(c, "search", metalake=ml, query="e")
        assert {h["fullName"] for h in found["results"] if h["type"] == "table"} == {"lake.s.open"}
        assert (await ok(c, "search", metalake=ml, query="secret"))["results"] == []
        mine = await ok(c, "get_my_privileges", metalake=ml, type="table", full_name="lake.s.open")
        assert mine["can"] == {"load": True, "modify": False, "drop": False, "grant": False}
        assert mine["isOwner"] is False and mine["owner"]["name"] == "admin"
        assert {"on": {"type": "TABLE", "fullName": "lake.s.open"}, "privilege": "SELECT_TABLE",
                "condition": "ALLOW"} in mine["granted"]
        assert {g["privilege"] for g in mine["granted"]} == {"USE_CATALOG", "USE_SCHEMA",
                                                             "SELECT_TABLE"}
        await denied(c, "get_my_privileges", metalake=ml, type="table", full_name="lake.s.secret")
        return True

    async def nobody(c):
        assert (await ok(c, "list_catalogs", metalake=ml))["catalogs"] == []
        await denied(c, "list_tables", **w)
        await denied(c, "get_table", **w, table="open")
        assert (await ok(c, "search", metalake=ml, query="o"))["results"] == []
        return True

    async def stranger(c):
        await denied(c, "list_catalogs", metalake=ml)
        await denied(c, "search", metalake=ml, query="o")
        assert ml not in [m["name"] for m in (await ok(c, "list_metalakes"))["metalakes"]]
        return True

    async def owner(c):
        mine = await ok(c, "get_my_privileges", metalake=ml, type="table",
                        full_name="lake.s.secret")
        assert mine["can"] == {"load": True, "modify": True, "drop": True, "grant": True}
        assert mine["isOwner"] is True
        return True

    assert tools(authz_server.url, "reader", reader, mode)
    assert tools(authz_server.url, "nobody", nobody, mode)
    assert tools(authz_server.url, unique("stranger"), stranger, mode)
    assert tools(authz_server.url, "admin", owner, mode)


def test_denied_calls_are_audited(authz_server, admin, lake):
    ml = lake
    started = int(time.time() * 1000)

    async def reader(c):
        await denied(c, "get_table", metalake=ml, catalog="lake", schema="s", table="secret")
        await ok(c, "get_table", metalake=ml, catalog="lake", schema="s", table="open")
        return True

    assert tools(authz_server.url, "reader", reader)
    sync(authz_server, basic_header("admin"))
    recs = [r for r in audit_records(authz_server)
            if r.get("interface") == "mcp" and r["timeMs"] >= started
            and r["operation"] == "mcp tools/call get_table"]
    got = {(r["principal"], r["object"], r["outcome"]) for r in recs}
    assert ("reader", f"{ml}.lake.s.secret", "denied") in got
    assert ("reader", f"{ml}.lake.s.open", "success") in got


def test_a_session_belongs_to_its_principal(authz_server, lake):
    url = f"{authz_server.url}/mcp"
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    r = requests.post(url, data=json.dumps(init), timeout=30,
                      headers={**h, "Authorization": basic_header("reader")})
    session = r.headers["Mcp-Session-Id"]
    listing = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    mine = requests.post(url, data=listing, timeout=30, headers={
        **h, "Authorization": basic_header("reader"), "Mcp-Session-Id": session})
    assert mine.status_code == 200
    theirs = requests.post(url, data=listing, timeout=30, headers={
        **h, "Authorization": basic_header("nobody"), "Mcp-Session-Id": session})
    assert theirs.status_code == 404
    assert requests.delete(url, timeout=30, headers={
        "Authorization": basic_header("nobody"), "Mcp-Session-Id": session}).status_code == 404
    assert requests.post(url, data=listing, timeout=30, headers={
        **h, "Authorization": basic_header("reader"), "Mcp-Session-Id": session}).status_code == 200


def test_credentials_are_required(basic_server):
    url = f"{basic_server.url}/mcp"
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "t", "version": "1"}}})
    r = requests.post(url, data=body, headers=h, timeout=30)
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Basic")
    assert r.json()["error"]["message"]
    r = requests.post(url, data=body, timeout=30,
                      headers={**h, "Authorization": basic_header("admin", "wrong")})
    assert r.status_code == 401

    async def listing(c):
        return [m["name"] for m in (await ok(c, "list_metalakes"))["metalakes"]]

    assert isinstance(tools(basic_server.url, "admin", listing, password="admin-password"), list)
    with pytest.raises(BaseExceptionGroup) as e:
        tools(basic_server.url, "admin", listing, password="wrong")
    errors = leaves(e.value)
    assert [(x.error.code, x.error.message) for x in errors if isinstance(x, MCPError)] == [
        (-32001, "Invalid user name or password")]


def leaves(group: BaseException) -> list[BaseException]:
    if isinstance(group, BaseExceptionGroup):
        return [leaf for sub in group.exceptions for leaf in leaves(sub)]
    return [group]


def test_write_tools_are_decided_like_their_api_calls(start_server, tmp_path):
    srv = start_server("mcp-writes", WRITE_ENV)
    admin = Principal(srv.url, "admin")
    wh = tmp_path / "wh"
    wh.mkdir()
    ml = create_metalake(admin)
    create_catalog(admin, ml, wh, "lake")
    admin.ok("POST", f"metalakes/{ml}/catalogs/lake/schemas", {"name": "s", "properties": {}})
    r = admin.rest("POST", f"{ml}.lake", "namespaces/s/tables", {"name": "t", "schema": TABLE_SCHEMA})
    assert r.status_code == 200, r.text
    admin.ok("POST", f"metalakes/{ml}/tags", {"name": "pii", "properties": {}})
    admin.ok("POST", f"metalakes/{ml}/catalogs", {"name": "models", "type": "model",
                                                  "properties": {}})
    admin.ok("POST", f"metalakes/{ml}/catalogs/models/schemas", {"name": "m", "properties": {}})
    mbase = f"metalakes/{ml}/catalogs/models/schemas/m/models"
    admin.ok("POST", mbase, {"name": "churn"})
    a = Admin(admin, ml)
    a.user_with("reader", [sobj("CATALOG", "lake", "USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE"),
                           sobj("CATALOG", "models", "USE_CATALOG", "USE_SCHEMA", "USE_MODEL")])

    def versions():
        return admin.ok("GET", f"{mbase}/churn/versions")["versions"]

    async def listed(c):
        return {t.name for t in (await c.list_tools()).tools}

    assert {"associate_tags", "link_model_version"} <= tools(srv.url, "reader", listed)
    tag_args = {"metalake": ml, "type": "table", "full_name": "lake.s.t", "tags_to_add": ["pii"]}
    link_args = {"metalake": ml, "catalog": "models", "schema": "m", "model": "churn",
                 "uri": "s3://models/churn/0", "aliases": ["prod"]}

    async def reader(c):
        await denied(c, "associate_tags", **tag_args)
        await denied(c, "link_model_version", **link_args)
        return True

    assert tools(srv.url, "reader", reader)
    assert admin.ok("GET", f"metalakes/{ml}/objects/table/lake.s.t/tags")["names"] == []
    assert versions() == []

    async def owner(c):
        tagged = await ok(c, "associate_tags", **tag_args)
        linked = await ok(c, "link_model_version", **link_args)
        return tagged, linked

    tagged, linked = tools(srv.url, "admin", owner)
    assert tagged["tags"] == ["pii"]
    assert linked["modelVersion"]["version"] == 0
    assert linked["modelVersion"]["aliases"] == ["prod"]
    assert admin.ok("GET", f"metalakes/{ml}/objects/table/lake.s.t/tags")["names"] == ["pii"]
    assert versions() == [0]


def test_write_tools_are_absent_by_default(authz_server, lake):
    async def body(c):
        names = {t.name for t in (await c.list_tools()).tools}
        assert "associate_tags" not in names and "link_model_version" not in names
        with pytest.raises(MCPError):
            await c.call_tool("associate_tags", {"metalake": lake, "type": "table",
                                                 "full_name": "lake.s.open",
                                                 "tags_to_add": ["pii"]})
        return True

    assert tools(authz_server.url, "admin", body)
