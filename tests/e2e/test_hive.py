"""Hive catalogs against the run's real Hive standalone metastore (docs/hive.md): schemas, tables
and partitions created through Cairn with Gravitino's Python client are in the metastore at once
(read back with a Thrift client of the metastore, hive-metastore-client), objects made with that
client are visible through Cairn at once, alters change the metastore, and a stopped metastore is
a quick error naming the catalog with nothing left behind."""

from __future__ import annotations

import base64
import json
import os
import time
from urllib.parse import urlparse

import pytest
import requests

from gravitino import NameIdentifier
from gravitino.api.catalog import Catalog
from gravitino.api.rel.column import Column
from gravitino.api.rel.expressions.distributions.distributions import Distributions
from gravitino.api.rel.expressions.literals.literals import Literals
from gravitino.api.rel.expressions.named_reference import NamedReference
from gravitino.api.rel.expressions.sorts.sort_direction import SortDirection
from gravitino.api.rel.expressions.sorts.sort_orders import SortOrders
from gravitino.api.rel.expressions.transforms.transforms import Transforms
from gravitino.api.rel.partitions.partitions import Partitions
from gravitino.api.rel.table_change import TableChange
from gravitino.api.rel.types.types import Types
from gravitino.exceptions.base import (
    IllegalArgumentException,
    NoSuchPartitionException,
    NoSuchSchemaException,
    NoSuchTableException,
    NonEmptySchemaException,
    PartitionAlreadyExistsException,
    SchemaAlreadyExistsException,
    TableAlreadyExistsException,
)

from cairn_server import start_cairn, store_env
from helpers import CLIENT_HEADERS, assert_error, ok_json, unique
from hive_metastore import HiveMetastore

URI = os.environ.get("CAIRN_TEST_HIVE_URI")
pytestmark = pytest.mark.skipif(not URI, reason="no Hive metastore (tests/e2e/run.sh starts one)")


def refused(r, word: str, status: int = 400, code: int = 1001,
            type_: str | None = "IllegalArgumentException") -> None:
    """A Gravitino error envelope whose message names `word` (case-insensitively)."""
    body = assert_error(r, status, code, type_)
    assert word.lower() in body["message"].lower(), body["message"]


def same_location(a: str, b: str) -> bool:
    """The metastore writes file:///x as Hadoop's Path does: file:/x."""
    def norm(x: str) -> str:
        return "file:/" + x[len("file:///"):] if x.startswith("file:///") else x
    return norm(a) == norm(b)


def thrift_client(uri: str):
    from hive_metastore_client import HiveMetastoreClient
    u = urlparse(uri)
    return HiveMetastoreClient(u.hostname, u.port)


@pytest.fixture
def hms():
    with thrift_client(URI) as c:
        yield c


def hms_table(hms, db: str, name: str):
    from thrift_files.libraries.thrift_hive_metastore_client.ttypes import GetTableRequest
    return hms.get_table_req(GetTableRequest(dbName=db, tblName=name)).table


@pytest.fixture
def hive_catalog(client):
    name = unique("hive")
    return client.create_catalog(name, Catalog.Type.RELATIONAL, "hive", "the run's metastore",
                                 {"metastore.uris": URI})


@pytest.fixture
def hive_schema(hive_catalog, hms):
    name = unique("db")
    hive_catalog.as_schemas().create_schema(name, "test database", {})
    yield name
    try:
        hms.drop_database(name, True, True)
    except Exception:  # already dropped by the test
        pass


