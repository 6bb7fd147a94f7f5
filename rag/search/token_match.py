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

Passages' states come from the index: indexing keeps each chunk's from the forward pass that embeds it (`pack`, 4
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

from rag.embed import token_code
from rag.errors import EmbedderError
from rag.index.blobs import is_blob, warn_unusable
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


BITS = 4  # per component of states the fitted code is not for (`pack`)
HEADER = 16  # bytes before the rest: layers, tokens, dim and the format (bits, or CODED + the fitted code's number)
CODED = 256  # a format above this is e5's fitted code (rag/embed/token_code.py) of that number


def pack(states: np.ndarray) -> bytes:
    """Token states [layers, tokens, dim] (rows unit length, dim even) as the index keeps them: a header (layers,
    tokens, dim, format), then e5's two layers in their fitted code (rag/embed/token_code.py: 64 B a word token, 1 bit for each of 256
    components a layer),
    or other states (the aligned model's sentence vectors, another model's) each row's scale (float32) and the rows
    in 4 bits a component (−7…7, the row's largest component at ±7; two to a byte), ~0.4 KB a token of e5's.
    Measured on XQuAD's cross-language sets, hybrid nDCG@10 ru2en / en2ru: int8 rows 0.9618 / 0.9552, 4-bit 0.9619
    / 0.9554 (the same); layer 8 alone 0.9619 / 0.9532, and 128 principal directions fitted on the language
    reference 0.9578 (ru2en); the fitted code in docs/benchmarks.md."""
    states = np.asarray(states, np.float32)
    layers, tokens, dim = states.shape
    if token_code.fits(layers, dim):
        return _header(layers, tokens, dim, CODED + token_code.version()) + token_code.encode(states).tobytes()
    return _header(layers, tokens, dim, BITS) + _four_bits(states)


def _four_bits(states: np.ndarray) -> bytes:
    scales = np.maximum(np.abs(states).max(axis=2), 1e-12) / 7
    levels = (np.clip(np.rint(states / scales[..., None]), -7, 7) + 8).astype(np.uint8)  # 1 … 15
    nibbles = (levels[..., 0::2] << 4) | levels[..., 1::2]
    return scales.astype(np.float32).tobytes() + nibbles.tobytes()


def unpack(blob: bytes) -> np.ndarray:
    """`pack`'s bytes (either format) back as float32 [layers, tokens, dim]. Raises ValueError when they are not
    `pack`'s whole."""
    layers, tokens, dim, form = _shape(blob)
    if form != BITS:
        return token_code.decode(np.frombuffer(blob, np.uint8, offset=HEADER).reshape(layers, tokens, -1))
    scales = np.frombuffer(blob, np.float32, layers * tokens, HEADER).reshape(layers, tokens, 1)
    nibbles = np.frombuffer(blob, np.uint8, layers * tokens * dim // 2, HEADER + 4 * layers * tokens).reshape(layers, tokens, dim // 2)
    levels = np.empty((layers, tokens, dim), np.int8)
    levels[..., 0::2] = nibbles >> 4
    levels[..., 1::2] = nibbles & 15
    return (levels - 8).astype(np.float32) * scales


def recoded(blob: bytes) -> bytes:
    """Readable states as `pack` writes them now: an older index's e5 states in 4 bits are coded again (~6× smaller;
    decoded, then coded, without the model), anything else is returned as it is. Raises ValueError as `unpack`."""
    layers, _, dim, form = _shape(blob)
    return pack(unpack(blob)) if form == BITS and token_code.fits(layers, dim) else blob


def readable(blob: object) -> bool:
    """Whether stored token states are `pack`'s whole (cheap: the header, the length and the scales are read)."""
    try:
        _shape(blob)
    except ValueError:
        return False
    return True


def _header(layers: int, tokens: int, dim: int, form: int) -> bytes:
    return np.array([layers, tokens, dim, form], np.uint32).tobytes()


def _shape(blob: object) -> tuple[int, int, int, int]:
    """(layers, tokens, dim, format) of packed states, checked against their length and finite scales: the index file
    is not trusted (a truncated blob, another version's format, a hand edit). Raises ValueError."""
    if not is_blob(blob) or len(blob) < HEADER:
        raise ValueError("not packed token states")
    layers, tokens, dim, form = (int(n) for n in np.frombuffer(blob, np.uint32, 4))
    if form == BITS:
        if dim % 2 or len(blob) != HEADER + 4 * layers * tokens + layers * tokens * dim // 2:
            raise ValueError(f"{len(blob)} bytes, not the {layers}×{tokens}×{dim} states their header says")
        if not np.isfinite(np.frombuffer(blob, np.float32, layers * tokens, HEADER)).all():
            raise ValueError("scales that are not finite")
    elif form != CODED + token_code.version() or not token_code.fits(layers, dim):
        raise ValueError(f"token states in format {form}, not {BITS} or {CODED + token_code.version()} of {layers}×{dim}")
    elif len(blob) != HEADER + layers * tokens * token_code.parts():
        raise ValueError(f"{len(blob)} bytes, not the {layers}×{tokens} coded states their header says")
    return layers, tokens, dim, form


def stored_states(stored: dict[int, bytes], *, layers: int, dim: int, model: str) -> dict[int, np.ndarray]:
    """The stored states (rowid → `pack`'s bytes) that unpack to `layers` × tokens × `dim`; the others are left out,
    with one warning a process (`rag index` reads their chunks again: `repair.drop_unreadable`)."""
    states: dict[int, np.ndarray] = {}
    for rowid, blob in stored.items():
        try:
            state = unpack(blob)
        except ValueError:
            continue
        if state.shape[0] == layers and state.shape[2] == dim:
            states[rowid] = state
    warn_unusable(model, len(stored) - len(states), "token states")
    return states


def _coded(stored: dict[int, bytes], *, layers: int, dim: int) -> dict[int, np.ndarray]:
    """The stored states that are e5's fitted code of `layers` × `dim` states, as their codes [layers, tokens, parts]."""
    codes = {}
    for rowid, blob in stored.items():
        try:
            shape = _shape(blob)
        except ValueError:
            continue
        if shape[3] == CODED + token_code.version() and shape[0] == layers and shape[2] == dim:
            codes[rowid] = np.frombuffer(blob, np.uint8, offset=HEADER).reshape(layers, shape[1], -1)
    return codes


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
        self._questions: OrderedDict[str, np.ndarray] = OrderedDict()

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
        codes = _coded(stored, layers=asked.shape[0], dim=asked.shape[2])  # matched on their code, not decoded
        rest = {r: blob for r, blob in stored.items() if r not in codes}
        # unreadable ones (truncated, another version's) are left out: those passages keep their fused rank
        states.update(stored_states(rest, layers=asked.shape[0], dim=asked.shape[2], model=getattr(self._reader, "name", "the embedder")))
        codes = {r: c for r, c in codes.items() if r not in states}
        return token_windows.best_windows(asked, states, codes, width=WINDOW, stride=STRIDE)

    @property
    def reads_with_vector(self) -> bool:
        """Whether the embedder gives a question's vector and its token states from one forward pass (not where the
        question's vector is float32 beside passages' int8 states: there the states would be a second pass, which a
        same-language search must not pay)."""
        return self.available and getattr(self._reader, "question_states_in_one_pass", False)

    def question_vector(self, question: str) -> np.ndarray:
        """The question's vector (as the embedder's `embed_query`), read in the same forward pass as its token
        states, which are kept for `scores`: a cross-language search reads its question through the model once, not
        twice (XQuAD ru→en on two cores: the second pass was ~20-45 ms of a 88 ms search)."""
        vector, states = self._reader.embed_query_with_states(question, leave_out=stemming.STOP_WORDS)
        self._keep(question, states)
        return vector

    def _question(self, question: str) -> np.ndarray:
        with self._lock:
            if question in self._questions:
                self._questions.move_to_end(question)
                return self._questions[question]
        states = self._reader.token_states([question], query=True, leave_out=stemming.STOP_WORDS)[0]
        self._keep(question, states)
        return states

    def _keep(self, question: str, states: np.ndarray) -> None:
        with self._lock:
            self._questions[question] = states
            while len(self._questions) > CACHED_QUESTIONS:
                self._questions.popitem(last=False)

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
