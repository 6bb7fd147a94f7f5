"""Dense top-10 latency through the real code path vs a bare numpy (and faiss) flat search on the same vectors,
plus a full hybrid query (FTS5 + dense + fusion, query embedding excluded) on a 100k-chunk index.

    python bench/search_latency.py [--sizes 10000,100000,1000000] [--sentences 0] [--queries 50] [--json]

With `--sentences K` every chunk also has K sentence vectors (real notes: 5–7), and the baseline is a flat search
over all (1 + K) · n vectors: ours adds the per-chunk best-sentence maximum and the score combination.

Synthetic unit vectors (384 dims) and synthetic chunk texts, written through the real Store API. Each size
reports the median over the queries; `ratio` = ours / numpy, measured in the same process on the very matrix our
index cached, with the two timed alternately query by query so load spikes hit both. The baseline does what a
top-10 must (matmul, argpartition, order the 10); ours adds the cache check (one SQLite read) and rowid mapping.
Chunk texts draw 12 words from a Zipf-distributed vocabulary of 20,000 words, as text does: its head is the 134
English stop words (about half of all tokens, as in English prose), the rest pseudo-words. They are stemmed for
FTS5 exactly as sync does. Hybrid queries draw 4 words from the same distribution, so they carry stop words, which
the query side drops as it does for real questions. (Without that head, the most common content words would sit
in 70 % of chunks, and FTS5 ranks every match of an OR query: ~170 ms for BM25 alone at 100k chunks.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rag.config import load_settings
from rag.index.chunking import Chunk
from rag.index.records import FileInfo, FileState
from rag.index.store import Store
from rag.search.retrieve import Retriever
from rag.search.vectors import VectorIndex
from rag.text import stemming

DIM = 384
MODEL = "bench-model"
VOCAB = 20_000
_SYLLABLES = "ka lo mi nu pe ra si to vu ze ba de fi go hu".split()
_STOP = sorted(w for w in stemming.STOP_WORDS if w.isascii())
WORDS = np.array(_STOP + ["".join(_SYLLABLES[(i // 15**j) % 15] for j in range(4)) for i in range(VOCAB - len(_STOP))])
_ZIPF = 1.0 / np.arange(1, VOCAB + 1)
_ZIPF /= _ZIPF.sum()


def words(rng: np.random.Generator, count: int) -> list[str]:
    return list(WORDS[rng.choice(VOCAB, count, p=_ZIPF)])


class QueryOnly:
    """Stands in for the embedder: the benchmark excludes query embedding, so it returns a fixed vector."""

    name, dim, window = MODEL, DIM, 512

    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector

    def embed_query(self, text: str) -> np.ndarray:
        return self.vector


def build_store(path: Path, n: int, rng: np.random.Generator, *, sentences: int = 0, per_file: int = 1000) -> Store:
    """n chunks (each with `sentences` sentence rows) in files of `per_file` chunks, one transaction per file (1M
    chunks take a few minutes)."""
    store = Store.open(path, create=True)
    for start in range(0, n, per_file):
        count = min(per_file, n - start)
        rel = f"f{start // per_file}.md"
        chunks = [_chunk(rel, start + i, rng) for i in range(count)]
        stems = [stemming.index_text(c.index_text) for c in chunks]
        units = [[(f"s{j}", 1, f"{c.vector_key}s{j}", "latin") for j in range(sentences)] for c in chunks]
        store.replace_file(FileState(rel, "x", 0.0, 0), FileInfo(rel, "x", None, (), (), 2, None), chunks, stems, units)
        keys = [c.vector_key for c in chunks] + [row[2] for rows in units for row in rows]
        vectors = rng.standard_normal((len(keys), DIM), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.put_vectors(MODEL, keys, vectors)
    return store


def _chunk(rel: str, i: int, rng) -> Chunk:
    text = " ".join(words(rng, 12)) + f" item{i}"
    return Chunk(f"c{i}", rel, "H", 1, 1, 0, len(text), text, f"s{i}", 20, text, f"k{i}")


def median_ms(fn, queries) -> float:
    return paired_median_ms([fn], queries)[0]


def paired_median_ms(fns, queries) -> list[float]:
    """Median ms of each fn over the queries, the fns timed alternately on each query (after one warm-up)."""
    for fn in fns:
        fn(queries[0])
    times: list[list[float]] = [[] for _ in fns]
    for q in queries:
        for fn, out in zip(fns, times):
            started = time.perf_counter()
            fn(q)
            out.append((time.perf_counter() - started) * 1000)
    return [round(statistics.median(t), 3) for t in times]


def numpy_top10(matrix: np.ndarray, q: np.ndarray) -> np.ndarray:
    scores = matrix @ q
    best = np.argpartition(-scores, 10)[:10]
    return best[np.argsort(-scores[best])]


def bench_size(n: int, queries: np.ndarray, rng, sentences: int = 0) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        store = build_store(Path(tmp) / "index.db", n, rng, sentences=sentences)
        index = VectorIndex(store, MODEL, sentence_weight=1.0 if sentences else 0.0)
        started = time.perf_counter()
        index.search(queries[0], 10)  # load and cache the matrix once, as a running app has
        load_s = time.perf_counter() - started
        matrix = index._matrix  # the very matrix our search scans: same memory, same layout
        if sentences:  # the same vectors in one flat matrix
            matrix = np.vstack([matrix, index._sentences.matrix])
        ours, numpy_ms = paired_median_ms([lambda q: index.search(q, 10), lambda q: numpy_top10(matrix, q)], queries)
        row = {"ours_ms": ours, "numpy_ms": numpy_ms, "ratio": round(ours / numpy_ms, 3), "matrix_load_s": round(load_s, 2)}
        faiss_ms = _faiss(matrix, queries, ours_fn=lambda q: index.search(q, 10))
        if faiss_ms is not None:
            row.update(faiss_ms=faiss_ms[1], ours_vs_faiss_ms=faiss_ms[0], ratio_faiss=round(faiss_ms[0] / faiss_ms[1], 3))
        hybrid = None
        if n == 100_000:
            settings = load_settings(vault=Path(tmp), db_path=Path(tmp) / "index.db", env={}, sentence_vectors=sentences > 0)
            retriever = Retriever(settings, store, QueryOnly(queries[0]))
            texts = [" ".join(words(rng, 4)) for _ in range(len(queries))]
            hybrid = median_ms(lambda t: retriever.hybrid(t, 10), texts)
        store.close()
        return {"row": row, "hybrid_ms": hybrid}


def _faiss(matrix: np.ndarray, queries: np.ndarray, *, ours_fn) -> list[float] | None:
    """(ours, faiss) medians, timed alternately; None when faiss is not installed."""
    try:
        import faiss
    except ImportError:
        return None
    index = faiss.IndexFlatIP(matrix.shape[1])
    index.add(matrix)
    result = paired_median_ms([ours_fn, lambda q: index.search(q[None, :], 10)], queries)
    index.reset()
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--sentences", type=int, default=0, help="sentence vectors per chunk")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    queries = rng.standard_normal((args.queries, DIM), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    result: dict = {"sentences_per_chunk": args.sentences, "dense": {}, "hybrid_100k_ms": None, "load_avg_start": os.getloadavg()}
    for n in (int(s) for s in args.sizes.split(",")):
        out = bench_size(n, queries, rng, args.sentences)
        result["dense"][str(n)] = out["row"]
        if out["hybrid_ms"] is not None:
            result["hybrid_100k_ms"] = out["hybrid_ms"]
        print(f"{n}: {out['row']}", file=sys.stderr)
    result["load_avg_end"] = os.getloadavg()
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
