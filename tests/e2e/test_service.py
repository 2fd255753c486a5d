"""Service endpoints: version, health, CLOSE /, content negotiation, unknown routes."""

import re

import requests

from gravitino import GravitinoAdminClient

from helpers import assert_error, ok_json


def test_version(api):
    body = ok_json(api.get("version"))
    v = body["version"]
    m = re.match(r"^(\d+)\.(\d+)\.(\d+)", v["version"])
    assert m, v
    # The 1.3 Python client refuses servers older than 1.3.
    assert (int(m.group(1)), int(m.group(2))) >= (1, 3), v
    assert v.get("compileDate") is not None and v.get("gitCommit") is not None, v


def test_version_without_accept_header(base_url):
    r = requests.get(f"{base_url}/api/version", timeout=10)
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("application/json")
    assert r.json()["code"] == 0


def test_responses_are_plain_application_json(api):
    r = api.get("version")
    assert r.headers["Content-Type"].split(";")[0].strip() == "application/json"


def test_admin_client_connects_and_reads_server_version(base_url):
    c = GravitinoAdminClient(uri=base_url)
    sv = c.get_server_version()
    assert sv.major >= 1
    # trailing slash in the URI is fine too
    GravitinoAdminClient(uri=base_url + "/").list_metalakes()


def test_health_root(base_url):
    for path in ("/health/live", "/health/ready"):
        r = requests.get(base_url + path, timeout=10)
        assert r.status_code == 200, (path, r.status_code, r.text)
        body = r.json()
        assert body.get("status") == "up", body


def test_health_under_api(api):
    live = ok_json(api.get("health/live"))
    assert live["status"] == "up"
    assert any(c.get("name") == "httpServer" for c in live.get("checks", [])), live
    ready = ok_json(api.get("health/ready"))
    assert ready["status"] == "up"
    assert any(c.get("name") == "entityStore" for c in ready.get("checks", [])), ready
    full = ok_json(api.get("health"))
    assert full["status"] == "up"


def test_close_root_answers_200_with_empty_body(base_url):
    r = requests.request("CLOSE", base_url + "/", timeout=10)
    assert r.status_code == 200, r.text
    assert r.content == b""


def test_client_close_works(base_url):
    c = GravitinoAdminClient(uri=base_url)
    c.list_metalakes()
    c.close()  # sends CLOSE / and raises UnknownError on anything but 2xx


def test_unsupported_accept_version_is_406(api):
    r = api.get("version", headers={"Accept": "application/vnd.gravitino.v2+json"})
    assert r.status_code == 406, (r.status_code, r.text)
    r = api.get("metalakes", headers={"Accept": "application/vnd.gravitino.v9+json"})
    assert r.status_code == 406, (r.status_code, r.text)


def test_any_other_accept_is_fine(api):
    for accept in ("application/json", "*/*", "text/plain",
                   "application/vnd.gravitino.v1+json"):
        r = api.get("version", headers={"Accept": accept})
        assert r.status_code == 200, (accept, r.status_code)
        assert r.headers["Content-Type"].startswith("application/json")


def test_unknown_route_is_404_envelope(api):
    r = api.get("no/such/route")
    body = assert_error(r, 404, 1003)
    assert body["type"]
    r = api.get("metalakes/x/catalogs/y/schemas/z/tables/t/nonsense/deeper")
    assert_error(r, 404, 1003)


def test_unsupported_method_on_known_route_is_405(api):
    assert api.request("DELETE", "version").status_code == 405
    assert api.request("PATCH", "metalakes").status_code == 405
    assert api.request("PUT", "metalakes").status_code == 405


def test_authn_me_is_anonymous(api):
    body = ok_json(api.get("authn/me"))
    assert body["principal"] == "anonymous"
