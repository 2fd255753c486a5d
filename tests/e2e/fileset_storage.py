"""Storage roots for the fileset tests.

A fileset test gets a `FilesetStorage` (fixture `storage` in test_fileset.py): a fresh root
location plus the few operations the tests need to check what the server did to the files.
`local` is a temporary directory; `s3` a fresh prefix on the run's MinIO (CAIRN_TEST_S3_ENDPOINT).
CAIRN_FILESET_STORAGES (space-separated) picks the kinds; the default is "local s3" when the
run has a MinIO, else "local". `catalog_properties` carries what a catalog needs to reach the
store.
"""

from __future__ import annotations

import os
from pathlib import Path


class FilesetStorage:
    kind = "abstract"
    catalog_properties: dict = {}

    def uri(self, rel: str = "") -> str:
        """The location of `rel` below the root, as the server reports it."""
        raise NotImplementedError

    def input(self, rel: str = "") -> str:
        """The location of `rel` as a user would type it (may differ in form from `uri`)."""
        return self.uri(rel)

    def write(self, rel: str, data: bytes) -> None:
        raise NotImplementedError

    def read(self, rel: str) -> bytes:
        raise NotImplementedError

    def mkdir(self, rel: str) -> None:
        raise NotImplementedError

    def exists(self, rel: str) -> bool:
        """A file, or a directory (a non-empty prefix on object storage)."""
        raise NotImplementedError

    def is_dir(self, rel: str) -> bool:
        raise NotImplementedError

    @property
    def has_directories(self) -> bool:
        """False on object storage, where an empty directory does not exist."""
        return True


class LocalStorage(FilesetStorage):
    kind = "local"

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.catalog_properties = {}

    def path(self, rel: str = "") -> Path:
        return self.root / rel if rel else self.root

    def uri(self, rel: str = "") -> str:
        # The server keeps local locations as `file:/abs/path`.
        return "file:" + str(self.path(rel))

    def input(self, rel: str = "") -> str:
        return str(self.path(rel))

    def write(self, rel: str, data: bytes) -> None:
        p = self.path(rel)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)

    def read(self, rel: str) -> bytes:
        return self.path(rel).read_bytes()

    def mkdir(self, rel: str) -> None:
        self.path(rel).mkdir(parents=True, exist_ok=True)

    def exists(self, rel: str) -> bool:
        return self.path(rel).exists()

    def is_dir(self, rel: str) -> bool:
        return self.path(rel).is_dir()


class S3Storage(FilesetStorage):
    """A fresh prefix in the bucket `warehouse` of the run's MinIO (CAIRN_TEST_S3_ENDPOINT),
    checked with boto3 and the root keys."""

    kind = "s3"
    BUCKET = "warehouse"

    def __init__(self, endpoint: str, prefix: str):
        import boto3
        from botocore.config import Config

        self.prefix = prefix.strip("/")
        self.catalog_properties = {"s3-endpoint": endpoint, "s3-region": "us-east-1",
                                   "s3-access-key-id": "admin", "s3-secret-access-key": "password",
                                   "s3-path-style-access": "true",
                                   # engines (the client's virtual file system) get scoped keys
                                   "credential-providers": "s3-token"}
        self.s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                               aws_access_key_id="admin", aws_secret_access_key="password",
                               config=Config(s3={"addressing_style": "path"}))

    def key(self, rel: str = "") -> str:
        return f"{self.prefix}/{rel.strip('/')}" if rel else self.prefix

    def uri(self, rel: str = "") -> str:
        # s3a://, the scheme Gravitino filesets (and its client's virtual file system) use
        return f"s3a://{self.BUCKET}/{self.key(rel)}"

    def write(self, rel: str, data: bytes) -> None:
        self.s3.put_object(Bucket=self.BUCKET, Key=self.key(rel), Body=data)

    def read(self, rel: str) -> bytes:
        return self.s3.get_object(Bucket=self.BUCKET, Key=self.key(rel))["Body"].read()

    def mkdir(self, rel: str) -> None:
        pass  # a prefix exists once something is written below it

    def _listing(self, rel: str) -> int:
        out = self.s3.list_objects_v2(Bucket=self.BUCKET, Prefix=self.key(rel) + "/", MaxKeys=1)
        return out.get("KeyCount", 0)

    def exists(self, rel: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.s3.head_object(Bucket=self.BUCKET, Key=self.key(rel))
            return True
        except ClientError:
            return self._listing(rel) > 0

    def is_dir(self, rel: str) -> bool:
        return self._listing(rel) > 0

    @property
    def has_directories(self) -> bool:
        return False


def storage_kinds() -> list[str]:
    default = "local s3" if os.environ.get("CAIRN_TEST_S3_ENDPOINT") else "local"
    return os.environ.get("CAIRN_FILESET_STORAGES", default).split()


def make_storage(kind: str, tmp_path: Path) -> FilesetStorage:
    if kind == "local":
        return LocalStorage(tmp_path / "fileset-root")
    if kind == "s3":
        import uuid

        endpoint = os.environ.get("CAIRN_TEST_S3_ENDPOINT")
        if not endpoint:
            raise ValueError("fileset storage kind 's3' needs CAIRN_TEST_S3_ENDPOINT (the run's MinIO)")
        return S3Storage(endpoint, f"filesets-{uuid.uuid4().hex[:12]}")
    raise ValueError(f"unknown fileset storage kind {kind!r} (CAIRN_FILESET_STORAGES)")
