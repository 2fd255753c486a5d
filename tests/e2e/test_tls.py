"""TLS on Cairn's listener (docs/security.md#encryption-in-transit): a CA made here signs the
server's certificate and the clients'. PyIceberg, the Gravitino Python client, requests and curl
speak HTTPS to it; a client that does not trust the CA is refused by its own TLS stack; a client
certificate from another CA is refused by Cairn; a verified certificate's common name is the
caller's principal; a new certificate is served to the next connection, after SIGHUP or when the
files change, while open connections keep working; plain HTTP off loopback needs a setting."""

from __future__ import annotations

import shutil
import signal
import socket
import ssl
import subprocess
import time
import uuid
import warnings
from pathlib import Path

import pytest
import requests
from cryptography import x509

from cairn_server import cairn_binary, free_port, running_cairn, store_env
from pki import Ca


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pki")
    return {"ca": Ca(folder, "cairn-test-ca"), "rogue": Ca(folder, "rogue-ca"), "dir": folder}


@pytest.fixture(scope="module")
def tls_server(pki, tmp_path_factory):
    """Cairn with TLS, client certificates optional (the `certificate` authenticator beside
    `basic`-less `simple`), authorization on, and the files watched every 200 ms."""
    folder: Path = pki["dir"]
    cert, key, serial = pki["ca"].issue("127.0.0.1", server=True)
    live_cert, live_key = folder / "server.crt", folder / "server.key"
    shutil.copy(cert, live_cert)
    shutil.copy(key, live_key)
    env = {"CAIRN_SERVER_TLS_CERT_FILE": str(live_cert),
           "CAIRN_SERVER_TLS_KEY_FILE": str(live_key),
           "CAIRN_SERVER_TLS_CLIENT_CA_FILE": str(pki["ca"].pem),
           "CAIRN_SERVER_TLS_RELOAD_INTERVAL_MS": "200",
           "CAIRN_AUTHENTICATORS": "certificate,simple",
           "CAIRN_AUTHORIZATION_ENABLE": "true",
           "CAIRN_AUTHORIZATION_SERVICE_ADMINS": "admin,ops"}
    with store_env("cairn_tls") as store:
        with running_cairn("tls", {**store, **env}, tmp_path_factory.mktemp("tls-data"),
                           tmp_path_factory.getbasetemp(), ca_file=pki["ca"].pem) as srv:
            srv.first_serial = serial
            srv.live = (live_cert, live_key)
            yield srv


def served_serial(port: int, ca: Path) -> int:
    """The serial number of the certificate a new connection is served."""
    ctx = ssl.create_default_context(cafile=str(ca))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            der = tls.getpeercert(binary_form=True)
    return x509.load_der_x509_certificate(der).serial_number


def test_clients_speak_https_and_refuse_an_untrusted_server(tls_server, pki):
    ca = str(pki["ca"].pem)
    r = requests.get(f"{tls_server.url}/api/version", verify=ca, timeout=10)
    assert r.status_code == 200 and r.json()["version"]["version"]
    # A client that does not trust the server's CA refuses it, in its own TLS stack.
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(f"{tls_server.url}/api/version", verify=str(pki["rogue"].pem), timeout=10)
    if shutil.which("curl"):
        ok = subprocess.run(["curl", "-sS", "--cacert", ca, f"{tls_server.url}/api/version"],
                            capture_output=True, text=True, timeout=30)
        assert ok.returncode == 0 and '"version"' in ok.stdout, ok.stderr
        refused = subprocess.run(["curl", "-sS", "--cacert", str(pki["rogue"].pem),
                                  f"{tls_server.url}/api/version"],
                                 capture_output=True, text=True, timeout=30)
        assert refused.returncode == 60, (refused.returncode, refused.stderr)  # peer not trusted
    # Plain HTTP on the TLS port gets no HTTP answer.
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(f"http://127.0.0.1:{tls_server.port}/api/version", timeout=10)
    # TLS 1.1 is refused by the server (the client allows it, at security level 0).
    failures = tls_server.log_path.read_text().count("event=tls_handshake_failed")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(ca)
    ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
    with pytest.raises((ssl.SSLError, ConnectionError)):
        with socket.create_connection(("127.0.0.1", tls_server.port), timeout=10) as raw:
            ctx.wrap_socket(raw, server_hostname="127.0.0.1").close()
    deadline = time.time() + 5
    while (tls_server.log_path.read_text().count("event=tls_handshake_failed") == failures
           and time.time() < deadline):
        time.sleep(0.05)
    assert tls_server.log_path.read_text().count("event=tls_handshake_failed") > failures


