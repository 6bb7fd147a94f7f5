"""Note vectors, similar notes and near-duplicate notes, from the chunk vectors already in the index.

A note's vector is the mean of its chunks' unit vectors, normalised again, so cosine between two notes is a dot
product. Nothing is embedded here: a note whose chunks have no vector yet (indexing in progress) is left out until
they arrive. Duplicates are only reported, never merged or deleted. Reads the index through `Store`'s public
methods; knows nothing about embedders, text or the UI.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rag.errors import IndexMissing, NoteError
from rag.index.store import Store
from rag.search.languages import align_scripts

DUPLICATE_THRESHOLD = 0.98
_BLOCK = 1024  # rows of the note-by-note similarity matrix computed at once (bounded memory for big vaults)


@dataclass(frozen=True)
class Neighbour:
    path: str
    score: float  # cosine between the two note vectors


@dataclass(frozen=True)
class DuplicatePair:
    a: str  # a < b
    b: str
    score: float


@dataclass(frozen=True, eq=False)
class NoteVectors:
    """One unit vector per note that has chunk vectors; `paths[i]` owns `matrix[i]`."""

    paths: tuple[str, ...]
    matrix: np.ndarray  # float32, shape (notes, dim), rows of unit length

    def __len__(self) -> int:
        return len(self.paths)

    def row(self, path: str) -> int | None:
        try:
            return self.paths.index(path)
        except ValueError:
            return None


def indexed_model(store: Store) -> str:
    """The embedding model of the last indexing run (its vectors are the ones in the index)."""
    model = store.get_meta("embed_model")
    if not model:
        raise IndexMissing(f"The index {store.path} has no vectors yet. Run `python -m rag index` first.")
    return model


def note_vectors(store: Store, model: str) -> NoteVectors:
    """The mean of each note's normalised chunk vectors for `model` (languages aligned as in search), normalised again."""
    rowids, matrix, scripts = store.vectors(model)
    matrix = align_scripts(matrix, scripts)
    if len(rowids) == 0:
        return NoteVectors((), np.zeros((0, 0), np.float32))
    chunks = store.chunks_by_rowid([int(r) for r in rowids])
    paths = [chunks[int(r)].path if int(r) in chunks else None for r in rowids]
    names = sorted({p for p in paths if p is not None})
    slot = {p: i for i, p in enumerate(names)}
    owner = np.fromiter((slot.get(p, -1) for p in paths), dtype=np.int64, count=len(paths))
    keep = owner >= 0
    unit = _normalise(matrix[keep].astype(np.float32))
    sums = np.zeros((len(names), matrix.shape[1]), np.float32)
    np.add.at(sums, owner[keep], unit)
    return NoteVectors(tuple(names), _normalise(sums))


def similar_notes(store: Store, model: str, path: str, limit: int = 8, *, vectors: NoteVectors | None = None) -> list[Neighbour]:
    """The `limit` notes nearest to `path`, best first (the note itself excluded). Pass `vectors` to reuse them."""
    vectors = note_vectors(store, model) if vectors is None else vectors
    row = vectors.row(path)
    if row is None:
        raise NoteError(_not_indexed(store, path))
    scores = vectors.matrix @ vectors.matrix[row]
    scores[row] = -np.inf
    k = min(limit, len(vectors) - 1)
    if k <= 0:
        return []
    best = np.argpartition(-scores, k - 1)[:k]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [Neighbour(vectors.paths[i], round(float(scores[i]), 6)) for i in best]


def duplicate_pairs(store: Store, model: str, threshold: float = DUPLICATE_THRESHOLD, *, vectors: NoteVectors | None = None) -> list[DuplicatePair]:
    """Pairs of notes whose vectors have cosine ≥ `threshold`, most similar first. Computed in row blocks."""
    vectors = note_vectors(store, model) if vectors is None else vectors
    pairs: list[DuplicatePair] = []
    m = vectors.matrix
    for start in range(0, len(vectors), _BLOCK):
        block = m[start : start + _BLOCK] @ m.T  # rows start.., all columns
        rows, cols = np.nonzero(block >= np.float32(threshold) - 1e-6)
        for r, c in zip(rows.tolist(), cols.tolist()):
            i = start + r
            if c > i:
                pairs.append(DuplicatePair(vectors.paths[i], vectors.paths[c], round(min(float(block[r, c]), 1.0), 6)))
    pairs.sort(key=lambda p: (-p.score, p.a, p.b))
    return pairs


def _not_indexed(store: Store, path: str) -> str:
    if store.file_info(path) is None:
        return f"{path} is not in the index. Give a vault-relative path such as Notes/a.md, or run `python -m rag index`."
    return f"{path} has no vectors yet. Run `python -m rag index` to finish embedding it."


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
