"""TLS from Cairn to its sources: PostgreSQL, MariaDB and a Kafka broker, each serving a
certificate of a CA the test makes. A verifying connection without that CA is refused, one with
it works (and is encrypted, as the source itself reports), one with another CA is refused; and
credentials never go unverified to another machine unless the catalog says so."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from helpers import assert_error, cat_path, ok_json, schema_path, unique
from jdbc_helpers import MysqlSource, PgSource
from kafka_broker import KafkaBroker
from pki import Ca

HARNESS = Path(__file__).resolve().parents[1] / "harness"


@pytest.fixture(scope="module")
def cas(tmp_path_factory):
    folder = tmp_path_factory.mktemp("source-pki")
    folder.chmod(0o755)  # PostgreSQL runs as its own user when the tests run as root
    ca, other = Ca(folder, "source-ca"), Ca(folder, "other-ca")
    cert, key, _ = ca.issue("source", server=True)
    return ca, other, cert, key


@pytest.fixture(scope="module")
def tls_pg_dir(cas) -> Path:
    _, _, cert, key = cas
    # Outside pytest's private temporary tree: PostgreSQL runs as its own user under root.
    folder = Path(tempfile.mkdtemp(prefix="cairn-tls-pg."))
    folder.chmod(0o777)
    env = dict(os.environ, PG_TLS_CERT=str(cert), PG_TLS_KEY=str(key))
    started = subprocess.run([str(HARNESS / "pg.sh"), "start", str(folder)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    try:
        yield folder
    finally:
        subprocess.run([str(HARNESS / "pg.sh"), "stop", str(folder)], check=False, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def tls_pg(tls_pg_dir) -> PgSource:
    return PgSource.from_url((tls_pg_dir / "url").read_text().strip())


@pytest.fixture(scope="module")
def tls_maria(cas, tmp_path_factory) -> MysqlSource:
    _, _, cert, key = cas
    folder = tmp_path_factory.mktemp("tls-mariadb")
    env = dict(os.environ, MARIADB_TLS_CERT=str(cert), MARIADB_TLS_KEY=str(key))
    line = subprocess.run([str(HARNESS / "mariadb.sh"), "start", str(folder)], env=env,
                          check=True, capture_output=True, text=True, timeout=180).stdout.split()
    try:
        # The user that may only connect over TLS: a working catalog proves the connection is.
        yield MysqlSource(line[0], int(line[1]), line[2] + "_tls", line[3])
    finally:
        subprocess.run([str(HARNESS / "mariadb.sh"), "stop", str(folder)], check=False,
                       timeout=120)


@pytest.fixture(scope="module")
def tls_kafka(cas, tmp_path_factory) -> KafkaBroker:
    ca, _, cert, key = cas
    folder = tmp_path_factory.mktemp("tls-kafka")
    store = ca.pkcs12_key_store(cert, key, folder / "broker.p12")
    broker = KafkaBroker(folder / "broker", tls_keystore=(store, "changeit")).start()
    try:
        yield broker
    finally:
        broker.stop()


def _test_connection(api, metalake, body):
    return api.post(cat_path(metalake) + "/testConnection", body)


def _refused_without_the_ca(api, metalake, source, name: str, verify: dict, other: Ca) -> None:
    """A verifying catalog body for `source` is refused with the system's CAs (which do not know
    the test's) and with another CA, and no catalog row is left."""
    _refused_for_trust(_test_connection(api, metalake, source.catalog_body(name, **verify)))
    _refused_for_trust(_test_connection(api, metalake, source.catalog_body(
        name, **verify, **{"jdbc-tls-ca-file": str(other.pem)})))
    assert_error(api.get(cat_path(metalake, name)), 404, 1003)


def _refused_for_trust(r) -> str:
    message = assert_error(r, 502, 1007, "ConnectionFailedException")["message"]
    assert "certificate" in message.lower(), message
    return message


