"""Cross-language search with the question also searched as a chat model translates it (`translate_questions`),
against the search users get without it, through the real pipeline.

    OPENAI_BASE_URL=… OPENAI_API_KEY=… RAG_CHAT_MODEL=… \\
    python bench/translated_search.py [--sets xquad-ru2en,xquad-en2ru,fastapi-ru2en,fastapi-en2ru] [--limit 100]
                                      [--out /tmp/rag-translated] [--json]

XQuAD sets come from $RAG_EVAL_DATA/retrieval; the FastAPI known-item sets are the folders `bench/known_item.py`
writes (run it first, same --out). The model's translations are kept in OUT/translations.json, so a rerun measures
again without asking it (delete the file to ask anew). Reported per set: nDCG@10 and MRR@10 without and with the
translation, how many replies were refused as no translation (answered instead, wrong language, empty), and the
mean seconds a translation took.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rag.answer.translation import merge, target_script, translate
from rag.chat.configured import make_chat_model
from rag.config import load_settings
from rag.errors import ChatError
from rag.eval import retrieval as evaluate
from rag.eval.data import EVAL_DATA
from rag.search.when import timed_hybrid
from rag.workspace import Workspace

DEPTH = 100


def folder_of(name: str, out: Path) -> Path:
    return EVAL_DATA / "retrieval" / name if name.startswith("xquad") else out / name


def measure(name: str, out: Path, chat, cache: dict, limit: int | None) -> dict:
    dataset = evaluate.load_dataset(folder_of(name, out), limit=limit)
    vault, db = out / f"vault-{name}", out / f"index-{name}.db"
    mapping = evaluate.write_vault(dataset, vault)
    with Workspace.open(load_settings(vault=vault, db_path=db, env={}), create=True) as ws:
        ws.sync()
        shares = ws.store.script_shares()
        plain, translated, refused, seconds = {}, {}, 0, []
        for q in dataset.queries:
            original = timed_hybrid(ws.retriever, q["text"], DEPTH, today=None, candidates=DEPTH)
            plain[q["id"]] = evaluate.documents([h.chunk.path for h in original.hits], mapping)
            key = f"{name}/{q['id']}"
            if key not in cache:
                script = target_script(q["text"], shares)
                started = time.perf_counter()
                try:
                    cache[key] = translate(chat, q["text"], script) if script else None
                    seconds.append(time.perf_counter() - started)
                except ChatError as exc:  # not kept: the next run asks again
                    print(f"{key}: {exc}")
            text = cache.get(key)
            if text is None:
                refused += 1
                translated[q["id"]] = plain[q["id"]]
                continue
            other = timed_hybrid(ws.retriever, text, DEPTH, today=None, candidates=DEPTH)
            merged = merge(original, other, text, DEPTH)
            translated[q["id"]] = evaluate.documents([h.chunk.path for h in merged.hits], mapping)
    without, with_ = evaluate.score_run(plain, dataset.qrels), evaluate.score_run(translated, dataset.qrels)
    return {
        "queries": len(dataset.queries),
        "without": {m: without[m] for m in ("ndcg@10", "mrr@10")},
        "with": {m: with_[m] for m in ("ndcg@10", "mrr@10")},
        "refused": refused,
        "seconds_per_translation": round(sum(seconds) / len(seconds), 2) if seconds else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", default="xquad-ru2en,xquad-en2ru,fastapi-ru2en,fastapi-en2ru")
    parser.add_argument("--limit", type=int, default=100, help="questions per set (a CPU model takes seconds each)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/rag-translated"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    settings = load_settings()
    chat = make_chat_model(settings)
    if chat is None:
        raise SystemExit("Set RAG_CHAT_MODEL (and OPENAI_BASE_URL for a local server): this bench measures a chat model's translations.")
    args.out.mkdir(parents=True, exist_ok=True)
    cache_file = args.out / "translations.json"
    cache = json.loads(cache_file.read_text(encoding="utf-8")) if cache_file.exists() else {}
    result = {"model": chat.name}
    try:
        for name in args.sets.split(","):
            result[name] = measure(name, args.out, chat, cache, args.limit)
            cache_file.write_text(json.dumps(cache, ensure_ascii=False, indent=1), encoding="utf-8")
    finally:
        cache_file.write_text(json.dumps(cache, ensure_ascii=False, indent=1), encoding="utf-8")
    if args.json:
        print(json.dumps(result))
        return
    print(f"question also searched as {chat.name} translates it (nDCG@10 / MRR@10, without → with)")
    for name, r in result.items():
        if name == "model":
            continue
        w, t = r["without"], r["with"]
        print(
            f"  {name:14} {r['queries']:4} questions  {w['ndcg@10']:.4f} / {w['mrr@10']:.4f} → {t['ndcg@10']:.4f} / {t['mrr@10']:.4f}"
            f"  refused {r['refused']}  {r['seconds_per_translation']} s a translation"
        )


if __name__ == "__main__":
    main()
