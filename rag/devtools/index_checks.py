"""The invariants of a healthy index, read straight from its tables: what tests/ (sync, watch, kill, concurrency, sentence
vectors) and bench/postgres_concurrency.py check after writing. For tests and benchmarks only: the product never
imports it."""

from __future__ import annotations

import sqlite3


def consistency(db_path):
    """Invariants of a healthy index: FTS rows = chunks, every chunk has a file row, no orphan vectors or sentences.
    `db_path`: an SQLite file or a PostgreSQL address."""
    if str(db_path).startswith("postgresql://"):
        return _pg_consistency(str(db_path))
    db = sqlite3.connect(db_path)
    try:
        chunks = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        fts = db.execute("SELECT COUNT(*) FROM chunks_fts").fetchone()[0]
        fts_orphans = db.execute("SELECT COUNT(*) FROM chunks_fts WHERE rowid NOT IN (SELECT rowid FROM chunks)").fetchone()[0]
        fts_orphans += db.execute("SELECT COUNT(*) FROM chunks_sounds WHERE rowid NOT IN (SELECT rowid FROM chunks)").fetchone()[0]
        # the FTS5 rows' values kept to forget them (rag/index/text_rows.py): one a chunk, none without one
        fts_orphans += db.execute("SELECT COUNT(*) FROM chunk_keywords WHERE chunk NOT IN (SELECT rowid FROM chunks)").fetchone()[0]
        fts_orphans += db.execute("SELECT COUNT(*) FROM chunks WHERE rowid NOT IN (SELECT chunk FROM chunk_keywords)").fetchone()[0]
        sounds = db.execute("SELECT COUNT(*) FROM chunks_sounds").fetchone()[0]
        no_file = db.execute("SELECT COUNT(*) FROM chunks WHERE path NOT IN (SELECT path FROM files)").fetchone()[0]
        orphans = db.execute(
            "SELECT COUNT(*) FROM embeddings WHERE vector_key NOT IN (SELECT vector_key FROM chunks)"
            " AND vector_key NOT IN (SELECT vector_key FROM sentences) AND model NOT LIKE 'words:%'"
        ).fetchone()[0]
        orphans += db.execute("SELECT COUNT(*) FROM sentences WHERE chunk NOT IN (SELECT rowid FROM chunks)").fetchone()[0]
        paths = [r[0] for r in db.execute("SELECT path FROM files")]
    finally:
        db.close()
    return {"chunks": chunks, "fts": fts, "sounds": sounds, "fts_orphans": fts_orphans, "no_file": no_file, "orphan_vectors": orphans, "paths": paths}


def _pg_consistency(url: str) -> dict:
    import psycopg

    with psycopg.connect(url) as db:
        one = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "chunks": one("SELECT COUNT(*) FROM chunks"),
            "fts": one("SELECT COUNT(*) FROM chunks WHERE terms = 0 OR EXISTS (SELECT 1 FROM postings p WHERE p.chunk = chunks.rowid)"),
            "sounds": one("SELECT COUNT(*) FROM chunks WHERE sounds = 0 OR EXISTS (SELECT 1 FROM sound_postings p WHERE p.chunk = chunks.rowid)"),
            "fts_orphans": one("SELECT COUNT(*) FROM postings WHERE chunk NOT IN (SELECT rowid FROM chunks)"),
            "no_file": one("SELECT COUNT(*) FROM chunks WHERE path NOT IN (SELECT path FROM files)"),
            "orphan_vectors": one(
                "SELECT COUNT(*) FROM embeddings WHERE vector_key NOT IN (SELECT vector_key FROM chunks)"
                " AND vector_key NOT IN (SELECT vector_key FROM sentences) AND model NOT LIKE 'words:%'"
            )
            + one("SELECT COUNT(*) FROM sentences WHERE chunk NOT IN (SELECT rowid FROM chunks)"),
            "paths": [r[0] for r in db.execute("SELECT path FROM files")],
        }
