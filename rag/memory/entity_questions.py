"""The entity questions HRR answers over agent memory's facts: probe (the facts bound to X), reason (the facts X, Y …
all share) and related (the entities structurally near X). Each fact's holographic vector binds its content and
the entities it names (rag/memory/hrr.py); these questions unbind them.

Apart from rag/memory/recall.py, which ranks facts for a question in words; the results are the same `Recalled`
rows, scored by the binding × trust × decay.
"""

from __future__ import annotations

import time

import numpy as np

from rag.memory import entities as entity_names
from rag.memory import hrr
from rag.memory.recall import CHANNELS, PROBE_MIN, Recalled, decay
from rag.memory.table import FactTable


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
