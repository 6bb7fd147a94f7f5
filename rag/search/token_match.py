"""Tokens matched across languages: a question and a passage in different languages compared token by token, as two
middle layers of the embedding model see each token in its sentence (rag/embed/e5_onnx.py `TOKEN_LAYERS`).

Each word token of the question takes its closest token of the passage (cosine), and the passage scores the mean
over the question's tokens and the two layers: "late interaction" (ColBERT's MaxSim) on the model's own states, with
nothing fitted, within the passage's best window of about two sentences (`window_match`). A middle layer still keeps
each token apart (the last one was trained to be pooled into one vector) and already places «гимн» by "anthem",
«перехватов» by "interceptions": the one vector of a passage blurs which of an article's paragraphs holds the answer,
the tokens do not. Measured on XQuAD's cross-language sets (ru2en 0.945 → 0.960 nDCG@10, en2ru 0.943 → 0.957) and
checked on the FastAPI known items, which nothing was chosen on (docs/benchmarks.md). The retriever asks with
`token_match` on (the default). A question's function words are left out of the match ("how", «сколько»).

Passages' states come from the index: indexing keeps each chunk's from the forward pass that embeds it (rag/index/token_blobs.py `pack`, 4
bits a component with a scale per row, ~0.4 KB per word token), so a search reads the question alone through the model. A chunk
embedded before they were kept is read now (a few hundred tokens, 50-100 ms on two cores; 1-2 s for a search's
twenty), into a small cache bounded in bytes. Knows the embedder, not the store or the fusion: the retriever hands
it its best few candidates in another script than the question, stored or as text.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from typing import Protocol, runtime_checkable

import numpy as np

from rag.errors import EmbedderError
from rag.index.token_blobs import fitted_codes, pack, stored_states, unpack
from rag.recent import MISSING, Recent
from rag.search import token_windows
from rag.text import stemming

log = logging.getLogger(__name__)

# A question is answered in one place: a window of about two sentences is matched, not the whole passage, so a long
# chunk's scattered matches (documentation repeats its terms and code names everywhere) do not add up. Measured on
# stored states (docs/benchmarks.md): the whole passage against windows of 48 tokens every 16, XQuAD ru2en 0.9625 /
# 0.9627, en2ru 0.9512 / 0.9535 nDCG@10 (chosen there among 32-64 tokens). FastAPI known items, not chosen on, MRR@10
# through the product: EN→RU 0.953 / 0.967 (0.966 without the re-read), RU→EN 0.906 / 0.918 (0.901 without).
WINDOW = 48
STRIDE = 16
CACHE_BYTES = 16 * 2**20  # passages' token states read now, kept as `pack` codes them: ~3,000 passages of 150 tokens
CACHED_QUESTIONS = 64


def window_match(asked: np.ndarray, passage: np.ndarray, *, width: int = WINDOW, stride: int = STRIDE) -> float:
    """The best window's MaxSim: for each window of `width` consecutive passage tokens (starting every `stride`), the
    mean over the layers and the question's tokens of each one's best cosine in the window; the best window counts.
    `asked` [layers, q, dim], `passage` [layers, p, dim] (p > 0), rows unit length; `width` a multiple of `stride`.
    A search's candidates are matched at once (rag/search/token_windows.py)."""
    return token_windows.best_windows(asked, {0: passage}, {}, width=width, stride=stride)[0]


def moved(ranked: list[tuple[int, float]], matched: dict[int, float], *, depth: int, weight: float) -> list[tuple[int, float]]:
    """`ranked` (best first) re-sorted after each `matched` candidate moved by weight · spread · z: z its match's
    deviation from the matched candidates' mean (in standard deviations), spread the standard deviation of the
    `depth` best scores, so a move is in the ranking's own units and a relevance floor on them keeps its meaning.
    Unmatched candidates keep their score; fewer than two matches say nothing and change nothing."""
    if len(matched) < 2:
        return ranked
    spread = float(np.std([s for _, s in ranked[:depth]]))
    values = np.array(list(matched.values()))
    mean, std = float(values.mean()), max(float(values.std()), 1e-12)
    return sorted(((r, s + weight * spread * (matched[r] - mean) / std if r in matched else s) for r, s in ranked), key=lambda x: -x[1])


