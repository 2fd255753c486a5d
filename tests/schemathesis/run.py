#!/usr/bin/env python3
"""Schemathesis guard: property-based requests over Cairn's REST APIs, 0 server errors.

    tests/schemathesis/run.py [--budget SECONDS] [--max-examples N] [--seed N] [--only API]
                              [--iceberg-spec PATH] [--gravitino-spec PATH] [--lance-spec PATH]
                              [--report-dir DIR]
                              [--checks LIST] [--workers N]

Starts one `cairn serve` (CAIRN_BIN, default build/cairn) on a free 127.0.0.1 port with a fresh
data dir and the store of CAIRN_E2E_STORE (tests/harness/cairn_server.py), with authorization on
and the anonymous caller as service admin, so that the access-control routes are reached too. It
creates a metalake, a managed `lakehouse-iceberg` catalog and a `fileset` catalog, a schema in
each, a table, a view and a fileset, so that generated paths resolve to real objects most of the
time: the Iceberg prefix, the metalake and the namespace are fixed, the other path parameters
are bound to these names in 90% of the cases (schemathesis.toml dictionaries), and destructive
calls on the metalake, catalogs, schemas, tables, views and filesets address a missing name.

Then `schemathesis run` once per API description, with the check `not_a_server_error` (--checks
adds others, e.g. `response_schema_conformance` with Iceberg's own description), a fixed
seed, at most --max-examples cases per operation and phase, and a share of the wall-clock
--budget. The descriptions are Cairn's own, committed beside this file: `gravitino-api.yaml`
(the `/api` routes), `iceberg-rest.yaml` (the `/iceberg` routes) and `lance-rest.yaml` (the
Lance namespace service at `/lance/{metalake}`, over a `lakehouse-generic` catalog with a
declared table). --iceberg-spec runs another
description of the Iceberg REST protocol instead (for example Iceberg's own
`rest-catalog-open-api.yaml`, for a long run by hand; it is not shipped with Cairn).

The run fails when a check fails or the server log shows any 5xx answer; each failing request
is printed as schemathesis' curl reproduction (`st replay ID` replays it from the cassette),
every 5xx as the server's request line, and the exchanges are kept as a VCR cassette with the
server log in --report-dir (a temporary directory, kept only when the run fails). Errors of
schemathesis itself (a case it could not generate) are reported, not failed on. The server runs
in a scratch working directory, so a relative location that it accepted is written there and
reported. Exit code 0 when clean, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "harness"))

from cairn_server import Server, cairn_binary, running_cairn, store_env  # noqa: E402

GRAVITINO_HEADERS = {"Accept": "application/vnd.gravitino.v1+json",
                     "Content-Type": "application/json"}
METALAKE, ICE, FILES, SCHEMA, TABLE, VIEW, FILESET = (
    "st_lake", "st_ice", "st_files", "st_sch", "st_tbl", "st_view", "st_fs")
TAG = "st_tag"
POLICY = "st_policy"
MODELS, MODEL, ALIAS = "st_models", "st_model", "st_alias"
FUNCTION = "st_function"
KAFKA, TOPIC = "st_kafka", "st_topic"
LANCE, LANCE_TABLE = "st_lance", "st_ltbl"  # a lakehouse-generic catalog and a declared table
# The run's Kafka broker (tests/e2e/run.sh starts one); without it the topic routes meet no
# catalog of theirs.
KAFKA_BOOTSTRAP = os.environ.get("CAIRN_TEST_KAFKA_BOOTSTRAP")
SCRATCH = "st_scratch"  # a name no fixture has: destructive calls on fixtures use it
REQUEST_LINE = re.compile(r'event=request .*method=(\S+) path="([^"]*)" status=(\d+)')


def log(msg: str) -> None:
    print(f"schemathesis/run.py: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------


def ensure_fixtures(base: str, warehouse: Path, files_root: Path, lance_root: Path) -> None:
    """Creates whatever of the fixture objects is missing (a run may have dropped some)."""
    s = requests.Session()
    s.headers.update(GRAVITINO_HEADERS)
    api = f"{base}/api/metalakes"

    def post(url: str, body: dict, ok=(200, 409)) -> None:
        r = s.post(url, json=body, timeout=30)
        if r.status_code not in ok:
            raise SystemExit(f"fixture POST {url}: {r.status_code} {r.text[:300]}")

    r = s.get(f"{api}/{METALAKE}", timeout=30)
    if r.status_code == 200 and r.json()["metalake"]["properties"].get("in-use") == "false":
        s.patch(f"{api}/{METALAKE}", json={"inUse": True}, timeout=30)
    post(api, {"name": METALAKE, "comment": "schemathesis", "properties": {}})
    post(f"{api}/{METALAKE}/catalogs",
         {"name": ICE, "type": "relational", "provider": "lakehouse-iceberg", "comment": "",
          "properties": {"catalog-backend": "managed", "warehouse": str(warehouse)}})
    post(f"{api}/{METALAKE}/catalogs",
         {"name": FILES, "type": "fileset", "provider": "fileset", "comment": "",
          "properties": {"location": str(files_root)}})
    post(f"{api}/{METALAKE}/catalogs",
         {"name": MODELS, "type": "model", "comment": "", "properties": {}})
    post(f"{api}/{METALAKE}/catalogs",
         {"name": LANCE, "type": "relational", "provider": "lakehouse-generic", "comment": "",
          "properties": {"location": str(lance_root)}})
    for cat in (ICE, FILES, MODELS, LANCE):
        s.patch(f"{api}/{METALAKE}/catalogs/{cat}", json={"inUse": True}, timeout=30)
        post(f"{api}/{METALAKE}/catalogs/{cat}/schemas", {"name": SCHEMA, "properties": {}})
    post(f"{api}/{METALAKE}/catalogs/{ICE}/schemas/{SCHEMA}/tables",
         {"name": TABLE, "comment": "", "properties": {},
          "columns": [{"name": "id", "type": "long", "nullable": False},
                      {"name": "name", "type": "string", "nullable": True}]})
    post(f"{api}/{METALAKE}/catalogs/{FILES}/schemas/{SCHEMA}/filesets",
         {"name": FILESET, "type": "managed", "properties": {}})
    models = f"{api}/{METALAKE}/catalogs/{MODELS}/schemas/{SCHEMA}/models"
    post(models, {"name": MODEL, "properties": {}})
    r = s.get(f"{models}/{MODEL}/aliases/{ALIAS}", timeout=30)
    if r.status_code != 200:
        post(f"{models}/{MODEL}/versions", {"uri": "file:///tmp/st_model/0", "aliases": [ALIAS]})
    if KAFKA_BOOTSTRAP:
        post(f"{api}/{METALAKE}/catalogs",
             {"name": KAFKA, "type": "messaging", "provider": "kafka", "comment": "",
              "properties": {"bootstrap.servers": KAFKA_BOOTSTRAP}})
        s.patch(f"{api}/{METALAKE}/catalogs/{KAFKA}", json={"inUse": True}, timeout=30)
        post(f"{api}/{METALAKE}/catalogs/{KAFKA}/schemas/default/topics",
             {"name": TOPIC, "properties": {"partition-count": "1"}})
    for cat in (ICE, MODELS):
        post(f"{api}/{METALAKE}/catalogs/{cat}/schemas/{SCHEMA}/functions", {
            "name": FUNCTION, "functionType": "SCALAR", "deterministic": True,
            "definitions": [{"parameters": [{"name": "x", "dataType": "integer"}],
                             "returnType": "integer",
                             "impls": [{"language": "SQL", "runtime": "SPARK", "sql": "x"}]}]})
    post(f"{api}/{METALAKE}/tags", {"name": TAG, "comment": "schemathesis", "properties": {}})
    post(f"{api}/{METALAKE}/policies", {"name": POLICY, "policyType": "custom", "content": {
        "supportedObjectTypes": ["TABLE"], "customRules": {"days": 7}}})
    post(f"{base}/lance/{METALAKE}/v1/table/{LANCE}${SCHEMA}${LANCE_TABLE}/declare", {})
    ice = f"{base}/iceberg/v1/{METALAKE}.{ICE}"
    post(f"{ice}/namespaces/{SCHEMA}/views", {
        "name": VIEW,
        "schema": {"type": "struct", "schema-id": 0,
                   "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}]},
        "view-version": {"version-id": 1, "timestamp-ms": int(time.time() * 1000),
                         "schema-id": 0, "summary": {"engine-name": "schemathesis"},
                         "default-namespace": [SCHEMA],
                         "representations": [{"type": "sql", "sql": "SELECT 1 AS id",
                                              "dialect": "spark"}]},
        "properties": {}})


def lance_config_toml() -> str:
    """The Lance service's identifiers bound to the fixture catalog, schema and table 90% of the
    time; creates, drops, registrations and deregistrations address names no fixture has."""
    ids = {"namespace_id": [LANCE, f"{LANCE}${SCHEMA}"],
           "table_id": [f"{LANCE}${SCHEMA}${LANCE_TABLE}"]}
    out = []
    for key, values in ids.items():
        quoted = ", ".join(f'"{v}"' for v in values)
        out.append(f"[dictionaries.{key}]\nvalues = [{quoted}]\n")
    out.append("[parameters]")
    for key in ids:
        out.append(f'"path.{key}" = {{ dictionary = "{key}", probability = 0.9 }}')
    out.append("")
    scratch = {"/v1/namespace/{namespace_id}/create": ("namespace_id", f"{LANCE}${SCRATCH}"),
               "/v1/namespace/{namespace_id}/drop": ("namespace_id", f"{LANCE}${SCRATCH}"),
               "/v1/table/{table_id}/drop": ("table_id", f"{LANCE}${SCHEMA}${SCRATCH}"),
               "/v1/table/{table_id}/deregister": ("table_id", f"{LANCE}${SCHEMA}${SCRATCH}"),
               "/v1/table/{table_id}/register": ("table_id", f"{LANCE}${SCHEMA}${SCRATCH}")}
    for path, (param, ident) in scratch.items():
        out += ["[[operations]]", f'include-path = "{path}"', 'include-method = ["POST"]',
                f'parameters = {{ "path.{param}" = "{ident}" }}', ""]
    return "\n".join(out)


def config_toml(api: str) -> str:
    """schemathesis.toml: path parameters bound to the fixtures, destructive calls on the
    metalake and catalogs bound to a missing name."""
    if api == "lance":
        return lance_config_toml()
    catalogs = [ICE, FILES, MODELS] + ([KAFKA] if KAFKA_BOOTSTRAP else [])
    schemas = [SCHEMA] + (["default"] if KAFKA_BOOTSTRAP else [])
    names = {"metalake": [METALAKE], "catalog": catalogs, "schema": schemas,
             "model": [MODEL], "alias": [ALIAS], "function": [FUNCTION], "topic": [TOPIC],
             "table": [TABLE], "fileset": [FILESET], "view": [VIEW], "namespace": [SCHEMA],
             "prefix": [f"{METALAKE}.{ICE}"], "role": ["st_role"], "user": ["anonymous"],
             "group": ["st_group"], "tag": [TAG], "policy": [POLICY]}
    out = []
    for key, values in names.items():
        quoted = ", ".join(f'"{v}"' for v in values)
        out.append(f"[dictionaries.{key}]\nvalues = [{quoted}]\n")
    # The coverage phase draws path parameters of its own (boundary values) unless they are
    # fixed, and a request for a warehouse or metalake that does not exist never reaches the
    # body readers: those two are fixed, the others bound to the fixtures 90% of the time.
    fixed = {"prefix": f"{METALAKE}.{ICE}", "metalake": METALAKE, "namespace": SCHEMA}
    out.append("[parameters]")
    for key in names:
        if key in fixed:
            out.append(f'"path.{key}" = "{fixed[key]}"')
        else:
            out.append(f'"path.{key}" = {{ dictionary = "{key}", probability = 0.9 }}')
    out.append("")
    if api == "gravitino":
        destructive = [
            ("/api/metalakes/{metalake}", ["PUT", "PATCH", "DELETE"], "metalake"),
            ("/api/metalakes/{metalake}/catalogs/{catalog}", ["PUT", "PATCH", "DELETE"],
             "catalog"),
            ("/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}", ["DELETE"],
             "schema"),
            ("/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/tables/{table}",
             ["DELETE"], "table"),
            ("/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/filesets/{fileset}",
             ["DELETE"], "fileset"),
            ("/api/metalakes/{metalake}/tags/{tag}", ["PUT", "DELETE"], "tag"),
            ("/api/metalakes/{metalake}/policies/{policy}", ["PUT", "PATCH", "DELETE"], "policy"),
            ("/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/models/{model}",
             ["PUT", "DELETE"], "model"),
            ("/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/functions/"
             "{function}", ["PUT", "DELETE"], "function"),
            ("/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/topics/{topic}",
             ["PUT", "DELETE"], "topic"),
            ("/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/views/{view}",
             ["PUT", "DELETE"], "view"),
            ("/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/models/{model}/"
             "aliases/{alias}", ["PUT", "DELETE"], "alias"),
        ]
    else:
        destructive = [
            ("/v1/{prefix}/namespaces/{namespace}/tables/{table}", ["DELETE"], "table"),
            ("/v1/{prefix}/namespaces/{namespace}/views/{view}", ["DELETE"], "view"),
        ]
    if api == "gravitino" and KAFKA_BOOTSTRAP:
        # Creating topics with generated names and partition counts would fill the run's broker:
        # creates go to a catalog without topics (their bodies are still read), while listing
        # and loading use the Kafka catalog.
        out.append("[[operations]]")
        out.append('include-path = "/api/metalakes/{metalake}/catalogs/{catalog}/schemas/'
                   '{schema}/topics"')
        out.append('include-method = ["POST"]')
        out.append(f'parameters = {{ "path.catalog" = "{MODELS}" }}')
        out.append("")
    for path, methods, param in destructive:
        listed = ", ".join(f'"{m}"' for m in methods)
        out.append("[[operations]]")
        out.append(f'include-path = "{path}"')
        out.append(f"include-method = [{listed}]")
        out.append(f'parameters = {{ "path.{param}" = "{SCRATCH}" }}')
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# One schemathesis run
# ---------------------------------------------------------------------------------------------


def server_requests(srv: Server, start: int) -> tuple[list[str], int]:
    """(the 5xx request lines, the number of requests) in the server log after byte `start`."""
    text = srv.log_path.read_bytes()[start:].decode(errors="replace")
    errors, count = [], 0
    for line in text.splitlines():
        m = REQUEST_LINE.search(line)
        if not m:
            continue
        count += 1
        if m.group(3).startswith("5"):
            errors.append(line)
    return errors, count


def run_spec(api: str, spec: Path, srv: Server, args, budget: float, work: Path) -> bool:
    base = {"gravitino": srv.url, "iceberg": f"{srv.url}/iceberg",
            "lance": f"{srv.url}/lance/{METALAKE}"}[api]
    cfg = work / f"{api}.toml"
    cfg.write_text(config_toml(api))
    report = Path(args.report_dir) / api
    report.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(cfg), "run", str(spec),
           "--url", base, "--checks", args.checks, "--seed", str(args.seed),
           "--max-examples", str(args.max_examples), "--max-time", str(int(max(budget, 5))),
           "--workers", str(args.workers), "--suppress-health-check", "all",
           "--request-timeout", "30", "--no-color", "--report", "vcr",
           "--report-vcr-path", str(report / "cassette.yaml")]
    if api == "gravitino":
        cmd += ["--header", "Accept: application/vnd.gravitino.v1+json"]
    start = srv.log_path.stat().st_size
    log(f"{api}: {' '.join(cmd[2:])}")
    t0 = time.monotonic()
    out_path = report / "output.txt"
    with open(out_path, "w") as out:
        proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=work,
                              env={**os.environ, "SCHEMATHESIS_HOOKS": ""})
    elapsed = time.monotonic() - t0
    output = out_path.read_text(errors="replace")
    errors, count = server_requests(srv, start)
    shutil.copy(srv.log_path, report / "cairn.log")
    ops = re.search(r"Operations:\s+(\d+) selected", output)
    cases = re.search(r"^Test cases:\s*\n\s*(.*)$", output, re.M)
    # A check that failed is a FAILURES section; an ERRORS section alone is schemathesis itself
    # failing to generate or run a case (reported, not a finding about the server).
    failed = re.search(r"^=+ FAILURES =+$", output, re.M) is not None
    tool_errors = re.search(r"^=+ ERRORS =+$", output, re.M) is not None
    log(f"{api}: {ops.group(1) if ops else '?'} operations, schemathesis exit {proc.returncode} "
        f"after {elapsed:.0f}s; the server answered {count} requests, {len(errors)} with 5xx")
    if cases:
        log(f"{api}: test cases: {cases.group(1).strip()[:200]}")
    if tool_errors and not failed:
        log(f"{api}: note: schemathesis hit errors of its own (not server answers), see {out_path}")
    ok = not failed and not errors
    if not ok:
        start_at = output.find("FAILURES")
        print(output[max(0, start_at - 100):][:30000], flush=True)
        for line in errors[:200]:
            print(f"5xx: {line}", flush=True)
        log(f"{api}: FAILED (output {out_path}, exchanges {report / 'cassette.yaml'}, "
            f"server log {report / 'cairn.log'})")
    return ok


API_WEIGHT = {"iceberg": 1.0, "gravitino": 1.0, "lance": 0.4}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--budget", type=float, default=float(os.environ.get("CAIRN_ST_BUDGET", 240)),
                   help="wall-clock seconds for all schemathesis runs together")
    p.add_argument("--max-examples", type=int,
                   default=int(os.environ.get("CAIRN_ST_MAX_EXAMPLES", 25)))
    p.add_argument("--seed", type=int, default=int(os.environ.get("CAIRN_ST_SEED", 20261201)))
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--checks", default="not_a_server_error",
                   help="schemathesis checks (comma list), e.g. "
                        "not_a_server_error,response_schema_conformance")
    p.add_argument("--only", choices=["iceberg", "gravitino", "lance"])
    p.add_argument("--iceberg-spec", type=Path, default=HERE / "iceberg-rest.yaml")
    p.add_argument("--gravitino-spec", type=Path, default=HERE / "gravitino-api.yaml")
    p.add_argument("--lance-spec", type=Path, default=HERE / "lance-rest.yaml")
    p.add_argument("--report-dir", default=os.environ.get("CAIRN_ST_REPORT_DIR", ""))
    args = p.parse_args()
    apis = [a for a in ("iceberg", "gravitino", "lance") if args.only in (None, a)]
    specs = {"iceberg": args.iceberg_spec.resolve(), "gravitino": args.gravitino_spec.resolve(),
             "lance": args.lance_spec.resolve()}
    if args.report_dir:
        args.report_dir = str(Path(args.report_dir).resolve())
    for api in apis:
        if not specs[api].is_file():
            log(f"no API description at {specs[api]}")
            return 1
    with tempfile.TemporaryDirectory(prefix="cairn-st-") as tmp:
        work = Path(tmp)
        if not args.report_dir:
            args.report_dir = str(work / "report")
        (work / "warehouse").mkdir()
        (work / "files").mkdir()
        (work / "lance").mkdir()
        binary = cairn_binary(copy_to=work)
        # The server's working directory: a relative location in a request lands here (and is
        # reported below), never in the checkout.
        cwd = work / "cwd"
        cwd.mkdir()
        os.chdir(cwd)
        env = {"CAIRN_AUTHORIZATION_ENABLE": "true",
               "CAIRN_AUTHORIZATION_SERVICE_ADMINS": "anonymous"}
        ok = True
        with store_env("cairn_st") as store:
            with running_cairn("schemathesis", {**env, **store}, work / "data", work,
                               binary) as srv:
                log(f"cairn at {srv.url} (log {srv.log_path})")
                deadline = time.monotonic() + args.budget
                for i, api in enumerate(apis):
                    ensure_fixtures(srv.url, work / "warehouse", work / "files", work / "lance")
                    # The time left, shared by weight: the Lance description has 17 operations,
                    # the other two over a hundred each.
                    left = sum(API_WEIGHT[a] for a in apis[i:])
                    share = (deadline - time.monotonic()) * API_WEIGHT[api] / left
                    ok = run_spec(api, specs[api], srv, args, share, work) and ok
                stray = sorted(str(p.relative_to(cwd)) for p in cwd.rglob("*") if p.is_file())
                if stray:
                    log(f"note: {len(stray)} files were written relative to the server's working "
                        f"directory (a relative location was accepted), e.g. {stray[:3]}")
                if args.report_dir.startswith(str(work)) and not ok:
                    kept = tempfile.mkdtemp(prefix="cairn-st-report-")
                    shutil.copytree(args.report_dir, kept, dirs_exist_ok=True)
                    log(f"reports kept in {kept}")
        os.chdir(REPO)
    log("ok: no server errors" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
