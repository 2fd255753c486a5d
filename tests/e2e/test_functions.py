"""User-defined functions through the official Python client's function API (docs/functions.md):
register scalar, aggregate and table functions with overloads and implementations in SQL, Java
and Python; get, list (names and details), alter with every update type, drop; the rules that
keep a call unambiguous; and bad input as a clear 400 naming the field, over plain HTTP."""

import pytest

from gravitino import Catalog, NameIdentifier
from gravitino.api.function.function_change import FunctionChange
from gravitino.api.function.function_column import FunctionColumn
from gravitino.api.function.function_definition import FunctionDefinitions
from gravitino.api.function.function_impl import FunctionImpl
from gravitino.api.function.function_param import FunctionParams
from gravitino.api.function.function_resources import FunctionResources
from gravitino.api.function.function_type import FunctionType
from gravitino.api.function.java_impl import JavaImpl
from gravitino.api.function.python_impl import PythonImpl
from gravitino.api.function.sql_impl import SQLImpl
from gravitino.api.rel.expressions.literals.literals import Literals
from gravitino.api.rel.types.types import Types
from gravitino.exceptions.base import (
    FunctionAlreadyExistsException,
    IllegalArgumentException,
    NoSuchFunctionException,
    NoSuchSchemaException,
)
from gravitino.namespace import Namespace

from helpers import assert_audit, assert_error, ok_json, unique

SPARK = FunctionImpl.RuntimeType.SPARK
TRINO = FunctionImpl.RuntimeType.TRINO


def sql(text, runtime=SPARK):
    return SQLImpl(runtime=runtime, sql=text)


def x_int():
    return FunctionParams.of("x", Types.IntegerType.get())


@pytest.fixture
def functions(catalog, schema_name):
    return catalog.as_function_catalog()


def ident(schema, name):
    return NameIdentifier.of(schema, name)


def test_scalar_function_lifecycle(functions, schema_name):
    fid = ident(schema_name, "add_one")
    jar = FunctionResources.of(jars=["s3://udfs/add.jar"])
    registered = functions.register_function(
        fid, "adds one", FunctionType.SCALAR, True,
        [FunctionDefinitions.of(
            [x_int()], Types.IntegerType.get(),
            [sql("x + 1"),
             JavaImpl(runtime=TRINO, class_name="com.example.AddOne", resources=jar,
                      properties={"k": "v"})])])
    assert registered.name() == "add_one"
    assert registered.function_type() == FunctionType.SCALAR
    assert registered.deterministic() is True
    assert registered.comment() == "adds one"
    assert registered.audit_info().creator() == "anonymous"
    (d,) = registered.definitions()
    assert [(p.name(), p.data_type()) for p in d.parameters()] == [("x", Types.IntegerType.get())]
    assert d.return_type() == Types.IntegerType.get()
    impls = {i.runtime(): i for i in d.impls()}
    assert impls[SPARK].sql() == "x + 1"
    assert impls[TRINO].class_name() == "com.example.AddOne"
    assert impls[TRINO].resources().jars() == ["s3://udfs/add.jar"]
    assert impls[TRINO].properties() == {"k": "v"}

    with pytest.raises(FunctionAlreadyExistsException):
        functions.register_function(fid, None, FunctionType.SCALAR, False,
                                    [FunctionDefinitions.of([], Types.IntegerType.get(),
                                                            [sql("1")])])
    with pytest.raises(NoSuchSchemaException):
        functions.register_function(ident("nope", "f"), None, FunctionType.SCALAR, False,
                                    [FunctionDefinitions.of([], Types.IntegerType.get(),
                                                            [sql("1")])])

    got = functions.get_function(fid)
    assert got.comment() == "adds one" and got.definitions()[0].return_type() == Types.IntegerType.get()
    assert functions.function_exists(fid) is True
    assert functions.function_exists(ident(schema_name, "nope")) is False
    with pytest.raises(NoSuchFunctionException):
        functions.get_function(ident(schema_name, "nope"))

    assert functions.drop_function(fid) is True
    assert functions.drop_function(fid) is False
    assert functions.function_exists(fid) is False


