"""Channels' rankings fused into one: z-scores summed with weights (the default), or reciprocal rank fusion.

Each channel's scores are z-normalised over its top candidates and summed, with the keyword channel weighted by how
much it can say about this query (`keyword_weight`): the IDF-weighted share of the query's terms that occur in the
index at all, raised to 1.5. A Russian question over English notes has almost no terms in the index, so BM25's
accidental matches (numbers, names) cannot drown the dense channel; a question whose words are all in the vault gets
full weight. Measured on the retrieval benchmarks (docs/benchmarks.md); which channels are fused, and when, is the
retriever's business (rag/search/retrieve.py).
"""

from __future__ import annotations

import math


def rrf(rankings: list[list[int]], k: int, weights: list[float] | None = None) -> dict[int, float]:
    """Reciprocal rank fusion: score(d) = Σ_c w_c / (k + rank_c(d)), ranks 1-based, w_c = 1 by default."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


LONE_Z = 2.0
# 1.5 measured best across the dev sets: 2 over-damps SciFact (0.684 vs 0.686), 1 lets cross-lingual noise in.
KEYWORD_WEIGHT_POWER = 1.5
# Below this share of the query visible to BM25 (an English question over Russian notes matching only "2015" or a
# stray English word), its matches are accidents: the keyword channel is left out of the fusion.
KEYWORD_MIN_COVERAGE = 0.5


def zscore_fusion(rankings: list[list[tuple[int, float]]], weights: list[float], *, unscorable: list[set[int]] | None = None) -> dict[int, float]:
    """score(d) = Σ_c w_c · z_c(d), z_c(d) = (s_c(d) − mean_c) / std_c over channel c's candidates.

    A candidate missing from a channel gets that channel's lowest z; one the channel cannot score at all
    (`unscorable[c]`, e.g. a chunk with no vector yet) gets a neutral 0. A channel whose scores do not spread
    (one candidate, or all equal) gives its candidates z = 2, about where a channel's top hit usually lands, and
    the missing 0: a lone exact keyword match is a strong signal.
    """
    unscorable = unscorable or [set() for _ in rankings]
    normalised = []
    for ranking in rankings:
        values = [s for _, s in ranking]
        mean = sum(values) / len(values) if values else 0.0
        std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)) if values else 0.0
        if std > 1e-12:
            z = {item: (s - mean) / std for item, s in ranking}
            normalised.append((z, min(z.values())))
        else:
            normalised.append(({item: LONE_Z for item, _ in ranking}, 0.0))
    items = {item for z, _ in normalised for item in z}
    return {
        item: sum(w * z.get(item, 0.0 if item in unknown else floor) for (z, floor), w, unknown in zip(normalised, weights, unscorable))
        for item in items
    }


def term_coverage(terms: list[str], total: int, frequencies: dict[str, int]) -> float:
    """The IDF-weighted share of a query's terms present in the index (0 for no terms or an empty index)."""
    if not terms or not total:
        return 0.0
    idf = {t: math.log((total + 1) / (frequencies.get(t, 0) + 0.5)) for t in terms}
    whole = sum(idf.values())
    present = sum(v for t, v in idf.items() if frequencies.get(t, 0) > 0)
    return present / whole if whole > 0 else 0.0


def keyword_weight(terms: list[str], total: int, frequencies: dict[str, int]) -> float:
    """How much BM25 can say about a query: coverage ** 1.5 (`term_coverage`); 0 when coverage is under
    KEYWORD_MIN_COVERAGE."""
    coverage = term_coverage(terms, total, frequencies)
    return coverage**KEYWORD_WEIGHT_POWER if coverage >= KEYWORD_MIN_COVERAGE else 0.0
