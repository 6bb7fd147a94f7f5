"""Obsidian wikilinks as a person reads them: `[[Note]]` → "Note", `[[Folder/Note|alias]]` → "alias",
`[[Note#Heading]]` → "Note › Heading", `[[#Heading]]` → "Heading", `![[picture.png|300]]` → "picture.png".

For showing note text and replies (the CLI's answer, the app's answers and claims); what the index reads is
`sentences.visible_text`, which stays as it is so stored texts and their vectors do not change. Pure: which note a
link opens is the vault's business (rag/notes/links.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+)\]\]")
_SIZE = re.compile(r"\d+(?:x\d+)?")  # `![[picture.png|300]]`, `|640x480`: an embed's size, not words
_NOTE_SUFFIX = re.compile(r"\.md$", re.IGNORECASE)
HOLD_CHARS = 400  # a `[[` left open longer than this in a stream is not a link: it is let through as written


@dataclass(frozen=True)
class Wikilink:
    target: str  # "Folder/Note" as written ("" for a heading of the same note)
    heading: str  # after "#" ("" for none; a block reference `#^id` is none)
    alias: str  # after "|" ("" for none)
    embed: bool  # `![[…]]`
    written: str  # the whole link as it stands in the text

    @property
    def name(self) -> str:
        """The note's (or file's) name: the target's last part, without ".md"."""
        return _NOTE_SUFFIX.sub("", self.target.rsplit("/", 1)[-1]).strip()

    @property
    def shown(self) -> str:
        """What a person reads in its place: the alias, else the name and heading; its inner text if neither."""
        if self.alias and not (self.embed and _SIZE.fullmatch(self.alias)):
            return self.alias
        return " › ".join(p for p in (self.name, self.heading) if p) or self.written.lstrip("!")[2:-2]


def parse(match: re.Match) -> Wikilink:
    """A `WIKILINK` match as its parts. A `\\|` (how a table cell writes the alias bar) counts as a bar."""
    inner = match.group(2)
    where, _, alias = inner.partition("|")
    target, _, heading = where.rstrip("\\").partition("#")
    heading = "" if heading.startswith("^") else heading.strip()
    return Wikilink(target.strip(), heading, alias.strip(), bool(match.group(1)), match.group(0))


def readable(text: str) -> str:
    """`text` with every wikilink as a person reads it."""
    return WIKILINK.sub(lambda m: parse(m).shown, text)


class ReadableStream:
    """Pieces of a streamed reply → `emit`, each wikilink as a person reads it. Text from an open `[[` on is held
    until the link closes (or a line ends, or it runs past HOLD_CHARS): a link split across pieces is still a link."""

    def __init__(self, emit: Callable[[str], None]) -> None:
        self.emit, self.held = emit, ""

    def __call__(self, piece: str) -> None:
        text = self.held + piece
        cut = _open_link_at(text)
        self.held = text[cut:]
        if cut:
            self.emit(readable(text[:cut]))

    def close(self) -> None:
        """Let out what is held (a link never closed is shown as written)."""
        if self.held:
            self.emit(readable(self.held))
            self.held = ""


def _open_link_at(text: str) -> int:
    """Where a wikilink may have begun without ending yet in `text` (its length when none may have)."""
    start = text.rfind("[[")
    if start >= 0 and "]]" not in text[start:] and "\n" not in text[start:] and len(text) - start <= HOLD_CHARS:
        return start - 1 if start and text[start - 1] == "!" else start
    for tail in ("![", "!", "["):  # the piece may end on the first characters of one
        if text.endswith(tail):
            return len(text) - len(tail)
    return len(text)
