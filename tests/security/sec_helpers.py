"""Helpers of the security suite: a principal's plain-HTTP access to /api and /iceberg, its
PyIceberg catalog and Gravitino client, and admin-side setup (users, roles, grants, owners)."""

from __future__ import annotations

import base64
import json
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import requests

TIMEOUT_S = 60
GRAVITINO_HEADERS = {
    "Accept": "application/vnd.gravitino.v1+json",
    "Content-Type": "application/json",
    "X-Client-Version": "1.3.1",
}


# Every response a Principal received: (base url, X-Request-Id, HTTP status). test_zz_audit.py
# checks that each of them has exactly one audit record with the right status and outcome.
REQUEST_LOG: list[tuple[str, str, int]] = []


def _record_response(base: str):
    def hook(r, *args, **kwargs):
        rid = r.headers.get("X-Request-Id")
        REQUEST_LOG.append((base, rid or "", r.status_code))
    return hook


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def basic_header(user: str, password: str = "dummy") -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def ns_path(namespace) -> str:
    if isinstance(namespace, str):
        namespace = (namespace,)
    return quote("\x1f".join(namespace), safe="")


class Principal:
    """Requests made as one principal: `auth` is an Authorization header value (default: Basic
    with the user name and a dummy password, what the `simple` authenticator reads)."""

    def __init__(self, base_url: str, user: str | None, *, password: str = "dummy",
                 auth: str | None = None):
        self.base = base_url.rstrip("/")
        self.user = user
        self.password = password
        if auth is None and user is not None:
            auth = basic_header(user, password)
        self.auth = auth
        self.session = requests.Session()
        self.session.hooks["response"].append(_record_response(self.base))

    def headers(self, extra: dict | None = None, gravitino: bool = True) -> dict:
        h = dict(GRAVITINO_HEADERS) if gravitino else {"Content-Type": "application/json"}
        if self.auth is not None:
            h["Authorization"] = self.auth
        if extra:
            h.update(extra)
        return h

    # --- /api ------------------------------------------------------------------------------------
    def api(self, method: str, path: str, body: Any = None, *, params: dict | None = None,
            headers: dict | None = None) -> requests.Response:
        data = json.dumps(body) if body is not None else None
        return self.session.request(method, f"{self.base}/api/{path.lstrip('/')}", data=data,
                                    headers=self.headers(headers), params=params,
                                    timeout=TIMEOUT_S)

    def get(self, path, **kw):
        return self.api("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.api("POST", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.api("PUT", path, body, **kw)

    def delete(self, path, **kw):
        return self.api("DELETE", path, **kw)

    def ok(self, method: str, path: str, body: Any = None, **kw) -> dict:
        r = self.api(method, path, body, **kw)
        assert r.status_code == 200, f"{self.user}: {method} /api/{path}: {r.status_code} {r.text[:400]}"
        return r.json()

    # --- /iceberg --------------------------------------------------------------------------------
    def rest(self, method: str, warehouse: str, path: str, body: Any = None, *,
             params: dict | None = None, headers: dict | None = None) -> requests.Response:
        """/iceberg/v1/{prefix}/{path} (the prefix is the warehouse name `<metalake>.<catalog>`)."""
        data = json.dumps(body) if body is not None else None
        url = f"{self.base}/iceberg/v1/{quote(warehouse, safe='')}/{path.lstrip('/')}"
        return self.session.request(method, url, data=data, params=params,
                                    headers=self.headers(headers, gravitino=False), timeout=TIMEOUT_S)

    # --- /lance --------------------------------------------------------------------------------
    def lance(self, metalake: str, path: str, body: Any = None, *, method: str = "POST",
              params: dict | None = None) -> requests.Response:
        """/lance/{metalake}/v1/{path}, a Lance namespace REST call (identifiers joined by `$`)."""
        data = json.dumps(body if body is not None else {}) if method == "POST" else None
        url = f"{self.base}/lance/{quote(metalake, safe='')}/v1/{path.lstrip('/')}"
        return self.session.request(method, url, data=data, params=params,
                                    headers=self.headers(gravitino=False), timeout=TIMEOUT_S)

    def iceberg_config(self, warehouse: str) -> requests.Response:
        return self.session.get(f"{self.base}/iceberg/v1/config", params={"warehouse": warehouse},
                                headers=self.headers(gravitino=False), timeout=TIMEOUT_S)

    def pyiceberg(self, warehouse: str, **props):
        from pyiceberg.catalog import load_catalog

        conf = {"type": "rest", "uri": f"{self.base}/iceberg", "warehouse": warehouse}
        if self.auth is not None and self.auth.startswith("Basic "):
            conf["auth"] = {"type": "basic",
                            "basic": {"username": self.user, "password": self.password}}
        elif self.auth is not None and self.auth.startswith("Bearer "):
            conf["token"] = self.auth[len("Bearer "):]
        conf.update(props)
        return load_catalog(f"cairn-{self.user}", **conf)

    def gravitino(self, metalake: str):
        from gravitino import GravitinoClient

        return GravitinoClient(uri=self.base, metalake_name=metalake,
                               auth_data_provider=HeaderAuthProvider(self.auth))

    def gravitino_admin(self):
        from gravitino import GravitinoAdminClient

        return GravitinoAdminClient(uri=self.base, auth_data_provider=HeaderAuthProvider(self.auth))


def _auth_provider_base():
    from gravitino.auth.auth_data_provider import AuthDataProvider

    return AuthDataProvider


class HeaderAuthProvider(_auth_provider_base()):
    """A Gravitino-client AuthDataProvider that sends a fixed Authorization header."""

    def __init__(self, header: str | None):
        self._header = header

    def has_token_data(self) -> bool:
        return self._header is not None

    def get_token_data(self) -> bytes:
        return (self._header or "").encode()

    def close(self):
        pass


# ---- admin-side setup ------------------------------------------------------------------------

def privs(*names: str, deny: bool = False) -> list[dict]:
    return [{"name": n, "condition": "deny" if deny else "allow"} for n in names]


def sobj(type_: str, full_name: str, *names: str, deny: bool = False) -> dict:
    return {"fullName": full_name, "type": type_, "privileges": privs(*names, deny=deny)}


class Admin:
    """The metalake owner's setup calls (users, roles, grants, owners)."""

    def __init__(self, principal: Principal, metalake: str):
        self.p = principal
        self.ml = metalake

    def add_user(self, name: str):
        self.p.ok("POST", f"metalakes/{self.ml}/users", {"name": name})

    def add_group(self, name: str):
        self.p.ok("POST", f"metalakes/{self.ml}/groups", {"name": name})

    def create_role(self, name: str, objects: list[dict]):
        self.p.ok("POST", f"metalakes/{self.ml}/roles",
                  {"name": name, "properties": {}, "securableObjects": objects})

    def grant_roles(self, user: str, roles: list[str], group: bool = False):
        kind = "groups" if group else "users"
        self.p.ok("PUT", f"metalakes/{self.ml}/permissions/{kind}/{user}/grant", {"roleNames": roles})

    def revoke_roles(self, user: str, roles: list[str]):
        self.p.ok("PUT", f"metalakes/{self.ml}/permissions/users/{user}/revoke", {"roleNames": roles})

    def user_with(self, user: str, objects: list[dict], deny_objects: list[dict] | None = None):
        """Adds `user` to the metalake with a role holding `objects` (and, when given, a second
        role holding `deny_objects`)."""
        self.add_user(user)
        roles = []
        if objects:
            r = unique("r")
            self.create_role(r, objects)
            roles.append(r)
        if deny_objects:
            r = unique("rd")
            self.create_role(r, deny_objects)
            roles.append(r)
        if roles:
            self.grant_roles(user, roles)

    def set_owner(self, type_: str, full_name: str, owner: str, owner_type: str = "USER"):
        self.p.ok("PUT", f"metalakes/{self.ml}/owners/{type_}/{quote(full_name, safe='')}",
                  {"name": owner, "type": owner_type})

    def get_owner(self, type_: str, full_name: str) -> dict:
        return self.p.ok("GET", f"metalakes/{self.ml}/owners/{type_}/{quote(full_name, safe='')}")


def create_metalake(admin: Principal, name: str | None = None) -> str:
    name = name or unique("ml")
    admin.ok("POST", "metalakes", {"name": name, "comment": "security", "properties": {}})
    return name


def create_catalog(admin: Principal, metalake: str, warehouse_dir: Path, name: str | None = None) -> str:
    name = name or unique("cat")
    admin.ok("POST", f"metalakes/{metalake}/catalogs", {
        "name": name, "type": "relational", "provider": "lakehouse-iceberg", "comment": "security",
        "properties": {"catalog-backend": "managed", "warehouse": str(warehouse_dir)}})
    return name


TABLE_SCHEMA = {
    "type": "struct", "schema-id": 0,
    "fields": [{"id": 1, "name": "id", "required": False, "type": "long"},
               {"id": 2, "name": "name", "required": False, "type": "string"}],
}


def iceberg_table_body(name: str) -> dict:
    return {"name": name, "schema": TABLE_SCHEMA}


def iceberg_view_body(name: str, ns: str) -> dict:
    return {
        "name": name,
        "schema": {**TABLE_SCHEMA, "schema-id": 0},
        "view-version": {
            "version-id": 1, "schema-id": 0, "timestamp-ms": 1_700_000_000_000,
            "summary": {"engine-name": "pytest"},
            "representations": [{"type": "sql", "sql": "SELECT id, name FROM t", "dialect": "spark"}],
            "default-namespace": [ns],
        },
        "properties": {},
    }


def gravitino_table_body(name: str) -> dict:
    return {"name": name, "comment": "sec",
            "columns": [{"name": "id", "type": "long", "nullable": True, "autoIncrement": False},
                        {"name": "name", "type": "string", "nullable": True, "autoIncrement": False}],
            "properties": {}}


# ---- OAuth2 test keys -------------------------------------------------------------------------

ISSUER = "https://idp.cairn.test"
AUDIENCE = "cairn-test"


def _b64u(n: int) -> str:
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Keys:
    """An RS256 signing key (published as a JWKS file), a second key for forgeries."""

    def __init__(self):
        from cryptography.hazmat.primitives.asymmetric import rsa

        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "test-key-1"

    def jwks(self) -> dict:
        pub = self.key.public_key().public_numbers()
        return {"keys": [{"kty": "RSA", "kid": self.kid, "use": "sig", "alg": "RS256",
                          "n": _b64u(pub.n), "e": _b64u(pub.e)}]}

    def token(self, sub: str, *, key=None, kid=None, iss=ISSUER, aud=AUDIENCE, exp_in=600,
              extra: dict | None = None) -> str:
        now = int(time.time())
        claims = {"sub": sub, "iss": iss, "aud": aud, "iat": now, "nbf": now - 5, "exp": now + exp_in}
        claims.update(extra or {})
        import jwt

        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": kid or self.kid})
