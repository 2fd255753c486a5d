"""Hive catalogs in the access matrix: their schemas, tables and partitions are governed as any
relational catalog's. Reading a table or its partitions needs use of the catalog and schema and
SELECT_TABLE (or MODIFY_TABLE, or ownership); altering the table and adding or dropping
partitions, MODIFY_TABLE or ownership; dropping it, ownership; creating one, CREATE_TABLE. The
creating user owns the table. A refusal never reaches the metastore: after every one its tables,
partitions and the table's parameters are unchanged."""

from __future__ import annotations

import os
from urllib.parse import urlparse

import pytest

from sec_helpers import Admin, Principal, create_metalake, sobj, unique

URI = os.environ.get("CAIRN_TEST_HIVE_URI")
pytestmark = pytest.mark.skipif(not URI, reason="no Hive metastore (tests/e2e/run.sh starts one)")


def _metastore():
    from hive_metastore_client import HiveMetastoreClient
    u = urlparse(URI)
    return HiveMetastoreClient(u.hostname, u.port)


def _part(value: str) -> dict:
    return {"partitions": [{"type": "identity", "fieldNames": [["dt"]], "values": [
        {"type": "literal", "dataType": "string", "value": value}]}]}


def test_hive_table_and_partition_privileges(authz_server, admin):
    from thrift_files.libraries.thrift_hive_metastore_client.ttypes import GetTableRequest
    ml = create_metalake(admin)
    cat, db = unique("hive"), unique("db")
    admin.ok("POST", f"metalakes/{ml}/catalogs", {
        "name": cat, "type": "relational", "provider": "hive", "comment": "metastore",
        "properties": {"metastore.uris": URI}})
    schemas = f"metalakes/{ml}/catalogs/{cat}/schemas"
    admin.ok("POST", schemas, {"name": db})
    tables = f"{schemas}/{db}/tables"
    columns = [{"name": "id", "type": "integer", "nullable": True},
               {"name": "dt", "type": "string", "nullable": True}]
    table = {"name": "t", "columns": columns,
             "partitioning": [{"strategy": "identity", "fieldName": ["dt"]}]}
    admin.ok("POST", tables, table)
    admin.ok("POST", f"{tables}/t/partitions", _part("d1"))

    a = Admin(admin, ml)
    use = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA")]
    a.user_with("reader", use + [sobj("TABLE", f"{cat}.{db}.t", "SELECT_TABLE")])
    a.user_with("writer", use + [sobj("TABLE", f"{cat}.{db}.t", "MODIFY_TABLE")])
    a.user_with("creator", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "CREATE_TABLE")])
    a.user_with("user", use)
    stranger = Principal(authz_server.url, unique("stranger"))
    p = {u: Principal(authz_server.url, u) for u in ("reader", "writer", "creator", "user")}

    hms = _metastore()
    hms.open()
    try:
        def state():
            t = hms.get_table_req(GetTableRequest(dbName=db, tblName="t")).table
            return (sorted(hms.get_all_tables(db)), sorted(hms.get_partition_names(db, "t", -1)),
                    t.parameters.get("comment"), [c.name for c in t.sd.cols])

        def refused(principal, method, path, payload=None):
            before = state()
            r = principal.api(method, path, payload)
            assert r.status_code == 403, (principal.user, method, path, r.status_code, r.text)
            assert state() == before, (principal.user, method, path)

        comment = {"updates": [{"@type": "updateComment", "newComment": "changed"}]}

        # Reading the table and its partitions: SELECT_TABLE (or MODIFY_TABLE).
        for who in ("user", "creator"):
            refused(p[who], "GET", f"{tables}/t")
            refused(p[who], "GET", f"{tables}/t/partitions")
            refused(p[who], "GET", f"{tables}/t/partitions/dt=d1")
        refused(stranger, "GET", f"{tables}/t")
        refused(stranger, "GET", f"{tables}/nope/partitions")  # a denial, not a 404
        for who in ("reader", "writer"):
            assert p[who].ok("GET", f"{tables}/t")["table"]["name"] == "t"
            assert p[who].ok("GET", f"{tables}/t/partitions")["names"] == ["dt=d1"]
            assert p[who].ok("GET", f"{tables}/t/partitions/dt=d1")["partition"]["name"] == "dt=d1"
        # The list shows only the tables one may read.
        assert [i["name"] for i in p["reader"].ok("GET", tables)["identifiers"]] == ["t"]
        assert p["user"].ok("GET", tables)["identifiers"] == []

        # Altering and partitions: MODIFY_TABLE (denied before the body is read).
        for who in ("reader", "user", "creator"):
            refused(p[who], "PUT", f"{tables}/t", comment)
            refused(p[who], "POST", f"{tables}/t/partitions", _part("d2"))
            refused(p[who], "DELETE", f"{tables}/t/partitions/dt=d1")
        refused(p["reader"], "POST", f"{tables}/t/partitions", {"partitions": 7})
        assert p["writer"].ok("POST", f"{tables}/t/partitions", _part("d2"))["partitions"][0][
            "name"] == "dt=d2"
        assert p["writer"].ok("DELETE", f"{tables}/t/partitions/dt=d2")["dropped"] is True
        assert p["writer"].ok("PUT", f"{tables}/t", comment)["table"]["comment"] == "changed"

        # Dropping: the owner only.
        for who in ("reader", "writer", "user"):
            refused(p[who], "DELETE", f"{tables}/t")

        # Creating: CREATE_TABLE; the creator owns the table and may drop it.
        mine = {**table, "name": "mine"}
        for who in ("reader", "writer", "user"):
            refused(p[who], "POST", tables, mine)
        assert p["creator"].ok("POST", tables, mine)["table"]["name"] == "mine"
        assert a.get_owner("table", f"{cat}.{db}.mine")["owner"]["name"] == "creator"
        assert p["creator"].ok("POST", f"{tables}/mine/partitions", _part("x"))["partitions"]
        assert p["creator"].ok("DELETE", f"{tables}/mine")["dropped"] is True
        assert "mine" not in hms.get_all_tables(db)

        # Every call was audited: the writer's partition calls and the reader's refusals.
        def audited(user):
            records = admin.ok("GET", "audit", params={"principal": user, "limit": "1000"})
            # operation: "METHOD /api/<route pattern>"
            return {(r["operation"].split(" ")[0], r["outcome"]) for r in records["records"]
                    if ml in r["object"]}
        assert {("POST", "success"), ("DELETE", "success"), ("PUT", "success"),
                ("DELETE", "denied")} <= audited("writer")
        assert {("GET", "success"), ("POST", "denied"), ("PUT", "denied")} <= audited("reader")

        # A deny of SELECT_TABLE on the schema takes reading away again.
        a.create_role("noread", [sobj("SCHEMA", f"{cat}.{db}", "SELECT_TABLE", deny=True)])
        a.grant_roles("reader", ["noread"])
        refused(p["reader"], "GET", f"{tables}/t/partitions")
        refused(p["reader"], "GET", f"{tables}/t")
    finally:
        try:
            hms.drop_database(db, True, True)
        finally:
            hms.close()


