"""The index file: created, migrated, recognised, and never confused with someone else's database."""

from __future__ import annotations

import sqlite3

import pytest

from rag.config import load_settings
from rag.errors import IndexCorrupt, IndexForeign, IndexMissing, IndexNewer
from rag.index.schema import MIGRATIONS
from rag.index.store import Store
from rag.workspace import Workspace


def test_a_new_index_is_wal_with_schema_version_and_application_id(tmp_path):
    store = Store.open(tmp_path / "i.db", create=True)
    store.close()
    db = sqlite3.connect(tmp_path / "i.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert db.execute("PRAGMA application_id").fetchone()[0] == 0x52414756


def test_opening_a_missing_index_says_to_run_index(tmp_path):
    with pytest.raises(IndexMissing, match="python -m rag index"):
        Store.open(tmp_path / "none.db")


def test_a_garbage_file_is_reported_as_damaged(tmp_path):
    path = tmp_path / "i.db"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(IndexCorrupt, match="move it aside and rebuild"):
        Store.open(path)


def test_a_foreign_sqlite_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE invoices (id INTEGER)")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(IndexForeign, match="another program"):
        Store.open(path, create=True)
    assert path.read_bytes() == before


def test_index_moves_a_damaged_file_aside_and_rebuilds(settings, fake_embedder):
    settings.db_path.parent.mkdir(parents=True)
    settings.db_path.write_bytes(b"garbage" * 1000)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        assert ws.recovered_from is not None and ws.recovered_from.exists()
        assert ws.sync().files_added == 11
    assert ws.recovered_from.read_bytes() == b"garbage" * 1000  # nothing is deleted


def test_a_newer_schema_is_refused_and_the_index_is_left_where_it_is(tmp_path, vault, fake_embedder):
    path = tmp_path / "i.db"
    Store.open(path, create=True).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    db.commit()
    db.close()
    with pytest.raises(IndexNewer, match="newer version"):
        Store.open(path)
    settings = load_settings(vault=vault, db_path=path, env={})
    with pytest.raises(IndexNewer, match="Upgrade Ask your vault"):  # not taken for damaged and moved aside
        Workspace.open(settings, create=True, embedder=fake_embedder)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) + 5
    assert not [p.name for p in tmp_path.iterdir() if "corrupt" in p.name]


def test_generation_changes_on_searchable_writes_only(workspace):
    workspace.sync()
    before = workspace.store.generation()
    workspace.sync()  # no change: stat-only, meta updated
    assert workspace.store.generation() == before
    (workspace.settings.vault / "new.md").write_text("# New\n\nfresh text\n", encoding="utf-8")
    workspace.sync()
    assert workspace.store.generation() > before