def test_catalog_properties_are_checked(api, metalake_name):
    base = f"metalakes/{metalake_name}/catalogs"
    body = {"name": unique("h"), "type": "relational", "provider": "hive", "properties": {}}
    refused(api.post(base, body), "metastore.uris")
    body["properties"] = {"metastore.uris": "http://127.0.0.1:9083"}
    refused(api.post(base, body), "thrift://")
    body["properties"] = {"metastore.uris": "thrift://127.0.0.1:99999"}
    refused(api.post(base, body), "port")
    body["properties"] = {"metastore.uris": URI, "client.pool-size": "0"}
    refused(api.post(base, body), "client.pool-size")
    body["properties"] = {"metastore.uris": URI, "kerberos.principal": "hive/_HOST@X"}
    refused(api.post(base, body), "Kerberos")
    # testConnection reaches the metastore, and says so when nothing answers
    probe = {"name": unique("probe"), "type": "relational", "provider": "hive", "comment": "",
             "properties": {"metastore.uris": URI}}
    assert ok_json(api.post(f"{base}/testConnection", probe))["code"] == 0
    probe["properties"] = {"metastore.uris": f"thrift://127.0.0.1:{free_port()}"}
    started = time.monotonic()
    r = api.post(f"{base}/testConnection", probe)
    assert time.monotonic() - started < 10
    assert r.status_code == 502 and r.json()["code"] == 1007, r.text
    assert "metastore" in r.json()["message"].lower()


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_schemas_are_metastore_databases(hive_catalog, hms, tmp_path):
    schemas = hive_catalog.as_schemas()
    name = unique("db")
    location = f"file://{tmp_path}/{name}.db"
    s = schemas.create_schema(name, "sales data", {"location": location, "team": "sales"})
    assert s.name() == name and s.comment() == "sales data"
    assert same_location(s.properties()["location"], location)
    assert s.properties()["team"] == "sales"
    assert s.audit_info().creator() == "anonymous"
    db = hms.get_database(name)
    assert db.description == "sales data"
    assert same_location(db.locationUri, location)
    assert db.parameters == {"team": "sales"}
    assert db.ownerName == "anonymous"
    assert name in schemas.list_schemas()
    with pytest.raises(SchemaAlreadyExistsException):
        schemas.create_schema(name, "again", {})

    from gravitino.api.schema_change import SchemaChange
    s = schemas.alter_schema(name, SchemaChange.set_property("team", "finance"),
                             SchemaChange.set_property("tier", "gold"),
                             SchemaChange.remove_property("team"))
    assert s.properties().get("tier") == "gold" and "team" not in s.properties()
    assert hms.get_database(name).parameters == {"tier": "gold"}

    # a database made by another client is a schema at once
    from hive_metastore_client.builders import DatabaseBuilder
    other = unique("db")
    hms.create_database(DatabaseBuilder(name=other, description="made in hive").build())
    assert other in schemas.list_schemas()
    assert schemas.load_schema(other).comment() == "made in hive"

    assert schemas.drop_schema(other, False) is True
    assert other not in hms.get_all_databases()
    assert schemas.drop_schema(other, False) is False
    with pytest.raises(NoSuchSchemaException):
        schemas.load_schema(other)
    assert schemas.drop_schema(name, True) is True


def wide_columns():
    return [
        Column.of("id", Types.LongType.get(), "key"),
        Column.of("flag", Types.BooleanType.get()),
        Column.of("b", Types.ByteType.get()),
        Column.of("s", Types.ShortType.get()),
        Column.of("i", Types.IntegerType.get()),
        Column.of("f", Types.FloatType.get()),
        Column.of("d", Types.DoubleType.get()),
        Column.of("price", Types.DecimalType.of(10, 2)),
        Column.of("name", Types.StringType.get()),
        Column.of("code", Types.FixedCharType.of(3)),
        Column.of("label", Types.VarCharType.of(40)),
        Column.of("ts", Types.TimestampType.without_time_zone()),
        Column.of("raw", Types.BinaryType.get()),
        Column.of("tags", Types.ListType.of(Types.StringType.get(), True)),
        Column.of("attrs", Types.MapType.of(Types.StringType.get(), Types.IntegerType.get(), True)),
        Column.of("addr", Types.StructType.of(
            Types.StructType.Field.nullable_field("street", Types.StringType.get()),
            Types.StructType.Field.nullable_field("zip", Types.IntegerType.get()))),
        Column.of("dt", Types.DateType.get(), "day"),
        Column.of("country", Types.StringType.get()),
    ]