def test_list_names_and_details(functions, schema_name):
    for name in ("b_fn", "a_fn"):
        functions.register_function(ident(schema_name, name), f"c {name}", FunctionType.SCALAR,
                                    False, [FunctionDefinitions.of([x_int()],
                                                                   Types.LongType.get(),
                                                                   [sql("x")])])
    names = functions.list_functions(Namespace.of(schema_name))
    assert [i.name() for i in names] == ["a_fn", "b_fn"]
    infos = functions.list_function_infos(Namespace.of(schema_name))
    assert [(f.name(), f.comment()) for f in infos] == [("a_fn", "c a_fn"), ("b_fn", "c b_fn")]
    assert infos[0].definitions()[0].return_type() == Types.LongType.get()


def test_aggregate_and_table_functions_in_every_language(functions, schema_name, api, fn_base):
    agg = functions.register_function(
        ident(schema_name, "my_sum"), None, FunctionType.AGGREGATE, True,
        [FunctionDefinitions.of([FunctionParams.of("v", Types.DoubleType.get())],
                                Types.DoubleType.get(),
                                [JavaImpl(runtime=SPARK, class_name="com.example.Sum")])])
    assert agg.function_type() == FunctionType.AGGREGATE

    # A table function. The 1.3.1 client cannot send a definition without a return type (its
    # encoder serializes the absent type), so it is registered over HTTP and read by the client.
    code = "def series(a, b):\n  for i in range(a, b + 1):\n    yield (i,)"
    ok_json(api.post(fn_base, {
        "name": "series", "functionType": "TABLE", "deterministic": True, "comment": "integers",
        "definitions": [{
            "parameters": [{"name": "a", "dataType": "integer"},
                           {"name": "b", "dataType": "integer"}],
            "returnColumns": [{"name": "value", "dataType": "integer", "comment": "the value"}],
            "impls": [{"language": "PYTHON", "runtime": "SPARK", "handler": "series",
                       "codeBlock": code, "resources": {"files": ["s3://udfs/series.py"]}}]}]}))
    table = functions.get_function(ident(schema_name, "series"))
    assert table.function_type() == FunctionType.TABLE and table.comment() == "integers"
    (d,) = table.definitions()
    assert d.return_type() is None
    assert [(c.name(), c.data_type(), c.comment()) for c in d.return_columns()] == [
        ("value", Types.IntegerType.get(), "the value")]
    (impl,) = d.impls()
    assert impl.language() == FunctionImpl.Language.PYTHON
    assert impl.handler() == "series" and impl.code_block() == code
    assert impl.resources().files() == ["s3://udfs/series.py"]


def test_complex_parameter_types_and_defaults(functions, schema_name):
    tags = Types.ListType.of(Types.StringType.get(), True)
    point = Types.StructType.of(
        Types.StructType.Field.not_null_field("x", Types.DoubleType.get()),
        Types.StructType.Field.nullable_field("y", Types.DoubleType.get()))
    fid = ident(schema_name, "describe")
    functions.register_function(
        fid, None, FunctionType.SCALAR, False,
        [FunctionDefinitions.of(
            [FunctionParams.of("p", point), FunctionParams.of("t", tags),
             FunctionParams.of("sep", Types.StringType.get(), "separator",
                               Literals.string_literal(","))],
            Types.StringType.get(), [sql("concat(...)")])])
    (d,) = functions.get_function(fid).definitions()
    p, t, sep = d.parameters()
    assert p.data_type().simple_string() == point.simple_string()
    assert t.data_type().simple_string() == tags.simple_string()
    assert sep.comment() == "separator"
    assert sep.default_value() == Literals.string_literal(",")

    # The same parameters address the definition, complex types included.
    altered = functions.alter_function(
        fid, FunctionChange.add_impl(d.parameters(), sql("x", TRINO)))
    assert {i.runtime() for i in altered.definitions()[0].impls()} == {SPARK, TRINO}