# ---- PostgreSQL ------------------------------------------------------------------------------

def test_postgres_is_verified_against_the_catalogs_ca(api, metalake, tls_pg, cas):
    ca, other, _, _ = cas
    name = unique("pg")
    _refused_without_the_ca(api, metalake, tls_pg, name,
                            {"jdbc-url": tls_pg.jdbc_url + "?sslmode=verify-full"}, other)

    # With the CA the catalog works, and the source sees an encrypted connection.
    body = tls_pg.catalog_body(name, **{"jdbc-tls-ca-file": str(ca.pem)})
    ok_json(_test_connection(api, metalake, body))
    ok_json(api.post(cat_path(metalake), body))
    ok_json(api.post(schema_path(metalake, name), {"name": "tls_s", "comment": "over tls"}))
    assert tls_pg.query("SELECT 1 FROM pg_namespace WHERE nspname = 'tls_s'") == [["1"]]
    rows = tls_pg.query("SELECT s.ssl, s.version FROM pg_stat_ssl s JOIN pg_stat_activity a "
                        "USING (pid) WHERE a.application_name = 'cairn'")
    assert rows and all(r[0] == "t" and r[1].startswith("TLSv1.") for r in rows), rows


def test_postgres_host_name_is_checked(api, metalake, tls_pg, tls_pg_dir, cas):
    ca, _, cert, key = cas
    # The server now presents a certificate of the right CA for another name.
    other_cert, other_key, _ = ca.issue("elsewhere", server=True, hosts=("db.example.com",))
    served_cert, served_key = tls_pg_dir / "tls" / "server.crt", tls_pg_dir / "tls" / "server.key"

    def serve(c: Path, k: Path) -> None:
        served_cert.write_bytes(c.read_bytes())
        served_key.write_bytes(k.read_bytes())
        tls_pg.exec("SELECT pg_reload_conf()")

    serve(other_cert, other_key)
    try:
        with_ca = {"jdbc-tls-ca-file": str(ca.pem)}
        full = tls_pg.catalog_body(unique("pg"), **with_ca)
        message = _refused_for_trust(_test_connection(api, metalake, full))
        assert "db.example.com" in message, message
        # verify-ca checks the CA only, as libpq defines it.
        only_ca = tls_pg.catalog_body(unique("pg"), **with_ca, **{
            "jdbc-url": tls_pg.jdbc_url + "?sslmode=verify-ca"})
        ok_json(_test_connection(api, metalake, only_ca))
    finally:
        serve(cert, key)


# ---- MariaDB ---------------------------------------------------------------------------------

def test_mariadb_is_verified_against_the_catalogs_ca(api, metalake, tls_maria, cas):
    ca, other, _, _ = cas
    name = unique("my")
    _refused_without_the_ca(api, metalake, tls_maria, name,
                            {"jdbc-url": tls_maria.jdbc_url + "?sslMode=VERIFY_IDENTITY"}, other)
    # Without TLS the TLS-only user is turned away by the server itself.
    plain = _test_connection(api, metalake, tls_maria.catalog_body(name))
    assert_error(plain, 502, 1007, "ConnectionFailedException")

    body = tls_maria.catalog_body(name, **{"jdbc-tls-ca-file": str(ca.pem)})
    ok_json(_test_connection(api, metalake, body))
    ok_json(api.post(cat_path(metalake), body))
    db = unique("tlsdb")
    ok_json(api.post(schema_path(metalake, name), {"name": db}))
    assert [db] in tls_maria.query(f"SHOW DATABASES LIKE '{db}'")


# ---- Kafka -----------------------------------------------------------------------------------

def _kafka_body(name: str, bootstrap: str, **props) -> dict:
    return {"name": name, "type": "messaging", "provider": "kafka", "comment": "tls broker",
            "properties": {"bootstrap.servers": bootstrap, **props}}


