"""jdbc-postgresql catalogs: schemas and tables live in the PostgreSQL database itself."""

from __future__ import annotations

import pytest

from helpers import assert_error, ok_json, schema_path, table_path, unique
from jdbc_helpers import NULL_LITERAL, col, literal

LIST_INT = {"type": "list", "containsNull": False, "elementType": "integer"}
LIST_VARCHAR = {"type": "list", "containsNull": False, "elementType": "varchar(5)"}

# Gravitino type -> the PostgreSQL type the column gets (format_type) -> loads as the same type.
CAIRN_TO_PG = [
    ("boolean", "boolean"),
    ("short", "smallint"),
    ("integer", "integer"),
    ("long", "bigint"),
    ("float", "real"),
    ("double", "double precision"),
    ("string", "text"),
    ("date", "date"),
    ("time", "time without time zone"),
    ("time(3)", "time(3) without time zone"),
    ("timestamp", "timestamp without time zone"),
    ("timestamp(6)", "timestamp(6) without time zone"),
    ("timestamp_tz", "timestamp with time zone"),
    ("timestamp_tz(3)", "timestamp(3) with time zone"),
    ("decimal(10,2)", "numeric(10,2)"),
    ("decimal(38,18)", "numeric(38,18)"),
    ("varchar(20)", "character varying(20)"),
    ("char(5)", "character(5)"),
    ("binary", "bytea"),
    ("uuid", "uuid"),
    (LIST_INT, "integer[]"),
    (LIST_VARCHAR, "character varying(5)[]"),
    ({"type": "external", "catalogString": "jsonb"}, "jsonb"),
    ({"type": "external", "catalogString": "inet"}, "inet"),
]

# A column type written by hand in psql -> the Gravitino type it loads as.
PG_TO_CAIRN = [
    ("bool", "boolean"),
    ("smallint", "short"),
    ("integer", "integer"),
    ("bigint", "long"),
    ("real", "float"),
    ("double precision", "double"),
    ("text", "string"),
    ("date", "date"),
    ("time", "time"),
    ("time(2)", "time(2)"),
    ("timestamp", "timestamp"),
    ("timestamp(3)", "timestamp(3)"),
    ("timestamptz", "timestamp_tz"),
    ("timestamp(0) with time zone", "timestamp_tz(0)"),
    ("numeric(9,3)", "decimal(9,3)"),
    ("numeric", "decimal(38,18)"),
    ("varchar(12)", "varchar(12)"),
    ("varchar", "string"),
    ("char(4)", "char(4)"),
    ("bytea", "binary"),
    ("uuid", "uuid"),
    ("integer[]", LIST_INT),
    ("varchar(5)[]", LIST_VARCHAR),
    ("jsonb", {"type": "external", "catalogString": "jsonb"}),
    ("interval", {"type": "external", "catalogString": "interval"}),
    ("inet", {"type": "external", "catalogString": "inet"}),
    ("bit(3)", {"type": "external", "catalogString": "bit(3)"}),
]


def _type_id(t) -> str:
    return t if isinstance(t, str) else (t.get("catalogString") or f"list<{t['elementType']}>")


def _schema(api, ml, cat, pg, name=None, comment=None) -> str:
    name = name or unique("s")
    body = {"name": name, "properties": {}}
    if comment is not None:
        body["comment"] = comment
    ok_json(api.post(schema_path(ml, cat), body))
    return name


def _columns(api, ml, cat, schema, table) -> dict:
    t = ok_json(api.get(table_path(ml, cat, schema, table)))["table"]
    return {c["name"]: c for c in t["columns"]}


