"""The MCP server at /mcp through the official `mcp` Python SDK: both protocol eras (2026-07-28
without a handshake, found by `server/discover`; the initialize handshake with a session), the
tool list, every tool against a catalog built in the test (an Iceberg table with snapshots
written by PyIceberg, tags on a table and a column, a fileset with a file, a model with versions,
a function, statistics, lineage), search, bad input, the wire rules of Streamable HTTP, `cairn
mcp` over stdio, and one audit record per call naming the tool (docs/mcp.md)."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

import anyio
import pyarrow as pa
import pytest
import requests

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from cairn_server import cairn_binary
from helpers import unique

MODES = ["auto", "legacy"]
CSV = "id,amount\n1,1.50\n"
MODERN = "2026-07-28"
READ_TOOLS = {
    "list_metalakes", "list_catalogs", "get_catalog", "list_schemas", "get_schema", "list_tables",
    "get_table", "get_table_snapshots", "list_views", "get_view", "list_filesets", "get_fileset",
    "list_fileset_files", "list_models", "get_model", "list_model_versions", "get_model_version",
    "list_topics", "get_topic", "list_functions", "get_function", "list_tags", "get_tag",
    "list_tags_for_object", "list_objects_for_tag", "list_policies", "get_policy",
    "list_policies_for_object", "list_objects_for_policy", "list_statistics",
    "list_partition_statistics", "get_lineage", "get_owner", "get_my_privileges", "search"}


def run(base_url: str, body, mode: str = "auto"):
    """Opens an SDK client on the server's /mcp (in `mode`), runs `await body(client)`."""

    async def main():
        async with Client(streamable_http_client(f"{base_url}/mcp"), mode=mode) as c:
            return await body(c)

    return anyio.run(main)


async def call(c, tool: str, **args) -> dict:
    """A tool call that must succeed: its structured result (also checked as text)."""
    r = await c.call_tool(tool, args)
    assert not r.is_error, (tool, args, r.content[0].text if r.content else r)
    assert r.content and r.content[0].type == "text"
    assert json.loads(r.content[0].text) == r.structured_content
    return r.structured_content


async def refused(c, tool: str, **args) -> dict:
    """A tool call that must fail inside its result: the error part of it."""
    r = await c.call_tool(tool, args)
    assert r.is_error, (tool, args, r.structured_content)
    assert r.content[0].text
    return r.structured_content["error"]