def test_iceberg_tables_in_the_metastore_are_governed(authz_server, admin, tmp_path):
    """A lakehouse-iceberg catalog with catalog-backend=hive: a table another engine registered
    in the metastore is readable by a granted reader at once (its row is made on first sight),
    refused to a stranger, and the reader cannot commit to it; the table the admin creates is the
    admin's."""
    from hive_metastore_client.builders import (
        SerDeInfoBuilder, StorageDescriptorBuilder, TableBuilder)
    ml = create_metalake(admin)
    cat, db = unique("icehive"), unique("db")
    wh = tmp_path / "warehouse"
    wh.mkdir()
    admin.ok("POST", f"metalakes/{ml}/catalogs", {
        "name": cat, "type": "relational", "provider": "lakehouse-iceberg",
        "properties": {"catalog-backend": "hive", "uri": URI, "warehouse": f"file://{wh}"}})
    warehouse = f"{ml}.{cat}"
    r = admin.rest("POST", warehouse, "namespaces", {"namespace": [db], "properties": {}})
    assert r.status_code == 200, r.text
    schema = {"type": "struct", "schema-id": 0,
              "fields": [{"id": 1, "name": "id", "type": "long", "required": False}]}
    r = admin.rest("POST", warehouse, f"namespaces/{db}/tables", {"name": "mine", "schema": schema})
    assert r.status_code == 200, r.text
    location = r.json()["metadata-location"]
    assert Admin(admin, ml).get_owner("table", f"{cat}.{db}.mine")["owner"]["name"] == "admin"

    a = Admin(admin, ml)
    a.user_with("reader", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE")])
    reader = Principal(authz_server.url, "reader")
    stranger = Principal(authz_server.url, unique("stranger"))
    with _metastore() as hms:
        try:
            sd = StorageDescriptorBuilder(
                columns=[], location=f"file://{wh}/{db}/theirs",
                input_format="org.apache.iceberg.mr.hive.HiveIcebergInputFormat",
                output_format="org.apache.iceberg.mr.hive.HiveIcebergOutputFormat",
                serde_info=SerDeInfoBuilder(
                    serialization_lib="org.apache.iceberg.mr.hive.HiveIcebergSerDe").build()
            ).build()
            hms.create_table(TableBuilder(
                table_name="theirs", db_name=db, owner="spark", storage_descriptor=sd,
                table_type="EXTERNAL_TABLE",
                parameters={"EXTERNAL": "TRUE", "table_type": "ICEBERG",
                            "metadata_location": location}).build())
            got = reader.rest("GET", warehouse, f"namespaces/{db}/tables/theirs")
            assert got.status_code == 200, got.text
            assert got.json()["metadata-location"] == location
            listed = reader.rest("GET", warehouse, f"namespaces/{db}/tables").json()
            assert sorted(i["name"] for i in listed["identifiers"]) == ["mine", "theirs"]
            assert stranger.rest("GET", warehouse, f"namespaces/{db}/tables/theirs").status_code \
                == 403
            commit = {"requirements": [], "updates": [
                {"action": "set-properties", "updates": {"k": "v"}}]}
            r = reader.rest("POST", warehouse, f"namespaces/{db}/tables/theirs", commit)
            assert r.status_code == 403, r.text
            t = hms.get_table_req(_get_table_request(db, "theirs")).table
            assert t.parameters["metadata_location"] == location
        finally:
            hms.drop_database(db, False, True)


def _get_table_request(db: str, name: str):
    from thrift_files.libraries.thrift_hive_metastore_client.ttypes import GetTableRequest
    return GetTableRequest(dbName=db, tblName=name)
