"""Words that cross scripts by meaning: each content word of a question, in its own script, is matched to the
nearest word of the vault's vocabulary in the other script (both embedded alone, rag/index/vocabulary.py) —
«шаблон» → template, «зарплата» → salary — so BM25 can rank the passages written in the other language by the
question's words. A small bilingual dictionary the model already holds, induced from the vault's own words.

Only the nearest word counts (the next ones measured no better); words of the question already in the other script
are kept as they are. Knows the store and the embedder, not the ranking.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

import numpy as np

from rag.embed.embedders import Embedder
from rag.errors import EmbedderError
from rag.index import vocabulary
from rag.index.storage import IndexStore
from rag.text import stemming
from rag.text.sentences import script

log = logging.getLogger(__name__)

OTHER_SCRIPT = {"latin": "cyrillic", "cyrillic": "latin"}
CACHED_QUESTIONS = 256  # UIs re-run the same search (Streamlit reruns on every click)


class Lexicon:
    """The vault's vocabulary of one model, split by script and held in memory; reloaded when it changes."""

    def __init__(self, store: IndexStore, embedder: Embedder) -> None:
        self._store = store
        self._embedder = embedder
        self._lock = threading.Lock()
        self._stamp: str | None = None
        self._by_script: dict[str, tuple[list[str], np.ndarray]] = {}
        self._terms: OrderedDict[str, list[str]] = OrderedDict()

    def crossing_terms(self, question: str) -> list[str]:
        """The stems BM25 can match in passages written in the other script than the question: the nearest
        other-script vault word of each of its own-script content words, and its words already in the other script.
        Without the vocabulary (an index not yet embedded) or the embedder, only the latter."""
        mine = script(question)
        if mine is None:
            return []
        vocabulary_words, matrix = self._vocabulary().get(OTHER_SCRIPT[mine], ([], None))
        with self._lock:
            if question in self._terms:
                self._terms.move_to_end(question)
                return self._terms[question]
        words = vocabulary.content_words(question)
        own = [w for w in words if script(w) == mine]
        crossed = [w for w in words if script(w) != mine]
        if own and vocabulary_words:
            try:
                vectors = vocabulary.embed_words(self._embedder, own)
            except EmbedderError as exc:
                log.warning("Question words not matched across languages: %s", exc)
            else:
                crossed = [vocabulary_words[i] for i in np.argmax(vectors @ matrix.T, axis=1)] + crossed
        terms = stemming.query_terms(" ".join(crossed)) if crossed else []
        with self._lock:
            self._terms[question] = terms
            while len(self._terms) > CACHED_QUESTIONS:
                self._terms.popitem(last=False)
        return terms

    def _vocabulary(self) -> dict[str, tuple[list[str], np.ndarray]]:
        stamp = vocabulary.stamp(self._store, self._embedder.name)
        with self._lock:
            if stamp != self._stamp:
                words, matrix = vocabulary.word_vectors(self._store, self._embedder.name)
                scripts = np.array([script(w) for w in words], dtype=object)
                self._by_script = {
                    name: ([w for w, s in zip(words, scripts) if s == name], np.ascontiguousarray(matrix[scripts == name]))
                    for name in OTHER_SCRIPT
                    if words and (scripts == name).any()
                }
                self._terms.clear()
                self._stamp = stamp
            return self._by_script
