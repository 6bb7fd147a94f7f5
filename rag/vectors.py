"""Dense top-k by linear scan over a cached float32 matrix of unit vectors (cosine = dot product).

The matrix is loaded from the store once and reloaded only when the store's generation changes, so a query
costs one matrix-vector product and an argpartition. Knows nothing about text or models.
"""

from __future__ import annotations

import threading

import numpy as np

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
        self._lock = threading.Lock()
        self._generation = -1
        self._ids = np.zeros(0, np.int64)
        self._matrix = np.zeros((0, 0), np.float32)

    def __len__(self) -> int:
        self._refresh()
        return len(self._ids)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(chunk rowid, cosine) best first."""
        self._refresh()
        ids, matrix = self._ids, self._matrix  # one consistent snapshot, even if a reload happens meanwhile
        if matrix.shape[0] == 0 or matrix.shape[1] != query.shape[0]:
            return []
        rows, scores = top_k(matrix, query.astype(np.float32, copy=False), k)
        return [(int(ids[r]), float(s)) for r, s in zip(rows, scores)]

    def _refresh(self) -> None:
        generation = self._store.generation()
        if generation == self._generation:
            return
        with self._lock:
            if generation != self._generation:
                self._ids, self._matrix = self._store.vectors(self._model)
                self._generation = generation
