"""The `basic` authenticator: local users with salted password hashes, managed by service admins
through /api/idp/users; wrong or missing passwords and removed users get 401."""

from __future__ import annotations

import pytest

from sec_helpers import Admin, Principal, basic_header, create_metalake, unique

PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def jwt_admin(basic_oauth_server, keys) -> Principal:
    return Principal(basic_oauth_server.url, "admin", auth=f"Bearer {keys.token('admin')}")


def add_local_user(admin: Principal, user: str, password: str = PASSWORD):
    r = admin.post("idp/users", {"user": user, "password": password})
    assert r.status_code == 200, r.text
    assert r.json()["user"]["name"] == user
    assert password not in r.text


def assert_401(r, challenge=None):
    assert r.status_code == 401, f"{r.status_code} {r.text[:300]}"
    assert r.json()["code"] == 1011 and r.json()["type"] == "UnauthorizedException", r.text
    assert r.headers.get("WWW-Authenticate"), r.headers
    if challenge:
        assert challenge in r.headers["WWW-Authenticate"], r.headers


def test_basic_only_server_can_bootstrap_a_service_admin(basic_server):
    """With CAIRN_AUTHENTICATORS=basic alone, the bootstrap user of the configuration
    (cairn.authenticator.basic.bootstrap-user/-password) logs in and creates the first local users."""
    no_auth = Principal(basic_server.url, None, auth=None)
    assert_401(no_auth.get("idp/users"))
    admin = Principal(basic_server.url, "admin", password="admin-password")
    r = admin.post("idp/users", {"user": unique("u"), "password": PASSWORD})
    assert r.status_code == 200, (
        "server gap: with only the `basic` authenticator there is no way to create the first "
        f"local user (no bootstrap credential, CLI or config key): POST /api/idp/users as the "
        f"service admin answered {r.status_code} {r.text[:200]}")


def test_local_users_log_in_with_their_password(basic_oauth_server, jwt_admin):
    base = basic_oauth_server.url
    u = unique("alice")
    add_local_user(jwt_admin, u)
    assert u in jwt_admin.ok("GET", "idp/users")["names"]
    ok = Principal(base, u, password=PASSWORD)
    r = ok.get("authn/me")
    assert r.status_code == 200 and r.json()["principal"] == u, r.text
    # a metalake's access control applies to local users like to anyone else
    ml = create_metalake(jwt_admin)
    assert ok.get(f"metalakes/{ml}").status_code == 403
    Admin(jwt_admin, ml).add_user(u)
    assert ok.get(f"metalakes/{ml}").status_code == 200

    for bad in ("wrong-password", PASSWORD + "x", PASSWORD.upper(), ""):
        assert_401(Principal(base, u, password=bad).get("authn/me"))
    assert_401(Principal(base, unique("nobody"), password=PASSWORD).get("authn/me"))
    assert_401(Principal(base, None, auth=None).get("authn/me"), challenge=None)
    assert_401(Principal(base, None, auth="Basic !!!notbase64").get("authn/me"), challenge=None)
    # the Iceberg protocol answers with its own error body
    r = Principal(base, u, password="wrong-password").rest("GET", f"{ml}.x", "namespaces")
    assert r.status_code == 401 and r.json()["error"]["code"] == 401, r.text
    assert r.headers.get("WWW-Authenticate")


def test_removed_user_is_401(basic_oauth_server, jwt_admin):
    base = basic_oauth_server.url
    u = unique("bob")
    add_local_user(jwt_admin, u)
    p = Principal(base, u, password=PASSWORD)
    assert p.get("authn/me").status_code == 200  # also warms any verification cache
    r = jwt_admin.delete(f"idp/users/{u}")
    assert r.status_code == 200 and r.json()["removed"] is True, r.text
    assert_401(p.get("authn/me"))
    assert u not in jwt_admin.ok("GET", "idp/users")["names"]
    assert jwt_admin.delete(f"idp/users/{u}").json()["removed"] is False


def test_idp_user_management_rules(basic_oauth_server, jwt_admin, keys):
    base = basic_oauth_server.url
    u = unique("carol")
    add_local_user(jwt_admin, u)
    r = jwt_admin.post("idp/users", {"user": u, "password": PASSWORD})
    assert r.status_code == 409, r.text
    r = jwt_admin.post("idp/users", {"user": unique("short"), "password": "short"})
    assert r.status_code == 400, r.text
    # only service admins manage local users, whoever they are
    local = Principal(base, u, password=PASSWORD)
    other_jwt = Principal(base, "mallory", auth=f"Bearer {keys.token('mallory')}")
    for p in (local, other_jwt):
        assert p.post("idp/users", {"user": unique("x"), "password": PASSWORD}).status_code == 403
        assert p.get("idp/users").status_code == 403
        assert p.delete(f"idp/users/{u}").status_code == 403
    assert local.get("authn/me").status_code == 200


def test_challenge_offers_basic_when_basic_is_configured(basic_oauth_server, basic_server):
    """A 401 must tell a Basic client that Basic is accepted: with `basic,oauth2` both schemes
    belong in WWW-Authenticate (RFC 7235 allows several challenges)."""
    r = Principal(basic_server.url, "x", password="wrong-password").get("authn/me")
    assert_401(r, challenge="Basic")
    r = Principal(basic_oauth_server.url, "x", password="wrong-password").get("authn/me")
    assert r.status_code == 401
    challenge = r.headers.get("WWW-Authenticate", "")
    assert "Basic" in challenge and "Bearer" in challenge, (
        f"CAIRN_AUTHENTICATORS=basic,oauth2: a wrong Basic password gets WWW-Authenticate {challenge!r}")


def test_idp_users_405_without_basic(authz_server, admin):
    r = admin.get("idp/users")
    assert r.status_code == 405, r.text
