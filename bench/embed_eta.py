"""Is the indexing ETA right? Embeds a fresh index of N SciFact abstracts (chunks, then sentences) and compares, one
minute in, the ETA from work units (characters, what the progress bar uses) and from a count of texts (what it used
before) with the time that was really left.

    python bench/embed_eta.py [--docs 400] [--at 60] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

from rag.config import load_settings
from rag.eval.data import EVAL_DATA
from rag.index.backfill import backfill
from rag.workspace import Workspace

SCIFACT = EVAL_DATA / "qa" / "scifact"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=400)
    parser.add_argument("--at", type=float, default=60.0, help="seconds into embedding when the ETA is read")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rag-eval/eta"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    vault = args.work / "vault"
    vault.mkdir(parents=True)
    for path in sorted((SCIFACT / "vault").glob("*.md"))[: args.docs]:
        shutil.copy(path, vault / path.name)
    settings = load_settings(vault=vault, db_path=args.work / "index.db", env={})
    with Workspace.open(settings, create=True) as ws:
        ws.sync(embed=False)  # text first, as the live index does
        texts = {"done": 0}
        original = ws.embedder.embed_passages

        def counting(batch):
            texts["done"] += len(batch)
            return original(batch)

        ws.embedder.embed_passages = counting
        total_texts = len(ws.store.missing_vector_keys(ws.embedder.name)) + len(ws.store.missing_sentence_keys(ws.embedder.name))
        samples: list[tuple[float, int, int, int]] = []
        started = time.perf_counter()
        backfill(
            ws.store,
            ws.embedder,
            batch_size=settings.embed_batch_size,
            progress=lambda stage, done, total: samples.append((time.perf_counter() - started, done, total, texts["done"])),
        )
        ended = time.perf_counter() - started
    t, done, total, n = next((s for s in samples if s[0] >= args.at and s[1]), samples[-1])
    left = ended - t
    by_work = t * (total / done - 1)
    by_texts = t * (total_texts / max(n, 1) - 1)
    report = {
        "docs": args.docs,
        "texts": total_texts,
        "seconds": round(ended, 1),
        "read_at_s": round(t, 1),
        "really_left_s": round(left, 1),
        "eta_by_characters_s": round(by_work, 1),
        "eta_by_texts_s": round(by_texts, 1),
        "error_by_characters": round(by_work / left - 1, 3),
        "error_by_texts": round(by_texts / left - 1, 3),
    }
    print(json.dumps(report) if args.json else report)


if __name__ == "__main__":
    main()
