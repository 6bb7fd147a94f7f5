"""The claim check run again on labelled replies (bench/claims_dev/), without the model: per claim the check's
status and evidence against the reader's label and evidence lines.

Used by `bench/claim_labels.py score` and by bench/verdict_fit.py (which needs each claim's candidates as well).
Replies are in bench/claims_dev/replies-*.jsonl (the model's raw reply and where each source is in its note, no
note text); the notes are read from the vaults the sets name (bench/offline_answers.py SETS, SciFact's vault).
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from rag.answer.ask import text_vectors
from rag.answer.citations import clean
from rag.answer.context import FrozenContext
from rag.answer.grounding import SUPPORTING
from rag.config import load_settings
from rag.eval.data import EVAL_DATA
from rag.search.text_vectors import TextVectors
from rag.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_labels import context_of, reply_files  # noqa: E402
from offline_answers import SETS, index_path, questions  # noqa: E402

DB_DIR = Path("/tmp/rag-eval")
SCIFACT = EVAL_DATA / "qa" / "scifact"


@dataclass(frozen=True)
class Reply:
    reply_id: str
    set: str
    question: str
    reply: str  # citations canonical
    context: FrozenContext


def load_replies(files: list[Path] | None = None) -> dict[str, dict]:
    rows = {}
    for f in files or reply_files():
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows[row["reply_id"]] = row
    return rows


def vault_for(set_name: str) -> Path:
    return SCIFACT / "vault" if set_name == "scifact" else SETS[set_name].vault


def reply_of(row: dict, asked: dict) -> Reply:
    context = context_of(vault_for(row["set"]), row["sources"])
    question = row.get("question") or asked.get(row["set"], {}).get(row["id"], "")
    return Reply(row["reply_id"], row["set"], question, clean(row["raw_reply"], context.ids).text.strip(), context)


def with_vectors(set_names, run) -> None:
    """Call `run(set_name, vectors)` per set, with the sentence vectors of that set's index (SciFact: embedded now)."""
    from rag.embed.embedders import LocalEmbedder

    bare = None
    for name in sorted(set_names):
        if name == "scifact" or name not in SETS:
            bare = bare or TextVectors(LocalEmbedder())
            run(name, bare)
            continue
        settings = load_settings(vault=SETS[name].vault, db_path=index_path(name, DB_DIR), env={})
        with Workspace.open(settings, create=True) as ws:
            ws.sync()
            run(name, text_vectors(ws))


CHECK_SECONDS: list[float] = []  # each reply's check, as `ask` runs it (the models loaded)


def checked(labels: list[dict], replies: dict[str, dict]) -> list[tuple[dict, object | None]]:
    """Each label with the check's CheckedClaim of the same claim now (None if the reply no longer yields it)."""
    from rag.answer.grounding import check
    from rag.embed.pairs import shared as pair_scorer

    by_set: dict[str, list[str]] = defaultdict(list)
    for reply_id in {label["reply"] for label in labels}:
        by_set[replies[reply_id]["set"]].append(reply_id)
    asked = {name: {q["id"]: q["question"] for q in questions(SETS[name])} for name in by_set if name in SETS}
    found: dict[str, dict[int, object]] = {}

    def run(name, vectors):
        for reply_id in by_set[name]:
            r = reply_of(replies[reply_id], asked)
            started = time.perf_counter()
            claims = check(r.reply, r.context, question=r.question, vectors=vectors, pairs=pair_scorer()).claims  # as `ask` runs it
            CHECK_SECONDS.append(time.perf_counter() - started)
            found[reply_id] = {n: c for n, c in enumerate(claims, 1)}

    with_vectors(by_set, run)
    out = []
    for label in labels:
        claims = found.get(label["reply"], {})
        claim = claims.get(label["n"])
        if claim is None or " ".join(claim.text.split()) != " ".join(label["claim"].split()):
            claim = next((c for c in claims.values() if " ".join(c.text.split()) == " ".join(label["claim"].split())), None)
        out.append((label, claim))
    return out


