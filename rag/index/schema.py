"""The index's SQLite schema: numbered migrations tracked in `PRAGMA user_version`, and `PRAGMA application_id`,
which marks a file as ours so a foreign SQLite file is never modified. Used by `store` when it opens a file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from rag.errors import IndexForeign, IndexNewer
from rag.index import blobs, text_rows

APPLICATION_ID = 0x52414756  # "RAGV"
INDEX_FOREIGN = (  # the app says it in its own words (rag/web/messages.py)
    "{path} is an SQLite file of another program, not an index of Ask your vault. Point --db (or RAG_DB) at another file; this one is left untouched."
)
CONVERT_PART = 5000  # vectors converted at a time by migration 11


def _vectors_as_codes(conn: sqlite3.Connection) -> None:
    """Every stored float32 vector rewritten as its code, in place, so an index made before keeps its vectors and
    nothing is embedded again. A vector that is not a usable one (`blobs.matrix_of`) is deleted: the next sync
    embeds its text again, as `rag index` does for one found later. The file keeps its size until `rag index`
    compacts it (`Store.compact`)."""
    after: tuple[str, str] = ("", "")
    while rows := conn.execute(
        "SELECT vector_key, model, dim, vector FROM embeddings WHERE (vector_key, model) > (?, ?) ORDER BY vector_key, model LIMIT ?",
        (*after, CONVERT_PART),
    ).fetchall():
        for dim in {r[2] for r in rows}:
            same = [r for r in rows if r[2] == dim]
            matrix, kept = blobs.matrix_of([r[3] for r in same], 4 * dim)
            good = [r for r, ok in zip(same, kept) if ok]
            codes = blobs.encode(matrix)
            conn.executemany("UPDATE embeddings SET vector = ? WHERE vector_key = ? AND model = ?", [(c, r[0], r[1]) for r, c in zip(good, codes)])
            conn.executemany("DELETE FROM embeddings WHERE vector_key = ? AND model = ?", [(r[0], r[1]) for r, ok in zip(same, kept) if not ok])
        after = (rows[-1][0], rows[-1][1])


MIGRATIONS = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE files (
        path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, mtime REAL NOT NULL, size INTEGER NOT NULL,
        title TEXT, tags TEXT NOT NULL DEFAULT '[]', aliases TEXT NOT NULL DEFAULT '[]',
        tier INTEGER NOT NULL DEFAULT 2, project TEXT, frontmatter_error TEXT, indexed_at REAL NOT NULL
    );
    CREATE TABLE chunks (
        rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE, ordinal INTEGER NOT NULL,
        heading_path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
        start_char INTEGER NOT NULL, end_char INTEGER NOT NULL, text TEXT NOT NULL, sha256 TEXT NOT NULL,
        tokens INTEGER NOT NULL, index_text TEXT NOT NULL, vector_key TEXT NOT NULL
    );
    CREATE INDEX chunks_path ON chunks(path, ordinal);
    CREATE INDEX chunks_vector_key ON chunks(vector_key);
    CREATE VIRTUAL TABLE chunks_fts USING fts5(stems, tokenize = 'unicode61 remove_diacritics 2');
    CREATE TABLE embeddings (
        vector_key TEXT NOT NULL, model TEXT NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL,
        PRIMARY KEY (vector_key, model)
    ) WITHOUT ROWID;
    """,
    # 2: document frequencies of stems, to tell how much the keyword channel can say about a query
    """
    CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
    """,
    # 3: sentence vectors: a chunk also scores by its best-matching sentence (see `retrieve.Retriever.dense_ranking`)
    """
    CREATE TABLE sentences (
        chunk INTEGER NOT NULL REFERENCES chunks(rowid) ON DELETE CASCADE, line INTEGER NOT NULL,
        text TEXT NOT NULL, vector_key TEXT NOT NULL
    );
    CREATE INDEX sentences_chunk ON sentences(chunk);
    CREATE INDEX sentences_vector_key ON sentences(vector_key);
    """,
    # 4: the script (latin / cyrillic) of chunks and sentences, to align languages in a mixed vault (see `vectors`)
    """
    ALTER TABLE chunks ADD COLUMN script TEXT;
    ALTER TABLE sentences ADD COLUMN script TEXT;
    """,
    # 5: a note's title, aliases and frontmatter description as FTS5 columns of each of its chunks (weights: BM25_RANK).
    # The body stems are copied over, so keyword search works meanwhile; vectors are untouched. The next sync fills the
    # new columns: its rules changed (`sync.KEYWORD_FIELDS_VERSION`), so it re-derives every note, reusing its vectors.
    """
    CREATE VIRTUAL TABLE chunks_fts_5 USING fts5(stems, title, aliases, description, tokenize = 'unicode61 remove_diacritics 2');
    INSERT INTO chunks_fts_5(rowid, stems, title, aliases, description) SELECT rowid, stems, '', '', '' FROM chunks_fts;
    DROP TABLE chunks_vocab;
    DROP TABLE chunks_fts;
    ALTER TABLE chunks_fts_5 RENAME TO chunks_fts;
    CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
    ALTER TABLE files ADD COLUMN description TEXT;
    """,
    # 6: how often agent memory returned each fact (the facts themselves are notes in Memory/Facts/).
    """
    CREATE TABLE memory_stats (fact_id TEXT PRIMARY KEY, recalled INTEGER NOT NULL DEFAULT 0, last_recalled REAL);
    """,
    # 7: agent memory's fact table, kept so a process does not re-read, re-stem and re-embed every fact note: one row
    # per fact note as last read (its sha256), with its HRR and meaning vectors (rag/memory/table.py).
    """
    CREATE TABLE memory_facts (
        path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, record TEXT NOT NULL, hrr BLOB NOT NULL,
        model TEXT, meaning BLOB
    );
    """,
    # 8: the day each passage is from and the days of the log entries in it (rag/notes/dates.py), for questions about time; filled by the next sync (its
    # rules changed: `sync.DATES_VERSION`), which re-derives every note and reuses its vectors.
    """
    ALTER TABLE chunks ADD COLUMN day TEXT;
    ALTER TABLE chunks ADD COLUMN day_source TEXT;
    CREATE INDEX chunks_day ON chunks(day);
    CREATE TABLE chunk_days (chunk INTEGER NOT NULL REFERENCES chunks(rowid) ON DELETE CASCADE, day TEXT NOT NULL);
    CREATE INDEX chunk_days_day ON chunk_days(day, chunk);
    CREATE INDEX chunk_days_chunk ON chunk_days(chunk);
    """,
    # 9: each chunk's words as sounds and its numbers (rag/text/sounds.py `sound_text`, with the note's title and
    # aliases): the keyword channel between scripts. Filled by the next sync (`sync.KEYWORD_FIELDS_VERSION`).
    """
    CREATE VIRTUAL TABLE chunks_sounds USING fts5(sounds, tokenize = 'unicode61 remove_diacritics 2');
    """,
    # 10: each chunk text's token states (two middle layers of the embedding model, 4 bits a component), kept from the forward pass
    # that embeds it, so the token match across languages reads them instead of running the model again
    # (rag/search/token_match.py). Keyed like vectors; a blob is ~0.4 KB per word token. Filled by the next sync.
    """
    CREATE TABLE token_states (vector_key TEXT NOT NULL, model TEXT NOT NULL, states BLOB NOT NULL);
    CREATE UNIQUE INDEX token_states_key ON token_states(vector_key, model);
    """,
    # 11: vectors kept as int8 codes (`blobs.encode`), a quarter of float32's bytes: see `_vectors_as_codes`.
    _vectors_as_codes,
    # 12: a chunk's texts kept once: index_text and sentences as parts of its text, contentless FTS5 tables (`text_rows`).
    text_rows.without_copies,
    # 13: the aligned model's sentence readings in their own table (they rode in `token_states` under its name), the
    # blob column of both named alike (records.PerChunk: one set of store methods for every kind).
    """
    ALTER TABLE token_states RENAME COLUMN states TO data;
    CREATE TABLE sentence_readings (vector_key TEXT NOT NULL, model TEXT NOT NULL, data BLOB NOT NULL);
    CREATE UNIQUE INDEX sentence_readings_key ON sentence_readings(vector_key, model);
    INSERT INTO sentence_readings(vector_key, model, data) SELECT vector_key, model, data FROM token_states WHERE model = 'use-multilingual-v3';
    DELETE FROM token_states WHERE model = 'use-multilingual-v3';
    """,
    # 14: a fact's reading by the aligned model beside its meaning vector (rag/memory/meaning.py), kept like it.
    """
    ALTER TABLE memory_facts ADD COLUMN reading BLOB;
    """,
]

