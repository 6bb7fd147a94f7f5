"""Several app instances on one index at once: 4 writers and 8 readers for 60 s, in separate processes, on one vault.

    python bench/postgres_concurrency.py [--backend postgresql|sqlite|both] [--seconds 60] [--writers 4] [--readers 8]
                                         [--notes 200] [--workdir DIR] [--json]

The issue's requirement: "4 concurrent writers + 8 readers for 60 s: throughput, no lost update, no error". Each
backend (PostgreSQL first, on a real PostgreSQL 18 + pgvector started offline by rag/devtools/pg_server.py; then SQLite as the
comparison) gets a fresh generated vault of a few hundred small English and Russian notes, indexed once before the
clock starts. Then, all at once and each in its own OS process (multiprocessing, spawn):

- writer i owns `w{i}/`: in a loop it rewrites one of its notes with a new version marker (and now and then undoes
  its last edit, creates a note or deletes one), then runs `Workspace.sync()` (which also picks up the other writers'
  changes, as several app instances would), checks that the index now holds its own notes as they are on disk
  ("read your writes", counted, not a failure: another indexer may legitimately be a step behind), and counts a recall
  of some shared memory facts (`store.count_recalls`), remembering how many increments it made of each;
- reader i loops over hybrid searches (every fifth a keyword search), each followed by `count_recalls` of some of the
  same shared facts.

When every process has stopped, the index is compared with the vault as the processes left it, synced once more, and
checked: (1) no lost update: every note on disk is in the index with its file's sha256, its chunks hold the version
marker its writer wrote last, and no deleted note is left; (2) no lost increment: each shared counter equals the
increments all processes made; (3) errors: every exception in any process (and every warning logged by `rag`) is
counted and reported with its message, a process still running well past the end is reported as hung with its stack;
(4) index consistency, the invariants of rag/devtools/index_checks.py:consistency. The exit status is 1 if any of these fail.

The embedder is a deterministic stand-in (rag/devtools/fake_embedder.py:FakeEmbedder, a hashed bag of stems, 64 dimensions), not the
real model: this benchmark measures storage and concurrency (transactions, locks, claims, the vector cache), and the
real model would spend the minute embedding. Other settings are the defaults (sentence vectors on). Throughputs are
wall-clock numbers on whatever else the machine runs: the JSON carries the load average before and after.
"""

from __future__ import annotations

import argparse
import collections
import faulthandler
import hashlib
import json
import logging
import multiprocessing as mp
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

SHARED_FACTS = [f"fact-shared-{k}" for k in range(8)]  # memory facts every process counts recalls of
NOTES_PER_WRITER = 20
# One writer's edits, in a loop: mostly rewrites with a new version, an undo of the edit just before, a new note and
# the deletion of one it created.
CYCLE = ("rewrite", "rewrite", "revert", "create", "rewrite", "rewrite", "revert", "delete", "rewrite", "rewrite")
GRACE_SECONDS = 120  # a process still running this long after the end is reported as hung

EN = (
    "sourdough levain hydration starter flour crumb oven steam garden tomato basil compost train ticket platform "
    "station harbour ferry lighthouse database index vector query latency cache replica server backup invoice budget "
    "meeting roadmap release kernel thread lock queue"
).split()
RU = (
    "хлеб закваска мука тесто печь сад огород помидор поезд билет вокзал перрон озеро байкал остров паром маяк база "
    "индекс запрос кэш сервер копия счёт бюджет встреча релиз ядро поток очередь"
).split()
QUERIES = (
    "sourdough starter hydration",
    "закваска для хлеба",
    "train ticket to the station",
    "поезд на байкал",
    "database index latency",
    "сервер и резервная копия",
    "garden tomato compost",
    "маяк на острове",
    "release roadmap meeting",
    "очередь потоков ядра",
    "ferry harbour lighthouse",
    "бюджет и счёт",
)
STABLE_QUERY = "sourdough"  # every base note about bread has it, and base notes never change: a keyword search must find it


