"""jdbc-mysql catalogs: schemas are the server's databases, tables live in MariaDB/MySQL."""

from __future__ import annotations

import pytest

from helpers import assert_error, ok_json, schema_path, table_path, unique
from jdbc_helpers import col, literal

ENUM = {"type": "external", "catalogString": "enum('a','b')"}

# Gravitino type -> the COLUMN_TYPE MariaDB reports -> loads as the same type.
CAIRN_TO_MYSQL = [
    ("boolean", "bit(1)"),
    ("byte", "tinyint(4)"),
    ("byte unsigned", "tinyint(3) unsigned"),
    ("short", "smallint(6)"),
    ("short unsigned", "smallint(5) unsigned"),
    ("integer", "int(11)"),
    ("integer unsigned", "int(10) unsigned"),
    ("long", "bigint(20)"),
    ("long unsigned", "bigint(20) unsigned"),
    ("float", "float"),
    ("double", "double"),
    ("string", "text"),
    ("date", "date"),
    ("time", "time"),
    ("time(3)", "time(3)"),
    ("timestamp", "datetime"),
    ("timestamp(6)", "datetime(6)"),
    ("timestamp_tz", "timestamp"),
    ("timestamp_tz(2)", "timestamp(2)"),
    ("decimal(10,2)", "decimal(10,2)"),
    ("varchar(20)", "varchar(20)"),
    ("char(5)", "char(5)"),
    ("binary", "binary(1)"),
    ({"type": "external", "catalogString": "mediumtext"}, "mediumtext"),
    (ENUM, "enum('a','b')"),
]

# A column type written by hand in mariadb -> the Gravitino type it loads as.
MYSQL_TO_CAIRN = [
    ("tinyint", "byte"),
    ("tinyint unsigned", "byte unsigned"),
    ("boolean", "boolean"),
    ("bit(1)", "boolean"),
    ("bit(8)", "binary"),
    ("smallint", "short"),
    ("smallint unsigned", "short unsigned"),
    ("int", "integer"),
    ("int unsigned", "integer unsigned"),
    ("bigint", "long"),
    ("bigint unsigned", "long unsigned"),
    ("float", "float"),
    ("double", "double"),
    ("decimal(12,4)", "decimal(12,4)"),
    ("date", "date"),
    ("time", "time"),
    ("time(3)", "time(3)"),
    ("datetime", "timestamp"),
    ("datetime(6)", "timestamp(6)"),
    ("timestamp(3)", "timestamp_tz(3)"),
    ("varchar(30)", "varchar(30)"),
    ("char(2)", "char(2)"),
    ("text", "string"),
    ("binary(16)", "binary"),
    ("mediumint", {"type": "external", "catalogString": "mediumint(9)"}),
    ("blob", {"type": "external", "catalogString": "blob"}),
    ("varbinary(10)", {"type": "external", "catalogString": "varbinary(10)"}),
    ("enum('a','b')", ENUM),
]


def _type_id(t) -> str:
    return t if isinstance(t, str) else t["catalogString"]


def _columns(api, ml, cat, schema, table) -> dict:
    t = ok_json(api.get(table_path(ml, cat, schema, table)))["table"]
    return {c["name"]: c for c in t["columns"]}


def _create_db(api, ml, cat, name):
    ok_json(api.post(schema_path(ml, cat), {"name": name, "properties": {}}))


