"""A chunk's texts in the SQLite index without copies of each other (schema 12).

Before, an index kept the chunk's text four more times: its `index_text` (heading context + the same text), each
sentence's text, and the FTS5 tables' own copies of what they index (stems; sounds). Measured on the 1,000-note
bench index: chunks 13.0 MB, sentences 6.5, chunks_fts_content 4.6, chunks_sounds_content 2.7 of 115 MB. Now:
 - `chunks.index_text` is '' when it is `context` + `text` (the heading context kept apart in `context`), and its
   `sha256` '' when it is the `vector_key` (the sha256 of a text that is its own index text);
 - a sentence found in its chunk's text is kept as its span there (`start_char`, `end_char`, its `text` ''):
   SQLite's substr() counts characters as Python's str does, so it reads back exactly;
 - the FTS5 tables are contentless (`content=''`: bm25() and MATCH read only the index). FTS5 can only forget a row of
   such a table when told its exact values (SQLite 3.40 has no `contentless_delete`), so those values are kept
   deflated in `chunk_keywords`, ~40 % of the copies' bytes. Recomputing them from the chunk instead would forget
   the wrong words after any change to stemming or sounds, and leave words of a deleted passage in the index.
Readers do not change: the store reads the texts back with `INDEX_TEXT` and `SENTENCE_TEXT`. PostgreSQL keeps its
own columns (rag/index/pg_schema.py).
"""

from __future__ import annotations

import json
import sqlite3
import zlib

# SQL expressions of the full texts, over `chunks c` and `sentences s JOIN chunks c ON c.rowid = s.chunk`
INDEX_TEXT = "CASE WHEN c.index_text = '' THEN IFNULL(c.context, '') || c.text ELSE c.index_text END"
SENTENCES = "sentences s JOIN chunks c ON c.rowid = s.chunk"
SENTENCE_TEXT = "CASE WHEN s.text = '' THEN substr(c.text, s.start_char + 1, s.end_char - s.start_char) ELSE s.text END"

FTS_COLUMNS = "stems, title, aliases, description"
TOKENIZE = "tokenize = 'unicode61 remove_diacritics 2'"


def index_text_parts(text: str, index_text: str) -> tuple[str | None, str]:
    """(context, stored index_text) of a chunk: its index text as context + text when it ends with the text."""
    if "\x00" in index_text or not index_text.endswith(text):  # SQLite's text functions stop at a NUL
        return None, index_text
    return index_text[: len(index_text) - len(text)] or None, ""


def stored_sha256(sha256: str, vector_key: str) -> str:
    """A chunk's sha256 as kept: '' when it is its vector key (the text is the index text: `records.CHUNK_COLUMNS`)."""
    return "" if sha256 == vector_key else sha256


def sentence_row(chunk_text: str, text: str, line: int, key: str, script: str | None) -> tuple:
    """(stored text, line, vector key, script, start_char, end_char): a span of the chunk's text when found there."""
    at = chunk_text.find(text) if text and "\x00" not in chunk_text else -1
    if at < 0:
        return text, line, key, script, None, None
    return "", line, key, script, at, at + len(text)


def pack(stems: str | None, fields: tuple | None, sounds: str | None, index_text: str) -> bytes:
    """A chunk's rows of both FTS5 tables as inserted (None: no row there), deflated with the chunk's index text as
    the preset dictionary: the stems and sounds repeat its words (XQuAD-en 0.14 -> 0.10 MB, bench 2.7 -> 1.9 MB)."""
    z = zlib.compressobj(9, zlib.DEFLATED, -15, zdict=_dictionary(index_text))
    return z.compress(json.dumps([stems, *(fields or (None,) * 3), sounds], ensure_ascii=False).encode()) + z.flush()


def unpack(packed: bytes, index_text: str) -> list:
    """[stems, title, aliases, description, sounds] as `pack` was given them."""
    z = zlib.decompressobj(-15, zdict=_dictionary(index_text))
    return json.loads(z.decompress(packed) + z.flush())


def _dictionary(index_text: str) -> bytes:
    return index_text.encode()[-32768:] or b" "  # deflate's window; a dictionary may not be empty


def insert_keywords(db: sqlite3.Connection, rowid: int, stems: str, fields: tuple, sounds: str, index_text: str) -> None:
    db.execute(f"INSERT INTO chunks_fts(rowid, {FTS_COLUMNS}) VALUES (?,?,?,?,?)", (rowid, stems, *fields))
    db.execute("INSERT INTO chunks_sounds(rowid, sounds) VALUES (?,?)", (rowid, sounds))
    db.execute("INSERT INTO chunk_keywords(chunk, packed) VALUES (?,?)", (rowid, pack(stems, fields, sounds, index_text)))


def delete_keywords(db: sqlite3.Connection, select: str, params) -> None:
    """Forget the FTS5 rows of the chunks `select` names, with the values they were inserted with."""
    sql = f"SELECT c.rowid, k.packed, {INDEX_TEXT} FROM chunks c LEFT JOIN chunk_keywords k ON k.chunk = c.rowid WHERE c.rowid IN ({select})"
    for rowid, packed, index_text in db.execute(sql, params).fetchall():
        try:
            stems, *fields, sounds = unpack(packed, index_text)
        except (TypeError, ValueError, zlib.error):  # no values kept, or damaged ones: read back from the index itself
            stems, *fields, sounds = _indexed_values(db, rowid)
        # only a row the table holds: told to delete one it lacks, FTS5 would take its words off other rows' counts
        if stems is not None and _holds(db, "chunks_fts", rowid):
            db.execute(f"INSERT INTO chunks_fts(chunks_fts, rowid, {FTS_COLUMNS}) VALUES ('delete',?,?,?,?,?)", (rowid, stems, *fields))
        if sounds is not None and _holds(db, "chunks_sounds", rowid):
            db.execute("INSERT INTO chunks_sounds(chunks_sounds, rowid, sounds) VALUES ('delete',?,?)", (rowid, sounds))
    db.execute(f"DELETE FROM chunk_keywords WHERE chunk IN ({select})", params)


