"""An index as schema 11 wrote it (before `rag/index/text_rows.py`): every text copy kept, FTS5 tables with content."""

from __future__ import annotations

import json
import sqlite3

from rag.index import blobs, text_rows, word_code

FTS = "tokenize = 'unicode61 remove_diacritics 2'"


def as_schema_12(path) -> None:
    """Undo migrations 13 and 14: the aligned model's sentence readings back in `token_states`, its blob column
    `states`; no facts' readings."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(
        """
        INSERT INTO token_states(vector_key, model, data) SELECT vector_key, model, data FROM sentence_readings;
        DROP TABLE sentence_readings;
        ALTER TABLE token_states RENAME COLUMN data TO states;
        ALTER TABLE memory_facts DROP COLUMN reading;
        PRAGMA user_version = 12;
        """
    )
    db.close()


def as_schema_11(path) -> None:
    """Rewrite an index written by this version the way schema 11 kept its texts (and its sentence readings)."""
    as_schema_12(path)
    db = sqlite3.connect(path, isolation_level=None)
    packed = db.execute(f"SELECT k.chunk, k.packed, {text_rows.INDEX_TEXT} FROM chunk_keywords k JOIN chunks c ON c.rowid = k.chunk").fetchall()
    rows = [(r, *text_rows.unpack(p, i)) for r, p, i in packed]
    db.executescript(
        f"""
        UPDATE sentences SET text = substr(c.text, sentences.start_char + 1, sentences.end_char - sentences.start_char) FROM chunks c
            WHERE c.rowid = sentences.chunk AND sentences.text = '';
        ALTER TABLE sentences DROP COLUMN start_char;
        ALTER TABLE sentences DROP COLUMN end_char;
        UPDATE chunks SET index_text = IFNULL(context, '') || text WHERE index_text = '';
        UPDATE chunks SET sha256 = vector_key WHERE sha256 = '';
        ALTER TABLE chunks DROP COLUMN context;
        DROP TABLE chunks_vocab;
        DROP TABLE chunks_fts;
        DROP TABLE chunks_sounds;
        DROP TABLE chunk_keywords;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(stems, title, aliases, description, {FTS});
        CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
        CREATE VIRTUAL TABLE chunks_sounds USING fts5(sounds, {FTS});
        DELETE FROM meta WHERE key = 'compact';
        PRAGMA user_version = 11;
        """
    )
    db.executemany("INSERT INTO chunks_fts(rowid, stems, title, aliases, description) VALUES (?,?,?,?,?)", [r[:5] for r in rows])
    db.executemany("INSERT INTO chunks_sounds(rowid, sounds) VALUES (?,?)", [(r[0], r[5]) for r in rows])
    db.close()


def words_as_int8(db: sqlite3.Connection) -> None:
    """Before schema 12 too: the vocabulary's 4-bit codes (rag/index/word_code.py) as int8 codes of whole vectors under `words:s:<model>`."""
    for model, embedder in db.execute(
        "SELECT DISTINCT model, substr(model, instr(substr(model, 7), ':') + 7) FROM embeddings WHERE model LIKE 'words:q%'"
    ).fetchall():
        rows = db.execute("SELECT vector_key, dim, vector FROM embeddings WHERE model = ?", (model,)).fetchall()
        matrix, kept = word_code.decode([r[2] for r in rows], word_code.center(embedder, rows[0][1]))
        assert kept.all()
        db.execute("DELETE FROM embeddings WHERE model = ?", (model,))
        words = f"words:s:{embedder}"
        db.executemany("INSERT INTO embeddings VALUES (?,?,?,?)", [(r[0], words, r[1], c) for r, c in zip(rows, blobs.encode(matrix))])
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps({"form": words, "at": 0}), f"vocabulary:{embedder}"))