def test_schemas_are_the_databases_schemas(api, metalake, pg_catalog, pg):
    names = [i["name"] for i in ok_json(api.get(schema_path(metalake, pg_catalog)))["identifiers"]]
    assert "public" in names
    assert not any(n.startswith("pg_") or n == "information_schema" for n in names)

    s = _schema(api, metalake, pg_catalog, pg, comment="made by cairn")
    assert pg.query(f"SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace "
                    f"WHERE nspname = '{s}'") == [["made by cairn"]]
    loaded = ok_json(api.get(schema_path(metalake, pg_catalog, s)))["schema"]
    assert loaded["name"] == s and loaded["comment"] == "made by cairn"

    # made by hand: visible at once
    pg.exec("CREATE SCHEMA by_hand; COMMENT ON SCHEMA by_hand IS 'hand'")
    names = [i["name"] for i in ok_json(api.get(schema_path(metalake, pg_catalog)))["identifiers"]]
    assert {"by_hand", s} <= set(names)
    loaded = ok_json(api.get(schema_path(metalake, pg_catalog, "by_hand")))["schema"]
    assert loaded["comment"] == "hand"

    # taken name, missing schema
    assert_error(api.post(schema_path(metalake, pg_catalog), {"name": s}), 409, 1004,
                 "SchemaAlreadyExistsException")
    assert_error(api.get(schema_path(metalake, pg_catalog, "nope")), 404, 1003,
                 "NoSuchSchemaException")

    # non-empty: 409 without cascade, dropped in the database with it
    pg.exec(f'CREATE TABLE "{s}".t1 (id int)')
    assert_error(api.delete(schema_path(metalake, pg_catalog, s)), 409, 1005,
                 "NonEmptySchemaException")
    assert ok_json(api.delete(schema_path(metalake, pg_catalog, s),
                              params={"cascade": "true"}))["dropped"] is True
    assert pg.query(f"SELECT count(*) FROM pg_namespace WHERE nspname = '{s}'") == [["0"]]
    assert ok_json(api.delete(schema_path(metalake, pg_catalog, s)))["dropped"] is False
    pg.exec("DROP SCHEMA by_hand")


def test_table_created_through_cairn_is_in_the_database_at_once(api, metalake, pg_catalog, pg):
    s = _schema(api, metalake, pg_catalog, pg)
    body = {
        "name": "orders", "comment": "all orders",
        "columns": [
            col("id", "long", False, autoIncrement=True, comment="key"),
            col("code", "varchar(16)", False, defaultValue=literal("varchar(16)", "it's new")),
            col("qty", "integer", defaultValue=literal("integer", "1")),
            col("price", "decimal(10,2)"),
            col("at", "timestamp_tz(3)",
                defaultValue={"type": "function", "funcName": "current_timestamp",
                              "funcArgs": []}),
        ],
        "indexes": [{"indexType": "PRIMARY_KEY", "name": "orders_pk", "fieldNames": [["id"]]},
                    {"indexType": "UNIQUE_KEY", "name": "orders_code",
                     "fieldNames": [["code"], ["qty"]]}],
        "properties": {},
    }
    created = ok_json(api.post(table_path(metalake, pg_catalog, s), body))["table"]
    assert created["name"] == "orders" and created["comment"] == "all orders"

    rows = pg.query(
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity, "
        "coalesce(pg_get_expr(d.adbin, d.adrelid), ''), coalesce(col_description(a.attrelid, "
        "a.attnum), '') FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid "
        f"AND d.adnum = a.attnum WHERE a.attrelid = '\"{s}\".orders'::regclass AND a.attnum > 0 "
        "ORDER BY a.attnum")
    assert rows == [
        ["id", "bigint", "t", "d", "", "key"],
        ["code", "character varying(16)", "t", "", "'it''s new'::character varying", ""],
        ["qty", "integer", "f", "", "1", ""],
        ["price", "numeric(10,2)", "f", "", "", ""],
        ["at", "timestamp(3) with time zone", "f", "", "CURRENT_TIMESTAMP", ""],
    ]
    assert pg.query(f"SELECT obj_description('\"{s}\".orders'::regclass, 'pg_class')") == [
        ["all orders"]]
    constraints = pg.query(
        f"SELECT conname, contype FROM pg_constraint WHERE conrelid = '\"{s}\".orders'::regclass "
        "ORDER BY conname")
    assert constraints == [["orders_code", "u"], ["orders_pk", "p"]]

    t = ok_json(api.get(table_path(metalake, pg_catalog, s, "orders")))["table"]
    cols = {c["name"]: c for c in t["columns"]}
    assert cols["id"]["autoIncrement"] is True and cols["id"]["nullable"] is False
    assert cols["id"]["comment"] == "key"
    assert cols["code"]["defaultValue"] == literal("varchar(16)", "it's new")
    assert cols["qty"]["defaultValue"] == literal("integer", "1")
    assert cols["price"]["defaultValue"] == NULL_LITERAL
    assert cols["at"]["defaultValue"]["funcName"] == "current_timestamp"
    assert t["indexes"] == [
        {"indexType": "PRIMARY_KEY", "name": "orders_pk", "fieldNames": [["id"]],
         "properties": {}},
        {"indexType": "UNIQUE_KEY", "name": "orders_code", "fieldNames": [["code"], ["qty"]],
         "properties": {}},
    ]
    listed = ok_json(api.get(table_path(metalake, pg_catalog, s)))["identifiers"]
    names = [i["name"] for i in listed]
    assert names == ["orders"]
    assert_error(api.post(table_path(metalake, pg_catalog, s), body), 409, 1004,
                 "TableAlreadyExistsException")


