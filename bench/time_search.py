"""Questions about time over the demo vault (bench/time_questions): hit@1, hit@5 and answer-contains, with and without
the time handling (rag/search/when.py), each question read against its own `today`.

    python bench/time_search.py [--questions bench/time_questions/questions.jsonl] [--vault rag/demo_vault] [--json] [--show]
    python bench/time_search.py --questions bench/time_dev/questions.jsonl --vault bench/time_dev/vault

hit@k: one of the first k passages overlaps a gold span's lines (answerable questions; an unanswerable one's
"answer contains" is its "not found"). The answer is the extractive one (no chat model), as
the app gives it by default; answer-contains: every `answer_contains` string is in it (case and spaces folded), and
the share of strings found. Without: the same search with `today` None, so the time words are plain words.
The vault is copied to a temporary folder first, so its notes' file times are "now", as after a fresh clone.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections import defaultdict
from datetime import date
from pathlib import Path

from dev_split import aside

from rag.answer.ask import ask
from rag.config import DEMO_VAULT, load_settings
from rag.search.when import timed_hybrid
from rag.workspace import Workspace

HERE = Path(__file__).resolve().parent


def overlaps(chunk, gold: list[dict]) -> bool:
    return any(chunk.path == g["path"] and chunk.start_line <= g["end_line"] and g["start_line"] <= chunk.end_line for g in gold)


def folded(text: str) -> str:
    """`text` as a person reads it, for finding the keys: case and runs of spaces folded, invisible word joiners
    (U+2060, which quotes carry: rag/answer/citations.py `defang`) gone."""
    return " ".join(text.replace("\u2060", "").casefold().split())


def run(ws: Workspace, items: list[dict], *, timed: bool) -> list[dict]:
    rows = []
    for item in items:
        today = date.fromisoformat(item["today"]) if timed else None
        result = timed_hybrid(ws.retriever, item["question"], 5, today=today)
        ranks = [i for i, h in enumerate(result.hits, 1) if overlaps(h.chunk, item["gold"])]
        answer = ask(ws, item["question"], today=today)
        text = folded(answer.text)
        found = [folded(key) in text for key in item["answer_contains"]]
        rows.append(
            {
                "id": item["id"],
                "lang": item["lang"],
                "kind": item["kind"],
                "answerable": bool(item["gold"]),  # bench/time_dev's unanswerable ones: "not found" is right
                "ambiguous": item.get("without_time_is_ambiguous", False),
                "later": item.get("reported_later", False),
                "hit1": bool(ranks and ranks[0] == 1),
                "hit5": bool(ranks),
                "contains_all": all(found) and not answer.not_found if item["gold"] else answer.not_found,
                "contains_share": sum(found) / len(found) if found else float(answer.not_found),
                "period": None if result.time is None else [str(result.time.after), str(result.time.before), result.time.applied],
            }
        )
    return rows


def summary(rows: list[dict]) -> dict:
    def mean(key, subset):
        return round(sum(r[key] for r in subset) / len(subset), 3) if subset else None

    answerable = [r for r in rows if r["answerable"]]
    groups = {"all": answerable, "en": [r for r in answerable if r["lang"] == "en"], "ru": [r for r in answerable if r["lang"] == "ru"]}
    groups["ambiguous"] = [r for r in answerable if r["ambiguous"]]
    groups["reported later"] = [r for r in answerable if r["later"]]
    groups["unanswerable"] = [r for r in rows if not r["answerable"]]
    groups["aside third"] = [r for r in answerable if aside(r["id"])]  # never fitted on (bench/dev_split.py)
    by_kind = defaultdict(list)
    for r in answerable:
        by_kind[r["kind"]].append(r)
    out = {name: {k: mean(k, g) for k in ("hit1", "hit5", "contains_all", "contains_share")} | {"n": len(g)} for name, g in groups.items()}
    out["kinds"] = {kind: {"n": len(g), "hit1": mean("hit1", g), "contains_all": mean("contains_all", g)} for kind, g in sorted(by_kind.items())}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=HERE / "time_questions" / "questions.jsonl")
    parser.add_argument("--vault", type=Path, default=DEMO_VAULT, help="the vault the questions are asked of")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true", help="print each question's result")
    args = parser.parse_args()
    items = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(args.vault, vault, copy_function=shutil.copy)  # file times "now", as after a clone
        settings = load_settings(vault=vault, db_path=Path(tmp) / "index.db", env={})
        with Workspace.open(settings, create=True) as ws:
            ws.sync()
            report = {}
            details = {}
            for name, timed in (("without", False), ("with", True)):
                details[name] = run(ws, items, timed=timed)
                report[name] = summary(details[name])
    if args.json:
        print(json.dumps(report | ({"details": details} if args.show else {}), indent=1, ensure_ascii=False))
        return
    if args.show:
        for a, b in zip(details["without"], details["with"]):
            print(
                f"{a['id']:10} {a['kind']:14} hit1 {int(a['hit1'])}→{int(b['hit1'])} contains {int(a['contains_all'])}→{int(b['contains_all'])} {b['period']}"
            )
    for group in ("all", "en", "ru", "ambiguous", "reported later", "unanswerable", "aside third"):
        a, b = report["without"][group], report["with"][group]
        if not a["n"]:
            continue
        print(
            f"{group:10} n={a['n']:3}  hit@1 {a['hit1']:.3f} → {b['hit1']:.3f}   hit@5 {a['hit5']:.3f} → {b['hit5']:.3f}"
            f"   answer contains all {a['contains_all']:.3f} → {b['contains_all']:.3f}   keys {a['contains_share']:.3f} → {b['contains_share']:.3f}"
        )
    print("by kind (with): " + ", ".join(f"{k} {v['hit1']:.2f}/{v['n']}" for k, v in report["with"]["kinds"].items()))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
