"""Gravitino's jobs API with the local executor, authorization on, and maintenance by policy
(docs/maintenance.md).

One server for the module, on the session's store, with simple authentication, authorization
(service admin `admin`), the local executor enabled and the maintenance scheduler looking every
half second. Job templates are registered and run with the Gravitino Python client as their
users would; what a job did is read from its log files and from the tables it maintained.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow as pa
import pytest
from gravitino import GravitinoClient
from gravitino.api.job.job_handle import JobHandle
from gravitino.api.job.job_template_change import JobTemplateChange, ShellTemplateUpdate
from gravitino.api.job.shell_job_template import ShellJobTemplate
from gravitino.exceptions.base import (ForbiddenException,
                                       IllegalJobTemplateOperationException, InUseException,
                                       JobTemplateAlreadyExistsException,
                                       NoSuchJobTemplateException)
from pyiceberg.catalog import load_catalog

from cairn_server import running_cairn, store_env, store_kind
from helpers import basic_auth as basic, http_as as http, iceberg_catalog_body, ok, unique, wait_job

ADMIN = "admin"
SCHEMA = pa.schema([pa.field("id", pa.int64())])


class HeaderAuth:
    """An AuthDataProvider sending one Authorization header."""

    def __init__(self, header: str):
        self.header = header

    def has_token_data(self) -> bool:
        return True

    def get_token_data(self) -> bytes:
        return self.header.encode()

    def close(self):
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = {"CAIRN_AUTHORIZATION_ENABLE": "true", "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN,
           "CAIRN_AUTHENTICATORS": "simple", "CAIRN_JOBS_LOCAL_EXECUTOR_ENABLED": "true",
           "CAIRN_JOBS_CANCEL_GRACE_MS": "2000",
           "CAIRN_MAINTENANCE_SCHEDULE_INTERVAL_MS": "500"}
    with store_env("cairn_jobs") as store:
        with running_cairn("jobs", {**store, **env}, tmp_path_factory.mktemp("jobs-data"),
                           tmp_path_factory.getbasetemp()) as srv:
            yield srv


@pytest.fixture
def metalake(server):
    name = unique("ml")
    ok(http(server, ADMIN, "POST", "metalakes", {"name": name, "properties": {}}))
    yield name
    http(server, ADMIN, "DELETE", f"metalakes/{name}?force=true")


def client_as(server, metalake: str, user: str) -> GravitinoClient:
    return GravitinoClient(uri=server.url, metalake_name=metalake,
                           auth_data_provider=HeaderAuth(basic(user)))


def add_user(server, metalake: str, user: str, grants: list[dict]) -> None:
    ok(http(server, ADMIN, "POST", f"metalakes/{metalake}/users", {"name": user}))
    if not grants:
        return
    role = unique("role")
    ok(http(server, ADMIN, "POST", f"metalakes/{metalake}/roles",
            {"name": role, "properties": {}, "securableObjects": grants}))
    ok(http(server, ADMIN, "PUT", f"metalakes/{metalake}/permissions/users/{user}/grant",
            {"roleNames": [role]}))


def privileges(*names: str) -> list[dict]:
    return [{"name": n, "condition": "ALLOW"} for n in names]


def script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / f"{unique('job')}.sh"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def job_json(server, metalake: str, job_id: str) -> dict:
    return ok(http(server, ADMIN, "GET", f"metalakes/{metalake}/jobs/runs/{job_id}"))["job"]


def test_a_shell_template_runs_with_its_placeholders_filled(server, metalake, tmp_path):
    client = client_as(server, metalake, ADMIN)
    exe = script(tmp_path, 'echo "args: $1 $2"\necho "env: $GREETING"\necho "cwd: $(pwd)"\n'
                           'echo "to stderr" >&2\n')
    client.register_job_template(
        ShellJobTemplate.builder().with_name("greet").with_comment("says hello")
        .with_executable(str(exe)).with_arguments(["{{who}}", "{{missing}}"])
        .with_environments({"GREETING": "hello {{who}}"}).build())
    got = client.get_job_template("greet")
    assert got.executable == str(exe) and got.arguments == ["{{who}}", "{{missing}}"]
    assert got.comment == "says hello"

    job = client.run_job("greet", {"who": "world"})
    assert job.job_template_name() == "greet"
    done = wait_job(client, job.job_id())
    assert done.job_status() == JobHandle.Status.SUCCEEDED
    staging = Path(job_json(server, metalake, job.job_id())["cairn.stagingDir"])
    out = (staging / "output.log").read_text()
    # A key jobConf lacks stays as written, as Gravitino leaves it.
    assert "args: world {{missing}}" in out
    assert "env: hello world" in out
    assert f"cwd: {staging}" in out
    assert (staging / "error.log").read_text().strip() == "to stderr"


def test_failure_and_cancel(server, metalake, tmp_path):
    client = client_as(server, metalake, ADMIN)
    client.register_job_template(ShellJobTemplate.builder().with_name("fails").with_executable(
        str(script(tmp_path, "exit 3\n"))).build())
    done = wait_job(client, client.run_job("fails", {}).job_id())
    assert done.job_status() == JobHandle.Status.FAILED
    assert "status 3" in job_json(server, metalake, done.job_id())["cairn.message"]

    marker = tmp_path / "still-running"
    client.register_job_template(ShellJobTemplate.builder().with_name("sleeps").with_executable(
        str(script(tmp_path, f"sleep 60\ntouch {marker}\n"))).build())
    job = client.run_job("sleeps", {})
    deadline = time.time() + 30
    while client.get_job(job.job_id()).job_status() != JobHandle.Status.STARTED:
        assert time.time() < deadline
        time.sleep(0.05)
    with pytest.raises(InUseException):
        client.delete_job_template("sleeps")
    cancelled = client.cancel_job(job.job_id())
    assert cancelled.job_status() == JobHandle.Status.CANCELLING
    assert wait_job(client, job.job_id(), 20).job_status() == JobHandle.Status.CANCELLED
    time.sleep(0.5)
    assert not marker.exists()  # the process group was ended, not left to finish
    # Cancelling what has finished answers it as it is.
    assert client.cancel_job(job.job_id()).job_status() == JobHandle.Status.CANCELLED
    assert client.delete_job_template("sleeps") is True
    assert [j.job_id() for j in client.list_jobs()] == [done.job_id()]
    assert client.delete_job_template("sleeps") is False


def test_template_names_and_changes(server, metalake, tmp_path):
    client = client_as(server, metalake, ADMIN)
    exe = str(script(tmp_path, "true\n"))
    with pytest.raises(IllegalJobTemplateOperationException):
        client.register_job_template(
            ShellJobTemplate.builder().with_name("builtin-mine").with_executable(exe).build())
    client.register_job_template(ShellJobTemplate.builder().with_name("t1").with_executable(exe)
                                 .with_arguments(["a"]).build())
    with pytest.raises(JobTemplateAlreadyExistsException):
        client.register_job_template(
            ShellJobTemplate.builder().with_name("t1").with_executable(exe).build())
    job = client.run_job("t1", {})
    wait_job(client, job.job_id())
    altered = client.alter_job_template(
        "t1", JobTemplateChange.rename("t2"), JobTemplateChange.update_comment("renamed"),
        JobTemplateChange.update_template(ShellTemplateUpdate(new_arguments=["b", "{{x}}"])))
    assert (altered.name, altered.comment, altered.arguments) == ("t2", "renamed", ["b", "{{x}}"])
    assert altered.executable == exe  # an update without it keeps it
    # The job follows its template's rename.
    assert client.get_job(job.job_id()).job_template_name() == "t2"
    with pytest.raises(NoSuchJobTemplateException):
        client.get_job_template("t1")
    with pytest.raises(IllegalJobTemplateOperationException):
        client.alter_job_template("builtin-iceberg-expire-snapshots",
                                  JobTemplateChange.update_comment("x"))
    names = [t.name for t in client.list_job_templates()]
    assert "t2" in names and "builtin-iceberg-expire-snapshots" in names


def test_remote_or_relative_executables_are_not_fetched(server, metalake):
    client = client_as(server, metalake, ADMIN)
    client.register_job_template(ShellJobTemplate.builder().with_name("remote")
                                 .with_executable("http://127.0.0.1:1/x.sh").build())
    done = wait_job(client, client.run_job("remote", {}).job_id())
    assert done.job_status() == JobHandle.Status.FAILED
    assert "fetches nothing remote" in job_json(server, metalake, done.job_id())["cairn.message"]


def test_access_follows_gravitinos_rules(server, metalake, tmp_path):
    exe = str(script(tmp_path, "true\n"))
    add_user(server, metalake, "alice", [
        {"fullName": metalake, "type": "METALAKE",
         "privileges": privileges("REGISTER_JOB_TEMPLATE", "RUN_JOB")}])
    add_user(server, metalake, "nobody", [])
    alice = client_as(server, metalake, "alice")
    nobody = client_as(server, metalake, "nobody")
    with pytest.raises(ForbiddenException):
        nobody.register_job_template(
            ShellJobTemplate.builder().with_name("n").with_executable(exe).build())
    alice.register_job_template(
        ShellJobTemplate.builder().with_name("alices").with_executable(exe).build())
    job = alice.run_job("alices", {})  # the owner of a template may run it with RUN_JOB
    wait_job(alice, job.job_id())

    # Without USE_JOB_TEMPLATE the template is invisible and cannot be run; the job too.
    assert "alices" not in [t.name for t in nobody.list_job_templates()]
    with pytest.raises(ForbiddenException):
        nobody.get_job_template("alices")
    with pytest.raises(ForbiddenException):
        nobody.run_job("alices", {})
    with pytest.raises(ForbiddenException):
        nobody.get_job(job.job_id())
    with pytest.raises(ForbiddenException):
        nobody.cancel_job(job.job_id())
    assert nobody.list_jobs() == []
    with pytest.raises(ForbiddenException):
        nobody.delete_job_template("alices")

    # USE_JOB_TEMPLATE on that template and RUN_JOB: bob runs it, and sees only his own job.
    add_user(server, metalake, "bob", [
        {"fullName": metalake, "type": "METALAKE", "privileges": privileges("RUN_JOB")},
        {"fullName": "alices", "type": "JOB_TEMPLATE",
         "privileges": privileges("USE_JOB_TEMPLATE")}])
    bob = client_as(server, metalake, "bob")
    assert "alices" in [t.name for t in bob.list_job_templates()]
    bobs = bob.run_job("alices", {})
    assert [j.job_id() for j in bob.list_jobs()] == [bobs.job_id()]
    with pytest.raises(ForbiddenException):
        bob.get_job(job.job_id())
    with pytest.raises(ForbiddenException):  # using a template is not owning it
        bob.delete_job_template("alices")
    # The metalake's owner sees every job.
    admin = client_as(server, metalake, ADMIN)
    assert {j.job_id() for j in admin.list_jobs()} == {job.job_id(), bobs.job_id()}


@pytest.fixture
def lake(server, metalake, tmp_path):
    catalog = unique("cat")
    ok(http(server, ADMIN, "POST", f"metalakes/{metalake}/catalogs",
            iceberg_catalog_body(catalog, str(tmp_path / "wh"))))
    ice = load_catalog(unique("py"), type="rest", uri=f"{server.url}/iceberg",
                       warehouse=f"{metalake}.{catalog}",
                       auth={"type": "basic", "basic": {"username": ADMIN, "password": "x"}})
    return catalog, ice


def test_built_in_jobs_need_the_right_to_modify_the_table(server, metalake, lake):
    catalog, ice = lake
    ice.create_namespace("s")
    ice.create_table("s.t", schema=SCHEMA)
    add_user(server, metalake, "reader", [
        {"fullName": metalake, "type": "METALAKE",
         "privileges": privileges("RUN_JOB", "USE_JOB_TEMPLATE")},
        {"fullName": catalog, "type": "CATALOG", "privileges": privileges("USE_CATALOG")},
        {"fullName": f"{catalog}.s", "type": "SCHEMA",
         "privileges": privileges("USE_SCHEMA", "SELECT_TABLE")}])
    reader = client_as(server, metalake, "reader")
    conf = {"catalog": catalog, "schema": "s", "table": "t"}
    with pytest.raises(ForbiddenException):
        reader.run_job("builtin-iceberg-expire-snapshots", conf)
    assert reader.list_jobs() == []


def test_a_maintenance_policy_schedules_expiry_below_its_schema(server, metalake, lake):
    catalog, ice = lake
    ice.create_namespace("sales")
    t = ice.create_table("sales.orders", schema=SCHEMA)
    for i in range(6):
        t.append(pa.table({"id": [i]}, schema=SCHEMA))
    ice.create_table("sales.empty", schema=SCHEMA)
    ok(http(server, ADMIN, "POST", f"metalakes/{metalake}/policies", {
        "name": "nightly", "policyType": "custom", "enabled": True,
        "content": {"supportedObjectTypes": ["SCHEMA", "TABLE"], "customRules": {
            "maintenance.enabled": True, "maintenance.interval": "PT1H",
            "maintenance.actions": "expire-snapshots",
            "maintenance.expire-snapshots.older-than": "PT0S",
            "maintenance.expire-snapshots.retain-last": 2}}}))
    ok(http(server, ADMIN, "POST",
            f"metalakes/{metalake}/objects/schema/{catalog}.sales/policies",
            {"policiesToAdd": ["nightly"]}))
    deadline = time.time() + 30
    while len(ice.load_table("sales.orders").snapshots()) != 2:
        assert time.time() < deadline, "the scheduler did not expire the table's snapshots"
        time.sleep(0.2)
    admin = client_as(server, metalake, ADMIN)
    jobs = admin.list_jobs("builtin-iceberg-expire-snapshots")
    assert len(jobs) == 2  # one per table below the schema, run as the policy's owner
    for j in jobs:
        assert wait_job(admin, j.job_id()).job_status() == JobHandle.Status.SUCCEEDED
    stats = ok(http(server, ADMIN, "GET",
                    f"metalakes/{metalake}/objects/table/{catalog}.sales.orders/statistics"))
    by_name = {s["name"]: s["value"] for s in stats["statistics"]}
    assert by_name["maintenance.expire-snapshots.snapshots-expired"] == 4
    assert by_name["maintenance.expire-snapshots.files-removed"] > 0
    # Each scheduled run is in the audit trail under the policy's owner, with its table.
    def runs():
        out = []
        for line in server.audit_log.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("operation") == "RUN_JOB builtin-iceberg-expire-snapshots" and \
                    rec["object"].startswith(f"{metalake}.{catalog}.sales."):
                out.append(rec)
        return out

    for _ in range(50):  # the audit trail is synced at least once a second
        if len(runs()) == 2:
            break
        time.sleep(0.1)
    audited = runs()
    assert sorted(r["object"] for r in audited) == [f"{metalake}.{catalog}.sales.empty",
                                                    f"{metalake}.{catalog}.sales.orders"]
    assert all(r["principal"] == ADMIN and r["outcome"] == "success" for r in audited), audited
    assert {r["requestId"] for r in audited} == {j.job_id() for j in jobs}
    # Due again only after the policy's interval: nothing more is queued meanwhile.
    time.sleep(1.5)
    assert len(admin.list_jobs("builtin-iceberg-expire-snapshots")) == 2
    # A disabled policy schedules nothing.
    ok(http(server, ADMIN, "PATCH", f"metalakes/{metalake}/policies/nightly", {"enable": False}))


@pytest.mark.skipif(store_kind() == "sqlite", reason="replicas share PostgreSQL or MariaDB")
def test_two_replicas_schedule_each_table_once(tmp_path_factory, tmp_path):
    """Two servers on one shared store, both scheduling every 100 ms: each table below the policy
    gets one expiry run per interval, whichever replica queued it (its id is the lease)."""
    logs = tmp_path_factory.getbasetemp()
    env = {"CAIRN_AUTHORIZATION_ENABLE": "true", "CAIRN_AUTHORIZATION_SERVICE_ADMINS": ADMIN,
           "CAIRN_AUTHENTICATORS": "simple", "CAIRN_JOBS_LOCAL_EXECUTOR_ENABLED": "true",
           "CAIRN_MAINTENANCE_SCHEDULE_INTERVAL_MS": "100"}
    with store_env("cairn_jobs_replicas") as store:
        env.update(store)
        with running_cairn("jobs-a", env, tmp_path / "a", logs) as a, \
                running_cairn("jobs-b", env, tmp_path / "b", logs) as b:
            metalake, catalog = unique("ml"), unique("cat")
            ok(http(a, ADMIN, "POST", "metalakes", {"name": metalake, "properties": {}}))
            ok(http(a, ADMIN, "POST", f"metalakes/{metalake}/catalogs",
                    iceberg_catalog_body(catalog, str(tmp_path / "wh"))))
            ice = load_catalog(unique("py"), type="rest", uri=f"{b.url}/iceberg",
                               warehouse=f"{metalake}.{catalog}",
                               auth={"type": "basic", "basic": {"username": ADMIN,
                                                                "password": "x"}})
            ice.create_namespace("s")
            tables = [ice.create_table(f"s.t{i}", schema=SCHEMA) for i in range(3)]
            for t in tables:
                for i in range(4):
                    t.append(pa.table({"id": [i]}, schema=SCHEMA))
            ok(http(b, ADMIN, "POST", f"metalakes/{metalake}/policies", {
                "name": "hourly", "policyType": "custom", "enabled": True,
                "content": {"supportedObjectTypes": ["SCHEMA", "TABLE"], "customRules": {
                    "maintenance.enabled": True, "maintenance.interval": "PT1H",
                    "maintenance.actions": "expire-snapshots",
                    "maintenance.expire-snapshots.older-than": "PT0S",
                    "maintenance.expire-snapshots.retain-last": 1}}}))
            ok(http(a, ADMIN, "POST",
                    f"metalakes/{metalake}/objects/schema/{catalog}.s/policies",
                    {"policiesToAdd": ["hourly"]}))
            deadline = time.time() + 30
            while any(len(ice.load_table(f"s.t{i}").snapshots()) != 1 for i in range(3)):
                assert time.time() < deadline, "the schedulers did not expire every table"
                time.sleep(0.2)
            time.sleep(1.0)  # both schedulers ran about ten more times
            for srv in (a, b):
                jobs = ok(http(srv, ADMIN, "GET", f"metalakes/{metalake}/jobs/runs"))["jobs"]
                expiries = [j for j in jobs
                            if j["jobTemplateName"] == "builtin-iceberg-expire-snapshots"]
                assert len(expiries) == 3, expiries
                assert {j["cairn.jobConf"]["table"] for j in expiries} == {"t0", "t1", "t2"}
                assert all(j["status"] == "succeeded" for j in expiries), expiries
