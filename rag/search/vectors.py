"""Dense top-k by linear scan over cached float32 matrices of unit vectors (cosine = dot product).

A chunk scores by its own vector and, when it has sentence vectors, by its best sentence too:
(cosine + w · best sentence cosine) / (1 + w). A question usually matches one sentence of a passage, and that
match survives a change of language much better than the whole passage's (measured on XQuAD, see README).
Languages are evened out first (rag/search/languages.py): in a vault that mixes Latin and Cyrillic texts each script's
offset is removed from its vectors, and a question is moved towards the passages' language. The matrices are
loaded from the store once and reloaded only when the store's generation changes, so a query costs one
matrix-vector product per matrix and an argpartition. Never embeds anything itself.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from rag.index.language_reference import reference_means
from rag.index.rwlock import RWLock
from rag.index.sentences import SCRIPT_CODES, script
from rag.index.store import Store
from rag.search.languages import query_shifts, remove_offsets, script_offsets, shift_query


def top_k(matrix: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(row indices, scores) of the k best rows, best first."""
    if matrix.shape[0] == 0 or k <= 0:
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    return best_of(matrix @ query, k)


def best_of(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(indices, scores) of the k highest scores, best first."""
    n = scores.shape[0]
    if n == 0 or k <= 0:
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    k = min(k, n)
    best = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    order = best[np.argsort(-scores[best], kind="stable")]
    return order, scores[order]


@dataclass(frozen=True)
class _Sentences:
    matrix: np.ndarray  # one row per sentence, grouped by chunk
    starts: np.ndarray  # first row of each group
    chunk_rows: np.ndarray  # the chunk-matrix row each group belongs to
    offsets: dict[int, np.ndarray]  # per script code, removed from the rows (see `languages.script_offsets`)


_NO_SENTENCES = _Sentences(np.zeros((0, 0), np.float32), np.zeros(0, np.int64), np.zeros(0, np.int64), {})


def _rows_of(ids: np.ndarray, rowids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(position in the sorted `ids`, found?) of each rowid."""
    wanted = np.asarray(rowids, dtype=np.int64)
    if len(ids) == 0:
        return np.zeros(len(wanted), np.int64), np.zeros(len(wanted), bool)
    pos = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
    return pos, ids[pos] == wanted


class VectorIndex:
    """The vectors of one model in one store, cached in memory. `sentence_weight` 0 ignores sentence vectors."""

    def __init__(self, store: Store, model: str, *, sentence_weight: float = 0.0) -> None:
        self._store = store
        self._model = model
        self._weight = sentence_weight
        self._sentences = _NO_SENTENCES
        self._lock = threading.Lock()  # one reload at a time
        self._rw = RWLock()  # a search never sees ids and matrix from different loads; a waiting reload goes first
        self._generation = -1
        self._ids = np.zeros(0, np.int64)
        self._matrix = np.zeros((0, 0), np.float32)
        self._scripts = np.zeros(0, np.int8)  # script code of each chunk row
        self._shifts: dict[int, np.ndarray] = {}  # per question script code (see `languages.query_shifts`)

    def __len__(self) -> int:
        self._refresh()
        return len(self._ids)

    def search(self, query: np.ndarray, k: int, *, question: str | None = None, rows: list[int] | None = None) -> list[tuple[int, float]]:
        """(chunk rowid, cosine) best first. With the `question`'s text, its vector is moved towards the language
        of the passages (see `languages.query_shifts`). With `rows` (sorted chunk rowids), every other row of the
        matrix is masked out, so the best k among those rows come back."""
        self._refresh()
        with self._rw.read():
            ids, matrix, sentences, shifts = self._ids, self._matrix, self._sentences, self._shifts
            if matrix.shape[0] == 0 or matrix.shape[1] != query.shape[0]:
                return []
            query = query.astype(np.float32, copy=False)
            if question is not None:
                query = shift_query(query, question, shifts)
            scores = matrix @ query
            if len(sentences.starts):
                best = scores.copy()  # a chunk without sentence vectors is its own best sentence
                best[sentences.chunk_rows] = np.maximum.reduceat(sentences.matrix @ query, sentences.starts)
                scores = (scores + self._weight * best) / (1 + self._weight)
            if rows is not None:
                allowed = np.isin(ids, np.asarray(rows, np.int64), assume_unique=True)
                scores = np.where(allowed, scores, -np.inf)
                k = min(k, int(allowed.sum()))
            picked, top = best_of(scores, k)
        return [(int(ids[r]), float(s)) for r, s in zip(picked, top)]

    def align_sentences(self, texts: list[str], vectors: np.ndarray) -> np.ndarray:
        """Sentence vectors of `texts` aligned the way this index aligns its own (for extractive answers)."""
        self._refresh()
        offsets = self._sentences.offsets
        if not offsets:
            return vectors
        return remove_offsets(vectors, np.array([SCRIPT_CODES[script(t)] for t in texts], np.int8), offsets)

    def move_question(self, vector: np.ndarray, question: str) -> np.ndarray:
        """A question's vector moved towards the passages' language, as `search(question=…)` moves it."""
        self._refresh()
        with self._rw.read():
            shifts = self._shifts
        return shift_query(vector.astype(np.float32, copy=False), question, shifts)

    def missing(self, rowids: list[int]) -> set[int]:
        """The given chunk rowids that have no vector (yet) in this index."""
        with self._rw.read():
            ids = self._ids  # sorted: the store returns vectors ordered by rowid
        _, found = _rows_of(ids, rowids)
        return {int(r) for r, ok in zip(rowids, found) if not ok}

    def scripts(self, rowids: list[int]) -> dict[int, str | None]:
        """The script of each given chunk that has a vector here (read from memory: a search needs it every time)."""
        with self._rw.read():
            ids, codes = self._ids, self._scripts
        pos, found = _rows_of(ids, rowids)
        names = {code: name for name, code in SCRIPT_CODES.items()}
        return {int(r): names[int(codes[p])] for r, p, ok in zip(rowids, pos, found) if ok}

    def _refresh(self) -> None:
        generation = self._store.generation()
        if generation == self._generation:
            return
        with self._lock:
            if generation != self._generation:
                ids, matrix, scripts = self._store.vectors(self._model)  # the slow part, while searches go on
                offsets = script_offsets(matrix, scripts)
                matrix = remove_offsets(matrix, scripts, offsets)
                shifts = query_shifts(scripts, offsets, reference_means(self._store, self._model))
                sentences = self._load_sentences(ids) if self._weight > 0 else _NO_SENTENCES
                with self._rw.write():
                    self._ids, self._matrix, self._scripts, self._sentences = ids, matrix, scripts, sentences
                    self._shifts = shifts
                self._generation = generation

    def _load_sentences(self, ids: np.ndarray) -> _Sentences:
        owners, matrix, scripts = self._store.sentence_vectors(self._model)  # ordered by chunk rowid, like `ids`
        if len(owners) == 0 or len(ids) == 0:
            return _NO_SENTENCES
        offsets = script_offsets(matrix, scripts)
        matrix = remove_offsets(matrix, scripts, offsets)
        pos, keep = _rows_of(ids, owners)  # a sentence whose chunk has no vector yet cannot be scored
        if not keep.all():
            owners, pos, matrix = owners[keep], pos[keep], matrix[keep]
        if len(owners) == 0:
            return _NO_SENTENCES
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        return _Sentences(np.ascontiguousarray(matrix), starts, pos[starts], offsets)