def test_a_client_certificate_is_the_principal(tls_server, pki):
    ca = str(pki["ca"].pem)
    ops_cert, ops_key, _ = pki["ca"].issue("ops", server=False)
    ml = f"tls_{uuid.uuid4().hex[:8]}"
    r = requests.post(f"{tls_server.url}/api/metalakes", verify=ca, cert=(str(ops_cert),
                      str(ops_key)), json={"name": ml, "comment": "", "properties": {}},
                      timeout=10)
    assert r.status_code == 200, r.text
    assert r.json()["metalake"]["audit"]["creator"] == "ops"
    # Without a certificate the caller is anonymous under `simple`, and may not create one.
    r = requests.post(f"{tls_server.url}/api/metalakes", verify=ca,
                      json={"name": ml + "_x", "comment": "", "properties": {}}, timeout=10)
    assert r.status_code == 403, r.text
    # A certificate another CA signed fails the handshake: Cairn refuses it.
    rogue_cert, rogue_key, _ = pki["rogue"].issue("admin", server=False)
    with pytest.raises((requests.exceptions.SSLError, requests.exceptions.ConnectionError)):
        requests.get(f"{tls_server.url}/api/metalakes", verify=ca,
                     cert=(str(rogue_cert), str(rogue_key)), timeout=10)
    assert "event=tls_handshake_failed" in tls_server.log_path.read_text()
    requests.delete(f"{tls_server.url}/api/metalakes/{ml}?force=true", verify=ca,
                    cert=(str(ops_cert), str(ops_key)), timeout=10)


def test_pyiceberg_and_the_gravitino_client_over_https(tls_server, pki, monkeypatch):
    from gravitino import GravitinoAdminClient
    from pyiceberg.catalog import load_catalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField

    ca = str(pki["ca"].pem)
    cert, key, _ = pki["ca"].issue("admin", server=False)
    ml = f"tls_{uuid.uuid4().hex[:8]}"
    # The Gravitino client uses Python's default trust store: point it at the test CA. It sends
    # no client certificate, so it authenticates as admin with Basic (`simple`).
    monkeypatch.setenv("SSL_CERT_FILE", ca)
    # requests (under PyIceberg) lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE, when set, replace the
    # CA a session was given: a user of a private CA unsets them or points them at it.
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    from gravitino.auth.simple_auth_provider import SimpleAuthProvider
    monkeypatch.setenv("GRAVITINO_USER", "admin")
    admin = GravitinoAdminClient(uri=tls_server.url, auth_data_provider=SimpleAuthProvider())
    admin.create_metalake(ml, "over https", {})
    assert admin.load_metalake(ml).comment() == "over https"
    s = requests.Session()
    s.trust_env = False  # else REQUESTS_CA_BUNDLE, when set, overrides the session's CA
    s.verify, s.cert = ca, (str(cert), str(key))
    r = s.post(f"{tls_server.url}/api/metalakes/{ml}/catalogs", json={
        "name": "lake", "type": "relational", "provider": "lakehouse-iceberg", "comment": "",
        "properties": {"catalog-backend": "managed",
                       "warehouse": str(pki["dir"] / f"wh-{ml}")}}, timeout=10)
    assert r.status_code == 200, r.text
    catalog = load_catalog("tls", **{"type": "rest", "uri": f"{tls_server.url}/iceberg",
                                     "warehouse": f"{ml}.lake", "ssl": {
                                         "cabundle": ca,
                                         "client": {"cert": str(cert), "key": str(key)}}})
    catalog.create_namespace("sales")
    table = catalog.create_table(("sales", "orders"),
                                 Schema(NestedField(1, "id", LongType(), required=False)))
    assert table.metadata.location.startswith(str(pki["dir"]))
    created = s.get(f"{tls_server.url}/api/metalakes/{ml}/catalogs/lake/schemas/sales/tables/"
                    "orders", timeout=10).json()["table"]
    assert created["audit"]["creator"] == "admin"  # the certificate's name
    admin.drop_metalake(ml, force=True)


