"""Section 12 of the compatibility reference: the minimal client handshake, with a managed
lakehouse-iceberg catalog, driven by the unmodified Python client (the same handshake against a
jdbc-postgresql catalog is tests/jdbc/test_client.py)."""

import re

import pytest

from gravitino import GravitinoAdminClient, GravitinoClient, NameIdentifier
from gravitino.api.catalog import Catalog
from gravitino.namespace import Namespace
from gravitino.api.rel.column import Column
from gravitino.api.rel.types.types import Types
from gravitino.exceptions.base import (
    MetalakeInUseException,
    NoSuchMetalakeException,
    NoSuchSchemaException,
    NoSuchTableException,
    NotEmptyException,
    TableAlreadyExistsException,
)

from helpers import assert_error, metadata_files, ok_json, table_path, unique


def _iso(ts: str) -> None:
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)$", ts), ts


def test_handshake(base_url, api, tmp_path):
    ml = unique("ml1")
    wh = tmp_path / "wh"
    wh.mkdir()

    # Step 1: admin client construction (GET /api/version).
    admin = GravitinoAdminClient(uri=base_url)

    # Step 2: create metalake.
    m = admin.create_metalake(ml, "a metalake", {"k1": "v1"})
    assert m.name() == ml
    assert m.comment() == "a metalake"
    assert m.properties() == {"k1": "v1", "in-use": "true"}
    assert m.audit_info().creator() == "anonymous"
    _iso(m.audit_info().create_time())

    try:
        # Step 3: user client construction (GET version + GET metalake).
        c = GravitinoClient(uri=base_url, metalake_name=ml)
        assert c.get_metalake().name() == ml
        raw = ok_json(api.get(f"metalakes/{ml}"))["metalake"]
        assert raw["properties"] == {"k1": "v1", "in-use": "true"}
        assert raw["audit"]["creator"] == "anonymous"

        # Step 4: create relational catalog.
        cat = c.create_catalog("pg", Catalog.Type.RELATIONAL, "lakehouse-iceberg", "pg catalog",
                               {"catalog-backend": "managed", "warehouse": str(wh)})
        assert cat.name() == "pg"
        assert cat.type() == Catalog.Type.RELATIONAL
        assert cat.provider() == "lakehouse-iceberg"
        assert cat.comment() == "pg catalog"
        assert cat.properties()["in-use"] == "true"
        assert cat.properties()["warehouse"] == str(wh)
        rawcat = ok_json(api.get(f"metalakes/{ml}/catalogs/pg"))["catalog"]
        assert rawcat["type"] == "relational"  # must be lower-case on the wire

        # Step 5: create schema.
        s = cat.as_schemas().create_schema("s1", "schema comment", {"sk": "sv"})
        assert s.name() == "s1"
        assert s.comment() == "schema comment"
        assert s.properties().get("sk") == "sv"
        assert s.audit_info().creator() == "anonymous"

        # Step 6: create table.
        tc = cat.as_table_catalog()
        cols = [
            Column.of("id", Types.IntegerType.get(), "id col", nullable=False),
            Column.of("name", Types.StringType.get(), "name col"),
            Column.of("ts", Types.TimestampType.with_time_zone(6)),
        ]
        ident = NameIdentifier.of("s1", "t1")
        t = tc.create_table(ident, cols, "tbl comment", {"p": "v"})
        assert t.name() == "t1"
        assert t.comment() == "tbl comment"
        assert t.properties().get("p") == "v"
        assert [col.name() for col in t.columns()] == ["id", "name", "ts"]
        assert t.columns()[0].nullable() is False
        assert t.columns()[0].comment() == "id col"
        assert t.columns()[1].nullable() is True
        assert t.partitioning() == []
        assert metadata_files(wh, "s1", "t1"), "creating a table must write Iceberg metadata"

        # The raw response always carries partitioning/sortOrders/indexes/distribution.
        rawt = ok_json(api.get(table_path(ml, "pg", "s1", "t1")))["table"]
        assert rawt["partitioning"] == []
        assert rawt["sortOrders"] == []
        assert rawt["indexes"] == []
        assert rawt["distribution"]["strategy"] == "none"
        assert rawt["audit"]["creator"] == "anonymous"
        assert rawt["columns"][2]["type"] == "timestamp_tz(6)"
        assert rawt["columns"][0]["autoIncrement"] is False

        # Step 7: load table.
        t2 = tc.load_table(ident)
        assert t2.name() == "t1"
        assert [col.name() for col in t2.columns()] == ["id", "name", "ts"]
        assert t2.comment() == "tbl comment"

        # Negative checks.
        with pytest.raises(NoSuchMetalakeException):
            GravitinoClient(uri=base_url, metalake_name=unique("nope"))
        assert_error(api.get("metalakes/nope_does_not_exist"), 404, 1003,
                     "NoSuchMetalakeException")
        with pytest.raises(NoSuchTableException):
            tc.load_table(NameIdentifier.of("s1", "missing"))
        with pytest.raises(NoSuchSchemaException):
            tc.list_tables(Namespace.of("missing_schema"))
        with pytest.raises(TableAlreadyExistsException):
            tc.create_table(ident, cols, "dup", {})
        r = api.post(table_path(ml, "pg", "s1"),
                     {"name": "t1", "columns": [{"name": "a", "type": "integer",
                                                 "nullable": True, "autoIncrement": False}],
                      "partitioning": []})
        assert_error(r, 409, 1004, "TableAlreadyExistsException")

        # Step 8: drop table.
        assert tc.drop_table(ident) is True
        assert tc.drop_table(ident) is False
        with pytest.raises(NoSuchTableException):
            tc.load_table(ident)

        # Metalake drop semantics from the negative-check list.
        r = api.delete(f"metalakes/{ml}", params={"force": "False"})
        assert_error(r, 409, 1010, "MetalakeInUseException")
        with pytest.raises(MetalakeInUseException):
            admin.drop_metalake(ml)
        assert ok_json(api.patch(f"metalakes/{ml}", {"inUse": False})) == {"code": 0}
        r = api.delete(f"metalakes/{ml}", params={"force": "False"})
        assert_error(r, 409, 1005, "NonEmptyMetalakeException")
        with pytest.raises(NotEmptyException):
            admin.drop_metalake(ml)
        r = api.delete(f"metalakes/{ml}", params={"force": "True"})
        assert ok_json(r) == {"code": 0, "dropped": True}

        # Step 9: close.
        c.close()
        admin.close()
    finally:
        api.delete(f"metalakes/{ml}", params={"force": "true"})
