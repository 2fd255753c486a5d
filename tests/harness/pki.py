"""A certificate authority for tests: a CA, and server and client certificates it signs, as PEM
files (and a Java trust store for JVM clients such as Trino). Used by the TLS tests of the e2e
and engines suites; nothing here talks to the network."""

from __future__ import annotations

import datetime
import ipaddress
import uuid
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _alt_name(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


class Ca:
    """A certificate authority of the test, writing PEM files into `folder`."""

    def __init__(self, folder: Path, name: str):
        self.folder = folder
        self.key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.timezone.utc)
        self.cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                     .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(minutes=5))
                     .not_valid_after(now + datetime.timedelta(days=2))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
                     .add_extension(x509.KeyUsage(False, False, False, False, False, True, True,
                                                  False, False), True)
                     .sign(self.key, hashes.SHA256()))
        self.pem = folder / f"{name}.pem"
        self.pem.write_bytes(self.cert.public_bytes(serialization.Encoding.PEM))

    def issue(self, name: str, server: bool,
              hosts: tuple[str, ...] = ("localhost", "127.0.0.1")) -> tuple[Path, Path, int]:
        """A leaf certificate for `name` (a server's for `hosts`, names or addresses, or a
        client's): its PEM files and serial number."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        serial = x509.random_serial_number()
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
                   .issuer_name(self.cert.subject).public_key(key.public_key())
                   .serial_number(serial).not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.ExtendedKeyUsage(
                       [ExtendedKeyUsageOID.SERVER_AUTH if server
                        else ExtendedKeyUsageOID.CLIENT_AUTH]), False))
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName(
                [_alt_name(h) for h in hosts]), False)
        cert = builder.sign(self.key, hashes.SHA256())
        tag = uuid.uuid4().hex[:8]
        cert_path, key_path = self.folder / f"{name}-{tag}.crt", self.folder / f"{name}-{tag}.key"
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        return cert_path, key_path, serial

    def pkcs12_key_store(self, cert_path: Path, key_path: Path, path: Path,
                         password: str = "changeit") -> Path:
        """A PKCS#12 key store of one certificate `issue` made (and this CA above it), for a
        JVM server such as Kafka."""
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        path.write_bytes(pkcs12.serialize_key_and_certificates(
            b"server", key, cert, [self.cert],
            serialization.BestAvailableEncryption(password.encode())))
        return path

    def java_trust_store(self, path: Path, password: str = "changeit") -> Path:
        """A PKCS#12 trust store holding this CA, as the JVM's javax.net.ssl.trustStore."""
        path.write_bytes(pkcs12.serialize_java_truststore(
            [pkcs12.PKCS12Certificate(self.cert, b"cairn-test-ca")],
            serialization.BestAvailableEncryption(password.encode())))
        return path
