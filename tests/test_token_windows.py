"""A search's candidates matched token by token at once (rag/search/token_windows.py): the stored ones on their code,
not decoded, the same scores as each decoded and matched alone."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from rag.embed import token_code
from rag.index.token_blobs import HEADER, pack, unpack
from rag.search import token_windows
from rag.search.token_match import STRIDE, WINDOW, TokenMatch
from tests.test_languages import _demo_questions


def _one_window_match(asked, passage, width=WINDOW, stride=STRIDE):
    """The match of one passage as it was computed before (one passage at a time, its states decoded)."""
    similarity = np.einsum("lqh,lph->lqp", asked, passage)
    layers, questions, length = similarity.shape
    blocks = -(-length // stride)
    padded = np.full((layers, questions, blocks * stride), -np.inf, np.float32)
    padded[:, :, :length] = similarity
    best = padded.reshape(layers, questions, blocks, stride).max(axis=3)
    windows = sliding_window_view(best, min(width // stride, blocks), axis=2).max(axis=3)
    return float(windows.mean(axis=(0, 1)).max())


def _unit(rng, *shape):
    rows = rng.normal(size=shape).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=-1, keepdims=True)


class _Reader:
    reads_tokens = True

    def __init__(self, asked):
        self.asked = asked

    def token_states(self, texts, *, query=False, leave_out=frozenset()):
        return [self.asked for _ in texts]


def test_candidates_matched_at_once_on_their_code_score_as_each_decoded_and_matched_alone():
    rng = np.random.default_rng(7)
    asked = _unit(rng, 2, 9, 384)
    lengths = [1, 15, 16, 17, 47, 48, 49, 130, 300]
    stored = {100 + i: pack(_unit(rng, 2, n, 384)) for i, n in enumerate(lengths)}
    assert all(np.frombuffer(b, np.uint32, 4)[3] > 256 for b in stored.values())  # e5's fitted code, not 4 bits
    assert token_windows.code_basis(2, token_code.version()) is not None
    scores = TokenMatch(_Reader(asked)).scores("вопрос", {}, stored=stored)
    expected = {r: _one_window_match(asked, unpack(b)) for r, b in stored.items()}
    assert scores.keys() == expected.keys()
    assert np.allclose([scores[r] for r in expected], list(expected.values()), rtol=0, atol=1e-5)


def test_states_and_codes_together_and_a_code_that_does_not_decode_by_bits(monkeypatch):
    rng = np.random.default_rng(3)
    asked = _unit(rng, 2, 5, 384)
    states = {1: _unit(rng, 2, 20, 384), 2: _unit(rng, 2, 70, 384), 3: np.zeros((2, 0, 384), np.float32)}
    blobs = {4: pack(_unit(rng, 2, 33, 384)), 5: pack(_unit(rng, 2, 5, 384))}
    codes = {r: np.frombuffer(b, np.uint8, offset=HEADER).reshape(2, -1, token_code.parts()) for r, b in blobs.items()}
    expected = {r: _one_window_match(asked, s) for r, s in states.items() if s.shape[1]}
    expected |= {r: _one_window_match(asked, unpack(b)) for r, b in blobs.items()}
    for basis in (True, False):
        if not basis:  # a code that is not a base plus a row per bit is decoded, as before
            monkeypatch.setattr(token_windows, "code_basis", lambda layers, version: None)
        got = token_windows.best_windows(asked, states, codes, width=WINDOW, stride=STRIDE)
        assert got.keys() == expected.keys()
        assert np.allclose([got[r] for r in expected], list(expected.values()), rtol=0, atol=1e-5)


def _each_alone(asked, states, codes, *, width, stride):
    scores = {r: _one_window_match(asked, s, width, stride) for r, s in states.items() if s.shape[1]}
    return scores | {r: _one_window_match(asked, token_code.decode(c), width, stride) for r, c in codes.items() if c.shape[1]}


def test_the_demo_questions_rank_as_with_each_candidate_decoded_and_matched_alone(demo, monkeypatch):
    questions = [q for q, _ in _demo_questions()]
    ranked = [[(h.chunk.rowid, h.score) for h in demo.retriever.hybrid(q, 10).hits] for q in questions]
    monkeypatch.setattr(token_windows, "best_windows", _each_alone)
    alone = [[(h.chunk.rowid, h.score) for h in demo.retriever.hybrid(q, 10).hits] for q in questions]
    assert [[r for r, _ in a] for a in ranked] == [[r for r, _ in b] for b in alone]
    assert np.allclose([s for a in ranked for _, s in a], [s for b in alone for _, s in b], rtol=0, atol=1e-5)
