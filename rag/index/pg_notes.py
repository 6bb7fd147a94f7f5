"""The notes' rows in the PostgreSQL index (mixed into `PgStore`): a note's file row, chunks, postings, sentences and
days replaced in one transaction under an advisory lock on its path, a rewritten note's stat, removed notes, reading
chunks and files back, and the counts status shows.

Apart from the store's core (the pool, transactions, claims, meta, errors: rag/index/pg_store.py): this is what sync
writes and search reads, in SQL; the SQLite store's counterpart is `store_notes`.
"""

from __future__ import annotations

import collections

from rag.index.pg_keywords import weighted_counts
from rag.index.records import CHUNK_COLUMNS, FILE_COLUMNS, FileInfo, FileState, NoteFields, StoredChunk, chunk_row, chunk_sounds, file_info, file_row
from rag.text.stemming import fts_tokens


class PgNoteTables:
    """Files, chunks and their rows (methods of `PgStore`; it supplies `transaction` and `_read`)."""

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
        """Atomically replace one note's rows. Writers of other notes go on meanwhile; two writers of the same note
        take turns (an advisory lock on its path), so the later one replaces the earlier one's rows whole."""
        field_counts = [collections.Counter(fts_tokens(text)) for text in fields]
        with self.transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("file:" + state.path,))
            db.execute("DELETE FROM files WHERE path = %s", (state.path,))
            db.execute(
                "INSERT INTO files(path, sha256, mtime, size, title, tags, aliases, tier, project, frontmatter_error, indexed_at, description)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                file_row(state, info),
            )
            postings, sound_postings, sentence_rows, day_rows = [], [], [], []
            for ordinal, (chunk, stem_text) in enumerate(zip(chunks, stems)):
                weighted, length = weighted_counts(collections.Counter(fts_tokens(stem_text)), field_counts)
                sounds = collections.Counter(fts_tokens(chunk_sounds(chunk, info)))
                rowid = db.execute(
                    "INSERT INTO chunks(id, path, ordinal, heading_path, start_line, end_line, start_char, end_char, text,"
                    " sha256, tokens, index_text, vector_key, script, day, day_source, terms, sounds)"
                    " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) RETURNING rowid",
                    (*chunk_row(chunk, state.path, ordinal, days[ordinal] if days else None), length, sum(sounds.values())),
                ).fetchone()[0]
                postings.extend((term, rowid, freq) for term, freq in weighted.items())
                sound_postings.extend((term, rowid, float(freq)) for term, freq in sounds.items())
                if sentences:
                    sentence_rows.extend((rowid, *row) for row in sentences[ordinal])
                if days and days[ordinal] is not None:
                    day_rows.extend((rowid, d.isoformat()) for d in days[ordinal].entries)
            _copy(db, "postings (term, chunk, freq)", postings)
            _copy(db, "sound_postings (term, chunk, freq)", sound_postings)
            _copy(db, "sentences (chunk, text, line, vector_key, script)", sentence_rows)
            _copy(db, "chunk_days (chunk, day)", day_rows)

    def replace_sentences(self, rows: list[tuple[int, str | None, list]]) -> None:
        with self.transaction() as db:
            for rowid, chunk_script, sentences in rows:
                db.execute("UPDATE chunks SET script = %s WHERE rowid = %s", (chunk_script, rowid))
                db.execute("DELETE FROM sentences WHERE chunk = %s", (rowid,))
                _copy(db, "sentences (chunk, text, line, vector_key, script)", [(rowid, *row) for row in sentences])

    def touch_file(self, path: str, mtime: float, size: int, *, sha256: str) -> None:
        with self.transaction(searchable=False) as db:
            db.execute("UPDATE files SET mtime = %s, size = %s WHERE path = %s AND sha256 = %s", (mtime, size, path, sha256))

    def remove_files(self, paths: list[str]) -> None:
        """Row locks are enough here: a concurrent rewrite of the same note waits for this delete, or this for it."""
        with self.transaction() as db:
            db.execute("DELETE FROM files WHERE path = ANY(%s)", (list(paths),))

    def chunks_by_rowid(self, rowids: list[int]) -> dict[int, StoredChunk]:
        rows = self._read(f"SELECT {CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.path = c.path WHERE c.rowid = ANY(%s)", (list(rowids),))
        return {r[0]: StoredChunk(*r) for r in rows}

    def chunks_of(self, path: str) -> list[StoredChunk]:
        rows = self._read(f"SELECT {CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.path = c.path WHERE c.path = %s ORDER BY c.ordinal", (path,))
        return [StoredChunk(*r) for r in rows]

    def file_info(self, path: str) -> FileInfo | None:
        rows = self._read(f"SELECT {FILE_COLUMNS} FROM files WHERE path = %s", (path,))
        return file_info(rows[0]) if rows else None

    def files(self) -> list[FileInfo]:
        return [file_info(r) for r in self._read(f'SELECT {FILE_COLUMNS} FROM files ORDER BY path COLLATE "C"')]

    # --- status -----------------------------------------------------------------------------------------------

    def counts(self, model: str) -> dict:
        files, chunks, with_vectors, sentences, sentence_vectors = self._read(
            "SELECT (SELECT COUNT(*) FROM files), (SELECT COUNT(*) FROM chunks),"
            " (SELECT COUNT(*) FROM chunks c JOIN embeddings e ON e.vector_key = c.vector_key AND e.model = %(m)s),"
            " (SELECT COUNT(*) FROM sentences),"
            " (SELECT COUNT(*) FROM sentences s JOIN embeddings e ON e.vector_key = s.vector_key AND e.model = %(m)s)",
            {"m": model},
        )[0]
        return {
            "notes": files,
            "chunks": chunks,
            "vectors_present": with_vectors,
            "vectors_missing": chunks - with_vectors,
            "sentences": sentences,
            "sentence_vectors_missing": sentences - sentence_vectors,
        }


def _copy(db, target: str, rows: list[tuple]) -> None:
    """`rows` into `target` ("table (columns)") by COPY: one round trip for a note's many rows."""
    if not rows:
        return
    with db.cursor().copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
