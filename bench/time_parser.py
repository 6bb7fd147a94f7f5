"""How well `rag.text.periods.read_period` reads the time in a question, on bench/time_expressions/: expressions.jsonl
(223 EN/RU questions written without the parser, each with the range it means against a fixed today, 31 with no
time filter; the parser's author read it while writing the rules) and holdout.jsonl (181 more, five different
todays, 40 without a time filter, written later by someone who saw neither the parser nor the first set).

    python bench/time_parser.py [--json] [--misses] [--set expressions|holdout]

A question is right when the parser's range equals the expected one (both inclusive ends; an open start is
1970-01-01 in the data) and its newest-first order matches, or when both say there is no time. Reported: accuracy
per language and kind, false alarms on the questions without time, misses on those with it, and whether the words
the parser took overlap the set's `time_words` (they are the words kept out of the keyword search).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from datetime import date
from pathlib import Path

from rag.text.periods import read_period

SETS = {name: Path(__file__).resolve().parent / "time_expressions" / f"{name}.jsonl" for name in ("expressions", "holdout")}
OPEN_START = "1970-01-01"


def judged(line: dict) -> dict:
    today = date.fromisoformat(line["today"])
    found = read_period(line["text"], today)
    expected = line["expected"]
    got = None
    if found is not None and found.ranged:
        got = {"after": found.after.isoformat() if found.after else OPEN_START, "before": found.before.isoformat()}
    newest = bool(found and found.newest_first)
    right = got == expected and newest == (line["order"] == "newest")
    words = found.words if found else None
    overlap = words is not None and line["time_words"] is not None and (words in line["time_words"] or line["time_words"] in words)
    return {"id": line["id"], "lang": line["lang"], "kind": line["kind"], "right": right, "text": line["text"], "expected": expected,
            "got": got, "order": line["order"], "newest": newest, "words": words, "time_words": line["time_words"], "words_overlap": overlap}  # fmt: skip


def summary(rows: list[dict]) -> dict:
    timed = [r for r in rows if r["kind"] != "negative"]
    negatives = [r for r in rows if r["kind"] == "negative"]
    return {
        "questions": len(rows),
        "accuracy": round(statistics.fmean(r["right"] for r in rows), 3),
        "by_lang": {lang: round(statistics.fmean(r["right"] for r in rows if r["lang"] == lang), 3) for lang in ("en", "ru")},
        "by_kind": {k: round(statistics.fmean(r["right"] for r in rows if r["kind"] == k), 3) for k in sorted({r["kind"] for r in rows})},
        "false_alarms": sum(1 for r in negatives if r["words"] is not None),
        "negatives": len(negatives),
        "missed": sum(1 for r in timed if r["words"] is None),
        "words_overlap": round(statistics.fmean(r["words_overlap"] for r in timed if r["words"] is not None), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="List every question read wrong (on stderr).")
    parser.add_argument("--set", choices=sorted(SETS), action="append", help="Only this set (default: both).")
    args = parser.parse_args()
    results = {}
    for name in args.set or sorted(SETS):
        rows = [judged(json.loads(line)) for line in open(SETS[name], encoding="utf-8") if line.strip()]
        results[name] = summary(rows)
        if args.misses:
            results[name]["wrong"] = [r for r in rows if not r["right"]]
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=2))
        return
    for name, result in results.items():
        print(f"{name}: {result['questions']} questions, accuracy {result['accuracy']} (en {result['by_lang']['en']}, ru {result['by_lang']['ru']})")
        print(
            f"  false alarms {result['false_alarms']} of {result['negatives']} without time; missed {result['missed']}; words overlap {result['words_overlap']}"
        )
        print("  " + ", ".join(f"{kind} {value}" for kind, value in result["by_kind"].items()))
        for r in result.get("wrong", []):
            print(
                f"- {r['id']} {r['text']!r}: expected {r['expected']} {r['order'] or ''}, got {r['got']} {'newest' if r['newest'] else ''} from {r['words']!r}",
                file=sys.stderr,
            )


if __name__ == "__main__":
    main()
