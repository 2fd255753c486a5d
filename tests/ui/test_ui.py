"""The web admin UI at /ui in Debian's Chromium: signing in, browsing to a table PyIceberg wrote,
creating what administrators create by hand, granting, a denied user, the audit log, paging, the
keyboard and axe-core's accessibility checks. Every change made through the UI is checked
through the REST API afterwards, as a client sees it."""

from __future__ import annotations

import http.client
import re
import time
from urllib.parse import urlsplit

import pytest
import requests
from playwright.sync_api import expect

from conftest import ADMIN_PASSWORD, PASSWORD, axe_violations
from sec_helpers import unique

TIMEOUT_MS = 15_000


def sign_in(page, user: str, password: str):
    page.goto("/ui/")
    expect(page.get_by_role("heading", name="Sign in to Cairn")).to_be_visible(timeout=TIMEOUT_MS)
    page.get_by_label("User name").fill(user)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_test_id("principal")).to_have_text(user, timeout=TIMEOUT_MS)


def table_url(w) -> str:
    return f"/ui/m/{w.metalake}/c/{w.catalog}/s/{w.schema}/table/{w.table}"


def test_static_files_are_served_with_a_strict_policy(world):
    base = world.url
    r = requests.get(f"{base}/ui", allow_redirects=False, timeout=10)
    assert r.status_code == 308 and r.headers["Location"] == "/ui/"
    r = requests.get(f"{base}/ui/", timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe" not in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Cache-Control"] == "no-cache"
    scripts = re.findall(r'src="(/ui/assets/[^"]+\.js)"', r.text)
    assert scripts, r.text
    js = requests.get(base + scripts[0], timeout=10)
    assert js.status_code == 200 and "javascript" in js.headers["Content-Type"]
    assert "immutable" in js.headers["Cache-Control"]
    again = requests.get(base + scripts[0], headers={"If-None-Match": js.headers["ETag"]}, timeout=10)
    assert again.status_code == 304 and again.content == b""
    # A deep link is the app's page; a missing asset or a name with a dot is not.
    deep = requests.get(f"{base}/ui/m/{world.metalake}/c/x", timeout=10)
    assert deep.status_code == 200 and deep.text == r.text
    assert requests.get(f"{base}/ui/assets/missing.js", timeout=10).status_code == 404
    assert requests.get(f"{base}/ui/..%2Fapi%2Fmetalakes", timeout=10).status_code == 404
    assert requests.post(f"{base}/ui/", timeout=10).status_code == 405
    # HEAD answers the headers alone, so the next answer on the connection reads right.
    conn = http.client.HTTPConnection(urlsplit(base).hostname, urlsplit(base).port, timeout=10)
    conn.request("HEAD", "/ui/")
    head = conn.getresponse()
    head.read()
    assert head.status == 200 and int(head.getheader("Content-Length")) == len(r.content)
    conn.request("GET", "/health/live")
    after = conn.getresponse()
    assert after.status == 200, after.read()[:200]
    after.read()
    conn.close()
    # The files carry no data: no credentials needed, and the API still wants them.
    assert requests.get(f"{base}/api/metalakes", timeout=10).status_code == 401


def test_sign_in_is_refused_with_a_wrong_password(page, world):
    page.goto("/ui/")
    page.get_by_label("User name").fill("admin")
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Wrong user name", timeout=TIMEOUT_MS)
    expect(page.get_by_test_id("principal")).to_have_count(0)


