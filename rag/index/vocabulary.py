"""The vault's vocabulary, one row per stem: the stem's form written in most texts, embedded alone once per model and
kept in the embeddings table under the model name `words:<form>:<model>` (`words_model`; `records.WORD_MODELS`), in
the width of rag/index/word_projection.py (the model's own where no projection is shipped), so a question's words can
be matched to the nearest words of the vault's other language (rag/search/lexicon.py). Knows nothing about search.

A row per stem instead of per word: XQuAD-en's 6,270 rows → 4,649 (9.6 → 7.1 MB of float32), XQuAD-ru's 10,269 →
5,877, FastAPI-en's 3,027 → 1,987; hybrid nDCG@10 in docs/benchmarks.md. A vocabulary of the earlier form (a row per
word under `words:<model>`) is still read until the next sync converts it, without embedding: each stem takes the
vector of its form written in most texts.

The vocabulary follows the chunks: new stems of newly embedded chunks are embedded; the whole vault is re-read on a
large change (or once, for an index made before the vocabulary or in another form), and stems gone from it lose their
vectors then.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from rag.embed.embedders import Embedder
from rag.index import word_projection
from rag.index.records import WORD_MODELS
from rag.index.storage import IndexStore
from rag.text import stemming
from rag.text.sentences import script

MIN_LETTERS = 3  # shorter words are mostly particles and abbreviations, and their vectors say little alone
# A vault of thousands of notes writes tens of thousands of stems; the rarest (typos, one-off names) are left out so
# that embedding the vocabulary stays a small share of indexing. Names are also caught by sound (rag/text/sounds.py).
MAX_WORDS = 30_000
# Reading every chunk for the vocabulary costs ~0.5 s per MB of notes: a live edit of a few chunks adds only their
# new stems; a change above this many chunk texts re-reads the vault (and forgets stems gone from it).
RECOUNT_ABOVE = 200
RECOUNT = "recount"  # the stamp of a vocabulary some of whose vectors were dropped (`recount`) before stamps had forms


def _meta_key(model: str) -> str:
    return f"vocabulary:{model}"


def words_model(embedder: Embedder) -> str:
    """The model name the vocabulary's vectors of `embedder` are stored under: its form (a row per stem, the width
    kept and the projection's fingerprint) is in the name, so rows of another form are never read as these."""
    return f"{WORD_MODELS}{word_projection.form(embedder.name, embedder.dim)}:{embedder.name}"


def width(embedder: Embedder) -> int:
    """The number of values each vocabulary vector of `embedder` has."""
    return word_projection.width(embedder.name, embedder.dim)


def _legacy_model(model: str) -> str:
    """Where a vocabulary of a row per word at full width was kept (before stems)."""
    return WORD_MODELS + model


def _content(word: str) -> bool:
    return len(word) >= MIN_LETTERS and word.isalpha() and word not in stemming.STOP_WORDS and script(word) is not None


def content_words(text: str) -> list[str]:
    """Distinct words of `text` worth matching across languages, in order: letters only (Latin or Cyrillic), at least
    MIN_LETTERS of them, not stop words; lower-cased, ё folded to е (as the keyword index reads them)."""
    return [word for word in dict.fromkeys(stemming.words(text)) if _content(word)]


