"""Word runs: a text as the sorted hashes of its runs of SHINGLE_WORDS consecutive stemmed words, and how much of
one text's runs another holds. Near-duplicate notes share most of them; notes on one subject written apart do not
(rag/search/similar.py).

Apart from the note vectors: pure, no index; the cut points are calibrated with them by bench/duplicate_calibration.py.
"""

from __future__ import annotations

import functools

import numpy as np

from rag.text.stemming import stem, words

SHINGLE_WORDS = 3  # a word run: this many consecutive stemmed words


def shingles(text: str, size: int = SHINGLE_WORDS) -> np.ndarray:
    """Sorted distinct hashes (int64) of every run of `size` consecutive stemmed words of `text` (one run of all of
    it, if shorter). Hashes hold within one process (Python's string hash), which is all a comparison needs."""
    stems = np.fromiter((hash(_stem(w)) for w in words(text)), dtype=np.int64)
    if len(stems) == 0:
        return stems
    size = min(size, len(stems))
    runs = np.zeros(len(stems) - size + 1, np.int64)
    with np.errstate(over="ignore"):  # wrapping multiply-add: a polynomial hash of the run
        for k in range(size):
            runs = runs * np.int64(1_000_003) + stems[k : len(stems) - size + 1 + k]
    return np.unique(runs)


def text_overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Containment |a ∩ b| / min(|a|, |b|) of two `shingles`: the share of the shorter text's word runs in the other."""
    if len(a) == 0 or len(b) == 0:
        return 0.0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    found = long_.take(np.searchsorted(long_, short), mode="clip") == short
    return int(np.count_nonzero(found)) / len(short)


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return stem(word)  # a vault repeats its words: most lookups are cache hits
