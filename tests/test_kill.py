"""A killed `index` run (SIGKILL, mid-embedding) leaves an index that opens and answers, and the next run completes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from .test_sync import consistency


def test_sigkill_during_indexing_then_rerun_completes_a_consistent_index(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(60):
        body = "\n\n".join(f"Paragraph {j} of note {i}: facts about topic {i * 7 + j} and more words." for j in range(3))
        (vault / f"note {i:02d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")
    db = tmp_path / "index.db"
    cmd = [sys.executable, "-m", "rag", "index", "--vault", str(vault), "--db", str(db), "--json"]
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.time() + 60
    while time.time() < deadline:  # kill once some vectors exist but not all
        if db.exists():
            state = consistency(db) if _has_tables(db) else None
            if state and state["chunks"] == 60 and _vectors(db) > 0:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    vectors_at_kill = _vectors(db)
    assert 0 < vectors_at_kill < 60, "the kill should land mid-embedding"
    state = consistency(db)
    assert state["chunks"] == state["fts"] and state["no_file"] == 0
    search = subprocess.run([sys.executable, "-m", "rag", "search", "topic 12", "--vault", str(vault), "--db", str(db), "--json", "--mode", "bm25"],
                            capture_output=True, text=True, env=env)
    assert search.returncode == 0 and json.loads(search.stdout)
    rerun = subprocess.run(cmd, capture_output=True, text=True, env=env)
    report = json.loads(rerun.stdout)
    assert report["vectors_missing"] == 0 and report["chunks_embedded"] == 60 - vectors_at_kill
    assert consistency(db)["orphan_vectors"] == 0


def _has_tables(db) -> bool:
    import sqlite3

    try:
        return sqlite3.connect(db).execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'embeddings'").fetchone()[0] == 1
    except sqlite3.Error:
        return False


def _vectors(db) -> int:
    import sqlite3

    try:
        return sqlite3.connect(db).execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    except sqlite3.Error:
        return 0
