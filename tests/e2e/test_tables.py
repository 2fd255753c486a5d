"""Tables in a managed lakehouse-iceberg catalog: create/load/list/drop/purge, every type
Iceberg can hold, partitioning, sort orders, distribution, and what Iceberg cannot hold."""

import json

import pytest

from gravitino import NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.expressions.distributions.distributions import Distributions
from gravitino.api.rel.expressions.literals.literals import Literals
from gravitino.api.rel.expressions.named_reference import NamedReference
from gravitino.api.rel.expressions.sorts.null_ordering import NullOrdering
from gravitino.api.rel.expressions.sorts.sort_direction import SortDirection
from gravitino.api.rel.expressions.sorts.sort_orders import SortOrders
from gravitino.api.rel.expressions.transforms.transforms import Transforms
from gravitino.api.rel.indexes.indexes import Indexes
from gravitino.api.rel.types.types import Types
from gravitino.dto.util.dto_converters import DTOConverters
from gravitino.exceptions.base import (
    IllegalArgumentException,
    NoSuchSchemaException,
    NoSuchTableException,
    NotFoundException,
    TableAlreadyExistsException,
)
from gravitino.namespace import Namespace

from helpers import (
    any_metadata_under,
    assert_audit,
    assert_error,
    canon_column,
    iceberg_roundtrip_column,
    column,
    current_schema,
    field_by_name,
    latest_metadata,
    metadata_files,
    norm_iceberg_type,
    ok_json,
    table_body,
    table_dir,
    table_path,
    unique,
)

F = Types.StructType.Field


def all_types_columns() -> list:
    """Every column type a managed Iceberg table can hold, built with the Python client."""
    inner = Types.StructType.of(F.nullable_field("x", Types.LongType.get()))
    return [
        Column.of("c_bool", Types.BooleanType.get(), "a boolean"),
        Column.of("c_int", Types.IntegerType.get(), "required int", nullable=False),
        Column.of("c_long", Types.LongType.get()),
        Column.of("c_float", Types.FloatType.get()),
        Column.of("c_double", Types.DoubleType.get()),
        Column.of("c_dec", Types.DecimalType.of(10, 2)),
        Column.of("c_date", Types.DateType.get()),
        Column.of("c_time", Types.TimeType.get()),
        Column.of("c_ts", Types.TimestampType.without_time_zone()),
        Column.of("c_tstz", Types.TimestampType.with_time_zone()),
        Column.of("c_str", Types.StringType.get()),
        Column.of("c_uuid", Types.UUIDType.get()),
        Column.of("c_fixed", Types.FixedType.of(16)),
        Column.of("c_bin", Types.BinaryType.get()),
        Column.of("c_struct", Types.StructType.of(
            F.not_null_field("a", Types.IntegerType.get(), "field doc"),
            F.nullable_field("b", Types.StringType.get()),
            F.nullable_field("inner", inner),
        )),
        Column.of("c_list", Types.ListType.of(Types.LongType.get(), True)),
        Column.of("c_list_req", Types.ListType.of(Types.StringType.get(), False)),
        Column.of("c_map", Types.MapType.of(Types.StringType.get(), Types.DoubleType.get(),
                                            False)),
        Column.of("c_map_struct", Types.MapType.of(
            Types.IntegerType.get(),
            Types.StructType.of(F.nullable_field("v", Types.DateType.get())), True)),
    ]


# Iceberg type (as written in metadata JSON) expected for each primitive column above.
ICEBERG_PRIMITIVES = {
    "c_bool": "boolean", "c_int": "int", "c_long": "long", "c_float": "float",
    "c_double": "double", "c_dec": "decimal(10,2)", "c_date": "date", "c_time": "time",
    "c_ts": "timestamp", "c_tstz": "timestamptz", "c_str": "string", "c_uuid": "uuid",
    "c_fixed": "fixed[16]", "c_bin": "binary",
}


def sent_columns_json(cols) -> list:
    return [json.loads(d.to_json()) for d in DTOConverters.to_dtos(cols)]