@runtime_checkable
class TokenReader(Protocol):
    """An embedder that can give its tokens' states (the local model; an endpoint gives only whole-text vectors)."""

    reads_tokens: bool  # False where this engine cannot (the local model without ONNX Runtime)

    def token_states(self, texts: list[str], *, query: bool = False, leave_out: frozenset[str] = frozenset()) -> list[np.ndarray]: ...


class TokenMatch:
    """Scores passages by their tokens' match with a question's; holds the caches of one embedder."""

    def __init__(self, embedder) -> None:
        self._reader = embedder if isinstance(embedder, TokenReader) else None
        self._lock = threading.Lock()
        self._passages: OrderedDict[bytes, bytes] = OrderedDict()  # text's hash → `pack`'s bytes
        self._bytes = 0
        self._questions: Recent[str, np.ndarray] = Recent(CACHED_QUESTIONS)

    @property
    def available(self) -> bool:
        return self._reader is not None and self._reader.reads_tokens

    def scores(self, question: str, passages: dict[int, str], *, stored: dict[int, bytes] | None = None) -> dict[int, float]:
        """rowid → the best window's mean over the question's word tokens (and the layers) of its best cosine among
        the passage's tokens (`window_match`). `stored`: passages' states as the index keeps them (`pack`); the
        `passages` given as text are read by the model now. {} when the embedder cannot give token states, or the
        question has no word token; a passage with none is left out."""
        stored = stored or {}
        if not self.available or not (passages or stored):
            return {}
        try:
            asked = self._question(question)
            states = dict(zip(passages, self._passage_states(list(passages.values())))) if passages else {}
        except EmbedderError as exc:
            log.warning("Tokens not matched across languages: %s", exc)
            return {}
        if asked.shape[1] == 0:
            return {}
        codes = fitted_codes(stored, layers=asked.shape[0], dim=asked.shape[2])  # matched on their code, not decoded
        rest = {r: blob for r, blob in stored.items() if r not in codes}
        # unreadable ones (truncated, another version's) are left out: those passages keep their fused rank
        states.update(stored_states(rest, layers=asked.shape[0], dim=asked.shape[2], model=getattr(self._reader, "name", "the embedder")))
        codes = {r: c for r, c in codes.items() if r not in states}
        return token_windows.best_windows(asked, states, codes, width=WINDOW, stride=STRIDE)

    @property
    def reads_with_vector(self) -> bool:
        """Whether the embedder gives a question's vector and its token states from one forward pass
        (`embed_query_with_states`: the local model, on every CPU)."""
        return self.available and hasattr(self._reader, "embed_query_with_states")

    def question_vector(self, question: str) -> np.ndarray:
        """The question's vector (as the embedder's `embed_query`), read in the same forward pass as its token
        states, which are kept for `scores`: a cross-language search reads its question through the model once, not
        twice (XQuAD ru→en on two cores: the second pass was ~20-45 ms of a 88 ms search)."""
        vector, states = self._reader.embed_query_with_states(question, leave_out=stemming.STOP_WORDS)
        self._questions.put(question, states)
        return vector

    def _question(self, question: str) -> np.ndarray:
        states = self._questions.get(question)
        if states is MISSING:
            states = self._reader.token_states([question], query=True, leave_out=stemming.STOP_WORDS)[0]
            self._questions.put(question, states)
        return states

    def _passage_states(self, texts: list[str]) -> list[np.ndarray]:
        """Passages read now, kept as `pack` codes them: they score as they would from the index, and take its room."""
        keys = [hashlib.sha256(t.encode("utf-8")).digest() for t in texts]
        with self._lock:
            found = {k: self._passages[k] for k in keys if k in self._passages}
            for k in found:
                self._passages.move_to_end(k)
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            text_of = dict(zip(keys, texts))
            computed = self._reader.token_states([text_of[k] for k in missing])
            fresh = {k: pack(s) for k, s in zip(missing, computed)}
            found.update(fresh)
            with self._lock:
                for k, blob in fresh.items():
                    if k not in self._passages:
                        self._passages[k] = blob
                        self._bytes += len(blob)
                while self._bytes > CACHE_BYTES and self._passages:
                    self._bytes -= len(self._passages.popitem(last=False)[1])
        return [unpack(found[k]) for k in keys]
