"""Agent memory's channels that find facts by their words and names rather than their meaning: keywords (the
index's FTS5), shared content stems (Jaccard), identifiers held as written (exact), entities the query names, and
the query's HRR vector that narrows a name's facts. Each gives fact index → score in [0, 1].

Apart from rag/memory/recall.py, which runs the meaning channel and fuses all of them into one ranking.
"""

from __future__ import annotations

import numpy as np

from rag.memory import hrr
from rag.memory.table import FactTable

CANDIDATES = 100  # per channel


def keywords(table: FactTable, retriever, query: str, allowed: set[int] | None) -> dict[int, float]:
    """The keyword channel: each fact's best FTS5 score over its chunks, divided by the query's best."""
    found: dict[int, float] = {}
    for rowid, value in retriever.keyword_ranking(query, CANDIDATES, rows=table.chunk_rows(allowed)):
        i = table.rows[rowid]
        found[i] = max(found.get(i, 0.0), value)
    top = max(found.values(), default=0.0)
    return {i: v / top for i, v in found.items()} if top > 0 else {}


def score_names(
    table: FactTable, scores: dict[str, dict[int, float]], candidates: set[int], exact: set[int], wanted_ids: set[str], query_keys: list[str]
) -> None:
    """The exact and entities channels for the candidates: the share of the query's identifiers each holds as written,
    and of the entities the query names it is bound to."""
    for i in candidates:
        entry = table.entries[i]
        if wanted_ids and i in exact:
            scores["exact"][i] = len(wanted_ids & entry.identifiers) / len(wanted_ids)
        if query_keys:
            shared = len(set(query_keys) & set(entry.entity_keys))
            if shared:
                scores["entities"][i] = shared / len(query_keys)


def shared_words(table: FactTable, stems: frozenset[str], allowed: set[int] | None) -> dict[int, float]:
    """Jaccard of the query's content stems and each fact's, for the CANDIDATES facts sharing most of them: the word
    channel's own candidates, so a fact that says the question's words is found even where meaning rates it low."""
    postings = [table.by_stem[s] for s in stems if s in table.by_stem]
    if not postings:
        return {}
    shared = np.bincount(np.concatenate(postings), minlength=len(table))  # stems each fact shares with the query
    if allowed is not None:
        keep = np.zeros(len(table), bool)
        keep[np.fromiter(allowed, np.int64, len(allowed))] = True
        shared = np.where(keep, shared, 0)
    scores = shared / np.maximum(len(stems) + table.stem_counts - shared, 1)
    top = np.flatnonzero(shared)
    top = top[np.argsort(-scores[top], kind="stable")[:CANDIDATES]]
    return {int(i): float(scores[i]) for i in top}


def bound_to(table: FactTable, keys: list[str], allowed: set[int] | None, probe: np.ndarray | None) -> set[int]:
    """Facts bound to an entity the query names; when they are many, the CANDIDATES closest to the query's HRR."""
    bound = {i for k in keys for i in table.by_entity.get(k, ()) if allowed is None or i in allowed}
    if len(bound) <= CANDIDATES or probe is None:
        return bound
    order = np.fromiter(bound, np.int64, len(bound))
    sims = hrr.similarities(table.matrix[order], probe)
    return set(order[np.argsort(-sims)[:CANDIDATES]].tolist())


def query_probe(stems: frozenset[str], keys: list[str], dim: int) -> np.ndarray | None:
    """The query's HRR vector: its content stems and the entities it names bundled; None when it has neither."""
    parts = []
    content = hrr.content_probe(sorted(stems), dim)
    if content is not None:
        parts.append(content)
    parts.extend(hrr.entity_probe(k, dim) for k in keys)
    return hrr.bundle(parts, dim) if parts else None