def test_create_all_types_roundtrip(tables, api, metalake_name, catalog_name, schema_name,
                                    warehouse):
    cols = all_types_columns()
    ident = NameIdentifier.of(schema_name, "all_types")
    t = tables.create_table(ident, cols, "every type", {"p1": "v1"})
    assert t.name() == "all_types"
    assert [c.name() for c in t.columns()] == [c.name() for c in cols]

    # The wire form of every column comes back exactly as sent.
    raw = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name, "all_types")))
    tbl = raw["table"]
    assert [canon_column(c) for c in tbl["columns"]] == [
        canon_column(iceberg_roundtrip_column(c)) for c in sent_columns_json(cols)]
    assert tbl["comment"] == "every type"
    assert tbl["properties"]["p1"] == "v1"
    assert_audit(tbl["audit"])
    for c in tbl["columns"]:
        assert "defaultValue" not in c or c["defaultValue"] is None, c

    # And through the client's type objects.
    loaded = tables.load_table(ident)
    micro = {"c_time": Types.TimeType.of(6), "c_ts": Types.TimestampType.without_time_zone(6),
             "c_tstz": Types.TimestampType.with_time_zone(6)}
    for want, got in zip(cols, loaded.columns()):
        assert got.name() == want.name()
        if want.name() in ("c_bin", "c_struct", "c_map_struct"):
            # Client-side parsing quirks of the 1.3.1 Python client (the wire form of these
            # was checked above): "binary" is missing from its type table (-> UnparsedType),
            # and a struct field without a comment is read back with comment "" instead of
            # None, so StructType equality fails.
            continue
        want_type = micro.get(want.name(), want.data_type())
        assert got.data_type() == want_type, (want.name(), got.data_type())
        assert got.nullable() == want.nullable()
        assert got.auto_increment() is False

    # The Iceberg schema on disk.
    md = latest_metadata(warehouse, schema_name, "all_types")
    schema = current_schema(md)
    for name, ice in ICEBERG_PRIMITIVES.items():
        f = field_by_name(schema, name)
        assert norm_iceberg_type(f["type"]) == ice, (name, f)
    assert field_by_name(schema, "c_int")["required"] is True
    assert field_by_name(schema, "c_long")["required"] is False
    assert field_by_name(schema, "c_int").get("doc") == "required int"

    st = field_by_name(schema, "c_struct")["type"]
    assert st["type"] == "struct"
    assert [f["name"] for f in st["fields"]] == ["a", "b", "inner"]
    assert st["fields"][0]["required"] is True
    assert st["fields"][0].get("doc") == "field doc"
    assert st["fields"][2]["type"]["type"] == "struct"

    lt = field_by_name(schema, "c_list")["type"]
    assert lt["type"] == "list" and lt["element"] == "long"
    assert lt["element-required"] is False
    assert field_by_name(schema, "c_list_req")["type"]["element-required"] is True

    mt = field_by_name(schema, "c_map")["type"]
    assert mt["type"] == "map" and mt["key"] == "string" and mt["value"] == "double"
    assert mt["value-required"] is True
    mt2 = field_by_name(schema, "c_map_struct")["type"]
    assert mt2["key"] == "int" and mt2["value"]["type"] == "struct"
    assert mt2["value-required"] is False


def test_create_raw_request_like_python_client(api, metalake_name, catalog_name, schema_name):
    body = table_body("raw", [column("id", "integer", False, "id col"),
                              column("name", "string", True, "name col"),
                              column("ts", "timestamp_tz")],
                      comment="tbl comment", properties={"p": "v"})
    tbl = ok_json(api.post(table_path(metalake_name, catalog_name, schema_name), body))["table"]
    assert tbl["name"] == "raw"
    assert tbl["comment"] == "tbl comment"
    assert tbl["properties"]["p"] == "v"
    assert [canon_column(c) for c in tbl["columns"]] == [
        canon_column(iceberg_roundtrip_column(c)) for c in body["columns"]]
    assert tbl["partitioning"] == []
    assert tbl["sortOrders"] == []
    assert tbl["indexes"] == []
    assert tbl["distribution"] == {"strategy": "none", "number": 0, "funcArgs": []}
    assert_audit(tbl["audit"])


