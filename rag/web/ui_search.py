"""Search results for people: hybrid hits filtered by folder, tag, project and tier, grouped by note, each note with
its best passages.

Filtering happens after retrieval: the retriever is asked for more candidates than are shown, so a narrow filter
still finds its notes. Reads the index only through `Retriever` and `Store`; knows nothing about the UI.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag.index.store import FileInfo, Store
from rag.search.retrieve import Hit, Retriever

DEPTH = 200  # candidates fetched before filtering
DEPTH_FILTERED = 600  # with a filter, more candidates are needed to fill the page


@dataclass(frozen=True)
class Filters:
    folders: tuple[str, ...] = ()  # vault-relative folders; a note matches if it is inside any of them
    tags: tuple[str, ...] = ()  # a note matches if it has any of them (case-insensitive, `#` optional)
    projects: tuple[str, ...] = ()
    tiers: tuple[int, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.folders or self.tags or self.projects or self.tiers)

    def admits(self, info: FileInfo) -> bool:
        if self.folders and not any(_inside(info.path, f) for f in self.folders):
            return False
        if self.tags and not {_tag(t) for t in info.tags} & {_tag(t) for t in self.tags}:
            return False
        if self.projects and info.project not in self.projects:
            return False
        return not self.tiers or info.tier in self.tiers


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


def filter_choices(store: Store) -> FilterChoices:
    """Every folder, tag, project and tier present in the index, sorted, for the filter widgets."""
    files = store.files()
    folders = sorted({"/".join(f.path.split("/")[:depth]) for f in files for depth in range(1, f.path.count("/") + 1)})
    tags = sorted({_tag(t) for f in files for t in f.tags}, key=str.casefold)
    projects = sorted({f.project for f in files if f.project}, key=str.casefold)
    return FilterChoices(tuple(folders), tuple(tags), tuple(projects), tuple(sorted({f.tier for f in files})))


def search_notes(retriever: Retriever, query: str, filters: Filters = Filters(), *, notes: int = 10, passages: int = 3) -> NoteResults:
    """The best `notes` notes for `query` that pass `filters`, each with up to `passages` passages."""
    depth = DEPTH_FILTERED if filters.active else DEPTH
    result = retriever.hybrid(query, depth, candidates=depth)
    infos = {f.path: f for f in retriever.store.files()} if result.hits else {}
    groups: dict[str, list[Hit]] = {}
    for hit in result.hits:
        info = infos.get(hit.chunk.path)
        if info is None or not filters.admits(info):
            continue
        groups.setdefault(hit.chunk.path, []).append(hit)
    matches = [NoteMatch(infos[path], hits[0].score, tuple(hits[:passages])) for path, hits in groups.items()]
    matches.sort(key=lambda m: -m.score)
    return NoteResults(tuple(matches[:notes]), result.channels, result.notice)


def _inside(path: str, folder: str) -> bool:
    folder = folder.strip("/")
    return not folder or path.startswith(folder + "/")


def _tag(tag: str) -> str:
    return str(tag).strip().lstrip("#").casefold()
