"""Statistics of tables through the official Python client (`table.supports_statistics()`), and of
their partitions over plain HTTP in the shapes of Gravitino 1.3's statistics.yaml (its Python
client has no partition statistics): set, list, drop; the `custom-` rule; the reserved figures
of an Iceberg table; what a rename or drop does to them; and bad input (docs/statistics.md)."""

from urllib.parse import quote

import pytest

from gravitino import NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.table_change import TableChange
from gravitino.api.rel.types.types import Types
from gravitino.api.stats.statistic_values import StatisticValues
from gravitino.exceptions.base import (
    IllegalStatisticNameException,
    NoSuchMetadataObjectException,
    UnmodifiableStatisticException,
)

from helpers import assert_audit, assert_error, ok_json, unique

RESERVED = {"row_count", "file_count", "delete_file_count", "total_size_bytes",
            "position_delete_count", "equality_delete_count"}


@pytest.fixture
def table(tables, schema_name):
    ident = NameIdentifier.of(schema_name, "events")
    tables.create_table(ident, [Column.of("id", Types.LongType.get()),
                                Column.of("day", Types.StringType.get())])
    return tables.load_table(ident)


def stats_path(metalake, full_name, partitions=False, type_="table"):
    path = f"metalakes/{metalake}/objects/{type_}/{quote(full_name, safe='')}/statistics"
    return path + "/partitions" if partitions else path


def by_name(statistics):
    return {s.name(): s for s in statistics}


def test_statistics_lifecycle_through_the_client(table):
    stats = table.supports_statistics()
    before = by_name(stats.list_statistics())
    # A managed Iceberg table with no data lists its figures as zeros, reserved and unmodifiable.
    assert set(before) == RESERVED
    for s in before.values():
        assert s.reserved() is True and s.modifiable() is False
        assert s.value().value() == 0

    stats.update_statistics({
        "custom-owner": StatisticValues.string_value("etl"),
        "custom-rows": StatisticValues.long_value(1000),
        "custom-ratio": StatisticValues.double_value(0.25),
        "custom-fresh": StatisticValues.boolean_value(True),
        "custom-days": StatisticValues.list_value([StatisticValues.string_value("mon"),
                                                   StatisticValues.string_value("tue")]),
        "custom-hist": StatisticValues.object_value({"p50": StatisticValues.long_value(3),
                                                     "p99": StatisticValues.double_value(9.5)}),
    })
    got = by_name(stats.list_statistics())
    assert set(got) == RESERVED | {"custom-owner", "custom-rows", "custom-ratio", "custom-fresh",
                                   "custom-days", "custom-hist"}
    assert got["custom-owner"].value() == StatisticValues.string_value("etl")
    assert got["custom-rows"].value() == StatisticValues.long_value(1000)
    assert got["custom-ratio"].value() == StatisticValues.double_value(0.25)
    assert got["custom-fresh"].value() == StatisticValues.boolean_value(True)
    assert [v.value() for v in got["custom-days"].value().value()] == ["mon", "tue"]
    hist = got["custom-hist"].value().value()
    assert hist["p50"].value() == 3 and hist["p99"].value() == 9.5
    rows = got["custom-rows"]
    assert rows.reserved() is False and rows.modifiable() is True
    assert rows.audit_info().creator() == "anonymous"

    # A new value replaces the old one; the others stay.
    stats.update_statistics({"custom-rows": StatisticValues.long_value(1001)})
    assert by_name(stats.list_statistics())["custom-rows"].value().value() == 1001

    assert stats.drop_statistics(["custom-rows", "custom-ratio"]) is True
    assert stats.drop_statistics(["custom-rows"]) is False
    assert "custom-rows" not in by_name(stats.list_statistics())


def test_names_outside_custom_are_refused(table):
    stats = table.supports_statistics()
    with pytest.raises(IllegalStatisticNameException):
        stats.update_statistics({"rows": StatisticValues.long_value(1)})
    with pytest.raises(UnmodifiableStatisticException):
        stats.update_statistics({"row_count": StatisticValues.long_value(1)})
    with pytest.raises(UnmodifiableStatisticException):
        stats.drop_statistics(["row_count"])
    # A refused request writes nothing, not even its legal half.
    with pytest.raises(IllegalStatisticNameException):
        stats.update_statistics({"custom-ok": StatisticValues.long_value(1),
                                 "bad": StatisticValues.long_value(2)})
    assert set(by_name(stats.list_statistics())) == RESERVED


