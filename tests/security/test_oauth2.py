"""OAuth2 (Bearer JWT) authentication, with authorization on: PyIceberg configured with
`token=<jwt>` (RS256, signed by a key the test generates, published to the server as a JWKS
file) reads a table it was granted and gets ForbiddenError (403) on one it was not; forged,
expired and wrong-audience tokens get 401 with a `WWW-Authenticate` header."""

from __future__ import annotations

import time

import jwt
import pytest

from sec_helpers import AUDIENCE, ISSUER, Admin, Keys, Principal, create_catalog, create_metalake, iceberg_table_body, sobj, unique

ADMIN = "admin"


def bearer(server, keys: Keys, user: str, **kw) -> Principal:
    return Principal(server.url, user, auth=f"Bearer {keys.token(user, **kw)}")


@pytest.fixture(scope="module")
def world(oauth_server, keys, tmp_path_factory):
    """A catalog with tables `granted` and `secret`; user `reader` may select `granted` only."""
    admin = bearer(oauth_server, keys, ADMIN)
    ml = create_metalake(admin)
    wh = tmp_path_factory.mktemp("wh-oauth")
    cat = create_catalog(admin, ml, wh)
    wname = f"{ml}.{cat}"
    assert admin.rest("POST", wname, "namespaces", {"namespace": ["s"], "properties": {}}).status_code == 200
    for t in ("granted", "secret"):
        r = admin.rest("POST", wname, "namespaces/s/tables", iceberg_table_body(t))
        assert r.status_code == 200, r.text
    boss = Admin(admin, ml)
    reader = unique("reader")
    boss.user_with(reader, [sobj("catalog", cat, "USE_CATALOG"), sobj("schema", f"{cat}.s", "USE_SCHEMA"),
                            sobj("table", f"{cat}.s.granted", "SELECT_TABLE")])
    return {"ml": ml, "cat": cat, "warehouse": wname, "reader": reader, "admin": admin}


def test_pyiceberg_with_token_reads_granted_table(oauth_server, keys, world):
    from pyiceberg.exceptions import ForbiddenError

    p = bearer(oauth_server, keys, world["reader"])
    cat = p.pyiceberg(world["warehouse"])
    t = cat.load_table(("s", "granted"))
    assert t.name() == ("s", "granted")
    assert [f.name for f in t.schema().fields] == ["id", "name"]
    assert cat.list_tables("s") == [("s", "granted")]
    with pytest.raises(ForbiddenError):
        cat.load_table(("s", "secret"))
    # plain HTTP says the same
    assert p.rest("GET", world["warehouse"], "namespaces/s/tables/granted").status_code == 200
    r = p.rest("GET", world["warehouse"], "namespaces/s/tables/secret")
    assert r.status_code == 403 and r.json()["error"]["type"] == "ForbiddenException", r.text


def test_principal_is_the_sub_claim(oauth_server, keys, world):
    r = bearer(oauth_server, keys, world["reader"]).get("authn/me")
    assert r.status_code == 200 and r.json()["principal"] == world["reader"], r.text


BAD_TOKENS = {
    "forged": lambda k, u: k.token(u, key=k.other),
    "expired": lambda k, u: k.token(u, exp_in=-3600),
    "wrong-audience": lambda k, u: k.token(u, aud="someone-else"),
    "wrong-issuer": lambda k, u: k.token(u, iss="https://evil.test"),
    "unknown-kid": lambda k, u: k.token(u, key=k.other, kid="other-kid"),
    "alg-none": lambda k, u: jwt.encode({"sub": u, "iss": ISSUER, "aud": AUDIENCE,
                                         "exp": int(time.time()) + 600}, None, algorithm="none"),
    "garbage": lambda k, u: "not.a.jwt",
}


