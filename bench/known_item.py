"""Known-item search on a real vault in two languages: find a note by its title or its first sentence, asked in
the same language or in the other one, through the real pipeline (`rag eval retrieval`).

    python bench/known_item.py [--data $RAG_EVAL_DATA/qa/fastapi-docs] [--out /tmp/rag-known-item] [--json]

The FastAPI docs are 106 notes in English and the same 106 translated into Russian (same relative paths). For each
note, two questions: its first heading (without the `{ #anchor }`) and the first sentence of its first paragraph.
Asked of the vault in the question's own language ("en2en", "ru2ru") and of the other vault ("ru2en", "en2ru");
the answer is the note with the same path. Each direction is a dataset folder under --out (corpus.jsonl,
queries.jsonl, qrels.tsv), so `python -m rag eval retrieval OUT/fastapi-ru2en` measures it too; the two vaults'
indexes are kept under --out. Reported: MRR@10 (and nDCG@10) per channel, per direction, per question kind.
`--no-token-match`: hybrid without the re-read of cross-language candidates (tokens, then sentences by
rag/embed/aligned.py) (the setting `token_match` off; on by default, indexing keeps the
chunks' token states). `--timing N`: also the cost of the token re-read (rag/search/token_match.py): the median
milliseconds of a hybrid search for the first N questions of each cross-language direction without it, with it on
the states the index keeps ("stored"), and with the candidates read by the model at search time ("read now", as an
index without them), alternating, nothing cached between questions but the question's vector.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

from rag.config import load_settings
from rag.eval import retrieval as evaluate
from rag.eval.data import EVAL_DATA
from rag.search import retrieve
from rag.search.token_match import TokenMatch
from rag.workspace import Workspace

ANCHOR = re.compile(r"\s*\{\s*#[^}]*\}\s*$")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
NOT_PROSE = ("#", "{*", "{!", "///", "<", "|", "```", "!", ">", "*", "-", "+")
SENTENCE_END = re.compile(r"(?<=[.!?…:])\s+(?=[A-ZА-ЯЁ`\"«(])")
DIRECTIONS = {"en2en": ("en", "en"), "ru2ru": ("ru", "ru"), "ru2en": ("ru", "en"), "en2ru": ("en", "ru")}


def questions(note: str) -> dict[str, str]:
    """{"heading": first heading, "sentence": first sentence of the first paragraph} of a note's Markdown."""
    found: dict[str, str] = {}
    paragraph: list[str] = []
    fenced = False
    for line in note.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if "heading" not in found and stripped.startswith("#"):
            found["heading"] = ANCHOR.sub("", stripped.lstrip("#").strip())
            continue
        if stripped and not stripped.startswith(NOT_PROSE):
            paragraph.append(stripped)
        elif paragraph:
            break
    if paragraph:
        text = LINK.sub(r"\1", " ".join(paragraph)).replace("**", "")
        found["sentence"] = SENTENCE_END.split(text, maxsplit=1)[0].strip()
    return found


def notes(vault: Path) -> dict[str, str]:
    return {p.relative_to(vault).as_posix(): p.read_text(encoding="utf-8") for p in sorted(vault.rglob("*.md"))}


def write_datasets(data: Path, out: Path) -> dict[str, Path]:
    """out/fastapi-<direction>: the notes of the answering vault, and every note's questions in the asking language."""
    vaults = {lang: notes(data / f"vault-{lang}") for lang in ("en", "ru")}
    if not all(vaults.values()):
        raise SystemExit(f"No notes in {data}/vault-en or vault-ru (--data is the fastapi-docs folder)")
    folders = {}
    for name, (asked, answering) in DIRECTIONS.items():
        corpus = [{"id": path, "title": "", "text": text} for path, text in vaults[answering].items()]
        queries, qrels = [], []
        for path, text in vaults[asked].items():
            if path not in vaults[answering]:
                continue
            for kind, question in questions(text).items():
                if question:
                    queries.append({"id": f"{path}#{kind}", "text": question})
                    qrels.append((f"{path}#{kind}", path))
        folders[name] = evaluate.write_dataset(out / f"fastapi-{name}", corpus, queries, qrels)
    return folders


