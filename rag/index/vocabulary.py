"""The vault's vocabulary, each word embedded alone once per model: its vectors are kept in the embeddings table
keyed by the word, under the model name `words:<model>` (`records.WORD_MODELS`), so a question's words can be
matched to the nearest words of the vault's other language (rag/search/lexicon.py). Knows nothing about search.

The vocabulary follows the chunks: new words of newly embedded chunks are embedded; the whole vault is re-read on a
large change (or once, for an index made before the vocabulary), and words gone from it lose their vectors then.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable

import numpy as np

from rag.embed.embedders import Embedder
from rag.index.records import WORD_MODELS
from rag.index.storage import IndexStore
from rag.text import stemming
from rag.text.sentences import script

MIN_LETTERS = 3  # shorter words are mostly particles and abbreviations, and their vectors say little alone
# A vault of thousands of notes writes tens of thousands of words; the rarest (typos, one-off names) are left out so
# that embedding the vocabulary stays a small share of indexing. Names are also caught by sound (rag/text/sounds.py).
MAX_WORDS = 30_000
# Reading every chunk for the vocabulary costs ~0.5 s per MB of notes: a live edit of a few chunks adds only their
# new words; a change above this many chunk texts re-reads the vault (and forgets words gone from it).
RECOUNT_ABOVE = 200
RECOUNT = "recount"  # the stamp of a vocabulary some of whose vectors were dropped (`recount`)


def _meta_key(model: str) -> str:
    return f"vocabulary:{model}"


def words_model(model: str) -> str:
    """The model name the vocabulary's vectors of `model` are stored under."""
    return WORD_MODELS + model


def _content(word: str) -> bool:
    return len(word) >= MIN_LETTERS and word.isalpha() and word not in stemming.STOP_WORDS and script(word) is not None


def content_words(text: str) -> list[str]:
    """Distinct words of `text` worth matching across languages, in order: letters only (Latin or Cyrillic), at least
    MIN_LETTERS of them, not stop words; lower-cased, ё folded to е (as the keyword index reads them)."""
    return [word for word in dict.fromkeys(stemming.words(text)) if _content(word)]


def vault_words(texts: Iterable[str]) -> list[str]:
    """The vocabulary of these texts: their content words, those written in most texts first, at most MAX_WORDS."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(stemming.words(text)))  # each distinct word is judged once, below
    ranked = sorted(((n, w) for w, n in counts.items() if _content(w)), key=lambda item: (-item[0], item[1]))
    return [word for _, word in ranked[:MAX_WORDS]]


def embed_words(embedder: Embedder, words: list[str]) -> np.ndarray:
    """Words as vectors, the same way on both sides (vault words and a question's): e5's `query: ` form where the
    embedder offers it (a word alone reads as a query; its nearest other-language word was right more often than
    with `passage: `, measured on XQuAD's cross-language sets)."""
    embed = getattr(embedder, "embed_queries", None) or embedder.embed_passages
    return np.asarray(embed(words), dtype=np.float32)


def pending(store: IndexStore, model: str, *, changed: list[str]) -> list[str] | None:
    """The vault words with no `model` vector yet, or None when the vocabulary is current. `changed`: the keys of the
    chunk texts just embedded. A few (a note edited) only add their new words; many, or a vocabulary never read,
    re-read the whole vault, and the vectors of words no longer in it are dropped then."""
    if store.get_meta(_meta_key(model)) not in (None, RECOUNT):
        if not changed:
            return None
        if len(changed) <= RECOUNT_ABOVE:
            words = vault_words(text for _, text in store.index_texts(changed))
            have = store.known_vector_keys(words_model(model), words)
            return [w for w in words if w not in have]
    words = vault_words(text for _, text, _ in store.chunk_texts())
    wanted = set(words)
    have = set(store.vector_keys(words_model(model)))
    stale = sorted(have - wanted)
    if stale:
        store.drop_vectors(words_model(model), stale)
    return [w for w in words if w not in have]


def embed_vocabulary(store: IndexStore, embedder: Embedder, words: list[str], *, batch_size: int, on_batch: Callable[[int], None]) -> int:
    """Embed `words` (from `pending`) in batches claimed like texts (another process on this index skips them), then
    mark the vocabulary current; the number embedded. `on_batch(n)` after each batch (it may raise to stop).
    Raises EmbedderError like any embedding."""
    model = words_model(embedder.name)
    done = 0
    for i in range(0, len(words), batch_size):
        batch = words[i : i + batch_size]
        with store.embedding_claim(model, batch) as part:
            known = store.known_vector_keys(model, part)
            todo = [w for w in part if w not in known]
            if todo:
                store.put_vectors(model, todo, embed_words(embedder, todo))
        done += len(todo)
        on_batch(len(batch))
    # a new stamp each time: searches reload the words when it changes (rag/search/lexicon.py)
    store.set_meta(_meta_key(embedder.name), json.dumps({"added": len(words), "at": time.time()}))
    return done


def recount(store: IndexStore, model: str) -> None:
    """Some vectors of the vocabulary were dropped (unreadable: rag/index/blobs.py): the next backfill reads the
    vault's words again and embeds those without a vector."""
    store.set_meta(_meta_key(model), RECOUNT)


def stamp(store: IndexStore, model: str) -> str | None:
    """Changes whenever the vocabulary of `model` did; None before it was first embedded."""
    return store.get_meta(_meta_key(model))


def word_vectors(store: IndexStore, model: str) -> tuple[list[str], np.ndarray]:
    """(words, unit vectors) of the vault's vocabulary for `model`; ([], empty) before it was embedded."""
    return store.keyed_vectors(words_model(model))