def test_tables_are_written_to_and_read_from_the_metastore(
        api, metalake_name, hive_catalog, hive_schema, hms):
    tables = hive_catalog.as_table_catalog()
    ident = NameIdentifier.of(hive_schema, "orders")
    t = tables.create_table(
        ident, wide_columns(), "all orders",
        {"format": "PARQUET", "serde.parameter.parquet.compression": "SNAPPY", "owner_team": "x"},
        partitioning=[Transforms.identity("dt"), Transforms.identity("country")],
        distribution=Distributions.hash(4, NamedReference.field(["id"])),
        sort_orders=[SortOrders.of(NamedReference.field(["id"]), SortDirection.DESCENDING)])
    assert t.name() == "orders" and t.comment() == "all orders"

    h = hms_table(hms, hive_schema, "orders")
    assert [(c.name, c.type) for c in h.sd.cols] == [
        ("id", "bigint"), ("flag", "boolean"), ("b", "tinyint"), ("s", "smallint"),
        ("i", "int"), ("f", "float"), ("d", "double"), ("price", "decimal(10,2)"),
        ("name", "string"), ("code", "char(3)"), ("label", "varchar(40)"),
        ("ts", "timestamp"), ("raw", "binary"), ("tags", "array<string>"),
        ("attrs", "map<string,int>"), ("addr", "struct<street:string,zip:int>")]
    assert [(c.name, c.type, c.comment) for c in h.partitionKeys] == [
        ("dt", "date", "day"), ("country", "string", None)]
    assert h.sd.cols[0].comment == "key"
    assert h.sd.inputFormat == "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"
    assert h.sd.serdeInfo.serializationLib == \
        "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    assert h.sd.serdeInfo.parameters == {"parquet.compression": "SNAPPY"}
    assert h.sd.numBuckets == 4 and h.sd.bucketCols == ["id"]
    assert [(o.col, o.order) for o in h.sd.sortCols] == [("id", 0)]
    assert h.parameters["comment"] == "all orders" and h.parameters["owner_team"] == "x"
    # A Hive 4 metastore keeps a non-transactional managed table as an external table whose data
    # goes with it (external.table.purge); Cairn shows what the metastore keeps.
    assert h.tableType in ("MANAGED_TABLE", "EXTERNAL_TABLE") and h.owner == "anonymous"
    if h.tableType == "EXTERNAL_TABLE":
        assert h.parameters.get("external.table.purge", "").upper() == "TRUE"
    assert h.sd.location.endswith(f"/{hive_schema}.db/orders")

    t = tables.load_table(ident)
    assert [c.name() for c in t.columns()] == [c.name() for c in wide_columns()]
    # Compared by their text: the 1.3.1 client reads a struct field without a comment as comment
    # "" where nullable_field() makes None, and reads "binary" as an unparsed type (its parser
    # lacks that name), so binary is checked on the wire.
    loaded = {c.name(): c.data_type().simple_string() for c in t.columns()}
    wanted = {c.name(): c.data_type().simple_string() for c in wide_columns()}
    loaded.pop("raw")
    wanted.pop("raw")
    assert loaded == wanted
    wire = ok_json(api.get(f"metalakes/{metalake_name}/catalogs/{hive_catalog.name()}/schemas/"
                           f"{hive_schema}/tables/orders"))["table"]
    assert {c["name"]: c["type"] for c in wire["columns"]}["raw"] == "binary"
    assert t.columns()[0].comment() == "key"
    assert [p.field_name() for p in t.partitioning()] == [["dt"], ["country"]]
    assert t.distribution().strategy() == Distributions.hash(4).strategy()
    assert t.distribution().number() == 4
    assert t.sort_order()[0].direction() == SortDirection.DESCENDING
    props = t.properties()
    assert props["table-type"] == h.tableType
    assert props["serde-lib"] == "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    assert props["serde.parameter.parquet.compression"] == "SNAPPY"
    assert props["location"] == h.sd.location
    assert props["owner_team"] == "x" and "comment" not in props
    assert t.audit_info().creator() == "anonymous"

    with pytest.raises(TableAlreadyExistsException):
        tables.create_table(ident, [Column.of("x", Types.IntegerType.get())], "", {})
    assert tables.list_tables(ident.namespace()) == [ident]

    with pytest.raises(NonEmptySchemaException):
        hive_catalog.as_schemas().drop_schema(hive_schema, False)
    assert hive_schema in hms.get_all_databases()

    assert tables.drop_table(ident) is True
    assert "orders" not in hms.get_all_tables(hive_schema)
    assert tables.drop_table(ident) is False
    with pytest.raises(NoSuchTableException):
        tables.load_table(ident)


