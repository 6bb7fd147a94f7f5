"""Recall: the facts for a query, ranked by four channels × trust × recency; and the entity questions HRR answers
(probe: the facts bound to X; reason: what X, Y … share; related: the entities structurally near X).

Channels, each a score in [0, 1] per fact:
- fts: keyword stems (the index's FTS5, RU/EN stems, OR semantics), divided by the query's best;
- jaccard: shared content stems / all content stems of query and fact;
- hrr: the fact's holographic vector against the query's (content stems and the entities it names);
- semantic: the embedder's cosine, from its floor (an unrelated pair) to 1.
relevance = Σ weight × score (TUNED_WEIGHTS, tuned from the reference design's REFERENCE_WEIGHTS on our dev set; without
the embedder or HRR, the reference design's WITHOUT_SEMANTIC / WITHOUT_HRR); score = relevance × trust × decay,
decay = ½^(age / half-life) from `created`, lifted onto [floor, 1].
A fact superseded by another is ranked below it. Candidates come from FTS, the semantic scan (which alone carries a
query whose words no fact has — a Russian question over English facts) and the facts bound to the entities the
query names.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np

from rag.errors import EmbedderError
from rag.memory import entities as entity_names
from rag.memory import hrr
from rag.memory.facts import Fact, parse_time
from rag.memory.table import FactTable
from rag.text import stemming

log = logging.getLogger(__name__)

CHANNELS = ("fts", "jaccard", "hrr", "semantic")
REFERENCE_WEIGHTS = {"fts": 0.3, "jaccard": 0.2, "hrr": 0.2, "semantic": 0.3}
# Tuned on half of our dev set (bench/memory_recall.py, a 0.1 grid): Recall@5 / MRR@10 on the other half 0.952 / 0.913
# against the reference weights' 0.948 / 0.835. FTS still brings candidates; its words count through Jaccard.
TUNED_WEIGHTS = {"jaccard": 0.1, "hrr": 0.2, "semantic": 0.7}
WITHOUT_SEMANTIC = {"fts": 0.45, "jaccard": 0.30, "hrr": 0.25}  # no embedder
WITHOUT_HRR = {"fts": 0.40, "jaccard": 0.20, "semantic": 0.40}  # no HRR
CANDIDATES = 100  # per channel
SEMANTIC_FLOOR = 0.75  # e5-small cosine of an unrelated query and fact; 1 stays 1
HRR_FULL = 0.5  # an HRR similarity this high counts as a full match (a fact's vector bundles content and entities)
PROBE_MIN = 0.12  # an entity's HRR probe above this: the fact is bound to it (unrelated facts: ~0 ± 1/√dim)
SUPERSEDED_SHARE = 0.5  # a superseded fact keeps at most this share of its successor's score


@dataclass(frozen=True)
class Recalled:
    fact: Fact
    score: float  # relevance × trust × decay, after the superseded rule
    relevance: float
    channels: dict[str, float]  # each channel's score for this fact (0: the channel did not find it)
    trust: float
    decay: float
    superseded_by: str | None = None
    found_by: tuple[str, ...] = field(default=())  # the channels whose score is above 0

    def to_json(self) -> dict:
        return {
            "id": self.fact.id,
            "content": self.fact.content,
            "path": self.fact.path,
            "score": round(self.score, 6),
            "channels": {c: round(self.channels.get(c, 0.0), 6) for c in CHANNELS},
            "found_by": list(self.found_by),
            "trust": round(self.trust, 4),
            "decay": round(self.decay, 4),
            "category": self.fact.category,
            "entities": list(self.fact.entities),
            "created": self.fact.created,
            "superseded_by": self.superseded_by,
        }


def weights_for(available: set[str], weights: dict[str, float] | None = None) -> dict[str, float]:
    """The fusion weights over the channels that can run: the given ones, else TUNED_WEIGHTS when every channel
    runs, else the reference design's shares for a missing embedder or HRR (pro rata for other combinations)."""
    if weights is None and available >= set(CHANNELS):
        return dict(TUNED_WEIGHTS)
    if weights is None and available == set(WITHOUT_SEMANTIC):
        return dict(WITHOUT_SEMANTIC)
    if weights is None and available == set(WITHOUT_HRR):
        return dict(WITHOUT_HRR)
    chosen = dict(weights or REFERENCE_WEIGHTS)
    kept = {c: w for c, w in chosen.items() if c in available and w > 0}
    total = sum(kept.values())
    return {c: w / total for c, w in kept.items()} if total else {}


