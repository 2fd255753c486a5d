"""The Gravitino Python client's handshake against a jdbc-postgresql catalog: connect, create
metalake, catalog, schema and table, load, alter, drop; checked in PostgreSQL at each step."""

from __future__ import annotations

import pytest

from gravitino import GravitinoAdminClient, GravitinoClient, NameIdentifier
from gravitino.api.catalog import Catalog
from gravitino.api.rel.column import Column
from gravitino.api.rel.indexes.index import Index
from gravitino.api.rel.indexes.indexes import Indexes
from gravitino.api.rel.table_change import TableChange
from gravitino.api.rel.types.types import Types
from gravitino.exceptions.base import NoSuchTableException, TableAlreadyExistsException

from helpers import unique


def test_python_client_handshake_with_jdbc_postgresql(server, api, pg):
    ml = unique("ml")
    admin = GravitinoAdminClient(uri=server.url)
    admin.create_metalake(ml, "jdbc metalake", {})
    try:
        client = GravitinoClient(uri=server.url, metalake_name=ml)
        props = pg.catalog_body("x")["properties"]
        cat = client.create_catalog("pgcat", Catalog.Type.RELATIONAL, "jdbc-postgresql",
                                    "live postgres", props)
        assert cat.provider() == "jdbc-postgresql"
        # credentials never come back
        assert "jdbc-password" not in cat.properties()
        assert "jdbc-user" not in cat.properties()
        assert cat.properties()["jdbc-url"] == pg.jdbc_url
        loaded_cat = client.load_catalog("pgcat")
        assert "jdbc-password" not in loaded_cat.properties()

        schema = cat.as_schemas().create_schema("sales", "sales data", {})
        assert schema.name() == "sales" and schema.comment() == "sales data"
        assert pg.query("SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE "
                        "nspname = 'sales'") == [["sales data"]]
        assert "sales" in cat.as_schemas().list_schemas()

        tc = cat.as_table_catalog()
        ident = NameIdentifier.of("sales", "orders")
        t = tc.create_table(
            ident,
            [Column.of("id", Types.LongType.get(), "key", nullable=False, auto_increment=True),
             Column.of("item", Types.VarCharType.of(32), "what", nullable=False),
             Column.of("price", Types.DecimalType.of(10, 2)),
             Column.of("at", Types.TimestampType.with_time_zone(3))],
            "orders table", {},
            indexes=[Indexes.primary("orders_pk", [["id"]])])
        assert t.name() == "orders" and t.comment() == "orders table"
        assert pg.query("SELECT column_name, data_type FROM information_schema.columns WHERE "
                        "table_schema = 'sales' AND table_name = 'orders' ORDER BY "
                        "ordinal_position") == [
            ["id", "bigint"], ["item", "character varying"], ["price", "numeric"],
            ["at", "timestamp with time zone"]]

        t = tc.load_table(ident)
        assert [c.name() for c in t.columns()] == ["id", "item", "price", "at"]
        assert t.columns()[0].auto_increment() is True
        assert t.columns()[0].nullable() is False
        assert t.columns()[1].data_type() == Types.VarCharType.of(32)
        assert t.columns()[2].data_type() == Types.DecimalType.of(10, 2)
        assert t.columns()[3].data_type() == Types.TimestampType.with_time_zone(3)
        assert t.index()[0].type() == Index.IndexType.PRIMARY_KEY
        assert t.index()[0].field_names() == [["id"]]
        with pytest.raises(TableAlreadyExistsException):
            tc.create_table(ident, [Column.of("x", Types.IntegerType.get())], "dup", {})

        t = tc.alter_table(ident,
                           TableChange.update_comment("all orders"),
                           TableChange.add_column(
                               ["qty"], Types.IntegerType.get(), "how many",
                               TableChange.ColumnPosition.default_pos()),
                           TableChange.rename_column(["item"], "product"),
                           TableChange.update_column_type(["price"], Types.DecimalType.of(12, 2)))
        assert t.comment() == "all orders"
        assert [c.name() for c in t.columns()] == ["id", "product", "price", "at", "qty"]
        assert pg.query("SELECT column_name, numeric_precision FROM information_schema.columns "
                        "WHERE table_schema = 'sales' AND table_name = 'orders' AND "
                        "column_name = 'price'") == [["price", "12"]]

        t = tc.alter_table(ident, TableChange.rename("orders2"))
        assert t.name() == "orders2"
        assert pg.query("SELECT tablename FROM pg_tables WHERE schemaname = 'sales'") == [
            ["orders2"]]
        ident2 = NameIdentifier.of("sales", "orders2")
        assert tc.drop_table(ident2) is True
        assert tc.drop_table(ident2) is False
        with pytest.raises(NoSuchTableException):
            tc.load_table(ident2)
        assert pg.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'sales'") == [["0"]]

        assert cat.as_schemas().drop_schema("sales", True) is True
        assert pg.query("SELECT count(*) FROM pg_namespace WHERE nspname = 'sales'") == [["0"]]
        client.disable_catalog("pgcat")
        assert client.drop_catalog("pgcat") is True
        # the source keeps its data when the catalog goes
        assert pg.query("SELECT count(*) FROM pg_namespace WHERE nspname = 'public'") == [["1"]]
        client.close()
    finally:
        api.delete(f"metalakes/{ml}", params={"force": "true"})
        admin.close()
