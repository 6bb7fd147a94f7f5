"""Answers written by a real chat model on the QA sets of bench/offline_answers.py (the FastAPI docs by default):
how many are correct and cited to the right note, how many are wrongly "not found", and what the claim check did.

    bash ../shared/tools/local-llm.sh        # a real small model on 127.0.0.1:8765 (not for CI)
    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 OPENAI_API_KEY=x RAG_CHAT_MODEL=local \
        python bench/model_answers.py [--sets fastapi-en,fastapi-ru] [--n 12] [--max-chars 12000] [--json] [--dump claims.jsonl]

Correct: the shown answer (its claims the check did not mark unsupported) holds an answer key. Cited: one of those
claims cites a passage of the gold note; on gold lines: that passage covers the gold lines. The model's replies are
kept in --replies by the exact messages sent (bench/grounding.py's RecordedChat), so a rerun re-checks the same
replies without asking again. --dump writes every claim with its passages, for labelling
(bench/grounding_labels.jsonl).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rag.answer.ask import ask
from rag.answer.grounding import STATUSES, SUPPORTING
from rag.chat.configured import make_chat_model
from rag.config import load_settings
from rag.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))

from grounding import RecordedChat  # noqa: E402
from offline_answers import SETS, _ranges, has_keys, index_path, questions  # noqa: E402


def run(name: str, n: int, chat: RecordedChat, db_dir: Path, dump, max_chars: int | None = None, every: int = 1) -> list[dict]:
    qa = SETS[name]
    asked = questions(qa)[::every][:n]
    rows = []
    settings = load_settings(vault=qa.vault, db_path=index_path(name, db_dir))
    settings = settings.replace(context_max_chars=max_chars) if max_chars else settings
    with Workspace.open(settings, create=True) as ws:
        ws.sync()
        for done, item in enumerate(asked, 1):
            answer = ask(ws, item["question"], chat=chat)
            shown = [c for c in answer.claims if c.status in SUPPORTING]
            cited = [answer.context.get(s) for c in shown for s in c.sources]
            gold = item["gold_lines"]
            rows.append(
                {
                    "id": item["id"],
                    "correct": has_keys(" ".join(c.text for c in shown), item["keys"]),
                    "cited": any(s.path == item["gold_file"] for s in cited),
                    "on_gold_lines": any(
                        s.path == item["gold_file"] and any(s.start_line <= b and s.end_line >= a for a, b in _ranges(gold)) for s in cited
                    ),
                    "not_found": answer.not_found,
                    "reply_has_key": has_keys(chat.last["reply"], item["keys"]),
                    "status_counts": answer.grounding(),
                    "seconds": chat.last["seconds"],
                    "first_token": chat.last.get("first_token"),
                    "context_chars": answer.context.chars,
                    "context_tokens": answer.context.tokens,
                }
            )
            if dump:
                _dump(dump, name, item, answer, chat.last["reply"])
            print(f"{name} {done}/{len(asked)}: {chat.last['seconds']} s, {rows[-1]['status_counts']}", file=sys.stderr)
    return rows


def _dump(out, name: str, item: dict, answer, reply: str) -> None:
    """Every claim with what is needed to check it again without the model: the reply, and where each source of the
    context is (the notes' text stays in the eval data; bench/grounding_labels.py reads it from there)."""
    keep = ("id", "path", "heading", "start_line", "end_line", "start_char", "end_char")
    sources = [{k: getattr(s, k) for k in keep} for s in answer.context.sources]
    for c in answer.claims:
        row = {"set": name, "id": item["id"], "reply": reply, "sources": sources, "claim": c.text, "status": c.status, "reason": c.reason}
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


def summary(rows: list[dict]) -> dict:
    n = len(rows) or 1
    return {
        "questions": len(rows),
        "correct_and_cited": round(sum(r["correct"] and r["cited"] for r in rows) / n, 3),
        "correct_cited_on_gold_lines": round(sum(r["correct"] and r["on_gold_lines"] for r in rows) / n, 3),
        "false_not_found": round(sum(r["not_found"] for r in rows) / n, 3),
        "not_found_though_the_reply_had_the_key": sum(r["not_found"] and r["reply_has_key"] for r in rows),
        "claims": {s: sum(r["status_counts"][s] for r in rows) for s in STATUSES},
        "model_seconds_total": round(sum(r["seconds"] for r in rows)),
        "seconds_per_answer_median": _median([r["seconds"] for r in rows]),
        "first_token_median": _median([r["first_token"] for r in rows if r.get("first_token") is not None]),
        "context_chars_median": _median([r["context_chars"] for r in rows if "context_chars" in r]),
    }


def _median(values: list) -> float | None:
    values = sorted(values)
    return round(values[len(values) // 2], 1) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="fastapi-en,fastapi-ru")
    parser.add_argument("--n", type=int, default=12, help="questions per set")
    parser.add_argument("--db-dir", type=Path, default=Path("/tmp/rag-eval"))
    parser.add_argument("--replies", type=Path, default=Path("/tmp/rag-eval/model-replies.jsonl"))
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--max-chars", type=int, help="the context's character cap (default: the settings', 12,000)")
    parser.add_argument("--every", type=int, default=1, help="every k-th question of each set (spread over its notes)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    settings = load_settings()
    if not settings.chat_model:
        sys.exit("Set RAG_CHAT_MODEL and OPENAI_BASE_URL to a real model (see the docstring: bash ../shared/tools/local-llm.sh).")
    chat = RecordedChat(make_chat_model(settings), args.replies)
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    rows = {name: run(name, args.n, chat, args.db_dir, dump, args.max_chars, args.every) for name in args.sets.split(",")}
    report = {"model": settings.chat_model, "max_chars": args.max_chars, "asked_the_model": chat.asked, **{k: summary(v) for k, v in rows.items()}}
    report["all"] = summary([r for v in rows.values() for r in v])
    report["rows"] = rows
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for key, value in report.items():
            if key != "rows":
                print(f"{key}: {value}")


if __name__ == "__main__":
    main()
