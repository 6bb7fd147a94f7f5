"""The vector half of the index: which chunk and sentence texts still need a vector for a model, storing vectors
(keyed by content and model, so edits and renames reuse them; each as an int8 code, `blobs.encode`), and loading them
as matrices for search.

Mixed into `store.Store`, which owns the connection and transactions. Knows model names, not models.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np

from rag.index import blobs
from rag.index.records import WORD_MODELS, PerChunk
from rag.index.text_rows import INDEX_TEXT, SENTENCE_TEXT, SENTENCES
from rag.text.sentences import SCRIPT_CODES

REPAIR_PART = 2000  # rows read at a time when `drop_unusable_vectors` checks a model's vectors
TOKEN_REPAIR_PART = 200  # and when `drop_unreadable_chunk_data` checks per-chunk data


class VectorTables:
    """The `embeddings` table and its joins with chunks and sentences (methods of `Store`)."""

    def missing_vector_keys(self, model: str) -> list[str]:
        """Distinct vector keys of chunks that have no vector for `model` yet, in chunk order."""
        # NOT IN builds the model's key set with one scan of `embeddings`; a LEFT JOIN would probe its primary key
        # once per chunk, which is slow because the vector blobs live in that b-tree (4× slower at 30k chunks).
        rows = self._read(
            "SELECT vector_key FROM chunks WHERE vector_key NOT IN (SELECT vector_key FROM embeddings WHERE model = ?)"
            " GROUP BY vector_key ORDER BY MIN(rowid)",
            (model,),
        )
        return [r[0] for r in rows]

    def missing_sentence_keys(self, model: str) -> list[str]:
        """Distinct vector keys of sentences that have no vector for `model` yet (nor a chunk with the same text)."""
        rows = self._read(
            "SELECT vector_key FROM sentences WHERE vector_key NOT IN (SELECT vector_key FROM embeddings WHERE model = ?)"
            " AND vector_key NOT IN (SELECT vector_key FROM chunks) GROUP BY vector_key ORDER BY MIN(rowid)",
            (model,),
        )
        return [r[0] for r in rows]

    def index_texts(self, keys: list[str]) -> list[tuple[str, str]]:
        """(vector_key, text to embed) for the given chunk or sentence keys that still exist, in the order given."""
        marks = ",".join("?" * len(keys))
        rows = dict(
            self._read(f"SELECT s.vector_key, MIN({SENTENCE_TEXT}) FROM {SENTENCES} WHERE s.vector_key IN ({marks}) GROUP BY s.vector_key", keys)
        )
        rows.update(self._read(f"SELECT vector_key, MIN({INDEX_TEXT}) FROM chunks c WHERE vector_key IN ({marks}) GROUP BY vector_key", keys))
        return [(k, rows[k]) for k in keys if k in rows]

    def text_sizes(self, keys: list[str]) -> dict[str, int]:
        """Characters of the text to embed for each given chunk or sentence key (for progress and its estimate)."""
        sizes: dict[str, int] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            sentences = f"SELECT s.vector_key, MIN(length({SENTENCE_TEXT})) FROM {SENTENCES} WHERE s.vector_key IN ({marks}) GROUP BY s.vector_key"
            sizes.update(self._read(sentences, part))
            sizes.update(
                self._read(f"SELECT vector_key, MIN(length({INDEX_TEXT})) FROM chunks c WHERE vector_key IN ({marks}) GROUP BY vector_key", part)
            )
        return sizes

    def known_vector_keys(self, model: str, keys: list[str]) -> set[str]:
        return {r[0] for r in self._read_in("SELECT vector_key FROM embeddings WHERE model = ? AND vector_key IN ({marks})", keys, model)}

    def vectors_for_keys(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        """The stored `model` vectors of the given keys (those that have a usable one: `blobs.codes_of`)."""
        rows = self._read_in("SELECT vector_key, vector FROM embeddings WHERE model = ? AND vector_key IN ({marks})", keys, model)
        return usable_vectors(model, rows, read=blobs.codes_of)

    def count_missing_vectors(self, model: str) -> int:
        """Distinct chunk keys minus those with a `model` vector: two scans, no per-chunk probe (see above)."""
        return self._read(
            "SELECT (SELECT COUNT(DISTINCT vector_key) FROM chunks) - (SELECT COUNT(*) FROM embeddings e"
            " WHERE e.model = ? AND EXISTS (SELECT 1 FROM chunks c WHERE c.vector_key = e.vector_key))",
            (model,),
        )[0][0]

    def put_vectors(self, model: str, keys: list[str], matrix: np.ndarray) -> None:
        matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO embeddings(vector_key, model, dim, vector) VALUES (?,?,?,?)",
                [(k, model, matrix.shape[1], code) for k, code in zip(keys, blobs.encode(matrix))],
            )

    def put_vector_codes(self, model: str, keys: list[str], codes: list[bytes], dim: int) -> None:
        """Rows already coded by their caller (the vocabulary's: rag/index/word_code.py), of `dim` values each."""
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO embeddings(vector_key, model, dim, vector) VALUES (?,?,?,?)",
                [(k, model, dim, c) for k, c in zip(keys, codes)],
            )

    def keyed_codes(self, model: str) -> list[tuple[str, bytes]]:
        """(key, stored blob) of every `model` row, ordered by key, for a caller that decodes its own codes."""
        return self._read("SELECT vector_key, vector FROM embeddings WHERE model = ? ORDER BY vector_key", (model,))

    def drop_orphan_vectors(self) -> int:
        """Vectors no chunk refers to any more (content deleted for good); the vocabulary's follow the vault apart
        (rag/index/vocabulary.py)."""
        with self.transaction(searchable=False) as db:
            cur = db.execute(
                "DELETE FROM embeddings WHERE vector_key NOT IN (SELECT vector_key FROM chunks)"
                " AND vector_key NOT IN (SELECT vector_key FROM sentences) AND model NOT LIKE ?",
                (WORD_MODELS + "%",),
            )
            for kind in PerChunk:
                db.execute(f"DELETE FROM {kind.value} WHERE vector_key NOT IN (SELECT vector_key FROM chunks)")
            return cur.rowcount

    # --- what is kept per chunk text besides its vector (records.PerChunk), one table per kind: token states kept
    # from the forward pass that embedded it, the aligned model's sentence readings ---

    def missing_chunk_data(self, kind: PerChunk, model: str, *, embedded_by: str | None = None) -> list[str]:
        """Distinct vector keys of chunks with a vector of `embedded_by` (default: `model`) but no `kind` data of
        `model` (embedded before it was kept, or by an engine that cannot give it), in chunk order."""
        rows = self._read(
            "SELECT vector_key FROM chunks WHERE vector_key IN (SELECT vector_key FROM embeddings WHERE model = ?)"
            f" AND vector_key NOT IN (SELECT vector_key FROM {kind.value} WHERE model = ?) GROUP BY vector_key ORDER BY MIN(rowid)",
            (embedded_by or model, model),
        )
        return [r[0] for r in rows]

    def known_chunk_data(self, kind: PerChunk, model: str, keys: list[str]) -> set[str]:
        """The given keys that have `kind` data of `model` (another process may have kept it meanwhile)."""
        return {r[0] for r in self._read_in(f"SELECT vector_key FROM {kind.value} WHERE model = ? AND vector_key IN ({{marks}})", keys, model)}

    def put_chunk_data(self, kind: PerChunk, model: str, blobs: dict[str, bytes]) -> None:
        with self.transaction(searchable=False) as db:
            db.executemany(f"INSERT OR REPLACE INTO {kind.value}(vector_key, model, data) VALUES (?,?,?)", [(k, model, b) for k, b in blobs.items()])

    def drop_unreadable_chunk_data(self, readable: Callable[[object], bool], *, recode: Callable[[bytes], bytes] | None = None) -> int:
        """Delete the per-chunk data (of every kind and model) that `readable` refuses, so the next backfill reads
        their chunks again; how many. Read in parts (a chunk's token states are KBs). `recode`: the readable ones it
        returns other bytes for are replaced by those (an older format coded anew)."""
        dropped = 0
        for kind in PerChunk:
            table, after = kind.value, 0
            while rows := self._read(f"SELECT rowid, data FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT ?", (after, TOKEN_REPAIR_PART)):
                bad = [(rowid, data) for rowid, data in rows if not readable(data)]
                new = [(fresh, rowid, data) for rowid, data in rows if recode and readable(data) and (fresh := recode(data)) != data]
                if bad or new:  # only the row as read, as in `drop_unusable_vectors`
                    with self.transaction(searchable=False) as db:
                        db.executemany(f"DELETE FROM {table} WHERE rowid = ? AND data IS ?", bad)
                        db.executemany(f"UPDATE {table} SET data = ? WHERE rowid = ? AND data IS ?", new)
                dropped, after = dropped + len(bad), rows[-1][0]
        return dropped

    def chunk_data(self, kind: PerChunk, model: str, rowids: list[int]) -> dict[int, bytes]:
        """The stored `kind` data of `model` for the given chunks (those that have it)."""
        sql = f"SELECT c.rowid, t.data FROM chunks c JOIN {kind.value} t ON t.vector_key = c.vector_key AND t.model = ? WHERE c.rowid IN ({{marks}})"
        return dict(self._read_in(sql, list(rowids), model))

    def chunk_index_texts(self, rowids: list[int]) -> dict[int, str]:
        """The text each given chunk was embedded as (its heading context and visible text)."""
        return dict(self._read_in(f"SELECT rowid, {INDEX_TEXT} FROM chunks c WHERE rowid IN ({{marks}})", list(rowids)))

    def vector_keys(self, model: str) -> list[str]:
        """Every key with a `model` vector."""
        return [r[0] for r in self._read("SELECT vector_key FROM embeddings WHERE model = ?", (model,))]

    def keyed_vectors(self, model: str) -> tuple[list[str], np.ndarray]:
        """(keys, matrix float32) of every usable `model` vector, ordered by key."""
        rows = self._read("SELECT vector_key, vector FROM embeddings WHERE model = ? ORDER BY vector_key", (model,))
        return keyed_matrix(model, rows, read=blobs.codes_of)

    def drop_vectors(self, model: str, keys: list[str]) -> None:
        with self.transaction() as db:
            db.executemany("DELETE FROM embeddings WHERE model = ? AND vector_key = ?", [(model, k) for k in keys])

    def drop_unusable_vectors(self, model: str, dim: int) -> int:
        """Delete the `model` vectors search cannot use (not a code of `dim` components of unit length; `dim` 0:
        the width most of them have), so the next backfill embeds their texts again; how many. Read in parts."""
        width = blobs.code_width(dim) if dim else self._common_width(model)
        dropped, after = 0, ""
        while rows := self._read(
            "SELECT vector_key, vector FROM embeddings WHERE model = ? AND vector_key > ? ORDER BY vector_key LIMIT ?", (model, after, REPAIR_PART)
        ):
            _, kept = blobs.codes_of([r[1] for r in rows], width)
            bad = [(model, k, v) for (k, v), ok in zip(rows, kept) if not ok]
            if bad:  # only the row as read: another process may have stored a good vector meanwhile
                with self.transaction() as db:
                    db.executemany("DELETE FROM embeddings WHERE model = ? AND vector_key = ? AND vector IS ?", bad)
            dropped, after = dropped + len(bad), rows[-1][0]
        return dropped

    def _common_width(self, model: str) -> int:
        """The byte length most `model` vectors have (0: none stored)."""
        rows = self._read(
            "SELECT length(vector) FROM embeddings WHERE model = ? AND typeof(vector) = 'blob' GROUP BY 1 ORDER BY COUNT(*) DESC, 1 DESC LIMIT 1",
            (model,),
        )
        return rows[0][0] if rows else 0

    def vectors(self, model: str, *, rows: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chunk rowids int64, matrix float32 C-contiguous, script codes int8 — see `SCRIPT_CODES`) for every chunk
        that has a `model` vector (or for those of `rows`), ordered by rowid."""
        only = "WHERE c.rowid IN (SELECT value FROM json_each(?))" if rows is not None else ""
        found = self._read(
            f"SELECT c.rowid, e.vector, c.script FROM chunks c JOIN embeddings e ON e.vector_key = c.vector_key AND e.model = ? {only} ORDER BY c.rowid",
            (model, json.dumps(list(rows))) if rows is not None else (model,),
        )
        return _unpack(found, model, read=blobs.codes_of)

    def sentence_vectors(self, model: str, *, rows: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chunk rowid of each row int64, matrix float32, script codes int8) for every sentence with a `model`
        vector (or for those in the chunks `rows`), ordered by chunk rowid."""
        only = "WHERE s.chunk IN (SELECT value FROM json_each(?))" if rows is not None else ""
        found = self._read(
            f"SELECT s.chunk, e.vector, s.script FROM sentences s JOIN embeddings e ON e.vector_key = s.vector_key AND e.model = ? {only}"
            " ORDER BY s.chunk, s.rowid",
            (model, json.dumps(list(rows))) if rows is not None else (model,),
        )
        return _unpack(found, model, read=blobs.codes_of)