def test_schemas_are_the_servers_databases(api, metalake, my_catalog, my, my_db):
    names = [i["name"] for i in ok_json(api.get(schema_path(metalake, my_catalog)))["identifiers"]]
    assert not {"mysql", "information_schema", "performance_schema", "sys"} & set(names)

    _create_db(api, metalake, my_catalog, my_db)
    assert my.query(f"SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = "
                    f"'{my_db}'") == [[my_db]]
    assert ok_json(api.get(schema_path(metalake, my_catalog, my_db)))["schema"]["name"] == my_db
    assert_error(api.get(schema_path(metalake, my_catalog, "mysql")), 404, 1003,
                 "NoSuchSchemaException")

    # MySQL has no schema comments: rejected clearly, nothing created
    other = unique("db")
    r = api.post(schema_path(metalake, my_catalog), {"name": other, "comment": "c"})
    body = assert_error(r, 405, 1006, "UnsupportedOperationException")
    assert "comment" in body["message"]
    assert my.query(f"SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = "
                    f"'{other}'") == [["0"]]

    # made by hand: visible at once
    hand = unique("hand")
    my.exec(f"CREATE DATABASE `{hand}`")
    try:
        names = [i["name"] for i in
                 ok_json(api.get(schema_path(metalake, my_catalog)))["identifiers"]]
        assert {my_db, hand} <= set(names)
    finally:
        my.exec(f"DROP DATABASE `{hand}`")

    my.exec(f"CREATE TABLE `{my_db}`.t (id int)")
    assert_error(api.delete(schema_path(metalake, my_catalog, my_db)), 409, 1005,
                 "NonEmptySchemaException")
    assert ok_json(api.delete(schema_path(metalake, my_catalog, my_db),
                              params={"cascade": "true"}))["dropped"] is True
    assert my.query(f"SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = "
                    f"'{my_db}'") == [["0"]]


def test_table_created_through_cairn_is_in_the_database_at_once(
        api, metalake, my_catalog, my, my_db):
    _create_db(api, metalake, my_catalog, my_db)
    body = {
        "name": "orders", "comment": "all orders",
        "columns": [
            col("id", "long", False, autoIncrement=True, comment="key"),
            col("code", "varchar(16)", False, defaultValue=literal("varchar(16)", "it's \\new")),
            col("qty", "integer unsigned", defaultValue=literal("integer unsigned", "1")),
            col("at", "timestamp(3)",
                defaultValue={"type": "function", "funcName": "current_timestamp",
                              "funcArgs": []}),
        ],
        "indexes": [{"indexType": "PRIMARY_KEY", "name": "PRIMARY", "fieldNames": [["id"]]},
                    {"indexType": "UNIQUE_KEY", "name": "uk_code", "fieldNames": [["code"]]}],
        "properties": {"engine": "InnoDB"},
    }
    ok_json(api.post(table_path(metalake, my_catalog, my_db), body))
    rows = my.query(
        "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COALESCE(COLUMN_DEFAULT, '-'), EXTRA, "
        f"COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{my_db}' AND "
        "TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION")
    assert [r[:3] + [r[4]] for r in rows] == [
        ["id", "bigint(20)", "NO", "auto_increment"],
        ["code", "varchar(16)", "NO", ""],
        ["qty", "int(10) unsigned", "YES", ""],
        ["at", "datetime(3)", "YES", ""],
    ]
    assert rows[0][5] == "key"
    assert my.query(f"SELECT TABLE_COMMENT, ENGINE FROM information_schema.TABLES WHERE "
                    f"TABLE_SCHEMA = '{my_db}' AND TABLE_NAME = 'orders'") == [
        ["all orders", "InnoDB"]]

    t = ok_json(api.get(table_path(metalake, my_catalog, my_db, "orders")))["table"]
    assert t["comment"] == "all orders"
    cols = {c["name"]: c for c in t["columns"]}
    assert cols["id"]["autoIncrement"] is True and cols["id"]["comment"] == "key"
    assert cols["code"]["defaultValue"] == literal("varchar(16)", "it's \\new")
    assert cols["qty"]["defaultValue"] == literal("integer unsigned", "1")
    assert cols["at"]["defaultValue"]["funcName"] == "current_timestamp"
    assert t["indexes"] == [
        {"indexType": "PRIMARY_KEY", "name": "PRIMARY", "fieldNames": [["id"]], "properties": {}},
        {"indexType": "UNIQUE_KEY", "name": "uk_code", "fieldNames": [["code"]],
         "properties": {}},
    ]
    assert_error(api.post(table_path(metalake, my_catalog, my_db), body), 409, 1004,
                 "TableAlreadyExistsException")
    r = api.post(table_path(metalake, my_catalog, my_db),
                 {"name": "t2", "columns": [col("c", "integer")], "properties": {"bogus": "1"}})
    assert "bogus" in assert_error(r, 400, 1001)["message"]


