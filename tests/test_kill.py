"""A killed `index` run (SIGKILL, mid-embedding) leaves an index that opens and answers, and the next run completes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from .test_sync import consistency


def test_sigkill_during_indexing_then_rerun_completes_a_consistent_index(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(60):
        body = "\n\n".join(f"Paragraph {j} of note {i}: facts about topic {i * 7 + j} and more words." for j in range(3))
        (vault / f"note {i:02d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")
    db = tmp_path / "index.db"
    cmd = [sys.executable, "-m", "rag", "index", "--vault", str(vault), "--db", str(db), "--json"]
    env = dict(os.environ)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.time() + 60
    while time.time() < deadline:  # kill once some vectors exist but not all
        if db.exists():
            state = consistency(db) if _migrated(db) else None
            if state and state["chunks"] == 60 and _vectors(db) > 0:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    vectors_at_kill = _vectors(db)
    assert 0 < vectors_at_kill < 60, "the kill should land mid-embedding"
    state = consistency(db)
    assert state["chunks"] == state["fts"] and state["no_file"] == 0
    search = subprocess.run(
        [sys.executable, "-m", "rag", "search", "topic 12", "--vault", str(vault), "--db", str(db), "--json", "--mode", "bm25"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert search.returncode == 0 and json.loads(search.stdout)
    rerun = subprocess.run(cmd, capture_output=True, text=True, env=env)
    report = json.loads(rerun.stdout)
    assert report["vectors_missing"] == 0 and report["chunks_embedded"] == 60 - vectors_at_kill
    assert consistency(db)["orphan_vectors"] == 0


def _migrated(db) -> bool:
    """Every migration committed: before that, a raw reader can meet a schema half way (the FTS table is rebuilt by
    migration 5), which the index's own connections never see (they migrate under the same write lock)."""
    import sqlite3

    from rag.index.schema import MIGRATIONS

    try:
        return sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    except sqlite3.Error:
        return False


def _vectors(db) -> int:
    import sqlite3

    try:
        # chunk vectors only (sentence vectors come after them)
        return sqlite3.connect(db).execute("SELECT COUNT(*) FROM embeddings WHERE vector_key IN (SELECT vector_key FROM chunks)").fetchone()[0]
    except sqlite3.Error:
        return 0


# --- SIGKILL at chosen points: inside a write transaction, before it commits ------------------------------------

KILLER = textwrap.dedent("""
    import contextlib, os, signal, sys, time
    from pathlib import Path
    from rag.config import load_settings
    from rag.index.store import Store
    from rag.workspace import Workspace
    from tests.fakes import FakeEmbedder

    mode, vault, db, kill_at = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
    writes = {"n": 0}
    original = Store.transaction

    @contextlib.contextmanager
    def killing(self, **kw):
        with original(self, **kw) as conn:
            yield conn
            writes["n"] += 1
            if writes["n"] == kill_at:  # the transaction's statements ran; COMMIT has not
                os.kill(os.getpid(), signal.SIGKILL)

    Store.transaction = killing
    settings = load_settings(vault=vault, db_path=db, env={}, chunk_target_tokens=40, chunk_min_tokens=10,
                             chunk_hard_tokens=200, embed_batch_size=4)
    with Workspace.open(settings, create=True, embedder=FakeEmbedder()) as ws:
        if mode == "index":
            ws.sync()
        else:  # the watcher: follow a burst of edits, renames and deletes made while it runs
            from rag.index.watch import Watcher
            with Watcher(settings, lambda: ws.sync() is not None, debounce=0.1) as watcher:
                watcher.kick()
                time.sleep(0.3)
                for i in range(6):
                    (vault / f"note {i:02d}.md").write_text(f"# Edited {i}\\n\\nThe okapi {i} moved.\\n", encoding="utf-8")
                os.rename(vault / "note 10.md", vault / "Moved note 10.md")
                (vault / "note 11.md").unlink()
                time.sleep(5)
    print(writes["n"])
""")


def _vault(path, notes: int = 14):
    path.mkdir()
    for i in range(notes):
        body = "\n\n".join(f"Paragraph {j} of note {i}: facts about topic {i * 7 + j} and more words." for j in range(3))
        (path / f"note {i:02d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")
    return path


def _run_killer(mode, vault, db, kill_at):
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-c", KILLER, mode, str(vault), str(db), str(kill_at)], capture_output=True, text=True, env=env, timeout=60
    )


