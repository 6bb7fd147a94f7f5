"""Dense top-k by linear scan over cached float32 matrices of unit vectors (cosine = dot product).

A chunk scores by its own vector and, when it has sentence vectors, by its best sentence too:
(cosine + w · best sentence cosine) / (1 + w). A question usually matches one sentence of a passage, and that
match survives a change of language much better than the whole passage's (measured on XQuAD, see docs/benchmarks.md, "Retrieval quality").
Languages are evened out first (rag/search/languages.py): in a vault that mixes Latin and Cyrillic texts each script's
offset is removed from its vectors, and a question is moved towards the passages' language. The matrices are
loaded from the store once and reloaded only when the store's generation changes, so a query costs one
matrix-vector product per matrix and an argpartition. Never embeds anything itself.
A store on a server (PostgreSQL) with more chunk vectors than `exact_below` is not loaded at all: pgvector's HNSW
index proposes candidates (`ann_candidates` per wanted result, at least `ef_search`), and only their vectors are read
and scored exactly as above, with each script's offset computed by the server (see `_AnnState`).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

import numpy as np

from rag.index.language_reference import reference_means
from rag.index.rwlock import RWLock
from rag.index.storage import IndexStore
from rag.search.languages import offsets_from_means, query_shifts, remove_offsets, script_offsets, shift_query, shifts_for_counts
from rag.text.sentences import SCRIPT_CODES, script

log = logging.getLogger(__name__)

ANN_CANDIDATES = 2  # vector keys asked of the HNSW index per wanted result (chunks and sentences share the index)
MAX_EF_SEARCH = 1000  # pgvector's limit for hnsw.ef_search
ANN_WIDENINGS = 3  # at most this many wider nets when the nearest keys hold fewer than k chunks
ANN_MEANS_SECONDS = 60.0  # a large index's script means are recomputed at most this often (they move slowly)


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


@dataclass(frozen=True)
class _AnnState:
    """A large server-side index, searched through its HNSW index instead of loaded."""

    count: int  # chunk vectors
    offsets: dict[int, np.ndarray]  # per script code, of the chunk vectors (see `languages.offsets_from_means`)
    sentence_offsets: dict[int, np.ndarray]
    shifts: dict[int, np.ndarray]
    measured: float  # when the means were computed (time.monotonic)


def _scores(matrix: np.ndarray, sentences: _Sentences, query: np.ndarray, weight: float) -> np.ndarray:
    """Each row's cosine, blended with its best sentence's: (cosine + w · best) / (1 + w)."""
    scores = matrix @ query
    if len(sentences.starts):
        best = scores.copy()  # a chunk without sentence vectors is its own best sentence
        best[sentences.chunk_rows] = np.maximum.reduceat(sentences.matrix @ query, sentences.starts)
        scores = (scores + weight * best) / (1 + weight)
    return scores


def _group_sentences(ids: np.ndarray, owners: np.ndarray, matrix: np.ndarray, offsets: dict[int, np.ndarray]) -> _Sentences:
    """Sentence rows (ordered by chunk rowid, offsets removed) grouped by the chunk row of `ids` they belong to."""
    if len(owners) == 0 or len(ids) == 0:
        return _NO_SENTENCES
    pos, keep = _rows_of(ids, owners)  # a sentence whose chunk has no vector yet cannot be scored
    if not keep.all():
        owners, pos, matrix = owners[keep], pos[keep], matrix[keep]
    if len(owners) == 0:
        return _NO_SENTENCES
    starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
    return _Sentences(np.ascontiguousarray(matrix), starts, pos[starts], offsets)


def _rows_of(ids: np.ndarray, rowids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(position in the sorted `ids`, found?) of each rowid."""
    wanted = np.asarray(rowids, dtype=np.int64)
    if len(ids) == 0:
        return np.zeros(len(wanted), np.int64), np.zeros(len(wanted), bool)
    pos = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
    return pos, ids[pos] == wanted


