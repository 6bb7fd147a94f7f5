"""Offline (extractive) answers on our own QA sets: does the answer hold the answer key, does its first citation sit on
the gold lines, and do questions the vault cannot answer get "not found"?

    python bench/offline_answers.py [--json] [--sets demo,holdout] [--db-dir /tmp/rag-eval]

Sets live in bench/offline_qa/ (see its README): `demo.jsonl` over rag/demo_vault/ (the set answers were tuned
on) and `holdout.jsonl` over bench/offline_qa/holdout-vault/ (written separately, never tuned on). Every question of
`offtopic.jsonl` is asked of every vault: none of them answers it. Each vault is indexed (incrementally) with the
default embedder into --db-dir. Time per answer is measured from the end of retrieval to the answer.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from rag.answer import ask as answering
from rag.config import DEMO_VAULT, load_settings
from rag.workspace import Workspace

HERE = Path(__file__).resolve().parent / "offline_qa"
SETS = {"demo": (DEMO_VAULT, HERE / "demo.jsonl"), "holdout": (HERE / "holdout-vault", HERE / "holdout.jsonl")}


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def has_keys(text: str, keys: list[list[str]]) -> bool:
    """Every group of alternatives has one that occurs in `text` (case-insensitive)."""
    low = text.casefold()
    return all(any(k.casefold() in low for k in group) for group in keys)


def _ranges(gold) -> list[tuple[int, int]]:
    """`[start, end]`, or a list of such ranges where the note states the answer twice."""
    return [tuple(gold)] if isinstance(gold[0], int) else [tuple(g) for g in gold]


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
            ranges = _ranges(item["gold_lines"])
            lo, hi = ranges[0]
            q0 = answer.quotes[0] if answer.quotes else None
            on_gold = any(first is not None and first.path == item["gold_file"] and first.start_line <= b and first.end_line >= a for a, b in ranges)
            quote_on_gold = (
                q0 is not None
                and answer.context.get(q0.source_id).path == item["gold_file"]
                and any(q0.line <= b and q0.end_line >= a for a, b in ranges)
            )
            ok = has_keys(answer.text, item["keys"])
            results.append(
                {
                    "id": item["id"],
                    "lang": item["lang"],
                    "type": item["type"],
                    "keys": ok,
                    "first_citation_on_gold": on_gold,
                    "first_quote_on_gold_lines": quote_on_gold,
                    "not_found": answer.not_found,
                }
            )
            if not (ok and on_gold):
                quoted = [f"{answer.context.get(q.source_id).path}:{q.line}-{q.end_line} {' '.join(q.text.split())[:120]}" for q in answer.quotes]
                misses.append(
                    {
                        "id": item["id"],
                        "question": item["question"],
                        "gold": f"{item['gold_file']}:{lo}-{hi}",
                        "quotes": quoted,
                        "not_found": answer.not_found,
                    }
                )
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
        "by_type": {
            t: round(sum(r["keys"] and r["first_citation_on_gold"] for r in results if r["type"] == t) / sum(r["type"] == t for r in results), 3)
            for t in sorted({r["type"] for r in results})
        },
        "misses": misses,
    }


CURVE = [(0.83, 0.04), (0.84, 0.05), (0.845, 0.055), (0.85, 0.06), (0.86, 0.07)]  # (CLOSE_COSINE, ACROSS_MARGIN)


def curve(name: str, db_dir: Path, offtopic: list[dict]) -> list[dict]:
    """Not-found precision and recall (off-topic questions are the positives) as the thresholds move."""
    from rag.answer import extractive

    saved = extractive.CLOSE_COSINE, extractive.ACROSS_MARGIN
    out = []
    try:
        for close, across in CURVE:
            extractive.CLOSE_COSINE, extractive.ACROSS_MARGIN = close, across
            r = run_set(name, db_dir, offtopic)
            caught, false = r["offtopic_not_found"] * r["offtopic_questions"], r["false_not_found"] * r["questions"]
            out.append(
                {
                    "close": close,
                    "across": across,
                    "recall": r["offtopic_not_found"],
                    "precision": round(caught / (caught + false), 3) if caught + false else None,
                    "false_not_found": r["false_not_found"],
                    "answer_contains_key": r["answer_contains_key"],
                }
            )
    finally:
        extractive.CLOSE_COSINE, extractive.ACROSS_MARGIN = saved
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="demo,holdout")
    parser.add_argument("--db-dir", type=Path, default=Path("/tmp/rag-eval"))
    parser.add_argument("--curve", action="store_true", help="also sweep the not-found thresholds (precision/recall)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    offtopic = rows(HERE / "offtopic.jsonl") if (HERE / "offtopic.jsonl").exists() else []
    report = {name: run_set(name, args.db_dir, offtopic) for name in args.sets.split(",") if SETS[name][1].exists()}
    if args.curve:
        for name in list(report):
            report[name]["not_found_curve"] = curve(name, args.db_dir, offtopic)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    for name, r in report.items():
        print(
            f"{name}: {r['questions']} questions; contains key {r['answer_contains_key']}, first citation on gold "
            f"{r['first_citation_on_gold']}, false not-found {r['false_not_found']}; off-topic not-found "
            f"{r['offtopic_not_found']} of {r['offtopic_questions']}; {r['seconds_after_retrieval']} s after retrieval"
        )
        for c in r.get("not_found_curve", []):
            print(
                f"  not-found at {c['close']}/{c['across']}: precision {c['precision']}, recall {c['recall']}, "
                f"false not-found {c['false_not_found']}, contains key {c['answer_contains_key']}"
            )
        for m in r["misses"]:
            print(f"  miss {m['id']}: {m['question']}  gold {m['gold']}" + (" NOT FOUND" if m["not_found"] else ""))
            for q in m["quotes"]:
                print(f"      → {q}")


if __name__ == "__main__":
    main()