# The ranking of `chunks_fts`: bm25() with a weight per column (stems, title, aliases, description). FTS5 adds a
# column's weight to a term's count for each occurrence there, before BM25 saturates the count (k1 = 1.2): a weight
# reads as "counts as N occurrences in the text", and no weight lifts a passage past saturation. The title is not
# repeated in the passages' stems (sync.py strips it from their heading context): counted twice it would lengthen
# every row, and on SciFact that alone cost 0.005 nDCG@10.
# Names (title, aliases) 1.5: the smallest weight on a 0.5 grid at which a query naming a note puts it first, ahead of
# notes that use the same words in their text (tests/test_title_fields.py); at 1.0 they lose. Higher buys nothing
# more there and costs on SciFact, whose titles are sentences (2.0: −0.002 nDCG@10 for BM25). Description 1.0: a
# sentence-long summary, like SciFact's titles, on which every weight above the text's measured a loss; at 1.0 each
# passage reads as if it began with it, which already makes a note findable by words its text never uses.
BM25_RANK = "bm25(1.0, 1.5, 1.5, 1.0)"


def check_identity(conn: sqlite3.Connection, path: Path) -> None:
    # Both read in one transaction: read apart, another process creating the index could commit between them, and
    # its tables would be seen without its application id (a fresh index taken for another program's file).
    conn.execute("BEGIN")
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
    finally:
        conn.execute("COMMIT")
    if app_id == APPLICATION_ID:
        return
    if app_id != 0 or tables:
        conn.close()
        raise IndexForeign(INDEX_FOREIGN.format(path=path))


def migrate(conn: sqlite3.Connection) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise IndexNewer(f"The index was written by a newer version (schema {version}). Upgrade Ask your vault, or point --db elsewhere to rebuild.")
    for number in range(version, len(MIGRATIONS)):
        conn.execute("BEGIN IMMEDIATE")
        if conn.execute("PRAGMA user_version").fetchone()[0] > number:  # another process ran it while we waited
            conn.execute("COMMIT")
            continue
        step = MIGRATIONS[number]
        step(conn) if callable(step) else _run_script(conn, step)
        if number == 0:
            conn.execute("INSERT INTO meta(key, value) VALUES ('generation', '0')")
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {number + 1}")
        conn.execute("COMMIT")


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Statements one by one inside the caller's transaction (executescript would commit first)."""
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)