def test_create_minimal_request_and_case_insensitive_types(api, metalake_name, catalog_name,
                                                           schema_name):
    # Optional parts absent entirely; upper-case type names on input, lower-case out.
    body = {"name": "mini", "columns": [{"name": "a", "type": "INTEGER", "nullable": True},
                                        {"name": "b", "type": "Decimal(5,1)"}]}
    tbl = ok_json(api.post(table_path(metalake_name, catalog_name, schema_name), body))["table"]
    assert [c["type"] for c in tbl["columns"]] == ["integer", "decimal(5,1)"]
    assert tbl["partitioning"] == [] and tbl["sortOrders"] == [] and tbl["indexes"] == []
    assert tbl["distribution"]["strategy"] == "none"
    assert "comment" not in tbl or tbl["comment"] is None


def test_list_tables(tables, api, metalake_name, catalog_name, schema_name):
    ns = Namespace.of(schema_name)
    assert tables.list_tables(ns) == []
    for n in ("b_t", "a_t", "c_t"):
        tables.create_table(NameIdentifier.of(schema_name, n),
                            [Column.of("x", Types.IntegerType.get())])
    names = sorted(i.name() for i in tables.list_tables(ns))
    assert names == ["a_t", "b_t", "c_t"]
    raw = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name)))
    assert sorted(raw["identifiers"], key=lambda i: i["name"]) == [
        {"namespace": [metalake_name, catalog_name, schema_name], "name": n}
        for n in ("a_t", "b_t", "c_t")]


def test_missing_parents(tables, api, metalake_name, catalog_name, schema_name):
    with pytest.raises(NoSuchSchemaException):
        tables.list_tables(Namespace.of("nope"))
    with pytest.raises(NoSuchSchemaException):
        tables.create_table(NameIdentifier.of("nope", "t"),
                            [Column.of("x", Types.IntegerType.get())])
    with pytest.raises(NoSuchTableException):
        tables.load_table(NameIdentifier.of(schema_name, "nope"))
    assert_error(api.get(table_path(metalake_name, catalog_name, schema_name, "nope")), 404,
                 1003, "NoSuchTableException")
    assert_error(api.get(table_path(metalake_name, catalog_name, "nope")), 404, 1003,
                 "NoSuchSchemaException")
    assert_error(api.get(table_path(metalake_name, "nocat", schema_name)), 404, 1003,
                 "NoSuchCatalogException")
    assert_error(api.delete(table_path(metalake_name, "nocat", schema_name, "t")), 404, 1003,
                 "NoSuchCatalogException")
    r = api.get(table_path(metalake_name, catalog_name, "nope", "t"))
    assert_error(r, 404, 1003, ("NoSuchSchemaException", "NoSuchTableException"))


def test_duplicate_table(tables, schema_name):
    ident = NameIdentifier.of(schema_name, "dup")
    cols = [Column.of("x", Types.IntegerType.get())]
    tables.create_table(ident, cols)
    with pytest.raises(TableAlreadyExistsException):
        tables.create_table(ident, cols)


def test_identity_bucket_truncate_partitioning(tables, api, metalake_name, catalog_name,
                                               schema_name, warehouse):
    cols = [Column.of("id", Types.IntegerType.get()), Column.of("name", Types.StringType.get()),
            Column.of("cat", Types.StringType.get())]
    parts = [Transforms.identity("cat"), Transforms.bucket(8, ["id"]),
             Transforms.truncate(4, "name")]
    ident = NameIdentifier.of(schema_name, "p1")
    t = tables.create_table(ident, cols, partitioning=parts)
    assert t.partitioning() == parts

    loaded = tables.load_table(ident)
    assert loaded.partitioning() == parts
    raw = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name, "p1")))["table"]
    assert raw["partitioning"] == [
        {"strategy": "identity", "fieldName": ["cat"]},
        {"strategy": "bucket", "numBuckets": 8, "fieldNames": [["id"]]},
        {"strategy": "truncate", "width": 4, "fieldName": ["name"]},
    ]

    md = latest_metadata(warehouse, schema_name, "p1")
    schema = current_schema(md)
    ids = {f["name"]: f["id"] for f in schema["fields"]}
    spec = [s for s in md["partition-specs"] if s["spec-id"] == md["default-spec-id"]][0]
    got = [(f["transform"], f["source-id"]) for f in spec["fields"]]
    assert got == [("identity", ids["cat"]), ("bucket[8]", ids["id"]),
                   ("truncate[4]", ids["name"])]
    field_ids = [f["field-id"] for f in spec["fields"]]
    assert len(set(field_ids)) == 3 and min(field_ids) >= 1000
    assert md["last-partition-id"] == max(field_ids)


