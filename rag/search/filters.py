"""Which notes a search may return: folders, tags, projects, tiers and a date range, applied inside retrieval.

A filter becomes the set of chunk rows of the notes it admits; the keyword channel asks SQLite for matches among
those rows only (a WHERE on the FTS query) and the meaning channel masks every other row of its matrix, so a filtered
search ranks all the notes that pass, not the few that happened to be in an unfiltered top-N. A date range admits the
passages whose day (rag/notes/dates.py), or the day of a log entry in them, falls inside it. Knows nothing about UIs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from rag.errors import QueryError
from rag.index.records import FileInfo
from rag.index.storage import IndexStore


@dataclass(frozen=True)
class Filters:
    folders: tuple[str, ...] = ()  # vault-relative folders; a note matches if it is inside any of them
    tags: tuple[str, ...] = ()  # a note matches if it has any of them (case-insensitive, `#` optional)
    projects: tuple[str, ...] = ()
    tiers: tuple[int, ...] = ()
    after: date | None = None  # the first day, inclusive (None: from the beginning)
    before: date | None = None  # the last day, inclusive (None: up to now and beyond)

    def __post_init__(self) -> None:
        if self.after is not None and self.before is not None and self.after > self.before:
            raise QueryError(f"The date range ends before it starts ({self.after.isoformat()} to {self.before.isoformat()}): swap after and before.")

    @property
    def active(self) -> bool:
        return self.by_note or self.dated

    @property
    def by_note(self) -> bool:
        return bool(self.folders or self.tags or self.projects or self.tiers)

    @property
    def dated(self) -> bool:
        return self.after is not None or self.before is not None

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
        rows = store.chunk_rowids([f.path for f in store.files() if self.admits(f)]) if self.by_note else None
        if self.dated:
            dated = store.chunk_rowids_dated(_iso(self.after), _iso(self.before))
            rows = dated if rows is None else sorted(set(rows) & set(dated))
        return rows


def tag_key(tag: str) -> str:
    """A tag as it is compared: `#` dropped, case folded (Cyrillic too, which SQLite's lower() does not fold)."""
    return str(tag).strip().lstrip("#").casefold()


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


def _inside(path: str, folder: str) -> bool:
    folder = folder.strip("/")
    return not folder or path.startswith(folder + "/")
