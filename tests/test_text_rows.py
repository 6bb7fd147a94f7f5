"""A chunk's texts kept once in the SQLite index (schema 12, rag/index/text_rows.py): an index of schema 11 is
converted in place and reads back the same texts and keyword rankings; edits and deletions after it forget exactly
the words they should (the FTS5 tables keep no copy of their own)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from rag.config import load_settings
from rag.index import text_rows
from rag.workspace import Workspace
from tests.old_schema import as_schema_11

TERMS = [["sourdough"], ["rise"], ["sqlite"], ["байкал"], ["windows"], ["bread", "starter"]]
NOTE = "# Trip\n\nПоездка 🚀 на Байкал: мы взяли 2 палатки и éclair.\n\nThe ice 🧊 was clear, and the water was cold in March.\n"


def _reads(ws) -> dict:
    """What readers get from the index: every text to embed, each chunk's index text, keyword rankings."""
    store = ws.store
    keys = [k for (k,) in store._read("SELECT vector_key FROM sentences UNION SELECT vector_key FROM chunks")]
    rowids = [r for (r,) in store._read("SELECT rowid FROM chunks")]
    return {
        "texts": sorted(store.index_texts(keys)),
        "sizes": store.text_sizes(keys),
        "chunks": store.chunk_index_texts(rowids),
        "passages": store.chunks_by_rowid(rowids),  # what the reader, the answer and MCP are given
        "bm25": [store.bm25(t, 20) for t in TERMS],
        "sounds": [store.sound_bm25(t, 20) for t in TERMS],
        "vocabulary": store._read("SELECT term, doc, cnt FROM chunks_vocab ORDER BY term"),
    }


def _open(vault: Path, db: Path, embedder) -> Workspace:
    return Workspace.open(load_settings(vault=vault, db_path=db, env={}), create=True, embedder=embedder)


def test_an_index_of_schema_11_reads_the_same_after_migration_12_and_keeps_no_copies(vault, tmp_path, fake_embedder):
    (vault / "Notes" / "Trip.md").write_text(NOTE, encoding="utf-8")
    with _open(vault, tmp_path / "i.db", fake_embedder) as ws:
        ws.sync()
        before = _reads(ws)
    as_schema_11(tmp_path / "i.db")
    old = sqlite3.connect(tmp_path / "i.db")
    assert old.execute("SELECT COUNT(*) FROM chunks_fts WHERE stems IS NOT NULL").fetchone()[0] > 0  # content kept
    old.close()
    with _open(vault, tmp_path / "i.db", fake_embedder) as ws:  # migration 12 runs on open
        assert _reads(ws) == before
        # a chunk keeps its index text only where it is not context + text (its wikilinks shown as their titles)
        assert ws.store._read("SELECT COUNT(*) FROM chunks WHERE index_text != '' AND instr(text, '[[') = 0")[0][0] == 0
        assert ws.store._read("SELECT COUNT(*) FROM chunks WHERE index_text = '' AND context IS NOT NULL")[0][0] > 0
        # a sentence keeps its text only where it is not found in its chunk's (a table row, wikilinks as titles)
        sentences = ws.store._read(
            "SELECT COUNT(*), SUM(s.text = ''), SUM(s.text != '' AND instr(c.text, s.text) > 0) FROM sentences s JOIN chunks c ON c.rowid = s.chunk"
        )[0]
        assert sentences[0] > 30 and sentences[1] > 0.9 * sentences[0] and sentences[2] == 0
        assert ws.store._read("SELECT COUNT(*) FROM chunks_fts WHERE stems IS NOT NULL")[0][0] == 0  # contentless
        assert ws.store.compact() > 0  # the migration asks for it: what it gave back lies inside pages
        assert ws.store.get_meta("compact") is None
        passages = ws.store.chunks_by_rowid([r for (r,) in ws.store._read("SELECT rowid FROM chunks")]).values()
        assert all(p.sha256 == hashlib.sha256(p.text.encode()).hexdigest() for p in passages)  # as the answer checks it