# How a backend's stored vectors are read back: (blobs) → (matrix of the usable ones, which those are) — SQLite's codes
# (`blobs.codes_of`) or PostgreSQL's float32 (`blobs.matrix_of`).
ReadVectors = Callable[[list], tuple[np.ndarray, np.ndarray]]


def _unpack(rows: list[tuple], model: str, *, read: ReadVectors) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ids, vectors, script codes) from rows of (id, vector blob, script), of the usable vectors only."""
    if not rows:
        return np.zeros(0, np.int64), np.zeros((0, 0), np.float32), np.zeros(0, np.int8)
    matrix, kept = read([r[1] for r in rows])
    if not kept.all():
        blobs.warn_unusable(model, int(len(rows) - kept.sum()))
        rows = [r for r, ok in zip(rows, kept) if ok]
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    scripts = np.fromiter((SCRIPT_CODES.get(r[2], 0) for r in rows), dtype=np.int8, count=len(rows))
    return ids, matrix, scripts


def usable_vectors(model: str, rows: list[tuple], *, read: ReadVectors) -> dict[str, np.ndarray]:
    """{key: vector} of rows (key, blob) whose blob is a usable vector (its width is checked by the caller); read in
    one pass per blob length."""
    by_length: dict[int, list[tuple]] = {}
    for k, v in rows:
        by_length.setdefault(len(v) if blobs.is_blob(v) else 0, []).append((k, v))
    found: dict[str, np.ndarray] = {}
    for length, part in by_length.items():
        matrix, kept = read([v for _, v in part], length)
        found.update(zip([k for (k, _), ok in zip(part, kept) if ok], matrix))
    blobs.warn_unusable(model, len(rows) - len(found))
    return found


def keyed_matrix(model: str, rows: list[tuple], *, read: ReadVectors) -> tuple[list[str], np.ndarray]:
    """(keys, matrix) of rows (key, blob), of the usable vectors of the common width."""
    if not rows:
        return [], np.zeros((0, 0), np.float32)
    matrix, kept = read([r[1] for r in rows])
    blobs.warn_unusable(model, int(len(rows) - kept.sum()))
    return [r[0] for r, ok in zip(rows, kept) if ok], matrix