# --- the vault ----------------------------------------------------------------------------------------------------


def _words(vocabulary: list[str], seed: str, n: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(vocabulary) for _ in range(n))


def base_note(k: int) -> str:
    bread = "Sourdough notes: feed the levain before baking. " if k % 3 == 0 else ""
    return f"# Topic {k}\n\n{bread}{_words(EN, f'base-en-{k}', 45).capitalize()}.\n\n## Заметка\n\n{_words(RU, f'base-ru-{k}', 40).capitalize()}.\n"


def marker(writer: int, name: str, version: int) -> str:
    return f"w{writer}{name}v{version:06d}"


def writer_note(writer: int, j: int, version: int) -> str:
    seed = f"w{writer}-n{j}-v{version}"
    return (
        f"# Writer {writer} note {j}\n\nVersion {marker(writer, f'n{j}', version)}. {_words(EN, seed + 'en', 40)}.\n\n"
        f"## Версия {version}\n\n{_words(RU, seed + 'ru', 35)}.\n"
    )


def created_note(writer: int, c: int) -> str:
    return f"# Writer {writer} new note {c}\n\nCreated {marker(writer, f'new{c}', 0)}. {_words(EN, f'w{writer}-new{c}', 30)}.\n"


def make_vault(vault: Path, notes: int, writers: int) -> None:
    for k in range(notes):
        folder = vault / f"base{k // 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"topic-{k:04d}.md").write_text(base_note(k), encoding="utf-8")
    for i in range(writers):
        (vault / f"w{i}").mkdir(parents=True, exist_ok=True)
        for j in range(NOTES_PER_WRITER):
            (vault / f"w{i}" / f"note-{j:02d}.md").write_text(writer_note(i, j, 0), encoding="utf-8")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- the processes ------------------------------------------------------------------------------------------------


class _Record:
    """What one process reports: counts, latencies, every error with its message, every warning `rag` logged."""

    def __init__(self, role: str, index: int) -> None:
        self.role, self.index = role, index
        self.counts: collections.Counter = collections.Counter()
        self.latency: dict[str, list[float]] = collections.defaultdict(list)
        self.increments: collections.Counter = collections.Counter()
        self.errors: collections.Counter = collections.Counter()
        self.tracebacks: list[str] = []
        self.warnings: collections.Counter = collections.Counter()
        self.examples: list[str] = []
        self.final_notes: dict[str, dict | None] = {}
        self.started = self.ended = 0.0

    def error(self, op: str, exc: BaseException) -> None:
        key = f"{self.role} {op}: {type(exc).__name__}: {str(exc).strip()[:300]}"
        if key not in self.errors and len(self.tracebacks) < 5:
            self.tracebacks.append(f"[{self.role} {self.index}] " + "".join(traceback.format_exception(exc))[-3000:])
        self.errors[key] += 1

    def timed(self, name: str, started: float) -> None:
        self.latency[name].append((time.perf_counter() - started) * 1000)

    def to_json(self) -> dict:
        return {
            "role": self.role,
            "index": self.index,
            "counts": dict(self.counts),
            "latency": dict(self.latency),
            "increments": dict(self.increments),
            "errors": dict(self.errors),
            "tracebacks": self.tracebacks,
            "warnings": dict(self.warnings),
            "examples": self.examples,
            "final_notes": self.final_notes,
            "started": self.started,
            "ended": self.ended,
        }


class _WarningCounter(logging.Handler):
    def __init__(self, record: _Record) -> None:
        super().__init__(logging.WARNING)
        self.record = record

    def emit(self, entry: logging.LogRecord) -> None:
        self.record.warnings[f"{entry.name}: {entry.getMessage()[:300]}"] += 1


