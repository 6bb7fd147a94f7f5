"""Where search results stop: the fused score under which a hit is not shown, calibrated on the QA sets' questions
(their gold note should stay in the results) and their off-topic questions (whose results should be few).

    python bench/search_cutoff.py [--sets demo,holdout,fastapi-en,fastapi-ru,xquad-en,xquad-ru] [--json]

For each threshold: the share of answerable questions whose gold note is still among the first 10 results (of those
where it was there uncut), the mean number of results shown, and the mean number shown for off-topic questions.
The product's threshold is `results.RELEVANCE_FLOOR`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rag.config import load_settings
from rag.search import results
from rag.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))

from offline_answers import SETS, index_path, offtopic_for, questions  # noqa: E402

FLOORS = (-9.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5)


def scores(name: str, db_dir: Path) -> tuple[list[list[tuple[float, bool]]], list[list[float]]]:
    """Per answerable question its top-10 (score, is the gold note); per off-topic question its top-10 scores."""
    qa = SETS[name]
    answerable, offtopic = [], []
    with Workspace.open(load_settings(vault=qa.vault, db_path=index_path(name, db_dir), env={}), create=True) as ws:
        ws.sync()
        for item in questions(qa):
            hits = ws.retriever.hybrid(item["question"], 10).hits
            answerable.append([(h.score, h.chunk.path == item["gold_file"]) for h in hits])
        for item in offtopic_for(qa):
            offtopic.append([h.score for h in ws.retriever.hybrid(item["question"], 10).hits])
    return answerable, offtopic


def sweep(answerable, offtopic) -> list[dict]:
    out = []
    had = [q for q in answerable if any(gold for _, gold in q)]
    for floor in FLOORS:
        kept = [[(s, g) for s, g in q if s >= floor] for q in had]
        out.append(
            {
                "floor": floor,
                "gold_kept": round(sum(any(g for _, g in q) for q in kept) / max(1, len(had)), 3),
                "results": round(sum(len([s for s, _ in q if s >= floor]) for q in answerable) / max(1, len(answerable)), 2),
                "offtopic_results": round(sum(len([s for s in q if s >= floor]) for q in offtopic) / max(1, len(offtopic)), 2),
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="demo,holdout,fastapi-en,fastapi-ru,xquad-en,xquad-ru,xquad-ru2en")
    parser.add_argument("--db-dir", type=Path, default=Path("/tmp/rag-eval"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = {name: sweep(*scores(name, args.db_dir)) for name in args.sets.split(",")}
    report["floor_in_use"] = results.RELEVANCE_FLOOR
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name, rows in report.items():
        if isinstance(rows, list):
            print(name)
            for r in rows:
                print(f"  floor {r['floor']:>5}: gold kept {r['gold_kept']}, results {r['results']}, off-topic results {r['offtopic_results']}")
    print("in use:", report["floor_in_use"])


if __name__ == "__main__":
    main()
