"""The kinds beyond tables in the browser: a fileset and its files, a model with versions and
aliases, a Kafka topic with its partitions; and signing in with an OAuth2 bearer token."""

from __future__ import annotations

import json
import os
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from cairn_server import cairn_binary, running_cairn, store_env
from conftest import ADMIN_PASSWORD
from sec_helpers import AUDIENCE, ISSUER, Keys, unique
from test_ui import TIMEOUT_MS, sign_in


def test_a_fileset_and_its_files(page, world, tmp_path):
    root = tmp_path / "files"
    root.mkdir()
    m = world.metalake
    cat, sch, fs = unique("fs"), "raw", "events"
    world.admin.ok("POST", f"metalakes/{m}/catalogs", {
        "name": cat, "type": "FILESET", "provider": "fileset", "comment": "",
        "properties": {"location": str(root)}})
    world.admin.ok("POST", f"metalakes/{m}/catalogs/{cat}/schemas", {"name": sch, "properties": {}})
    got = world.admin.ok("POST", f"metalakes/{m}/catalogs/{cat}/schemas/{sch}/filesets", {
        "name": fs, "comment": "click events", "type": "MANAGED", "properties": {}})["fileset"]
    location = got.get("storageLocation") or got["storageLocations"]["default"]
    base = urlparse(location).path  # file:/... or file:///...
    os.makedirs(f"{base}/2026/12", exist_ok=True)
    with open(f"{base}/2026/12/part-0.parquet", "wb") as f:
        f.write(b"x" * 1234)
    with open(f"{base}/README.txt", "w") as f:
        f.write("hello")

    sign_in(page, "admin", ADMIN_PASSWORD)
    page.goto(f"/ui/m/{m}/c/{cat}/s/{sch}/fileset/{fs}")
    expect(page.get_by_role("region", name="Details")).to_contain_text(location, timeout=TIMEOUT_MS)
    files = page.get_by_role("table", name="Files")
    expect(files.get_by_role("row").filter(has_text="README.txt")).to_contain_text("5", timeout=TIMEOUT_MS)
    files.get_by_role("button", name="2026/").click()
    files.get_by_role("button", name="12/").click()
    expect(page.get_by_role("region", name="Files")).to_contain_text("/2026/12", timeout=TIMEOUT_MS)
    expect(files.get_by_role("row").filter(has_text="part-0.parquet")).to_contain_text("1234")
    page.get_by_role("button", name="Up").click()
    expect(files.get_by_role("button", name="12/")).to_be_visible(timeout=TIMEOUT_MS)


def test_a_model_with_versions_and_aliases(page, world):
    m = world.metalake
    cat, sch, model = unique("models"), "ml", "churn"
    world.admin.ok("POST", f"metalakes/{m}/catalogs", {"name": cat, "type": "MODEL", "comment": "",
                                                      "properties": {}})
    world.admin.ok("POST", f"metalakes/{m}/catalogs/{cat}/schemas", {"name": sch, "properties": {}})
    base = f"metalakes/{m}/catalogs/{cat}/schemas/{sch}/models"
    world.admin.ok("POST", base, {"name": model, "comment": "churn classifier", "properties": {}})
    world.admin.ok("POST", f"{base}/{model}/versions", {"uri": "s3://models/churn/1",
                                                        "aliases": ["old"], "comment": "first"})
    world.admin.ok("POST", f"{base}/{model}/versions", {"uri": "s3://models/churn/2",
                                                        "aliases": ["prod", "latest"]})
    sign_in(page, "admin", ADMIN_PASSWORD)
    page.goto(f"/ui/m/{m}/c/{cat}/s/{sch}")
    page.get_by_role("list", name="models").get_by_role("link", name=model).click()
    versions = page.get_by_role("table", name="Versions")
    expect(versions.get_by_role("row")).to_have_count(3, timeout=TIMEOUT_MS)
    v1 = versions.get_by_role("row").filter(has_text="s3://models/churn/1")
    v2 = versions.get_by_role("row").filter(has_text="s3://models/churn/2")
    expect(v1).to_contain_text("old")
    expect(v1).to_contain_text("first")
    expect(v2).to_contain_text("prod")
    expect(v2).to_contain_text("latest")
    expect(page.get_by_role("region", name="Details")).to_contain_text("churn classifier")


def test_a_topic_with_its_partitions(page, world):
    bootstrap = os.environ.get("CAIRN_TEST_KAFKA_BOOTSTRAP")
    if not bootstrap:
        pytest.skip("no Kafka broker (tests/e2e/run.sh starts one unless CAIRN_TEST_KAFKA=0)")
    m = world.metalake
    cat, sch, topic = unique("kafka"), "default", unique("clicks")
    world.admin.ok("POST", f"metalakes/{m}/catalogs", {
        "name": cat, "type": "MESSAGING", "provider": "kafka", "comment": "",
        "properties": {"bootstrap.servers": bootstrap}})
    world.admin.ok("POST", f"metalakes/{m}/catalogs/{cat}/schemas/{sch}/topics", {
        "name": topic, "comment": "click stream",
        "properties": {"partition-count": "3", "replication-factor": "1"}})
    sign_in(page, "admin", ADMIN_PASSWORD)
    page.goto(f"/ui/m/{m}/c/{cat}/s/{sch}/topic/{topic}")
    facts = page.get_by_role("region", name="Details")
    expect(facts).to_contain_text("Partitions3", timeout=TIMEOUT_MS)
    expect(facts).to_contain_text("click stream")