def test_every_update(functions, schema_name):
    fid = ident(schema_name, "over")
    one = [x_int()]
    two = [x_int(), FunctionParams.of("y", Types.StringType.get())]
    functions.register_function(fid, "first", FunctionType.SCALAR, True,
                                [FunctionDefinitions.of(one, Types.IntegerType.get(),
                                                        [sql("x")])])

    f = functions.alter_function(fid, FunctionChange.update_comment("second"))
    assert f.comment() == "second"
    assert f.audit_info().last_modifier() == "anonymous"

    f = functions.alter_function(
        fid, FunctionChange.add_definition(
            FunctionDefinitions.of(two, Types.StringType.get(), [sql("y")])))
    assert len(f.definitions()) == 2

    f = functions.alter_function(
        fid, FunctionChange.add_impl(one, JavaImpl(runtime=TRINO, class_name="com.e.X")))
    f = functions.alter_function(
        fid, FunctionChange.update_impl(one, TRINO, JavaImpl(runtime=TRINO, class_name="com.e.Y")))
    by_arity = {len(d.parameters()): d for d in f.definitions()}
    assert {i.runtime(): getattr(i, "class_name", lambda: None)()
            for i in by_arity[1].impls()}[TRINO] == "com.e.Y"

    f = functions.alter_function(fid, FunctionChange.remove_impl(one, TRINO))
    assert [i.runtime() for i in {len(d.parameters()): d for d in f.definitions()}[1].impls()] == [
        SPARK]

    f = functions.alter_function(fid, FunctionChange.remove_definition(one))
    assert [len(d.parameters()) for d in f.definitions()] == [2]

    # Several changes in one request: all of them or none.
    before = functions.get_function(fid)
    with pytest.raises(IllegalArgumentException):
        functions.alter_function(fid, FunctionChange.update_comment("lost"),
                                 FunctionChange.remove_definition(one))
    after = functions.get_function(fid)
    assert after.comment() == before.comment() == "second"


def test_rules_that_keep_calls_unambiguous(functions, schema_name):
    def register(name, defs, ftype=FunctionType.SCALAR):
        return functions.register_function(ident(schema_name, name), None, ftype, False, defs)

    i = Types.IntegerType.get()
    # Two definitions one call could match: f(x int) and f(x int, y int default 0).
    with pytest.raises(IllegalArgumentException, match="overlapping"):
        register("amb", [
            FunctionDefinitions.of([x_int()], i, [sql("x")]),
            FunctionDefinitions.of([x_int(), FunctionParams.of("y", i, None,
                                                               Literals.integer_literal(0))],
                                   i, [sql("x + y")])])
    # A required parameter after a defaulted one.
    with pytest.raises(IllegalArgumentException, match="parameter order"):
        register("order", [FunctionDefinitions.of(
            [FunctionParams.of("a", i, None, Literals.integer_literal(1)), x_int()], i,
            [sql("1")])])
    # Two implementations for one runtime.
    with pytest.raises(IllegalArgumentException, match="duplicate runtime"):
        register("dup", [FunctionDefinitions.of([x_int()], i, [sql("x"), sql("x + 0")])])
    assert functions.function_exists(ident(schema_name, "amb")) is False

    register("f", [FunctionDefinitions.of([x_int()], i, [sql("x")])])
    fid = ident(schema_name, "f")
    with pytest.raises(IllegalArgumentException, match="only definition"):
        functions.alter_function(fid, FunctionChange.remove_definition([x_int()]))
    with pytest.raises(IllegalArgumentException, match="only implementation"):
        functions.alter_function(fid, FunctionChange.remove_impl([x_int()], SPARK))
    with pytest.raises(IllegalArgumentException, match="already exists"):
        functions.alter_function(fid, FunctionChange.add_impl([x_int()], sql("x * 1")))
    with pytest.raises(IllegalArgumentException, match="no definition found"):
        functions.alter_function(fid, FunctionChange.add_impl(
            [FunctionParams.of("z", i)], sql("z", TRINO)))
    with pytest.raises(IllegalArgumentException, match="not found in the definition"):
        functions.alter_function(fid, FunctionChange.update_impl([x_int()], TRINO,
                                                                 sql("x", TRINO)))
    with pytest.raises(IllegalArgumentException, match="overlapping"):
        functions.alter_function(fid, FunctionChange.add_definition(
            FunctionDefinitions.of([FunctionParams.of("other", i)], i, [sql("other")])))
    with pytest.raises(NoSuchFunctionException):
        functions.alter_function(ident(schema_name, "nope"), FunctionChange.update_comment("c"))