def decay(fact: Fact, half_life_days: float, now: float | None = None, floor: float = 0.0) -> float:
    """½^(age / half-life) from the fact's `created`, lifted onto [floor, 1]."""
    created = parse_time(fact.created) if fact.created else None
    if created is None or half_life_days <= 0:
        return 1.0
    age = max(0.0, ((now or time.time()) - created) / 86_400)
    return floor + (1.0 - floor) * 0.5 ** (age / half_life_days)


def recall(
    table: FactTable,
    retriever,
    query: str,
    *,
    limit: int = 10,
    category: str | None = None,
    weights: dict[str, float] | None = None,
    half_life_days: float = 180.0,
    decay_floor: float = 0.0,
    use_hrr: bool = True,
) -> list[Recalled]:
    if not len(table):
        return []
    allowed = None if category is None else {i for i, e in enumerate(table.entries) if e.fact.category == category}
    rows = table.chunk_rows(allowed)
    scores: dict[str, dict[int, float]] = {c: {} for c in CHANNELS}
    available = {"fts", "jaccard"} | ({"hrr"} if use_hrr else set())
    wanted = weights_for(available | {"semantic"}, weights)
    for rowid, value in retriever.keyword_ranking(query, CANDIDATES, rows=rows):
        i = table.rows[rowid]
        scores["fts"][i] = max(scores["fts"].get(i, 0.0), value)
    top = max(scores["fts"].values(), default=0.0)
    scores["fts"] = {i: v / top for i, v in scores["fts"].items()} if top > 0 else {}
    if wanted.get("semantic", 0) > 0 or not scores["fts"]:  # FTS empty (another language): the semantic scan carries it
        try:
            for rowid, value in retriever.dense_ranking(query, CANDIDATES, rows=rows):
                i = table.rows[rowid]
                scaled = max(0.0, (float(value) - SEMANTIC_FLOOR) / (1.0 - SEMANTIC_FLOOR))
                scores["semantic"][i] = max(scores["semantic"].get(i, 0.0), scaled)
            available.add("semantic")
        except EmbedderError as exc:
            log.warning("Memory recall without the semantic channel: %s", exc)
    query_keys = [entity_names.key(n) for n in entity_names.extract(query)]
    query_stems = frozenset(stemming.query_terms(query))
    probe = _query_probe(query_stems, query_keys, table.matrix.shape[1]) if "hrr" in available else None
    candidates = set(scores["fts"]) | set(scores["semantic"]) | _bound_to(table, query_keys, allowed, probe)
    for i in candidates:
        entry = table.entries[i]
        union = query_stems | entry.stems
        if union:
            scores["jaccard"][i] = len(query_stems & entry.stems) / len(union)
    if probe is not None and candidates:
        order = np.fromiter(candidates, np.int64, len(candidates))
        sims = np.clip(hrr.similarities(table.matrix[order], probe) / HRR_FULL, 0.0, 1.0)
        scores["hrr"] = dict(zip(order.tolist(), sims.tolist()))
    used = weights_for(available, weights)
    now = time.time()
    results = {}
    for i in candidates:
        channel = {c: scores[c].get(i, 0.0) for c in CHANNELS}
        relevance = sum(w * channel[c] for c, w in used.items())
        if relevance <= 0:
            continue
        fact = table.entries[i].fact
        d = decay(fact, half_life_days, now, decay_floor)
        found = tuple(c for c in CHANNELS if channel[c] > 0)
        results[fact.id] = Recalled(fact, relevance * fact.trust * d, relevance, channel, fact.trust, d, table.superseded_by.get(fact.id), found)
    return sorted(_demote_superseded(results).values(), key=lambda r: -r.score)[:limit]