@pytest.mark.parametrize("kind", sorted(BAD_TOKENS))
def test_bad_token_is_401_over_http(oauth_server, keys, world, kind):
    token = BAD_TOKENS[kind](keys, world["reader"])
    p = Principal(oauth_server.url, world["reader"], auth=f"Bearer {token}")
    for r, protocol in ((p.rest("GET", world["warehouse"], "namespaces/s/tables/granted"), "iceberg"),
                        (p.get(f"metalakes/{world['ml']}"), "gravitino")):
        assert r.status_code == 401, f"{kind} {protocol}: {r.status_code} {r.text[:300]}"
        assert r.headers.get("WWW-Authenticate", "").startswith("Bearer"), r.headers
        body = r.json()
        if protocol == "iceberg":
            assert body["error"]["code"] == 401 and body["error"]["type"] == "NotAuthorizedException", body
        else:
            assert body["code"] == 1011 and body["type"] == "UnauthorizedException", body
        assert token not in r.text


@pytest.mark.parametrize("kind", ["forged", "expired", "wrong-audience"])
def test_bad_token_is_401_for_pyiceberg(oauth_server, keys, world, kind):
    from pyiceberg.exceptions import OAuthError, UnauthorizedError

    token = BAD_TOKENS[kind](keys, world["reader"])
    p = Principal(oauth_server.url, world["reader"], auth=f"Bearer {token}")
    with pytest.raises((UnauthorizedError, OAuthError)):
        p.pyiceberg(world["warehouse"]).load_table(("s", "granted"))


def test_missing_and_unsupported_credentials_are_401(oauth_server, world):
    from sec_helpers import basic_header

    for auth in (None, basic_header(world["reader"], "pw"), "Negotiate abc", "Bearer"):
        p = Principal(oauth_server.url, None, auth=auth)
        r = p.rest("GET", world["warehouse"], "namespaces")
        assert r.status_code == 401, f"{auth}: {r.status_code} {r.text[:200]}"
        assert r.headers.get("WWW-Authenticate", "").startswith("Bearer"), r.headers


def test_health_and_version_need_no_token(oauth_server):
    p = Principal(oauth_server.url, None, auth=None)
    assert p.get("version").status_code == 200
    import requests

    assert requests.get(f"{oauth_server.url}/health/live", timeout=10).status_code == 200


def test_groups_claim_grants_through_a_group(oauth_server, keys, world):
    """A role granted to a metalake group applies to tokens whose `groups` claim names it."""
    boss = Admin(world["admin"], world["ml"])
    g, r = unique("g"), unique("r")
    boss.add_group(g)
    cat = world["cat"]
    boss.create_role(r, [sobj("catalog", cat, "USE_CATALOG"), sobj("schema", f"{cat}.s", "USE_SCHEMA"),
                         sobj("table", f"{cat}.s.secret", "SELECT_TABLE")])
    boss.grant_roles(g, [r], group=True)
    outsider = unique("member")
    p = bearer(oauth_server, keys, outsider, extra={"groups": [g]})
    assert p.rest("GET", world["warehouse"], "namespaces/s/tables/secret").status_code == 200
    q = bearer(oauth_server, keys, outsider, extra={"groups": ["other"]})
    assert q.rest("GET", world["warehouse"], "namespaces/s/tables/secret").status_code == 403


def test_jwks_fetched_from_the_identity_provider_url(start_server, keys):
    """cairn.authenticator.oauth2.jwks-url: the keys come from an http JWKS endpoint (a local
    stand-in for an identity provider's jwks_uri) instead of a file."""
    import http.server
    import json
    import threading

    body = json.dumps(keys.jwks()).encode()
    hits = []

    class Jwks(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    idp = http.server.HTTPServer(("127.0.0.1", 0), Jwks)
    threading.Thread(target=idp.serve_forever, daemon=True).start()
    try:
        server = start_server("oauth2-jwks-url", {
            "CAIRN_AUTHENTICATORS": "oauth2",
            "CAIRN_AUTHENTICATOR_OAUTH2_JWKS_URL": f"http://127.0.0.1:{idp.server_address[1]}/keys",
            "CAIRN_AUTHENTICATOR_OAUTH2_ISSUER": ISSUER,
            "CAIRN_AUTHENTICATOR_OAUTH2_AUDIENCE": AUDIENCE,
        })
        assert hits == ["/keys"]
        me = bearer(server, keys, "url_user").get("authn/me")
        assert me.status_code == 200 and me.json()["principal"] == "url_user", me.text
        forged = bearer(server, keys, "url_user", key=keys.other).get("authn/me")
        assert forged.status_code == 401, forged.text
    finally:
        idp.shutdown()