def test_browse_to_a_pyiceberg_table_and_see_columns_and_snapshots(page, world, shots):
    sign_in(page, "admin", ADMIN_PASSWORD)
    expect(page.get_by_role("link", name=world.metalake)).to_be_visible(timeout=TIMEOUT_MS)
    page.screenshot(path=str(shots / "metalakes.png"))
    page.get_by_role("link", name=world.metalake).click()
    page.get_by_role("link", name=world.catalog).click()
    expect(page.get_by_role("heading", name=f"Catalog {world.catalog}")).to_be_visible()
    page.get_by_role("link", name=world.schema, exact=True).click()
    page.get_by_role("list", name="tables").get_by_role("link", name=world.table).click()
    expect(page).to_have_url(re.compile(re.escape(table_url(world)) + "$"))

    columns = page.get_by_role("table", name="Columns")
    expect(columns.get_by_role("row")).to_have_count(4, timeout=TIMEOUT_MS)  # head + 3 columns
    for name, type_ in (("id", "long"), ("customer", "string"), ("amount", "double")):
        row = columns.get_by_role("row").filter(has_text=name)
        expect(row).to_contain_text(type_)

    history = page.get_by_role("table", name="Snapshot history")
    expect(history.get_by_role("row")).to_have_count(3, timeout=TIMEOUT_MS)  # head + 2 appends
    rows = history.get_by_role("row")
    # Newest first: the second append brought the table to 5 records.
    expect(rows.nth(1)).to_contain_text("append")
    expect(rows.nth(1)).to_contain_text("5")
    expect(rows.nth(1)).to_contain_text("current")
    expect(rows.nth(2)).to_contain_text("3")
    chart = page.get_by_test_id("snapshot-chart")
    expect(chart.locator("circle")).to_have_count(4)  # two series, two snapshots each
    expect(chart.get_by_role("img", name=re.compile(r"Records: 5 records"))).to_be_visible()
    # What the snapshot list shows is what the Iceberg REST catalog answers.
    md = world.admin.rest("GET", f"{world.metalake}.{world.catalog}",
                          f"namespaces/{world.schema}/tables/{world.table}").json()["metadata"]
    assert len(md["snapshots"]) == 2
    expect(rows.nth(1)).to_contain_text(str(md["current-snapshot-id"]))
    expect(page.get_by_test_id("owner")).to_have_text("admin (user)")
    page.screenshot(path=str(shots / "table.png"), full_page=True)
    assert page.console_errors == []