def worker(role: str, index: int, vault: str, db: str, seconds: float, workdir: str, barrier, seed: int) -> None:
    """One process: open the index, wait for every other one, work until the deadline, write what happened to a file."""
    from rag.config import load_settings
    from rag.devtools.fake_embedder import FakeEmbedder
    from rag.workspace import Workspace

    out = Path(workdir) / f"{role}-{index}"
    trace = open(f"{out}.stack", "w")  # noqa: SIM115 - open for the process's life: the parent asks for the stack of a hung process
    faulthandler.register(signal.SIGUSR1, file=trace, all_threads=True)
    record = _Record(role, index)
    logging.getLogger("rag").addHandler(_WarningCounter(record))
    rng = random.Random(seed)
    ws = None
    try:
        settings = load_settings(vault=Path(vault), db_path=db, env={})
        ws = Workspace.open(settings, embedder=FakeEmbedder())
    except Exception as exc:  # noqa: BLE001 - reported, never hidden
        record.error("open", exc)
    try:
        barrier.wait(timeout=300)
    except Exception as exc:  # noqa: BLE001
        record.error("start", exc)
        ws = None
    record.started = time.time()
    deadline = time.monotonic() + seconds
    if ws is not None:
        try:
            (_writer if role == "writer" else _reader)(ws, index, Path(vault), deadline, rng, record)
        except Exception as exc:  # noqa: BLE001 - a bug in the bench itself, still reported
            record.error("loop", exc)
    record.ended = time.time()
    if ws is not None:
        try:
            ws.close()
        except Exception as exc:  # noqa: BLE001
            record.error("close", exc)
    Path(f"{out}.json").write_text(json.dumps(record.to_json()), encoding="utf-8")


def _writer(ws, i: int, vault: Path, deadline: float, rng: random.Random, record: _Record) -> None:
    current: dict[str, str | None] = {f"w{i}/note-{j:02d}.md": writer_note(i, j, 0) for j in range(NOTES_PER_WRITER)}
    markers = {path: marker(i, f"n{j}", 0) for j, path in enumerate(current)}
    version = dict.fromkeys(range(NOTES_PER_WRITER), 0)  # highest version each note ever had
    previous: dict[str, tuple[str, str]] = {}  # path → (text, marker) before its last rewrite: what an undo restores
    created: list[str] = []
    last_rewritten = None
    turn = k = 0
    while time.monotonic() < deadline:
        op = CYCLE[k % len(CYCLE)]
        k += 1
        if op == "revert" and last_rewritten in previous:
            path = last_rewritten
            text, mark = previous.pop(path)
        elif op == "create":
            c = record.counts["creates"]
            path, text, mark = f"w{i}/new-{c:04d}.md", created_note(i, c), marker(i, f"new{c}", 0)
            created.append(path)
        elif op == "delete" and created:
            path, text, mark = created.pop(0), None, None
        else:
            op, j = "rewrite", turn % NOTES_PER_WRITER
            turn += 1
            path = f"w{i}/note-{j:02d}.md"
            previous[path] = (current[path], markers[path])
            version[j] += 1
            text, mark = writer_note(i, j, version[j]), marker(i, f"n{j}", version[j])
            last_rewritten = path
        try:
            if text is None:
                (vault / path).unlink()
            else:
                (vault / path).write_text(text, encoding="utf-8")  # in place, as most editors save
        except OSError as exc:
            record.error(op, exc)
            continue
        current[path], markers[path] = text, mark
        record.counts[op + "s"] += 1
        started = time.perf_counter()
        try:
            report = ws.sync()
        except Exception as exc:  # noqa: BLE001 - reported, never hidden
            record.error("sync", exc)
            continue
        record.timed("sync", started)
        record.counts["syncs"] += 1
        record.counts["edits_indexed"] += 1
        record.counts["files_indexed"] += report.files_added + report.files_updated
        record.counts["files_removed"] += report.files_removed
        if report.embed_error:
            record.error("sync", RuntimeError(f"embed_error: {report.embed_error}"))
        if report.skipped:
            record.counts["skipped_notes_reported"] += len(report.skipped)
        try:
            _check_own_notes(ws, current, record)
        except Exception as exc:  # noqa: BLE001
            record.error("check", exc)
        _recall(ws, rng, record)
    record.final_notes = {path: ({"sha256": sha(text), "marker": markers[path]} if text is not None else None) for path, text in current.items()}


