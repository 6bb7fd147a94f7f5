"""The deterministic fake embedder, the only fake of the test suite (at the model seam; everything else in tests is
real: SQLite, files, HTTP), also the stand-in of bench/postgres_concurrency.py. For tests and benchmarks only: the
product never imports it."""

from __future__ import annotations

import hashlib

import numpy as np

from rag.errors import EmbedderError
from rag.text import stemming


class FakeEmbedder:
    """Hashed bag of stems: texts sharing words are similar. Counts every call so tests can assert re-use."""

    name = "fake-embedder-v1"
    dim = 64
    window = 512

    def __init__(self) -> None:
        self.embedded: list[str] = []
        self.fail = False

    def count_tokens(self, text: str) -> int:
        return len(stemming.words(text)) + 5

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, np.float32)
        for w in stemming.words(text):
            v[int(hashlib.md5(stemming.stem(w).encode()).hexdigest(), 16) % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed_passages(self, texts):
        if self.fail:
            raise EmbedderError("fake embedder is down")
        self.embedded.extend(texts)
        return np.vstack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text):
        if self.fail:
            raise EmbedderError("fake embedder is down")
        return self._vector(text)