def test_create_a_catalog_and_a_tag_and_attach_it(page, world, tmp_path):
    sign_in(page, "admin", ADMIN_PASSWORD)
    page.goto(f"/ui/m/{world.metalake}")
    name = unique("made_in_ui")
    wh = tmp_path / "wh"
    wh.mkdir()
    page.get_by_role("button", name="New catalog").click()
    form = page.get_by_role("form", name="New catalog")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Comment").fill("from the browser")
    form.get_by_label("Properties").fill(f"catalog-backend=managed\nwarehouse={wh}")
    form.get_by_role("button", name="Test connection").click()
    expect(form.get_by_role("status")).to_have_text("Connection works.", timeout=TIMEOUT_MS)
    form.get_by_role("button", name="Create").click()
    expect(page.get_by_role("heading", name=f"Catalog {name}")).to_be_visible(timeout=TIMEOUT_MS)
    got = world.admin.ok("GET", f"metalakes/{world.metalake}/catalogs/{name}")["catalog"]
    assert got["provider"] == "lakehouse-iceberg" and got["comment"] == "from the browser"
    assert got["properties"]["warehouse"] == str(wh)
    # The existing catalog's connection, tested from its page.
    details = page.get_by_role("region", name="Details")
    details.get_by_role("button", name="Test connection").click()
    expect(details.get_by_role("status")).to_have_text("Connection works.", timeout=TIMEOUT_MS)
    # Edited by hand: a property set on the catalog's page is on the catalog.
    page.get_by_role("button", name="Set properties").click()
    form = page.get_by_role("form", name="Set properties")
    form.get_by_label("Properties to set").fill("team=finance")
    form.get_by_role("button", name="Set").click()
    expect(page.get_by_role("region", name="Details").get_by_role("row").filter(has_text="team")).to_contain_text(
        "finance", timeout=TIMEOUT_MS)
    got = world.admin.ok("GET", f"metalakes/{world.metalake}/catalogs/{name}")["catalog"]
    assert got["properties"]["team"] == "finance"

    # A connection that does not work says so, with the server's reason.
    page.goto(f"/ui/m/{world.metalake}")
    page.get_by_role("button", name="New catalog").click()
    form = page.get_by_role("form", name="New catalog")
    form.get_by_label("Name").fill(unique("nowhere"))
    form.get_by_label("Provider").select_option("jdbc-postgresql")
    form.get_by_label("Properties").fill(
        "jdbc-url=jdbc:postgresql://127.0.0.1:1/db\njdbc-user=u\njdbc-password=p\n"
        "jdbc-driver=org.postgresql.Driver\njdbc-database=db")
    form.get_by_role("button", name="Test connection").click()
    expect(form.get_by_role("alert")).to_be_visible(timeout=TIMEOUT_MS)
    expect(form.get_by_role("status")).to_have_count(0)

    # A bad catalog is refused with the server's own message, and nothing is created.
    page.goto(f"/ui/m/{world.metalake}")
    page.get_by_role("button", name="New catalog").click()
    form = page.get_by_role("form", name="New catalog")
    form.get_by_label("Name").fill("../escape")
    form.get_by_role("button", name="Create").click()
    expect(form.get_by_role("alert")).to_contain_text("400", timeout=TIMEOUT_MS)
    assert world.admin.get(f"metalakes/{world.metalake}/catalogs").json()["identifiers"].__len__() >= 2
    names = [i["name"] for i in world.admin.ok("GET", f"metalakes/{world.metalake}/catalogs")["identifiers"]]
    assert "../escape" not in names

    tag = unique("pii")
    page.goto(f"/ui/m/{world.metalake}/tags")
    page.get_by_role("button", name="New tag").click()
    form = page.get_by_role("form", name="New tag")
    form.get_by_label("Name").fill(tag)
    form.get_by_label("Comment").fill("personal data")
    form.get_by_label("Properties").fill("level=high")
    form.get_by_role("button", name="Create").click()
    expect(page.get_by_role("table", name="Tags").get_by_role("link", name=tag)).to_be_visible(timeout=TIMEOUT_MS)
    got = world.admin.ok("GET", f"metalakes/{world.metalake}/tags/{tag}")["tag"]
    assert got["comment"] == "personal data" and got["properties"] == {"level": "high"}

    page.goto(table_url(world))
    page.get_by_role("button", name="Attach tag").click()
    form = page.get_by_role("form", name="Attach a tag")
    form.get_by_label("Tag").select_option(tag)
    form.get_by_role("button", name="Attach").click()
    chips = page.get_by_role("list", name="Tags of this object")
    expect(chips.get_by_role("link", name=tag)).to_be_visible(timeout=TIMEOUT_MS)
    full = f"{world.catalog}.{world.schema}.{world.table}"
    tags = world.admin.ok("GET", f"metalakes/{world.metalake}/objects/table/{full}/tags")["names"]
    assert tag in tags
    # The tag's page lists the table, and leads back to it.
    page.goto(f"/ui/m/{world.metalake}/tags/{tag}")
    page.get_by_role("list", name="Tagged objects").get_by_role("link", name=full).click()
    expect(page).to_have_url(re.compile(re.escape(table_url(world)) + "$"))
    assert page.console_errors == []


