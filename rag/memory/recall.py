"""Recall: the facts for a query, ranked by meaning first, confirmed by names and words, × trust × recency. The
entity questions HRR answers (probe, reason, related) are rag/memory/entity_questions.py.

Channels, each a score in [0, 1] per fact:
- semantic: the question's vector against each fact's own meaning vector (rag/memory/meaning.py), plus a share of
  the aligned model's cosine of the two (`READING_WEIGHT`), from its floor (an unrelated pair) to 1 — a scan of every
  fact, so it alone can carry a question in other words or another language;
- hrr: the fact's holographic vector against the query's (content stems and the entities it names);
- exact: the share of the query's identifiers (ports, addresses, paths, versions: `entities.identifiers`) the fact
  contains as written;
- entities: the share of the entities the query names that the fact is bound to;
- fts: keyword stems (the index's FTS5, RU/EN stems, OR semantics), divided by the query's best;
- jaccard: shared content stems / all content stems of query and fact (candidates: the facts sharing a stem).
relevance = Σ weight × score (TUNED_WEIGHTS). The meaning channel leads; exact and entities add a fixed share on
top, so a name or a port confirms a meaning match or settles a tie, but a fact that only shares a name with the
question does not outrank the one that answers it. HRR weighs only without meaning vectors: once facts are embedded
on their own, the fusion without it was as good or better on both dev sets (MRR@10 0.830 / 0.964 against 0.829 /
0.958 with it at 0.1); it still answers the entity questions (probe, reason, related) and narrows a name's facts. Jaccard weighs just enough (0.02) that a fact with the question's
words is returned when meaning rates everything low; FTS runs only when it weighs (no meaning, or asked for): on both
dev sets every larger weight on the word channels cost paraphrase and cross-language questions more than it gained
(bench/memory_recall.py; docs/benchmarks.md). Without an embedder (or before the facts have vectors), the words
carry it: WITHOUT_SEMANTIC. score = relevance × trust × decay, decay = ½^(age / half-life) from `created`, lifted
onto [floor, 1]. A fact superseded by another ranks right below it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np

from rag.embed import aligned
from rag.errors import EmbedderError
from rag.memory import entities as entity_names
from rag.memory import hrr
from rag.memory.facts import Fact, parse_time
from rag.memory.table import FactTable
from rag.memory.word_channels import CANDIDATES, bound_to, keywords, query_probe, score_names, shared_words
from rag.search import languages
from rag.search.text_vectors import query_vector
from rag.text import stemming
from rag.text.sentences import SCRIPT_CODES, script

log = logging.getLogger(__name__)

CHANNELS = ("fts", "jaccard", "hrr", "semantic", "exact", "entities")
REFERENCE_WEIGHTS = {"fts": 0.3, "jaccard": 0.2, "hrr": 0.2, "semantic": 0.3}  # the reference design's four channels
# Chosen on both dev sets together (bench/memory_dev: 94 facts, bench/memory_dev2: 171 facts written without reading
# this code): a grid over the four score channels and bonuses of 0, .05, .1, .2 for exact and entities, then each
# channel left out in turn (bench/memory_recall.py reports both); docs/benchmarks.md has every kind.
TUNED_WEIGHTS = {"semantic": 0.9, "exact": 0.1, "entities": 0.1, "jaccard": 0.02}
WITHOUT_SEMANTIC = {"fts": 0.45, "jaccard": 0.30, "hrr": 0.25, "exact": 0.1, "entities": 0.1}  # no meaning vectors
SEMANTIC_FLOOR = 0.75  # e5-small cosine of an unrelated question and fact; 1 stays 1
# The aligned model's reading of the question against each fact's (rag/memory/meaning.py), added to e5's cosine as
# READING_WEIGHT × (its cosine − READING_CENTER): e5's cosines spread ~0.023 over a question's facts and USE's ~0.07,
# so 0.25 gives USE a little under e5's say; the centre (USE's mean cosine of a question and a fact) keeps e5's floor
# where it was. Chosen on the first two dev sets (bench/memory_dev, memory_dev2; 0.1-0.5 tried) by the default
# fusion's MRR@10; checked on the third, never fitted (docs/benchmarks.md). A fact not read yet scores e5 alone.
READING_WEIGHT = 0.25
READING_CENTER = 0.035
HRR_FULL = 0.5  # an HRR similarity this high counts as a full match (a fact's vector bundles content and entities)
PROBE_MIN = 0.12  # an entity's HRR probe above this: the fact is bound to it (unrelated facts: ~0 ± 1/√dim)
SUPERSEDED_SHARE = 0.5  # a superseded fact whose successor was not found keeps this share of its score
BELOW = 0.999  # a superseded fact found with its successor: just below it


@dataclass(frozen=True)
class Recalled:
    fact: Fact
    score: float  # relevance × trust × decay, after the superseded rule
    relevance: float
    channels: dict[str, float]  # each channel's score for this fact (0: the channel did not find it)
    trust: float
    decay: float
    superseded_by: str | None = None
    found_by: tuple[str, ...] = field(default=())  # the channels whose score is above 0; ("supersedes",): it replaced a found fact

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
    """The fusion weights over the channels that can run: the given ones over those that run, summing to 1; else
    TUNED_WEIGHTS when the meaning channel runs, WITHOUT_SEMANTIC when it does not."""
    if weights is None:
        chosen = TUNED_WEIGHTS if "semantic" in available else WITHOUT_SEMANTIC
        return {c: w for c, w in chosen.items() if c in available}
    kept = {c: w for c, w in weights.items() if c in available and w > 0}
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
    rewrites: tuple[str, ...] = (),
) -> list[Recalled]:
    """`rewrites`: the question in other words (a chat model's, `rag.memory.rewrite`); the meaning channel takes a
    fact's best match over the question and them."""
    if not len(table):
        return []
    allowed = None if category is None else {i for i, e in enumerate(table.entries) if e.fact.category == category}
    scores: dict[str, dict[int, float]] = {c: {} for c in CHANNELS}
    available = {"fts", "jaccard", "hrr", "exact", "entities"}
    if weights_for(available | {"semantic"}, weights).get("semantic", 0) > 0:
        meaning = _meaning(table, retriever, (query, *rewrites), allowed)
        if meaning is not None:
            scores["semantic"] = meaning
            available.add("semantic")
    # The keyword channel runs when it weighs, or when meaning cannot run: at weight 0 it found no candidate the
    # others miss on either dev set, and over 10k facts it was half of a recall's time (FTS5 ranks every match in the
    # vault before the fact rows are picked out).
    if weights_for(available, weights).get("fts", 0) > 0:
        scores["fts"] = keywords(table, retriever, query, allowed)
    query_keys = list(dict.fromkeys(entity_names.key(n) for n in entity_names.extract(query)))
    query_stems = frozenset(stemming.query_terms(query))
    probe = query_probe(query_stems, query_keys, table.matrix.shape[1])  # also narrows the facts bound to a name
    wanted_ids = entity_names.identifiers(query)
    exact = {i for token in wanted_ids for i in table.by_identifier.get(token, ()) if allowed is None or i in allowed}
    scores["jaccard"] = shared_words(table, query_stems, allowed)
    candidates = set(scores["fts"]) | set(scores["semantic"]) | set(scores["jaccard"]) | exact | bound_to(table, query_keys, allowed, probe)
    score_names(table, scores, candidates, exact, wanted_ids, query_keys)
    if probe is not None and candidates and weights_for(available, weights).get("hrr", 0) > 0:
        order = np.fromiter(candidates, np.int64, len(candidates))
        sims = np.clip(hrr.similarities(table.matrix[order], probe) / HRR_FULL, 0.0, 1.0)
        scores["hrr"] = dict(zip(order.tolist(), sims.tolist()))
    now = time.time()
    results = _fused(table, scores, candidates, weights_for(available, weights), half_life_days, now, decay_floor)
    _bring_successors(table, results, half_life_days, now, decay_floor)
    return sorted(_demote_superseded(results).values(), key=lambda r: -r.score)[:limit]


def _fused(
    table: FactTable,
    scores: dict[str, dict[int, float]],
    candidates: set[int],
    used: dict[str, float],
    half_life_days: float,
    now: float,
    floor: float,
) -> dict[str, Recalled]:
    """Fact id → its `Recalled`: relevance = Σ weight × channel score, × trust × decay; facts of no relevance left out."""
    results = {}
    for i in candidates:
        channel = {c: scores[c].get(i, 0.0) for c in CHANNELS}
        relevance = sum(w * channel[c] for c, w in used.items())
        if relevance <= 0:
            continue
        fact = table.entries[i].fact
        d = decay(fact, half_life_days, now, floor)
        found = tuple(c for c in CHANNELS if channel[c] > 0)
        results[fact.id] = Recalled(fact, relevance * fact.trust * d, relevance, channel, fact.trust, d, table.superseded_by.get(fact.id), found)
    return results


def _bring_successors(table: FactTable, results: dict[str, Recalled], half_life_days: float, now: float, floor: float) -> None:
    """A found fact that was superseded brings the fact that replaced it (down its chain), with its relevance: "port
    8080?" finds the old "nginx listens on 8080" by its words, and the answer is the new "8443 now" above it."""
    pending = [r for r in results.values() if r.superseded_by is not None]
    while pending:
        old = pending.pop()
        entry = table.get(old.superseded_by)
        if entry is None or entry.fact.id in results:
            continue
        fact = entry.fact
        d = decay(fact, half_life_days, now, floor)
        newer = Recalled(fact, old.relevance * fact.trust * d, old.relevance, dict.fromkeys(CHANNELS, 0.0), fact.trust, d,
                         table.superseded_by.get(fact.id), ("supersedes",))  # fmt: skip
        results[fact.id] = newer
        if newer.superseded_by is not None:
            pending.append(newer)


def _meaning(table: FactTable, retriever, texts: tuple[str, ...], allowed: set[int] | None) -> dict[int, float] | None:
    """The meaning channel's CANDIDATES best facts (index → score), or None when it cannot run (no vectors yet, the
    embedder is down)."""
    if table.meanings is None:
        return None
    try:
        queries = np.stack([query_vector(retriever.embedder, t) for t in texts])
    except EmbedderError as exc:
        log.warning("Memory recall without the semantic channel: %s", exc)
        return None
    if queries.shape[1] != table.meanings.shape[1]:
        return None
    sims = np.max([_similarities(table, q, t) + _reading(table, t) for q, t in zip(queries, texts)], axis=0)
    if allowed is not None:
        mask = np.full(len(sims), -1.0, np.float32)
        picked = np.fromiter(allowed, np.int64, len(allowed))
        mask[picked] = sims[picked]
        sims = mask
    top = np.argsort(-sims)[:CANDIDATES] if len(sims) <= CANDIDATES else np.argpartition(-sims, CANDIDATES)[:CANDIDATES]
    scaled = np.clip((sims[top] - SEMANTIC_FLOOR) / (1.0 - SEMANTIC_FLOOR), 0.0, 1.0)
    return {int(i): float(v) for i, v in zip(top, scaled) if v > 0}


def _reading(table: FactTable, text: str) -> np.ndarray | float:
    """READING_WEIGHT × (the aligned model's cosine of `text` and each fact − READING_CENTER), 0 for facts not read
    yet; 0 when no fact is read or the model is unavailable."""
    if table.readings is None:
        return 0.0
    try:
        question = aligned.shared().question(text)
    except EmbedderError as exc:
        log.warning("Memory recall without the aligned model's reading: %s", exc)
        return 0.0
    return READING_WEIGHT * (table.readings @ question - READING_CENTER) * table.read


def _similarities(table: FactTable, query: np.ndarray, text: str) -> np.ndarray:
    """The query's cosine with every fact; with a fact in the other language, compared as the index's meaning search
    compares across languages (rag/search/languages.py: the facts' script offsets removed, the question moved
    QUERY_SHIFT of the way to their centre). Only across scripts: on the independent dev set aligning every fact
    cost paraphrase questions (same language) 0.06 MRR@10; this way cross-language questions gain 0.03–0.05 and
    superseded ones 0.04–0.09 on both sets, paraphrase loses 0.056 on one and 0.006 on the other (docs/benchmarks.md)."""
    code = SCRIPT_CODES.get(script(text) or "", 0)
    if code not in table.offsets:
        return table.meanings @ query
    moved = languages.shift_query(query, text, {code: -table.offsets[code]})
    both = table.meanings @ np.stack([query, moved], axis=1)  # one pass over the matrix for both
    removed = np.zeros(max(table.offsets) + 1, np.float32)  # (fact − its offset) · moved = fact · moved − offset · moved
    for c, offset in table.offsets.items():
        removed[c] = offset @ moved
    return np.where(table.scripts != code, both[:, 1] - removed[table.scripts], both[:, 0])


def _demote_superseded(results: dict[str, Recalled]) -> dict[str, Recalled]:
    """A superseded fact ranks right below its successor when both are found (a question about the old state still
    finds it, second), else keeps SUPERSEDED_SHARE of its own score."""
    out = dict(results)
    for fact_id, r in results.items():
        if r.superseded_by is None:
            continue
        newer = results.get(r.superseded_by)
        cap = newer.score * BELOW if newer is not None else r.score * SUPERSEDED_SHARE
        out[fact_id] = Recalled(r.fact, min(r.score, cap), r.relevance, r.channels, r.trust, r.decay, r.superseded_by, r.found_by)
    return out