class VectorIndex:
    """The vectors of one model in one store, cached in memory. `sentence_weight` 0 ignores sentence vectors."""

    def __init__(self, store: IndexStore, model: str, *, sentence_weight: float = 0.0, exact_below: int | None = None, ef_search: int = 200) -> None:
        self._store = store
        self._model = model
        self._weight = sentence_weight
        self._exact_below = exact_below if store.has_ann_index else None  # None: always in memory
        self._ef_search = ef_search
        self._ann: _AnnState | None = None
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
        ann = self._ann
        return ann.count if ann is not None else len(self._ids)

    def search(self, query: np.ndarray, k: int, *, question: str | None = None, rows: list[int] | None = None) -> list[tuple[int, float]]:
        """(chunk rowid, cosine) best first. With the `question`'s text, its vector is moved towards the language
        of the passages (see `languages.query_shifts`). With `rows` (sorted chunk rowids), every other row of the
        matrix is masked out, so the best k among those rows come back."""
        self._refresh()
        if self._ann is not None:
            return self._ann_search(self._ann, query, k, question=question, rows=rows)
        with self._rw.read():
            ids, matrix, sentences, shifts = self._ids, self._matrix, self._sentences, self._shifts
            if matrix.shape[0] == 0 or matrix.shape[1] != query.shape[0]:
                return []
            query = query.astype(np.float32, copy=False)
            if question is not None:
                query = shift_query(query, question, shifts)
            scores = _scores(matrix, sentences, query, self._weight)
            if rows is not None:
                allowed = np.isin(ids, np.asarray(rows, np.int64), assume_unique=True)
                scores = np.where(allowed, scores, -np.inf)
                k = min(k, int(allowed.sum()))
            picked, top = best_of(scores, k)
        return [(int(ids[r]), float(s)) for r, s in zip(picked, top)]

    def _ann_search(self, ann: _AnnState, query: np.ndarray, k: int, *, question: str | None, rows: list[int] | None) -> list[tuple[int, float]]:
        """Candidates from the HNSW index (or the filter's rows, when they are few), scored exactly like `search`."""
        query = query.astype(np.float32, copy=False)
        if question is not None:
            query = shift_query(query, question, ann.shifts)
        if rows is not None and len(rows) < self._exact_below:
            candidates = list(rows)
        else:
            candidates = self._candidates(query, k)
            if rows is not None:
                candidates = sorted(set(candidates).intersection(rows))
        ids, matrix, scripts = self._store.vectors(self._model, rows=candidates)
        if len(ids) == 0 or matrix.shape[1] != query.shape[0]:
            return []
        sentences = _NO_SENTENCES
        if self._weight > 0:
            owners, sentence_matrix, sentence_scripts = self._store.sentence_vectors(self._model, rows=[int(i) for i in ids])
            sentence_matrix = remove_offsets(sentence_matrix, sentence_scripts, ann.sentence_offsets)
            sentences = _group_sentences(ids, owners, sentence_matrix, ann.sentence_offsets)
        picked, top = best_of(_scores(remove_offsets(matrix, scripts, ann.offsets), sentences, query, self._weight), k)
        return [(int(ids[r]), float(s)) for r, s in zip(picked, top)]

    def _candidates(self, query: np.ndarray, k: int) -> list[int]:
        """Chunks near the query by the HNSW index: the owners of the nearest chunk and sentence vectors, asked again
        with a wider net while they are fewer than k (sentences of one chunk crowd the nearest keys)."""
        wanted = max(ANN_CANDIDATES * k, self._ef_search)
        for _ in range(ANN_WIDENINGS + 1):
            keys = self._store.nearest(self._model, query, wanted, ef_search=wanted)
            candidates = self._store.chunks_of_keys(keys)
            if len(candidates) >= k or len(keys) < wanted or wanted >= MAX_EF_SEARCH:
                break
            wanted = min(2 * wanted, MAX_EF_SEARCH)
        return candidates

    def align_sentences(self, texts: list[str], vectors: np.ndarray) -> np.ndarray:
        """Sentence vectors of `texts` aligned the way this index aligns its own (for extractive answers)."""
        self._refresh()
        offsets = self._ann.sentence_offsets if self._ann is not None else self._sentences.offsets
        if not offsets:
            return vectors
        return remove_offsets(vectors, np.array([SCRIPT_CODES[script(t)] for t in texts], np.int8), offsets)

    def move_question(self, vector: np.ndarray, question: str) -> np.ndarray:
        """A question's vector moved towards the passages' language, as `search(question=…)` moves it."""
        self._refresh()
        with self._rw.read():
            shifts = self._ann.shifts if self._ann is not None else self._shifts
        return shift_query(vector.astype(np.float32, copy=False), question, shifts)

    def missing(self, rowids: list[int]) -> set[int]:
        """The given chunk rowids that have no vector (yet) in this index."""
        if self._ann is not None:
            return set(rowids) - set(self._store.vector_scripts(self._model, rowids))
        with self._rw.read():
            ids = self._ids  # sorted: the store returns vectors ordered by rowid
        _, found = _rows_of(ids, rowids)
        return {int(r) for r, ok in zip(rowids, found) if not ok}

    def scripts(self, rowids: list[int]) -> dict[int, str | None]:
        """The script of each given chunk that has a vector here (read from memory: a search needs it every time)."""
        self._refresh()
        if self._ann is not None:
            return self._store.vector_scripts(self._model, rowids)
        with self._rw.read():
            ids, codes = self._ids, self._scripts
        pos, found = _rows_of(ids, rowids)
        names = {code: name for name, code in SCRIPT_CODES.items()}
        return {int(r): names[int(codes[p])] for r, p, ok in zip(rowids, pos, found) if ok}

    def _refresh(self) -> None:
        generation = self._store.generation()
        if generation == self._generation:
            return
        if self._ann is not None:
            # A large index on a server: searches read the HNSW index itself, and only its count and language means
            # are cached. They follow in the background: no search waits for a count over a million rows (~1 s) or
            # the means (~10 s, measured at 1M chunks in bench/postgres_latency.py).
            if self._lock.acquire(blocking=False):
                threading.Thread(target=self._reload_then_release, args=(generation,), name="vector-index-refresh", daemon=True).start()
            return
        with self._lock:
            if generation != self._generation:
                self._reload(generation)

    def _reload_then_release(self, generation: int) -> None:
        try:
            self._reload(generation)
        except Exception as exc:  # noqa: BLE001 - a background refresh: the next search tries again
            log.warning("Could not refresh the vector index's statistics: %s", exc)
        finally:
            self._lock.release()

    def _reload(self, generation: int) -> None:
        """With `_lock` held: the matrices, or for a large server-side index its count and means."""
        count = self._store.vector_count(self._model) if self._exact_below is not None else 0
        if self._exact_below is not None and count >= self._exact_below:
            self._refresh_ann(count)
        else:
            self._load()
        self._generation = generation

    def _load(self) -> None:
        ids, matrix, scripts = self._store.vectors(self._model)  # the slow part, while searches go on
        offsets = script_offsets(matrix, scripts)
        matrix = remove_offsets(matrix, scripts, offsets)
        shifts = query_shifts(scripts, offsets, reference_means(self._store, self._model, dim=matrix.shape[1] or None))
        sentences = self._load_sentences(ids) if self._weight > 0 else _NO_SENTENCES
        with self._rw.write():
            self._ids, self._matrix, self._scripts, self._sentences = ids, matrix, scripts, sentences
            self._shifts = shifts
            self._ann = None

    def _refresh_ann(self, count: int) -> None:
        old = self._ann
        if old is not None and time.monotonic() - old.measured < ANN_MEANS_SECONDS:
            state = _AnnState(count, old.offsets, old.sentence_offsets, old.shifts, old.measured)
        else:
            chunk_means, sentence_means = (_by_code(m) for m in self._store.script_means(self._model))
            offsets = offsets_from_means(chunk_means)
            counts = {code: n for code, (n, _) in chunk_means.items()}
            dim = next((mean.shape[0] for _, mean in chunk_means.values()), None)
            shifts = shifts_for_counts(counts, offsets, reference_means(self._store, self._model, dim=dim))
            state = _AnnState(count, offsets, offsets_from_means(sentence_means), shifts, time.monotonic())
        with self._rw.write():  # nothing of the in-memory matrices is kept
            self._ids, self._matrix, self._scripts, self._sentences = (
                np.zeros(0, np.int64),
                np.zeros((0, 0), np.float32),
                np.zeros(0, np.int8),
                _NO_SENTENCES,
            )
            self._ann = state

    def _load_sentences(self, ids: np.ndarray) -> _Sentences:
        owners, matrix, scripts = self._store.sentence_vectors(self._model)  # ordered by chunk rowid, like `ids`
        if len(owners) == 0 or len(ids) == 0:
            return _NO_SENTENCES
        offsets = script_offsets(matrix, scripts)
        return _group_sentences(ids, owners, remove_offsets(matrix, scripts, offsets), offsets)


def _by_code(means: dict) -> dict[int, tuple[int, np.ndarray]]:
    """{script name: (rows, mean)} → {script code: (rows, mean)}."""
    return {SCRIPT_CODES.get(name, 0): value for name, value in means.items()}