@pytest.fixture
def lake(api, base_url, metalake_name, tmp_path):
    """A catalog of each kind with one object each, built through the Gravitino API and PyIceberg."""
    ml = metalake_name
    base = f"metalakes/{ml}/catalogs"
    wh = tmp_path / "wh"
    wh.mkdir()
    assert api.post(base, {"name": "lake", "type": "relational", "provider": "lakehouse-iceberg",
                           "comment": "the lakehouse",
                           "properties": {"catalog-backend": "managed",
                                          "warehouse": str(wh)}}).status_code == 200
    assert api.post(f"{base}/lake/schemas", {"name": "sales", "comment": "web shop sales",
                                              "properties": {}}).status_code == 200
    columns = [
        {"name": "id", "type": "long", "comment": "order id", "nullable": False},
        {"name": "customer_email", "type": "string", "comment": "the buyer's address",
         "nullable": True},
        {"name": "amount", "type": "decimal(10,2)", "nullable": True},
    ]
    r = api.post(f"{base}/lake/schemas/sales/tables",
                 {"name": "orders", "comment": "Orders of the web shop", "columns": columns,
                  "properties": {"owner-team": "shop"},
                  "partitioning": [{"strategy": "identity", "fieldName": ["id"]}]})
    assert r.status_code == 200, r.text
    for tag in ("pii", "gold"):
        assert api.post(f"metalakes/{ml}/tags", {"name": tag, "comment": f"{tag} data",
                                                 "properties": {}}).status_code == 200
    assert api.post(f"metalakes/{ml}/objects/table/lake.sales.orders/tags",
                    {"tagsToAdd": ["gold"]}).status_code == 200
    assert api.post(f"metalakes/{ml}/objects/column/lake.sales.orders.customer_email/tags",
                    {"tagsToAdd": ["pii"]}).status_code == 200

    # Two appends through PyIceberg: two snapshots.
    from pyiceberg.catalog import load_catalog
    from decimal import Decimal
    ice = load_catalog("mcp", type="rest", uri=f"{base_url}/iceberg", warehouse=f"{ml}.lake")
    t = ice.load_table("sales.orders")
    schema = t.schema().as_arrow()
    for i in range(2):
        t.append(pa.Table.from_pylist(
            [{"id": i, "customer_email": f"u{i}@example.com", "amount": Decimal("1.50")}],
            schema=schema))

    # A fileset with a file in it.
    fs_root = tmp_path / "files"
    assert api.post(base, {"name": "files", "type": "fileset", "provider": "fileset",
                           "comment": "raw files",
                           "properties": {"location": str(fs_root)}}).status_code == 200
    assert api.post(f"{base}/files/schemas", {"name": "raw", "properties": {}}).status_code == 200
    r = api.post(f"{base}/files/schemas/raw/filesets",
                 {"name": "landing", "type": "MANAGED", "comment": "landing zone"})
    assert r.status_code == 200, r.text
    location = r.json()["fileset"]["storageLocation"]
    landing = Path(location.removeprefix("file:"))
    (landing / "2026").mkdir(parents=True, exist_ok=True)
    (landing / "2026" / "orders.csv").write_text(CSV)

    # A model with two versions, and a function.
    assert api.post(base, {"name": "models", "type": "model", "comment": "model registry",
                           "properties": {}}).status_code == 200
    assert api.post(f"{base}/models/schemas", {"name": "ml", "properties": {}}).status_code == 200
    mbase = f"{base}/models/schemas/ml/models"
    assert api.post(mbase, {"name": "churn", "comment": "churn classifier"}).status_code == 200
    for i, alias in enumerate(("first", "prod")):
        assert api.post(f"{mbase}/churn/versions",
                        {"uri": f"s3://models/churn/{i}", "aliases": [alias]}).status_code == 200
    fn = {"name": "plus_one", "functionType": "SCALAR", "deterministic": True,
          "comment": "adds one",
          "definitions": [{"parameters": [{"name": "x", "dataType": "integer"}],
                           "returnType": "integer",
                           "impls": [{"language": "SQL", "runtime": "SPARK", "sql": "x + 1"}]}]}
    assert api.post(f"{base}/models/schemas/ml/functions", fn).status_code == 200

    # A statistic and a lineage event naming the table.
    r = api.put(f"metalakes/{ml}/objects/table/lake.sales.orders/statistics",
                {"updates": {"custom-freshness": "daily"}})
    assert r.status_code == 200, r.text
    event = {"eventType": "COMPLETE", "eventTime": "2026-12-04T10:00:00Z",
             "producer": "https://example.com/etl", "schemaURL": "https://openlineage.io/spec",
             "run": {"runId": str(uuid.uuid4())}, "job": {"namespace": "etl", "name": "load_orders"},
             "inputs": [{"namespace": "s3://landing", "name": "orders.csv"}],
             "outputs": [{"namespace": ml, "name": "lake.sales.orders"}]}
    assert api.post("lineage", event).status_code == 201
    return ml


def test_both_eras_list_the_tools(base_url):
    async def body(c):
        tools = (await c.list_tools()).tools
        return c.protocol_version, c.server_info, tools

    version, info, tools = run(base_url, body, "auto")
    assert version == MODERN
    names = {t.name for t in tools}
    assert names == READ_TOOLS  # the tools that change metadata are off by default
    for t in tools:
        assert t.input_schema["type"] == "object" and t.description
        assert t.annotations.read_only_hint is True
    search = next(t for t in tools if t.name == "search")
    assert search.input_schema["required"] == ["query"]

    version, info, legacy_tools = run(base_url, body, "legacy")
    assert version == "2025-11-25"
    assert info.name == "cairn"
    assert {t.name for t in legacy_tools} == names


