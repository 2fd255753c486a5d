"""Gravitino column types (as Cairn's `/api` writes them) to DataHub schema fields."""

from __future__ import annotations

import re
from typing import Any, List, Optional

from datahub.metadata.schema_classes import (
    ArrayTypeClass,
    BooleanTypeClass,
    BytesTypeClass,
    DateTypeClass,
    MapTypeClass,
    NullTypeClass,
    NumberTypeClass,
    RecordTypeClass,
    SchemaFieldClass,
    SchemaFieldDataTypeClass,
    StringTypeClass,
    TimeTypeClass,
    UnionTypeClass,
)

_NUMBERS = {"byte", "short", "integer", "long", "float", "double", "decimal"}
_STRINGS = {"string", "varchar", "char", "fixedchar", "uuid"}
_TIMES = {"time", "timestamp", "timestamp_tz", "interval_day", "interval_year"}
_BYTES = {"binary", "fixed"}


def native(t: Any) -> str:
    """The type as its native text: `long`, `decimal(10,2)`, `list<string>`,
    `struct<a:long,b:string>`, `map<string,long>`."""
    if isinstance(t, str):
        return t
    if not isinstance(t, dict):
        return "unknown"
    kind = t.get("type")
    if kind == "struct":
        return "struct<" + ",".join(f"{f.get('name')}:{native(f.get('type'))}"
                                    for f in t.get("fields") or []) + ">"
    if kind == "list":
        return f"list<{native(t.get('elementType'))}>"
    if kind == "map":
        return f"map<{native(t.get('keyType'))},{native(t.get('valueType'))}>"
    if kind == "union":
        return "union<" + ",".join(native(x) for x in t.get("types") or []) + ">"
    if kind == "unparsed":
        return str(t.get("unparsedType", "unparsed"))
    if kind == "external":
        return str(t.get("catalogString", "external"))
    return str(kind or "unknown")


def _base(text: str) -> str:
    # `decimal(10,2)` -> decimal, `timestamp(6)` -> timestamp, `integer unsigned` -> integer
    return re.split(r"[(\s]", text.strip().lower(), maxsplit=1)[0]


def datahub_type(t: Any) -> SchemaFieldDataTypeClass:
    if isinstance(t, dict):
        kind = t.get("type")
        cls: Any = {"struct": RecordTypeClass, "list": ArrayTypeClass, "map": MapTypeClass,
                    "union": UnionTypeClass}.get(kind, NullTypeClass)
        if cls is ArrayTypeClass:
            return SchemaFieldDataTypeClass(type=ArrayTypeClass(
                nestedType=[native(t.get("elementType"))]))
        if cls is MapTypeClass:
            return SchemaFieldDataTypeClass(type=MapTypeClass(
                keyType=native(t.get("keyType")), valueType=native(t.get("valueType"))))
        return SchemaFieldDataTypeClass(type=cls())
    base = _base(str(t))
    if base == "boolean":
        return SchemaFieldDataTypeClass(type=BooleanTypeClass())
    if base in _NUMBERS:
        return SchemaFieldDataTypeClass(type=NumberTypeClass())
    if base in _STRINGS:
        return SchemaFieldDataTypeClass(type=StringTypeClass())
    if base == "date":
        return SchemaFieldDataTypeClass(type=DateTypeClass())
    if base in _TIMES:
        return SchemaFieldDataTypeClass(type=TimeTypeClass())
    if base in _BYTES:
        return SchemaFieldDataTypeClass(type=BytesTypeClass())
    return SchemaFieldDataTypeClass(type=NullTypeClass())


def schema_fields(columns: List[dict], partition_columns: Optional[set] = None,
                  prefix: str = "") -> List[SchemaFieldClass]:
    """A field per column, and one per member of a struct column (`parent.child`)."""
    out: List[SchemaFieldClass] = []
    for column in columns:
        name = str(column.get("name"))
        path = f"{prefix}{name}"
        t = column.get("type")
        out.append(SchemaFieldClass(
            fieldPath=path, type=datahub_type(t), nativeDataType=native(t),
            nullable=bool(column.get("nullable", True)), description=column.get("comment"),
            isPartitioningKey=bool(partition_columns and path in partition_columns) or None))
        if isinstance(t, dict) and t.get("type") == "struct":
            members = [{"name": f.get("name"), "type": f.get("type"),
                        "nullable": f.get("nullable", True), "comment": f.get("comment")}
                       for f in t.get("fields") or []]
            out.extend(schema_fields(members, partition_columns, f"{path}."))
    return out
