"""The `cairn` command-line client (docs/cli.md) against real servers: the session's server
(simple authentication, no authorization) and one of this module with the `basic` authenticator
and authorization on. Every test runs the binary under test as a user would and checks what it
prints (tables and `--output json`), what it writes to stderr and its exit code; changes made
through the CLI are checked through the Gravitino client or plain HTTP."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import requests

from gravitino import GravitinoAdminClient, NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.expressions.named_reference import NamedReference
from gravitino.api.rel.expressions.sorts.sort_orders import SortOrders
from gravitino.api.rel.expressions.transforms.transforms import Transforms
from gravitino.api.rel.types.types import Types

from cairn_server import cairn_binary, free_port, running_cairn, store_env
from helpers import CLIENT_HEADERS, unique

ADMIN, ADMIN_PASSWORD = "admin", "admin-password"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """An empty HOME, so no ~/.cairn/client.conf of the machine is read."""
    return tmp_path_factory.mktemp("cli-home")


@pytest.fixture(scope="module")
def cairn(home):
    """cairn(*args, env=None) -> CompletedProcess: the binary under test, with no CAIRN_*
    variable of this process (only those of `env`) and HOME = `home`."""
    binary = str(cairn_binary())

    def run(*args, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
        full_env["HOME"] = str(home)
        full_env.update(env or {})
        return subprocess.run([binary, *args], capture_output=True, text=True, env=full_env,
                              input=stdin, timeout=60)

    return run


@pytest.fixture
def cli(cairn, base_url, metalake_name):
    """The CLI pointed at the session's server and the test's metalake, through the environment."""

    def run(*args, env: dict | None = None):
        return cairn(*args, env={"CAIRN_SERVER": base_url, "CAIRN_METALAKE": metalake_name,
                                 **(env or {})})

    return run


@pytest.fixture(scope="module")
def basic_server(tmp_path_factory):
    """A server with CAIRN_AUTHENTICATORS=basic and authorization on; `admin` (its bootstrap
    user) is the service admin."""
    with store_env("cairn_cli") as env:
        env = {**env, "CAIRN_AUTHENTICATORS": "basic",
               "CAIRN_AUTHENTICATOR_BASIC_BOOTSTRAP_USER": ADMIN,
               "CAIRN_AUTHENTICATOR_BASIC_BOOTSTRAP_PASSWORD": ADMIN_PASSWORD,
               "CAIRN_AUTHORIZATION_ENABLE": "true",
               "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN}
        with running_cairn("cli-basic", env, tmp_path_factory.mktemp("cli-basic-data"),
                           tmp_path_factory.getbasetemp()) as srv:
            yield srv


def admin_get(server, path: str) -> dict:
    """GET /api/<path> on the basic server as the admin; the 200 answer's JSON."""
    r = requests.get(f"{server.url}/api/{path}", headers=CLIENT_HEADERS,
                     auth=(ADMIN, ADMIN_PASSWORD), timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def table_rows(stdout: str) -> list[list[str]]:
    """The rows of an aligned table (header first), cells split at runs of 2+ blanks (so an
    empty cell inside a row disappears)."""
    return [re.split(r"\s{2,}", line.strip()) for line in stdout.splitlines() if line.strip()]


def fields(stdout: str) -> dict[str, str]:
    """`Label:  value` lines as a dict."""
    out = {}
    for line in stdout.splitlines():
        if ":" in line and not line.startswith(" "):
            label, _, value = line.partition(":")
            out.setdefault(label.strip(), value.strip())
    return out


def assert_error(proc, code: int, *needles: str):
    """Exit `code`, nothing on stdout, one line on stderr holding every needle."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == "", proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for n in needles:
        assert n in lines[0], proc.stderr


# ---------------------------------------------------------------------------------------------
# Metalakes, catalogs, schemas, tables on the session's server
# ---------------------------------------------------------------------------------------------


def test_a_metalake_made_by_the_cli_is_seen_by_the_client_and_deleted_by_it(cairn, base_url):
    name = unique("climl")
    env = {"CAIRN_SERVER": base_url}
    made = cairn("metalake", "create", "--metalake", name, "--comment", "from the cli",
                 "--properties", "team=data,tier=gold", env=env)
    assert made.returncode == 0, made.stderr
    assert made.stdout == f"Metalake {name} created.\n"
    loaded = GravitinoAdminClient(uri=base_url).load_metalake(name)
    assert loaded.comment() == "from the cli"
    assert loaded.properties()["team"] == "data" and loaded.properties()["tier"] == "gold"

    listed = cairn("metalake", "list", env=env)
    assert listed.returncode == 0
    rows = table_rows(listed.stdout)
    assert rows[0] == ["NAME", "COMMENT", "IN USE"]
    assert [name, "from the cli", "true"] in rows
    as_json = json.loads(cairn("metalake", "list", "--output", "json", env=env).stdout)
    assert name in [m["name"] for m in as_json["metalakes"]]

    details = cairn("metalake", "details", "-m", name, env=env)
    assert details.returncode == 0
    assert fields(details.stdout)["Comment"] == "from the cli"
    assert ["team", "data"] in table_rows(details.stdout)

    changed = cairn("metalake", "set", "-m", name, "--property", "tier", "--value", "silver",
                    env=env)
    assert changed.returncode == 0 and changed.stdout == f"Metalake {name} updated.\n"
    assert GravitinoAdminClient(uri=base_url).load_metalake(name).properties()["tier"] == "silver"

    gone = cairn("metalake", "delete", "-m", name, "--force", env=env)
    assert gone.returncode == 0, gone.stderr
    assert gone.stdout == f"Metalake {name} deleted.\n"
    assert_error(cairn("metalake", "details", "-m", name, env=env), 3, "NoSuchMetalakeException",
                 f"Metalake {name} does not exist", "(HTTP 404)")


def test_catalog_and_schema_made_by_the_cli_are_seen_by_the_client(cli, client, tmp_path):
    cat, sch = unique("clicat"), unique("clis")
    made = cli("catalog", "create", "--name", cat, "--provider", "lakehouse-iceberg",
               "--comment", "cli catalog", "--properties", f"warehouse={tmp_path}")
    assert made.returncode == 0, made.stderr
    assert made.stdout == f"Catalog {cat} created.\n"
    loaded = client.load_catalog(cat)
    assert loaded.provider() == "lakehouse-iceberg" and loaded.comment() == "cli catalog"
    assert loaded.properties()["warehouse"] == str(tmp_path)

    rows = table_rows(cli("catalog", "list").stdout)
    assert rows[0] == ["NAME", "TYPE", "PROVIDER", "COMMENT"]
    assert [cat, "relational", "lakehouse-iceberg", "cli catalog"] in rows

    made = cli("schema", "create", "--name", f"{cat}.{sch}", "--comment", "cli schema",
               "-p", "owner=etl")
    assert made.returncode == 0, made.stderr
    assert made.stdout == f"Schema {cat}.{sch} created.\n"
    schema = loaded.as_schemas().load_schema(sch)
    assert schema.comment() == "cli schema" and schema.properties()["owner"] == "etl"
    assert table_rows(cli("schema", "list", "--name", cat).stdout) == [["NAME"], [sch]]
    as_json = json.loads(cli("schema", "details", "--name", f"{cat}.{sch}", "-o", "json").stdout)
    assert as_json["schema"]["name"] == sch and as_json["schema"]["comment"] == "cli schema"

    assert_error(cli("catalog", "create", "--name", cat, "--provider", "lakehouse-iceberg"), 6,
                 "CatalogAlreadyExistsException", f"Catalog {cat} already exists", "(HTTP 409)")

    gone = cli("schema", "delete", "--name", f"{cat}.{sch}")
    assert gone.returncode == 0 and gone.stdout == f"Schema {cat}.{sch} deleted.\n"
    assert not loaded.as_schemas().schema_exists(sch)


def test_a_table_made_by_the_client_is_described_by_the_cli(cli, tables, catalog, schema_name):
    name = unique("t")
    tables.create_table(
        NameIdentifier.of(schema_name, name),
        [Column.of("id", Types.LongType.get(), "the id", False),
         Column.of("region", Types.StringType.get()),
         Column.of("point", Types.StructType.of(
             Types.StructType.Field.not_null_field("x", Types.IntegerType.get())))],
        "orders table", {"team": "sales"},
        partitioning=[Transforms.identity("region"), Transforms.bucket(8, ["id"])],
        sort_orders=[SortOrders.ascending(NamedReference.field(["id"]))])
    full = f"{catalog.name()}.{schema_name}.{name}"

    listed = cli("table", "list", "--name", f"{catalog.name()}.{schema_name}")
    assert table_rows(listed.stdout) == [["NAME"], [name]]

    shown = cli("table", "details", "--name", full)
    assert shown.returncode == 0, shown.stderr
    rows = table_rows(shown.stdout)
    assert ["COLUMN", "TYPE", "NULLABLE", "AUTO_INCREMENT", "DEFAULT", "COMMENT"] in rows
    assert ["id", "long", "false", "false", "the id"] in rows
    assert ["region", "string", "true", "false"] in rows
    assert ["point", "struct<x: integer NOT NULL>", "true", "false"] in rows
    f = fields(shown.stdout)
    assert f["Name"] == name and f["Comment"] == "orders table"
    assert f["Partitioning"] == "identity(region), bucket(8, id)"
    assert f["Sort orders"] == "id ASC NULLS_FIRST"
    assert ["team", "sales"] in rows

    as_json = json.loads(cli("table", "details", "--name", full, "--output", "json").stdout)
    assert [c["name"] for c in as_json["table"]["columns"]] == ["id", "region", "point"]

    snaps = cli("table", "snapshots", "--name", full)
    assert snaps.returncode == 0, snaps.stderr
    assert table_rows(snaps.stdout) == [["SNAPSHOT_ID", "PARENT_ID", "SEQUENCE", "TIMESTAMP",
                                         "OPERATION", "ADDED_RECORDS", "TOTAL_RECORDS", "CURRENT"]]


def test_snapshots_of_an_iceberg_table_come_from_the_iceberg_rest_api(cli, base_url,
                                                                      metalake_name, catalog,
                                                                      schema_name):
    pa = pytest.importorskip("pyarrow")
    from pyiceberg.catalog import load_catalog
    ice = load_catalog("cli", type="rest", uri=f"{base_url}/iceberg",
                       warehouse=f"{metalake_name}.{catalog.name()}")
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64())})
    table = ice.create_table((schema_name, "events"), schema=data.schema)
    table.append(data)
    current = ice.load_table((schema_name, "events")).current_snapshot().snapshot_id

    full = f"{catalog.name()}.{schema_name}.events"
    rows = table_rows(cli("table", "snapshots", "--name", full).stdout)
    assert len(rows) == 2, rows
    # the first snapshot has no parent: that cell is blank
    assert rows[1][0] == str(current) and rows[1][-4:] == ["append", "3", "3", "*"]
    as_json = json.loads(cli("table", "snapshots", "--name", full, "-o", "json").stdout)
    assert as_json["current-snapshot-id"] == current
    assert [s["snapshot-id"] for s in as_json["snapshots"]] == [current]


def test_catalog_updates_and_connection_test(cli, client, metalake_name, tmp_path):
    cat = unique("clicat")
    tested = cli("catalog", "test", "--name", cat, "--provider", "lakehouse-iceberg",
                 "-p", f"warehouse={tmp_path}")
    assert tested.returncode == 0, tested.stderr
    assert tested.stdout == f"Connection test of catalog {cat} succeeded.\n"
    assert cat not in client.list_catalogs()  # a test creates nothing
    bad = cli("catalog", "test", "--name", cat, "--provider", "no-such-provider",
              "--type", "relational")
    assert bad.returncode == 1 and bad.stdout == "" and "no-such-provider" in bad.stderr

    assert cli("catalog", "create", "--name", cat, "--provider", "lakehouse-iceberg",
               "-p", f"warehouse={tmp_path}").returncode == 0
    assert cli("catalog", "set", "--name", cat, "-P", "k", "-V", "v").returncode == 0
    assert client.load_catalog(cat).properties()["k"] == "v"
    assert cli("catalog", "remove", "--name", cat, "-P", "k").returncode == 0
    assert "k" not in client.load_catalog(cat).properties()
    renamed = cli("catalog", "update", "--name", cat, "--rename", cat + "_2", "--comment", "new")
    assert renamed.returncode == 0 and renamed.stdout == f"Catalog {cat} updated.\n"
    assert client.load_catalog(cat + "_2").comment() == "new"
    in_use = cli("catalog", "delete", "--name", cat + "_2")
    assert_error(in_use, 6, "CatalogInUseException", "is in use", "(HTTP 409)")
    assert cli("catalog", "update", "--name", cat + "_2", "--disable").returncode == 0
    assert fields(cli("catalog", "details", "--name", cat + "_2").stdout)["In use"] == "false"
    gone = cli("catalog", "delete", "--name", cat + "_2")
    assert gone.returncode == 0 and gone.stdout == f"Catalog {cat}_2 deleted.\n", gone.stderr
    assert_error(cli("catalog", "delete", "--name", cat + "_2"), 3, f"Catalog {cat}_2 does not exist")


def test_filesets_and_their_files(cli, client, tmp_path):
    from gravitino.api.file.fileset import Fileset
    cat = unique("fcat")
    made = cli("catalog", "create", "--name", cat, "--type", "fileset",
               "-p", f"location={tmp_path}")
    assert made.returncode == 0, made.stderr
    fcat = client.load_catalog(cat)
    assert fcat.type().value[0] == "fileset" and fcat.provider() == "fileset"
    fcat.as_schemas().create_schema("s", None, {})
    fileset = fcat.as_fileset_catalog().create_fileset(
        NameIdentifier.of("s", "raw"), "raw files", Fileset.Type.MANAGED, None, {"k": "v"})
    root = Path(fileset.storage_location().removeprefix("file:"))
    (root / "part-0.csv").write_text("a,b\n1,2\n")
    (root / "day=1").mkdir()

    assert table_rows(cli("fileset", "list", "--name", f"{cat}.s").stdout) == [["NAME"], ["raw"]]
    shown = fields(cli("fileset", "details", "--name", f"{cat}.s.raw").stdout)
    assert shown["Type"] == "managed" and shown["Comment"] == "raw files"
    assert shown["Location unknown"] == fileset.storage_location()
    rows = table_rows(cli("fileset", "files", "--name", f"{cat}.s.raw").stdout)
    assert rows[0] == ["NAME", "TYPE", "SIZE", "MODIFIED", "PATH"]
    by_name = {r[0]: r for r in rows[1:]}
    assert sorted(by_name) == ["day=1", "part-0.csv"]
    assert by_name["part-0.csv"][1:3] == ["file", "8"] and by_name["day=1"][1] == "dir"
    files = json.loads(cli("fileset", "files", "--name", f"{cat}.s.raw", "-o", "json").stdout)
    assert sorted(f["name"] for f in files["files"]) == ["day=1", "part-0.csv"]


def test_models_and_their_versions(cli, client):
    cat = unique("mcat")
    assert cli("catalog", "create", "--name", cat, "--type", "model").returncode == 0
    models = client.load_catalog(cat)
    models.as_schemas().create_schema("ml", None, {})
    mc = models.as_model_catalog()
    ident = NameIdentifier.of("ml", "churn")
    mc.register_model(ident, "churn classifier", {"team": "ds"})
    mc.link_model_version(ident, "s3://models/churn/0", ["first"], "v0", {})
    mc.link_model_version(ident, "s3://models/churn/1", ["prod", "latest"], "v1", {})

    assert table_rows(cli("model", "list", "--name", f"{cat}.ml").stdout) == [["NAME"], ["churn"]]
    shown = fields(cli("model", "details", "--name", f"{cat}.ml.churn").stdout)
    assert shown["Comment"] == "churn classifier" and shown["Latest version"] == "2"
    rows = table_rows(cli("model", "versions", "--name", f"{cat}.ml.churn").stdout)
    assert rows == [["VERSION", "ALIASES", "URIS", "COMMENT"],
                    ["0", "first", "unknown=s3://models/churn/0", "v0"],
                    ["1", "prod, latest", "unknown=s3://models/churn/1", "v1"]]
    assert_error(cli("model", "details", "--name", f"{cat}.ml.nope"), 3, "NoSuchModelException")


def test_policies_are_listed_and_shown(cli, api, metalake_name):
    name = unique("retention")
    body = {"name": name, "comment": "keep 30 days", "policyType": "custom",
            "content": {"supportedObjectTypes": ["TABLE"], "customRules": {"days": 30}}}
    assert api.post(f"metalakes/{metalake_name}/policies", body).status_code == 200
    rows = table_rows(cli("policy", "list").stdout)
    assert rows[0] == ["NAME", "TYPE", "ENABLED", "COMMENT"]
    assert [name, "custom", "true", "keep 30 days"] in rows
    shown = fields(cli("policy", "details", "--name", name).stdout)
    assert shown["Type"] == "custom" and shown["Comment"] == "keep 30 days"
    assert json.loads(shown["Content"])["customRules"] == {"days": 30}
    assert_error(cli("policy", "details", "--name", "nope"), 3, "NoSuchPolicyException")


# ---------------------------------------------------------------------------------------------
# Errors and exit codes
# ---------------------------------------------------------------------------------------------


def test_an_unknown_object_exits_3_with_the_servers_message(cli, catalog, schema_name):
    assert_error(cli("table", "details", "--name", f"{catalog.name()}.{schema_name}.nope"), 3,
                 "NoSuchTableException", f"Table {catalog.name()}.{schema_name}.nope does not exist")
    assert_error(cli("catalog", "details", "--name", "missing_cat"), 3, "NoSuchCatalogException")
    assert_error(cli("tag", "delete", "--name", "never_made"), 3, "Tag never_made does not exist")


def test_names_are_sent_percent_encoded_never_spliced_into_the_path(cli, catalog, schema_name):
    # Spliced raw, this name would be the path of the schema and answer it.
    sneaky = f"{catalog.name()}/schemas/{schema_name}"
    assert_error(cli("catalog", "details", "--name", sneaky), 3, "NoSuchCatalogException",
                 f"Catalog {sneaky} does not exist")
    assert_error(cli("schema", "details", "--name", f"{catalog.name()}.{schema_name}?x=1"), 3,
                 f"Schema {catalog.name()}.{schema_name}?x=1 does not exist")


def test_a_server_that_is_down_exits_5(cairn):
    port = free_port()  # bound and closed again: nothing listens there
    proc = cairn("metalake", "list", "--server", f"http://127.0.0.1:{port}")
    assert_error(proc, 5, f"cannot reach http://127.0.0.1:{port}")


def test_usage_errors_exit_2_with_a_clear_message(cli, cairn, base_url):
    assert_error(cli("table", "details"), 2, "--name catalog.schema.table is required")
    assert_error(cli("table", "details", "--name", "only.two"), 2,
                 "--name must be catalog.schema.table, got 'only.two'")
    assert_error(cli("schema", "details", "--name", "cat..s"), 2, "--name must be catalog.schema")
    assert_error(cli("catalog", "create", "--name", "c"), 2, "--provider is required")
    assert_error(cli("catalog", "create", "--name", "c", "--provider", "lakehouse-iceberg",
                     "--properties", "novalue"), 2, "--properties expects key=value")
    assert_error(cairn("catalog", "list", "--server", base_url), 2, "no metalake")
    assert_error(cli("grant", "--role", "r"), 2, "exactly one of --to-user, --to-group")
    unknown = cli("catalog", "list", "--bogus")
    assert unknown.returncode == 2 and "--bogus" in unknown.stderr
    no_verb = cli("catalog")
    assert no_verb.returncode == 2 and "subcommand is required" in no_verb.stderr
    bad_output = cli("catalog", "list", "--output", "yaml")
    assert bad_output.returncode == 2 and "yaml" in bad_output.stderr
    helped = cli("table", "details", "--help")
    assert helped.returncode == 0 and "--name" in helped.stdout and "--server" in helped.stdout


# ---------------------------------------------------------------------------------------------
# Tags
# ---------------------------------------------------------------------------------------------


def test_tags_associated_through_the_cli_are_seen_through_the_api(cli, api, metalake_name,
                                                                  tables, catalog, schema_name):
    tname = unique("t")
    tables.create_table(NameIdentifier.of(schema_name, tname), [Column.of("id", Types.LongType.get())])
    obj = f"{catalog.name()}.{schema_name}.{tname}"
    pii, gold = unique("pii"), unique("gold")
    for tag in (pii, gold):
        made = cli("tag", "create", "--name", tag, "--comment", f"{tag} data", "-p", "level=high")
        assert made.returncode == 0 and made.stdout == f"Tag {tag} created.\n", made.stderr
    assert api.get(f"metalakes/{metalake_name}/tags/{pii}").json()["tag"]["comment"] == f"{pii} data"

    linked = cli("tag", "associate", "--object", obj, "--tag", pii, gold)
    assert linked.returncode == 0, linked.stderr
    assert linked.stdout.startswith(f"Tags of table {obj}: ")
    seen = api.get(f"metalakes/{metalake_name}/objects/table/{obj}/tags").json()["names"]
    assert sorted(seen) == sorted([pii, gold])

    rows = table_rows(cli("tag", "list", "--object", obj).stdout)
    assert rows[0] == ["NAME", "COMMENT", "INHERITED"]
    assert sorted(r[0] for r in rows[1:]) == sorted([pii, gold])
    all_tags = table_rows(cli("tag", "list").stdout)
    assert [pii, f"{pii} data", "level=high"] in all_tags

    unlinked = cli("tag", "disassociate", "--object", obj, "--tag", pii)
    assert unlinked.returncode == 0 and unlinked.stdout == f"Tags of table {obj}: {gold}\n"
    assert api.get(f"metalakes/{metalake_name}/objects/table/{obj}/tags").json()["names"] == [gold]
    # a schema named by depth: two parts
    on_schema = cli("tag", "associate", "--object", f"{catalog.name()}.{schema_name}", "-t", pii)
    assert on_schema.returncode == 0, on_schema.stderr
    schema_tags = api.get(
        f"metalakes/{metalake_name}/objects/schema/{catalog.name()}.{schema_name}/tags").json()
    assert schema_tags["names"] == [pii]


# ---------------------------------------------------------------------------------------------
# Lineage
# ---------------------------------------------------------------------------------------------


def test_lineage_upstream_and_downstream_of_a_table(cli, api, metalake_name, tables, catalog,
                                                    schema_name):
    for t in ("orders", "daily"):
        tables.create_table(NameIdentifier.of(schema_name, t), [Column.of("id", Types.LongType.get())])
    lake = f"{catalog.name()}.{schema_name}"
    job = unique("job")
    event = {"eventType": "COMPLETE", "eventTime": "2026-12-02T10:00:00Z",
             "producer": "https://example.com/cli-test", "run": {"runId": str(uuid.uuid4())},
             "job": {"namespace": "etl", "name": job},
             "inputs": [{"namespace": metalake_name, "name": f"{lake}.orders"}],
             "outputs": [{"namespace": metalake_name, "name": f"{lake}.daily"}]}
    assert api.post("lineage", event).status_code == 201
    deadline = time.time() + 10
    while True:
        up = cli("lineage", "upstream", "--name", f"{lake}.daily")
        rows = table_rows(up.stdout)
        if len(rows) == 3 or time.time() > deadline:
            break
        time.sleep(0.05)
    assert up.returncode == 0, up.stderr
    assert rows[0] == ["DEPTH", "TYPE", "SOURCE", "NAMESPACE", "NAME", "LAST_RUN"]
    assert ["-1", "job", "etl", job, "COMPLETE"] in rows
    assert ["-1", "dataset", "cairn", metalake_name, f"{lake}.orders"] in rows
    down = json.loads(cli("lineage", "downstream", "--name", f"{lake}.orders", "-o", "json").stdout)
    names = {n.get("name") for n in down["nodes"] if n["depth"] > 0}
    assert names == {job, f"{lake}.daily"}


# ---------------------------------------------------------------------------------------------
# Credentials, access control and audit on the basic server
# ---------------------------------------------------------------------------------------------


def test_a_wrong_password_exits_4(cairn, basic_server):
    env = {"CAIRN_SERVER": basic_server.url}
    assert_error(cairn("metalake", "list", "--user", ADMIN, "--password", "wrong-password",
                       env=env), 4, "UnauthorizedException", "Invalid user name or password",
                 "(HTTP 401)")
    assert_error(cairn("metalake", "list", env=env), 4, "UnauthorizedException")
    ok = cairn("metalake", "list", "--user", ADMIN, "--password", ADMIN_PASSWORD, env=env)
    assert ok.returncode == 0, ok.stderr
    assert table_rows(ok.stdout)[0] == ["NAME", "COMMENT", "IN USE"]
    # a token wins over Basic: this server does not take bearer tokens
    assert_error(cairn("metalake", "list", "--user", ADMIN, "--password", ADMIN_PASSWORD,
                       "--token", "not-a-jwt", env=env), 4, "UnauthorizedException")


def test_credentials_come_from_flags_then_environment_then_config_file(cairn, basic_server,
                                                                       tmp_path):
    conf = tmp_path / "client.conf"
    conf.write_text(f"# cairn client\nserver = {basic_server.url}\nuser = {ADMIN}\n"
                    f"password = {ADMIN_PASSWORD}\n")
    from_file = cairn("metalake", "list", "--config-file", str(conf))
    assert from_file.returncode == 0, from_file.stderr
    # the environment beats the file
    assert_error(cairn("metalake", "list", "--config-file", str(conf),
                       env={"CAIRN_PASSWORD": "wrong-password"}), 4, "Invalid user name")
    # a flag beats the environment
    flagged = cairn("metalake", "list", "--config-file", str(conf), "--password", ADMIN_PASSWORD,
                    env={"CAIRN_PASSWORD": "wrong-password"})
    assert flagged.returncode == 0, flagged.stderr
    # the server of the environment beats the file's
    down = f"http://127.0.0.1:{free_port()}"
    assert_error(cairn("metalake", "list", "--config-file", str(conf),
                       env={"CAIRN_SERVER": down}), 5, f"cannot reach {down}")
    assert_error(cairn("metalake", "list", "--config-file", str(tmp_path / "none.conf")), 2,
                 "cannot read config file")
    bad = tmp_path / "bad.conf"
    bad.write_text("colour = blue\n")
    assert_error(cairn("metalake", "list", "--config-file", str(bad)), 2, "unknown key 'colour'")


def test_the_default_config_file_is_read_from_home(cairn, basic_server, home):
    (home / ".cairn").mkdir(exist_ok=True)
    conf = home / ".cairn" / "client.conf"
    conf.write_text(f"server = {basic_server.url}\nuser = {ADMIN}\npassword = {ADMIN_PASSWORD}\n")
    try:
        listed = cairn("metalake", "list")
        assert listed.returncode == 0, listed.stderr
        assert table_rows(listed.stdout)[0] == ["NAME", "COMMENT", "IN USE"]
    finally:
        conf.unlink()


def test_roles_granted_through_the_cli(cairn, basic_server, tmp_path):
    env = {"CAIRN_SERVER": basic_server.url, "CAIRN_USER": ADMIN, "CAIRN_PASSWORD": ADMIN_PASSWORD}
    ml, cat = unique("ml"), unique("cat")
    run = lambda *a: cairn(*a, env={**env, "CAIRN_METALAKE": ml})  # noqa: E731
    assert run("metalake", "create").returncode == 0
    assert run("catalog", "create", "--name", cat, "--provider", "lakehouse-iceberg",
               "-p", f"warehouse={tmp_path}").returncode == 0
    bob, eng, analyst = unique("bob"), unique("eng"), unique("analyst")
    assert run("user", "create", "--name", bob).stdout == f"User {bob} added.\n"
    assert run("group", "create", "--name", eng).stdout == f"Group {eng} added.\n"
    assert run("role", "create", "--name", analyst).stdout == f"Role {analyst} created.\n"

    granted = run("grant", "--role", analyst, "--to-user", bob)
    assert granted.returncode == 0, granted.stderr
    assert granted.stdout == f"Granted role {analyst} to user {bob}.\n"
    assert admin_get(basic_server, f"metalakes/{ml}/users/{bob}")["user"]["roles"] == [analyst]
    assert run("grant", "--role", analyst, "--to-group", eng).returncode == 0
    assert admin_get(basic_server, f"metalakes/{ml}/groups/{eng}")["group"]["roles"] == [analyst]
    assert [bob, analyst] in table_rows(run("user", "list").stdout)

    privs = run("grant", "--role", analyst, "--privilege", "use_catalog", "select_table",
                "--object", cat)
    assert privs.returncode == 0, privs.stderr
    assert privs.stdout == f"Granted USE_CATALOG, SELECT_TABLE on catalog {cat} to role {analyst}.\n"
    objects = admin_get(basic_server, f"metalakes/{ml}/roles/{analyst}")["role"]["securableObjects"]
    assert [(o["fullName"], o["type"], sorted(p["name"].upper() for p in o["privileges"]))
            for o in objects] == [(cat, "catalog", ["SELECT_TABLE", "USE_CATALOG"])]
    shown = table_rows(run("role", "details", "--name", analyst).stdout)
    assert shown[-2] == ["TYPE", "OBJECT", "PRIVILEGES"]
    assert shown[-1][:2] == ["catalog", cat] and "select_table" in shown[-1][2].lower()

    assert run("revoke", "--role", analyst, "--privilege", "select_table", "--object",
               cat).returncode == 0
    objects = admin_get(basic_server, f"metalakes/{ml}/roles/{analyst}")["role"]["securableObjects"]
    assert [sorted(p["name"].upper() for p in o["privileges"]) for o in objects] == [["USE_CATALOG"]]
    revoked = run("revoke", "--role", analyst, "--from-user", bob)
    assert revoked.stdout == f"Revoked role {analyst} from user {bob}.\n"
    assert admin_get(basic_server, f"metalakes/{ml}/users/{bob}")["user"]["roles"] == []

    # owners
    assert fields(run("owner", "get", "--object", cat).stdout) == {"Owner": ADMIN, "Type": "user"}
    assert run("owner", "set", "--object", cat, "--owner", bob).stdout == \
        f"Owner of catalog {cat} set to user {bob}.\n"
    assert admin_get(basic_server, f"metalakes/{ml}/owners/catalog/{cat}")["owner"]["name"] == bob
    assert json.loads(run("owner", "get", "--type", "metalake", "-o", "json").stdout)["owner"] == \
        {"name": ADMIN, "type": "user"}

    # the user without a password of the basic authenticator is refused as such
    denied = cairn("catalog", "list", env={**env, "CAIRN_METALAKE": ml, "CAIRN_USER": bob})
    assert_error(denied, 4, "UnauthorizedException")

    assert run("role", "delete", "--name", analyst).stdout == f"Role {analyst} deleted.\n"
    assert_error(run("role", "details", "--name", analyst), 3, "NoSuchRoleException")
    assert run("user", "delete", "--name", bob).stdout == f"User {bob} deleted.\n"
    assert_error(run("user", "delete", "--name", bob), 3, f"User {bob} does not exist")


def test_audit_query_lists_the_records_of_a_principal(cairn, basic_server):
    env = {"CAIRN_SERVER": basic_server.url, "CAIRN_USER": ADMIN, "CAIRN_PASSWORD": ADMIN_PASSWORD}
    ml = unique("ml")
    assert cairn("metalake", "create", "--metalake", ml, env=env).returncode == 0
    records = json.loads(cairn("audit", "query", "--principal", ADMIN, "--object", ml,
                               "--limit", "5", "-o", "json", env=env).stdout)["records"]
    assert records and all(r["principal"] == ADMIN for r in records)
    assert any(r["operation"] == "POST /api/metalakes" and r["status"] == 200 for r in records)
    rows = table_rows(cairn("audit", "query", "--principal", ADMIN, "--object", ml, env=env).stdout)
    assert rows[0] == ["TIME", "PRINCIPAL", "OPERATION", "OBJECT", "OUTCOME", "STATUS"]
    assert any(r[1:] == [ADMIN, "POST /api/metalakes", ml, "success", "200"] for r in rows[1:])
