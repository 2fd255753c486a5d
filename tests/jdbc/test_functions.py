"""Functions in a jdbc-postgresql catalog: Cairn's own rows under the governance row of a schema
of the source, so they go on a schema made by hand in PostgreSQL before anything listed it,
nothing is written to the source, and they go when the schema is dropped through Cairn."""

from __future__ import annotations

from helpers import assert_error, ok_json, unique

FUNCTION = {
    "name": "masked", "functionType": "SCALAR", "deterministic": True, "comment": "masks",
    "definitions": [{
        "parameters": [{"name": "v", "dataType": "string"}], "returnType": "string",
        "impls": [{"language": "SQL", "runtime": "TRINO", "sql": "regexp_replace(v, '.', '*')"}]}]}


def test_functions_on_a_schema_of_the_source(api, metalake, pg_catalog, pg):
    schema = unique("s")
    pg.exec(f'CREATE SCHEMA "{schema}"')
    base = f"metalakes/{metalake}/catalogs/{pg_catalog}/schemas/{schema}/functions"

    f = ok_json(api.post(base, FUNCTION))["function"]
    assert f["name"] == "masked" and f["definitions"][0]["impls"][0]["runtime"] == "TRINO"
    assert ok_json(api.get(f"{base}/masked"))["function"]["comment"] == "masks"
    assert [i["name"] for i in ok_json(api.get(base))["identifiers"]] == ["masked"]
    # Nothing reached PostgreSQL: the source has no routine of that name.
    assert pg.query("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                    f"WHERE n.nspname = '{schema}'") == [["0"]]

    # A schema the source does not hold takes no function.
    assert_error(api.post(f"metalakes/{metalake}/catalogs/{pg_catalog}/schemas/nope_{schema}"
                          "/functions", FUNCTION), 404, 1003, "NoSuchSchemaException")

    # Dropped through Cairn, the schema takes its functions along; a new one of the name has none.
    ok_json(api.delete(f"metalakes/{metalake}/catalogs/{pg_catalog}/schemas/{schema}",
                       params={"cascade": "true"}))
    pg.exec(f'CREATE SCHEMA "{schema}"')
    assert ok_json(api.get(base))["identifiers"] == []
