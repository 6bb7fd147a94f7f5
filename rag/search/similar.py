"""Note vectors, similar notes and near-duplicate notes, from the chunk vectors and chunk texts already in the index.

A note's vector is the mean of its chunks' unit vectors, normalised again, so cosine between two notes is a dot
product. Cosines alone read badly: the model puts every pair of notes in a vault at 0.7–0.95, and where depends on
the vault (language, length, style). So each neighbour and pair also carries
- `percentile`: the share of this vault's note pairs that are less alike (all pairs, or a fixed random sample of
  PAIR_SAMPLE on a big vault), and
- `closeness`: a plain-words label (CLOSENESS) from the cosine's lift above the vault's typical (median) pair, and
  for "near-duplicate" the duplicate rule below; the cut points were calibrated by bench/duplicate_calibration.py.
Near-duplicates need two things: cosine ≥ a threshold, and most of the shorter note's text (runs of three stemmed
words) found in the other (rag/text/word_runs.py) — notes on one subject say it in their own words, copies do not. Only each note's
CANDIDATES nearest notes are checked, so a big vault costs notes × CANDIDATES text comparisons at most.

Nothing is embedded here: a note whose chunks have no vector yet (indexing in progress) is left out until they
arrive. Duplicates are only reported, never merged or deleted. Reads the index through `Store`'s public methods;
knows nothing about embedders or the UI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from rag.errors import NoteError
from rag.index.chunking import page_of
from rag.index.storage import IndexStore
from rag.notes import pdf
from rag.search.languages import align_scripts
from rag.text.word_runs import shingles, text_overlap

# Calibrated on real text by bench/duplicate_calibration.py (multilingual-e5-small; see docs/benchmarks.md, "Similar notes and duplicates").
DUPLICATE_THRESHOLD = 0.85  # cosine of a near-duplicate pair, at least
DUPLICATE_OVERLAP = 0.5  # share of the shorter note's word runs found in the other, at least
# Labels by lift = (cosine − typical) / (1 − typical), where typical is the vault's median note-pair cosine.
VERY_SIMILAR_LIFT = 0.40
RELATED_LIFT = 0.28
LOOSELY_RELATED_LIFT = 0.10
CLOSENESS = ("near-duplicate", "very similar", "related", "loosely related", "unrelated")
TYPICAL_COSINE = 0.82  # median pair cosine of the bench's and the demo vault (0.76–0.90): for vaults under MIN_NOTES
MIN_NOTES = 10  # fewer notes than this: too few pairs to rank against (no percentile, TYPICAL_COSINE as median)
PAIR_SAMPLE = 20_000  # note pairs sampled for the percentiles (all pairs, when a vault has no more)
CANDIDATES = 20  # each note's nearest notes checked for near-duplicates
_BLOCK = 1024  # rows of the note-by-note similarity matrix computed at once (bounded memory for big vaults)


@dataclass(frozen=True)
class Neighbour:
    path: str
    score: float  # cosine between the two note vectors
    overlap: float  # share of the shorter note's word runs (3 stemmed words) also in the other, 0–1
    closeness: str  # one of CLOSENESS
    percentile: float | None  # % of this vault's note pairs less alike (0–99.9); None under MIN_NOTES notes
    page: int | None = None  # a PDF's page most like the note (its passage nearest the note's vector); None for a note


@dataclass(frozen=True)
class DuplicatePair:
    a: str  # a < b
    b: str
    score: float  # cosine
    overlap: float
    closeness: str
    percentile: float | None


@dataclass(frozen=True, eq=False)
class NoteVectors:
    """One unit vector per note that has chunk vectors; `paths[i]` owns `matrix[i]`. `pair_cosines` are the sorted
    cosines of all note pairs, or of PAIR_SAMPLE random ones: the vault's own scale for percentiles and labels."""

    paths: tuple[str, ...]
    matrix: np.ndarray  # float32, shape (notes, dim), rows of unit length
    pair_cosines: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    # a PDF's path → (the page of each of its passages, their unit vectors): which page of it is most like a note
    pdf_pages: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.paths)

    def row(self, path: str) -> int | None:
        try:
            return self.paths.index(path)
        except ValueError:
            return None

    def page_nearest(self, path: str, vector: np.ndarray) -> int | None:
        """The page of the PDF `path` whose passage is nearest `vector` (None for a note, or a PDF without pages)."""
        if path not in self.pdf_pages:
            return None
        pages, unit = self.pdf_pages[path]
        return int(pages[int(np.argmax(unit @ vector))])

    def typical(self) -> float:
        """The median cosine of a note pair in this vault (TYPICAL_COSINE under MIN_NOTES notes)."""
        if len(self) < MIN_NOTES:
            return TYPICAL_COSINE
        return float(self.pair_cosines[len(self.pair_cosines) // 2])

    def percentile(self, score: float) -> float | None:
        """% of this vault's note pairs with a lower cosine than `score` (None under MIN_NOTES notes)."""
        if len(self) < MIN_NOTES:
            return None
        below = int(np.searchsorted(self.pair_cosines, np.float32(score) - np.float32(1e-6), side="left"))
        return min(math.floor(1000 * below / len(self.pair_cosines)) / 10, 99.9)  # rounded down: "closer than" holds


def closeness(score: float, overlap: float, typical: float) -> str:
    """The CLOSENESS label of a note pair: near-duplicate when cosine ≥ DUPLICATE_THRESHOLD and text overlap ≥
    DUPLICATE_OVERLAP, else by lift = (score − typical) / (1 − typical), the cosine's place between the vault's median
    pair (`typical`) and 1."""
    if score >= DUPLICATE_THRESHOLD - 1e-6 and overlap >= DUPLICATE_OVERLAP:
        return CLOSENESS[0]
    lift = (score - typical) / max(1.0 - typical, 1e-6)
    for label, cut in zip(CLOSENESS[1:], (VERY_SIMILAR_LIFT, RELATED_LIFT, LOOSELY_RELATED_LIFT)):
        if lift >= cut:
            return label
    return CLOSENESS[-1]


def note_vectors(store: IndexStore, model: str) -> NoteVectors:
    """The mean of each note's normalised chunk vectors for `model` (languages aligned as in search), normalised
    again, with the vault's pair cosines."""
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
    notes = _normalise(sums)
    return NoteVectors(tuple(names), notes, pair_cosines(notes), _pdf_pages(chunks, rowids, unit, paths, keep))


def _pdf_pages(chunks: dict, rowids: np.ndarray, unit: np.ndarray, paths: list, keep: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each PDF's passages (`unit` holds the kept rows' vectors) with the page each is on (its `p. N` heading)."""
    rows: dict[str, tuple[list[int], list[int]]] = {}
    for k, i in enumerate(np.flatnonzero(keep).tolist()):
        path = paths[i]
        if not path.lower().endswith(pdf.SUFFIX):
            continue
        page = page_of(chunks[int(rowids[i])].heading_path)
        if page is not None:
            pages, at = rows.setdefault(path, ([], []))
            pages.append(page)
            at.append(k)
    return {path: (np.array(pages), unit[at]) for path, (pages, at) in rows.items()}


def pair_cosines(matrix: np.ndarray, *, sample: int = PAIR_SAMPLE, seed: int = 0) -> np.ndarray:
    """Sorted cosines of every pair of rows, or of `sample` random pairs (fixed seed) when there are more."""
    n = len(matrix)
    if n * (n - 1) // 2 <= sample:
        upper = np.triu_indices(n, k=1)
        return np.sort((matrix @ matrix.T)[upper]).astype(np.float32)
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, sample)
    second = rng.integers(0, n - 1, sample)
    second += second >= first  # any other row, uniformly
    out = np.empty(sample, np.float32)
    for start in range(0, sample, 4096):
        a, b = first[start : start + 4096], second[start : start + 4096]
        out[start : start + 4096] = np.einsum("ij,ij->i", matrix[a], matrix[b])
    return np.sort(out)


def similar_notes(store: IndexStore, model: str, path: str, limit: int = 8, *, vectors: NoteVectors | None = None) -> list[Neighbour]:
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
    texts = _Shingles(store)
    typical = vectors.typical()
    out = []
    for i in best.tolist():
        score = min(float(scores[i]), 1.0)
        overlap = texts.overlap(path, vectors.paths[i])
        page = vectors.page_nearest(vectors.paths[i], vectors.matrix[row])
        out.append(
            Neighbour(vectors.paths[i], round(score, 6), round(overlap, 3), closeness(score, overlap, typical), vectors.percentile(score), page)
        )
    return out


def duplicate_pairs(
    store: IndexStore,
    model: str,
    threshold: float = DUPLICATE_THRESHOLD,
    *,
    min_overlap: float = DUPLICATE_OVERLAP,
    vectors: NoteVectors | None = None,
) -> list[DuplicatePair]:
    """Pairs of notes with cosine ≥ `threshold` and text overlap ≥ `min_overlap`, most similar first. Candidates are
    each note's CANDIDATES nearest notes, found in row blocks."""
    vectors = note_vectors(store, model) if vectors is None else vectors
    texts = _Shingles(store)
    typical = vectors.typical()
    seen: set[tuple[int, int]] = set()
    pairs = []
    for i, j, score in _candidates(vectors.matrix, threshold):
        if (min(i, j), max(i, j)) in seen:
            continue
        seen.add((min(i, j), max(i, j)))
        a, b = sorted((vectors.paths[i], vectors.paths[j]))
        overlap = texts.overlap(a, b)
        if overlap >= min_overlap:
            label = closeness(score, overlap, typical)  # the calibrated meaning, whatever the caller's thresholds
            pairs.append(DuplicatePair(a, b, round(score, 6), round(overlap, 3), label, vectors.percentile(score)))
    return sorted(pairs, key=lambda p: (-p.score, p.a, p.b))


def _candidates(m: np.ndarray, threshold: float):
    """(row, column, cosine) of each row's CANDIDATES nearest other rows with cosine ≥ `threshold`."""
    k = min(CANDIDATES, len(m) - 1)
    if k <= 0:
        return
    for start in range(0, len(m), _BLOCK):
        block = m[start : start + _BLOCK] @ m.T  # rows start.., all columns
        block[np.arange(len(block)), np.arange(start, start + len(block))] = -np.inf
        nearest = np.argpartition(-block, k - 1, axis=1)[:, :k]
        for r, cols in enumerate(nearest.tolist()):
            for c in cols:
                score = min(float(block[r, c]), 1.0)
                if score >= threshold - 1e-6:
                    yield start + r, c, score


class _Shingles:
    """Word runs of notes, read from the index on first use (one call's worth; 8 bytes a run)."""

    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self._runs: dict[str, np.ndarray] = {}

    def of(self, path: str) -> np.ndarray:
        if path not in self._runs:
            self._runs[path] = shingles(note_text(self.store, path))
        return self._runs[path]

    def overlap(self, a: str, b: str) -> float:
        return text_overlap(self.of(a), self.of(b))


def note_text(store: IndexStore, path: str) -> str:
    """The indexed text of a note: its chunks joined in order (the body; frontmatter is not indexed)."""
    return "\n".join(c.text for c in store.chunks_of(path))


def _not_indexed(store: IndexStore, path: str) -> str:
    if store.file_info(path) is None:
        return f"{path} is not in the index. Give a vault-relative path such as Notes/a.md, or run `python -m rag index`."
    return f"{path} has no vectors yet. Run `python -m rag index` to finish embedding it."


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
