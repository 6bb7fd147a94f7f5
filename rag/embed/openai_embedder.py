"""Any OpenAI-compatible `/v1/embeddings` endpoint as an embedder: the window it may be sent (configured, asked of
the endpoint's /models, or assumed), texts cut to fit, and the endpoint's failures as EmbedderError sentences.

Apart from rag/embed/embedders.py because it shares nothing with the local model but the `Embedder` seam: it
talks HTTP through the `openai` client and counts tokens with cl100k (rag/tokens.py).
"""

from __future__ import annotations

import logging

import numpy as np

from rag.config import CONNECT_TIMEOUT, Settings
from rag.endpoints import api_key_for
from rag.errors import ConfigError, EmbedderError

log = logging.getLogger(__name__)

# The model's input window, as OpenAI-compatible servers describe it in GET /models (vLLM, llama.cpp's `meta`, …).
WINDOW_KEYS = ("max_model_len", "context_length", "max_context_length", "context_window", "n_ctx_train", "n_ctx")
OPENAI_WINDOW = 8191  # text-embedding-3-*, counted with cl100k like ours
UNKNOWN_WINDOW = 512  # a local server that does not say: the common size of small embedding models
TOKENIZER_MARGIN = 0.9  # we count with cl100k; another model's tokenizer may count a text as more tokens
# Messages the app recognises and says in its own words (rag/web/messages.py): keep them in step.
OPENAI_EMBEDDER_NEEDS_ENDPOINT = "The OpenAI embedder needs OPENAI_BASE_URL (local server) or OPENAI_API_KEY (OpenAI)."
EMBED_MODEL_UNKNOWN = "The endpoint does not know the embedding model {model}. Set RAG_EMBED_MODEL to one it serves."
EMBED_KEY_REFUSED = "The embedding endpoint refused the API key. Check OPENAI_API_KEY."
EMBED_FAILED = "The embedding endpoint failed: {detail}. Check OPENAI_BASE_URL and that the server is running."


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, LM Studio, vLLM, llama.cpp, LiteLLM).

    Never sends more than the model's window: `embed_window` from the config, else what the endpoint's /models says,
    else 8191 for api.openai.com and 512 for other servers (many serve 512-token models and cut longer input
    silently). `window` is that limit in our token count (with a margin for a server's own tokenizer); longer texts
    are cut to it, counted in `truncated` and reported in the log."""

    def __init__(self, settings: Settings) -> None:
        import openai

        from rag.tokens import count_tokens, cut_to_tokens

        if not settings.openai_base_url and not settings.openai_api_key:
            raise ConfigError(OPENAI_EMBEDDER_NEEDS_ENDPOINT)
        self._client = openai.OpenAI(
            base_url=settings.openai_base_url,
            api_key=api_key_for(settings, settings.openai_base_url) or "not-needed",  # only to the key's own endpoint
            timeout=openai.Timeout(settings.request_timeout, connect=min(CONNECT_TIMEOUT, settings.request_timeout)),
            max_retries=settings.max_retries,
        )
        self._openai = openai
        self._count, self._cut = count_tokens, cut_to_tokens
        self._official = not settings.openai_base_url or "://api.openai.com" in settings.openai_base_url
        self._configured_window = settings.embed_window
        self._window: int | None = None
        self.truncated = 0  # texts cut to the window so far
        self.model = settings.embed_model
        self.batch_size = settings.embed_batch_size
        self.name = f"openai/{settings.embed_model}@{settings.openai_base_url or 'api.openai.com'}"
        self.dim = 0  # known after the first call

    @property
    def window(self) -> int:
        """The most tokens (our count) a text sent to this model may have; asked once, on first use."""
        if self._window is None:
            model_window = self._configured_window or self._asked_window() or (OPENAI_WINDOW if self._official else UNKNOWN_WINDOW)
            self._window = model_window if self._official else max(16, int(model_window * TOKENIZER_MARGIN))
        return self._window

    def _asked_window(self) -> int | None:
        """The window the endpoint reports for this model in GET /models, if it reports one."""
        try:
            listed = [m.model_dump() for m in self._client.models.list().data]
        except self._openai.APIError as exc:
            log.info("The embedding endpoint did not list its models (%s); assuming a window.", exc)
            return None
        mine = [m for m in listed if m.get("id") == self.model] or (listed if len(listed) == 1 else [])
        for entry in mine:
            for where in (entry, entry.get("meta") or {}):
                for key in WINDOW_KEYS:
                    value = where.get(key)
                    if isinstance(value, int) and not isinstance(value, bool) and value >= 16:
                        return value
        return None

    def count_tokens(self, text: str) -> int:
        return self._count(text)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        parts = [self._embed(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        return np.vstack(parts) if parts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text])[0]

    def _fitted(self, texts: list[str]) -> list[str]:
        """`texts`, each cut to the window; cuts are counted and reported (a server would cut or refuse silently)."""
        limit, out, cut = self.window, [], 0
        for text in texts:
            if self._count(text) > limit:
                text, cut = self._cut(text, limit), cut + 1
            out.append(text)
        if cut:
            self.truncated += cut
            log.warning(
                "%d text(s) were longer than the embedding model's window (%d tokens) and were cut to fit. "
                "Lower chunk_hard_tokens, or set embed_window to the model's real window.",
                cut,
                limit,
            )
        return out

    def _embed(self, texts: list[str]) -> np.ndarray:
        texts = self._fitted(texts)
        try:
            response = self._client.embeddings.create(model=self.model, input=texts)
        except self._openai.NotFoundError as exc:
            raise EmbedderError(EMBED_MODEL_UNKNOWN.format(model=repr(self.model))) from exc
        except self._openai.AuthenticationError as exc:
            raise EmbedderError(EMBED_KEY_REFUSED) from exc
        except self._openai.APIError as exc:  # connection errors, timeouts, 5xx
            raise EmbedderError(EMBED_FAILED.format(detail=exc)) from exc
        rows = sorted(response.data, key=lambda d: d.index)
        matrix = np.asarray([r.embedding for r in rows], dtype=np.float32)
        self.dim = matrix.shape[1]
        return normalize(matrix)


def normalize(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
