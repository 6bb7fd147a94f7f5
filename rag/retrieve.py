"""Question → ranked hits. Keyword channel (FTS5 BM25 over stems) + dense channel (cosine), fused by RRF.

Each hit records its rank in each channel so the UI can say why a passage was found. If one channel cannot serve
(no vectors yet, the embedder is down, a query of stop words only), the other serves alone and the result says so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from rag import stemming
from rag.config import Settings
from rag.embed import Embedder
from rag.errors import EmbedderError
from rag.store import Store, StoredChunk
from rag.vectors import VectorIndex

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Hit:
    chunk: StoredChunk
    score: float
    bm25_rank: int | None = None  # 1-based rank in the keyword channel, None if it did not find this chunk
    dense_rank: int | None = None  # 1-based rank in the dense channel


@dataclass(frozen=True)
class SearchResult:
    hits: tuple[Hit, ...]
    channels: tuple[str, ...]  # the channels that actually served: ("bm25", "dense"), ("bm25",) …
    notice: str | None = None  # why a channel is missing, for the person reading the results


def rrf(rankings: list[list[int]], k: int, weights: list[float] | None = None) -> dict[int, float]:
    """Reciprocal rank fusion: score(d) = Σ_c w_c / (k + rank_c(d)), ranks 1-based, w_c = 1 by default."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


class Retriever:
    """Searches one store. Holds the cached vector matrix, so keep one per store and reuse it."""

    def __init__(self, settings: Settings, store: Store, embedder: Embedder) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.vectors = VectorIndex(store, embedder.name)

    # --- single channels --------------------------------------------------------------------------------------

    def keyword_ranking(self, query: str, n: int) -> list[tuple[int, float]]:
        match = stemming.fts_query(stemming.query_terms(query))
        return self.store.bm25(match, n) if match else []

    def dense_ranking(self, query: str, n: int) -> list[tuple[int, float]]:
        """Raises EmbedderError if the query cannot be embedded."""
        if len(self.vectors) == 0:
            return []
        return self.vectors.search(self.embedder.embed_query(query), n)

    # --- searches ---------------------------------------------------------------------------------------------

    def keyword(self, query: str, k: int = 10) -> SearchResult:
        ranking = self.keyword_ranking(query, k)
        return SearchResult(self._hits(ranking, bm25=ranking), ("bm25",))

    def dense(self, query: str, k: int = 10) -> SearchResult:
        ranking, notice = self._dense_or_notice(query, k)
        return SearchResult(self._hits(ranking, dense=ranking), ("dense",) if notice is None else (), notice)

    def hybrid(self, query: str, k: int = 10, *, candidates: int = 100) -> SearchResult:
        n = max(candidates, k)
        keyword = self.keyword_ranking(query, n)
        dense, notice = self._dense_or_notice(query, n)
        channels = ("bm25",) if notice else ("bm25", "dense")
        fused = rrf([[r for r, _ in keyword], [r for r, _ in dense]], self.settings.rrf_k)
        hits = self._hits(sorted(fused.items(), key=lambda x: -x[1]), bm25=keyword, dense=dense, boost=True)
        return SearchResult(hits[:k], channels, notice)

    # --- helpers ----------------------------------------------------------------------------------------------

    def _dense_or_notice(self, query: str, n: int) -> tuple[list[tuple[int, float]], str | None]:
        try:
            ranking = self.dense_ranking(query, n)
        except EmbedderError as exc:
            log.warning("Dense channel unavailable: %s", exc)
            return [], f"Meaning search is unavailable ({exc}); showing keyword matches only."
        if not ranking and len(self.vectors) == 0:
            return [], "No vectors yet (indexing in progress or the embedder failed); showing keyword matches only."
        return ranking, None

    def _hits(self, scored, *, bm25=(), dense=(), boost: bool = False) -> tuple[Hit, ...]:
        bm25_rank = {r: i for i, (r, _) in enumerate(bm25, 1)}
        dense_rank = {r: i for i, (r, _) in enumerate(dense, 1)}
        chunks = self.store.chunks_by_rowid([r for r, _ in scored])
        hits = []
        for rowid, score in scored:
            chunk = chunks.get(rowid)
            if chunk is None:  # removed between ranking and reading
                continue
            if boost and chunk.tier == 1:
                score += self.settings.tier1_boost
            hits.append(Hit(chunk, float(score), bm25_rank.get(rowid), dense_rank.get(rowid)))
        if boost:
            hits.sort(key=lambda h: -h.score)
        return tuple(hits)