def test_table_made_by_hand_is_listed_and_loaded_at_once(api, metalake, my_catalog, my, my_db):
    my.exec(f"CREATE DATABASE `{my_db}`")
    my.exec(f"""CREATE TABLE `{my_db}`.hand (
        id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY COMMENT 'row',
        name varchar(40) NOT NULL DEFAULT 'anon',
        score decimal(6,2) DEFAULT 1.50,
        flag boolean NOT NULL DEFAULT 1,
        made datetime DEFAULT CURRENT_TIMESTAMP,
        UNIQUE KEY hand_name (name, score)) COMMENT 'by hand'""")
    names = [i["name"] for i in
             ok_json(api.get(table_path(metalake, my_catalog, my_db)))["identifiers"]]
    assert names == ["hand"]
    t = ok_json(api.get(table_path(metalake, my_catalog, my_db, "hand")))["table"]
    assert t["comment"] == "by hand"
    assert [(c["name"], c["type"], c["nullable"], c["autoIncrement"]) for c in t["columns"]] == [
        ("id", "integer unsigned", False, True),
        ("name", "varchar(40)", False, False),
        ("score", "decimal(6,2)", True, False),
        ("flag", "boolean", False, False),
        ("made", "timestamp", True, False),
    ]
    cols = {c["name"]: c for c in t["columns"]}
    assert cols["id"]["comment"] == "row"
    assert cols["name"]["defaultValue"] == literal("varchar(40)", "anon")
    assert cols["score"]["defaultValue"] == literal("decimal(6,2)", "1.50")
    assert cols["made"]["defaultValue"]["funcName"] == "current_timestamp"
    assert t["indexes"] == [
        {"indexType": "PRIMARY_KEY", "name": "PRIMARY", "fieldNames": [["id"]], "properties": {}},
        {"indexType": "UNIQUE_KEY", "name": "hand_name", "fieldNames": [["name"], ["score"]],
         "properties": {}},
    ]
    my.exec(f"DROP TABLE `{my_db}`.hand")
    assert_error(api.get(table_path(metalake, my_catalog, my_db, "hand")), 404, 1003,
                 "NoSuchTableException")


@pytest.mark.parametrize("gtype,mysql_type", CAIRN_TO_MYSQL,
                         ids=[_type_id(t) for t, _ in CAIRN_TO_MYSQL])
def test_type_created_through_cairn_round_trips(api, metalake, my_catalog, my, my_db, gtype,
                                                mysql_type):
    _create_db(api, metalake, my_catalog, my_db)
    ok_json(api.post(table_path(metalake, my_catalog, my_db),
                     {"name": "t", "columns": [col("c", gtype)]}))
    assert my.query(f"SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
                    f"'{my_db}' AND TABLE_NAME = 't'") == [[mysql_type]]
    assert _columns(api, metalake, my_catalog, my_db, "t")["c"]["type"] == gtype


@pytest.mark.parametrize("mysql_type,gtype", MYSQL_TO_CAIRN, ids=[t for t, _ in MYSQL_TO_CAIRN])
def test_type_made_by_hand_loads_exactly(api, metalake, my_catalog, my, my_db, mysql_type, gtype):
    my.exec(f"CREATE DATABASE `{my_db}`")
    my.exec(f"CREATE TABLE `{my_db}`.t (c {mysql_type})")
    assert _columns(api, metalake, my_catalog, my_db, "t")["c"]["type"] == gtype
    ok_json(api.post(table_path(metalake, my_catalog, my_db),
                     {"name": "t2", "columns": [col("c", gtype)]}))
    assert _columns(api, metalake, my_catalog, my_db, "t2")["c"]["type"] == gtype


@pytest.mark.parametrize("gtype", ["uuid", "fixed(4)", "interval_year",
                                   {"type": "list", "containsNull": False,
                                    "elementType": "integer"}],
                         ids=["uuid", "fixed", "interval", "list"])
