"""The documents-to-vectors pipeline of examples/lance-embeddings against a live server: text
files in a fileset, their passages embedded by all-MiniLM-L6-v2 (run from the files its package
ships) into a Lance table cataloged beside the fileset, and questions answered by meaning with
pylance's vector search, each answer pointing at the file it came from in the fileset."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lance-embeddings"
sys.path.insert(0, str(EXAMPLE))

import pipeline  # noqa: E402
from minilm import MiniLM  # noqa: E402


@pytest.fixture(scope="module")
def model():
    return MiniLM()


def test_the_encoder_gives_the_model_s_published_similarities(model):
    # sentence-transformers' quick-start pair scores for all-MiniLM-L6-v2.
    v = model.encode(["The weather is lovely today.", "It's so sunny outside!",
                      "He drove to the stadium."])
    sims = v @ v.T
    assert v.shape == (3, 384)
    assert abs(sims[0, 1] - 0.6660) < 2e-3
    assert abs(sims[0, 2] - 0.1046) < 2e-3
    assert abs(sims[1, 2] - 0.1411) < 2e-3


def test_chunks_keep_their_offsets_in_the_document():
    text = (EXAMPLE / "docs" / "orbits.txt").read_text()
    passages = pipeline.chunk(text, "x", max_words=20)
    assert len(passages) > 3
    for p in passages:
        assert text[p.start:p.end] == p.text and p.text.strip() == p.text
    covered = " ".join(p.text for p in passages).split()
    assert covered == text.split()


QUESTIONS = [
    ("What makes a loaf get bigger before it goes in the oven?", "sourdough.txt"),
    ("Why does melted stone come up out of mountains?", "volcanoes.txt"),
    ("Which animals live in the water left on the beach at low water?", "tide-pools.txt"),
    ("How come a spacecraft circling the planet does not come down?", "orbits.txt"),
]


def test_documents_to_a_table_searchable_by_meaning(base_url, metalake_name, api, tmp_path,
                                                    model):
    lake = pipeline.Lake(base_url, metalake_name)
    root = tmp_path / "lake"
    n = pipeline.build(lake, EXAMPLE / "docs", root, model=model)
    assert n == 12

    # The documents are in the fileset's storage and the table beside it in the catalog.
    fileset_dir = root / "library" / "corpus" / "docs"
    assert sorted(p.name for p in fileset_dir.iterdir()) == sorted(
        p.name for p in (EXAMPLE / "docs").glob("*.txt"))
    cats = {c["name"]: c["provider"] for c in
            api.get(f"metalakes/{metalake_name}/catalogs", params={"details": "true"})
            .json()["catalogs"]}
    assert cats == {"library": "fileset", "ai": "lakehouse-generic"}
    t = api.get(f"metalakes/{metalake_name}/catalogs/ai/schemas/rag/tables/passages").json()
    assert t["table"]["properties"]["format"] == "lance"
    assert t["table"]["properties"]["source-fileset"] == "library.corpus.docs"
    assert (root / "ai" / "rag" / "passages" / "_versions").is_dir()

    for question, doc in QUESTIONS:
        hits = pipeline.query(lake, question, k=3, model=model)
        assert len(hits) == 3
        best = hits[0]
        assert best.source == pipeline.fileset_path(doc), (question, [h.source for h in hits])
        assert best.distance <= hits[1].distance
        # The pointer resolves, through the fileset, to the file and the very passage.
        assert pipeline.resolve(lake, best) == best.text
        rel = best.source.removeprefix(pipeline.fileset_path() + "/")
        assert (fileset_dir / rel).read_text()[best.start:best.end] == best.text

    # Building again replaces the table's contents rather than doubling them.
    assert pipeline.build(lake, EXAMPLE / "docs", root, model=model) == 12
    import lance
    ds = lance.dataset(namespace_client=lake.namespace(), table_id=["ai", "rag", "passages"])
    assert ds.count_rows() == 12


def test_the_example_runs_as_a_script(base_url, metalake_name, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(EXAMPLE)}
    common = [sys.executable, str(EXAMPLE / "pipeline.py"), "--server", base_url,
              "--metalake", metalake_name]
    out = subprocess.run(common + ["build", "--root", str(tmp_path / "lake")], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "wrote 12 passages to ai.rag.passages" in out.stdout
    out = subprocess.run(common + ["query", "-k", "1", "Where do crabs hide when the sea is out?"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    import json
    [hit] = [json.loads(line) for line in out.stdout.splitlines()]
    assert hit["source"] == pipeline.fileset_path("tide-pools.txt"), hit