def test_a_new_certificate_reaches_new_connections_and_spares_open_ones(tls_server, pki):
    ca = pki["ca"].pem
    live_cert, live_key = tls_server.live
    assert served_serial(tls_server.port, ca) == tls_server.first_serial
    kept = requests.Session()
    kept.trust_env = False
    kept.verify = str(ca)
    assert kept.get(f"{tls_server.url}/api/version", timeout=10).status_code == 200

    # By SIGHUP.
    cert, key, serial = pki["ca"].issue("127.0.0.1", server=True)
    shutil.copy(key, live_key)
    shutil.copy(cert, live_cert)
    tls_server.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 10
    while served_serial(tls_server.port, ca) != serial and time.time() < deadline:
        time.sleep(0.05)
    assert served_serial(tls_server.port, ca) == serial
    # The connection opened before the reload still serves, on its old session.
    assert kept.get(f"{tls_server.url}/api/version", timeout=10).status_code == 200

    # By a change of the files, with no signal.
    cert, key, serial2 = pki["ca"].issue("127.0.0.1", server=True)
    shutil.copy(key, live_key)
    shutil.copy(cert, live_cert)
    deadline = time.time() + 10
    while served_serial(tls_server.port, ca) != serial2 and time.time() < deadline:
        time.sleep(0.05)
    assert served_serial(tls_server.port, ca) == serial2

    # A broken file is not put in front of clients: the last good certificate stays.
    live_cert.write_text("-----BEGIN CERTIFICATE-----\nnot a certificate\n")
    tls_server.proc.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    assert served_serial(tls_server.port, ca) == serial2
    assert "event=tls_reload_failed" in tls_server.log_path.read_text()
    shutil.copy(cert, live_cert)
    assert tls_server.proc.poll() is None


def start_refused(env: dict, host: str, tmp_path: Path) -> str:
    """Runs `cairn serve` expecting it to refuse to start; its output."""
    r = subprocess.run([str(cairn_binary()), "serve", "--host", host, "--port",
                        str(free_port()), "--data-dir", str(tmp_path / "data")],
                       env={**env, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                       timeout=30)
    assert r.returncode != 0, r.stdout + r.stderr
    return r.stdout + r.stderr


def test_bad_transport_settings_stop_the_start(pki, tmp_path):
    out = start_refused({}, "0.0.0.0", tmp_path)
    assert "cairn.server.plain-http" in out and "cairn.server.tls.cert-file" in out
    out = start_refused({"CAIRN_SERVER_TLS_CERT_FILE": str(pki["ca"].pem)}, "127.0.0.1",
                        tmp_path)
    assert "cairn.server.tls.key-file" in out
    bogus = tmp_path / "bogus.pem"
    bogus.write_text("nothing here")
    out = start_refused({"CAIRN_SERVER_TLS_CERT_FILE": str(bogus),
                         "CAIRN_SERVER_TLS_KEY_FILE": str(bogus)}, "127.0.0.1", tmp_path)
    assert "cairn.server.tls.cert-file" in out
    cert, _, _ = pki["ca"].issue("127.0.0.1", server=True)
    _, other_key, _ = pki["ca"].issue("127.0.0.1", server=True)
    out = start_refused({"CAIRN_SERVER_TLS_CERT_FILE": str(cert),
                         "CAIRN_SERVER_TLS_KEY_FILE": str(other_key)}, "127.0.0.1", tmp_path)
    assert "cairn.server.tls.key-file" in out and "mismatch" in out
    out = start_refused({"CAIRN_AUTHENTICATORS": "certificate"}, "127.0.0.1", tmp_path)
    assert "cairn.server.tls.client-ca-file" in out
    # Secrets and trust material never come or go over plain HTTP to another machine
    # (192.0.2.10 is a documentation address: nothing is contacted).
    out = start_refused({"CAIRN_AUTHENTICATORS": "oauth2",
                         "CAIRN_AUTHENTICATOR_OAUTH2_JWKS_URL": "http://192.0.2.10/keys"},
                        "127.0.0.1", tmp_path)
    assert "http://192.0.2.10/keys" in out and "https://" in out
    out = start_refused({"CAIRN_LINEAGE_FORWARD_URL": "http://192.0.2.10:5000",
                         "CAIRN_LINEAGE_FORWARD_API_KEY": "k"}, "127.0.0.1", tmp_path)
    assert "cairn.lineage.forward.url" in out and "clear text" in out
