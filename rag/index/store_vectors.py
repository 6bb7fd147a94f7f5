"""The vector half of the index: which chunk and sentence texts still need a vector for a model, storing vectors
(keyed by content and model, so edits and renames reuse them), and loading them as matrices for search.

Mixed into `store.Store`, which owns the connection and transactions. Knows model names, not models.
"""

from __future__ import annotations

import json

import numpy as np

from rag.index.records import WORD_MODELS
from rag.text.sentences import SCRIPT_CODES


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
        rows = dict(self._read(f"SELECT vector_key, MIN(text) FROM sentences WHERE vector_key IN ({marks}) GROUP BY vector_key", keys))
        rows.update(self._read(f"SELECT vector_key, MIN(index_text) FROM chunks WHERE vector_key IN ({marks}) GROUP BY vector_key", keys))
        return [(k, rows[k]) for k in keys if k in rows]

    def text_sizes(self, keys: list[str]) -> dict[str, int]:
        """Characters of the text to embed for each given chunk or sentence key (for progress and its estimate)."""
        sizes: dict[str, int] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            sizes.update(self._read(f"SELECT vector_key, MIN(length(text)) FROM sentences WHERE vector_key IN ({marks}) GROUP BY vector_key", part))
            sizes.update(
                self._read(f"SELECT vector_key, MIN(length(index_text)) FROM chunks WHERE vector_key IN ({marks}) GROUP BY vector_key", part)
            )
        return sizes

    def known_vector_keys(self, model: str, keys: list[str]) -> set[str]:
        return {r[0] for r in self._read_in("SELECT vector_key FROM embeddings WHERE model = ? AND vector_key IN ({marks})", keys, model)}

    def vectors_for_keys(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        """The stored `model` vectors of the given keys (those that have one)."""
        rows = self._read_in("SELECT vector_key, vector FROM embeddings WHERE model = ? AND vector_key IN ({marks})", keys, model)
        return {k: np.frombuffer(v, dtype=np.float32) for k, v in rows}

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
                [(k, model, matrix.shape[1], matrix[i].tobytes()) for i, k in enumerate(keys)],
            )

    def drop_orphan_vectors(self) -> int:
        """Vectors no chunk refers to any more (content deleted for good); the vocabulary's follow the vault apart
        (rag/index/vocabulary.py)."""
        with self.transaction(searchable=False) as db:
            cur = db.execute(
                "DELETE FROM embeddings WHERE vector_key NOT IN (SELECT vector_key FROM chunks)"
                " AND vector_key NOT IN (SELECT vector_key FROM sentences) AND model NOT LIKE ?",
                (WORD_MODELS + "%",),
            )
            db.execute("DELETE FROM token_states WHERE vector_key NOT IN (SELECT vector_key FROM chunks)")
            return cur.rowcount

    # --- token states (rag/search/token_match.py): per chunk text, kept from the forward pass that embedded it ---

    def missing_token_keys(self, model: str, *, embedded_by: str | None = None) -> list[str]:
        """Distinct vector keys of chunks with a vector of `embedded_by` (default: `model`) but no `model` token
        states (embedded before they were kept, or by an engine that cannot give them), in chunk order."""
        rows = self._read(
            "SELECT vector_key FROM chunks WHERE vector_key IN (SELECT vector_key FROM embeddings WHERE model = ?)"
            " AND vector_key NOT IN (SELECT vector_key FROM token_states WHERE model = ?) GROUP BY vector_key ORDER BY MIN(rowid)",
            (embedded_by or model, model),
        )
        return [r[0] for r in rows]

    def known_token_keys(self, model: str, keys: list[str]) -> set[str]:
        """The given keys that have `model` token states (another process may have kept them meanwhile)."""
        return {r[0] for r in self._read_in("SELECT vector_key FROM token_states WHERE model = ? AND vector_key IN ({marks})", keys, model)}

    def put_token_states(self, model: str, states: dict[str, bytes]) -> None:
        with self.transaction(searchable=False) as db:
            db.executemany(
                "INSERT OR REPLACE INTO token_states(vector_key, model, states) VALUES (?,?,?)", [(k, model, b) for k, b in states.items()]
            )

    def chunk_token_states(self, model: str, rowids: list[int]) -> dict[int, bytes]:
        """The stored `model` token states of the given chunks (those that have them)."""
        sql = "SELECT c.rowid, t.states FROM chunks c JOIN token_states t ON t.vector_key = c.vector_key AND t.model = ? WHERE c.rowid IN ({marks})"
        return dict(self._read_in(sql, list(rowids), model))

    def chunk_index_texts(self, rowids: list[int]) -> dict[int, str]:
        """The text each given chunk was embedded as (its heading context and visible text)."""
        return dict(self._read_in("SELECT rowid, index_text FROM chunks WHERE rowid IN ({marks})", list(rowids)))

    def vector_keys(self, model: str) -> list[str]:
        """Every key with a `model` vector."""
        return [r[0] for r in self._read("SELECT vector_key FROM embeddings WHERE model = ?", (model,))]

    def keyed_vectors(self, model: str) -> tuple[list[str], np.ndarray]:
        """(keys, matrix float32) of every `model` vector, ordered by key."""
        rows = self._read("SELECT vector_key, vector FROM embeddings WHERE model = ? ORDER BY vector_key", (model,))
        if not rows:
            return [], np.zeros((0, 0), np.float32)
        return [r[0] for r in rows], np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)

    def drop_vectors(self, model: str, keys: list[str]) -> None:
        with self.transaction() as db:
            db.executemany("DELETE FROM embeddings WHERE model = ? AND vector_key = ?", [(model, k) for k in keys])

    def vectors(self, model: str, *, rows: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chunk rowids int64, matrix float32 C-contiguous, script codes int8 — see `SCRIPT_CODES`) for every chunk
        that has a `model` vector (or for those of `rows`), ordered by rowid."""
        only = "WHERE c.rowid IN (SELECT value FROM json_each(?))" if rows is not None else ""
        found = self._read(
            f"SELECT c.rowid, e.vector, c.script FROM chunks c JOIN embeddings e ON e.vector_key = c.vector_key AND e.model = ? {only} ORDER BY c.rowid",
            (model, json.dumps(list(rows))) if rows is not None else (model,),
        )
        return _unpack(found)

    def sentence_vectors(self, model: str, *, rows: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chunk rowid of each row int64, matrix float32, script codes int8) for every sentence with a `model`
        vector (or for those in the chunks `rows`), ordered by chunk rowid."""
        only = "WHERE s.chunk IN (SELECT value FROM json_each(?))" if rows is not None else ""
        found = self._read(
            f"SELECT s.chunk, e.vector, s.script FROM sentences s JOIN embeddings e ON e.vector_key = s.vector_key AND e.model = ? {only}"
            " ORDER BY s.chunk, s.rowid",
            (model, json.dumps(list(rows))) if rows is not None else (model,),
        )
        return _unpack(found)


def _unpack(rows: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ids, vectors, script codes) from rows of (id, vector blob, script)."""
    if not rows:
        return np.zeros(0, np.int64), np.zeros((0, 0), np.float32), np.zeros(0, np.int8)
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    scripts = np.fromiter((SCRIPT_CODES.get(r[2], 0) for r in rows), dtype=np.int8, count=len(rows))
    return ids, matrix, scripts
