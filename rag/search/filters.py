"""Which notes a search may return: folders, tags, projects and tiers, applied inside retrieval.

A filter becomes the set of chunk rows of the notes it admits; the keyword channel asks SQLite for matches among
those rows only (a WHERE on the FTS query) and the meaning channel masks every other row of its matrix, so a filtered
search ranks all the notes that pass, not the few that happened to be in an unfiltered top-N. Knows nothing about UIs.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag.index.records import FileInfo
from rag.index.storage import IndexStore


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
        if self.tags and not {tag_key(t) for t in info.tags} & {tag_key(t) for t in self.tags}:
            return False
        if self.projects and info.project not in self.projects:
            return False
        return not self.tiers or info.tier in self.tiers

    def rows(self, store: IndexStore) -> list[int] | None:
        """The chunk rowids of the notes this filter admits (sorted); None when it admits everything."""
        if not self.active:
            return None
        return store.chunk_rowids([f.path for f in store.files() if self.admits(f)])


def tag_key(tag: str) -> str:
    """A tag as it is compared: `#` dropped, case folded (Cyrillic too, which SQLite's lower() does not fold)."""
    return str(tag).strip().lstrip("#").casefold()


def _inside(path: str, folder: str) -> bool:
    folder = folder.strip("/")
    return not folder or path.startswith(folder + "/")
