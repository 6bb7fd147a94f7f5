"""Example questions for the empty Ask page of a person's own vault, drawn from the vault itself: the titles and
section headings of the notes changed last, each put into one of a few question forms (`Example.form`; the page
words them in its language from the catalogue's `ask.example.<form>`).

Cheap: no model and no search, only the note list (with modification times) and a look at the headings of a few
notes. A title or heading that would make a poor question is passed over: one that is mostly a date (a daily note),
a generic one ("Index", "TODO", «Заметки»), one too short or too long. The demo vault has its own curated questions
instead (`ask.demo.*` in rag/web/catalogue/ask.py). Titles and headings are the notes' text: the page shows them as text.
Knows nothing about Streamlit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath

from rag.errors import RagError
from rag.surface import printable

COUNT = 3  # questions shown
LOOKED_AT = 12  # newest notes whose headings may be read to find them
MAX_CHARS = 60  # a longer title or heading makes a clumsy question
# Titles and headings that say nothing of what a note is about (compared case-folded).
GENERIC = frozenset(
    {
        "index", "readme", "untitled", "inbox", "todo", "to do", "notes", "note", "overview", "summary", "links",
        "references", "sources", "log", "journal", "draft", "drafts", "ideas", "misc", "tasks", "questions",
        "без названия", "заметки", "заметка", "входящие", "ссылки", "источники", "обзор", "итоги", "задачи", "черновик",
        "идеи", "разное", "вопросы", "дневник",
    }
)  # fmt: skip
_HEADING = re.compile(r"^ {0,3}(#{2,3})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")  # a section heading (levels 2 and 3)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_WIKILINK = re.compile(r"\[\[([^\]|]*\|)?([^\]]*)\]\]")  # [[target|shown]] → shown
_MARKUP = re.compile(r"[*_`]+|<[^>]*>")


@dataclass(frozen=True)
class Note:
    path: str  # vault-relative
    title: str | None  # as the index has it; None: the file's name stands for it
    modified: str  # ISO 8601 with its offset, as `rag.projects.NoteEntry` has it


@dataclass(frozen=True)
class Example:
    form: str  # "about", "section" or "points": the catalogue's `ask.example.<form>`
    title: str
    heading: str = ""  # for "section"


def examples(notes: Iterable[Note], headings_of: Callable[[str], Iterable[str]], count: int = COUNT) -> list[Example]:
    """Questions about the newest notes that have a usable title, one per note: the first about the note, the
    second about one of its sections (or its main points when it has no usable heading), the third about the note
    again, and so on. `headings_of(path)` gives a note's section headings (when it raises OSError, ValueError or a
    RagError, the note is asked about as a whole)."""
    found: list[Example] = []
    seen: set[str] = set()
    for note in sorted(notes, key=_when, reverse=True)[:LOOKED_AT]:
        title = usable(note.title or PurePosixPath(note.path).stem)
        if title is None or title.casefold() in seen:
            continue
        seen.add(title.casefold())
        if len(found) % 2 == 0:
            found.append(Example("about", title))
            if len(found) == count:
                break
            continue
        heading = _first_heading(note.path, title, headings_of)
        found.append(Example("section", title, heading) if heading else Example("points", title))
        if len(found) == count:
            break
    return found


def usable(name: str | None) -> str | None:
    """`name` on one line, cleaned of Markdown, when it makes a good subject for a question; else None."""
    if not name:
        return None
    name = " ".join(printable(_MARKUP.sub("", _WIKILINK.sub(r"\2", name))).split()).strip(" .:-—–")
    letters = sum(ch.isalpha() for ch in name)
    digits = sum(ch.isdigit() for ch in name)
    if letters < 3 or digits >= letters or len(name) > MAX_CHARS or name.casefold() in GENERIC:
        return None
    return name


def section_headings(text: str) -> list[str]:
    """The level-2 and level-3 headings of a note's Markdown, in order, outside code blocks."""
    headings, fence = [], None
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if opened and (fence is None or opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence)):
            fence = None if fence else opened.group(1)
            continue
        match = None if fence else _HEADING.match(line)
        if match:
            headings.append(match.group(2))
    return headings


def _first_heading(path: str, title: str, headings_of: Callable[[str], Iterable[str]]) -> str | None:
    try:
        candidates = list(headings_of(path))
    except (OSError, ValueError, RagError):  # a note that cannot be read now (moved, a PDF): asked about as a whole
        return None
    for heading in candidates:
        heading = usable(heading)
        if heading and heading.casefold() != title.casefold():
            return heading
    return None


def _when(note: Note) -> float:
    try:
        return datetime.fromisoformat(note.modified).timestamp()
    except (TypeError, ValueError):
        return 0.0
