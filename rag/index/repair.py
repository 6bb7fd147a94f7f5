"""What `rag index` repairs in an index file that was damaged (a disk error, a half-copied file, a hand edit):
stored vectors and token states that search cannot read back (rag/index/blobs.py says which) are deleted, so the
backfill that follows embeds or reads their texts again, and a generation that is not a number is set anew. Search
itself only leaves such rows out, with a warning; it never writes.
"""

from __future__ import annotations

import logging

from rag.embed.embedders import Embedder
from rag.index import token_blobs, vocabulary
from rag.index.storage import IndexStore

log = logging.getLogger(__name__)


def drop_unreadable(store: IndexStore, embedder: Embedder) -> int:
    """Delete what search could not read back (rag/index/blobs.py): this model's vectors and its vocabulary's that
    are not its width, finite and unit length, and token states (of any model) that are not whole, so this run's
    backfill embeds or reads their texts again; how many. Every `rag index` reads them all for it, ~1.3× the time of
    reading them from the file (measured on 2 busy cores: 100k vectors of 384 values 0.85 s, 1,000 chunks' token
    states 0.23 s): a second or two for a large vault, against minutes of embedding. Background indexing (the app,
    the MCP server) does not: a damaged row stays left out of search there until `rag index` runs. Token states an
    older version kept in 4 bits are coded anew as `pack` writes them now, without the model (rag/embed/token_code.py:
    ~6× smaller); search reads either meanwhile."""

    dropped = store.drop_unusable_vectors(embedder.name, embedder.dim)
    words = vocabulary.drop_unusable(store, embedder)
    dropped += words + store.drop_unreadable_chunk_data(token_blobs.readable, recode=token_blobs.recoded)
    if dropped:
        log.warning("%d unreadable vectors or token states were dropped from the index; they are computed again now.", dropped)
    return dropped


def repair_generation(store: IndexStore) -> None:
    """A generation that is not a number (the index file is not trusted) is set anew: caches compare it."""
    try:
        int(store.get_meta("generation", "0"))
    except (TypeError, ValueError):
        store.set_meta("generation", "0", searchable=True)
