"""Dense top-k by linear scan over a cached float32 matrix of unit vectors (cosine = dot product).

The matrix is loaded from the store once and reloaded only when the store's generation changes, so a query
costs one matrix-vector product and an argpartition. Knows nothing about text or models.
"""

from __future__ import annotations

import threading

import numpy as np

from rag.rwlock import RWLock
from rag.store import Store


def top_k(matrix: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(row indices, scores) of the k best rows, best first."""
    n = matrix.shape[0]
    if n == 0 or k <= 0:
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    scores = matrix @ query
    k = min(k, n)
    best = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    order = best[np.argsort(-scores[best], kind="stable")]
    return order, scores[order]


class VectorIndex:
    """The vectors of one model in one store, cached in memory."""

    def __init__(self, store: Store, model: str) -> None:
        self._store = store
        self._model = model
        self._lock = threading.Lock()  # one reload at a time
        self._rw = RWLock()  # a search never sees ids and matrix from different loads; a waiting reload goes first
        self._generation = -1
        self._ids = np.zeros(0, np.int64)
        self._matrix = np.zeros((0, 0), np.float32)

    def __len__(self) -> int:
        self._refresh()
        return len(self._ids)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(chunk rowid, cosine) best first."""
        self._refresh()
        with self._rw.read():
            ids, matrix = self._ids, self._matrix
            if matrix.shape[0] == 0 or matrix.shape[1] != query.shape[0]:
                return []
            rows, scores = top_k(matrix, query.astype(np.float32, copy=False), k)
        return [(int(ids[r]), float(s)) for r, s in zip(rows, scores)]

    def missing(self, rowids: list[int]) -> set[int]:
        """The given chunk rowids that have no vector (yet) in this index."""
        with self._rw.read():
            ids = self._ids  # sorted: the store returns vectors ordered by rowid
        if not rowids:
            return set()
        wanted = np.asarray(rowids, dtype=np.int64)
        pos = np.minimum(np.searchsorted(ids, wanted), max(len(ids) - 1, 0))
        found = (ids[pos] == wanted) if len(ids) else np.zeros(len(wanted), bool)
        return {int(r) for r, ok in zip(wanted, found) if not ok}

    def _refresh(self) -> None:
        generation = self._store.generation()
        if generation == self._generation:
            return
        with self._lock:
            if generation != self._generation:
                ids, matrix = self._store.vectors(self._model)  # the slow part, while searches go on
                with self._rw.write():
                    self._ids, self._matrix = ids, matrix
                self._generation = generation
