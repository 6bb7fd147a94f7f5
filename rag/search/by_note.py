"""Search results for people: hybrid hits, filtered by folder, tag, project and tier inside retrieval
(rag/search/filters.py), grouped by note, each note with its best passages. Knows nothing about the UI.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from rag.index.records import FileInfo
from rag.index.storage import IndexStore
from rag.search.filters import Filters, tag_key
from rag.search.results import Hit, TimeScope, relevant
from rag.search.retrieve import Retriever
from rag.search.when import timed_hybrid

__all__ = ["DEPTH", "FilterChoices", "Filters", "NoteMatch", "NoteResults", "filter_choices", "search_notes"]

DEPTH = 200  # passages ranked, then grouped into notes


@dataclass(frozen=True)
class FilterChoices:
    folders: tuple[str, ...]
    tags: tuple[str, ...]
    projects: tuple[str, ...]
    tiers: tuple[int, ...]


@dataclass(frozen=True)
class NoteMatch:
    info: FileInfo
    score: float  # of its best passage
    hits: tuple[Hit, ...]  # its best passages, best first

    @property
    def path(self) -> str:
        return self.info.path


@dataclass(frozen=True)
class NoteResults:
    notes: tuple[NoteMatch, ...]
    channels: tuple[str, ...]  # the retrieval channels that served
    notice: str | None  # why a channel is missing
    hidden: int = 0  # notes found only by passages under the relevance floor
    time: TimeScope | None = None  # the time the search kept to (rag/search/when.py)


def filter_choices(store: IndexStore) -> FilterChoices:
    """Every folder, tag, project and tier present in the index, sorted, for the filter widgets."""
    files = store.files()
    folders = sorted({"/".join(f.path.split("/")[:depth]) for f in files for depth in range(1, f.path.count("/") + 1)})
    tags = sorted({tag_key(t) for f in files for t in f.tags}, key=str.casefold)
    projects = sorted({f.project for f in files if f.project}, key=str.casefold)
    return FilterChoices(tuple(folders), tuple(tags), tuple(projects), tuple(sorted({f.tier for f in files})))


def search_notes(
    retriever: Retriever,
    query: str,
    filters: Filters = Filters(),
    *,
    notes: int = 10,
    passages: int = 3,
    relevant_only: bool = False,
    today: date | None = None,
) -> NoteResults:
    """The best `notes` notes for `query` that pass `filters`, each with up to `passages` passages; with
    `relevant_only`, only passages that reach the relevance floor (`results.relevant`) unless a period the question
    names narrowed the search. With `today`, that time is applied (rag/search/when.py); notes keep the order of their
    best passages."""
    raw = timed_hybrid(retriever, query, DEPTH, today=today, filters=filters, candidates=DEPTH)
    relevant_only = relevant_only and not (raw.time is not None and raw.time.narrows)
    result = relevant(raw) if relevant_only else raw
    infos = {f.path: f for f in retriever.store.files()} if result.hits else {}
    groups: dict[str, list[Hit]] = {}
    for hit in result.hits:
        info = infos.get(hit.chunk.path)
        if info is None:  # removed since it was ranked
            continue
        groups.setdefault(hit.chunk.path, []).append(hit)
    # In the order of their best passages: by score, or newest first for "when did I last …"
    matches = [NoteMatch(infos[path], hits[0].score, tuple(hits[:passages])) for path, hits in groups.items()]
    hidden = len({h.chunk.path for h in raw.hits} - {m.path for m in matches[:notes]}) if relevant_only else 0
    return NoteResults(tuple(matches[:notes]), result.channels, result.notice, hidden, raw.time)
