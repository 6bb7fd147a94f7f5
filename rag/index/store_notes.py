"""The notes' rows in the SQLite index (mixed into `Store`): a note's file row, chunks, keyword rows, sentences and
days replaced in one transaction, a rewritten note's stat, removed notes, reading chunks and files back, and the
counts status shows.

Apart from the store's core (the connection, transactions, locks, meta, errors: rag/index/store.py): this is what
sync writes and search reads, in SQL; the PostgreSQL store's counterpart is `pg_notes`.
"""

from __future__ import annotations

import sqlite3

from rag.index import text_rows
from rag.index.records import CHUNK_COLUMNS, FILE_COLUMNS, FileInfo, FileState, NoteFields, StoredChunk, chunk_row, chunk_sounds, file_info, file_row


class NoteTables:
    """Files, chunks and their rows (methods of `Store`; it supplies `transaction`, `_read` and `_read_in`)."""

    def replace_file(
        self,
        state: FileState,
        info: FileInfo,
        chunks: list,
        stems: list[str],
        sentences: list[list] | None = None,
        *,
        fields: NoteFields = ("", "", ""),
        days: list | None = None,
    ) -> None:
        """Atomically replace one file's row, chunks, FTS rows (each chunk's `stems` and the note's `fields`) and (if
        given, one list per chunk) sentence rows `(text, line, vector_key, script)`; `days`: each chunk's `dates.PassageTime` or None."""
        with self.transaction() as db:
            _delete_fts(db, "SELECT rowid FROM chunks WHERE path = ?", (state.path,))
            db.execute("DELETE FROM files WHERE path = ?", (state.path,))
            db.execute(
                "INSERT INTO files(path, sha256, mtime, size, title, tags, aliases, tier, project, frontmatter_error, indexed_at, description)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                file_row(state, info),
            )
            for ordinal, (chunk, stem_text) in enumerate(zip(chunks, stems)):
                row = chunk_row(chunk, state.path, ordinal, days[ordinal] if days else None)
                context, index_text = text_rows.index_text_parts(chunk.text, chunk.index_text)
                cur = db.execute(
                    "INSERT INTO chunks(id, path, ordinal, heading_path, start_line, end_line, start_char, end_char, text,"
                    " sha256, tokens, index_text, vector_key, script, day, day_source, context)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (*row[:9], text_rows.stored_sha256(chunk.sha256, chunk.vector_key), *row[10:11], index_text, *row[12:], context),
                )
                text_rows.insert_keywords(db, cur.lastrowid, stem_text, fields, chunk_sounds(chunk, info), chunk.index_text)
                if sentences:
                    _insert_sentences(db, cur.lastrowid, sentences[ordinal], chunk.text)
                if days and days[ordinal] is not None and days[ordinal].entries:
                    db.executemany("INSERT INTO chunk_days(chunk, day) VALUES (?,?)", [(cur.lastrowid, d.isoformat()) for d in days[ordinal].entries])

    def replace_sentences(self, rows: list[tuple[int, str | None, list]]) -> None:
        """Set the script and sentence rows of the given chunks: [(chunk rowid, script, [(text, line, vector_key,
        script)])]."""
        with self.transaction() as db:
            for rowid, chunk_script, sentences in rows:
                db.execute("UPDATE chunks SET script = ? WHERE rowid = ?", (chunk_script, rowid))
                db.execute("DELETE FROM sentences WHERE chunk = ?", (rowid,))
                if sentences:
                    _insert_sentences(db, rowid, sentences, db.execute("SELECT text FROM chunks WHERE rowid = ?", (rowid,)).fetchone()[0])

    def touch_file(self, path: str, mtime: float, size: int, *, sha256: str) -> None:
        """The file was rewritten with the same content (`sha256`): remember its new stat so the next check is a stat
        only — if the row still holds that content. Another indexer may have stored a newer version meanwhile; its row
        must keep its own stat, or that version would pass for the file on disk for good."""
        with self.transaction(searchable=False) as db:
            db.execute("UPDATE files SET mtime = ?, size = ? WHERE path = ? AND sha256 = ?", (mtime, size, path, sha256))

    def remove_files(self, paths: list[str]) -> None:
        with self.transaction() as db:
            for path in paths:
                _delete_fts(db, "SELECT rowid FROM chunks WHERE path = ?", (path,))
                db.execute("DELETE FROM files WHERE path = ?", (path,))

    def chunks_by_rowid(self, rowids: list[int]) -> dict[int, StoredChunk]:
        rows = self._read_in(f"SELECT {CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.path = c.path WHERE c.rowid IN ({{marks}})", rowids)
        return {r[0]: StoredChunk(*r) for r in rows}

    def chunks_of(self, path: str) -> list[StoredChunk]:
        rows = self._read(f"SELECT {CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.path = c.path WHERE c.path = ? ORDER BY c.ordinal", (path,))
        return [StoredChunk(*r) for r in rows]

    def file_info(self, path: str) -> FileInfo | None:
        rows = self._read(f"SELECT {FILE_COLUMNS} FROM files WHERE path = ?", (path,))
        return file_info(rows[0]) if rows else None

    def files(self) -> list[FileInfo]:
        rows = self._read(f"SELECT {FILE_COLUMNS} FROM files ORDER BY path")
        return [file_info(r) for r in rows]

    # --- status -----------------------------------------------------------------------------------------------

    def counts(self, model: str) -> dict:
        files, chunks = self._read("SELECT (SELECT COUNT(*) FROM files), (SELECT COUNT(*) FROM chunks)")[0]
        with_vectors = self._read("SELECT COUNT(*) FROM chunks c JOIN embeddings e ON e.vector_key = c.vector_key AND e.model = ?", (model,))[0][0]
        sentences, sentence_vectors = self._read(
            "SELECT (SELECT COUNT(*) FROM sentences), (SELECT COUNT(*) FROM sentences s JOIN embeddings e"
            " ON e.vector_key = s.vector_key AND e.model = ?)",
            (model,),
        )[0]
        return {
            "notes": files,
            "chunks": chunks,
            "vectors_present": with_vectors,
            "vectors_missing": chunks - with_vectors,
            "sentences": sentences,
            "sentence_vectors_missing": sentences - sentence_vectors,
        }


def _insert_sentences(db: sqlite3.Connection, chunk: int, sentences: list, chunk_text: str) -> None:
    """Sentence rows `(text, line, vector_key, script)`, each kept as its span of `chunk_text` when found there."""
    rows = [(chunk, *text_rows.sentence_row(chunk_text, *row)) for row in sentences]
    db.executemany("INSERT INTO sentences(chunk, text, line, vector_key, script, start_char, end_char) VALUES (?,?,?,?,?,?,?)", rows)


def _delete_fts(db: sqlite3.Connection, select: str, params) -> None:
    text_rows.delete_keywords(db, select, params)
