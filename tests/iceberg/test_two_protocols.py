"""One catalog, two protocols: what PyIceberg creates is seen through the Gravitino API (/api)
and what /api creates is loadable and writable through PyIceberg."""

from __future__ import annotations

import pyarrow as pa
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import IntegerType, LongType, NestedField, StringType

from ice_helpers import unique


def ok(resp) -> dict:
    assert resp.status_code == 200, f"{resp.status_code}: {resp.text[:500]}"
    body = resp.json()
    assert body.get("code") == 0, body
    return body


def test_pyiceberg_table_visible_through_api(ice, catalog):
    ns = unique("ns")
    catalog.create_namespace(ns, {"owner": "pyiceberg"})
    schema = Schema(NestedField(1, "id", LongType(), required=True),
                    NestedField(2, "name", StringType(), required=False),
                    NestedField(3, "n", IntegerType(), required=False),
                    identifier_field_ids=[1])
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "name"))
    tbl = catalog.create_table((ns, "from_py"), schema, partition_spec=spec,
                               properties={"pk": "pv"})
    tbl.append(pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["a", "b"],
                         "n": pa.array([10, 20], pa.int32())},
                        schema=pa.schema([pa.field("id", pa.int64(), nullable=False),
                                          pa.field("name", pa.string()),
                                          pa.field("n", pa.int32())])))

    schemas = ok(ice.api_get(ice.api_schema_path()))["identifiers"]
    assert ns in [s["name"] for s in schemas]
    sch = ok(ice.api_get(ice.api_schema_path(ns)))["schema"]
    assert sch["name"] == ns
    assert sch.get("properties", {}).get("owner") == "pyiceberg"

    ids = ok(ice.api_get(ice.api_table_path(ns)))["identifiers"]
    assert {"namespace": [ice.metalake, ice.catalog, ns], "name": "from_py"} in ids

    t = ok(ice.api_get(ice.api_table_path(ns, "from_py")))["table"]
    assert t["name"] == "from_py"
    cols = {c["name"]: c for c in t["columns"]}
    assert list(cols) == ["id", "name", "n"]
    assert cols["id"]["type"] == "long" and cols["id"]["nullable"] is False
    assert cols["name"]["type"] == "string"
    assert cols["n"]["type"] == "integer"
    assert t["properties"].get("pk") == "pv"
    assert [p.get("fieldName") for p in t["partitioning"]] == [["name"]]

    # an alteration through /api is seen by PyIceberg, data stays readable
    r = ice.api("PUT", ice.api_table_path(ns, "from_py"), {"updates": [
        {"@type": "addColumn", "fieldName": ["extra"], "type": "string", "comment": None,
         "position": "default", "nullable": True, "autoIncrement": False},
        {"@type": "setProperty", "property": "via", "value": "api"}]})
    ok(r)
    again = catalog.load_table((ns, "from_py"))
    assert [f.name for f in again.schema().fields] == ["id", "name", "n", "extra"]
    assert again.properties.get("via") == "api"
    got = again.scan().to_arrow()
    assert sorted(got.column("id").to_pylist()) == [1, 2]
    assert got.column("extra").to_pylist() == [None, None]

    # schema evolution through PyIceberg is what /api reports next
    with again.update_schema() as upd:
        upd.update_column("n", LongType())
        upd.rename_column("n", "num")
    t = ok(ice.api_get(ice.api_table_path(ns, "from_py")))["table"]
    assert [c["name"] for c in t["columns"]] == ["id", "name", "num", "extra"]
    assert {c["name"]: c["type"] for c in t["columns"]}["num"] == "long"

    # dropped via /api: gone for PyIceberg
    ok(ice.api_delete(ice.api_table_path(ns, "from_py")))
    assert not catalog.table_exists((ns, "from_py"))


def test_api_table_usable_through_pyiceberg(ice, catalog):
    ns = unique("s")
    ok(ice.api_post(ice.api_schema_path(), {"name": ns, "comment": "via api",
                                            "properties": {"k": "v"}}))
    assert catalog.namespace_exists(ns)
    assert catalog.load_namespace_properties(ns).get("k") == "v"

    body = {
        "name": "from_api",
        "comment": "created through /api",
        "columns": [
            {"name": "id", "type": "long", "comment": "id", "nullable": False,
             "autoIncrement": False},
            {"name": "city", "type": "string", "comment": None, "nullable": True,
             "autoIncrement": False},
            {"name": "score", "type": "double", "comment": None, "nullable": True,
             "autoIncrement": False},
        ],
        "partitioning": [{"strategy": "identity", "fieldName": ["city"]}],
        "distribution": {"strategy": "none", "number": 0, "funcArgs": []},
        "sortOrders": [], "indexes": [], "properties": {"origin": "api"},
    }
    ok(ice.api_post(ice.api_table_path(ns), body))

    assert (ns, "from_api") in catalog.list_tables(ns)
    tbl = catalog.load_table((ns, "from_api"))
    fields = tbl.schema().fields
    assert [f.name for f in fields] == ["id", "city", "score"]
    assert fields[0].required and str(fields[0].field_type) == "long"
    assert str(fields[2].field_type) == "double"
    assert [f.name for f in tbl.spec().fields] == ["city"]
    assert tbl.properties.get("origin") == "api"

    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "city": ["x", "y", "x"],
                     "score": [1.5, 2.5, 3.5]},
                    schema=pa.schema([pa.field("id", pa.int64(), nullable=False),
                                      pa.field("city", pa.string()),
                                      pa.field("score", pa.float64())]))
    tbl.append(data)
    got = catalog.load_table((ns, "from_api")).scan().to_arrow()
    assert sorted(zip(got.column("id").to_pylist(), got.column("city").to_pylist())) == [
        (1, "x"), (2, "y"), (3, "x")]

    # /api still loads it after the PyIceberg commit (same row, new metadata)
    t = ok(ice.api_get(ice.api_table_path(ns, "from_api")))["table"]
    assert [c["name"] for c in t["columns"]] == ["id", "city", "score"]
    assert t["comment"] == "created through /api"

    # rename through PyIceberg is seen by /api
    catalog.rename_table((ns, "from_api"), (ns, "renamed"))
    names = [i["name"] for i in ok(ice.api_get(ice.api_table_path(ns)))["identifiers"]]
    assert names == ["renamed"]
