"""The vault's vocabulary, one row per stem: the stem's form written in most texts, embedded alone once per model and
kept in the embeddings table under the model name `words:<form>:<model>` (`words_model`; `records.WORD_MODELS`), in
SQLite as 4-bit codes of its difference from the mean word (rag/index/word_code.py: XQuAD-en's 4,649 rows 1.80 →
0.91 MB), in PostgreSQL as float32 rows (form `s`), so a question's words can be matched to the nearest words of the
vault's other language (rag/search/lexicon.py). Knows nothing about search.

A row per stem instead of per word: XQuAD-en's 6,270 rows → 4,649 (9.6 → 7.1 MB of float32), XQuAD-ru's 10,269 →
5,877, FastAPI-en's 3,027 → 1,987; hybrid nDCG@10 in docs/benchmarks.md. A vocabulary of the earlier form (a row per
word under `words:<model>`), or of int8 codes of whole vectors (`words:s:<model>`, before the 4-bit codes), is still
read until the next sync converts it, without embedding: each stem takes the vector of its form written in most texts.

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
from rag.index import blobs, word_code
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


def coded(store: IndexStore) -> bool:
    """Whether `store` keeps the vocabulary as word codes (SQLite); PostgreSQL keeps pgvector's float32 rows."""
    return hasattr(store, "put_vector_codes")


def words_model(embedder: Embedder, *, codes: bool = True) -> str:
    """The model name the vocabulary's vectors of `embedder` are stored under: its form (a row per stem; coded as
    rag/index/word_code.py says, around which mean word, or `s`: whole vectors) is in the name, so rows of another
    form are never read as these."""
    form = word_code.form(embedder.name, embedder.dim) if codes else "s"
    return f"{WORD_MODELS}{form}:{embedder.name}"


def _model_of(store: IndexStore, embedder: Embedder) -> str:
    return words_model(embedder, codes=coded(store))


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


def _put(store: IndexStore, embedder: Embedder, keys: list[str], matrix: np.ndarray) -> None:
    model = _model_of(store, embedder)
    if coded(store):
        store.put_vector_codes(model, keys, word_code.encode(matrix, word_code.center(embedder.name, embedder.dim)), embedder.dim)
    else:
        store.put_vectors(model, keys, matrix)


def _read(store: IndexStore, embedder: Embedder, model: str) -> tuple[list[str], np.ndarray]:
    """(keys, unit vectors) of the usable rows stored under `model`, a form of this store (the current one) or an
    earlier one of whole vectors."""
    if model != words_model(embedder) or not coded(store):
        return store.keyed_vectors(model)
    keys, matrix, kept = _decoded(store, embedder, model)
    blobs.warn_unusable(model, int(len(keys) - kept.sum()))
    return [k for k, ok in zip(keys, kept) if ok], matrix


def _decoded(store: IndexStore, embedder: Embedder, model: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(every key of the coded `model` rows, unit rows of the usable ones, which those are)."""
    rows = store.keyed_codes(model)
    matrix, kept = word_code.decode([r[1] for r in rows], word_code.center(embedder.name, embedder.dim))
    return [r[0] for r in rows], matrix, kept


def drop_unusable(store: IndexStore, embedder: Embedder) -> int:
    """Delete the vocabulary rows search cannot read (rag/index/repair.py), and mark it to be re-read so their stems
    are embedded again; how many."""
    model = _model_of(store, embedder)
    if not coded(store):
        dropped = store.drop_unusable_vectors(model, embedder.dim)
    else:
        keys, _, kept = _decoded(store, embedder, model)
        dropped = len(bad := [k for k, ok in zip(keys, kept) if not ok])
        if bad:  # a write with nothing to drop would still make searches reload (the generation)
            store.drop_vectors(model, bad)
    if dropped:
        recount(store, embedder)
    return dropped


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
    model = _model_of(store, embedder)
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
    words or stems: each stem takes its vector, or that of its form written in most texts that has one. Then the previous
    rows are dropped, and the stamp says this form, to be re-read (the stems without a vector are embedded next)."""
    model = _model_of(store, embedder)
    previous_keys = store.vector_keys(previous)
    if not previous_keys:
        return
    # rows of whole vectors (not codes around another mean word, which are embedded again)
    words, matrix = store.keyed_vectors(previous) if not previous.startswith(f"{WORD_MODELS}q") else ([], None)
    if words and matrix.shape[1] == embedder.dim:
        row = {w: i for i, w in enumerate(words)}
        have = store.known_vector_keys(model, list(forms))
        # a row per word (the earliest form) is found by the stem's forms, a row per stem (int8 codes) by the stem
        stemmed = previous != _legacy_model(embedder.name)
        found = {stem: next((row[w] for w in ([stem] if stemmed else ws) if w in row), None) for stem, ws in forms.items() if stem not in have}
        stems = [stem for stem, i in found.items() if i is not None]
        for i in range(0, len(stems), 1000):
            part = stems[i : i + 1000]
            _put(store, embedder, part, matrix[[found[s] for s in part]])
    store.drop_vectors(previous, previous_keys)
    store.set_meta(_meta_key(embedder.name), json.dumps({"form": model, "recount": True, "at": time.time()}))


def embed_words_claimed(store: IndexStore, embedder: Embedder, words: list[str]) -> int:
    """Embed a batch of `words` (from `pending`) under their stems, claimed like texts (another process on this index
    skips them); the number embedded. Raises EmbedderError like any embedding."""
    model = _model_of(store, embedder)
    form_of = {stemming.stem(w): w for w in words}
    with store.embedding_claim(model, list(form_of)) as part:
        known = store.known_vector_keys(model, part)
        todo = [s for s in part if s not in known]
        if todo:
            _put(store, embedder, todo, full_vectors(embedder, [form_of[s] for s in todo]))
    return len(todo)


def mark_current(store: IndexStore, embedder: Embedder, *, added: int) -> None:
    """The vocabulary holds every pending word: a new stamp each time, so searches reload the words
    (rag/search/lexicon.py)."""
    store.set_meta(_meta_key(embedder.name), json.dumps({"form": _model_of(store, embedder), "added": added, "at": time.time()}))


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
    """The vault's vocabulary as stored: its keys (stems; words in a vocabulary of the earliest form, until the next
    sync converts it) and their unit vectors."""

    keys: list[str]
    matrix: np.ndarray
    stemmed: bool

    def key(self, word: str) -> str:
        """The key a content word is found under."""
        return stemming.stem(word) if self.stemmed else word

    def stem(self, key: str) -> str:
        return key if self.stemmed else stemming.stem(key)


def stored(store: IndexStore, embedder: Embedder) -> Stored:
    """The vocabulary of `embedder` (empty before it was embedded, or while one of a form not readable here waits for
    the next sync)."""
    form = _stamp(store, embedder.name).get("form")
    if form in (_model_of(store, embedder), words_model(embedder, codes=False)):  # the current form, or int8 codes
        return Stored(*_read(store, embedder, form), stemmed=True)
    if form is None:
        return Stored(*store.keyed_vectors(_legacy_model(embedder.name)), stemmed=False)
    return Stored([], np.zeros((0, 0), np.float32), stemmed=True)


def word_vectors(store: IndexStore, embedder: Embedder) -> tuple[list[str], np.ndarray]:
    """(stems, unit vectors) of the vault's vocabulary for `embedder`; ([], empty) before it was embedded."""
    return _read(store, embedder, _model_of(store, embedder))