@pytest.mark.parametrize("mode", MODES)
def test_tools_walk_the_catalog(base_url, lake, mode):
    ml = lake
    where = {"metalake": ml, "catalog": "lake", "schema": "sales"}

    async def body(c):
        metalakes = await call(c, "list_metalakes")
        assert ml in [m["name"] for m in metalakes["metalakes"]]
        cats = {x["name"]: x for x in (await call(c, "list_catalogs", metalake=ml))["catalogs"]}
        assert set(cats) == {"lake", "files", "models"}
        assert cats["lake"]["provider"] == "lakehouse-iceberg"
        assert cats["lake"]["comment"] == "the lakehouse"
        assert (await call(c, "get_catalog", metalake=ml, catalog="files"))["catalog"][
            "type"] == "fileset"
        assert (await call(c, "list_schemas", metalake=ml, catalog="lake"))["schemas"] == ["sales"]
        assert (await call(c, "get_schema", **where))["schema"]["comment"] == "web shop sales"
        assert (await call(c, "list_tables", **where))["tables"] == ["orders"]

        table = (await call(c, "get_table", **where, table="orders"))["table"]
        assert table["comment"] == "Orders of the web shop"
        cols = {col["name"]: col for col in table["columns"]}
        assert list(cols) == ["id", "customer_email", "amount"]
        assert cols["id"]["type"] == "long" and cols["id"]["nullable"] is False
        assert cols["customer_email"]["comment"] == "the buyer's address"
        assert cols["amount"]["type"] == "decimal(10,2)"
        assert table["partitioning"][0]["fieldName"] == ["id"]
        assert table["properties"]["owner-team"] == "shop"

        snaps = await call(c, "get_table_snapshots", **where, table="orders", limit=5)
        assert snaps["snapshotCount"] == 2 and len(snaps["snapshots"]) == 2
        newest, oldest = snaps["snapshots"]
        assert newest["snapshotId"] == snaps["currentSnapshotId"]
        assert newest["parentSnapshotId"] == oldest["snapshotId"]
        assert newest["operation"] == "append"
        assert newest["summary"]["added-records"] == "1"
        assert snaps["refs"]["main"]["snapshot-id"] == snaps["currentSnapshotId"]
        assert len(snaps["metadataLog"]) >= 2
        assert (await call(c, "get_table_snapshots", **where, table="orders", limit=1))[
            "snapshots"] == [newest]

        fw = {"metalake": ml, "catalog": "files", "schema": "raw"}
        assert (await call(c, "list_filesets", **fw))["filesets"] == ["landing"]
        fileset = (await call(c, "get_fileset", **fw, fileset="landing"))["fileset"]
        assert fileset["type"] == "managed" and fileset["comment"] == "landing zone"
        files = (await call(c, "list_fileset_files", **fw, fileset="landing"))["files"]
        assert [(f["name"], f["isDir"]) for f in files] == [("2026", True)]
        files = (await call(c, "list_fileset_files", **fw, fileset="landing",
                            sub_path="/2026"))["files"]
        assert [(f["name"], f["size"]) for f in files] == [("orders.csv", len(CSV))]

        mw = {"metalake": ml, "catalog": "models", "schema": "ml"}
        assert (await call(c, "list_models", **mw))["models"] == ["churn"]
        model = (await call(c, "get_model", **mw, model="churn"))["model"]
        assert model["latestVersion"] == 2 and model["comment"] == "churn classifier"
        versions = (await call(c, "list_model_versions", **mw, model="churn"))["versions"]
        assert [(v["version"], v["aliases"]) for v in versions] == [(0, ["first"]), (1, ["prod"])]
        by_alias = (await call(c, "get_model_version", **mw, model="churn", alias="prod"))
        assert by_alias["modelVersion"]["version"] == 1
        assert by_alias["modelVersion"]["uris"] == {"unknown": "s3://models/churn/1"}
        by_number = await call(c, "get_model_version", **mw, model="churn", version=0)
        assert by_number["modelVersion"]["aliases"] == ["first"]
        functions = (await call(c, "list_functions", **mw))["functions"]
        assert [f["name"] for f in functions] == ["plus_one"]
        fn = (await call(c, "get_function", **mw, function="plus_one"))["function"]
        assert fn["definitions"][0]["impls"][0]["sql"] == "x + 1"

        tags = {t["name"] for t in (await call(c, "list_tags", metalake=ml))["tags"]}
        assert tags == {"pii", "gold"}
        assert (await call(c, "get_tag", metalake=ml, tag="pii"))["tag"]["comment"] == "pii data"
        on_table = await call(c, "list_tags_for_object", metalake=ml, type="table",
                              full_name="lake.sales.orders")
        assert [t["name"] for t in on_table["tags"]] == ["gold"]
        objects = (await call(c, "list_objects_for_tag", metalake=ml, tag="pii"))[
            "metadataObjects"]
        assert [(o["type"], o["fullName"]) for o in objects] == [
            ("column", "lake.sales.orders.customer_email")]
        assert (await call(c, "list_policies", metalake=ml))["policies"] == []

        stats = (await call(c, "list_statistics", metalake=ml, full_name="lake.sales.orders"))[
            "statistics"]
        assert {s["name"]: s["value"] for s in stats}["custom-freshness"] == "daily"

        lineage = None
        for _ in range(50):  # the event is written by the lineage writer shortly after its 201
            lineage = await call(c, "get_lineage", metalake=ml, full_name="lake.sales.orders",
                                 direction="upstream")
            if len(lineage["nodes"]) == 3:
                break
            await anyio.sleep(0.1)
        kinds = sorted((n["type"], n.get("name")) for n in lineage["nodes"])
        assert kinds == [("dataset", "lake.sales.orders"), ("dataset", "orders.csv"),
                         ("job", "load_orders")]

        mine = await call(c, "get_my_privileges", metalake=ml, type="table",
                          full_name="lake.sales.orders")
        assert mine["authorization"] is False and mine["principal"] == "anonymous"
        return True

    assert run(base_url, body, mode)


