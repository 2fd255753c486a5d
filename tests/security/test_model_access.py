"""Models in the access matrix, with Gravitino's expressions: registering needs use of the catalog
and schema and REGISTER_MODEL; reading a model, its versions and URIs needs USE_MODEL (or
ownership); linking a version, LINK_MODEL_VERSION (or ownership); altering and deleting, ownership.
The registering user owns the model. After every refusal nothing has changed."""

from __future__ import annotations

from sec_helpers import Admin, Principal, create_metalake, sobj, unique


def test_model_privileges(authz_server, admin):
    ml = create_metalake(admin)
    cat = unique("mcat")
    admin.ok("POST", f"metalakes/{ml}/catalogs", {"name": cat, "type": "model",
                                                  "comment": "models", "properties": {}})
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": "s"})
    base = f"metalakes/{ml}/catalogs/{cat}/schemas/s/models"
    admin.ok("POST", base, {"name": "m"})
    admin.ok("POST", f"{base}/m/versions", {"uri": "s3://b/m/0", "aliases": ["prod"]})

    a = Admin(admin, ml)
    use = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA")]
    a.user_with("registrar", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA", "REGISTER_MODEL")])
    a.user_with("reader", use + [sobj("MODEL", f"{cat}.s.m", "USE_MODEL")])
    a.user_with("linker", use + [sobj("MODEL", f"{cat}.s.m", "USE_MODEL", "LINK_MODEL_VERSION")])
    a.user_with("user", use)
    stranger = Principal(authz_server.url, unique("stranger"))
    p = {u: Principal(authz_server.url, u) for u in ("registrar", "reader", "linker", "user")}

    def state():
        model = admin.ok("GET", f"{base}/m")["model"]
        versions = admin.ok("GET", f"{base}/m/versions", params={"details": "true"})["infos"]
        return (model["name"], model.get("comment"), model["latestVersion"],
                [(v["version"], sorted(v["aliases"]), v["uris"]) for v in versions],
                sorted(i["name"] for i in admin.ok("GET", base)["identifiers"]))

    def refused(principal, method, path, body=None):
        before = state()
        r = principal.api(method, path, body)
        assert r.status_code == 403, (principal.user, method, path, r.status_code, r.text)
        assert state() == before, (principal.user, method, path)

    link = {"uri": "s3://b/m/x", "aliases": ["new"]}
    alter = {"updates": [{"@type": "updateComment", "newComment": "x"}]}

    # Reading: USE_MODEL; the catalog and schema alone are not enough, nor is linking alone.
    for who in ("user", "registrar"):
        refused(p[who], "GET", f"{base}/m")
        refused(p[who], "GET", f"{base}/m/versions")
        refused(p[who], "GET", f"{base}/m/versions/0")
        refused(p[who], "GET", f"{base}/m/aliases/prod/uri")
    refused(stranger, "GET", f"{base}/m")
    refused(stranger, "GET", f"{base}/nope")  # a denial, not a 404
    assert p["reader"].ok("GET", f"{base}/m")["model"]["latestVersion"] == 1
    assert p["reader"].ok("GET", f"{base}/m/aliases/prod/uri")["uri"] == "s3://b/m/0"
    # The list shows only the models one may read.
    assert [i["name"] for i in p["reader"].ok("GET", base)["identifiers"]] == ["m"]
    assert p["user"].ok("GET", base)["identifiers"] == []

    # Linking: LINK_MODEL_VERSION (denied before the body is read).
    for who in ("reader", "user", "registrar"):
        refused(p[who], "POST", f"{base}/m/versions", link)
    refused(p["reader"], "POST", f"{base}/m/versions", {"uri": 7})
    assert p["linker"].ok("POST", f"{base}/m/versions", link) == {"code": 0}

    # Altering and deleting: the owner only.
    for who in ("reader", "linker"):
        refused(p[who], "PUT", f"{base}/m", alter)
        refused(p[who], "PUT", f"{base}/m/versions/0", alter)
        refused(p[who], "PUT", f"{base}/m/aliases/prod", alter)
        refused(p[who], "DELETE", f"{base}/m/versions/0")
        refused(p[who], "DELETE", f"{base}/m/aliases/prod")
        refused(p[who], "DELETE", f"{base}/m")

    # Registering: REGISTER_MODEL on the schema; the registrar then owns the model.
    for who in ("reader", "linker", "user"):
        refused(p[who], "POST", base, {"name": "theirs"})
    refused(p["user"], "POST", base, {"name": 7})  # denied before the body is read
    assert p["registrar"].ok("POST", base, {"name": "mine"})["model"]["name"] == "mine"
    assert a.get_owner("model", f"{cat}.s.mine")["owner"]["name"] == "registrar"
    assert p["registrar"].ok("POST", f"{base}/mine/versions", {"uri": "s3://b/mine/0"})
    assert p["registrar"].ok("PUT", f"{base}/mine", alter)["model"]["comment"] == "x"
    assert p["registrar"].ok("GET", f"{base}/mine/versions")["versions"] == [0]
    assert p["registrar"].ok("DELETE", f"{base}/mine")["dropped"] is True

    # A deny of USE_MODEL on the schema takes reading away again.
    a.create_role("nomodels", [sobj("SCHEMA", f"{cat}.s", "USE_MODEL", deny=True)])
    a.grant_roles("reader", ["nomodels"])
    refused(p["reader"], "GET", f"{base}/m")
