"""The vector half of the PostgreSQL index: the same methods as `store_vectors.VectorTables`, plus what meaning search
needs when the vectors are too many to hold in memory — pgvector's HNSW index (`nearest`), the vectors of a few
chunks (`vectors(rows=…)`) and each script's mean vector (`script_means`).

Mixed into `pg_store.PgStore`, which owns the pool and transactions. Knows model names, not models.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from psycopg import sql

from rag.index import blobs, pg_schema
from rag.index.records import WORD_MODELS, PerChunk
from rag.index.store_vectors import REPAIR_PART, TOKEN_REPAIR_PART, _unpack, keyed_matrix, usable_vectors


class PgVectorTables:
    """The `embeddings` table and its joins with chunks and sentences (methods of `PgStore`)."""

    def missing_vector_keys(self, model: str) -> list[str]:
        rows = self._read(
            "SELECT vector_key FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.vector_key = c.vector_key AND e.model = %s)"
            " GROUP BY vector_key ORDER BY MIN(rowid)",
            (model,),
        )
        return [r[0] for r in rows]

    def missing_sentence_keys(self, model: str) -> list[str]:
        rows = self._read(
            "SELECT vector_key FROM sentences s WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.vector_key = s.vector_key AND e.model = %s)"
            " AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.vector_key = s.vector_key) GROUP BY vector_key ORDER BY MIN(rowid)",
            (model,),
        )
        return [r[0] for r in rows]

    def index_texts(self, keys: list[str]) -> list[tuple[str, str]]:
        rows = dict(self._read("SELECT vector_key, MIN(text) FROM sentences WHERE vector_key = ANY(%s) GROUP BY vector_key", (list(keys),)))
        rows.update(self._read("SELECT vector_key, MIN(index_text) FROM chunks WHERE vector_key = ANY(%s) GROUP BY vector_key", (list(keys),)))
        return [(k, rows[k]) for k in keys if k in rows]

    def text_sizes(self, keys: list[str]) -> dict[str, int]:
        sizes = dict(self._read("SELECT vector_key, MIN(length(text)) FROM sentences WHERE vector_key = ANY(%s) GROUP BY vector_key", (list(keys),)))
        sizes.update(
            self._read("SELECT vector_key, MIN(length(index_text)) FROM chunks WHERE vector_key = ANY(%s) GROUP BY vector_key", (list(keys),))
        )
        return sizes

    def known_vector_keys(self, model: str, keys: list[str]) -> set[str]:
        return {r[0] for r in self._read("SELECT vector_key FROM embeddings WHERE model = %s AND vector_key = ANY(%s)", (model, list(keys)))}

    def vectors_for_keys(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        rows = self._read("SELECT vector_key, vector FROM embeddings WHERE model = %s AND vector_key = ANY(%s)", (model, list(keys)), binary=True)
        return usable_vectors(model, [(k, _array(v).tobytes()) for k, v in rows], read=blobs.matrix_of)

    def count_missing_vectors(self, model: str) -> int:
        return self._read(
            "SELECT (SELECT COUNT(DISTINCT vector_key) FROM chunks) - (SELECT COUNT(*) FROM embeddings e"
            " WHERE e.model = %s AND EXISTS (SELECT 1 FROM chunks c WHERE c.vector_key = e.vector_key))",
            (model,),
        )[0][0]

    def put_vectors(self, model: str, keys: list[str], matrix: np.ndarray) -> None:
        matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        if not keys:
            return
        # the model's HNSW index, made before its first vectors (then kept up to date); the vocabulary's needs none
        if model not in self._ann_models and not model.startswith(WORD_MODELS):
            with self._pool.connection() as conn:
                pg_schema.ensure_ann_index(conn, model, matrix.shape[1])
            self._ann_models.add(model)
        rows = sorted(zip(keys, range(len(keys))))  # one order for every writer: concurrent upserts cannot deadlock
        with self.transaction() as db:
            db.cursor().executemany(
                "INSERT INTO embeddings(vector_key, model, dim, vector) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (vector_key, model) DO UPDATE SET dim = excluded.dim, vector = excluded.vector",
                [(k, model, matrix.shape[1], matrix[i]) for k, i in rows],
            )

    def drop_orphan_vectors(self) -> int:
        with self.transaction(searchable=False) as db:
            cur = db.execute(
                "DELETE FROM embeddings e WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.vector_key = e.vector_key)"
                " AND NOT EXISTS (SELECT 1 FROM sentences s WHERE s.vector_key = e.vector_key) AND e.model NOT LIKE %s",
                (WORD_MODELS + "%",),
            )
            for kind in PerChunk:
                db.execute(f"DELETE FROM {kind.value} t WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.vector_key = t.vector_key)")
            return cur.rowcount

    # --- what is kept per chunk text besides its vector (records.PerChunk), as in store_vectors.VectorTables ---

    def missing_chunk_data(self, kind: PerChunk, model: str, *, embedded_by: str | None = None) -> list[str]:
        rows = self._read(
            "SELECT vector_key FROM chunks c WHERE EXISTS (SELECT 1 FROM embeddings e WHERE e.vector_key = c.vector_key AND e.model = %s)"
            f" AND NOT EXISTS (SELECT 1 FROM {kind.value} t WHERE t.vector_key = c.vector_key AND t.model = %s) GROUP BY vector_key ORDER BY MIN(rowid)",
            (embedded_by or model, model),
        )
        return [r[0] for r in rows]

    def known_chunk_data(self, kind: PerChunk, model: str, keys: list[str]) -> set[str]:
        return {r[0] for r in self._read(f"SELECT vector_key FROM {kind.value} WHERE model = %s AND vector_key = ANY(%s)", (model, list(keys)))}

    def put_chunk_data(self, kind: PerChunk, model: str, blobs: dict[str, bytes]) -> None:
        rows = sorted(blobs.items())  # one order for every writer: concurrent upserts cannot deadlock
        with self.transaction(searchable=False) as db:
            db.cursor().executemany(
                f"INSERT INTO {kind.value}(vector_key, model, data) VALUES (%s, %s, %s) ON CONFLICT (vector_key, model) DO UPDATE SET data = excluded.data",
                [(k, model, b) for k, b in rows],
            )

    def drop_unreadable_chunk_data(self, readable: Callable[[object], bool], *, recode: Callable[[bytes], bytes] | None = None) -> int:
        """As `store_vectors.VectorTables.drop_unreadable_chunk_data`."""
        dropped = 0
        for kind in PerChunk:
            table, after = kind.value, ("", "")
            while rows := self._read(
                f"SELECT vector_key, model, data FROM {table} WHERE (vector_key, model) > (%s, %s) ORDER BY vector_key, model LIMIT %s",
                (*after, TOKEN_REPAIR_PART),
            ):
                rows = [(k, m, bytes(data)) for k, m, data in rows]
                bad = [(k, m, data) for k, m, data in rows if not readable(data)]
                new = [(fresh, k, m, data) for k, m, data in rows if recode and readable(data) and (fresh := recode(data)) != data]
                if bad or new:
                    with self.transaction(searchable=False) as db:
                        db.cursor().executemany(f"DELETE FROM {table} WHERE vector_key = %s AND model = %s AND data = %s", bad)
                        db.cursor().executemany(f"UPDATE {table} SET data = %s WHERE vector_key = %s AND model = %s AND data = %s", new)
                dropped, after = dropped + len(bad), (rows[-1][0], rows[-1][1])
        return dropped

    def chunk_data(self, kind: PerChunk, model: str, rowids: list[int]) -> dict[int, bytes]:
        rows = self._read(
            f"SELECT c.rowid, t.data FROM chunks c JOIN {kind.value} t ON t.vector_key = c.vector_key AND t.model = %s WHERE c.rowid = ANY(%s)",
            (model, list(rowids)),
        )
        return {r: bytes(b) for r, b in rows}

    def chunk_index_texts(self, rowids: list[int]) -> dict[int, str]:
        return dict(self._read("SELECT rowid, index_text FROM chunks WHERE rowid = ANY(%s)", (list(rowids),)))

    def vector_keys(self, model: str) -> list[str]:
        return [r[0] for r in self._read("SELECT vector_key FROM embeddings WHERE model = %s", (model,))]

    def keyed_vectors(self, model: str) -> tuple[list[str], np.ndarray]:
        """(keys, matrix) of every `model` vector, ordered by key (no HNSW index: the vocabulary is read whole)."""
        rows = self._read("SELECT vector_key, vector FROM embeddings WHERE model = %s ORDER BY vector_key", (model,), binary=True)
        return keyed_matrix(model, [(k, _array(v).tobytes()) for k, v in rows], read=blobs.matrix_of)

    def drop_vectors(self, model: str, keys: list[str]) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM embeddings WHERE model = %s AND vector_key = ANY(%s)", (model, list(keys)))

    def drop_unusable_vectors(self, model: str, dim: int) -> int:
        """As `store_vectors.VectorTables.drop_unusable_vectors` (pgvector refuses NaN and infinities, not zeros)."""
        if not dim:
            rows = self._read(
                "SELECT vector_dims(vector) FROM embeddings WHERE model = %s GROUP BY 1 ORDER BY COUNT(*) DESC, 1 DESC LIMIT 1", (model,)
            )
            dim = rows[0][0] if rows else 0
        dropped, after = 0, ""
        while rows := self._read(
            "SELECT vector_key, vector FROM embeddings WHERE model = %s AND vector_key > %s ORDER BY vector_key LIMIT %s",
            (model, after, REPAIR_PART),
            binary=True,
        ):
            _, kept = blobs.matrix_of([_array(v).tobytes() for _, v in rows], 4 * dim)
            bad = [(model, k, v) for (k, v), ok in zip(rows, kept) if not ok]
            if bad:  # only the row as read: another process may have stored a good vector meanwhile
                with self.transaction() as db:
                    db.cursor().executemany("DELETE FROM embeddings WHERE model = %s AND vector_key = %s AND vector = %s", bad)
            dropped, after = dropped + len(bad), rows[-1][0]
        return dropped

    def vectors(self, model: str, *, rows: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chunk rowids, matrix, script codes) ordered by rowid, of every chunk with a `model` vector (or of `rows`)."""
        only = "WHERE c.rowid = ANY(%s)" if rows is not None else ""
        found = self._read(
            f"SELECT c.rowid, e.vector, c.script FROM chunks c JOIN embeddings e ON e.vector_key = c.vector_key AND e.model = %s {only} ORDER BY c.rowid",
            (model, list(rows)) if rows is not None else (model,),
            binary=True,
        )
        return _unpack_arrays(found, model)

    def sentence_vectors(self, model: str, *, rows: list[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chunk rowid of each row, matrix, script codes) ordered by chunk rowid, of every sentence with a `model`
        vector (or of those in the chunks `rows`)."""
        only = "WHERE s.chunk = ANY(%s)" if rows is not None else ""
        found = self._read(
            f"SELECT s.chunk, e.vector, s.script FROM sentences s JOIN embeddings e ON e.vector_key = s.vector_key AND e.model = %s {only}"
            " ORDER BY s.chunk, s.rowid",
            (model, list(rows)) if rows is not None else (model,),
            binary=True,
        )
        return _unpack_arrays(found, model)

    # --- what meaning search needs beyond memory --------------------------------------------------------------

    def vector_count(self, model: str) -> int:
        """Chunks with a `model` vector."""
        return self._read("SELECT COUNT(*) FROM chunks c JOIN embeddings e ON e.vector_key = c.vector_key AND e.model = %s", (model,))[0][0]

    def vector_scripts(self, model: str, rowids: list[int]) -> dict[int, str | None]:
        """The script of each given chunk that has a `model` vector (absent: no vector yet)."""
        rows = self._read(
            "SELECT c.rowid, c.script FROM chunks c JOIN embeddings e ON e.vector_key = c.vector_key AND e.model = %s WHERE c.rowid = ANY(%s)",
            (model, list(rowids)),
        )
        return dict(rows)

    def script_means(self, model: str) -> tuple[dict, dict]:
        """({script: (rows, mean vector)} of the chunks, the same of the sentences) with a `model` vector: what
        `languages.script_offsets` computes from a whole matrix, computed by the server."""
        chunk_rows = self._read(
            "SELECT c.script, COUNT(*), AVG(e.vector) FROM chunks c JOIN embeddings e ON e.vector_key = c.vector_key AND e.model = %s GROUP BY c.script",
            (model,),
            binary=True,
        )
        sentence_rows = self._read(
            "SELECT s.script, COUNT(*), AVG(e.vector) FROM sentences s JOIN embeddings e ON e.vector_key = s.vector_key AND e.model = %s GROUP BY s.script",
            (model,),
            binary=True,
        )
        return ({r[0]: (r[1], _array(r[2])) for r in chunk_rows}, {r[0]: (r[1], _array(r[2])) for r in sentence_rows})

    def nearest(self, model: str, query: np.ndarray, k: int, *, ef_search: int) -> list[str]:
        """The vector keys (chunks' and sentences') of the k vectors nearest the query by cosine, through the model's
        HNSW index, which visits `ef_search` candidates (at least k; pgvector allows at most 1,000)."""
        dim = int(query.shape[0])
        # The model is a literal, not a parameter: the planner matches the partial index's WHERE only against values
        # it can see (a generic plan of a prepared statement would scan the table).
        query_sql = sql.SQL("SELECT vector_key FROM embeddings WHERE model = {m} ORDER BY vector::vector({d}) <=> %s::vector({d}) LIMIT %s").format(
            m=sql.Literal(model), d=sql.Literal(dim)
        )
        with self._pool.connection() as conn, conn.transaction():
            conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(min(max(int(ef_search), int(k)), 1000))))
            return [r[0] for r in conn.execute(query_sql, (np.asarray(query, np.float32), k)).fetchall()]

    def chunks_of_keys(self, keys: list[str]) -> list[int]:
        """The chunks whose own vector, or one of whose sentences' vectors, has one of these keys (sorted rowids)."""
        rows = self._read(
            "SELECT rowid FROM chunks WHERE vector_key = ANY(%(k)s) UNION SELECT chunk FROM sentences WHERE vector_key = ANY(%(k)s) ORDER BY 1",
            {"k": list(keys)},
        )
        return [r[0] for r in rows]


def _unpack_arrays(rows: list[tuple], model: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """As `store_vectors._unpack`, from pgvector's numpy arrays instead of blobs."""
    return _unpack([(r[0], _array(r[1]).tobytes(), r[2]) for r in rows], model, read=blobs.matrix_of)


def _array(value) -> np.ndarray:
    """A vector as read: pgvector's binary loader gives `Vector` objects, the text loader numpy arrays."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)
