"""Grounded answers with a real chat model: how often an answer is correct and cited on the gold line, what the claim
check finds, and what the person would have seen without it (the same replies, citation ids checked only).

    bash ../shared/tools/local-llm.sh        # a real small model on 127.0.0.1:8765 (not for CI)
    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 OPENAI_API_KEY=x RAG_CHAT_MODEL=local python bench/grounding.py --json

Asks the first --n questions (default 40) of $RAG_EVAL_DATA/qa/xquad in English and in Russian. The model's raw
replies are kept in --replies, keyed by the exact messages sent, so a rerun checks the same replies again without
asking (and a changed prompt asks afresh). Hand labels (bench/grounding_labels.jsonl: lang, id, claim, label
"supported" | "unsupported") give the check's own precision and recall; --dump writes every claim with its
passages, for labelling.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import time
from pathlib import Path

from rag.answer import passage_units, specifics
from rag.answer.ask import Answer, ask
from rag.answer.ask import text_vectors as index_vectors
from rag.answer.citations import clean
from rag.answer.grounding import STATUSES, SUPPORTING, check
from rag.chat.configured import make_chat_model
from rag.config import load_settings
from rag.eval.data import EVAL_DATA
from rag.eval.qa import QAItem, load_dataset
from rag.eval.qa import _contains as contains_gold
from rag.search import text_vectors
from rag.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
DATA = EVAL_DATA / "qa" / "xquad"
LABELS = Path(__file__).resolve().parent / "grounding_labels.jsonl"


class RecordedChat:
    """The configured chat model, with every reply kept on disk by the messages that asked for it."""

    def __init__(self, chat, path: Path) -> None:
        self.chat, self.path = chat, path
        self.name, self.context_tokens = chat.name, chat.context_tokens
        self.replies = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                self.replies[row["key"]] = row
        self.last: dict | None = None
        self.asked = 0

    def stream(self, messages):
        key = hashlib.sha256(json.dumps([self.chat.name, messages], ensure_ascii=False).encode()).hexdigest()
        if key not in self.replies:
            started, pieces, first = time.perf_counter(), [], []
            truncated = yield from _collect(self.chat.stream(messages), pieces, first)
            seconds = round(time.perf_counter() - started, 1)
            row = {
                "key": key,
                "reply": "".join(pieces),
                "truncated": truncated,
                "seconds": seconds,
                "first_token": first[0] - started if first else None,
            }
            self.replies[key] = row
            self.asked += 1
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            yield self.replies[key]["reply"]
        self.last = self.replies[key]
        return self.last["truncated"]

    def complete(self, messages):
        return self.chat.complete(messages)


def _collect(stream, pieces, first=None):
    while True:
        try:
            piece = next(stream)
        except StopIteration as end:
            return end.value
        if first is not None and not first:
            first.append(time.perf_counter())
        pieces.append(piece)
        yield piece


def run(lang: str, n: int, chat: RecordedChat, db_dir: Path, dump) -> list[dict]:
    vault, items = load_dataset(DATA, lang=lang)
    settings = load_settings(vault=vault, db_path=db_dir / f"xquad-{lang}.db")
    rows = []
    with Workspace.open(settings, create=True) as ws:
        ws.sync()
        for done, item in enumerate(items[:n], 1):
            answer = ask(ws, item.question, chat=chat)
            row = score(item, answer, chat.last["reply"], lang)
            row["check_ms"], row["check_ms_warm"], row["check_ms_words_only"] = _check_cost(ws, item.question, answer, chat.last["reply"])
            row["model_seconds"] = chat.last["seconds"]
            rows.append(row)
            if dump:
                _dump(dump, lang, item, answer)
            print(f"{lang} {done}/{n} model {chat.last['seconds']} s, {row['status_counts']}", file=sys.stderr)
    return rows


def score(item: QAItem, answer: Answer, reply: str, lang: str) -> dict:
    """The answer with the check (as the person sees it now) and without (ids checked only, as before)."""
    ids = answer.context.ids
    before = clean(reply, ids)
    grounded = [c for c in answer.claims if c.status in SUPPORTING]
    first_after = answer.context.get(grounded[0].sources[0]) if grounded else None
    first_before = answer.context.get(before.cited[0]) if before.cited else None
    return {
        "lang": lang,
        "id": item.id,
        "before": {
            "correct": contains_gold(before.text, item.answers) and bool(before.cited),
            "first_on_gold": _on_gold(item, first_before),
            "not_found": not before.cited,
        },
        "after": {
            "correct": any(contains_gold(c.text, item.answers) for c in grounded),
            "first_on_gold": _on_gold(item, first_after),
            "not_found": answer.not_found,
        },
        "reply_has_gold": contains_gold(reply, item.answers),
        "status_counts": answer.grounding(),
        "truncated": answer.truncated,
    }


def _on_gold(item: QAItem, source) -> bool:
    return source is not None and any(source.path == p and source.start_line <= line <= source.end_line for p, line in item.gold)


def _check_cost(ws: Workspace, question: str, answer: Answer, reply: str) -> tuple[float, float, float]:
    """Milliseconds of the claim check alone on this reply: every cache emptied first, with meaning by vectors
    (claims embedded afresh; the passages' sentence vectors read from the index); the same again with the caches
    warm (a follow-up over the same notes); and cold by words only."""
    cleaned = clean(reply, answer.context.ids).text.strip()
    _cold()
    started = time.perf_counter()
    check(cleaned, answer.context, question=question, vectors=index_vectors(ws))
    full = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    check(cleaned, answer.context, question=question, vectors=index_vectors(ws))
    warm = (time.perf_counter() - started) * 1000
    _cold()
    started = time.perf_counter()
    check(cleaned, answer.context, question=question, vectors=None)
    return round(full, 1), round(warm, 1), round((time.perf_counter() - started) * 1000, 1)


def _cold() -> None:
    text_vectors._CACHE.clear()
    passage_units.unit_of.cache_clear()
    specifics._passage_word_keys.cache_clear()
    specifics._skeleton.cache_clear()


def _dump(out, lang: str, item: QAItem, answer: Answer) -> None:
    for c in answer.claims:
        passages = {i: answer.context.get(i).text for i in dict.fromkeys(c.cited + c.sources)}
        out.write(
            json.dumps(
                {
                    "lang": lang,
                    "id": item.id,
                    "question": item.question,
                    "gold": item.answers,
                    "claim": c.text,
                    "status": c.status,
                    "cited": c.cited,
                    "sources": c.sources,
                    "reason": c.reason,
                    "passages": passages,
                },
                ensure_ascii=False,
            )
            + "\n"
        )


def summary(rows: list[dict]) -> dict:
    n = len(rows) or 1
    out = {"questions": len(rows)}
    for when in ("before", "after"):
        r = [row[when] for row in rows]
        flagged = [row for row in rows if row[when]["not_found"]]
        out[when] = {
            "correct_and_cited": round(sum(x["correct"] and x["first_on_gold"] for x in r) / n, 3),
            "first_citation_on_gold": round(sum(x["first_on_gold"] for x in r) / n, 3),
            "not_found": len(flagged),
            "not_found_precision": round(sum(not row["reply_has_gold"] for row in flagged) / len(flagged), 3) if flagged else None,
        }
    out["claims"] = {s: sum(row["status_counts"][s] for row in rows) for s in STATUSES}
    costs = sorted(row["check_ms"] for row in rows)
    out["check_ms"] = {"p50": statistics.median(costs), "p95": costs[int(0.95 * (len(costs) - 1))], "max": costs[-1]} if costs else None
    warm = sorted(row["check_ms_warm"] for row in rows)
    out["check_ms_warm"] = {"p50": statistics.median(warm), "p95": warm[int(0.95 * (len(warm) - 1))]} if warm else None
    words = sorted(row["check_ms_words_only"] for row in rows)
    out["check_ms_words_only"] = {"p50": statistics.median(words), "max": words[-1]} if words else None
    out["truncated"] = sum(row["truncated"] for row in rows)
    return out


def label_scores(db_dir: Path, chat: RecordedChat, n: int) -> dict | None:
    """The check's precision and recall on hand-labelled claims: 'flagged' = unsupported by the check."""
    if not LABELS.exists():
        return None
    labels = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    found = {}
    for lang in sorted({x["lang"] for x in labels}):
        vault, items = load_dataset(DATA, lang=lang)
        wanted = {x["id"] for x in labels if x["lang"] == lang}
        with Workspace.open(load_settings(vault=vault, db_path=db_dir / f"xquad-{lang}.db"), create=True) as ws:
            for item in [i for i in items[:n] if i.id in wanted]:
                for c in ask(ws, item.question, chat=chat).claims:
                    found[(lang, item.id, c.text)] = c.status
    tp = fp = fn = tn = 0
    missing = 0
    for x in labels:
        status = found.get((x["lang"], x["id"], x["claim"]))
        if status is None:
            missing += 1
            continue
        flagged, bad = status not in SUPPORTING, x["label"] == "unsupported"
        tp, fp, fn, tn = tp + (flagged and bad), fp + (flagged and not bad), fn + (not flagged and bad), tn + (not flagged and not bad)
    return {
        "labelled": len(labels) - missing,
        "not_found_again": missing,
        "unsupported_precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "unsupported_recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "supported_precision": round(tn / (tn + fn), 3) if tn + fn else None,
        "confusion": {"flagged_bad": tp, "flagged_good": fp, "passed_bad": fn, "passed_good": tn},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=40, help="questions per language")
    parser.add_argument("--langs", default="en,ru")
    parser.add_argument("--db-dir", type=Path, default=Path("/tmp/rag-eval"))
    parser.add_argument("--replies", type=Path, default=Path("/tmp/rag-eval/grounding-replies.jsonl"))
    parser.add_argument("--dump", type=Path, help="write every claim with its passages here (JSONL), for labelling")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    settings = load_settings()
    if not settings.chat_model:
        sys.exit("Set RAG_CHAT_MODEL and OPENAI_BASE_URL to a real model (see the docstring: bash ../shared/tools/local-llm.sh).")
    args.db_dir.mkdir(parents=True, exist_ok=True)
    chat = RecordedChat(make_chat_model(settings), args.replies)
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    rows = {lang: run(lang, args.n, chat, args.db_dir, dump) for lang in args.langs.split(",")}
    report = {
        "model": settings.chat_model,
        "endpoint": os.environ.get("OPENAI_BASE_URL"),
        "asked_the_model": chat.asked,
        **{lang: summary(r) for lang, r in rows.items()},
        "all": summary([x for r in rows.values() for x in r]),
        "labels": label_scores(args.db_dir, chat, args.n),
    }
    print(json.dumps(report, ensure_ascii=False, indent=2) if args.json else _text(report))


def _text(report: dict) -> str:
    lines = [f"model {report['model']}; asked the model {report['asked_the_model']} times"]
    for key in [k for k in report if isinstance(report[k], dict) and "before" in report[k]]:
        r = report[key]
        lines.append(f"{key}: {r['questions']} questions; claims {r['claims']}; check {r['check_ms']} ms")
        for when in ("before", "after"):
            lines.append(f"  {when:6}: {r[when]}")
    lines.append(f"labels: {report['labels']}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