def _check_own_notes(ws, current: dict[str, str | None], record: _Record) -> None:
    """Right after this writer's own sync, the index should hold its notes as it left them on disk (read your writes)."""
    states = ws.store.file_states()
    for path, text in current.items():
        state = states.get(path)
        if text is None and state is not None:
            problem = "ghost"  # deleted by this writer, still in the index
        elif text is not None and state is None:
            problem = "missing"
        elif text is not None and state.sha256 != sha(text):
            problem = "stale"
        else:
            continue
        record.counts[f"own_{problem}_after_sync"] += 1
        if len(record.examples) < 5:
            record.examples.append(f"{problem}: {path} after sync {record.counts['syncs']}")


def _recall(ws, rng: random.Random, record: _Record) -> None:
    facts = rng.sample(SHARED_FACTS, rng.randint(1, len(SHARED_FACTS)))  # distinct, in a random order
    started = time.perf_counter()
    try:
        ws.store.count_recalls(facts)
    except Exception as exc:  # noqa: BLE001 - an increment that may or may not have landed: the counter check shows it
        record.error("count_recalls", exc)
        return
    record.timed("count_recalls", started)
    record.counts["recall_calls"] += 1
    record.increments.update(facts)


def _reader(ws, i: int, vault: Path, deadline: float, rng: random.Random, record: _Record) -> None:
    n = i  # readers start at different queries
    while time.monotonic() < deadline:
        n += 1
        kind = "keyword" if n % 5 == 0 else "hybrid"
        query = STABLE_QUERY if n % 10 == 0 else QUERIES[n % len(QUERIES)]
        started = time.perf_counter()
        try:
            result = ws.retriever.keyword(query, 10) if kind == "keyword" else ws.retriever.hybrid(query, 10)
        except Exception as exc:  # noqa: BLE001 - reported, never hidden
            record.error(kind, exc)
            continue
        record.timed(kind, started)
        record.counts[kind] += 1
        if not result.hits:
            record.counts["empty_results"] += 1
            if query == STABLE_QUERY:  # the unchanging bread notes went missing from the index
                record.error(kind, RuntimeError(f"no hits for {query!r}"))
        if result.notice:
            record.error(kind, RuntimeError(f"notice: {result.notice}"))
        _recall(ws, rng, record)


# --- one run --------------------------------------------------------------------------------------------------------