def test_table_made_by_hand_is_listed_and_loaded_at_once(api, metalake, pg_catalog, pg):
    s = _schema(api, metalake, pg_catalog, pg)
    pg.exec(f"""
        CREATE TABLE "{s}".hand (
          id serial PRIMARY KEY,
          big bigint GENERATED ALWAYS AS IDENTITY,
          name varchar(40) NOT NULL DEFAULT 'anon',
          score numeric(6,2) DEFAULT 1.5,
          tags text[],
          doc jsonb,
          CONSTRAINT hand_name UNIQUE (name));
        COMMENT ON TABLE "{s}".hand IS 'by hand';
        COMMENT ON COLUMN "{s}".hand.name IS 'who'""")
    listed = ok_json(api.get(table_path(metalake, pg_catalog, s)))["identifiers"]
    names = [i["name"] for i in listed]
    assert names == ["hand"]
    t = ok_json(api.get(table_path(metalake, pg_catalog, s, "hand")))["table"]
    assert t["comment"] == "by hand"
    assert [(c["name"], c["type"], c["nullable"], c["autoIncrement"]) for c in t["columns"]] == [
        ("id", "integer", False, True),
        ("big", "long", False, True),
        ("name", "varchar(40)", False, False),
        ("score", "decimal(6,2)", True, False),
        ("tags", {"type": "list", "containsNull": False, "elementType": "string"}, True, False),
        ("doc", {"type": "external", "catalogString": "jsonb"}, True, False),
    ]
    cols = {c["name"]: c for c in t["columns"]}
    assert cols["name"]["comment"] == "who"
    assert cols["name"]["defaultValue"] == literal("varchar(40)", "anon")
    assert cols["score"]["defaultValue"] == literal("decimal(6,2)", "1.5")
    assert "defaultValue" not in cols["id"]
    assert t["indexes"] == [
        {"indexType": "PRIMARY_KEY", "name": "hand_pkey", "fieldNames": [["id"]],
         "properties": {}},
        {"indexType": "UNIQUE_KEY", "name": "hand_name", "fieldNames": [["name"]],
         "properties": {}},
    ]
    # dropped by hand: gone at once
    pg.exec(f'DROP TABLE "{s}".hand')
    assert_error(api.get(table_path(metalake, pg_catalog, s, "hand")), 404, 1003,
                 "NoSuchTableException")
    assert ok_json(api.get(table_path(metalake, pg_catalog, s)))["identifiers"] == []


@pytest.mark.parametrize("gtype,pg_type", CAIRN_TO_PG, ids=[_type_id(t) for t, _ in CAIRN_TO_PG])
def test_type_created_through_cairn_round_trips(api, metalake, pg_catalog, pg, gtype, pg_type):
    s = _schema(api, metalake, pg_catalog, pg)
    ok_json(api.post(table_path(metalake, pg_catalog, s),
                     {"name": "t", "columns": [col("c", gtype)]}))
    assert pg.query(f"SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE "
                    f"attrelid = '\"{s}\".t'::regclass AND attname = 'c'") == [[pg_type]]
    assert _columns(api, metalake, pg_catalog, s, "t")["c"]["type"] == gtype


@pytest.mark.parametrize("pg_type,gtype", PG_TO_CAIRN, ids=[t for t, _ in PG_TO_CAIRN])
def test_type_made_by_hand_loads_exactly(api, metalake, pg_catalog, pg, pg_type, gtype):
    s = _schema(api, metalake, pg_catalog, pg)
    pg.exec(f'CREATE TABLE "{s}".t (c {pg_type})')
    assert _columns(api, metalake, pg_catalog, s, "t")["c"]["type"] == gtype
    # ... and creating that type through Cairn gives the same column type again
    ok_json(api.post(table_path(metalake, pg_catalog, s),
                     {"name": "t2", "columns": [col("c", gtype)]}))
    assert _columns(api, metalake, pg_catalog, s, "t2")["c"]["type"] == gtype


@pytest.mark.parametrize("gtype", ["byte", "integer unsigned", "fixed(4)", "interval_day",
                                   {"type": "list", "containsNull": True,
                                    "elementType": "integer"},
                                   {"type": "map", "keyType": "string", "valueType": "string",
                                    "valueContainsNull": True}],
                         ids=["byte", "unsigned", "fixed", "interval", "nullable-list", "map"])