def test_time_partitioning(tables, api, metalake_name, catalog_name, schema_name, warehouse):
    cols = [Column.of("ts1", Types.TimestampType.without_time_zone()),
            Column.of("ts2", Types.TimestampType.with_time_zone()),
            Column.of("d", Types.DateType.get()),
            Column.of("ts3", Types.TimestampType.without_time_zone())]
    parts = [Transforms.year("ts1"), Transforms.month("ts2"), Transforms.day("d"),
             Transforms.hour("ts3")]
    ident = NameIdentifier.of(schema_name, "p2")
    tables.create_table(ident, cols, partitioning=parts)
    assert tables.load_table(ident).partitioning() == parts
    raw = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name, "p2")))["table"]
    assert raw["partitioning"] == [
        {"strategy": "year", "fieldName": ["ts1"]},
        {"strategy": "month", "fieldName": ["ts2"]},
        {"strategy": "day", "fieldName": ["d"]},
        {"strategy": "hour", "fieldName": ["ts3"]},
    ]
    md = latest_metadata(warehouse, schema_name, "p2")
    ids = {f["name"]: f["id"] for f in current_schema(md)["fields"]}
    spec = [s for s in md["partition-specs"] if s["spec-id"] == md["default-spec-id"]][0]
    assert [(f["transform"], f["source-id"]) for f in spec["fields"]] == [
        ("year", ids["ts1"]), ("month", ids["ts2"]), ("day", ids["d"]), ("hour", ids["ts3"])]


def test_partition_on_missing_column_is_400(api, metalake_name, catalog_name, schema_name):
    body = table_body("pbad", [column("a", "integer")],
                      partitioning=[{"strategy": "identity", "fieldName": ["zzz"]}])
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name), body), 400, 1001)
    assert ok_json(api.get(table_path(metalake_name, catalog_name, schema_name)))[
        "identifiers"] == []


def test_sort_orders(tables, api, metalake_name, catalog_name, schema_name, warehouse):
    cols = [Column.of("id", Types.LongType.get()), Column.of("name", Types.StringType.get())]
    sorts = [SortOrders.of(NamedReference.field(["id"]), SortDirection.DESCENDING,
                           NullOrdering.NULLS_FIRST),
             SortOrders.of(NamedReference.field(["name"]), SortDirection.ASCENDING,
                           NullOrdering.NULLS_LAST)]
    ident = NameIdentifier.of(schema_name, "sorted")
    t = tables.create_table(ident, cols, sort_orders=sorts)
    assert len(t.sort_order()) == 2
    raw = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name, "sorted")))[
        "table"]
    assert raw["sortOrders"] == [
        {"sortTerm": {"type": "field", "fieldName": ["id"]}, "direction": "desc",
         "nullOrdering": "nulls_first"},
        {"sortTerm": {"type": "field", "fieldName": ["name"]}, "direction": "asc",
         "nullOrdering": "nulls_last"},
    ]
    loaded = tables.load_table(ident)
    assert [s.direction() for s in loaded.sort_order()] == [SortDirection.DESCENDING,
                                                            SortDirection.ASCENDING]
    assert [s.null_ordering() for s in loaded.sort_order()] == [NullOrdering.NULLS_FIRST,
                                                                NullOrdering.NULLS_LAST]

    md = latest_metadata(warehouse, schema_name, "sorted")
    ids = {f["name"]: f["id"] for f in current_schema(md)["fields"]}
    order = [o for o in md["sort-orders"] if o["order-id"] == md["default-sort-order-id"]][0]
    assert md["default-sort-order-id"] != 0
    assert [(f["transform"], f["source-id"], f["direction"], f["null-order"])
            for f in order["fields"]] == [
        ("identity", ids["id"], "desc", "nulls-first"),
        ("identity", ids["name"], "asc", "nulls-last")]