def test_search_by_name_comment_tag_and_column(base_url, lake):
    ml = lake

    async def body(c):
        async def found(query, **kw):
            out = await call(c, "search", metalake=ml, query=query, **kw)
            return {(h["type"], h["fullName"]): [m["field"] for m in h["matched"]]
                    for h in out["results"]}

        assert await found("orders") == {("table", "lake.sales.orders"): ["name", "comment"]}
        assert await found("WEB SHOP") == {("schema", "lake.sales"): ["comment"],
                                           ("table", "lake.sales.orders"): ["comment"]}
        assert await found("gold") == {("table", "lake.sales.orders"): ["tag"]}
        assert await found("email") == {("table", "lake.sales.orders"): ["column"]}
        assert await found("pii") == {("table", "lake.sales.orders"): ["column tag"]}
        assert await found("churn") == {("model", "models.ml.churn"): ["name", "comment"]}
        assert await found("landing") == {("fileset", "files.raw.landing"): ["name", "comment"]}
        assert await found("lake", kinds=["catalog"]) == {("catalog", "lake"): ["name", "comment"]}
        assert await found("orders", catalog="files") == {}
        assert await found("no such thing") == {}
        many = await call(c, "search", metalake=ml, query="a", limit=2)
        assert len(many["results"]) == 2 and many["truncated"] is True
        return True

    assert run(base_url, body)


def test_bad_input_is_a_clear_error(base_url, metalake_name):
    async def body(c):
        with pytest.raises(MCPError) as e:
            await c.call_tool("drop_everything", {})
        assert e.value.error.code == -32602 and "drop_everything" in e.value.error.message
        with pytest.raises(MCPError):  # a tool that writes is not there while writes are off
            await c.call_tool("associate_tags", {"metalake": metalake_name, "type": "table",
                                                 "full_name": "a.b.c", "tags_to_add": ["x"]})
        missing = await refused(c, "get_table", metalake=metalake_name, catalog="c", schema="s")
        assert missing["message"] == "Invalid arguments: 'table' is required"
        typed = await refused(c, "list_schemas", metalake=metalake_name, catalog=["c"])
        assert typed["message"] == "Invalid arguments: 'catalog' must be a string, not an array"
        extra = await refused(c, "list_catalogs", metalake=metalake_name, force=True)
        assert extra["message"] == "Invalid arguments: 'force' is not an argument of this tool"
        limit = await refused(c, "search", metalake=metalake_name, query="x", limit=10**6)
        assert limit["message"] == "Invalid arguments: 'limit' must be at most 500"
        kind = await refused(c, "get_owner", metalake=metalake_name, type="bucket", full_name="x")
        assert kind["message"].startswith("Invalid arguments: 'type' must be one of metalake,")
        nul = await refused(c, "list_schemas", metalake=metalake_name, catalog="a\x00b")
        assert nul["message"] == "Invalid arguments: 'catalog' must not contain NUL"
        # Names that are paths are names, refused by the catalog as any interface refuses them.
        dots = await refused(c, "list_schemas", metalake=metalake_name, catalog="..")
        assert dots["status"] == 404 and dots["type"] == "NoSuchCatalogException", dots
        slash = await refused(c, "get_schema", metalake=metalake_name, catalog="a/b", schema="s")
        assert slash["status"] in (400, 404)
        absent = await refused(c, "get_catalog", metalake=metalake_name, catalog="nope")
        assert absent["status"] == 404 and absent["type"] == "NoSuchCatalogException"
        no_ml = await refused(c, "list_catalogs")
        assert no_ml["message"] == "'metalake' is required: the server has no default metalake"
        return True

    assert run(base_url, body)