def test_grant_a_role_then_a_granted_and_a_denied_user(browser, page, world, shots):
    sign_in(page, "admin", ADMIN_PASSWORD)
    page.goto(f"/ui/m/{world.metalake}/access")
    page.get_by_role("button", name="Add user").click()
    form = page.get_by_role("form", name="Add a user")
    form.get_by_label("User name").fill("alice")
    form.get_by_role("button", name="Add").click()
    expect(page.get_by_role("table", name="Users").get_by_role("cell", name="alice", exact=True)).to_be_visible(timeout=TIMEOUT_MS)

    role = unique("readers")
    page.get_by_role("button", name="New role").click()
    form = page.get_by_role("form", name="New role")
    form.get_by_label("Role name").fill(role)
    form.get_by_label("Object type").select_option("catalog")
    form.get_by_label("Object full name").fill(world.catalog)
    for p in ("USE_CATALOG", "USE_SCHEMA", "SELECT_TABLE"):
        form.get_by_label(p, exact=True).check()
    form.get_by_role("button", name="Create").click()
    expect(page.get_by_role("list", name="Roles").get_by_role("button", name=role)).to_be_visible(timeout=TIMEOUT_MS)

    page.get_by_role("button", name="Grant role").click()
    form = page.get_by_role("form", name="Grant a role")
    form.get_by_label("Name").fill("alice")
    form.get_by_label("Role").select_option(role)
    form.get_by_role("button", name="Grant").click()
    users = page.get_by_role("table", name="Users")
    expect(users.get_by_role("row").filter(has_text="alice")).to_contain_text(role, timeout=TIMEOUT_MS)
    page.screenshot(path=str(shots / "access.png"), full_page=True)
    got = world.admin.ok("GET", f"metalakes/{world.metalake}/users/alice")["user"]
    assert role in got["roles"]
    securable = world.admin.ok("GET", f"metalakes/{world.metalake}/roles/{role}")["role"]["securableObjects"]
    assert {p["name"].upper() for p in securable[0]["privileges"]} == {"USE_CATALOG", "USE_SCHEMA",
                                                                       "SELECT_TABLE"}

    # alice sees the table through the role.
    ctx = browser.new_context(base_url=world.url)
    alice = ctx.new_page()
    sign_in(alice, "alice", PASSWORD)
    alice.goto(table_url(world))
    expect(alice.get_by_role("table", name="Columns").get_by_role("row")).to_have_count(4, timeout=TIMEOUT_MS)

    # Revoked on the access page, the role no longer reaches her: the page says so on reload.
    page.get_by_role("button", name=f"Revoke role {role} from alice").click()
    expect(users.get_by_role("row").filter(has_text="alice")).not_to_contain_text(role, timeout=TIMEOUT_MS)
    assert role not in world.admin.ok("GET", f"metalakes/{world.metalake}/users/alice")["user"]["roles"]
    deadline = time.time() + 10  # a cached grant lives a few seconds at most (docs/security.md)
    while time.time() < deadline and world.alice.get(
            f"metalakes/{world.metalake}/catalogs/{world.catalog}/schemas/{world.schema}/tables/{world.table}").status_code != 403:
        time.sleep(0.2)
    alice.reload()
    expect(alice.get_by_role("alert").first).to_contain_text("403", timeout=TIMEOUT_MS)
    expect(alice.get_by_role("table", name="Columns")).to_have_count(0)
    ctx.close()

    # mallory, with no role, sees neither the catalog's schemas nor the table.
    ctx = browser.new_context(base_url=world.url)
    mallory = ctx.new_page()
    sign_in(mallory, "mallory", PASSWORD)
    mallory.goto(table_url(world))
    expect(mallory.get_by_role("alert").first).to_contain_text("403", timeout=TIMEOUT_MS)
    expect(mallory.get_by_role("table", name="Columns")).to_have_count(0)
    expect(mallory.get_by_role("table", name="Snapshot history")).to_have_count(0)
    tree = mallory.get_by_role("tree")
    expect(tree.or_(mallory.get_by_text("No metalakes yet."))).to_be_visible(timeout=TIMEOUT_MS)
    expect(mallory.get_by_role("treeitem", name=world.table)).to_have_count(0)
    # Her calls were refused by the server, not hidden by the page.
    r = world.mallory.get(f"metalakes/{world.metalake}/catalogs/{world.catalog}/schemas/"
                          f"{world.schema}/tables/{world.table}")
    assert r.status_code == 403
    ctx.close()