def test_statistics_follow_the_table(client, catalog, tables, schema_name, table):
    table.supports_statistics().update_statistics(
        {"custom-k": StatisticValues.string_value("v")})
    tables.alter_table(NameIdentifier.of(schema_name, "events"), TableChange.rename("renamed"))
    renamed = tables.load_table(NameIdentifier.of(schema_name, "renamed"))
    assert by_name(renamed.supports_statistics().list_statistics())["custom-k"].value().value() == "v"

    assert tables.drop_table(NameIdentifier.of(schema_name, "renamed"))
    tables.create_table(NameIdentifier.of(schema_name, "renamed"),
                        [Column.of("id", Types.LongType.get())])
    again = tables.load_table(NameIdentifier.of(schema_name, "renamed"))
    assert "custom-k" not in by_name(again.supports_statistics().list_statistics())

    gone = tables.load_table(NameIdentifier.of(schema_name, "renamed"))
    tables.drop_table(NameIdentifier.of(schema_name, "renamed"))
    with pytest.raises(NoSuchMetadataObjectException):
        gone.supports_statistics().list_statistics()


def test_only_tables_have_statistics(api, metalake_name, catalog_name, schema_name):
    for type_, name in (("schema", f"{catalog_name}.{schema_name}"), ("catalog", catalog_name)):
        for method, body in (("GET", None), ("PUT", {"updates": {"custom-a": 1}}),
                             ("POST", {"names": ["custom-a"]})):
            r = api.request(method, stats_path(metalake_name, name, type_=type_), json_body=body)
            err = assert_error(r, 405, 1006, "UnsupportedOperationException")
            assert "only supported for tables" in err["message"]
    assert_error(api.get(stats_path(metalake_name, f"{catalog_name}.{schema_name}.nope")), 404,
                 1003, "NoSuchMetadataObjectException")
    assert_error(api.get(stats_path(metalake_name, "a.b", type_="volume")), 400, 1001)
    assert_error(api.get(stats_path(unique("nolake"), f"{catalog_name}.{schema_name}.t")), 404,
                 1003, "NoSuchMetalakeException")


def test_bad_bodies_are_400_naming_the_field(api, metalake_name, catalog_name, schema_name,
                                             table):
    path = stats_path(metalake_name, f"{catalog_name}.{schema_name}.events")
    cases = [
        ("PUT", {}, "updates"),
        ("PUT", {"updates": None}, "updates"),
        ("PUT", {"updates": []}, "updates"),
        ("PUT", {"updates": {}}, "updates"),
        ("PUT", {"updates": {"custom-a": None}}, "custom-a"),
        ("PUT", {"updates": {"custom-" + "x" * 300: 1}}, "updates"),
        ("PUT", {"updates": {"custom-a\u0000b": 1}}, "updates"),
        ("PUT", {"updates": {"custom-big": "v" * (70 * 1024)}}, "custom-big"),
        ("POST", {}, "names"),
        ("POST", {"names": []}, "names"),
        ("POST", {"names": "custom-a"}, "names"),
        ("POST", {"names": [1]}, "names"),
    ]
    for method, body, field in cases:
        r = api.request(method, path, json_body=body)
        err = assert_error(r, 400, 1001)
        assert field in err["message"], (body, err)
    r = api.request("PUT", path, data="{\"updates\": ")
    assert_error(r, 400, 1001)
    nested = "[" * 100000 + "]" * 100000
    assert_error(api.request("PUT", path, data='{"updates": {"custom-a": ' + nested + "}}"), 400,
                 1001)
    names = {s["name"] for s in ok_json(api.get(path))["statistics"]}
    assert names == RESERVED