def test_definitions_hive_cannot_hold_are_refused_with_nothing_made(
        api, metalake_name, hive_catalog, hive_schema, hms):
    base = (f"metalakes/{metalake_name}/catalogs/{hive_catalog.name()}/schemas/{hive_schema}"
            "/tables")

    def col(name, typ, **kw):
        return {"name": name, "type": typ, "nullable": True, **kw}

    cases = [
        ({"columns": [col("id", "integer"), col("t", "time")]}, "time"),
        ({"columns": [col("id", "integer"), col("u", "uuid")]}, "uuid"),
        ({"columns": [col("id", "integer", nullable=False)]}, "nullable"),
        ({"columns": [col("id", "integer"), col("dt", "date")],
          "partitioning": [{"strategy": "day", "fieldName": ["dt"]}]}, "identity"),
        ({"columns": [col("dt", "date"), col("id", "integer")],
          "partitioning": [{"strategy": "identity", "fieldName": ["dt"]}]}, "last"),
        ({"columns": [col("id", "integer")], "properties": {"format": "DELTA"}}, "format"),
        ({"columns": [col("id", "integer")], "properties": {"table-type": "VIEW"}},
         "table-type"),
        ({"columns": [col("id", "integer")], "properties": {"numFiles": "3"}}, "reserved"),
        ({"columns": [col("id", "integer")],
          "distribution": {"strategy": "range", "number": 2, "funcArgs": []}}, "hash"),
    ]
    for extra, word in cases:
        name = unique("bad")
        r = api.post(base, {"name": name, **extra})
        refused(r, word)
        assert name not in hms.get_all_tables(hive_schema), extra


def test_table_made_by_another_client_is_visible_at_once(client, hive_catalog, hive_schema, hms):
    from hive_metastore_client.builders import (
        ColumnBuilder, SerDeInfoBuilder, StorageDescriptorBuilder, TableBuilder)
    cols = [ColumnBuilder("id", "int", "the id").build(),
            ColumnBuilder("payload", "map<string,array<struct<k:string,v:decimal(5,1)>>>").build(),
            ColumnBuilder("tz", "timestamp with local time zone").build()]
    sd = StorageDescriptorBuilder(
        columns=cols, location=None, input_format="org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
        output_format="org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat",
        serde_info=SerDeInfoBuilder(
            serialization_lib="org.apache.hadoop.hive.ql.io.orc.OrcSerde").build()).build()
    hms.create_table(TableBuilder(
        table_name="from_hive", db_name=hive_schema, owner="hive", storage_descriptor=sd,
        partition_keys=[ColumnBuilder("region", "string").build()],
        table_type="EXTERNAL_TABLE", parameters={"EXTERNAL": "TRUE", "comment": "by hand"}).build())

    tables = hive_catalog.as_table_catalog()
    ident = NameIdentifier.of(hive_schema, "from_hive")
    assert ident in tables.list_tables(ident.namespace())
    t = tables.load_table(ident)
    assert t.comment() == "by hand"
    assert [c.name() for c in t.columns()] == ["id", "payload", "tz", "region"]
    assert t.columns()[0].data_type() == Types.IntegerType.get()
    assert t.columns()[1].data_type().simple_string() == Types.MapType.of(
        Types.StringType.get(),
        Types.ListType.of(Types.StructType.of(
            Types.StructType.Field.nullable_field("k", Types.StringType.get()),
            Types.StructType.Field.nullable_field("v", Types.DecimalType.of(5, 1))), True),
        True).simple_string()
    # a type the object model has no name for comes back as an external type, kept verbatim
    assert t.columns()[2].data_type().simple_string() == "external(timestamp with local time zone)"
    assert t.properties()["table-type"] == "EXTERNAL_TABLE"
    assert t.properties()["serde-lib"] == "org.apache.hadoop.hive.ql.io.orc.OrcSerde"
    assert [p.field_name() for p in t.partitioning()] == [["region"]]
    assert t.audit_info().creator() == "hive"

    # an Iceberg table the metastore holds is left out of listings unless list-all-tables is set
    hms.create_table(TableBuilder(
        table_name="ice", db_name=hive_schema, owner="spark", storage_descriptor=sd,
        table_type="EXTERNAL_TABLE",
        parameters={"EXTERNAL": "TRUE", "table_type": "ICEBERG",
                    "metadata_location": "file:/tmp/ice/metadata/00000.metadata.json"}).build())
    assert sorted(i.name() for i in tables.list_tables(ident.namespace())) == ["from_hive"]
    assert tables.load_table(NameIdentifier.of(hive_schema, "ice")).properties()[
        "table_type"] == "ICEBERG"
    every = client.create_catalog(unique("hive"), Catalog.Type.RELATIONAL, "hive", "",
                                  {"metastore.uris": URI, "list-all-tables": "true"})
    assert sorted(i.name() for i in every.as_table_catalog().list_tables(ident.namespace())) == [
        "from_hive", "ice"]

    # dropped by the other client: gone through Cairn at once
    hms.drop_table(hive_schema, "from_hive", False)
    with pytest.raises(NoSuchTableException):
        tables.load_table(ident)