def test_audit_log_shows_what_was_just_done(page, world, shots):
    # Something to find: a tag made now, and a denied read.
    tag = unique("audited")
    world.admin.ok("POST", f"metalakes/{world.metalake}/tags", {"name": tag, "properties": {}})
    assert world.mallory.get(f"metalakes/{world.metalake}/tags/{tag}").status_code == 403
    sign_in(page, "admin", ADMIN_PASSWORD)
    page.goto("/ui/audit")
    page.get_by_label("Principal").fill("admin")
    page.get_by_label("Object starts with").fill(f"{world.metalake}.{tag}")
    page.get_by_label("Operation contains").fill("tags")
    page.get_by_role("button", name="Filter").click()
    records = page.get_by_role("table", name="Audit records")
    row = records.get_by_role("row").filter(has_text="POST /api/metalakes/{metalake}/tags")
    expect(row).to_have_count(1, timeout=TIMEOUT_MS)
    expect(row).to_contain_text("success")
    expect(page).to_have_url(re.compile(r"/ui/audit\?principal=admin"))
    page.get_by_label("Principal").fill("mallory")
    page.get_by_label("Operation contains").fill("")
    page.get_by_label("Outcome").select_option("denied")
    page.get_by_role("button", name="Filter").click()
    denied = records.get_by_role("row").filter(has_text=f"{world.metalake}.{tag}")
    expect(denied.first).to_contain_text("403", timeout=TIMEOUT_MS)
    expect(records.get_by_role("row").filter(has_text="success")).to_have_count(0)
    page.screenshot(path=str(shots / "audit.png"), full_page=True)
    # A time range: from tomorrow on there is nothing yet; up to a minute from now, the denial.
    page.get_by_label("From").fill(time.strftime("%Y-%m-%dT%H:%M", time.localtime(time.time() + 86400)))
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"from=\d+"), timeout=TIMEOUT_MS)
    expect(records.get_by_role("row")).to_have_count(1, timeout=TIMEOUT_MS)  # the header alone
    page.get_by_label("From").fill("")
    page.get_by_label("To").fill(time.strftime("%Y-%m-%dT%H:%M", time.localtime(time.time() + 60)))
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"to=\d+"), timeout=TIMEOUT_MS)
    expect(denied.first).to_contain_text("403", timeout=TIMEOUT_MS)
    # The same records through the API.
    api = world.admin.ok("GET", "audit", params={"principal": "mallory", "outcome": "denied",
                                                 "object": f"{world.metalake}.{tag}"})["records"]
    assert api and all(r["status"] == 403 for r in api)


def test_a_denied_user_cannot_read_the_audit_log(page, world):
    sign_in(page, "mallory", PASSWORD)
    page.goto("/ui/audit")
    expect(page.get_by_role("alert")).to_contain_text("403", timeout=TIMEOUT_MS)
    expect(page.get_by_role("table", name="Audit records")).to_have_count(0)


def test_long_lists_are_paged_and_searched_on_the_server(page, world):
    schema = unique("bulk")
    base = f"metalakes/{world.metalake}/catalogs/{world.catalog}/schemas"
    world.admin.ok("POST", base, {"name": schema, "properties": {}})
    body = lambda n: {"name": n, "columns": [{"name": "id", "type": "long", "nullable": True}],
                      "properties": {}}
    for i in range(120):
        world.admin.ok("POST", f"{base}/{schema}/tables", body(f"t{i:03d}"))
    sign_in(page, "admin", ADMIN_PASSWORD)
    seen_urls: list[str] = []
    page.on("request", lambda r: seen_urls.append(r.url) if "/tables?" in r.url else None)
    page.goto(f"/ui/m/{world.metalake}/c/{world.catalog}/s/{schema}")
    names = page.get_by_role("list", name="tables")
    expect(names.get_by_role("listitem")).to_have_count(50, timeout=TIMEOUT_MS)
    expect(names.get_by_role("link").first).to_have_text("t000")
    page.get_by_role("navigation", name="Pages of tables").get_by_role("button", name="Next page").click()
    expect(names.get_by_role("link").first).to_have_text("t050", timeout=TIMEOUT_MS)
    page.get_by_label("Search tables").fill("t11")
    expect(names.get_by_role("listitem")).to_have_count(10, timeout=TIMEOUT_MS)  # t110..t119
    assert any("pageSize=50" in u for u in seen_urls)
    assert any("nameContains=t11" in u for u in seen_urls)
    # The same pages through the API, as any client may ask for them.
    first = world.admin.ok("GET", f"{base}/{schema}/tables", params={"pageSize": "50"})
    assert [i["name"] for i in first["identifiers"]][-1] == "t049" and first["nextPageToken"] == "t049"
    last = world.admin.ok("GET", f"{base}/{schema}/tables", params={"pageSize": "50", "pageToken": "t099"})
    assert len(last["identifiers"]) == 20 and "nextPageToken" not in last
    bad = world.admin.get(f"{base}/{schema}/tables", params={"pageSize": "0"})
    assert bad.status_code == 400 and "pageSize" in bad.json()["message"]
    whole = world.admin.ok("GET", f"{base}/{schema}/tables")
    assert len(whole["identifiers"]) == 120 and "nextPageToken" not in whole


