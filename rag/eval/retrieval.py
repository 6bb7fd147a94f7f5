"""Retrieval evaluation on BEIR-style data (corpus.jsonl, queries.jsonl, qrels.tsv) through the real pipeline.

The corpus becomes a vault (one Markdown file per document, named by its id, title as a heading), indexed with
the normal sync (so chunking, stemming and fusion are what users get). Chunk hits map back to documents (a
document's score is its best chunk). Metrics follow the standard BEIR / pytrec_eval definitions.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rag.search.retrieve import TOKEN_DEPTH
from rag.search.when import timed_hybrid, today_for
from rag.workspace import Workspace

CUTOFF = 10
DEPTH = 100  # documents ranked per query (Recall@100)


@dataclass(frozen=True)
class Dataset:
    name: str
    corpus: list[dict]
    queries: list[dict]
    qrels: dict[str, dict[str, int]]  # query id → {doc id: relevance}


def load_dataset(folder: Path, *, limit: int | None = None) -> Dataset:
    from rag.errors import RagError

    files = [folder / n for n in ("corpus.jsonl", "queries.jsonl", "qrels.tsv")]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise RagError(
            f"{folder} is not a retrieval dataset: missing {', '.join(missing)}. Point at a folder with corpus.jsonl, queries.jsonl and qrels.tsv."
        )
    corpus = _jsonl(files[0])
    qrels: dict[str, dict[str, int]] = {}
    for line in files[2].read_text(encoding="utf-8").splitlines()[1:]:
        if line.strip():
            qid, did, score = line.split("\t")
            qrels.setdefault(qid, {})[did] = int(score)
    queries = [q for q in _jsonl(files[1]) if q["id"] in qrels]
    return Dataset(folder.name, corpus, queries[:limit] if limit else queries, qrels)


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def doc_file_name(doc_id: str) -> str:
    return re.sub(r"[^\w.-]", "_", doc_id) + ".md"


def write_dataset(folder: Path, corpus: list[dict], queries: list[dict], qrels: list[tuple[str, str]]) -> Path:
    """A dataset folder `load_dataset` reads (corpus.jsonl, queries.jsonl, qrels.tsv with relevance 1), for benches
    that build their own sets from the eval data."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in corpus), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries), encoding="utf-8")
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in qrels), encoding="utf-8")
    return folder


def write_vault(dataset: Dataset, vault: Path) -> dict[str, str]:
    """One note per document (rewritten only if different, so a kept index stays valid). Returns path → doc id."""
    vault.mkdir(parents=True, exist_ok=True)
    mapping = {}
    for doc in dataset.corpus:
        name = doc_file_name(doc["id"])
        title = (doc.get("title") or "").strip()
        text = f"# {title}\n\n{doc['text'].strip()}\n" if title else f"{doc['text'].strip()}\n"
        path = vault / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        mapping[name] = doc["id"]
    return mapping


# --- metrics (pure) -------------------------------------------------------------------------------------------


def ndcg_at(ranked: list[str], relevant: dict[str, int], k: int = CUTOFF) -> float:
    """nDCG@k with gain = relevance and discount log2(rank + 1), as in pytrec_eval's ndcg_cut."""
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], relevant: dict[str, int], k: int) -> float:
    wanted = {d for d, r in relevant.items() if r > 0}
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def mrr_at(ranked: list[str], relevant: dict[str, int], k: int = CUTOFF) -> float:
    for i, d in enumerate(ranked[:k]):
        if relevant.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def score_run(run: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    """Mean metrics over the queries in `run`."""
    n = len(run) or 1
    sums = {"ndcg@10": 0.0, "recall@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0}
    for qid, ranked in run.items():
        rel = qrels[qid]
        sums["ndcg@10"] += ndcg_at(ranked, rel)
        sums["recall@10"] += recall_at(ranked, rel, 10)
        sums["recall@100"] += recall_at(ranked, rel, 100)
        sums["mrr@10"] += mrr_at(ranked, rel)
    return {k: round(v / n, 4) for k, v in sums.items()}


def documents(chunk_paths: list[str], mapping: dict[str, str], depth: int = DEPTH) -> list[str]:
    """Chunk ranking → document ranking (a document ranks at its best chunk)."""
    seen: dict[str, None] = {}
    for path in chunk_paths:
        doc = mapping.get(path)
        if doc is not None:
            seen.setdefault(doc, None)
            if len(seen) >= depth:
                break
    return list(seen)


# --- running the channels -------------------------------------------------------------------------------------


def channel_runners(ws: Workspace) -> dict[str, Callable[[str], list[str]]]:
    """Each channel as query → chunk paths, best first, deep enough for Recall@100 at the document level."""
    r = ws.retriever
    n = DEPTH * 3
    today = today_for(ws.settings)

    def paths(rowids: list[int]) -> list[str]:
        chunks = ws.store.chunks_by_rowid(rowids)
        return [chunks[i].path for i in rowids if i in chunks]

    return {
        "bm25": lambda q: paths([i for i, _ in r.keyword_ranking(q, n)]),
        "dense": lambda q: paths([i for i, _ in r.dense_ranking(q, n)]),
        "crossing": lambda q: paths([i for i, _ in r.crossing_ranking(q, n)]),  # the keyword channel between scripts
        # meaning's candidates scored again word by word against the question, across scripts
        "lexicon": lambda q: paths([i for i, _ in r.lexicon_ranking(q, [i for i, _ in r.dense_ranking(q, n)])]),
        # meaning's best TOKEN_DEPTH re-ordered by their token match with the question alone, across scripts
        "tokens": lambda q: paths([i for i, _ in r.token_ranking(q, [i for i, _ in r.dense_ranking(q, TOKEN_DEPTH)])]),
        # fused exactly as users get it (fusion_depth candidates per channel, the time a question names applied);
        # Recall@100 counts their union
        "hybrid": lambda q: [h.chunk.path for h in timed_hybrid(r, q, n, today=today).hits],
    }


def evaluate(ws: Workspace, dataset: Dataset, mapping: dict[str, str], channels: list[str]) -> dict:
    started = time.perf_counter()
    runners = channel_runners(ws)
    results = {}
    for name in channels:
        run = {q["id"]: documents(runners[name](q["text"]), mapping) for q in dataset.queries}
        results[name] = score_run(run, dataset.qrels)
    return {"dataset": dataset.name, "queries": len(dataset.queries), "channels": results, "seconds": round(time.perf_counter() - started, 2)}
