"""Which note of the vault a wikilink opens, found as Obsidian finds it: a path from the vault's root first
(`[[Projects/Greenhouse/Overview]]`), else the note of that name anywhere in the vault (`[[Overview]]`; the shortest
path when several share the name; names compared without case). A link to a picture, to a heading of the same note,
or to a note that does not exist opens nothing.

The vault's note names are listed as the vault walk would see them (no hidden folders, no SKIP_DIRS, folder links not
followed), at most MAX_NOTES of them and at most once every LIST_SECONDS per vault: an answer is drawn again on every
rerun of the app, and must not walk a big vault each time. Knows nothing about Markdown rendering or the index.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from rag.notes import pdf
from rag.notes.vault import NOTE_SUFFIXES, READ_SUFFIXES, SKIP_DIRS
from rag.text.wikilinks import Wikilink

LIST_SECONDS = 30.0
MAX_NOTES = 100_000


@dataclass(frozen=True)
class _Names:
    listed: float  # time.monotonic() of the listing
    paths: dict[str, str]  # casefolded vault-relative path → the path
    by_name: dict[str, str]  # casefolded name without suffix → the shortest path of that name


_LISTED: dict[str, _Names] = {}
_LOCK = threading.Lock()


def obsidian_url(vault: Path, path: str, page: int | None = None) -> str:
    """`obsidian://open?vault=<vault folder name>&file=<vault-relative path>`, both URI-encoded; a PDF's `page` as
    Obsidian's own links give it (`Paper.pdf#page=3`)."""
    target = f"{path}#page={page}" if page else path
    return f"obsidian://open?vault={quote(Path(vault).name, safe='')}&file={quote(target, safe='')}"


def note_for(vault: Path, link: Wikilink) -> str | None:
    """The vault-relative path of the note `link` opens, or None."""
    target = link.target.strip().strip("/")
    if not target:
        return None
    names = _names(vault)
    wanted = target.casefold()
    for candidate in (wanted, *(wanted + s for s in NOTE_SUFFIXES)):
        if candidate in names.paths and candidate.endswith(READ_SUFFIXES):
            return names.paths[candidate]
    if "/" in target:
        return None  # a path that is not there: Obsidian would not find it by name either
    name = wanted
    for suffix in NOTE_SUFFIXES:
        name = name.removesuffix(suffix)
    return names.by_name.get(name)


def _names(vault: Path) -> _Names:
    key = str(vault)
    with _LOCK:
        known = _LISTED.get(key)
        if known is not None and time.monotonic() - known.listed < LIST_SECONDS:
            return known
    names = _list(vault)
    with _LOCK:
        _LISTED[key] = names
    return names


def _list(vault: Path) -> _Names:
    paths: dict[str, str] = {}
    by_name: dict[str, str] = {}
    root = str(vault)
    for folder, dirs, files in os.walk(root, onerror=lambda _: None):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        for name in files:
            if name.startswith(".") or not name.lower().endswith(READ_SUFFIXES):
                continue
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            paths[rel.casefold()] = rel
            # A note is linked by its name alone ([[Paper]]), a PDF by its name with ".pdf" ([[Paper.pdf]]), as in Obsidian
            stem = name.casefold() if name.lower().endswith(pdf.SUFFIX) else os.path.splitext(name)[0].casefold()
            if stem not in by_name or (len(rel), rel) < (len(by_name[stem]), by_name[stem]):
                by_name[stem] = rel
            if len(paths) >= MAX_NOTES:
                return _Names(time.monotonic(), paths, by_name)
    return _Names(time.monotonic(), paths, by_name)