def _bound_to(table: FactTable, keys: list[str], allowed: set[int] | None, probe: np.ndarray | None) -> set[int]:
    """Facts bound to an entity the query names; when they are many, the CANDIDATES closest to the query's HRR."""
    bound = {i for k in keys for i in table.by_entity.get(k, ()) if allowed is None or i in allowed}
    if len(bound) <= CANDIDATES or probe is None:
        return bound
    order = np.fromiter(bound, np.int64, len(bound))
    sims = hrr.similarities(table.matrix[order], probe)
    return set(order[np.argsort(-sims)[:CANDIDATES]].tolist())


def _query_probe(stems: frozenset[str], keys: list[str], dim: int) -> np.ndarray | None:
    parts = []
    content = hrr.content_probe(sorted(stems), dim)
    if content is not None:
        parts.append(content)
    parts.extend(hrr.entity_probe(k, dim) for k in keys)
    return hrr.bundle(parts, dim) if parts else None


def _demote_superseded(results: dict[str, Recalled]) -> dict[str, Recalled]:
    """A superseded fact ranks below its successor: at most SUPERSEDED_SHARE of the successor's score when both are
    found, else SUPERSEDED_SHARE of its own."""
    out = dict(results)
    for fact_id, r in results.items():
        if r.superseded_by is None:
            continue
        newer = results.get(r.superseded_by)
        cap = (newer.score if newer is not None else r.score) * SUPERSEDED_SHARE
        out[fact_id] = Recalled(r.fact, min(r.score, cap), r.relevance, r.channels, r.trust, r.decay, r.superseded_by, r.found_by)
    return out


# --- entity questions (HRR) -------------------------------------------------------------------------------------


def probe(table: FactTable, entity: str, *, limit: int = 20, half_life_days: float = 180.0, decay_floor: float = 0.0) -> list[Recalled]:
    """The facts bound to `entity` (any script or case), most strongly bound first."""
    sims = hrr.similarities(table.matrix, hrr.entity_probe(entity_names.key(entity), table.matrix.shape[1]))
    return _ranked(table, sims, limit, half_life_days, decay_floor)


def reason(table: FactTable, entities: list[str], *, limit: int = 20, half_life_days: float = 180.0, decay_floor: float = 0.0) -> list[Recalled]:
    """The facts bound to every one of `entities`: each fact's weakest binding among them (the min), strongest first."""
    if not entities:
        return []
    dim = table.matrix.shape[1]
    sims = np.min([hrr.similarities(table.matrix, hrr.entity_probe(entity_names.key(e), dim)) for e in entities], axis=0)
    return _ranked(table, sims, limit, half_life_days, decay_floor)


def related(table: FactTable, entity: str, *, limit: int = 10) -> list[tuple[str, float, tuple[str, ...]]]:
    """Entities structurally near `entity`: unbind the entity role from the facts bound to it and compare what is left
    with every other entity's atom. (name, score, ids of the facts that link them), strongest first."""
    own = entity_names.key(entity)
    dim = table.matrix.shape[1]
    sims = hrr.similarities(table.matrix, hrr.entity_probe(own, dim))
    bound = [i for i in np.argsort(-sims) if sims[i] > PROBE_MIN]
    totals: dict[str, float] = {}
    links: dict[str, list[str]] = {}
    for i in bound:
        held = hrr.entities_of(table.matrix[i], dim)
        for key in table.entries[i].entity_keys:
            if key == own:
                continue
            strength = float(sims[i]) * max(0.0, hrr.similarity(held, hrr.atom(key, dim)))
            totals[key] = totals.get(key, 0.0) + strength
            links.setdefault(key, []).append(table.entries[i].fact.id)
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])[:limit]
    return [(table.names.get(k, k), round(v, 6), tuple(links[k])) for k, v in ranked]


def _ranked(table: FactTable, sims: np.ndarray, limit: int, half_life_days: float, decay_floor: float) -> list[Recalled]:
    now = time.time()
    out = []
    for i in np.argsort(-sims):
        if sims[i] <= PROBE_MIN or len(out) >= limit:
            break
        fact = table.entries[i].fact
        d = decay(fact, half_life_days, now, decay_floor)
        channel = {c: 0.0 for c in CHANNELS} | {"hrr": float(sims[i])}
        out.append(
            Recalled(fact, float(sims[i]) * fact.trust * d, float(sims[i]), channel, fact.trust, d, table.superseded_by.get(fact.id), ("hrr",))
        )
    return out
