"""Fixtures of the web UI suite: one `cairn serve` with `basic` authentication and authorization
on (service admin `admin`), local users made through /api/idp/users, an Iceberg table written by
PyIceberg, and Debian's Chromium (/usr/bin/chromium, or CAIRN_CHROMIUM) driven by Playwright's
Python client. No browser is downloaded.

Screenshots of the main pages go to CAIRN_UI_SCREENSHOTS (a directory; `docs/ui` refreshes the
ones the README shows), else to the test's temporary directory.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest

from cairn_server import cairn_binary, running_cairn, store_env
from sec_helpers import Principal, create_catalog, create_metalake, unique

REPO = Path(__file__).resolve().parents[2]
ADMIN_PASSWORD = "admin-password"
PASSWORD = "Sup3r-secret-pw"
CHROMIUM = os.environ.get("CAIRN_CHROMIUM", "/usr/bin/chromium")
# Chromium as root, headless, with nothing that reaches outside this machine.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage"]


class World:
    """What the suite works on: the server, its users, and one Iceberg table with snapshots."""

    def __init__(self, server, tmp: Path):
        self.server = server
        self.url = server.url
        self.admin = Principal(server.url, "admin", password=ADMIN_PASSWORD)
        for user in ("alice", "mallory"):
            self.admin.ok("POST", "idp/users", {"user": user, "password": PASSWORD})
        self.alice = Principal(server.url, "alice", password=PASSWORD)
        self.mallory = Principal(server.url, "mallory", password=PASSWORD)
        self.metalake = create_metalake(self.admin, unique("lake"))
        wh = tmp / "warehouse"
        wh.mkdir()
        self.catalog = create_catalog(self.admin, self.metalake, wh, unique("ice"))
        self.schema = "sales"
        self.table = "orders"
        self.admin.ok("POST", f"metalakes/{self.metalake}/catalogs/{self.catalog}/schemas",
                      {"name": self.schema, "comment": "sales data", "properties": {}})
        # mallory is a user of the metalake with no role: she may sign in and list, nothing more.
        self.admin.ok("POST", f"metalakes/{self.metalake}/users", {"name": "mallory"})
        cat = self.admin.pyiceberg(f"{self.metalake}.{self.catalog}")
        arrow_schema = pa.schema([pa.field("id", pa.int64()), pa.field("customer", pa.string()),
                                  pa.field("amount", pa.float64())])
        t = cat.create_table(f"{self.schema}.{self.table}", schema=arrow_schema)
        t.append(pa.table({"id": [1, 2, 3], "customer": ["a", "b", "c"],
                           "amount": [1.5, 2.5, 3.5]}, schema=arrow_schema))
        t.append(pa.table({"id": [4, 5], "customer": ["d", "e"], "amount": [4.0, 5.0]},
                          schema=arrow_schema))


@pytest.fixture(scope="session")
def world(tmp_path_factory) -> World:
    binary = cairn_binary(copy_to=tmp_path_factory.mktemp("bin"))
    env_stack = store_env("cairn_ui")
    with env_stack as store:
        env = {**store, "CAIRN_AUTHENTICATORS": "basic", "CAIRN_AUTHORIZATION_ENABLE": "true",
               "CAIRN_AUTHORIZATION_SERVICE_ADMINS": "admin",
               "CAIRN_AUTHENTICATOR_BASIC_BOOTSTRAP_USER": "admin",
               "CAIRN_AUTHENTICATOR_BASIC_BOOTSTRAP_PASSWORD": ADMIN_PASSWORD}
        with running_cairn("ui", env, tmp_path_factory.mktemp("data-ui"),
                           tmp_path_factory.getbasetemp(), binary) as server:
            yield World(server, tmp_path_factory.mktemp("ui"))


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: scripts/install-deps.sh test installs Debian's chromium",
                    pytrace=False)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, world):
    """A fresh browser context (no session) per test; its script errors are in console_errors."""
    context = browser.new_context(viewport={"width": 1360, "height": 900}, base_url=world.url)
    pg = context.new_page()
    errors: list[str] = []
    # Script errors; an answer's 4xx is logged by the browser too, and is the tests' business.
    pg.on("console", lambda m: errors.append(m.text)
          if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.console_errors = errors  # type: ignore[attr-defined]
    yield pg
    context.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    out = os.environ.get("CAIRN_UI_SCREENSHOTS")
    d = (REPO / out) if out and not os.path.isabs(out) else Path(out) if out else \
        tmp_path_factory.mktemp("screenshots")
    d.mkdir(parents=True, exist_ok=True)
    return d


AXE = REPO / "ui" / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page) -> list[dict]:
    """axe-core's WCAG 2 A/AA checks on the page as it is (ui/package-lock.json pins axe-core)."""
    assert AXE.exists(), f"{AXE} missing: the UI build installs it (npm ci in ui/)"
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: {type: 'tag',
            values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    return result