def run_backend(backend: str, args, workdir: Path) -> dict:
    from rag.config import load_settings
    from rag.devtools.fake_embedder import FakeEmbedder
    from rag.workspace import Workspace

    root = Path(tempfile.mkdtemp(prefix=f"{backend}-", dir=workdir))
    vault = root / "vault"
    make_vault(vault, args.notes, args.writers)
    server = None
    try:
        if backend == "postgresql":
            from rag.devtools.pg_server import Server

            server = Server()
            db = server.new_database()
        else:
            db = str(root / "index" / "index.db")
        settings = load_settings(vault=vault, db_path=db, env={})
        started = time.perf_counter()
        with Workspace.open(settings, create=True, embedder=FakeEmbedder()) as ws:
            first = ws.sync()
        initial_s = time.perf_counter() - started
        load_before = os.getloadavg()
        result = _run_processes(backend, args, root, vault, db)
        result["load_avg_before"] = [round(x, 2) for x in load_before]
        result["load_avg_after"] = [round(x, 2) for x in os.getloadavg()]
        result["start"] = {"notes": first.files_added, "chunks": first.chunks_total, "initial_index_s": round(initial_s, 2)}
        result.update(_verify(settings, vault, db, result.pop("_records"), hung=result.pop("_hung"), crashed=result.pop("_crashed")))
        result["ok"] = all(result[part]["ok"] for part in ("notes", "counters", "consistency", "errors"))
        return {"backend": backend, **result}
    finally:
        if server is not None:
            server.close()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def _run_processes(backend: str, args, root: Path, vault: Path, db: str) -> dict:
    ctx = mp.get_context("spawn")
    roles = [("writer", i) for i in range(args.writers)] + [("reader", i) for i in range(args.readers)]
    barrier = ctx.Barrier(len(roles) + 1)
    procs = []
    for n, (role, i) in enumerate(roles):
        p = ctx.Process(target=worker, args=(role, i, str(vault), db, args.seconds, str(root), barrier, 1000 + n), name=f"{role}-{i}")
        p.start()
        procs.append((role, i, p))
    hung, crashed = [], []
    try:
        barrier.wait(timeout=300)
    except threading.BrokenBarrierError:  # a process died or hung before it could start: the rest report why
        crashed.append({"process": "start", "exitcode": None, "why": "not every process reached the start in 300 s"})
    started = time.time()
    for role, i, p in procs:
        p.join(max(1.0, started + args.seconds + GRACE_SECONDS - time.time()))
        if p.is_alive():
            os.kill(p.pid, signal.SIGUSR1)  # faulthandler writes its stack
            time.sleep(1)
            stack = Path(root / f"{role}-{i}.stack").read_text(encoding="utf-8", errors="replace")
            hung.append({"process": f"{role}-{i}", "stack": stack[-4000:]})
            p.terminate()
            p.join(10)
            if p.is_alive():
                p.kill()
                p.join()
        elif p.exitcode != 0:
            crashed.append({"process": f"{role}-{i}", "exitcode": p.exitcode})
    records = []
    for role, i, _ in procs:
        out = root / f"{role}-{i}.json"
        if out.exists():
            records.append(json.loads(out.read_text(encoding="utf-8")))
        elif not any(h["process"] == f"{role}-{i}" for h in hung):
            crashed.append({"process": f"{role}-{i}", "exitcode": None, "why": "wrote no result"})
    writers = [r for r in records if r["role"] == "writer"]
    readers = [r for r in records if r["role"] == "reader"]
    return {
        "seconds": args.seconds,
        "processes": {"writers": args.writers, "readers": args.readers},
        "writers": _writer_summary(writers),
        "readers": _reader_summary(readers),
        "_records": records,
        "_hung": hung,
        "_crashed": crashed,
    }


def _window(records: list[dict]) -> float:
    return max(r["ended"] for r in records) - min(r["started"] for r in records) if records else 0.0


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    values = sorted(values)
    at = lambda q: values[min(len(values) - 1, int(q * len(values)))]  # noqa: E731
    return {"n": len(values), "p50_ms": round(statistics.median(values), 1), "p95_ms": round(at(0.95), 1), "max_ms": round(values[-1], 1)}


def _sum(records: list[dict], key: str) -> int:
    return sum(r["counts"].get(key, 0) for r in records)


def _joined(records: list[dict], key: str) -> list[float]:
    return [x for r in records for x in r["latency"].get(key, [])]