def test_edits_and_deletions_after_the_migration_rank_as_a_fresh_index(vault, tmp_path, fake_embedder):
    with _open(vault, tmp_path / "old.db", fake_embedder) as ws:
        ws.sync()
    as_schema_11(tmp_path / "old.db")
    (vault / "Notes" / "Sourdough.md").write_text("# Sourdough\n\nThe loaf rises overnight on the windows sill.\n", encoding="utf-8")
    (vault / "Notes" / "SQLite.md").unlink()
    (vault / "Notes" / "Trip.md").write_text(NOTE, encoding="utf-8")
    with _open(vault, tmp_path / "old.db", fake_embedder) as converted:
        converted.sync()
        after = _reads(converted)
    with _open(vault, tmp_path / "fresh.db", fake_embedder) as fresh:
        fresh.sync()
        expected = _reads(fresh)
    assert after["vocabulary"] == expected["vocabulary"]  # deleted words are gone from the FTS5 index, none left over
    assert [[s for _, s in r] for r in after["bm25"]] == [[s for _, s in r] for r in expected["bm25"]]
    assert [[s for _, s in r] for r in after["sounds"]] == [[s for _, s in r] for r in expected["sounds"]]
    assert sorted(after["texts"]) == sorted(expected["texts"])


def test_a_sentence_span_reads_back_exactly_in_russian_with_emoji_and_combining_marks():
    chunk = "Заголовок\n\nПривет 👋🏽 мир — é (e + ◌́) и 𝔘𝔫𝔦𝔠𝔬𝔡𝔢. Второе предложение 🧊 здесь!"
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE chunks (rowid INTEGER PRIMARY KEY, text TEXT)")
    db.execute("CREATE TABLE sentences (chunk INTEGER, text TEXT, line INTEGER, vector_key TEXT, script TEXT, start_char INTEGER, end_char INTEGER)")
    db.execute("INSERT INTO chunks(rowid, text) VALUES (1, ?)", (chunk,))
    sentences = ["Привет 👋🏽 мир — é (e + ◌́) и 𝔘𝔫𝔦𝔠𝔬𝔡𝔢.", "Второе предложение 🧊 здесь!", "not in the chunk"]
    for s in sentences:
        db.execute("INSERT INTO sentences VALUES (1,?,?,?,?,?,?)", text_rows.sentence_row(chunk, s, 1, "k", None))
    read = [r[0] for r in db.execute(f"SELECT {text_rows.SENTENCE_TEXT} FROM {text_rows.SENTENCES} ORDER BY s.rowid")]
    assert read == sentences
    assert [r[0] for r in db.execute("SELECT text = '' FROM sentences ORDER BY rowid")] == [1, 1, 0]


def test_a_row_whose_keyword_values_were_lost_is_forgotten_from_what_the_index_holds(vault, tmp_path, fake_embedder):
    with _open(vault, tmp_path / "damaged.db", fake_embedder) as ws:
        ws.sync()
        with ws.store.transaction() as db:  # a damaged file: one row's values unreadable, another's missing
            chunks = [r for (r,) in db.execute("SELECT rowid FROM chunks WHERE path IN ('Notes/Sourdough.md', 'Notes/SQLite.md')")]
            db.execute("UPDATE chunk_keywords SET packed = x'00ff' WHERE chunk = ?", (chunks[0],))
            db.execute("DELETE FROM chunk_keywords WHERE chunk = ?", (chunks[-1],))
        (vault / "Notes" / "Sourdough.md").write_text("# Sourdough\n\nThe loaf rises overnight on the windows sill.\n", encoding="utf-8")
        (vault / "Notes" / "SQLite.md").unlink()
        ws.sync()
        after = _reads(ws)
    with _open(vault, tmp_path / "fresh.db", fake_embedder) as fresh:
        fresh.sync()
        expected = _reads(fresh)
    assert after["vocabulary"] == expected["vocabulary"]
    assert [[s for _, s in r] for r in after["bm25"]] == [[s for _, s in r] for r in expected["bm25"]]
    assert [[s for _, s in r] for r in after["sounds"]] == [[s for _, s in r] for r in expected["sounds"]]