def post(base_url, message, headers=None, **kw):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers or {})
    data = message if isinstance(message, (str, bytes)) else json.dumps(message)
    return requests.post(f"{base_url}/mcp", data=data, headers=h, timeout=30, **kw)


def modern(method, params=None, id_=1):
    params = dict(params or {})
    params["_meta"] = {"io.modelcontextprotocol/protocolVersion": MODERN,
                       "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


MODERN_HEADERS = {"MCP-Protocol-Version": MODERN}


def test_streamable_http_wire_rules(base_url):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "curl", "version": "1"}}}
    r = post(base_url, init)
    assert r.status_code == 200 and r.json()["result"]["protocolVersion"] == "2025-06-18"
    session = r.headers["Mcp-Session-Id"]
    assert len(session) == 32
    # A version it does not know: the newest handshake-era one.
    r = post(base_url, {**init, "params": {**init["params"], "protocolVersion": "1999-01-01"}})
    assert r.json()["result"]["protocolVersion"] == "2025-11-25"

    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    r = post(base_url, listing, {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
    assert r.status_code == 200 and len(r.json()["result"]["tools"]) == len(READ_TOOLS)
    assert "resultType" not in r.json()["result"]
    assert post(base_url, {"jsonrpc": "2.0", "id": 3, "method": "ping"},
                {"Mcp-Session-Id": session}).json()["result"] == {}
    r = post(base_url, listing)
    assert r.status_code == 400 and "Mcp-Session-Id" in r.json()["error"]["message"]
    r = post(base_url, listing, {"Mcp-Session-Id": "0" * 32})
    assert r.status_code == 404 and r.json()["error"]["code"] == -32001
    r = post(base_url, listing, {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2000-01-01"})
    assert r.status_code == 400
    # A notification is acknowledged with no body.
    r = post(base_url, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"Mcp-Session-Id": session})
    assert r.status_code == 202 and r.content == b""
    # Ending the session: then it is gone.
    h = {"Mcp-Session-Id": session}
    assert requests.delete(f"{base_url}/mcp", headers=h, timeout=30).status_code == 204
    assert post(base_url, listing, h).status_code == 404
    assert requests.delete(f"{base_url}/mcp", headers=h, timeout=30).status_code == 404
    # No stream of server messages is offered.
    r = requests.get(f"{base_url}/mcp", headers={"Accept": "text/event-stream"}, timeout=30)
    assert r.status_code == 405 and "POST" in r.headers["Allow"]

    # The stateless revision: no session; the envelope and the routing headers must agree.
    r = post(base_url, modern("tools/list"), {**MODERN_HEADERS, "Mcp-Method": "tools/list"})
    assert r.status_code == 200
    result = r.json()["result"]
    assert result["resultType"] == "complete" and result["cacheScope"] == "public"
    r = post(base_url, modern("tools/list"), {**MODERN_HEADERS, "Mcp-Method": "tools/call"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32020
    r = post(base_url, modern("tools/call", {"name": "list_metalakes", "arguments": {}}),
             {**MODERN_HEADERS, "Mcp-Method": "tools/call", "Mcp-Name": "search"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32020
    r = post(base_url, modern("tools/list"), {"Mcp-Method": "tools/list"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32020
    old = modern("tools/list")
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    r = post(base_url, old, {"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"})
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["code"] == -32022 and err["data"] == {"supported": [MODERN],
                                                     "requested": "2099-01-01"}
    no_caps = modern("tools/list")
    del no_caps["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    r = post(base_url, no_caps, {**MODERN_HEADERS, "Mcp-Method": "tools/list"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32602
    r = post(base_url, modern("resources/list"), {**MODERN_HEADERS, "Mcp-Method": "resources/list"})
    assert r.status_code == 404 and r.json()["error"]["code"] == -32601
    r = post(base_url, modern("ping"), {**MODERN_HEADERS, "Mcp-Method": "ping"})
    assert r.status_code == 404  # removed in 2026-07-28

    # Malformed messages.
    r = post(base_url, "{not json")
    assert r.status_code == 400 and r.json()["error"]["code"] == -32700
    assert r.json()["id"] is None
    r = post(base_url, "[" * 100000 + "]" * 100000)
    assert r.status_code == 400 and r.json()["error"]["code"] == -32700
    r = post(base_url, [listing, listing])
    assert r.status_code == 400 and r.json()["error"]["code"] == -32600
    r = post(base_url, {"jsonrpc": "1.0", "id": 1, "method": "tools/list"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32600
    r = post(base_url, {"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"})
    assert r.status_code == 400
    r = post(base_url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32602
    r = post(base_url, init, {"Content-Type": "text/plain"})
    assert r.status_code == 415
    r = post(base_url, init, {"Accept": "text/html"})
    assert r.status_code == 406
    # A page of another site may not drive the endpoint from a browser (DNS rebinding).
    r = post(base_url, init, {"Origin": "http://evil.example"})
    assert r.status_code == 403
    host = base_url.removeprefix("http://")
    assert post(base_url, init, {"Origin": f"http://{host}"}).status_code == 200


def test_stdio_bridge(base_url, lake):
    params = StdioServerParameters(command=str(cairn_binary()),
                                   args=["mcp", "--server", base_url],
                                   env={"PATH": os.environ.get("PATH", "")})

    async def main(mode):
        async with Client(params, mode=mode) as c:
            tools = (await c.list_tools()).tools
            tables = await call(c, "list_tables", metalake=lake, catalog="lake", schema="sales")
            return c.protocol_version, {t.name for t in tools}, tables

    for mode, version in (("auto", MODERN), ("legacy", "2025-11-25")):
        got_version, names, tables = anyio.run(main, mode)
        assert got_version == version
        assert names == READ_TOOLS
        assert tables == {"tables": ["orders"]}


def test_stdio_bridge_without_a_server():
    params = StdioServerParameters(command=str(cairn_binary()),
                                   args=["mcp", "--server", "http://127.0.0.1:9"],
                                   env={"PATH": os.environ.get("PATH", "")})

    async def main():
        async with Client(params, mode="legacy") as c:
            await c.list_tools()

    with pytest.raises(BaseExceptionGroup) as e:
        anyio.run(main)
    errors = [x for x in leaves(e.value) if isinstance(x, MCPError)]
    assert len(errors) == 1 and errors[0].error.code == -32603
    assert errors[0].error.message.startswith("Cairn server unreachable: ")


def leaves(group: BaseException) -> list[BaseException]:
    if isinstance(group, BaseExceptionGroup):
        return [leaf for sub in group.exceptions for leaf in leaves(sub)]
    return [group]


def test_every_call_is_audited_with_its_tool(server, base_url, lake):
    async def body(c):
        await call(c, "get_table", metalake=lake, catalog="lake", schema="sales", table="orders")
        await refused(c, "get_table", metalake=lake, catalog="lake", schema="sales", table="nope")
        await refused(c, "search", metalake=lake, query="")
        return True

    started = int(time.time() * 1000)
    assert run(base_url, body, "auto")
    # The audit log is synced on GET /api/audit.
    requests.get(f"{base_url}/api/audit", params={"limit": "1"}, timeout=30)
    records = []
    for f in sorted(Path(server.audit_log).parent.glob("audit.log*")):
        for line in f.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("interface") == "mcp" and rec["timeMs"] >= started:
                records.append(rec)
    calls = [r for r in records if r["operation"].startswith("mcp tools/call")
             and lake in r.get("object", "")]
    got = [(r["operation"], r["object"], r["status"], r["outcome"]) for r in calls]
    assert ("mcp tools/call get_table", f"{lake}.lake.sales.orders", 200, "success") in got
    assert ("mcp tools/call get_table", f"{lake}.lake.sales.nope", 200, "not_found") in got
    assert all(r["principal"] == "anonymous" for r in calls)
    discover = [r for r in records if r["operation"] == "mcp server/discover"]
    assert discover and discover[-1]["outcome"] == "success"
    invalid = [r for r in records if r["operation"] == "mcp tools/call search"]
    assert invalid and invalid[-1]["outcome"] == "failure"
