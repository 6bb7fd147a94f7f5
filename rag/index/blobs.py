"""Stored vectors back as arrays, refusing what cannot be one. Pure (numpy); both backends and search use it.

The SQLite index keeps a vector as a code (`encode`): its scale (float32: its largest component's size over 127), then
its components as int8 steps of that scale, a quarter of float32's bytes. Measured on every retrieval dev set, the
rankings are those of float32 (docs/benchmarks.md, "index size"). PostgreSQL keeps pgvector's float32 (`matrix_of`).

The index file is not trusted: a disk error, a half-copied file or someone's sqlite3 session can leave a vector blob
truncated, zeroed, of random bytes or not a blob at all. A vector is usable when it is float32 values of the width its
model writes, all finite, of unit length: every embedder here returns unit vectors and search takes a dot product for
the cosine. A zeroed blob fails that, and random bytes almost always do (NaN, infinities or a norm far from 1); a
well-formed unit vector of the wrong values cannot be told from a real one without embedding its text again, so it
is not checked. A code decodes to unit length within its rounding (`CODE_TOLERANCE`); a zeroed code has none,
and random bytes make a scale that almost never gives it. Unusable rows are left out with one warning per process, and `rag index` recomputes them
(`repair.drop_unreadable`). Knows nothing about tables or models.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable

import numpy as np

log = logging.getLogger(__name__)

UNIT_TOLERANCE = 1e-3  # |norm − 1| above this is not a vector an embedder wrote (float32 rounding is ~1e-6)
# A code's rounding moves its norm by about its scale / 3.5 (≤ 0.002 for any unit vector; e5's: ~2e-4): a decoded
# norm farther from 1 than this was not written by `encode`.
CODE_TOLERANCE = 0.01
SCALE_BYTES = 4

_warned: set[tuple[str, str]] = set()
_warned_lock = threading.Lock()


def is_blob(value: object) -> bool:
    """A byte string (SQLite's typing is per value: a BLOB column can hold text, a number or NULL)."""
    return isinstance(value, (bytes, bytearray, memoryview))


def usable_rows(matrix: np.ndarray) -> np.ndarray:
    """Per row of a float32 matrix: all finite and of unit length. One pass: a NaN or an infinity (or a square too
    large for float32) makes the row's squared norm NaN or infinite, which is never within the tolerance of 1."""
    with np.errstate(over="ignore", invalid="ignore"):
        squares = np.einsum("ij,ij->i", matrix, matrix)
    return np.abs(squares - 1.0) <= 2 * UNIT_TOLERANCE  # |n² − 1| ≈ 2·|n − 1| near 1


def common_width(blobs: list, *, fits: Callable[[int], bool] = lambda n: n > 0 and n % 4 == 0) -> int:
    """The byte length most of these blobs have among those that `fits` (default: whole float32 values): the width
    their model writes (0 when none is a blob)."""
    lengths = Counter(len(b) for b in blobs if is_blob(b) and fits(len(b)))
    return max(lengths.items(), key=lambda item: (item[1], item[0]))[0] if lengths else 0


def matrix_of(blobs: list, width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(float32 matrix of the usable blobs, which blobs those are): blobs of `width` bytes (default: the common
    width), finite, unit length."""
    width = common_width(blobs) if width is None else width
    fits = np.fromiter((is_blob(b) and len(b) == width for b in blobs), dtype=bool, count=len(blobs))
    if width == 0 or not fits.any():
        return np.zeros((0, width // 4), np.float32), np.zeros(len(blobs), bool)
    matrix = np.frombuffer(b"".join(b for b, ok in zip(blobs, fits) if ok), dtype=np.float32).reshape(-1, width // 4)
    good = usable_rows(matrix)
    kept = fits.copy()
    kept[np.flatnonzero(fits)] = good
    return (matrix if good.all() else matrix[good]), kept


def encode(matrix: np.ndarray) -> list[bytes]:
    """Each row of a float32 matrix of unit vectors as a code: its scale (float32, the largest |component| / 127) and
    its components rounded to int8 steps of it (−127…127)."""
    matrix = np.asarray(matrix, np.float32)
    scales = (np.maximum(np.abs(matrix).max(axis=1), 1e-30) / 127).astype(np.float32)
    steps = np.clip(np.rint(matrix / scales[:, None]), -127, 127).astype(np.int8)
    return [scale.tobytes() + row.tobytes() for scale, row in zip(scales, steps)]


def code_width(dim: int) -> int:
    """The bytes of a `dim`-component code."""
    return SCALE_BYTES + dim


def codes_of(blobs: list, width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """As `matrix_of`, for codes (`encode`): (float32 matrix of the usable ones, each scaled back to unit length; which
    blobs those are). Usable: `width` bytes (default: the common length), a finite scale, a norm within
    `CODE_TOLERANCE` of 1."""
    width = common_width(blobs, fits=lambda n: n > SCALE_BYTES) if width is None else width
    fits = np.fromiter((is_blob(b) and len(b) == width for b in blobs), dtype=bool, count=len(blobs))
    if width <= SCALE_BYTES or not fits.any():
        return np.zeros((0, max(width - SCALE_BYTES, 0)), np.float32), np.zeros(len(blobs), bool)
    raw = np.frombuffer(b"".join(b for b, ok in zip(blobs, fits) if ok), dtype=np.uint8).reshape(-1, width)
    scales = raw[:, :SCALE_BYTES].copy().view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        matrix = raw[:, SCALE_BYTES:].view(np.int8).astype(np.float32) * scales
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
        good = np.abs(norms - 1.0) <= CODE_TOLERANCE  # NaN and infinities compare False
    matrix = matrix[good] / norms[good, None]
    kept = fits.copy()
    kept[np.flatnonzero(fits)] = good
    return np.ascontiguousarray(matrix), kept


def warn_once(topic: str, what: str, message: str, *args) -> None:
    """Log `message` once per process for (`topic`, `what`): a search that meets bad rows runs again and again."""
    with _warned_lock:
        if (topic, what) in _warned:
            return
        _warned.add((topic, what))
    log.warning(message, *args)


def warn_unusable(model: str, count: int, what: str = "vectors") -> None:
    """The one warning for stored rows left out of search."""
    if count:
        warn_once(
            "unusable",
            f"{what}:{model}",
            "Unreadable stored %s of %s (%d: truncated, damaged or of another width) are left out of search; `python -m rag index` recomputes them.",
            what,
            model,
            count,
        )
