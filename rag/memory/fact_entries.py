"""One fact of agent memory ready to rank (`Entry`): made from its note (`entry_for`), or read back from the row the
index keeps of it (`from_row`, `to_row`), so another process need not parse, encode and embed it again.

Apart from rag/memory/table.py, which gathers the entries of one index generation into a table and keeps it current.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from rag.embed import aligned
from rag.index.records import FactRow
from rag.memory import entities as entity_names
from rag.memory import hrr
from rag.memory.facts import Fact
from rag.text import stemming
from rag.text.sentences import SCRIPT_CODES, script


@dataclass(frozen=True)
class Entry:
    """One fact ready to rank: what recall reads of it, computed once per version of its note."""

    fact: Fact
    stems: frozenset[str]  # content stems, stop words dropped (Jaccard, HRR content)
    entity_keys: tuple[str, ...]  # `entities.key` of its entities (given, else extracted)
    entity_names: tuple[str, ...]  # as written, same order
    vector: np.ndarray  # HRR, uint8 phases
    meaning: np.ndarray | None = None  # float32 (rag/memory/meaning.py); None until embedded
    model: str | None = None  # the embedder of `meaning`
    identifiers: frozenset[str] = frozenset()  # `entities.identifiers` of its content
    script: int = 0  # the script code of its content (rag.text.sentences.SCRIPT_CODES)
    reading: np.ndarray | None = None  # float32, the aligned model's (rag/memory/meaning.py); None until read


def entry_for(fact: Fact, dim: int) -> Entry:
    """The entry of a fact read from its note: its stems, entities, identifiers, script and HRR vector (no meaning
    vector or reading yet)."""
    given = fact.entities or tuple(entity_names.extract(fact.content))
    keys = tuple(dict.fromkeys(entity_names.key(n) for n in given))
    stems = frozenset(stemming.query_terms(fact.content))
    vector = hrr.encode_fact(sorted(stems), keys, dim)
    code = SCRIPT_CODES.get(script(fact.content) or "", 0)
    return Entry(fact, stems, keys, tuple(given), vector, identifiers=entity_names.identifiers(fact.content), script=code)


def to_row(entry: Entry) -> FactRow:
    """The row the index keeps for an entry (`memory_facts`): the fact and its derived fields as JSON, the vectors as
    bytes."""
    fact = entry.fact.to_json()
    del fact["path"], fact["sha256"]  # the row's own columns
    record = {
        "fact": fact,
        "stems": sorted(entry.stems),
        "keys": list(entry.entity_keys),
        "names": list(entry.entity_names),
        "identifiers": sorted(entry.identifiers),
        "script": entry.script,
    }
    meaning = None if entry.meaning is None else entry.meaning.astype(np.float32).tobytes()
    reading = None if entry.reading is None else entry.reading.astype(np.float32).tobytes()
    return FactRow(entry.fact.path, entry.fact.sha256, json.dumps(record, ensure_ascii=False), entry.vector.tobytes(), entry.model, meaning, reading)


def from_row(row: FactRow, dim: int) -> Entry | None:
    """The entry a stored row holds, or None when it cannot be used (another HRR dimension, an unreadable record)."""
    if len(row.hrr) != dim:
        return None
    try:
        record = json.loads(row.record)
        data = record["fact"]
        fact = Fact(
            **{k: data[k] for k in ("id", "content", "category", "trust", "helpful", "unhelpful", "created", "updated", "supersedes")},
            tags=tuple(data["tags"]),
            entities=tuple(data["entities"]),
            path=row.path,
            sha256=row.sha256,
        )
        meaning = None if row.meaning is None else np.frombuffer(row.meaning, np.float32)
        reading = None if row.reading is None or len(row.reading) != 4 * aligned.DIM else np.frombuffer(row.reading, np.float32)
        vector = np.frombuffer(row.hrr, np.uint8)
        model = row.model if meaning is not None else None
        ids = frozenset(record["identifiers"])
        return Entry(
            fact, frozenset(record["stems"]), tuple(record["keys"]), tuple(record["names"]), vector, meaning, model, ids, record["script"], reading
        )
    except (ValueError, KeyError, TypeError):
        return None