def _holds(db: sqlite3.Connection, table: str, rowid: int) -> bool:
    return db.execute(f"SELECT 1 FROM {table}_docsize WHERE id = ?", (rowid,)).fetchone() is not None


def _indexed_values(db: sqlite3.Connection, rowid: int) -> list:
    """[stems, title, aliases, description, sounds] of a row as FTS5 indexed them: each column's terms in their
    order, which tokenize to the same terms again (None: no row in that table). It scans the whole index (~30 ms on
    the bench index): only for a row whose values were lost."""
    values: list = []
    for table, columns in (("chunks_fts", FTS_COLUMNS.split(", ")), ("chunks_sounds", ["sounds"])):
        if not _holds(db, table, rowid):
            values += [None] * len(columns)
            continue
        db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_instance USING fts5vocab(main, {table}, instance)")
        terms = {c: [] for c in columns}
        for term, column in db.execute(f"SELECT term, col FROM temp.{table}_instance WHERE doc = ? ORDER BY col, offset", (rowid,)):
            terms[column].append(term)
        values += [" ".join(terms[c]) for c in columns]
    return values


def without_copies(conn: sqlite3.Connection) -> None:
    """Migration 12: an index's texts rewritten as above, in place, inside the migration's transaction. The file
    keeps its size until `rag index` compacts it (`Store.compact`, told to by meta `compact`: the bytes given back
    are spread inside pages, not free pages)."""
    conn.execute("ALTER TABLE chunks ADD COLUMN context TEXT")
    rows = conn.execute("SELECT rowid, text, index_text FROM chunks").fetchall()
    conn.executemany("UPDATE chunks SET context = ?, index_text = ? WHERE rowid = ?", [(*index_text_parts(t, i), r) for r, t, i in rows])
    conn.execute("UPDATE chunks SET sha256 = '' WHERE sha256 = vector_key")
    conn.execute("ALTER TABLE sentences ADD COLUMN start_char INTEGER")
    conn.execute("ALTER TABLE sentences ADD COLUMN end_char INTEGER")
    texts = {r: t for r, t, _ in rows}
    found = conn.execute("SELECT rowid, chunk, text, line, vector_key, script FROM sentences").fetchall()
    spans = [(sentence_row(texts.get(c, ""), t, line, k, s), r) for r, c, t, line, k, s in found]
    conn.executemany("UPDATE sentences SET text = ?, start_char = ?, end_char = ? WHERE rowid = ?", [(x[0], x[4], x[5], r) for x, r in spans])
    _contentless_keywords(conn, {r: i for r, _, i in rows})
    if rows:  # the bytes given back lie inside pages, not in free ones
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('compact', 'due')")


def _contentless_keywords(conn: sqlite3.Connection, index_texts: dict[int, str]) -> None:
    """Both FTS5 tables made again contentless, with their rows' values kept in `chunk_keywords`."""
    stems = {r[0]: r[1:] for r in conn.execute(f"SELECT rowid, {FTS_COLUMNS} FROM chunks_fts")}
    sounds = dict(conn.execute("SELECT rowid, sounds FROM chunks_sounds"))
    conn.execute("DROP TABLE chunks_vocab")
    conn.execute("DROP TABLE chunks_fts")
    conn.execute("DROP TABLE chunks_sounds")
    create_keyword_tables(conn)
    conn.executemany(f"INSERT INTO chunks_fts(rowid, {FTS_COLUMNS}) VALUES (?,?,?,?,?)", [(r, *v) for r, v in stems.items()])
    conn.executemany("INSERT INTO chunks_sounds(rowid, sounds) VALUES (?,?)", sounds.items())
    for table in ("chunks_fts", "chunks_sounds"):  # one segment each, as `Store.merge_keyword_index` leaves them
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
    conn.executemany(
        "INSERT INTO chunk_keywords(chunk, packed) VALUES (?,?)",
        [(r, _pack_row(stems.get(r), sounds.get(r), index_texts.get(r, ""))) for r in stems.keys() | sounds.keys()],
    )


def _pack_row(fts: tuple | None, sounds: str | None, index_text: str) -> bytes:
    return pack(fts[0], fts[1:], sounds, index_text) if fts is not None else pack(None, None, sounds, index_text)


def create_keyword_tables(conn: sqlite3.Connection) -> None:
    conn.execute(f"CREATE VIRTUAL TABLE chunks_fts USING fts5({FTS_COLUMNS}, content = '', {TOKENIZE})")
    conn.execute("CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row')")
    conn.execute(f"CREATE VIRTUAL TABLE chunks_sounds USING fts5(sounds, content = '', {TOKENIZE})")
    conn.execute("CREATE TABLE IF NOT EXISTS chunk_keywords (chunk INTEGER PRIMARY KEY, packed BLOB NOT NULL)")
