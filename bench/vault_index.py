"""Index a real vault from scratch, re-index it unchanged, and time hybrid searches (query embedding included).

    python bench/vault_index.py $RAG_EVAL_DATA/qa/xquad/vault-ru --questions $RAG_EVAL_DATA/qa/xquad/qa.ru.jsonl [--json]

Prints index time and chunk counts, the no-change re-index time and how many chunks it embedded (must be 0),
and the median and p90 latency of 20 searches. The baseline in the same run is the embedder alone on the same
chunk texts, so the ratio says how much of indexing is the model (the rest is chunking, SQLite, bookkeeping).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from rag.config import load_settings
from rag.index.text_rows import INDEX_TEXT
from rag.workspace import Workspace


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("vault", type=Path)
    parser.add_argument("--questions", type=Path, help="JSONL with a `question` or `text` field; the first 20 are searched")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(vault=args.vault, db_path=Path(tmp) / "index.db")
        with Workspace.open(settings, create=True) as ws:
            started = time.perf_counter()
            first = ws.sync()
            index_s = time.perf_counter() - started
            started = time.perf_counter()
            second = ws.sync()
            reindex_s = time.perf_counter() - started
            texts = [r[0] for r in sqlite3.connect(settings.db_path).execute(f"SELECT {INDEX_TEXT} FROM chunks c")]
            started = time.perf_counter()
            ws.embedder.embed_passages(texts)
            embed_s = time.perf_counter() - started
            questions = _questions(args.questions)
            latencies = []
            for q in questions:
                started = time.perf_counter()
                ws.retriever.hybrid(q, 10)
                latencies.append((time.perf_counter() - started) * 1000)
    result = {
        "vault": str(args.vault),
        "notes": first.files_added,
        "chunks": first.chunks_total,
        "index_s": round(index_s, 2),
        "embedder_alone_s": round(embed_s, 2),
        "embedder_share": round(embed_s / index_s, 3),
        "reindex_s": round(reindex_s, 4),
        "reindex_chunks_embedded": second.chunks_embedded,
        "search_queries": len(latencies),
        "search_median_ms": round(statistics.median(latencies), 1) if latencies else None,
        "search_p90_ms": round(sorted(latencies)[int(0.9 * (len(latencies) - 1))], 1) if latencies else None,
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


def _questions(path: Path | None) -> list[str]:
    if path is None:
        return ["what is this note about", "когда это было", "how much did it cost", "сколько это стоило"] * 5
    with path.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r.get("question") or r.get("text") for r in rows[:20]]


if __name__ == "__main__":
    main()