def test_kafka_is_verified_against_the_catalogs_ca(api, metalake, tls_kafka, cas):
    ca, other, _, _ = cas
    name = unique("k")
    tls = {"security.protocol": "ssl"}
    for props in (tls, {**tls, "ssl.ca.location": str(other.pem)}):
        r = _test_connection(api, metalake, _kafka_body(name, tls_kafka.tls_bootstrap, **props))
        assert_error(r, 502, 1007, "ConnectionFailedException")
    body = _kafka_body(name, tls_kafka.tls_bootstrap, **tls, **{"ssl.ca.location": str(ca.pem)})
    ok_json(_test_connection(api, metalake, body))
    ok_json(api.post(cat_path(metalake), body))
    topic = unique("t")
    ok_json(api.post(schema_path(metalake, name, "default") + "/topics",
                     {"name": topic, "comment": "", "properties": {"partition-count": "2"}}))
    listed = ok_json(api.get(schema_path(metalake, name, "default") + "/topics"))
    assert topic in [i["name"] for i in listed["identifiers"]]


# ---- nothing unverified to another machine ---------------------------------------------------

@pytest.mark.parametrize("props", [
    {"security.protocol": "sasl_plaintext", "sasl.mechanism": "PLAIN", "sasl.username": "u",
     "sasl.password": "p"},
    {"security.protocol": "ssl", "enable.ssl.certificate.verification": "false"},
    {"security.protocol": "sasl_ssl", "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "u",
     "sasl.password": "p", "ssl.endpoint.identification.algorithm": "none"},
])
def test_kafka_credentials_never_unverified_to_another_machine(api, metalake, props):
    body = _kafka_body(unique("k"), "kafka.example.com:9093", **props)
    r = api.post(cat_path(metalake), body)
    assert "kafka.allow-insecure-credentials" in assert_error(r, 400, 1001)["message"]
    body["properties"]["kafka.allow-insecure-credentials"] = "true"
    ok_json(api.post(cat_path(metalake), body))  # the catalog's own choice; made, not connected


def test_kafka_oauth_secret_never_to_a_clear_text_token_endpoint(api, metalake):
    body = _kafka_body(unique("k"), "kafka.example.com:9093", **{
        "security.protocol": "sasl_ssl", "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.method": "oidc", "sasl.oauthbearer.client.id": "c",
        "sasl.oauthbearer.client.secret": "s",
        "sasl.oauthbearer.token.endpoint.url": "http://idp.example.com/token"})
    r = api.post(cat_path(metalake), body)
    message = assert_error(r, 400, 1001)["message"]
    assert "sasl.oauthbearer.token.endpoint.url" in message, message


@pytest.mark.parametrize("key", ["plugin.library.paths", "sasl.kerberos.kinit.cmd",
                                 "ssl.engine.location"])
def test_kafka_properties_that_run_code_are_refused(api, metalake, key):
    body = _kafka_body(unique("k"), "127.0.0.1:9092", **{key: "/tmp/x"})
    assert key in assert_error(api.post(cat_path(metalake), body), 400, 1001)["message"]


@pytest.mark.parametrize("url", ["jdbc:postgresql://db.example.com/sales",
                                 "jdbc:postgresql://db.example.com/sales?sslmode=require",
                                 "jdbc:postgresql://db.example.com/sales?sslmode=disable"])
def test_jdbc_password_never_unverified_to_another_machine(api, metalake, pg, url):
    body = pg.catalog_body(unique("c"), **{"jdbc-url": url, "jdbc-database": "sales"})
    if "sslmode" not in url:
        # The default toward another machine verifies: the catalog is made as it is.
        ok_json(api.post(cat_path(metalake), body))
        return
    r = api.post(cat_path(metalake), body)
    assert "jdbc-allow-insecure-credentials" in assert_error(r, 400, 1001)["message"]
    body["properties"]["jdbc-allow-insecure-credentials"] = "true"
    ok_json(api.post(cat_path(metalake), body))