def _check_after_kill(vault, db):
    """The killed index opens, answers keyword queries, and has no half-written file."""
    from rag.config import load_settings
    from rag.workspace import Workspace

    from .fakes import FakeEmbedder

    state = consistency(db)
    assert state["chunks"] == state["fts"] and state["fts_orphans"] == 0 and state["no_file"] == 0
    settings = load_settings(vault=vault, db_path=db, env={}, chunk_target_tokens=40, chunk_min_tokens=10, chunk_hard_tokens=200)
    with Workspace.open(settings, embedder=FakeEmbedder()) as ws:
        if state["chunks"]:
            assert ws.retriever.keyword("paragraph").hits or ws.retriever.keyword("okapi").hits
        ws.retriever.hybrid("facts about topic")
        report = ws.sync()  # the next run completes it
    assert report.vectors_missing == 0 and report.embed_error is None
    state = consistency(db)
    assert state["chunks"] == state["fts"] and state["fts_orphans"] == 0 and state["no_file"] == 0 and state["orphan_vectors"] == 0
    assert sorted(state["paths"]) == sorted(p.name for p in vault.glob("*.md"))
    return report


# 14 notes of one chunk each: writes 1-14 store notes, 15-18 vector batches, 19 drops orphans, 20-22 meta
@pytest.mark.parametrize("kill_at", [1, 7, 14, 15, 17, 19, 20, 22])
def test_sigkill_at_any_write_of_a_first_index_leaves_an_index_the_next_run_completes(tmp_path, kill_at):
    vault, db = _vault(tmp_path / "vault"), tmp_path / "index.db"
    run = _run_killer("index", vault, db, kill_at)
    assert run.returncode == -signal.SIGKILL, run.stderr
    _check_after_kill(vault, db)


# writes 1-2: the first (no-change) check; then the edited, moved and deleted notes, then their vectors
@pytest.mark.parametrize("kill_at", [3, 6, 9, 12, 15])
def test_sigkill_of_the_watcher_while_it_follows_edits_renames_and_deletes(tmp_path, kill_at):
    vault, db = _vault(tmp_path / "vault"), tmp_path / "index.db"
    assert _run_killer("index", vault, db, 10_000).returncode == 0  # a complete index to start from
    run = _run_killer("watch", vault, db, kill_at)
    assert run.returncode == -signal.SIGKILL, run.stderr
    _check_after_kill(vault, db)


def test_a_corrupted_index_file_is_moved_aside_with_a_message_and_rebuilt(tmp_path):
    vault, db = _vault(tmp_path / "vault", notes=3), tmp_path / "index.db"
    env = dict(os.environ)
    assert _run_killer("index", vault, db, 10_000).returncode == 0
    with open(db, "r+b") as f:  # scribble over the schema page
        f.seek(100)
        f.write(b"\xff" * 4000)
    search = subprocess.run(
        [sys.executable, "-m", "rag", "search", "topic", "--vault", str(vault), "--db", str(db), "--mode", "bm25"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert search.returncode == 1 and "damaged" in search.stderr and "python -m rag index" in search.stderr
    rebuilt = _run_killer("index", vault, db, 10_000)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert list(tmp_path.glob("index.db.corrupt-*"))
    assert consistency(db)["paths"] == [f"note {i:02d}.md" for i in range(3)]


def test_sigkill_of_python_m_rag_watch_while_it_follows_saves_then_index_completes(tmp_path):
    vault, db = _vault(tmp_path / "vault", notes=6), tmp_path / "index.db"
    env = dict(os.environ)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "rag", "watch", "--vault", str(vault), "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    try:
        _poll(lambda: _migrated(db) and _vectors(db) == 6)  # the first check indexed and embedded what was there
        for i in range(20):  # a burst of new notes; kill while they are being read or embedded
            (vault / f"new {i:02d}.md").write_text(f"# New {i}\n\nThe okapi census, round {i}.\n", encoding="utf-8")
        _poll(lambda: consistency(db)["chunks"] > 6)
    finally:
        watcher.send_signal(signal.SIGKILL)
        watcher.wait()
    state = consistency(db)
    assert state["chunks"] == state["fts"] and state["no_file"] == 0
    rerun = subprocess.run(
        [sys.executable, "-m", "rag", "index", "--vault", str(vault), "--db", str(db), "--json"], capture_output=True, text=True, env=env
    )
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["vectors_missing"] == 0
    state = consistency(db)
    assert len(state["paths"]) == 26 and state["chunks"] == state["fts"] and state["orphan_vectors"] == 0


def _poll(condition, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert time.time() < deadline, "condition not reached in time"
        time.sleep(0.02)