def test_functions_in_model_catalogs_and_with_their_schema(client, metalake_name, api):
    name = unique("mcat")
    catalog = client.create_catalog(name=name, catalog_type=Catalog.Type.MODEL, provider=None,
                                    comment=None, properties={})
    try:
        catalog.as_schemas().create_schema("ml", None, {})
        fns = catalog.as_function_catalog()
        fns.register_function(NameIdentifier.of("ml", "score"), None, FunctionType.SCALAR, True,
                              [FunctionDefinitions.of([x_int()], Types.DoubleType.get(),
                                                      [sql("x / 10.0")])])
        assert [i.name() for i in fns.list_functions(Namespace.of("ml"))] == ["score"]
        # A schema that holds functions is not empty; with cascade its functions go with it.
        base = f"metalakes/{metalake_name}/catalogs/{name}/schemas"
        assert_error(api.delete(f"{base}/ml"), 409, 1005, "NonEmptySchemaException")
        assert ok_json(api.delete(f"{base}/ml", params={"cascade": "true"}))["dropped"] is True
        catalog.as_schemas().create_schema("ml", None, {})
        assert fns.list_functions(Namespace.of("ml")) == []
    finally:
        client.drop_catalog(name, force=True)


# ---- plain HTTP: the OpenAPI shapes, and bad input -------------------------------------------

def add_one_body(**over):
    body = {
        "name": "add_one", "functionType": "SCALAR", "deterministic": True,
        "comment": "A simple scalar function that adds one",
        "definitions": [{
            "parameters": [{"name": "x", "dataType": "integer"}],
            "returnType": "integer",
            "impls": [{"language": "SQL", "runtime": "SPARK", "sql": "x + 1"},
                      {"language": "JAVA", "runtime": "TRINO",
                       "className": "com.example.AddOneFunction",
                       "resources": {"jars": ["hdfs:///path/to/udf.jar"]}}]}]}
    body.update(over)
    return body


@pytest.fixture
def fn_base(metalake_name, catalog, schema_name):
    return f"metalakes/{metalake_name}/catalogs/{catalog.name()}/schemas/{schema_name}/functions"


def test_wire_shapes(api, fn_base, schema_name, metalake_name):
    f = ok_json(api.post(fn_base, add_one_body()))["function"]
    assert f["name"] == "add_one" and f["functionType"] == "SCALAR"
    assert f["deterministic"] is True
    d = f["definitions"][0]
    assert d["parameters"] == [{"name": "x", "dataType": "integer"}]
    assert d["returnType"] == "integer" and "returnColumns" not in d
    assert d["impls"][0] == {"language": "SQL", "runtime": "SPARK", "sql": "x + 1",
                             "resources": {"jars": [], "files": [], "archives": []},
                             "properties": {}}
    assert d["impls"][1]["resources"]["jars"] == ["hdfs:///path/to/udf.jar"]
    assert_audit(f["audit"])
    listed = ok_json(api.get(fn_base))
    assert listed["identifiers"] == [
        {"namespace": [metalake_name, fn_base.split("/")[3], schema_name], "name": "add_one"}]
    assert ok_json(api.get(fn_base, params={"details": "true"}))["functions"][0]["name"] == "add_one"
    # Lower-case type names and "agg" read as Gravitino reads them.
    g = ok_json(api.post(fn_base, add_one_body(name="agg_fn", functionType="agg")))["function"]
    assert g["functionType"] == "AGGREGATE"
    # A null comment clears it.
    u = ok_json(api.put(f"{fn_base}/add_one",
                        {"updates": [{"@type": "updateComment", "newComment": None}]}))
    assert "comment" not in u["function"]
    assert ok_json(api.delete(f"{fn_base}/add_one"))["dropped"] is True