def _writer_summary(records: list[dict]) -> dict:
    window = _window(records)
    edits = _sum(records, "edits_indexed")
    return {
        "window_s": round(window, 1),
        "edits_indexed": edits,
        "edits_indexed_per_s": round(edits / window, 2) if window else 0.0,
        "edits": {op: _sum(records, op + "s") for op in ("rewrite", "revert", "create", "delete")},
        "syncs": _sum(records, "syncs"),
        "syncs_per_s": round(_sum(records, "syncs") / window, 2) if window else 0.0,
        "sync": _percentiles(_joined(records, "sync")),
        "files_indexed_by_syncs": _sum(records, "files_indexed"),
        "files_removed_by_syncs": _sum(records, "files_removed"),
        "count_recalls": _percentiles(_joined(records, "count_recalls")),
        # right after a writer's own sync, its own notes not as it left them on disk (another indexer's older read
        # committed after, or a note another sync removed): informational, the final check is the pass/fail one
        "read_your_writes": {
            "stale": _sum(records, "own_stale_after_sync"),
            "missing": _sum(records, "own_missing_after_sync"),
            "ghost": _sum(records, "own_ghost_after_sync"),
            "examples": [e for r in records for e in r["examples"]][:8],
        },
    }


def _reader_summary(records: list[dict]) -> dict:
    window = _window(records)
    searches = _sum(records, "hybrid") + _sum(records, "keyword")
    return {
        "window_s": round(window, 1),
        "searches": searches,
        "searches_per_s": round(searches / window, 2) if window else 0.0,
        "search": _percentiles(_joined(records, "hybrid") + _joined(records, "keyword")),
        "hybrid": _percentiles(_joined(records, "hybrid")),
        "keyword": _percentiles(_joined(records, "keyword")),
        "count_recalls": _percentiles(_joined(records, "count_recalls")),
    }


# --- the checks -----------------------------------------------------------------------------------------------------


def _disk_notes(vault: Path) -> dict[str, str]:
    return {p.relative_to(vault).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in vault.rglob("*.md")}


def _differences(disk: dict[str, str], indexed: dict) -> dict:
    return {
        "stale": sorted(p for p, digest in disk.items() if p in indexed and indexed[p].sha256 != digest),
        "missing": sorted(p for p in disk if p not in indexed),
        "ghosts": sorted(p for p in indexed if p not in disk),
    }