def test_alters_change_the_metastore_table(api, metalake_name, hive_catalog, hive_schema, hms):
    tables = hive_catalog.as_table_catalog()
    ident = NameIdentifier.of(hive_schema, "events")
    tables.create_table(ident, [Column.of("id", Types.IntegerType.get()),
                                Column.of("body", Types.StringType.get()),
                                Column.of("dt", Types.StringType.get())], "events", {"a": "1"},
                        partitioning=[Transforms.identity("dt")])
    t = tables.alter_table(
        ident,
        TableChange.update_comment("every event"),
        TableChange.set_property("b", "2"),
        TableChange.remove_property("a"),
        TableChange.set_property("serde.parameter.field.delim", ","),
        TableChange.add_column(["kind"], Types.VarCharType.of(10), "what",
                               TableChange.ColumnPosition.after("id")),
        TableChange.rename_column(["body"], "payload"),
        TableChange.update_column_type(["id"], Types.LongType.get()),
        TableChange.update_column_comment(["payload"], "the body"),
        TableChange.rename("events2"))
    assert t.name() == "events2" and t.comment() == "every event"
    assert [c.name() for c in t.columns()] == ["id", "kind", "payload", "dt"]
    h = hms_table(hms, hive_schema, "events2")
    assert [(c.name, c.type, c.comment) for c in h.sd.cols] == [
        ("id", "bigint", None), ("kind", "varchar(10)", "what"), ("payload", "string", "the body")]
    assert h.parameters["comment"] == "every event" and h.parameters["b"] == "2"
    assert "a" not in h.parameters
    assert h.sd.serdeInfo.parameters["field.delim"] == ","
    assert "events" not in hms.get_all_tables(hive_schema)

    # refused changes leave the table as it was
    base = (f"metalakes/{metalake_name}/catalogs/{hive_catalog.name()}/schemas/{hive_schema}"
            "/tables/events2")
    for update, word in [
            ({"@type": "setProperty", "property": "location", "value": "file:///elsewhere"},
             "location"),
            ({"@type": "updateColumnType", "fieldName": ["dt"], "newType": "integer"},
             "partition column"),
            ({"@type": "updateColumnNullability", "fieldName": ["id"], "nullable": False},
             "nullable"),
            ({"@type": "deleteColumn", "fieldName": ["nope"], "ifExists": False}, "nope")]:
        r = api.put(base, {"updates": [{"@type": "updateComment", "newComment": "changed"},
                                       update]})
        refused(r, word, type_=None)
    assert hms_table(hms, hive_schema, "events2").parameters["comment"] == "every event"

    t = tables.alter_table(NameIdentifier.of(hive_schema, "events2"),
                           TableChange.delete_column(["kind"], False),
                           TableChange.delete_column(["nope"], True))
    assert [c.name for c in hms_table(hms, hive_schema, "events2").sd.cols] == ["id", "payload"]