def test_types_mysql_cannot_hold_are_400(api, metalake, my_catalog, my, my_db, gtype):
    _create_db(api, metalake, my_catalog, my_db)
    r = api.post(table_path(metalake, my_catalog, my_db),
                 {"name": "t", "columns": [col("c", gtype)]})
    assert "MySQL" in assert_error(r, 400, 1001, "IllegalArgumentException")["message"]
    assert my.query(f"SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                    f"'{my_db}'") == [["0"]]


def test_alter_table_runs_ddl_in_the_database(api, metalake, my_catalog, my, my_db):
    _create_db(api, metalake, my_catalog, my_db)
    ok_json(api.post(table_path(metalake, my_catalog, my_db), {
        "name": "a", "columns": [col("id", "integer", False), col("name", "string"),
                                 col("old", "short")]}))

    def alter(*updates, table="a"):
        return ok_json(api.put(table_path(metalake, my_catalog, my_db, table),
                               {"updates": list(updates)}))["table"]

    t = alter({"@type": "rename", "newName": "b"},
              {"@type": "updateComment", "newComment": "renamed"})
    assert t["name"] == "b" and t["comment"] == "renamed"
    assert my.query(f"SELECT TABLE_NAME, TABLE_COMMENT FROM information_schema.TABLES WHERE "
                    f"TABLE_SCHEMA = '{my_db}'") == [["b", "renamed"]]

    alter({"@type": "addColumn", "fieldName": ["added"], "type": "varchar(8)", "comment": "new",
           "nullable": True, "position": "first"},
          {"@type": "renameColumn", "oldFieldName": ["name"], "newFieldName": "label"},
          {"@type": "updateColumnType", "fieldName": ["old"], "newType": "long"},
          {"@type": "updateColumnComment", "fieldName": ["id"], "newComment": "the id"},
          {"@type": "updateColumnNullability", "fieldName": ["old"], "nullable": False},
          {"@type": "updateColumnDefaultValue", "fieldName": ["old"],
           "newDefaultValue": literal("long", "5")},
          {"@type": "updateColumnPosition", "fieldName": ["old"],
           "newPosition": {"after": "added"}},
          {"@type": "addTableIndex", "index": {"indexType": "PRIMARY_KEY", "name": "PRIMARY",
                                               "fieldNames": [["id"]]}},
          table="b")
    rows = my.query(
        "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COALESCE(COLUMN_DEFAULT, '-'), "
        f"COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{my_db}' AND "
        "TABLE_NAME = 'b' ORDER BY ORDINAL_POSITION")
    assert rows == [
        ["added", "varchar(8)", "YES", "NULL", "new"],
        ["old", "bigint(20)", "NO", "5", ""],
        ["id", "int(11)", "NO", "-", "the id"],
        ["label", "text", "YES", "NULL", ""],
    ]
    t = alter({"@type": "deleteColumn", "fieldName": ["added"], "ifExists": False},
              {"@type": "deleteColumn", "fieldName": ["missing"], "ifExists": True},
              {"@type": "updateColumnAutoIncrement", "fieldName": ["id"], "autoIncrement": True},
              table="b")
    assert [c["name"] for c in t["columns"]] == ["old", "id", "label"]
    assert {c["name"]: c for c in t["columns"]}["id"]["autoIncrement"] is True
    t = alter({"@type": "updateColumnAutoIncrement", "fieldName": ["id"], "autoIncrement": False},
              {"@type": "deleteTableIndex", "name": "PRIMARY", "ifExists": False}, table="b")
    assert t["indexes"] == []
    assert my.query(f"SELECT count(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = "
                    f"'{my_db}'") == [["0"]]

    # MySQL commits each change: one that fails leaves the earlier ones of the request applied
    my.exec(f"INSERT INTO `{my_db}`.b (old, id, label) VALUES (1, 1, 'not a number')")
    r = api.put(table_path(metalake, my_catalog, my_db, "b"), {"updates": [
        {"@type": "updateComment", "newComment": "applied"},
        {"@type": "updateColumnType", "fieldName": ["label"], "newType": "integer"}]})
    assert_error(r, 400, 1001)
    t = ok_json(api.get(table_path(metalake, my_catalog, my_db, "b")))["table"]
    assert t["comment"] == "applied"
    assert {c["name"]: c for c in t["columns"]}["label"]["type"] == "string"

    assert ok_json(api.delete(table_path(metalake, my_catalog, my_db, "b")))["dropped"] is True
    assert my.query(f"SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                    f"'{my_db}'") == [["0"]]
    assert ok_json(api.delete(table_path(metalake, my_catalog, my_db, "b")))["dropped"] is False