def measure(folders: dict[str, Path], out: Path, channels: list[str], *, token_match: bool = True) -> dict:
    result: dict = {}
    for name, folder in folders.items():
        dataset = evaluate.load_dataset(folder)
        answering = DIRECTIONS[name][1]
        vault, db = out / f"vault-{answering}", out / f"index-{answering}.db"
        mapping = evaluate.write_vault(dataset, vault)
        settings = load_settings(vault=vault, db_path=db, env={}, token_match=token_match)
        with Workspace.open(settings, create=True) as ws:
            ws.sync()
            row = {}
            for kind in ("heading", "sentence", "all"):
                subset = [q for q in dataset.queries if kind == "all" or q["id"].endswith(f"#{kind}")]
                part = evaluate.Dataset(dataset.name, dataset.corpus, subset, dataset.qrels)
                scores = evaluate.evaluate(ws, part, mapping, channels)["channels"]
                row[kind] = {c: {"mrr@10": m["mrr@10"], "ndcg@10": m["ndcg@10"]} for c, m in scores.items()}
            row["queries"] = len(dataset.queries)
        result[name] = row
    return result


def timing(folders: dict[str, Path], out: Path, limit: int) -> dict:
    """Per cross-language direction, median ms of a hybrid search without the token re-read, with it on stored
    token states, and with the candidates read by the model now."""
    result = {}
    for name in ("ru2en", "en2ru"):
        dataset = evaluate.load_dataset(folders[name], limit=limit)
        answering = DIRECTIONS[name][1]
        settings = load_settings(vault=out / f"vault-{answering}", db_path=out / f"index-{answering}.db", env={}, token_match=True)
        with Workspace.open(settings) as ws:
            r, depth = ws.retriever, retrieve.TOKEN_DEPTH
            stored = ws.store.chunk_data
            seconds: dict[str, list[float]] = {"without": [], "stored": [], "read now": []}
            for q in dataset.queries:
                retrieve.TOKEN_DEPTH = 0
                r.hybrid(q["text"], 10)  # the question's vector and the vectors' matrix in memory for all three
                for label in seconds:
                    retrieve.TOKEN_DEPTH = 0 if label == "without" else depth
                    ws.store.chunk_data = stored if label == "stored" else (lambda kind, model, rows: {})
                    r.tokens = TokenMatch(ws.embedder)  # no passage nor question read before
                    started = time.perf_counter()
                    r.hybrid(q["text"], 10)
                    seconds[label].append(time.perf_counter() - started)
            retrieve.TOKEN_DEPTH = depth
            ws.store.chunk_data = stored
        ms = {label: round(1000 * statistics.median(v), 1) for label, v in seconds.items()}
        ratios = {f"{label} ratio": round(ms[label] / ms["without"], 2) for label in ("stored", "read now")}
        result[name] = {**ms, **ratios, "questions": len(dataset.queries)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=EVAL_DATA / "qa" / "fastapi-docs")
    parser.add_argument("--out", type=Path, default=Path("/tmp/rag-known-item"))
    parser.add_argument("--channels", default="bm25,dense,hybrid")
    parser.add_argument("--timing", type=int, default=0, metavar="N", help="also time the token re-read on N questions per direction")
    parser.add_argument("--no-token-match", action="store_true", help="hybrid without the token re-read (setting token_match off; on by default)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folders = write_datasets(args.data, args.out)
    result = measure(folders, args.out, args.channels.split(","), token_match=not args.no_token_match)
    if args.timing:
        result["timing"] = timing(folders, args.out, args.timing)
    if args.json:
        print(json.dumps(result))
        return
    channels = args.channels.split(",")
    print("known-item MRR@10 on the FastAPI docs (heading / first sentence / all)")
    for name, row in result.items():
        if name == "timing":
            for direction, t in row.items():
                print(
                    f"  {direction} hybrid search: {t['without']} ms without the token re-read, {t['stored']} ms with it on stored states"
                    f" ({t['stored ratio']}×), {t['read now']} ms reading the candidates now ({t['read now ratio']}×)"
                )
            continue
        cells = "  ".join(f"{c} {row['heading'][c]['mrr@10']:.3f}/{row['sentence'][c]['mrr@10']:.3f}/{row['all'][c]['mrr@10']:.3f}" for c in channels)
        print(f"  {name}  ({row['queries']} questions)  {cells}")


if __name__ == "__main__":
    sys.exit(main())
