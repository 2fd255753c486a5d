"""The figures of an Iceberg table's current snapshot, as PyIceberg writes them, listed as the
table's reserved statistics on /api (docs/statistics.md): row and file counts follow every
append and delete, and users' own `custom-` statistics sit beside them."""

from __future__ import annotations

from urllib.parse import quote

import pyarrow as pa
from pyiceberg.expressions import EqualTo
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType


def ok(resp) -> dict:
    assert resp.status_code == 200, f"{resp.status_code}: {resp.text[:500]}"
    body = resp.json()
    assert body.get("code") == 0, body
    return body


def statistics(ice, ns: str, table: str) -> dict:
    full = quote(f"{ice.catalog}.{ns}.{table}", safe="")
    body = ok(ice.api_get(f"metalakes/{ice.metalake}/objects/table/{full}/statistics"))
    return {s["name"]: s for s in body["statistics"]}


def test_snapshot_figures_are_reserved_statistics(ice, catalog, ns):
    schema = Schema(NestedField(1, "id", LongType(), required=False),
                    NestedField(2, "name", StringType(), required=False))
    tbl = catalog.create_table((ns, "counted"), schema)
    empty = statistics(ice, ns, "counted")
    assert empty["row_count"]["value"] == 0 and empty["file_count"]["value"] == 0
    assert "snapshot_id" not in empty

    arrow = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])
    tbl.append(pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"]}, schema=arrow))
    tbl.append(pa.table({"id": [4, 5], "name": ["d", "e"]}, schema=arrow))
    tbl = catalog.load_table((ns, "counted"))
    got = statistics(ice, ns, "counted")
    assert got["row_count"]["value"] == 5
    assert got["file_count"]["value"] == len(tbl.inspect.files())
    assert got["total_size_bytes"]["value"] == sum(tbl.inspect.files()["file_size_in_bytes"]
                                                   .to_pylist())
    assert got["snapshot_id"]["value"] == tbl.current_snapshot().snapshot_id
    for s in got.values():
        assert s["reserved"] is True and s["modifiable"] is False, s

    # A reserved figure cannot be set by hand; a custom one sits beside the figures.
    full = quote(f"{ice.catalog}.{ns}.counted", safe="")
    path = f"metalakes/{ice.metalake}/objects/table/{full}/statistics"
    r = ice.api("PUT", path, {"updates": {"row_count": 1}})
    assert r.status_code == 405 and r.json()["type"] == "UnmodifiableStatisticException", r.text
    ok(ice.api("PUT", path, {"updates": {"custom-source": "pyiceberg"}}))

    tbl.delete(EqualTo("id", 1))
    after = statistics(ice, ns, "counted")
    assert after["row_count"]["value"] == 4
    assert after["snapshot_id"]["value"] == catalog.load_table((ns, "counted")) \
        .current_snapshot().snapshot_id
    assert after["custom-source"]["value"] == "pyiceberg"
    assert after["custom-source"]["reserved"] is False