@pytest.mark.parametrize("body, field", [
    ({"functionType": "SCALAR", "definitions": []}, "name"),
    (add_one_body(functionType="VECTOR"), "function type"),
    (add_one_body(functionType=None), "functionType"),
    (add_one_body(definitions=[]), "definitions"),
    (add_one_body(deterministic="yes"), "deterministic"),
    (add_one_body(definitions=[{"parameters": [{"name": "x", "dataType": "integer"}],
                                "impls": [{"language": "SQL", "runtime": "SPARK", "sql": "x"}]}]),
     "returnType"),
    (add_one_body(functionType="TABLE"), "returnColumns"),
    (add_one_body(definitions=[{"returnType": "integer", "returnColumns": [
        {"name": "a", "dataType": "integer"}], "impls": [
        {"language": "SQL", "runtime": "SPARK", "sql": "1"}]}]), "returnColumns"),
    (add_one_body(definitions=[{"returnType": "integer", "impls": []}]), "impls"),
    (add_one_body(definitions=[{"returnType": "integer", "impls": [
        {"language": "COBOL", "runtime": "SPARK"}]}]), "language"),
    (add_one_body(definitions=[{"returnType": "integer", "impls": [
        {"language": "SQL", "runtime": "FLINK", "sql": "1"}]}]), "runtime"),
    (add_one_body(definitions=[{"returnType": "integer", "impls": [
        {"language": "SQL", "runtime": "SPARK"}]}]), "SQL text"),
    (add_one_body(definitions=[{"returnType": "integer", "impls": [
        {"language": "JAVA", "runtime": "SPARK"}]}]), "class name"),
    (add_one_body(definitions=[{"returnType": "integer", "impls": [
        {"language": "PYTHON", "runtime": "SPARK", "codeBlock": "x"}]}]), "handler"),
    (add_one_body(definitions=[{"parameters": [{"name": "x"}], "returnType": "integer",
                                "impls": [{"language": "SQL", "runtime": "SPARK", "sql": "1"}]}]),
     "data type"),
    (add_one_body(definitions=[{"parameters": [{"name": "x", "dataType": 42}],
                                "returnType": "integer",
                                "impls": [{"language": "SQL", "runtime": "SPARK", "sql": "1"}]}]),
     "dataType"),
    (add_one_body(definitions=[{"parameters": [{"name": "x", "dataType": "integer"},
                                               {"name": "x", "dataType": "long"}],
                                "returnType": "integer",
                                "impls": [{"language": "SQL", "runtime": "SPARK", "sql": "1"}]}]),
     "duplicate parameter"),
    (add_one_body(name="../etc"), "name"),
])
def test_bad_register_bodies(api, fn_base, body, field):
    err = assert_error(api.post(fn_base, body), 400, 1001)
    assert field.lower() in err["message"].lower(), err["message"]
    assert ok_json(api.get(fn_base))["identifiers"] == []


@pytest.mark.parametrize("update, field", [
    ({"@type": "renameFunction", "newName": "x"}, "update type"),
    ({"@type": "addDefinition"}, "definition"),
    ({"@type": "removeDefinition"}, "parameters"),
    ({"@type": "addImpl", "parameters": [{"name": "x", "dataType": "integer"}]},
     "implementation"),
    ({"@type": "removeImpl", "parameters": [{"name": "x", "dataType": "integer"}]}, "runtime"),
])
def test_bad_updates(api, fn_base, update, field):
    ok_json(api.post(fn_base, add_one_body()))
    err = assert_error(api.put(f"{fn_base}/add_one", {"updates": [update]}), 400, 1001)
    assert field.lower() in err["message"].lower(), err["message"]
    assert "updates[0]" in err["message"]


def test_functions_take_tags_and_owners(api, fn_base, metalake_name, catalog, schema_name):
    from urllib.parse import quote
    ok_json(api.post(fn_base, add_one_body()))
    full = quote(f"{catalog.name()}.{schema_name}.add_one", safe="")
    objects = f"metalakes/{metalake_name}/objects/function/{full}"
    ok_json(api.post(f"metalakes/{metalake_name}/tags", {"name": "udf"}))
    assert ok_json(api.post(f"{objects}/tags", {"tagsToAdd": ["udf"]}))["names"] == ["udf"]
    assert ok_json(api.get(f"metalakes/{metalake_name}/tags/udf/objects"))["metadataObjects"] == [
        {"fullName": f"{catalog.name()}.{schema_name}.add_one", "type": "function"}]
    # A function that does not exist takes no tag.
    nope = quote(f"{catalog.name()}.{schema_name}.nope", safe="")
    assert_error(api.post(f"metalakes/{metalake_name}/objects/function/{nope}/tags",
                          {"tagsToAdd": ["udf"]}), 404, 1003)
    # Dropped, the function takes its tag associations along.
    ok_json(api.delete(f"{fn_base}/add_one"))
    assert ok_json(api.get(f"metalakes/{metalake_name}/tags/udf/objects"))["metadataObjects"] == []
