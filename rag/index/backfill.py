"""What the index computes for each chunk text after its words land, and the one loop that computes it.

Each kind is one small object behind one seam (`Work`): what is pending, what a batch of it costs (in characters, so
one progress bar holds an ETA across kinds), and doing a batch: compute and store, under the index's embedding claim
so the app, the MCP server and the CLI sharing an index share the work instead of repeating it. `backfill` runs the
kinds in `_work`'s order: the chunks' and sentences' vectors first (they make notes findable by meaning; the chunks'
token states come from the same forward pass), then the token states of chunks embedded before they were kept, the
aligned model's sentence readings, once per model the language reference, and the vault's vocabulary.
Knows the embedders and the store; not search.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator
from typing import NamedTuple, Protocol

import numpy as np

from rag.embed import aligned
from rag.embed.embedders import Embedder
from rag.errors import EmbedderError
from rag.index import language_reference, token_blobs, vocabulary
from rag.index.records import PerChunk
from rag.index.storage import IndexStore

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]  # progress("embed", done, total)

# Progress counts characters (plus a little per text): measured with the local model on XQuAD sentences and
# paragraphs, a text's time is proportional to its length (0.24 ms a character on 2 cores), no fixed part to speak of.
TEXT_COST_CHARS = 10
REFERENCE_COST_CHARS = 60  # a language-reference sentence
WORD_COST_CHARS = 20  # a vocabulary word (rag/index/vocabulary.py), embedded alone: ~150 words/s on 2 cores
# A chunk's sentences read by the aligned model (rag/embed/aligned.py) cost this share of embedding the chunk:
# ~1,000 sentences/s on 2 cores, against ~10 chunks/s for e5 with its sentences.
ALIGNED_COST_SHARE = 0.1
WORD_BATCH_FACTOR = 4  # words are short: batches this many times larger than texts' waste nothing on padding
REFERENCE_CLAIM = "language reference"  # claimed like a text: one indexer embeds the reference, another skips it
EMBEDDING_STOPPED = "{error} Keyword search works; run `python -m rag index` again to add the missing vectors."
FINISH_LATER = "{error} Run `python -m rag index` again to finish."


class Backfilled(NamedTuple):
    chunks: int  # chunk texts embedded
    sentences: int  # sentence texts embedded
    error: str | None
    reference: int = 0  # language reference texts embedded (once per model, see rag/search/languages.py)
    words: int = 0  # vocabulary words embedded (rag/index/vocabulary.py)
    token_states: int = 0  # chunk texts whose token states were kept (rag/index/token_blobs.py)
    aligned: int = 0  # chunk texts whose sentences the aligned model read (rag/embed/aligned.py)


class Work(Protocol):
    """One kind of data computed per chunk text (or once per model)."""

    def pending(self) -> list[str]: ...  # what is still to compute, in the order to compute it
    def cost(self, items: list[str]) -> int: ...  # in characters (`progress` units)
    def batches(self, items: list[str]) -> Iterator[list[str]]: ...
    def run(self, batch: list[str]) -> dict[str, int]: ...  # compute and store; counts by `Backfilled` field. Raises EmbedderError
    def finish(self) -> None: ...  # after its last batch


def backfill(store: IndexStore, embedder: Embedder, *, batch_size: int, progress: Progress | None = None, token_states: bool = True) -> Backfilled:
    """Compute every kind's pending data, kind after kind in bounded batches (`_work`). With `token_states` (the
    `token_match` setting) and an engine that gives them, chunks keep their token states and the aligned model reads
    their sentences. `progress("embed", done, total)` runs before each batch and at the end, in units of work
    (characters plus a per-text cost), not texts, so an ETA holds across kinds; it may raise to stop early."""
    progress = progress or (lambda stage, done, total: None)
    work = _work(store, embedder, batch_size=batch_size, token_states=token_states)
    plans = [(w, w.pending()) for w in work]
    total = sum(w.cost(items) for w, items in plans)
    counts = dict.fromkeys(Backfilled._fields[3:] + ("chunks", "sentences"), 0)
    worked = 0
    progress("embed", 0, total)
    for w, items in plans:
        try:
            for batch in w.batches(items):
                for name, n in w.run(batch).items():
                    counts[name] += n
                worked += w.cost(batch)
                progress("embed", worked, total)
            w.finish()
        except EmbedderError as exc:
            log.warning("Embedding stopped: %s", exc)
            why = (EMBEDDING_STOPPED if isinstance(w, Vectors) else FINISH_LATER).format(error=exc)
            return Backfilled(counts["chunks"], counts["sentences"], why)
    progress("embed", total, total)
    return Backfilled(error=None, **counts)


def _work(store: IndexStore, embedder: Embedder, *, batch_size: int, token_states: bool) -> list[Work]:
    """The kinds, in the order they run."""
    keeps_states = token_states and getattr(embedder, "reads_tokens", False)
    vectors = Vectors(store, embedder, batch_size=batch_size, keep_states=keeps_states)
    work: list[Work] = [vectors]
    if keeps_states:
        work.append(TokenStates(store, embedder, batch_size=batch_size))
    if token_states:
        work.append(SentenceReadings(store, embedder, batch_size=batch_size, new=vectors.chunk_keys))
    return work + [
        LanguageReference(store, embedder),
        Vocabulary(store, embedder, batch_size=batch_size * WORD_BATCH_FACTOR, changed=vectors.chunk_keys),
    ]


def split(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class _Texts:
    """A kind computed from texts the index holds: costs their characters (`sizes`, filled by `pending`)."""

    share = 1.0

    def __init__(self, store: IndexStore, embedder: Embedder, *, batch_size: int) -> None:
        self.store, self.embedder, self.batch_size = store, embedder, batch_size
        self.sizes: dict[str, int] = {}

    def cost(self, items: list[str]) -> int:
        return int(self.share * sum(self.sizes.get(k, 0) + TEXT_COST_CHARS for k in items))

    def batches(self, items: list[str]) -> Iterator[list[str]]:
        return split(items, self.batch_size)

    def finish(self) -> None:
        pass


class Vectors(_Texts):
    """Chunk texts, then sentence texts, without a vector of the embedder; a chunk's token states are kept from the
    forward pass that embeds it (`keep_states`). When its last batch is done the embedder serves (meta
    `embed_model`, see `Workspace.retriever`)."""

    def __init__(self, store: IndexStore, embedder: Embedder, *, batch_size: int, keep_states: bool) -> None:
        super().__init__(store, embedder, batch_size=batch_size)
        self.keep_states = keep_states
        self.chunk_keys = store.missing_vector_keys(embedder.name)
        self._chunks = set(self.chunk_keys)
        self._turned = False
        self._queue: deque[list[str]] = deque()

    def pending(self) -> list[str]:
        sentence_keys = self.store.missing_sentence_keys(self.embedder.name)
        self.sizes = self.store.text_sizes(self.chunk_keys + sentence_keys)
        # Sentences shortest first: a batch of similar lengths wastes little on padding (+22 % sentences/s with the
        # onnx engine, measured on XQuAD). Chunks stay in note order, so notes become findable one after another.
        return self.chunk_keys + sorted(sentence_keys, key=lambda k: self.sizes.get(k, 0))

    def batches(self, items: list[str]) -> Iterator[list[str]]:
        self._queue = deque(split(items, self.batch_size))
        while self._queue:
            yield self._queue.popleft()

    def run(self, batch: list[str]) -> dict[str, int]:
        # What another process claimed or embedded meanwhile is skipped, so no text is embedded twice.
        with self.store.embedding_claim(self.embedder.name, batch) as part:
            known = self.store.known_vector_keys(self.embedder.name, part)
            todo = [k for k in part if k not in known]
            if part and not todo and not self._turned:
                # Another process embedded this batch while this one waited for it: it works forwards, so this one
                # takes the rest from the end, or it would queue behind it for each next batch and do none.
                self._queue.reverse()
                self._turned = True
            texts = self.store.index_texts(todo) if todo else []
            if texts:
                self.store.put_vectors(self.embedder.name, [key for key, _ in texts], self._embed(texts))
        chunks = sum(1 for key, _ in texts if key in self._chunks)
        return {"chunks": chunks, "sentences": len(texts) - chunks, "token_states": chunks if self.keep_states else 0}

    def finish(self) -> None:
        if self.chunk_keys and self.store.count_missing_vectors(self.embedder.name) == 0:
            self.store.set_meta("embed_model", self.embedder.name)  # complete: this model now serves

    def _embed(self, texts: list[tuple[str, str]]) -> np.ndarray:
        """The texts' vectors; the chunks' token states are stored from the same forward pass."""
        chunks = [(k, t) for k, t in texts if k in self._chunks] if self.keep_states else []
        if not chunks:
            return self.embedder.embed_passages([text for _, text in texts])
        vectors, states = self.embedder.embed_passages_with_states([text for _, text in chunks])
        self.store.put_chunk_data(PerChunk.TOKEN_STATES, self.embedder.name, {k: token_blobs.pack(s) for (k, _), s in zip(chunks, states)})
        by_key = dict(zip([k for k, _ in chunks], vectors))
        rest = [(k, t) for k, t in texts if k not in by_key]
        if rest:
            by_key.update(zip([k for k, _ in rest], self.embedder.embed_passages([t for _, t in rest])))
        return np.stack([by_key[k] for k, _ in texts])


class TokenStates(_Texts):
    """Token states of chunks embedded before they were kept: their texts read again by the model, once."""

    def pending(self) -> list[str]:
        keys = self.store.missing_chunk_data(PerChunk.TOKEN_STATES, self.embedder.name)
        self.sizes = self.store.text_sizes(keys)
        return keys

    def run(self, batch: list[str]) -> dict[str, int]:
        with self.store.embedding_claim(self.embedder.name, ["tokens:" + k for k in batch]) as part:
            todo = [k.removeprefix("tokens:") for k in part]
            texts = self.store.index_texts(todo) if todo else []
            if texts:
                states = self.embedder.token_states([text for _, text in texts])
                self.store.put_chunk_data(PerChunk.TOKEN_STATES, self.embedder.name, {k: token_blobs.pack(s) for (k, _), s in zip(texts, states)})
        return {"token_states": len(texts)}


class SentenceReadings(_Texts):
    """The aligned model's vectors of each chunk's sentences (rag/embed/aligned.py), kept under its name: for the
    chunks this run embeds (`new`) and those embedded before it read them."""

    share = ALIGNED_COST_SHARE

    def __init__(self, store: IndexStore, embedder: Embedder, *, batch_size: int, new: list[str]) -> None:
        super().__init__(store, embedder, batch_size=batch_size)
        self.new = new

    def pending(self) -> list[str]:
        older = self.store.missing_chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, embedded_by=self.embedder.name)
        keys = list(dict.fromkeys(older + self.new))
        self.sizes = self.store.text_sizes(keys)
        return keys

    def run(self, batch: list[str]) -> dict[str, int]:
        model = aligned.shared()
        model.load()  # before the claim: on SQLite it holds every other process's embedding off while it lasts
        with self.store.embedding_claim(aligned.MODEL, ["aligned:" + k for k in batch]) as part:
            todo = [k.removeprefix("aligned:") for k in part]
            known = self.store.known_chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, todo) if todo else set()
            texts = self.store.index_texts([k for k in todo if k not in known]) if todo else []
            if texts:
                vectors = model.passages([text for _, text in texts])
                self.store.put_chunk_data(
                    PerChunk.SENTENCE_READINGS, aligned.MODEL, {k: token_blobs.pack(v[None]) for (k, _), v in zip(texts, vectors)}
                )
        return {"aligned": len(texts)}


class LanguageReference:
    """Once per model, the language reference (rag/search/languages.py): a hundred short sentences' mean vectors."""

    def __init__(self, store: IndexStore, embedder: Embedder) -> None:
        self.store, self.embedder = store, embedder
        self._texts = 0

    def pending(self) -> list[str]:
        self._texts = language_reference.reference_pending(self.store, self.embedder)
        return [REFERENCE_CLAIM] if self._texts else []

    def cost(self, items: list[str]) -> int:
        return self._texts * REFERENCE_COST_CHARS if items else 0

    def batches(self, items: list[str]) -> Iterator[list[str]]:
        return split(items, 1)

    def run(self, batch: list[str]) -> dict[str, int]:
        with self.store.embedding_claim(self.embedder.name, batch) as claimed:
            return {"reference": language_reference.embed_reference(self.store, self.embedder) if claimed else 0}

    def finish(self) -> None:
        pass


class Vocabulary:
    """The vault's words, one vector per stem (rag/index/vocabulary.py), following the chunk texts embedded (`changed`)."""

    def __init__(self, store: IndexStore, embedder: Embedder, *, batch_size: int, changed: list[str]) -> None:
        self.store, self.embedder, self.batch_size, self.changed = store, embedder, batch_size, changed
        self._words: list[str] | None = None

    def pending(self) -> list[str]:
        self._words = vocabulary.pending(self.store, self.embedder, changed=self.changed)
        return self._words or []

    def cost(self, items: list[str]) -> int:
        return len(items) * WORD_COST_CHARS

    def batches(self, items: list[str]) -> Iterator[list[str]]:
        return split(items, self.batch_size)

    def run(self, batch: list[str]) -> dict[str, int]:
        return {"words": vocabulary.embed_words_claimed(self.store, self.embedder, batch)}

    def finish(self) -> None:
        if self._words is not None:  # None: current, nothing to mark
            vocabulary.mark_current(self.store, self.embedder, added=len(self._words))