def vault_forms(texts: Iterable[str]) -> dict[str, list[str]]:
    """The vocabulary of these texts: stem → its content words, those written in most texts first; the stems whose
    words are written in most texts (summed) first, at most MAX_WORDS."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(stemming.words(text)))  # each distinct word is judged once, below
    forms: dict[str, list[str]] = {}
    for _, word in sorted(((n, w) for w, n in counts.items() if _content(w)), key=lambda item: (-item[0], item[1])):
        forms.setdefault(stemming.stem(word), []).append(word)
    ranked = sorted(forms.items(), key=lambda item: -sum(counts[w] for w in item[1]))  # stable: ties keep word order
    return dict(ranked[:MAX_WORDS])


def full_vectors(embedder: Embedder, words: list[str]) -> np.ndarray:
    """Words as the model embeds them: e5's `query: ` form where the embedder offers it (a word alone reads as a
    query; its nearest other-language word was right more often than with `passage: `, measured on XQuAD's
    cross-language sets)."""
    embed = getattr(embedder, "embed_queries", None) or embedder.embed_passages
    return np.asarray(embed(words), dtype=np.float32)


def embed_words(embedder: Embedder, words: list[str]) -> np.ndarray:
    """Words as vectors the way the vocabulary keeps them, the same on both sides (vault words and a question's)."""
    return word_projection.project(embedder.name, full_vectors(embedder, words))


def _stamp(store: IndexStore, model: str) -> dict:
    """The vocabulary's stamp: {"form": its words model, "recount": whether it must be re-read, …}; {} before it
    was first embedded. A stamp written before forms (a row per word) has none: `_legacy_model` is its form."""
    raw = store.get_meta(_meta_key(model))
    if raw is None:
        return {}
    if raw == RECOUNT:
        return {"recount": True}
    try:
        stamp = json.loads(raw)
    except ValueError:
        return {"recount": True}
    return stamp if isinstance(stamp, dict) else {"recount": True}


def pending(store: IndexStore, embedder: Embedder, *, changed: list[str]) -> list[str] | None:
    """The vault words to embed (a form of each stem with no vector yet), or None when the vocabulary is current.
    `changed`: the keys of the chunk texts just embedded. A few (a note edited) only add their new stems; many, or a
    vocabulary never read or of another form, re-read the whole vault: stems no longer in it lose their vectors, and
    a vocabulary of the earlier form is converted (`_convert`)."""
    model = words_model(embedder)
    stamp = _stamp(store, embedder.name)
    if stamp.get("form") == model and not stamp.get("recount"):
        if not changed:
            return None
        if len(changed) <= RECOUNT_ABOVE:
            forms = vault_forms(text for _, text in store.index_texts(changed))
            have = store.known_vector_keys(model, list(forms))
            return [words[0] for stem, words in forms.items() if stem not in have]
    forms = vault_forms(text for _, text, _ in store.chunk_texts())
    previous = stamp.get("form") or _legacy_model(embedder.name)
    if previous != model:
        _convert(store, embedder, forms, previous)
    have = set(store.vector_keys(model))
    stale = sorted(have - forms.keys())
    if stale:
        store.drop_vectors(model, stale)
    return [words[0] for stem, words in forms.items() if stem not in have]


def _convert(store: IndexStore, embedder: Embedder, forms: dict[str, list[str]], previous: str) -> None:
    """The vocabulary of the `previous` form becomes this one without embedding where its rows are full vectors of
    words: each stem takes the vector of its form written in most texts that has one, projected. Then the previous
    rows are dropped, and the stamp says this form, to be re-read (the stems without a vector are embedded next)."""
    model = words_model(embedder)
    previous_keys = store.vector_keys(previous)
    if not previous_keys:
        return
    words, matrix = store.keyed_vectors(previous)
    if words and matrix.shape[1] == embedder.dim:
        row = {w: i for i, w in enumerate(words)}
        have = store.known_vector_keys(model, list(forms))
        found = {stem: next((row[w] for w in ws if w in row), None) for stem, ws in forms.items() if stem not in have}
        stems = [stem for stem, i in found.items() if i is not None]
        for i in range(0, len(stems), 1000):
            part = stems[i : i + 1000]
            store.put_vectors(model, part, word_projection.project(embedder.name, matrix[[found[s] for s in part]]))
    store.drop_vectors(previous, previous_keys)
    store.set_meta(_meta_key(embedder.name), json.dumps({"form": model, "recount": True, "at": time.time()}))


def embed_words_claimed(store: IndexStore, embedder: Embedder, words: list[str]) -> int:
    """Embed a batch of `words` (from `pending`) under their stems, claimed like texts (another process on this index
    skips them); the number embedded. Raises EmbedderError like any embedding."""
    model = words_model(embedder)
    form_of = {stemming.stem(w): w for w in words}
    with store.embedding_claim(model, list(form_of)) as part:
        known = store.known_vector_keys(model, part)
        todo = [s for s in part if s not in known]
        if todo:
            store.put_vectors(model, todo, embed_words(embedder, [form_of[s] for s in todo]))
    return len(todo)


def mark_current(store: IndexStore, embedder: Embedder, *, added: int) -> None:
    """The vocabulary holds every pending word: a new stamp each time, so searches reload the words
    (rag/search/lexicon.py)."""
    store.set_meta(_meta_key(embedder.name), json.dumps({"form": words_model(embedder), "added": added, "at": time.time()}))


def recount(store: IndexStore, embedder: Embedder) -> None:
    """Some vectors of the vocabulary were dropped (unreadable: rag/index/blobs.py): the next backfill reads the
    vault's words again and embeds those without a vector."""
    stamp = _stamp(store, embedder.name)
    store.set_meta(_meta_key(embedder.name), json.dumps({**stamp, "recount": True, "at": time.time()}))


def stamp(store: IndexStore, model: str) -> str | None:
    """Changes whenever the vocabulary of `model` did; None before it was first embedded."""
    return store.get_meta(_meta_key(model))


@dataclass(frozen=True)
class Stored:
    """The vault's vocabulary as stored: its keys (stems; words in a vocabulary of the earlier form, until the next
    sync converts it) and their unit vectors."""

    keys: list[str]
    matrix: np.ndarray
    stemmed: bool

    def key(self, word: str) -> str:
        """The key a content word is found under."""
        return stemming.stem(word) if self.stemmed else word

    def stem(self, key: str) -> str:
        return key if self.stemmed else stemming.stem(key)

    def embed(self, embedder: Embedder, words: list[str]) -> np.ndarray:
        """A question's words as vectors comparable with these."""
        return embed_words(embedder, words) if self.stemmed else full_vectors(embedder, words)


def stored(store: IndexStore, embedder: Embedder) -> Stored:
    """The vocabulary of `embedder` (empty before it was embedded, or while one of a form not readable here waits for
    the next sync)."""
    form = _stamp(store, embedder.name).get("form")
    if form == words_model(embedder):
        return Stored(*store.keyed_vectors(form), stemmed=True)
    if form is None:
        return Stored(*store.keyed_vectors(_legacy_model(embedder.name)), stemmed=False)
    return Stored([], np.zeros((0, 0), np.float32), stemmed=True)


def word_vectors(store: IndexStore, embedder: Embedder) -> tuple[list[str], np.ndarray]:
    """(stems, unit vectors) of the vault's vocabulary for `embedder`; ([], empty) before it was embedded."""
    return store.keyed_vectors(words_model(embedder))
