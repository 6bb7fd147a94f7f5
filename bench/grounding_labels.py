"""The claim check against hand labels of a real model's claims over the FastAPI docs: precision and recall of
"unsupported", the check run again on the recorded replies, without the model.

    python bench/grounding_labels.py [--labels bench/grounding_labels_fastapi.jsonl] [--json]

Each label row (written by `bench/model_answers.py --dump`, then labelled by hand) holds the model's reply, where
each source of its context was in the note (the notes' text is read from $RAG_EVAL_DATA, never copied here),
one claim of the reply and its label: "supported" when the sources say it (cited right or not), "unsupported" when
none does. The labels were written after the check's rules were set, and nothing was tuned on them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rag.answer.ask import text_vectors
from rag.answer.citations import clean
from rag.answer.context import FrozenContext, Source, fence_for
from rag.answer.grounding import SUPPORTING, check
from rag.config import load_settings
from rag.notes.vault import read_note
from rag.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))

from offline_answers import SETS, index_path, questions  # noqa: E402

LABELS = Path(__file__).resolve().parent / "grounding_labels_fastapi.jsonl"


def context_of(vault: Path, sources: list[dict]) -> FrozenContext:
    """The frozen context the reply was written from, read again from the notes."""
    made = []
    for s in sources:
        text = read_note(vault, s["path"]).text[s["start_char"] : s["end_char"]]
        lines = (s["start_line"], s["end_line"])
        made.append(Source(s["id"], s["path"], s["heading"], *lines, "", text, 1.0, start_char=s["start_char"], end_char=s["end_char"]))
    return FrozenContext(tuple(made), (), fence_for([m.text for m in made]), 0)


def statuses(rows: list[dict], db_dir: Path) -> list[str | None]:
    """The check's status of each labelled claim now (None if the reply no longer yields that claim)."""
    out: list[str | None] = []
    by_set: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_set.setdefault(row["set"], []).append(i)
    found: dict[int, str | None] = {}
    for name, indices in by_set.items():
        qa = SETS[name]
        asked = {q["id"]: q["question"] for q in questions(qa)}
        with Workspace.open(load_settings(vault=qa.vault, db_path=index_path(name, db_dir), env={}), create=True) as ws:
            vectors = text_vectors(ws)
            for i in indices:
                row = rows[i]
                context = context_of(qa.vault, row["sources"])
                reply = clean(row["reply"], context.ids).text.strip()
                claims = {c.text: c.status for c in check(reply, context, question=asked[row["id"]], vectors=vectors).claims}
                found[i] = claims.get(row["claim"])
    out = [found[i] for i in range(len(rows))]
    return out


def scores(rows: list[dict], now: list[str | None]) -> dict:
    tp = fp = fn = tn = 0
    for row, status in zip(rows, now):
        if status is None:
            continue
        flagged, bad = status not in SUPPORTING, row["label"] == "unsupported"
        tp, fp, fn, tn = tp + (flagged and bad), fp + (flagged and not bad), fn + (not flagged and bad), tn + (not flagged and not bad)
    return {
        "labelled": len(rows),
        "claim_not_found_again": sum(s is None for s in now),
        "unsupported_precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "unsupported_recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "confusion": {"flagged_unsupported_right": tp, "flagged_but_supported": fp, "passed_but_unsupported": fn, "passed_right": tn},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--db-dir", type=Path, default=Path("/tmp/rag-eval"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="print the claims where the check and the label disagree")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.labels.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r.get("label") in ("supported", "unsupported")]
    now = statuses(rows, args.db_dir)
    report = scores(rows, now)
    if args.misses:
        report["disagreements"] = [
            {"set": r["set"], "id": r["id"], "claim": r["claim"], "label": r["label"], "check": s}
            for r, s in zip(rows, now)
            if s is not None and (s not in SUPPORTING) != (r["label"] == "unsupported")
        ]
    print(json.dumps(report, ensure_ascii=False, indent=2) if args.json else report)


if __name__ == "__main__":
    main()
