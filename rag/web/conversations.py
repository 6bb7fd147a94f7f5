"""Saved conversations of the browser app: the last few chats per vault and browser, in one small JSON file next to
the index.

Each conversation belongs to the browser that had it (`browser`: the random id the app keeps in that browser's
cookie, app_pages/browser_scripts.py): a `ConversationFile` is one browser's view of the file, and lists, opens, saves and
deletes only that browser's conversations; another browser never sees them, not even by their id in a link.
Conversations saved before they had an owner (the app shared one list with every browser) go to the first browser
that lists them: on this local app that is almost always the person who had them, and no other browser ever sees them.

A conversation keeps each answer whole (text, sources with their exact text, claims, quotes), so a reopened chat
shows the same citations, badges and passages as when it was asked, even if a note changed since. The file sits in
the index's folder (the user's data folder, not the vault): it holds passages of the notes, like the index.
Writes are atomic (a temporary file renamed over the old one) and serialised per file within the process; several
app processes on one vault may lose each other's last write, never corrupt the file. Knows nothing about Streamlit.
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
import threading
import time
import types
import typing
import uuid
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from rag.surface import Answer, disk

FILE_NAME = "conversations.json"
KEEP = 30  # conversations kept per vault and browser; the oldest beyond go
KEEP_ALL = 300  # and per vault, whichever browsers had them: the file stays small when many browsers come and go
FORMAT = 1  # `browser` came later, within format 1: older files read as conversations with no owner yet
_BROWSER_ID = re.compile(r"[0-9a-f]{32}")
UNREADABLE = (OSError, ValueError, TypeError, KeyError, AttributeError)  # what reading a damaged file raises
_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


@dataclass(frozen=True)
class ChatTurn:
    answer: Answer
    model: str | None = None  # the chat model's name, None for extractive answers
    first_token: float | None = None  # seconds from the question to the first streamed text
    total: float | None = None  # seconds to the final answer


@dataclass
class Conversation:
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    turns: list[ChatTurn] = field(default_factory=list)
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    browser: str = ""  # the browser it belongs to; "" in a file from before conversations had owners

    @property
    def title(self) -> str:
        """The first question, on one line."""
        return " ".join(self.turns[0].answer.question.split()) if self.turns else ""


def new_browser_id() -> str:
    """A random id for a browser that has none: 128 bits, so no browser guesses another's."""
    return secrets.token_hex(16)


def is_browser_id(value: object) -> bool:
    """Whether `value` (say, a cookie a browser sent) has the form of an id `new_browser_id` makes."""
    return isinstance(value, str) and _BROWSER_ID.fullmatch(value) is not None


class ConversationFile:
    """One browser's saved conversations of one index, in `<index folder>/conversations.json`."""

    def __init__(self, db_path: Path, browser: str) -> None:
        if not is_browser_id(browser):
            raise ValueError("a browser id is 32 hex digits (new_browser_id)")
        self.path = Path(db_path).parent / FILE_NAME
        self.browser = browser
        with _locks_guard:
            self._lock = _locks.setdefault(self.path, threading.Lock())

    def load(self) -> list[Conversation]:
        """This browser's, newest first. A missing file is no conversations; an unreadable one raises ValueError
        (or another of `UNREADABLE`). Conversations with no owner yet become this browser's (the module's docstring says why)."""
        everyone = self._read()
        if any(not c.browser for c in everyone):
            with self._lock:
                everyone = self._read()  # again under the lock: another browser may have taken them meanwhile
                for c in everyone:
                    c.browser = c.browser or self.browser
                self._write(everyone)
        return [c for c in everyone if c.browser == self.browser]

    def get(self, conversation_id: str) -> Conversation | None:
        """This browser's conversation with that id; None for another browser's, as for one that does not exist."""
        return next((c for c in self.load() if c.id == conversation_id), None)

    def save(self, conversation: Conversation) -> None:
        """Add or replace `conversation` as this browser's (an empty one is not kept); only the newest `KEEP` of a
        browser and `KEEP_ALL` in all stay."""
        conversation.updated = time.time()
        conversation.browser = self.browser
        with self._lock:
            kept = [c for c in self._read_or_empty() if c.id != conversation.id]
            if conversation.turns:
                kept.append(conversation)
            self._write(_newest(kept))

    def delete(self, conversation_id: str) -> None:
        """Delete this browser's conversation with that id (another browser's stays)."""
        with self._lock:
            everyone = self._read_or_empty()
            self._write([c for c in everyone if c.id != conversation_id or c.browser != self.browser])

    def _read(self) -> list[Conversation]:
        """Every browser's, newest first."""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{self.path} is not a conversations file of format {FORMAT}")
        conversations = [_build(Conversation, c) for c in data.get("conversations", [])]
        return sorted(conversations, key=lambda c: -c.updated)

    def _read_or_empty(self) -> list[Conversation]:
        try:
            return self._read()
        except UNREADABLE:  # a damaged file is replaced rather than blocking every save
            return []

    def _write(self, conversations: list[Conversation]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"format": FORMAT, "conversations": [dataclasses.asdict(c) for c in conversations]}
        text = json.dumps(data, ensure_ascii=False, default=_day_text)
        disk.replace(self.path, text.encode("utf-8"), new_mode=0o600)  # questions are private


def _newest(conversations: list[Conversation]) -> list[Conversation]:
    """Newest first: at most `KEEP` of each browser, and `KEEP_ALL` in all."""
    per_browser: dict[str, int] = {}
    kept = []
    for c in sorted(conversations, key=lambda c: -c.updated):
        per_browser[c.browser] = per_browser.get(c.browser, 0) + 1
        if per_browser[c.browser] <= KEEP:
            kept.append(c)
    return kept[:KEEP_ALL]


def _day_text(value):
    """The one value of an answer that JSON has no type for: the days of the time it searched in."""
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _build(kind, value):
    """`value` (parsed JSON) as an instance of the type `kind`: dataclasses, tuples, lists, optionals, plain values."""
    origin = typing.get_origin(kind)
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        known = {f.name for f in dataclasses.fields(kind)}
        return kind(**{k: _build(hints[k], v) for k, v in value.items() if k in known})
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(kind) if a is not type(None)]
        return None if value is None else _build(options[0], value)
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build(args[0], v) for v in value)
        return tuple(_build(a, v) for a, v in zip(args, value))
    if origin is list:
        return [_build(typing.get_args(kind)[0], v) for v in value]
    if kind is date:
        return date.fromisoformat(value)
    return value
