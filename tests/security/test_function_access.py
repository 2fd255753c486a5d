"""Functions in the access matrix, with Gravitino's privileges: registering needs use of the
catalog and schema and REGISTER_FUNCTION; reading a function needs EXECUTE_FUNCTION or
MODIFY_FUNCTION (or ownership); altering, MODIFY_FUNCTION (or ownership); dropping, ownership.
The registering user owns the function. After every refusal nothing has changed."""

from __future__ import annotations

from sec_helpers import Admin, Principal, create_metalake, sobj, unique


def body(name, sql="x + 1"):
    return {"name": name, "functionType": "SCALAR", "deterministic": True,
            "definitions": [{"parameters": [{"name": "x", "dataType": "integer"}],
                             "returnType": "integer",
                             "impls": [{"language": "SQL", "runtime": "SPARK", "sql": sql}]}]}


def test_function_privileges(authz_server, admin):
    ml = create_metalake(admin)
    cat = unique("mcat")
    admin.ok("POST", f"metalakes/{ml}/catalogs", {"name": cat, "type": "model",
                                                  "comment": "functions", "properties": {}})
    admin.ok("POST", f"metalakes/{ml}/catalogs/{cat}/schemas", {"name": "s"})
    base = f"metalakes/{ml}/catalogs/{cat}/schemas/s/functions"
    admin.ok("POST", base, body("f"))

    a = Admin(admin, ml)
    use = [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA")]
    a.user_with("registrar", [sobj("CATALOG", cat, "USE_CATALOG", "USE_SCHEMA",
                                   "REGISTER_FUNCTION")])
    a.user_with("runner", use + [sobj("FUNCTION", f"{cat}.s.f", "EXECUTE_FUNCTION")])
    a.user_with("editor", use + [sobj("FUNCTION", f"{cat}.s.f", "MODIFY_FUNCTION")])
    a.user_with("user", use)
    stranger = Principal(authz_server.url, unique("stranger"))
    p = {u: Principal(authz_server.url, u) for u in ("registrar", "runner", "editor", "user")}

    def state():
        listed = admin.ok("GET", base, params={"details": "true"})["functions"]
        return [(f["name"], f.get("comment"), f["definitions"]) for f in listed]

    def refused(principal, method, path, payload=None):
        before = state()
        r = principal.api(method, path, payload)
        assert r.status_code == 403, (principal.user, method, path, r.status_code, r.text)
        assert state() == before, (principal.user, method, path)

    alter = {"updates": [{"@type": "updateComment", "newComment": "changed"}]}

    # Reading: EXECUTE_FUNCTION or MODIFY_FUNCTION; the catalog and schema alone are not enough.
    for who in ("user", "registrar"):
        refused(p[who], "GET", f"{base}/f")
    refused(stranger, "GET", f"{base}/f")
    refused(stranger, "GET", f"{base}/nope")  # a denial, not a 404
    refused(stranger, "GET", base)
    assert p["runner"].ok("GET", f"{base}/f")["function"]["name"] == "f"
    assert p["editor"].ok("GET", f"{base}/f")["function"]["name"] == "f"
    # The list shows only the functions one may read, in both forms.
    assert [i["name"] for i in p["runner"].ok("GET", base)["identifiers"]] == ["f"]
    assert p["user"].ok("GET", base)["identifiers"] == []
    assert p["user"].ok("GET", base, params={"details": "true"})["functions"] == []

    # Altering: MODIFY_FUNCTION (denied before the body is read), not EXECUTE_FUNCTION.
    for who in ("runner", "user", "registrar"):
        refused(p[who], "PUT", f"{base}/f", alter)
    refused(p["runner"], "PUT", f"{base}/f", {"updates": 7})
    assert p["editor"].ok("PUT", f"{base}/f", alter)["function"]["comment"] == "changed"

    # Dropping: the owner only.
    for who in ("runner", "editor", "user"):
        refused(p[who], "DELETE", f"{base}/f")

    # Registering: REGISTER_FUNCTION on the schema; the registrar then owns the function.
    for who in ("runner", "editor", "user"):
        refused(p[who], "POST", base, body("theirs"))
    refused(p["user"], "POST", base, {"name": 7})  # denied before the body is read
    assert p["registrar"].ok("POST", base, body("mine"))["function"]["name"] == "mine"
    assert a.get_owner("function", f"{cat}.s.mine")["owner"]["name"] == "registrar"
    assert p["registrar"].ok("PUT", f"{base}/mine", alter)["function"]["comment"] == "changed"
    assert p["registrar"].ok("GET", base)["identifiers"][0]["name"] == "mine"
    assert p["registrar"].ok("DELETE", f"{base}/mine")["dropped"] is True

    # A deny of EXECUTE_FUNCTION on the schema takes reading away again.
    a.create_role("nofunctions", [sobj("SCHEMA", f"{cat}.s", "EXECUTE_FUNCTION", deny=True)])
    a.grant_roles("runner", ["nofunctions"])
    refused(p["runner"], "GET", f"{base}/f")
