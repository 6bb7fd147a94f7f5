"""Holographic reduced representations (HRR) of facts: which facts are bound to an entity, which entities sit near
another, what several entities share. numpy only.

Every token has an atom: `dim` phases drawn from a generator seeded by the token's SHA-256, so an atom is the same
on every machine and needs no storage. Vectors live in the frequency domain as unit phasors e^{iφ} (Plate's
"FHRR"): there, binding (circular convolution in the time domain) is an element-wise product — what an FFT-based
circular convolution computes, without the transforms — and unbinding multiplies by the conjugate. A bundle is the
normalised sum of its parts, reduced to its phases, so a fact is `dim` bytes (phases quantised to 256 steps).

A fact is bundle(ROLE_CONTENT ⊛ bundle(its content stems), ROLE_ENTITY ⊛ bundle(its entities)). Similarity of
two vectors is the mean cosine of their phase differences (1 = same, ~0 = unrelated, noise ~1/√dim).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

DEFAULT_DIM = 1024
_STEPS = 256  # phase quantisation: one byte per dimension
_COS = np.cos(np.arange(_STEPS) * (2 * np.pi / _STEPS)).astype(np.float32)
_PHASORS = np.exp(1j * np.arange(_STEPS) * (2 * np.pi / _STEPS)).astype(np.complex64)  # e^{iφ} per quantised phase
ROLE_CONTENT = "\x00role:content"  # role names no token can equal (tokens are stems of words)
ROLE_ENTITY = "\x00role:entity"


@lru_cache(maxsize=65_536)
def _atom_phases(token: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(token.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).integers(0, _STEPS, dim, dtype=np.uint8)


def atom(token: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """The token's atom as quantised phases (uint8, `dim`)."""
    return _atom_phases(token, dim)


def bind(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a ⊛ b: phases add (uint8 arithmetic wraps modulo 256, i.e. modulo 2π)."""
    return a + b


def unbind(bound: np.ndarray, key: np.ndarray) -> np.ndarray:
    """bound ⊛ key⁻¹: recovers what `key` was bound to (phases subtract)."""
    return bound - key


def bundle(vectors: Iterable[np.ndarray], dim: int = DEFAULT_DIM, weights: Iterable[float] | None = None) -> np.ndarray | None:
    """The normalised (phase-only) sum of phase vectors; None for no vectors."""
    items = list(vectors)
    if not items:
        return None
    phasors = _PHASORS[np.stack(items)]
    total = phasors.sum(axis=0) if weights is None else (np.asarray(list(weights), np.float32)[:, None] * phasors).sum(axis=0)
    return _quantise(np.angle(total))


def _quantise(angle: np.ndarray) -> np.ndarray:
    return np.round(angle * (_STEPS / (2 * np.pi))).astype(np.int64).astype(np.uint8)


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Mean cosine of the phase differences: 1 for equal vectors, ~0 ± 1/√dim for unrelated ones."""
    return float(_COS[(a - b)].mean())


def similarities(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """`similarity` of every row of `matrix` (facts × dim, uint8) to `query`, as float32."""
    if len(matrix) == 0:
        return np.zeros(0, np.float32)
    return _COS[matrix - query[None, :]].mean(axis=1)


def encode_fact(content_tokens: Iterable[str], entities: Iterable[str], dim: int = DEFAULT_DIM) -> np.ndarray:
    """A fact: its content stems bound to ROLE_CONTENT, its entities bound to ROLE_ENTITY, bundled."""
    parts = []
    content = bundle((atom(t, dim) for t in dict.fromkeys(content_tokens)), dim)
    if content is not None:
        parts.append(bind(atom(ROLE_CONTENT, dim), content))
    named = bundle((atom(e, dim) for e in dict.fromkeys(entities)), dim)
    if named is not None:
        parts.append(bind(atom(ROLE_ENTITY, dim), named))
    return bundle(parts, dim) if parts else np.zeros(dim, np.uint8)


def entity_probe(entity: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """What a fact bound to `entity` holds: ROLE_ENTITY ⊛ entity."""
    return bind(atom(ROLE_ENTITY, dim), atom(entity, dim))


def content_probe(tokens: Iterable[str], dim: int = DEFAULT_DIM) -> np.ndarray | None:
    content = bundle((atom(t, dim) for t in dict.fromkeys(tokens)), dim)
    return None if content is None else bind(atom(ROLE_CONTENT, dim), content)


def entities_of(fact: np.ndarray, dim: int = DEFAULT_DIM) -> np.ndarray:
    """The (noisy) bundle of a fact's entities: fact ⊛ ROLE_ENTITY⁻¹."""
    return unbind(fact, atom(ROLE_ENTITY, dim))
