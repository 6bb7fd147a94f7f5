"""Words matched by meaning: a passage written in the other language than the question is scored by how closely its
words match the question's, word by word, through the vault's vocabulary embedded word by word
(rag/index/vocabulary.py: a vector per stem) — «шаблон» finds "template", «очков» finds "points" — which the stems of
either language cannot match and the passage's one vector blurs (the right article, the wrong paragraph of it).

Each content word of the question takes its best match among the passage's vocabulary words, as a z-score against
that word's similarities to the vocabulary of the matched word's script (e5's cosines crowd near 0.8, and run
higher within a language; the z-score says how exceptional the match is), and the passage's score is the mean of
those, weighted by the IDF of each word's nearest vault word (so «Сколько» counts less than «перехватов»). A
passage's words of either script count: a Russian page's English terms match an English question's. This soft
match measured better on XQuAD's cross-language sets than carrying each word to its single nearest vault word and
ranking by BM25 (ru2en 0.808 against 0.731 alone, docs/benchmarks.md). Knows the store and the embedder, not the
fusion; the retriever asks it only for passages in the other script (same-script matches would outscore them).
"""

from __future__ import annotations

import logging
import math
import threading
from dataclasses import dataclass

import numpy as np

from rag.embed.embedders import Embedder
from rag.errors import EmbedderError
from rag.index import vocabulary
from rag.index.storage import IndexStore
from rag.recent import MISSING, Recent
from rag.text.sentences import script

log = logging.getLogger(__name__)

CACHED_QUESTIONS = 256  # UIs re-run the same search (Streamlit reruns on every click)
# Passages' vocabulary rows, kept between searches: finding a passage's content words is most of a cross-language
# search's lexicon time (XQuAD ru→en, ~100 candidates: 60 of 170 ms), and the best candidates recur.
CACHED_PASSAGES = 4096
# Question words' vectors, kept between questions: embedding a question's words alone is most of a cross-language
# search's time (~7 ms of CPU a word and ~10 ms a call, e5 on 2 cores), and 31 % (XQuAD ru→en) to 45 % (en→ru) of a
# question's content words were in an earlier question of the set. A word's vector is the same whatever the vault.
CACHED_WORDS = 4096


@dataclass(frozen=True)
class _Vocabulary:
    """The vault's words (stems) with their vectors, each one's row, and which rows are of each script."""

    stored: vocabulary.Stored
    row: dict[str, int]
    sides: list[np.ndarray]  # the rows of each script


@dataclass(frozen=True)
class _Question:
    """A question's content words measured against the vocabulary."""

    similarity: np.ndarray  # words × vocabulary: z-scores of each question word against each word, per script
    weights: np.ndarray  # the IDF of each question word's nearest vocabulary word, summing to 1


class Lexicon:
    """The vault's vocabulary of one model, held in memory; reloaded when it changes."""

    def __init__(self, store: IndexStore, embedder: Embedder) -> None:
        self._store = store
        self._embedder = embedder
        self._lock = threading.Lock()
        self._stamp: str | None = None
        self._words: _Vocabulary | None = None
        self._questions: Recent[str, _Question | None] = Recent(CACHED_QUESTIONS)
        self._passages: Recent[tuple[int, int, int], list[int]] = Recent(CACHED_PASSAGES)
        self._word_vectors: Recent[str, np.ndarray] = Recent(CACHED_WORDS)

    def match_scores(self, question: str, passages: dict[int, str]) -> list[tuple[int, float]]:
        """(rowid, score) best first for the `passages` (rowid → text) with at least one vocabulary word. Nothing
        without the vocabulary (an index not yet embedded), the embedder, or words in the question."""
        known = self._vocabulary()
        measured = self._question(question, known) if known is not None else None
        if measured is None:
            return []
        scored = []
        for rowid, text in passages.items():
            rows = self._rows(rowid, text, known)
            if rows:
                best = measured.similarity[:, rows].max(axis=1)
                scored.append((rowid, float(best @ measured.weights)))
        return sorted(scored, key=lambda item: -item[1])

    def _rows(self, rowid: int, text: str, known: _Vocabulary) -> list[int]:
        """The vocabulary rows of a passage's content words (sorted), cached by passage and text."""
        key = (rowid, len(text), hash(text))
        rows = self._passages.get(key)
        if rows is MISSING:
            keys = (known.stored.key(w) for w in vocabulary.content_words(text))
            rows = sorted({known.row[k] for k in keys if k in known.row})
            self._passages.put(key, rows)
        return rows

    def _question(self, question: str, known: _Vocabulary) -> _Question | None:
        measured = self._questions.get(question)
        if measured is not MISSING:
            return measured
        measured = None
        words = vocabulary.content_words(question)
        if words:
            try:
                vectors = self._embed(words)
            except EmbedderError as exc:
                log.warning("Question words not matched by meaning: %s", exc)
                return None  # not cached: the embedder may be back for the next search
            if vectors.shape[1] == known.stored.matrix.shape[1]:  # a stored vocabulary of another width cannot be compared
                cosines = vectors @ known.stored.matrix.T
                # Each script's words are their own population: a word's cosines to its own language run higher.
                similarity = np.empty_like(cosines)
                for rows in known.sides:
                    part = cosines[:, rows]
                    similarity[:, rows] = (part - part.mean(axis=1, keepdims=True)) / np.maximum(part.std(axis=1, keepdims=True), 1e-6)
                nearest = [known.stored.stem(known.stored.keys[i]) for i in np.argmax(similarity, axis=1)]
                total, frequencies = self._store.document_frequencies(sorted(set(nearest)))
                idf = np.array([max(math.log((total + 1) / (frequencies.get(s, 0) + 0.5)), 0.0) for s in nearest], dtype=np.float32)
                measured = _Question(similarity.astype(np.float32), idf / max(float(idf.sum()), 1e-6))
        self._questions.put(question, measured)
        return measured

    def _embed(self, words: list[str]) -> np.ndarray:
        """The words' vectors (vocabulary.full_vectors), those of words asked before from the cache."""
        found = {w: v for w in words if (v := self._word_vectors.get(w)) is not MISSING}
        missing = [w for w in words if w not in found]
        if missing:
            found.update(zip(missing, vocabulary.full_vectors(self._embedder, missing)))
            for word in missing:
                self._word_vectors.put(word, found[word])
        return np.vstack([found[w] for w in words])

    def _vocabulary(self) -> _Vocabulary | None:
        stamp = vocabulary.stamp(self._store, self._embedder.name)
        with self._lock:
            if stamp != self._stamp:
                stored = vocabulary.stored(self._store, self._embedder)
                scripts = np.array([script(w) for w in stored.keys], dtype=object)
                sides = [np.flatnonzero(scripts == name) for name in ("latin", "cyrillic")]
                row = {w: i for i, w in enumerate(stored.keys)}
                self._words = _Vocabulary(stored, row, [s for s in sides if len(s)]) if stored.keys else None
                self._questions.clear()
                self._passages.clear()  # rows of another vocabulary
                self._stamp = stamp
            return self._words
