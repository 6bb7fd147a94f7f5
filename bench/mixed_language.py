"""Retrieval in a vault that mixes English and Russian notes, through the real pipeline (`rag eval retrieval`).

    python bench/mixed_language.py [--data $RAG_EVAL_DATA/retrieval] [--out /tmp/rag-mixed] [--split 24]
                                   [--no-align] [--no-shift] [--no-sentences] [--no-token-match] [--json]

XQuAD is parallel: the same 240 paragraphs (48 articles) and questions in both languages. The mixed vault holds the
English paragraphs of articles 0..split-1 and the Russian paragraphs of the others. Every English and Russian
question is asked: "same" questions are answered by a paragraph in their own language, "cross" ones only by a
paragraph in the other language. Two datasets sharing one corpus (and one kept index under --out) are written and
evaluated with the normal harness, so chunking, sentence vectors, language alignment and fusion are what users get.
`--no-align` turns the language alignment off (in this process), `--no-shift` the move of questions towards the
passages' language centre, and `--no-sentences` the sentence vectors, to see what each contributes; each
sentence-vector variant keeps its own index. `--no-token-match` turns the token re-read off (the setting `token_match`, on by default).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rag.config import load_settings
from rag.errors import RagError
from rag.eval import retrieval as evaluate
from rag.eval.data import EVAL_DATA
from rag.search import languages
from rag.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent


def article(doc_id: str) -> int:
    return int(doc_id[2:4])  # "xq07-3" → 7


def write_datasets(data: Path, out: Path, split: int) -> dict[str, Path]:
    """out/same and out/cross: one corpus, the questions split by whether their answer is in their language."""
    en, ru = (evaluate.load_dataset(data / f"xquad-{lang}") for lang in ("en", "ru"))
    corpus = [{**d, "id": f"en-{d['id']}"} for d in en.corpus if article(d["id"]) < split]
    corpus += [{**d, "id": f"ru-{d['id']}"} for d in ru.corpus if article(d["id"]) >= split]
    folders = {}
    for kind in ("same", "cross"):
        queries, qrels = [], []
        for lang, ds in (("en", en), ("ru", ru)):
            for q in ds.queries:
                for doc_id in ds.qrels[q["id"]]:
                    doc_lang = "en" if article(doc_id) < split else "ru"
                    if (doc_lang == lang) == (kind == "same"):
                        queries.append({"id": f"{lang}-{q['id']}", "text": q["text"]})
                        qrels.append((f"{lang}-{q['id']}", f"{doc_lang}-{doc_id}"))
        folders[kind] = evaluate.write_dataset(out / f"mixed-{kind}", corpus, queries, qrels)
    return folders


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=EVAL_DATA / "retrieval")
    parser.add_argument("--out", type=Path, default=Path("/tmp/rag-mixed"))
    parser.add_argument("--split", type=int, default=24)
    parser.add_argument("--no-align", action="store_true")
    parser.add_argument("--no-shift", action="store_true")
    parser.add_argument("--no-sentences", action="store_true")
    parser.add_argument("--no-token-match", action="store_true", help="hybrid without the token re-read (setting token_match off; on by default)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.no_align:
        languages.MIN_SCRIPT_ROWS = 10**12  # no script is ever big enough: nothing is aligned
    if args.no_shift:
        languages.QUERY_SHIFT = 0.0
    try:
        folders = write_datasets(args.data, args.out, args.split)
    except RagError as exc:
        sys.exit(f"{exc} (--data is the folder holding xquad-en/ and xquad-ru/)")
    variant = "sentences" if not args.no_sentences else "chunks"
    db = args.out / f"index-{variant}.db"
    vault = args.out / f"vault-{variant}"
    result = {"split": args.split, "align": not args.no_align, "shift": not args.no_shift, "sentence_vectors": not args.no_sentences}
    for kind, folder in folders.items():
        dataset = evaluate.load_dataset(folder)
        mapping = evaluate.write_vault(dataset, vault)
        settings = load_settings(vault=vault, db_path=db, env={}, sentence_vectors=not args.no_sentences, token_match=not args.no_token_match)
        with Workspace.open(settings, create=True) as ws:
            report = ws.sync()
            result.setdefault("index_seconds", report.seconds)
            scores = evaluate.evaluate(ws, dataset, mapping, ["bm25", "dense", "hybrid"])
        result[kind] = {"queries": scores["queries"], **{c: round(m["ndcg@10"], 4) for c, m in scores["channels"].items()}}
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"mixed vault: {result['same']['queries']} same-language and {result['cross']['queries']} cross-language questions "
        f"(align {result['align']}, sentence vectors {result['sentence_vectors']}); nDCG@10:"
    )
    for kind in ("same", "cross"):
        r = result[kind]
        print(f"  {kind:5}  bm25 {r['bm25']:.4f}  dense {r['dense']:.4f}  hybrid {r['hybrid']:.4f}")


if __name__ == "__main__":
    main()
