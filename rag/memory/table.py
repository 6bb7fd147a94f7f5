"""The facts of one index generation, ready to rank: each fact with its stems, entity keys, chunk rows, HRR vector
and meaning vector (one `Entry` each, rag/memory/fact_entries.py), read from the fact notes the index knows
(`Memory/Facts/…`).

Rebuilt when the index changes, reusing every fact whose note did not (keyed by its sha256), so one new fact costs
one parse, one HRR encoding and one embedding. What was built is kept in the index (`memory_facts`), so another
process — the next MCP server, the app after a restart — reads the table instead of re-reading and re-embedding every
fact note (10k facts: ~12 s to parse and encode, minutes to embed).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from rag.embed import aligned
from rag.errors import EmbedderError, NoteError
from rag.memory import facts as fact_notes
from rag.memory.fact_entries import Entry, entry_for, from_row, to_row
from rag.memory.meaning import fact_readings, fact_vectors
from rag.notes.vault import read_note
from rag.search import languages

log = logging.getLogger(__name__)

EMBED_RETRY_SECONDS = 60.0  # facts left without a meaning vector (the embedder was down) are tried again after this
EMBED_NOW = 32  # new facts a rebuild embeds itself; more are embedded by `FactCache.embed_missing`
EMBED_BATCH = 512  # facts per published batch of `embed_missing`


@dataclass(frozen=True, eq=False)
class FactTable:
    entries: tuple[Entry, ...]
    matrix: np.ndarray  # HRR vectors, one row per entry
    by_id: dict[str, int]
    superseded_by: dict[str, str]  # older fact id → the id of the fact that supersedes it
    names: dict[str, str] = field(default_factory=dict)  # entity key → a name as written
    by_entity: dict[str, tuple[int, ...]] = field(default_factory=dict)  # entity key → entries bound to it
    by_identifier: dict[str, tuple[int, ...]] = field(default_factory=dict)  # identifier → entries containing it
    by_stem: dict[str, np.ndarray] = field(default_factory=dict)  # content stem → the entries that have it
    stem_counts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # each entry's number of stems
    meanings: np.ndarray | None = None  # meaning vectors, one row per entry (zeros where missing); None: none at all
    scripts: np.ndarray | None = None  # each entry's script code (rag.text.sentences.SCRIPT_CODES)
    offsets: dict[int, np.ndarray] = field(default_factory=dict)  # per script, its offset from the facts' centre
    unembedded: int = 0  # entries without a meaning vector (the embedder was down)
    load_rows: Callable[[], dict[int, int]] = dict  # reads `rows` from the index, when the keyword channel runs
    readings: np.ndarray | None = None  # the aligned model's vectors, one row per entry (zeros where missing); None: none
    read: np.ndarray | None = None  # which entries have a reading (bool)

    def __len__(self) -> int:
        return len(self.entries)

    @functools.cached_property
    def rows(self) -> dict[int, int]:
        """chunk rowid → entry index (read on first use: only the keyword channel needs it, and at 10k facts it is a
        third of reading the table)."""
        return self.load_rows()

    def chunk_rows(self, allowed: set[int] | None = None) -> list[int]:
        return list(self.rows) if allowed is None else [r for r, i in self.rows.items() if i in allowed]

    def get(self, fact_id: str) -> Entry | None:
        i = self.by_id.get(fact_id)
        return None if i is None else self.entries[i]


class FactCache:
    """One vault's fact table, rebuilt when the index's generation or the embedder changes (shared by every view of
    the index), and kept in the index for the next process.

    Reading the table is quick (10k facts from the index: about a second) and every reader waits for it, so a fact
    written is a fact recalled. Embedding is not quick (10k facts: minutes), so a rebuild embeds at most EMBED_NOW
    new facts itself (one remembered fact: a few ms) and leaves a bulk import to `embed_missing` — the indexer's job
    after each pass, and `rag index` — which embeds outside the build lock and publishes as it goes; until then those
    facts are found by their words and names."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards the fields below; held only to read or swap them
        self._building = threading.Lock()  # one rebuild (or merge of new vectors) at a time
        self._embedding = threading.Lock()  # one bulk embedding at a time
        self._key: tuple | None = None  # (generation, embedder name)
        self._table: FactTable | None = None
        self._entries: dict[str, Entry] = {}  # path → entry (its fact's sha256 says which note it was read from)
        self._stored: set[str] | None = None  # the paths the index holds rows for, as far as this cache knows
        self._retry_at = 0.0  # when to try embedding again after the embedder failed

    def table(self, ws, dim: int) -> FactTable:
        embedder = ws.retriever.embedder
        key = (ws.store.generation(), getattr(embedder, "name", None))
        with self._lock:
            if self._table is not None and key == self._key and not self._retry_now(self._table):
                return self._table
        with self._building:
            with self._lock:
                if self._table is not None and key == self._key and not self._retry_now(self._table):
                    return self._table  # built by the thread this one waited for
            entries, changed = self._read(ws, dim)
            missing = _missing(entries, getattr(embedder, "name", None))
            if missing and len(missing) <= EMBED_NOW and time.monotonic() >= self._retry_at:
                changed |= self._embed(entries, missing, embedder)
            return self._publish(ws, entries, changed, dim, key)

    def embed_missing(self, ws, dim: int, *, progress=None) -> int:
        """Embed every fact that has no meaning vector from the serving model, EMBED_BATCH at a time, publishing
        each batch; `progress("embedding facts", done, total)`. The number embedded (0 if the embedder failed)."""
        self.table(ws, dim)
        embedder = ws.retriever.embedder
        model = getattr(embedder, "name", None)
        with self._embedding:
            with self._lock:
                entries = dict(self._entries)
            missing = _missing(entries, model)
            done = 0
            for start in range(0, len(missing), EMBED_BATCH):
                part = missing[start : start + EMBED_BATCH]
                got = self._embed(entries, part, embedder)
                if not got:
                    break
                with self._building:
                    merged = dict(self._entries)
                    for path in got:  # only where the note was not changed meanwhile
                        if path in merged and merged[path].fact.sha256 == entries[path].fact.sha256:
                            merged[path] = entries[path]
                    self._publish(ws, merged, got & set(merged), dim, self._key)
                done += len(got)
                if progress is not None:
                    progress("embedding facts", done, len(missing))
            return done

    def _retry_now(self, table: FactTable) -> bool:
        return 0 < table.unembedded <= EMBED_NOW and time.monotonic() >= self._retry_at

    def _read(self, ws, dim: int) -> tuple[dict[str, Entry], set[str]]:
        """The entries of the fact notes the index knows: from memory, else from the index's rows, else read from the
        note; and the paths read from a note (to store)."""
        prefix = fact_notes.FACTS_FOLDER + "/"
        states = {p: s.sha256 for p, s in ws.store.file_states().items() if p.startswith(prefix)}

        def current(entry: Entry | None, path: str) -> bool:
            return entry is not None and entry.fact.sha256 == states[path] and entry.vector.shape[0] == dim

        kept = {p: e for p, e in self._entries.items() if p in states and current(e, p)}
        if self._stored is None or len(kept) < len(states):  # another process may have stored what this one lacks
            self._stored = set()
            for row in ws.store.fact_rows():
                self._stored.add(row.path)
                if row.path in states and row.path not in kept:
                    entry = from_row(row, dim)
                    if current(entry, row.path):
                        kept[row.path] = entry
        changed = set()
        for path in sorted(states):
            if path not in kept:
                entry = _read_entry(ws, path, dim)
                if entry is not None:
                    kept[path] = entry
                    changed.add(path)
        return kept, changed

    def _embed(self, entries: dict[str, Entry], paths: list[str], embedder) -> set[str]:
        """Meaning vectors and readings for these entries where they lack one (replaced in `entries`); the paths that
        got either, none if the embedder failed (nor when only the aligned model did, and the meanings were there:
        nothing to store again)."""
        model = getattr(embedder, "name", None)
        if model is None:
            return set()  # an embedder without a name cannot key its vectors
        unmeant = [p for p in paths if entries[p].meaning is None or entries[p].model != model]
        try:
            vectors = fact_vectors(embedder, [entries[p].fact for p in unmeant])
        except EmbedderError as exc:
            log.warning("Agent memory: %d facts have no meaning vector yet (%s); recall finds them by their words.", len(unmeant), exc)
            self._retry_at = time.monotonic() + EMBED_RETRY_SECONDS
            return set()
        self._retry_at = 0.0
        for p, vector in zip(unmeant, vectors):
            entries[p] = replace(entries[p], meaning=vector, model=model)
        unread = [p for p in paths if entries[p].reading is None]  # an index from before readings: e5's are kept
        try:
            readings = fact_readings([entries[p].fact for p in unread])
        except EmbedderError as exc:  # recall reads by e5 alone meanwhile; tried again with the next batch or retry
            log.warning("Agent memory: %d facts not read by the aligned model yet (%s).", len(unread), exc)
            self._retry_at = time.monotonic() + EMBED_RETRY_SECONDS
            readings = []
        for p, reading in zip(unread, readings):
            entries[p] = replace(entries[p], reading=reading)
        return set(unmeant) | set(unread[: len(readings)])

    def _publish(self, ws, entries: dict[str, Entry], changed: set[str], dim: int, key) -> FactTable:
        """Store the changed rows (and drop the rows of notes gone), then make `entries` the table. Under `_building`."""
        gone = sorted(self._stored - set(entries)) if self._stored is not None else []
        if changed or gone:
            ws.store.save_fact_rows([to_row(entries[p]) for p in sorted(changed)], drop=gone)
            self._stored = ((self._stored or set()) - set(gone)) | changed
        table = _assemble(ws, tuple(entries[p] for p in sorted(entries)), dim)
        with self._lock:
            self._entries, self._table, self._key = entries, table, key
        return table


