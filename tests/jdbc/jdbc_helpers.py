"""Access to the source databases of the jdbc suite through their command-line clients, and
request bodies for jdbc catalogs."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from urllib.parse import urlsplit

SEP = "\x1f"


@dataclass
class PgSource:
    """One PostgreSQL database of the shared test cluster."""

    host: str
    port: int
    user: str
    database: str

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://{self.host}:{self.port}/{self.database}"

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.database}"

    @classmethod
    def from_url(cls, url: str) -> "PgSource":
        p = urlsplit(url)
        return cls(p.hostname or "127.0.0.1", p.port or 5432, p.username or "postgres",
                   p.path.lstrip("/"))

    def query(self, sql: str) -> list[list[str]]:
        """Rows of the last statement of `sql` (psql, unaligned, fields split)."""
        out = subprocess.run(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-A", "-t", "-F", SEP, "-d", self.url,
             "-c", sql], check=True, capture_output=True, text=True, timeout=60).stdout
        return [line.split(SEP) for line in out.splitlines() if line != ""]

    def exec(self, sql: str) -> None:
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.url, "-c", sql],
                       check=True, capture_output=True, text=True, timeout=60)

    def catalog_body(self, name: str, **extra) -> dict:
        props = {"jdbc-url": self.jdbc_url, "jdbc-user": self.user,
                 "jdbc-password": "unused-with-trust-auth", "jdbc-database": self.database,
                 "jdbc-driver": "org.postgresql.Driver"}
        props.update(extra)
        return {"name": name, "type": "relational", "provider": "jdbc-postgresql",
                "comment": "postgres source", "properties": props}


@dataclass
class MysqlSource:
    """The suite's MariaDB server (tests/harness/mariadb.sh)."""

    host: str
    port: int
    user: str
    password: str

    @classmethod
    def from_env(cls) -> "MysqlSource | None":
        if not os.environ.get("CAIRN_TEST_MYSQL_PORT"):
            return None
        return cls(os.environ.get("CAIRN_TEST_MYSQL_HOST", "127.0.0.1"),
                   int(os.environ["CAIRN_TEST_MYSQL_PORT"]),
                   os.environ.get("CAIRN_TEST_MYSQL_USER", "cairn"),
                   os.environ.get("CAIRN_TEST_MYSQL_PASSWORD", ""))

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:mysql://{self.host}:{self.port}"

    def _run(self, sql: str) -> str:
        return subprocess.run(
            ["mariadb", "--no-defaults", "--protocol=TCP", "-h", self.host, "-P", str(self.port),
             "-u", self.user, f"-p{self.password}", "-N", "-B", "-e", sql],
            check=True, capture_output=True, text=True, timeout=60).stdout

    def query(self, sql: str) -> list[list[str]]:
        return [line.split("\t") for line in self._run(sql).splitlines() if line != ""]

    def exec(self, sql: str) -> None:
        self._run(sql)

    def catalog_body(self, name: str, **extra) -> dict:
        props = {"jdbc-url": self.jdbc_url, "jdbc-user": self.user,
                 "jdbc-password": self.password, "jdbc-driver": "com.mysql.cj.jdbc.Driver"}
        props.update(extra)
        return {"name": name, "type": "relational", "provider": "jdbc-mysql",
                "comment": "mysql source", "properties": props}


def col(name: str, type_, nullable: bool = True, **extra) -> dict:
    c = {"name": name, "type": type_, "nullable": nullable}
    c.update(extra)
    return c


def literal(data_type, value: str) -> dict:
    return {"type": "literal", "dataType": data_type, "value": value}


NULL_LITERAL = {"type": "literal", "dataType": "null", "value": "NULL"}
