"""Saved conversations of the browser app: the last few chats per vault, in one small JSON file next to the index.

A conversation keeps each answer whole (text, sources with their exact text, claims, quotes), so a reopened chat
shows the same citations, badges and passages as when it was asked, even if a note changed since. The file sits in
the index's folder (the user's data folder, not the vault): it holds passages of the notes, like the index.
Writes are atomic (a temporary file renamed over the old one) and serialised per file within the process; several
app processes on one vault may lose each other's last write, never corrupt the file. Knows nothing about Streamlit.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
import types
import typing
import uuid
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from rag.answer.ask import Answer
from rag.notes import disk

FILE_NAME = "conversations.json"
KEEP = 30  # conversations kept per vault; the oldest beyond go
FORMAT = 1
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

    @property
    def title(self) -> str:
        """The first question, on one line."""
        return " ".join(self.turns[0].answer.question.split()) if self.turns else ""


class ConversationFile:
    """The saved conversations of one index: `<index folder>/conversations.json`."""

    def __init__(self, db_path: Path) -> None:
        self.path = Path(db_path).parent / FILE_NAME
        with _locks_guard:
            self._lock = _locks.setdefault(self.path, threading.Lock())

    def load(self) -> list[Conversation]:
        """Newest first. A missing file is no conversations; an unreadable one raises ValueError (or OSError)."""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{self.path} is not a conversations file of format {FORMAT}")
        conversations = [_build(Conversation, c) for c in data.get("conversations", [])]
        return sorted(conversations, key=lambda c: -c.updated)

    def get(self, conversation_id: str) -> Conversation | None:
        return next((c for c in self.load() if c.id == conversation_id), None)

    def save(self, conversation: Conversation) -> None:
        """Add or replace `conversation` (an empty one is not kept); only the newest `KEEP` stay."""
        conversation.updated = time.time()
        with self._lock:
            kept = [c for c in self._load_or_empty() if c.id != conversation.id]
            if conversation.turns:
                kept.insert(0, conversation)
            self._write(sorted(kept, key=lambda c: -c.updated)[:KEEP])

    def delete(self, conversation_id: str) -> None:
        with self._lock:
            self._write([c for c in self._load_or_empty() if c.id != conversation_id])

    def _load_or_empty(self) -> list[Conversation]:
        try:
            return self.load()
        except (OSError, ValueError, TypeError, KeyError):  # a damaged file is replaced rather than blocking every save
            return []

    def _write(self, conversations: list[Conversation]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"format": FORMAT, "conversations": [dataclasses.asdict(c) for c in conversations]}
        text = json.dumps(data, ensure_ascii=False, default=_day_text)
        disk.replace(self.path, text.encode("utf-8"), new_mode=0o600)  # questions are private


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