def test_partitions(hive_catalog, hive_schema, hms):
    tables = hive_catalog.as_table_catalog()
    ident = NameIdentifier.of(hive_schema, "clicks")
    tables.create_table(ident, [Column.of("id", Types.IntegerType.get()),
                                Column.of("dt", Types.DateType.get()),
                                Column.of("country", Types.StringType.get())], "", {},
                        partitioning=[Transforms.identity("dt"), Transforms.identity("country")])
    t = tables.load_table(ident)
    assert t.list_partition_names() == []

    p = t.add_partition(Partitions.identity(
        None, [["dt"], ["country"]],
        [Literals.date_literal(__import__("datetime").date(2024, 1, 1)),
         Literals.string_literal("us")], {"source": "cairn"}))
    assert p.name() == "dt=2024-01-01/country=us"
    assert p.properties()["source"] == "cairn"
    # in the metastore, under the table's location
    hp = hms.get_partition_by_name(hive_schema, "clicks", "dt=2024-01-01/country=us")
    assert hp.values == ["2024-01-01", "us"]
    assert hp.sd.location.endswith("/clicks/dt=2024-01-01/country=us")
    assert hp.parameters["source"] == "cairn"

    with pytest.raises(PartitionAlreadyExistsException):
        t.add_partition(Partitions.identity(
            None, [["dt"], ["country"]],
            [Literals.date_literal(__import__("datetime").date(2024, 1, 1)),
             Literals.string_literal("us")], {}))

    # a partition added by the other client, with a value Hive escapes in names
    from thrift_files.libraries.thrift_hive_metastore_client.ttypes import Partition
    h = hms_table(hms, hive_schema, "clicks")
    sd = h.sd
    sd.location = None
    hms.add_partition(Partition(values=["2024-01-02", "a/b"], dbName=hive_schema,
                                tableName="clicks", sd=sd, parameters={}))
    names = t.list_partition_names()
    assert sorted(names) == ["dt=2024-01-01/country=us", "dt=2024-01-02/country=a%2Fb"]
    parts = {p.name(): p for p in t.list_partitions()}
    assert set(parts) == set(names)
    got = t.get_partition("dt=2024-01-02/country=a%2Fb")
    assert [v.value() for v in got.values()] == ["2024-01-02", "a/b"]
    assert got.values()[0].data_type() == Types.DateType.get()
    assert got.field_names() == [["dt"], ["country"]]

    with pytest.raises(NoSuchPartitionException):
        t.get_partition("dt=2030-01-01/country=xx")
    with pytest.raises(IllegalArgumentException):  # the values must match the columns
        t.add_partition(Partitions.identity(
            None, [["dt"]], [Literals.string_literal("2024-01-03")], {}))

    assert t.drop_partition("dt=2024-01-01/country=us") is True
    assert hms.get_partition_names(hive_schema, "clicks", -1) == ["dt=2024-01-02/country=a%2Fb"]
    assert t.drop_partition("dt=2024-01-01/country=us") is False


def test_stopped_metastore_is_a_quick_error_with_nothing_left(api, metalake_name, tmp_path):
    ms = HiveMetastore(tmp_path / "hms").start()
    try:
        cat = unique("hive")
        base = f"metalakes/{metalake_name}/catalogs"
        ok_json(api.post(base, {"name": cat, "type": "relational", "provider": "hive",
                                "properties": {"metastore.uris": ms.uri}}))
        schemas = f"{base}/{cat}/schemas"
        ok_json(api.post(schemas, {"name": "kept"}))
        ms.stop()
        for call in (lambda: api.get(schemas),
                     lambda: api.post(schemas, {"name": "lost"}),
                     lambda: api.get(f"{schemas}/kept/tables")):
            started = time.monotonic()
            r = call()
            assert time.monotonic() - started < 15
            assert r.status_code in (502, 503), r.text
            assert cat in r.json()["message"], r.text
        ms.start()
        names = [i["name"] for i in ok_json(api.get(schemas))["identifiers"]]
        assert "kept" in names and "lost" not in names
    finally:
        ms.stop()


def test_owners_and_privileges_hold_for_hive_objects(tmp_path_factory):
    with store_env("cairn_hive_authz") as env:
        env = {**env, "CAIRN_AUTHORIZATION_ENABLE": "true",
               "CAIRN_AUTHORIZATION_SERVICE_ADMINS": "admin", "CAIRN_AUTHENTICATORS": "simple"}
        srv = start_cairn("hive-authz", env, tmp_path_factory.mktemp("hive-authz"),
                          tmp_path_factory.getbasetemp())
        try:
            _owners_and_privileges(srv.url)
        finally:
            srv.stop()
            srv.remove_data()