def _verify(settings, vault: Path, db: str, records: list[dict], *, hung: list[dict], crashed: list[dict]) -> dict:
    from rag.devtools.fake_embedder import FakeEmbedder
    from rag.devtools.index_checks import consistency
    from rag.workspace import Workspace

    out: dict = {}
    errors = collections.Counter()
    for r in records:
        errors.update(r["errors"])
    warnings = collections.Counter()
    for r in records:
        warnings.update(r["warnings"])
    with Workspace.open(settings, embedder=FakeEmbedder()) as ws:
        disk = _disk_notes(vault)
        before = _differences(disk, ws.store.file_states())  # after every writer's last sync, before ours
        final = ws.sync()
        indexed = ws.store.file_states()
        after = _differences(disk, indexed)
        wrong_disk, wrong_marker = [], []
        for r in records:
            for path, expected in r["final_notes"].items():
                if (expected is None) != (path not in disk) or (expected and disk[path] != expected["sha256"]):
                    wrong_disk.append(path)  # the bench's own bookkeeping disagrees with the vault
                elif expected and expected["marker"] not in "\n".join(c.text for c in ws.store.chunks_of(path)):
                    wrong_marker.append(path)
        counts = ws.store.counts(ws.embedder.name)
        expected_counts = collections.Counter()
        for r in records:
            expected_counts.update(r["increments"])
        found = {fact: n for fact, (n, _) in ws.store.recall_counts(SHARED_FACTS).items()}
    out["notes"] = {
        "on_disk": len(disk),
        "indexed": len(indexed),
        "before_final_sync": {k: {"n": len(v), "examples": v[:5]} for k, v in before.items()},
        "final_sync": {"files_added": final.files_added, "files_updated": final.files_updated, "files_removed": final.files_removed},
        "after_final_sync": {k: v[:10] for k, v in after.items()},
        "last_version_missing_from_chunks": wrong_marker[:10],
        "bench_bookkeeping_wrong": wrong_disk[:10],
        "ok": not any(after.values()) and not wrong_marker and not wrong_disk,
    }
    expected = {fact: expected_counts.get(fact, 0) for fact in SHARED_FACTS}
    found = {fact: found.get(fact, 0) for fact in SHARED_FACTS}
    out["counters"] = {
        "expected_total": sum(expected.values()),
        "found_total": sum(found.values()),
        "lost": sum(expected.values()) - sum(found.values()),
        "per_fact": {fact: [expected[fact], found[fact]] for fact in SHARED_FACTS},
        "ok": expected == found,
    }
    state = consistency(db)
    out["consistency"] = {
        **{k: v for k, v in state.items() if k != "paths"},
        "vectors_missing": counts["vectors_missing"],
        "sentence_vectors_missing": counts["sentence_vectors_missing"],
        "ok": state["chunks"] == state["fts"]
        and state["fts_orphans"] == 0
        and state["no_file"] == 0
        and state["orphan_vectors"] == 0
        and counts["vectors_missing"] == 0
        and counts["sentence_vectors_missing"] == 0
        and sorted(state["paths"]) == sorted(disk),
    }
    out["errors"] = {
        "count": sum(errors.values()),
        "by_message": dict(errors.most_common()),
        "tracebacks": [t for r in records for t in r["tracebacks"]][:5],
        "hung": hung,
        "crashed": crashed,
        "rag_warnings": sum(warnings.values()),
        "rag_warnings_by_message": dict(warnings.most_common(10)),
        "ok": not errors and not hung and not crashed,
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("postgresql", "sqlite", "both"), default="both")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--notes", type=int, default=200, help="unchanging notes besides the writers' own (20 each)")
    parser.add_argument("--workdir", help="where vaults, indexes and the PostgreSQL data go (default: a new temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the vaults and indexes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.workdir:
        Path(args.workdir).mkdir(parents=True, exist_ok=True)
        tempfile.tempdir = args.workdir  # the PostgreSQL server's data too
    workdir = Path(tempfile.mkdtemp(prefix="conc-", dir=args.workdir))
    os.chmod(workdir, 0o755)
    backends = ["postgresql", "sqlite"] if args.backend == "both" else [args.backend]
    report = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "cpu_count": os.cpu_count(),
        "embedder": "rag/devtools/fake_embedder.py:FakeEmbedder (deterministic, 64 dimensions)",
        "results": [],
    }
    try:
        for backend in backends:
            report["results"].append(run_backend(backend, args, workdir))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    report["ok"] = all(r["ok"] for r in report["results"])
    print(json.dumps(report, ensure_ascii=False, indent=1) if args.json else _text(report))
    sys.exit(0 if report["ok"] else 1)


def _text(report: dict) -> str:
    lines = []
    for r in report["results"]:
        w, rd = r["writers"], r["readers"]
        lines += [
            f"== {r['backend']}: {r['processes']['writers']} writers + {r['processes']['readers']} readers, {r['seconds']} s"
            f" (load {r['load_avg_before']} → {r['load_avg_after']}, {report['cpu_count']} cores)",
            f"writers: {w['edits_indexed']} edits indexed ({w['edits_indexed_per_s']}/s), {w['syncs_per_s']} syncs/s,"
            f" sync p50 {w['sync'].get('p50_ms')} ms p95 {w['sync'].get('p95_ms')} ms; read-your-writes {w['read_your_writes']}",
            f"readers: {rd['searches']} searches ({rd['searches_per_s']}/s), p50 {rd['search'].get('p50_ms')} ms p95 {rd['search'].get('p95_ms')} ms",
            f"notes ok: {r['notes']['ok']} {r['notes']['after_final_sync']}",
            f"counters ok: {r['counters']['ok']} expected {r['counters']['expected_total']} found {r['counters']['found_total']}",
            f"consistency ok: {r['consistency']['ok']}",
            f"errors: {r['errors']['count']} {r['errors']['by_message']} hung {len(r['errors']['hung'])} crashed {r['errors']['crashed']}",
        ]
    lines.append(f"ok: {report['ok']}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