def test_partition_statistics_over_http(api, metalake_name, catalog_name, schema_name, table):
    path = stats_path(metalake_name, f"{catalog_name}.{schema_name}.events", partitions=True)
    assert ok_json(api.get(path)) == {"code": 0, "partitionStatistics": []}
    r = api.put(path, {"updates": [
        {"partitionName": "day=2024-01-01", "statistics": {"custom-rows": 10, "custom-ok": True}},
        {"partitionName": "day=2024-01-02", "statistics": {"custom-rows": 20}},
        {"partitionName": "day=2024-01-03", "statistics": {"custom-rows": 30}},
    ]})
    assert ok_json(r) == {"code": 0}

    listed = ok_json(api.get(path))["partitionStatistics"]
    assert [p["partitionName"] for p in listed] == ["day=2024-01-01", "day=2024-01-02",
                                                     "day=2024-01-03"]
    first = {s["name"]: s for s in listed[0]["statistics"]}
    assert first["custom-rows"]["value"] == 10 and first["custom-ok"]["value"] is True
    assert first["custom-rows"]["reserved"] is False and first["custom-rows"]["modifiable"] is True
    assert_audit(first["custom-rows"]["audit"])

    def names(**params):
        return [p["partitionName"] for p in ok_json(api.get(path, params=params))["partitionStatistics"]]

    # Gravitino's defaults: the lower bound closed, the upper open.
    assert names(**{"from": "day=2024-01-01", "to": "day=2024-01-03"}) == ["day=2024-01-01",
                                                                          "day=2024-01-02"]
    assert names(**{"from": "day=2024-01-01", "to": "day=2024-01-03", "fromInclusive": "false",
                    "toInclusive": "true"}) == ["day=2024-01-02", "day=2024-01-03"]
    assert names(**{"from": "day=2024-01-02"}) == ["day=2024-01-02", "day=2024-01-03"]
    assert names(to="day=2024-01-02", toInclusive="TRUE") == ["day=2024-01-01", "day=2024-01-02"]
    assert_error(api.get(path, params={"fromInclusive": "maybe"}), 400, 1001)

    # A second update merges into the partition; a drop of every statistic removes it.
    ok_json(api.put(path, {"updates": [{"partitionName": "day=2024-01-02",
                                        "statistics": {"custom-bytes": 2048}}]}))
    second = ok_json(api.get(path, params={"from": "day=2024-01-02", "to": "day=2024-01-02",
                                           "toInclusive": "true"}))["partitionStatistics"]
    assert {s["name"]: s["value"] for s in second[0]["statistics"]} == {"custom-bytes": 2048,
                                                                        "custom-rows": 20}
    r = api.post(path, {"drops": [{"partitionName": "day=2024-01-01",
                                   "statisticNames": ["custom-rows", "custom-ok"]},
                                  {"partitionName": "day=2024-01-09",
                                   "statisticNames": ["custom-rows"]}]})
    assert ok_json(r) == {"code": 0, "dropped": True}
    assert ok_json(api.post(path, {"drops": [{"partitionName": "day=2024-01-01",
                                              "statisticNames": ["custom-rows"]}]}))["dropped"] is False
    assert names() == ["day=2024-01-02", "day=2024-01-03"]

    # Bad input: 400 (405 for a reserved name) naming the field, and nothing written.
    bad = [
        ({"updates": [{"statistics": {"custom-a": 1}}]}, 400, "partitionName"),
        ({"updates": [{"partitionName": "p", "statistics": {"rows": 1}}]}, 400, "custom-"),
        ({"updates": [{"partitionName": "p"}]}, 400, "statistics"),
        ({"updates": [{"partitionName": "p", "statistics": {}}]}, 400, "statistics"),
        ({"updates": "p"}, 400, "updates"),
        ({"updates": [{"partitionName": "p", "statistics": {"custom-a": 1}}, 7]}, 400,
         "updates[1]"),
        ({"updates": [{"partitionName": "p", "statistics": {"row_count": 1}}]}, 405, "row_count"),
    ]
    for body, status, field in bad:
        err = assert_error(api.put(path, body), status, 1001 if status == 400 else 1006)
        assert field in err["message"], (body, err)
    for body, field in (({"drops": [{"partitionName": "p"}]}, "statisticNames"),
                        ({"drops": None}, "drops"), ({"drops": [{"statisticNames": ["a"]}]},
                                                     "partitionName")):
        err = assert_error(api.post(path, body), 400, 1001)
        assert field in err["message"], (body, err)
    assert names() == ["day=2024-01-02", "day=2024-01-03"]

