"""Storage roots for the fileset tests.

A fileset test gets a `FilesetStorage` (fixture `storage` in test_fileset.py): a fresh root
location plus the few operations the tests need to check what the server did to the files.
`local` is a temporary directory. Other kinds (e.g. an S3-compatible store) are added by
implementing the same methods and naming the kind in CAIRN_FILESET_STORAGES (space-separated,
default "local"); `catalog_properties` carries what a catalog needs to reach the store.
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

    def mkdir(self, rel: str) -> None:
        self.path(rel).mkdir(parents=True, exist_ok=True)

    def exists(self, rel: str) -> bool:
        return self.path(rel).exists()

    def is_dir(self, rel: str) -> bool:
        return self.path(rel).is_dir()


def storage_kinds() -> list[str]:
    return os.environ.get("CAIRN_FILESET_STORAGES", "local").split()


def make_storage(kind: str, tmp_path: Path) -> FilesetStorage:
    if kind == "local":
        return LocalStorage(tmp_path / "fileset-root")
    raise ValueError(f"unknown fileset storage kind {kind!r} (CAIRN_FILESET_STORAGES)")
