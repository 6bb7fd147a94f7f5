"""Does the chat model's own second reading pay? Each labelled claim (bench/claims_dev/, SciFact, across) checked as
`ask` checks it, then the claims whose verdict probability is in a band around the threshold asked of a real chat
model (rag/answer/second_reading.py), and the check's precision and recall with and without what it said.

    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 OPENAI_API_KEY=x RAG_CHAT_MODEL=local \\
        python bench/second_reading.py [--ask] [--cache /tmp/rag-dev/second-reading.jsonl] [--json]

--ask asks the model every claim in the widest band not yet in the cache (a 1.5B model on 2 cores: ~3–6 s a claim);
without it only the cached answers are scored. The bands are chosen on the fit part (bench/dev_split.py) and the
aside part is reported with the chosen band, never chosen on.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from rag.answer import second_reading
from rag.answer.grounding import SUPPORTING

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_labels import context_of, label_files, load_labels  # noqa: E402
from claim_scores import checked, load_replies, vault_for  # noqa: E402
from dev_split import keep  # noqa: E402

WIDEST = (0.02, 0.98)  # probabilities asked about with --ask; the bands scored lie inside
DOWN = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.98)  # a supported claim below this is asked (no → refused); 0: never
UP = (0.02, 0.05, 0.1, 0.15, 0.2, 0.25)  # a refused claim at or above this is asked (yes → supported); 1: never


def _item(label: dict, claim, replies: dict) -> dict | None:
    """What the model would be asked about this claim: the evidence shown, or else the closest window."""
    if claim is None:
        return None
    shown = claim.evidence[0] if claim.status in SUPPORTING and claim.evidence else None
    window = shown or claim.closest
    if window is None or window.probability is None:
        return None
    row = replies[label["reply"]]
    context = context_of(vault_for(row["set"]), row["sources"])
    source = next((s for s in context.sources if s.id == window.source), None)
    messages = second_reading.messages_for(claim.text, window.text, source)
    key = hashlib.sha256(json.dumps(messages, ensure_ascii=False).encode()).hexdigest()[:16]
    return {"messages": messages, "key": key, "probability": window.probability, "supported": claim.status in SUPPORTING}


def _score(rows: list[dict], answers: dict[str, str], down: float, up: float) -> dict:
    tp = fp = fn = tn = asked = 0
    replies_wrong = set()
    for r in rows:
        flagged = not r["supported"]
        it = r["item"]
        if it is not None and it["key"] in answers:
            said = second_reading.said_yes(answers[it["key"]])
            if r["supported"] and it["probability"] < down:
                asked += 1
                flagged = said is False or flagged
            elif not r["supported"] and it["probability"] >= up:
                asked += 1
                flagged = said is not True
        bad = r["label"] == "unsupported"
        tp, fp, fn, tn = tp + (flagged and bad), fp + (flagged and not bad), fn + (not flagged and bad), tn + (not flagged and not bad)
        if bad and not flagged:
            replies_wrong.add(r["reply"])
    return {
        "down": down,
        "up": up,
        "asked": asked,
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "wrong_shown": fn,
        "replies_with_wrong_shown": len(replies_wrong),
        "correct_refused": fp,
        "f1": round(2 * tp / (2 * tp + fp + fn), 3) if tp else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ask", action="store_true")
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get("RAG_DEV_CACHE", "/tmp/rag-dev")) / "second-reading.jsonl")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rows", type=Path, help="also write each claim's label, probability and the model's answer here")
    args = parser.parse_args()
    replies = load_replies()
    labels = load_labels(label_files(), "all")
    rows = []
    for label, claim in checked(labels, replies):
        if claim is None:
            continue
        part = "fit" if keep(label.get("split_as", label["reply"]), "fit") else "aside"
        rows.append(
            {
                "reply": label["reply"],
                "label": label["label"],
                "supported": claim.status in SUPPORTING,
                "status": claim.status,
                "part": part,
                "item": _item(label, claim, replies),
            }
        )
    answers = {}
    if args.cache.exists():
        for line in args.cache.read_text(encoding="utf-8").splitlines():
            a = json.loads(line)
            answers[a["key"]] = a["reply"]
    seconds = []
    if args.ask:
        from rag.chat.openai_chat import OpenAIChat
        from rag.config import load_settings

        chat = OpenAIChat(load_settings(temperature=0.0))
        wanted = [r["item"] for r in rows if r["item"] and WIDEST[0] <= r["item"]["probability"] <= WIDEST[1] and r["item"]["key"] not in answers]
        wanted = list({it["key"]: it for it in wanted}.values())
        print(f"asking {len(wanted)} claims", file=sys.stderr)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        with args.cache.open("a", encoding="utf-8") as out:
            for n, it in enumerate(wanted, 1):
                started = time.perf_counter()
                reply = second_reading.first_word(chat, it["messages"])
                seconds.append(time.perf_counter() - started)
                answers[it["key"]] = reply
                out.write(json.dumps({"key": it["key"], "reply": reply, "seconds": round(seconds[-1], 2)}, ensure_ascii=False) + "\n")
                out.flush()
                if n % 10 == 0:
                    print(f"{n}/{len(wanted)}, {sum(seconds) / len(seconds):.1f} s a claim", file=sys.stderr)
    fit = [r for r in rows if r["part"] == "fit"]
    aside = [r for r in rows if r["part"] == "aside"]
    grid = [(d, u) for d in (0.0, *DOWN) for u in (1.01, *UP)]
    best = max(grid, key=lambda b: (_score(fit, answers, *b)["f1"], -_score(fit, answers, *b)["asked"]))
    said = [second_reading.said_yes(answers[r["item"]["key"]]) for r in rows if r["item"] and r["item"]["key"] in answers]
    report = {
        "claims": len(rows),
        "answered_by_model": len(said),
        "model_said": {"yes": said.count(True), "no": said.count(False), "neither": said.count(None)},
        "seconds_a_claim": round(sum(seconds) / len(seconds), 2) if seconds else None,
        "without": {"fit": _score(fit, answers, 0.0, 1.01), "aside": _score(aside, answers, 0.0, 1.01), "all": _score(rows, answers, 0.0, 1.01)},
        "chosen_on_fit": {"fit": _score(fit, answers, *best), "aside": _score(aside, answers, *best), "all": _score(rows, answers, *best)},
        "down_only": {p: _score(r, answers, best[0], 1.01) for p, r in (("fit", fit), ("aside", aside))},
        "agreement": _agreement(rows, answers),
    }
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else report)
    if args.rows:
        with args.rows.open("w", encoding="utf-8") as out:
            for r in rows:
                it = r["item"] or {}
                said = second_reading.said_yes(answers[it["key"]]) if it.get("key") in answers else None
                out.write(
                    json.dumps({k: r[k] for k in ("reply", "label", "supported", "part", "status")} | {"p": it.get("probability"), "said": said})
                    + "\n"
                )


def _agreement(rows: list[dict], answers: dict[str, str]) -> dict:
    """How often the model's yes/no matches the readers' label, by where the verdict put the claim."""
    out = {}
    for name, lo, hi in (("p<0.1", 0, 0.1), ("0.1-0.3", 0.1, 0.308), ("0.3-0.6", 0.308, 0.6), ("0.6-0.9", 0.6, 0.9), ("p>=0.9", 0.9, 1.01)):
        sub = [r for r in rows if r["item"] and lo <= r["item"]["probability"] < hi and r["item"]["key"] in answers]
        said = [(second_reading.said_yes(answers[r["item"]["key"]]), r["label"] == "supported") for r in sub]
        out[name] = {
            "claims": len(sub),
            "model_right": sum(s is not None and s == truth for s, truth in said),
            "labelled_supported": sum(truth for _, truth in said),
        }
    return out


if __name__ == "__main__":
    main()