def test_a_hive_table_with_its_partitions(page, world):
    uri = os.environ.get("CAIRN_TEST_HIVE_URI")
    if not uri:
        pytest.skip("no Hive metastore (tests/e2e/run.sh starts one unless CAIRN_TEST_HIVE=0)")
    m, cat, db = world.metalake, unique("hive"), unique("web")
    world.admin.ok("POST", f"metalakes/{m}/catalogs", {
        "name": cat, "type": "RELATIONAL", "provider": "hive", "comment": "",
        "properties": {"metastore.uris": uri}})
    base = f"metalakes/{m}/catalogs/{cat}/schemas"
    world.admin.ok("POST", base, {"name": db, "properties": {}})
    world.admin.ok("POST", f"{base}/{db}/tables", {
        "name": "visits", "columns": [{"name": "id", "type": "integer", "nullable": True},
                                      {"name": "dt", "type": "string", "nullable": True}],
        "partitioning": [{"strategy": "identity", "fieldName": ["dt"]}]})
    for day in ("2026-12-01", "2026-12-02"):
        world.admin.ok("POST", f"{base}/{db}/tables/visits/partitions", {"partitions": [
            {"type": "identity", "fieldNames": [["dt"]],
             "values": [{"type": "literal", "dataType": "string", "value": day}]}]})
    sign_in(page, "admin", ADMIN_PASSWORD)
    page.goto(f"/ui/m/{m}/c/{cat}/s/{db}/table/visits")
    parts = page.get_by_role("table", name="Partitions")
    expect(parts.get_by_role("row")).to_have_count(3, timeout=TIMEOUT_MS)
    expect(parts.get_by_role("row").filter(has_text="dt=2026-12-02")).to_contain_text("2026-12-02")
    expect(page.get_by_role("region", name="Layout")).to_contain_text("Partitioningdt")
    try:
        world.admin.delete(f"{base}/{db}", params={"cascade": "true"})
    finally:
        world.admin.delete(f"metalakes/{m}/catalogs/{cat}", params={"force": "true"})


@pytest.fixture(scope="module")
def oauth_server(tmp_path_factory):
    keys = Keys()
    jwks = tmp_path_factory.mktemp("jwks") / "jwks.json"
    jwks.write_text(json.dumps(keys.jwks()))
    binary = cairn_binary(copy_to=tmp_path_factory.mktemp("bin-oauth"))
    with store_env("cairn_ui_oauth") as store:
        env = {**store, "CAIRN_AUTHENTICATORS": "oauth2", "CAIRN_AUTHORIZATION_ENABLE": "true",
               "CAIRN_AUTHORIZATION_SERVICE_ADMINS": "admin",
               "CAIRN_AUTHENTICATOR_OAUTH2_JWKS_FILE": str(jwks),
               "CAIRN_AUTHENTICATOR_OAUTH2_ISSUER": ISSUER,
               "CAIRN_AUTHENTICATOR_OAUTH2_AUDIENCE": AUDIENCE}
        with running_cairn("ui-oauth", env, tmp_path_factory.mktemp("data-ui-oauth"),
                           tmp_path_factory.getbasetemp(), binary) as server:
            yield server, keys


def test_sign_in_with_an_oauth2_token(browser, oauth_server):
    server, keys = oauth_server
    ctx = browser.new_context(base_url=server.url)
    page = ctx.new_page()
    page.goto("/ui/")
    # Only oauth2 is configured: the form asks for a token, not a password.
    expect(page.get_by_label("Bearer token")).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.get_by_label("Password")).to_have_count(0)
    page.get_by_label("Bearer token").fill(keys.token("admin", key=keys.other))  # forged
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Wrong user name, password or token",
                                                      timeout=TIMEOUT_MS)
    page.get_by_label("Bearer token").fill(keys.token("admin"))
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_test_id("principal")).to_have_text("admin", timeout=TIMEOUT_MS)
    page.get_by_role("button", name="New metalake").click()
    name = unique("oauth_lake")
    page.get_by_role("form", name="New metalake").get_by_label("Name").fill(name)
    page.get_by_role("form", name="New metalake").get_by_role("button", name="Create").click()
    expect(page.get_by_role("main").get_by_role("link", name=name)).to_be_visible(timeout=TIMEOUT_MS)
    # The token's subject is the creator on the server.
    import requests
    r = requests.get(f"{server.url}/api/metalakes/{name}", timeout=10,
                     headers={"Authorization": f"Bearer {keys.token('admin')}"})
    assert r.status_code == 200 and r.json()["metalake"]["audit"]["creator"] == "admin"
    # An expired token ends the session on the next call.
    page.evaluate("""t => sessionStorage.setItem('cairn.session',
        JSON.stringify({user: 'admin', authorization: 'Bearer ' + t}))""", keys.token("admin", exp_in=-120))
    page.reload()
    expect(page.get_by_role("heading", name="Sign in to Cairn")).to_be_visible(timeout=TIMEOUT_MS)
    assert page.evaluate("sessionStorage.getItem('cairn.session')") is None
    ctx.close()