def _missing(entries: dict[str, Entry], model: str | None) -> list[str]:
    """The paths whose entry has no meaning vector from `model`, or no reading (an index from before readings)."""
    return sorted(p for p, e in entries.items() if e.meaning is None or e.model != model or e.reading is None)


def _assemble(ws, entries: tuple[Entry, ...], dim: int) -> FactTable:
    def load_rows() -> dict[int, int]:
        by_path = {e.fact.path: i for i, e in enumerate(entries)}
        return {rowid: by_path[path] for rowid, path in ws.store.chunk_paths(list(by_path)).items() if path in by_path}

    by_id: dict[str, int] = {}
    for i, e in enumerate(entries):
        by_id.setdefault(e.fact.id, i)  # a copied note with the same id: the first path wins
    superseded = {e.fact.supersedes: e.fact.id for e in entries if e.fact.supersedes}
    names = {k: n for e in entries for k, n in zip(e.entity_keys, e.entity_names)}
    bound: dict[str, list[int]] = {}
    holding: dict[str, list[int]] = {}
    wording: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        for stem in e.stems:
            wording.setdefault(stem, []).append(i)
        for k in e.entity_keys:
            bound.setdefault(k, []).append(i)
        for token in e.identifiers:
            holding.setdefault(token, []).append(i)
    matrix = np.stack([e.vector for e in entries]) if entries else np.zeros((0, dim), np.uint8)
    scripts = np.array([e.script for e in entries], np.int8)
    meanings = _meanings(entries)
    offsets = {} if meanings is None else languages.script_offsets(meanings, scripts)
    read = np.array([e.reading is not None for e in entries], bool)
    readings = None
    if read.any():
        readings = np.zeros((len(entries), aligned.DIM), np.float32)
        for i in np.flatnonzero(read):
            readings[i] = entries[i].reading
    return FactTable(
        entries,
        matrix,
        by_id,
        superseded,
        names,
        {k: tuple(v) for k, v in bound.items()},
        {t: tuple(v) for t, v in holding.items()},
        {t: np.array(v, np.int64) for t, v in wording.items()},
        np.array([len(e.stems) for e in entries], np.int64),
        meanings,
        scripts,
        offsets,
        sum(e.meaning is None for e in entries),
        load_rows,
        readings=readings,
        read=read,
    )


def _meanings(entries: tuple[Entry, ...]) -> np.ndarray | None:
    """The entries' meaning vectors, one row each (zeros where missing); None when none has one, or they differ in
    width."""
    widths = {e.meaning.shape[0] for e in entries if e.meaning is not None}
    if len(widths) != 1:
        return None
    meanings = np.zeros((len(entries), widths.pop()), np.float32)
    for i, e in enumerate(entries):
        if e.meaning is not None:
            meanings[i] = e.meaning
    return meanings


def _read_entry(ws, path: str, dim: int) -> Entry | None:
    try:
        note = read_note(ws.settings.vault, path, outside=ws.settings.outside_folders)
    except NoteError:
        return None
    fact = fact_notes.parse(path, note.text, note.sha256)
    return None if fact is None else entry_for(fact, dim)