def test_distribution_hash_and_range(tables, api, metalake_name, catalog_name, schema_name):
    cols = [Column.of("id", Types.LongType.get()), Column.of("d", Types.DateType.get())]
    tables.create_table(NameIdentifier.of(schema_name, "dh"), cols,
                        partitioning=[Transforms.day("d")], distribution=Distributions.HASH)
    raw = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name, "dh")))["table"]
    assert raw["distribution"]["strategy"] == "hash"
    assert tables.load_table(NameIdentifier.of(schema_name, "dh")).distribution().strategy() \
        == Distributions.HASH.strategy()

    tables.create_table(NameIdentifier.of(schema_name, "dr"), cols,
                        sort_orders=[SortOrders.ascending(NamedReference.field(["id"]))],
                        distribution=Distributions.RANGE)
    raw = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name, "dr")))["table"]
    assert raw["distribution"]["strategy"] == "range"

    tables.create_table(NameIdentifier.of(schema_name, "dn"), cols)
    raw = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name, "dn")))["table"]
    assert raw["distribution"] == {"strategy": "none", "number": 0, "funcArgs": []}


def test_table_without_comment(tables, schema_name):
    ident = NameIdentifier.of(schema_name, "nocomment")
    t = tables.create_table(ident, [Column.of("x", Types.IntegerType.get())])
    assert t.comment() is None
    assert tables.load_table(ident).comment() is None


def test_drop_table(tables, api, metalake_name, catalog_name, schema_name):
    ident = NameIdentifier.of(schema_name, "d1")
    tables.create_table(ident, [Column.of("x", Types.IntegerType.get())])
    assert tables.drop_table(ident) is True
    assert tables.list_tables(Namespace.of(schema_name)) == []
    with pytest.raises(NoSuchTableException):
        tables.load_table(ident)
    assert tables.drop_table(ident) is False
    assert ok_json(api.delete(table_path(metalake_name, catalog_name, schema_name, "d1"))) == {
        "code": 0, "dropped": False}
    # The name can be reused.
    tables.create_table(ident, [Column.of("y", Types.LongType.get())])
    assert [c.name() for c in tables.load_table(ident).columns()] == ["y"]


def test_purge_table_removes_files(tables, schema_name, warehouse):
    ident = NameIdentifier.of(schema_name, "pg1")
    tables.create_table(ident, [Column.of("x", Types.IntegerType.get())])
    assert metadata_files(warehouse, schema_name, "pg1")
    assert tables.purge_table(ident) is True
    with pytest.raises(NoSuchTableException):
        tables.load_table(ident)
    assert any_metadata_under(table_dir(warehouse, schema_name, "pg1")) == []
    assert tables.purge_table(ident) is False


def test_drop_missing_catalog_via_client(catalog, client, schema_name):
    tables = catalog.as_table_catalog()
    client.drop_catalog(catalog.name(), force=True)
    # The table error handler has no NoSuchCatalogException branch: it raises the generic
    # NotFoundException for a 404 whose type is NoSuchCatalogException.
    with pytest.raises(NotFoundException):
        tables.load_table(NameIdentifier.of(schema_name, "t"))


# ---------------------------------------------------------------------------------------------
# What a managed Iceberg table cannot hold: 400 IllegalArgumentException, nothing left behind.
# ---------------------------------------------------------------------------------------------


def _assert_nothing_created(api, metalake_name, catalog_name, schema_name, warehouse, name):
    ids = ok_json(api.get(table_path(metalake_name, catalog_name, schema_name)))["identifiers"]
    assert ids == [], ids
    assert_error(api.get(table_path(metalake_name, catalog_name, schema_name, name)), 404, 1003,
                 "NoSuchTableException")
    assert any_metadata_under(warehouse) == []