def score_labels(labels: list[dict], *, misses: bool = False, replies: dict | None = None) -> dict:
    pairs = checked(labels, replies or load_replies())
    tp = fp = fn = tn = 0
    wrong_replies, refused_replies, evidence_on, evidence_shown = set(), set(), 0, 0
    disagreements = []
    for label, claim in pairs:
        if claim is None:
            continue
        flagged, bad = claim.status not in SUPPORTING, label["label"] == "unsupported"  # "unconfirmed" is not shown as supported
        tp, fp, fn, tn = tp + (flagged and bad), fp + (flagged and not bad), fn + (not flagged and bad), tn + (not flagged and not bad)
        if bad and not flagged:
            wrong_replies.add(label["reply"])
        if flagged and not bad:
            refused_replies.add(label["reply"])
        shown = getattr(claim, "evidence", ())
        if not bad and not flagged and shown:
            evidence_shown += 1
            evidence_on += _on_lines(shown, label.get("evidence", []))
        if misses and flagged != bad:
            disagreements.append(
                {
                    "reply": label["reply"],
                    "claim": label["claim"],
                    "label": label["label"],
                    "why": label.get("why", ""),
                    "check": claim.status,
                    "reason": claim.reason,
                }
            )
    replies_n = len({label["reply"] for label, claim in pairs if claim is not None})
    report = {
        "claims": len(pairs),
        "claims_not_found_again": sum(c is None for _, c in pairs),
        "replies": replies_n,
        "unsupported_labelled": tp + fn,
        "unsupported_precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "unsupported_recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "wrong_shown_supported": fn,
        "replies_with_a_wrong_claim_shown": len(wrong_replies),
        "correct_refused": fp,
        "unconfirmed": {  # shown as not confirmed (a source in another language), of the claims labelled so
            "supported": sum(c is not None and c.status == "unconfirmed" and lb["label"] != "unsupported" for lb, c in pairs),
            "unsupported": sum(c is not None and c.status == "unconfirmed" and lb["label"] == "unsupported" for lb, c in pairs),
        },
        "replies_with_a_correct_claim_refused": len(refused_replies),
        "evidence_on_reader_lines": round(evidence_on / evidence_shown, 3) if evidence_shown else None,
        "check_seconds": _quantiles(CHECK_SECONDS[1:]),  # the first one loads the models
        "confusion": {"flagged_right": tp, "flagged_but_supported": fp, "passed_but_unsupported": fn, "passed_right": tn},
        "by_set": {},
    }
    for name in sorted({label["reply"].split(":")[0].removeprefix("old-").removeprefix("again-") for label, _ in pairs}):
        sub = [(lb, c) for lb, c in pairs if lb["reply"].split(":")[0].removeprefix("old-").removeprefix("again-") == name and c is not None]
        t = sum(c.status not in SUPPORTING and lb["label"] == "unsupported" for lb, c in sub)
        f = sum(c.status not in SUPPORTING and lb["label"] != "unsupported" for lb, c in sub)
        n = sum(c.status in SUPPORTING and lb["label"] == "unsupported" for lb, c in sub)
        report["by_set"][name] = {
            "claims": len(sub),
            "precision": round(t / (t + f), 3) if t + f else None,
            "recall": round(t / (t + n), 3) if t + n else None,
            "wrong_shown": n,
            "refused": f,
        }
    if misses:
        report["disagreements"] = disagreements
    return report


def _on_lines(shown, wanted: list[dict]) -> bool:
    """Does the check's evidence (source id, start, end) overlap the reader's evidence lines?"""
    for e in shown:
        for w in wanted:
            lo, hi = w["lines"][0], w["lines"][-1]
            if e.source == w["source"] and e.start_line <= hi and e.end_line >= lo:
                return True
    return False


def _quantiles(seconds: list[float]) -> dict:
    if not seconds:
        return {}
    ordered = sorted(seconds)
    return {"replies": len(ordered), "p50": round(ordered[len(ordered) // 2], 3), "p95": round(ordered[int(len(ordered) * 0.95)], 3)}