FOCUSED = "document.activeElement.querySelector('.label')?.textContent ?? ''"


def test_the_tree_works_from_the_keyboard(page, world):
    sign_in(page, "admin", ADMIN_PASSWORD)
    tree = page.get_by_role("tree")
    first = tree.get_by_role("treeitem", name=world.metalake)
    expect(first).to_be_visible(timeout=TIMEOUT_MS)
    first.focus()
    # Move to our metalake with the arrows (others may come first), open it, go to the catalog.
    for _ in range(50):
        if page.evaluate(FOCUSED) == world.metalake:
            break
        page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.getAttribute('role')") == "treeitem"
    expect(first).to_have_attribute("aria-expanded", "false")
    page.keyboard.press("ArrowRight")
    expect(first).to_have_attribute("aria-expanded", "true")
    catalog = first.get_by_role("treeitem", name=world.catalog)
    expect(catalog).to_be_visible(timeout=TIMEOUT_MS)
    page.keyboard.press("ArrowRight")  # into the first child
    for _ in range(20):
        if page.evaluate(FOCUSED) == world.catalog:
            break
        page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    schema = catalog.get_by_role("treeitem", name=world.schema)
    expect(schema).to_be_visible(timeout=TIMEOUT_MS)
    for _ in range(20):
        page.keyboard.press("ArrowDown")
        if page.evaluate(FOCUSED) == world.schema:
            break
    assert page.evaluate(FOCUSED) == world.schema
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=f"Schema {world.schema}")).to_be_visible(timeout=TIMEOUT_MS)
    page.keyboard.press("ArrowLeft")  # to the catalog
    page.keyboard.press("ArrowLeft")  # closes it
    expect(catalog).to_have_attribute("aria-expanded", "false")
    # One tab stop: only the focused item is in the tab order.
    assert page.evaluate("document.querySelectorAll('[role=treeitem][tabindex=\"0\"]').length") == 1


def test_the_content_security_policy_holds_in_the_browser(page, world):
    page.goto("/ui/")
    expect(page.get_by_role("heading", name="Sign in to Cairn")).to_be_visible(timeout=TIMEOUT_MS)
    with pytest.raises(Exception, match="Content Security Policy"):
        page.add_script_tag(content="window.injected = 1")
    assert page.evaluate("window.injected") is None


@pytest.mark.parametrize("where", ["signin", "metalakes", "table", "access", "audit", "lineage"])
def test_pages_pass_accessibility_checks(browser, world, where):
    # axe-core is injected as a script, which the server's policy refuses; this context lets it.
    context = browser.new_context(viewport={"width": 1360, "height": 900}, base_url=world.url,
                                  bypass_csp=True)
    page = context.new_page()
    if where == "signin":
        page.goto("/ui/")
        expect(page.get_by_role("heading", name="Sign in to Cairn")).to_be_visible(timeout=TIMEOUT_MS)
    else:
        sign_in(page, "admin", ADMIN_PASSWORD)
        path = {"metalakes": "/ui/", "table": table_url(world),
                "access": f"/ui/m/{world.metalake}/access", "audit": "/ui/audit",
                "lineage": f"/ui/m/{world.metalake}/lineage"}[where]
        page.goto(path)
        expect(page.get_by_role("main").get_by_role("heading").first).to_be_visible(timeout=TIMEOUT_MS)
        page.wait_for_load_state("networkidle")
        time.sleep(0.3)
    violations = axe_violations(page)
    context.close()
    assert violations == [], violations


