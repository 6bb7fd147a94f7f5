"""Offline (extractive) answers on our own QA sets: does the answer hold the answer key, does its first citation sit on
the gold lines, and do questions the vault cannot answer get "not found"?

    python bench/offline_answers.py [--json] [--sets demo,holdout] [--db-dir /tmp/rag-eval]

Sets live in bench/offline_qa/ (see its README): `demo.jsonl` over examples/demo-vault/ (the set answers were tuned
on) and `holdout.jsonl` over bench/offline_qa/holdout-vault/ (written separately, never tuned on). Every question of
`offtopic.jsonl` is asked of every vault: none of them answers it. Each vault is indexed (incrementally) with the
default embedder into --db-dir. Time per answer is measured from the end of retrieval to the answer.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag import answer as answering  # noqa: E402
from rag.config import DEMO_VAULT, load_settings  # noqa: E402
from rag.workspace import Workspace  # noqa: E402

HERE = Path(__file__).resolve().parent / "offline_qa"
SETS = {"demo": (DEMO_VAULT, HERE / "demo.jsonl"), "holdout": (HERE / "holdout-vault", HERE / "holdout.jsonl")}


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def has_keys(text: str, keys: list[list[str]]) -> bool:
    """Every group of alternatives has one that occurs in `text` (case-insensitive)."""
    low = text.casefold()
    return all(any(k.casefold() in low for k in group) for group in keys)


def ask_timed(ws: Workspace, question: str):
    """The answer, and the seconds from the end of retrieval (the EXTRACTING stage) to the answer."""
    marks: dict[str, float] = {}
    answer = answering.ask(ws, question, on_stage=lambda name: marks.setdefault(name, time.perf_counter()))
    return answer, time.perf_counter() - marks.get(answering.EXTRACTING, time.perf_counter())


def run_set(name: str, db_dir: Path, offtopic: list[dict]) -> dict:
    vault, qa = SETS[name]
    settings = load_settings(vault=vault, db_path=db_dir / f"offline-{name}.db", env={})
    results, seconds, misses = [], [], []
    with Workspace.open(settings, create=True) as ws:
        ws.sync()
        for item in rows(qa):
            answer, took = ask_timed(ws, item["question"])
            seconds.append(took)
            first = answer.citations[0] if answer.citations else None
            lo, hi = item["gold_lines"]
            on_gold = first is not None and first.path == item["gold_file"] and first.start_line <= hi and first.end_line >= lo
            quote_on_gold = bool(answer.quotes) and answer.context.get(answer.quotes[0].source_id).path == item["gold_file"] and (
                lo <= answer.quotes[0].line <= hi)
            ok = has_keys(answer.text, item["keys"])
            results.append({"id": item["id"], "lang": item["lang"], "type": item["type"], "keys": ok, "first_citation_on_gold": on_gold,
                            "first_quote_on_gold_lines": quote_on_gold, "not_found": answer.not_found})
            if not (ok and on_gold):
                misses.append({"id": item["id"], "question": item["question"], "answer": answer.text[:400]})
        off = [ask_timed(ws, q["question"])[0].not_found for q in offtopic]
    n = len(results) or 1
    return {
        "questions": len(results),
        "answer_contains_key": round(sum(r["keys"] for r in results) / n, 3),
        "first_citation_on_gold": round(sum(r["first_citation_on_gold"] for r in results) / n, 3),
        "first_quote_on_gold_lines": round(sum(r["first_quote_on_gold_lines"] for r in results) / n, 3),
        "false_not_found": round(sum(r["not_found"] for r in results) / n, 3),
        "offtopic_questions": len(off),
        "offtopic_not_found": round(sum(off) / max(1, len(off)), 3),
        "seconds_after_retrieval": {"p50": round(statistics.median(seconds), 3), "max": round(max(seconds), 3)} if seconds else None,
        "by_type": {t: round(sum(r["keys"] and r["first_citation_on_gold"] for r in results if r["type"] == t)
                             / sum(r["type"] == t for r in results), 3) for t in sorted({r["type"] for r in results})},
        "misses": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="demo,holdout")
    parser.add_argument("--db-dir", type=Path, default=Path("/tmp/rag-eval"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    offtopic = rows(HERE / "offtopic.jsonl") if (HERE / "offtopic.jsonl").exists() else []
    report = {name: run_set(name, args.db_dir, offtopic) for name in args.sets.split(",") if SETS[name][1].exists()}
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    for name, r in report.items():
        print(f"{name}: {r['questions']} questions; contains key {r['answer_contains_key']}, first citation on gold "
              f"{r['first_citation_on_gold']}, false not-found {r['false_not_found']}; off-topic not-found "
              f"{r['offtopic_not_found']} of {r['offtopic_questions']}; {r['seconds_after_retrieval']} s after retrieval")
        for m in r["misses"]:
            print(f"  miss {m['id']}: {m['question']} → {m['answer'][:160]!r}")


if __name__ == "__main__":
    main()
