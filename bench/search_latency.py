"""Dense top-10 latency through the real code path vs a bare numpy (and faiss) flat search on the same vectors,
plus a full hybrid query (FTS5 + dense + fusion, query embedding excluded) on a 100k-chunk index.

    python bench/search_latency.py [--sizes 10000,100000,1000000] [--queries 50] [--json]

Synthetic unit vectors (384 dims) and synthetic chunk texts, written through the real Store API. Each size
reports the median over the queries; `ratio` = ours / numpy, measured in the same process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.chunking import Chunk  # noqa: E402
from rag.config import load_settings  # noqa: E402
from rag.retrieve import Retriever  # noqa: E402
from rag.store import FileInfo, FileState, Store  # noqa: E402
from rag.vectors import VectorIndex  # noqa: E402

DIM = 384
MODEL = "bench-model"
WORDS = "alpha beta gamma delta sourdough levain hydration sqlite wal index vector query moscow kazan baikal".split()


class QueryOnly:
    """Stands in for the embedder: the benchmark excludes query embedding, so it returns a fixed vector."""

    name, dim, window = MODEL, DIM, 512

    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector

    def embed_query(self, text: str) -> np.ndarray:
        return self.vector


def build_store(path: Path, n: int, rng: np.random.Generator, *, per_file: int = 200) -> Store:
    store = Store.open(path, create=True)
    for start in range(0, n, per_file):
        count = min(per_file, n - start)
        rel = f"f{start // per_file}.md"
        chunks = [_chunk(rel, start + i, rng) for i in range(count)]
        store.replace_file(FileState(rel, "x", 0.0, 0), FileInfo(rel, "x", None, (), (), 2, None), chunks, [c.index_text for c in chunks])
        vectors = rng.standard_normal((count, DIM), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.put_vectors(MODEL, [c.vector_key for c in chunks], vectors)
    return store


def _chunk(rel: str, i: int, rng) -> Chunk:
    text = " ".join(rng.choice(WORDS, 12)) + f" item{i}"
    return Chunk(f"c{i}", rel, "H", 1, 1, 0, len(text), text, f"s{i}", 20, text, f"k{i}")


def median_ms(fn, queries) -> float:
    times = []
    for q in queries:
        started = time.perf_counter()
        fn(q)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 3)


def bench_size(n: int, queries: np.ndarray, rng) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        store = build_store(Path(tmp) / "index.db", n, rng)
        index = VectorIndex(store, MODEL)
        index.search(queries[0], 10)  # load and cache the matrix once, as a running app has
        _, matrix = store.vectors(MODEL)
        ours = median_ms(lambda q: index.search(q, 10), queries)
        numpy_ms = median_ms(lambda q: np.argpartition(-(matrix @ q), 10)[:10], queries)
        row = {"ours_ms": ours, "numpy_ms": numpy_ms, "ratio": round(ours / numpy_ms, 3)}
        faiss_ms = _faiss(matrix, queries)
        if faiss_ms is not None:
            row.update(faiss_ms=faiss_ms, ratio_faiss=round(ours / faiss_ms, 3))
        hybrid = None
        if n == 100_000:
            settings = load_settings(vault=Path(tmp), db_path=Path(tmp) / "index.db", env={})
            retriever = Retriever(settings, store, QueryOnly(queries[0]))
            texts = [" ".join(rng.choice(WORDS, 4)) for _ in range(len(queries))]
            hybrid = median_ms(lambda t: retriever.hybrid(t, 10), texts)
        store.close()
        return {"row": row, "hybrid_ms": hybrid}


def _faiss(matrix: np.ndarray, queries: np.ndarray) -> float | None:
    try:
        import faiss
    except ImportError:
        return None
    index = faiss.IndexFlatIP(matrix.shape[1])
    index.add(matrix)
    return median_ms(lambda q: index.search(q[None, :], 10), queries)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    queries = rng.standard_normal((args.queries, DIM), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    result: dict = {"dense": {}, "hybrid_100k_ms": None}
    for n in (int(s) for s in args.sizes.split(",")):
        out = bench_size(n, queries, rng)
        result["dense"][str(n)] = out["row"]
        if out["hybrid_ms"] is not None:
            result["hybrid_100k_ms"] = out["hybrid_ms"]
        print(f"{n}: {out['row']}", file=sys.stderr)
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
