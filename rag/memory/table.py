"""The facts of one index generation, ready to rank: each fact with its stems, entity keys, chunk rows and HRR
vector, read from the fact notes the index knows (`Memory/Facts/…`).

Rebuilt when the index changes, reusing every fact whose note did not (keyed by its sha256), so one new fact
costs one parse and one HRR encoding, not a reload of all of them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from rag.errors import NoteError
from rag.memory import entities as entity_names
from rag.memory import facts as fact_notes
from rag.memory import hrr
from rag.memory.facts import Fact
from rag.notes.vault import read_note
from rag.text import stemming


@dataclass(frozen=True)
class Entry:
    fact: Fact
    stems: frozenset[str]  # content stems, stop words dropped (Jaccard, HRR content)
    entity_keys: tuple[str, ...]  # `entities.key` of its entities (given, else extracted)
    entity_names: tuple[str, ...]  # as written, same order
    vector: np.ndarray  # HRR, uint8 phases


@dataclass(frozen=True, eq=False)
class FactTable:
    entries: tuple[Entry, ...]
    matrix: np.ndarray  # HRR vectors, one row per entry
    rows: dict[int, int]  # chunk rowid → entry index
    by_id: dict[str, int]
    superseded_by: dict[str, str]  # older fact id → the id of the fact that supersedes it
    names: dict[str, str] = field(default_factory=dict)  # entity key → a name as written
    by_entity: dict[str, tuple[int, ...]] = field(default_factory=dict)  # entity key → entries bound to it

    def __len__(self) -> int:
        return len(self.entries)

    def chunk_rows(self, allowed: set[int] | None = None) -> list[int]:
        return list(self.rows) if allowed is None else [r for r, i in self.rows.items() if i in allowed]

    def get(self, fact_id: str) -> Entry | None:
        i = self.by_id.get(fact_id)
        return None if i is None else self.entries[i]


def entry_for(fact: Fact, dim: int) -> Entry:
    given = fact.entities or tuple(entity_names.extract(fact.content))
    keys = tuple(dict.fromkeys(entity_names.key(n) for n in given))
    stems = frozenset(stemming.query_terms(fact.content))
    return Entry(fact, stems, keys, tuple(given), hrr.encode_fact(sorted(stems), keys, dim))


class FactCache:
    """One vault's fact table, rebuilt when the index's generation changes (shared by every view of the index)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._table: FactTable | None = None
        self._entries: dict[str, tuple[str, Entry]] = {}  # path → (sha256, entry)

    def table(self, ws, dim: int) -> FactTable:
        generation = ws.store.generation()
        with self._lock:
            if self._table is None or generation != self._generation:
                self._table, self._generation = self._build(ws, dim), generation
            return self._table

    def _build(self, ws, dim: int) -> FactTable:
        prefix = fact_notes.FACTS_FOLDER + "/"
        states = {p: s.sha256 for p, s in ws.store.file_states().items() if p.startswith(prefix)}
        kept: dict[str, tuple[str, Entry]] = {}
        for path, sha in sorted(states.items()):
            old = self._entries.get(path)
            if old is not None and old[0] == sha and old[1].vector.shape[0] == dim:
                kept[path] = old
                continue
            entry = _read_entry(ws, path, dim)
            if entry is not None:
                kept[path] = (sha, entry)
        self._entries = kept
        entries = tuple(e for _, e in kept.values())
        by_path = {e.fact.path: i for i, e in enumerate(entries)}
        rows = {}
        chunks = ws.store.chunks_by_rowid(ws.store.chunk_rowids(list(by_path)))
        for rowid, chunk in chunks.items():
            if chunk.path in by_path:
                rows[rowid] = by_path[chunk.path]
        by_id: dict[str, int] = {}
        for i, e in enumerate(entries):
            by_id.setdefault(e.fact.id, i)  # a copied note with the same id: the first path wins
        superseded = {e.fact.supersedes: e.fact.id for e in entries if e.fact.supersedes}
        names = {k: n for e in entries for k, n in zip(e.entity_keys, e.entity_names)}
        bound: dict[str, list[int]] = {}
        for i, e in enumerate(entries):
            for k in e.entity_keys:
                bound.setdefault(k, []).append(i)
        matrix = np.stack([e.vector for e in entries]) if entries else np.zeros((0, dim), np.uint8)
        return FactTable(entries, matrix, rows, by_id, superseded, names, {k: tuple(v) for k, v in bound.items()})


def _read_entry(ws, path: str, dim: int) -> Entry | None:
    try:
        note = read_note(ws.settings.vault, path, outside=ws.settings.outside_folders)
    except NoteError:
        return None
    fact = fact_notes.parse(path, note.text, note.sha256)
    return None if fact is None else entry_for(fact, dim)
