"""Time of an extractive answer after retrieval, on a vault of about 1,000 chunks (default: the first 1,000 SciFact
abstracts of $RAG_EVAL_DATA/qa/scifact, copied to a temporary vault; questions are its claims).

    python bench/extractive_latency.py [--docs 1000] [--questions 60] [--json]

Retrieval (with its query embedding) is timed apart; the answer's own work is from the end of retrieval to the
answer (the EXTRACTING stage of `ask`). Target: ≤ 300 ms after retrieval.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

from rag.answer import ask as answering
from rag.config import load_settings
from rag.eval.data import EVAL_DATA
from rag.workspace import Workspace

SCIFACT = EVAL_DATA / "qa" / "scifact"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--work", type=Path, default=Path("/tmp/rag-eval/latency"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not SCIFACT.exists():
        sys.exit(f"No SciFact QA data at {SCIFACT}: this benchmark reads $RAG_EVAL_DATA (see its README).")
    vault = args.work / "vault"
    if not vault.exists():
        vault.mkdir(parents=True)
        for path in sorted((SCIFACT / "vault").glob("*.md"))[: args.docs]:
            shutil.copy(path, vault / path.name)
    claims = [json.loads(line)["claim"] for line in (SCIFACT / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    settings = load_settings(vault=vault, db_path=args.work / "index.db", env={})
    with Workspace.open(settings, create=True) as ws:
        started = time.perf_counter()
        ws.sync()
        indexed = time.perf_counter() - started
        chunks = ws.status()["chunks"]
        after, search = [], []
        for question in claims[: args.questions]:
            marks: dict[str, float] = {}
            begun = time.perf_counter()
            answering.ask(ws, question, on_stage=lambda name: marks.setdefault(name, time.perf_counter()))
            done = time.perf_counter()
            after.append(done - marks[answering.EXTRACTING])
            search.append(marks[answering.EXTRACTING] - begun)
    report = {
        "chunks": chunks,
        "index_seconds": round(indexed, 1),
        "questions": len(after),
        "after_retrieval_ms": {
            "p50": round(statistics.median(after) * 1000),
            "p95": round(sorted(after)[int(0.95 * (len(after) - 1))] * 1000),
            "max": round(max(after) * 1000),
        },
        "retrieval_ms_p50": round(statistics.median(search) * 1000),
    }
    print(json.dumps(report) if args.json else report)


if __name__ == "__main__":
    main()