def test_lineage_is_drawn_as_a_graph(page, world, shots):
    import uuid

    full = f"{world.catalog}.{world.schema}.{world.table}"
    event = {"eventType": "COMPLETE", "eventTime": "2026-12-07T10:00:00Z",
             "producer": "https://example.test/etl", "schemaURL":
             "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
             "run": {"runId": str(uuid.uuid4())},
             "job": {"namespace": "etl", "name": "load_orders"},
             "inputs": [{"namespace": "s3://raw", "name": "orders.csv"}],
             "outputs": [{"namespace": world.metalake, "name": full}]}
    r = world.admin.post("lineage", event)
    assert r.status_code == 201, r.text
    deadline = time.time() + 10
    while time.time() < deadline:
        g = world.admin.get("lineage/graph", params={"metalake": world.metalake, "fullName": full})
        if g.status_code == 200 and len(g.json()["nodes"]) >= 3:
            break
        time.sleep(0.1)
    sign_in(page, "admin", ADMIN_PASSWORD)
    page.goto(table_url(world))
    page.get_by_role("link", name="Lineage of this table").click()
    graph = page.get_by_test_id("lineage-graph")
    expect(graph).to_have_attribute("aria-label", "Lineage graph with 3 nodes", timeout=TIMEOUT_MS)
    expect(graph.locator("g.node")).to_have_count(3)
    expect(graph.locator("line.edge")).to_have_count(2)
    expect(graph).to_contain_text("job load_orders")
    expect(graph).to_contain_text("orders.csv")
    expect(graph).to_contain_text(full)
    page.screenshot(path=str(shots / "lineage.png"), full_page=True)
    # Downstream only: the table alone (nothing reads it yet).
    page.get_by_label("Direction").select_option("downstream")
    page.get_by_role("button", name="Show").click()
    expect(graph.locator("g.node")).to_have_count(1, timeout=TIMEOUT_MS)


def test_set_the_owner_and_detach_a_tag(page, world):
    m, schema = world.metalake, unique("owned")
    full = f"{world.catalog}.{schema}"
    world.admin.ok("POST", f"metalakes/{m}/catalogs/{world.catalog}/schemas", {"name": schema})
    tag = unique("temp")
    world.admin.ok("POST", f"metalakes/{m}/tags", {"name": tag, "properties": {}})
    world.admin.ok("POST", f"metalakes/{m}/objects/schema/{full}/tags",
                   {"tagsToAdd": [tag], "tagsToRemove": []})
    sign_in(page, "admin", ADMIN_PASSWORD)
    page.goto(f"/ui/m/{m}/c/{world.catalog}/s/{schema}")
    page.get_by_role("button", name="Set owner").click()
    form = page.get_by_role("form", name="Set the owner")
    form.get_by_label("Owner name").fill("mallory")
    form.get_by_role("button", name="Set owner").click()
    expect(page.get_by_test_id("owner")).to_have_text("mallory (user)", timeout=TIMEOUT_MS)
    owner = world.admin.ok("GET", f"metalakes/{m}/owners/schema/{full}")["owner"]
    assert owner["name"] == "mallory" and owner["type"].upper() == "USER"
    page.get_by_role("button", name=f"Detach tag {tag}").click()
    expect(page.get_by_role("list", name="Tags of this object").get_by_role("link", name=tag)).to_have_count(
        0, timeout=TIMEOUT_MS)
    assert tag not in world.admin.ok("GET", f"metalakes/{m}/objects/schema/{full}/tags")["names"]