def test_types_postgresql_cannot_hold_are_400(api, metalake, pg_catalog, pg, gtype):
    s = _schema(api, metalake, pg_catalog, pg)
    r = api.post(table_path(metalake, pg_catalog, s), {"name": "t", "columns": [col("c", gtype)]})
    body = assert_error(r, 400, 1001, "IllegalArgumentException")
    assert "PostgreSQL" in body["message"]
    assert pg.query(f"SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = "
                    f"c.relnamespace WHERE n.nspname = '{s}'") == [["0"]]


def test_alter_table_runs_ddl_in_the_database(api, metalake, pg_catalog, pg):
    s = _schema(api, metalake, pg_catalog, pg)
    ok_json(api.post(table_path(metalake, pg_catalog, s), {
        "name": "a", "columns": [col("id", "integer", False), col("name", "string"),
                                 col("old", "short")]}))

    def alter(*updates, table="a"):
        return ok_json(api.put(table_path(metalake, pg_catalog, s, table),
                               {"updates": list(updates)}))["table"]

    t = alter({"@type": "rename", "newName": "b"},
              {"@type": "updateComment", "newComment": "renamed"})
    assert t["name"] == "b" and t["comment"] == "renamed"
    assert pg.query(f"SELECT relname, obj_description(c.oid, 'pg_class') FROM pg_class c JOIN "
                    f"pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '{s}' AND "
                    "relkind = 'r'") == [["b", "renamed"]]
    assert_error(api.get(table_path(metalake, pg_catalog, s, "a")), 404, 1003)

    alter({"@type": "addColumn", "fieldName": ["added"], "type": "varchar(8)", "comment": "new",
           "nullable": True},
          {"@type": "renameColumn", "oldFieldName": ["name"], "newFieldName": "label"},
          {"@type": "updateColumnType", "fieldName": ["old"], "newType": "long"},
          {"@type": "updateColumnComment", "fieldName": ["id"], "newComment": "the id"},
          {"@type": "updateColumnNullability", "fieldName": ["label"], "nullable": False},
          {"@type": "updateColumnDefaultValue", "fieldName": ["label"],
           "newDefaultValue": literal("string", "x")},
          {"@type": "addTableIndex", "index": {"indexType": "PRIMARY_KEY", "name": "b_pk",
                                               "fieldNames": [["id"]]}},
          table="b")
    rows = pg.query(
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
        "coalesce(pg_get_expr(d.adbin, d.adrelid), ''), coalesce(col_description(a.attrelid, "
        "a.attnum), '') FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid "
        f"AND d.adnum = a.attnum WHERE a.attrelid = '\"{s}\".b'::regclass AND a.attnum > 0 AND "
        "NOT a.attisdropped ORDER BY a.attnum")
    assert rows == [
        ["id", "integer", "t", "", "the id"],
        ["label", "text", "t", "'x'::text", ""],
        ["old", "bigint", "f", "", ""],
        ["added", "character varying(8)", "f", "", "new"],
    ]
    cols = _columns(api, metalake, pg_catalog, s, "b")
    assert cols["old"]["type"] == "long" and cols["added"]["comment"] == "new"
    assert cols["label"]["nullable"] is False

    t = alter({"@type": "deleteColumn", "fieldName": ["added"], "ifExists": False},
              {"@type": "deleteColumn", "fieldName": ["missing"], "ifExists": True},
              {"@type": "deleteTableIndex", "name": "b_pk", "ifExists": False},
              {"@type": "updateColumnAutoIncrement", "fieldName": ["id"], "autoIncrement": True},
              table="b")
    assert [c["name"] for c in t["columns"]] == ["id", "label", "old"]
    assert t["indexes"] == []
    assert {c["name"]: c for c in t["columns"]}["id"]["autoIncrement"] is True
    assert pg.query(f"SELECT count(*) FROM pg_constraint WHERE conrelid = '\"{s}\".b'::regclass "
                    "AND contype = 'p'") == [["0"]]

    # a failing change leaves everything as it was (one transaction)
    r = api.put(table_path(metalake, pg_catalog, s, "b"), {"updates": [
        {"@type": "addColumn", "fieldName": ["z"], "type": "integer", "nullable": True},
        {"@type": "deleteColumn", "fieldName": ["nope"], "ifExists": False}]})
    assert_error(r, 400, 1001)
    assert "z" not in _columns(api, metalake, pg_catalog, s, "b")

    assert ok_json(api.delete(table_path(metalake, pg_catalog, s, "b")))["dropped"] is True
    assert pg.query(f"SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = "
                    f"c.relnamespace WHERE n.nspname = '{s}' AND relkind = 'r'") == [["0"]]
    assert ok_json(api.delete(table_path(metalake, pg_catalog, s, "b")))["dropped"] is False