def _owners_and_privileges(url: str):
    def call(user, method, path, body=None):
        headers = dict(CLIENT_HEADERS)
        headers["Authorization"] = "Basic " + base64.b64encode(f"{user}:x".encode()).decode()
        return requests.request(method, f"{url}/api/{path}", headers=headers, timeout=30,
                                data=None if body is None else json.dumps(body))

    def ok(user, method, path, body=None):
        r = call(user, method, path, body)
        assert r.status_code == 200, f"{user} {method} {path}: {r.status_code} {r.text[:300]}"
        return r.json()

    ml, cat, db = unique("ml"), "hv", unique("db")
    ok("admin", "POST", "metalakes", {"name": ml, "properties": {}})
    ok("admin", "POST", f"metalakes/{ml}/catalogs", {
        "name": cat, "type": "relational", "provider": "hive",
        "properties": {"metastore.uris": URI}})
    for u in ("alice", "bob"):
        ok("admin", "POST", f"metalakes/{ml}/users", {"name": u})
    ok("admin", "POST", f"metalakes/{ml}/roles", {
        "name": "creators", "properties": {},
        "securableObjects": [{"fullName": cat, "type": "CATALOG", "privileges": [
            {"name": "USE_CATALOG", "condition": "allow"},
            {"name": "CREATE_SCHEMA", "condition": "allow"}]}]})
    ok("admin", "PUT", f"metalakes/{ml}/permissions/users/alice/grant",
       {"roleNames": ["creators"]})
    base = f"metalakes/{ml}/catalogs/{cat}/schemas"
    ok("alice", "POST", base, {"name": db})
    table = {"name": "t", "columns": [{"name": "id", "type": "integer", "nullable": True},
                                      {"name": "dt", "type": "string", "nullable": True}],
             "partitioning": [{"strategy": "identity", "fieldName": ["dt"]}]}
    ok("alice", "POST", f"{base}/{db}/tables", table)
    owner = ok("admin", "GET", f"metalakes/{ml}/owners/table/{cat}.{db}.t")["owner"]["name"]
    assert owner == "alice"
    with thrift_client(URI) as hms:
        try:
            assert hms_table(hms, db, "t").owner == "alice"
            part = {"partitions": [{"type": "identity", "fieldNames": [["dt"]],
                                    "values": [{"type": "literal", "dataType": "string",
                                                "value": "d1"}]}]}
            # bob has no rights: denied before anything reaches the metastore
            assert call("bob", "GET", f"{base}/{db}/tables/t").status_code == 403
            assert call("bob", "GET", f"{base}/{db}/tables/t/partitions").status_code == 403
            assert call("bob", "POST", f"{base}/{db}/tables/t/partitions", part).status_code == 403
            assert call("bob", "POST", f"{base}/{db}/tables", {**table, "name": "b"}).status_code \
                == 403
            assert hms.get_all_tables(db) == ["t"]
            assert hms.get_partition_names(db, "t", -1) == []
            # the owner adds a partition; a reader granted SELECT_TABLE lists it but cannot add
            ok("alice", "POST", f"{base}/{db}/tables/t/partitions", part)
            ok("admin", "POST", f"metalakes/{ml}/roles", {
                "name": "readers", "properties": {},
                "securableObjects": [{"fullName": cat, "type": "CATALOG", "privileges": [
                    {"name": "USE_CATALOG", "condition": "allow"},
                    {"name": "USE_SCHEMA", "condition": "allow"},
                    {"name": "SELECT_TABLE", "condition": "allow"}]}]})
            ok("admin", "PUT", f"metalakes/{ml}/permissions/users/bob/grant",
               {"roleNames": ["readers"]})
            assert ok("bob", "GET", f"{base}/{db}/tables/t/partitions")["names"] == ["dt=d1"]
            part["partitions"][0]["values"][0]["value"] = "d2"
            assert call("bob", "POST", f"{base}/{db}/tables/t/partitions", part).status_code \
                == 403
            assert call("bob", "DELETE", f"{base}/{db}/tables/t/partitions/dt=d1").status_code \
                == 403
            assert hms.get_partition_names(db, "t", -1) == ["dt=d1"]
        finally:
            hms.drop_database(db, True, True)


