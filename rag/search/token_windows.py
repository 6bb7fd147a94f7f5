"""The token match's best windows (rag/search/token_match.py `window_match`) for a search's candidates at once: one
product of the question's tokens with all candidates' tokens, then each candidate's best window.

The stored candidates are compared on their code (rag/embed/token_code.py) without decoding it: a token decodes to
a base row plus a row per bit that is set (`code_basis`, read off the code's own `decode`), so its cosine with a
question token is that token's product with the base plus its products with the set bits' rows, and the question is
multiplied by the base and the bit rows once a search, not by each candidate's decoded 384 components. Measured on
XQuAD ru→en on two cores (20 candidates, ~2,800 tokens): decoding each and matching each 26 ms a search, this ~3 ms.
A code whose decoding is not of that form is decoded as before (`code_basis` is None).
"""

from __future__ import annotations

import functools

import numpy as np

from rag.embed import token_code


@functools.cache
def code_basis(layers: int, version: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(base [layers, dim], bit rows [layers, bits, dim]) such that `token_code.decode` of a token is its base plus
    the rows of its bits that are set (np.unpackbits' order), checked on random codes; None for a code that decodes
    otherwise. `version`: the fit's number (`token_code.version()`), so another fit gets its own basis."""
    parts = token_code.parts()
    bits = parts * 8
    base = token_code.decode(np.zeros((layers, 1, parts), np.uint8))[:, 0]
    units = np.broadcast_to(np.packbits(np.eye(bits, dtype=bool), axis=1), (layers, bits, parts))
    rows = token_code.decode(np.ascontiguousarray(units)) - base[:, None]
    sample = np.random.default_rng(0).integers(0, 256, (layers, 64, parts), dtype=np.uint8)
    if not np.allclose(token_code.decode(sample), base[:, None] + _bits(sample) @ rows, atol=1e-5):
        return None
    return base.astype(np.float32), rows.astype(np.float32)


def best_windows(asked: np.ndarray, states: dict[int, np.ndarray], codes: dict[int, np.ndarray], *, width: int, stride: int) -> dict[int, float]:
    """rowid → the best window's MaxSim (token_match.py `window_match`) of each passage, given as states (float32
    [layers, tokens, dim]) or as e5's code ([layers, tokens, parts] uint8, `codes`); passages without a token left
    out. `asked` [layers, q, dim]."""
    parts = [(r, s) for r, s in states.items() if s.shape[1]] + [(r, c) for r, c in codes.items() if c.shape[1]]
    if not parts:
        return {}
    similarity = np.concatenate(
        [_similarity_of_states(asked, [s for r, s in parts if r in states])]
        + [_similarity_of_codes(asked, [c for r, c in parts if r not in states])],
        axis=2,
    )
    return dict(zip([r for r, _ in parts], _windows(similarity, [p.shape[1] for _, p in parts], width, stride)))


def _similarity_of_states(asked: np.ndarray, states: list[np.ndarray]) -> np.ndarray:
    if not states:
        return np.zeros((*asked.shape[:2], 0), np.float32)
    return asked @ np.concatenate(states, axis=1).transpose(0, 2, 1)


def _similarity_of_codes(asked: np.ndarray, codes: list[np.ndarray]) -> np.ndarray:
    if not codes:
        return np.zeros((*asked.shape[:2], 0), np.float32)
    joined = np.concatenate(codes, axis=1)
    basis = code_basis(asked.shape[0], token_code.version())
    if basis is None:
        return _similarity_of_states(asked, [token_code.decode(joined)])
    base, rows = basis
    return (asked @ base[:, :, None]) + (asked @ rows.transpose(0, 2, 1)) @ _bits(joined).transpose(0, 2, 1)


def _bits(codes: np.ndarray) -> np.ndarray:
    return np.unpackbits(codes, axis=2).astype(np.float32)


def _windows(similarity: np.ndarray, lengths: list[int], width: int, stride: int) -> list[float]:
    """Each passage's best window, its tokens the next `lengths` columns of `similarity` [layers, q, tokens]: each
    passage's columns padded to whole blocks of `stride` (never best), each block's best per question token, the best
    of `width // stride` blocks in a row (of all, in a passage shorter than that), its mean over the layers and the
    question's tokens, the passage's best of those."""
    layers, questions, _ = similarity.shape
    blocks = [-(-n // stride) for n in lengths]
    starts = np.concatenate([[0], np.cumsum(blocks)])
    column = np.concatenate([start * stride + np.arange(n) for start, n in zip(starts, lengths)])
    padded = np.full((layers, questions, int(starts[-1]) * stride), -np.inf, np.float32)
    padded[:, :, column] = similarity
    best_in_block = padded.reshape(layers, questions, -1, stride).max(axis=3)
    span = width // stride
    runs = [best_in_block]  # runs[k - 1][..., j]: the best of blocks j … j + k - 1 (past the end: -inf)
    for k in range(1, min(span, max(blocks))):
        shifted = np.full_like(best_in_block, -np.inf)
        shifted[:, :, :-k] = best_in_block[:, :, k:]
        runs.append(np.maximum(runs[-1], shifted))
    means = [run.mean(axis=(0, 1)) for run in runs]  # a window that runs into the next passage is never read
    return [float(means[min(span, n) - 1][start : start + n - min(span, n) + 1].max()) for start, n in zip(starts, blocks)]
