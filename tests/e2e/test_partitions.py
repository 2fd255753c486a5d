"""Partition calls on tables that have no partition objects, and error messages that survive the
clients' own formatting (both Gravitino clients pass a server message through their format
function, so a stray `%` must never reach them)."""

import pytest

from gravitino import NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.partitions.partitions import Partitions
from gravitino.api.rel.types.types import Types
from gravitino.api.rel.expressions.literals.literals import Literals
from gravitino.dto.responses.error_response import ErrorResponse
from gravitino.exceptions.base import (
    IllegalArgumentException,
    NoSuchTableException,
    NotFoundException,
    UnsupportedOperationException,
)
from gravitino.exceptions.handlers.partition_error_handler import PARTITION_ERROR_HANDLER
from gravitino.exceptions.handlers.rest_error_handler import REST_ERROR_HANDLER

from helpers import assert_error, table_path


@pytest.fixture
def table(tables, schema_name):
    ident = NameIdentifier.of(schema_name, "events")
    tables.create_table(ident, [Column.of("dt", Types.StringType.get()),
                                Column.of("v", Types.LongType.get())])
    return tables.load_table(ident)


def test_every_partition_call_is_an_unsupported_operation(table):
    parts = table
    calls = {
        "list_partition_names": lambda: parts.list_partition_names(),
        "list_partitions": lambda: parts.list_partitions(),
        "get_partition": lambda: parts.get_partition("dt=2024-01-01"),
        "drop_partition": lambda: parts.drop_partition("dt=2024-01-01"),
        "add_partition": lambda: parts.add_partition(Partitions.identity(
            "dt=2024-01-02", [["dt"]], [Literals.string_literal("2024-01-02")], {})),
    }
    for what, call in calls.items():
        with pytest.raises(UnsupportedOperationException) as e:
            call()
        message = str(e.value)
        assert "does not support partition operations" in message, (what, message)
        assert "events" in message, (what, message)


def test_partition_name_is_decoded_in_the_message(table):
    with pytest.raises(UnsupportedOperationException) as e:
        table.get_partition("dt=2024-01-01")
    # The path segment went out as dt%3D2024-01-01; the message names the partition as written.
    assert "[dt=2024-01-01]" in str(e.value)
    assert "%3D" not in str(e.value)


def test_partitions_of_a_missing_table_are_not_found(api, metalake_name, catalog_name, catalog,
                                                     schema_name):
    path = table_path(metalake_name, catalog_name, schema_name, "nope") + "/partitions"
    body = assert_error(api.get(path), 404, 1003, "NoSuchTableException")
    with pytest.raises(NoSuchTableException):
        PARTITION_ERROR_HANDLER.handle(ErrorResponse.from_dict(body))


def test_wrong_method_on_partitions(api, metalake_name, catalog_name, table, schema_name):
    path = table_path(metalake_name, catalog_name, schema_name, "events") + "/partitions/p1"
    assert_error(api.put(path, {}), 405, 1006, "UnsupportedOperationException")


@pytest.mark.parametrize("segment,shown", [
    ("dt%3D2024-01-01", "dt=2024-01-01"),   # encoded '=': decoded in the message
    ("100%25done", "100%done"),             # a literal '%' in the name
    ("a%25s%25d", "a%s%d"),                 # format directives in the name
    ("bad%zz", "bad%zz"),                    # not valid percent-encoding: shown as sent
])
def test_messages_survive_the_client_formatting(api, metalake_name, segment, shown):
    resp = api.get(f"metalakes/{metalake_name}/nowhere/{segment}")
    assert resp.status_code in (400, 404), resp.text
    body = resp.json()
    # What the client does with every error: the handler raises an exception whose constructor
    # formats the message. It must raise the mapped exception, not a TypeError or ValueError.
    expected = NotFoundException if resp.status_code == 404 else IllegalArgumentException
    with pytest.raises(expected) as e:
        REST_ERROR_HANDLER.handle(ErrorResponse.from_dict(body))
    if resp.status_code == 404:
        assert shown in str(e.value), str(e.value)