@pytest.mark.parametrize("bad_type", [
    {"type": "union", "types": ["integer", "string"]},
    "integer unsigned",
    "long unsigned",
    "interval_day",
    "interval_year",
    {"type": "struct", "fields": [{"name": "u", "type": "short unsigned", "nullable": True}]},
    {"type": "list", "elementType": "interval_day", "containsNull": True},
], ids=["union", "int-unsigned", "long-unsigned", "interval-day", "interval-year",
        "nested-unsigned", "nested-interval"])
def test_unsupported_types_rejected(api, metalake_name, catalog_name, schema_name, warehouse,
                                    bad_type):
    name = unique("bad")
    body = table_body(name, [column("ok", "integer"), column("bad", bad_type)])
    r = api.post(table_path(metalake_name, catalog_name, schema_name), body)
    assert_error(r, 400, 1001, "IllegalArgumentException")
    _assert_nothing_created(api, metalake_name, catalog_name, schema_name, warehouse, name)


def test_unsupported_type_via_client(tables, api, metalake_name, catalog_name, schema_name,
                                     warehouse):
    with pytest.raises(IllegalArgumentException):
        tables.create_table(NameIdentifier.of(schema_name, "u"), [
            Column.of("x", Types.UnionType.of(Types.IntegerType.get(), Types.StringType.get()))])
    with pytest.raises(IllegalArgumentException):
        tables.create_table(NameIdentifier.of(schema_name, "u"), [
            Column.of("x", Types.IntegerType.unsigned())])
    _assert_nothing_created(api, metalake_name, catalog_name, schema_name, warehouse, "u")


def test_indexes_rejected(tables, api, metalake_name, catalog_name, schema_name, warehouse):
    with pytest.raises(IllegalArgumentException):
        tables.create_table(NameIdentifier.of(schema_name, "ix"),
                            [Column.of("id", Types.IntegerType.get(), nullable=False)],
                            indexes=[Indexes.primary("pk", [["id"]])])
    body = table_body("ix", [column("id", "integer", False)],
                      indexes=[{"indexType": "PRIMARY_KEY", "name": "pk",
                                "fieldNames": [["id"]]}])
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name), body), 400, 1001,
                 "IllegalArgumentException")
    _assert_nothing_created(api, metalake_name, catalog_name, schema_name, warehouse, "ix")


def test_auto_increment_rejected(tables, api, metalake_name, catalog_name, schema_name,
                                 warehouse):
    with pytest.raises(IllegalArgumentException):
        tables.create_table(NameIdentifier.of(schema_name, "ai"),
                            [Column.of("id", Types.IntegerType.get(), nullable=False,
                                       auto_increment=True)])
    _assert_nothing_created(api, metalake_name, catalog_name, schema_name, warehouse, "ai")


def test_default_value_rejected(tables, api, metalake_name, catalog_name, schema_name,
                                warehouse):
    with pytest.raises(IllegalArgumentException):
        tables.create_table(NameIdentifier.of(schema_name, "dv"),
                            [Column.of("id", Types.IntegerType.get(),
                                       default_value=Literals.integer_literal(7))])
    body = table_body("dv", [dict(column("id", "integer"), defaultValue={
        "type": "literal", "dataType": "integer", "value": "7"})])
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name), body), 400, 1001,
                 "IllegalArgumentException")
    _assert_nothing_created(api, metalake_name, catalog_name, schema_name, warehouse, "dv")


def test_duplicate_column_names_rejected(api, metalake_name, catalog_name, schema_name,
                                         warehouse):
    body = table_body("dupcol", [column("a", "integer"), column("a", "string")])
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name), body), 400, 1001)
    _assert_nothing_created(api, metalake_name, catalog_name, schema_name, warehouse, "dupcol")


def test_empty_columns_rejected(api, metalake_name, catalog_name, schema_name, warehouse):
    body = table_body("nocols", [])
    assert_error(api.post(table_path(metalake_name, catalog_name, schema_name), body), 400, 1001)
    _assert_nothing_created(api, metalake_name, catalog_name, schema_name, warehouse, "nocols")