def test_frozen_metastore_fails_after_the_timeout_then_at_once(tmp_path, tmp_path_factory):
    """A metastore that stops answering (SIGSTOP keeps its sockets open): the call gives up after
    the statement timeout naming the catalog, the next ones fail at once for a while, and the
    catalog recovers when the metastore answers again."""
    import signal
    from helpers import Api
    timeout_s, hold_off_s = 2, 5
    ms = HiveMetastore(tmp_path / "hms").start()
    try:
        with store_env("cairn_hive_hang") as env:
            env = {**env, "CAIRN_JDBC_STATEMENT_TIMEOUT_SECS": str(timeout_s)}
            srv = start_cairn("hive-hang", env, tmp_path_factory.mktemp("hive-hang"),
                              tmp_path_factory.getbasetemp())
            try:
                api = Api(srv.url)
                ml, cat = unique("ml"), unique("frozen")
                ok_json(api.post("metalakes", {"name": ml}))
                schemas = f"metalakes/{ml}/catalogs/{cat}/schemas"
                ok_json(api.post(f"metalakes/{ml}/catalogs", {
                    "name": cat, "type": "relational", "provider": "hive",
                    "properties": {"metastore.uris": ms.uri}}))
                ok_json(api.post(schemas, {"name": "s"}))
                os.kill(ms.pid, signal.SIGSTOP)
                try:
                    started = time.monotonic()
                    r = api.get(f"{schemas}/s")
                    took = time.monotonic() - started
                    assert r.status_code == 503, r.text
                    assert cat in r.json()["message"] and "did not answer" in r.json()["message"]
                    assert timeout_s - 0.5 <= took < timeout_s + 5, took
                    started = time.monotonic()
                    r = api.get(schemas)
                    assert r.status_code == 503 and cat in r.json()["message"], r.text
                    assert time.monotonic() - started < 1.0
                    ok_json(api.get("version"))
                finally:
                    os.kill(ms.pid, signal.SIGCONT)
                time.sleep(hold_off_s + 0.5)
                assert ok_json(api.get(f"{schemas}/s"))["schema"]["name"] == "s"
            finally:
                srv.stop()
                srv.remove_data()
    finally:
        ms.stop()


def test_hive_tables_take_tags(api, metalake_name, hive_catalog, hive_schema, hms):
    from hive_metastore_client.builders import (
        ColumnBuilder, SerDeInfoBuilder, StorageDescriptorBuilder, TableBuilder)
    ml, cat = metalake_name, hive_catalog.name()
    hive_catalog.as_table_catalog().create_table(
        NameIdentifier.of(hive_schema, "mine"), [Column.of("id", Types.IntegerType.get())], "", {})
    # one made in the metastore and never listed through Cairn takes a tag as well
    sd = StorageDescriptorBuilder(
        columns=[ColumnBuilder("id", "int").build()], location=None,
        input_format="org.apache.hadoop.mapred.TextInputFormat",
        output_format="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        serde_info=SerDeInfoBuilder(
            serialization_lib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe").build()
    ).build()
    hms.create_table(TableBuilder(table_name="theirs", db_name=hive_schema, owner="hive",
                                  storage_descriptor=sd, table_type="EXTERNAL_TABLE",
                                  parameters={"EXTERNAL": "TRUE"}).build())
    tag = unique("pii")
    ok_json(api.post(f"metalakes/{ml}/tags", {"name": tag}))
    for t in ("mine", "theirs"):
        full = f"{cat}.{hive_schema}.{t}"
        assert ok_json(api.post(f"metalakes/{ml}/objects/table/{full}/tags",
                                {"tagsToAdd": [tag]}))["names"] == [tag]
    objects = ok_json(api.get(f"metalakes/{ml}/tags/{tag}/objects"))["metadataObjects"]
    assert sorted(o["fullName"] for o in objects) == [
        f"{cat}.{hive_schema}.mine", f"{cat}.{hive_schema}.theirs"]
